//! The git side of the replay: what a commit changed, its diffs, `git apply`, and putting a
//! path back as a commit has it.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs git in `repo`; its output, or what it said on failure.
pub fn git_ok(repo: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["-c", "core.quotepath=true", "-c", "diff.noprefix=false", "-c", "color.ui=never"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("git: {e}"));
    if out.status.success() { Ok(out.stdout) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
}

/// Runs git in `repo` and panics when it fails.
pub fn git(repo: &Path, args: &[&str]) -> Vec<u8> {
    git_ok(repo, args).unwrap_or_else(|e| panic!("git {args:?}: {e}"))
}

/// What a change did to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Added,
    Deleted,
    Modified,
    Renamed,
    /// A file became a link or the other way round.
    TypeChanged,
}

/// One file a commit changed, as `git diff --raw -M` says.
#[derive(Debug, Clone)]
pub struct Change {
    pub kind: Kind,
    pub old_mode: String,
    pub new_mode: String,
    pub old_path: String,
    pub new_path: String,
}

impl Change {
    /// The paths it touches (one, or a rename's two).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        let second = (self.new_path != self.old_path).then_some(self.new_path.as_str());
        std::iter::once(self.old_path.as_str()).chain(second)
    }

    /// Whether either side is a symbolic link or a submodule.
    pub fn special(&self) -> Option<&'static str> {
        [self.old_mode.as_str(), self.new_mode.as_str()].iter().find_map(|m| match *m {
            "120000" => Some("symbolic link"),
            "160000" => Some("submodule"),
            _ => None,
        })
    }
}

/// The files `commit` changed against `parent`, renames detected.
pub fn changes(repo: &Path, parent: &str, commit: &str) -> Vec<Change> {
    let raw = git(repo, &["diff", "--raw", "-z", "-M", "--no-ext-diff", parent, commit]);
    let fields: Vec<String> =
        raw.split(|&b| b == 0).map(|f| String::from_utf8_lossy(f).into_owned()).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < fields.len() {
        let meta = &fields[i];
        if meta.is_empty() {
            i += 1;
            continue;
        }
        // `:old_mode new_mode old_sha new_sha STATUS`
        let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        let status = parts[4].chars().next().unwrap_or('M');
        let (old_mode, new_mode) = (parts[0].to_string(), parts[1].to_string());
        let first = fields[i + 1].clone();
        let (kind, old_path, new_path, used) = match status {
            'R' | 'C' => (Kind::Renamed, first, fields[i + 2].clone(), 3),
            'A' => (Kind::Added, first.clone(), first, 2),
            'D' => (Kind::Deleted, first.clone(), first, 2),
            'T' => (Kind::TypeChanged, first.clone(), first, 2),
            _ => (Kind::Modified, first.clone(), first, 2),
        };
        out.push(Change { kind, old_mode, new_mode, old_path, new_path });
        i += used;
    }
    out
}

/// `git diff -M -U<context>` of `commit` against `parent`, with git's `a/` and `b/` prefixes.
pub fn diff(repo: &Path, parent: &str, commit: &str, context: u32) -> Vec<u8> {
    let unified = format!("-U{context}");
    git(
        repo,
        &["diff", "-M", &unified, "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/", parent, commit],
    )
}

/// The file at `path` in `commit`: None when it is not there; `Err` for a link (its target).
pub fn blob(repo: &Path, commit: &str, path: &str) -> Option<Vec<u8>> {
    git_ok(repo, &["cat-file", "blob", &format!("{commit}:{path}")]).ok()
}

/// `git apply` of `diff` in `dir` (not a repository: git applies it like `patch`).
pub fn apply(diff: &[u8], dir: &Path, zero_context: bool) -> Result<(), String> {
    let mut command = Command::new("git");
    command.current_dir(dir).args(["apply", "--whitespace=nowarn", "-p1"]);
    if zero_context {
        command.arg("--unidiff-zero");
    }
    // Keep git from looking for a repository above the copy.
    command.env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap_or(dir));
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(diff).unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
}

/// The tree of `commit` written into `dir`.
pub fn extract(repo: &Path, commit: &str, dir: &Path) {
    let tar = git(repo, &["archive", "--format=tar", commit]);
    let mut child = Command::new("tar").arg("-x").arg("-C").arg(dir).stdin(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(&tar).unwrap();
    assert!(child.wait().unwrap().success(), "tar -x");
}

/// `path` under `dir` made as `commit` has it: its content, its link, or nothing (and the
/// directories that leaves empty gone, as git leaves none).
pub fn checkout_path(repo: &Path, commit: &str, path: &str, dir: &Path) {
    let full = dir.join(path);
    let tree = git(repo, &["ls-tree", "-z", commit, "--", path]);
    let entry = String::from_utf8_lossy(&tree).into_owned();
    let mode = entry.split(' ').next().unwrap_or_default().to_string();
    if let Ok(m) = std::fs::symlink_metadata(&full) {
        if m.is_dir() {
            let _ = std::fs::remove_dir_all(&full);
        } else {
            std::fs::remove_file(&full).unwrap();
        }
    }
    if entry.is_empty() {
        let mut parent = full.parent();
        while let Some(p) = parent.filter(|p| *p != dir) {
            if std::fs::remove_dir(p).is_err() {
                break;
            }
            parent = p.parent();
        }
        return;
    }
    // A file where a directory of the path should be: what the commit has wins.
    let mut ancestor = full.parent();
    while let Some(a) = ancestor.filter(|a| *a != dir) {
        if std::fs::symlink_metadata(a).is_ok_and(|m| !m.is_dir()) {
            std::fs::remove_file(a).unwrap();
        }
        ancestor = a.parent();
    }
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    let bytes = blob(repo, commit, path).unwrap_or_default();
    match mode.as_str() {
        "120000" => {
            let target = String::from_utf8_lossy(&bytes).into_owned();
            std::os::unix::fs::symlink(target, &full).unwrap();
        }
        "160000" => std::fs::create_dir_all(&full).unwrap(),
        _ => std::fs::write(&full, bytes).unwrap(),
    }
}
