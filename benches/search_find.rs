//! `search_files` against ripgrep and `find_files` against fd, in one run, on one large tree
//! the benchmark builds itself, with warm caches.
//!
//! The tree is a copy of cargo's unpacked registry sources (`$CARGO_HOME/registry/src`, or the
//! directory `FILEWRIGHT_SEARCH_SOURCE` names): tens of thousands of files, hundreds of MB of
//! real source, with the crates' own `.gitignore` files, plus a `.gitignore` and a `.ignore`
//! of ours at its top that leave out a few directories.
//!
//! ripgrep and fd are the ones on `PATH`, else those installed earlier in
//! `FILEWRIGHT_TOOLS_DIR` (`bin/rg`, `bin/fd`), else `cargo install --locked --root` puts them
//! there (in a temporary directory when the variable is unset).
//!
//! The comparison is made fair this way:
//! - the same rules for what a tree holds: rg and fd get `--hidden` (filewright does not skip
//!   dot files), `--no-require-git` (filewright honours `.gitignore` outside a git
//!   repository too) and `--no-ignore-parent` (filewright reads no ignore file above its
//!   root); both read `.gitignore` and `.ignore` files, as filewright does;
//! - the same limits: rg skips files over 16 MiB (`--max-filesize 16M`), as the server does at
//!   its default `--max-file-bytes`;
//! - the same work: rg counts the matching lines of every file (`--count`), as filewright
//!   does to report its totals, and filewright shows at most 1000 of them (`max_results`);
//!   the results compared are the files with a match, and the matching lines;
//! - find: fd lists regular files (`--type f`) whose name matches the glob, filewright's
//!   `find_files` the same; it also reads the modification time of every match (to list the
//!   newest first, a `statx` per file that fd never makes) and counts the lines of those it
//!   lists: 200 by default, 1000 at most, timed both ways;
//! - each wall time runs from the request to the whole answer: a tool call over MCP stdio to
//!   a server started once (as a client uses it), a process spawned to its exit for rg and fd
//!   (as a shell uses them). Calls alternate between the two, so the machine's state is the
//!   same for both; the median of the repetitions is reported. Beside it, the mean CPU time
//!   per call (user and system, all threads, from `/proc`), which another load on the machine
//!   disturbs less than the wall time.
//!
//! The server's peak memory (VmHWM) is read from `/proc` after the searches.
//!
//! Then `check_files` on the tree's Rust sources and on JavaScript and TypeScript added to it
//! (see the check section below for where they come from), in MB of source checked a second.
//!
//! `cargo bench --bench search_find` (release build; with `FILEWRIGHT_CHECKS_ONLY` set, the
//! check table alone). Without `--bench` (as
//! `cargo test --benches` runs it), one call of each tool on a small tree (a check of 20 of its Rust files),
//! without the peers.

#[path = "common/stdio.rs"]
mod stdio;
#[path = "common/tree.rs"]
mod tree;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use stdio::Server;
use tree::{build_tree, copy_dir, source_dir};

/// The server's default `--max-file-bytes`, which rg is given too.
const MAX_FILE_BYTES: &str = "16M";

/// The searches and the glob timed.
const LITERAL: &str = "unsafe fn";
const REGEX: &str = r"fn [a-z_]+_mut\(";
const GLOB: &str = "*.rs";

