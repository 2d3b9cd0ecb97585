//! The check line after every write and append: ok, incomplete so far, or errors at line:col.

use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn valid_python_and_json_are_ok() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let reply = server
        .call("write_file", json!({"path": "ok.py", "content": "def f(x):\n    return x * 2\n"}))
        .await
        .ok();
    assert_eq!(reply.json()["syntax"]["status"], "ok");
    assert!(reply.text().contains("syntax: ok"), "{}", reply.text());
    let reply = server
        .call("write_file", json!({"path": "ok.json", "content": "{\"a\": [1, 2, {\"b\": null}]}\n"}))
        .await
        .ok();
    assert_eq!(reply.json()["syntax"]["status"], "ok");
    server.stop().await;
}

#[tokio::test]
async fn python_built_in_parts_is_incomplete_until_the_last_part() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let reply = server
        .call("write_file", json!({"path": "p.py", "content": "CONFIG = {\n    \"a\": 1,\n"}))
        .await
        .ok();
    assert_eq!(reply.json()["syntax"]["status"], "incomplete", "{}", reply.text());
    assert!(reply.text().contains("incomplete so far"), "{}", reply.text());
    let reply = server
        .call("append_file", json!({"path": "p.py", "content": "    \"b\": 2,\n}\nprint(CONFIG)\n"}))
        .await
        .ok();
    assert_eq!(reply.json()["syntax"]["status"], "ok", "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn json_cut_mid_document_is_incomplete_and_a_mid_file_error_is_located() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let reply = server
        .call("write_file", json!({"path": "d.json", "content": "{\n  \"items\": [\n    1,\n"}))
        .await
        .ok();
    assert_eq!(reply.json()["syntax"]["status"], "incomplete", "{}", reply.text());
    let broken = "{\n  \"a\": 1,,\n  \"b\": 2\n}\n";
    let reply = server.call("write_file", json!({"path": "e.json", "content": broken})).await.ok();
    assert_eq!(reply.json()["syntax"]["status"], "errors", "{}", reply.text());
    assert_eq!(reply.json()["syntax"]["problems"][0]["line"], 2, "{}", reply.text());
    assert!(reply.text().contains("2:"), "{}", reply.text());
    assert_eq!(root.read("e.json"), broken.as_bytes(), "a syntax error never rolls back the write");
    server.stop().await;
}

#[tokio::test]
async fn broken_python_mid_file_is_an_error_at_its_line() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let broken = "def ok():\n    return 1\n\ndef bad(:\n    return 2\n\nprint(ok())\n";
    let reply = server.call("write_file", json!({"path": "b.py", "content": broken})).await.ok();
    assert_eq!(reply.json()["syntax"]["status"], "errors", "{}", reply.text());
    assert_eq!(reply.json()["syntax"]["problems"][0]["line"], 4, "{}", reply.text());
    assert!(reply.text().contains("def bad(:"), "the offending source line is shown: {}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn unknown_extensions_are_not_checked() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let reply = server.call("write_file", json!({"path": "n.unknownext", "content": "{{{"})).await.ok();
    assert_eq!(reply.json()["syntax"]["status"], "not_checked");
    assert!(reply.text().contains("not checked"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn a_script_cut_inside_the_string_of_export_from_is_incomplete_and_finishing_it_is_ok() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let head = "import { b } from \"./b.js\";\nexport { default } from \"./fa.";
    let reply = server.call("write_file", json!({"path": "index.mjs", "content": head})).await.ok();
    assert_eq!(reply.json()["syntax"]["status"], "incomplete", "{}", reply.text());
    assert!(reply.text().contains("incomplete so far"), "{}", reply.text());
    let reply = server
        .call("append_file", json!({"path": "index.mjs", "content": "js\";\nexport { b };\n"}))
        .await
        .ok();
    assert_eq!(reply.json()["syntax"]["status"], "ok", "{}", reply.text());
    // Appended in two parts, the first cut inside a re-export's string.
    let reply =
        server.call("write_file", json!({"path": "more.js", "content": "export const x = 1;\n"})).await.ok();
    assert_eq!(reply.json()["syntax"]["status"], "ok", "{}", reply.text());
    let reply = server
        .call("append_file", json!({"path": "more.js", "content": "export { default, y } from \"./fa."}))
        .await
        .ok();
    assert_eq!(reply.json()["syntax"]["status"], "incomplete", "{}", reply.text());
    server.stop().await;
}
