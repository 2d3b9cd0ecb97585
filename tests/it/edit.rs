//! `edit_file` over stdio: exact, unique, all or nothing, line endings kept.

use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn a_unique_edit_is_applied_and_shown_as_a_diff() {
    let root = Root::new().file("app.py", "def add(a, b):\n    return a - b\n");
    let server = Server::spawn(&root).await;
    let reply = server
        .call(
            "edit_file",
            json!({"path": "app.py", "old_string": "return a - b", "new_string": "return a + b"}),
        )
        .await
        .ok();
    assert_eq!(root.read("app.py"), b"def add(a, b):\n    return a + b\n");
    let text = reply.text();
    assert!(text.contains("-    return a - b\n+    return a + b"), "{text}");
    assert!(text.contains("syntax: ok"), "{text}");
    assert_eq!(reply.json()["replacements"], 1);
    server.stop().await;
}

#[tokio::test]
async fn crlf_files_edited_with_lf_strings_keep_crlf() {
    let root = Root::new().file("win.txt", "\u{feff}first\r\nsecond\r\nthird\r\n");
    let server = Server::spawn(&root).await;
    let reply = server
        .call(
            "edit_file",
            json!({"path": "win.txt", "old_string": "first\nsecond\n", "new_string": "1st\n2nd\n"}),
        )
        .await
        .ok();
    assert_eq!(root.read("win.txt"), "\u{feff}1st\r\n2nd\r\nthird\r\n".as_bytes());
    assert_eq!(reply.json()["converted_to_crlf"], true);
    server.stop().await;
}

#[tokio::test]
async fn when_the_third_of_three_edits_fails_nothing_changes() {
    let original = "alpha\nbeta\ngamma\n";
    let root = Root::new().file("f.txt", original);
    let server = Server::spawn(&root).await;
    let text = server
        .call(
            "edit_file",
            json!({"path": "f.txt", "edits": [
                {"old_string": "alpha", "new_string": "ALPHA"},
                {"old_string": "beta", "new_string": "BETA"},
                {"old_string": "delta", "new_string": "DELTA"}
            ]}),
        )
        .await
        .err();
    assert!(text.contains("edit 3 of 3 failed"), "{text}");
    assert_eq!(root.read("f.txt"), original.as_bytes());
    let reply = server.call("list_artifacts", json!({"path": "f.txt"})).await.ok();
    assert_eq!(reply.json()["artifacts"].as_array().unwrap().len(), 0, "no journal row for a failed edit");
    server.stop().await;
}

#[tokio::test]
async fn edits_apply_in_order_each_to_the_previous_result() {
    let root = Root::new().file("f.txt", "a\n");
    let server = Server::spawn(&root).await;
    server
        .call(
            "edit_file",
            json!({"path": "f.txt", "edits": [
                {"old_string": "a", "new_string": "b"},
                {"old_string": "b", "new_string": "c"}
            ]}),
        )
        .await
        .ok();
    assert_eq!(root.read("f.txt"), b"c\n");
    server.stop().await;
}

#[tokio::test]
async fn not_found_and_ambiguous_edits_say_where_to_look() {
    let root = Root::new().file("m.js", "function load(path) {\n  return 1;\n}\nreturn 1;\n");
    let server = Server::spawn(&root).await;
    let text = server
        .call("edit_file", json!({"path": "m.js", "old_string": "function load(pth) {", "new_string": "x"}))
        .await
        .err();
    assert!(text.contains("Closest lines:\n  1: function load(path) {"), "{text}");
    let text = server
        .call("edit_file", json!({"path": "m.js", "old_string": "return 1;", "new_string": "return 2;"}))
        .await
        .err();
    assert!(text.contains("occurs 2 times (lines 2, 4)") && text.contains("replace_all"), "{text}");
    let text =
        server.call("edit_file", json!({"path": "m.js", "old_string": "x", "new_string": "x"})).await.err();
    assert!(text.contains("identical"), "{text}");
    server
        .call("edit_file", json!({"path": "m.js", "old_string": "return 1;", "new_string": "return 2;", "replace_all": true}))
        .await
        .ok();
    assert_eq!(root.read("m.js"), b"function load(path) {\n  return 2;\n}\nreturn 2;\n");
    server.stop().await;
}

