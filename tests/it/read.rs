use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn read_numbers_lines_and_reports_totals() {
    let text: String = (1..=50).map(|i| format!("row {i}\n")).collect();
    let root = Root::new().file("t.txt", &text);
    let server = Server::spawn(&root).await;
    let reply = server.call("read_file", json!({"path": "t.txt", "offset": 10, "limit": 3})).await.ok();
    assert!(reply.text().starts_with("10\trow 10\n11\trow 11\n12\trow 12\n"), "{}", reply.text());
    let j = reply.json();
    assert_eq!(
        (j["start_line"].as_u64(), j["end_line"].as_u64(), j["total_lines"].as_u64()),
        (Some(10), Some(12), Some(50))
    );
    assert_eq!(j["total_bytes"], text.len());
    assert_eq!(j["more"], true);
    assert_eq!(j["next_offset"], 13);
    server.stop().await;
}

#[tokio::test]
async fn negative_offset_shows_where_the_file_ends() {
    let text: String = (1..=100).map(|i| format!("row {i}\n")).collect();
    let root = Root::new().file("t.txt", &text);
    let server = Server::spawn(&root).await;
    let reply = server.call("read_file", json!({"path": "t.txt", "offset": -2})).await.ok();
    assert!(reply.text().starts_with("99\trow 99\n100\trow 100\n"), "{}", reply.text());
    assert!(reply.text().contains("end of file"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn reading_a_binary_file_is_a_clear_error() {
    let root = Root::new()
        .file("img.bin", [0x89u8, b'P', b'N', b'G', 0, 1, 2])
        .file("latin1.txt", b"Le caf\xe9 \xe9tait ferm\xe9, et l'\xe9l\xe8ve est all\xe9 \xe0 l'\xe9cole.\n");
    let server = Server::spawn(&root).await;
    let text = server.call("read_file", json!({"path": "img.bin"})).await.err();
    assert!(text.contains("not a text file") && text.contains("NUL"), "{text}");
    // Text that is not UTF-8 is not binary: it is read in its encoding.
    let reply = server.call("read_file", json!({"path": "latin1.txt"})).await.ok();
    assert!(reply.text().starts_with("1\tLe café était fermé"), "{}", reply.text());
    assert_eq!(reply.json()["encoding"], "windows-1252");
    server.stop().await;
}

#[tokio::test]
async fn reading_a_missing_file_or_a_directory_says_so() {
    let root = Root::new().file("d/x.txt", "x");
    let server = Server::spawn(&root).await;
    let text = server.call("read_file", json!({"path": "nope.txt"})).await.err();
    assert!(text.contains("nope.txt does not exist"), "{text}");
    let text = server.call("read_file", json!({"path": "d"})).await.err();
    assert!(text.contains("is a directory"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn reading_a_fifo_is_refused_without_blocking() {
    let root = Root::new();
    let fifo = root.path().join("pipe");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(status.success());
    let server = Server::spawn(&root).await;
    let call = server.call("read_file", json!({"path": "pipe"}));
    let text = tokio::time::timeout(std::time::Duration::from_secs(10), call)
        .await
        .expect("reading a FIFO with no writer must not block")
        .err();
    assert!(text.contains("not a regular file"), "{text}");
    server.stop().await;
}
