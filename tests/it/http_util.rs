//! Fixtures for the HTTP transport: the real binary started with `--http 127.0.0.1:0`, its URL
//! read from stderr, and clients: rmcp's Streamable HTTP client (session or stateless) and
//! plain HTTP requests for the status and header cases.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
use serde_json::Value;

use crate::util::{Reply, Root};

/// A `filewright --http` process, killed on drop.
pub struct HttpServer {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp` (https with TLS).
    pub url: String,
    /// Everything it wrote on stderr so far.
    pub log: Arc<Mutex<String>>,
}

impl HttpServer {
    /// Starts a server on `root` with `extra` arguments and waits for its URL line.
    pub fn start(root: &Root, extra: &[&str]) -> HttpServer {
        Self::try_start(root, extra).unwrap_or_else(|log| panic!("the server did not start:\n{log}"))
    }

    /// Starts a server; Err(its stderr) when it exits before serving.
    pub fn try_start(root: &Root, extra: &[&str]) -> Result<HttpServer, String> {
        Self::try_start_with_env(root, extra, &[])
    }

    /// Starts a server with `env` set besides (the test-only knobs).
    pub fn start_with_env(root: &Root, extra: &[&str], env: &[(&str, &str)]) -> HttpServer {
        Self::try_start_with_env(root, extra, env)
            .unwrap_or_else(|log| panic!("the server did not start:\n{log}"))
    }

    fn try_start_with_env(root: &Root, extra: &[&str], env: &[(&str, &str)]) -> Result<HttpServer, String> {
        let mut command = Command::new(env!("CARGO_BIN_EXE_filewright"));
        command.arg("--root").arg(root.path()).arg("--state-dir").arg(root.state());
        if !extra.contains(&"--http") {
            command.args(["--http", "127.0.0.1:0"]);
        }
        command
            .args(extra)
            .env("FILEWRIGHT_LOG", "info,rmcp=warn")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        let mut child = command.stderr(Stdio::piped()).spawn().expect("spawn filewright");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let log = Arc::new(Mutex::new(String::new()));
        let mut line = String::new();
        let url = loop {
            line.clear();
            if stderr.read_line(&mut line).unwrap_or(0) == 0 {
                let _ = child.wait();
                return Err(log.lock().unwrap().clone());
            }
            log.lock().unwrap().push_str(&line);
            if let Some(url) = line.trim().strip_prefix("filewright: serving MCP at ") {
                break url.to_string();
            }
        };
        // Keep reading, so that the server never blocks on a full pipe.
        let kept = log.clone();
        std::thread::spawn(move || {
            let mut line = String::new();
            while stderr.read_line(&mut line).unwrap_or(0) > 0 {
                kept.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        Ok(HttpServer { child, url, log })
    }

    /// `host:port` of the server.
    pub fn authority(&self) -> String {
        let rest = self.url.split_once("://").expect("scheme").1;
        rest.split_once('/').expect("path").0.to_string()
    }

    /// A session client (initialize, `Mcp-Session-Id`), with `token` as bearer when given.
    pub async fn client(&self, token: Option<&str>) -> HttpClient<()> {
        self.client_with((), token).await
    }

    /// A session client with its own handler (e.g. one that records progress).
    pub async fn client_with<H: rmcp::ClientHandler>(
        &self,
        handler: H,
        token: Option<&str>,
    ) -> HttpClient<H> {
        let transport = StreamableHttpClientTransport::from_config(self.config(token));
        HttpClient { service: handler.serve(transport).await.expect("MCP initialize over HTTP") }
    }

    /// A client on MCP 2026-07-28: no initialize, no session, every request on its own.
    pub async fn stateless_client(&self, token: Option<&str>) -> HttpClient<ClientConfig> {
        let transport = StreamableHttpClientTransport::from_config(self.config(token));
        let lifecycle =
            ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
        let service = ClientConfig::default()
            .serve_with_lifecycle(transport, lifecycle)
            .await
            .expect("server/discover over HTTP");
        HttpClient { service }
    }

    fn config(&self, token: Option<&str>) -> StreamableHttpClientTransportConfig {
        let config = StreamableHttpClientTransportConfig::with_uri(self.url.clone());
        match token {
            Some(token) => config.auth_header(token),
            None => config,
        }
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An rmcp client over HTTP.
pub struct HttpClient<H: rmcp::ClientHandler> {
    pub service: RunningService<RoleClient, H>,
}

impl<H: rmcp::ClientHandler> HttpClient<H> {
    /// Calls a tool; panics only on a protocol failure.
    pub async fn call(&self, tool: &'static str, args: Value) -> Reply {
        let Value::Object(map) = args else { panic!("arguments must be an object") };
        let result = self
            .service
            .call_tool(CallToolRequestParams::new(tool).with_arguments(map))
            .await
            .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"));
        Reply(result)
    }

    /// The names of the tools listed.
    pub async fn tool_names(&self) -> Vec<String> {
        let tools = self.service.list_all_tools().await.expect("tools/list");
        tools.into_iter().map(|t| t.name.to_string()).collect()
    }

    pub async fn stop(self) {
        let _ = self.service.cancel().await;
    }
}

/// One plain HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

impl Answer {
    /// The body as JSON; panics when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> String {
        self.headers.get(name).map(|v| v.to_str().unwrap().to_string()).unwrap_or_default()
    }
}

/// POSTs `body` to `url` as an MCP client would, with `headers` besides.
pub async fn post(url: &str, body: impl Into<reqwest::Body>, headers: &[(&str, &str)]) -> Answer {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    answer(request.body(body).send().await.expect("POST")).await
}

/// GETs `url` with `headers`.
pub async fn get(url: &str, headers: &[(&str, &str)]) -> Answer {
    let mut request = reqwest::Client::new().get(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    answer(request.send().await.expect("GET")).await
}

/// DELETEs `url` with `headers` (a client ending its session).
pub async fn delete(url: &str, headers: &[(&str, &str)]) -> Answer {
    let mut request = reqwest::Client::new().delete(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    answer(request.send().await.expect("DELETE")).await
}

async fn answer(response: reqwest::Response) -> Answer {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.text().await.unwrap_or_default();
    Answer { status, headers, body }
}

/// The JSON-RPC messages in an SSE body (`data:` lines), or the body itself when it is JSON.
pub fn messages(body: &str) -> Vec<Value> {
    if let Ok(value) = serde_json::from_str(body) {
        return vec![value];
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

/// An `initialize` request body.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// Opens a session with raw requests: its `Mcp-Session-Id`, with `initialized` sent.
pub async fn open_session(url: &str, headers: &[(&str, &str)]) -> String {
    let answer = post(url, INITIALIZE, headers).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let session = answer.header("mcp-session-id");
    assert!(!session.is_empty(), "{answer:?}");
    let mut with_session = headers.to_vec();
    with_session.push(("mcp-session-id", &session));
    with_session.push(("mcp-protocol-version", "2025-11-25"));
    let done = post(url, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, &with_session).await;
    assert_eq!(done.status, 202, "{done:?}");
    session
}

/// A `tools/call` request body.
pub fn call_body(id: u64, tool: &str, args: Value) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args}})
        .to_string()
}
