//! Line anchors and content preconditions over stdio: `read_file {anchors: true}`, anchored
//! `edit_file` line edits, stale anchors, and `expected_sha256` on write, append and edit.

use serde_json::{Value, json};

use crate::util::{Root, Server};

/// The anchor `read_file {anchors: true}` shows for line `n`.
async fn anchor(server: &Server, path: &str, n: usize) -> String {
    let reply =
        server.call("read_file", json!({"path": path, "anchors": true, "offset": n, "limit": 1})).await.ok();
    let content = reply.json()["content"].as_str().unwrap_or_default().to_string();
    content.split('\t').next().unwrap_or_default().to_string()
}

fn sha(reply: &Value) -> String {
    reply["sha256"].as_str().unwrap_or_default().to_string()
}

#[tokio::test]
async fn anchored_reads_show_number_and_hash_and_the_same_text_gets_the_same_hash() {
    let root = Root::new().file("h.js", "a();\nb();\na();\n");
    let server = Server::spawn(&root).await;
    let reply = server.call("read_file", json!({"path": "h.js", "anchors": true})).await.ok();
    let content = reply.json()["content"].as_str().unwrap_or_default().to_string();
    let anchors: Vec<&str> = content.lines().map(|l| l.split('\t').next().unwrap_or_default()).collect();
    assert_eq!(anchors.len(), 3, "{content}");
    let hash = |a: &str| a.split('#').nth(1).unwrap_or_default().to_string();
    assert!(anchors[0].starts_with("1#") && anchors[2].starts_with("3#"), "{content}");
    assert_eq!(hash(anchors[0]), hash(anchors[2]), "same text, same hash");
    assert_ne!(hash(anchors[0]), hash(anchors[1]));
    assert_eq!(hash(anchors[0]).len(), 3);
    server.stop().await;
}

/// The example: 50 identical handlers; the 37th is fixed by anchor after the
/// `old_string` edit fails as not unique.
#[tokio::test]
async fn the_37th_of_50_identical_handlers_is_fixed_by_anchor_with_a_one_line_diff() {
    let handlers: String = (1..=50).map(|_| "app.get('/x', (req, res) => res.send(ok));\n").collect();
    let root = Root::new().file("routes.js", &handlers);
    let server = Server::spawn(&root).await;
    let text = server
        .call(
            "edit_file",
            json!({"path": "routes.js", "old_string": "res.send(ok)", "new_string": "res.send(fixed)"}),
        )
        .await
        .err();
    assert!(text.contains("occurs 50 times"), "{text}");
    let line37 = anchor(&server, "routes.js", 37).await;
    let reply = server
        .call(
            "edit_file",
            json!({"path": "routes.js", "edits": [
                {"from": line37, "new_string": "app.get('/x', (req, res) => res.send(fixed));"}
            ]}),
        )
        .await
        .ok();
    let diff = reply.json()["diff"].as_str().unwrap_or_default().to_string();
    let changed: Vec<&str> = diff
        .lines()
        .filter(|l| {
            (l.starts_with('+') || l.starts_with('-')) && !l.starts_with("+++") && !l.starts_with("---")
        })
        .collect();
    assert_eq!(changed.len(), 2, "{diff}");
    let now = String::from_utf8(root.read("routes.js")).unwrap_or_default();
    assert_eq!(now.lines().filter(|l| l.contains("fixed")).count(), 1);
    assert!(now.lines().nth(36).unwrap_or_default().contains("fixed"), "{now}");
    assert_eq!(reply.json()["syntax"]["status"], "ok");
    server.stop().await;
}

#[tokio::test]
async fn ranges_deletes_and_inserts_all_refer_to_the_file_before_the_call() {
    let root = Root::new().file("list.py", "one = 1\ntwo = 2\nthree = 3\nfour = 4\n");
    let server = Server::spawn(&root).await;
    let (a1, a2, a3, a4) = (
        anchor(&server, "list.py", 1).await,
        anchor(&server, "list.py", 2).await,
        anchor(&server, "list.py", 3).await,
        anchor(&server, "list.py", 4).await,
    );
    server
        .call(
            "edit_file",
            json!({"path": "list.py", "edits": [
                {"from": a2, "to": a3, "new_string": ""},
                {"after": a1, "new_string": "one_and_a_half = 1.5"},
                {"after": "0", "new_string": "# numbers"},
                {"from": a4, "new_string": "FOUR = 4\n"}
            ]}),
        )
        .await
        .ok();
    assert_eq!(root.read("list.py"), b"# numbers\none = 1\none_and_a_half = 1.5\nFOUR = 4\n");
    server.stop().await;
}

