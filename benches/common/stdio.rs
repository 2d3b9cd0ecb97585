//! A bare JSON-RPC client over stdio for the benchmarks that time a server from outside
//! (`memory`, `durability`, `peers`): one line out, one line in, nothing between. It speaks
//! to any MCP server the same way, so that `peers` times filewright and other servers with
//! one client.

// Each benchmark that includes this file uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// A server process spoken to over its stdin and stdout.
pub struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    /// Directories that must outlive the process (its root, its state).
    _dirs: Vec<tempfile::TempDir>,
}

impl Server {
    /// Starts this package's release server with `extra` arguments on a fresh root and state
    /// directory under `under` (the system's temporary directory when None) and initializes it.
    pub fn start(extra: &[&str], under: Option<&std::path::Path>) -> Server {
        let dir = || match under {
            Some(base) => tempfile::tempdir_in(base).unwrap(),
            None => tempfile::tempdir().unwrap(),
        };
        let (root, state) = (dir(), dir());
        let mut command = Command::new(env!("CARGO_BIN_EXE_filewright"));
        command.arg("--root").arg(root.path()).arg("--state-dir").arg(state.path()).args(extra);
        command.env("FILEWRIGHT_LOG", "error");
        Server::spawn(command, vec![root, state]).0
    }

    /// Spawns `command`, sends `initialize` and waits for its reply, then sends
    /// `notifications/initialized`. Returns the server and the time from spawn to the reply.
    /// `dirs` are dropped with the server.
    pub fn spawn(mut command: Command, dirs: Vec<tempfile::TempDir>) -> (Server, Duration) {
        let started = Instant::now();
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {command:?}: {e}"));
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Server { child, stdin, stdout, next_id: 1, _dirs: dirs };
        server.send(&serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}));
        let reply = server.receive();
        let elapsed = started.elapsed();
        assert!(reply.contains("\"result\""), "initialize of {command:?} failed: {reply}");
        server.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        (server, elapsed)
    }

    fn send(&mut self, message: &serde_json::Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).unwrap();
    }

    /// Reads one reply line (empty when the server closed its output).
    pub fn receive(&mut self) -> String {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        line
    }

    /// Sends a tool call without waiting for its reply.
    pub fn start_call(&mut self, tool: &str, args: serde_json::Value) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}}));
    }

    /// Calls a tool and waits for its reply line.
    pub fn call(&mut self, tool: &str, args: serde_json::Value) -> String {
        self.start_call(tool, args);
        self.receive()
    }

    /// Asks for the tool list, as a client does before its first call.
    pub fn list_tools(&mut self) -> String {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}));
        let reply = self.receive();
        assert!(reply.contains("\"tools\""), "tools/list failed: {}", &reply[..reply.len().min(600)]);
        reply
    }

    /// Calls a tool and panics unless it succeeded: a benchmark must not time failures.
    pub fn call_ok(&mut self, tool: &str, args: serde_json::Value) -> String {
        let reply = self.call(tool, args.clone());
        let failed = reply.is_empty()
            || reply.contains("\"isError\":true")
            || serde_json::from_str::<serde_json::Value>(&reply).map_or(true, |v| v.get("error").is_some());
        if failed {
            let mut shown = args.to_string();
            shown.truncate(200);
            panic!("{tool} {shown} failed: {}", &reply[..reply.len().min(600)]);
        }
        reply
    }

    /// Resident memory now, in MB, from `/proc`.
    pub fn rss_mb(&self) -> u64 {
        self.status_kb("VmRSS:") / 1024
    }

    /// The most resident memory the process has had, in MB, from `/proc`.
    pub fn peak_rss_mb(&self) -> u64 {
        self.status_kb("VmHWM:") / 1024
    }

    /// Each thread's time on a CPU so far, in ns, by thread id, with its name (`main` for the
    /// process's first thread), from `/proc` (empty elsewhere). A thread that ended is gone.
    pub fn cpu_by_thread(&self) -> Vec<(u64, String, u64)> {
        let pid = self.child.id();
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
        tasks
            .flatten()
            .filter_map(|task| {
                let tid: u64 = task.file_name().to_str()?.parse().ok()?;
                let ns = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
                let ns: u64 = ns.split_whitespace().next()?.parse().ok()?;
                let name = if tid == u64::from(pid) {
                    "main".to_owned()
                } else {
                    std::fs::read_to_string(task.path().join("comm")).ok()?.trim().to_owned()
                };
                Some((tid, name, ns))
            })
            .collect()
    }

    /// The CPU time the process has used so far (user and system, every thread's, those that
    /// ended included), from `/proc`, in steps of a clock tick (zero elsewhere).
    pub fn cpu_time(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        // The fields after the command name, which is in parentheses: utime and stime are
        // the 12th and 13th.
        let fields: Vec<&str> =
            stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
        let ticks: u64 = [11, 12].iter().filter_map(|&i| fields.get(i)?.parse::<u64>().ok()).sum();
        Duration::from_secs_f64(ticks as f64 / clock_ticks_per_second())
    }

    fn status_kb(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find(|l| l.starts_with(field))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The unit of the CPU times in `/proc/<pid>/stat`: USER_HZ, which Linux fixes at 100 on every
/// architecture it runs on.
fn clock_ticks_per_second() -> f64 {
    100.0
}
