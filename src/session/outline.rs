//! `outline`: a file's definitions with their line ranges and nesting, without reading it back.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Session, required};
use crate::check::outline::{self, Outline};
use crate::error::Result;
use crate::files::encoding;

/// Result of `outline`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OutlineOutcome {
    /// Root-relative path.
    pub path: String,
    /// Lines in the file.
    pub total_lines: usize,
    /// The definitions.
    #[serde(flatten)]
    pub outline: Outline,
}

impl Session {
    /// `outline`: the definitions of a text file, from its syntax tree.
    pub fn outline(&self, path: Option<&str>) -> Result<OutlineOutcome> {
        let path = self.target(required(path, "outline", "path")?)?;
        self.settle(&path);
        let bytes = self.ws.read(&path, self.config.max_file_bytes)?;
        let text = encoding::decode(bytes).map_err(|binary| binary.error(&path.display()))?.text;
        self.lock_seen().insert(path.clone());
        Ok(OutlineOutcome {
            path: path.display(),
            total_lines: crate::lines::count_lines(text.as_bytes()),
            outline: outline::outline(&path.display(), &text),
        })
    }
}
