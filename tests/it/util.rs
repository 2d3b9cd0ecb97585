//! Fixtures: a temporary root with files in it, and the real `filewright` binary spawned as a
//! child process and driven over stdio by rmcp's client.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

/// A temporary directory used as the sandbox root, with a sibling "outside" directory for
/// escape tests. Both are removed on drop.
pub struct Root {
    base: tempfile::TempDir,
}

impl Root {
    pub fn new() -> Self {
        let base = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(base.path().join("root")).expect("root dir");
        std::fs::create_dir(base.path().join("outside")).expect("outside dir");
        Root { base }
    }

    /// The sandbox root.
    pub fn path(&self) -> PathBuf {
        self.base.path().join("root")
    }

    /// The state directory the servers of this root share (claims, journal).
    pub fn state(&self) -> PathBuf {
        self.base.path().join("state")
    }

    /// A directory next to the root, which no tool may reach.
    pub fn outside(&self) -> PathBuf {
        self.base.path().join("outside")
    }

    pub fn file(self, rel: &str, content: impl AsRef<[u8]>) -> Self {
        let path = self.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("parent");
        }
        std::fs::write(path, content).expect("write fixture");
        self
    }

    pub fn symlink(self, rel: &str, target: impl AsRef<Path>) -> Self {
        std::os::unix::fs::symlink(target, self.path().join(rel)).expect("symlink");
        self
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path().join(rel).symlink_metadata().is_ok()
    }

    /// Every entry (relative path and content) under `dir`, to prove nothing changed there.
    pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).expect("read_dir") {
                let entry = entry.expect("entry");
                let path = entry.path();
                let ft = entry.file_type().expect("file type");
                if ft.is_dir() {
                    stack.push(path.clone());
                    out.push((path.strip_prefix(dir).unwrap().to_path_buf(), Vec::new()));
                } else if ft.is_file() {
                    out.push((path.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&path).unwrap()));
                } else {
                    out.push((path.strip_prefix(dir).unwrap().to_path_buf(), b"<other>".to_vec()));
                }
            }
        }
        out.sort();
        out
    }
}

/// A running `filewright` process and the rmcp client connected to it.
pub struct Server {
    pub client: RunningService<RoleClient, ()>,
}

impl Server {
    pub async fn spawn(root: &Root) -> Server {
        Self::spawn_with(root, &[]).await
    }

    /// Spawns a server on `root` with its shared state directory and `extra` arguments
    /// (which may override `--state-dir`).
    pub async fn spawn_with(root: &Root, extra: &[&str]) -> Server {
        let root_path = root.path();
        let state = root.state();
        let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_filewright")).configure(|c| {
            c.arg("--root").arg(&root_path);
            if !extra.contains(&"--state-dir") {
                c.arg("--state-dir").arg(&state);
            }
            c.args(extra).env("FILEWRIGHT_LOG", "warn");
        });
        let transport = TokioChildProcess::new(command).expect("spawn filewright");
        let client = ().serve(transport).await.expect("MCP initialize");
        Server { client }
    }

    /// Spawns a server whose files may not grow past `max_file_bytes` (RLIMIT_FSIZE, with
    /// SIGXFSZ ignored so that a write past the limit fails with EFBIG after writing what
    /// fits): a disk that fills up part way through a write.
    pub async fn spawn_with_file_size_limit(root: &Root, max_file_bytes: u64) -> Server {
        let command = tokio::process::Command::new("sh").configure(|c| {
            c.arg("-c")
                .arg("trap '' XFSZ; exec prlimit --fsize=\"$0\" \"$@\"")
                .arg(max_file_bytes.to_string())
                .arg(env!("CARGO_BIN_EXE_filewright"))
                .arg("--root")
                .arg(root.path())
                .arg("--state-dir")
                .arg(root.state())
                .env("FILEWRIGHT_LOG", "warn");
        });
        let transport = TokioChildProcess::new(command).expect("spawn filewright under prlimit");
        let client = ().serve(transport).await.expect("MCP initialize");
        Server { client }
    }

    /// Spawns a server acting as `agent`.
    pub async fn spawn_as(root: &Root, agent: &str) -> Server {
        Self::spawn_with(root, &["--agent", agent]).await
    }

    /// Calls a tool; panics only on a protocol failure (a tool error is a normal result).
    pub async fn call(&self, tool: &'static str, args: Value) -> Reply {
        let Value::Object(map) = args else { panic!("arguments must be an object") };
        let result = self
            .client
            .call_tool(CallToolRequestParams::new(tool).with_arguments(map))
            .await
            .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"));
        Reply(result)
    }

    pub async fn stop(self) {
        let _ = self.client.cancel().await;
    }
}

