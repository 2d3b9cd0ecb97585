use crate::util::{Root, Server};

#[tokio::test]
async fn instructions_and_descriptions_teach_the_chunking_pattern() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let info = server.client.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().map(|s| s.name.as_str()), Some("filewright"));
    let instructions = info.instructions.clone().unwrap_or_default();
    for needle in ["8,000 characters", "write_file", "append_file", "offset: -20", "incomplete so far"] {
        assert!(instructions.contains(needle), "instructions lack {needle:?}: {instructions}");
    }
    let tools = server.client.list_all_tools().await.unwrap();
    let describe = |name: &str| {
        tools.iter().find(|t| t.name == name).and_then(|t| t.description.clone()).unwrap_or_default()
    };
    assert!(describe("write_file").contains("FIRST PART"));
    assert!(describe("append_file").contains("8,000 characters"));
    assert!(describe("read_file").contains("offset: -20"));
    for tool in &tools {
        assert!(tool.output_schema.is_some(), "{} has no outputSchema", tool.name);
        let annotations = tool.annotations.as_ref().expect("annotations");
        assert_eq!(annotations.open_world_hint, Some(false));
    }
    server.stop().await;
}
