//! A repeated `check_files` keeps what an unchanged file told the last one, and never what a
//! changed file told it: each test checks a file whose mtime is old enough for its entry to
//! be kept, changes it (or a file it refers to) in a way that keeps what it can of its
//! metadata, and checks again. A server that kept a stale entry would repeat the old verdict.

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::util::{Root, Server};

/// A complete Python file, and an unfinished one of the same size.
const GOOD: &str = "value = (1 + 2)\n";
const BAD: &str = "value = (1 + 2 \n";

/// An hour ago: a file last changed then is kept by the check.
fn an_hour_ago() -> SystemTime {
    SystemTime::now() - Duration::from_secs(3600)
}

/// Sets the mtime of `rel` under the root to `time`, from outside the server.
fn set_mtime(root: &Root, rel: &str, time: SystemTime) {
    let file = std::fs::File::options().write(true).open(root.path().join(rel)).unwrap();
    file.set_modified(time).unwrap();
}

fn mtime(path: &Path) -> SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}

/// The status of each file `check_files` reports for `paths`.
async fn statuses(server: &Server, paths: &[&str]) -> Vec<String> {
    let reply = server.call("check_files", json!({ "paths": paths })).await.ok();
    reply.json()["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap().to_owned())
        .collect()
}

async fn status(server: &Server, path: &str) -> String {
    statuses(server, &[path]).await.remove(0)
}

#[tokio::test]
async fn check_files_sees_a_file_replaced_from_outside_with_the_same_size_and_mtime() {
    let root = Root::new().file("a.py", GOOD);
    set_mtime(&root, "a.py", an_hour_ago());
    let server = Server::spawn(&root).await;
    assert_eq!(status(&server, "a.py").await, "complete");
    assert_eq!(status(&server, "a.py").await, "complete", "the same answer from what was kept");
    // Replaced as editors and `git checkout` do, by a new file renamed over it, which is
    // then given the old file's mtime: size and mtime are the same, the inode is not.
    let path = root.path().join("a.py");
    let old = mtime(&path);
    let staged = root.path().join(".a.py.new");
    std::fs::write(&staged, BAD).unwrap();
    std::fs::File::options().write(true).open(&staged).unwrap().set_modified(old).unwrap();
    std::fs::rename(&staged, &path).unwrap();
    assert_eq!(mtime(&path), old);
    assert_ne!(status(&server, "a.py").await, "complete", "the replaced file is unfinished");
    server.stop().await;
}

#[tokio::test]
async fn check_files_sees_a_file_rewritten_in_place_from_outside_with_the_same_size() {
    let root = Root::new().file("a.py", GOOD);
    set_mtime(&root, "a.py", an_hour_ago());
    let server = Server::spawn(&root).await;
    assert_eq!(status(&server, "a.py").await, "complete");
    // The same inode and size; only the mtime tells.
    std::fs::write(root.path().join("a.py"), BAD).unwrap();
    assert_ne!(status(&server, "a.py").await, "complete");
    server.stop().await;
}

#[tokio::test]
async fn check_files_sees_an_in_place_rewrite_whose_mtime_was_set_back() {
    let root = Root::new().file("a.py", GOOD);
    set_mtime(&root, "a.py", an_hour_ago());
    let path = root.path().join("a.py");
    let old = mtime(&path);
    let server = Server::spawn(&root).await;
    assert_eq!(status(&server, "a.py").await, "complete");
    // The same inode, size and mtime (`touch -d`): only the ctime, which no one sets back, tells.
    std::fs::write(&path, BAD).unwrap();
    std::fs::File::options().write(true).open(&path).unwrap().set_modified(old).unwrap();
    assert_eq!(mtime(&path), old);
    assert_ne!(status(&server, "a.py").await, "complete");
    server.stop().await;
}

#[tokio::test]
async fn check_files_sees_a_module_deleted_created_or_changed_under_the_file_that_imports_it() {
    let main = "from .helper import run\n\nrun()\n";
    let root = Root::new()
        .file("pkg/__init__.py", "")
        .file("pkg/main.py", main)
        .file("pkg/helper.py", "def run():\n    return 1\n");
    set_mtime(&root, "pkg/main.py", an_hour_ago());
    set_mtime(&root, "pkg/helper.py", an_hour_ago());
    let server = Server::spawn(&root).await;
    assert_eq!(status(&server, "pkg/main.py").await, "complete");

    // main.py's own bytes never change: its references are resolved anew each time.
    std::fs::remove_file(root.path().join("pkg/helper.py")).unwrap();
    assert_eq!(status(&server, "pkg/main.py").await, "unresolved", "the module it imports is gone");

    std::fs::write(root.path().join("pkg/helper.py"), "def run():\n    return 2\n").unwrap();
    set_mtime(&root, "pkg/helper.py", an_hour_ago());
    assert_eq!(status(&server, "pkg/main.py").await, "complete", "the module is back");

    // What helper.py defines is kept for the next check too, and must follow its changes:
    // the same size, another name.
    std::fs::write(root.path().join("pkg/helper.py"), "def ran():\n    return 2\n").unwrap();
    let reply = server.call("check_files", json!({ "paths": ["pkg/main.py"] })).await.ok();
    let file = &reply.json()["files"][0];
    assert_eq!(file["status"], "unresolved", "{}", reply.text());
    assert_eq!(file["unresolved"][0]["reference"], "run", "{}", reply.text());

    // Through the server: a write of the module, then its deletion.
    set_mtime(&root, "pkg/helper.py", an_hour_ago());
    assert_eq!(status(&server, "pkg/main.py").await, "unresolved");
    server
        .call("write_file", json!({"path": "pkg/helper.py", "content": "def run():\n    return 3\n"}))
        .await
        .ok();
    assert_eq!(status(&server, "pkg/main.py").await, "complete");
    set_mtime(&root, "pkg/helper.py", an_hour_ago());
    assert_eq!(status(&server, "pkg/main.py").await, "complete");
    server.call("delete_file", json!({"path": "pkg/helper.py"})).await.ok();
    assert_eq!(status(&server, "pkg/main.py").await, "unresolved");
    server.stop().await;
}

/// The ways the server changes `a.py` from [`GOOD`] to something unfinished, each with what
/// it needs first.
fn server_changes() -> Vec<(&'static str, Vec<(&'static str, Value)>)> {
    let patch =
        "*** Begin Patch\n*** Update File: a.py\n@@\n-value = (1 + 2)\n+value = (1 + 2 \n*** End Patch\n";
    vec![
        ("write_file", vec![("write_file", json!({"path": "a.py", "content": BAD}))]),
        (
            "edit_file",
            vec![("edit_file", json!({"path": "a.py", "old_string": "(1 + 2)", "new_string": "(1 + 2 "}))],
        ),
        ("append_file", vec![("append_file", json!({"path": "a.py", "content": "print(\n"}))]),
        ("apply_patch", vec![("apply_patch", json!({ "patch": patch }))]),
        ("move_file", vec![("move_file", json!({"from": "b.py", "to": "a.py", "overwrite": true}))]),
    ]
}

