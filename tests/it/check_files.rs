//! `check_files`: the strict check before "done".

use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn check_files_reports_each_written_file_and_a_verdict() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "ok.py", "content": "print('hi')\n"})).await.ok();
    server.call("write_file", json!({"path": "data.json", "content": "{\"a\": 1}\n"})).await.ok();
    server
        .call("write_file", json!({"path": "web/app.js", "content": "function f() {\n  return 1;\n"}))
        .await
        .ok();
    server
        .call("write_file", json!({"path": "bad.py", "content": "def f(:\n    pass\n\nprint(1)\n"}))
        .await
        .ok();
    server.call("write_file", json!({"path": "notes.txt", "content": "free text\n"})).await.ok();
    let reply = server.call("check_files", json!({})).await.ok();
    let j = reply.json();
    assert_eq!(j["complete"], 2, "{}", reply.text());
    assert_eq!(j["incomplete"], 1);
    assert_eq!(j["errors"], 1);
    assert_eq!(j["not_checked"], 1);
    assert_eq!(j["all_complete"], false);
    let text = reply.text();
    assert!(text.contains("verdict: 2 files complete, 1 incomplete (web/app.js: "), "{text}");
    assert!(text.contains("1 with errors (bad.py: 1:"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn check_files_with_paths_reports_missing_and_empty_files() {
    let root = Root::new().file("empty.js", "").file("done.json", "[1, 2]\n");
    let server = Server::spawn(&root).await;
    let reply =
        server.call("check_files", json!({"paths": ["empty.js", "done.json", "ghost.html"]})).await.ok();
    let files = reply.json()["files"].as_array().unwrap().clone();
    assert_eq!(files[0]["status"], "incomplete");
    assert_eq!(files[1]["status"], "complete");
    assert_eq!(files[2]["status"], "missing");
    assert!(reply.text().contains("1 missing or unreadable (ghost.html"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn check_files_with_nothing_written_says_what_to_do() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let reply = server.call("check_files", json!({})).await.ok();
    assert!(reply.text().contains("no files to check"), "{}", reply.text());
    assert_eq!(reply.json()["all_complete"], false);
    server.stop().await;
}

#[tokio::test]
async fn an_append_that_parses_clean_never_says_ok() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "a.py", "content": "x = 1\n"})).await.ok();
    let reply = server.call("append_file", json!({"path": "a.py", "content": "y = 2\n"})).await.ok();
    assert_eq!(reply.json()["syntax"]["status"], "ok");
    assert!(reply.text().contains("no problems so far"), "{}", reply.text());
    assert!(!reply.text().contains("syntax: ok"), "{}", reply.text());
    server.stop().await;
}

/// An outside edit between two appends must not let a stale tree leak into the check.
#[tokio::test]
async fn an_outside_change_between_appends_is_checked_from_scratch() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "a.py", "content": "x = (1,\n"})).await.ok();
    std::fs::write(root.path().join("a.py"), "def broken(:\n    pass\n").unwrap();
    let reply = server.call("append_file", json!({"path": "a.py", "content": "y = 2\n"})).await.ok();
    assert_eq!(reply.json()["syntax"]["status"], "errors", "{}", reply.text());
    assert_eq!(reply.json()["syntax"]["problems"][0]["line"], 1, "{}", reply.text());
    server.stop().await;
}
