//! filewright side by side with other MCP file servers, in one run on one machine, driven by
//! one bare JSON-RPC client (`common/stdio.rs`) that treats every server alike.
//!
//! The peers are installed by the benchmark into a temporary directory (or into
//! `FILEWRIGHT_PEERS_DIR`, kept for the next run):
//! - `rust-mcp-filesystem` with `cargo install --root`;
//! - the reference server `@modelcontextprotocol/server-filesystem` with npm, when node is
//!   present.
//!
//! A peer that cannot be installed is reported as skipped; the run goes on without it.
//!
//! Workloads (p50 and p95 in ms):
//! - start-up: spawn to the `initialize` reply (a fresh process each time, every server in
//!   turn), and spawn to the result of a session's first call (`initialize`, `tools/list`,
//!   then reading a one-line file);
//! - write 4 KB of JavaScript, over 20 files;
//! - read a 100-line file;
//! - `tools/list` later in a session (the list as every server sends it, whatever its size);
//! - edit a 20 KB JavaScript file (one unique replacement);
//! - filewright only, since the peers have no append: append 4 KB onto a complete 1 MB
//!   `.js` and onto an unfinished one (its last function still open), and 10,000 appends in a
//!   row (throughput, and the first thousand against the last).
//!
//! Then resident memory after 200 files of about 100 KB, and the peak over the whole run.
//! And the CPU time every server's threads spend on a 4 KB write, read from `/proc` over a
//! pass of writes after every timed workload. A full run that installed a peer waits 65 s
//! before it times anything, for the files the install deleted (`settle_after_install`).
//! For every shared workload the ratio of each peer's p50 to filewright's. filewright runs as
//! it ships: the syntax check, the claim and the journal on every write.
//!
//! Then the floor (`common/floor.rs`): this binary serving the write, read and edit workloads
//! with nothing but the atomic replace, timed the same way. What filewright takes over it is
//! the time of its check, claim and journal; what a peer takes over it is its own overhead; a
//! peer's p50 over the floor's is the most any server that replaces files atomically could be
//! faster than that peer in the run.
//!
//! `cargo bench --bench peers` (release build). `-- --only filewright` skips the peers.
//! Without `--bench` (as `cargo test --benches` runs it) only a few calls are made, to
//! filewright alone.
//!
//! `-- --builds A B...` compares filewright builds instead (no peers): start-up first (60
//! fresh processes of each build, in rounds that rotate, as above); then every build serves a
//! root of its own, all at once, and each write, edit, read and append (4 KB onto a complete
//! and onto an unfinished 1 MB `.js`, 200 of each) goes to one build after the other, in an
//! order that rotates from call to call. The state of the file system, which
//! can double p50s between runs minutes apart on our VM (BENCHMARKS.md), is then the same
//! for every build; a change is kept when it wins here, not in two separate runs. Call by
//! call, what a build hands its background threads runs while the others are called, so a
//! change to that work does not show: `--block N` gives each build N calls in a row (then a
//! pause of 5 ms, so that what it left running ends in its own turn) before the next. A build
//! named `floor` is the floor, so that `--builds target/<host>/release/filewright floor` times
//! filewright against it call by call.

#[path = "common/floor.rs"]
mod floor;
#[path = "common/sources.rs"]
mod sources;
#[path = "common/stdio.rs"]
mod stdio;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::{Value, json};
use stdio::Server;

/// The peers' versions, pinned so that runs compare.
const RUST_MCP_FILESYSTEM: &str = "0.4.5";
const REFERENCE_SERVER: &str = "2026.8.31";

/// One server under test: how to start it on a root, and how its tools are called.
struct Subject {
    name: String,
    kind: Kind,
    /// The program and its arguments before the root directory.
    program: Vec<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Filewright,
    RustMcpFilesystem,
    Reference,
    /// This binary as the floor (`common/floor.rs`), with filewright's tool and argument names.
    Floor,
}

impl Subject {
    /// A running server on `root`, and the time to its initialize reply. filewright keeps its
    /// claims and journal in `state` (start-up reuses one, as a client's next session does).
    fn start(&self, root: &Path, state: &Path) -> (Server, std::time::Duration) {
        let mut command = Command::new(&self.program[0]);
        command.args(&self.program[1..]);
        match self.kind {
            Kind::Filewright => {
                command.arg("--root").arg(root);
                command.arg("--state-dir").arg(state);
                command.env("FILEWRIGHT_LOG", "error");
            }
            Kind::RustMcpFilesystem => {
                command.arg("--allow-write").arg(root);
            }
            Kind::Reference | Kind::Floor => {
                command.arg(root);
            }
        }
        Server::spawn(command, Vec::new())
    }

