//! Does `apply_patch` land real commits where `git apply` lands them, and does it do what
//! OpenAI Codex's own apply-patch cases expect?
//!
//! **Replay.** The last N first-parent commits of a git repository are replayed one after the
//! other in two copies of the tree at the oldest one's parent: one changed by `git apply`, the
//! other by this package's release server through `apply_patch` over stdio (MCP, as a client
//! sends it, tolerance at its default). Each commit is sent four ways: `git diff -M` with 0, 1
//! and 3 lines of context, and a Codex envelope (`*** Begin Patch`) of the same change, made
//! from the two versions of each file as a careful writer makes one: hunks with 3 lines of
//! context and no line numbers, an `@@ <line>` or more context only where the hunk's lines
//! occur earlier in the file. After each commit the files it touched are compared byte for
//! byte between the copies: **same**, **refused** (an error result, and the copy unchanged:
//! all or nothing), **different** (anything else, a partial write included), or **both
//! refused** (`git apply` refuses too, as it does a binary diff without `--binary`). Then both
//! copies are set to the commit's own tree for those files, so one miss does not spoil the
//! rest. Executable bits are not compared (apply_patch does not set modes).
//!
//! **Codex's cases.** Every case directory of the data set (`scenarios/` and `unit/`, see its
//! README) is run on a fresh root: `input/` copied, `patch.txt` sent, and the whole tree
//! compared with `expected/` (for a case Codex rejects, with `input/`).
//!
//! Run: `cargo bench --bench patch_replay -- [--repo PATH] [--commits N] [--codex-cases DIR]
//! [--server BIN]`
//! (default: this repository, 300 commits; the cases' directory may also be given as
//! `FILEWRIGHT_CODEX_CASES`; without one, that part is skipped). Prints Markdown tables for
//! BENCHMARKS.md, every refusal's reason with its count, and the first differences in full.
//! `--server` measures another filewright binary (an older build) instead of this package's.
#[path = "patch_replay/cases.rs"]
mod cases;
#[path = "patch_replay/envelope.rs"]
mod envelope;
#[path = "patch_replay/git.rs"]
mod git;
#[path = "common/stdio.rs"]
mod stdio;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use git::{Change, git, git_ok};

/// Differences printed in full, per format.
const SHOWN: usize = 4;

/// How a commit is sent.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Format {
    /// `git diff -U<n>`.
    Unified(u32),
    /// A Codex envelope.
    Codex,
}

impl Format {
    fn name(self) -> String {
        match self {
            Format::Unified(n) => format!("git diff -U{n}"),
            Format::Codex => "Codex envelope".into(),
        }
    }
}

#[derive(Default)]
struct Tally {
    same: usize,
    refused: BTreeMap<String, usize>,
    both_refused: BTreeMap<String, usize>,
    different: Vec<String>,
    files: usize,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut commits = 300usize;
    let mut cases_dir = std::env::var_os("FILEWRIGHT_CODEX_CASES").map(PathBuf::from);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--repo" => repo = PathBuf::from(args.next().expect("--repo PATH")),
            "--commits" => commits = args.next().and_then(|n| n.parse().ok()).expect("--commits N"),
            "--server" => {
                let bin = args.next().expect("--server BIN");
                // SAFETY: set before any thread is started.
                unsafe { std::env::set_var("FILEWRIGHT_REPLAY_SERVER", bin) };
            }
            "--codex-cases" => cases_dir = Some(PathBuf::from(args.next().expect("--codex-cases DIR"))),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let list = git(&repo, &["rev-list", "--first-parent", "--max-count", &commits.to_string(), "HEAD"]);
    let mut list: Vec<String> = String::from_utf8(list).unwrap().lines().map(str::to_owned).collect();
    list.reverse();
    // The root commit has no parent to diff against.
    list.retain(|c| git_ok(&repo, &["rev-parse", "--verify", "--quiet", &format!("{c}^1")]).is_ok());
    println!("Replaying {} commits of {}\n", list.len(), repo.display());
    let formats = [Format::Unified(0), Format::Unified(1), Format::Unified(3), Format::Codex];
    let mut rows = Vec::new();
    for format in formats {
        let tally = replay(&repo, &list, format);
        println!(
            "{}: {} same, {} refused, {} different",
            format.name(),
            tally.same,
            count(&tally.refused),
            tally.different.len()
        );
        for (reason, n) in &tally.refused {
            println!("  refused {n}x: {reason}");
        }
        for (reason, n) in &tally.both_refused {
            println!("  both refused {n}x: {reason}");
        }
        for shown in tally.different.iter().take(SHOWN) {
            println!("  DIFFERENT {shown}");
        }
        rows.push((format, tally));
    }
    // A bare mirror's directory is `repo` or `x.git`: its parent names the project.
    let named = match repo.file_name().and_then(|n| n.to_str()) {
        Some("repo" | ".git") => repo.parent().unwrap_or(&repo),
        _ => &repo,
    };
    let name = named.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    println!("\n| {name}: {} commits | files | same | refused | both refused | different |", list.len());
    println!("|---|---|---|---|---|---|");
    for (format, t) in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            format.name(),
            t.files,
            t.same,
            count(&t.refused),
            count(&t.both_refused),
            t.different.len()
        );
    }
    if let Some(dir) = cases_dir {
        cases::run_all(&dir);
    }
}

