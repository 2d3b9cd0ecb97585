//! `list_directory`: a bounded, sorted listing that honours `.gitignore` and `.ignore` files
//! (the same rules as `find_files` and `search_files`, in `ignore_rules`) and never follows a
//! symlink.

use std::sync::Arc;

use super::ignore_rules::{Rules, rules_above, rules_in};
use crate::error::Result;
use schemars::JsonSchema;
use serde::Serialize;

use crate::workspace::{DirEntry, FileKind, RootPath, Workspace};

/// Entries shown at most, so a huge tree cannot flood the model's context.
pub const MAX_ENTRIES: usize = 500;

/// Options of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListOptions {
    /// Levels to descend: 1 lists only the directory itself.
    pub depth: usize,
    /// Show names starting with `.`.
    pub include_hidden: bool,
    /// Leave out what `.gitignore` and `.ignore` files ignore (and `.git`).
    pub gitignore: bool,
}

/// A listing and what it left out. The field docs are the wire's (`list_directory`'s
/// output schema). Once the listing is full no further directory is read, because a huge
/// tree would cost a full walk only to be counted: `omitted` then counts what was seen in
/// the directories already read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Listing {
    /// Entries in tree order: directories first, then files, by name, children after parents.
    pub entries: Vec<DirEntry>,
    /// Entries not shown because the listing hit its limit (500): at least this many
    /// when `stopped` is set.
    pub omitted: usize,
    /// The listing hit its limit before reading every directory within the depth, so
    /// `omitted` is a lower bound.
    pub stopped: bool,
    /// Entries left out by .gitignore or .ignore (and `.git`).
    pub ignored: usize,
    /// Hidden entries (names starting with `.`) left out.
    pub hidden: usize,
}

/// Lists `dir` (the root when None).
pub fn list(ws: &Workspace, dir: Option<&RootPath>, options: ListOptions) -> Result<Listing> {
    let mut listing = Listing { entries: Vec::new(), omitted: 0, stopped: false, ignored: 0, hidden: 0 };
    let above = if options.gitignore { rules_above(ws, dir) } else { None };
    walk(ws, dir, 1, options, above, &mut listing)?;
    Ok(listing)
}

