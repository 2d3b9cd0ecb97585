//! `edit_file`: exact replacements, all or nothing, written atomically once.

use schemars::JsonSchema;
use serde::Serialize;

use super::after_write::{AfterWrite, EditedFrom, Landed};
use super::warnings::{WRITE_STUB_KINDS, stub_warnings, stubs_of};
use super::{Session, required_or_truncated};
use crate::check;
use crate::check::stubs::Stub;
use crate::error::{Error, Result};
use crate::files;
use crate::files::anchor::{self, Anchor};
use crate::files::encoding::{self, Encoding};
use crate::files::sha256_hex;
use crate::lines::count_lines;
use crate::notebook;
use crate::store::{Action, Before, WriteFacts};
use crate::workspace::FileInfo;

/// Lines of diff shown in an edit result.
const MAX_DIFF_LINES: usize = 200;

/// One edit as the model sends it (`edits` item of `edit_file`): a text replacement
/// (`old_string`), a line range (`from`, `to`) or an insertion (`after`), each with
/// `new_string`.
#[derive(Debug, Clone, serde::Deserialize, JsonSchema)]
pub struct EditSpec {
    /// Exact text to replace (must occur exactly once unless replace_all). Empty only to
    /// create a missing or empty file. Omit it for a line edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub old_string: Option<String>,
    /// The replacement text; for a line edit, whole lines (empty deletes the range).
    #[schemars(required, with = "String")]
    pub new_string: Option<String>,
    /// Replace every occurrence of old_string (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub replace_all: Option<bool>,
    /// Line edit: the first line to replace, as its anchor `<n>#<hash>` from read_file with
    /// anchors: true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub from: Option<String>,
    /// Line edit: the last line to replace (an anchor; default: `from`, one line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub to: Option<String>,
    /// Line insertion: insert new_string after this line (an anchor), or "0" for the top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub after: Option<String>,
}

impl EditSpec {
    /// The edit this spec describes, checked for shape (anchors are checked against the
    /// file later).
    fn into_edit(self) -> Result<files::Edit> {
        let new = required_or_truncated(self.new_string, "edit_file", "new_string")?;
        let anchor = |name: &'static str, raw: &str| {
            Anchor::parse(raw).ok_or_else(|| Error::InvalidArgument {
                name,
                reason: format!(
                    "{raw:?} is not a line anchor: use `<line>#<hash>` exactly as read_file with anchors: true \
                     shows it (for example \"12#{}\"){}; in a notebook the anchor starts with its cell, \
                     `<cell>:<line>#<hash>`{}",
                    anchor::line_hash("x"),
                    if name == "after" { ", or \"0\" for the top of the file" } else { "" },
                    if name == "after" { " (`3:0`: the top of cell 3)" } else { "" }
                ),
            })
        };
        let mixed = |what: &str| Error::InvalidArgument {
            name: "edits",
            reason: format!("an edit has {what}: give old_string, or from/to, or after, one kind per edit"),
        };
        match (self.old_string, self.from, self.to, self.after) {
            (Some(old), None, None, None) => {
                Ok(files::Edit::Replace { old, new, replace_all: self.replace_all.unwrap_or(false) })
            }
            (None, Some(from), to, None) => {
                let from = anchor("from", &from)?;
                let to = match to {
                    Some(to) => anchor("to", &to)?,
                    None => from.clone(),
                };
                Ok(files::Edit::Lines { from, to, new })
            }
            (None, None, None, Some(after)) => {
                Ok(files::Edit::Insert { after: anchor("after", &after)?, new })
            }
            (None, None, Some(_), None) => Err(mixed("`to` without `from`")),
            (None, None, None, None) => Err(Error::Truncated { tool: "edit_file", field: "old_string" }),
            _ => Err(mixed("more than one of old_string, from/to and after")),
        }
    }
}

/// Result of `edit_file`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EditOutcome {
    /// Always `edit`.
    pub action: Action,
    /// Root-relative path.
    pub path: String,
    /// Agent that edited.
    pub agent: String,
    /// Nothing was written: the diff shows what would change.
    pub dry_run: bool,
    /// The file did not exist before (created by an empty old_string).
    pub created: bool,
    /// Replacements made, over all edits.
    pub replacements: usize,
    /// Size after the edit, in bytes.
    pub size: u64,
    /// Lines after the edit.
    pub lines: usize,
    /// The file's encoding (kept by the edit), by its WHATWG name: "UTF-8", "Shift_JIS"...
    pub encoding: String,
    /// The edit strings used LF and were converted to the file's CRLF line endings.
    pub converted_to_crlf: bool,
    /// The edits whose old_string matched only with a tolerance, each with what it ignored:
    /// `matched lines 40-47 ignoring indentation (the file indents with tabs)`. Empty when
    /// every old_string matched exactly.
    pub tolerated: Vec<String>,
    /// Unified diff of the change (capped).
    pub diff: String,
    /// How many of the reported problems were not there before the edit.
    pub new_problems: usize,
    /// Where those new problems are (`line:col`, as in `syntax.problems`).
    pub new_problems_at: Vec<String>,
    /// Warnings (such as placeholders or stubs this edit introduced), the syntax check
    /// and the hook's run.
    #[serde(flatten)]
    pub after: AfterWrite,
}

