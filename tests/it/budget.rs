//! Every tool's default result fits what a client takes: at most 50,000 characters of text
//! and 120,000 in all (text plus `structuredContent` as JSON), over trees that made the server
//! send far more; a result that stops early says what it left out and how to get it.

use serde_json::json;

use crate::util::{Reply, Root, Server};

const TEXT_CHARS: usize = 50_000;
const RESULT_CHARS: usize = 120_000;

/// The characters of a result's text blocks, and of its text and `structuredContent`.
fn sizes(reply: &Reply) -> (usize, usize) {
    let text: usize =
        reply.0.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.chars().count()).sum();
    let structured = reply
        .0
        .structured_content
        .as_ref()
        .map_or(0, |v| serde_json::to_string(v).expect("JSON").chars().count());
    (text, text + structured)
}

/// Asserts that `reply` fits the budget, naming `what` and the sizes when it does not.
fn assert_fits(what: &str, reply: &Reply) {
    let (text, whole) = sizes(reply);
    assert!(
        text <= TEXT_CHARS && whole <= RESULT_CHARS,
        "{what}: {text} characters of text (at most {TEXT_CHARS}), {whole} in all (at most {RESULT_CHARS})"
    );
}

fn line(n: usize, width: usize) -> String {
    let head = format!("line {n:05} ");
    format!("{head}{}\n", "x".repeat(width - head.len()))
}

#[tokio::test]
async fn read_file_default_page_of_a_2000_line_file_fits_and_says_where_to_go_on() {
    let text: String = (1..=2000).map(|n| line(n, 60)).collect();
    let root = Root::new().file("big.txt", &text);
    let server = Server::spawn(&root).await;
    let mut offset = 1;
    let mut seen = String::new();
    loop {
        let reply = server.call("read_file", json!({"path": "big.txt", "offset": offset})).await.ok();
        assert_fits("read_file", &reply);
        let j = reply.json();
        for l in j["content"].as_str().unwrap().split('\n') {
            seen.push_str(l.split_once('\t').unwrap().1);
            seen.push('\n');
        }
        let Some(next) = j["next_offset"].as_u64() else { break };
        assert_eq!(next, j["end_line"].as_u64().unwrap() + 1);
        let t = reply.text();
        assert!(t.contains(&format!("read_file with offset {next}")), "{}", &t[t.len() - 400..]);
        offset = next;
    }
    assert!(offset > 1, "the first page stopped early");
    assert_eq!(seen, text, "the pages hold every line once, in order");
    server.stop().await;
}

#[tokio::test]
async fn read_file_of_long_lines_fits_and_says_how_the_rest_of_a_line_is_read() {
    let text: String = (1..=300).map(|n| line(n, 3000)).collect();
    let root = Root::new().file("wide.txt", &text);
    let server = Server::spawn(&root).await;
    let reply = server.call("read_file", json!({"path": "wide.txt"})).await.ok();
    assert_fits("read_file of long lines", &reply);
    let next = reply.json()["next_offset"].as_u64().expect("the page stops early");
    let t = reply.text();
    assert!(t.contains(&format!("read_file with offset {next}")), "{t}");
    assert!(t.contains("cut at 2000 characters") && t.contains("the rest of"), "{}", &t[t.len() - 600..]);
    server.stop().await;
}

#[tokio::test]
async fn read_multiple_files_of_many_files_fits_and_names_the_rest() {
    let body: String = (1..=500).map(|n| line(n, 60)).collect();
    let mut root = Root::new();
    let names: Vec<String> = (0..30).map(|i| format!("f{i:02}.txt")).collect();
    for name in &names {
        root = root.file(name, &body);
    }
    let server = Server::spawn(&root).await;
    let reply = server.call("read_multiple_files", json!({"paths": names})).await.ok();
    assert_fits("read_multiple_files", &reply);
    let j = reply.json();
    let not_shown = j["not_shown"].as_array().unwrap();
    assert!(!not_shown.is_empty(), "{j}");
    let cut = j["files"].as_array().unwrap().iter().find(|f| f["cut"] == json!(true)).expect("a cut file");
    let next = cut["file"]["next_offset"].as_u64().unwrap();
    let t = reply.text();
    assert!(t.contains(&format!("read_file with offset {next}")), "{t}");
    assert!(t.contains("Read them with read_multiple_files"), "{t}");
    server.stop().await;
}