fn walk(
    ws: &Workspace,
    dir: Option<&RootPath>,
    depth: usize,
    options: ListOptions,
    above: Option<Arc<Rules>>,
    out: &mut Listing,
) -> Result<()> {
    let rules = if options.gitignore { rules_in(ws, dir, above) } else { None };
    let mut scratch = std::path::PathBuf::new();
    let mut items = ws.list(dir)?;
    items.sort_by(|a, b| {
        let rank = |k: FileKind| if k == FileKind::Directory { 0 } else { 1 };
        rank(a.kind).cmp(&rank(b.kind)).then_with(|| a.name().cmp(b.name()))
    });
    for mut item in items {
        let is_dir = item.kind == FileKind::Directory;
        if item.name().starts_with('.') && !options.include_hidden {
            out.hidden += 1;
            continue;
        }
        if options.gitignore
            && (item.name() == ".git"
                || rules.as_ref().is_some_and(|r| r.ignore(&item.path, is_dir, &mut scratch)))
        {
            out.ignored += 1;
            continue;
        }
        let path = item.path.clone();
        if out.entries.len() >= MAX_ENTRIES {
            out.omitted += 1;
        } else {
            item.depth = depth;
            out.entries.push(item);
        }
        if is_dir && depth < options.depth {
            if out.entries.len() >= MAX_ENTRIES {
                out.stopped = true;
            } else {
                walk(ws, Some(&path), depth + 1, options, rules.clone(), out)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Workspace) {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        std::fs::create_dir_all(r.join("src/nested")).unwrap();
        std::fs::create_dir_all(r.join("target/debug")).unwrap();
        std::fs::create_dir_all(r.join(".git")).unwrap();
        std::fs::write(r.join(".gitignore"), "target/\n*.log\n").unwrap();
        std::fs::write(r.join("src/.gitignore"), "!keep.log\n").unwrap();
        std::fs::write(r.join("README.md"), "hi").unwrap();
        std::fs::write(r.join("app.log"), "x").unwrap();
        std::fs::write(r.join("src/main.rs"), "fn main() {}").unwrap();
        std::fs::write(r.join("src/keep.log"), "kept").unwrap();
        std::fs::write(r.join("src/nested/deep.txt"), "d").unwrap();
        let ws = Workspace::open_root(r).unwrap();
        (t, ws)
    }

    fn paths(l: &Listing) -> Vec<String> {
        l.entries.iter().map(|e| e.path.display()).collect()
    }

    const DEFAULT: ListOptions = ListOptions { depth: 1, include_hidden: false, gitignore: true };

    #[test]
    fn lists_directories_first_and_honours_gitignore() {
        let (_t, ws) = setup();
        let l = list(&ws, None, DEFAULT).unwrap();
        assert_eq!(paths(&l), ["src", "README.md"]);
        assert_eq!(l.ignored, 2, "target/ and app.log");
        assert_eq!(l.hidden, 2, ".git and .gitignore");
    }

    #[test]
    fn depth_descends_and_nested_gitignore_can_unignore() {
        let (_t, ws) = setup();
        let l = list(&ws, None, ListOptions { depth: 3, ..DEFAULT }).unwrap();
        assert_eq!(
            paths(&l),
            ["src", "src/nested", "src/nested/deep.txt", "src/keep.log", "src/main.rs", "README.md"]
        );
        assert_eq!(l.entries[4].size, Some(12));
    }

    #[test]
    fn a_subdirectory_listing_applies_the_root_gitignore() {
        let (t, ws) = setup();
        std::fs::write(t.path().join("src/debug.log"), "x").unwrap();
        let l = list(&ws, Some(&ws.resolve("src").unwrap()), DEFAULT).unwrap();
        assert_eq!(paths(&l), ["src/nested", "src/keep.log", "src/main.rs"]);
    }

    #[test]
    fn an_ignore_file_is_honoured_and_overrides_a_gitignore() {
        let (t, ws) = setup();
        // As ripgrep and fd read them, and as find_files and search_files do.
        std::fs::write(t.path().join(".ignore"), "README.md\n!app.log\n").unwrap();
        let l = list(&ws, None, DEFAULT).unwrap();
        assert_eq!(paths(&l), ["src", "app.log"]);
        assert_eq!(l.ignored, 2, "target/ and README.md");
    }

    #[test]
    fn gitignore_and_hidden_can_be_turned_off() {
        let (_t, ws) = setup();
        let l = list(&ws, None, ListOptions { depth: 1, include_hidden: true, gitignore: false }).unwrap();
        assert_eq!(paths(&l), [".git", "src", "target", ".gitignore", "README.md", "app.log"]);
    }

    #[test]
    fn symlinks_are_listed_but_never_entered() {
        let (t, ws) = setup();
        std::os::unix::fs::symlink("/etc", t.path().join("etc_link")).unwrap();
        let l = list(&ws, None, ListOptions { depth: 5, ..DEFAULT }).unwrap();
        let link = l.entries.iter().find(|e| e.path.display() == "etc_link").unwrap();
        assert_eq!(link.kind, FileKind::Symlink);
        assert!(!l.entries.iter().any(|e| e.path.display().starts_with("etc_link/")));
    }

    #[test]
    fn output_is_bounded_with_a_count_of_the_rest() {
        let t = tempfile::tempdir().unwrap();
        for i in 0..(MAX_ENTRIES + 7) {
            std::fs::write(t.path().join(format!("f{i:04}")), "").unwrap();
        }
        let ws = Workspace::open_root(t.path()).unwrap();
        let l = list(&ws, None, DEFAULT).unwrap();
        assert_eq!((l.entries.len(), l.omitted, l.stopped), (MAX_ENTRIES, 7, false));
    }

    #[test]
    fn a_full_listing_reads_no_further_directory() {
        let t = tempfile::tempdir().unwrap();
        for i in 0..(MAX_ENTRIES + 3) {
            let dir = t.path().join(format!("d{i:04}"));
            std::fs::create_dir(&dir).unwrap();
            std::fs::write(dir.join("inner"), "").unwrap();
        }
        let ws = Workspace::open_root(t.path()).unwrap();
        let l = list(&ws, None, ListOptions { depth: 2, ..DEFAULT }).unwrap();
        assert_eq!(l.entries.len(), MAX_ENTRIES);
        assert!(l.stopped);
        // 250 directories and their 250 files fill the listing; the other 253
        // directories are counted from the root's own listing, and their files never read.
        assert_eq!(l.omitted, MAX_ENTRIES + 3 - MAX_ENTRIES / 2);
    }
}
