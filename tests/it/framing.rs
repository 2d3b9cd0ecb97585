//! Every request line gets an answer: one over the line limit, one with a lone UTF-16
//! surrogate, one whose `arguments` are not an object, and an error without an id carries
//! `"id": null`.

use serde_json::{Value, json};

use crate::util::{RawServer, Root};

fn error_of(reply: &Value) -> (&Value, i64, String) {
    let error = &reply["error"];
    (&reply["id"], error["code"].as_i64().unwrap_or(0), error["message"].as_str().unwrap_or("").to_string())
}

#[test]
fn a_request_over_the_line_limit_is_answered_with_its_id_and_the_limit() {
    let root = Root::new();
    // Small files: the line limit is then its floor, rmcp's 16 MiB.
    let mut server = RawServer::start_with(&root, &["--max-file-bytes", "1000"]);
    // 17 MiB of content, over the 16 MiB floor; the id comes after it, at the end of the line.
    let content = "x".repeat(17 << 20);
    let line = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{{\"name\":\"write_file\",\"arguments\":\
         {{\"path\":\"big.txt\",\"content\":\"{content}\"}}}},\"id\":\"req-41\"}}\n"
    );
    server.send_raw(line.as_bytes());
    let reply = server.receive();
    let (id, code, message) = error_of(&reply);
    assert_eq!(id, "req-41", "{reply}");
    assert_eq!(code, -32600);
    assert!(message.contains("over the server's limit of") && message.contains("append_file"), "{message}");
    assert!(!root.exists("big.txt"));
    // The server goes on serving.
    let ok = server.call("write_file", json!({"path": "small.txt", "content": "fits\n"}));
    assert_ne!(ok["isError"], true, "{ok}");
    server.kill();
}

#[test]
fn an_over_limit_line_without_a_readable_id_is_answered_with_id_null() {
    let root = Root::new();
    let mut server = RawServer::start_with(&root, &["--max-file-bytes", "1000"]);
    let mut line = vec![b'['; 17 << 20];
    line.push(b'\n');
    server.send_raw(&line);
    let reply = server.receive();
    assert!(reply.as_object().unwrap().contains_key("id") && reply["id"].is_null(), "{reply}");
    server.kill();
}

#[test]
fn the_limit_follows_max_file_bytes_so_a_file_that_fits_can_be_sent() {
    let root = Root::new();
    let mut server = RawServer::start_with(&root, &["--max-file-bytes", "20000000"]);
    // 18 MB of newlines escape to 36 MB of JSON: over 16 MiB, within the limit this size sets.
    let content = "\n".repeat(18_000_000);
    let reply = server.call("write_file", json!({"path": "lines.txt", "content": content}));
    assert_ne!(reply["isError"], true, "{}", reply.to_string().chars().take(300).collect::<String>());
    assert_eq!(std::fs::metadata(root.path().join("lines.txt")).unwrap().len(), 18_000_000);
    server.kill();
}

#[test]
fn a_lone_surrogate_is_answered_with_an_error_for_its_id_and_a_pair_is_written() {
    let root = Root::new();
    let mut server = RawServer::start(&root);
    server.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"write_file\",\
          \"arguments\":{\"path\":\"cut.txt\",\"content\":\"half an emoji \\ud83d\"}}}\n",
    );
    let reply = server.receive();
    let (id, code, message) = error_of(&reply);
    assert_eq!((id, code), (&json!(9), -32602), "{reply}");
    assert!(message.contains("lone UTF-16 surrogate"), "{message}");
    assert!(!root.exists("cut.txt"));
    // A whole pair is one character.
    server.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"write_file\",\
          \"arguments\":{\"path\":\"whole.txt\",\"content\":\"an emoji \\ud83d\\ude00\\n\"}}}\n",
    );
    let reply = server.receive();
    assert_eq!(reply["id"], 10);
    assert_ne!(reply["result"]["isError"], true, "{reply}");
    assert_eq!(root.read("whole.txt"), "an emoji \u{1F600}\n".as_bytes());
    server.kill();
}

#[test]
fn arguments_that_are_not_an_object_get_invalid_params_with_the_id() {
    let root = Root::new();
    let mut server = RawServer::start(&root);
    for (n, arguments) in ["[\"a.txt\"]", "\"a.txt\"", "42", "null"].iter().enumerate() {
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{n},\"method\":\"tools/call\",\"params\":{{\"name\":\"read_file\",\
             \"arguments\":{arguments}}}}}\n"
        );
        server.send_raw(line.as_bytes());
        let reply = server.receive();
        let (id, code, message) = error_of(&reply);
        assert_eq!((id, code), (&json!(n), -32602), "{arguments}: {reply}");
        assert!(message.contains("must be an object"), "{message}");
    }
    server.kill();
}

#[test]
fn an_error_reply_rmcp_makes_without_an_id_carries_id_null() {
    let root = Root::new();
    let mut server = RawServer::start(&root);
    // Valid JSON that is no JSON-RPC message: rmcp answers "Invalid Request" without an id.
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"params\":{}}\n");
    let reply = server.receive();
    assert!(reply.get("error").is_some(), "{reply}");
    assert!(reply.as_object().unwrap().contains_key("id") && reply["id"].is_null(), "{reply}");
    server.kill();
}

#[test]
fn the_last_reply_is_written_when_the_client_closes_stdin_right_after_its_request() {
    use std::io::Write;
    let root = Root::new();
    let requests = concat!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a.txt","content":"hi\n"}}}"#,
        "\n"
    );
    for run in 0..8 {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_filewright"))
            .arg("--root")
            .arg(root.path())
            .arg("--state-dir")
            .arg(root.state())
            .env("FILEWRIGHT_LOG", "error")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(requests.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let replies: Vec<Value> =
            String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(replies.len(), 2, "run {run}: {replies:?}");
        assert_eq!(replies[1]["id"], 1);
    }
}
