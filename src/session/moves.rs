//! `move_file`: rename a file in one atomic step, journaled on both paths.

use schemars::JsonSchema;
use serde::Serialize;

use super::after_write::{AfterWrite, Landed};
use super::{Session, required};
use crate::error::Result;
use crate::files::encoding;
use crate::files::sha256_hex;
use crate::lines::count_lines;
use crate::store::{Action, Before, WriteFacts};

/// Result of `move_file`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MoveOutcome {
    /// Always `move`.
    pub action: Action,
    /// Root-relative path moved from (it no longer exists).
    pub from: String,
    /// Root-relative path moved to.
    pub to: String,
    /// Agent that moved it.
    pub agent: String,
    /// An existing file at `to` was replaced (overwrite: true).
    pub replaced: bool,
    /// Size of the file in bytes.
    pub size: u64,
    /// Lines in the file.
    pub lines: usize,
    /// Warnings, the syntax check of the file at its new path and the hook's run.
    #[serde(flatten)]
    pub after: AfterWrite,
}

impl Session {
    /// `move_file`: rename `from` to `to`; an existing `to` is replaced only with `overwrite`.
    pub fn move_file(
        &self,
        from: Option<&str>,
        to: Option<&str>,
        overwrite: bool,
        agent: Option<&str>,
    ) -> Result<MoveOutcome> {
        let (raw_from, raw_to) = (required(from, "move_file", "from")?, required(to, "move_file", "to")?);
        let agent = self.agent(agent)?;
        let (from, to) = (self.target(raw_from)?, self.target(raw_to)?);
        let (from_key, to_key) = (from.display(), to.display());
        let mut seen = self.lock_seen();
        let ((bytes, sha256, replaced), unrecorded) =
            self.store.write_claimed_paths(&[&from_key, &to_key], &agent, || {
                self.settle_locked(&from);
                self.settle_locked(&to);
                let bytes = self.ws.read(&from, self.config.max_file_bytes)?;
                let old_target = match (overwrite, self.ws.stat(&to)?) {
                    (true, Some(_)) => Some(self.ws.read(&to, self.config.max_file_bytes).ok()),
                    _ => None,
                };
                self.ws.rename(&from, &to, overwrite)?;
                let sha256 = sha256_hex(&bytes);
                let size = bytes.len() as u64;
                let rows = vec![
                    (
                        from_key.clone(),
                        Action::Move,
                        WriteFacts {
                            size: 0,
                            added: 0,
                            sha256: sha256_hex(b""),
                            before: Some(Before::Content(bytes.clone())),
                        },
                    ),
                    (
                        to_key.clone(),
                        Action::Move,
                        WriteFacts {
                            size,
                            added: size,
                            sha256: sha256.clone(),
                            before: match &old_target {
                                None => Some(Before::Absent),
                                Some(kept) => kept.clone().map(Before::Content),
                            },
                        },
                    ),
                ];
                Ok(((bytes, sha256, old_target.is_some()), rows))
            })?;
        // The file has moved: from here on nothing may turn this call into an error.
        seen.remove(&from);
        let text = encoding::lossy_text(&bytes);
        let mut warnings: Vec<String> = unrecorded.into_iter().collect();
        warnings
            .push(format!("to take this move back, undo both paths: undo {to_key}, then undo {from_key}"));
        let after =
            self.after_write(seen, &to, &agent, Landed::whole(&text, &bytes, &sha256, None, None), warnings);
        Ok(MoveOutcome {
            action: Action::Move,
            from: from_key,
            to: to_key,
            agent,
            replaced,
            size: bytes.len() as u64,
            lines: count_lines(text.as_bytes()),
            after,
        })
    }
}
