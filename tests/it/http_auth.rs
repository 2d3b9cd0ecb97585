//! `--http` with `--token-file`: every call is made by the principal its token names, within
//! that principal's profile; the `agent` argument cannot make it someone else.

use std::time::Duration;

use serde_json::json;

use crate::http_util::{HttpServer, INITIALIZE, call_body, get, post};
use crate::util::Root;

const ALICE: &str = "alice-token-7f3a9c1e5b2d4f60";
const BOB: &str = "bob-token-0c8e2a4f6b1d3e59";
const READER: &str = "reader-token-9d1f3b5a7c2e4f68";

/// A token file for alice and bob (full) and reader (readonly), beside the root.
fn token_file(root: &Root) -> std::path::PathBuf {
    let path = root.outside().join("tokens");
    std::fs::write(
        &path,
        format!("# test tokens\n{ALICE} alice full\n{BOB} bob full\n{READER} reader readonly\n"),
    )
    .unwrap();
    path
}

fn start(root: &Root) -> HttpServer {
    let tokens = token_file(root);
    HttpServer::start(root, &["--token-file", tokens.to_str().unwrap()])
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

#[tokio::test]
async fn a_missing_or_bad_token_is_401_with_the_resource_metadata_challenge() {
    let root = Root::new();
    let server = start(&root);
    let metadata = server.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    let missing = post(&server.url, INITIALIZE, &[]).await;
    assert_eq!(missing.status, 401, "{missing:?}");
    assert_eq!(missing.header("www-authenticate"), format!("Bearer resource_metadata=\"{metadata}\""));
    assert_eq!(missing.json()["error"]["code"], -32001);
    let wrong = "wrong-token-5a5a5a5a5a5a5a5a";
    let bad = post(&server.url, INITIALIZE, &[("authorization", &bearer(wrong))]).await;
    assert_eq!(bad.status, 401, "{bad:?}");
    let challenge = bad.header("www-authenticate");
    assert!(challenge.contains("error=\"invalid_token\"") && challenge.contains(&metadata), "{challenge}");
    assert!(!bad.body.contains(wrong) && !challenge.contains(wrong), "the token is never echoed");
    // The metadata the challenge points to, at both RFC 9728 paths, without credentials.
    for url in [metadata.clone(), metadata.trim_end_matches("/mcp").to_string()] {
        let doc = get(&url, &[]).await;
        assert_eq!(doc.status, 200, "{url}: {doc:?}");
        assert_eq!(doc.json()["resource"], server.url, "{doc:?}");
    }
    let good = post(&server.url, INITIALIZE, &[("authorization", &bearer(ALICE))]).await;
    assert_eq!(good.status, 200, "{good:?}");
    let log = server.log();
    for token in [ALICE, wrong] {
        assert!(!log.contains(token), "a token reached the log:\n{log}");
    }
}

#[tokio::test]
async fn a_readonly_token_lists_only_reading_tools_and_a_write_is_403_with_nothing_changed() {
    let root = Root::new().file("a.txt", "before\n");
    let server = start(&root);
    let reader = server.client(Some(READER)).await;
    let tools = reader.tool_names().await;
    assert!(
        tools.contains(&"read_file".to_string()) && !tools.contains(&"write_file".to_string()),
        "{tools:?}"
    );
    reader.call("read_file", json!({"path": "a.txt"})).await.ok();
    let refused = reader
        .service
        .call_tool(
            rmcp::model::CallToolRequestParams::new("write_file")
                .with_arguments(json!({"path": "a.txt", "content": "after\n"}).as_object().unwrap().clone()),
        )
        .await;
    assert!(refused.is_err(), "{refused:?}");
    let raw = post(
        &server.url,
        call_body(9, "write_file", json!({"path": "a.txt", "content": "after\n"})),
        &[("authorization", &bearer(READER)), ("mcp-protocol-version", "2025-11-25")],
    )
    .await;
    assert_eq!(raw.status, 403, "{raw:?}");
    let challenge = raw.header("www-authenticate");
    assert!(
        challenge.contains("error=\"insufficient_scope\"") && challenge.contains("scope=\"files:write\""),
        "{challenge}"
    );
    assert_eq!(raw.json()["id"], 9);
    assert_eq!(root.read("a.txt"), b"before\n", "nothing changed");
    reader.stop().await;
}

#[tokio::test]
async fn a_forged_agent_argument_is_refused_and_the_principal_is_recorded() {
    let root = Root::new();
    let server = start(&root);
    let bob = server.client(Some(BOB)).await;
    let refused =
        bob.call("write_file", json!({"path": "b.txt", "content": "x\n", "agent": "alice"})).await.err();
    assert!(refused.contains("authenticated as \"bob\"") && refused.contains("Omit `agent`"), "{refused}");
    assert!(!root.exists("b.txt"), "nothing was written");
    bob.call("write_file", json!({"path": "b.txt", "content": "x\n"})).await.ok();
    bob.call("append_file", json!({"path": "b.txt", "content": "y\n", "agent": "bob"})).await.ok();
    let claims = bob.call("list_claims", json!({})).await.ok();
    assert_eq!(claims.json()["claims"][0]["agent"], "bob", "{}", claims.text());
    // The agent list_claims says it acted for is the principal, not the process's --agent.
    assert_eq!(claims.json()["agent"], "bob", "{}", claims.text());
    // list_artifacts' agent is a filter: anyone's may be asked for.
    let artifacts = bob.call("list_artifacts", json!({"agent": "bob"})).await.ok();
    assert_eq!(artifacts.json()["artifacts"][0]["agent"], "bob", "{}", artifacts.text());
    let none = bob.call("list_artifacts", json!({"agent": "alice"})).await.ok();
    assert_eq!(none.json()["artifacts"].as_array().map(Vec::len), Some(0), "{}", none.text());
    bob.stop().await;
}

#[tokio::test]
async fn one_principal_cannot_release_overwrite_or_undo_anothers_claimed_change() {
    let root = Root::new();
    let server = start(&root);
    let (alice, bob) = tokio::join!(server.client(Some(ALICE)), server.stateless_client(Some(BOB)));
    alice.call("write_file", json!({"path": "a.py", "content": "x = 1\n"})).await.ok();
    let overwrite = bob.call("write_file", json!({"path": "a.py", "content": "x = 2\n"})).await.err();
    assert!(overwrite.contains("alice"), "{overwrite}");
    bob.call("release_files", json!({"paths": ["a.py"]})).await;
    let undo = bob.call("undo", json!({"path": "a.py"})).await.err();
    assert!(undo.contains("alice"), "{undo}");
    let forged = bob.call("release_files", json!({"paths": ["a.py"], "agent": "alice"})).await.err();
    assert!(forged.contains("authenticated as \"bob\""), "{forged}");
    assert_eq!(root.read("a.py"), b"x = 1\n");
    let claims = alice.call("list_claims", json!({})).await.ok();
    assert_eq!(claims.json()["claims"][0]["agent"], "alice", "still alice's: {}", claims.text());
    alice.call("append_file", json!({"path": "a.py", "content": "y = 2\n"})).await.ok();
    alice.stop().await;
    bob.stop().await;
}

#[tokio::test]
async fn a_token_removed_from_the_file_is_refused_without_a_restart() {
    let root = Root::new();
    let tokens = token_file(&root);
    let server = HttpServer::start(&root, &["--token-file", tokens.to_str().unwrap()]);
    let alice = server.client(Some(ALICE)).await;
    alice.call("write_file", json!({"path": "a.txt", "content": "1"})).await.ok();
    std::fs::write(&tokens, format!("{BOB} bob full\n")).unwrap();
    let mut refused = false;
    for _ in 0..100 {
        let answer = post(&server.url, INITIALIZE, &[("authorization", &bearer(ALICE))]).await;
        if answer.status == 401 {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(refused, "the removed token still works");
    let bob = server.client(Some(BOB)).await;
    bob.call("read_file", json!({"path": "a.txt"})).await.ok();
    bob.stop().await;
}

#[tokio::test]
async fn a_session_opened_by_one_principal_is_not_found_for_another() {
    let root = Root::new();
    let server = start(&root);
    let session = crate::http_util::open_session(&server.url, &[("authorization", &bearer(ALICE))]).await;
    let call = call_body(2, "list_claims", json!({}));
    let (bob, alice) = (bearer(BOB), bearer(ALICE));
    let foreign = post(
        &server.url,
        call.clone(),
        &[
            ("authorization", bob.as_str()),
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ],
    )
    .await;
    assert_eq!(foreign.status, 404, "{foreign:?}");
    let own = post(
        &server.url,
        call,
        &[
            ("authorization", alice.as_str()),
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ],
    )
    .await;
    assert_eq!(own.status, 200, "{own:?}");
}

#[test]
fn a_non_loopback_bind_with_a_token_file_starts() {
    let root = Root::new();
    let tokens = token_file(&root);
    let server = HttpServer::start(&root, &["--http", "0.0.0.0:0", "--token-file", tokens.to_str().unwrap()]);
    assert!(server.url.starts_with("http://0.0.0.0:"), "{}", server.url);
}

#[tokio::test]
async fn two_authorization_headers_are_refused_401_and_nothing_runs() {
    let root = Root::new();
    let server = start(&root);
    let garbage = "garbage-token-3c3c3c3c3c3c3c3c";
    let session = crate::http_util::open_session(&server.url, &[("authorization", &bearer(ALICE))]).await;
    // A valid token first and another after it: which one a proxy, a log or this server reads
    // would differ, so neither is believed.
    for pair in
        [[bearer(ALICE), bearer(garbage)], [bearer(garbage), bearer(ALICE)], [bearer(ALICE), bearer(BOB)]]
    {
        let answer = post(
            &server.url,
            call_body(4, "write_file", json!({"path": "two.txt", "content": "x"})),
            &[
                ("authorization", &pair[0]),
                ("authorization", &pair[1]),
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "2025-11-25"),
            ],
        )
        .await;
        assert_eq!(answer.status, 401, "{answer:?}");
        let challenge = answer.header("www-authenticate");
        assert!(challenge.contains("error=\"invalid_request\""), "{challenge}");
        let message = answer.json()["error"]["message"].as_str().unwrap().to_string();
        assert!(message.contains("one Authorization header"), "{message}");
    }
    let initialize = post(
        &server.url,
        INITIALIZE,
        &[("authorization", &bearer(ALICE)), ("authorization", &bearer(garbage))],
    )
    .await;
    assert_eq!(initialize.status, 401, "{initialize:?}");
    assert!(!root.exists("two.txt"), "nothing ran");
}
