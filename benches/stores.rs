//! The cost of a write with each store backend: the same release server, spoken to by the
//! same bare client, with `--store sqlite` (the default) and with `--store postgres://...`.
//!
//! Run: `cargo bench --bench stores`. A throwaway PostgreSQL with its default durability (the
//! WAL synced at every commit) is started with `.ci/postgres.sh`, which installs the server
//! when it is missing and the bench runs as root, and stopped at the end;
//! `FILEWRIGHT_BENCH_POSTGRES` names another database instead. Without `--bench`
//! (`cargo test --benches`) it is a smoke run of a few calls.

#[path = "common/stdio.rs"]
mod stdio;

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 3 } else { 400 };
    let (url, _cluster) = match std::env::var("FILEWRIGHT_BENCH_POSTGRES") {
        Ok(url) if !url.is_empty() => (Some(url), None),
        _ if quick => (None, None),
        _ => match Cluster::start() {
            Ok(cluster) => (Some(cluster.url.clone()), Some(cluster)),
            Err(why) => {
                println!("PostgreSQL skipped: {why}");
                (None, None)
            }
        },
    };
    let mut backends = vec![
        ("sqlite", vec!["--store".to_string(), "sqlite".to_string()]),
        ("sqlite --durable", vec!["--store".to_string(), "sqlite".to_string(), "--durable".to_string()]),
    ];
    if let Some(url) = &url {
        let root_id = format!("bench-{}", std::process::id());
        backends.push(("postgres", vec!["--store".into(), url.clone(), "--root-id".into(), root_id]));
    }
    let chunk: String = (0..100).map(|i| format!("let value_{i:04} = {i} * 2; // {:>14}\n", "")).collect();
    assert!(chunk.len() >= 4000);
    println!("| backend | write 4 KB p50 | p95 | append 4 KB p50 | p95 | edit p50 | p95 |");
    println!("|---|---|---|---|---|---|---|");
    for (name, args) in backends {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut server = stdio::Server::start(&args, None);
        let (mut write, mut append, mut edit) = (Vec::new(), Vec::new(), Vec::new());
        server.call_ok("write_file", json!({"path": "log.js", "content": chunk}));
        server.call_ok("write_file", json!({"path": "edit.js", "content": "let counter = 0;\n"}));
        for k in 0..runs {
            write.push(time(|| {
                server.call_ok("write_file", json!({"path": format!("w{k}.js"), "content": chunk}))
            }));
            append.push(time(|| server.call_ok("append_file", json!({"path": "log.js", "content": chunk}))));
            let (old, new) = (format!("let counter = {k};"), format!("let counter = {};", k + 1));
            edit.push(time(|| {
                server.call_ok("edit_file", json!({"path": "edit.js", "old_string": old, "new_string": new}))
            }));
        }
        let [w, a, e] = [write, append, edit].map(|mut v| {
            v.sort();
            (v[v.len() / 2], v[(v.len() * 95 / 100).min(v.len() - 1)])
        });
        println!(
            "| {name} | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms |",
            ms(w.0),
            ms(w.1),
            ms(a.0),
            ms(a.1),
            ms(e.0),
            ms(e.1)
        );
    }
    if !quick {
        println!(
            "\n{runs} calls of each; release build; PostgreSQL on this machine (127.0.0.1), WAL synced at \
             every commit; `--durable` also syncs each file and its directory."
        );
    }
}

fn time(f: impl FnOnce() -> String) -> Duration {
    let started = Instant::now();
    f();
    started.elapsed()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A throwaway cluster from `.ci/postgres.sh`, stopped on drop.
struct Cluster {
    dir: tempfile::TempDir,
    url: String,
}

impl Cluster {
    fn start() -> Result<Cluster, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/postgres.sh");
        let out = Command::new("bash")
            .arg(script)
            .arg("start")
            .arg(dir.path())
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("{script} failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
        Ok(Cluster { url: String::from_utf8_lossy(&out.stdout).trim().to_string(), dir })
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/postgres.sh");
        let _ = Command::new("bash").arg(script).arg("stop").arg(self.dir.path()).output();
    }
}