#[tokio::test]
async fn dry_run_writes_nothing_and_empty_old_string_creates_a_file() {
    let root = Root::new().file("d.txt", "keep\n");
    let server = Server::spawn(&root).await;
    let reply = server
        .call(
            "edit_file",
            json!({"path": "d.txt", "old_string": "keep", "new_string": "drop", "dry_run": true}),
        )
        .await
        .ok();
    assert!(reply.text().contains("+drop"), "{}", reply.text());
    assert_eq!(root.read("d.txt"), b"keep\n");
    server
        .call("edit_file", json!({"path": "new/seed.py", "old_string": "", "new_string": "x = 1\n"}))
        .await
        .ok();
    assert_eq!(root.read("new/seed.py"), b"x = 1\n");
    let text = server
        .call("edit_file", json!({"path": "absent.py", "old_string": "a", "new_string": "b"}))
        .await
        .err();
    assert!(text.contains("does not exist"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn an_edit_that_breaks_the_syntax_marks_the_problem_as_new() {
    let root = Root::new().file("s.py", "def f():\n    return 1\n\nprint(f())\n");
    let server = Server::spawn(&root).await;
    let reply = server
        .call("edit_file", json!({"path": "s.py", "old_string": "def f():", "new_string": "def f(:"}))
        .await
        .ok();
    assert_eq!(reply.json()["syntax"]["status"], "errors", "{}", reply.text());
    assert!(reply.json()["new_problems"].as_u64().unwrap() >= 1);
    assert!(reply.text().contains("new since the edit (this edit introduced them): 1:"), "{}", reply.text());
    assert_eq!(
        reply.json()["new_problems_at"][0],
        format!("1:{}", reply.json()["syntax"]["problems"][0]["column"])
    );
    server.stop().await;
}

#[tokio::test]
async fn edits_are_claimed_and_journaled_like_writes() {
    let root = Root::new();
    let a = Server::spawn_as(&root, "a").await;
    let b = Server::spawn_as(&root, "b").await;
    a.call("write_file", json!({"path": "c.txt", "content": "one\n"})).await.ok();
    let text =
        b.call("edit_file", json!({"path": "c.txt", "old_string": "one", "new_string": "two"})).await.err();
    assert!(text.starts_with("CONFLICT"), "{text}");
    a.call("edit_file", json!({"path": "c.txt", "old_string": "one", "new_string": "two"})).await.ok();
    let reply = a.call("list_artifacts", json!({"path": "c.txt", "history": true})).await.ok();
    let artifact = &reply.json()["artifacts"][0];
    assert_eq!(artifact["action"], "edit");
    assert_eq!(artifact["writes"], 2);
    assert_eq!(artifact["on_disk"], "matches");
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn only_what_the_edit_introduced_is_reported_as_new() {
    let root = Root::new()
        .file("w.js", "function a() {\n  // ... rest of the code ...\n}\nlet x = (1;\nlet y = 2;\n");
    let server = Server::spawn(&root).await;
    let reply = server
        .call("edit_file", json!({"path": "w.js", "old_string": "let y = 2;", "new_string": "let y = 3;"}))
        .await
        .ok();
    assert_eq!(reply.json()["new_problems"], 0, "{}", reply.text());
    assert!(reply.text().contains("none of these problems is new"), "{}", reply.text());
    assert!(
        !reply.text().contains("warning:"),
        "the old placeholder is not blamed on this edit: {}",
        reply.text()
    );
    let reply = server
        .call("edit_file", json!({"path": "w.js", "old_string": "let y = 3;", "new_string": "function b() {\n  // ... existing code unchanged ...\n}"}))
        .await
        .ok();
    assert!(reply.text().contains("warning: line 6:"), "{}", reply.text());
    server.stop().await;
}

// Tolerant matching: an old_string that drifts from the file in whitespace or punctuation.

#[tokio::test]
async fn an_old_string_indented_with_spaces_edits_a_tab_indented_file_and_keeps_its_tabs() {
    let root = Root::new().file("app.js", "class A {\n\tm() {\n\t\treturn 1;\n\t}\n}\n");
    let server = Server::spawn(&root).await;
    let reply = server
        .call(
            "edit_file",
            json!({"path": "app.js",
                   "old_string": "    m() {\n        return 1;\n    }\n",
                   "new_string": "    m() {\n        const x = 2;\n\n        return x;\n    }\n"}),
        )
        .await
        .ok();
    assert_eq!(root.read("app.js"), b"class A {\n\tm() {\n\t\tconst x = 2;\n\n\t\treturn x;\n\t}\n}\n");
    let text = reply.text();
    assert!(
        text.contains("not exact: matched lines 2-4 ignoring indentation (the file indents with tabs)"),
        "{text}"
    );
    assert!(reply.json()["tolerated"][0].as_str().unwrap().contains("lines 2-4"));
    assert!(text.contains("syntax: ok"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn an_old_string_one_level_shallower_lands_at_the_files_depth() {
    let original = "class Timer:\n    def start(self):\n        self.running = True\n        self.tick()\n";
    let root = Root::new().file("timer.py", original);
    let server = Server::spawn(&root).await;
    server
        .call(
            "edit_file",
            json!({"path": "timer.py",
                   "old_string": "def start(self):\n    self.running = True\n    self.tick()\n",
                   "new_string": "def start(self):\n    self.running = True\n    if self.paused:\n        return\n    self.tick()\n"}),
        )
        .await
        .ok();
    assert_eq!(
        String::from_utf8(root.read("timer.py")).unwrap(),
        "class Timer:\n    def start(self):\n        self.running = True\n        if self.paused:\n            return\n        self.tick()\n"
    );
    server.stop().await;
}

#[tokio::test]
async fn trailing_blanks_and_curly_quotes_are_tolerated_and_unchanged_lines_keep_the_files_bytes() {
    let root = Root::new().file("notes.py", "title = “Draft” \nprint(title)\n");
    let server = Server::spawn(&root).await;
    let reply = server
        .call(
            "edit_file",
            json!({"path": "notes.py",
                   "old_string": "title = \"Draft\"\nprint(title)\n",
                   "new_string": "title = \"Draft\"\nprint(title.upper())\n"}),
        )
        .await
        .ok();
    assert_eq!(root.read("notes.py"), "title = “Draft” \nprint(title.upper())\n".as_bytes());
    assert!(reply.text().contains("the file has “ where old_string has \""), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn two_regions_that_match_tolerantly_change_nothing_and_are_listed_with_anchors() {
    let original = "def a():\n\tx = 1\n\treturn x\n\ndef b():\n    x = 1\n    return x\n";
    let root = Root::new().file("two.py", original);
    let server = Server::spawn(&root).await;
    let text = server
        .call(
            "edit_file",
            json!({"path": "two.py", "old_string": "  x = 1\n  return x\n", "new_string": "  return 1\n"}),
        )
        .await
        .err();
    assert!(text.contains("matches 2 places"), "{text}");
    assert!(text.contains("lines 2-3 (2#") && text.contains("lines 6-7 (6#"), "{text}");
    assert_eq!(root.read("two.py"), original.as_bytes());
    server.stop().await;
}

#[tokio::test]
async fn tolerant_false_requires_the_exact_text() {
    let original = "if x:\n\treturn 1\n";
    let root = Root::new().file("t.py", original);
    let server = Server::spawn(&root).await;
    let text = server
        .call(
            "edit_file",
            json!({"path": "t.py", "old_string": "    return 1", "new_string": "    return 2", "tolerant": false}),
        )
        .await
        .err();
    assert!(text.contains("was not found"), "{text}");
    assert_eq!(root.read("t.py"), original.as_bytes());
    server.stop().await;
}

#[tokio::test]
async fn an_exact_match_is_used_even_where_a_tolerant_one_exists_elsewhere() {
    // `  x = 1` occurs exactly once (line 4); line 2 matches it only ignoring indentation.
    let root = Root::new().file("e.py", "def a():\n\tx = 1\ndef b():\n  x = 1\n");
    let server = Server::spawn(&root).await;
    let reply = server
        .call("edit_file", json!({"path": "e.py", "old_string": "  x = 1\n", "new_string": "  x = 2\n"}))
        .await
        .ok();
    assert_eq!(root.read("e.py"), b"def a():\n\tx = 1\ndef b():\n  x = 2\n");
    assert_eq!(reply.json()["tolerated"].as_array().unwrap().len(), 0);
    server.stop().await;
}

// Tolerance never rewrites the model's own text: lines it quoted unchanged are the file's,
// every other character it wrote stays as it wrote it (re-indentation aside).

#[tokio::test]
async fn a_hyphen_in_the_models_new_line_stays_a_hyphen_in_a_file_that_writes_em_dashes() {
    let root = Root::new().file("notes.py", "# Notes — draft\nx = 1\n");
    let server = Server::spawn(&root).await;
    let reply = server
        .call(
            "edit_file",
            json!({"path": "notes.py",
                   "old_string": "# Notes - draft\nx = 1\n",
                   "new_string": "# Notes - draft\nx = 1\ny = x - 1  # one - less\n"}),
        )
        .await
        .ok();
    assert_eq!(
        String::from_utf8(root.read("notes.py")).unwrap(),
        "# Notes — draft\nx = 1\ny = x - 1  # one - less\n"
    );
    assert!(reply.text().contains("the file has — where old_string has -"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn straight_quotes_in_the_models_new_and_changed_lines_stay_straight_in_a_file_of_curly_ones() {
    let root = Root::new().file("labels.py", "title = “Draft”\nnote = ‘it’s fine’\nshow(title)\n");
    let server = Server::spawn(&root).await;
    server
        .call(
            "edit_file",
            json!({"path": "labels.py",
                   "old_string": "title = \"Draft\"\nnote = 'it's fine'\nshow(title)\n",
                   "new_string": "title = \"Draft\"\nnote = 'it's done'\nlabel = \"New\"\nshow(title, label)\n"}),
        )
        .await
        .ok();
    assert_eq!(
        String::from_utf8(root.read("labels.py")).unwrap(),
        "title = “Draft”\nnote = 'it's done'\nlabel = \"New\"\nshow(title, label)\n"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_re_indented_new_line_in_a_crlf_tab_file_keeps_the_models_characters() {
    let root = Root::new().file("w.js", "function f() {\r\n\tlog(“a — b”);\r\n}\r\n");
    let server = Server::spawn(&root).await;
    server
        .call(
            "edit_file",
            json!({"path": "w.js",
                   "old_string": "function f() {\n    log(\"a - b\");\n}\n",
                   "new_string": "function f() {\n    log(\"a - b\");\n    log(\"c - d\");  \n}\n"}),
        )
        .await
        .ok();
    assert_eq!(
        String::from_utf8(root.read("w.js")).unwrap(),
        "function f() {\r\n\tlog(“a — b”);\r\n\tlog(\"c - d\");  \r\n}\r\n"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_tolerant_patch_hunk_keeps_the_hyphens_and_quotes_of_its_added_lines() {
    let root = Root::new().file("doc.py", "# Intro — overview\nprint(“hi”)\n");
    let server = Server::spawn(&root).await;
    let patch = "*** Begin Patch
*** Update File: doc.py
@@
 # Intro - overview
-print(\"hi\")
+print(\"hi - there\")
+print('a-b')
*** End Patch
";
    server.call("apply_patch", json!({"patch": patch})).await.ok();
    assert_eq!(
        String::from_utf8(root.read("doc.py")).unwrap(),
        "# Intro — overview\nprint(\"hi - there\")\nprint('a-b')\n"
    );
    server.stop().await;
}
