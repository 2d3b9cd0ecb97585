//! Who is calling, over HTTP: the principal behind a request's `Authorization: Bearer` token,
//! from a token file (`--token-file`) or an OAuth 2.1 authorization server's access tokens
//! (`--oauth-issuer`). Plain Rust: the HTTP layer hands in the raw header value and turns a
//! [`Denial`] into its answer with [`challenge`], so that what is checked, and how it is
//! refused, is decided here once and tested without a server.
//!
//! Over stdio none of this runs: the process that spawned the server is its only caller.

pub mod oauth;
pub mod tokens;

use crate::profile::Profile;

/// An authenticated caller: the agent its writes, claims and journal rows are recorded under,
/// and the tools it may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The agent name: a token file's AGENT column, or the OAuth token's agent claim.
    pub agent: String,
    /// The tools this caller may use, never more than the server's `--profile`.
    pub profile: Profile,
    /// For logs only: where the identity came from ("token file line 3", "oauth sub"); never
    /// a secret.
    pub via: String,
}

/// Why a request is refused. Each maps to one HTTP answer; no text here ever holds the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denial {
    /// 401 without an error code: the request has no `Authorization: Bearer` header (RFC 6750
    /// §3.1 says a server should not name an error when no credentials were sent).
    Missing,
    /// 401 `error="invalid_token"`, with the reason (expired, wrong audience, unknown key...).
    Invalid(String),
    /// 401 `error="invalid_request"`: the request carries its credentials in a way that can be
    /// read more than one way (two `Authorization` headers), with the reason. Nothing is
    /// believed: a proxy, a log and this server could each take a different one.
    Malformed(String),
    /// 403 `error="insufficient_scope"`: the token is good but does not carry `scope`.
    InsufficientScope {
        /// The scope the client must ask for.
        scope: &'static str,
        /// Why, for `error_description`.
        reason: String,
    },
}

impl std::fmt::Display for Denial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Denial::Missing => f.write_str("no Authorization: Bearer header"),
            Denial::Invalid(reason) => write!(f, "invalid token: {reason}"),
            Denial::Malformed(reason) => write!(f, "invalid request: {reason}"),
            Denial::InsufficientScope { scope, reason } => {
                write!(f, "insufficient scope ({scope} needed): {reason}")
            }
        }
    }
}

/// How the server decides who calls: one mode per server.
// One value per server, made once at start: the size of its larger variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Authenticator {
    /// `--token-file`: static bearer tokens, each naming an agent and a profile.
    Tokens(tokens::TokenFile),
    /// `--oauth-issuer`: JWT access tokens signed by an authorization server.
    OAuth(oauth::Verifier),
}

impl Authenticator {
    /// The principal behind a request. `authorization` is the raw `Authorization` header
    /// value, if any.
    pub async fn authenticate(&self, authorization: Option<&str>) -> Result<Principal, Denial> {
        let token = bearer(authorization)?;
        match self {
            Authenticator::Tokens(file) => file.authenticate(token),
            Authenticator::OAuth(verifier) => verifier.authenticate(token).await,
        }
    }
}

/// The token in an `Authorization: Bearer TOKEN` value (RFC 6750 §2.1; the scheme name is
/// case-insensitive, RFC 9110 §11.1). Another scheme (`Basic`) counts as no bearer token at
/// all, so the answer is the plain challenge that tells the client what to send.
fn bearer(authorization: Option<&str>) -> Result<&str, Denial> {
    let Some(value) = authorization else { return Err(Denial::Missing) };
    let value = value.trim();
    let (scheme, rest) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Denial::Missing);
    }
    let token = rest.trim();
    if token.is_empty() {
        return Err(Denial::Invalid("the Authorization header has the Bearer scheme but no token".into()));
    }
    if token.contains(char::is_whitespace) {
        return Err(Denial::Invalid(
            "the bearer token contains whitespace; send `Bearer TOKEN` with one token".into(),
        ));
    }
    Ok(token)
}

/// The scope a client must ask for to use `tool`: "files:read" for the tools the readonly
/// profile allows, else "files:write".
pub fn scope_for(tool: &str) -> &'static str {
    if Profile::Readonly.allows(tool) { "files:read" } else { "files:write" }
}

/// The `WWW-Authenticate` value for a refusal: `Bearer resource_metadata="URL"` (RFC 9728
/// §5.1, so a client can find the authorization server), plus `error` and
/// `error_description` for an invalid token, or `error="insufficient_scope"` and the `scope`
/// to ask for on a 403 (RFC 6750 §3).
pub fn challenge(denial: &Denial, resource_metadata_url: &str) -> String {
    let mut out = format!("Bearer resource_metadata=\"{}\"", quoted(resource_metadata_url));
    match denial {
        Denial::Missing => {}
        Denial::Invalid(reason) => {
            out.push_str(&format!(", error=\"invalid_token\", error_description=\"{}\"", quoted(reason)));
        }
        Denial::Malformed(reason) => {
            out.push_str(&format!(", error=\"invalid_request\", error_description=\"{}\"", quoted(reason)));
        }
        Denial::InsufficientScope { scope, reason } => {
            out.push_str(&format!(
                ", error=\"insufficient_scope\", scope=\"{}\", error_description=\"{}\"",
                quoted(scope),
                quoted(reason)
            ));
        }
    }
    out
}

/// A text made safe inside a quoted header parameter. RFC 6750 §3 allows only printable ASCII
/// without `"` and `\` in `error_description`, which is stricter than a quoted-string's
/// escapes: so rather than escape those two, they become `'` and `/`, and anything outside
/// printable ASCII (a newline would split the header) becomes `?`. Every client parser
/// accepts the result, and none has to unescape.
fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' => '\'',
            '\\' => '/',
            ' '..='~' => c,
            _ => '?',
        })
        .collect()
}

/// The RFC 9728 protected-resource metadata served at `/.well-known/oauth-protected-resource`:
/// which resource this is, which authorization server issues its tokens (when OAuth is on),
/// the scopes it understands and that tokens go in the `Authorization` header only.
pub fn protected_resource_metadata(resource: &str, issuer: Option<&str>) -> serde_json::Value {
    let mut doc = serde_json::json!({
        "resource": resource,
        "scopes_supported": ["files:read", "files:write"],
        "bearer_methods_supported": ["header"],
    });
    if let Some(issuer) = issuer {
        doc["authorization_servers"] = serde_json::json!([issuer]);
    }
    doc
}

#[cfg(test)]
mod tests;
