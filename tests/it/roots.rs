//! Which root is served: `--root`, else the client's roots (followed when they change), else
//! the current directory, never `/` or the home directory by default.
#![allow(deprecated)] // MCP roots are deprecated by SEP-2577 but current in 2025-11-25 sessions.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ListRootsResult, Root,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::json;

/// A client that offers roots (file:// URIs of the given directories).
#[derive(Clone)]
struct RootsClient {
    roots: Arc<Mutex<Vec<PathBuf>>>,
}

impl ClientHandler for RootsClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_roots().enable_roots_list_changed().build(),
            Implementation::new("roots-test-client", "0"),
        )
    }

    async fn list_roots(&self, _: RequestContext<RoleClient>) -> Result<ListRootsResult, ErrorData> {
        let roots = self.roots.lock().unwrap().clone();
        Ok(ListRootsResult::new(
            roots.iter().map(|p| Root::new(url::Url::from_directory_path(p).unwrap().to_string())).collect(),
        ))
    }
}

fn command(cwd: &Path, state: &Path, extra: &[&str]) -> tokio::process::Command {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_filewright")).configure(|c| {
        c.current_dir(cwd).arg("--state-dir").arg(state).args(extra).env("FILEWRIGHT_LOG", "warn");
    })
}

async fn write(
    client: &RunningService<RoleClient, impl rmcp::service::Service<RoleClient>>,
    path: &str,
) -> bool {
    let args = json!({"path": path, "content": "x\n"}).as_object().unwrap().clone();
    let result =
        client.call_tool(CallToolRequestParams::new("write_file").with_arguments(args)).await.unwrap();
    result.is_error != Some(true)
}

#[tokio::test]
async fn without_root_the_clients_root_is_served_and_followed_when_it_changes() {
    let base = tempfile::tempdir().unwrap();
    let (cwd, first, second) =
        (base.path().join("cwd"), base.path().join("first dir"), base.path().join("second"));
    for d in [&cwd, &first, &second] {
        std::fs::create_dir(d).unwrap();
    }
    let roots = Arc::new(Mutex::new(vec![first.clone()]));
    let handler = RootsClient { roots: roots.clone() };
    let transport = TokioChildProcess::new(command(&cwd, &base.path().join("state"), &[])).unwrap();
    let client = handler.serve(transport).await.unwrap();
    assert!(write(&client, "a.txt").await);
    assert!(first.join("a.txt").exists(), "the client's root (a percent-encoded URI) is served");
    assert!(!cwd.join("a.txt").exists());

    *roots.lock().unwrap() = vec![second.clone()];
    client.notify_roots_list_changed().await.unwrap();
    let mut switched = false;
    for _ in 0..100 {
        write(&client, "b.txt").await;
        if second.join("b.txt").exists() {
            switched = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(switched, "roots/list_changed moves the sandbox to the new root");
    let _ = client.cancel().await;
}

#[tokio::test]
async fn an_explicit_root_wins_over_the_clients_roots() {
    let base = tempfile::tempdir().unwrap();
    let (explicit, offered) = (base.path().join("explicit"), base.path().join("offered"));
    std::fs::create_dir(&explicit).unwrap();
    std::fs::create_dir(&offered).unwrap();
    let handler = RootsClient { roots: Arc::new(Mutex::new(vec![offered.clone()])) };
    let extra = ["--root", explicit.to_str().unwrap()];
    let client = handler
        .serve(TokioChildProcess::new(command(base.path(), &base.path().join("s"), &extra)).unwrap())
        .await
        .unwrap();
    assert!(write(&client, "a.txt").await);
    assert!(explicit.join("a.txt").exists() && !offered.join("a.txt").exists());
    let _ = client.cancel().await;
}

#[tokio::test]
async fn a_client_without_roots_gets_the_current_directory() {
    let base = tempfile::tempdir().unwrap();
    let cwd = base.path().join("project");
    std::fs::create_dir(&cwd).unwrap();
    let client =
        ().serve(TokioChildProcess::new(command(&cwd, &base.path().join("s"), &[])).unwrap()).await.unwrap();
    assert!(write(&client, "here.txt").await);
    assert!(cwd.join("here.txt").exists());
    let _ = client.cancel().await;
}

#[tokio::test]
async fn the_home_directory_by_default_is_refused_with_the_reason_in_every_result() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = command(home.path(), &home.path().join(".state"), &[]);
    cmd.env("HOME", home.path()).stderr(std::process::Stdio::null());
    // A client without roots: nothing but the current directory could be served.
    let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.expect("the server stays up");
    for _ in 0..2 {
        let args = json!({"path": "x.txt", "content": "x"}).as_object().unwrap().clone();
        let reply =
            client.call_tool(CallToolRequestParams::new("write_file").with_arguments(args)).await.unwrap();
        assert_eq!(reply.is_error, Some(true));
        let text =
            reply.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<String>();
        assert!(text.contains("--root /path/to/project"), "{text}");
        assert!(text.contains(&home.path().display().to_string()), "names the directory: {text}");
    }
    assert!(!home.path().join("x.txt").exists());
    let _ = client.cancel().await;
}
