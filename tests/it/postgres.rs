//! Several server processes on one root and one PostgreSQL (`--store`), each with its own
//! state directory: they stand for several hosts over one shared workspace, and must behave
//! as one claim map and one journal.
//!
//! The database comes from `FILEWRIGHT_TEST_POSTGRES` (a URL); `bash .ci/run` provisions a
//! throwaway one and sets it, with `FILEWRIGHT_REQUIRE_POSTGRES=1` so that a missing database
//! fails CI instead of skipping. Without it these tests say they were skipped, and pass.
//! Each test uses its own `--root-id`, so they share the database without sharing rows.

use std::io::Write;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use crate::util::{Root, Server};

/// The database URL, or None after saying why these tests are skipped.
fn database(test: &str) -> Option<String> {
    match std::env::var("FILEWRIGHT_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => skipped(
            test,
            "FILEWRIGHT_TEST_POSTGRES is not set (no PostgreSQL to test the shared store against)",
        ),
    }
}

/// Says why `test` is skipped, or fails it when CI requires the database (and what it needs).
fn skipped<T>(test: &str, why: &str) -> Option<T> {
    assert!(
        std::env::var("FILEWRIGHT_REQUIRE_POSTGRES").as_deref() != Ok("1"),
        "FILEWRIGHT_REQUIRE_POSTGRES=1 but {why}"
    );
    // Straight to stderr, past the test harness's capture, so that the skip shows.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED postgres::{test}: {why}. `bash .ci/run` provisions a PostgreSQL and runs these tests."
    );
    None
}

/// A root identity no other test uses.
fn root_id(test: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{test}-{}-{nanos}", std::process::id())
}

/// One "host": a server on the shared root with its own state directory.
async fn host(root: &Root, url: &str, id: &str, name: &str, agent: &str, extra: &[&str]) -> Server {
    let state = root.state().join(name);
    let mut args =
        vec!["--agent", agent, "--store", url, "--root-id", id, "--state-dir", state.to_str().unwrap()];
    args.extend_from_slice(extra);
    Server::spawn_with(root, &args).await
}

