//! The verifier against a test-local issuer: key pairs made here, the issuer's metadata and key
//! set served on a loopback port by a small server in the test, tokens signed with
//! `jsonwebtoken::encode`. Nothing of the verifier is mocked.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use base64::Engine;
use jsonwebtoken::{EncodingKey, Header};
use ring::signature::KeyPair;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;

const AUDIENCE: &str = "https://files.example/mcp";

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// A signing key of the test issuer: the private half signs, the JWK is published.
#[derive(Clone)]
struct TestKey {
    kid: String,
    algorithm: Algorithm,
    encoding: EncodingKey,
    jwk: Value,
}

use jsonwebtoken::Algorithm;

fn ed25519(kid: &str) -> TestKey {
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 = ring::signature::Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
    let pair = ring::signature::Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
    TestKey {
        kid: kid.into(),
        algorithm: Algorithm::EdDSA,
        encoding: EncodingKey::from_ed_der(pkcs8.as_ref()),
        jwk: json!({"kty": "OKP", "crv": "Ed25519", "kid": kid, "use": "sig", "x": b64(pair.public_key().as_ref())}),
    }
}

fn p256(kid: &str) -> TestKey {
    let rng = ring::rand::SystemRandom::new();
    let alg = &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING;
    let pkcs8 = ring::signature::EcdsaKeyPair::generate_pkcs8(alg, &rng).unwrap();
    let pair = ring::signature::EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng).unwrap();
    let point = pair.public_key().as_ref(); // 0x04 || x || y
    TestKey {
        kid: kid.into(),
        algorithm: Algorithm::ES256,
        encoding: EncodingKey::from_ec_der(pkcs8.as_ref()),
        jwk: json!({"kty": "EC", "crv": "P-256", "kid": kid, "x": b64(&point[1..33]), "y": b64(&point[33..])}),
    }
}

/// An RSA key, made once per test run: 2048-bit generation is the slow part of these tests.
fn rsa(kid: &str) -> TestKey {
    use rsa::pkcs1::EncodeRsaPrivateKey;
    use rsa::traits::PublicKeyParts;
    static KEY: OnceLock<rsa::RsaPrivateKey> = OnceLock::new();
    let key = KEY.get_or_init(|| rsa::RsaPrivateKey::new(&mut rand::thread_rng(), 2048).unwrap());
    TestKey {
        kid: kid.into(),
        algorithm: Algorithm::RS256,
        encoding: EncodingKey::from_rsa_der(key.to_pkcs1_der().unwrap().as_bytes()),
        jwk: json!({"kty": "RSA", "kid": kid, "alg": "RS256", "n": b64(&key.n().to_bytes_be()), "e": b64(&key.e().to_bytes_be())}),
    }
}

/// What the test issuer serves, and how often each path was asked for.
#[derive(Default)]
struct Served {
    docs: HashMap<String, Value>,
    raw: HashMap<String, String>,
    hits: HashMap<String, usize>,
}

/// An authorization server on a loopback port: metadata at the RFC 8414 path, keys at /jwks.
struct Issuer {
    url: String,
    served: Arc<Mutex<Served>>,
}

