//! Who is calling: the auth middleware in front of MCP. It turns a request's
//! `Authorization` header into a [`Principal`] through the auth core ([`crate::auth`]), and a
//! refusal into its HTTP answer: 401 with `WWW-Authenticate: Bearer resource_metadata=...`,
//! 403 `insufficient_scope` for a tool the principal's profile leaves out (nothing run). It
//! also serves the RFC 9728 protected-resource metadata that the challenge points to.
//!
//! No token reaches a log, an error or a result: the core's denials never hold one, and the
//! header's value is handed to the core and dropped.

use std::collections::HashMap;
use std::sync::Mutex;

use http::request::Parts;
use http::{HeaderMap, StatusCode, header};
use serde_json::Value;

use super::MCP_PATH;
use super::reply::{self, Reply};
use crate::auth::{self, Authenticator, Denial, Principal};

/// The RFC 9728 metadata path for the resource at the root, and the one for `/mcp` (RFC 9728
/// §3.1 inserts the well-known path before the resource's path; clients try both).
const METADATA: &str = "/.well-known/oauth-protected-resource";

/// Whether `path` is one of the RFC 9728 metadata paths served.
pub fn is_metadata_path(path: &str) -> bool {
    path == METADATA || path.strip_prefix(METADATA) == Some(MCP_PATH)
}

/// How callers are identified; no auth mode serves anyone who reaches the port (loopback only).
#[derive(Debug, Default)]
pub struct Identity {
    auth: Option<Authenticator>,
    /// `--oauth-audience`: the resource's canonical URL; without it the URL is built from the
    /// request's Host.
    resource: Option<String>,
    /// `--oauth-issuer`, for the metadata's `authorization_servers`.
    issuer: Option<String>,
    /// Whether the server itself speaks TLS (the scheme of URLs built from the Host).
    tls: bool,
    /// The agent that opened each session, by `Mcp-Session-Id`.
    owners: Mutex<HashMap<String, String>>,
}

/// The header naming a request's session.
const SESSION: &str = "mcp-session-id";

impl Identity {
    /// Callers identified by `auth`; `resource` and `issuer` are OAuth's audience and issuer.
    pub fn new(auth: Authenticator, resource: Option<String>, issuer: Option<String>) -> Identity {
        Identity { auth: Some(auth), resource, issuer, tls: false, owners: Mutex::default() }
    }

    /// Notes that the server speaks TLS.
    pub fn with_tls(mut self, tls: bool) -> Identity {
        self.tls = tls;
        self
    }

    /// Fetches an OAuth issuer's metadata and keys before the first request, so that a
    /// misconfiguration shows in the start's log; the server serves anyway (tokens are refused
    /// until a later fetch succeeds).
    pub async fn warm_up(&self) {
        if let Some(Authenticator::OAuth(verifier)) = &self.auth
            && let Err(e) = verifier.warm_up().await
        {
            tracing::warn!("the OAuth issuer's keys could not be fetched yet: {e}");
        }
    }

    /// Whether credentials are checked.
    pub fn authenticates(&self) -> bool {
        self.auth.is_some()
    }

