//! `copy_file` over stdio: bytes and mode copied atomically, parents made, an existing file
//! replaced only with `overwrite`, `to` claimed, journaled and undoable, and no symlink followed
//! out of the root.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn a_copy_has_the_bytes_and_mode_of_its_source_and_is_checked() {
    let script = "#!/bin/sh\necho ok\n";
    let root = Root::new().file("run.sh", script).file("logo.bin", [0u8, 159, 146, 150, 0]);
    std::fs::set_permissions(root.path().join("run.sh"), std::fs::Permissions::from_mode(0o754)).unwrap();
    let server = Server::spawn(&root).await;
    let reply = server.call("copy_file", json!({"from": "run.sh", "to": "tools/bin/run.sh"})).await.ok();
    assert_eq!(root.read("tools/bin/run.sh"), script.as_bytes());
    let mode = std::fs::metadata(root.path().join("tools/bin/run.sh")).unwrap().permissions().mode();
    assert_eq!(mode & 0o7777, 0o754);
    let j = reply.json();
    assert_eq!(
        (j["from"].as_str(), j["to"].as_str(), j["action"].as_str()),
        (Some("run.sh"), Some("tools/bin/run.sh"), Some("copy"))
    );
    assert_eq!(
        (j["size"].as_u64(), j["lines"].as_u64(), j["permissions"].as_str()),
        (Some(18), Some(2), Some("0754"))
    );
    assert_eq!((j["identical"].as_bool(), j["replaced"].as_bool()), (Some(true), Some(false)));
    assert_eq!(j["syntax"]["status"], "ok");
    let text = reply.text();
    assert!(text.starts_with("Copied run.sh to tools/bin/run.sh: 2 lines (18 bytes, sha256 "), "{text}");
    assert!(text.contains("permissions 0754 (rwxr-xr--)), read back identical\nsyntax: ok"), "{text}");
    assert!(
        reply
            .0
            .content
            .iter()
            .any(|c| c.as_resource_link().is_some_and(|l| l.uri.ends_with("tools/bin/run.sh")))
    );
    // Binary bytes come through unchanged.
    server.call("copy_file", json!({"from": "logo.bin", "to": "copy.bin"})).await.ok();
    assert_eq!(root.read("copy.bin"), [0u8, 159, 146, 150, 0]);
    // The source is untouched and not journaled; the copy is.
    assert_eq!(root.read("run.sh"), script.as_bytes());
    let artifacts = server.call("list_artifacts", json!({})).await.ok();
    let paths: Vec<&str> = artifacts.json()["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["copy.bin", "tools/bin/run.sh"]);
    server.stop().await;
}

#[tokio::test]
async fn an_existing_file_is_replaced_only_with_overwrite_and_undo_takes_the_copy_back() {
    let root = Root::new().file("new.txt", "new\n").file("old.txt", "old\n");
    let server = Server::spawn(&root).await;
    let text = server.call("copy_file", json!({"from": "new.txt", "to": "old.txt"})).await.err();
    assert_eq!(
        text,
        "old.txt already exists, so nothing was changed: pass overwrite: true to replace it, or choose another name."
    );
    assert_eq!(root.read("old.txt"), b"old\n");
    let reply =
        server.call("copy_file", json!({"from": "new.txt", "to": "old.txt", "overwrite": true})).await.ok();
    assert_eq!(reply.json()["replaced"], true);
    assert!(
        reply.text().starts_with("Copied new.txt to old.txt (replacing the file there)"),
        "{}",
        reply.text()
    );
    assert_eq!(root.read("old.txt"), b"new\n");
    server.call("undo", json!({"path": "old.txt"})).await.ok();
    assert_eq!(root.read("old.txt"), b"old\n", "undo puts the replaced file back");
    server.call("copy_file", json!({"from": "new.txt", "to": "fresh/new.txt"})).await.ok();
    let undone = server.call("undo", json!({"path": "fresh/new.txt"})).await.ok();
    assert_eq!(undone.json()["removed"], true);
    assert!(!root.exists("fresh/new.txt"), "undo takes a new copy away");
    assert_eq!(root.read("new.txt"), b"new\n");
    server.stop().await;
}

