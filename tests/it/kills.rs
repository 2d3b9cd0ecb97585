//! SIGKILL at random moments of large writes and appends: every file is whole (the old
//! content or the new, never a part), no temporary file stays visible, and a retried append
//! lands exactly once.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::util::Root;

/// A server spoken to with raw JSON-RPC lines, so that it can be killed at any moment.
struct RawServer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl RawServer {
    fn start(root: &Root) -> RawServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_filewright"))
            .arg("--root")
            .arg(root.path())
            .arg("--state-dir")
            .arg(root.state())
            .env("FILEWRIGHT_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn filewright");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = RawServer { child, stdin, stdout, next_id: 1 };
        server.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "kills", "version": "0"}}}));
        server.receive();
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).unwrap();
        self.stdin.flush().unwrap();
    }

    fn receive(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("a reply");
        serde_json::from_str(&line).expect("JSON")
    }

    /// Sends a tool call without waiting for its answer.
    fn start_call(&mut self, tool: &str, args: Value) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}}));
    }

    /// Calls a tool and returns its result.
    fn call(&mut self, tool: &str, args: Value) -> Value {
        self.start_call(tool, args);
        self.receive()["result"].clone()
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A pseudo-random delay in `0..max_us` microseconds (no seed to keep: every run draws anew,
/// and every outcome is checked).
fn jitter(max_us: u64) -> Duration {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos() as u64;
    Duration::from_micros(nanos.wrapping_mul(6364136223846793005).rotate_left(17) % max_us)
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
    for round in 0..20 {
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
    eprintln!("{kills_with_temp} of 20 kills over {span} us left a temporary file");
    assert!(kills_with_temp > 0, "no kill landed between creating and renaming a temporary file");
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