impl Issuer {
    async fn start(keys: &[&TestKey]) -> Issuer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        Issuer::serve(listener, keys)
    }

    fn serve(listener: tokio::net::TcpListener, keys: &[&TestKey]) -> Issuer {
        let url = format!("http://{}", listener.local_addr().unwrap());
        let served = Arc::new(Mutex::new(Served::default()));
        let issuer = Issuer { url: url.clone(), served: served.clone() };
        issuer.set(
            "/.well-known/oauth-authorization-server",
            json!({"issuer": url, "jwks_uri": format!("{url}/jwks"), "token_endpoint": format!("{url}/token")}),
        );
        issuer.publish(keys);
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let served = served.clone();
                tokio::spawn(async move {
                    let mut request = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                        match socket.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => request.extend_from_slice(&buf[..n]),
                        }
                    }
                    let text = String::from_utf8_lossy(&request);
                    let path = text.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let body = {
                        let mut served = served.lock().unwrap();
                        *served.hits.entry(path.clone()).or_default() += 1;
                        served
                            .raw
                            .get(&path)
                            .cloned()
                            .or_else(|| served.docs.get(&path).map(Value::to_string))
                    };
                    let response = match body {
                        Some(body) => format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                            body.len()
                        ),
                        None => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .to_string(),
                    };
                    let _ = socket.write_all(response.as_bytes()).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        issuer
    }

    fn set(&self, path: &str, doc: Value) {
        self.served.lock().unwrap().docs.insert(path.into(), doc);
    }

    fn remove(&self, path: &str) {
        self.served.lock().unwrap().docs.remove(path);
    }

    /// Replaces the published key set (a rotation).
    fn publish(&self, keys: &[&TestKey]) {
        self.set("/jwks", json!({"keys": keys.iter().map(|k| k.jwk.clone()).collect::<Vec<_>>()}));
    }

    fn hits(&self, path: &str) -> usize {
        self.served.lock().unwrap().hits.get(path).copied().unwrap_or(0)
    }

    fn verifier(&self, server: Profile) -> Verifier {
        Verifier::new(&self.url, AUDIENCE.into(), "sub".into(), server).unwrap()
    }

    /// Claims a good token carries; a test changes one.
    fn claims(&self) -> Value {
        let now = jsonwebtoken::get_current_timestamp();
        json!({"iss": self.url, "aud": AUDIENCE, "sub": "alice", "exp": now + 300, "iat": now, "scope": "files:write"})
    }
}

fn sign(key: &TestKey, claims: &Value) -> String {
    let mut header = Header::new(key.algorithm);
    header.kid = Some(key.kid.clone());
    jsonwebtoken::encode(&header, claims, &key.encoding).unwrap()
}

/// `claims` with `changes` merged in (a null removes the claim).
fn with(claims: &Value, changes: Value) -> Value {
    let mut out = claims.clone();
    for (name, value) in changes.as_object().unwrap() {
        if value.is_null() {
            out.as_object_mut().unwrap().remove(name);
        } else {
            out[name] = value.clone();
        }
    }
    out
}

async fn refused(verifier: &Verifier, token: &str) -> String {
    match verifier.authenticate(token).await {
        Err(Denial::Invalid(reason)) => reason,
        other => panic!("expected an invalid token, got {other:?}"),
    }
}

#[tokio::test]
async fn tokens_signed_with_each_algorithm_name_their_principal_and_keys_are_fetched_once() {
    let (ed, ec, rs) = (ed25519("ed-1"), p256("ec-1"), rsa("rs-1"));
    let issuer = Issuer::start(&[&ed, &ec, &rs]).await;
    let verifier = issuer.verifier(Profile::Coding);
    for key in [&ed, &ec, &rs] {
        let principal = verifier.authenticate(&sign(key, &issuer.claims())).await;
        let want = Principal { agent: "alice".into(), profile: Profile::Coding, via: "oauth sub".into() };
        assert_eq!(principal, Ok(want), "{:?}", key.algorithm);
    }
    assert_eq!(issuer.hits("/.well-known/oauth-authorization-server"), 1);
    assert_eq!(issuer.hits("/jwks"), 1, "the key set is cached by kid");
    // Through the Authenticator: no header is Missing, not Invalid.
    let auth = crate::auth::Authenticator::OAuth(verifier);
    assert_eq!(auth.authenticate(None).await, Err(Denial::Missing));
    let header = format!("Bearer {}", sign(&ed, &issuer.claims()));
    assert_eq!(auth.authenticate(Some(&header)).await.unwrap().agent, "alice");
}

#[tokio::test]
async fn malformed_tokens_are_invalid() {
    let ed = ed25519("ed-1");
    let issuer = Issuer::start(&[&ed]).await;
    let verifier = issuer.verifier(Profile::Full);
    let good = sign(&ed, &issuer.claims());
    let [head, _, signature] = good.split('.').collect::<Vec<_>>()[..] else { unreachable!() };
    // A payload that is not JSON, or not base64url, under a signature that does verify.
    let signed = |payload: &str| {
        let message = format!("{head}.{payload}");
        let signature =
            jsonwebtoken::crypto::sign(message.as_bytes(), &ed.encoding, Algorithm::EdDSA).unwrap();
        format!("{message}.{signature}")
    };
    for (token, want) in [
        ("not-a-jwt".to_string(), "compact form"),
        (format!("{head}.{signature}"), "compact form"),
        (format!("***.{}.{signature}", b64(b"{}")), "not base64url"),
        (format!("{}.{}.{signature}", b64(b"{\"alg\":"), b64(b"{}")), "not a JSON object"),
        (signed(&b64(b"{not json")), "not well-formed"),
        (signed("%%%"), "not well-formed"),
        (format!("{head}.{}.{signature}", b64(b"{}")), "signature does not verify"),
    ] {
        let reason = refused(&verifier, &token).await;
        assert!(reason.contains(want), "{token}: {reason:?} should say {want:?}");
    }
}

