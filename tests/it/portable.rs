//! The portable paths, which other Unix systems take instead of the Linux-only calls (see
//! `filewright::platform`), run here on Linux with `FILEWRIGHT_PORTABLE=1` so that they are
//! not dead code. `FILEWRIGHT_PORTABLE=1 cargo test --test it` runs every module so.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use rmcp::ServiceExt;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::json;

use crate::util::{Root, Server};

/// A server on `root` taking the portable paths, logging at info into `log`.
async fn spawn_portable(root: &Root, log: &Path) -> Server {
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_filewright")).configure(|c| {
        c.arg("--root")
            .arg(root.path())
            .arg("--state-dir")
            .arg(root.state())
            .env("FILEWRIGHT_PORTABLE", "1")
            .env("FILEWRIGHT_LOG", "info");
    });
    let log = std::fs::File::create(log).expect("create the log file");
    let (transport, _) = TokioChildProcess::builder(command).stderr(log).spawn().expect("spawn filewright");
    let client = ().serve(transport).await.expect("MCP initialize");
    Server { client }
}

/// The names in the root's top directory, sorted (a temporary file left behind shows here).
fn names(root: &Root) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn on_the_portable_paths_a_replace_keeps_the_mode_and_leaves_no_temporary_file() {
    let root = Root::new().file("run.sh", "echo 1\n");
    std::fs::set_permissions(root.path().join("run.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    let log = root.state().with_extension("log");
    std::fs::create_dir_all(root.state()).unwrap();
    let server = spawn_portable(&root, &log).await;
    server.call("read_file", json!({"path": "run.sh"})).await.ok();
    // The mode comes from a lookup by name (no O_PATH handle), the file from a temporary file
    // created by the replace itself (no O_TMPFILE spare).
    server.call("write_file", json!({"path": "run.sh", "content": "echo 2\n"})).await.ok();
    server.call("write_file", json!({"path": "run.sh", "content": "echo 3\n"})).await.ok();
    server.call("edit_file", json!({"path": "run.sh", "old_string": "3", "new_string": "4"})).await.ok();
    server.call("append_file", json!({"path": "run.sh", "content": "echo 5\n"})).await.ok();
    assert_eq!(root.read("run.sh"), b"echo 4\necho 5\n");
    let mode = std::fs::metadata(root.path().join("run.sh")).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o750, "the replaced file's mode is kept");
    assert_eq!(names(&root), ["run.sh"]);
    server.stop().await;
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains("FILEWRIGHT_PORTABLE: the Linux-only calls are off"), "{logged}");
}

#[tokio::test]
async fn on_the_portable_path_a_move_replaces_a_file_only_when_asked() {
    let root = Root::new().file("a.txt", "A\n").file("b.txt", "B\n");
    let log = root.state().with_extension("log");
    std::fs::create_dir_all(root.state()).unwrap();
    let server = spawn_portable(&root, &log).await;
    let text = server.call("move_file", json!({"from": "a.txt", "to": "b.txt"})).await.err();
    assert!(text.contains("already exists"), "{text}");
    assert_eq!((root.read("a.txt"), root.read("b.txt")), (b"A\n".to_vec(), b"B\n".to_vec()));
    server.call("move_file", json!({"from": "a.txt", "to": "sub/c.txt"})).await.ok();
    assert!(!root.exists("a.txt"));
    assert_eq!(root.read("sub/c.txt"), b"A\n");
    let reply =
        server.call("move_file", json!({"from": "sub/c.txt", "to": "b.txt", "overwrite": true})).await.ok();
    assert_eq!(reply.json()["replaced"], true);
    assert_eq!(root.read("b.txt"), b"A\n");
    assert!(!root.exists("sub/c.txt"));
    server.call("undo", json!({"path": "b.txt"})).await.ok();
    assert_eq!(root.read("b.txt"), b"B\n", "undo brings the replaced file back");
    server.stop().await;
}