/// A tool result with helpers for assertions.
#[derive(Debug)]
pub struct Reply(pub CallToolResult);

impl Reply {
    pub fn is_error(&self) -> bool {
        self.0.is_error == Some(true)
    }

    pub fn text(&self) -> String {
        self.0
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The structured result; panics when absent (every success has one).
    pub fn json(&self) -> &Value {
        self.0.structured_content.as_ref().unwrap_or_else(|| panic!("no structuredContent in {self:?}"))
    }

    /// Asserts success and returns self, showing the text on failure.
    pub fn ok(self) -> Self {
        assert!(!self.is_error(), "expected success, got error: {}", self.text());
        self
    }

    /// Asserts an error and returns its text.
    pub fn err(self) -> String {
        assert!(self.is_error(), "expected an error, got: {}", self.text());
        self.text()
    }
}

/// A server spoken to with raw JSON-RPC lines, so that it can be killed at any moment.
pub struct RawServer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl RawServer {
    pub fn start(root: &Root) -> RawServer {
        Self::start_with(root, &["--max-file-bytes", "134217728"])
    }

    /// Starts a server on `root` with `extra` arguments.
    pub fn start_with(root: &Root, extra: &[&str]) -> RawServer {
        Self::spawn(root, extra, None).initialized()
    }

    /// Starts a server on `root` with `extra` arguments and answers its `initialize`, without
    /// sending `notifications/initialized` yet. With `log`, the server logs at that filter
    /// (`FILEWRIGHT_LOG`) into that file; without, errors only, nowhere.
    pub fn spawn(root: &Root, extra: &[&str], log: Option<(&str, &std::path::Path)>) -> RawServer {
        let mut command = Command::new(env!("CARGO_BIN_EXE_filewright"));
        command
            .arg("--root")
            .arg(root.path())
            .arg("--state-dir")
            .arg(root.state())
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        match log {
            Some((filter, file)) => command
                .env("FILEWRIGHT_LOG", filter)
                .stderr(std::fs::File::create(file).expect("create the log file")),
            None => command.env("FILEWRIGHT_LOG", "error").stderr(Stdio::null()),
        };
        let mut child = command.spawn().expect("spawn filewright");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = RawServer { child, stdin, stdout, next_id: 1 };
        server.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "kills", "version": "0"}}}));
        server.receive();
        server
    }

    /// Sends `notifications/initialized`.
    pub fn initialized(mut self) -> RawServer {
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        self
    }

    /// Sends a request with the next id and returns its whole reply, with the id checked.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let reply = self.receive();
        assert_eq!(reply["id"], json!(id), "{reply}");
        reply
    }

    pub fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.send_raw(&line);
    }

    /// Sends bytes as they are (a line that is not valid JSON, or one too long to build as a value).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn receive(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("a reply");
        serde_json::from_str(&line).expect("JSON")
    }

    /// Sends a tool call without waiting for its answer.
    pub fn start_call(&mut self, tool: &str, args: Value) {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}}));
    }

    /// Calls a tool and returns its result.
    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        self.start_call(tool, args);
        self.receive()["result"].clone()
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The start of a PNG of `width` x `height` pixels: its signature and `IHDR` chunk.
pub fn png(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    bytes
}

/// A client that records the progress notifications it receives.
#[derive(Clone, Default)]
pub struct ProgressClient {
    pub seen: std::sync::Arc<std::sync::Mutex<Vec<rmcp::model::ProgressNotificationParam>>>,
}

impl rmcp::ClientHandler for ProgressClient {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        self.seen.lock().unwrap().push(params);
    }
}

/// A `check_files` request for `paths`, to send as a cancellable request.
pub fn check_request(paths: &[String]) -> rmcp::model::ClientRequest {
    let args = serde_json::json!({ "paths": paths }).as_object().unwrap().clone();
    rmcp::model::ClientRequest::CallToolRequest(rmcp::model::Request::new(
        rmcp::model::CallToolRequestParams::new("check_files").with_arguments(args),
    ))
}
