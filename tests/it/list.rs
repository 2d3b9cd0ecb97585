//! `list_directory` over stdio.

use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn list_directory_shows_types_sizes_and_honours_gitignore() {
    let root = Root::new()
        .file(".gitignore", "build/\n")
        .file("build/out.bin", "xx")
        .file("src/app.js", "let a;\n")
        .file("README.md", "# hi\n")
        .symlink("escape", "/etc");
    let server = Server::spawn(&root).await;
    let reply = server.call("list_directory", json!({"depth": 2})).await.ok();
    let entries = reply.json()["entries"].as_array().unwrap().clone();
    let paths: Vec<&str> = entries.iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["src", "src/app.js", "README.md", "escape"], "{}", reply.text());
    assert_eq!(entries[1]["size"], 7);
    assert_eq!(entries[3]["type"], "symlink");
    assert_eq!(reply.json()["ignored"], 1);
    assert!(reply.text().contains("src/\n    app.js  (7 bytes)"), "{}", reply.text());
    let reply = server.call("list_directory", json!({"gitignore": false, "include_hidden": true})).await.ok();
    let text = reply.text();
    assert!(text.contains("build/") && text.contains(".gitignore"), "{text}");
    let text = server.call("list_directory", json!({"path": "escape"})).await.err();
    assert!(text.contains("outside the sandbox root"), "{text}");
    let text = server.call("list_directory", json!({"path": "../"})).await.err();
    assert!(text.contains("outside the sandbox root"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn list_directory_never_shows_the_state_directory() {
    let root = Root::new().file("a.txt", "a");
    let state = root.path().join("state-here");
    let server = Server::spawn_with(&root, &["--state-dir", state.to_str().unwrap()]).await;
    let reply = server.call("list_directory", json!({"include_hidden": true, "gitignore": false})).await.ok();
    // The directory itself, which a start makes before it serves: the database in it opens
    // behind the first reads, so it may not exist yet.
    assert!(state.is_dir(), "the state directory is really inside the root");
    // Exactly the one real entry: an empty listing would also lack the state directory.
    let entries = reply.json()["entries"].as_array().unwrap().clone();
    let paths: Vec<&str> = entries.iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["a.txt"], "{}", reply.text());
    assert!(!reply.text().contains("state-here"), "{}", reply.text());
    server.stop().await;
}
