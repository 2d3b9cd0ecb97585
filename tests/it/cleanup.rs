//! What models send by mistake, over stdio: read_file's line prefixes and a Markdown fence
//! around a whole file are removed, and the result says so; anything ambiguous is kept.

use serde_json::json;

use crate::util::{Root, Server};

fn warned(reply: &serde_json::Value, needle: &str) -> bool {
    reply["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|w| w.as_str().unwrap_or_default().contains(needle))
}

#[tokio::test]
async fn copied_line_prefixes_are_removed_from_writes_and_appends() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let w = server
        .call("write_file", json!({"path": "a.py", "content": "1\tdef f():\n2\t    return 1\n"}))
        .await
        .ok();
    assert!(warned(w.json(), "line prefix"), "{}", w.text());
    let a = server
        .call("append_file", json!({"path": "a.py", "content": "3#abc\t\n4#xyz\tprint(f())\n"}))
        .await
        .ok();
    assert!(warned(a.json(), "line prefix"), "{}", a.text());
    assert_eq!(root.read("a.py"), b"def f():\n    return 1\n\nprint(f())\n");
    server.stop().await;
}

#[tokio::test]
async fn a_fence_around_a_whole_script_is_removed_but_a_markdown_file_keeps_it() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let fenced = "```js\nconst a = 1;\n```\n";
    let w = server.call("write_file", json!({"path": "app.js", "content": fenced})).await.ok();
    assert!(warned(w.json(), "Markdown code fence"), "{}", w.text());
    assert_eq!(root.read("app.js"), b"const a = 1;\n");
    let md = server.call("write_file", json!({"path": "notes.md", "content": fenced})).await.ok();
    assert!(!warned(md.json(), "fence"), "{}", md.text());
    assert_eq!(root.read("notes.md"), fenced.as_bytes());
    server.stop().await;
}

#[tokio::test]
async fn numbers_that_do_not_count_up_are_content() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let data = "10\tten\n20\ttwenty\n";
    server.call("write_file", json!({"path": "n.txt", "content": data})).await.ok();
    assert_eq!(root.read("n.txt"), data.as_bytes());
    server.stop().await;
}
