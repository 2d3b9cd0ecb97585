//! `check_files`: the strict check before "done".

use serde_json::json;

use crate::util::{ProgressClient, Root, Server, check_request};

#[tokio::test]
async fn check_files_reports_each_written_file_and_a_verdict() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "ok.py", "content": "print('hi')\n"})).await.ok();
    server.call("write_file", json!({"path": "data.json", "content": "{\"a\": 1}\n"})).await.ok();
    server
        .call("write_file", json!({"path": "web/app.js", "content": "function f() {\n  return 1;\n"}))
        .await
        .ok();
    server
        .call("write_file", json!({"path": "bad.py", "content": "def f(:\n    pass\n\nprint(1)\n"}))
        .await
        .ok();
    server.call("write_file", json!({"path": "notes.txt", "content": "free text\n"})).await.ok();
    let reply = server.call("check_files", json!({})).await.ok();
    let j = reply.json();
    assert_eq!(j["complete"], 2, "{}", reply.text());
    assert_eq!(j["incomplete"], 1);
    assert_eq!(j["errors"], 1);
    assert_eq!(j["not_checked"], 1);
    assert_eq!(j["all_complete"], false);
    let text = reply.text();
    assert!(text.contains("verdict: 2 files complete, 1 incomplete (web/app.js: "), "{text}");
    assert!(text.contains("1 with errors (bad.py: 1:"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn check_files_with_paths_reports_missing_and_empty_files() {
    let root = Root::new()
        .file("empty.js", "")
        .file("done.json", "[1, 2]\n")
        .file("notes.txt", "\n")
        .file("pkg/__init__.py", "");
    let server = Server::spawn(&root).await;
    let paths = ["empty.js", "done.json", "ghost.html", "notes.txt", "pkg/__init__.py"];
    let reply = server.call("check_files", json!({"paths": paths})).await.ok();
    let files = reply.json()["files"].as_array().unwrap().clone();
    assert_eq!(files[0]["status"], "stubs", "an empty script has no code: {}", reply.text());
    assert_eq!(files[0]["stubs"][0]["kind"], "no_code");
    assert_eq!(files[1]["status"], "complete");
    assert_eq!(files[2]["status"], "missing");
    assert_eq!(files[3]["status"], "incomplete", "an empty file of an unchecked type");
    assert_eq!(files[4]["status"], "complete", "an empty __init__.py is idiomatic");
    assert!(reply.text().contains("1 missing or unreadable (ghost.html"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn check_files_with_nothing_written_says_what_to_do() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let reply = server.call("check_files", json!({})).await.ok();
    assert!(reply.text().contains("no files to check"), "{}", reply.text());
    assert_eq!(reply.json()["all_complete"], false);
    server.stop().await;
}

#[tokio::test]
async fn an_append_that_parses_clean_never_says_ok() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "a.py", "content": "x = 1\n"})).await.ok();
    let reply = server.call("append_file", json!({"path": "a.py", "content": "y = 2\n"})).await.ok();
    assert_eq!(reply.json()["syntax"]["status"], "ok");
    assert!(reply.text().contains("no problems so far"), "{}", reply.text());
    assert!(!reply.text().contains("syntax: ok"), "{}", reply.text());
    server.stop().await;
}

/// An outside edit between two appends must not let a stale tree leak into the check.
#[tokio::test]
async fn an_outside_change_between_appends_is_checked_from_scratch() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "a.py", "content": "x = (1,\n"})).await.ok();
    std::fs::write(root.path().join("a.py"), "def broken(:\n    pass\n").unwrap();
    let reply = server.call("append_file", json!({"path": "a.py", "content": "y = 2\n"})).await.ok();
    assert_eq!(reply.json()["syntax"]["status"], "errors", "{}", reply.text());
    assert_eq!(reply.json()["syntax"]["problems"][0]["line"], 1, "{}", reply.text());
    server.stop().await;
}

