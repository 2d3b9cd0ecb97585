//! `--profile` chooses the tools listed; prompts render with real arguments.

use rmcp::model::GetPromptRequestParams;
use serde_json::json;

use crate::util::{Root, Server};

async fn tool_names(server: &Server) -> Vec<String> {
    let mut names: Vec<String> =
        server.client.list_all_tools().await.unwrap().into_iter().map(|t| t.name.to_string()).collect();
    names.sort();
    names
}

#[tokio::test]
async fn profiles_choose_the_tools_listed_and_callable() {
    let root = Root::new().file("a.txt", "a\n");
    let server = Server::spawn_with(&root, &["--profile", "readonly"]).await;
    let mut names = tool_names(&server).await;
    names.sort();
    assert_eq!(
        names,
        [
            "check_files",
            "find_files",
            "get_file_info",
            "list_directory",
            "outline",
            "read_file",
            "read_media_file",
            "read_multiple_files",
            "search_files"
        ],
        "readonly lists exactly the tools that change nothing"
    );
    let text = server.call("write_file", json!({"path": "b.txt", "content": "x"})).await.err();
    assert!(
        text.contains("--profile readonly") && text.contains("write_file"),
        "a tool error names the profile: {text}"
    );
    let unknown = server
        .client
        .call_tool(
            rmcp::model::CallToolRequestParams::new("format_disk")
                .with_arguments(json!({}).as_object().unwrap().clone()),
        )
        .await;
    assert!(unknown.is_err(), "a tool filewright does not have stays a protocol error");
    assert!(!root.exists("b.txt"));
    let prompts = server.client.list_all_prompts().await.unwrap();
    assert!(prompts.is_empty(), "the prompts ask for writes, which readonly cannot do: {prompts:?}");
    server.stop().await;

    let server = Server::spawn_with(&root, &["--profile", "coding"]).await;
    let names = tool_names(&server).await;
    assert_eq!(
        names,
        [
            "append_file",
            "apply_patch",
            "check_files",
            "copy_file",
            "create_directory",
            "delete_file",
            "edit_file",
            "edit_notebook",
            "find_files",
            "get_file_info",
            "list_directory",
            "move_file",
            "outline",
            "read_file",
            "read_media_file",
            "read_multiple_files",
            "search_files",
            "undo",
            "write_file",
        ],
        "coding lists every tool but the claim and journal tools"
    );
    server.stop().await;

    let server = Server::spawn(&root).await;
    let mut names = tool_names(&server).await;
    names.sort();
    let all = [
        "append_file",
        "apply_patch",
        "check_files",
        "claim_files",
        "copy_file",
        "create_directory",
        "delete_file",
        "edit_file",
        "edit_notebook",
        "find_files",
        "get_file_info",
        "list_artifacts",
        "list_claims",
        "list_directory",
        "move_file",
        "outline",
        "read_file",
        "read_media_file",
        "read_multiple_files",
        "release_files",
        "search_files",
        "undo",
        "write_file",
    ];
    assert_eq!(names, all, "the full profile lists every tool");
    server.stop().await;
}

#[test]
fn an_unknown_profile_is_a_startup_error() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_filewright"))
        .args(["--profile", "admin"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown profile \"admin\""));
}

#[tokio::test]
async fn annotations_are_truthful() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let tools = server.client.list_all_tools().await.unwrap();
    for tool in &tools {
        let a = tool.annotations.as_ref().expect("annotations");
        let read_only = [
            "read_file",
            "outline",
            "find_files",
            "search_files",
            "check_files",
            "list_claims",
            "list_artifacts",
            "list_directory",
            "read_multiple_files",
            "get_file_info",
            "read_media_file",
        ]
        .contains(&&*tool.name);
        assert_eq!(a.read_only_hint, Some(read_only), "{}", tool.name);
        assert_eq!(a.open_world_hint, Some(false), "{}", tool.name);
    }
    let hint = |name: &str| {
        tools
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| t.annotations.as_ref())
            .and_then(|a| a.destructive_hint)
    };
    assert_eq!(hint("write_file"), Some(true));
    assert_eq!(hint("append_file"), Some(false));
    assert_eq!(hint("copy_file"), Some(true), "overwrite replaces a file");
    assert_eq!(hint("create_directory"), Some(false), "it only adds");
    server.stop().await;
}

#[tokio::test]
async fn prompts_render_with_real_arguments() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let prompts = server.client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| &*p.name).collect();
    assert!(names.contains(&"build_large_file") && names.contains(&"finish_incomplete_files"), "{names:?}");
    let args = json!({"path": "web/app.js", "description": "a todo app"}).as_object().unwrap().clone();
    let prompt = server
        .client
        .get_prompt(GetPromptRequestParams::new("build_large_file").with_arguments(args))
        .await
        .unwrap();
    let text = serde_json::to_string(&prompt.messages).unwrap();
    assert!(
        text.contains("web/app.js") && text.contains("a todo app") && text.contains("append_file"),
        "{text}"
    );

    server.call("write_file", json!({"path": "half.js", "content": "function f() {\n"})).await.ok();
    let prompt =
        server.client.get_prompt(GetPromptRequestParams::new("finish_incomplete_files")).await.unwrap();
    let text = serde_json::to_string(&prompt.messages).unwrap();
    assert!(text.contains("half.js: incomplete") && text.contains("Do NOT rewrite"), "{text}");
    server.stop().await;
}
