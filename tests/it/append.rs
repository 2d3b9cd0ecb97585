use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn write_then_appends_reproduce_the_concatenation_byte_for_byte() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let parts: Vec<String> =
        (0..6).map(|i| (0..40).map(|j| format!("// part {i} line {j}: ünïcödé ✓\n")).collect()).collect();
    server.call("write_file", json!({"path": "app.js", "content": parts[0]})).await.ok();
    let mut expected = parts[0].clone();
    for part in &parts[1..] {
        let reply = server.call("append_file", json!({"path": "app.js", "content": part})).await.ok();
        expected.push_str(part);
        assert_eq!(reply.json()["action"], "append");
        assert_eq!(reply.json()["size"], expected.len());
        assert_eq!(reply.json()["appended"], part.len());
        assert!(reply.text().starts_with(&format!("Appended to app.js: +{} chars", part.chars().count())));
    }
    assert_eq!(root.read("app.js"), expected.as_bytes());
    server.stop().await;
}

#[tokio::test]
async fn append_with_stale_expected_size_writes_nothing_and_gives_the_real_size() {
    let root = Root::new().file("log.txt", "0123456789");
    let server = Server::spawn(&root).await;
    let text = server
        .call("append_file", json!({"path": "log.txt", "content": "more", "expected_size": 4}))
        .await
        .err();
    assert!(text.contains("is 10 bytes"), "{text}");
    assert_eq!(root.read("log.txt"), b"0123456789");
    server.call("append_file", json!({"path": "log.txt", "content": "more", "expected_size": 10})).await.ok();
    assert_eq!(root.read("log.txt"), b"0123456789more");
    server.stop().await;
}

#[tokio::test]
async fn retried_append_is_not_duplicated() {
    let root = Root::new().file("a.txt", "start\n");
    let server = Server::spawn(&root).await;
    let chunk: String = (0..20).map(|i| format!("line {i} of the chunk\n")).collect();
    server.call("append_file", json!({"path": "a.txt", "content": chunk})).await.ok();
    let retry = server.call("append_file", json!({"path": "a.txt", "content": chunk})).await.ok();
    assert_eq!(retry.json()["duplicate_skipped"], true);
    assert_eq!(retry.json()["appended"], 0);
    assert!(retry.text().contains("Nothing appended"), "{}", retry.text());
    assert_eq!(root.read("a.txt"), format!("start\n{chunk}").as_bytes());
    server.stop().await;
}

#[tokio::test]
async fn append_creates_a_missing_file_and_its_parents() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let reply = server.call("append_file", json!({"path": "new/dir/f.txt", "content": "x\n"})).await.ok();
    assert_eq!(reply.json()["created"], true);
    assert_eq!(root.read("new/dir/f.txt"), b"x\n");
    server.stop().await;
}

#[tokio::test]
async fn append_refuses_a_hard_linked_file() {
    let root = Root::new().file("inner.txt", "shared\n");
    let outside = root.outside().join("target.txt");
    std::fs::hard_link(root.path().join("inner.txt"), &outside).unwrap();
    let server = Server::spawn(&root).await;
    let text = server.call("append_file", json!({"path": "inner.txt", "content": "evil\n"})).await.err();
    assert!(text.contains("2 hard links"), "{text}");
    assert_eq!(std::fs::read(&outside).unwrap(), b"shared\n");
    server.stop().await;
}

#[tokio::test]
async fn append_over_the_size_limit_is_refused() {
    let root = Root::new().file("f.txt", "12345");
    let server = Server::spawn_with(&root, &["--max-file-bytes", "8"]).await;
    let text = server.call("append_file", json!({"path": "f.txt", "content": "6789"})).await.err();
    assert!(text.contains("would be 9 bytes") && text.contains("8 bytes"), "{text}");
    assert_eq!(root.read("f.txt"), b"12345");
    server.stop().await;
}

/// The disk takes only part of a chunk (a file-size limit stands in for a full disk): the
/// append is all or nothing, so the file is cut back to its size before the call and the
/// error's "the file's content was not changed" is true. A torn chunk would make the agent's retry
/// duplicate the part that landed.
#[tokio::test]
async fn an_append_that_fails_part_way_leaves_the_file_as_it_was() {
    let root = Root::new();
    let server = Server::spawn_with_file_size_limit(&root, 64 * 1024).await;
    let base = "x".repeat(60_000) + "\n";
    server.call("write_file", json!({"path": "big.txt", "content": base})).await.ok();
    let chunk = "y".repeat(8_000) + "\n";
    let text = server.call("append_file", json!({"path": "big.txt", "content": chunk})).await.err();
    assert!(text.contains("The file's content was not changed"), "{text}");
    let now = root.read("big.txt");
    assert_eq!(now.len(), base.len(), "the part that fit was taken back");
    assert!(now == base.as_bytes());
    // A chunk that fits still goes through.
    server.call("append_file", json!({"path": "big.txt", "content": "z\n"})).await.ok();
    assert_eq!(root.read("big.txt").len(), base.len() + 2);
    server.stop().await;
}

/// The journal fails after the bytes landed (a trigger makes every journal insert abort):
/// the call succeeds with a warning that says the file changed, since an error would make
/// the agent append the same chunk again.
#[tokio::test]
async fn a_journal_failure_after_the_append_is_a_warning_not_an_error() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "a.txt", "content": "one\n"})).await.ok();
    let db = rusqlite::Connection::open(root.state().join("state.db")).unwrap();
    db.execute_batch(
        "CREATE TRIGGER refuse BEFORE INSERT ON journal BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END;",
    )
    .unwrap();
    let reply = server.call("append_file", json!({"path": "a.txt", "content": "two\n"})).await;
    assert!(!reply.is_error(), "{}", reply.text());
    assert!(
        reply.text().contains("WAS changed") && reply.text().contains("do not repeat"),
        "{}",
        reply.text()
    );
    assert_eq!(root.read("a.txt"), b"one\ntwo\n");
    server.stop().await;
}
