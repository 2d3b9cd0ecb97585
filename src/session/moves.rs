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
        // The entries the paths name, not followed: a link is moved itself (`mv`), and a link
        // at `to` is replaced, not written through.
        let (from, to) = (self.ws.resolve(raw_from)?, self.ws.resolve(raw_to)?);
        let (from_key, to_key) = (from.display(), to.display());
        let mut seen = self.lock_seen();
        let ((moved, replaced), unrecorded) =
            self.store.write_claimed_paths(&[&from_key, &to_key], &agent, || {
                self.settle_locked(&from);
                self.settle_locked(&to);
                let moved = match self.ws.link_text(&from)? {
                    Some(text) => Before::Link(text),
                    None => Before::Content(self.ws.read(&from, self.config.max_file_bytes)?),
                };
                let old_target = match self.ws.link_text(&to)? {
                    Some(text) if overwrite => Some(Some(Before::Link(text))),
                    _ => match (overwrite, self.ws.stat(&to)?) {
                        (true, Some(_)) => {
                            Some(self.ws.read(&to, self.config.max_file_bytes).ok().map(Before::Content))
                        }
                        _ => None,
                    },
                };
                self.ws.rename(&from, &to, overwrite)?;
                let (size, sha256) = match &moved {
                    Before::Link(text) => (0, crate::store::link_sha256(text)),
                    Before::Content(bytes) => (bytes.len() as u64, sha256_hex(bytes)),
                    _ => unreachable!("a move carries a file's content or a link's text"),
                };
                let rows = vec![
                    (
                        from_key.clone(),
                        Action::Move,
                        WriteFacts {
                            size: 0,
                            added: 0,
                            sha256: sha256_hex(b""),
                            before: Some(moved.clone()),
                        },
                    ),
                    (
                        to_key.clone(),
                        Action::Move,
                        WriteFacts {
                            size,
                            added: size,
                            sha256,
                            before: match &old_target {
                                None => Some(Before::Absent),
                                Some(kept) => kept.clone(),
                            },
                        },
                    ),
                ];
                Ok(((moved, old_target.is_some()), rows))
            })?;
        // The file has moved: from here on nothing may turn this call into an error.
        seen.remove(&from);
        let mut warnings: Vec<String> = unrecorded.into_iter().collect();
        warnings
            .push(format!("to take this move back, undo both paths: undo {to_key}, then undo {from_key}"));
        let (size, lines, after) = match &moved {
            Before::Link(text) => {
                warnings.push(format!(
                    "{from_key} was a symbolic link: the link itself moved, with its text {:?}; what it points \
                     to was not moved",
                    String::from_utf8_lossy(text)
                ));
                (0, 0, self.after_link_change(seen, &to, text, &agent, warnings))
            }
            Before::Content(bytes) => {
                let text = encoding::lossy_text(bytes);
                let sha256 = sha256_hex(bytes);
                let landed = Landed::whole(&text, bytes, &sha256, None, None);
                (
                    bytes.len() as u64,
                    count_lines(text.as_bytes()),
                    self.after_write(seen, &to, &agent, landed, warnings),
                )
            }
            _ => unreachable!("a move carries a file's content or a link's text"),
        };
        Ok(MoveOutcome {
            action: Action::Move,
            from: from_key,
            to: to_key,
            agent,
            replaced,
            size,
            lines,
            after,
        })
    }
}
