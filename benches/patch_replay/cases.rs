//! OpenAI Codex's own apply-patch cases (the data set's `scenarios/` and `unit/`, read where
//! they are), each run on a fresh root through the release server, the whole tree compared.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::stdio;

/// What a case expects, from its directory.
struct Case {
    name: String,
    dir: PathBuf,
    /// The patch must apply (else: be refused, the tree unchanged).
    apply: bool,
    /// Directories compared too (the scenarios' trees are files and directories).
    with_dirs: bool,
    /// `{ROOT}` in the patch and links stands for the root.
    placeholder: bool,
    dirs: Vec<String>,
    symlinks: Vec<(String, String)>,
}

/// Runs every case under `data` and prints the table and each failure.
pub fn run_all(data: &Path) {
    let mut cases = Vec::new();
    for (part, with_dirs) in [("scenarios", true), ("unit", false)] {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(data.join(part))
            .unwrap_or_else(|e| panic!("{}: {e}", data.join(part).display()))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for dir in dirs {
            cases.push(case(&dir, part, with_dirs));
        }
    }
    let (mut passed, mut failed) = (Vec::new(), Vec::new());
    for case in &cases {
        match run(case) {
            Ok(()) => passed.push(case.name.clone()),
            Err(why) => failed.push(format!("{}: {why}", case.name)),
        }
    }
    println!("\nCodex apply-patch cases: {} run, {} pass, {} fail", cases.len(), passed.len(), failed.len());
    for f in &failed {
        println!("  FAIL {f}");
    }
    println!("\n| Codex's cases | run | pass | fail |\n|---|---|---|---|");
    for part in ["scenarios", "unit"] {
        let of = |names: &[String]| names.iter().filter(|n| n.starts_with(part)).count();
        let fails = failed.iter().filter(|n| n.starts_with(part)).count();
        println!("| {part} | {} | {} | {} |", of(&passed) + fails, of(&passed), fails);
    }
}

fn case(dir: &Path, part: &str, with_dirs: bool) -> Case {
    let name = format!("{part}/{}", dir.file_name().unwrap().to_string_lossy());
    let json: serde_json::Value = std::fs::read_to_string(dir.join("case.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let apply = match json["expect"].as_str() {
        Some(expect) => expect == "apply",
        // A scenario whose expected tree is its input is one Codex refuses.
        None => tree(&dir.join("expected"), true) != tree(&dir.join("input"), true),
    };
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
            .unwrap_or_default()
    };
    let symlinks = json["symlinks"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned())).collect())
        .unwrap_or_default();
    Case {
        name,
        dir: dir.to_path_buf(),
        apply,
        with_dirs,
        placeholder: json["root_placeholder"].as_bool().unwrap_or(false),
        dirs: strings(&json["dirs"]),
        symlinks,
    }
}

/// Runs one case: Ok when the tree is what it expects.
fn run(case: &Case) -> Result<(), String> {
    let work = tempfile::tempdir().unwrap();
    let (root, state) = (work.path().join("root"), work.path().join("state"));
    std::fs::create_dir(&state).unwrap();
    copy_tree(&case.dir.join("input"), &root);
    std::fs::create_dir_all(&root).unwrap();
    let root_text = root.display().to_string();
    let fill = |s: &str| if case.placeholder { s.replace("{ROOT}", &root_text) } else { s.to_owned() };
    for dir in &case.dirs {
        std::fs::create_dir_all(root.join(fill(dir))).unwrap();
    }
    for (link, target) in &case.symlinks {
        std::os::unix::fs::symlink(fill(target), root.join(link)).unwrap();
    }
    let before = tree(&root, case.with_dirs);
    let patch = std::fs::read_to_string(case.dir.join("patch.txt")).unwrap();
    let mut command = Command::new(super::server_binary());
    command.arg("--root").arg(&root).arg("--state-dir").arg(&state);
    command.env("FILEWRIGHT_LOG", "error");
    let (mut server, _) = stdio::Server::spawn(command, Vec::new());
    let outcome = super::call(&mut server, &fill(&patch));
    drop(server);
    let after = tree(&root, case.with_dirs);
    let expected = if case.apply { tree(&case.dir.join("expected"), case.with_dirs) } else { before.clone() };
    match (case.apply, outcome) {
        (true, Err(e)) => Err(format!("refused: {}", e.lines().take(3).collect::<Vec<_>>().join(" / "))),
        (false, Ok(())) => Err("applied; Codex refuses it".into()),
        _ if after != expected => Err(format!("tree differs: expected {expected:?}, got {after:?}")),
        _ => Ok(()),
    }
}

/// Every file (with its content, a link as `link:<target>`) and, with `dirs`, directory
/// under `dir`, by relative path.
fn tree(dir: &Path, dirs: bool) -> Vec<(String, String)> {
    let mut out = Vec::new();
    walk(dir, dir, dirs, &mut out);
    out.sort();
    out
}

fn walk(base: &Path, dir: &Path, dirs: bool, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let rel = path.strip_prefix(base).unwrap().display().to_string();
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            out.push((rel, format!("link:{}", std::fs::read_link(&path).unwrap().display())));
        } else if kind.is_dir() {
            if dirs {
                out.push((rel.clone(), "<dir>".into()));
            }
            walk(base, &path, dirs, out);
        } else {
            out.push((rel, String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned()));
        }
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let Ok(entries) = std::fs::read_dir(from) else { return };
    for entry in entries.flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}
