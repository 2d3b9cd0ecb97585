//! Symbolic links inside the root behave as the shell does: `delete_file` and `move_file` act
//! on the link itself and leave its target alone (`rm`, `mv`); writes, appends and edits go
//! through to the target and keep the link; `undo` puts a deleted or moved link back as a link
//! with its text; a link whose absolute text points inside the root is inside.

use std::path::PathBuf;

use serde_json::json;

use crate::util::{Root, Server};

fn link_text(root: &Root, rel: &str) -> Option<PathBuf> {
    std::fs::read_link(root.path().join(rel)).ok()
}

#[tokio::test]
async fn delete_file_removes_the_link_not_its_target_and_undo_puts_the_link_back() {
    let root = Root::new().file("real/data.txt", "precious\n").symlink("alias.txt", "real/data.txt");
    let server = Server::spawn(&root).await;
    let reply = server.call("delete_file", json!({"path": "alias.txt"})).await.ok();
    assert_eq!(reply.json()["removed"], "symlink", "{}", reply.text());
    assert!(link_text(&root, "alias.txt").is_none(), "the link is gone");
    assert_eq!(root.read("real/data.txt"), b"precious\n", "its target is untouched");
    server.call("undo", json!({"path": "alias.txt"})).await.ok();
    assert_eq!(link_text(&root, "alias.txt"), Some(PathBuf::from("real/data.txt")), "back as a link");
    assert_eq!(root.read("alias.txt"), b"precious\n");
    server.stop().await;
}

#[tokio::test]
async fn delete_file_on_a_link_to_a_directory_removes_the_link_only() {
    let root = Root::new()
        .file("lib/a.js", "a\n")
        .file("lib/b.js", "b\n")
        .file("lib/c.js", "c\n")
        .symlink("vendor", "lib");
    let server = Server::spawn(&root).await;
    server.call("delete_file", json!({"path": "vendor"})).await.ok();
    assert!(link_text(&root, "vendor").is_none());
    assert_eq!(std::fs::read_dir(root.path().join("lib")).unwrap().count(), 3, "the directory is whole");
    server.call("undo", json!({"path": "vendor"})).await.ok();
    assert_eq!(link_text(&root, "vendor"), Some(PathBuf::from("lib")));
    server.stop().await;
}

#[tokio::test]
async fn move_file_moves_the_link_itself_and_undo_moves_it_back() {
    let root = Root::new().file("data.txt", "precious\n").symlink("alias.txt", "data.txt");
    let server = Server::spawn(&root).await;
    server.call("move_file", json!({"from": "alias.txt", "to": "renamed.txt"})).await.ok();
    assert!(link_text(&root, "alias.txt").is_none());
    assert_eq!(link_text(&root, "renamed.txt"), Some(PathBuf::from("data.txt")), "the link moved, as a link");
    assert_eq!(root.read("data.txt"), b"precious\n", "its target stayed");
    server.call("undo", json!({"path": "renamed.txt"})).await.ok();
    server.call("undo", json!({"path": "alias.txt"})).await.ok();
    assert!(!root.path().join("renamed.txt").exists() && link_text(&root, "renamed.txt").is_none());
    assert_eq!(link_text(&root, "alias.txt"), Some(PathBuf::from("data.txt")));
    assert_eq!(root.read("data.txt"), b"precious\n");
    server.stop().await;
}

#[tokio::test]
async fn move_file_over_a_link_replaces_the_link_not_its_target() {
    let root =
        Root::new().file("data.txt", "precious\n").file("new.txt", "new\n").symlink("alias.txt", "data.txt");
    let server = Server::spawn(&root).await;
    server.call("move_file", json!({"from": "new.txt", "to": "alias.txt", "overwrite": true})).await.ok();
    assert!(link_text(&root, "alias.txt").is_none(), "the link was replaced by the file");
    assert_eq!(root.read("alias.txt"), b"new\n");
    assert_eq!(root.read("data.txt"), b"precious\n", "the link's target is untouched");
    server.call("undo", json!({"path": "alias.txt"})).await.ok();
    assert_eq!(link_text(&root, "alias.txt"), Some(PathBuf::from("data.txt")), "undo brings the link back");
    server.stop().await;
}

#[tokio::test]
async fn writes_appends_and_edits_go_through_a_link_and_keep_it() {
    let root = Root::new().file("real.txt", "one\n").symlink("alias.txt", "real.txt");
    let server = Server::spawn(&root).await;
    server.call("append_file", json!({"path": "alias.txt", "content": "two\n"})).await.ok();
    server
        .call("edit_file", json!({"path": "alias.txt", "old_string": "one", "new_string": "ONE"}))
        .await
        .ok();
    server.call("write_file", json!({"path": "alias.txt", "content": "three\n"})).await.ok();
    assert_eq!(link_text(&root, "alias.txt"), Some(PathBuf::from("real.txt")), "still a link");
    assert_eq!(root.read("real.txt"), b"three\n");
    server.stop().await;
}

