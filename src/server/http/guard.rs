//! What every request passes before it reaches MCP: the `Host` and `Origin` checks against DNS
//! rebinding, the body's size limit and the stdio framing's checks, and the bound on requests
//! in flight per principal.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, StatusCode, Uri, header};
use http_body::{Body, Frame, SizeHint};
use http_body_util::{BodyExt, combinators::BoxBody};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use serde_json::Value;

use super::reply::{self, Reply};
use crate::server::framing::{self, Scan, Verdict};

/// The `Host` and `Origin` values the server answers.
///
/// A browser page from anywhere can make the browser send requests to a loopback port, and
/// DNS rebinding can make such a page's own name resolve to 127.0.0.1: only the `Host` and
/// `Origin` headers tell those requests from a local client's. So by default only loopback
/// names are served (`localhost`, 127.0.0.0/8, `::1`), and a request that names an origin
/// must name a loopback one; `--allowed-host` and `--allowed-origin` add public names.
#[derive(Debug, Clone)]
pub struct Names {
    hosts: Vec<(String, Option<u16>)>,
    origins: Vec<Origin>,
}

/// An origin as RFC 6454 compares them: scheme, host and port (the scheme's default when
/// none is written), or the opaque `null`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    Null,
    Tuple { scheme: String, host: String, port: Option<u16> },
}

