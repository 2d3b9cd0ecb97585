//! `--http`: MCP over Streamable HTTP, in session mode and as stateless 2026-07-28 requests,
//! with the checks a network server needs (Host, Origin, body size, concurrency, TLS).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use crate::http_util::{HttpServer, call_body, delete, get, messages, open_session, post};
use crate::util::{ProgressClient, Root, check_request};

#[tokio::test]
async fn tools_work_over_http_in_a_session() {
    let root = Root::new().file("notes.txt", "one\n");
    let server = HttpServer::start(&root, &[]);
    let client = server.client(None).await;
    assert!(client.tool_names().await.contains(&"append_file".to_string()));
    client.call("write_file", json!({"path": "a.py", "content": "x = 1\n"})).await.ok();
    client.call("append_file", json!({"path": "a.py", "content": "y = 2\n", "expected_size": 6})).await.ok();
    let read = client.call("read_file", json!({"path": "notes.txt"})).await.ok();
    assert!(read.text().contains("one"), "{}", read.text());
    assert_eq!(root.read("a.py"), b"x = 1\ny = 2\n");
    client.stop().await;
}

#[tokio::test]
async fn stateless_2026_07_28_requests_work_without_a_session() {
    let root = Root::new();
    let server = HttpServer::start(&root, &[]);
    let client = server.stateless_client(None).await;
    assert_eq!(
        client.service.peer_info().map(|i| i.protocol_version.to_string()).as_deref(),
        Some("2026-07-28"),
        "the client runs on the stateless revision"
    );
    client.call("write_file", json!({"path": "s.txt", "content": "a"})).await.ok();
    client.call("append_file", json!({"path": "s.txt", "content": "b", "expected_size": 1})).await.ok();
    assert_eq!(root.read("s.txt"), b"ab");
    assert!(client.tool_names().await.contains(&"read_file".to_string()));
    client.stop().await;
}

#[tokio::test]
async fn two_clients_at_once_each_keep_their_own_session() {
    let root = Root::new();
    let server = HttpServer::start(&root, &[]);
    let (a, b) = tokio::join!(server.client(None), server.stateless_client(None));
    let write = |client: &'static str, n: usize| json!({"path": format!("{client}.txt"), "content": format!("{n}\n")});
    for n in 0..20 {
        let (ra, rb) =
            tokio::join!(a.call("append_file", write("a", n)), b.call("append_file", write("b", n)));
        ra.ok();
        rb.ok();
    }
    let expected: String = (0..20).map(|n| format!("{n}\n")).collect();
    assert_eq!(String::from_utf8(root.read("a.txt")).unwrap(), expected);
    assert_eq!(String::from_utf8(root.read("b.txt")).unwrap(), expected);
    a.stop().await;
    b.stop().await;
}

/// Sends `check_files` on `paths` in a session of a client that records progress: the client,
/// what it has seen, and the request in flight.
async fn check_in_a_session(
    server: &HttpServer,
    paths: &[String],
) -> (
    crate::http_util::HttpClient<ProgressClient>,
    ProgressClient,
    rmcp::service::RequestHandle<rmcp::RoleClient>,
) {
    let handler = ProgressClient::default();
    let client = server.client_with(handler.clone(), None).await;
    let handle = client
        .service
        .send_cancellable_request(check_request(paths), rmcp::service::PeerRequestOptions::no_options())
        .await
        .unwrap();
    (client, handler, handle)
}

#[tokio::test]
async fn progress_notifications_reach_the_client_over_the_session_stream() {
    let mut root = Root::new();
    let paths: Vec<String> = (0..4).map(|i| format!("m{i}.py")).collect();
    for p in &paths {
        root = root.file(p, "x = 1\n");
    }
    let server = HttpServer::start(&root, &[]);
    let (client, handler, handle) = check_in_a_session(&server, &paths).await;
    handle.await_response().await.expect("check_files answers");
    // Progress travels on the request's own SSE stream, before its reply.
    let steps: Vec<f64> = handler.seen.lock().unwrap().iter().map(|p| p.progress).collect();
    assert_eq!(steps, vec![1.0, 2.0, 3.0, 4.0]);
    client.stop().await;
}