#[tokio::test]
async fn check_files_sees_every_change_the_server_makes() {
    for (tool, calls) in server_changes() {
        let root = Root::new().file("a.py", GOOD).file("b.py", BAD);
        set_mtime(&root, "a.py", an_hour_ago());
        set_mtime(&root, "b.py", an_hour_ago());
        let server = Server::spawn(&root).await;
        assert_eq!(statuses(&server, &["a.py", "b.py"]).await[0], "complete", "{tool}");
        for (name, args) in calls {
            server.call(name, args).await.ok();
        }
        assert_ne!(status(&server, "a.py").await, "complete", "after {tool}");
        server.stop().await;
    }
}

#[tokio::test]
async fn check_files_sees_an_undo_and_a_delete_by_the_server() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "a.py", "content": GOOD})).await.ok();
    server.call("write_file", json!({"path": "a.py", "content": BAD})).await.ok();
    set_mtime(&root, "a.py", an_hour_ago());
    assert_ne!(status(&server, "a.py").await, "complete");
    server.call("undo", json!({"path": "a.py"})).await.ok();
    assert_eq!(status(&server, "a.py").await, "complete", "undo brought back the complete file");
    set_mtime(&root, "a.py", an_hour_ago());
    assert_eq!(status(&server, "a.py").await, "complete");
    server.call("delete_file", json!({"path": "a.py"})).await.ok();
    assert_eq!(status(&server, "a.py").await, "missing");
    server.stop().await;
}

#[tokio::test]
async fn check_files_sees_a_crate_edition_change_in_a_file_it_kept() {
    // `async` is a keyword from 2018 on: the same file parses in 2015 and not in 2021.
    let lib = "fn f() {\n    let async = 1;\n    let _ = async;\n}\n";
    let root = Root::new()
        .file("Cargo.toml", "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2015\"\n")
        .file("src/lib.rs", lib);
    set_mtime(&root, "src/lib.rs", an_hour_ago());
    let server = Server::spawn(&root).await;
    assert_eq!(status(&server, "src/lib.rs").await, "complete");
    std::fs::write(
        root.path().join("Cargo.toml"),
        "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    assert_ne!(status(&server, "src/lib.rs").await, "complete", "lib.rs does not parse in 2021");
    server.stop().await;
}