/// The file before an edit and the result of applying the edits to it.
struct Applied {
    /// The file's metadata before the edit; None when it did not exist.
    info: Option<FileInfo>,
    existed: bool,
    before: String,
    edited: files::Edited,
    /// The file's encoding, kept.
    encoding: Encoding,
    /// The file's bytes before and after the edit, when they are not the texts' own (UTF-8).
    before_bytes: Option<Vec<u8>>,
    after_bytes: Option<Vec<u8>>,
}

impl Applied {
    /// The file's bytes before the edit.
    fn before_bytes(&self) -> &[u8] {
        self.before_bytes.as_deref().unwrap_or(self.before.as_bytes())
    }

    /// The file's bytes after the edit.
    fn after_bytes(&self) -> &[u8] {
        self.after_bytes.as_deref().unwrap_or(self.edited.text.as_bytes())
    }
}

impl Session {
    /// `edit_file`: exact replacements, all or nothing, written atomically once.
    pub fn edit_file(
        &self,
        path: Option<&str>,
        edits: Vec<EditSpec>,
        dry_run: bool,
        tolerant: bool,
        expected_sha256: Option<&str>,
        agent: Option<&str>,
    ) -> Result<EditOutcome> {
        let raw_path = required_or_truncated(path, "edit_file", "path")?;
        let edits = edits.into_iter().map(EditSpec::into_edit).collect::<Result<Vec<_>>>()?;
        let creates = |e: &files::Edit| match e {
            files::Edit::Replace { old, .. } => old.is_empty(),
            files::Edit::Insert { after, .. } => after.line == 0,
            files::Edit::Lines { .. } => false,
        };
        let apply = |key: &str, before: &str, existed: bool| -> Result<files::Edited> {
            if notebook::is_notebook(key) && (existed || edits.first().is_some_and(creates)) {
                return notebook::edit_in_cells(key, before, &edits, tolerant);
            }
            if !existed && !edits.first().is_some_and(creates) {
                return Err(Error::NotFound { path: key.to_owned() });
            }
            files::apply_edits(key, before, &edits, tolerant)
        };
        self.edit_with(raw_path, dry_run, expected_sha256, agent, true, &apply)
    }

