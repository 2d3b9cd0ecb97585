//! `undo`: put a file back as it was before its last changes made through filewright.
//!
//! Every write, append and edit keeps what the file was before it in the store (an append
//! keeps only the old size: the old file is a prefix of the new one; an edit only the stretch
//! it replaced, put back around what it left). Undo walks back from
//! the newest change, checking at each step that the file is exactly what that change left,
//! so nothing made outside filewright is lost silently. The undo is itself a change, kept and
//! journaled like the others, so it can be undone.

use schemars::JsonSchema;
use serde::Serialize;

use super::after_write::{AfterWrite, Landed};
use super::{Session, required};
use crate::error::{Error, Result};
use crate::files::encoding;
use crate::files::sha256_hex;
use crate::lines::count_lines;
use crate::store::{Action, Before, MAX_UNDO_STEPS, UndoStep, WriteFacts};
use crate::workspace::FileKind;

/// Result of `undo`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UndoOutcome {
    /// Always `undo`.
    pub action: Action,
    /// Root-relative path.
    pub path: String,
    /// Agent that undid.
    pub agent: String,
    /// Changes taken back, newest first: `append by agent "a" at 2026-11-24 12:00:00 UTC`.
    pub undone: Vec<String>,
    /// The file does not exist after the undo (the first change undone created it).
    pub removed: bool,
    /// Size after the undo, in bytes.
    pub size: u64,
    /// Lines after the undo.
    pub lines: usize,
    /// Warnings, the syntax check and the hook's run.
    #[serde(flatten)]
    pub after: AfterWrite,
}

impl Session {
    /// `undo`: take back the last `steps` changes of `path`, by any agent. Refuses when the
    /// file was changed outside filewright since, unless `force`.
    pub fn undo(
        &self,
        path: Option<&str>,
        steps: Option<usize>,
        force: bool,
        agent: Option<&str>,
    ) -> Result<UndoOutcome> {
        let raw_path = required(path, "undo", "path")?;
        let agent = self.agent(agent)?;
        let steps = steps.unwrap_or(1);
        if !(1..=MAX_UNDO_STEPS).contains(&steps) {
            return Err(Error::InvalidArgument {
                name: "steps",
                reason: "use 1 (the last change) to 100".into(),
            });
        }
        let path = self.target(raw_path)?;
        let key = path.display();
        let seen = self.lock_seen();
        let ((restored, undone, sha256), unrecorded) =
            self.store.undo_claimed(&key, &agent, steps, |plan| {
                self.settle_locked(&path);
                let current = match self.ws.stat(&path)? {
                    // A directory (made by create_directory) holds no content to restore.
                    Some(info) if info.kind == FileKind::Directory => {
                        return Err(Error::UndoRefused {
                            path: key.clone(),
                            reason: "it is a directory, and undo restores files; delete_file removes an \
                                     empty directory"
                                .into(),
                        });
                    }
                    Some(_) => Some(self.ws.read(&path, self.config.max_file_bytes)?),
                    None => None,
                };
                let restored = restore(&key, current.clone(), plan, steps, force)?;
                let before = Some(match current {
                    Some(bytes) => Before::Content(bytes),
                    None => Before::Absent,
                });
                let (size, sha256) = match &restored {
                    Some(bytes) => {
                        self.ws.replace(&path, bytes)?;
                        (bytes.len() as u64, sha256_hex(bytes))
                    }
                    None => {
                        self.ws.remove_file(&path)?;
                        (0, sha256_hex(b""))
                    }
                };
                let undone = plan.iter().map(describe).collect::<Vec<_>>();
                let facts = WriteFacts { size, added: 0, sha256: sha256.clone(), before };
                Ok(((restored, undone, sha256), Some(facts)))
            })?;
        // The file has changed: from here on nothing may turn this call into an error.
        let bytes = restored.as_deref().unwrap_or_default();
        let text = encoding::lossy_text(bytes);
        let after = self.after_write(
            seen,
            &path,
            &agent,
            Landed::whole(&text, bytes, &sha256, None, None),
            unrecorded.into_iter().collect(),
        );
        Ok(UndoOutcome {
            action: Action::Undo,
            path: key,
            agent,
            undone,
            removed: restored.is_none(),
            size: restored.as_ref().map_or(0, |b| b.len() as u64),
            lines: count_lines(text.as_bytes()),
            after,
        })
    }
}

/// What the file was before the changes in `plan` (newest first), starting from `current`
/// (None: no file). Each change must have left exactly what is there before it is taken
/// back; `force` accepts a different file before the first step only.
fn restore(
    path: &str,
    current: Option<Vec<u8>>,
    plan: &[UndoStep],
    steps: usize,
    force: bool,
) -> Result<Option<Vec<u8>>> {
    let refuse = |reason: String| Error::UndoRefused { path: path.to_string(), reason };
    if plan.len() < steps {
        return Err(refuse(match plan.len() {
            0 => "filewright has recorded no change of it on this root".into(),
            n => format!("filewright has recorded only {n} change(s) of it; use steps: {n} or less"),
        }));
    }
    let mut content = current;
    for (i, step) in plan.iter().enumerate() {
        let matches = sha256_hex(content.as_deref().unwrap_or_default()) == step.sha256_after;
        let forced = i == 0 && force;
        if !matches && !forced {
            return Err(refuse(match i {
                0 => format!(
                    "it was changed outside filewright since its last change ({}); undo would lose that \
                     change. Read it first; pass force: true to undo anyway",
                    describe(step)
                ),
                _ => {
                    format!("the file after {} is not what the change after it started from", describe(step))
                }
            }));
        }
        content = match &step.before {
            Some(Before::Absent) => None,
            Some(Before::Content(bytes)) => Some(bytes.clone()),
            Some(Before::Prefix(size)) if matches => content.map(|mut bytes| {
                bytes.truncate(*size as usize);
                bytes
            }),
            Some(Before::Prefix(_)) => {
                return Err(refuse(format!(
                    "it was changed outside filewright since {}, and an append keeps no copy of the file \
                     before it, so even force cannot restore it",
                    describe(step)
                )));
            }
            Some(Before::Splice { at, old, size }) if matches => {
                let after = content.unwrap_or_default();
                match Before::unsplice(*at, old, *size, &after) {
                    Some(before) => Some(before),
                    None => {
                        return Err(refuse(format!(
                            "the text kept for {} does not fit the file it left (the state database may \
                             be damaged)",
                            describe(step)
                        )));
                    }
                }
            }
            Some(Before::Splice { .. }) => {
                return Err(refuse(format!(
                    "it was changed outside filewright since {}, and an edit keeps only the text it \
                     replaced, so even force cannot restore it. Read the file and edit it back",
                    describe(step)
                )));
            }
            None => {
                return Err(refuse(format!(
                    "no copy of the file before {} is kept (older versions are dropped first when the \
                     history reaches --history-bytes, and a file too large to read is not kept)",
                    describe(step)
                )));
            }
        };
    }
    Ok(content)
}

/// `append by agent "a" at 2026-11-24 12:00:00 UTC`.
fn describe(step: &UndoStep) -> String {
    format!("{} by agent {:?} at {}", step.action, step.agent, step.time)
}
