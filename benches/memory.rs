//! Resident memory of one server over a long session: 500 files of about 100 KB (a write of
//! 60 KB, then an append of 40 KB, in JavaScript, Python, TypeScript and Rust), sent one call
//! at a time and 20 calls at a time. Prints RSS after 200 and 500 files.
//!
//! `cargo bench --bench memory` (release build; the server binary is this package's).

#[path = "common/sources.rs"]
mod sources;
#[path = "common/stdio.rs"]
mod stdio;

use stdio::Server;

fn run(in_flight: usize) -> Vec<(usize, u64)> {
    let mut server = Server::start(&[], None);
    let exts = ["js", "py", "ts", "rs"];
    let bodies: Vec<String> = exts.iter().map(|e| sources::hundred_kb(e)).collect();
    let mut samples = Vec::new();
    for start in (0..500).step_by(in_flight) {
        for part in 0..2 {
            for f in start..start + in_flight {
                let (ext, text) = (exts[f % 4], &bodies[f % 4]);
                let split = text[..60_000].rfind('\n').map_or(0, |i| i + 1);
                let (tool, content) =
                    if part == 0 { ("write_file", &text[..split]) } else { ("append_file", &text[split..]) };
                server.start_call(
                    tool,
                    serde_json::json!({"path": format!("src/f{f}.{ext}"), "content": content}),
                );
            }
            for _ in 0..in_flight {
                server.receive();
            }
        }
        let done = start + in_flight;
        if done == 200 || done == 500 {
            samples.push((done, server.rss_mb()));
        }
    }
    samples
}

fn main() {
    println!("| calls in flight | RSS after 200 files | RSS after 500 files |");
    println!("|---|---|---|");
    for in_flight in [1, 20] {
        let samples = run(in_flight);
        let at = |n: usize| samples.iter().find(|(d, _)| *d == n).map_or(0, |(_, mb)| *mb);
        println!("| {in_flight} | {} MB | {} MB |", at(200), at(500));
    }
}
