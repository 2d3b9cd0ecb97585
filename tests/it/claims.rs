//! Several real server processes on one root: claims coordinate them, the journal records
//! every write, and the shared database never hangs a call.

use std::collections::HashMap;

use serde_json::json;

use crate::util::{Root, Server};

fn sha256_hex(bytes: &[u8]) -> String {
    filewright::files::sha256_hex(bytes)
}

#[tokio::test]
async fn another_agents_write_is_a_conflict_naming_the_owner_and_writes_nothing() {
    let root = Root::new();
    let frontend = Server::spawn_as(&root, "frontend").await;
    let backend = Server::spawn_as(&root, "backend").await;
    frontend.call("write_file", json!({"path": "src/app.js", "content": "let a = 1;\n"})).await.ok();
    for (tool, args) in [
        ("write_file", json!({"path": "src/app.js", "content": "clobbered\n"})),
        ("append_file", json!({"path": "src/app.js", "content": "clobbered\n"})),
    ] {
        let text = backend.call(tool, args).await.err();
        assert!(text.starts_with("CONFLICT: src/app.js is owned by agent \"frontend\" since "), "{text}");
        assert!(text.contains(" UTC; write a different file or ask that agent to release it"), "{text}");
    }
    assert_eq!(root.read("src/app.js"), b"let a = 1;\n");
    // The refused write staged its content beside the file before it asked for the claim:
    // nothing of it is left.
    let mut left: Vec<String> = std::fs::read_dir(root.path().join("src"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["app.js"]);
    // Reads never conflict.
    backend.call("read_file", json!({"path": "src/app.js"})).await.ok();
    // The per-call agent argument counts as another writer too.
    let text = frontend
        .call("append_file", json!({"path": "src/app.js", "content": "x\n", "agent": "helper"}))
        .await
        .err();
    assert!(text.contains("owned by agent \"frontend\""), "{text}");
    frontend.stop().await;
    backend.stop().await;
}

#[tokio::test]
async fn release_lets_another_agent_write() {
    let root = Root::new();
    let a = Server::spawn_as(&root, "a").await;
    let b = Server::spawn_as(&root, "b").await;
    a.call("claim_files", json!({"paths": ["x.txt", "y.txt"]})).await.ok();
    let text = b.call("claim_files", json!({"paths": ["z.txt", "y.txt"]})).await.err();
    assert!(text.contains("nothing was claimed") && text.contains("y.txt is owned by agent \"a\""), "{text}");
    let listed = b.call("list_claims", json!({})).await.ok();
    assert_eq!(
        listed.json()["claims"].as_array().unwrap().len(),
        2,
        "z.txt was not claimed: {}",
        listed.text()
    );
    let released = b.call("release_files", json!({"paths": ["x.txt"]})).await.ok();
    assert_eq!(released.json()["not_released"][0]["owner"], "a", "b cannot release a's claim");
    a.call("release_files", json!({})).await.ok();
    b.call("write_file", json!({"path": "x.txt", "content": "b's now\n"})).await.ok();
    assert_eq!(root.read("x.txt"), b"b's now\n");
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn four_processes_racing_for_one_claim_grant_it_exactly_once() {
    let root = Root::new();
    for round in 0..5 {
        let servers = futures_join(&root, 4).await;
        let path = format!("contested-{round}.txt");
        let calls = servers.iter().map(|s| s.call("claim_files", json!({"paths": [path.clone()]})));
        let replies = futures::future::join_all(calls).await;
        let winners = replies.iter().filter(|r| !r.is_error()).count();
        assert_eq!(winners, 1, "round {round}: {:?}", replies.iter().map(|r| r.text()).collect::<Vec<_>>());
        for s in servers {
            s.stop().await;
        }
    }
}

async fn futures_join(root: &Root, n: usize) -> Vec<Server> {
    let mut servers = Vec::new();
    for i in 0..n {
        servers.push(Server::spawn_as(root, &format!("agent{i}")).await);
    }
    servers
}

/// N processes x M appends: each to its own file and to one contested file. Only the first
/// writer of the contested file may append to it; no byte is lost or interleaved; the journal
/// matches the disk.
#[tokio::test]
async fn stress_many_processes_appending_lose_nothing_and_interleave_nothing() {
    const N: usize = 4;
    const M: usize = 25;
    let root = Root::new();
    let servers = futures_join(&root, N).await;
    let tasks = servers.iter().enumerate().map(|(i, s)| async move {
        let mut contested_ok = Vec::new();
        for j in 0..M {
            let own = format!("line {j} from agent{i}\n");
            s.call("append_file", json!({"path": format!("own/{i}.txt"), "content": own})).await.ok();
            let shared = format!("agent{i} chunk {j}\n");
            let reply = s.call("append_file", json!({"path": "shared.txt", "content": shared})).await;
            if reply.is_error() {
                assert!(reply.text().starts_with("CONFLICT"), "{}", reply.text());
            } else {
                contested_ok.push(shared);
            }
        }
        (i, contested_ok)
    });
    let results = futures::future::join_all(tasks).await;
    for i in 0..N {
        let expected: String = (0..M).map(|j| format!("line {j} from agent{i}\n")).collect();
        assert_eq!(String::from_utf8(root.read(&format!("own/{i}.txt"))).unwrap(), expected);
    }
    let winners: Vec<_> = results.iter().filter(|(_, ok)| !ok.is_empty()).collect();
    assert_eq!(winners.len(), 1, "exactly one agent owns shared.txt");
    let (winner, chunks) = winners[0];
    assert_eq!(chunks.len(), M, "the owner's appends all landed");
    assert_eq!(String::from_utf8(root.read("shared.txt")).unwrap(), chunks.concat());

    let reply = servers[0].call("list_artifacts", json!({"history": true})).await.ok();
    let artifacts = reply.json()["artifacts"].as_array().unwrap().clone();
    assert_eq!(artifacts.len(), N + 1);
    let by_path: HashMap<String, serde_json::Value> =
        artifacts.into_iter().map(|a| (a["path"].as_str().unwrap().to_string(), a)).collect();
    for (path, artifact) in &by_path {
        assert_eq!(
            artifact["sha256"],
            sha256_hex(&root.read(path)),
            "{path}: journal sha256 equals the disk"
        );
        assert_eq!(artifact["on_disk"], "matches");
        assert_eq!(artifact["writes"], M, "{path}: one journal row per append");
        assert_eq!(artifact["history"].as_array().unwrap().len(), M);
    }
    assert_eq!(by_path["shared.txt"]["agent"], format!("agent{winner}"));
    for s in servers {
        s.stop().await;
    }
}

#[tokio::test]
async fn claims_survive_a_restart_of_the_same_agent() {
    let root = Root::new();
    let a = Server::spawn_as(&root, "alice").await;
    a.call("write_file", json!({"path": "mine.txt", "content": "1\n"})).await.ok();
    a.stop().await;
    let b = Server::spawn_as(&root, "bob").await;
    let text = b.call("append_file", json!({"path": "mine.txt", "content": "2\n"})).await.err();
    assert!(text.contains("owned by agent \"alice\""), "{text}");
    b.stop().await;
    let a = Server::spawn_as(&root, "alice").await;
    a.call("append_file", json!({"path": "mine.txt", "content": "2\n"})).await.ok();
    assert_eq!(root.read("mine.txt"), b"1\n2\n");
    a.stop().await;
}

#[tokio::test]
async fn claims_expire_after_the_ttl() {
    let root = Root::new();
    let a = Server::spawn_with(&root, &["--agent", "alice", "--claim-ttl", "1"]).await;
    let b = Server::spawn_with(&root, &["--agent", "bob", "--claim-ttl", "1"]).await;
    a.call("write_file", json!({"path": "t.txt", "content": "a\n"})).await.ok();
    b.call("append_file", json!({"path": "t.txt", "content": "b\n"})).await.err();
    let listed = b.call("list_claims", json!({})).await.ok();
    assert!(listed.json()["claims"][0]["expires"].is_string(), "{}", listed.text());
    tokio::time::sleep(std::time::Duration::from_millis(1300)).await;
    b.call("append_file", json!({"path": "t.txt", "content": "b\n"})).await.ok();
    assert_eq!(root.read("t.txt"), b"a\nb\n");
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn the_state_directory_is_unreachable_even_inside_the_root() {
    let root = Root::new();
    let state = root.path().join(".filewright");
    let server = Server::spawn_with(&root, &["--state-dir", state.to_str().unwrap()]).await;
    server.call("write_file", json!({"path": "a.txt", "content": "a\n"})).await.ok();
    assert!(state.join("state.db").exists());
    std::os::unix::fs::symlink(".filewright", root.path().join("link")).unwrap();
    std::os::unix::fs::symlink(".filewright/state.db", root.path().join("db")).unwrap();
    let before = std::fs::read(state.join("state.db")).unwrap().len();
    for path in [".filewright/state.db", "./.filewright/x.txt", "link/state.db", "link/sub/new.txt", "db"] {
        for (tool, args) in [
            ("read_file", json!({"path": path})),
            ("write_file", json!({"path": path, "content": "x"})),
            ("append_file", json!({"path": path, "content": "x"})),
        ] {
            let reply = server.call(tool, args).await;
            assert!(reply.is_error(), "{tool} {path} succeeded: {}", reply.text());
        }
    }
    let text = server.call("read_file", json!({"path": ".filewright/state.db"})).await.err();
    assert!(text.contains("state directory"), "{text}");
    let text = server.call("list_directory", json!({"path": "link"})).await.err();
    assert!(text.contains("state directory"), "{text}");
    let reply = server.call("check_files", json!({"paths": ["db", "link/state.db"]})).await.ok();
    assert!(reply.text().contains("state directory"), "{}", reply.text());
    assert!(!state.join("x.txt").exists() && !state.join("sub").exists());
    assert!(std::fs::read(state.join("state.db")).unwrap().len() >= before);
    server.stop().await;
}

#[tokio::test]
async fn a_corrupt_database_is_a_clear_startup_error() {
    let root = Root::new();
    std::fs::create_dir_all(root.state()).unwrap();
    std::fs::write(root.state().join("state.db"), vec![b'#'; 8192]).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_filewright"))
        .arg("--root")
        .arg(root.path())
        .arg("--state-dir")
        .arg(root.state())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("state database") && stderr.contains("move it away"), "{stderr}");
}

#[tokio::test]
async fn a_locked_database_is_a_clear_error_not_a_hang() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "a.txt", "content": "a\n"})).await.ok();
    let conn = rusqlite::Connection::open(root.state().join("state.db")).unwrap();
    conn.execute_batch("BEGIN EXCLUSIVE;").unwrap();
    let call = server.call("append_file", json!({"path": "a.txt", "content": "b\n"}));
    let text = tokio::time::timeout(std::time::Duration::from_secs(30), call)
        .await
        .expect("a locked database is an error, not a hang")
        .err();
    assert!(text.contains("locked by another process"), "{text}");
    conn.execute_batch("ROLLBACK;").unwrap();
    assert_eq!(root.read("a.txt"), b"a\n");
    server.call("append_file", json!({"path": "a.txt", "content": "b\n"})).await.ok();
    server.stop().await;
}
