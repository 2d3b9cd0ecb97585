//! A bare JSON-RPC client over stdio for the benchmarks that time the server from outside
//! (`memory`, `durability`): one line out, one line in, nothing between.

// Each benchmark that includes this file uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A release server on a fresh root and state directory.
pub struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    _root: tempfile::TempDir,
    _state: tempfile::TempDir,
}

impl Server {
    /// Starts the server with `extra` arguments in temporary directories under `under` (the
    /// system's temporary directory when None) and initializes it.
    pub fn start(extra: &[&str], under: Option<&std::path::Path>) -> Server {
        let dir = || match under {
            Some(base) => tempfile::tempdir_in(base).unwrap(),
            None => tempfile::tempdir().unwrap(),
        };
        let (root, state) = (dir(), dir());
        let mut child = Command::new(env!("CARGO_BIN_EXE_filewright"))
            .arg("--root")
            .arg(root.path())
            .arg("--state-dir")
            .arg(state.path())
            .args(extra)
            .env("FILEWRIGHT_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn filewright");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Server { child, stdin, stdout, next_id: 1, _root: root, _state: state };
        server.send(&serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}));
        server.receive();
        server.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &serde_json::Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).unwrap();
    }

    /// Reads one reply line.
    pub fn receive(&mut self) {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
    }

    /// Sends a tool call without waiting for its reply.
    pub fn start_call(&mut self, tool: &str, args: serde_json::Value) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}}));
    }

    /// Calls a tool and waits for its reply.
    pub fn call(&mut self, tool: &str, args: serde_json::Value) {
        self.start_call(tool, args);
        self.receive();
    }

    /// Resident memory in MB, from `/proc`.
    pub fn rss_mb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        let kb: u64 = status
            .lines()
            .find(|l| l.starts_with("VmRSS:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        kb / 1024
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
