use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn write_creates_parents_and_reports_size_and_lines() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let reply = server
        .call("write_file", json!({"path": "src/deep/app.js", "content": "let a = 1;\nlet b = 2;\n"}))
        .await
        .ok();
    assert_eq!(root.read("src/deep/app.js"), b"let a = 1;\nlet b = 2;\n");
    assert!(reply.text().contains("src/deep/app.js: 22 chars, 2 lines"), "{}", reply.text());
    assert_eq!(reply.json()["action"], "write");
    assert_eq!(reply.json()["size"], 22);
    assert_eq!(reply.json()["created"], true);
    server.stop().await;
}

#[tokio::test]
async fn write_without_content_says_the_call_was_cut_off_and_writes_nothing() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let text = server.call("write_file", json!({"path": "big.js"})).await.err();
    assert!(text.contains("without `content`"), "{text}");
    assert!(text.contains("8000 characters"), "{text}");
    assert!(text.contains("append_file"), "{text}");
    assert!(!root.exists("big.js"));
    let text = server.call("append_file", json!({"path": "big.js"})).await.err();
    assert!(text.contains("cut off"), "{text}");
    let text = server.call("write_file", json!({})).await.err();
    assert!(text.contains("without `path`"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn write_with_empty_content_writes_an_empty_file_and_warns() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let reply = server.call("write_file", json!({"path": "e.txt", "content": ""})).await.ok();
    assert_eq!(root.read("e.txt"), b"");
    assert!(reply.text().contains("warning: content was empty"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn replacing_a_file_not_read_in_this_session_warns() {
    let root = Root::new().file("notes.md", "old\n").file("seen.md", "old\n");
    let server = Server::spawn(&root).await;
    let reply = server.call("write_file", json!({"path": "notes.md", "content": "new\n"})).await.ok();
    assert!(reply.text().contains("had not read notes.md"), "{}", reply.text());
    assert_eq!(root.read("notes.md"), b"new\n");
    server.call("read_file", json!({"path": "seen.md"})).await.ok();
    let reply = server.call("write_file", json!({"path": "seen.md", "content": "new\n"})).await.ok();
    assert!(!reply.text().contains("warning"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn crlf_bom_and_multibyte_utf8_are_kept_byte_for_byte() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let first = "\u{feff}line one\r\nzwei: straße ✓\r\n";
    let second = "三行目 🎉\r\nlast\r\n";
    server.call("write_file", json!({"path": "w.txt", "content": first})).await.ok();
    server.call("append_file", json!({"path": "w.txt", "content": second})).await.ok();
    assert_eq!(root.read("w.txt"), format!("{first}{second}").as_bytes());
    let reply = server.call("read_file", json!({"path": "w.txt"})).await.ok();
    assert_eq!(reply.json()["line_endings"], "crlf");
    assert!(reply.text().contains("2\tzwei: straße ✓\n"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn replacing_keeps_the_file_mode() {
    use std::os::unix::fs::PermissionsExt;
    let root = Root::new().file("run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(root.path().join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "run.sh", "content": "#!/bin/sh\necho hi\n"})).await.ok();
    let mode = std::fs::metadata(root.path().join("run.sh")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
    server.stop().await;
}

/// A reader polling the file while it is rewritten must see one whole version or the other.
#[tokio::test]
async fn concurrent_reader_never_sees_a_half_written_file() {
    let a = "a".repeat(2_000_000);
    let b = "b".repeat(3_000_000);
    let root = Root::new().file("big.txt", &a);
    let server = Server::spawn(&root).await;
    let path = root.path().join("big.txt");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let stop = stop.clone();
        let (a_len, b_len) = (a.len(), b.len());
        std::thread::spawn(move || {
            let mut reads = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) || reads == 0 {
                let bytes = std::fs::read(&path).expect("the file is always there");
                let whole_a = bytes.len() == a_len && bytes.iter().all(|&c| c == b'a');
                let whole_b = bytes.len() == b_len && bytes.iter().all(|&c| c == b'b');
                assert!(whole_a || whole_b, "saw a partial file of {} bytes", bytes.len());
                reads += 1;
            }
            reads
        })
    };
    for i in 0..6 {
        let content = if i % 2 == 0 { &b } else { &a };
        server.call("write_file", json!({"path": "big.txt", "content": content})).await.ok();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let reads = reader.join().expect("reader saw only whole files");
    assert!(reads > 0);
    server.stop().await;
}

#[tokio::test]
async fn over_escaped_content_is_unescaped_and_said_so() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let sent = "def main():\\n    print(\\\"hi\\\")\\n\\nmain()\\n";
    let reply = server.call("write_file", json!({"path": "m.py", "content": sent})).await.ok();
    assert_eq!(root.read("m.py"), b"def main():\n    print(\"hi\")\n\nmain()\n");
    assert!(reply.text().contains("over-escaped"), "{}", reply.text());
    assert_eq!(reply.json()["unescaped"], true);
    server.stop().await;
}

#[tokio::test]
async fn real_multiline_content_with_backslash_n_in_strings_is_never_changed() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let sent = "import sys\nsys.stdout.write(\"a\\nb\\n\")\nprint('x\\ny')\n";
    let reply = server.call("write_file", json!({"path": "k.py", "content": sent})).await.ok();
    assert_eq!(root.read("k.py"), sent.as_bytes());
    assert_eq!(reply.json()["unescaped"], false);
    let js = "const s = \"one\\ntwo\\nthree\";\n";
    server.call("write_file", json!({"path": "k.js", "content": js})).await.ok();
    assert_eq!(root.read("k.js"), js.as_bytes());
    server.stop().await;
}

#[tokio::test]
async fn write_append_edit_and_move_results_link_the_file() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let link = |reply: &crate::util::Reply| {
        let links: Vec<_> = reply.0.content.iter().filter_map(|c| c.as_resource_link().cloned()).collect();
        assert_eq!(links.len(), 1, "one resource_link: {:?}", reply.0.content);
        (links[0].uri.clone(), links[0].name.clone())
    };
    let canonical = std::fs::canonicalize(root.path()).unwrap();
    let uri_of = |rel: &str| url::Url::from_file_path(canonical.join(rel)).unwrap().to_string();
    let reply =
        server.call("write_file", json!({"path": "web/my app.js", "content": "let a = 1;\n"})).await.ok();
    assert_eq!(link(&reply), (uri_of("web/my app.js"), "my app.js".to_string()));
    assert!(link(&reply).0.ends_with("/web/my%20app.js"), "{}", link(&reply).0);
    let reply =
        server.call("append_file", json!({"path": "web/my app.js", "content": "let b = 2;\n"})).await.ok();
    assert_eq!(link(&reply).0, uri_of("web/my app.js"));
    let reply = server
        .call("edit_file", json!({"path": "web/my app.js", "old_string": "b = 2", "new_string": "b = 3"}))
        .await
        .ok();
    assert_eq!(link(&reply).0, uri_of("web/my app.js"));
    let reply = server.call("move_file", json!({"from": "web/my app.js", "to": "src/app.js"})).await.ok();
    assert_eq!(link(&reply), (uri_of("src/app.js"), "app.js".to_string()));
    let reply = server.call("read_file", json!({"path": "src/app.js"})).await.ok();
    assert!(reply.0.content.iter().all(|c| c.as_resource_link().is_none()), "a read links nothing");
    server.stop().await;
}

#[tokio::test]
async fn durable_mode_syncs_every_kind_of_change_without_error() {
    let root = Root::new();
    let server = Server::spawn_with(&root, &["--durable"]).await;
    server.call("write_file", json!({"path": "d/a.txt", "content": "one\n"})).await.ok();
    server.call("append_file", json!({"path": "d/new.txt", "content": "created by an append\n"})).await.ok();
    server.call("append_file", json!({"path": "d/a.txt", "content": "two\n"})).await.ok();
    server.call("edit_file", json!({"path": "d/a.txt", "old_string": "two", "new_string": "2"})).await.ok();
    server.call("move_file", json!({"from": "d/a.txt", "to": "e/a.txt"})).await.ok();
    server.call("delete_file", json!({"path": "d/new.txt"})).await.ok();
    assert_eq!(root.read("e/a.txt"), b"one\n2\n");
    assert!(!root.exists("d/new.txt"));
    server.stop().await;
}
