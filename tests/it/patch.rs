//! `apply_patch` over stdio: Codex envelopes and unified diffs across files, all or nothing,
//! inside the root, claimed, journaled and undoable per path.

use serde_json::json;

use crate::util::{Root, Server};

/// A small project the patches below change.
fn project() -> Root {
    Root::new()
        .file(
            "index.html",
            "<!doctype html>\n<html>\n<body>\n<script src=\"js/app.js\"></script>\n</body>\n</html>\n",
        )
        .file("js/app.js", "function start() {\n\tconsole.log('start');\n}\n\nstart();\n")
        .file("old.py", "print('old')\n")
        .file("util.py", "def add(a, b):\n    return a + b\n")
}

#[tokio::test]
async fn a_codex_patch_adds_updates_moves_and_deletes_in_one_call() {
    let root = project();
    let server = Server::spawn(&root).await;
    let patch = "*** Begin Patch
*** Add File: js/timer.js
+export function tick() {
+\treturn Date.now();
+}
*** Update File: js/app.js
@@ function start() {
-\tconsole.log('start');
+\tconsole.log('started');
*** Update File: util.py
*** Move to: lib/util.py
@@
 def add(a, b):
-    return a + b
+    return b + a
*** Delete File: old.py
*** End Patch
";
    let reply = server.call("apply_patch", json!({"patch": patch})).await.ok();
    assert_eq!(root.read("js/timer.js"), b"export function tick() {\n\treturn Date.now();\n}\n");
    assert_eq!(root.read("js/app.js"), b"function start() {\n\tconsole.log('started');\n}\n\nstart();\n");
    assert_eq!(root.read("lib/util.py"), b"def add(a, b):\n    return b + a\n");
    assert!(!root.exists("util.py") && !root.exists("old.py"));
    let text = reply.text();
    for line in [
        "added js/timer.js (+3 lines",
        "updated js/app.js (+1 -1",
        "moved util.py -> lib/util.py (+1 -1",
        "deleted old.py (-1 line)",
    ] {
        assert!(text.contains(line), "{line:?} in {text}");
    }
    assert!(text.contains("lib/util.py: syntax: ok"), "{text}");
    let files = reply.json()["files"].as_array().unwrap().clone();
    let actions: Vec<&str> = files.iter().map(|f| f["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["added", "updated", "moved", "deleted"]);
    assert_eq!(reply.json()["format"], "codex");
    server.stop().await;
}

#[tokio::test]
async fn a_git_diff_across_files_applies_exactly() {
    let root = project();
    let server = Server::spawn(&root).await;
    let diff = "diff --git a/js/app.js b/js/app.js
index 3b18e51..a1c2d3e 100644
--- a/js/app.js
+++ b/js/app.js
@@ -1,5 +1,6 @@
 function start() {
 \tconsole.log('start');
+\tdocument.body.dataset.ready = '1';
 }
 
 start();
diff --git a/js/new.js b/js/new.js
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/js/new.js
@@ -0,0 +1,2 @@
+// new module
+export const x = 1;
diff --git a/old.py b/old.py
deleted file mode 100644
index 1111111..0000000
--- a/old.py
+++ /dev/null
@@ -1 +0,0 @@
-print('old')
";
    let reply = server.call("apply_patch", json!({"patch": diff})).await.ok();
    assert_eq!(
        root.read("js/app.js"),
        b"function start() {\n\tconsole.log('start');\n\tdocument.body.dataset.ready = '1';\n}\n\nstart();\n"
    );
    assert_eq!(root.read("js/new.js"), b"// new module\nexport const x = 1;\n");
    assert!(!root.exists("old.py"));
    assert_eq!(reply.json()["format"], "unified");
    server.stop().await;
}

#[tokio::test]
async fn a_bad_hunk_in_the_third_file_changes_no_file() {
    let root = project();
    let before = Root::snapshot(&root.path());
    let server = Server::spawn(&root).await;
    let patch = "*** Begin Patch
*** Add File: notes.txt
+first
*** Update File: js/app.js
@@
-\tconsole.log('start');
+\tconsole.log('go');
*** Update File: util.py
@@
 def add(a, b):
-    return a * b
+    return a - b
*** End Patch
";
    let text = server.call("apply_patch", json!({"patch": patch})).await.err();
    assert!(text.contains("no file was changed"), "{text}");
    assert!(text.contains("util.py: hunk 1 (patch line"), "{text}");
    assert!(text.contains("2:     return a + b"), "the closest line of the file is shown: {text}");
    assert_eq!(Root::snapshot(&root.path()), before, "nothing changed anywhere");
    let artifacts = server.call("list_artifacts", json!({})).await.ok();
    assert_eq!(artifacts.json()["artifacts"].as_array().unwrap().len(), 0, "nothing journaled");
    server.stop().await;
}

#[tokio::test]
async fn a_patch_that_reaches_outside_the_root_is_refused_whole() {
    let root = project().symlink("link", "../outside");
    std::fs::write(root.outside().join("secret.txt"), "secret\n").unwrap();
    let before = Root::snapshot(&root.path());
    let server = Server::spawn(&root).await;
    for escape in
        ["../outside/secret.txt", "link/secret.txt", &root.outside().join("x.txt").display().to_string()]
    {
        let patch = format!(
            "*** Begin Patch\n*** Update File: util.py\n@@\n-    return a + b\n+    return 0\n*** Add File: {escape}\n+pwned\n*** End Patch\n"
        );
        let text = server.call("apply_patch", json!({"patch": patch})).await.err();
        let refused = text.contains("outside the sandbox root") || text.contains("is an absolute path");
        assert!(text.contains("no file was changed") && refused, "{escape}: {text}");
        // The same through a git rename, and a unified diff that adds the file.
        let rename = format!(
            "diff --git a/util.py b/{escape}\nsimilarity index 100%\nrename from util.py\nrename to {escape}\n"
        );
        let add = format!("--- /dev/null\n+++ b/{escape}\n@@ -0,0 +1 @@\n+pwned\n");
        for diff in [rename, add] {
            let text = server.call("apply_patch", json!({"patch": diff})).await.err();
            let refused = text.contains("outside the sandbox root") || text.contains("is an absolute path");
            assert!(text.contains("no file was changed") && refused, "{escape}: {text}");
        }
    }
    assert_eq!(Root::snapshot(&root.path()), before);
    assert_eq!(std::fs::read(root.outside().join("secret.txt")).unwrap(), b"secret\n");
    assert!(!root.outside().join("x.txt").exists());
    server.stop().await;
}

#[tokio::test]
async fn each_path_of_a_patch_is_undone_on_its_own() {
    let root = project();
    let server = Server::spawn(&root).await;
    let patch = "*** Begin Patch
*** Update File: util.py
@@
-    return a + b
+    return a + b + 0
*** Delete File: old.py
*** End Patch
";
    server.call("apply_patch", json!({"patch": patch})).await.ok();
    server.call("undo", json!({"path": "old.py"})).await.ok();
    assert_eq!(root.read("old.py"), b"print('old')\n");
    assert_eq!(
        root.read("util.py"),
        b"def add(a, b):\n    return a + b + 0\n",
        "the other path keeps the patch"
    );
    server.call("undo", json!({"path": "util.py"})).await.ok();
    assert_eq!(root.read("util.py"), b"def add(a, b):\n    return a + b\n");
    server.stop().await;
}

#[tokio::test]
async fn a_stale_expected_sha256_or_another_agents_claim_changes_nothing() {
    let root = project();
    let before = Root::snapshot(&root.path());
    let server = Server::spawn(&root).await;
    let patch = "*** Begin Patch\n*** Update File: util.py\n@@\n-    return a + b\n+    return 1\n*** Delete File: old.py\n*** End Patch\n";
    let stale = json!({"util.py": "0".repeat(64)});
    let text = server.call("apply_patch", json!({"patch": patch, "expected_sha256": stale})).await.err();
    assert!(text.contains("util.py"), "{text}");
    server.call("claim_files", json!({"paths": ["old.py"], "agent": "other"})).await.ok();
    let text = server.call("apply_patch", json!({"patch": patch})).await.err();
    assert!(text.contains("CONFLICT") && text.contains("old.py"), "{text}");
    assert_eq!(Root::snapshot(&root.path()), before);
    server.stop().await;
}

#[tokio::test]
async fn a_hunk_typed_with_spaces_lands_in_a_tab_file_and_the_result_says_so() {
    let root = project();
    let server = Server::spawn(&root).await;
    let patch = "*** Begin Patch\n*** Update File: js/app.js\n@@\n function start() {\n-    console.log('start');\n+    console.log('begin');\n+    return true;\n }\n*** End Patch\n";
    let reply = server.call("apply_patch", json!({"patch": patch})).await.ok();
    assert_eq!(
        root.read("js/app.js"),
        b"function start() {\n\tconsole.log('begin');\n\treturn true;\n}\n\nstart();\n"
    );
    let text = reply.text();
    assert!(
        text.contains(
            "not exact: hunk 1: matched lines 1-3 ignoring indentation (the file indents with tabs)"
        ),
        "{text}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_patch_cut_off_before_its_end_changes_nothing_and_says_so() {
    let root = project();
    let before = Root::snapshot(&root.path());
    let server = Server::spawn(&root).await;
    let patch = "*** Begin Patch\n*** Update File: util.py\n@@\n-    return a + b\n+    return 1\n";
    let text = server.call("apply_patch", json!({"patch": patch})).await.err();
    assert!(text.contains("cut off"), "{text}");
    let text = server.call("apply_patch", json!({})).await.err();
    assert!(text.contains("patch"), "{text}");
    assert_eq!(Root::snapshot(&root.path()), before);
    server.stop().await;
}

#[tokio::test]
async fn a_dry_run_shows_the_diffs_and_writes_nothing() {
    let root = project();
    let before = Root::snapshot(&root.path());
    let server = Server::spawn(&root).await;
    let patch =
        "*** Begin Patch\n*** Update File: util.py\n@@\n-    return a + b\n+    return a+b\n*** End Patch\n";
    let reply = server.call("apply_patch", json!({"patch": patch, "dry_run": true})).await.ok();
    assert!(reply.text().contains("+    return a+b"), "{}", reply.text());
    assert_eq!(Root::snapshot(&root.path()), before);
    server.stop().await;
}

#[tokio::test]
async fn a_patch_keeps_a_legacy_encoded_file_in_its_encoding() {
    let (text, _, _) =
        encoding_rs::SHIFT_JIS.encode("// 設定ファイル\nconst title = \"タイマー\";\nconst minutes = 25;\n");
    let root = Root::new().file("config.js", text.as_ref());
    let server = Server::spawn(&root).await;
    let patch = "*** Begin Patch\n*** Update File: config.js\n@@\n const title = \"タイマー\";\n-const minutes = 25;\n+const minutes = 50; // 休憩なし\n*** End Patch\n";
    server.call("apply_patch", json!({"patch": patch})).await.ok();
    let (expected, _, _) = encoding_rs::SHIFT_JIS
        .encode("// 設定ファイル\nconst title = \"タイマー\";\nconst minutes = 50; // 休憩なし\n");
    assert_eq!(root.read("config.js"), expected.as_ref());
    server.stop().await;
}

// ---- Where hunks land: whole lines, as `git apply` lands them ----

#[tokio::test]
async fn a_line_inserted_between_two_blank_context_lines_lands_between_them() {
    let root = Root::new().file("notes.md", "# Notes\n\n\nend\n");
    let server = Server::spawn(&root).await;
    // `git diff -U1` of inserting `middle` between the two blank lines.
    let diff = "--- a/notes.md\n+++ b/notes.md\n@@ -2,2 +2,3 @@\n \n+middle\n \n";
    server.call("apply_patch", json!({"patch": diff})).await.ok();
    assert_eq!(root.read("notes.md"), b"# Notes\n\nmiddle\n\nend\n", "where git apply puts it");
    server.stop().await;
}

#[tokio::test]
async fn a_blank_context_line_the_file_lacks_is_refused() {
    let root = Root::new().file("list.txt", "first\nsecond\n");
    let before = Root::snapshot(&root.path());
    let server = Server::spawn(&root).await;
    // The hunk quotes an empty line before `second`; the file has none (the `\n` that ends
    // `first` is not a line).
    let diff = "--- a/list.txt\n+++ b/list.txt\n@@ -1,2 +1,3 @@\n \n+inserted\n second\n";
    let text = server.call("apply_patch", json!({"patch": diff})).await.err();
    assert!(text.contains("does not apply"), "{text}");
    let envelope = "*** Begin Patch\n*** Update File: list.txt\n@@\n \n+inserted\n second\n*** End Patch\n";
    let text = server.call("apply_patch", json!({"patch": envelope, "tolerant": false})).await.err();
    assert!(text.contains("does not apply"), "{text}");
    assert_eq!(Root::snapshot(&root.path()), before);
    server.stop().await;
}

#[tokio::test]
async fn a_removed_line_never_matches_the_tail_of_another_line() {
    let root = Root::new().file("f.txt", "tab\nb\n");
    let server = Server::spawn(&root).await;
    // `b` is the whole of line 2, and only the end of line 1.
    let envelope = "*** Begin Patch\n*** Update File: f.txt\n@@\n-b\n+c\n*** End Patch\n";
    server.call("apply_patch", json!({"patch": envelope})).await.ok();
    assert_eq!(root.read("f.txt"), b"tab\nc\n");
    server.stop().await;
}

#[tokio::test]
async fn a_zero_context_hunk_changes_the_lines_its_header_names() {
    let root = Root::new().file("f.txt", "x\n\n\ny\n");
    let server = Server::spawn(&root).await;
    // `git diff -U0`: the two empty lines 2-3 become `a` and `b`.
    let diff = "--- a/f.txt\n+++ b/f.txt\n@@ -2,2 +2,2 @@\n-\n-\n+a\n+b\n";
    server.call("apply_patch", json!({"patch": diff})).await.ok();
    assert_eq!(root.read("f.txt"), b"x\na\nb\ny\n");
    server.stop().await;
}

// ---- Codex compatibility: paths, replacing files, a directory where a file was ----

#[tokio::test]
async fn an_absolute_path_inside_the_root_is_the_relative_one() {
    let root = project();
    let server = Server::spawn(&root).await;
    let abs = root.path().join("util.py").display().to_string();
    let added = root.path().join("lib/new.py").display().to_string();
    let patch = format!(
        "*** Begin Patch\n*** Update File: {abs}\n@@\n-    return a + b\n+    return b + a\n*** Add File: {added}\n+x = 1\n*** End Patch\n"
    );
    let reply = server.call("apply_patch", json!({"patch": patch})).await.ok();
    assert_eq!(root.read("util.py"), b"def add(a, b):\n    return b + a\n");
    assert_eq!(root.read("lib/new.py"), b"x = 1\n");
    let paths: Vec<&str> =
        reply.json()["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["util.py", "lib/new.py"], "reported relative to the root");
    server.stop().await;
}

#[tokio::test]
async fn an_added_file_that_exists_is_replaced_and_undo_restores_it() {
    let root = project();
    let server = Server::spawn(&root).await;
    let patch = "*** Begin Patch\n*** Add File: old.py\n+print('new')\n*** End Patch\n";
    let reply = server.call("apply_patch", json!({"patch": patch})).await.ok();
    assert_eq!(root.read("old.py"), b"print('new')\n");
    let file = &reply.json()["files"][0];
    assert_eq!((file["action"].as_str(), file["replaced"].as_bool()), (Some("added"), Some(true)));
    assert!(reply.text().contains("replacing"), "{}", reply.text());
    server.call("undo", json!({"path": "old.py"})).await.ok();
    assert_eq!(root.read("old.py"), b"print('old')\n");
    server.stop().await;
}

#[tokio::test]
async fn a_move_onto_an_existing_file_replaces_it_and_undo_restores_both() {
    let root = project();
    let server = Server::spawn(&root).await;
    let patch = "*** Begin Patch\n*** Update File: util.py\n*** Move to: old.py\n@@\n-    return a + b\n+    return 0\n*** End Patch\n";
    let reply = server.call("apply_patch", json!({"patch": patch})).await.ok();
    assert_eq!(root.read("old.py"), b"def add(a, b):\n    return 0\n");
    assert!(!root.exists("util.py"));
    let file = &reply.json()["files"][0];
    assert_eq!((file["action"].as_str(), file["replaced"].as_bool()), (Some("moved"), Some(true)));
    server.call("undo", json!({"path": "old.py"})).await.ok();
    assert_eq!(root.read("old.py"), b"print('old')\n");
    server.call("undo", json!({"path": "util.py"})).await.ok();
    assert_eq!(root.read("util.py"), b"def add(a, b):\n    return a + b\n");
    server.stop().await;
}

#[tokio::test]
async fn a_file_becomes_a_directory_of_the_same_name_in_one_patch() {
    let root = project();
    let server = Server::spawn(&root).await;
    // Codex: delete `old.py`, add `old.py/main.py`.
    let patch = "*** Begin Patch\n*** Delete File: old.py\n*** Add File: old.py/main.py\n+print('main')\n*** End Patch\n";
    server.call("apply_patch", json!({"patch": patch})).await.ok();
    assert_eq!(root.read("old.py/main.py"), b"print('main')\n");
    // git: `util.py` renamed to `util.py/util.py`.
    let diff = "diff --git a/util.py b/util.py/util.py\nsimilarity index 100%\nrename from util.py\nrename to util.py/util.py\n";
    server.call("apply_patch", json!({"patch": diff})).await.ok();
    assert_eq!(root.read("util.py/util.py"), b"def add(a, b):\n    return a + b\n");
    server.stop().await;
}

#[tokio::test]
async fn a_first_chunk_without_context_lines_goes_to_the_end_and_the_next_chunk_still_applies() {
    let root = Root::new().file("panic.txt", "line1\nline2\nline3\n");
    let server = Server::spawn(&root).await;
    // Codex's own test_pure_addition_chunk_followed_by_removal.
    let patch = "*** Begin Patch\n*** Update File: panic.txt\n@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement\n*** End Patch\n";
    server.call("apply_patch", json!({"patch": patch})).await.ok();
    assert_eq!(root.read("panic.txt"), b"line1\nline2-replacement\nafter-context\nsecond-line\n");
    server.stop().await;
}
