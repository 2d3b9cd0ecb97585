//! The checks of one access token: its header before any key is chosen, then signature and
//! claims with `jsonwebtoken`, then who it names and what its scopes allow.

use base64::Engine;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};

use super::jwks::Key;
use crate::auth::{Denial, Principal};
use crate::profile::Profile;

/// Clock skew allowed between this server and the issuer, for `exp`, `nbf` and `iat`.
pub(crate) const LEEWAY_SECONDS: u64 = 60;

/// What a token's header asks for: the algorithm and the key id.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) algorithm: Algorithm,
    pub(crate) kid: Option<String>,
}

/// Reads the header of a compact JWS and refuses, before any key is looked up, what must never
/// be verified: not three parts, `alg` other than RS256, ES256 or EdDSA (`none`, HMAC, which a
/// public key would otherwise serve as the secret of), or a `crit` extension this server does
/// not implement (RFC 7515 §4.1.11 requires refusing those).
pub(crate) fn header(token: &str) -> Result<Header, String> {
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() != 3 {
        return Err(format!(
            "the token is not a JWT in compact form (three base64url parts joined by dots): it has {} part{}",
            parts.len(),
            if parts.len() == 1 { "" } else { "s" }
        ));
    }
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(parts[0])
        .map_err(|_| "the token's header is not base64url".to_string())?;
    let header: Map<String, Value> =
        serde_json::from_slice(&bytes).map_err(|_| "the token's header is not a JSON object".to_string())?;
    let algorithm = match header.get("alg").and_then(Value::as_str) {
        Some("RS256") => Algorithm::RS256,
        Some("ES256") => Algorithm::ES256,
        Some("EdDSA") => Algorithm::EdDSA,
        Some(other) => {
            return Err(format!(
                "the token is signed with alg {:?}; this server accepts RS256, ES256 and EdDSA only",
                shorten(other)
            ));
        }
        None => return Err("the token's header has no alg".into()),
    };
    if header.contains_key("crit") {
        return Err(
            "the token's header has critical extensions (crit), which this server does not implement".into(),
        );
    }
    let kid = match header.get("kid") {
        None => None,
        Some(Value::String(kid)) => Some(kid.clone()),
        Some(_) => return Err("the token's kid is not a string".into()),
    };
    Ok(Header { algorithm, kid })
}

/// What the claims must say: the issuer (as configured) and this server's audience.
pub(crate) struct Expect<'a> {
    pub(crate) issuer: &'a str,
    pub(crate) audience: &'a str,
}

/// The claims of a token whose signature `key` verifies, with `iss`, `aud` (string or array,
/// RFC 8707), `exp` (required), `nbf` and `iat` checked. `header.algorithm` must be the one
/// the key is bound to: that check is here, not left to the library, so that no token can
/// choose how its key is used.
pub(crate) fn claims(
    token: &str,
    header: &Header,
    key: &Key,
    expect: &Expect,
) -> Result<Map<String, Value>, String> {
    if header.algorithm != key.algorithm {
        return Err(format!(
            "the token names alg {:?} but its key {} is for {:?}",
            header.algorithm,
            kid_text(header.kid.as_deref()),
            key.algorithm
        ));
    }
    let mut validation = Validation::new(key.algorithm);
    validation.leeway = LEEWAY_SECONDS;
    validation.validate_exp = true;
    validation.validate_nbf = true;
    validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    // jsonwebtoken compares `iss` with these strings as they are, which is what RFC 9068 §4
    // asks: `https://auth.example/` is another issuer than `https://auth.example`.
    validation.set_issuer(&[expect.issuer]);
    validation.set_audience(&[expect.audience]);
    let data =
        jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation).map_err(|e| match e
            .kind()
        {
            ErrorKind::InvalidSignature => {
                format!(
                    "the signature does not verify with the issuer's key {}",
                    kid_text(header.kid.as_deref())
                )
            }
            ErrorKind::ExpiredSignature => "the token has expired (exp is past)".into(),
            ErrorKind::ImmatureSignature => "the token is not valid yet (nbf is in the future)".into(),
            ErrorKind::InvalidIssuer => format!(
                "the token was not issued by {} (iss is compared exactly, a trailing slash included)",
                expect.issuer
            ),
            ErrorKind::InvalidAudience => {
                format!("the token is not meant for this server: its aud does not name {}", expect.audience)
            }
            ErrorKind::MissingRequiredClaim(claim) => {
                format!("the token has no {claim} claim (or it is not valid)")
            }
            ErrorKind::Base64(_) | ErrorKind::Json(_) | ErrorKind::Utf8(_) => {
                "the token's claims or signature are not well-formed base64url JSON".into()
            }
            other => format!("the token is invalid ({other:?})"),
        })?;
    let claims = data.claims;
    if let Some(iat) = claims.get("iat") {
        let Some(iat) = iat.as_f64() else { return Err("the token's iat is not a number".into()) };
        if iat > (jsonwebtoken::get_current_timestamp() + LEEWAY_SECONDS) as f64 {
            return Err("the token claims to be issued in the future (iat)".into());
        }
    }
    Ok(claims)
}