#[tokio::test]
async fn a_cancelled_request_stops_and_the_session_goes_on() {
    // Enough work that the check is still running when the cancel arrives.
    let body: String = (0..1500).map(|i| format!("function f{i}(a) {{ return a + {i}; }}\n")).collect();
    let mut root = Root::new();
    let paths: Vec<String> = (0..200).map(|i| format!("js/f{i}.js")).collect();
    for p in &paths {
        root = root.file(p, &body);
    }
    let server = HttpServer::start(&root, &[]);
    let (client, handler, handle) = check_in_a_session(&server, &paths).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while handler.seen.lock().unwrap().is_empty() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    handle.cancel(Some("test".into())).await.unwrap();
    let at_cancel = handler.seen.lock().unwrap().len();
    // Give a server that ignored the cancel time to get well past the file in hand.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = handler.seen.lock().unwrap().len();
    assert!((1..200).contains(&at_cancel), "{at_cancel}");
    assert!(after <= at_cancel + 2, "the check went on after the cancel: {at_cancel} then {after} of 200");
    client.call("check_files", json!({"paths": ["js/f0.js"]})).await.ok();
    client.stop().await;
}

#[tokio::test]
async fn a_foreign_origin_is_refused_and_a_loopback_one_served() {
    let root = Root::new();
    let server = HttpServer::start(&root, &[]);
    let refused =
        post(&server.url, crate::http_util::INITIALIZE, &[("origin", "https://evil.example")]).await;
    assert_eq!(refused.status, 403, "{refused:?}");
    let message = refused.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("https://evil.example") && message.contains("--allowed-origin"), "{message}");
    let served =
        post(&server.url, crate::http_util::INITIALIZE, &[("origin", "http://localhost:5173")]).await;
    assert_eq!(served.status, 200, "{served:?}");
}

#[tokio::test]
async fn an_allowed_origin_is_served() {
    let root = Root::new();
    let server = HttpServer::start(&root, &["--allowed-origin", "https://app.example.com"]);
    let served =
        post(&server.url, crate::http_util::INITIALIZE, &[("origin", "https://app.example.com")]).await;
    assert_eq!(served.status, 200, "{served:?}");
}

#[tokio::test]
async fn a_host_that_is_not_loopback_is_refused_unless_allowed() {
    let root = Root::new();
    let server = HttpServer::start(&root, &[]);
    let refused = post(&server.url, crate::http_util::INITIALIZE, &[("host", "files.example.com")]).await;
    assert_eq!(refused.status, 403, "{refused:?}");
    assert!(
        refused.json()["error"]["message"].as_str().unwrap().contains("--allowed-host files.example.com")
    );
    let server = HttpServer::start(&root, &["--allowed-host", "files.example.com"]);
    let served = post(&server.url, crate::http_util::INITIALIZE, &[("host", "files.example.com")]).await;
    assert_eq!(served.status, 200, "{served:?}");
}

#[test]
fn a_non_loopback_bind_without_auth_does_not_start() {
    let root = Root::new();
    let log = HttpServer::try_start(&root, &["--http", "0.0.0.0:0"]).err().expect("it must not start");
    assert!(log.contains("--token-file") && log.contains("--oauth-issuer"), "{log}");
    let log = HttpServer::try_start(&root, &["--http", "[::]:0"]).err().expect("it must not start");
    assert!(log.contains("without authentication"), "{log}");
}

#[test]
fn http_without_root_refuses_the_home_directory() {
    let home = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_filewright"))
        .args(["--http", "127.0.0.1:0"])
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("FILEWRIGHT_LOG", "warn")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--root"), "{stderr}");
}

