//! `--http` with `--oauth-issuer`: access tokens from a test-local authorization server (a key
//! pair made here, its metadata and JWKS served on loopback by the test), end to end through
//! the real binary. The token variants are the auth core's unit tests; here, the few that show
//! the wiring: valid, expired, wrong audience, and a read scope that cannot write.

use std::convert::Infallible;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::rt::TokioIo;
use ring::signature::{Ed25519KeyPair, KeyPair};
use serde_json::{Value, json};

use crate::http_util::{HttpServer, INITIALIZE, call_body, get, post};
use crate::util::Root;

/// The audience the server is started with: its canonical URL, which need not be where the
/// test reaches it.
const AUDIENCE: &str = "https://files.example.test/mcp";

/// A test-local authorization server: RFC 8414 metadata and a JWKS with one Ed25519 key.
struct Issuer {
    url: String,
    key: Ed25519KeyPair,
    task: tokio::task::JoinHandle<()>,
}

impl Issuer {
    async fn start() -> Issuer {
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
        let key = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let jwk = json!({"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": "k1",
                         "x": URL_SAFE_NO_PAD.encode(key.public_key().as_ref())});
        let metadata = json!({"issuer": url, "jwks_uri": format!("{url}/jwks"),
                              "authorization_endpoint": format!("{url}/authorize"), "token_endpoint": format!("{url}/token"),
                              "response_types_supported": ["code"]});
        let documents = Arc::new((metadata, json!({"keys": [jwk]})));
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let documents = documents.clone();
                tokio::spawn(async move {
                    let service =
                        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                            let documents = documents.clone();
                            async move {
                                let body = match request.uri().path() {
                                    "/jwks" => documents.1.to_string(),
                                    p if p.starts_with("/.well-known/") => documents.0.to_string(),
                                    _ => String::new(),
                                };
                                let mut response = hyper::Response::new(Full::new(Bytes::from(body)));
                                response
                                    .headers_mut()
                                    .insert("content-type", "application/json".parse().unwrap());
                                Ok::<_, Infallible>(response)
                            }
                        });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Issuer { url, key, task }
    }

    /// A signed access token with `claims` over the usual ones (iss, aud, sub, exp, iat).
    fn token(&self, claims: Value) -> String {
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        let mut body = json!({"iss": self.url, "aud": AUDIENCE, "sub": "carol", "iat": now, "exp": now + 600,
                              "scope": "files:read files:write"});
        for (name, value) in claims.as_object().unwrap() {
            body[name] = value.clone();
        }
        let header = json!({"alg": "EdDSA", "typ": "at+jwt", "kid": "k1"});
        let signing = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(body.to_string())
        );
        let signature = self.key.sign(signing.as_bytes());
        format!("{signing}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref()))
    }

    fn now() -> i64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
    }
}

impl Drop for Issuer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn start(root: &Root, issuer: &Issuer) -> HttpServer {
    HttpServer::start(root, &["--oauth-issuer", &issuer.url, "--oauth-audience", AUDIENCE])
}

#[tokio::test]
async fn a_valid_access_token_works_and_its_subject_is_the_agent() {
    let issuer = Issuer::start().await;
    let root = Root::new();
    let server = start(&root, &issuer);
    let client = server.client(Some(&issuer.token(json!({})))).await;
    client.call("write_file", json!({"path": "o.txt", "content": "1\n"})).await.ok();
    let claims = client.call("list_claims", json!({})).await.ok();
    assert_eq!(claims.json()["claims"][0]["agent"], "carol", "{}", claims.text());
    let forged =
        client.call("append_file", json!({"path": "o.txt", "content": "2\n", "agent": "dave"})).await.err();
    assert!(forged.contains("authenticated as \"carol\""), "{forged}");
    client.stop().await;
    // The metadata names the authorization server and the audience.
    let doc = get(&server.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"), &[]).await;
    assert_eq!(doc.status, 200, "{doc:?}");
    assert_eq!(doc.json()["resource"], AUDIENCE);
    assert_eq!(doc.json()["authorization_servers"], json!([issuer.url]));
}

#[tokio::test]
async fn an_expired_or_foreign_audience_token_is_401_invalid_token() {
    let issuer = Issuer::start().await;
    let root = Root::new();
    let server = start(&root, &issuer);
    let expired = issuer.token(json!({"exp": Issuer::now() - 3600, "iat": Issuer::now() - 7200}));
    let foreign = issuer.token(json!({"aud": "https://other.example.test/mcp"}));
    for (what, token) in [("expired", expired), ("wrong audience", foreign)] {
        let answer = post(&server.url, INITIALIZE, &[("authorization", &format!("Bearer {token}"))]).await;
        assert_eq!(answer.status, 401, "{what}: {answer:?}");
        let challenge = answer.header("www-authenticate");
        assert!(challenge.contains("error=\"invalid_token\""), "{what}: {challenge}");
        assert!(
            challenge.contains(
                "resource_metadata=\"https://files.example.test/.well-known/oauth-protected-resource/mcp\""
            ),
            "{what}: {challenge}"
        );
        assert!(
            !answer.body.contains(&token) && !server.log().contains(&token),
            "{what}: the token was echoed"
        );
    }
}

#[tokio::test]
async fn a_read_scope_cannot_write_403_and_nothing_changed() {
    let issuer = Issuer::start().await;
    let root = Root::new().file("a.txt", "before\n");
    let server = start(&root, &issuer);
    let token = issuer.token(json!({"scope": "files:read"}));
    let client = server.client(Some(&token)).await;
    let tools = client.tool_names().await;
    assert!(!tools.contains(&"write_file".to_string()), "{tools:?}");
    client.call("read_file", json!({"path": "a.txt"})).await.ok();
    client.stop().await;
    let answer = post(
        &server.url,
        call_body(4, "write_file", json!({"path": "a.txt", "content": "after\n"})),
        &[("authorization", &format!("Bearer {token}")), ("mcp-protocol-version", "2025-11-25")],
    )
    .await;
    assert_eq!(answer.status, 403, "{answer:?}");
    assert!(answer.header("www-authenticate").contains("error=\"insufficient_scope\""), "{answer:?}");
    assert_eq!(root.read("a.txt"), b"before\n");
}