/// Repetitions of each timed call (a full run).
const REPETITIONS: usize = 11;

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let work = tempfile::tempdir().unwrap();
    let tree = work.path().join("tree");
    let source = source_dir();
    eprintln!("copying {} into a tree of our own...", source.display());
    let (files, bytes) = build_tree(&source, &tree, if full { usize::MAX } else { 300 });
    eprintln!("{files} files, {} MB", bytes >> 20);
    let state = work.path().join("state");
    std::fs::create_dir_all(&state).unwrap();

    if full && std::env::var_os("FILEWRIGHT_CHECKS_ONLY").is_some() {
        // The check table alone (no searches, no peers to install).
        let tools_dir = std::env::var_os("FILEWRIGHT_TOOLS_DIR").map(PathBuf::from).unwrap_or_default();
        add_script_sources(&tree, &tools_dir);
        report_checks(&time_checks(&tree, true));
        return;
    }

    let mut command = Command::new(env!("CARGO_BIN_EXE_filewright"));
    command.arg("--root").arg(&tree).arg("--state-dir").arg(&state).env("FILEWRIGHT_LOG", "error");
    let (mut server, _) = Server::spawn(command, Vec::new());

    if !full {
        let searched = search(&mut server, LITERAL, false);
        let found = find(&mut server, GLOB, 200);
        let checked = time_checks(&tree, false);
        eprintln!(
            "smoke run: {searched:?} {found:?} {} files checked",
            checked.iter().map(|r| r.files).sum::<usize>()
        );
        return;
    }

    let tools_dir_kept;
    let tools_dir = match std::env::var_os("FILEWRIGHT_TOOLS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => {
            tools_dir_kept = tempfile::tempdir().unwrap();
            tools_dir_kept.path().to_owned()
        }
    };
    let rg = tool(&tools_dir, "rg", "ripgrep");
    let fd = tool(&tools_dir, "fd", "fd-find");

    eprintln!("warming the caches...");
    for _ in 0..2 {
        rg_count(&rg, &tree, LITERAL, false);
        search(&mut server, LITERAL, false);
        fd_count(&fd, &tree, GLOB);
    }

    let mut rows = Vec::new();
    for (name, pattern, regex) in [("literal", LITERAL, false), ("regex", REGEX, true)] {
        eprintln!("timing the {name} search...");
        let (ours, theirs, counts) = alternate(
            &mut server,
            |server| search(server, pattern, regex),
            || rg_count(&rg, &tree, pattern, regex),
        );
        rows.push(Row {
            workload: format!("search_files, {name} `{pattern}`"),
            peer: "rg",
            ours,
            theirs,
            counts: format!("{} / {} files, {} / {} lines", counts.0.0, counts.1.0, counts.0.1, counts.1.1),
            same: counts.0 == counts.1,
        });
    }
    let peak_after_search = server.peak_rss_mb();

    for max_results in [200, 1000] {
        eprintln!("timing find, max_results {max_results}...");
        let (ours, theirs, counts) =
            alternate(&mut server, |server| find(server, GLOB, max_results), || fd_count(&fd, &tree, GLOB));
        rows.push(Row {
            workload: format!("find_files `{GLOB}`, `max_results` {max_results}"),
            peer: "fd",
            ours,
            theirs,
            counts: format!("{} / {} files", counts.0, counts.1),
            same: counts.0 == counts.1,
        });
    }

    let peak_all = server.peak_rss_mb();
    drop(server);

    add_script_sources(&tree, &tools_dir);
    let checks = time_checks(&tree, true);

    report(&rows, files, bytes, peak_after_search, peak_all, &rg, &fd);
    report_checks(&checks);
}

/// One side's figures for a workload: the median wall time of a call, and the mean CPU time
/// (user and system, every thread's) it took.
#[derive(Debug, Clone, Copy)]
struct Timed {
    wall: Duration,
    cpu: Duration,
}

/// Calls `ours` (a tool call to `server`) and `theirs` (a peer's process) in turn,
/// [`REPETITIONS`] times each; returns their figures and what each found the last time.
fn alternate<C>(
    server: &mut Server,
    mut ours: impl FnMut(&mut Server) -> C,
    mut theirs: impl FnMut() -> C,
) -> (Timed, Timed, (C, C)) {
    let mut walls = (Vec::new(), Vec::new());
    let mut cpus = (Duration::ZERO, Duration::ZERO);
    let mut found = None;
    for _ in 0..REPETITIONS {
        let (cpu, started) = (server.cpu_time(), Instant::now());
        let mine = ours(server);
        walls.0.push(started.elapsed());
        cpus.0 += server.cpu_time().saturating_sub(cpu);
        let (cpu, started) = (children_cpu_time(), Instant::now());
        let peer = theirs();
        walls.1.push(started.elapsed());
        cpus.1 += children_cpu_time().saturating_sub(cpu);
        found = Some((mine, peer));
    }
    let n = REPETITIONS as u32;
    (
        Timed { wall: median(walls.0), cpu: cpus.0 / n },
        Timed { wall: median(walls.1), cpu: cpus.1 / n },
        found.expect("repetitions"),
    )
}