/// The failure that started the project: a complete backend, and a frontend left as stubs.
#[tokio::test]
async fn check_files_catches_a_stubbed_frontend_next_to_a_complete_backend() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let backend = "\"\"\"Task API.\"\"\"\n\nTASKS = []\n\n\ndef add(title):\n    # TODO: validate titles more strictly later\n    TASKS.append({\"title\": title, \"done\": False})\n    return len(TASKS)\n";
    let html = "<!doctype html>\n<html>\n<head>\n  <link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n  <main id=\"app\"></main>\n  <script src=\"app.js\"></script>\n</body>\n</html>\n";
    let app = "function render(tasks) {\n  // ... rest of the code ...\n}\n\nfunction save() {\n  throw new Error(\"not implemented\");\n}\n";
    server.call("write_file", json!({"path": "server/api.py", "content": backend})).await.ok();
    server.call("write_file", json!({"path": "web/index.html", "content": html})).await.ok();
    let reply = server.call("write_file", json!({"path": "web/app.js", "content": app})).await.ok();
    assert!(reply.text().contains("warning: line 2:"), "stub warning on write: {}", reply.text());
    let reply = server.call("check_files", json!({})).await.ok();
    let text = reply.text();
    let j = reply.json();
    assert_eq!(j["complete"], 1, "{text}");
    assert_eq!(j["with_stubs"], 1, "{text}");
    assert_eq!(j["unresolved"], 1, "{text}");
    assert_eq!(j["all_complete"], false);
    let files = j["files"].as_array().unwrap();
    let by = |p: &str| files.iter().find(|f| f["path"] == p).unwrap().clone();
    assert_eq!(by("server/api.py")["status"], "complete", "an ordinary TODO is not a stub: {text}");
    // The stylesheet the page links was never written: a reference that does not resolve.
    let page = by("web/index.html");
    assert_eq!(page["status"], "unresolved", "{text}");
    assert_eq!(
        page["unresolved"],
        json!([{"line": 4, "kind": "file", "reference": "style.css", "reason": "does not exist (web/style.css)"}]),
        "{text}"
    );
    let app_stubs = by("web/app.js")["stubs"].as_array().unwrap().clone();
    assert_eq!(app_stubs.iter().map(|s| s["line"].as_u64().unwrap()).collect::<Vec<_>>(), [2, 6], "{text}");
    assert!(
        text.contains("verdict: 1 file complete, 1 with stubs (web/app.js:2 body of `render` is only a comment saying the code goes here), 1 with unresolved references (web/index.html:4 `style.css` does not exist (web/style.css))"),
        "{text}"
    );
    server.stop().await;
}

/// The stub page from the field: `app.js` holds one TODO comment. The script is not
/// complete (it has no code), and the page that links it says so.
#[tokio::test]
async fn a_page_whose_script_is_a_one_line_todo_is_caught() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let html = "<!doctype html>\n<html>\n<head>\n  <link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n  <div id=\"timer\">00:00</div>\n  <script src=\"app.js\"></script>\n</body>\n</html>\n";
    let css = "/* The styles will be written later. */\n";
    let app = "// TODO: implement the timer logic here\n";
    for (path, content) in [("index.html", html), ("style.css", css), ("app.js", app)] {
        server.call("write_file", json!({"path": path, "content": content})).await.ok();
    }
    let reply = server.call("check_files", json!({})).await.ok();
    let text = reply.text();
    let j = reply.json();
    assert_eq!(j["complete"], 0, "{text}");
    assert_eq!(j["all_complete"], false, "{text}");
    let files = j["files"].as_array().unwrap();
    let by = |p: &str| files.iter().find(|f| f["path"] == p).unwrap().clone();
    for script in ["app.js", "style.css"] {
        assert_eq!(by(script)["status"], "stubs", "{text}");
        assert_eq!(by(script)["stubs"][0]["kind"], "no_code", "{text}");
    }
    let page = by("index.html");
    assert_eq!(page["status"], "stubs", "{text}");
    let messages: Vec<&str> =
        page["stubs"].as_array().unwrap().iter().filter_map(|s| s["message"].as_str()).collect();
    assert!(messages.iter().any(|m| m.contains("app.js") && m.contains("no code")), "{text}");
    assert!(messages.iter().any(|m| m.contains("style.css") && m.contains("no code")), "{text}");
    server.stop().await;
}

async fn progress_client(
    root: &Root,
) -> (rmcp::service::RunningService<rmcp::RoleClient, ProgressClient>, ProgressClient) {
    use rmcp::ServiceExt;
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_filewright")).configure(|c| {
        c.arg("--root").arg(root.path()).arg("--state-dir").arg(root.state()).env("FILEWRIGHT_LOG", "warn");
    });
    let handler = ProgressClient::default();
    let client = handler.clone().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    (client, handler)
}

