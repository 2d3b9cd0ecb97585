//! `find_files`: the files under a directory whose path matches a glob, newest first, through
//! the sandbox, honouring `.gitignore`, bounded.
//!
//! A pattern with a `/` is matched against the path relative to the searched directory
//! (`src/**/*.ts`); one without is matched against each file's name at any depth (`*.ts`), as
//! `.gitignore` patterns are. `*` never crosses a `/`; `**` does.

use globset::GlobMatcher;
use ignore::gitignore::Gitignore;
use schemars::JsonSchema;
use serde::Serialize;

use super::list::{gitignore_of, ignored, matchers_above};
use crate::error::{Error, Result};
use crate::timestamp::Timestamp;
use crate::workspace::{FileKind, RootPath, Workspace};

/// Directory entries looked at, at most, before the search stops (and says so).
pub const MAX_VISITED: usize = 100_000;

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
    /// The walk stopped at [`MAX_VISITED`] entries: there may be more matches.
    pub stopped: bool,
    /// Entries left out by `.gitignore` (and `.git` itself).
    pub ignored: usize,
}

/// The glob `pattern`, checked once; an invalid one is an error that quotes it.
pub fn glob(pattern: &str) -> Result<GlobMatcher> {
    let trimmed = pattern.trim().trim_start_matches("./");
    if trimmed.is_empty() {
        return Err(Error::InvalidArgument {
            name: "pattern",
            reason: "give a glob such as \"*.ts\" or \"src/**/*.rs\"".into(),
        });
    }
    globset::GlobBuilder::new(trimmed).literal_separator(true).build().map(|g| g.compile_matcher()).map_err(|e| {
        Error::InvalidArgument {
            name: "pattern",
            reason: format!("{pattern:?} is not a valid glob ({e}); escape a literal `*`, `?`, `[` or `{{` as `[*]`, `[?]`, `[[]`, `[{{]`"),
        }
    })
}

/// The files under `dir` (the root when None) matching `pattern`.
pub fn find(ws: &Workspace, dir: Option<&RootPath>, pattern: &str) -> Result<Found> {
    let matcher = glob(pattern)?;
    let by_name = !pattern.trim().trim_start_matches("./").contains('/');
    let mut found = Found { files: Vec::new(), stopped: false, ignored: 0 };
    let mut matchers = matchers_above(ws, dir);
    let mut visited = 0;
    let base = dir.map(|d| d.display());
    walk(ws, dir, &Search { matcher, by_name, base }, &mut matchers, &mut visited, &mut found)?;
    found.files.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.path.cmp(&b.path)));
    Ok(found)
}

struct Search {
    matcher: GlobMatcher,
    by_name: bool,
    /// The searched directory's path, which relative patterns start below.
    base: Option<String>,
}

fn walk(
    ws: &Workspace,
    dir: Option<&RootPath>,
    search: &Search,
    matchers: &mut Vec<Gitignore>,
    visited: &mut usize,
    found: &mut Found,
) -> Result<()> {
    let entries = ws.list(dir)?;
    let own = gitignore_of(ws, dir);
    let pushed = own.is_some();
    matchers.extend(own);
    for entry in entries {
        if *visited >= MAX_VISITED {
            found.stopped = true;
            break;
        }
        *visited += 1;
        let is_dir = entry.kind == FileKind::Directory;
        if entry.name() == ".git" || ignored(matchers, &entry.path, is_dir) {
            found.ignored += 1;
            continue;
        }
        if is_dir {
            // Errors below (a directory that vanished or cannot be read) skip that directory.
            let _ = walk(ws, Some(&entry.path), search, matchers, visited, found);
            continue;
        }
        if entry.kind != FileKind::File {
            continue;
        }
        let full = entry.path.display();
        let relative = match &search.base {
            Some(base) => {
                full.strip_prefix(base.as_str()).map(|r| r.trim_start_matches('/')).unwrap_or(&full)
            }
            None => &full,
        };
        let candidate = if search.by_name { entry.name() } else { relative };
        if search.matcher.is_match(candidate)
            && let Ok(Some(info)) = ws.stat(&entry.path)
        {
            let modified = Timestamp::from_millis((info.mtime_ns / 1_000_000) as i64);
            found.files.push(FoundFile { path: entry.path.clone(), size: info.size, modified });
        }
    }
    if pushed {
        matchers.pop();
    }
    Ok(())
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
        assert!(find(&ws, None, "*.ts").unwrap().ignored >= 1, "target/ is ignored");
    }

    #[test]
    fn an_invalid_glob_is_an_error_that_quotes_it() {
        let err = glob("src/[a.ts").unwrap_err().to_string();
        assert!(err.contains("\"src/[a.ts\"") && err.contains("[*]"), "{err}");
    }
}