    /// The path of `name` as this server takes it: root-relative for filewright, absolute for
    /// the peers (which serve a list of allowed directories).
    fn path(&self, root: &Path, name: &str) -> String {
        match self.kind {
            Kind::Filewright | Kind::Floor => name.to_owned(),
            Kind::RustMcpFilesystem | Kind::Reference => root.join(name).display().to_string(),
        }
    }

    fn write(&self, server: &mut Server, root: &Path, name: &str, content: &str) -> String {
        server.call_ok("write_file", json!({"path": self.path(root, name), "content": content}))
    }

    fn read(&self, server: &mut Server, root: &Path, name: &str) -> String {
        let tool = match self.kind {
            Kind::Filewright | Kind::Floor => "read_file",
            Kind::RustMcpFilesystem | Kind::Reference => "read_text_file",
        };
        server.call_ok(tool, json!({"path": self.path(root, name)}))
    }

    fn edit(&self, server: &mut Server, root: &Path, name: &str, old: &str, new: &str) -> String {
        let edit = match self.kind {
            Kind::Filewright | Kind::Floor => json!({"old_string": old, "new_string": new}),
            Kind::RustMcpFilesystem | Kind::Reference => json!({"oldText": old, "newText": new}),
        };
        server.call_ok("edit_file", json!({"path": self.path(root, name), "edits": [edit]}))
    }
}

impl Subject {
    /// The floor (`common/floor.rs`): this benchmark's own binary, serving a root.
    fn floor() -> Subject {
        let this = std::env::current_exe().unwrap().display().to_string();
        Subject { name: "floor".into(), kind: Kind::Floor, program: vec![this, "--floor-server".into()] }
    }

    /// Call `k` of the write workload: 4 KB over 20 files.
    fn write_call(&self, server: &mut Server, root: &Path, texts: &Texts, k: usize) {
        self.write(server, root, &format!("w{}.js", k % 20), &texts.four_kb);
    }

    /// Call `k` of the edit workload: the first line of `edit.js` toggled.
    fn edit_call(&self, server: &mut Server, root: &Path, k: usize) {
        self.edit(server, root, "edit.js", TOGGLE[k % 2], TOGGLE[(k + 1) % 2]);
    }
}

/// The first line of the edited file, and what the edit workload toggles it to and back.
const TOGGLE: [&str; 2] = ["let counter = 0;", "let counter = 1;"];

/// The texts of the shared workloads, the same for every server and both modes.
struct Texts {
    /// Written over 20 files.
    four_kb: String,
    /// Edited: begins with `TOGGLE[0]`.
    twenty_kb: String,
    /// Read.
    hundred: String,
}

impl Texts {
    fn new() -> Texts {
        Texts {
            four_kb: functions(4096, "w"),
            twenty_kb: format!("{}\n{}", TOGGLE[0], functions(20 * 1024, "e")),
            hundred: statements(1, 0).repeat(100),
        }
    }
}

/// Milliseconds of each call of one workload.
struct Timings(Vec<f64>);

impl Timings {
    fn time(runs: usize, mut call: impl FnMut(usize)) -> Timings {
        Timings(
            (0..runs)
                .map(|k| {
                    let started = Instant::now();
                    call(k);
                    started.elapsed().as_secs_f64() * 1000.0
                })
                .collect(),
        )
    }

    fn percentile(&self, p: usize) -> f64 {
        let mut ms = self.0.clone();
        ms.sort_by(f64::total_cmp);
        ms[(ms.len() * p / 100).min(ms.len() - 1)]
    }

    fn p50(&self) -> f64 {
        self.percentile(50)
    }

    fn p95(&self) -> f64 {
        self.percentile(95)
    }
}

/// The CPU time a server's threads spent on a workload, per call, in µs: by thread name
/// (threads of one name summed), the busiest first. On a machine of few cores, what a server
/// runs beside a call competes with the call itself, with the client and with the kernel.
struct CpuUse(Vec<(String, f64)>);

/// How long the threads of a server are left to end the work the last timed call started
/// (a replaced file's close, a checkpoint gathered for 100 ms) before their time is read.
const CPU_SETTLE: std::time::Duration = std::time::Duration::from_millis(300);

impl CpuUse {
    /// The CPU time of `calls` calls of the write workload, in a pass of their own after every
    /// workload that is timed, so that the pause it ends with ([`CPU_SETTLE`]) changes none.
    fn of_writes(subject: &Subject, server: &mut Server, root: &Path, texts: &Texts, calls: usize) -> CpuUse {
        let before = server.cpu_by_thread();
        for k in 0..calls {
            subject.write_call(server, root, texts, k);
        }
        std::thread::sleep(CPU_SETTLE);
        CpuUse::between(&before, &server.cpu_by_thread(), calls)
    }

