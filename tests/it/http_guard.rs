//! `--http` in front of MCP: the request's head is read strictly (one `Host`, one `Origin`,
//! one authority), and a body that is too big or stops arriving is answered at once and
//! gives its place back.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{Value, json};

use crate::http_util::{HttpServer, INITIALIZE, call_body, open_session, post};
use crate::util::Root;

/// An open connection that has sent `request` and nothing more, for reading its answer.
struct Raw {
    stream: TcpStream,
}

impl Raw {
    fn send(authority: &str, request: &[u8]) -> Raw {
        let mut stream = TcpStream::connect(authority).unwrap();
        stream.write_all(request).unwrap();
        Raw { stream }
    }

    /// The answer's head and its body up to its Content-Length (the head alone for a stream),
    /// or what came before `wait` passed (empty: no answer).
    fn answer(&mut self, wait: Duration) -> String {
        self.stream.set_read_timeout(Some(wait)).unwrap();
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            match self.stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
            let text = String::from_utf8_lossy(&answer);
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head.lines().find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .and_then(|v| v.trim().parse::<usize>().ok())
                });
                if length.is_none_or(|n| body.len() >= n) {
                    break;
                }
            }
        }
        String::from_utf8_lossy(&answer).into_owned()
    }
}

/// A POST of `body` with `head_lines` (each ending in CRLF) as its other headers.
fn request(target: &str, head_lines: &str, body: &str) -> Vec<u8> {
    format!(
        "POST {target} HTTP/1.1\r\n{head_lines}content-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn status(answer: &str) -> &str {
    answer.split(' ').nth(1).unwrap_or("(no answer)")
}

const WAIT: Duration = Duration::from_secs(10);

#[tokio::test]
async fn a_second_host_header_is_400_and_nothing_runs() {
    let root = Root::new();
    let server = HttpServer::start(&root, &[]);
    let me = server.authority();
    let write = call_body(1, "write_file", json!({"path": "host.txt", "content": "x"}));
    let session = open_session(&server.url, &[]).await;
    for hosts in [format!("host: {me}\r\nhost: evil.example\r\n"), format!("host: {me}\r\nhost: {me}\r\n")] {
        let mut raw = Raw::send(&me, &request("/mcp", &hosts, INITIALIZE));
        let answer = raw.answer(WAIT);
        assert_eq!(status(&answer), "400", "{hosts:?}: {answer}");
        assert!(answer.contains("Host"), "{answer}");
        let head = format!("{hosts}mcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25\r\n");
        let answer = Raw::send(&me, &request("/mcp", &head, &write)).answer(WAIT);
        assert_eq!(status(&answer), "400", "{hosts:?}: {answer}");
    }
    assert!(!root.exists("host.txt"));
    let alone = Raw::send(&me, &request("/mcp", &format!("host: {me}\r\n"), INITIALIZE)).answer(WAIT);
    assert_eq!(status(&alone), "200", "{alone}");
}

#[tokio::test]
async fn a_second_origin_or_one_with_userinfo_is_refused_403() {
    let root = Root::new();
    let server = HttpServer::start(&root, &[]);
    let me = server.authority();
    let twice = post(
        &server.url,
        INITIALIZE,
        &[("origin", "http://localhost:5173"), ("origin", "https://evil.example")],
    )
    .await;
    assert_eq!(twice.status, 403, "{twice:?}");
    assert!(twice.json()["error"]["message"].as_str().unwrap().contains("one Origin"), "{twice:?}");
    for origin in [
        format!("http://evil.example@{me}"),
        format!("http://user:pw@{me}"),
        format!("http://{me}/path"),
        format!("http://{me}?q"),
        format!("http://{me}#f"),
        format!("http://{me}/"),
    ] {
        let refused = post(&server.url, INITIALIZE, &[("origin", &origin)]).await;
        assert_eq!(refused.status, 403, "{origin}: {refused:?}");
    }
    let served = post(&server.url, INITIALIZE, &[("origin", &format!("http://{me}"))]).await;
    assert_eq!(served.status, 200, "{served:?}");
}

#[test]
fn an_absolute_form_target_is_checked_as_the_host_and_must_agree_with_it() {
    let root = Root::new();
    let server = HttpServer::start(&root, &[]);
    let me = server.authority();
    let port = me.rsplit_once(':').unwrap().1.to_string();
    let host = format!("host: {me}\r\n");
    let foreign = Raw::send(&me, &request("http://evil.example/mcp", &host, INITIALIZE)).answer(WAIT);
    assert_eq!(status(&foreign), "403", "{foreign}");
    assert!(foreign.contains("evil.example"), "{foreign}");
    let elsewhere = format!("http://localhost:{port}/mcp");
    let disagreeing = Raw::send(&me, &request(&elsewhere, &host, INITIALIZE)).answer(WAIT);
    assert_eq!(status(&disagreeing), "400", "{disagreeing}");
    let agreeing = Raw::send(&me, &request(&format!("http://{me}/mcp"), &host, INITIALIZE)).answer(WAIT);
    assert_eq!(status(&agreeing), "200", "{agreeing}");
}

/// The head of a POST in `session` (none: without one) declaring `length` bytes of body.
fn declaring(me: &str, length: u64, session: Option<&str>) -> String {
    let session = session.map(|s| format!("mcp-session-id: {s}\r\nmcp-protocol-version: 2025-11-25\r\n"));
    format!(
        "POST /mcp HTTP/1.1\r\nhost: {me}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{}content-length: {length}\r\n\r\n",
        session.unwrap_or_default()
    )
}

#[tokio::test]
async fn an_over_limit_content_length_is_413_at_once_and_holds_no_place() {
    let root = Root::new();
    let server = HttpServer::start(&root, &["--max-concurrent", "2"]);
    let me = server.authority();
    let session = open_session(&server.url, &[]).await;
    // More stalled requests in the session than it has places, none of which will ever send
    // its body, and one without a session.
    let mut held: Vec<Raw> = [Some(session.as_str()); 4]
        .into_iter()
        .chain([None])
        .map(|session| {
            let mut request = declaring(&me, 1_000_000_000_000, session).into_bytes();
            request.extend_from_slice(br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","#);
            Raw::send(&me, &request)
        })
        .collect();
    for raw in &mut held {
        let answer = raw.answer(WAIT);
        assert_eq!(status(&answer), "413", "{answer}");
        let error: Value = serde_json::from_str(answer.split_once("\r\n\r\n").unwrap().1).unwrap();
        assert_eq!((&error["id"], &error["error"]["code"]), (&json!(5), &json!(-32600)), "{error}");
    }
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    let call = post(&server.url, call_body(6, "list_claims", json!({})), &headers).await;
    assert_eq!(call.status, 200, "the session's places were given back: {call:?}");
    let served = post(&server.url, INITIALIZE, &[]).await;
    assert_eq!(served.status, 200, "{served:?}");
}

#[tokio::test]
async fn a_body_that_stops_arriving_is_answered_408_and_its_place_freed() {
    let root = Root::new();
    let server = HttpServer::start_with_env(
        &root,
        &["--max-concurrent", "1"],
        &[("FILEWRIGHT_HTTP_BODY_TIMEOUT_MS", "300")],
    );
    let me = server.authority();
    let session = open_session(&server.url, &[]).await;
    let mut request = declaring(&me, 1000, Some(&session)).into_bytes();
    request.extend_from_slice(br#"{"jsonrpc":"2.0","id":8,"#);
    let mut stalled = Raw::send(&me, &request);
    let answer = stalled.answer(WAIT);
    assert_eq!(status(&answer), "408", "{answer}");
    let error: Value = serde_json::from_str(answer.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(error["id"], 8, "{error}");
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    let call = post(&server.url, call_body(9, "list_claims", json!({})), &headers).await;
    assert_eq!(call.status, 200, "the session's place was given back: {call:?}");
}

#[tokio::test]
async fn stalled_requests_without_a_session_do_not_lock_out_other_clients() {
    let root = Root::new();
    let server = HttpServer::start(&root, &["--max-concurrent", "1"]);
    let me = server.authority();
    let mut request = declaring(&me, 1000, None).into_bytes();
    request.push(b'{');
    let stalled = Raw::send(&me, &request);
    // Give the server time to take the stalled request in before the next one comes.
    std::thread::sleep(Duration::from_millis(200));
    for _ in 0..3 {
        let served = post(&server.url, INITIALIZE, &[]).await;
        assert_eq!(served.status, 200, "another local client is served: {served:?}");
    }
    drop(stalled);
}