#[tokio::test]
async fn what_the_stdio_framing_refuses_gets_a_json_rpc_error_over_http_and_the_server_lives_on() {
    let root = Root::new().file("a.txt", "keep\n");
    let mut server = HttpServer::start(&root, &[]);
    let session = open_session(&server.url, &[]).await;
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    let cases = [
        (r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a.txt","content":"\ud800"}}}"#.to_string(), 11, -32602),
        (call_body(12, "write_file", json!(["a.txt"])), 12, -32602),
        (r#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"#.to_string(), 0, -32700),
        (r#"{"id":14,"what":"no method"}"#.to_string(), 14, -32600),
        (format!("[{}]", call_body(15, "read_file", json!({"path": "a.txt"}))), 0, -32600),
    ];
    for (body, id, code) in cases {
        let answer = post(&server.url, body.clone(), &headers).await;
        assert_eq!(answer.status, 400, "{body}: {answer:?}");
        let error = answer.json();
        assert_eq!(error["error"]["code"], code, "{body}: {error}");
        let expected_id = if id == 0 { Value::Null } else { json!(id) };
        assert_eq!(error["id"], expected_id, "{body}: {error}");
    }
    assert_eq!(root.read("a.txt"), b"keep\n", "nothing was written");
    assert!(server.alive());
    let fine = post(&server.url, call_body(16, "read_file", json!({"path": "a.txt"})), &headers).await;
    let replies = messages(&fine.body);
    assert!(replies.iter().any(|m| m["id"] == 16 && m["result"]["isError"] == false), "{}", fine.body);
}

/// Writes `head` then `total` bytes of body on a raw connection (ignoring a server that stops
/// reading), and returns what the server answered.
fn raw_exchange(authority: &str, head: &str, body_prefix: &[u8], total: usize) -> String {
    let mut stream = TcpStream::connect(authority).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let head = head.to_string();
    let prefix = body_prefix.to_vec();
    let sender = std::thread::spawn(move || {
        let _ = writer.write_all(head.as_bytes());
        let _ = writer.write_all(&prefix);
        let filler = vec![b'x'; 1 << 16];
        let mut sent = prefix.len();
        while sent < total {
            let n = filler.len().min(total - sent);
            if writer.write_all(&filler[..n]).is_err() {
                break;
            }
            sent += n;
        }
    });
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    // Up to the end of the JSON body the server sends with Content-Length.
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
        }
        let text = String::from_utf8_lossy(&answer);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_string())
                })
                .and_then(|v| v.parse::<usize>().ok());
            if length.is_some_and(|n| body.len() >= n) {
                break;
            }
        }
    }
    drop(stream);
    let _ = sender.join();
    String::from_utf8_lossy(&answer).into_owned()
}

#[test]
fn a_body_over_the_limit_gets_a_json_rpc_error_with_its_id() {
    let root = Root::new();
    let server = HttpServer::start(&root, &["--max-file-bytes", "1000"]);
    // The limit is the stdio framing's line limit: never below 16 MiB.
    let limit = 16 << 20;
    let prefix = br#"{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"big.txt","content":""#;
    let declared = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n",
        server.authority(),
        limit + 10
    );
    let chunked = declared.replace(&format!("content-length: {}", limit + 10), "transfer-encoding: chunked");
    for (head, chunked) in [(declared, false), (chunked, true)] {
        let answer = if chunked {
            // One chunk bigger than the limit.
            let mut body = format!("{:x}\r\n", limit + 10).into_bytes();
            body.extend_from_slice(prefix);
            raw_exchange(&server.authority(), &head, &body, limit + 10 + 16)
        } else {
            raw_exchange(&server.authority(), &head, prefix, limit + 10)
        };
        assert!(answer.starts_with("HTTP/1.1 413"), "chunked {chunked}: {answer}");
        let body = answer.split_once("\r\n\r\n").unwrap().1;
        let error: Value = serde_json::from_str(body).unwrap();
        assert_eq!(error["id"], 77, "{error}");
        assert_eq!(error["error"]["code"], -32600, "{error}");
        assert!(error["error"]["message"].as_str().unwrap().contains("append_file"), "{error}");
    }
    assert!(!root.exists("big.txt"));
}

