//! `edit_file`: exact replacements, all or nothing, written atomically once.

use schemars::JsonSchema;
use serde::Serialize;

use super::after_write::{AfterWrite, Landed};
use super::warnings::{WRITE_STUB_KINDS, stub_warnings, stubs_of};
use super::{Session, required};
use crate::check;
use crate::error::{Error, Result};
use crate::files;
use crate::lines::count_lines;
use crate::store::{Action, WriteFacts, sha256_hex};

/// Lines of diff shown in an edit result.
const MAX_DIFF_LINES: usize = 200;

/// One replacement as the model sends it (`edits` item of `edit_file`).
#[derive(Debug, Clone, serde::Deserialize, JsonSchema)]
pub struct EditSpec {
    /// Exact text to replace (must occur exactly once unless replace_all). Empty only to
    /// create a missing or empty file.
    #[schemars(required, with = "String")]
    pub old_string: Option<String>,
    /// The replacement text.
    #[schemars(required, with = "String")]
    pub new_string: Option<String>,
    /// Replace every occurrence (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub replace_all: Option<bool>,
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
    /// The edit strings used LF and were converted to the file's CRLF line endings.
    pub converted_to_crlf: bool,
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
    existed: bool,
    before: String,
    edited: files::Edited,
}

impl Session {
    /// `edit_file`: exact replacements, all or nothing, written atomically once.
    pub fn edit_file(
        &self,
        path: Option<&str>,
        edits: Vec<EditSpec>,
        dry_run: bool,
        agent: Option<&str>,
    ) -> Result<EditOutcome> {
        let raw_path = required(path, "edit_file", "path")?;
        let agent = self.agent(agent)?;
        let edits = edits
            .into_iter()
            .map(|e| {
                Ok(files::Edit {
                    old: required(e.old_string, "edit_file", "old_string")?,
                    new: required(e.new_string, "edit_file", "new_string")?,
                    replace_all: e.replace_all.unwrap_or(false),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let path = self.target(raw_path)?;
        let key = path.display();
        let seen = self.lock_seen();
        // Read, apply and write in one go: in the store's transaction (which serialises every
        // filewright process on this root) unless it is a dry run, so no append from another
        // process can land between the read and the rename and be lost.
        let read_and_apply = || -> Result<Applied> {
            let existed = self.ws.stat(&path)?.is_some();
            let before_bytes =
                if existed { self.ws.read(&path, self.config.max_file_bytes)? } else { Vec::new() };
            let before = String::from_utf8(before_bytes).map_err(|e| Error::Binary {
                path: key.clone(),
                detail: format!(
                    "invalid UTF-8 at byte {}; edit_file changes text files only",
                    e.utf8_error().valid_up_to()
                ),
            })?;
            if !existed && edits.first().is_none_or(|e| !e.old.is_empty()) {
                return Err(Error::NotFound { path: key.clone() });
            }
            let edited = files::apply_edits(&key, &before, &edits)?;
            Ok(Applied { existed, before, edited })
        };
        let (Applied { existed, before, edited }, mut after) = if dry_run {
            let applied = read_and_apply()?;
            drop(seen);
            let syntax = check::check(&key, &applied.edited.text);
            (applied, AfterWrite { warnings: Vec::new(), syntax, hook: None })
        } else {
            let (applied, unrecorded) = self.store.write_claimed(&key, &agent, Action::Edit, || {
                let applied = read_and_apply()?;
                let text = applied.edited.text.as_bytes();
                let written = files::write(&self.ws, &path, text, self.config.max_file_bytes)?;
                let facts = WriteFacts {
                    size: written.size,
                    added: written.size.saturating_sub(applied.before.len() as u64),
                    sha256: sha256_hex(text),
                };
                Ok((applied, Some(facts)))
            })?;
            // The bytes have landed: from here on nothing may turn this call into an error.
            let landed = Landed::Replaced { text: &applied.edited.text };
            let after = self.after_write(seen, &path, landed, unrecorded.into_iter().collect());
            (applied, after)
        };
        let diff = files::unified_diff(&key, &before, &edited.text, MAX_DIFF_LINES);
        // What the edit introduced. The text before the edit is checked and scanned only when
        // the result has problems or stubs to compare: most edits leave a clean file, and a
        // second parse of a large file is the costliest part of the call.
        let mut added_stubs = stubs_of(&key, &edited.text, WRITE_STUB_KINDS);
        if !added_stubs.is_empty() {
            let before_stubs = stubs_of(&key, &before, WRITE_STUB_KINDS);
            added_stubs.retain(|a| !before_stubs.iter().any(|b| b.source == a.source));
        }
        after.warnings.extend(stub_warnings(&added_stubs, 1));
        let syntax = &after.syntax;
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
            size: edited.text.len() as u64,
            lines: count_lines(edited.text.as_bytes()),
            converted_to_crlf: edited.converted_to_crlf,
            diff,
            new_problems: new_problems_at.len(),
            new_problems_at,
            after,
        })
    }
}