#[tokio::test]
async fn a_stale_anchor_changes_nothing_and_shows_fresh_anchors_and_the_new_line() {
    let root = Root::new().file("m.rs", "fn a() {}\nfn b() {}\nfn c() {}\n");
    let server = Server::spawn(&root).await;
    let b = anchor(&server, "m.rs", 2).await;
    // Someone else adds two lines at the top.
    std::fs::write(root.path().join("m.rs"), "// one\n// two\nfn a() {}\nfn b() {}\nfn c() {}\n")
        .expect("write");
    let text = server
        .call("edit_file", json!({"path": "m.rs", "edits": [{"from": b, "new_string": "fn b2() {}"}]}))
        .await
        .err();
    assert!(text.contains("stale") && text.contains("now on line 4"), "{text}");
    let fresh = anchor(&server, "m.rs", 2).await;
    assert!(text.contains(&fresh), "fresh anchors are shown: {text}");
    assert_eq!(root.read("m.rs"), b"// one\n// two\nfn a() {}\nfn b() {}\nfn c() {}\n");
    server.stop().await;
}

#[tokio::test]
async fn every_writing_result_and_read_reports_the_sha256_of_the_file_after_it() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let file_sha = || filewright::files::sha256_hex(&root.read("a.txt"));
    let w = server.call("write_file", json!({"path": "a.txt", "content": "one\n"})).await.ok();
    assert_eq!(sha(w.json()), file_sha());
    let a = server.call("append_file", json!({"path": "a.txt", "content": "two\n"})).await.ok();
    assert_eq!(sha(a.json()), file_sha());
    let e =
        server.call("edit_file", json!({"path": "a.txt", "old_string": "two", "new_string": "2"})).await.ok();
    assert_eq!(sha(e.json()), file_sha());
    let r = server.call("read_file", json!({"path": "a.txt"})).await.ok();
    assert_eq!(sha(r.json()), file_sha());
    server.stop().await;
}

#[tokio::test]
async fn a_stale_expected_sha256_changes_nothing_and_names_the_last_writer() {
    let root = Root::new();
    let alice = Server::spawn_as(&root, "alice").await;
    let bob = Server::spawn_as(&root, "bob").await;
    let first = alice.call("write_file", json!({"path": "s.txt", "content": "v1\n"})).await.ok();
    let seen = sha(first.json());
    // Alice releases it so that bob may write; bob then changes the file alice read.
    alice.call("release_files", json!({})).await.ok();
    bob.call("write_file", json!({"path": "s.txt", "content": "v2 by bob\n"})).await.ok();
    bob.call("release_files", json!({})).await.ok();
    for (tool, args) in [
        ("write_file", json!({"path": "s.txt", "content": "v3\n", "expected_sha256": seen})),
        ("append_file", json!({"path": "s.txt", "content": "more\n", "expected_sha256": seen})),
        (
            "edit_file",
            json!({"path": "s.txt", "old_string": "v2", "new_string": "v3", "expected_sha256": seen}),
        ),
    ] {
        let text = alice.call(tool, args).await.err();
        assert!(text.contains("has changed since you read it") && text.contains("\"bob\""), "{tool}: {text}");
        assert!(text.contains("Nothing was changed") && text.contains("read_file"), "{tool}: {text}");
        assert_eq!(root.read("s.txt"), b"v2 by bob\n", "{tool} changed the file");
    }
    // With the sha256 of what is there now, the write goes through.
    let now = sha(alice.call("read_file", json!({"path": "s.txt"})).await.ok().json());
    alice.call("append_file", json!({"path": "s.txt", "content": "ok\n", "expected_sha256": now})).await.ok();
    assert_eq!(root.read("s.txt"), b"v2 by bob\nok\n");
    alice.stop().await;
    bob.stop().await;
}
