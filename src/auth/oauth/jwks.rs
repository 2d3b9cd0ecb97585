//! The issuer's signing keys (its JWK Set, RFC 7517), each tied to the one algorithm it may
//! verify.

use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey};
use url::Url;

use super::fetch;

/// One public key and the only algorithm a token signed with it may name. Tying the two is
/// what defeats algorithm confusion: a token cannot ask for its RSA key to be used as an HMAC
/// secret, or an Ed25519 key for ECDSA.
#[derive(Clone)]
pub(crate) struct Key {
    pub(crate) kid: Option<String>,
    pub(crate) algorithm: Algorithm,
    pub(crate) decoding: DecodingKey,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key")
            .field("kid", &self.kid)
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

/// The usable keys of one fetch of the set.
#[derive(Debug, Default)]
pub(crate) struct KeySet {
    keys: Vec<Key>,
}

impl KeySet {
    /// The key a token's `kid` names. A token without a `kid` may use the set's key only when
    /// the set has exactly one: with several, trying each would let one token probe them all.
    pub(crate) fn find(&self, kid: Option<&str>) -> Option<&Key> {
        match kid {
            Some(kid) => self.keys.iter().find(|key| key.kid.as_deref() == Some(kid)),
            None if self.keys.len() == 1 => self.keys.first(),
            None => None,
        }
    }

    /// How many usable keys the set has.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }
}

/// Fetches and parses the key set at `uri`.
pub(crate) async fn fetch(uri: &Url) -> Result<KeySet, String> {
    let doc = fetch::get_json(uri).await?;
    parse(&doc).map_err(|e| format!("the key set at {uri} {e}"))
}

/// The usable keys of a JWK Set document. A key this server cannot or must not use is
/// skipped, not fatal: issuers publish encryption keys and other algorithms beside their
/// signing keys. A set with no usable key at all is an error, since every token would fail.
pub(crate) fn parse(doc: &serde_json::Value) -> Result<KeySet, String> {
    let list = doc.get("keys").and_then(|v| v.as_array()).ok_or("has no \"keys\" array")?;
    let mut keys: Vec<Key> = Vec::new();
    let mut ambiguous: Vec<Option<String>> = Vec::new();
    for jwk in list {
        match key(jwk) {
            Ok(key) if ambiguous.contains(&key.kid) => {}
            Ok(key) if keys.iter().any(|k| k.kid == key.kid) => {
                // Two keys under one kid: which one a token means is ambiguous, so neither.
                tracing::warn!(kid = ?key.kid, "the issuer's key set has two keys with one kid; both are ignored");
                keys.retain(|k| k.kid != key.kid);
                ambiguous.push(key.kid);
            }
            Ok(key) => keys.push(key),
            Err(reason) => {
                tracing::debug!(kid = ?jwk.get("kid"), "a key of the issuer's set is skipped: {reason}")
            }
        }
    }
    if keys.is_empty() {
        return Err("has no key this server can use: it needs RSA (RS256), P-256 (ES256) or Ed25519 (EdDSA) signing keys".into());
    }
    Ok(KeySet { keys })
}

/// One JWK as a verification key, or why it is skipped.
fn key(jwk: &serde_json::Value) -> Result<Key, String> {
    let field = |name: &str| jwk.get(name).and_then(|v| v.as_str());
    if field("use").is_some_and(|u| u != "sig") {
        return Err("it is not a signing key (use is not \"sig\")".into());
    }
    let algorithm = match (field("kty"), field("crv")) {
        (Some("RSA"), _) => Algorithm::RS256,
        (Some("EC"), Some("P-256")) => Algorithm::ES256,
        (Some("OKP"), Some("Ed25519")) => Algorithm::EdDSA,
        // Symmetric ("oct") keys are never trusted: a public set that holds one is publishing
        // a secret, and anyone could sign with it.
        (kty, crv) => return Err(format!("unsupported key type {kty:?} (curve {crv:?})")),
    };
    let name = match algorithm {
        Algorithm::RS256 => "RS256",
        Algorithm::ES256 => "ES256",
        _ => "EdDSA",
    };
    if let Some(declared) = field("alg")
        && declared != name
    {
        return Err(format!("it is declared for {declared}, which this server does not verify with it"));
    }
    let parsed: Jwk =
        serde_json::from_value(jwk.clone()).map_err(|e| format!("it is not a valid JWK: {e}"))?;
    let decoding =
        DecodingKey::from_jwk(&parsed).map_err(|e| format!("its parameters are not a usable key: {e}"))?;
    Ok(Key { kid: field("kid").map(str::to_string), algorithm, decoding })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ED_X: &str = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";

    #[test]
    fn only_signing_keys_of_the_three_algorithms_are_kept_and_bound_to_their_algorithm() {
        let set = parse(&json!({"keys": [
            {"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"},
            {"kty": "OKP", "crv": "X25519", "kid": "x", "x": ED_X},
            {"kty": "OKP", "crv": "Ed25519", "kid": "enc", "use": "enc", "x": ED_X},
            {"kty": "OKP", "crv": "Ed25519", "kid": "ps", "alg": "ES256", "x": ED_X},
            {"kty": "OKP", "crv": "Ed25519", "kid": "ed", "alg": "EdDSA", "use": "sig", "x": ED_X},
        ]}))
        .unwrap();
        assert_eq!(set.len(), 1);
        let key = set.find(Some("ed")).unwrap();
        assert_eq!(key.algorithm, Algorithm::EdDSA);
        assert!(set.find(Some("hmac")).is_none());
        assert_eq!(
            set.find(None).unwrap().kid.as_deref(),
            Some("ed"),
            "a lone key serves a token without kid"
        );
    }

    #[test]
    fn a_set_without_usable_keys_or_with_a_duplicated_kid_is_refused() {
        assert!(parse(&json!({"keys": [{"kty": "oct", "k": "c2VjcmV0"}]})).unwrap_err().contains("no key"));
        assert!(parse(&json!({})).unwrap_err().contains("no \"keys\""));
        let twice = json!({"kty": "OKP", "crv": "Ed25519", "kid": "same", "x": ED_X});
        let other = json!({"kty": "OKP", "crv": "Ed25519", "kid": "other", "x": ED_X});
        let set = parse(&json!({"keys": [twice, twice, twice, other]})).unwrap();
        assert!(set.find(Some("same")).is_none());
        assert_eq!(set.len(), 1);
    }
}