    /// From each thread's CPU time (`Server::cpu_by_thread`) before and after `calls` calls.
    /// A thread that started between the two counts whole; one that ended is not counted.
    fn between(before: &[(u64, String, u64)], after: &[(u64, String, u64)], calls: usize) -> CpuUse {
        let mut by_name: Vec<(String, f64)> = Vec::new();
        for (tid, name, ns) in after {
            let earlier = before.iter().find(|(t, ..)| t == tid).map_or(0, |(.., ns)| *ns);
            let us = ns.saturating_sub(earlier) as f64 / 1000.0 / calls as f64;
            match by_name.iter_mut().find(|(n, _)| n == name) {
                Some((_, sum)) => *sum += us,
                None => by_name.push((name.clone(), us)),
            }
        }
        by_name.sort_by(|a, b| b.1.total_cmp(&a.1));
        CpuUse(by_name)
    }

    fn total(&self) -> f64 {
        self.0.iter().map(|(_, us)| us).sum()
    }

    /// The threads that took at least 1 µs a call, as `name us`.
    fn threads(&self) -> String {
        let busy: Vec<String> =
            self.0.iter().filter(|(_, us)| *us >= 1.0).map(|(name, us)| format!("{name} {us:.0}")).collect();
        busy.join(", ")
    }
}

/// JavaScript made of complete functions, at least `bytes` long, cut after a function.
fn functions(bytes: usize, tag: &str) -> String {
    let mut text = String::new();
    let mut k = 0;
    while text.len() < bytes {
        text.push_str(&format!(
            "function {tag}{k}(items, limit) {{\n  const kept = items.filter((x) => x.size < limit);\n  \
             return kept.map((x) => ({{ name: x.name, size: x.size * {k} }}));\n}}\n\n"
        ));
        k += 1;
    }
    text
}

/// Statements for the inside of an open function, at least `bytes` long.
fn statements(bytes: usize, from: usize) -> String {
    let mut text = String::new();
    let mut k = from;
    while text.len() < bytes {
        text.push_str(&format!("  total += step(values[{k}], {k}) * factor;\n"));
        k += 1;
    }
    text
}

/// The syntax verdict in a filewright reply.
fn status_of(reply: &str) -> String {
    let value: Value = serde_json::from_str(reply).unwrap();
    value["result"]["structuredContent"]["syntax"]["status"].as_str().unwrap_or("?").to_owned()
}

/// What one subject measured.
#[derive(Default)]
struct Measured {
    startup: Option<Timings>,
    first_call: Option<Timings>,
    write: Option<Timings>,
    /// The CPU time of the writes of a pass after every timed workload.
    write_cpu: Option<CpuUse>,
    read: Option<Timings>,
    edit: Option<Timings>,
    list: Option<Timings>,
    append_complete: Option<Timings>,
    append_unfinished: Option<Timings>,
    /// The 10,000 appends: each call's time, and the whole run's seconds.
    many_appends: Option<(Timings, f64)>,
    /// Resident MB of a fresh server after 200 files.
    rss_after_200_files: u64,
    /// The most resident MB during the workloads before (the 1 MB files included).
    peak_rss: u64,
}

/// Start-up of every subject: a fresh process each time, on one root (and one state
/// directory) per subject, as a client starts the server for each session on a project. In
/// rounds that start each subject once, so that a busier or quieter stretch of the machine
/// falls on all of them alike, in an order that rotates from round to round.
///
/// Each start is timed twice: to the `initialize` reply, and to the result of the session's
/// first call (`tools/list`, then reading a one-line file), which also counts what a server
/// puts off until after that reply.
fn startups(subjects: &[Subject], starts: usize) -> Vec<(Timings, Timings)> {
    let dirs: Vec<_> =
        subjects.iter().map(|_| (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap())).collect();
    for (subject, (root, state)) in subjects.iter().zip(&dirs) {
        std::fs::write(root.path().join("first.txt"), "one line\n").unwrap();
        drop(subject.start(root.path(), state.path()));
    }
    let mut timings: Vec<(Timings, Timings)> =
        subjects.iter().map(|_| (Timings(Vec::new()), Timings(Vec::new()))).collect();
    for round in 0..starts {
        // Who starts first rotates from round to round, so that every subject follows every
        // other equally often: a start right after another server was killed shares the
        // machine with what that kill left the kernel to do.
        for i in (0..subjects.len()).map(|i| (i + round) % subjects.len()) {
            let (subject, (root, state)) = (&subjects[i], &dirs[i]);
            let started = Instant::now();
            let (mut server, took) = subject.start(root.path(), state.path());
            server.list_tools();
            subject.read(&mut server, root.path(), "first.txt");
            let first_call = started.elapsed();
            drop(server);
            timings[i].0.0.push(took.as_secs_f64() * 1000.0);
            timings[i].1.0.push(first_call.as_secs_f64() * 1000.0);
        }
    }
    timings
}

