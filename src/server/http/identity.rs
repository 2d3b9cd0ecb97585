//! Who is calling (placeholder until the auth core lands): no credentials are checked.

use hyper::body::Incoming;
use serde_json::Value;

use super::reply::{self, Reply};

/// A caller (placeholder).
#[derive(Debug, Clone)]
pub struct Principal {
    /// Its agent name.
    pub agent: String,
    /// Its tools.
    pub profile: crate::profile::Profile,
}

/// How callers are identified.
#[derive(Debug, Default)]
pub struct Identity;

/// Whether `path` is one of the RFC 9728 metadata paths.
pub fn is_metadata_path(path: &str) -> bool {
    path == "/.well-known/oauth-protected-resource" || path == "/.well-known/oauth-protected-resource/mcp"
}

impl Identity {
    /// Whether credentials are checked.
    pub fn authenticates(&self) -> bool {
        false
    }

    /// For the log.
    pub fn describe(&self) -> &'static str {
        "none (loopback only)"
    }

    /// The principal of a request.
    pub async fn admit(&self, _parts: &http::request::Parts) -> Result<Option<Principal>, Reply> {
        Ok(None)
    }

    /// A refusal when `principal` may not call one of `calls`.
    pub fn refuse_calls(&self, _principal: Option<&Principal>, _calls: &[String], _id: &Value) -> Option<Reply> {
        None
    }

    /// The RFC 9728 document.
    pub fn metadata(&self, request: &http::Request<Incoming>) -> Reply {
        reply::not_found(request.uri().path())
    }
}
