//! A path means what a person means, for every tool: an absolute path or a `file://` URI inside
//! the root is the relative path, `\` is a separator, a trailing `/` names a directory, a name
//! in another Unicode form is the existing entry, and spellings that would create a name that is
//! not what it looks like (`~`, whitespace at an edge, control characters, a drive letter) are
//! refused and change nothing.

use serde_json::json;

use crate::util::{Root, Server};

/// The `file://` URI of `rel` under the root, as the server's own resource links spell it.
fn uri_of(root: &Root, rel: &str) -> String {
    url::Url::from_file_path(root.path().canonicalize().unwrap().join(rel)).unwrap().to_string()
}

#[tokio::test]
async fn an_absolute_path_inside_the_root_is_the_relative_path_in_every_tool() {
    let root = Root::new().file("src/a.txt", "one\n").file("b.txt", "bee\n");
    let server = Server::spawn(&root).await;
    let abs = |rel: &str| root.path().join(rel).display().to_string();
    server.call("read_file", json!({"path": abs("src/a.txt")})).await.ok();
    server.call("write_file", json!({"path": abs("src/new.txt"), "content": "new\n"})).await.ok();
    server.call("append_file", json!({"path": abs("src/new.txt"), "content": "more\n"})).await.ok();
    server
        .call("edit_file", json!({"path": abs("src/a.txt"), "old_string": "one", "new_string": "ONE"}))
        .await
        .ok();
    server.call("get_file_info", json!({"path": abs("b.txt")})).await.ok();
    server.call("copy_file", json!({"from": abs("b.txt"), "to": abs("c.txt")})).await.ok();
    server.call("move_file", json!({"from": abs("c.txt"), "to": abs("d.txt")})).await.ok();
    server.call("list_directory", json!({"path": abs("src")})).await.ok();
    // The root itself, spelled as an absolute path or a URI, is the root.
    let text = server.call("list_directory", json!({"path": abs("")})).await.ok().text();
    assert!(text.contains("src"), "{text}");
    let text =
        server.call("find_files", json!({"pattern": "*.txt", "path": uri_of(&root, "")})).await.ok().text();
    assert!(text.contains("src/a.txt"), "{text}");
    server.call("check_files", json!({"paths": [abs("src/a.txt")]})).await.ok();
    server.call("undo", json!({"path": abs("src/a.txt")})).await.ok();
    server.call("delete_file", json!({"path": abs("d.txt")})).await.ok();
    assert_eq!(root.read("src/new.txt"), b"new\nmore\n");
    assert_eq!(root.read("src/a.txt"), b"one\n", "edited, then undone");
    assert!(!root.exists("c.txt") && !root.exists("d.txt"));
    server.stop().await;
}

#[tokio::test]
async fn the_file_uri_of_a_result_round_trips_into_every_tool() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let reply =
        server.call("write_file", json!({"path": "my dir/café.js", "content": "let a = 1;\n"})).await.ok();
    let link = reply.0.content.iter().find_map(|c| c.as_resource_link().cloned()).expect("a resource link");
    assert!(link.uri.starts_with("file://"), "{}", link.uri);
    assert!(link.uri.contains("%20"), "the link is percent-encoded: {}", link.uri);
    let text = server.call("read_file", json!({"path": link.uri})).await.ok().text();
    assert!(text.contains("let a = 1;"), "{text}");
    server.call("append_file", json!({"path": link.uri, "content": "let b = 2;\n"})).await.ok();
    server
        .call("edit_file", json!({"path": link.uri, "old_string": "let b = 2;", "new_string": "let b = 3;"}))
        .await
        .ok();
    server.call("get_file_info", json!({"path": link.uri})).await.ok();
    assert_eq!(root.read("my dir/café.js"), b"let a = 1;\nlet b = 3;\n");
    let localhost = link.uri.replacen("file://", "file://localhost", 1);
    server.call("copy_file", json!({"from": localhost, "to": "copy.js"})).await.ok();
    assert_eq!(root.read("copy.js"), b"let a = 1;\nlet b = 3;\n");
    server.call("delete_file", json!({"path": uri_of(&root, "copy.js")})).await.ok();
    assert!(!root.exists("copy.js"));
    assert!(!root.path().join("file:").exists(), "no directory named file: was made");
    // Outside the root: refused, nothing made.
    let outside = url::Url::from_file_path(root.outside().join("x.txt")).unwrap().to_string();
    let text = server.call("write_file", json!({"path": outside, "content": "x"})).await.err();
    assert!(text.contains("outside"), "{text}");
    assert!(!root.outside().join("x.txt").exists());
    server.stop().await;
}