#[tokio::test]
async fn a_link_whose_absolute_text_points_inside_the_root_is_inside() {
    let root = Root::new().file("src/app.js", "let a = 1;\n");
    let abs = root.path().join("src");
    let root = root.symlink("abs_dir", &abs).symlink("abs_file.js", abs.join("app.js"));
    let server = Server::spawn(&root).await;
    let text = server.call("read_file", json!({"path": "abs_dir/app.js"})).await.ok().text();
    assert!(text.contains("let a = 1;"), "{text}");
    server.call("append_file", json!({"path": "abs_file.js", "content": "let b = 2;\n"})).await.ok();
    server.call("write_file", json!({"path": "abs_dir/new.js", "content": "let c = 3;\n"})).await.ok();
    assert_eq!(root.read("src/app.js"), b"let a = 1;\nlet b = 2;\n");
    assert_eq!(root.read("src/new.js"), b"let c = 3;\n");
    assert!(std::fs::symlink_metadata(root.path().join("abs_file.js")).unwrap().file_type().is_symlink());
    server.stop().await;
}

#[tokio::test]
async fn a_refusal_about_a_link_to_a_directory_says_it_is_a_link() {
    let root = Root::new().file("lib/a.js", "a\n").symlink("vendor", "lib");
    let server = Server::spawn(&root).await;
    for (tool, args) in [
        ("write_file", json!({"path": "vendor", "content": "x"})),
        ("read_file", json!({"path": "vendor"})),
        ("append_file", json!({"path": "vendor", "content": "x"})),
    ] {
        let text = server.call(tool, args).await.err();
        assert!(text.contains("symbolic link to the directory lib"), "{tool}: {text}");
    }
    server.call("list_directory", json!({"path": "vendor"})).await.ok();
    assert_eq!(root.read("lib/a.js"), b"a\n");
    server.stop().await;
}

#[tokio::test]
async fn undo_after_a_write_through_a_restored_link_takes_back_the_write_not_the_link() {
    let root = Root::new().file("a.txt", "one\n").symlink("alias.txt", "a.txt");
    let server = Server::spawn(&root).await;
    server.call("delete_file", json!({"path": "alias.txt"})).await.ok();
    server.call("undo", json!({"path": "alias.txt"})).await.ok();
    server.call("write_file", json!({"path": "alias.txt", "content": "two\n"})).await.ok();
    server.call("undo", json!({"path": "alias.txt"})).await.ok();
    assert_eq!(root.read("a.txt"), b"one\n", "the write was taken back");
    assert_eq!(link_text(&root, "alias.txt"), Some(PathBuf::from("a.txt")), "the link stays");
    server.stop().await;
}

#[tokio::test]
async fn a_patch_deletes_a_link_itself_and_undo_puts_it_back() {
    let root = Root::new().file("data.txt", "precious\n").symlink("alias.txt", "data.txt");
    let server = Server::spawn(&root).await;
    let patch = "*** Begin Patch\n*** Delete File: alias.txt\n*** End Patch\n";
    server.call("apply_patch", json!({"patch": patch})).await.ok();
    assert!(link_text(&root, "alias.txt").is_none(), "the link is gone");
    assert_eq!(root.read("data.txt"), b"precious\n", "its target is untouched");
    server.call("undo", json!({"path": "alias.txt"})).await.ok();
    assert_eq!(link_text(&root, "alias.txt"), Some(PathBuf::from("data.txt")));
    server.stop().await;
}

#[tokio::test]
async fn a_patch_moves_a_link_itself_and_its_edit_goes_through_to_the_target() {
    let root = Root::new().file("data.txt", "one\ntwo\n").symlink("alias.txt", "data.txt");
    let server = Server::spawn(&root).await;
    let patch = "*** Begin Patch\n*** Update File: alias.txt\n*** Move to: renamed.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n";
    server.call("apply_patch", json!({"patch": patch})).await.ok();
    assert!(link_text(&root, "alias.txt").is_none());
    assert_eq!(link_text(&root, "renamed.txt"), Some(PathBuf::from("data.txt")), "moved as a link");
    assert_eq!(root.read("data.txt"), b"one\nTWO\n", "the edit went through to the target");
    // A rename in a unified diff moves the link too.
    let diff = "diff --git a/renamed.txt b/again.txt\nsimilarity index 100%\nrename from renamed.txt\nrename to again.txt\n";
    server.call("apply_patch", json!({"patch": diff})).await.ok();
    assert_eq!(link_text(&root, "again.txt"), Some(PathBuf::from("data.txt")));
    assert_eq!(root.read("data.txt"), b"one\nTWO\n");
    server.stop().await;
}
