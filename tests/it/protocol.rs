//! The three protocol revisions served, each driven by rmcp's own client: 2025-06-18 and
//! 2025-11-25 through `initialize`, 2026-07-28 through `server/discover` with per-request
//! metadata and no server-to-client requests. Each lists the tools, writes a file in two parts,
//! reads it and checks it.

use std::path::Path;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

/// A client without roots that asks for one protocol version at `initialize`.
#[derive(Clone)]
struct VersionedClient(ProtocolVersion);

impl ClientHandler for VersionedClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(ClientCapabilities::default(), Implementation::new("protocol-test-client", "0"))
            .with_protocol_version(self.0.clone())
    }
}

type Client = RunningService<RoleClient, VersionedClient>;

fn command(cwd: &Path, state: &Path, root: Option<&Path>) -> tokio::process::Command {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_filewright")).configure(|c| {
        c.current_dir(cwd).arg("--state-dir").arg(state).env("FILEWRIGHT_LOG", "warn");
        if let Some(root) = root {
            c.arg("--root").arg(root);
        }
    })
}

/// Connects at `version`: `initialize` for the 2025 revisions, `server/discover` from 2026-07-28.
async fn connect(command: tokio::process::Command, version: ProtocolVersion) -> Client {
    let transport = TokioChildProcess::new(command).expect("spawn filewright");
    let client = VersionedClient(version.clone());
    if version.has_initialize() {
        client.serve(transport).await.expect("initialize")
    } else {
        client
            .serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover { preferred_versions: vec![version] },
            )
            .await
            .expect("discover")
    }
}

async fn call(client: &Client, tool: &'static str, args: Value) -> CallToolResult {
    let Value::Object(map) = args else { panic!("arguments must be an object") };
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(map))
        .await
        .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"))
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

fn ok(result: CallToolResult) -> CallToolResult {
    assert_ne!(result.is_error, Some(true), "expected success: {}", text(&result));
    result
}

/// Lists the tools, writes `app.js` in two parts, reads it back and checks it.
async fn write_append_read_check(client: &Client, root: &Path) {
    let tools = client.list_all_tools().await.expect("tools/list");
    for name in ["write_file", "append_file", "read_file", "check_files", "search_files", "find_files"] {
        assert!(tools.iter().any(|t| t.name == name), "{name} missing from {:?}", tools.len());
    }
    let first =
        ok(call(client, "write_file", json!({"path": "app.js", "content": "function add(a, b) {\n"})).await);
    assert!(text(&first).contains("incomplete"), "{}", text(&first));
    ok(call(client, "append_file", json!({"path": "app.js", "content": "  return a + b;\n}\n"})).await);
    assert_eq!(
        std::fs::read_to_string(root.join("app.js")).unwrap(),
        "function add(a, b) {\n  return a + b;\n}\n"
    );
    let read = ok(call(client, "read_file", json!({"path": "app.js"})).await);
    assert!(text(&read).contains("2\t  return a + b;"), "{}", text(&read));
    let check = ok(call(client, "check_files", json!({"paths": ["app.js"]})).await);
    assert_eq!(check.structured_content.as_ref().unwrap()["all_complete"], true, "{}", text(&check));
}

async fn serves(version: ProtocolVersion) {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("project");
    std::fs::create_dir(&root).unwrap();
    let client =
        connect(command(base.path(), &base.path().join("state"), Some(&root)), version.clone()).await;
    let negotiated = client.peer_info().map(|info| info.protocol_version.clone());
    assert_eq!(negotiated, Some(version));
    write_append_read_check(&client, &root).await;
    let _ = client.cancel().await;
}

#[tokio::test]
async fn protocol_2025_06_18_is_served() {
    serves(ProtocolVersion::V_2025_06_18).await;
}

#[tokio::test]
async fn protocol_2025_11_25_is_served() {
    serves(ProtocolVersion::V_2025_11_25).await;
}

#[tokio::test]
async fn protocol_2026_07_28_is_served_without_initialize() {
    serves(ProtocolVersion::V_2026_07_28).await;
}

#[tokio::test]
async fn on_2026_07_28_without_root_the_current_directory_is_served_at_once() {
    let base = tempfile::tempdir().unwrap();
    let cwd = base.path().join("project");
    std::fs::create_dir(&cwd).unwrap();
    let started = std::time::Instant::now();
    let client =
        connect(command(&cwd, &base.path().join("state"), None), ProtocolVersion::V_2026_07_28).await;
    write_append_read_check(&client, &cwd).await;
    // The old path waited 10 s for roots that this revision never sends, then failed.
    assert!(started.elapsed() < std::time::Duration::from_secs(8), "took {:?}", started.elapsed());
    let _ = client.cancel().await;
}

#[tokio::test]
async fn on_2026_07_28_the_home_directory_is_refused_with_the_reason_in_the_result() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = command(home.path(), &home.path().join(".state"), None);
    cmd.env("HOME", home.path());
    let client = connect(cmd, ProtocolVersion::V_2026_07_28).await;
    let result = call(&client, "write_file", json!({"path": "x.txt", "content": "x"})).await;
    assert_eq!(result.is_error, Some(true), "{}", text(&result));
    assert!(text(&result).contains("--root /path/to/project"), "{}", text(&result));
    assert!(!home.path().join("x.txt").exists());
    let _ = client.cancel().await;
}
