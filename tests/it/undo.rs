//! `undo` over stdio: writes, appends and edits taken back, the refusal after an outside
//! change, undoing an undo, and the history that says what can be restored.

use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn a_wrong_append_is_taken_back_and_the_undo_can_be_undone() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "app.js", "content": "const a = 1;\n"})).await.ok();
    server.call("append_file", json!({"path": "app.js", "content": "const b = 2;\n"})).await.ok();
    server.call("append_file", json!({"path": "app.js", "content": "WRONG CHUNK\n"})).await.ok();
    let reply = server.call("undo", json!({"path": "app.js"})).await.ok();
    assert_eq!(root.read("app.js"), b"const a = 1;\nconst b = 2;\n");
    assert!(reply.text().contains("undone: append"), "{}", reply.text());
    assert_eq!(reply.json()["syntax"]["status"], "ok");
    assert_eq!(reply.json()["sha256"], filewright::files::sha256_hex(&root.read("app.js")));
    // The undo is a change too: undoing it brings the chunk back.
    server.call("undo", json!({"path": "app.js"})).await.ok();
    assert_eq!(root.read("app.js"), b"const a = 1;\nconst b = 2;\nWRONG CHUNK\n");
    server.stop().await;
}

#[tokio::test]
async fn several_steps_go_back_through_edits_and_writes_to_no_file_at_all() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "n.py", "content": "x = 1\n"})).await.ok();
    server
        .call("edit_file", json!({"path": "n.py", "old_string": "x = 1", "new_string": "x = 2"}))
        .await
        .ok();
    server.call("write_file", json!({"path": "n.py", "content": "y = 3\n"})).await.ok();
    server.call("undo", json!({"path": "n.py", "steps": 2})).await.ok();
    assert_eq!(root.read("n.py"), b"x = 1\n");
    let history = server.call("list_artifacts", json!({"path": "n.py", "history": true})).await.ok();
    let entries = history.json()["artifacts"][0]["history"].as_array().cloned().unwrap_or_default();
    let steps: Vec<_> = entries.iter().map(|e| e["restore_with_steps"].clone()).collect();
    assert_eq!(steps, [json!(3), json!(2), json!(1), json!(0)], "{}", history.text());
    // Back past the first write: the file did not exist.
    let reply = server.call("undo", json!({"path": "n.py", "steps": 4})).await.ok();
    assert!(!root.exists("n.py"), "{}", reply.text());
    assert_eq!(reply.json()["removed"], true);
    let text = server.call("undo", json!({"path": "n.py", "steps": 99})).await.err();
    assert!(text.contains("only 5 change(s)"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn an_outside_change_is_not_lost_unless_forced() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "c.txt", "content": "v1\n"})).await.ok();
    server.call("write_file", json!({"path": "c.txt", "content": "v2\n"})).await.ok();
    std::fs::write(root.path().join("c.txt"), "edited by hand\n").expect("outside edit");
    let text = server.call("undo", json!({"path": "c.txt"})).await.err();
    assert!(text.contains("changed outside filewright") && text.contains("force"), "{text}");
    assert_eq!(root.read("c.txt"), b"edited by hand\n");
    server.call("undo", json!({"path": "c.txt", "force": true})).await.ok();
    assert_eq!(root.read("c.txt"), b"v1\n");
    server.stop().await;
}

/// An edit keeps only the text it replaced: undo puts it back around what the edit left,
/// byte for byte (CRLF and all), and refuses, even with `force`, once the file was changed
/// outside, since the rest of the file before the edit is not kept.
#[tokio::test]
async fn an_edit_is_undone_from_the_text_it_replaced_and_not_forced_over_an_outside_change() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let original: String = (0..2_000).map(|k| format!("const v{k} = {k};\r\n")).collect();
    server.call("write_file", json!({"path": "big.js", "content": original})).await.ok();
    server
        .call(
            "edit_file",
            json!({"path": "big.js", "old_string": "const v1000 = 1000;", "new_string": "let w = 0;"}),
        )
        .await
        .ok();
    let edited = root.read("big.js");
    server.call("undo", json!({"path": "big.js"})).await.ok();
    assert_eq!(root.read("big.js"), original.as_bytes(), "undo did not restore the file before the edit");
    // The undo itself is undone from a whole copy; the edit again from its stretch.
    server.call("undo", json!({"path": "big.js"})).await.ok();
    assert_eq!(root.read("big.js"), edited);
    server.call("undo", json!({"path": "big.js", "steps": 2})).await.ok();
    assert_eq!(root.read("big.js"), edited, "two steps back, through both undos, is the edited file");

    server
        .call(
            "edit_file",
            json!({"path": "big.js", "old_string": "const v5 = 5;", "new_string": "const v5 = 50;"}),
        )
        .await
        .ok();
    std::fs::write(root.path().join("big.js"), "replaced by hand\n").expect("outside change");
    let text = server.call("undo", json!({"path": "big.js", "force": true})).await.err();
    assert!(
        text.contains("an edit keeps only the text it replaced") && text.contains("Read the file"),
        "{text}"
    );
    assert_eq!(root.read("big.js"), b"replaced by hand\n", "a refused undo changed the file");
    server.stop().await;
}

#[tokio::test]
async fn claims_hold_for_undo() {
    let root = Root::new();
    let alice = Server::spawn_as(&root, "alice").await;
    let bob = Server::spawn_as(&root, "bob").await;
    alice.call("write_file", json!({"path": "mine.txt", "content": "a\n"})).await.ok();
    let text = bob.call("undo", json!({"path": "mine.txt"})).await.err();
    assert!(text.contains("CONFLICT") && text.contains("alice"), "{text}");
    assert_eq!(root.read("mine.txt"), b"a\n");
    alice.stop().await;
    bob.stop().await;
}

/// A formatter run by --after-write rewrites the file after each write: that rewrite is a
/// journaled change of its own, so undo neither refuses the formatted file as "changed
/// outside filewright" nor loses track of appends.
#[tokio::test]
async fn undo_steps_through_a_formatters_rewrites() {
    let root = Root::new();
    let formatter = "sh -c 'printf \"// formatted\\n\" >> \"$0\"'";
    let server = Server::spawn_with(&root, &["--after-write", formatter]).await;
    server.call("write_file", json!({"path": "f.js", "content": "a = 1;\n"})).await.ok();
    server.call("append_file", json!({"path": "f.js", "content": "b = 2;\n"})).await.ok();
    assert_eq!(root.read("f.js"), b"a = 1;\n// formatted\nb = 2;\n// formatted\n");
    let reply = server.call("undo", json!({"path": "f.js", "steps": 2})).await.ok();
    assert!(
        reply.text().contains("undone: hook") && reply.text().contains("undone: append"),
        "{}",
        reply.text()
    );
    // The undo itself was formatted too (the hook runs after every change), and that is on record.
    assert_eq!(root.read("f.js"), b"a = 1;\n// formatted\n// formatted\n");
    let history = server.call("list_artifacts", json!({"path": "f.js", "history": true})).await.ok();
    assert!(history.text().contains("hook by"), "{}", history.text());
    assert_eq!(history.json()["artifacts"][0]["sha256"], filewright::files::sha256_hex(&root.read("f.js")));
    server.stop().await;
}
