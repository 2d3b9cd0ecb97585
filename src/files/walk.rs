//! The files under a directory, walked through the sandbox: `.gitignore` honoured, `.git`
//! skipped, symlinks never entered, at most [`MAX_VISITED`] entries, in path order. Shared by
//! `find_files` and `search_files`, so both see the same files.
//!
//! Path globs select files the way `find_files` documents: a pattern with a `/` is matched
//! against the path relative to the walked directory (`src/**/*.ts`); one without is matched
//! against each file's name at any depth (`*.ts`), as `.gitignore` patterns are. `*` never
//! crosses a `/`; `**` does.

use globset::GlobMatcher;
use ignore::gitignore::Gitignore;
use schemars::JsonSchema;
use serde::Serialize;

use super::list::{gitignore_of, ignored, matchers_above};
use crate::error::{Error, Result};
use crate::workspace::{DirEntry, FileKind, RootPath, Workspace};

/// Directory entries looked at, at most, before a walk stops (and says so).
pub const MAX_VISITED: usize = 100_000;

/// What a walk left out. The field docs are the wire's (in `find_files` and `search_files`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema)]
pub struct Walked {
    /// The search stopped after 100,000 entries: there may be more matches.
    pub stopped: bool,
    /// Entries left out by .gitignore (and `.git`).
    pub ignored: usize,
}

/// A glob over the paths below one directory, checked once.
#[derive(Debug, Clone)]
pub struct PathGlob {
    matcher: GlobMatcher,
    /// The pattern has no `/`: match file names at any depth.
    by_name: bool,
    /// The walked directory's path, which relative patterns start below.
    base: Option<String>,
}

impl PathGlob {
    /// The glob `pattern` for files under `dir` (the root when None); an invalid one is an
    /// error that quotes it and says how to escape its special characters.
    pub fn new(name: &'static str, pattern: &str, dir: Option<&RootPath>) -> Result<PathGlob> {
        let trimmed = pattern.trim().trim_start_matches("./");
        if trimmed.is_empty() {
            return Err(Error::InvalidArgument {
                name,
                reason: "give a glob such as \"*.ts\" or \"src/**/*.rs\"".into(),
            });
        }
        let matcher = globset::GlobBuilder::new(trimmed)
            .literal_separator(true)
            .build()
            .map_err(|e| Error::InvalidArgument {
                name,
                reason: format!(
                    "{pattern:?} is not a valid glob ({e}); escape a literal `*`, `?`, `[` or `{{` as `[*]`, \
                     `[?]`, `[[]`, `[{{]`"
                ),
            })?
            .compile_matcher();
        Ok(PathGlob { matcher, by_name: !trimmed.contains('/'), base: dir.map(RootPath::display) })
    }

    /// Whether the file at `path` is selected.
    pub fn matches(&self, path: &RootPath) -> bool {
        let full = path.display();
        if self.by_name {
            return path.as_path().file_name().is_some_and(|name| self.matcher.is_match(name));
        }
        let relative = match &self.base {
            Some(base) => {
                full.strip_prefix(base.as_str()).map(|r| r.trim_start_matches('/')).unwrap_or(&full)
            }
            None => &full,
        };
        self.matcher.is_match(relative)
    }
}

/// Calls `visit` with every regular file under `dir` (the root when None), in path order.
pub fn walk_files(
    ws: &Workspace,
    dir: Option<&RootPath>,
    visit: &mut dyn FnMut(&DirEntry),
) -> Result<Walked> {
    let mut walked = Walked::default();
    let mut matchers = matchers_above(ws, dir);
    let mut visited = 0;
    walk(ws, dir, &mut matchers, &mut visited, &mut walked, visit)?;
    Ok(walked)
}

