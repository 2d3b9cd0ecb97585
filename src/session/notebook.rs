//! `edit_notebook`: a notebook's cells inserted, replaced and deleted, all or nothing, the file
//! valid after every call; a missing notebook created.
//!
//! The change itself is `crate::notebook`'s; the write is `edit_file`'s ([`Session::edit_with`]):
//! read and written in one claimed transaction, journaled for `undo`, checked after.

use std::hash::BuildHasher;
use std::sync::Mutex;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::edit::EditOutcome;
use super::{Session, required_or_truncated};
use crate::error::{Error, Result};
use crate::files;
use crate::notebook::{self, CellEdit, EditAction, Kernel};

/// One edit of `edit_notebook` as the model sends it. A key it does not know is refused, not
/// ignored: `type` for `cell_type` would otherwise insert a code cell where markdown was meant.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellEditSpec {
    /// `insert` a new cell (before the cell named by cell_id or index, or at the end when
    /// none is named), `replace` a cell's source and/or type, or `delete` a cell.
    #[schemars(required, with = "CellAction")]
    pub action: Option<CellAction>,
    /// The cell, by its id as read_file shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub cell_id: Option<String>,
    /// The cell, by its 0-based index as read_file shows it (for insert, the notebook's
    /// number of cells means the end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub index: Option<usize>,
    /// `code` (default for insert), `markdown` or `raw`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub cell_type: Option<String>,
    /// The cell's whole source, as plain text (not JSON-escaped, not a list of lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub source: Option<String>,
}

/// What a cell edit does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CellAction {
    /// A new cell.
    Insert,
    /// A cell's source and/or type.
    Replace,
    /// A cell, gone.
    Delete,
}

impl CellEditSpec {
    fn into_edit(self) -> Result<CellEdit> {
        let action = match self.action {
            Some(CellAction::Insert) => EditAction::Insert,
            Some(CellAction::Replace) => EditAction::Replace,
            Some(CellAction::Delete) => EditAction::Delete,
            None => return Err(Error::Truncated { tool: "edit_notebook", field: "action" }),
        };
        Ok(CellEdit {
            action,
            cell_id: self.cell_id,
            index: self.index,
            cell_type: self.cell_type,
            source: self.source,
        })
    }
}

/// Result of `edit_notebook`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NotebookEditOutcome {
    /// What each edit did, in order: `inserted code cell 3 (id 1f0c9a2e)`.
    pub done: Vec<String>,
    /// Cells in the notebook after the call.
    pub cells: usize,
    /// The write, as edit_file reports it (with no diff: `done` says what changed).
    #[serde(flatten)]
    pub edit: EditOutcome,
}

impl Session {
    /// `edit_notebook`: apply `edits` to the notebook at `path`, all or nothing; a missing (or
    /// empty) notebook is created first, with `language`'s kernel (Python's by default).
    pub fn edit_notebook(
        &self,
        path: Option<&str>,
        edits: Option<Vec<CellEditSpec>>,
        language: Option<&str>,
        expected_sha256: Option<&str>,
        agent: Option<&str>,
    ) -> Result<NotebookEditOutcome> {
        let raw_path = required_or_truncated(path, "edit_notebook", "path")?;
        let edits = required_or_truncated(edits, "edit_notebook", "edits")?;
        if edits.is_empty() {
            return Err(Error::InvalidArgument {
                name: "edits",
                reason: "give at least one cell edit".into(),
            });
        }
        let edits = edits.into_iter().map(CellEditSpec::into_edit).collect::<Result<Vec<_>>>()?;
        let kernel = Kernel::for_language(language);
        let done = Mutex::new((Vec::new(), 0));
        let apply = |key: &str, before: &str, existed: bool| -> Result<files::Edited> {
            if !notebook::is_notebook(key) {
                return Err(Error::InvalidArgument {
                    name: "path",
                    reason: format!(
                        "{key} is not a notebook: name a `.ipynb` file (edit other files with edit_file)"
                    ),
                });
            }
            let blank;
            let start = match existed && !before.trim().is_empty() {
                true => before,
                false => {
                    blank = notebook::blank_notebook(&kernel);
                    &blank
                }
            };
            let applied = notebook::apply(start, &edits, &mut new_cell_id).map_err(|refused| {
                let reason = match refused.edit {
                    Some(i) if edits.len() > 1 => {
                        format!(
                            "edit {} of {} failed (edits are all or nothing): {}",
                            i + 1,
                            edits.len(),
                            refused.reason
                        )
                    }
                    _ => refused.reason,
                };
                Error::Notebook { path: key.to_owned(), reason }
            })?;
            *done.lock().unwrap_or_else(|e| e.into_inner()) = (applied.done, applied.cells);
            Ok(files::Edited {
                text: applied.text,
                replacements: vec![1; edits.len()],
                converted_to_crlf: false,
                tolerated: Vec::new(),
            })
        };
        // No diff: the model knows what it sent, and `done` says what changed.
        let edit = self.edit_with(raw_path, false, expected_sha256, agent, false, &apply)?;
        let (done, cells) = done.into_inner().unwrap_or_else(|e| e.into_inner());
        Ok(NotebookEditOutcome { done, cells, edit })
    }
}

/// A new cell id as nbformat makes them: 8 hex digits, random (uniqueness within the notebook
/// is checked where it is used).
fn new_cell_id() -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let random = std::collections::hash_map::RandomState::new().hash_one(nanos);
    format!("{:08x}", random as u32)
}
