//! `delete_file`: remove a file, a symbolic link (the link itself, as `rm` does: what it points
//! to stays) or an empty directory, journaled so that `undo` can bring the file or link back.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Session, required};
use crate::error::{Error, Result};
use crate::files::sha256_hex;
use crate::store::{Action, Before, WriteFacts};
use crate::workspace::FileKind;

/// Result of `delete_file`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DeleteOutcome {
    /// Always `delete`.
    pub action: Action,
    /// Root-relative path removed.
    pub path: String,
    /// Agent that deleted it.
    pub agent: String,
    /// What was removed: `file`, `symlink` (the link itself; what it pointed to is untouched)
    /// or `dir` (an empty directory).
    pub removed: FileKind,
    /// Bytes the file held.
    pub size: u64,
    /// `undo` on this path brings the file or link back (false for a directory, or a file too
    /// large to keep a copy of).
    pub undoable: bool,
    /// Things the caller should know although the delete succeeded.
    pub warnings: Vec<String>,
}

impl Session {
    /// `delete_file`: remove a file, a symbolic link or an empty directory.
    pub fn delete_file(&self, path: Option<&str>, agent: Option<&str>) -> Result<DeleteOutcome> {
        let raw_path = required(path, "delete_file", "path")?;
        let agent = self.agent(agent)?;
        // The entry the path names, not followed: a link is removed itself.
        let path = self.ws.resolve(raw_path)?;
        let key = path.display();
        let mut seen = self.lock_seen();
        let ((removed, size, undoable), unrecorded) =
            self.store.write_claimed(&key, &agent, Action::Delete, || {
                self.settle_locked(&path);
                let empty = sha256_hex(b"");
                if let Some(text) = self.ws.link_text(&path)? {
                    self.ws.remove_file(&path)?;
                    let facts =
                        WriteFacts { size: 0, added: 0, sha256: empty, before: Some(Before::Link(text)) };
                    return Ok(((FileKind::Symlink, 0, true), Some(facts)));
                }
                let info = self.ws.stat(&path)?.ok_or_else(|| Error::NotFound { path: key.clone() })?;
                match info.kind {
                    FileKind::Directory => {
                        self.ws.remove_empty_dir(&path)?;
                        let facts = WriteFacts { size: 0, added: 0, sha256: empty, before: None };
                        Ok(((FileKind::Directory, 0, false), Some(facts)))
                    }
                    _ => {
                        // A copy for undo; a file too large to hold is deleted all the same.
                        let kept = self.ws.read(&path, self.config.max_file_bytes).ok();
                        self.ws.remove_file(&path)?;
                        let undoable = kept.is_some();
                        let facts = WriteFacts {
                            size: 0,
                            added: 0,
                            sha256: empty,
                            before: kept.map(Before::Content),
                        };
                        Ok(((FileKind::File, info.size, undoable), Some(facts)))
                    }
                }
            })?;
        seen.remove(&path);
        Ok(DeleteOutcome {
            action: Action::Delete,
            path: key,
            agent,
            removed,
            size,
            undoable,
            warnings: unrecorded.into_iter().collect(),
        })
    }
}
