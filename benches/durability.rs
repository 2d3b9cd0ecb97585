//! The cost of `--durable`: 200 calls each of `write_file` and `append_file` with 4 KB of text
//! to 20 files, one at a time, with and without the flag; p50 and p95 in ms. The root and
//! state directory are made under `FILEWRIGHT_BENCH_DIR` when set (to measure a particular
//! disk; the system's temporary directory may be in memory, where a sync costs nothing).
//!
//! `cargo bench --bench durability`

#[path = "common/stdio.rs"]
mod stdio;

use std::time::Instant;

use stdio::Server;

fn percentiles(mut ms: Vec<f64>) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    (ms[ms.len() / 2], ms[ms.len() * 95 / 100])
}

fn time(server: &mut Server, tool: &str) -> (f64, f64) {
    let content = "x".repeat(4096);
    let ms = (0..200)
        .map(|k| {
            let started = Instant::now();
            server.call(tool, serde_json::json!({"path": format!("d/f{}.txt", k % 20), "content": content}));
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    percentiles(ms)
}

fn main() {
    let under = std::env::var_os("FILEWRIGHT_BENCH_DIR").map(std::path::PathBuf::from);
    let mut rows = Vec::new();
    for tool in ["write_file", "append_file"] {
        let mut cells = Vec::new();
        for extra in [&[][..], &["--durable"][..]] {
            let mut server = Server::start(extra, under.as_deref());
            let (p50, p95) = time(&mut server, tool);
            cells.push(format!("{p50:.2} / {p95:.2}"));
        }
        rows.push(format!("| {tool} 4 KB (.txt) | {} | {} |", cells[0], cells[1]));
    }
    println!("| call | default | `--durable` |");
    println!("|---|---|---|");
    for row in rows {
        println!("{row}");
    }
}
