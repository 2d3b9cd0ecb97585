//! `get_file_info` over stdio: the facts of a file or a directory without its content, what the
//! journal and the claims say of it, and what was not computed.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::util::{Root, Server, png};

#[tokio::test]
async fn a_text_file_gets_its_facts_syntax_and_journal() {
    let root = Root::new();
    let server = Server::spawn_as(&root, "alice").await;
    server
        .call("write_file", json!({"path": "src/app.js", "content": "function f() {\r\n  return 1;\r\n"}))
        .await
        .ok();
    std::fs::set_permissions(root.path().join("src/app.js"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let reply = server.call("get_file_info", json!({"path": "src/app.js"})).await.ok();
    let j = reply.json();
    let modified = std::fs::metadata(root.path().join("src/app.js")).unwrap().modified().unwrap();
    let modified = humantime::format_rfc3339_seconds(modified).to_string();
    assert_eq!(j["path"], "src/app.js");
    assert_eq!(
        (j["kind"].as_str(), j["size"].as_u64(), j["permissions"].as_str()),
        (Some("file"), Some(29), Some("0640"))
    );
    assert_eq!(j["modified"], modified);
    assert_eq!(
        (j["lines"].as_u64(), j["line_endings"].as_str(), j["ends_with_newline"].as_bool()),
        (Some(2), Some("crlf"), Some(true))
    );
    assert_eq!(
        (j["encoding"].as_str(), j["bom"].as_bool(), j["binary"].as_bool()),
        (Some("UTF-8"), Some(false), Some(false))
    );
    assert_eq!(
        (j["language"].as_str(), j["syntax"]["status"].as_str()),
        (Some("javascript"), Some("incomplete"))
    );
    let written = server.call("read_file", json!({"path": "src/app.js"})).await.ok();
    assert_eq!(j["sha256"], written.json()["sha256"]);
    assert_eq!(j["last_change"]["action"], "write");
    assert_eq!(j["last_change"]["agent"], "alice");
    assert_eq!(j["last_change"]["changes"], 1);
    assert_eq!(j["last_change"]["on_disk"], "matches");
    assert_eq!(j["claim"]["agent"], "alice");
    assert_eq!(j["not_computed"], json!([]));
    let text = reply.text();
    assert!(text.starts_with("src/app.js: file, 29 bytes, modified "), "{text}");
    assert!(text.contains("permissions 0640 (rw-r-----)\ntext: 2 lines, CRLF line endings\n"), "{text}");
    assert!(text.contains("syntax: incomplete so far"), "{text}");
    assert!(text.contains("last change through filewright: write by agent \"alice\""), "{text}");
    assert!(text.contains("; on disk now: matches\nclaimed by agent \"alice\" since "), "{text}");
    std::fs::write(root.path().join("src/app.js"), "let x = 1;\n").unwrap();
    let j = server.call("get_file_info", json!({"path": "src/app.js"})).await.ok().json().clone();
    assert_eq!(
        (j["last_change"]["on_disk"].as_str(), j["syntax"]["status"].as_str()),
        (Some("changed since"), Some("ok"))
    );
    server.stop().await;
}

#[tokio::test]
async fn a_directory_counts_its_entries_and_a_file_never_written_has_no_journal() {
    let root =
        Root::new().file("d/a.txt", "a").file("d/.hidden", "h").file("d/sub/b.txt", "b").file("notes", "n\n");
    let server = Server::spawn(&root).await;
    let reply = server.call("get_file_info", json!({"path": "d"})).await.ok();
    let j = reply.json();
    assert_eq!((j["kind"].as_str(), j["entries"].as_u64()), (Some("dir"), Some(3)));
    for absent in ["lines", "sha256", "syntax", "last_change", "claim", "encoding"] {
        assert!(j.get(absent).is_none(), "{absent}: {j}");
    }
    assert!(reply.text().starts_with("d: directory, 3 entries, modified "), "{}", reply.text());
    let j = server.call("get_file_info", json!({"path": "."})).await.ok().json().clone();
    assert_eq!(
        (j["path"].as_str(), j["kind"].as_str(), j["entries"].as_u64()),
        (Some("."), Some("dir"), Some(2))
    );
    let reply = server.call("get_file_info", json!({"path": "notes"})).await.ok();
    assert!(
        reply.json().get("language").is_none() && reply.json().get("syntax").is_none(),
        "{}",
        reply.text()
    );
    assert!(reply.text().contains("no change of it recorded through filewright"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn an_image_is_named_by_its_bytes_and_a_binary_is_said_to_be_one() {
    let root = Root::new().file("shot.jpg", png(1280, 720)).file("blob.bin", [7u8, 0, 7]);
    let server = Server::spawn(&root).await;
    let reply = server.call("get_file_info", json!({"path": "shot.jpg"})).await.ok();
    let j = reply.json();
    assert_eq!((j["binary"].as_bool(), j["image"].as_str()), (Some(true), Some("image/png")));
    assert_eq!((j["width"].as_u64(), j["height"].as_u64()), (Some(1280), Some(720)));
    assert!(j.get("lines").is_none() && j.get("encoding").is_none());
    assert!(
        reply.text().contains("\nimage: image/png, 1280x720 pixels (read_media_file shows it)"),
        "{}",
        reply.text()
    );
    let reply = server.call("get_file_info", json!({"path": "blob.bin"})).await.ok();
    assert_eq!((reply.json()["binary"].as_bool(), reply.json().get("image")), (Some(true), None));
    assert!(reply.text().contains("\nbinary data (not text)"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn what_is_not_computed_is_said() {
    // Over --max-file-bytes: no lines, encoding, sha256 or syntax, and a note saying why.
    let root = Root::new().file("big.py", "x = 1\n".repeat(400));
    let server = Server::spawn_with(&root, &["--max-file-bytes", "1000"]).await;
    let reply = server.call("get_file_info", json!({"path": "big.py"})).await.ok();
    let j = reply.json();
    assert_eq!((j["size"].as_u64(), j["language"].as_str()), (Some(2400), Some("python")));
    for absent in ["lines", "sha256", "syntax", "encoding"] {
        assert!(j.get(absent).is_none(), "{absent}: {j}");
    }
    assert_eq!(
        j["not_computed"],
        json!(["lines, encoding, sha256 and syntax: over this server's --max-file-bytes (1000 bytes)"])
    );
    assert!(reply.text().ends_with("\nnot computed: lines, encoding, sha256 and syntax: over this server's --max-file-bytes (1000 bytes)"), "{}", reply.text());
    server.stop().await;
    // Readable, but over the 1 MiB a quick look parses: no syntax status, and a note.
    let root = Root::new().file("big.py", "x = 1\n".repeat(200_000));
    let server = Server::spawn(&root).await;
    let j = server.call("get_file_info", json!({"path": "big.py"})).await.ok().json().clone();
    assert_eq!((j["lines"].as_u64(), j.get("syntax")), (Some(200_000), None));
    assert_eq!(
        j["not_computed"][0],
        "syntax: the file is over 1 MiB, more than this quick look parses; check_files checks it"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_symlink_is_described_by_its_target_and_escapes_are_refused() {
    let root = Root::new().file("real.txt", "one\ntwo\n");
    std::fs::write(root.outside().join("secret.txt"), "secret\n").unwrap();
    let outside = root.outside();
    let root = root
        .symlink("link.txt", "real.txt")
        .symlink("out", &outside)
        .symlink("out_file", outside.join("secret.txt"));
    let server = Server::spawn(&root).await;
    let reply = server.call("get_file_info", json!({"path": "link.txt"})).await.ok();
    assert_eq!(
        (reply.json()["link_to"].as_str(), reply.json()["lines"].as_u64()),
        (Some("real.txt"), Some(2))
    );
    assert!(
        reply.text().starts_with("link.txt: file (through a symbolic link to real.txt), 8 bytes"),
        "{}",
        reply.text()
    );
    let abs = outside.join("secret.txt").display().to_string();
    for path in ["../outside/secret.txt", "out/secret.txt", "out_file", "out", abs.as_str()] {
        let text = server.call("get_file_info", json!({"path": path})).await.err();
        assert!(text.contains("outside the sandbox root"), "{path}: {text}");
    }
    let text = server.call("get_file_info", json!({"path": "nope"})).await.err();
    assert!(text.contains("nope does not exist"), "{text}");
    server.stop().await;
}