impl Names {
    /// The loopback names plus `hosts` (`NAME` or `NAME:PORT`) and `origins`
    /// (`scheme://host[:port]`, or `null`); a value that is neither is refused with the reason.
    pub fn new(hosts: &[String], origins: &[String]) -> Result<Names, String> {
        let hosts = hosts
            .iter()
            .map(|h| {
                let authority = http::uri::Authority::try_from(h.trim())
                    .map_err(|_| format!("--allowed-host {h:?} is not a host name, NAME or NAME:PORT"))?;
                Ok((normal_host(authority.host()), authority.port_u16()))
            })
            .collect::<Result<_, String>>()?;
        let origins = origins
            .iter()
            .map(|o| {
                // A trailing slash, as a URL is often written, is not part of the origin.
                parse_origin(o.trim().trim_end_matches('/')).ok_or_else(|| {
                    format!("--allowed-origin {o:?} is not an origin: write scheme://host[:port], e.g. https://app.example.com")
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(Names { hosts, origins })
    }

    /// Refuses (403, with the reason and the flag that would allow it) a request whose `Host`
    /// or `Origin` this server does not answer. The head must be read one way only: more than
    /// one `Host` (RFC 9112 §3.2), a host with userinfo, or an absolute-form target whose
    /// authority disagrees with `Host` is 400; more than one `Origin`, or one that is not
    /// exactly `scheme://host[:port]`, is 403 (a browser sends one, in that form).
    pub fn check(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Reply> {
        let bad = |message: String| Err(refusal(StatusCode::BAD_REQUEST, message));
        let mut hosts = headers.get_all(header::HOST).iter();
        let (host, second) = (hosts.next(), hosts.next());
        if second.is_some() {
            tracing::warn!("refused a request with more than one Host header");
            return bad(
                "the request has more than one Host header, which HTTP/1.1 forbids (RFC 9112 §3.2): \
                        send one Host header"
                    .into(),
            );
        }
        let host = match host {
            None => None,
            Some(value) => match value.to_str().ok().and_then(authority) {
                Some(host) => Some(host),
                None => return bad("the request's Host header is not a host name, NAME or NAME:PORT".into()),
            },
        };
        // RFC 9112 §3.2.2: with an absolute-form target (`POST http://name/mcp`), the target's
        // authority is the one the request is for, so that is the one checked.
        let target = match uri.authority() {
            None => None,
            Some(target) => match authority(target.as_str()) {
                Some(target) => Some(target),
                None => {
                    return bad(format!("the request target's authority {target} has userinfo or no host"));
                }
            },
        };
        let Some(effective) = target.as_ref().or(host.as_ref()) else {
            return bad("the request has no Host header: send Host: NAME:PORT".into());
        };
        let (name, port) = (normal_host(effective.host()), effective.port_u16());
        let allowed = is_loopback_name(&name)
            || self.hosts.iter().any(|(h, p)| *h == name && p.is_none_or(|p| Some(p) == port));
        if !allowed {
            tracing::warn!(host = %effective, "refused a request for a host this server does not answer");
            return Err(refusal(
                StatusCode::FORBIDDEN,
                format!(
                    "Host {effective} is not served: this server answers loopback names only (against DNS rebinding). \
                     To serve it under a public name, start filewright with --allowed-host {name}."
                ),
            ));
        }
        if let (Some(target), Some(host)) = (&target, &host) {
            let default = match uri.scheme_str() {
                Some("https") => Some(443),
                _ => Some(80),
            };
            let same = normal_host(target.host()) == normal_host(host.host())
                && target.port_u16().or(default) == host.port_u16().or(default);
            if !same {
                tracing::warn!(%target, %host, "refused a request whose target and Host disagree");
                return bad(format!(
                    "the request target names {target} but its Host header names {host}: send the same authority in both"
                ));
            }
        }
        let mut origins = headers.get_all(header::ORIGIN).iter();
        let (Some(origin), second) = (origins.next(), origins.next()) else { return Ok(()) };
        if second.is_some() {
            tracing::warn!("refused a request with more than one Origin header");
            return Err(refusal(
                StatusCode::FORBIDDEN,
                "the request has more than one Origin header; a browser sends one Origin header".into(),
            ));
        }
        let text = origin.to_str().unwrap_or("");
        let allowed = parse_origin(text).is_some_and(|o| {
            matches!(&o, Origin::Tuple { scheme, host, .. } if (scheme == "http" || scheme == "https") && is_loopback_name(host))
                || self.origins.contains(&o)
        });
        if !allowed {
            tracing::warn!(origin = text, "refused a request from a foreign origin");
            return Err(refusal(
                StatusCode::FORBIDDEN,
                format!(
                    "Origin {text:?} is not allowed: a web page from another site may not call this server, and an \
                     origin is scheme://host[:port] only. If this origin is your own client, start filewright with \
                     --allowed-origin {text}."
                ),
            ));
        }
        Ok(())
    }
}

/// `text` as `host[:port]`: None when it has userinfo (`name@host`), which a Host header
/// never has (RFC 9110 §7.2) and which would hide a name behind another, or no host.
fn authority(text: &str) -> Option<http::uri::Authority> {
    if text.contains('@') {
        return None;
    }
    let authority = http::uri::Authority::try_from(text).ok()?;
    (!authority.host().is_empty()).then_some(authority)
}

fn refusal(status: StatusCode, message: String) -> Reply {
    reply::error(status, Value::Null, reply::FORBIDDEN, &message)
}

/// A host as compared: lower case, without IPv6 brackets.
fn normal_host(host: &str) -> String {
    host.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase()
}

fn is_loopback_name(host: &str) -> bool {
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// An origin as a browser sends it (RFC 6454 §7): `null`, or exactly `scheme://host[:port]`,
/// nothing else: no userinfo (`http://evil.example@localhost` would otherwise read as
/// localhost), no path, query or fragment, not even a trailing `/`.
fn parse_origin(text: &str) -> Option<Origin> {
    if text.eq_ignore_ascii_case("null") {
        return Some(Origin::Null);
    }
    let (scheme, rest) = text.split_once("://")?;
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_ok || rest.contains(['/', '?', '#', '\\']) || rest.ends_with(':') {
        return None;
    }
    let authority = authority(rest)?;
    let scheme = scheme.to_ascii_lowercase();
    let default = match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    };
    Some(Origin::Tuple {
        host: normal_host(authority.host()),
        port: authority.port_u16().or(default),
        scheme,
    })
}

/// One POST body, read whole, that passed the checks the stdio framing makes.
#[derive(Debug)]
pub struct Message {
    /// The body as sent, for rmcp.
    pub bytes: Bytes,
    /// The request's id, for an answer given before rmcp sees it.
    pub id: Value,
    /// The tools it calls (`tools/call`'s `params.name`), each of them for a batch.
    pub calls: Vec<String>,
    /// It is a JSON array: a batch, which MCP no longer has (since 2025-06-18) and rmcp cannot
    /// read; refused once the scopes have been checked.
    pub batch: bool,
}

/// How much of an oversized body is read for its id before the answer.
const ID_PREFIX: usize = 64 * 1024;

/// How long a body declared over the limit is read for its id: what has arrived by then is
/// all that is looked at.
const ID_WAIT: Duration = Duration::from_secs(1);

/// The answer to a POST whose `Content-Length` is over `limit`: 413, known from the head
/// alone, so given without taking a place among the requests in flight. Only what arrives
/// within [`ID_WAIT`] (at most [`ID_PREFIX`] bytes) is read, for the request's id: a caller
/// that declares 10^12 bytes and sends a few, or none, is answered now.
pub async fn declared_too_large<B>(body: B, declared: u64, limit: usize) -> Reply
where
    B: Body<Data = Bytes>,
{
    let deadline = tokio::time::Instant::now() + ID_WAIT;
    let mut collected = BytesMut::new();
    let mut body = std::pin::pin!(body);
    while collected.len() < ID_PREFIX {
        match tokio::time::timeout_at(deadline, body.frame()).await {
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    collected.extend_from_slice(&data);
                }
            }
            _ => break,
        }
    }
    too_large(&collected, &format!("{declared} bytes"), limit)
}

/// 413 for a request of `size`, with the id when `collected` (its start) names it.
fn too_large(collected: &[u8], size: &str, limit: usize) -> Reply {
    let mut scan = Scan::default();
    scan.feed(&collected[..collected.len().min(ID_PREFIX)]);
    let message = format!(
        "this request is {size}, over the server's limit of {limit} bytes for one message; it was not read. \
         Send large files in parts: write_file with the first part (at most ~8,000 characters), then \
         append_file with each next part."
    );
    reply::error(StatusCode::PAYLOAD_TOO_LARGE, scan.id(), reply::INVALID_REQUEST, &message)
}

/// Reads a POST body of at most `limit` bytes and makes the stdio framing's checks: a body
/// over the limit (one sent without a length; [`declared_too_large`] answers one declared
/// over it), one that is not JSON, a lone UTF-16 surrogate, `arguments` that are not an
/// object, each get a JSON-RPC error naming the request's id when it can be read; nothing of
/// them reaches rmcp.
///
/// A body whose next bytes do not arrive within `idle` is answered 408: a stalled client
/// would otherwise hold its place among the requests in flight (and the connection) for as
/// long as it likes.
pub async fn read_message<B>(body: B, limit: usize, idle: Duration) -> Result<Message, Reply>
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Display,
{
    let mut collected = BytesMut::new();
    let mut body = std::pin::pin!(body);
    loop {
        let frame = match tokio::time::timeout(idle, body.frame()).await {
            Ok(Some(frame)) => frame,
            Ok(None) => break,
            Err(_) => return Err(stalled(&collected, idle)),
        };
        let frame = frame.map_err(|e| {
            reply::error(
                StatusCode::BAD_REQUEST,
                Value::Null,
                reply::INVALID_REQUEST,
                &format!("the request body could not be read: {e}"),
            )
        })?;
        let Ok(data) = frame.into_data() else { continue };
        if collected.len() + data.len() > limit {
            let room = ID_PREFIX.saturating_sub(collected.len()).min(data.len());
            collected.extend_from_slice(&data[..room]);
            return Err(too_large(&collected, &format!("over {limit} bytes"), limit));
        }
        collected.extend_from_slice(&data);
    }
    let bytes = collected.freeze();
    if let Verdict::Answer { id, code, message } = framing::judge(&bytes) {
        return Err(reply::error(StatusCode::BAD_REQUEST, id, code, &message));
    }
    match serde_json::from_slice::<ClientJsonRpcMessage>(&bytes) {
        Ok(message) => {
            let (id, calls) = match &message {
                ClientJsonRpcMessage::Request(request) => {
                    let id = serde_json::to_value(&request.id).unwrap_or(Value::Null);
                    let calls = match &request.request {
                        ClientRequest::CallToolRequest(call) => vec![call.params.name.to_string()],
                        _ => Vec::new(),
                    };
                    (id, calls)
                }
                _ => (Value::Null, Vec::new()),
            };
            Ok(Message { bytes, id, calls, batch: false })
        }
        Err(typed) => match serde_json::from_slice::<Value>(&bytes) {
            Err(e) => Err(reply::error(
                StatusCode::BAD_REQUEST,
                Value::Null,
                reply::PARSE_ERROR,
                &format!("the request body is not JSON ({e}); send one JSON-RPC message per request."),
            )),
            Ok(Value::Array(items)) => {
                let calls = items.iter().filter_map(called_tool).map(str::to_string).collect();
                Ok(Message { bytes, id: Value::Null, calls, batch: true })
            }
            Ok(other) => {
                let id = other
                    .get("id")
                    .filter(|id| id.is_number() || id.is_string())
                    .cloned()
                    .unwrap_or(Value::Null);
                Err(reply::error(
                    StatusCode::BAD_REQUEST,
                    id,
                    reply::INVALID_REQUEST,
                    &format!("the request body is not a JSON-RPC message this server reads: {typed}"),
                ))
            }
        },
    }
}

/// The answer to a body that stopped arriving: 408, with the id when what came names it.
fn stalled(collected: &[u8], idle: Duration) -> Reply {
    let mut scan = Scan::default();
    scan.feed(&collected[..collected.len().min(ID_PREFIX)]);
    tracing::info!(received = collected.len(), "dropped a request whose body stopped arriving");
    reply::error(
        StatusCode::REQUEST_TIMEOUT,
        scan.id(),
        reply::INVALID_REQUEST,
        &format!(
            "the request body stopped arriving: nothing came for {} ms after {} bytes; it was not run. Send the \
             whole body at once, and retry.",
            idle.as_millis(),
            collected.len()
        ),
    )
}

/// The tool a `tools/call` message calls.
fn called_tool(message: &Value) -> Option<&str> {
    (message.get("method")?.as_str()? == "tools/call").then_some(())?;
    message.get("params")?.get("name")?.as_str()
}

/// The answer to a batch: MCP has none since 2025-06-18.
pub fn batch_refused() -> Reply {
    reply::error(
        StatusCode::BAD_REQUEST,
        Value::Null,
        reply::INVALID_REQUEST,
        "JSON-RPC batches are not part of MCP since 2025-06-18: send one message per request.",
    )
}

/// Requests in flight per principal, at most `max` each. A request holds its place until its
/// response body ends (a POST's SSE stream closes with its reply); the long-lived GET stream
/// of a session takes none, so that an open session does not use up its principal's places.
#[derive(Debug)]
pub struct Limits {
    max: usize,
    busy: Mutex<HashMap<String, usize>>,
}

/// A place taken in [`Limits`], given back when dropped.
#[derive(Debug)]
pub struct Place {
    limits: Arc<Limits>,
    key: String,
}

impl Limits {
    /// At most `max` requests in flight per key.
    pub fn new(max: usize) -> Arc<Limits> {
        Arc::new(Limits { max, busy: Mutex::default() })
    }

    /// A place for `key`, or None when it has `max` requests in flight already.
    pub fn enter(self: &Arc<Self>, key: &str) -> Option<Place> {
        let mut busy = self.busy.lock().unwrap_or_else(|p| p.into_inner());
        let count = busy.entry(key.to_string()).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(Place { limits: self.clone(), key: key.to_string() })
    }

    /// The answer when `key` has no place left: 429 with Retry-After.
    pub fn refusal(&self, who: &str) -> Reply {
        let message = format!(
            "{who} has {} requests in flight, the most this server runs at once for one caller (--max-concurrent); \
             retry when one has finished.",
            self.max
        );
        let refused =
            reply::error(StatusCode::TOO_MANY_REQUESTS, Value::Null, reply::TOO_MANY_REQUESTS, &message);
        reply::with_header(refused, header::RETRY_AFTER, "1")
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut busy = self.limits.busy.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = busy.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                busy.remove(&self.key);
            }
        }
    }
}

/// A response body that holds a [`Place`] until it ends or is dropped (the client left).
pub struct Held {
    inner: BoxBody<Bytes, Infallible>,
    _place: Place,
}

impl Held {
    /// `response` holding `place` until its body is done.
    pub fn response(response: Reply, place: Place) -> Reply {
        response.map(|inner| Held { inner, _place: place }.boxed())
    }
}

impl Body for Held {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::Full;

