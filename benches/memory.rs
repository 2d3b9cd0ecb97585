//! Resident memory of one server over a long session: 500 files of about 100 KB (a write of
//! 60 KB, then an append of 40 KB, in JavaScript, Python, TypeScript and Rust), sent one call
//! at a time and 20 calls at a time. Prints RSS after 200 and 500 files.
//!
//! `cargo bench --bench memory` (release build; the server binary is this package's).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn body(ext: &str) -> String {
    let line = |k: usize| match ext {
        "js" => format!("function f{k}(a) {{ const x = [a, {k}, 'str{k}']; return x.map(v => v + 1); }}\n"),
        "py" => format!("def f{k}(a):\n    x = [a, {k}, 'str{k}']\n    return [v for v in x]\n\n"),
        "ts" => format!(
            "export function f{k}(a: number): number[] {{ const x: number[] = [a, {k}]; return x; }}\n"
        ),
        _ => format!("pub fn f{k}(a: u32) -> Vec<u32> {{ let x = vec![a, {k}]; x }}\n"),
    };
    let mut text = String::new();
    let mut k = 0;
    while text.len() < 100_000 {
        text.push_str(&line(k));
        k += 1;
    }
    // Cut at a line end near 100 KB, and the write/append split at one near 60 KB.
    let end = text[..100_000].rfind('\n').map_or(text.len(), |i| i + 1);
    text.truncate(end);
    text
}

fn rss_mb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb: u64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    kb / 1024
}

fn run(in_flight: usize) -> Vec<(usize, u64)> {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_filewright"))
        .arg("--root")
        .arg(root.path())
        .arg("--state-dir")
        .arg(state.path())
        .env("FILEWRIGHT_LOG", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn filewright");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |v: serde_json::Value| {
        let mut line = serde_json::to_vec(&v).unwrap();
        line.push(b'\n');
        stdin.write_all(&line).unwrap();
    };
    let mut receive = || {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
    };
    send(serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "memory", "version": "0"}}}));
    receive();
    send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let exts = ["js", "py", "ts", "rs"];
    let bodies: Vec<String> = exts.iter().map(|e| body(e)).collect();
    let mut id = 0;
    let mut samples = Vec::new();
    for start in (0..500).step_by(in_flight) {
        for part in 0..2 {
            for f in start..start + in_flight {
                let (ext, text) = (exts[f % 4], &bodies[f % 4]);
                let split = text[..60_000].rfind('\n').map_or(0, |i| i + 1);
                let (tool, content) =
                    if part == 0 { ("write_file", &text[..split]) } else { ("append_file", &text[split..]) };
                id += 1;
                send(serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                    "name": tool, "arguments": {"path": format!("src/f{f}.{ext}"), "content": content}}}));
            }
            for _ in 0..in_flight {
                receive();
            }
        }
        let done = start + in_flight;
        if done == 200 || done == 500 {
            samples.push((done, rss_mb(child.id())));
        }
    }
    let _ = child.kill();
    let _ = child.wait();
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
