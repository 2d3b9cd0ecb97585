//! `search_files` over stdio: literal and regex matches as `path:line: text` grouped by file,
//! context lines marked, .gitignore and binary files skipped, bounded with a count, and nothing
//! outside the root.

use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn matches_are_shown_as_path_line_text_with_marked_context_grouped_by_file() {
    let root = Root::new()
        .file("src/app.js", "const a = 1;\nfetchUser(a);\nconsole.log(a);\n")
        .file("src/util.js", "export function fetchUser(id) {}\n")
        .file("dist/bundle.js", "fetchUser(2)\n")
        .file("logo.png", "fetchUser\0binary")
        .file(".gitignore", "dist/\n");
    let server = Server::spawn(&root).await;
    let reply = server.call("search_files", json!({"pattern": "fetchUser(", "context": 1})).await.ok();
    let text = reply.text();
    for line in [
        "src/app.js-1- const a = 1;",
        "src/app.js:2: fetchUser(a);",
        "src/app.js-3- console.log(a);",
        "src/util.js:1: export function fetchUser(id) {}",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    assert!(!text.contains("bundle.js"), "dist/ is ignored:\n{text}");
    let json = reply.json();
    assert_eq!((json["matches"].as_u64(), json["files_matched"].as_u64()), (Some(2), Some(2)), "{json}");
    assert_eq!(json["files"][0]["lines"][0]["context"], true);
    assert_eq!(json["binary"], 1, "logo.png is skipped, not searched: {json}");
    assert!(!text.contains("logo.png") && text.contains("1 file skipped as binary"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn regex_case_glob_and_max_results_select_and_bound_the_output() {
    let root = Root::new()
        .file("a.py", "def Load():\n    pass\ndef load_all():\n    pass\n")
        .file("b.ts", "function load() {}\n");
    let server = Server::spawn(&root).await;
    let reply = server.call("search_files", json!({"pattern": r"^def \w+", "regex": true})).await.ok();
    assert_eq!(reply.json()["matches"], 2, "{}", reply.text());
    let reply = server.call("search_files", json!({"pattern": "LOAD", "case_sensitive": false})).await.ok();
    assert_eq!(reply.json()["matches"], 3, "{}", reply.text());
    let reply = server.call("search_files", json!({"pattern": "load", "glob": "*.ts"})).await.ok();
    assert_eq!(reply.json()["files"][0]["path"], "b.ts", "{}", reply.text());
    assert_eq!(reply.json()["matches"], 1);
    let reply = server.call("search_files", json!({"pattern": "load", "path": "b.ts"})).await.ok();
    assert_eq!(
        (reply.json()["searched"].as_u64(), reply.json()["matches"].as_u64()),
        (Some(1), Some(1)),
        "one file"
    );
    let reply = server.call("search_files", json!({"pattern": "def", "max_results": 1})).await.ok();
    assert_eq!((reply.json()["shown"].as_u64(), reply.json()["more"].as_u64()), (Some(1), Some(1)));
    assert!(reply.text().contains("1 more matching line not shown"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn an_invalid_regex_is_an_error_that_quotes_it_and_says_how_to_escape_it() {
    let root = Root::new().file("a.txt", "call(x)\n");
    let server = Server::spawn(&root).await;
    let text = server.call("search_files", json!({"pattern": "call(", "regex": true})).await.err();
    assert!(text.contains("\"call(\"") && text.contains("regex: false") && text.contains("\\("), "{text}");
    let reply = server.call("search_files", json!({"pattern": "call("})).await.ok();
    assert_eq!(reply.json()["matches"], 1, "the same text is found as a literal");
    let text = server.call("search_files", json!({"pattern": "x", "glob": "[a"})).await.err();
    assert!(text.contains("not a valid glob"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn search_files_cannot_read_outside_the_root() {
    let root = Root::new().file("in.txt", "nothing here\n");
    std::fs::write(root.outside().join("secret.txt"), "password=hunter2\n").expect("outside file");
    let outside = root.outside();
    let root = root.symlink("out", &outside).symlink("secret_link.txt", outside.join("secret.txt"));
    let server = Server::spawn(&root).await;
    let outside_file = outside.join("secret.txt").display().to_string();
    for path in [
        "..",
        "../outside",
        "out",
        "out/secret.txt",
        "secret_link.txt",
        &outside_file,
        outside.display().to_string().as_str(),
    ] {
        let reply = server.call("search_files", json!({"pattern": "password", "path": path})).await;
        assert!(reply.is_error(), "{path}: {}", reply.text());
        assert!(!reply.text().contains("hunter2"), "{path}: {}", reply.text());
    }
    let reply = server.call("search_files", json!({"pattern": "password"})).await.ok();
    assert_eq!(reply.json()["matches"], 0, "links out are never followed: {}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn results_come_in_path_order_and_the_same_on_every_call() {
    let mut root = Root::new();
    let mut expected = Vec::new();
    for d in 0..12 {
        for f in 0..12 {
            let path = format!("d{d:02}/f{f:02}.txt");
            root = root.file(&path, "hit\nmiss\nhit\n");
            expected.push(format!("{path}:1: hit"));
            expected.push(format!("{path}:3: hit"));
        }
    }
    root = root.file("a.txt", "hit\n").file("z.txt", "hit\n");
    expected.insert(0, "a.txt:1: hit".to_string());
    let server = Server::spawn(&root).await;
    let mut first = None;
    for _ in 0..5 {
        let reply = server.call("search_files", json!({"pattern": "hit", "max_results": 41})).await.ok();
        let shown: Vec<String> =
            reply.text().lines().filter(|l| l.contains(": hit")).map(str::to_string).collect();
        assert_eq!(shown, expected[..41], "{}", reply.text());
        assert_eq!(reply.json()["matches"], 290);
        let text = reply.text();
        assert_eq!(first.get_or_insert_with(|| text.clone()), &text);
    }
    server.stop().await;
}