/// Whether a `.gitignore` of the root or of a directory above `path` leaves it out (as the
/// walk above would).
pub fn is_ignored(ws: &Workspace, path: &RootPath, is_dir: bool) -> bool {
    let matchers = matchers_above(ws, Some(path));
    // Inside an ignored directory is ignored too: the walk never enters one.
    let mut above = std::path::PathBuf::new();
    let components: Vec<_> = path.as_path().components().collect();
    for component in &components[..components.len().saturating_sub(1)] {
        above.push(component);
        if RootPath::from_path(&above).is_some_and(|dir| ignored(&matchers, &dir, true)) {
            return true;
        }
    }
    ignored(&matchers, path, is_dir)
}

fn walk(
    ws: &Workspace,
    dir: Option<&RootPath>,
    matchers: &mut Vec<Gitignore>,
    visited: &mut usize,
    walked: &mut Walked,
    visit: &mut dyn FnMut(&DirEntry),
) -> Result<()> {
    let mut entries = ws.list(dir)?;
    entries.sort_by(|a, b| a.name().cmp(b.name()));
    let own = gitignore_of(ws, dir);
    let pushed = own.is_some();
    matchers.extend(own);
    for entry in entries {
        if *visited >= MAX_VISITED {
            walked.stopped = true;
            break;
        }
        *visited += 1;
        let is_dir = entry.kind == FileKind::Directory;
        if entry.name() == ".git" || ignored(matchers, &entry.path, is_dir) {
            walked.ignored += 1;
            continue;
        }
        if is_dir {
            // Errors below (a directory that vanished or cannot be read) skip that directory.
            let _ = walk(ws, Some(&entry.path), matchers, visited, walked, visit);
        } else if entry.kind == FileKind::File {
            visit(&entry);
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

    fn walked(ws: &Workspace, dir: Option<&RootPath>) -> (Vec<String>, Walked) {
        let mut seen = Vec::new();
        let w = walk_files(ws, dir, &mut |e| seen.push(e.path.display())).unwrap();
        (seen, w)
    }

    #[test]
    fn files_come_in_path_order_without_ignored_ones_or_git() {
        let (t, ws) = temp_workspace();
        for p in ["b.txt", "a/z.txt", "a/b/c.txt", "target/x.txt", ".git/config", "c.log"] {
            std::fs::create_dir_all(t.path().join(p).parent().unwrap_or(t.path())).unwrap();
            std::fs::write(t.path().join(p), "x").unwrap();
        }
        std::fs::write(t.path().join(".gitignore"), "target/\n*.log\n").unwrap();
        std::os::unix::fs::symlink("/etc", t.path().join("etc_link")).unwrap();
        let (seen, w) = walked(&ws, None);
        assert_eq!(seen, [".gitignore", "a/b/c.txt", "a/z.txt", "b.txt"]);
        assert_eq!(w, Walked { stopped: false, ignored: 3 });
    }

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

    #[test]
    fn a_name_glob_matches_at_any_depth_and_a_path_glob_below_the_directory() {
        let (_t, ws) = temp_workspace();
        let src = ws.resolve("src").unwrap();
        let path = |p: &str| ws.resolve(p).unwrap();
        let by_name = PathGlob::new("glob", "*.ts", None).unwrap();
        assert!(by_name.matches(&path("a.ts")) && by_name.matches(&path("src/deep/b.ts")));
        assert!(!by_name.matches(&path("a.tsx")));
        let below_src = PathGlob::new("glob", "deep/*.ts", Some(&src)).unwrap();
        assert!(below_src.matches(&path("src/deep/b.ts")));
        assert!(!below_src.matches(&path("src/deep/more/b.ts")), "`*` stays within one directory");
        assert!(PathGlob::new("glob", "src/**/*.ts", None).unwrap().matches(&path("src/deep/more/b.ts")));
    }

    #[test]
    fn an_invalid_glob_is_an_error_that_quotes_it_and_names_the_argument() {
        let err = PathGlob::new("glob", "src/[a.ts", None).unwrap_err().to_string();
        assert!(err.contains("\"src/[a.ts\"") && err.contains("[*]") && err.contains("glob"), "{err}");
    }
}