fn count(reasons: &BTreeMap<String, usize>) -> usize {
    reasons.values().sum()
}

/// Replays `commits` in order, sent as `format`.
fn replay(repo: &Path, commits: &[String], format: Format) -> Tally {
    let work = tempfile::tempdir().unwrap();
    let (by_git, by_server, state) =
        (work.path().join("git"), work.path().join("fw"), work.path().join("state"));
    for dir in [&by_git, &by_server, &state] {
        std::fs::create_dir(dir).unwrap();
    }
    let base = format!("{}^1", commits[0]);
    git::extract(repo, &base, &by_git);
    git::extract(repo, &base, &by_server);
    let mut command = Command::new(server_binary());
    command.arg("--root").arg(&by_server).arg("--state-dir").arg(&state);
    command.env("FILEWRIGHT_LOG", "error");
    let (mut server, _) = stdio::Server::spawn(command, Vec::new());
    let mut tally = Tally::default();
    for commit in commits {
        let parent = format!("{commit}^1");
        let changes = git::changes(repo, &parent, commit);
        if changes.is_empty() {
            continue;
        }
        tally.files += changes.len();
        let paths: Vec<&str> = changes.iter().flat_map(Change::paths).collect();
        let before = snapshot(&by_server, &paths);
        let short = &commit[..10];
        // git apply takes the unified diff; for a Codex envelope, the -U3 one.
        let context = match format {
            Format::Unified(n) => n,
            Format::Codex => 3,
        };
        let diff = git::diff(repo, &parent, commit, context);
        let git_result = git::apply(&diff, &by_git, context == 0);
        let patch: Result<String, String> = match format {
            Format::Unified(_) => String::from_utf8(diff)
                .map_err(|_| "the diff is not UTF-8 (a JSON string cannot carry it)".into()),
            Format::Codex => envelope::make(repo, &parent, commit, &changes),
        };
        let server_result = match &patch {
            Ok(text) => call(&mut server, text),
            Err(unsendable) => Err(format!("not sent: {unsendable}")),
        };
        let after_server = snapshot(&by_server, &paths);
        let after_git = snapshot(&by_git, &paths);
        match (git_result, server_result) {
            (Ok(()), Ok(())) if after_git == after_server => tally.same += 1,
            (Ok(()), Ok(())) => {
                tally.different.push(format!("{short}: {}", first_difference(&after_git, &after_server)))
            }
            (Ok(()), Err(reason)) if after_server == before => {
                *tally.refused.entry(bucket(&reason)).or_default() += 1;
            }
            (Ok(()), Err(reason)) => tally.different.push(format!(
                "{short}: refused ({reason}) but changed {}",
                first_difference(&before, &after_server)
            )),
            (Err(git_says), Err(_)) if after_server == before => {
                *tally.both_refused.entry(bucket(&git_says)).or_default() += 1;
            }
            (Err(git_says), _) => tally.different.push(format!(
                "{short}: git apply refused ({}) and filewright changed {}",
                bucket(&git_says),
                first_difference(&before, &after_server)
            )),
        }
        // Both copies as the commit has them, whatever happened.
        for path in &paths {
            git::checkout_path(repo, commit, path, &by_git);
            git::checkout_path(repo, commit, path, &by_server);
        }
    }
    drop(server);
    tally
}

