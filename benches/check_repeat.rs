//! A repeated `check_files` over a large project: the first call over every file the check
//! reads, the same call again with nothing changed, then after one file was changed from
//! outside the server, then after one was changed through it (`append_file`). An agent runs
//! the finish check again and again while it fixes what the check found; each later call
//! should cost a small fraction of the first.
//!
//! The project is a copy of cargo's unpacked registry sources (`$CARGO_HOME/registry/src`, or
//! the directory `FILEWRIGHT_SEARCH_SOURCE` names), as `search_find` builds it: tens of
//! thousands of files. Every file of a language the check knows is checked (Rust, Markdown,
//! TOML, JSON, YAML, shell, JavaScript, Python, HTML, CSS...), in path order.
//!
//! Each change makes its file unfinished (an unclosed function at its end), and the bench
//! asserts that the next call says so: a stale cache would time fast and be wrong.
//!
//! Each round runs on a fresh server (so that its first call is a first call); the median of
//! the rounds is reported, with the CPU time of each call (user and system, all threads, from
//! `/proc`) and the server's peak memory.
//!
//! `cargo bench --bench check_repeat` (release build; `FILEWRIGHT_CHECK_ROUNDS` sets the
//! rounds, 3 by default). Without `--bench` (as
//! `cargo test --benches` runs it): one round on a tree of 300 files.

#[path = "common/stdio.rs"]
mod stdio;
#[path = "common/tree.rs"]
mod tree;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use stdio::Server;
use tree::{build_tree, source_dir};

/// Rounds of the four calls, each on a fresh server.
const ROUNDS: usize = 3;

/// What makes a file unfinished: a function left open at its end.
const UNFINISHED: &str = "\nfn left_unfinished() {\n";

/// The four calls timed in each round.
const CALLS: [&str; 4] = [
    "first call",
    "again, nothing changed",
    "after one file changed from outside",
    "after one file changed by `append_file`",
];

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let work = tempfile::tempdir().unwrap();
    let tree = work.path().join("tree");
    let source = source_dir();
    eprintln!("copying {} into a tree of our own...", source.display());
    let (files, bytes) = build_tree(&source, &tree, if full { usize::MAX } else { 300 });
    let (paths, checked_bytes) = checked_files(&tree);
    eprintln!("{files} files, {} MB; {} checked, {} MB", bytes >> 20, paths.len(), checked_bytes >> 20);
    // The files changed: two Rust files in the middle of the list.
    let (outside, inside) = files_to_change(&tree, &paths);
    // A file changed within two seconds of a check is not kept by it (its mtime cannot tell a
    // later write in the same tick): the fresh copy settles first, as a project's files have.
    std::thread::sleep(Duration::from_secs(3));

    let rounds = match std::env::var("FILEWRIGHT_CHECK_ROUNDS") {
        Ok(n) if full => n.parse().expect("FILEWRIGHT_CHECK_ROUNDS: a number"),
        _ if full => ROUNDS,
        _ => 1,
    };
    let mut walls = vec![Vec::new(); CALLS.len()];
    let mut cpus = vec![Duration::ZERO; CALLS.len()];
    let mut peak = 0;
    let mut verdict = String::new();
    for round in 0..rounds {
        eprintln!("round {} of {rounds}...", round + 1);
        let originals = [&outside, &inside].map(|p| std::fs::read(tree.join(p)).unwrap());
        let state = tempfile::tempdir().unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_filewright"));
        command.arg("--root").arg(&tree).arg("--state-dir").arg(state.path()).env("FILEWRIGHT_LOG", "error");
        let (mut server, _) = Server::spawn(command, Vec::new());
        let mut unfinished = Vec::new();
        for (i, _) in CALLS.iter().enumerate() {
            match i {
                2 => {
                    let mut text = originals[0].clone();
                    text.extend_from_slice(UNFINISHED.as_bytes());
                    std::fs::write(tree.join(&outside), text).unwrap();
                }
                3 => {
                    server
                        .call_ok("append_file", serde_json::json!({ "path": inside, "content": UNFINISHED }));
                }
                _ => {}
            }
            let (before, started) = (server.cpu_time(), Instant::now());
            let reply = server.call_ok("check_files", serde_json::json!({ "paths": paths }));
            walls[i].push(started.elapsed());
            cpus[i] += server.cpu_time().saturating_sub(before);
            let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
            let found = &reply["result"]["structuredContent"];
            unfinished.push(found["incomplete"].as_u64().unwrap() + found["errors"].as_u64().unwrap());
            verdict = found["verdict"].as_str().unwrap_or_default().chars().take(100).collect();
        }
        // Each change is seen: a stale verdict would be fast and wrong.
        assert_eq!(unfinished[1], unfinished[0], "the same verdict when nothing changed");
        assert_eq!(unfinished[2], unfinished[1] + 1, "the file changed from outside is unfinished");
        assert_eq!(unfinished[3], unfinished[2] + 1, "the file changed by append_file is unfinished");
        peak = peak.max(server.peak_rss_mb());
        drop(server);
        for (path, original) in [&outside, &inside].iter().zip(originals) {
            std::fs::write(tree.join(path), original).unwrap();
        }
    }

    println!();
    println!(
        "`check_files` on {} files ({} MB) of a tree of {files} files ({} MB); median wall time of \
         {rounds} rounds, each on a fresh server; server's peak memory {peak} MB. Verdict: {verdict}",
        paths.len(),
        checked_bytes >> 20,
        bytes >> 20
    );
    println!();
    println!("| call | wall | CPU per call | of the first |");
    println!("|---|---|---|---|");
    let first = median(walls[0].clone());
    for (i, call) in CALLS.iter().enumerate() {
        let wall = median(walls[i].clone());
        println!(
            "| {call} | {:.3} s | {:.2} s | {:.1}% |",
            wall.as_secs_f64(),
            (cpus[i] / rounds as u32).as_secs_f64(),
            100.0 * wall.as_secs_f64() / first.as_secs_f64()
        );
    }
}

/// Two complete Rust files from the middle of `paths`, to change: the change must turn a
/// complete file into an unfinished one for the counts to show it was seen.
fn files_to_change(tree: &Path, paths: &[String]) -> (String, String) {
    let rust: Vec<&String> = paths.iter().filter(|p| p.ends_with(".rs")).collect();
    let middle: Vec<&String> = rust.iter().skip(rust.len() / 2).take(50).copied().collect();
    let state = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_filewright"));
    command.arg("--root").arg(tree).arg("--state-dir").arg(state.path()).env("FILEWRIGHT_LOG", "error");
    let (mut server, _) = Server::spawn(command, Vec::new());
    let reply = server.call_ok("check_files", serde_json::json!({ "paths": middle }));
    let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
    let complete: Vec<String> = reply["result"]["structuredContent"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == "complete")
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    assert!(complete.len() >= 2, "too few complete Rust files to change");
    (complete[0].clone(), complete[1].clone())
}

/// Every file under `tree` of a language the check knows, as paths relative to it, in path
/// order, with their bytes.
fn checked_files(tree: &Path) -> (Vec<String>, u64) {
    let all = tree::files_in_path_order(tree);
    let (mut paths, mut bytes) = (Vec::new(), 0);
    for path in all {
        let relative = path.strip_prefix(tree).unwrap().to_string_lossy().into_owned();
        if filewright::check::language_for(&relative).is_some() {
            bytes += std::fs::metadata(&path).map_or(0, |m| m.len());
            paths.push(relative);
        }
    }
    (paths, bytes)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}