#[tokio::test]
async fn hosts_share_one_claim_map_and_one_journal() {
    let Some(url) = database("hosts_share_one_claim_map_and_one_journal") else { return };
    let root = Root::new();
    let id = root_id("share");
    let a = host(&root, &url, &id, "a", "frontend", &[]).await;
    let b = host(&root, &url, &id, "b", "backend", &[]).await;
    a.call("write_file", json!({"path": "src/app.js", "content": "let a = 1;\n"})).await.ok();
    let text = b.call("append_file", json!({"path": "src/app.js", "content": "clobbered\n"})).await.err();
    assert!(text.starts_with("CONFLICT: src/app.js is owned by agent \"frontend\" since "), "{text}");
    assert_eq!(root.read("src/app.js"), b"let a = 1;\n");
    b.call("write_file", json!({"path": "server.py", "content": "x = 1\n"})).await.ok();

    for server in [&a, &b] {
        let claims = server.call("list_claims", json!({})).await.ok();
        let claims = claims.json()["claims"].as_array().unwrap().clone();
        assert_eq!(claims.len(), 2, "{claims:?}");
        assert!(claims.iter().all(|c| c["token"].as_u64().is_some_and(|t| t > 0)), "{claims:?}");
        let artifacts = server.call("list_artifacts", json!({})).await.ok();
        let listed: Vec<(String, String)> = artifacts.json()["artifacts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| (a["path"].as_str().unwrap().to_string(), a["agent"].as_str().unwrap().to_string()))
            .collect();
        assert_eq!(
            listed,
            [
                ("server.py".to_string(), "backend".to_string()),
                ("src/app.js".to_string(), "frontend".to_string())
            ]
        );
    }
    // Another root identity on the same database shares nothing.
    let other = host(&root, &url, &root_id("other"), "c", "backend", &[]).await;
    other.call("write_file", json!({"path": "src/app.js", "content": "let a = 2;\n"})).await.ok();
    let artifacts = other.call("list_artifacts", json!({})).await.ok();
    assert_eq!(artifacts.json()["artifacts"].as_array().unwrap().len(), 1);
    for server in [a, b, other] {
        server.stop().await;
    }
}

#[tokio::test]
async fn exactly_one_host_wins_a_race_for_a_path() {
    let Some(url) = database("exactly_one_host_wins_a_race_for_a_path") else { return };
    let root = Root::new();
    let id = root_id("race");
    let mut hosts = Vec::new();
    for k in 0..6 {
        hosts.push(host(&root, &url, &id, &format!("h{k}"), &format!("agent{k}"), &[]).await);
    }
    for round in 0..3 {
        let path = format!("race{round}.txt");
        let calls = hosts.iter().enumerate().map(|(k, h)| {
            let args = json!({"path": path, "content": format!("written by agent{k}\n")});
            async move { h.call("write_file", args).await }
        });
        let replies = futures::future::join_all(calls).await;
        let winners: Vec<usize> = (0..replies.len()).filter(|&k| !replies[k].is_error()).collect();
        assert_eq!(winners.len(), 1, "round {round}: exactly one winner, got {winners:?}");
        for (k, reply) in replies.iter().enumerate() {
            if k != winners[0] {
                assert!(
                    reply
                        .text()
                        .starts_with(&format!("CONFLICT: {path} is owned by agent \"agent{}\"", winners[0]))
                );
            }
        }
        assert_eq!(root.read(&path), format!("written by agent{}\n", winners[0]).as_bytes());
    }
    for h in hosts {
        h.stop().await;
    }
}

#[tokio::test]
async fn appends_from_several_hosts_never_interleave() {
    let Some(url) = database("appends_from_several_hosts_never_interleave") else { return };
    let root = Root::new();
    let id = root_id("appends");
    let mut hosts = Vec::new();
    for k in 0..3 {
        // One agent working from three hosts: no conflicts, only the serialisation of appends.
        hosts.push(host(&root, &url, &id, &format!("h{k}"), "team", &[]).await);
    }
    const CHUNKS: usize = 15;
    let runs = hosts.iter().enumerate().map(|(k, h)| async move {
        for c in 0..CHUNKS {
            // A chunk of many lines, large enough that a torn or interleaved write would show.
            let chunk: String = (0..200).map(|l| format!("host {k} chunk {c} line {l}\n")).collect();
            h.call("append_file", json!({"path": "log.txt", "content": chunk})).await.ok();
        }
    });
    futures::future::join_all(runs).await;
    let text = String::from_utf8(root.read("log.txt")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3 * CHUNKS * 200);
    for chunk in lines.chunks(200) {
        let head = chunk[0].rsplit_once(" line ").unwrap().0;
        for (l, line) in chunk.iter().enumerate() {
            assert_eq!(*line, format!("{head} line {l}"), "a chunk was interleaved");
        }
    }
    let artifacts = hosts[0].call("list_artifacts", json!({"path": "log.txt", "history": true})).await.ok();
    assert_eq!(artifacts.json()["artifacts"][0]["writes"], 3 * CHUNKS as u64);
    assert_eq!(artifacts.json()["artifacts"][0]["size"], text.len() as u64);
    // The journal tells the appends in the order they landed: each row's size is the last
    // one's plus what it added, and its sha256 is that of the file up to there. Appends that
    // raced (each a single write, atomic on a local disk) would still be recorded out of order.
    let mut size = 0u64;
    for row in artifacts.json()["artifacts"][0]["history"].as_array().unwrap() {
        size += row["added"].as_u64().unwrap();
        assert_eq!(row["size"].as_u64(), Some(size), "{row}");
        let prefix = &text.as_bytes()[..size as usize];
        assert_eq!(row["sha256"].as_str(), Some(filewright::files::sha256_hex(prefix).as_str()), "{row}");
    }
    for h in hosts {
        h.stop().await;
    }
}

#[tokio::test]
async fn claims_expire_after_the_ttl_and_a_superseded_token_is_refused() {
    let Some(url) = database("claims_expire_after_the_ttl_and_a_superseded_token_is_refused") else { return };
    let root = Root::new();
    let id = root_id("ttl");
    let ttl = ["--claim-ttl", "1"];
    let a = host(&root, &url, &id, "a", "alice", &ttl).await;
    let b = host(&root, &url, &id, "b", "bob", &ttl).await;
    a.call("write_file", json!({"path": "doc.md", "content": "# alice\n"})).await.ok();
    let text = b.call("write_file", json!({"path": "doc.md", "content": "# bob\n"})).await.err();
    assert!(text.starts_with("CONFLICT: doc.md is owned by agent \"alice\""), "{text}");
    let alice_token =
        a.call("list_claims", json!({})).await.ok().json()["claims"][0]["token"].as_u64().unwrap();

    tokio::time::sleep(Duration::from_millis(1300)).await;
    // Alice's claim lapsed: bob is given the path under a newer token, writes, and lets go.
    assert!(b.call("list_claims", json!({})).await.ok().json()["claims"].as_array().unwrap().is_empty());
    b.call("write_file", json!({"path": "doc.md", "content": "# bob\n"})).await.ok();
    let bob_token =
        b.call("list_claims", json!({})).await.ok().json()["claims"][0]["token"].as_u64().unwrap();
    assert!(bob_token > alice_token, "{alice_token} then {bob_token}");
    b.call("release_files", json!({})).await.ok();

    // Alice still writes under her old token: refused, and bob's file stays.
    let text = a.call("append_file", json!({"path": "doc.md", "content": "more from alice\n"})).await.err();
    assert!(
        text.starts_with(&format!("SUPERSEDED: your claim on doc.md (fencing token {alice_token}) lapsed")),
        "{text}"
    );
    assert!(text.contains(&format!("agent \"bob\" was given the path since (token {bob_token})")), "{text}");
    assert_eq!(root.read("doc.md"), b"# bob\n");
    // Claiming it again is how she says she has seen bob's change.
    a.call("claim_files", json!({"paths": ["doc.md"]})).await.ok();
    a.call("append_file", json!({"path": "doc.md", "content": "more from alice\n"})).await.ok();
    assert_eq!(root.read("doc.md"), b"# bob\nmore from alice\n");
    a.stop().await;
    b.stop().await;
}

#[tokio::test]
async fn undo_takes_back_a_change_made_on_another_host() {
    let Some(url) = database("undo_takes_back_a_change_made_on_another_host") else { return };
    let root = Root::new();
    let id = root_id("undo");
    let a = host(&root, &url, &id, "a", "team", &[]).await;
    let b = host(&root, &url, &id, "b", "team", &[]).await;
    a.call("write_file", json!({"path": "main.py", "content": "x = 1\n"})).await.ok();
    b.call("edit_file", json!({"path": "main.py", "old_string": "x = 1", "new_string": "x = 2"})).await.ok();
    b.call("append_file", json!({"path": "main.py", "content": "y = 3\n"})).await.ok();
    let history = a.call("list_artifacts", json!({"path": "main.py", "history": true})).await.ok();
    let actions: Vec<&str> = history.json()["artifacts"][0]["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["write", "edit", "append"]);
    a.call("undo", json!({"path": "main.py", "steps": 2})).await.ok();
    assert_eq!(root.read("main.py"), b"x = 1\n");
    let latest = b.call("list_artifacts", json!({"path": "main.py"})).await.ok();
    assert_eq!(latest.json()["artifacts"][0]["action"], "undo");
    a.stop().await;
    b.stop().await;
}

/// The server links the C library in (`.cargo/config.toml`), whose host-name lookups go through
/// modules it may have to load at run time: a store named by host name, not by address, must
/// still be reached.
#[tokio::test]
async fn a_store_named_by_host_name_is_reached() {
    let Some(url) = database("a_store_named_by_host_name_is_reached") else { return };
    // The database CI provisions listens on 127.0.0.1; another is taken as it is named.
    let by_name = url.replacen("@127.0.0.1:", "@localhost:", 1);
    let root = Root::new();
    let id = root_id("by-name");
    let server = host(&root, &by_name, &id, "a", "named", &[]).await;
    server.call("write_file", json!({"path": "a.py", "content": "x = 1\n"})).await.ok();
    let claims = server.call("list_claims", json!({})).await.ok();
    assert_eq!(claims.json()["claims"][0]["agent"], "named", "{}", claims.text());
    server.stop().await;
}

#[tokio::test]
async fn a_connection_the_server_ended_while_idle_is_replaced_without_failing_a_call() {
    let Some(url) = database("a_connection_the_server_ended_while_idle_is_replaced_without_failing_a_call")
    else {
        return;
    };
    let root = Root::new();
    let id = root_id("idle");
    let name = format!("fw-{id}");
    let tagged = format!("{url}?application_name={name}");
    let a = host(&root, &tagged, &id, "a", "alice", &[]).await;
    a.call("write_file", json!({"path": "a.txt", "content": "one\n"})).await.ok();
    // A restart, a failover or an idle timeout: the server ends the connection between calls.
    let ended = tokio::task::spawn_blocking(move || {
        let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let row = admin
            .query_one(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1",
                &[&name],
            )
            .unwrap();
        row.get::<_, i64>(0)
    })
    .await
    .unwrap();
    assert!(ended >= 1, "the server's connection was found and ended");
    a.call("append_file", json!({"path": "a.txt", "content": "two\n"})).await.ok();
    a.call("list_claims", json!({})).await.ok();
    assert_eq!(root.read("a.txt"), b"one\ntwo\n");
    a.stop().await;
}

#[tokio::test]
async fn sslmode_require_encrypts_and_trusts_only_a_known_certificate_authority() {
    let test = "sslmode_require_encrypts_and_trusts_only_a_known_certificate_authority";
    let Some(url) = database(test) else { return };
    let ca = match std::env::var("FILEWRIGHT_TEST_POSTGRES_CA") {
        Ok(ca) if std::path::Path::new(&ca).is_file() => ca,
        _ => {
            let why = "FILEWRIGHT_TEST_POSTGRES_CA names no certificate authority file (the database's TLS is unknown)";
            skipped::<()>(test, why);
            return;
        }
    };
    let root = Root::new();
    let id = root_id("tls");
    let name = format!("fw-{id}");
    let a = host(
        &root,
        &format!("{url}?sslmode=require&application_name={name}"),
        &id,
        "a",
        "alice",
        &["--store-ca", &ca],
    )
    .await;
    a.call("write_file", json!({"path": "a.txt", "content": "over TLS\n"})).await.ok();
    let admin_url = url.clone();
    let (connections, encrypted) = tokio::task::spawn_blocking(move || {
        let mut admin = postgres::Client::connect(&admin_url, postgres::NoTls).unwrap();
        let row = admin
            .query_one(
                "SELECT count(*), COALESCE(bool_and(s.ssl), false) FROM pg_stat_ssl s
                 JOIN pg_stat_activity a ON a.pid = s.pid WHERE a.application_name = $1",
                &[&name],
            )
            .unwrap();
        (row.get::<_, i64>(0), row.get::<_, bool>(1))
    })
    .await
    .unwrap();
    assert!(connections >= 1 && encrypted, "{connections} connection(s), encrypted: {encrypted}");

    // Without the authority the server's certificate is not trusted: nothing is written.
    let b = host(&root, &format!("{url}?sslmode=require"), &id, "b", "bob", &[]).await;
    let text = b.call("write_file", json!({"path": "b.txt", "content": "not over TLS\n"})).await.err();
    assert!(text.contains("cannot be reached") && text.contains("nothing was written"), "{text}");
    assert!(text.contains("certificate"), "the error names the certificate: {text}");
    assert!(!root.exists("b.txt"));
    a.stop().await;
    b.stop().await;
}

/// A TCP proxy in front of the database that the test can cut and restore: the database
/// "going away" for one server without stopping it for the other tests.
struct Proxy {
    port: u16,
    up: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    fn start(upstream: &str) -> Proxy {
        let upstream = upstream.to_string();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let up = Arc::new(AtomicBool::new(true));
        let open = Arc::new(Mutex::new(Vec::new()));
        let (up2, open2) = (up.clone(), open.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if !up2.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(&upstream) else { continue };
                let mut list = open2.lock().unwrap();
                list.push(client.try_clone().unwrap());
                list.push(server.try_clone().unwrap());
                for (mut from, mut to) in
                    [(client.try_clone().unwrap(), server.try_clone().unwrap()), (server, client)]
                {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Both);
                    });
                }
            }
        });
        Proxy { port, up, open }
    }

    /// Cuts every open connection and refuses new ones.
    fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        for stream in self.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