    fn headers(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, host.parse().unwrap());
        if let Some(o) = origin {
            h.insert(header::ORIGIN, o.parse().unwrap());
        }
        h
    }

    #[test]
    fn loopback_hosts_and_origins_pass_and_others_need_a_flag() {
        let names = Names::new(&[], &[]).unwrap();
        let uri = Uri::from_static("/mcp");
        for host in ["localhost:8080", "127.0.0.1:1", "[::1]:9", "127.0.0.2", "LOCALHOST"] {
            assert!(names.check(&uri, &headers(host, None)).is_ok(), "{host}");
        }
        assert!(names.check(&uri, &headers("localhost:1", Some("http://127.0.0.1:5173"))).is_ok());
        assert!(names.check(&uri, &headers("localhost:1", Some("https://localhost"))).is_ok());
        let refused = names.check(&uri, &headers("evil.example:80", None)).unwrap_err();
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        for origin in ["https://evil.example", "null", "http://localhost.evil.example", "file://x"] {
            let refused = names.check(&uri, &headers("localhost:1", Some(origin))).unwrap_err();
            assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{origin}");
        }
        let names =
            Names::new(&["files.example.com".into()], &["https://app.example.com".into(), "null".into()])
                .unwrap();
        assert!(
            names.check(&uri, &headers("files.example.com:443", Some("https://app.example.com:443"))).is_ok()
        );
        assert!(names.check(&uri, &headers("files.example.com", Some("null"))).is_ok());
        assert!(
            names.check(&uri, &headers("files.example.com", Some("https://app.example.com:8443"))).is_err()
        );
        assert!(Names::new(&[], &["app.example.com".into()]).is_err(), "an origin needs its scheme");
        assert!(Names::new(&[], &["https://app.example.com/".into()]).is_ok(), "a trailing slash is written");
    }

