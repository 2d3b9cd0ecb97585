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
use crate::store::{Action, Before, MAX_UNDO_STEPS, UndoStep, WriteFacts, link_sha256};
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
        // A link is undone as a link when the newest change the journal knows of it is of the
        // link's own path (a delete or a move of the link itself, put back); otherwise undo goes
        // through it to its file, whose path the writes through it were journaled under.
        let entry = self.ws.resolve_to_restore(raw_path)?;
        let path = match self.ws.link_text(&entry)? {
            Some(_) => match self.ws.follow(&entry) {
                Ok(target) => {
                    let (link, file) =
                        (self.last_change(&entry.display()), self.last_change(&target.display()));
                    match (link, file) {
                        (Some(link), Some(file)) if link > file => entry,
                        (Some(_), None) => entry,
                        _ => target,
                    }
                }
                Err(_) => entry,
            },
            None => entry,
        };
        let key = path.display();
        let seen = self.lock_seen();
        let ((restored, undone), unrecorded) = self.store.undo_claimed(&key, &agent, steps, |plan| {
            self.settle_locked(&path);
            let current = match self.ws.link_text(&path)? {
                Some(text) => Entry::Link(text),
                None => match self.ws.stat(&path)? {
                    // A directory (made by create_directory) holds no content to restore.
                    Some(info) if info.kind == FileKind::Directory => {
                        return Err(Error::UndoRefused {
                            path: key.clone(),
                            reason: "it is a directory, and undo restores files; delete_file removes an \
                                     empty directory"
                                .into(),
                        });
                    }
                    Some(_) => Entry::File(self.ws.read(&path, self.config.max_file_bytes)?),
                    None => Entry::Absent,
                },
            };
            let restored = restore(&key, current.clone(), plan, steps, force)?;
            let size = match &restored {
                Entry::File(bytes) => {
                    // A rename over the path: a link there is replaced, not written through.
                    self.ws.replace(&path, bytes)?;
                    bytes.len() as u64
                }
                Entry::Absent => {
                    self.ws.remove_file(&path)?;
                    0
                }
                Entry::Link(text) => {
                    self.ws.remove_file(&path)?;
                    self.ws.create_link(&path, text)?;
                    0
                }
            };
            let undone = plan.iter().map(describe).collect::<Vec<_>>();
            let facts =
                WriteFacts { size, added: 0, sha256: restored.sha256(), before: Some(current.into_before()) };
            Ok(((restored, undone), Some(facts)))
        })?;
        // The file has changed: from here on nothing may turn this call into an error.
        let warnings = unrecorded.into_iter().collect();
        let (size, lines, after) = match &restored {
            Entry::Link(text) => (0, 0, self.after_link_change(seen, &path, text, &agent, warnings)),
            Entry::File(bytes) => {
                let text = encoding::lossy_text(bytes);
                let sha256 = sha256_hex(bytes);
                let after = self.after_write(
                    seen,
                    &path,
                    &agent,
                    Landed::whole(&text, bytes, &sha256, None, None),
                    warnings,
                );
                (bytes.len() as u64, count_lines(text.as_bytes()), after)
            }
            Entry::Absent => {
                let sha256 = sha256_hex(b"");
                (
                    0,
                    0,
                    self.after_write(
                        seen,
                        &path,
                        &agent,
                        Landed::whole("", b"", &sha256, None, None),
                        warnings,
                    ),
                )
            }
        };
        Ok(UndoOutcome {
            action: Action::Undo,
            path: key,
            agent,
            undone,
            removed: matches!(restored, Entry::Absent),
            size,
            lines,
            after,
        })
    }

    /// When the journal's newest change of `key` itself was made, if it holds one.
    fn last_change(&self, key: &str) -> Option<crate::timestamp::Timestamp> {
        self.store.artifacts(None, Some(key), false).ok()?.into_iter().map(|a| a.time).max()
    }
}

/// What is at a path, as undo compares and restores it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    /// Nothing.
    Absent,
    /// A file with these bytes.
    File(Vec<u8>),
    /// A symbolic link with this text.
    Link(Vec<u8>),
}

impl Entry {
    /// The sha256 the journal records for it (a link's is marked apart from any file's).
    fn sha256(&self) -> String {
        match self {
            Entry::Absent => sha256_hex(b""),
            Entry::File(bytes) => sha256_hex(bytes),
            Entry::Link(text) => link_sha256(text),
        }
    }

    fn into_before(self) -> Before {
        match self {
            Entry::Absent => Before::Absent,
            Entry::File(bytes) => Before::Content(bytes),
            Entry::Link(text) => Before::Link(text),
        }
    }
}

/// What the file was before the changes in `plan` (newest first), starting from `current`
/// (None: no file). Each change must have left exactly what is there before it is taken
/// back; `force` accepts a different file before the first step only.
fn restore(path: &str, current: Entry, plan: &[UndoStep], steps: usize, force: bool) -> Result<Entry> {
    let refuse = |reason: String| Error::UndoRefused { path: path.to_string(), reason };
    if plan.len() < steps {
        return Err(refuse(match plan.len() {
            0 => "filewright has recorded no change of it on this root".into(),
            n => format!("filewright has recorded only {n} change(s) of it; use steps: {n} or less"),
        }));
    }
    let mut content = current;
    for (i, step) in plan.iter().enumerate() {
        let matches = content.sha256() == step.sha256_after;
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
        content = match (&step.before, content) {
            (Some(Before::Absent), _) => Entry::Absent,
            (Some(Before::Content(bytes)), _) => Entry::File(bytes.clone()),
            (Some(Before::Link(text)), _) => Entry::Link(text.clone()),
            (Some(Before::Prefix(size)), Entry::File(mut bytes)) if matches => {
                bytes.truncate(*size as usize);
                Entry::File(bytes)
            }
            (Some(Before::Prefix(_)), Entry::Absent) if matches => Entry::Absent,
            (Some(Before::Prefix(_)), _) => {
                return Err(refuse(format!(
                    "it was changed outside filewright since {}, and an append keeps no copy of the file \
                     before it, so even force cannot restore it",
                    describe(step)
                )));
            }
            (Some(Before::Splice { at, old, size }), after @ (Entry::File(_) | Entry::Absent)) if matches => {
                let after = match after {
                    Entry::File(bytes) => bytes,
                    _ => Vec::new(),
                };
                match Before::unsplice(*at, old, *size, &after) {
                    Some(before) => Entry::File(before),
                    None => {
                        return Err(refuse(format!(
                            "the text kept for {} does not fit the file it left (the state database may \
                             be damaged)",
                            describe(step)
                        )));
                    }
                }
            }
            (Some(Before::Splice { .. }), _) => {
                return Err(refuse(format!(
                    "it was changed outside filewright since {}, and an edit keeps only the text it \
                     replaced, so even force cannot restore it. Read the file and edit it back",
                    describe(step)
                )));
            }
            (None, _) => {
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
