//! `find_files`: the files under a directory whose path matches a glob (see [`super::walk`] for
//! how globs match), newest first.

use schemars::JsonSchema;
use serde::Serialize;

use super::cores::in_parallel;
use super::encoding;
use super::glob::PathGlob;
use super::tree::{Read, Tree};
use super::walk::{Walked, walk_files};
use crate::error::Result;
use crate::lines::count_lines;
use crate::timestamp::Timestamp;
use crate::workspace::{FileKind, RootPath, Workspace};

/// One file found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FoundFile {
    /// Path relative to the root.
    pub path: RootPath,
    /// Size in bytes.
    pub size: u64,
    /// Last modification.
    pub modified: Timestamp,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The newest matches, newest first (by path when as new).
    pub files: Vec<FoundFile>,
    /// The lines of each of `files`; None for a file that is not text or is too large.
    pub lines: Vec<Option<usize>>,
    /// Matches left out of `files`.
    pub more: usize,
    /// What the walk left out.
    pub walked: Walked,
}

/// The newest `max` files under `dir` (the root when None) matching `pattern`, and their
/// lines (files up to `max_file_bytes` are read to count them).
pub fn find(
    ws: &Workspace,
    dir: Option<&RootPath>,
    pattern: &str,
    max: usize,
    max_file_bytes: u64,
) -> Result<Found> {
    let glob = PathGlob::new("pattern", pattern, dir)?;
    let walk = walk_files(ws, dir, &|file| {
        if !glob.matches_file(file) {
            return None;
        }
        // A file replaced by something else since it was listed is left out.
        let info = file.stat().ok().filter(|info| info.kind == FileKind::File)?;
        let modified = Timestamp::from_millis((info.mtime_ns / 1_000_000) as i64);
        Some((info.size, modified))
    })?;
    let mut files: Vec<FoundFile> = walk
        .kept()
        .map(|(path, (size, modified))| FoundFile { path: path.clone(), size: *size, modified: *modified })
        .collect();
    let newest_first =
        |a: &FoundFile, b: &FoundFile| b.modified.cmp(&a.modified).then_with(|| a.path.cmp(&b.path));
    // Only the newest are put in order: a tree of thousands of matches lists a few hundred.
    let more = files.len().saturating_sub(max);
    if more > 0 {
        files.select_nth_unstable_by(max, newest_first);
        files.truncate(max);
    }
    files.sort_unstable_by(newest_first);
    let lines =
        in_parallel(&files, Vec::new, |bytes, file| lines_of(walk.tree(), &file.path, max_file_bytes, bytes));
    Ok(Found { files, lines, more, walked: walk.walked })
}

/// The lines of the text file at `path` (in its own encoding); None for a binary file (a NUL
/// byte, as [`encoding::text_of`] decides: its start is enough to tell), one larger than
/// `limit`, or one that cannot be read.
fn lines_of(tree: &Tree, path: &RootPath, limit: u64, bytes: &mut Vec<u8>) -> Option<usize> {
    match tree.read(path, limit, bytes, &encoding::binary_at_start).ok()? {
        Read::Start => None,
        Read::Whole => encoding::text_of(bytes).map(|text| count_lines(text.as_bytes())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::temp_workspace;

    fn names(found: &Found) -> Vec<String> {
        let mut names: Vec<String> = found.files.iter().map(|f| f.path.display()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_name_pattern_matches_at_any_depth_and_a_path_pattern_from_the_directory() {
        let (t, ws) = temp_workspace();
        for p in ["a.ts", "src/b.ts", "src/deep/c.ts", "src/d.js", "target/e.ts"] {
            std::fs::create_dir_all(t.path().join(p).parent().unwrap_or(t.path())).unwrap();
            std::fs::write(t.path().join(p), "x").unwrap();
        }
        std::fs::write(t.path().join(".gitignore"), "target/\n").unwrap();
        assert_eq!(
            names(&find(&ws, None, "*.ts", 10, 1 << 20).unwrap()),
            ["a.ts", "src/b.ts", "src/deep/c.ts"]
        );
        assert_eq!(names(&find(&ws, None, "src/*.ts", 10, 1 << 20).unwrap()), ["src/b.ts"]);
        assert_eq!(
            names(&find(&ws, None, "src/**/*.ts", 10, 1 << 20).unwrap()),
            ["src/b.ts", "src/deep/c.ts"]
        );
        let src = ws.resolve("src").unwrap();
        assert_eq!(names(&find(&ws, Some(&src), "deep/*.ts", 10, 1 << 20).unwrap()), ["src/deep/c.ts"]);
        assert!(find(&ws, None, "*.ts", 10, 1 << 20).unwrap().walked.ignored >= 1, "target/ is ignored");
    }
    #[test]
    fn the_newest_come_first_and_as_new_ones_by_path_whatever_the_limit() {
        let (t, ws) = temp_workspace();
        let now = std::time::SystemTime::now();
        let mut expected = Vec::new();
        for i in 0..30 {
            let path = format!("d{}/f{i:02}.txt", i % 3);
            std::fs::create_dir_all(t.path().join(&path).parent().unwrap()).unwrap();
            std::fs::write(t.path().join(&path), "x").unwrap();
            // Five ages, six files of each.
            let age = std::time::Duration::from_secs(60 * (i % 5) as u64);
            std::fs::File::options()
                .write(true)
                .open(t.path().join(&path))
                .unwrap()
                .set_modified(now - age)
                .unwrap();
            expected.push((i % 5, path));
        }
        expected.sort();
        let expected: Vec<String> = expected.into_iter().map(|(_, path)| path).collect();
        let all = find(&ws, None, "*.txt", 100, 1 << 20).unwrap();
        let paths: Vec<String> = all.files.iter().map(|f| f.path.display()).collect();
        assert_eq!((paths, all.more), (expected, 0));
        for max in [1, 7, 29, 30] {
            let some = find(&ws, None, "*.txt", max, 1 << 20).unwrap();
            assert_eq!((&some.files[..], some.more), (&all.files[..max], 30 - max), "max {max}");
        }
    }
    #[test]
    fn lines_are_counted_in_text_files_of_any_encoding_and_not_in_binary_or_large_ones() {
        let (t, ws) = temp_workspace();
        std::fs::write(t.path().join("a.txt"), "one\ntwo\nthree\n").unwrap();
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend("one\ntwo\n".encode_utf16().flat_map(u16::to_le_bytes));
        std::fs::write(t.path().join("b.txt"), utf16).unwrap();
        std::fs::write(t.path().join("c.txt"), b"bin\0ary").unwrap();
        let mut large_binary = vec![0u8; 100_000];
        large_binary.extend(b"\ntext\n");
        std::fs::write(t.path().join("d.txt"), large_binary).unwrap();
        std::fs::write(t.path().join("e.txt"), "x\n".repeat(100_000)).unwrap();
        let found = find(&ws, None, "*.txt", 10, 150_000).unwrap();
        let lines: Vec<(String, Option<usize>)> =
            found.files.iter().map(|f| f.path.display()).zip(found.lines.iter().copied()).collect();
        let mut lines = lines;
        lines.sort();
        assert_eq!(
            lines,
            [
                ("a.txt".to_string(), Some(3)),
                ("b.txt".to_string(), Some(2)),
                ("c.txt".to_string(), None),
                ("d.txt".to_string(), None),
                ("e.txt".to_string(), None)
            ],
            "d.txt is binary, e.txt over the 150,000 bytes read at most"
        );
    }
}