/// `url` with its host and port replaced by the proxy's.
fn through(url: &str, proxy: &Proxy) -> String {
    let rest = url.split_once("://").unwrap().1;
    let (user, rest) = rest.split_once('@').unwrap();
    let db = rest.split_once('/').unwrap().1;
    format!("postgres://{user}@127.0.0.1:{}/{db}", proxy.port)
}

#[tokio::test]
async fn a_database_that_goes_away_fails_writes_with_nothing_written_and_reads_go_on() {
    let Some(url) = database("a_database_that_goes_away_fails_writes_with_nothing_written_and_reads_go_on")
    else {
        return;
    };
    let address = url.split_once('@').unwrap().1.split_once('/').unwrap().0.to_string();
    let proxy = Proxy::start(&address);
    let proxied = through(&url, &proxy);
    let root = Root::new().file("notes.md", "# notes\n");
    let id = root_id("down");
    let a = host(&root, &proxied, &id, "a", "alice", &[]).await;
    a.call("write_file", json!({"path": "app.js", "content": "let a = 1;\n"})).await.ok();

    proxy.cut();
    for (tool, args) in [
        ("write_file", json!({"path": "app.js", "content": "let a = 2;\n"})),
        ("append_file", json!({"path": "app.js", "content": "let b = 2;\n"})),
        ("write_file", json!({"path": "new.js", "content": "let c = 3;\n"})),
    ] {
        let text = a.call(tool, args).await.err();
        assert!(text.contains("cannot be reached"), "{tool}: {text}");
        assert!(text.contains("nothing was written"), "{tool}: {text}");
    }
    assert_eq!(root.read("app.js"), b"let a = 1;\n");
    assert!(!root.exists("new.js"));
    let read = a.call("read_file", json!({"path": "notes.md"})).await.ok();
    assert!(read.text().contains("# notes"), "{}", read.text());
    a.call("read_file", json!({"path": "app.js"})).await.ok();
    // A server started while the database is away still serves reads.
    let b = host(&root, &proxied, &id, "b", "bob", &[]).await;
    b.call("read_file", json!({"path": "notes.md"})).await.ok();

    proxy.restore();
    a.call("append_file", json!({"path": "app.js", "content": "let b = 2;\n"})).await.ok();
    assert_eq!(root.read("app.js"), b"let a = 1;\nlet b = 2;\n");
    let text = b.call("write_file", json!({"path": "app.js", "content": "mine\n"})).await.err();
    assert!(text.starts_with("CONFLICT: app.js is owned by agent \"alice\""), "{text}");
    let artifacts = b.call("list_artifacts", json!({"path": "app.js"})).await.ok();
    assert_eq!(artifacts.json()["artifacts"][0]["writes"], 2, "the refused calls left no rows");
    a.stop().await;
    b.stop().await;
}

/// Writes and reads sent as plain JSON-RPC lines (without `_meta`, as most clients send
/// them) work on a PostgreSQL store, whose client blocks on a runtime of its own.
#[test]
fn plain_writes_and_reads_work_on_postgres() {
    let Some(url) = database("plain_writes_and_reads_work_on_postgres") else { return };
    let root = Root::new();
    let id = root_id("plain-calls");
    let args = ["--store", url.as_str(), "--root-id", id.as_str()];
    let mut server = crate::util::RawServer::spawn(&root, &args, None).initialized();
    for k in 0..3 {
        let path = format!("f{k}.js");
        let written = server.request(
            "tools/call",
            json!({"name": "write_file", "arguments": {"path": path, "content": "let a = 1;\n"}}),
        );
        assert_eq!(written["result"]["isError"], json!(false), "{written}");
        let read = server.request("tools/call", json!({"name": "read_file", "arguments": {"path": path}}));
        assert_eq!(read["result"]["isError"], json!(false), "{read}");
    }
    assert_eq!(root.read("f2.js"), b"let a = 1;\n");
}
