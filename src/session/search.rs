//! `search_files`: the lines of files that match a literal string or a regular expression,
//! grouped by file, with context.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Session, max_results, required};
use crate::error::Result;
use crate::files::{self, Query, Searched};

/// The arguments of `search_files` past its pattern, with the tool's defaults.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions<'a> {
    /// The directory to search, or one file (default: the root).
    pub path: Option<&'a str>,
    /// Only files whose path matches this glob.
    pub glob: Option<&'a str>,
    /// The pattern is a regular expression (default: a literal string).
    pub regex: bool,
    /// Ignore case (default: case matters).
    pub ignore_case: bool,
    /// Lines shown around each match (default 0).
    pub context: Option<usize>,
    /// Matching lines shown at most (default 200).
    pub max_results: Option<usize>,
}

/// Result of `search_files`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchOutcome {
    /// The text or regular expression searched for.
    pub pattern: String,
    /// The directory (or file) searched, relative to the root (`.` for the root).
    pub path: String,
    /// What was found and what was left out.
    #[serde(flatten)]
    pub found: Searched,
    /// Matching lines not shown because of `max_results` or the result's budget (50,000
    /// characters of text).
    pub more: usize,
    /// The call set `max_results` itself: the result is not cut to the budget.
    #[serde(skip)]
    pub sized_by_caller: bool,
}

impl Session {
    /// `search_files`: lines matching `pattern` in the files under `options.path`.
    pub fn search_files(&self, pattern: Option<&str>, options: SearchOptions) -> Result<SearchOutcome> {
        let pattern = required(pattern, "search_files", "pattern")?;
        let context = options.context.unwrap_or(0);
        if context > files::MAX_CONTEXT {
            return Err(crate::error::Error::InvalidArgument {
                name: "context",
                reason: format!("use 0 to {} lines", files::MAX_CONTEXT),
            });
        }
        let dir = self.directory(options.path)?;
        let query = Query {
            pattern,
            regex: options.regex,
            case_sensitive: !options.ignore_case,
            context,
            glob: options.glob,
            max_matches: max_results(options.max_results)?,
            max_file_bytes: self.config.max_file_bytes,
        };
        let found = files::search(&self.ws, dir.as_ref(), &query)?;
        Ok(SearchOutcome {
            pattern: pattern.to_string(),
            path: dir.map(|d| d.display()).unwrap_or_else(|| ".".into()),
            more: found.matches - found.shown,
            found,
            sized_by_caller: options.max_results.is_some(),
        })
    }
}
