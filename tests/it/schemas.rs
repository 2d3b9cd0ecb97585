//! `schemas/` holds each tool exactly as `tools/list` sends it. When this fails, regenerate with:
//! `cargo run -- schemas schemas/`

use crate::util::{Root, Server};

#[tokio::test]
async fn schemas_directory_matches_the_wire() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let tools = server.client.list_all_tools().await.unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("schemas/ exists")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = tools.iter().map(|t| format!("{}.json", t.name)).collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "schemas/ has other tools than the server; run `cargo run -- schemas schemas/`"
    );
    for tool in &tools {
        let file = dir.join(format!("{}.json", tool.name));
        let saved: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let wire = serde_json::to_value(tool).unwrap();
        assert_eq!(
            saved,
            wire,
            "{} drifted from the wire; run `cargo run -- schemas schemas/`",
            file.display()
        );
    }
    server.stop().await;
}
