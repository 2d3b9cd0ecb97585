//! `find_files`: the files whose path matches a glob, newest first, with size and lines.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Session, required};
use crate::error::Result;
use crate::files;

/// One file `find_files` found, with its lines.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FoundFile {
    /// Path, size and modification time.
    #[serde(flatten)]
    pub file: files::FoundFile,
    /// Lines; absent for a file that is not text or too large to read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub lines: Option<usize>,
}

/// Result of `find_files`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FindOutcome {
    /// The glob searched for.
    pub pattern: String,
    /// The directory searched, relative to the root (`.` for the root).
    pub path: String,
    /// Matching files, newest first.
    pub files: Vec<FoundFile>,
    /// Matches not listed because of `max_results` or the result's budget (50,000 characters
    /// of text).
    pub more: usize,
    /// What the walk left out.
    #[serde(flatten)]
    pub walked: files::Walked,
    /// The call set `max_results` itself: the result is not cut to the budget.
    #[serde(skip)]
    pub sized_by_caller: bool,
}

impl Session {
    /// `find_files`: files under `path` (default: the root) matching the glob `pattern`.
    pub fn find_files(
        &self,
        pattern: Option<&str>,
        path: Option<&str>,
        max_results: Option<usize>,
    ) -> Result<FindOutcome> {
        let pattern = required(pattern, "find_files", "pattern")?;
        let max = super::max_results(max_results)?;
        let dir = self.directory(path)?;
        let found = files::find(&self.ws, dir.as_ref(), pattern, max, self.config.max_file_bytes)?;
        let files =
            found.files.into_iter().zip(found.lines).map(|(file, lines)| FoundFile { file, lines }).collect();
        Ok(FindOutcome {
            pattern: pattern.to_string(),
            path: dir.map(|d| d.display()).unwrap_or_else(|| ".".into()),
            files,
            more: found.more,
            walked: found.walked,
            sized_by_caller: max_results.is_some(),
        })
    }
}
