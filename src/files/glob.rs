//! Path globs, which select files the way `find_files` documents: a pattern with a `/` is
//! matched against the path relative to the walked directory (`src/**/*.ts`); one without is
//! matched against each file's name at any depth (`*.ts`), as `.gitignore` patterns are. `*`
//! never crosses a `/`; `**` does.

use globset::GlobMatcher;

use super::walk::FileAt;
use crate::error::{Error, Result};
use crate::workspace::RootPath;

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

    /// Whether the walk's `file` is selected: [`PathGlob::matches`], with the name it knows.
    pub fn matches_file(&self, file: &FileAt) -> bool {
        match self.by_name {
            true => self.matcher.is_match(file.name()),
            false => self.matches(file.path()),
        }
    }

    /// Whether the file at `path` is selected.
    pub fn matches(&self, path: &RootPath) -> bool {
        if self.by_name {
            return path.as_path().file_name().is_some_and(|name| self.matcher.is_match(name));
        }
        let full = path.display();
        let relative = match &self.base {
            Some(base) => {
                full.strip_prefix(base.as_str()).map(|r| r.trim_start_matches('/')).unwrap_or(&full)
            }
            None => &full,
        };
        self.matcher.is_match(relative)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::temp_workspace;

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