fn measure(subject: &Subject, full: bool) -> Measured {
    let runs = if full { 200 } else { 3 };
    let mut measured = Measured::default();

    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (mut server, _) = subject.start(root.path(), state.path());
    let r = root.path();

    let texts = Texts::new();
    // Write 4 KB over 20 files (a few calls first so that every file exists).
    for k in 0..20 {
        subject.write_call(&mut server, r, &texts, k);
    }
    measured.write = Some(Timings::time(runs, |k| subject.write_call(&mut server, r, &texts, k)));

    // Read a 100-line file.
    subject.write(&mut server, r, "read.js", &texts.hundred);
    subject.read(&mut server, r, "read.js");
    measured.read = Some(Timings::time(runs, |_| {
        subject.read(&mut server, r, "read.js");
    }));

    // `tools/list`, later in the session.
    measured.list = Some(Timings::time(runs, |_| {
        server.list_tools();
    }));

    // Edit a 20 KB file: one unique string, toggled.
    subject.write(&mut server, r, "edit.js", &texts.twenty_kb);
    subject.read(&mut server, r, "edit.js");
    measured.edit = Some(Timings::time(runs, |k| subject.edit_call(&mut server, r, k)));
    if subject.kind == Kind::Floor {
        // Its table has the shared write, read and edit only: no appends, no memory.
        measured.write_cpu = Some(CpuUse::of_writes(subject, &mut server, r, &texts, runs));
        return measured;
    }

    if subject.kind == Kind::Filewright {
        let appends = if full { 100 } else { 3 };
        // Append 4 KB of whole functions onto a complete 1 MB file: the check must say ok.
        subject.write(&mut server, r, "complete.js", &functions(1 << 20, "c"));
        measured.append_complete = Some(Timings::time(appends, |k| {
            let reply = server.call_ok(
                "append_file",
                json!({"path": "complete.js", "content": functions(4096, &format!("a{k}_"))}),
            );
            assert_eq!(status_of(&reply), "ok", "append onto complete.js");
        }));
        // Append 4 KB of statements into the open last function of a 1 MB file: unfinished.
        let open = format!("{}function tail(values, factor) {{\n  let total = 0;\n", functions(1 << 20, "u"));
        subject.write(&mut server, r, "unfinished.js", &open);
        measured.append_unfinished = Some(Timings::time(appends, |k| {
            let reply = server.call_ok(
                "append_file",
                json!({"path": "unfinished.js", "content": statements(4096, k * 100)}),
            );
            assert_eq!(status_of(&reply), "incomplete", "append onto unfinished.js");
        }));
        // 10,000 appends in a row, each a whole function (about 150 bytes; 1.5 MB in all).
        let many = if full { 10_000 } else { 20 };
        subject.write(&mut server, r, "many.js", "\"use strict\";\n");
        let started = Instant::now();
        let timings = Timings::time(many, |k| {
            let chunk = format!("function m{k}(x) {{\n  return x.map((v) => v * {k});\n}}\n");
            server.call_ok("append_file", json!({"path": "many.js", "content": chunk}));
        });
        measured.many_appends = Some((timings, started.elapsed().as_secs_f64()));
    }

    measured.write_cpu = Some(CpuUse::of_writes(subject, &mut server, r, &texts, runs));
    measured.peak_rss = server.peak_rss_mb();
    drop(server);

    // 200 files of about 100 KB in four languages, on a fresh server: filewright writes 60 KB
    // and appends 40 KB, as an agent does; the peers, which cannot append, write the whole.
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (mut server, _) = subject.start(root.path(), state.path());
    let r = root.path();
    let files = if full { 200 } else { 4 };
    for f in 0..files {
        let ext = ["js", "py", "ts", "rs"][f % 4];
        let text = sources::hundred_kb(ext);
        let name = format!("many/f{f}.{ext}");
        if f == 0 {
            std::fs::create_dir_all(r.join("many")).unwrap();
        }
        if subject.kind == Kind::Filewright {
            let split = text[..60_000].rfind('\n').map_or(0, |i| i + 1);
            subject.write(&mut server, r, &name, &text[..split]);
            server.call_ok("append_file", json!({"path": name, "content": &text[split..]}));
        } else {
            subject.write(&mut server, r, &name, &text);
        }
    }
    measured.rss_after_200_files = server.rss_mb();
    measured
}

