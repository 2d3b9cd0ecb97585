//! MCP over Streamable HTTP (`--http ADDR:PORT`): one process, many clients, each request
//! answered as its authenticated principal.
//!
//! rmcp's `StreamableHttpService` speaks the transport (sessions with `Mcp-Session-Id` and SSE
//! for 2025-06-18/2025-11-25 clients, stateless requests for 2026-07-28 ones); this module
//! puts in front of it what a server reachable over a network must check first, one room
//! each:
//! - `guard`: `Host` and `Origin` (DNS rebinding), the body's size and the stdio framing's
//!   checks (every refusal a JSON-RPC error), the requests in flight per caller;
//! - [`identity`]: who is calling (`--token-file`, OAuth), 401 and 403 with their
//!   `WWW-Authenticate` challenges, and the RFC 9728 metadata;
//! - `tls`: TLS from `--tls-cert` and `--tls-key`.
//!
//! A request goes: Host/Origin → route → credentials → a declared length over the limit
//! (413 at once) → a place among its caller's requests → body (POST; 408 when it stalls) →
//! scope of the tools it calls → rmcp, with the principal in the request's extensions, where
//! the MCP layer reads it (`FilewrightServer::call_tool`).
// A refusal is the HTTP response itself, returned at once on a rare path: boxing it would
// only add an allocation to each.
#![allow(clippy::result_large_err)]

mod guard;
pub mod identity;
mod reply;
mod tls;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use bytes::Bytes;
use http::{Method, Request, StatusCode, header};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

use self::guard::{Held, Limits, Names};
use self::identity::Identity;
use self::reply::Reply;
use super::FilewrightServer;
use crate::auth;

/// Where MCP is served.
pub const MCP_PATH: &str = "/mcp";

/// How long a request body may go without a byte arriving before it is answered 408 and its
/// place among the requests in flight is given back.
const BODY_IDLE: Duration = Duration::from_secs(30);

/// [`BODY_IDLE`], or `FILEWRIGHT_HTTP_BODY_TIMEOUT_MS` (milliseconds), which exists for tests
/// only, so that a test of a stalled body need not wait 30 s. Read once, when serving starts.
fn body_idle() -> Duration {
    std::env::var("FILEWRIGHT_HTTP_BODY_TIMEOUT_MS")
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .filter(|&ms| ms > 0)
        .map_or(BODY_IDLE, Duration::from_millis)
}

/// Everything `--http` and its flags decide.
pub struct Config {
    /// The address to bind; port 0 picks a free one (the URL printed says which).
    pub addr: SocketAddr,
    /// Public host names served besides the loopback ones (`--allowed-host`).
    pub allowed_hosts: Vec<String>,
    /// Browser origins allowed besides the loopback ones (`--allowed-origin`).
    pub allowed_origins: Vec<String>,
    /// Requests in flight per principal (`--max-concurrent`).
    pub max_concurrent: usize,
    /// The largest request body: the stdio framing's line limit for `--max-file-bytes`.
    pub body_limit: usize,
    /// PEM certificate chain and key (`--tls-cert`, `--tls-key`).
    pub tls: Option<(PathBuf, PathBuf)>,
    /// Who may call; None serves anyone who reaches the port (loopback only).
    pub identity: Identity,
}