/// The principal verified claims name: the agent is the `agent_claim` claim (a non-empty
/// string), the profile follows the scopes. `files:write` gives the server's profile (coding
/// or full), `files:read` alone gives readonly, and neither is a 403 that tells the client
/// which scope to ask for.
pub(crate) fn principal(
    claims: &Map<String, Value>,
    agent_claim: &str,
    server_profile: Profile,
) -> Result<Principal, Denial> {
    let agent = match claims.get(agent_claim) {
        Some(Value::String(agent)) if !agent.trim().is_empty() => agent.trim().to_string(),
        _ => {
            return Err(Denial::Invalid(format!(
                "the token has no {agent_claim} claim with a non-empty string, which names the agent"
            )));
        }
    };
    let scopes = scopes(claims);
    let profile = if scopes.iter().any(|s| s == "files:write") {
        server_profile
    } else if scopes.iter().any(|s| s == "files:read") {
        Profile::Readonly.within(server_profile)
    } else {
        return Err(Denial::InsufficientScope {
            scope: "files:read",
            reason: "the token grants neither files:read nor files:write".into(),
        });
    };
    Ok(Principal { agent, profile, via: format!("oauth {agent_claim}") })
}

/// The scopes a token grants: `scope` (a space-separated string, RFC 8693 and RFC 9068) or
/// `scp` (an array, or a string, as some issuers write it).
fn scopes(claims: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for name in ["scope", "scp"] {
        match claims.get(name) {
            Some(Value::String(list)) => out.extend(list.split_whitespace().map(str::to_string)),
            Some(Value::Array(list)) => out.extend(list.iter().filter_map(Value::as_str).map(str::to_string)),
            _ => {}
        }
    }
    out
}

/// A key id for a message: attacker-chosen text, so shortened.
pub(crate) fn kid_text(kid: Option<&str>) -> String {
    kid.map_or("(no kid)".to_string(), |kid| format!("{:?}", shorten(kid)))
}

/// At most 64 characters of a text the token chose, for messages.
fn shorten(text: &str) -> String {
    text.chars().take(64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn b64(value: &Value) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string())
    }

    #[test]
    fn headers_that_must_never_be_verified_are_refused_before_any_key_is_chosen() {
        let body = b64(&json!({"sub": "a"}));
        let with = |header: Value| format!("{}.{body}.c2ln", b64(&header));
        assert_eq!(
            header(&with(json!({"alg": "EdDSA", "kid": "k"}))),
            Ok(Header { algorithm: Algorithm::EdDSA, kid: Some("k".into()) })
        );
        for (token, want) in [
            ("a.b".to_string(), "it has 2 parts"),
            ("a.b.c.d".to_string(), "it has 4 parts"),
            (format!("@@@.{body}.c2ln"), "not base64url"),
            (
                format!("{}.{body}.c2ln", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode("[1")),
                "not a JSON object",
            ),
            (with(json!({"alg": "none"})), "alg \"none\""),
            (with(json!({"alg": "HS256"})), "alg \"HS256\""),
            (with(json!({"alg": "PS256"})), "accepts RS256, ES256 and EdDSA only"),
            (with(json!({"typ": "JWT"})), "no alg"),
            (with(json!({"alg": "ES256", "crit": ["exp"]})), "crit"),
            (with(json!({"alg": "ES256", "kid": 7})), "kid is not a string"),
        ] {
            let error = header(&token).unwrap_err();
            assert!(error.contains(want), "{error:?} should say {want:?}");
        }
    }

    #[test]
    fn scopes_decide_the_profile_within_the_servers() {
        let with = |extra: Value| {
            let mut claims = json!({"sub": "alice", "agent": "bob"});
            claims.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            claims.as_object().unwrap().clone()
        };
        let profile = |extra: Value, server| principal(&with(extra), "sub", server).map(|p| p.profile);
        assert_eq!(profile(json!({"scope": "openid files:write"}), Profile::Coding), Ok(Profile::Coding));
        assert_eq!(profile(json!({"scope": "files:read files:write"}), Profile::Full), Ok(Profile::Full));
        assert_eq!(profile(json!({"scp": ["files:read"]}), Profile::Full), Ok(Profile::Readonly));
        assert_eq!(profile(json!({"scp": "files:write"}), Profile::Readonly), Ok(Profile::Readonly));
        assert!(matches!(
            profile(json!({"scope": "openid files:admin"}), Profile::Full),
            Err(Denial::InsufficientScope { scope: "files:read", .. })
        ));
        let named = principal(&with(json!({"scope": "files:read"})), "agent", Profile::Full).unwrap();
        assert_eq!((named.agent.as_str(), named.via.as_str()), ("bob", "oauth agent"));
        let missing = principal(&with(json!({"scope": "files:read"})), "email", Profile::Full);
        assert!(matches!(missing, Err(Denial::Invalid(reason)) if reason.contains("no email claim")));
        let empty = principal(&with(json!({"scope": "files:read", "sub": " "})), "sub", Profile::Full);
        assert!(matches!(empty, Err(Denial::Invalid(_))));
    }
}
