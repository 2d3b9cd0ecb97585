//! `list_directory`: a bounded listing of a directory, honouring `.gitignore` and `.ignore`.

use schemars::JsonSchema;
use serde::Serialize;

use super::Session;
use crate::error::{Error, Result};
use crate::files;

/// Result of `list_directory`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListOutcome {
    /// The directory listed, relative to the root (`.` for the root).
    pub path: String,
    /// The entries and what the listing left out (limit: 500 entries; `omitted` is a lower
    /// bound when `stopped` is set).
    #[serde(flatten)]
    pub listing: files::Listing,
}

impl Session {
    /// `list_directory`: a bounded listing of a directory (the root when `path` is None).
    pub fn list_directory(
        &self,
        path: Option<&str>,
        depth: Option<usize>,
        include_hidden: bool,
        gitignore: bool,
    ) -> Result<ListOutcome> {
        let dir = self.directory(path)?;
        let depth = depth.unwrap_or(1);
        if !(1..=20).contains(&depth) {
            return Err(Error::InvalidArgument {
                name: "depth",
                reason: "use 1 (this directory) to 20".into(),
            });
        }
        let listing =
            files::list(&self.ws, dir.as_ref(), files::ListOptions { depth, include_hidden, gitignore })?;
        Ok(ListOutcome { path: dir.map(|d| d.display()).unwrap_or_else(|| ".".into()), listing })
    }
}
