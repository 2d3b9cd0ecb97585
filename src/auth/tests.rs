use super::*;

#[test]
fn the_bearer_scheme_is_read_case_insensitively_and_other_schemes_count_as_missing() {
    assert_eq!(bearer(Some("Bearer abcdefghijklmnop")), Ok("abcdefghijklmnop"));
    assert_eq!(bearer(Some("bearer  abcdefghijklmnop ")), Ok("abcdefghijklmnop"));
    assert_eq!(bearer(None), Err(Denial::Missing));
    assert_eq!(bearer(Some("Basic dXNlcjpwYXNz")), Err(Denial::Missing));
    assert!(matches!(bearer(Some("Bearer")), Err(Denial::Invalid(_))));
    assert!(matches!(bearer(Some("Bearer a b")), Err(Denial::Invalid(_))));
}

#[test]
fn a_readonly_tool_needs_files_read_and_a_writing_tool_files_write() {
    assert_eq!(scope_for("read_file"), "files:read");
    assert_eq!(scope_for("check_files"), "files:read");
    assert_eq!(scope_for("write_file"), "files:write");
    assert_eq!(scope_for("claim_files"), "files:write");
}

#[test]
fn challenges_name_the_metadata_and_the_error_with_a_header_safe_description() {
    let url = "https://files.example/.well-known/oauth-protected-resource";
    assert_eq!(challenge(&Denial::Missing, url), format!("Bearer resource_metadata=\"{url}\""));
    let invalid = challenge(&Denial::Invalid("bad \"kid\"\r\nX-Evil: 1 \\ é".into()), url);
    assert_eq!(
        invalid,
        format!(
            "Bearer resource_metadata=\"{url}\", error=\"invalid_token\", error_description=\"bad 'kid'??X-Evil: 1 / ?\""
        )
    );
    let twice = challenge(&Denial::Malformed("send one Authorization header".into()), url);
    assert_eq!(
        twice,
        format!(
            "Bearer resource_metadata=\"{url}\", error=\"invalid_request\", error_description=\"send one Authorization header\""
        )
    );
    let scope =
        challenge(&Denial::InsufficientScope { scope: "files:write", reason: "read only".into() }, url);
    assert_eq!(
        scope,
        format!(
            "Bearer resource_metadata=\"{url}\", error=\"insufficient_scope\", scope=\"files:write\", error_description=\"read only\""
        )
    );
}

#[test]
fn the_metadata_names_the_authorization_server_only_with_oauth() {
    let doc = protected_resource_metadata("https://files.example/mcp", Some("https://auth.example"));
    assert_eq!(doc["resource"], "https://files.example/mcp");
    assert_eq!(doc["authorization_servers"], serde_json::json!(["https://auth.example"]));
    assert_eq!(doc["scopes_supported"], serde_json::json!(["files:read", "files:write"]));
    assert_eq!(doc["bearer_methods_supported"], serde_json::json!(["header"]));
    let doc = protected_resource_metadata("https://files.example/mcp", None);
    assert!(doc.get("authorization_servers").is_none());
}

#[tokio::test]
async fn the_authenticator_reads_the_header_and_asks_the_token_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokens");
    std::fs::write(&path, "0123456789abcdef-alice alice coding\n").unwrap();
    let auth = Authenticator::Tokens(tokens::TokenFile::open(&path, Profile::Full).unwrap());
    let who = auth.authenticate(Some("Bearer 0123456789abcdef-alice")).await.unwrap();
    assert_eq!((who.agent.as_str(), who.profile), ("alice", Profile::Coding));
    assert_eq!(auth.authenticate(None).await, Err(Denial::Missing));
    assert!(matches!(auth.authenticate(Some("Bearer 0123456789abcdef-bob")).await, Err(Denial::Invalid(_))));
}
