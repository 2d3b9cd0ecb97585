//! `outline` over stdio: definitions with line ranges for every checked language.

use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn every_checked_language_gets_an_outline_with_line_ranges() {
    let cases = [
        ("a.py", "class Timer:\n    def start(self):\n        pass\n", "1-3 class Timer"),
        ("a.js", "function main() {\n  return 1;\n}\n", "1-3 function main"),
        ("a.ts", "interface Job {\n  id: number;\n}\n", "1-3 interface Job"),
        ("a.tsx", "export function App() {\n  return <div />;\n}\n", "1-3 function App"),
        ("a.rs", "pub struct S {\n    a: u8,\n}\n", "1-3 struct S"),
        ("a.css", ".card {\n  color: red;\n}\n", "1-3 rule .card"),
        ("a.json", "{\n  \"name\": \"x\"\n}\n", "2-2 key \"name\""),
        ("a.yaml", "jobs:\n  build: 1\n", "1-2 key jobs"),
        ("a.toml", "[package]\nname = \"x\"\n", "1-2 table [package]"),
        ("a.md", "# Guide\n\ntext\n", "1-3 heading Guide"),
        ("a.sh", "deploy() {\n  echo hi\n}\n", "1-3 function deploy"),
        ("a.html", "<body>\n  <main id=\"app\"></main>\n</body>\n", "1-3 element body"),
    ];
    let mut root = Root::new();
    for (path, text, _) in cases {
        root = root.file(path, text);
    }
    let server = Server::spawn(&root).await;
    for (path, _, expected) in cases {
        let reply = server.call("outline", json!({"path": path})).await.ok();
        assert!(reply.text().contains(expected), "{path}: {}", reply.text());
        assert_eq!(
            reply.json()["items"][0]["start_line"],
            1 + usize::from(path.ends_with(".json")),
            "{path}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_broken_file_gets_what_parsed_and_a_note() {
    let root = Root::new().file("b.py", "def ok():\n    pass\n\ndef broken(:\n    pass\n");
    let server = Server::spawn(&root).await;
    let reply = server.call("outline", json!({"path": "b.py"})).await.ok();
    assert!(reply.text().contains("1-2 def ok"), "{}", reply.text());
    assert!(
        reply.json()["note"].as_str().unwrap_or_default().contains("syntax problems"),
        "{}",
        reply.text()
    );
    server.stop().await;
}