/// The server measured: `--server`'s, else this package's release build.
fn server_binary() -> PathBuf {
    std::env::var_os("FILEWRIGHT_REPLAY_SERVER")
        .map_or(PathBuf::from(env!("CARGO_BIN_EXE_filewright")), PathBuf::from)
}

/// Calls `apply_patch`; the error text when it failed.
fn call(server: &mut stdio::Server, patch: &str) -> Result<(), String> {
    let reply = server.call("apply_patch", serde_json::json!({"patch": patch}));
    let value: serde_json::Value = serde_json::from_str(&reply).unwrap_or_default();
    let result = &value["result"];
    if result["isError"].as_bool() == Some(false) || (result.is_object() && result["isError"].is_null()) {
        return Ok(());
    }
    let text = result["content"][0]["text"].as_str().map(str::to_owned);
    Err(text.unwrap_or_else(|| value["error"].to_string()))
}

/// A refusal's reason without what varies from one commit to the next (paths, numbers).
fn bucket(reason: &str) -> String {
    let known = [
        ("binary", "binary file (no text diff to apply)"),
        ("Binary", "binary file (no text diff to apply)"),
        ("symbolic link", "symbolic link (git mode 120000)"),
        ("submodule", "submodule (git mode 160000)"),
        ("only changes the file's mode", "mode change only"),
        ("not UTF-8", "not UTF-8"),
        ("does not apply", "a hunk does not apply"),
        ("patch does not apply", "a hunk does not apply"),
    ];
    for (needle, bucket) in known {
        if reason.contains(needle) {
            return bucket.into();
        }
    }
    let first = reason.lines().next().unwrap_or_default();
    first.chars().take(160).collect()
}

type Snapshot = Vec<(String, Option<Vec<u8>>)>;

/// The content of each of `paths` under `dir` (a link's target text, prefixed `link:`).
fn snapshot(dir: &Path, paths: &[&str]) -> Snapshot {
    let mut out: Snapshot = paths
        .iter()
        .map(|p| {
            let full = dir.join(p);
            let content = match std::fs::symlink_metadata(&full) {
                Ok(m) if m.file_type().is_symlink() => {
                    let target = std::fs::read_link(&full).unwrap();
                    Some([b"link:".as_slice(), target.as_os_str().as_encoded_bytes()].concat())
                }
                Ok(m) if m.is_file() => Some(std::fs::read(&full).unwrap()),
                Ok(_) => Some(b"dir".to_vec()),
                Err(_) => None,
            };
            (p.to_string(), content)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The first path whose content differs, and its first differing line.
fn first_difference(expected: &Snapshot, actual: &Snapshot) -> String {
    for ((path, want), (_, got)) in expected.iter().zip(actual) {
        if want == got {
            continue;
        }
        return match (want, got) {
            (Some(w), Some(g)) => {
                let (w, g) = (String::from_utf8_lossy(w), String::from_utf8_lossy(g));
                let at = w
                    .lines()
                    .zip(g.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(w.lines().count().min(g.lines().count()));
                format!(
                    "{path} line {}: expected {:?}, got {:?}",
                    at + 1,
                    w.lines().nth(at).unwrap_or("<end>"),
                    g.lines().nth(at).unwrap_or("<end>")
                )
            }
            (Some(_), None) => format!("{path}: missing"),
            (None, Some(_)) => format!("{path}: should not exist"),
            (None, None) => unreachable!("equal"),
        };
    }
    "nothing".into()
}