#[tokio::test]
async fn expired_not_yet_valid_and_future_issued_tokens_are_invalid_beyond_the_leeway() {
    let ed = ed25519("ed-1");
    let issuer = Issuer::start(&[&ed]).await;
    let verifier = issuer.verifier(Profile::Full);
    let now = jsonwebtoken::get_current_timestamp();
    let token = |changes| sign(&ed, &with(&issuer.claims(), changes));
    assert!(refused(&verifier, &token(json!({"exp": now - 120}))).await.contains("expired"));
    assert!(refused(&verifier, &token(json!({"exp": null}))).await.contains("no exp claim"));
    assert!(refused(&verifier, &token(json!({"nbf": now + 120}))).await.contains("not valid yet"));
    assert!(refused(&verifier, &token(json!({"iat": now + 120}))).await.contains("issued in the future"));
    // Within the 60 s leeway, a clock a little off on either side is forgiven.
    for changes in [json!({"exp": now - 20}), json!({"nbf": now + 20, "iat": now + 20})] {
        assert!(verifier.authenticate(&token(changes)).await.is_ok());
    }
}

#[tokio::test]
async fn a_token_from_another_issuer_or_for_another_audience_is_invalid() {
    let ed = ed25519("ed-1");
    let issuer = Issuer::start(&[&ed]).await;
    let verifier = issuer.verifier(Profile::Full);
    let token = |changes| sign(&ed, &with(&issuer.claims(), changes));
    let other_issuer = refused(&verifier, &token(json!({"iss": "https://evil.example"}))).await;
    assert!(other_issuer.contains("not issued by"), "{other_issuer}");
    assert!(refused(&verifier, &token(json!({"iss": null}))).await.contains("no iss claim"));
    let other_audience = refused(&verifier, &token(json!({"aud": "https://other.example/mcp"}))).await;
    assert!(other_audience.contains("not meant for this server"), "{other_audience}");
    assert!(refused(&verifier, &token(json!({"aud": null}))).await.contains("no aud claim"));
    // RFC 8707: an array of audiences that includes this server is accepted.
    let many = token(json!({"aud": ["https://other.example", AUDIENCE]}));
    assert!(verifier.authenticate(&many).await.is_ok());
}

#[tokio::test]
async fn a_token_signed_by_another_key_under_a_published_kid_is_invalid() {
    let published = ed25519("ed-1");
    let issuer = Issuer::start(&[&published]).await;
    let verifier = issuer.verifier(Profile::Full);
    let forged = ed25519("ed-1");
    let reason = refused(&verifier, &sign(&forged, &issuer.claims())).await;
    assert!(reason.contains("signature does not verify"), "{reason}");
    // Bytes changed after signing break the signature too.
    let good = sign(&published, &issuer.claims());
    let (message, _) = good.rsplit_once('.').unwrap();
    let tampered = format!("{}.{}", message, b64(&[0u8; 64]));
    assert!(refused(&verifier, &tampered).await.contains("signature does not verify"));
}

#[tokio::test]
async fn an_unknown_kid_refetches_the_keys_once_then_is_invalid_without_hammering_the_issuer() {
    let ed = ed25519("ed-1");
    let issuer = Issuer::start(&[&ed]).await;
    let verifier = issuer.verifier(Profile::Full);
    assert!(verifier.authenticate(&sign(&ed, &issuer.claims())).await.is_ok());
    assert_eq!(issuer.hits("/jwks"), 1);
    let stranger = ed25519("made-up-1");
    let reason = refused(&verifier, &sign(&stranger, &issuer.claims())).await;
    assert!(reason.contains("\"made-up-1\" is not among the issuer's keys"), "{reason}");
    assert_eq!(issuer.hits("/jwks"), 2, "an unknown kid refetches the key set");
    for i in 2..10 {
        let stranger = ed25519(&format!("made-up-{i}"));
        refused(&verifier, &sign(&stranger, &issuer.claims())).await;
    }
    assert_eq!(issuer.hits("/jwks"), 2, "a flood of unknown kids fetched the key set again within 30 s");
    assert!(verifier.authenticate(&sign(&ed, &issuer.claims())).await.is_ok(), "known keys still work");
}

