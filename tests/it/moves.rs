//! `move_file` and `delete_file` over stdio: atomic, claimed, journaled, undoable, and unable to
//! reach outside the root.

use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn a_move_renames_creates_directories_and_refuses_to_replace_without_overwrite() {
    let root = Root::new().file("a.py", "x = 1\n").file("b.py", "y = 2\n");
    let server = Server::spawn(&root).await;
    let reply = server.call("move_file", json!({"from": "a.py", "to": "pkg/sub/a.py"})).await.ok();
    assert!(!root.exists("a.py") && root.read("pkg/sub/a.py") == b"x = 1\n", "{}", reply.text());
    assert_eq!(reply.json()["syntax"]["status"], "ok");
    let text = server.call("move_file", json!({"from": "pkg/sub/a.py", "to": "b.py"})).await.err();
    assert!(text.contains("already exists") && text.contains("overwrite"), "{text}");
    assert_eq!(root.read("b.py"), b"y = 2\n");
    assert!(root.exists("pkg/sub/a.py"));
    let reply =
        server.call("move_file", json!({"from": "pkg/sub/a.py", "to": "b.py", "overwrite": true})).await.ok();
    assert_eq!(reply.json()["replaced"], true);
    assert_eq!(root.read("b.py"), b"x = 1\n");
    server.stop().await;
}

#[tokio::test]
async fn undo_on_both_paths_takes_a_move_back() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "old.txt", "content": "data\n"})).await.ok();
    server.call("move_file", json!({"from": "old.txt", "to": "new.txt"})).await.ok();
    server.call("undo", json!({"path": "new.txt"})).await.ok();
    assert!(!root.exists("new.txt"));
    server.call("undo", json!({"path": "old.txt"})).await.ok();
    assert_eq!(root.read("old.txt"), b"data\n");
    server.stop().await;
}

#[tokio::test]
async fn a_delete_removes_a_file_or_an_empty_directory_and_undo_brings_the_file_back() {
    let root = Root::new().file("d/keep.txt", "k\n").file("gone.js", "let a = 1;\n");
    let server = Server::spawn(&root).await;
    let reply = server.call("delete_file", json!({"path": "gone.js"})).await.ok();
    assert!(!root.exists("gone.js"));
    assert_eq!(reply.json()["undoable"], true);
    let text = server.call("delete_file", json!({"path": "d"})).await.err();
    assert!(text.contains("1 entries") && text.contains("nothing was deleted"), "{text}");
    assert!(root.exists("d/keep.txt"));
    server.call("delete_file", json!({"path": "d/keep.txt"})).await.ok();
    server.call("delete_file", json!({"path": "d"})).await.ok();
    assert!(!root.exists("d"));
    server.call("undo", json!({"path": "gone.js"})).await.ok();
    assert_eq!(root.read("gone.js"), b"let a = 1;\n");
    let text = server.call("delete_file", json!({"path": "never.txt"})).await.err();
    assert!(text.contains("never.txt"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn claims_hold_for_moves_and_deletes() {
    let root = Root::new();
    let alice = Server::spawn_as(&root, "alice").await;
    let bob = Server::spawn_as(&root, "bob").await;
    alice.call("write_file", json!({"path": "a.txt", "content": "a\n"})).await.ok();
    bob.call("write_file", json!({"path": "b.txt", "content": "b\n"})).await.ok();
    for (tool, args) in [
        ("delete_file", json!({"path": "a.txt"})),
        ("move_file", json!({"from": "a.txt", "to": "c.txt"})),
        ("move_file", json!({"from": "b.txt", "to": "a.txt", "overwrite": true})),
    ] {
        let text = bob.call(tool, args).await.err();
        assert!(text.contains("CONFLICT") && text.contains("alice"), "{tool}: {text}");
    }
    assert_eq!(root.read("a.txt"), b"a\n");
    assert_eq!(root.read("b.txt"), b"b\n");
    alice.stop().await;
    bob.stop().await;
}

#[tokio::test]
async fn moves_and_deletes_cannot_reach_outside_the_root() {
    let root = Root::new().file("in.txt", "inside\n");
    std::fs::write(root.outside().join("secret.txt"), "secret\n").expect("outside file");
    let outside = root.outside();
    let root = root.symlink("out", &outside);
    let server = Server::spawn(&root).await;
    let before = Root::snapshot(&root.outside());
    for (tool, args) in [
        ("delete_file", json!({"path": "../outside/secret.txt"})),
        ("delete_file", json!({"path": "out/secret.txt"})),
        ("delete_file", json!({"path": root.outside().join("secret.txt").display().to_string()})),
        ("move_file", json!({"from": "out/secret.txt", "to": "stolen.txt"})),
        ("move_file", json!({"from": "in.txt", "to": "out/planted.txt"})),
        ("move_file", json!({"from": "in.txt", "to": "../planted.txt"})),
    ] {
        let reply = server.call(tool, args.clone()).await;
        assert!(reply.is_error(), "{tool} {args}: {}", reply.text());
    }
    assert_eq!(Root::snapshot(&root.outside()), before);
    assert_eq!(root.read("in.txt"), b"inside\n");
    assert!(!root.exists("stolen.txt"));
    server.stop().await;
}