/// Installs the peers under `dir` (reusing what an earlier run left there) and returns
/// those that are ready, with a line for each that is not. When it installed anything, it
/// waits for the file system to settle before it returns ([`settle_after_install`]).
fn install_peers(dir: &Path) -> (Vec<Subject>, Vec<String>) {
    let (mut ready, mut skipped, mut installed) = (Vec::new(), Vec::new(), false);

    let rmfs_root = dir.join("rust-mcp-filesystem");
    let rmfs = rmfs_root.join("bin").join("rust-mcp-filesystem");
    if !rmfs.exists() {
        eprintln!("installing rust-mcp-filesystem {RUST_MCP_FILESYSTEM} (a few minutes)...");
        installed = true;
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["install", "--quiet", "--locked", "--version", RUST_MCP_FILESYSTEM, "--root"])
            .arg(&rmfs_root)
            .arg("rust-mcp-filesystem")
            .status();
        if !status.is_ok_and(|s| s.success()) {
            skipped.push(format!("rust-mcp-filesystem {RUST_MCP_FILESYSTEM}: cargo install failed"));
        }
    }
    if rmfs.exists() {
        ready.push(Subject {
            name: format!("rust-mcp-filesystem {RUST_MCP_FILESYSTEM}"),
            kind: Kind::RustMcpFilesystem,
            program: vec![rmfs.display().to_string()],
        });
    }

    let npm_root = dir.join("npm");
    let entry = npm_root.join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    let has =
        |program: &str| Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success());
    if !has("node") || !has("npm") {
        skipped.push("reference server: node and npm are not installed".into());
    } else {
        if !entry.exists() {
            eprintln!("installing @modelcontextprotocol/server-filesystem {REFERENCE_SERVER}...");
            installed = true;
            let status = Command::new("npm")
                .args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
                .arg(&npm_root)
                .arg(format!("@modelcontextprotocol/server-filesystem@{REFERENCE_SERVER}"))
                .status();
            if !status.is_ok_and(|s| s.success()) {
                skipped.push(format!("reference server {REFERENCE_SERVER}: npm install failed"));
            }
        }
        if entry.exists() {
            ready.push(Subject {
                name: format!("reference server {REFERENCE_SERVER}"),
                kind: Kind::Reference,
                program: vec!["node".into(), entry.display().to_string()],
            });
        }
    }
    if installed {
        settle_after_install();
    }
    (ready, skipped)
}

/// A tenth of a run's calls (at least one): the thousand of 10,000 appends.
fn tenth(run: &Timings) -> usize {
    (run.0.len() / 10).max(1)
}

/// The first and the last tenth of a run's calls.
fn first_and_last(run: &Timings) -> (Timings, Timings) {
    let (n, k) = (run.0.len(), tenth(run));
    (Timings(run.0[..k].to_vec()), Timings(run.0[n - k..].to_vec()))
}

/// A workload's p50, NaN when it was not measured.
fn p50(t: &Option<Timings>) -> f64 {
    t.as_ref().map_or(f64::NAN, Timings::p50)
}

/// Prints a Markdown table's head: the `columns` after "workload", and the rule under them.
fn print_head(columns: impl IntoIterator<Item = String>) {
    let columns: Vec<String> = columns.into_iter().collect();
    println!("| workload | {} |\n|---|{}", columns.join(" | "), "---|".repeat(columns.len()));
}

fn cell(t: &Option<Timings>) -> String {
    t.as_ref().map_or("n/a".into(), |t| format!("{:.2} / {:.2}", t.p50(), t.p95()))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).is_some_and(|a| a == "--floor-server") {
        floor::serve(Path::new(args.get(2).expect("--floor-server takes the root")));
        return;
    }
    let full = args.iter().any(|a| a == "--bench");
    if let Some(at) = args.iter().position(|a| a == "--builds") {
        let builds: Vec<String> =
            args[at + 1..].iter().take_while(|a| !a.starts_with("--")).cloned().collect();
        let block = match args.iter().position(|a| a == "--block") {
            Some(at) => match args.get(at + 1).and_then(|n| n.parse::<usize>().ok()) {
                Some(n) if n > 0 => n,
                _ => panic!("--block takes a number of calls, 1 or more"),
            },
            None => 1,
        };
        compare_builds(&builds, block, full);
        return;
    }
    let only_filewright = !full || args.windows(2).any(|w| w[0] == "--only" && w[1] == "filewright");

    let mut subjects = vec![Subject {
        name: "filewright".into(),
        kind: Kind::Filewright,
        program: vec![env!("CARGO_BIN_EXE_filewright").into()],
    }];
    let mut skipped = Vec::new();
    let _install_dir;
    if !only_filewright {
        let dir: PathBuf = match std::env::var_os("FILEWRIGHT_PEERS_DIR") {
            Some(dir) => dir.into(),
            None => {
                let temp = tempfile::tempdir().unwrap();
                let path = temp.path().to_owned();
                _install_dir = temp;
                path
            }
        };
        let (ready, not) = install_peers(&dir);
        subjects.extend(ready);
        skipped = not;
    }

    eprintln!("measuring start-up...");
    let startups = startups(&subjects, if full { 30 } else { 2 });
    let results: Vec<(String, Measured)> = subjects
        .iter()
        .zip(startups)
        .map(|(s, (startup, first_call))| {
            eprintln!("measuring {}...", s.name);
            (
                s.name.clone(),
                Measured { startup: Some(startup), first_call: Some(first_call), ..measure(s, full) },
            )
        })
        .collect();
    eprintln!("measuring the floor...");
    let floor = measure(&Subject::floor(), full);
    report(&results, &skipped, full);
    report_floor(&results, &floor);
}