    /// An edit of the file at `raw_path`: `apply` makes the new text from the old (`""` and
    /// `false` for a file that does not exist), and the result is checked, diffed and, unless
    /// `dry_run`, written atomically once, claimed and journaled. `edit_file` and
    /// `edit_notebook` differ only in `apply`, and in the diff (`diff: false` makes none).
    pub(super) fn edit_with(
        &self,
        raw_path: &str,
        dry_run: bool,
        expected_sha256: Option<&str>,
        agent: Option<&str>,
        diff: bool,
        apply: &dyn Fn(&str, &str, bool) -> Result<files::Edited>,
    ) -> Result<EditOutcome> {
        let agent = self.agent(agent)?;
        let path = self.target(raw_path)?;
        let key = path.display();
        let seen = self.lock_seen();
        // Read, apply and write in one go: in the store's transaction (which serialises every
        // filewright process on this root) unless it is a dry run, so no append from another
        // process can land between the read and the rename and be lost.
        let read_and_apply = || -> Result<Applied> {
            let (info, before_bytes) = match self.ws.read_if_exists(&path, self.config.max_file_bytes)? {
                Some((info, content)) => (Some(info), content?),
                None => (None, Vec::new()),
            };
            let existed = info.is_some();
            if let Some(expected) = expected_sha256 {
                files::Expected { size: None, sha256: Some(expected.to_owned()) }
                    .check_content(&path, existed.then_some(before_bytes.as_slice()))?;
            }
            let decoded = encoding::decode(before_bytes).map_err(|binary| binary.error(&key))?;
            decoded.writable(&key)?;
            let encoding::Decoded { text: before, encoding, other_bytes: before_bytes, .. } = decoded;
            let edited = apply(&key, &before, existed)?;
            let after_bytes = match encoding::encode(&key, &edited.text, encoding)? {
                std::borrow::Cow::Owned(bytes) => Some(bytes),
                std::borrow::Cow::Borrowed(_) => None,
            };
            Ok(Applied { info, existed, before, edited, encoding, before_bytes, after_bytes })
        };
        let (applied, (diff, added_stubs), mut after) = if dry_run {
            let applied = read_and_apply().map_err(|e| self.with_last_write(e))?;
            drop(seen);
            let syntax = check::check(&key, &applied.edited.text);
            // Nothing was written: the file is as it was.
            let sha256 = sha256_hex(applied.before_bytes());
            let shown = diff_and_added_stubs(&key, &applied, diff);
            (applied, shown, AfterWrite { warnings: Vec::new(), syntax, hook: None, sha256 })
        } else {
            let ((applied, shown, sha256, now), unrecorded) = self
                .store
                .write_claimed_then_land(
                    &key,
                    &agent,
                    Action::Edit,
                    || {
                        self.settle_locked(&path);
                        let applied = read_and_apply()?;
                        let text = applied.after_bytes();
                        let staged = files::stage(&self.ws, &path, text, self.config.max_file_bytes);
                        let sha256 = sha256_hex(text);
                        let facts = WriteFacts {
                            size: text.len() as u64,
                            added: (text.len() as u64).saturating_sub(applied.before_bytes().len() as u64),
                            sha256: sha256.clone(),
                            before: Some(match applied.existed {
                                // Only the stretch the edits changed: an edit of a large file
                                // keeps what it replaced, not the whole file again.
                                true => Before::splice(applied.before_bytes(), text),
                                false => Before::Absent,
                            }),
                        };
                        let shown = diff_and_added_stubs(&key, &applied, diff);
                        Ok(((applied, shown, sha256, staged), Some(facts)))
                    },
                    |(applied, shown, sha256, staged)| {
                        let text = applied.after_bytes();
                        let written = files::land(&self.ws, &path, staged, text, self.config.max_file_bytes)?;
                        Ok((applied, shown, sha256, written.now))
                    },
                )
                .map_err(|e| self.with_last_write(e))?;
            // The bytes have landed: from here on nothing may turn this call into an error.
            let edited_from = EditedFrom { text: &applied.before, version: applied.info };
            let landed =
                Landed::whole(&applied.edited.text, applied.after_bytes(), &sha256, Some(edited_from), now);
            let after = self.after_write(seen, &path, &agent, landed, unrecorded.into_iter().collect());
            (applied, shown, after)
        };
        let size = applied.after_bytes().len() as u64;
        let Applied { existed, before, edited, encoding, .. } = applied;
        after.warnings.extend(stub_warnings(&added_stubs, 1));
        let syntax = &after.syntax;
        // The problems the edit introduced. The text before the edit is checked only when the
        // result has problems to compare: most edits leave a clean file, and a second parse of
        // a large file is the costliest part of the call.
        let new_problems_at: Vec<String> = if syntax.problems.is_empty() {
            Vec::new()
        } else {
            let before_report = check::check(&key, &before);
            syntax
                .problems
                .iter()
                .filter(|p| {
                    !before_report.problems.iter().any(|b| b.message == p.message && b.source == p.source)
                })
                .map(|p| format!("{}:{}", p.line, p.column))
                .collect()
        };
        Ok(EditOutcome {
            action: Action::Edit,
            path: key,
            agent,
            dry_run,
            created: !existed,
            replacements: edited.replacements.iter().sum(),
            size,
            lines: count_lines(edited.text.as_bytes()),
            encoding: encoding.name().to_owned(),
            converted_to_crlf: edited.converted_to_crlf,
            tolerated: edited.tolerated,
            diff,
            new_problems: new_problems_at.len(),
            new_problems_at,
            after,
        })
    }
}

/// A notebook's cells as read_file shows them, all of them; None for any other file.
fn cells_shown(key: &str, text: &str) -> Option<String> {
    if !notebook::is_notebook(key) {
        return None;
    }
    let nb = notebook::parse(text).ok()?;
    let window = notebook::CellWindow {
        offset: 0,
        limit: None,
        anchors: false,
        room: crate::budget::Room::unbounded(),
    };
    notebook::view(&nb, window).ok().map(|view| view.text)
}

/// What the reply shows of an edit that needs only its texts: the diff, and the stubs the
/// edit added. A stub already in the text before is not the edit's; that text is scanned only
/// when the result has stubs to compare.
fn diff_and_added_stubs(key: &str, applied: &Applied, diff: bool) -> (String, Vec<Stub>) {
    let diff = match diff {
        false => String::new(),
        true => match (cells_shown(key, &applied.before), cells_shown(key, &applied.edited.text)) {
            // A notebook's diff is of its cells as read_file shows them, not of its escaped JSON.
            (Some(before), Some(after)) => files::unified_diff(key, &before, &after, MAX_DIFF_LINES),
            _ => files::unified_diff(key, &applied.before, &applied.edited.text, MAX_DIFF_LINES),
        },
    };
    let mut added_stubs = stubs_of(key, &applied.edited.text, WRITE_STUB_KINDS);
    if !added_stubs.is_empty() {
        let before_stubs = stubs_of(key, &applied.before, WRITE_STUB_KINDS);
        added_stubs.retain(|a| !before_stubs.iter().any(|b| b.source == a.source));
    }
    (diff, added_stubs)
}
