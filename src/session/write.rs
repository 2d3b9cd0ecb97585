//! `write_file`: create or replace a whole file, atomically.

use schemars::JsonSchema;
use serde::Serialize;

use super::after_write::{AfterWrite, Landed};
use super::warnings::{self, WRITE_STUB_KINDS, choose_form, content_warnings, stub_warnings, stubs_of};
use super::{Session, required_or_truncated};
use crate::check::cache::CheckAhead;
use crate::cleanup;
use crate::error::Result;
use crate::files;
use crate::files::sha256_hex;
use crate::lines::count_lines;
use crate::store::{Action, Before, WriteFacts};

/// Result of `write_file`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WriteOutcome {
    /// Always `write`.
    pub action: Action,
    /// Root-relative path written.
    pub path: String,
    /// Agent that wrote it.
    pub agent: String,
    /// The file did not exist before.
    pub created: bool,
    /// Size of the file in bytes.
    pub size: u64,
    /// Characters of content written.
    pub chars: usize,
    /// Lines in the file.
    pub lines: usize,
    /// The content arrived over-escaped (literal `\n`) and was unescaped before writing.
    pub unescaped: bool,
    /// Warnings, the syntax check and the hook's run.
    #[serde(flatten)]
    pub after: AfterWrite,
}

impl Session {
    /// `write_file`: create or replace the whole file.
    pub fn write_file(
        &self,
        path: Option<&str>,
        content: Option<&str>,
        expected_sha256: Option<&str>,
        agent: Option<&str>,
    ) -> Result<WriteOutcome> {
        let raw_path = required_or_truncated(path, "write_file", "path")?;
        let content = required_or_truncated(content, "write_file", "content")?;
        let agent = self.agent(agent)?;
        let path = self.target(raw_path)?;
        let (content, cleaned) = cleanup::cleaned(&path.display(), content);
        let content: &str = &content;
        let seen = self.lock_seen();
        let (text, unescaped) = choose_form(&path, "", content);
        let sha256 = sha256_hex(text.as_bytes());
        // Written beside the file before the claim is taken, and on its way to disk while the
        // claim and the journal are: only the rename waits for the transaction.
        let staged = files::stage(&self.ws, &path, text.as_bytes(), self.config.max_file_bytes);
        // The check needs only the text: it runs beside the claim, the write and the journal
        // (on the same helper, after the request for the writeback).
        let ahead = Some(CheckAhead::start(&path.display(), &text));
        let ((existing, written), unrecorded) = self
            .store
            .write_claimed_then_land(
                &path.display(),
                &agent,
                Action::Write,
                || {
                    self.settle_locked(&path);
                    // The old content, for undo and the guard. A file too large to hold is
                    // replaced all the same (unless guarded); that write then cannot be undone.
                    let (existing, current) = match self
                        .ws
                        .read_if_exists(&path, self.config.max_file_bytes)?
                    {
                        Some((info, content)) if expected_sha256.is_some() => (Some(info), Some(content?)),
                        Some((info, content)) => (Some(info), content.ok()),
                        None => (None, None),
                    };
                    if let Some(expected) = expected_sha256 {
                        files::Expected { size: None, sha256: Some(expected.to_owned()) }
                            .check_content(&path, current.as_deref())?;
                    }
                    let before = match (existing, current) {
                        (None, _) => Some(Before::Absent),
                        (Some(_), Some(bytes)) => Some(Before::Content(bytes)),
                        (Some(_), None) => None,
                    };
                    let size = text.len() as u64;
                    let facts = WriteFacts { size, added: size, sha256: sha256.clone(), before };
                    Ok((existing, Some(facts)))
                },
                |existing| {
                    let written =
                        files::land(&self.ws, &path, staged, text.as_bytes(), self.config.max_file_bytes)?;
                    Ok((existing, written))
                },
            )
            .map_err(|e| self.with_last_write(e))?;
        // The bytes have landed: from here on nothing may turn this call into an error.
        let mut warnings: Vec<String> = unrecorded.into_iter().collect();
        if let Some(info) = existing
            && !seen.contains(&path)
        {
            warnings.push(warnings::replaced_unread(&path, info.size));
        }
        if content.is_empty() {
            warnings.push(warnings::emptied(&path));
        }
        warnings.extend(cleaned.iter().map(|c| c.describe()));
        warnings.extend(content_warnings(content, &text, unescaped));
        warnings.extend(stub_warnings(&stubs_of(&path.display(), &text, WRITE_STUB_KINDS), 1));
        let after = self.after_write(
            seen,
            &path,
            &agent,
            Landed::Replaced { text: &text, sha256: &sha256, ahead, on_disk: written.now },
            warnings,
        );
        Ok(WriteOutcome {
            action: Action::Write,
            path: path.display(),
            agent,
            created: written.created,
            size: written.size,
            chars: text.chars().count(),
            lines: count_lines(text.as_bytes()),
            unescaped,
            after,
        })
    }
}