    #[test]
    fn the_head_is_read_one_way_only() {
        let names = Names::new(&[], &[]).unwrap();
        let uri = Uri::from_static("/mcp");
        let status = |uri: &Uri, h: &HeaderMap| names.check(uri, h).err().map(|r| r.status());
        let mut twice = headers("localhost:1", None);
        twice.append(header::HOST, "evil.example".parse().unwrap());
        assert_eq!(status(&uri, &twice), Some(StatusCode::BAD_REQUEST));
        assert_eq!(status(&uri, &headers("evil@localhost:1", None)), Some(StatusCode::BAD_REQUEST));
        for origin in [
            "http://evil.example@localhost:1",
            "http://localhost:1/",
            "http://localhost:1?",
            "http://localhost:",
        ] {
            assert_eq!(
                status(&uri, &headers("localhost:1", Some(origin))),
                Some(StatusCode::FORBIDDEN),
                "{origin}"
            );
        }
        let mut two_origins = headers("localhost:1", Some("http://localhost:2"));
        two_origins.append(header::ORIGIN, "https://evil.example".parse().unwrap());
        assert_eq!(status(&uri, &two_origins), Some(StatusCode::FORBIDDEN));
        let absolute = Uri::from_static("http://evil.example/mcp");
        assert_eq!(status(&absolute, &headers("localhost:1", None)), Some(StatusCode::FORBIDDEN));
        let absolute = Uri::from_static("http://localhost:1/mcp");
        assert_eq!(status(&absolute, &headers("127.0.0.1:1", None)), Some(StatusCode::BAD_REQUEST));
        assert_eq!(status(&absolute, &headers("LOCALHOST:1", None)), None);
        assert_eq!(status(&Uri::from_static("http://localhost/mcp"), &headers("localhost:80", None)), None);
        assert_eq!(
            status(&absolute, &HeaderMap::new()),
            None,
            "the target's authority stands for a missing Host"
        );
        assert_eq!(status(&uri, &HeaderMap::new()), Some(StatusCode::BAD_REQUEST));
    }

