//! The calls answered beside rmcp (write, append, read, edit) answer as rmcp's path does.
//! A request with `_meta` always goes through rmcp, so the same call sent with and without it
//! compares the two paths; the server's trace log says which calls the lane took.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::{RawServer, Root};

/// A server whose trace log goes to `log` in the state directory; initialized, and past one
/// call through rmcp, which waits for the root to be open (until it is, the lane leaves
/// calls to rmcp).
fn logged(root: &Root, extra: &[&str], log: &str) -> (RawServer, PathBuf) {
    std::fs::create_dir_all(root.state()).unwrap();
    let log = root.state().join(log);
    let mut server = RawServer::spawn(root, extra, Some(("filewright=trace", &log))).initialized();
    call(&mut server, "list_directory", json!({}), true);
    (server, log)
}

/// Calls `tool` and returns the whole reply without its id; through rmcp when `through_rmcp`
/// (an empty `_meta` sends it there).
fn call(server: &mut RawServer, tool: &str, args: Value, through_rmcp: bool) -> Value {
    let mut params = json!({"name": tool, "arguments": args});
    if through_rmcp {
        params["_meta"] = json!({});
    }
    let mut reply = server.request("tools/call", params);
    reply.as_object_mut().unwrap().remove("id");
    reply
}

/// How many calls the lane beside rmcp has taken, by the log (written as a call is taken,
/// before it is answered).
fn taken(log: &Path) -> usize {
    std::fs::read_to_string(log).unwrap().matches("answered beside rmcp").count()
}