/// The CPU time of this process's children that ended and were waited for (user and
/// system), from `/proc`, in clock ticks of 10 ms.
fn children_cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // After the command name in parentheses, cutime and cstime are the 14th and 15th fields.
    let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
    let ticks: u64 = [13, 14].iter().filter_map(|&i| fields.get(i)?.parse::<u64>().ok()).sum();
    Duration::from_millis(ticks * 10)
}

/// One line of the results table.
struct Row {
    workload: String,
    peer: &'static str,
    ours: Timed,
    theirs: Timed,
    /// What each found, filewright's first.
    counts: String,
    same: bool,
}

fn report(rows: &[Row], files: usize, bytes: u64, peak_search: u64, peak_all: u64, rg: &Path, fd: &Path) {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            let line = info.lines().find(|l| l.starts_with("model name"))?;
            Some(line.split(':').nth(1)?.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().next().unwrap_or("?").to_owned();
    let date = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    println!("`cargo bench --bench search_find`, {}", &date[..10]);
    println!();
    println!(
        "Machine: {cores} cores ({cpu}), load average {load} at the end. Tree: {files} files, {} MB of cargo \
         registry sources, warm in the page cache. {}, {}. Median wall time of {REPETITIONS} calls each, \
         alternating; CPU time (user + system, all threads) is the mean per call.",
        bytes >> 20,
        version(rg),
        version(fd),
    );
    println!();
    println!(
        "| workload | filewright | peer | peer's time | wall ratio | CPU: filewright / peer | found (filewright / peer) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for row in rows {
        println!(
            "| {} | {:.1} ms | {} | {:.1} ms | {:.2}x | {:.0} / {:.0} ms ({:.2}x) | {}{} |",
            row.workload,
            ms(row.ours.wall),
            row.peer,
            ms(row.theirs.wall),
            ms(row.ours.wall) / ms(row.theirs.wall),
            ms(row.ours.cpu),
            ms(row.theirs.cpu),
            ms(row.ours.cpu) / ms(row.theirs.cpu).max(1.0),
            row.counts,
            if row.same { "" } else { " (differ)" }
        );
    }
    println!();
    println!("Server's peak memory (VmHWM): {peak_search} MB after the searches, {peak_all} MB at the end.");
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The files with a match and the matching lines, from `search_files`' structured result.
fn search(server: &mut Server, pattern: &str, regex: bool) -> (u64, u64) {
    let reply = server.call_ok(
        "search_files",
        serde_json::json!({"pattern": pattern, "regex": regex, "max_results": 1000}),
    );
    let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
    let found = &reply["result"]["structuredContent"];
    (found["files_matched"].as_u64().unwrap(), found["matches"].as_u64().unwrap())
}

/// The files `find_files` found, listed or counted in `more`.
fn find(server: &mut Server, glob: &str, max_results: usize) -> u64 {
    let reply =
        server.call_ok("find_files", serde_json::json!({"pattern": glob, "max_results": max_results}));
    let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
    let found = &reply["result"]["structuredContent"];
    found["files"].as_array().unwrap().len() as u64 + found["more"].as_u64().unwrap()
}

/// rg's files with a match and matching lines, under the same rules as filewright.
fn rg_count(rg: &Path, tree: &Path, pattern: &str, regex: bool) -> (u64, u64) {
    let mut command = Command::new(rg);
    command.args(["--count", "--hidden", "--no-require-git", "--no-ignore-parent", "--no-config"]);
    command.args(["--max-filesize", MAX_FILE_BYTES]);
    if !regex {
        command.arg("--fixed-strings");
    }
    command.arg("--").arg(pattern).arg(".").current_dir(tree);
    let out = output(&mut command);
    let mut files = 0;
    let mut lines = 0;
    for line in out.lines() {
        files += 1;
        lines += line.rsplit(':').next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
    }
    (files, lines)
}

/// fd's regular files whose name matches `glob`, under the same rules as filewright.
fn fd_count(fd: &Path, tree: &Path, glob: &str) -> u64 {
    let mut command = Command::new(fd);
    command.args(["--glob", "--type", "f", "--hidden", "--no-require-git", "--no-ignore-parent"]);
    command.arg("--").arg(glob).arg(".").current_dir(tree);
    output(&mut command).lines().count() as u64
}

/// A command's standard output; it must succeed (rg's 1, nothing found, is a success here).
fn output(command: &mut Command) -> String {
    let out = command.stderr(Stdio::inherit()).output().unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(out.status.code().is_some_and(|c| c <= 1), "{command:?} failed: {}", out.status);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn version(tool: &Path) -> String {
    let out = Command::new(tool).arg("--version").output().map(|o| o.stdout).unwrap_or_default();
    String::from_utf8_lossy(&out).lines().next().unwrap_or("?").to_owned()
}

/// The program `name` of the crate `package`: on `PATH`, else in `dir/bin`, else installed
/// there with `cargo install`.
fn tool(dir: &Path, name: &str, package: &str) -> PathBuf {
    let installed = dir.join("bin").join(name);
    let on_path =
        Command::new(name).arg("--version").stdout(Stdio::null()).status().is_ok_and(|s| s.success());
    if on_path {
        return PathBuf::from(name);
    }
    if !installed.exists() {
        eprintln!("installing {package} into {} with cargo install...", dir.display());
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["install", "--locked", "--root"])
            .arg(dir)
            .arg(package)
            .status()
            .unwrap();
        assert!(status.success(), "cargo install {package} failed");
    }
    installed
}

// --- check_files --------------------------------------------------------------------------
//
// `check_files` over MCP on the tree's sources, one language at a time: its Rust files (the
// registry's), the JavaScript of the npm that comes with node (`$(npm root -g)/npm`, copied
// into `js/npm`), and the TypeScript sources of two packages that ship theirs (rxjs and zod,
// installed with `npm install` into `FILEWRIGHT_TOOLS_DIR/ts`, or taken from the directory
// `FILEWRIGHT_CHECK_TS_SOURCE` names; copied into `ts/`). Each language's files are checked
// by servers of their own, a fresh one for each call (so that each is a first call, and its
// peak memory (VmHWM) is that check's); the figure is the source bytes checked over the
// call's wall time.

/// At most this many bytes of each language's sources are checked (the first files in path
/// order): enough for a steady rate, few enough for a bench that ends.
const CHECK_BYTES: u64 = 100 << 20;

/// Calls of `check_files` timed for each language (the median is reported).
const CHECK_REPETITIONS: usize = 3;

/// The TypeScript packages checked, pinned so that every run checks the same sources.
const TS_PACKAGES: [&str; 2] = ["rxjs@7.8.2", "zod@4.1.12"];

/// One language's row in the check table.
struct CheckRow {
    language: &'static str,
    files: usize,
    bytes: u64,
    wall: Duration,
    cpu: Duration,
    peak_mb: u64,
    verdict: String,
}

/// Adds the JavaScript and TypeScript sources the check is timed on to `tree` (only in a
/// full run: the smoke run checks a few of the registry's Rust files).
fn add_script_sources(tree: &Path, tools_dir: &Path) {
    let npm_root = Command::new("npm").args(["root", "-g"]).output().ok().filter(|o| o.status.success());
    match npm_root {
        Some(out) => {
            let npm = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("npm");
            copy_dir(&npm, &tree.join("js").join("npm"), usize::MAX, &mut (0, 0));
        }
        None => eprintln!("npm not found: no JavaScript sources to check"),
    }
    let ts_source = match std::env::var_os("FILEWRIGHT_CHECK_TS_SOURCE") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let prefix = tools_dir.join("ts");
            let modules = prefix.join("node_modules");
            if !modules.exists() {
                eprintln!("installing {TS_PACKAGES:?} into {} with npm install...", prefix.display());
                let status = Command::new("npm")
                    .args(["install", "--no-save", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix"])
                    .arg(&prefix)
                    .args(TS_PACKAGES)
                    .status();
                if !status.is_ok_and(|s| s.success()) {
                    eprintln!("npm install failed: no TypeScript sources to check");
                }
            }
            modules
        }
    };
    copy_dir(&ts_source, &tree.join("ts"), usize::MAX, &mut (0, 0));
}

/// The files under `dir` whose names end in one of `extensions`, as paths relative to `root`,
/// in path order, until [`CHECK_BYTES`]; with their bytes.
fn sources(root: &Path, dir: &Path, extensions: &[&str], limit: usize) -> (Vec<String>, u64) {
    let all = tree::files_in_path_order(dir);
    let (mut paths, mut bytes) = (Vec::new(), 0);
    for path in all {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if !extensions.iter().any(|e| name.ends_with(e)) || paths.len() >= limit || bytes >= CHECK_BYTES {
            continue;
        }
        bytes += std::fs::metadata(&path).map_or(0, |m| m.len());
        paths.push(path.strip_prefix(root).unwrap().to_string_lossy().into_owned());
    }
    (paths, bytes)
}

/// Times `check_files` on each language's sources in `tree`, each on a server of its own.
fn time_checks(tree: &Path, full: bool) -> Vec<CheckRow> {
    let languages: [(&str, PathBuf, &[&str]); 3] = [
        ("Rust", tree.to_owned(), &[".rs"]),
        ("JavaScript", tree.join("js"), &[".js", ".mjs", ".cjs"]),
        ("TypeScript", tree.join("ts"), &[".ts", ".mts", ".cts", ".tsx"]),
    ];
    let mut rows = Vec::new();
    for (language, dir, extensions) in languages {
        let (paths, bytes) = sources(tree, &dir, extensions, if full { usize::MAX } else { 20 });
        if paths.is_empty() {
            continue;
        }
        eprintln!("timing check_files on {} {language} files ({} MB)...", paths.len(), bytes >> 20);
        let (mut walls, mut cpu, mut verdict, mut peak_mb) = (Vec::new(), Duration::ZERO, String::new(), 0);
        for _ in 0..if full { CHECK_REPETITIONS } else { 1 } {
            // A fresh server for each call: a server keeps what unchanged files told its
            // last check (see the `check_repeat` bench for a repeated check).
            let state = tempfile::tempdir().unwrap();
            let mut command = Command::new(env!("CARGO_BIN_EXE_filewright"));
            command
                .arg("--root")
                .arg(tree)
                .arg("--state-dir")
                .arg(state.path())
                .env("FILEWRIGHT_LOG", "error");
            let (mut server, _) = Server::spawn(command, Vec::new());
            let (before, started) = (server.cpu_time(), Instant::now());
            let reply = server.call_ok("check_files", serde_json::json!({ "paths": paths }));
            walls.push(started.elapsed());
            cpu += server.cpu_time().saturating_sub(before);
            let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
            let found = &reply["result"]["structuredContent"];
            let listed = found["files"].as_array().map_or(0, Vec::len) as u64;
            let left_out = found["not_listed"].as_u64().unwrap_or(0);
            assert_eq!(listed + left_out, paths.len() as u64, "a verdict per file, listed or counted");
            verdict = found["verdict"].as_str().unwrap_or_default().chars().take(120).collect();
            peak_mb = peak_mb.max(server.peak_rss_mb());
        }
        let n = walls.len() as u32;
        rows.push(CheckRow {
            language,
            files: paths.len(),
            bytes,
            wall: median(walls),
            cpu: cpu / n,
            peak_mb,
            verdict,
        });
    }
    rows
}

fn report_checks(rows: &[CheckRow]) {
    println!();
    println!(
        "`check_files` on the tree's sources by language (at most {} MB each, the first in path order): \
         median wall time of {CHECK_REPETITIONS} calls, each a first call on a fresh server.",
        CHECK_BYTES >> 20
    );
    println!();
    println!("| language | files | MB | wall | MB/s | CPU per call | server's peak memory | verdict |");
    println!("|---|---|---|---|---|---|---|---|");
    for row in rows {
        let mb = row.bytes as f64 / (1 << 20) as f64;
        println!(
            "| {} | {} | {mb:.1} | {:.2} s | {:.1} | {:.2} s | {} MB | {} |",
            row.language,
            row.files,
            row.wall.as_secs_f64(),
            mb / row.wall.as_secs_f64(),
            row.cpu.as_secs_f64(),
            row.peak_mb,
            row.verdict
        );
    }
}