    async fn read(body: &str, limit: usize) -> Result<Message, Reply> {
        read_message(Full::new(Bytes::from(body.to_string())), limit, IDLE).await
    }

    async fn refused(body: &str, limit: usize) -> (StatusCode, Value) {
        let response = read(body, limit).await.unwrap_err();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn what_the_stdio_framing_refuses_gets_a_json_rpc_error_with_the_id() {
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a","content":"x"}}}"#;
        let message = read(call, 1 << 20).await.unwrap();
        assert_eq!(
            (message.id, message.calls, message.batch),
            (Value::from(7), vec!["write_file".to_string()], false)
        );

        let (status, answer) = refused(call, 40).await;
        assert_eq!(
            (status, &answer["id"], &answer["error"]["code"]),
            (StatusCode::PAYLOAD_TOO_LARGE, &Value::from(7), &Value::from(-32600))
        );
        let (status, answer) = refused(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"w","arguments":{"c":"\ud800"}}}"#, 1 << 20).await;
        assert_eq!(
            (status, &answer["id"], &answer["error"]["code"]),
            (StatusCode::BAD_REQUEST, &Value::from(3), &Value::from(-32602))
        );
        let (status, answer) = refused(
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"w","arguments":[1]}}"#,
            1 << 20,
        )
        .await;
        assert_eq!(
            (status, &answer["id"], &answer["error"]["code"]),
            (StatusCode::BAD_REQUEST, &Value::from(4), &Value::from(-32602))
        );
        let (status, answer) = refused(r#"{"jsonrpc":"2.0","id":5,"#, 1 << 20).await;
        assert_eq!((status, &answer["error"]["code"]), (StatusCode::BAD_REQUEST, &Value::from(-32700)));
        let (status, answer) = refused(r#"{"id":6,"hello":1}"#, 1 << 20).await;
        assert_eq!(
            (status, &answer["id"], &answer["error"]["code"]),
            (StatusCode::BAD_REQUEST, &Value::from(6), &Value::from(-32600))
        );
    }

    #[tokio::test]
    async fn a_batch_is_read_for_its_calls() {
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{}}},
                        {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{}}}]"#;
        let message = read(batch, 1 << 20).await.unwrap();
        assert!(message.batch);
        assert_eq!(message.calls, ["read_file", "write_file"]);
    }

    const IDLE: Duration = Duration::from_secs(30);

    /// A body that sends `first` and then nothing more, ever (a stalled client).
    struct Stalls(Option<Bytes>);

    impl Body for Stalls {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            match self.get_mut().0.take() {
                Some(first) => Poll::Ready(Some(Ok(Frame::data(first)))),
                None => Poll::Pending,
            }
        }
    }

    async fn answer(response: Reply) -> (StatusCode, Value) {
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn a_body_that_stalls_is_answered_and_one_declared_too_big_at_once() {
        let first = Bytes::from_static(br#"{"jsonrpc":"2.0","id":21,"method":"tools/call","#);
        // Under the limit, then nothing: 408 once `idle` has passed without a byte.
        let stalled = read_message(Stalls(Some(first.clone())), 1 << 20, Duration::from_millis(50));
        let refused =
            tokio::time::timeout(Duration::from_secs(20), stalled).await.expect("answered").unwrap_err();
        let (status, error) = answer(refused).await;
        assert_eq!((status, &error["id"]), (StatusCode::REQUEST_TIMEOUT, &Value::from(21)), "{error}");
        // Declared over the limit, then nothing: 413 after at most ID_WAIT.
        let huge = declared_too_large(Stalls(Some(first)), 1_000_000_000_000, 1 << 20);
        let refused = tokio::time::timeout(Duration::from_secs(20), huge).await.expect("answered");
        let (status, error) = answer(refused).await;
        assert_eq!((status, &error["id"]), (StatusCode::PAYLOAD_TOO_LARGE, &Value::from(21)), "{error}");
        let silent = declared_too_large(Stalls(None), 1_000_000_000_000, 1 << 20);
        let refused = tokio::time::timeout(Duration::from_secs(20), silent).await.expect("answered");
        let (status, error) = answer(refused).await;
        assert_eq!((status, &error["id"]), (StatusCode::PAYLOAD_TOO_LARGE, &Value::Null), "{error}");
    }

    #[test]
    fn a_place_is_given_back_when_dropped() {
        let limits = Limits::new(2);
        let a = limits.enter("alice").unwrap();
        let _b = limits.enter("alice").unwrap();
        assert!(limits.enter("alice").is_none(), "a third request in flight is refused");
        assert!(limits.enter("bob").is_some(), "each principal has its own places");
        drop(a);
        assert!(limits.enter("alice").is_some());
    }
}