#[test]
fn calls_answered_beside_rmcp_get_the_replies_rmcp_gives() {
    let root =
        Root::new().file("a.js", "const a = 1;\nfunction f() {\n  return a;\n}\n").file("b.py", "x = 1\n");
    let (mut server, log) = logged(&root, &[], "trace.log");
    // Each call twice, the second time onto the same state, once on each path.
    let same_state: Vec<(&str, Value)> = vec![
        ("read_file", json!({"path": "a.js"})),
        ("read_file", json!({"path": "a.js", "offset": -2, "anchors": true})),
        ("read_file", json!({"path": "missing.js"})),
        ("read_file", json!({"path": "b.py"})),
        ("write_file", json!({"path": "a.js", "content": "const a = 2;\n"})),
        ("write_file", json!({"path": "b.py", "content": "def f(:\n"})),
        ("write_file", json!({"path": "c.js"})),
        ("write_file", json!({"path": "../outside.js", "content": "x"})),
        ("edit_file", json!({"path": "a.js", "old_string": "nowhere", "new_string": "x"})),
        ("edit_file", json!({"path": "a.js", "old_string": "2", "new_string": "3", "dry_run": true})),
        ("edit_file", json!({"path": "a.js", "old_string": "2", "new_string": "3", "edits": []})),
        ("append_file", json!({"path": "a.js", "content": "x", "expected_size": 1})),
    ];
    for (tool, args) in &same_state {
        let beside = call(&mut server, tool, args.clone(), false);
        let through = call(&mut server, tool, args.clone(), true);
        assert_eq!(beside, through, "{tool} {args}");
    }
    assert_eq!(taken(&log), same_state.len(), "the plain calls were not answered beside rmcp");
    // What one path changes, the other sees.
    let edited =
        call(&mut server, "edit_file", json!({"path": "a.js", "old_string": "2", "new_string": "3"}), false);
    assert_eq!(edited["result"]["isError"], json!(false), "{edited}");
    call(&mut server, "append_file", json!({"path": "a.js", "content": "const b = 4;\n"}), true);
    let read = call(&mut server, "read_file", json!({"path": "a.js"}), false);
    let shown = read["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(shown.contains("1\tconst a = 3;\n2\tconst b = 4;"), "{read}");
    assert_eq!(root.read("a.js"), b"const a = 3;\nconst b = 4;\n");
}

#[test]
fn what_the_lane_cannot_answer_alike_goes_to_rmcp() {
    let root = Root::new().file("a.txt", "a\n");
    let (mut server, log) = logged(&root, &["--profile", "readonly"], "trace.log");
    // Arguments of the wrong type: rmcp's own error for them.
    let wrong = call(&mut server, "read_file", json!({"path": 5}), false);
    assert!(wrong.get("error").is_some() || wrong["result"]["isError"] == json!(true), "{wrong}");
    // A tool the profile leaves out: rmcp's tool error that names the profile.
    let left_out = call(&mut server, "write_file", json!({"path": "a.txt", "content": "b"}), false);
    assert!(left_out.to_string().contains("--profile readonly"), "{left_out}");
    // Another tool, and a string id.
    let listed = call(&mut server, "list_directory", json!({}), false);
    assert_eq!(listed["result"]["isError"], json!(false), "{listed}");
    server.send(&json!({"jsonrpc": "2.0", "id": "x-1", "method": "tools/call",
        "params": {"name": "read_file", "arguments": {"path": "a.txt"}}}));
    let by_text_id = server.receive();
    assert_eq!(by_text_id["id"], json!("x-1"));
    assert_eq!(by_text_id["result"]["isError"], json!(false), "{by_text_id}");
    assert_eq!(taken(&log), 1, "only the read with a string id is the lane's");
    assert_eq!(root.read("a.txt"), b"a\n");
}

#[test]
fn a_call_before_initialized_is_left_to_rmcp() {
    let root = Root::new().file("a.txt", "a\n");
    std::fs::create_dir_all(root.state()).unwrap();
    let log = root.state().join("early.log");
    let mut early = RawServer::spawn(&root, &[], Some(("filewright=trace", &log)));
    let reply = early.request("tools/call", json!({"name": "read_file", "arguments": {"path": "a.txt"}}));
    assert!(reply.get("result").is_some() || reply.get("error").is_some(), "{reply}");
    assert_eq!(taken(&log), 0, "a call before notifications/initialized was taken");
    // Once initialized, the lane takes the same call.
    let mut server = early.initialized();
    call(&mut server, "list_directory", json!({}), true);
    call(&mut server, "read_file", json!({"path": "a.txt"}), false);
    assert_eq!(taken(&log), 1);
}

/// A `tools/list` the lane answers (no cursor, no `_meta`) is the one rmcp gives, byte for
/// byte, for every profile; one with `_meta` or a cursor still goes to rmcp.
#[test]
fn tools_list_beside_rmcp_is_the_list_rmcp_gives() {
    for profile in ["full", "coding", "readonly"] {
        let root = Root::new();
        let (mut server, log) = logged(&root, &["--profile", profile], "trace.log");
        let mut beside = server.request("tools/list", json!({}));
        let mut through = server.request("tools/list", json!({"_meta": {}}));
        let mut without_params = {
            server.send(&json!({"jsonrpc": "2.0", "id": "no-params", "method": "tools/list"}));
            server.receive()
        };
        assert_eq!(without_params["id"], json!("no-params"), "a text id is sent back as it came");
        for reply in [&mut beside, &mut through, &mut without_params] {
            reply.as_object_mut().unwrap().remove("id");
        }
        assert_eq!(beside, through, "{profile}");
        assert_eq!(without_params, through, "{profile}");
        let listed = std::fs::read_to_string(&log).unwrap().matches("tools/list listed beside rmcp").count();
        assert_eq!(listed, 2, "{profile}: the plain requests were not answered beside rmcp");
        let tools = beside["result"]["tools"].as_array().unwrap().len();
        assert_eq!(
            tools,
            match profile {
                "full" => 22,
                "coding" => 18,
                _ => 9,
            },
            "{profile}"
        );
        let paged = server.request("tools/list", json!({"cursor": "x"}));
        let listed = std::fs::read_to_string(&log).unwrap().matches("tools/list listed beside rmcp").count();
        assert_eq!(listed, 2, "{profile}: a request with a cursor is rmcp's: {paged}");
    }
}

/// A call with the string "tools/list" in its arguments (here its whole path) is still a call
/// the lane answers, and so keeps its order with the calls around it.
#[test]
fn a_call_that_mentions_tools_list_is_still_answered_beside_rmcp() {
    let root = Root::new();
    let (mut server, log) = logged(&root, &[], "trace.log");
    let before = taken(&log);
    let reply = call(&mut server, "write_file", json!({"path": "tools/list", "content": "a\n"}), false);
    assert_eq!(reply["result"]["isError"], json!(false), "{reply}");
    assert_eq!(taken(&log), before + 1, "the write went to rmcp");
    assert_eq!(root.read("tools/list"), b"a\n");
}

/// A call on a line too long to run where it is read goes to the lane's thread; the small calls
/// sent right behind it must wait for it there, not run ahead of it on the reading thread.
#[test]
fn a_small_call_behind_a_large_one_lands_after_it() {
    let root = Root::new().file("log.txt", "start\n");
    let (mut server, log) = logged(&root, &[], "trace.log");
    let before = taken(&log);
    // Over the inline limit, and long enough to append that the small calls arrive while it runs.
    let large = "0123456789abcdef0123456789abcdef0123456789abcdef012345678901234\n".repeat(32 * 1024);
    let mut lines = Vec::new();
    for (id, content) in [(901, large.as_str()), (902, "small one\n"), (903, "small two\n")] {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "append_file", "arguments": {"path": "log.txt", "content": content}}});
        lines.extend(serde_json::to_vec(&request).unwrap());
        lines.push(b'\n');
    }
    server.send_raw(&lines);
    let mut ids: Vec<i64> = (0..3).map(|_| server.receive()["id"].as_i64().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, [901, 902, 903]);
    assert_eq!(taken(&log), before + 3, "the appends went to rmcp");
    let landed = String::from_utf8(root.read("log.txt")).unwrap();
    let small_at = landed.find("small one");
    assert!(
        landed == format!("start\n{large}small one\nsmall two\n"),
        "the small appends landed at {small_at:?}"
    );
}

/// A write the `--after-write` hook follows may take as long as the hook: it runs on the lane's
/// thread, so rmcp still answers a `ping` sent behind it at once.
#[test]
fn a_write_with_a_hook_leaves_the_reading_thread_free() {
    let root = Root::new();
    let (mut server, log) = logged(&root, &["--after-write", "sh -c 'sleep 2'"], "trace.log");
    let before = taken(&log);
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
    assert_eq!(taken(&log), before + 1, "the write went to rmcp");
}
