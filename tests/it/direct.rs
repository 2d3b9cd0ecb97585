//! The calls answered beside rmcp (write, append, read, edit) answer as rmcp's path does.
//! A request with `_meta` always goes through rmcp, so the same call sent with and without it
//! compares the two paths; the server's trace log says which calls the lane took.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::util::Root;

/// A server whose trace log goes to a file, spoken to with raw lines.
struct Logged {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    log: std::path::PathBuf,
    next_id: i64,
}

impl Logged {
    fn start(root: &Root, extra: &[&str]) -> Logged {
        let log = root.state().join("trace.log");
        std::fs::create_dir_all(root.state()).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_filewright"))
            .arg("--root")
            .arg(root.path())
            .arg("--state-dir")
            .arg(root.state())
            .args(extra)
            .env("FILEWRIGHT_LOG", "filewright=trace")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("spawn filewright");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Logged { child, stdin, stdout, log, next_id: 1 };
        server.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "direct", "version": "0"}}}));
        server.receive();
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).unwrap();
        self.stdin.flush().unwrap();
    }

    fn receive(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("a reply");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// Calls `tool` and returns the whole reply, with its id checked and then removed; through
    /// rmcp when `through_rmcp` (an empty `_meta` sends it there).
    fn call(&mut self, tool: &str, args: Value, through_rmcp: bool) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut params = json!({"name": tool, "arguments": args});
        if through_rmcp {
            params["_meta"] = json!({});
        }
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
        let mut reply = self.receive();
        assert_eq!(reply["id"], json!(id), "{reply}");
        reply.as_object_mut().unwrap().remove("id");
        reply
    }

    /// How many calls the lane beside rmcp has taken so far.
    fn taken(&self) -> usize {
        // The log is written as the calls are taken, before they are answered.
        std::fs::read_to_string(&self.log).unwrap().matches("answered beside rmcp").count()
    }
}

impl Drop for Logged {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn calls_answered_beside_rmcp_get_the_replies_rmcp_gives() {
    let root =
        Root::new().file("a.js", "const a = 1;\nfunction f() {\n  return a;\n}\n").file("b.py", "x = 1\n");
    let mut server = Logged::start(&root, &[]);
    // Through rmcp, which waits for the root to be open (the lane leaves a call to rmcp
    // until it is).
    server.call("list_directory", json!({}), true);
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
        let beside = server.call(tool, args.clone(), false);
        let through = server.call(tool, args.clone(), true);
        assert_eq!(beside, through, "{tool} {args}");
    }
    assert_eq!(
        server.taken(),
        same_state.len(),
        "the plain calls were not answered beside rmcp: {}",
        std::fs::read_to_string(&server.log).unwrap()
    );
    // What one path changes, the other sees.
    let edited =
        server.call("edit_file", json!({"path": "a.js", "old_string": "2", "new_string": "3"}), false);
    assert_eq!(edited["result"]["isError"], json!(false), "{edited}");
    server.call("append_file", json!({"path": "a.js", "content": "const b = 4;\n"}), true);
    let read = server.call("read_file", json!({"path": "a.js"}), false);
    let shown = read["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(shown.contains("1\tconst a = 3;\n2\tconst b = 4;"), "{read}");
    assert_eq!(root.read("a.js"), b"const a = 3;\nconst b = 4;\n");
}

#[test]
fn what_the_lane_cannot_answer_alike_goes_to_rmcp() {
    let root = Root::new().file("a.txt", "a\n");
    let mut server = Logged::start(&root, &["--profile", "readonly"]);
    server.call("list_directory", json!({}), true);
    // Arguments of the wrong type: rmcp's own error for them.
    let wrong = server.call("read_file", json!({"path": 5}), false);
    assert!(wrong.get("error").is_some() || wrong["result"]["isError"] == json!(true), "{wrong}");
    // A tool the profile leaves out: rmcp's tool error that names the profile.
    let left_out = server.call("write_file", json!({"path": "a.txt", "content": "b"}), false);
    assert!(left_out.to_string().contains("--profile readonly"), "{left_out}");
    // Another tool, and a string id.
    let listed = server.call("list_directory", json!({}), false);
    assert_eq!(listed["result"]["isError"], json!(false), "{listed}");
    server.send(&json!({"jsonrpc": "2.0", "id": "x-1", "method": "tools/call",
        "params": {"name": "read_file", "arguments": {"path": "a.txt"}}}));
    let by_text_id = server.receive();
    assert_eq!(by_text_id["id"], json!("x-1"));
    assert_eq!(by_text_id["result"]["isError"], json!(false), "{by_text_id}");
    assert_eq!(server.taken(), 1, "only the read with a string id is the lane's");
    assert_eq!(root.read("a.txt"), b"a\n");
}

#[test]
fn a_call_before_initialized_is_left_to_rmcp() {
    let root = Root::new().file("a.txt", "a\n");
    let mut server = Logged::start(&root, &[]);
    server.call("list_directory", json!({}), true);
    // The lane opened with this server's `notifications/initialized`; a fresh server that
    // was only sent `initialize` takes nothing.
    let log = root.state().join("early.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_filewright"))
        .arg("--root")
        .arg(root.path())
        .arg("--state-dir")
        .arg(root.state())
        .env("FILEWRIGHT_LOG", "filewright=trace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"early","version":"0"}}}}}}"#).unwrap();
    stdout.read_line(&mut line).unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"read_file","arguments":{{"path":"a.txt"}}}}}}"#).unwrap();
    line.clear();
    stdout.read_line(&mut line).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(line.contains("\"id\":1"), "{line}");
    assert_eq!(std::fs::read_to_string(&log).unwrap().matches("answered beside rmcp").count(), 0);
    // The initialized server's lane works.
    server.call("read_file", json!({"path": "a.txt"}), false);
    assert_eq!(server.taken(), 1);
}