#[tokio::test]
async fn directories_missing_sources_and_the_same_path_are_refused() {
    let root = Root::new().file("d/a.txt", "a\n").file("f.txt", "f\n");
    let server = Server::spawn(&root).await;
    let text = server.call("copy_file", json!({"from": "d", "to": "e"})).await.err();
    assert!(text.contains("d is a directory, and copy_file copies one file; nothing was copied"), "{text}");
    assert!(text.contains("find_files with path \"d\""), "{text}");
    let text = server.call("copy_file", json!({"from": "f.txt", "to": "d", "overwrite": true})).await.err();
    assert!(text.contains("d is a directory, not a file"), "{text}");
    let text = server.call("copy_file", json!({"from": "nope.txt", "to": "x.txt"})).await.err();
    assert!(text.contains("nope.txt does not exist"), "{text}");
    let text =
        server.call("copy_file", json!({"from": "f.txt", "to": "./f.txt", "overwrite": true})).await.err();
    assert!(text.contains("same file as `from`"), "{text}");
    let text = server.call("copy_file", json!({"from": "f.txt"})).await.err();
    assert!(text.contains("without `to`"), "{text}");
    assert!(!root.exists("e") && !root.exists("x.txt"));
    assert_eq!(root.read("f.txt"), b"f\n");
    server.stop().await;
}

#[tokio::test]
async fn claims_hold_for_the_copy() {
    let root = Root::new().file("src.txt", "s\n");
    let alice = Server::spawn_as(&root, "alice").await;
    let bob = Server::spawn_as(&root, "bob").await;
    alice.call("write_file", json!({"path": "taken.txt", "content": "a\n"})).await.ok();
    let text =
        bob.call("copy_file", json!({"from": "src.txt", "to": "taken.txt", "overwrite": true})).await.err();
    assert!(text.contains("CONFLICT") && text.contains("alice"), "{text}");
    assert_eq!(root.read("taken.txt"), b"a\n");
    // Reading a file another agent claimed is allowed: only `to` is claimed.
    bob.call("copy_file", json!({"from": "taken.txt", "to": "mine.txt"})).await.ok();
    assert_eq!(root.read("mine.txt"), b"a\n");
    alice.stop().await;
    bob.stop().await;
}

#[tokio::test]
async fn no_symlink_is_followed_out_of_the_root() {
    let root = Root::new().file("in.txt", "inside\n");
    std::fs::write(root.outside().join("secret.txt"), "secret\n").unwrap();
    let outside = root.outside();
    let root = root
        .symlink("out", &outside)
        .symlink("out_file", outside.join("secret.txt"))
        .symlink("link.txt", "in.txt");
    let server = Server::spawn(&root).await;
    let before = Root::snapshot(&outside);
    let abs = outside.join("secret.txt").display().to_string();
    for (from, to) in [
        ("out/secret.txt", "stolen.txt"),
        ("out_file", "stolen.txt"),
        ("../outside/secret.txt", "stolen.txt"),
        (abs.as_str(), "stolen.txt"),
        ("in.txt", "out/planted.txt"),
        ("in.txt", "out_file"),
        ("in.txt", "../outside/planted.txt"),
    ] {
        let text = server.call("copy_file", json!({"from": from, "to": to, "overwrite": true})).await.err();
        assert!(text.contains("outside the sandbox root"), "{from} -> {to}: {text}");
    }
    assert_eq!(Root::snapshot(&outside), before);
    assert!(!root.exists("stolen.txt"));
    // A symlink inside the root is followed to its target.
    server.call("copy_file", json!({"from": "link.txt", "to": "copied.txt"})).await.ok();
    assert_eq!(root.read("copied.txt"), b"inside\n");
    assert!(!std::fs::symlink_metadata(root.path().join("copied.txt")).unwrap().file_type().is_symlink());
    server.stop().await;
}