#[tokio::test]
async fn after_a_rotation_a_token_under_the_new_kid_is_accepted() {
    let old = p256("2024");
    let issuer = Issuer::start(&[&old]).await;
    let verifier = issuer.verifier(Profile::Full);
    assert!(verifier.authenticate(&sign(&old, &issuer.claims())).await.is_ok());
    let new = p256("2025");
    issuer.publish(&[&new]);
    assert!(verifier.authenticate(&sign(&new, &issuer.claims())).await.is_ok());
    assert_eq!(issuer.hits("/jwks"), 2);
    // The old kid is now unknown; its refetch waits out the 30 s, as if they had passed.
    verifier.refresh.lock().await.last_refetch = Some(Instant::now() - REFETCH_EVERY);
    let reason = refused(&verifier, &sign(&old, &issuer.claims())).await;
    assert!(reason.contains("not among the issuer's keys"), "a withdrawn key still verifies: {reason}");
}

#[tokio::test]
async fn a_key_the_issuer_withdrew_stops_working_once_the_set_is_old() {
    let (old, new) = (ed25519("old"), ed25519("new"));
    let issuer = Issuer::start(&[&old]).await;
    let verifier = issuer.verifier(Profile::Full);
    assert!(verifier.authenticate(&sign(&old, &issuer.claims())).await.is_ok());
    issuer.publish(&[&new]);
    assert!(verifier.authenticate(&sign(&old, &issuer.claims())).await.is_ok(), "the set is fresh: no fetch");
    assert_eq!(issuer.hits("/jwks"), 1);
    // Fifteen minutes later, as far as the verifier can tell.
    let aged = Instant::now() - MAX_AGE;
    let set = jwks::parse(&json!({"keys": [old.jwk]})).unwrap();
    *verifier.keys.write().unwrap() = Arc::new(KeySnapshot { set, fetched: Some(aged) });
    verifier.refresh.lock().await.last_try = Some(aged);
    let reason = refused(&verifier, &sign(&old, &issuer.claims())).await;
    assert!(reason.contains("not among the issuer's keys"), "{reason}");
    assert_eq!(issuer.hits("/jwks"), 2);
}

#[tokio::test]
async fn alg_none_and_alg_confusion_are_invalid() {
    let (ed, rs) = (ed25519("ed-1"), rsa("rs-1"));
    let issuer = Issuer::start(&[&ed, &rs]).await;
    let verifier = issuer.verifier(Profile::Full);
    let payload = b64(issuer.claims().to_string().as_bytes());
    for header in [json!({"alg": "none"}), json!({"alg": "none", "kid": "ed-1"}), json!({"alg": "NONE"})] {
        let token = format!("{}.{payload}.", b64(header.to_string().as_bytes()));
        assert!(refused(&verifier, &token).await.contains("accepts RS256, ES256 and EdDSA only"));
    }
    // HS256 with the RSA key's public parameters as the HMAC secret: the classic confusion.
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("rs-1".into());
    let secret = rs.jwk.to_string();
    let hs = jsonwebtoken::encode(&header, &issuer.claims(), &EncodingKey::from_secret(secret.as_bytes()))
        .unwrap();
    assert!(refused(&verifier, &hs).await.contains("alg \"HS256\""));
    // ES256 claimed for the Ed25519 key, and EdDSA for the RSA one.
    let ec = p256("ed-1");
    assert!(refused(&verifier, &sign(&ec, &issuer.claims())).await.contains("is for EdDSA"));
    let ed_as_rs = TestKey { kid: "rs-1".into(), ..ed.clone() };
    assert!(refused(&verifier, &sign(&ed_as_rs, &issuer.claims())).await.contains("is for RS256"));
}

