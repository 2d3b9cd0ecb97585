//! `create_directory` over stdio: parents made, an existing directory a success that says so, a
//! file in the way an error, claims and the journal kept, and nothing made outside the root.

use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn a_directory_is_created_with_its_parents_and_journaled() {
    let root = Root::new().file("web/index.html", "<p>x</p>\n");
    let server = Server::spawn_as(&root, "alice").await;
    let reply = server.call("create_directory", json!({"path": "web/assets/img"})).await.ok();
    assert!(root.path().join("web/assets/img").is_dir());
    assert_eq!(reply.text(), "Created the directory web/assets/img and its parents web/assets.");
    let j = reply.json();
    assert_eq!(j["created"], json!(["web/assets", "web/assets/img"]));
    assert_eq!(
        (j["existed"].as_bool(), j["action"].as_str(), j["agent"].as_str()),
        (Some(false), Some("mkdir"), Some("alice"))
    );
    let artifacts = server.call("list_artifacts", json!({"path": "web/assets/img"})).await.ok();
    let a = &artifacts.json()["artifacts"][0];
    assert_eq!(
        (a["action"].as_str(), a["agent"].as_str(), a["on_disk"].as_str()),
        (Some("mkdir"), Some("alice"), Some("matches"))
    );
    let claims = server.call("list_claims", json!({})).await.ok();
    assert!(claims.text().contains("web/assets/img  agent \"alice\""), "{}", claims.text());
    // A directory is no file to check: check_files without paths leaves it out.
    let check = server.call("check_files", json!({})).await.ok();
    assert_eq!(check.json()["files"], json!([]), "{}", check.text());
    // undo restores files; it refuses a directory and says what removes one.
    let text = server.call("undo", json!({"path": "web/assets/img"})).await.err();
    assert!(
        text.contains("it is a directory, and undo restores files; delete_file removes an empty directory"),
        "{text}"
    );
    assert!(root.path().join("web/assets/img").is_dir());
    server.stop().await;
}

#[tokio::test]
async fn an_existing_directory_is_a_success_that_changes_nothing() {
    let root = Root::new().file("src/lib.rs", "");
    let root = root.symlink("code", "src");
    let server = Server::spawn(&root).await;
    for path in ["src", "code", "./src/"] {
        let reply = server.call("create_directory", json!({"path": path})).await.ok();
        assert_eq!(reply.json()["existed"], true, "{path}");
        assert_eq!(reply.json()["created"], json!([]), "{path}");
        assert!(
            reply.text().ends_with("already exists as a directory; nothing was changed."),
            "{}",
            reply.text()
        );
    }
    let artifacts = server.call("list_artifacts", json!({})).await.ok();
    assert_eq!(artifacts.json()["artifacts"], json!([]), "nothing journaled");
    server.stop().await;
}

#[tokio::test]
async fn a_file_in_the_way_is_an_error_and_nothing_is_created() {
    let root = Root::new().file("notes", "n\n");
    let server = Server::spawn(&root).await;
    let text = server.call("create_directory", json!({"path": "notes"})).await.err();
    assert_eq!(
        text,
        "cannot create the directory notes: it is a file, not a directory; nothing was created. Choose another name, or delete_file it first."
    );
    let text = server.call("create_directory", json!({"path": "notes/a/b"})).await.err();
    assert!(text.contains("cannot create the directory notes/a/b: its parent notes is a file"), "{text}");
    assert_eq!(root.read("notes"), b"n\n");
    let text = server.call("create_directory", json!({})).await.err();
    assert!(text.contains("without `path`"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn claims_hold_for_directories() {
    let root = Root::new();
    let alice = Server::spawn_as(&root, "alice").await;
    let bob = Server::spawn_as(&root, "bob").await;
    alice.call("claim_files", json!({"paths": ["build"]})).await.ok();
    let text = bob.call("create_directory", json!({"path": "build"})).await.err();
    assert!(text.contains("CONFLICT") && text.contains("alice"), "{text}");
    assert!(!root.exists("build"));
    alice.stop().await;
    bob.stop().await;
}

#[tokio::test]
async fn nothing_is_created_outside_the_root() {
    let root = Root::new();
    let outside = root.outside();
    let root = root.symlink("out", &outside).symlink("up", "..");
    let server = Server::spawn(&root).await;
    let before = Root::snapshot(&outside);
    let absolute = outside.join("abs").display().to_string();
    for path in ["../escaped", "out/escaped", "out/a/b", "up/escaped", absolute.as_str(), "a/../../escaped"] {
        let text = server.call("create_directory", json!({"path": path})).await.err();
        assert!(text.contains("outside the sandbox root"), "{path}: {text}");
    }
    assert_eq!(Root::snapshot(&outside), before);
    assert!(!root.path().parent().unwrap().join("escaped").exists());
    assert!(!root.exists("a"), "a refused path leaves no parent behind");
    server.stop().await;
}
