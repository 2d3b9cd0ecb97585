//! What a tree holds: the patterns of the `.gitignore` and `.ignore` files from the root down
//! to a directory, as ripgrep and fd read them, for every way files are seen (`find_files`,
//! `search_files`, `list_directory`, and the references' project), so that all agree.
//!
//! Ignore files are read through the sandbox and matched with the `ignore` crate's matcher
//! against virtual paths rooted at `/`, so nothing here touches a host path. The deepest
//! file's match decides (a `!` rule can bring a file back), and a `.ignore` file's match
//! overrides any `.gitignore`'s. `.gitignore` files apply whether or not the tree is a git
//! repository.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::workspace::{RootPath, Workspace};

/// The names of the ignore files honoured, the one that wins first.
pub(super) const IGNORE_FILES: [&str; 2] = [".ignore", ".gitignore"];

/// The largest ignore file read.
pub(super) const MAX_IGNORE_FILE: u64 = 1 << 20;

/// The matcher of `dir`'s own ignore file `name` (`.gitignore`, `.ignore`), if it has a
/// readable one.
pub(super) fn ignore_file_of(ws: &Workspace, dir: Option<&RootPath>, name: &str) -> Option<Gitignore> {
    let file = match dir {
        Some(d) => d.child(name),
        None => RootPath::from_name(name)?,
    };
    let bytes = ws.read(&file, MAX_IGNORE_FILE).ok()?;
    matcher_of(dir, &bytes)
}

/// The matcher of the ignore file `bytes` found in `dir` (the root when None).
pub(super) fn matcher_of(dir: Option<&RootPath>, bytes: &[u8]) -> Option<Gitignore> {
    let base = virtual_path(dir.map(RootPath::as_path));
    let mut builder = GitignoreBuilder::new(&base);
    for line in String::from_utf8_lossy(bytes).lines() {
        // A bad pattern is skipped, as git does.
        let _ = builder.add_line(None, line);
    }
    builder.build().ok()
}

/// Whether a `.ignore` or `.gitignore` of the root or of a directory above `path` leaves it
/// out (as a walk would).
pub fn is_ignored(ws: &Workspace, path: &RootPath, is_dir: bool) -> bool {
    let mut scratch = PathBuf::new();
    let mut ignored = |at: &RootPath, is_dir| {
        rules_above(ws, Some(at)).is_some_and(|rules| rules.ignore(at, is_dir, &mut scratch))
    };
    // A walk never enters an ignored directory: what is below one is left out with it.
    let mut above = Vec::new();
    let mut prefix = PathBuf::new();
    for comp in path.as_path().parent().into_iter().flat_map(Path::components) {
        prefix.push(comp);
        above.extend(RootPath::from_path(&prefix));
    }
    above.iter().any(|dir| ignored(dir, true)) || ignored(path, is_dir)
}

/// The ignore files' patterns that apply in one directory: its own files', then its
/// parent's, up to the root's.
#[derive(Debug)]
pub(super) struct Rules {
    ignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
    parent: Option<Arc<Rules>>,
}

impl Rules {
    /// The chain `parent` with `ignore` and `gitignore` below it; `parent` itself when
    /// neither file is there.
    pub(super) fn below(
        parent: Option<Arc<Rules>>,
        ignore: Option<Gitignore>,
        gitignore: Option<Gitignore>,
    ) -> Option<Arc<Rules>> {
        if ignore.is_none() && gitignore.is_none() {
            return parent;
        }
        Some(Arc::new(Rules { ignore, gitignore, parent }))
    }

    fn chain(&self) -> impl Iterator<Item = &Rules> {
        std::iter::successors(Some(self), |r| r.parent.as_deref())
    }

    /// Whether the entry at `path` is ignored: the deepest `.ignore` match decides, else the
    /// deepest `.gitignore` match (ripgrep's precedence).
    pub(super) fn ignore(&self, path: &RootPath, is_dir: bool, scratch: &mut PathBuf) -> bool {
        // The path as the matchers see it (rooted at a virtual `/`), in memory reused from
        // entry to entry.
        scratch.as_mut_os_string().clear();
        scratch.push("/");
        scratch.push(path.as_path());
        let virtual_file = scratch.as_path();
        let picks: [fn(&Rules) -> Option<&Gitignore>; 2] = [|r| r.ignore.as_ref(), |r| r.gitignore.as_ref()];
        for pick in picks {
            for matcher in self.chain().filter_map(pick) {
                let matched = matcher.matched(virtual_file, is_dir);
                if matched.is_ignore() {
                    return true;
                }
                if matched.is_whitelist() {
                    return false;
                }
            }
        }
        false
    }
}

/// The rules of the directories above `dir` (the root first), which apply to everything
/// below `dir` too.
pub(super) fn rules_above(ws: &Workspace, dir: Option<&RootPath>) -> Option<Arc<Rules>> {
    let mut rules = None;
    let dir = dir?;
    let mut levels = vec![None];
    let mut prefix = PathBuf::new();
    for comp in dir.as_path().parent().into_iter().flat_map(Path::components) {
        prefix.push(comp);
        levels.push(RootPath::from_path(&prefix));
    }
    for level in levels {
        rules = rules_in(ws, level.as_ref(), rules);
    }
    rules
}

/// The rules below `parent` in `dir`, whose own ignore files are read through the workspace.
pub(super) fn rules_in(
    ws: &Workspace,
    dir: Option<&RootPath>,
    parent: Option<Arc<Rules>>,
) -> Option<Arc<Rules>> {
    let [ignore, gitignore] = IGNORE_FILES.map(|name| ignore_file_of(ws, dir, name));
    Rules::below(parent, ignore, gitignore)
}

/// Matchers work on paths; ours are rooted at a fixed virtual `/`, never the host root.
fn virtual_path(relative: Option<&Path>) -> PathBuf {
    let mut p = PathBuf::from("/");
    if let Some(r) = relative {
        p.push(r);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::temp_workspace;

    #[test]
    fn a_path_is_ignored_by_the_gitignore_of_any_directory_above_it() {
        let (t, ws) = temp_workspace();
        std::fs::create_dir_all(t.path().join("web")).unwrap();
        std::fs::write(t.path().join(".gitignore"), "dist/\n").unwrap();
        std::fs::write(t.path().join("web/.gitignore"), "*.gen.js\n").unwrap();
        let path = |p: &str| ws.resolve(p).unwrap();
        assert!(is_ignored(&ws, &path("dist/app.js"), false));
        assert!(is_ignored(&ws, &path("web/dist"), true));
        assert!(is_ignored(&ws, &path("web/a.gen.js"), false));
        assert!(!is_ignored(&ws, &path("a.gen.js"), false));
        assert!(!is_ignored(&ws, &path("web/app.js"), false));
    }
}