#[tokio::test]
async fn scopes_map_to_profiles_and_no_scope_is_insufficient() {
    let ed = ed25519("ed-1");
    let issuer = Issuer::start(&[&ed]).await;
    let verifier = issuer.verifier(Profile::Full);
    let token = |changes| sign(&ed, &with(&issuer.claims(), changes));
    let profile = async |changes| verifier.authenticate(&token(changes)).await.map(|p| p.profile);
    assert_eq!(profile(json!({"scope": "files:write"})).await, Ok(Profile::Full));
    assert_eq!(profile(json!({"scope": "openid files:read"})).await, Ok(Profile::Readonly));
    assert_eq!(
        profile(json!({"scope": null, "scp": ["files:read", "files:write"]})).await,
        Ok(Profile::Full)
    );
    let none = profile(json!({"scope": "openid"})).await;
    assert!(matches!(none, Err(Denial::InsufficientScope { scope: "files:read", .. })), "{none:?}");
    let no_sub = verifier.authenticate(&token(json!({"sub": null}))).await;
    assert!(matches!(no_sub, Err(Denial::Invalid(reason)) if reason.contains("no sub claim")));
    let coding = issuer.verifier(Profile::Coding);
    assert_eq!(coding.authenticate(&token(json!({}))).await.unwrap().profile, Profile::Coding);
}

#[tokio::test]
async fn discovery_falls_back_to_openid_configuration_and_checks_the_named_issuer() {
    let ed = ed25519("ed-1");
    let issuer = Issuer::start(&[&ed]).await;
    let metadata = json!({"issuer": issuer.url, "jwks_uri": format!("{}/jwks", issuer.url)});
    issuer.remove("/.well-known/oauth-authorization-server");
    issuer.set("/.well-known/openid-configuration", metadata);
    let verifier = issuer.verifier(Profile::Full);
    assert!(verifier.authenticate(&sign(&ed, &issuer.claims())).await.is_ok());
    assert_eq!(issuer.hits("/.well-known/oauth-authorization-server"), 1);

    let liar = Issuer::start(&[&ed]).await;
    liar.set(
        "/.well-known/oauth-authorization-server",
        json!({"issuer": "https://auth.example", "jwks_uri": format!("{}/jwks", liar.url)}),
    );
    let reason = refused(&liar.verifier(Profile::Full), &sign(&ed, &liar.claims())).await;
    assert!(reason.contains("names the issuer \"https://auth.example\""), "{reason}");
}

#[tokio::test]
async fn an_issuer_with_a_path_is_discovered_at_the_inserted_well_known_path() {
    let ed = ed25519("ed-1");
    let host = Issuer::start(&[&ed]).await;
    let issuer = format!("{}/tenants/one", host.url);
    host.remove("/.well-known/oauth-authorization-server");
    host.set(
        "/.well-known/oauth-authorization-server/tenants/one",
        json!({"issuer": issuer, "jwks_uri": format!("{}/jwks", host.url)}),
    );
    let verifier = Verifier::new(&issuer, AUDIENCE.into(), "sub".into(), Profile::Full).unwrap();
    let claims = with(&host.claims(), json!({"iss": issuer}));
    assert!(verifier.authenticate(&sign(&ed, &claims)).await.is_ok());
}

#[tokio::test]
async fn the_server_starts_while_its_issuer_is_down_and_retries_with_backoff() {
    let ed = ed25519("ed-1");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let url = format!("http://{address}");
    let verifier = Verifier::new(&url, AUDIENCE.into(), "sub".into(), Profile::Full).unwrap();
    let now = jsonwebtoken::get_current_timestamp();
    let claims =
        json!({"iss": url, "aud": AUDIENCE, "sub": "alice", "exp": now + 300, "scope": "files:read"});
    let token = sign(&ed, &claims);
    assert!(verifier.warm_up().await.is_err());
    let reason = refused(&verifier, &token).await;
    assert!(reason.contains("cannot get the issuer's keys yet"), "{reason}");
    let issuer = Issuer::serve(tokio::net::TcpListener::bind(address).await.unwrap(), &[&ed]);
    let reason = refused(&verifier, &token).await;
    assert!(reason.contains("next try within"), "{reason}");
    assert_eq!(issuer.hits("/jwks"), 0, "a failed fetch was retried at once");
    // Once the backoff has passed, the next token fetches the keys.
    verifier.refresh.lock().await.last_try = Some(Instant::now() - BACKOFF_MAX);
    assert_eq!(verifier.authenticate(&token).await.unwrap().profile, Profile::Readonly);
}