#[tokio::test]
async fn list_directory_of_a_thousand_long_names_fits_and_counts_the_rest() {
    let mut root = Root::new();
    for i in 0..1000 {
        root = root.file(&format!("{i:04}_{}.txt", "n".repeat(100)), "x\n");
    }
    let server = Server::spawn(&root).await;
    let reply = server.call("list_directory", json!({})).await.ok();
    assert_fits("list_directory", &reply);
    let j = reply.json();
    let shown = j["entries"].as_array().unwrap().len();
    assert_eq!(shown + j["omitted"].as_u64().unwrap() as usize, 1000, "every entry shown or counted");
    assert!(reply.text().contains("more entries not shown (list a subdirectory"), "{}", reply.text());
    server.stop().await;
}

/// 1,000 files whose paths are about 250 characters long.
fn long_paths() -> (Root, Vec<String>) {
    let dir = format!("{}/{}", "d".repeat(100), "e".repeat(100));
    let mut root = Root::new();
    let mut paths = Vec::new();
    for i in 0..1000 {
        let path = format!("{dir}/{i:04}_{}.py", "f".repeat(40));
        root = root.file(&path, "x = 1\n");
        paths.push(path);
    }
    (root, paths)
}

#[tokio::test]
async fn find_files_of_long_paths_fits_and_counts_the_rest() {
    let (root, _) = long_paths();
    let server = Server::spawn(&root).await;
    let reply = server.call("find_files", json!({"pattern": "*.py"})).await.ok();
    assert_fits("find_files", &reply);
    let j = reply.json();
    let shown = j["files"].as_array().unwrap().len();
    assert_eq!(shown + j["more"].as_u64().unwrap() as usize, 1000, "every match shown or counted");
    assert!(reply.text().contains("more matches not shown"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn search_files_of_many_long_matching_lines_fits_and_counts_the_rest() {
    let body: String = (1..=100).map(|n| format!("needle {}\n", line(n, 600).trim_end())).collect();
    let mut root = Root::new();
    for i in 0..50 {
        root = root.file(&format!("src/f{i:02}.txt"), &body);
    }
    let server = Server::spawn(&root).await;
    let reply = server.call("search_files", json!({"pattern": "needle"})).await.ok();
    assert_fits("search_files", &reply);
    let j = reply.json();
    let shown: usize =
        j["files"].as_array().unwrap().iter().map(|f| f["lines"].as_array().unwrap().len()).sum();
    assert_eq!(shown as u64 + j["more"].as_u64().unwrap(), 5000, "every match shown or counted");
    assert!(reply.text().contains("more matching lines not shown"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn check_files_of_a_thousand_files_fits_and_names_every_failure() {
    let mut root = Root::new();
    let mut paths = Vec::new();
    for i in 0..1000 {
        let path = format!("pkg/module_{i:04}.py");
        let broken = i % 100 == 7;
        root = root.file(&path, if broken { "def f(:\n    pass\nx = 1\n" } else { "x = 1\n" });
        paths.push(path);
    }
    let server = Server::spawn(&root).await;
    let reply = server.call("check_files", json!({"paths": paths})).await.ok();
    assert_fits("check_files", &reply);
    let j = reply.json();
    assert_eq!((j["complete"].as_u64(), j["errors"].as_u64()), (Some(990), Some(10)), "{}", j["verdict"]);
    let t = reply.text();
    for i in (0..1000).filter(|i| i % 100 == 7) {
        assert!(t.contains(&format!("pkg/module_{i:04}.py: errors")), "module {i} named: {t}");
    }
    assert!(t.contains("verdict: 990 files complete, 10 with errors"), "{}", &t[t.len() - 800..]);
    let listed = j["files"].as_array().unwrap().len();
    assert!(listed < 1000 && j["not_listed"].as_u64() == Some(1000 - listed as u64), "{}", j["not_listed"]);
    assert!(t.contains("not listed"), "{}", &t[t.len() - 800..]);
    server.stop().await;
}

/// A Codex patch that adds `n` files of `lines` lines each, at paths of about 100 characters.
fn adding_patch(n: usize, lines: usize) -> (String, Vec<String>) {
    let mut patch = String::from("*** Begin Patch\n");
    let mut paths = Vec::new();
    for i in 0..n {
        let path = format!("gen/{}/file_{i:04}.txt", "g".repeat(80));
        patch.push_str(&format!("*** Add File: {path}\n"));
        for l in 1..=lines {
            patch.push_str(&format!("+{}", line(l, 60)));
        }
        paths.push(path);
    }
    patch.push_str("*** End Patch\n");
    (patch, paths)
}

#[tokio::test]
async fn apply_patch_dry_run_of_many_files_fits_and_says_how_to_see_the_rest() {
    let (patch, _) = adding_patch(300, 100);
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let reply = server.call("apply_patch", json!({"patch": patch, "dry_run": true})).await.ok();
    assert_fits("apply_patch dry_run", &reply);
    let j = reply.json();
    assert_eq!(j["files"].as_array().unwrap().len() + j["not_listed"].as_u64().unwrap() as usize, 300);
    assert!(reply.text().contains("diff not shown"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn apply_patch_of_a_thousand_files_then_list_artifacts_fit() {
    let (patch, _) = adding_patch(1000, 2);
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let reply = server.call("apply_patch", json!({"patch": patch})).await.ok();
    assert_fits("apply_patch", &reply);
    assert!(root.exists("gen"), "the patch applied");
    let j = reply.json();
    assert_eq!(j["files"].as_array().unwrap().len() + j["not_listed"].as_u64().unwrap() as usize, 1000);
    assert!(reply.text().contains("not listed"), "{}", reply.text());
    for history in [false, true] {
        let reply = server.call("list_artifacts", json!({"history": history})).await.ok();
        assert_fits("list_artifacts", &reply);
        let j = reply.json();
        let shown = j["artifacts"].as_array().unwrap().len();
        assert_eq!(shown + j["not_listed"].as_u64().unwrap() as usize, 1000, "history {history}");
        assert!(reply.text().contains("list_artifacts with `path`"), "{}", reply.text());
    }
    server.stop().await;
}

#[tokio::test]
async fn claims_of_a_thousand_files_fit() {
    let paths: Vec<String> = (0..1000).map(|i| format!("claimed/{}/{i:04}.txt", "c".repeat(60))).collect();
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let claim = server.call("claim_files", json!({"paths": paths})).await.ok();
    assert_fits("claim_files", &claim);
    let list = server.call("list_claims", json!({})).await.ok();
    assert_fits("list_claims", &list);
    for reply in [&claim, &list] {
        let j = reply.json();
        assert_eq!(j["claims"].as_array().unwrap().len() + j["not_listed"].as_u64().unwrap() as usize, 1000);
        assert!(reply.text().contains("not listed"), "{}", reply.text());
    }
    let release = server.call("release_files", json!({"paths": paths})).await.ok();
    assert_fits("release_files", &release);
    assert!(release.text().contains("Released 1000 files"), "{}", release.text());
    server.stop().await;
}

#[tokio::test]
async fn edit_file_diff_of_long_lines_fits_and_says_how_to_see_the_rest() {
    let text: String = (1..=400).map(|n| format!("OLD {}", line(n, 1000))).collect();
    let root = Root::new().file("wide.txt", &text);
    let server = Server::spawn(&root).await;
    for dry_run in [true, false] {
        let reply = server
            .call(
                "edit_file",
                json!({"path": "wide.txt", "old_string": "OLD", "new_string": "NEW", "replace_all": true,
                       "dry_run": dry_run}),
            )
            .await
            .ok();
        assert_fits("edit_file", &reply);
        let diff = reply.json()["diff"].as_str().unwrap();
        assert!(diff.contains("diff cut"), "dry_run {dry_run}: {}", &diff[diff.len().saturating_sub(300)..]);
        assert_eq!(reply.json()["replacements"], json!(400));
    }
    assert!(String::from_utf8(root.read("wide.txt")).unwrap().starts_with("NEW line 00001"));
    server.stop().await;
}

#[tokio::test]
async fn an_error_naming_a_thousand_conflicts_fits_and_says_it_was_cut() {
    let paths: Vec<String> = (0..1000).map(|i| format!("held/{}/{i:04}.txt", "h".repeat(60))).collect();
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("claim_files", json!({"paths": paths, "agent": "first"})).await.ok();
    let reply = server.call("claim_files", json!({"paths": paths, "agent": "second"})).await;
    let (text, _) = sizes(&reply);
    let t = reply.err();
    assert!(text <= TEXT_CHARS, "{text} characters of error text");
    assert!(t.contains("more characters of this message not shown"), "{}", &t[t.len() - 300..]);
    server.stop().await;
}
