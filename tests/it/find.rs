//! `find_files` over stdio: globs by name and by path, newest first, .gitignore honoured,
//! bounded, and nothing outside the root.

use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn files_are_found_by_name_or_path_newest_first_with_size_and_lines() {
    let root = Root::new()
        .file("src/old.ts", "a\nb\n")
        .file("src/deep/new.ts", "x\n")
        .file("src/skip.js", "y\n")
        .file("dist/built.ts", "z\n")
        .file(".gitignore", "dist/\n");
    // Make the order by modification time certain.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(root.path().join("src/old.ts"))
        .expect("open")
        .set_modified(old)
        .expect("mtime");
    let server = Server::spawn(&root).await;
    let reply = server.call("find_files", json!({"pattern": "*.ts"})).await.ok();
    let paths: Vec<String> = reply.json()["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| f["path"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(paths, ["src/deep/new.ts", "src/old.ts"], "{}", reply.text());
    assert_eq!(reply.json()["files"][1]["lines"], 2);
    assert!(reply.text().contains("ignored by .gitignore"), "{}", reply.text());
    let reply = server.call("find_files", json!({"pattern": "deep/*.ts", "path": "src"})).await.ok();
    assert_eq!(reply.json()["files"][0]["path"], "src/deep/new.ts");
    let reply = server.call("find_files", json!({"pattern": "*.ts", "max_results": 1})).await.ok();
    assert_eq!(reply.json()["more"], 1);
    let text = server.call("find_files", json!({"pattern": "src/[a"})).await.err();
    assert!(text.contains("not a valid glob"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn find_files_cannot_search_outside_the_root() {
    let root = Root::new().file("in.ts", "x\n");
    std::fs::write(root.outside().join("secret.ts"), "s\n").expect("outside file");
    let outside = root.outside();
    let root = root.symlink("out", &outside);
    let server = Server::spawn(&root).await;
    for path in ["..", "../outside", "out", outside.display().to_string().as_str()] {
        let reply = server.call("find_files", json!({"pattern": "*.ts", "path": path})).await;
        assert!(reply.is_error(), "{path}: {}", reply.text());
    }
    let reply = server.call("find_files", json!({"pattern": "*.ts"})).await.ok();
    assert!(!reply.text().contains("secret"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn dot_ignore_files_leave_out_what_they_name_and_override_gitignore() {
    let root = Root::new()
        .file("src/a.ts", "needle\n")
        .file("gen/b.ts", "needle\n")
        .file("logs/c.ts", "needle\n")
        .file(".ignore", "gen/\n!logs/\n")
        .file(".gitignore", "logs/\n");
    let server = Server::spawn(&root).await;
    let reply = server.call("find_files", json!({"pattern": "*.ts"})).await.ok();
    let mut paths: Vec<String> = reply.json()["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| f["path"].as_str().unwrap_or_default().to_string())
        .collect();
    paths.sort();
    assert_eq!(paths, ["logs/c.ts", "src/a.ts"], "gen/ left out, logs/ brought back: {}", reply.text());
    assert!(reply.text().contains("1 entry ignored by .gitignore or .ignore"), "{}", reply.text());
    let reply = server.call("search_files", json!({"pattern": "needle"})).await.ok();
    let searched: Vec<&str> =
        reply.json()["files"].as_array().into_iter().flatten().filter_map(|f| f["path"].as_str()).collect();
    assert_eq!(searched, ["logs/c.ts", "src/a.ts"], "search sees what find sees: {}", reply.text());
    let reply = server.call("list_directory", json!({"depth": 2})).await.ok();
    let listed: Vec<&str> =
        reply.json()["entries"].as_array().into_iter().flatten().filter_map(|e| e["path"].as_str()).collect();
    assert_eq!(
        listed,
        ["logs", "logs/c.ts", "src", "src/a.ts"],
        "list sees what find sees: {}",
        reply.text()
    );
    assert!(reply.text().contains("1 ignored by .gitignore or .ignore"), "{}", reply.text());
    server.stop().await;
}