/// Serves `server` over HTTP until SIGINT or SIGTERM. Refuses to start on a non-loopback
/// address without an auth mode, and says what to pass.
pub async fn serve(config: Config, server: FilewrightServer) -> anyhow::Result<()> {
    if !config.addr.ip().is_loopback() && !config.identity.authenticates() {
        anyhow::bail!(
            "refusing to serve {} without authentication: anyone who reaches it could read and change every file \
             under the root. Pass --token-file FILE (lines of TOKEN AGENT [PROFILE]) or --oauth-issuer URL with \
             --oauth-audience URL, or bind a loopback address such as 127.0.0.1:{}.",
            config.addr,
            config.addr.port()
        );
    }
    let names = Names::new(&config.allowed_hosts, &config.allowed_origins).map_err(anyhow::Error::msg)?;
    let tls = match &config.tls {
        Some((cert, key)) => Some(tls::acceptor(cert, key).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let listener =
        TcpListener::bind(config.addr).await.with_context(|| format!("cannot listen on {}", config.addr))?;
    let bound = listener.local_addr().context("cannot read the bound address")?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let stop = CancellationToken::new();
    // Host and Origin are checked in `guard` (loopback addresses of any form, and the flags),
    // the body's size too: rmcp's own checks are left off so that one rule decides each.
    let rmcp_config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(config.body_limit)
        .with_cancellation_token(stop.clone());
    // Every session and stateless request gets a clone: one session slot, one tool router.
    let sessions = Arc::new(LocalSessionManager::default());
    let mcp = StreamableHttpService::new(move || Ok(server.clone()), sessions.clone(), rmcp_config);
    let app = Arc::new(App {
        names,
        limits: Limits::new(config.max_concurrent.max(1)),
        body_limit: config.body_limit,
        body_idle: body_idle(),
        identity: config.identity,
        mcp,
        sessions,
    });
    eprintln!("filewright: serving MCP at {scheme}://{bound}{MCP_PATH}");
    tracing::info!(auth = app.identity.describe(), "serving MCP over HTTP at {scheme}://{bound}{MCP_PATH}");
    let mut stopping = std::pin::pin!(stop_signal());
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    tokio::spawn(connection(app.clone(), stream, peer, tls.clone()));
                }
                Err(e) => {
                    // Out of descriptors, most likely: wait for some to be given back.
                    tracing::warn!("accepting a connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            () = &mut stopping => break,
        }
    }
    tracing::info!("stopping: closing the sessions");
    stop.cancel();
    Ok(())
}

/// SIGINT or SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// Serves one connection (after its TLS handshake, with TLS): HTTP/1.1, requests in order.
async fn connection(app: Arc<App>, stream: TcpStream, peer: SocketAddr, tls: Option<TlsAcceptor>) {
    let _ = stream.set_nodelay(true);
    let service = hyper::service::service_fn(move |request| {
        let app = app.clone();
        async move { Ok::<_, Infallible>(app.handle(request, peer).await) }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    // A client that opens a connection and sends no complete header in this time is dropped.
    builder.timer(TokioTimer::new()).header_read_timeout(Duration::from_secs(30));
    let served = match tls {
        Some(acceptor) => {
            match tokio::time::timeout(Duration::from_secs(30), acceptor.accept(stream)).await {
                Ok(Ok(stream)) => builder.serve_connection(TokioIo::new(stream), service).await,
                Ok(Err(e)) => return tracing::debug!(%peer, "TLS handshake failed: {e}"),
                Err(_) => return tracing::debug!(%peer, "TLS handshake timed out"),
            }
        }
        None => builder.serve_connection(TokioIo::new(stream), service).await,
    };
    if let Err(e) = served {
        tracing::debug!(%peer, "connection ended: {e}");
    }
}

/// A request's `Content-Length`, when it has a readable one.
fn declared_length(headers: &http::HeaderMap) -> Option<u64> {
    headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok())
}

/// Whose places among the requests in flight a request takes ([`guard::Limits`]).
///
/// With credentials, the principal's: that is who the limit is for. Without them (loopback
/// only) there is no caller to count, only what the request shows: a request in a session
/// counts against its session, and one without (`initialize`, a stateless 2026-07-28
/// request) against its connection. Not against its address: on loopback every local
/// process has the same one, so a single process holding `--max-concurrent` requests open
/// would lock every other client out, `initialize` included. Keyed by connection, a caller
/// can still open many connections, but nothing it holds takes another's place, and what
/// each connection holds is bounded in time by the header and body timeouts (a request
/// whose body stalls is answered 408 and gives its place back).
fn place_key(
    principal: Option<&auth::Principal>,
    session: Option<&http::HeaderValue>,
    peer: SocketAddr,
) -> String {
    match (principal, session) {
        (Some(p), _) => format!("principal {}", p.agent),
        (None, Some(session)) => format!("session {}", String::from_utf8_lossy(session.as_bytes())),
        (None, None) => format!("connection {peer}"),
    }
}

/// The shared state of every request.
struct App {
    names: Names,
    limits: Arc<Limits>,
    body_limit: usize,
    /// See [`BODY_IDLE`].
    body_idle: Duration,
    identity: Identity,
    mcp: StreamableHttpService<FilewrightServer, LocalSessionManager>,
    /// rmcp's sessions, to know which are still open.
    sessions: Arc<LocalSessionManager>,
}

impl App {
    async fn handle(&self, request: Request<Incoming>, peer: SocketAddr) -> Reply {
        if let Err(refused) = self.names.check(request.uri(), request.headers()) {
            return refused;
        }
        match request.uri().path() {
            MCP_PATH => self.mcp(request, peer).await,
            path if identity::is_metadata_path(path) => self.identity.metadata(&request),
            path => reply::not_found(path),
        }
    }

    async fn mcp(&self, request: Request<Incoming>, peer: SocketAddr) -> Reply {
        let (mut parts, body) = request.into_parts();
        let principal = match self.identity.admit(&parts).await {
            Ok(principal) => principal,
            Err(refused) => return refused,
        };
        if let Err(refused) = self.identity.check_session(&parts, principal.as_ref()) {
            return refused;
        }
        // A length over the limit is known from the head: answered before a place is taken.
        if parts.method == Method::POST
            && let Some(declared) = declared_length(&parts.headers).filter(|&n| n > self.body_limit as u64)
        {
            return guard::declared_too_large(body, declared, self.body_limit).await;
        }
        // A session's GET stream stays open for as long as the session: it takes no place.
        let place = if parts.method == Method::GET {
            None
        } else {
            let key = place_key(principal.as_ref(), parts.headers.get("mcp-session-id"), peer);
            match self.limits.enter(&key) {
                Some(place) => Some(place),
                None => return self.limits.refusal(&key),
            }
        };
        let body = if parts.method == Method::POST {
            let message = match guard::read_message(body, self.body_limit, self.body_idle).await {
                Ok(message) => message,
                Err(refused) => return refused,
            };
            if let Some(refused) =
                self.identity.refuse_calls(principal.as_ref(), &message.calls, &message.id, &parts.headers)
            {
                return refused;
            }
            if message.batch {
                return guard::batch_refused();
            }
            Full::new(message.bytes)
        } else {
            Full::new(Bytes::new())
        };
        // What the session bookkeeping needs once the request has gone to rmcp.
        let (method, session) = (parts.method.clone(), parts.headers.get("mcp-session-id").cloned());
        if let Some(principal) = principal.clone() {
            parts.extensions.insert(principal);
        }
        // The credentials have done their work: nothing below (rmcp, its logs at any level, a
        // tool) gets to see or pass them on.
        parts.headers.remove(header::AUTHORIZATION);
        let mut response = self.mcp.handle(Request::from_parts(parts, body)).await;
        // rmcp answers a session's DELETE with 202 Accepted, which clients take for a failure
        // to end it (the Python SDK logs "Session termination failed: 202"): the session is
        // closed by then, so say so.
        if method == Method::DELETE && response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        self.identity.note_session(&method, session.as_ref(), principal.as_ref(), &response);
        // A new session: the owners of sessions rmcp has closed since (idle ones expire) go.
        if principal.is_some() && response.headers().contains_key("mcp-session-id") {
            let open = self.sessions.sessions.read().await;
            self.identity.keep_sessions(|id| open.contains_key(id));
        }
        match place {
            Some(place) => Held::response(response, place),
            None => response,
        }
    }
}