#[tokio::test]
async fn check_files_sends_progress_for_each_file_when_given_a_token() {
    let mut root = Root::new();
    let paths: Vec<String> = (0..6).map(|i| format!("m{i}.py")).collect();
    for p in &paths {
        root = root.file(p, "x = 1\n");
    }
    let (client, handler) = progress_client(&root).await;
    // rmcp's client puts a progress token on every request.
    let handle = client
        .send_cancellable_request(check_request(&paths), rmcp::service::PeerRequestOptions::no_options())
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    handle.await_response().await.expect("check_files answers");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while handler.seen.lock().unwrap().len() < 6 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let seen = handler.seen.lock().unwrap().clone();
    let steps: Vec<(f64, Option<f64>)> = seen.iter().map(|p| (p.progress, p.total)).collect();
    assert_eq!(steps, (1..=6).map(|i| (i as f64, Some(6.0))).collect::<Vec<_>>());
    assert!(seen.iter().all(|p| p.progress_token == token));
    assert_eq!(seen[0].message.as_deref(), Some("checked m0.py"));
    let _ = client.cancel().await;
}

#[tokio::test]
async fn a_cancelled_check_stops_after_the_file_in_hand() {
    // Enough work that the check is still running when the cancel arrives: 300 files of
    // about 60 KB of JavaScript each.
    let body: String = (0..1500).map(|i| format!("function f{i}(a) {{ return a + {i}; }}\n")).collect();
    let mut root = Root::new();
    let paths: Vec<String> = (0..300).map(|i| format!("js/f{i}.js")).collect();
    for p in &paths {
        root = root.file(p, &body);
    }
    let (client, handler) = progress_client(&root).await;
    let handle = client
        .send_cancellable_request(check_request(&paths), rmcp::service::PeerRequestOptions::no_options())
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while handler.seen.lock().unwrap().is_empty() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    handle.cancel(Some("test".into())).await.unwrap();
    let at_cancel = handler.seen.lock().unwrap().len();
    // Give a server that ignored the cancel time to get well past the file in hand.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let after = handler.seen.lock().unwrap().len();
    assert!((1..300).contains(&at_cancel), "{at_cancel}");
    assert!(after <= at_cancel + 2, "the check went on after the cancel: {at_cancel} then {after} of 300");
    // The server is still serving.
    let args = json!({"paths": ["js/f0.js"]}).as_object().unwrap().clone();
    let reply = client
        .call_tool(rmcp::model::CallToolRequestParams::new("check_files").with_arguments(args))
        .await
        .unwrap();
    assert_ne!(reply.is_error, Some(true));
    let _ = client.cancel().await;
}

/// `try!` is the `?` of Rust 2015 and an error from 2018 on: the crate's `Cargo.toml` says
/// which edition its files are in (none named is 2015, as Cargo reads it).
#[tokio::test]
async fn rust_is_checked_in_the_edition_its_manifest_names() {
    let lib = "use std::num::ParseIntError;\n\npub fn parse(s: &str) -> Result<u8, ParseIntError> {\n    let n = try!(s.parse::<u8>());\n    Ok(n)\n}\n";
    let root = Root::new()
        .file("old/Cargo.toml", "[package]\nname = \"old\"\nversion = \"0.1.0\"\nedition = \"2015\"\n")
        .file("old/src/lib.rs", lib)
        .file("unnamed/Cargo.toml", "[package]\nname = \"unnamed\"\nversion = \"0.1.0\"\n")
        .file("unnamed/src/lib.rs", lib)
        .file("ws/Cargo.toml", "[workspace]\nmembers = [\"m\"]\n[workspace.package]\nedition = \"2015\"\n")
        .file("ws/m/Cargo.toml", "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition.workspace = true\n")
        .file("ws/m/src/lib.rs", lib)
        .file("new/Cargo.toml", "[package]\nname = \"new\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
        .file("new/src/lib.rs", lib);
    let server = Server::spawn(&root).await;
    let paths = ["old/src/lib.rs", "unnamed/src/lib.rs", "ws/m/src/lib.rs", "new/src/lib.rs"];
    let reply = server.call("check_files", json!({"paths": paths})).await.ok();
    let files = reply.json()["files"].as_array().unwrap().clone();
    let statuses: Vec<&str> = files.iter().map(|f| f["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["complete", "complete", "complete", "errors"], "{}", reply.text());
    assert_eq!(files[3]["syntax"]["problems"][0]["line"], 4, "{}", reply.text());
    server.stop().await;
}
