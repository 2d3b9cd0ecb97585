//! `find_files`: the files under a directory whose path matches a glob (see [`super::walk`] for
//! how globs match), newest first.

use schemars::JsonSchema;
use serde::Serialize;

use super::walk::{PathGlob, Walked, walk_files};
use crate::error::Result;
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
    /// Every match, newest first.
    pub files: Vec<FoundFile>,
    /// What the walk left out.
    pub walked: Walked,
}

/// The files under `dir` (the root when None) matching `pattern`.
pub fn find(ws: &Workspace, dir: Option<&RootPath>, pattern: &str) -> Result<Found> {
    let glob = PathGlob::new("pattern", pattern, dir)?;
    let walk = walk_files(ws, dir, &|file| {
        if !glob.matches(file.path()) {
            return None;
        }
        // A file replaced by something else since it was listed is left out.
        let info = file.stat().ok().filter(|info| info.kind == FileKind::File)?;
        let modified = Timestamp::from_millis((info.mtime_ns / 1_000_000) as i64);
        Some((info.size, modified))
    })?;
    let walked = walk.walked;
    let mut files: Vec<FoundFile> =
        walk.into_kept().map(|(path, (size, modified))| FoundFile { path, size, modified }).collect();
    files.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.path.cmp(&b.path)));
    Ok(Found { files, walked })
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
        assert_eq!(names(&find(&ws, None, "*.ts").unwrap()), ["a.ts", "src/b.ts", "src/deep/c.ts"]);
        assert_eq!(names(&find(&ws, None, "src/*.ts").unwrap()), ["src/b.ts"]);
        assert_eq!(names(&find(&ws, None, "src/**/*.ts").unwrap()), ["src/b.ts", "src/deep/c.ts"]);
        let src = ws.resolve("src").unwrap();
        assert_eq!(names(&find(&ws, Some(&src), "deep/*.ts").unwrap()), ["src/deep/c.ts"]);
        assert!(find(&ws, None, "*.ts").unwrap().walked.ignored >= 1, "target/ is ignored");
    }
}
