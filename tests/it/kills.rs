//! SIGKILL at random moments of large writes and appends: every file is whole (the old
//! content or the new, never a part), no temporary file stays visible, and a retried append
//! lands exactly once.

use std::time::Duration;

use serde_json::json;

use crate::util::{RawServer, Root};

/// A pseudo-random delay in `0..max_us` microseconds (no seed to keep: every run draws anew,
/// and every outcome is checked).
fn jitter(max_us: u64) -> Duration {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos() as u64;
    Duration::from_micros(nanos.wrapping_mul(6364136223846793005).rotate_left(17) % max_us)
}

/// Kill rounds per test: 20 by default, more with `FILEWRIGHT_KILL_ROUNDS` (the probe
/// used 50).
fn rounds() -> usize {
    std::env::var("FILEWRIGHT_KILL_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(20)
}

fn temp_files(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".filewright-"))
        .collect()
}

#[test]
fn kills_during_large_writes_leave_whole_files_and_no_visible_temp_file() {
    const SIZE: usize = 4 << 20;
    let root = Root::new();
    // Kills are spread over the time one such write takes here.
    let mut server = RawServer::start(&root);
    let started = std::time::Instant::now();
    server.call("write_file", json!({"path": "big.txt", "content": "a".repeat(SIZE)}));
    let span = started.elapsed().as_micros() as u64 + 1;
    server.kill();
    let mut kills_with_temp = 0;
    let rounds = rounds();
    for round in 0..rounds {
        let mut server = RawServer::start(&root);
        let fill = if round % 2 == 0 { "a" } else { "b" };
        server.start_call("write_file", json!({"path": "big.txt", "content": fill.repeat(SIZE)}));
        if round % 4 == 0 {
            // Aim at the window between creating the temporary file and renaming it.
            let deadline = std::time::Instant::now() + Duration::from_micros(span * 3);
            while temp_files(&root.path()).is_empty() && std::time::Instant::now() < deadline {}
        } else {
            std::thread::sleep(jitter(span));
        }
        server.kill();
        if let Ok(bytes) = std::fs::read(root.path().join("big.txt")) {
            assert_eq!(bytes.len(), SIZE, "round {round}: a torn file");
            assert!(bytes.iter().all(|&b| b == bytes[0]), "round {round}: a mixed file");
        }
        kills_with_temp += usize::from(!temp_files(&root.path()).is_empty());
    }
    eprintln!("{kills_with_temp} of {rounds} kills over {span} us left a temporary file");
    // Whether a kill lands in that window is chance; one such leftover is planted for certain,
    // as a process that died (its pid no longer exists) would leave it.
    let mut dead = std::process::Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    std::fs::write(root.path().join(format!(".filewright-{dead_pid}-0123456789abcdef.tmp")), "left").unwrap();
    // A fresh start hides whatever was left and sweeps it away.
    let mut server = RawServer::start(&root);
    let listing = server.call("list_directory", json!({"include_hidden": true}));
    assert!(!listing.to_string().contains(".filewright-"), "{listing}");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !temp_files(&root.path()).is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(temp_files(&root.path()), Vec::<String>::new(), "after {kills_with_temp} kills that left one");
    server.kill();
}

#[test]
fn kills_during_large_appends_never_leave_part_of_a_chunk_and_a_retry_lands_once() {
    const CHUNK: usize = 3 << 20;
    const BEGIN: &str = "BEGIN\n";
    let root = Root::new();
    // A second process that stays up: it repairs on the next call that touches the file.
    let mut observer = RawServer::start(&root);
    // Random kills are spread over a little more than one such append takes here.
    let started = std::time::Instant::now();
    observer.call("append_file", json!({"path": "calibrate.txt", "content": "x".repeat(CHUNK)}));
    let span = started.elapsed().as_micros() as u64 * 5 / 4 + 1;
    let (mut cut, mut whole) = (0, 0);
    for round in 0..rounds() {
        // Each round appends to a file of its own, so that files stay small however many rounds.
        let name = format!("log{round}.txt");
        let file = root.path().join(&name);
        std::fs::write(&file, BEGIN).unwrap();
        let chunk = format!("{:02}", round % 100).repeat(CHUNK / 2 - 1) + "\n";
        let mut server = RawServer::start(&root);
        server.start_call("append_file", json!({"path": name, "content": chunk}));
        if round % 2 == 0 {
            // Kill as the file starts to grow: the moment that tore appends before.
            let deadline = std::time::Instant::now() + Duration::from_secs(30);
            while std::fs::metadata(&file).unwrap().len() <= BEGIN.len() as u64
                && std::time::Instant::now() < deadline
            {}
        } else {
            std::thread::sleep(jitter(span));
        }
        server.kill();
        // Repaired by the next start (even rounds) or by the live observer's next call (odd).
        let mut repairer = if round % 2 == 0 { Some(RawServer::start(&root)) } else { None };
        let by = repairer.as_mut().unwrap_or(&mut observer);
        let read = by.call("read_file", json!({"path": name, "offset": -1, "limit": 1}));
        assert_ne!(read["isError"], true, "{read}");
        let bytes = std::fs::read(&file).unwrap();
        let after = format!("{BEGIN}{chunk}").into_bytes();
        if bytes == BEGIN.as_bytes() {
            cut += 1;
            // The client never got an answer and retries: the chunk lands once.
            let retried = by.call("append_file", json!({"path": name, "content": chunk}));
            assert_ne!(retried["isError"], true, "{retried}");
            assert_eq!(
                std::fs::read(&file).unwrap(),
                after,
                "round {round}: the retry did not land exactly once"
            );
        } else {
            assert!(
                bytes == after,
                "round {round}: {} bytes, neither before ({}) nor after ({})",
                bytes.len(),
                BEGIN.len(),
                after.len()
            );
            whole += 1;
        }
        if let Some(server) = repairer {
            server.kill();
        }
    }
    eprintln!("{cut} appends cut back and retried, {whole} landed whole");
    assert!(cut > 0, "no kill landed during an append");
    observer.kill();
}

#[test]
fn kills_during_edits_of_a_large_file_leave_the_old_or_the_new_text() {
    let root = Root::new().file("big.txt", "x".repeat(4 << 20) + "\nstate: 0\n");
    let file = root.path().join("big.txt");
    // Random kills are spread over a little more than one such edit takes here.
    let mut server = RawServer::start(&root);
    let started = std::time::Instant::now();
    server.call("edit_file", json!({"path": "big.txt", "old_string": "state: 0", "new_string": "state: 1"}));
    let span = started.elapsed().as_micros() as u64 * 5 / 4 + 1;
    server.kill();
    let mut state = 1;
    let (mut old, mut new) = (0, 0);
    for round in 0..rounds() {
        let mut server = RawServer::start(&root);
        let (from, to) = (format!("state: {state}"), format!("state: {}", state + 1));
        server.start_call("edit_file", json!({"path": "big.txt", "old_string": from, "new_string": to}));
        std::thread::sleep(jitter(span));
        server.kill();
        let text = std::fs::read_to_string(&file).unwrap();
        let prefix = "x".repeat(4 << 20) + "\n";
        if text == format!("{prefix}{from}\n") {
            old += 1;
        } else {
            assert_eq!(text, format!("{prefix}{to}\n"), "round {round}: neither the old nor the new text");
            new += 1;
            state += 1;
        }
    }
    eprintln!("{old} edits killed before they landed, {new} after");
}