#[tokio::test]
async fn requests_over_the_concurrency_limit_get_429_with_retry_after() {
    let root = Root::new();
    let server = HttpServer::start(&root, &["--max-concurrent", "1"]);
    // Without credentials a session is the caller: a request in it whose body has not all
    // come holds the session's place.
    let session = open_session(&server.url, &[]).await;
    let in_session = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    let mut held = TcpStream::connect(server.authority()).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25\r\ncontent-length: 1000\r\n\r\n{{",
        server.authority()
    );
    held.write_all(head.as_bytes()).unwrap();
    let mut refused = None;
    for _ in 0..200 {
        let answer = post(&server.url, call_body(2, "list_claims", json!({})), &in_session).await;
        if answer.status == 429 {
            refused = Some(answer);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let refused = refused.expect("a second request in flight is refused");
    assert_eq!(refused.header("retry-after"), "1");
    assert_eq!(refused.json()["error"]["code"], -32029);
    drop(held);
    // Another client is not held up meanwhile.
    assert_eq!(post(&server.url, crate::http_util::INITIALIZE, &[]).await.status, 200);
    // Its place is given back once the connection is gone.
    let mut served = None;
    for _ in 0..200 {
        let answer = post(&server.url, call_body(3, "list_claims", json!({})), &in_session).await;
        if answer.status == 200 {
            served = Some(answer);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(served.is_some(), "served again once the held request is gone");
    // Many calls one after another never run out of places: each gives its place back.
    let client = server.client(None).await;
    for n in 0..5 {
        client.call("append_file", json!({"path": "seq.txt", "content": format!("{n}")})).await.ok();
    }
    // An open GET stream takes no place.
    let session = open_session(&server.url, &[]).await;
    let stream = reqwest::Client::new()
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    let call = post(&server.url, call_body(4, "read_file", json!({"path": "seq.txt"})), &headers).await;
    assert_eq!(call.status, 200, "{call:?}");
    drop(stream);
    assert_eq!(root.read("seq.txt"), b"01234");
}

#[tokio::test]
async fn a_client_that_disconnects_mid_append_leaves_the_file_whole() {
    let root = Root::new().file("log.txt", "start\n");
    let mut server = HttpServer::start(&root, &[]);
    let session = open_session(&server.url, &[]).await;
    let chunk = "0123456789abcdef\n".repeat(20_000);
    let body = call_body(5, "append_file", json!({"path": "log.txt", "content": chunk}));
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25\r\ncontent-length: {}\r\n\r\n",
        server.authority(),
        body.len()
    );
    // Half the body, then gone: nothing is appended.
    let mut stream = TcpStream::connect(server.authority()).unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(&body.as_bytes()[..body.len() / 2]).unwrap();
    drop(stream);
    // The whole body, then gone before the answer: appended whole or not at all.
    for _ in 0..3 {
        let mut stream = TcpStream::connect(server.authority()).unwrap();
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        drop(stream);
    }
    let client = server.client(None).await;
    client.call("append_file", json!({"path": "log.txt", "content": "end\n"})).await.ok();
    let text = String::from_utf8(root.read("log.txt")).unwrap();
    let middle =
        text.strip_prefix("start\n").and_then(|t| t.strip_suffix("end\n")).expect("start and end kept");
    // A retried identical chunk is not appended twice (append's retry guard), so whole or none.
    assert!(middle.is_empty() || middle == chunk, "a partial append: {} bytes", middle.len());
    assert!(server.alive());
    client.stop().await;
}

#[tokio::test]
async fn tls_serves_with_the_given_certificate() {
    let root = Root::new();
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
    let server =
        HttpServer::start(&root, &["--tls-cert", cert.to_str().unwrap(), "--tls-key", key.to_str().unwrap()]);
    assert!(server.url.starts_with("https://127.0.0.1:"), "{}", server.url);
    let mut roots = rustls::RootCertStore::empty();
    roots.add(certified.cert.der().clone()).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(server.authority()).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let mut tls = connector.connect(name, tcp).await.expect("TLS handshake with the test certificate");
    let body = crate::http_util::INITIALIZE;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    tls.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&answer).contains("\"serverInfo\"") {
        let n = tls.read(&mut buf).await.unwrap();
        assert!(n > 0, "{}", String::from_utf8_lossy(&answer));
        answer.extend_from_slice(&buf[..n]);
    }
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.to_ascii_lowercase().contains("mcp-session-id:"), "{answer}");
    // Plain HTTP to the TLS port gets nowhere.
    let plain = reqwest::Client::new().get(server.url.replace("https://", "http://")).send().await;
    assert!(plain.map(|r| r.status() != 200).unwrap_or(true));
}

#[tokio::test]
async fn other_paths_are_not_found_and_metadata_needs_an_auth_mode() {
    let root = Root::new();
    let server = HttpServer::start(&root, &[]);
    let base = server.url.trim_end_matches("/mcp").to_string();
    assert_eq!(get(&format!("{base}/"), &[]).await.status, 404);
    assert_eq!(get(&format!("{base}/.well-known/oauth-protected-resource"), &[]).await.status, 404);
}

#[test]
fn a_port_alone_binds_loopback() {
    let root = Root::new();
    let server = HttpServer::start(&root, &["--http", "0"]);
    assert!(server.url.starts_with("http://127.0.0.1:"), "{}", server.url);
}

#[tokio::test]
async fn a_client_ending_its_session_is_told_it_ended() {
    let root = Root::new();
    let server = HttpServer::start(&root, &[]);
    let session = open_session(&server.url, &[]).await;
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    // 2xx other than 202: clients read 202 Accepted as "not ended" and say the termination failed.
    let ended = delete(&server.url, &headers).await;
    assert_eq!(ended.status, 204, "{ended:?}");
    let after = post(&server.url, call_body(2, "list_claims", json!({})), &headers).await;
    assert_eq!(after.status, 404, "the session is gone: {after:?}");
}