#[tokio::test]
async fn a_backslash_is_a_separator_and_a_drive_letter_is_refused() {
    let root = Root::new().file("src/app.js", "let x = 1;\n");
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "src\\lib\\util.js", "content": "let y = 2;\n"})).await.ok();
    assert_eq!(root.read("src/lib/util.js"), b"let y = 2;\n");
    let text = server.call("read_file", json!({"path": "src\\app.js"})).await.ok().text();
    assert!(text.contains("let x = 1;"), "{text}");
    let text = server.call("write_file", json!({"path": "C:\\proj\\a.js", "content": "x"})).await.err();
    assert!(text.contains("drive letter"), "{text}");
    let names: Vec<String> = std::fs::read_dir(root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains('\\') && !n.contains(':')), "{names:?}");
    server.stop().await;
}

#[tokio::test]
async fn a_trailing_slash_names_a_directory_and_never_becomes_a_file() {
    let root = Root::new().file("f.txt", "x\n");
    let server = Server::spawn(&root).await;
    for (tool, args) in [
        ("write_file", json!({"path": "new/", "content": "x"})),
        ("append_file", json!({"path": "new/", "content": "x"})),
        ("copy_file", json!({"from": "f.txt", "to": "new/"})),
        ("move_file", json!({"from": "f.txt", "to": "new/"})),
        ("edit_file", json!({"path": "new/", "old_string": "", "new_string": "x"})),
    ] {
        let text = server.call(tool, args).await.err();
        assert!(text.contains("names a directory"), "{tool}: {text}");
    }
    assert!(!root.exists("new"), "nothing was made at new");
    let text = server.call("read_file", json!({"path": "f.txt/"})).await.err();
    assert!(text.contains("not a directory"), "{text}");
    server.call("create_directory", json!({"path": "new/"})).await.ok();
    assert!(root.path().join("new").is_dir());
    server.call("write_file", json!({"path": "new/inside.txt", "content": "ok\n"})).await.ok();
    server.call("list_directory", json!({"path": "new/"})).await.ok();
    assert_eq!(root.read("f.txt"), b"x\n");
    server.stop().await;
}

#[tokio::test]
async fn a_name_in_another_unicode_form_is_the_existing_entry_never_a_twin() {
    let nfc = "caf\u{e9}";
    let nfd = "cafe\u{301}";
    let root = Root::new().file(&format!("{nfc}/menu.txt"), "soup\n").file(&format!("{nfc}.md"), "# Café\n");
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": format!("{nfd}.md"), "content": "# Menu\n"})).await.ok();
    server.call("append_file", json!({"path": format!("{nfd}/menu.txt"), "content": "bread\n"})).await.ok();
    let text = server.call("read_file", json!({"path": format!("{nfd}/menu.txt")})).await.ok().text();
    assert!(text.contains("bread"), "{text}");
    server.call("write_file", json!({"path": format!("{nfd}/new.txt"), "content": "new\n"})).await.ok();
    let names: Vec<String> = std::fs::read_dir(root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "no twin was made: {names:?}");
    assert_eq!(root.read(&format!("{nfc}.md")), b"# Menu\n");
    assert_eq!(root.read(&format!("{nfc}/menu.txt")), b"soup\nbread\n");
    assert_eq!(root.read(&format!("{nfc}/new.txt")), b"new\n");
    server.stop().await;
}

#[tokio::test]
async fn tilde_whitespace_and_control_characters_are_refused_and_create_nothing() {
    let root = Root::new().file("a.txt", "a\n").file("~backup.txt", "old\n");
    let server = Server::spawn(&root).await;
    for (path, says) in [
        ("~/notes.txt", "~"),
        ("./~new.txt", "would not read back"),
        ("./C:/x.txt", "would not read back"),
        ("file:\\x.txt", "backslash"),
        ("file:", "would not read back"),
        ("~", "~"),
        (" notes.txt", "whitespace"),
        ("notes.txt ", "whitespace"),
        ("notes\n.txt", "control character"),
        ("notes\t.txt", "control character"),
        ("dir /notes.txt", "whitespace"),
        ("notes\u{200B}.txt", "invisible"),
        ("https://example.com/a.js", "URL"),
    ] {
        for (tool, args) in [
            ("write_file", json!({"path": path, "content": "x"})),
            ("append_file", json!({"path": path, "content": "x"})),
            ("create_directory", json!({"path": path})),
            ("copy_file", json!({"from": "a.txt", "to": path})),
        ] {
            let text = server.call(tool, args).await.err();
            assert!(text.contains(says), "{tool} {path:?}: {text}");
        }
    }
    let names: Vec<String> = std::fs::read_dir(root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut names = names;
    names.sort();
    assert_eq!(names, ["a.txt", "~backup.txt"], "nothing was created");
    // An existing name that begins with `~` is reached as `./~name`.
    server.call("write_file", json!({"path": "./~backup.txt", "content": "b\n"})).await.ok();
    assert_eq!(root.read("~backup.txt"), b"b\n");
    // The name the journal recorded is taken as recorded, not re-read as a model's spelling.
    let text = server.call("check_files", json!({})).await.ok().text();
    assert!(text.contains("~backup.txt") && !text.contains("not expanded"), "{text}");
    let text = server.call("list_artifacts", json!({})).await.ok().text();
    assert!(text.contains("~backup.txt") && !text.contains("unreadable"), "{text}");
    server.stop().await;
}