#[tokio::test]
async fn fetches_refuse_oversized_and_non_200_answers() {
    let issuer = Issuer::start(&[]).await;
    let big = format!("{{\"keys\": [], \"pad\": \"{}\"}}", "x".repeat(fetch::MAX_BYTES));
    issuer.served.lock().unwrap().raw.insert("/big".into(), big);
    let url = |path: &str| Url::parse(&format!("{}{path}", issuer.url)).unwrap();
    assert!(fetch::get_json(&url("/big")).await.unwrap_err().contains("larger than"));
    assert!(fetch::get_json(&url("/missing")).await.unwrap_err().contains("404"));
    assert!(fetch::get_json(&url("/jwks")).await.is_ok());
    let remote = Url::parse("http://auth.example/jwks").unwrap();
    assert!(fetch::get_json(&remote).await.unwrap_err().contains("plain http"));
}

#[test]
fn plain_http_is_refused_for_an_issuer_that_is_not_loopback() {
    let new = |issuer: &str| Verifier::new(issuer, AUDIENCE.into(), "sub".into(), Profile::Full);
    let error = new("http://auth.example").unwrap_err();
    assert!(error.contains("plain http") && error.contains("use https"), "{error}");
    assert!(new("http://10.0.0.1:8080").is_err());
    assert!(new("ftp://auth.example").is_err());
    assert!(new("https://auth.example/?tenant=1").unwrap_err().contains("query or fragment"));
    for ok in [
        "https://auth.example",
        "http://127.0.0.1:9000",
        "http://127.8.9.1",
        "http://[::1]:9000",
        "http://localhost:1",
    ] {
        assert!(new(ok).is_ok(), "{ok}");
    }
    let empty = Verifier::new("https://a.example", " ".into(), "sub".into(), Profile::Full);
    assert!(empty.unwrap_err().contains("audience"));
}

#[tokio::test]
async fn iss_and_the_metadata_issuer_are_compared_exactly_as_configured() {
    let ed = ed25519("ed-1");
    let issuer = Issuer::start(&[&ed]).await;
    assert!(!issuer.url.ends_with('/'));
    let verifier = issuer.verifier(Profile::Full);
    // A trailing slash is another issuer identifier (RFC 8414 §2: compared as strings).
    let slashed = with(&issuer.claims(), json!({"iss": format!("{}/", issuer.url)}));
    assert!(refused(&verifier, &sign(&ed, &slashed)).await.contains("not issued by"));
    assert!(verifier.authenticate(&sign(&ed, &issuer.claims())).await.is_ok());

    // Configured with the slash, as the issuer spells itself: only that spelling passes, in
    // the token and in the metadata.
    let spelled = Issuer::start(&[&ed]).await;
    let with_slash = format!("{}/", spelled.url);
    spelled.set(
        "/.well-known/oauth-authorization-server",
        json!({"issuer": with_slash, "jwks_uri": format!("{}/jwks", spelled.url)}),
    );
    let verifier = Verifier::new(&with_slash, AUDIENCE.into(), "sub".into(), Profile::Full).unwrap();
    assert_eq!(verifier.issuer(), with_slash);
    let good = with(&spelled.claims(), json!({"iss": with_slash}));
    assert!(verifier.authenticate(&sign(&ed, &good)).await.is_ok());
    assert!(refused(&verifier, &sign(&ed, &spelled.claims())).await.contains("not issued by"));

    // Metadata that names the issuer with a slash it was not configured with is refused.
    let other = Issuer::start(&[&ed]).await;
    other.set(
        "/.well-known/oauth-authorization-server",
        json!({"issuer": format!("{}/", other.url), "jwks_uri": format!("{}/jwks", other.url)}),
    );
    let reason = refused(&other.verifier(Profile::Full), &sign(&ed, &other.claims())).await;
    assert!(reason.contains("names the issuer"), "{reason}");
}