    /// The auth mode, for the start's log line.
    pub fn describe(&self) -> &'static str {
        match &self.auth {
            None => "none (loopback only)",
            Some(Authenticator::Tokens(_)) => "token file",
            Some(Authenticator::OAuth(_)) => "OAuth access tokens",
        }
    }

    /// The principal behind a request (None without an auth mode), or the 401/403 answer.
    pub async fn admit(&self, parts: &Parts) -> Result<Option<Principal>, Reply> {
        let Some(auth) = &self.auth else { return Ok(None) };
        // Two headers could be read two ways (a proxy or a log taking one, this server the
        // other; a valid token followed by garbage): neither is believed.
        let count = parts.headers.get_all(header::AUTHORIZATION).iter().count();
        if count > 1 {
            let reason =
                format!("the request has {count} Authorization headers; send one Authorization header");
            return Err(self.refusal(&Denial::Malformed(reason), &parts.headers, Value::Null));
        }
        let authorization = match parts.headers.get(header::AUTHORIZATION) {
            None => None,
            Some(value) => match value.to_str() {
                Ok(value) => Some(value),
                Err(_) => {
                    return Err(self.refusal(
                        &Denial::Invalid("the Authorization header is not ASCII".into()),
                        &parts.headers,
                        Value::Null,
                    ));
                }
            },
        };
        match auth.authenticate(authorization).await {
            Ok(principal) => {
                tracing::debug!(agent = %principal.agent, via = %principal.via, "authenticated");
                Ok(Some(principal))
            }
            Err(denial) => Err(self.refusal(&denial, &parts.headers, Value::Null)),
        }
    }

    /// 403 `insufficient_scope` when `principal` may not call one of `calls` (a whole batch is
    /// refused for one), before anything runs; None when all are allowed.
    pub fn refuse_calls(
        &self,
        principal: Option<&Principal>,
        calls: &[String],
        id: &Value,
        headers: &HeaderMap,
    ) -> Option<Reply> {
        let principal = principal?;
        let tool = calls.iter().find(|tool| !principal.profile.allows(tool))?;
        let scope = auth::scope_for(tool);
        let denial = Denial::InsufficientScope {
            scope,
            reason: format!(
                "{tool} needs the {scope} scope; these credentials give the {} profile",
                principal.profile
            ),
        };
        tracing::info!(agent = %principal.agent, tool = %tool, "refused a call outside the caller's profile");
        Some(self.refusal(&denial, headers, id.clone()))
    }

    /// Refuses a request that names a session another principal opened, as rmcp answers an
    /// unknown one (404): a session id carries the session's state and its stream of
    /// messages, and knowing one must not let another caller into it.
    pub fn check_session(&self, parts: &Parts, principal: Option<&Principal>) -> Result<(), Reply> {
        let (Some(principal), Some(session)) = (principal, parts.headers.get(SESSION)) else { return Ok(()) };
        let session = String::from_utf8_lossy(session.as_bytes());
        let owners = self.owners.lock().unwrap_or_else(|p| p.into_inner());
        match owners.get(session.as_ref()) {
            Some(owner) if *owner != principal.agent => {
                tracing::warn!(agent = %principal.agent, "refused a request in a session another principal opened");
                Err(reply::error(
                    StatusCode::NOT_FOUND,
                    Value::Null,
                    reply::INVALID_REQUEST,
                    "Session not found",
                ))
            }
            _ => Ok(()),
        }
    }

    /// Notes who opened the session a response creates, and forgets a session that is gone
    /// (ended with DELETE, or unknown to rmcp).
    pub fn note_session(
        &self,
        method: &http::Method,
        session: Option<&http::HeaderValue>,
        principal: Option<&Principal>,
        response: &Reply,
    ) {
        let Some(principal) = principal else { return };
        let mut owners = self.owners.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(session) = response.headers().get(SESSION) {
            owners.insert(String::from_utf8_lossy(session.as_bytes()).into_owned(), principal.agent.clone());
        }
        let gone = *method == http::Method::DELETE || response.status() == StatusCode::NOT_FOUND;
        if gone && let Some(session) = session {
            owners.remove(String::from_utf8_lossy(session.as_bytes()).as_ref());
        }
    }

    /// Forgets the owners of the sessions for which `open` is false.
    pub fn keep_sessions(&self, open: impl Fn(&str) -> bool) {
        self.owners.lock().unwrap_or_else(|p| p.into_inner()).retain(|id, _| open(id));
    }

    /// The RFC 9728 document (404 without an auth mode: nothing to discover).
    pub fn metadata(&self, request: &http::Request<hyper::body::Incoming>) -> Reply {
        if self.auth.is_none() {
            return reply::not_found(request.uri().path());
        }
        let resource = self.resource_url(Some(request.headers()));
        let document = auth::protected_resource_metadata(&resource, self.issuer.as_deref());
        reply::json_body(StatusCode::OK, &document)
    }

    /// The answer to `denial`: its status, the challenge and a JSON-RPC error saying what to send.
    fn refusal(&self, denial: &Denial, headers: &HeaderMap, id: Value) -> Reply {
        let (status, code, next) = match denial {
            Denial::InsufficientScope { .. } => (
                StatusCode::FORBIDDEN,
                reply::FORBIDDEN,
                "nothing was run; use the tools these credentials list, or get credentials with that scope",
            ),
            Denial::Missing => (
                StatusCode::UNAUTHORIZED,
                reply::UNAUTHORIZED,
                "send Authorization: Bearer TOKEN with every request",
            ),
            Denial::Invalid(_) => (
                StatusCode::UNAUTHORIZED,
                reply::UNAUTHORIZED,
                "send a valid token in Authorization: Bearer TOKEN (a revoked or expired one needs replacing)",
            ),
            Denial::Malformed(_) => (
                StatusCode::UNAUTHORIZED,
                reply::UNAUTHORIZED,
                "nothing was run; send exactly one Authorization: Bearer TOKEN header",
            ),
        };
        if !matches!(denial, Denial::InsufficientScope { .. }) {
            tracing::info!("refused a request: {denial}");
        }
        let challenge = auth::challenge(denial, &self.metadata_url(Some(headers)));
        let answer = reply::error(status, id, code, &format!("{denial}: {next}."));
        reply::with_header(answer, header::WWW_AUTHENTICATE, &challenge)
    }

    /// The resource's URL: the audience, else this server's `/mcp` under the request's Host.
    fn resource_url(&self, headers: Option<&HeaderMap>) -> String {
        if let Some(resource) = &self.resource {
            return resource.clone();
        }
        let host =
            headers.and_then(|h| h.get(header::HOST)).and_then(|v| v.to_str().ok()).unwrap_or("localhost");
        // Behind a proxy that terminates TLS, the proxy says the client's scheme.
        let forwarded_https = headers
            .and_then(|h| h.get("x-forwarded-proto"))
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("https"));
        let scheme = if self.tls || forwarded_https { "https" } else { "http" };
        format!("{scheme}://{host}{MCP_PATH}")
    }

    /// Where the metadata of the resource is (RFC 9728 §3.1): the well-known path between the
    /// resource URL's authority and its path.
    fn metadata_url(&self, headers: Option<&HeaderMap>) -> String {
        let resource = self.resource_url(headers);
        match url::Url::parse(&resource) {
            Ok(url) => {
                let path = url.path().trim_end_matches('/');
                format!("{}{METADATA}{path}", url.origin().ascii_serialization())
            }
            Err(_) => resource,
        }
    }
}