/// How long a full run waits after installing a peer, once the file system has written back
/// (see [`settle_after_install`]).
const AFTER_INSTALL: std::time::Duration = std::time::Duration::from_secs(65);

/// After a peer was installed in this run: the file system's writeback (`sync`), then
/// [`AFTER_INSTALL`]. `cargo install` builds in a temporary directory and deletes its tens of
/// thousands of files at the end, and ext4 without a journal (this project's test machine)
/// skips, each time it makes a file, every inode freed in the last 60 s (in the last 6
/// minutes while the inode's block is still to be written back). The servers that replace
/// files atomically make a file for every write: in a run right after an install, the floor's
/// calling thread took two to three times its usual CPU per write and filewright's twice, while
/// rust-mcp-filesystem, which rewrites in place, took its usual. The install would have been
/// measured, not the servers.
fn settle_after_install() {
    eprintln!("waiting {} s for the files the install deleted to age out...", AFTER_INSTALL.as_secs());
    rustix::fs::sync();
    std::thread::sleep(AFTER_INSTALL);
}

/// One timed call of a `--builds` workload: the build, its server and root, the call's index.
type BuildCall<'a> = dyn Fn(&Subject, &mut Server, &Path, usize) + 'a;

/// `--builds`: the write, edit and read workloads, interleaved over `builds` in turns of
/// `block` calls (see the module's doc). Without `--bench`, a few calls, to this package's
/// build twice.
fn compare_builds(builds: &[String], block: usize, full: bool) {
    // Whole turns only: every build makes the same number of calls.
    let calls = (if full { 2000_usize } else { 4 }).div_ceil(block) * block;
    let mut builds = builds.to_vec();
    if builds.is_empty() {
        builds = vec![env!("CARGO_BIN_EXE_filewright").into(); 2];
    }
    let subjects: Vec<Subject> = builds
        .iter()
        .map(|b| match b.as_str() {
            "floor" => Subject::floor(),
            _ => Subject { name: b.clone(), kind: Kind::Filewright, program: vec![b.clone()] },
        })
        .collect();
    let dirs: Vec<_> =
        subjects.iter().map(|_| (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap())).collect();
    let mut servers: Vec<Server> =
        subjects.iter().zip(&dirs).map(|(s, (root, state))| s.start(root.path(), state.path()).0).collect();
    let texts = Texts::new();
    for ((subject, server), (root, _)) in subjects.iter().zip(&mut servers).zip(&dirs) {
        for k in 0..20 {
            subject.write_call(server, root.path(), &texts, k);
        }
        subject.write(server, root.path(), "edit.js", &texts.twenty_kb);
        subject.write(server, root.path(), "read.js", &texts.hundred);
        subject.read(server, root.path(), "edit.js");
    }
    let appending = subjects.iter().all(|s| s.kind == Kind::Filewright);
    if appending {
        for ((subject, server), (root, _)) in subjects.iter().zip(&mut servers).zip(&dirs) {
            subject.write(server, root.path(), "complete.js", &functions(1 << 20, "c"));
            let open =
                format!("{}function tail(values, factor) {{\n  let total = 0;\n", functions(1 << 20, "u"));
            subject.write(server, root.path(), "unfinished.js", &open);
        }
    }
    let mut workloads: Vec<(&str, usize, Box<BuildCall>)> = vec![
        ("write 4 KB", calls, Box::new(|s, server, root, k| s.write_call(server, root, &texts, k))),
        ("edit a 20 KB file", calls, Box::new(|s, server, root, k| s.edit_call(server, root, k))),
        (
            "read 100 lines",
            calls,
            Box::new(|s, server, root, _| {
                s.read(server, root, "read.js");
            }),
        ),
    ];
    // Appends grow their file: fewer of them, so that the last still lands on about 1 MB.
    let appends = (if full { 200_usize } else { 2 }).div_ceil(block) * block;
    if appending {
        workloads.push((
            "append 4 KB onto a complete 1 MB .js",
            appends,
            Box::new(|_, server, _, k| {
                let content = functions(4096, &format!("a{k}_"));
                let reply = server.call_ok("append_file", json!({"path": "complete.js", "content": content}));
                assert_eq!(status_of(&reply), "ok", "append onto complete.js");
            }),
        ));
        workloads.push((
            "append 4 KB onto an unfinished 1 MB .js",
            appends,
            Box::new(|_, server, _, k| {
                let content = statements(4096, k * 100);
                let reply =
                    server.call_ok("append_file", json!({"path": "unfinished.js", "content": content}));
                assert_eq!(status_of(&reply), "incomplete", "append onto unfinished.js");
            }),
        ));
    }
    let turns = if block == 1 { "call by call".to_owned() } else { format!("in turns of {block} calls") };
    println!(
        "p50 / p95 in ms, {calls} calls each ({appends} appends), interleaved {turns}; ratio = the first build's \
         p50 / this one's.\n"
    );
    let header: Vec<String> = builds.iter().map(|b| format!("`{b}`")).collect();
    println!("| workload | {} |", header.join(" | "));
    println!("|---|{}", "---|".repeat(builds.len()));
    if appending {
        // Start-up: fresh processes, in rounds that rotate (see `startups`).
        let starts = startups(&subjects, if full { 60 } else { 2 });
        for (label, pick) in [("start-up to initialize reply", 0), ("start-up to a first read result", 1)] {
            let timings: Vec<&Timings> = starts.iter().map(|(a, b)| if pick == 0 { a } else { b }).collect();
            print_row(label, &timings);
        }
    }
    for (label, calls, call) in workloads {
        let mut timings: Vec<Vec<f64>> = vec![Vec::with_capacity(calls); builds.len()];
        for turn in 0..calls / block {
            // Who goes first rotates, so that every build takes every place equally often: a
            // call right after another build's pays for what that one left running (its
            // helpers, the disk's writeback).
            for i in (0..builds.len()).map(|i| (i + turn) % builds.len()) {
                for k in turn * block..(turn + 1) * block {
                    let started = Instant::now();
                    call(&subjects[i], &mut servers[i], dirs[i].0.path(), k);
                    timings[i].push(started.elapsed().as_secs_f64() * 1000.0);
                }
                if block > 1 {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
            }
        }
        let timings: Vec<Timings> = timings.into_iter().map(Timings).collect();
        print_row(label, &timings.iter().collect::<Vec<_>>());
    }
}

/// A `--builds` row: each build's p50 / p95, and the first build's p50 over this one's.
fn print_row(label: &str, timings: &[&Timings]) {
    let first = timings[0].p50();
    let cells: Vec<String> = timings
        .iter()
        .map(|t| format!("{:.3} / {:.3} ({:.2}x)", t.p50(), t.p95(), first / t.p50()))
        .collect();
    println!("| {label} | {} |", cells.join(" | "));
}

/// A workload's label and where its timings are kept.
type Workload = (&'static str, fn(&Measured) -> &Option<Timings>);

fn report(results: &[(String, Measured)], skipped: &[String], full: bool) {
    let ours = &results[0].1;
    let workloads: [Workload; 8] = [
        ("start-up to initialize reply", |m| &m.startup),
        ("start-up to a first read result", |m| &m.first_call),
        ("write 4 KB", |m| &m.write),
        ("read 100 lines", |m| &m.read),
        ("edit a 20 KB file", |m| &m.edit),
        ("tools/list later in a session", |m| &m.list),
        ("append 4 KB onto a complete 1 MB .js", |m| &m.append_complete),
        ("append 4 KB onto an unfinished 1 MB .js", |m| &m.append_unfinished),
    ];

    println!("p50 / p95 in ms; ratio = the peer's p50 / filewright's (above 1: filewright is faster).\n");
    print_head(
        results
            .iter()
            .map(|(name, _)| name.clone())
            .chain(results[1..].iter().map(|(name, _)| format!("ratio to {name}"))),
    );
    for (label, get) in workloads {
        let mut row = format!("| {label} |");
        for (_, m) in results {
            row.push_str(&format!(" {} |", cell(get(m))));
        }
        for (_, m) in &results[1..] {
            let ratio = match (get(m), get(ours)) {
                (Some(peer), Some(us)) => format!("{:.1}x", peer.p50() / us.p50()),
                _ => "n/a".into(),
            };
            row.push_str(&format!(" {ratio} |"));
        }
        println!("{row}");
    }
    for (label, get) in [
        (
            "RSS after 200 files of ~100 KB (a fresh server), MB",
            (|m| m.rss_after_200_files) as fn(&Measured) -> u64,
        ),
        ("peak RSS during the workloads above, MB", |m| m.peak_rss),
    ] {
        let mut row = format!("| {label} |");
        for (_, m) in results {
            row.push_str(&format!(" {} |", get(m)));
        }
        println!("{row}{}", " n/a |".repeat(results.len() - 1));
    }

    if let Some((timings, seconds)) = &ours.many_appends {
        let (n, k) = (timings.0.len(), tenth(timings));
        let (first, last) = first_and_last(timings);
        println!(
            "\n{n} appends in a row (filewright): {:.0} appends/s; first {k}: {:.2} / {:.2} ms, last {k}: \
             {:.2} / {:.2} ms (p50 / p95); last p50 / first p50 = {:.2}",
            n as f64 / seconds,
            first.p50(),
            first.p95(),
            last.p50(),
            last.p95(),
            last.p50() / first.p50()
        );
    }
    for line in skipped {
        println!("skipped: {line}");
    }

    if !full {
        println!("\nA smoke run (without --bench: a few calls each): not a measurement, so no targets.");
        return;
    }
    // The targets of the speed issue, each with its verdict.
    println!("\n| target | measured | met |");
    println!("|---|---|---|");
    let target = |what: &str, measured: String, met: bool| {
        println!("| {what} | {measured} | {} |", if met { "yes" } else { "**no**" });
    };
    for (name, m) in &results[1..] {
        let times = if name.starts_with("reference") { 5.0 } else { 1.0 };
        // The shared workloads: both start-ups, write, read and edit.
        for (label, get) in &workloads[..5] {
            if let (Some(peer), Some(us)) = (get(m), get(ours)) {
                let ratio = peer.p50() / us.p50();
                let what = if times > 1.0 {
                    format!("{label}: at least 5x {name}")
                } else {
                    format!("{label}: faster than {name}")
                };
                target(&what, format!("{ratio:.1}x"), ratio > times);
            }
        }
    }
    target("start-up at most 5 ms (p50)", format!("{:.2} ms", p50(&ours.startup)), p50(&ours.startup) <= 5.0);
    for (label, t) in [("complete", &ours.append_complete), ("unfinished", &ours.append_unfinished)] {
        target(
            &format!("append 4 KB onto a {label} 1 MB .js at most 10 ms (p50)"),
            format!("{:.2} ms", p50(t)),
            p50(t) <= 10.0,
        );
    }
    target(
        "edit a 20 KB file at most 0.6 ms (p50)",
        format!("{:.2} ms", p50(&ours.edit)),
        p50(&ours.edit) <= 0.6,
    );
    if let Some((timings, _)) = &ours.many_appends {
        let (first, last) = first_and_last(timings);
        let ratio = last.p50() / first.p50();
        target(
            "10,000 appends: the last thousand as fast as the first (p50 within 10%)",
            format!("{ratio:.2}"),
            ratio <= 1.10,
        );
    }
    target(
        "RSS at most 64 MB after 200 files",
        format!("{} MB", ours.rss_after_200_files),
        ours.rss_after_200_files <= 64,
    );
}

/// The floor's table: for the write, read and edit, what each server takes over the floor,
/// and each peer's p50 over the floor's (the most any server that replaces files atomically
/// could be faster than that peer in this run). Then what the 5x target on the reference
/// server leaves filewright over the floor.
fn report_floor(results: &[(String, Measured)], floor: &Measured) {
    let workloads: [Workload; 3] =
        [("write 4 KB", |m| &m.write), ("read 100 lines", |m| &m.read), ("edit a 20 KB file", |m| &m.edit)];
    println!(
        "\nThe floor: this benchmark serving the same calls with nothing but the atomic replace \
         (benches/common/floor.rs). p50 / p95 in ms; \"over the floor\" is a server's p50 minus \
         the floor's; \"/ floor\" is a peer's p50 over the floor's.\n"
    );
    print_head(
        std::iter::once("floor".to_owned())
            .chain(results.iter().map(|(name, _)| format!("{name} over the floor")))
            .chain(results[1..].iter().map(|(name, _)| format!("{name} / floor"))),
    );
    for (label, get) in workloads {
        let base = p50(get(floor));
        let mut row = format!("| {label} | {} |", cell(get(floor)));
        for (_, m) in results {
            row.push_str(&format!(" {:+.3} ms |", p50(get(m)) - base));
        }
        for (_, m) in &results[1..] {
            row.push_str(&format!(" {:.1}x |", p50(get(m)) / base));
        }
        println!("{row}");
    }
    let ours = &results[0].1;
    if let Some((name, reference)) = results.iter().find(|(name, _)| name.starts_with("reference")) {
        for (label, get) in [workloads[0], workloads[2]] {
            let budget = p50(get(reference)) / 5.0 - p50(get(floor));
            println!(
                "{label}: at 5x {name} ({:.3} ms) a server has {:.3} ms, {budget:+.3} ms over the floor; \
                 filewright took {:+.3} ms over it.",
                p50(get(reference)),
                p50(get(reference)) / 5.0,
                p50(get(ours)) - p50(get(floor)),
            );
        }
    }
    // Where a write's time goes besides the calling thread: every thread's share.
    println!(
        "\nCPU time per 4 KB write, in µs, of all of a server's threads, and of each thread that \
         took 1 µs or more (`main` is the first): from /proc, over a pass of as many writes after \
         every timed workload, with the work the calls left running. The p50 is the timed write \
         workload's.\n"
    );
    println!("| server | write p50, ms | CPU per write, µs | by thread |");
    println!("|---|---|---|---|");
    let rows = std::iter::once(("floor", floor)).chain(results.iter().map(|(name, m)| (name.as_str(), m)));
    for (name, m) in rows {
        if let Some(cpu) = &m.write_cpu {
            println!("| {name} | {:.3} | {:.0} | {} |", p50(&m.write), cpu.total(), cpu.threads());
        }
    }
}
