//! `--after-write`: one hook for write, append and edit alike.

use serde_json::json;

use crate::util::{RawServer, Root, Server};

#[tokio::test]
async fn the_after_write_hook_runs_for_write_append_and_edit() {
    let root = Root::new();
    let log = root.outside().join("hook.log");
    let cmd = format!("sh -c 'echo \"$0\" >> {}; echo checked \"$0\"'", log.display());
    let server = Server::spawn_with(&root, &["--after-write", &cmd]).await;
    let reply = server.call("write_file", json!({"path": "src/a.py", "content": "x = 1\n"})).await.ok();
    assert_eq!(reply.json()["hook"]["exit_code"], 0, "{}", reply.text());
    assert!(reply.text().contains("checked src/a.py"), "{}", reply.text());
    server.call("append_file", json!({"path": "src/a.py", "content": "y = 2\n"})).await.ok();
    server
        .call("edit_file", json!({"path": "src/a.py", "old_string": "y = 2", "new_string": "y = 3"}))
        .await
        .ok();
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "src/a.py\nsrc/a.py\nsrc/a.py\n");
    server.stop().await;
}

#[tokio::test]
async fn a_formatting_hook_is_reflected_in_the_syntax_check_and_a_slow_one_is_killed() {
    let root = Root::new();
    // A "formatter" that breaks the file: the check must describe the file on disk.
    let server = Server::spawn_with(&root, &["--after-write", "sh -c 'printf \"def (\\n\" > \"$0\"'"]).await;
    let reply = server.call("write_file", json!({"path": "f.py", "content": "x = 1\n"})).await.ok();
    // The hook left `def (` on disk (no name can follow `def`: broken at line 1), not the
    // `x = 1` that was sent, which is ok.
    assert_eq!(reply.json()["syntax"]["status"], "errors", "{}", reply.text());
    assert_eq!(reply.json()["syntax"]["problems"][0]["line"], 1, "{}", reply.text());
    assert_eq!(root.read("f.py"), b"def (\n");
    server.stop().await;
    let server = Server::spawn_with(&root, &["--after-write", "sleep 20; true", "--hook-timeout", "1"]).await;
    let call = server.call("write_file", json!({"path": "g.txt", "content": "g\n"}));
    let reply = tokio::time::timeout(std::time::Duration::from_secs(10), call)
        .await
        .expect("a hook past its timeout is killed, not waited for")
        .ok();
    assert_eq!(reply.json()["hook"]["timed_out"], true, "{}", reply.text());
    assert_eq!(root.read("g.txt"), b"g\n");
    server.stop().await;
}

/// A write the `--after-write` hook follows may take as long as the hook: it runs on a thread
/// of its own, so a `ping` sent behind it is answered at once.
#[test]
fn a_write_with_a_slow_hook_does_not_hold_up_other_requests() {
    let root = Root::new();
    let mut server = RawServer::start_with(&root, &["--after-write", "sh -c 'sleep 2'"]);
    let write = json!({"jsonrpc": "2.0", "id": 801, "method": "tools/call",
        "params": {"name": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}}});
    let ping = json!({"jsonrpc": "2.0", "id": 802, "method": "ping"});
    let mut lines = serde_json::to_vec(&write).unwrap();
    lines.push(b'\n');
    lines.extend(serde_json::to_vec(&ping).unwrap());
    lines.push(b'\n');
    server.send_raw(&lines);
    let first = server.receive();
    assert_eq!(first["id"], json!(802), "the ping waited for the hook: {first}");
    let second = server.receive();
    assert_eq!(second["id"], json!(801), "{second}");
    assert_eq!(second["result"]["isError"], json!(false), "{second}");
}
