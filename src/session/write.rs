//! `write_file`: create or replace a whole file, atomically.

use schemars::JsonSchema;
use serde::Serialize;

use super::after_write::{AfterWrite, Landed};
use super::warnings::{WRITE_STUB_KINDS, choose_form, content_warnings, stub_warnings, stubs_of};
use super::{Session, required};
use crate::check::Report;
use crate::error::{ADVISED_CHUNK_CHARS, Result};
use crate::files;
use crate::hooks::HookReport;
use crate::lines::count_lines;
use crate::store::{Action, WriteFacts, sha256_hex};

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
    /// Things the caller should know although the write succeeded.
    pub warnings: Vec<String>,
    /// Syntax check of the file as written.
    pub syntax: Report,
    /// What the --after-write hook did; absent when none is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "HookReport")]
    pub hook: Option<HookReport>,
}

impl Session {
    /// `write_file`: create or replace the whole file.
    pub fn write_file(
        &self,
        path: Option<&str>,
        content: Option<&str>,
        agent: Option<&str>,
    ) -> Result<WriteOutcome> {
        let raw_path = required(path, "write_file", "path")?;
        let content = required(content, "write_file", "content")?;
        let agent = self.agent(agent)?;
        let path = self.target(raw_path)?;
        let seen = self.lock_seen();
        let (text, unescaped) = choose_form(&path, "", content);
        let ((existing, written), unrecorded) =
            self.store.write_claimed(&path.display(), &agent, Action::Write, || {
                let existing = self.ws.stat(&path)?;
                let written = files::write(&self.ws, &path, text.as_bytes(), self.config.max_file_bytes)?;
                let facts = WriteFacts {
                    size: written.size,
                    added: written.size,
                    sha256: sha256_hex(text.as_bytes()),
                };
                Ok(((existing, written), Some(facts)))
            })?;
        // The bytes have landed: from here on nothing may turn this call into an error.
        let mut warnings: Vec<String> = unrecorded.into_iter().collect();
        if let Some(info) = existing
            && !seen.contains(&path)
        {
            warnings.push(format!(
                "you had not read {path} in this session before replacing it (it held {} bytes); if \
                 that was not intended, its old content is gone: rebuild it from what you know",
                info.size
            ));
        }
        if content.is_empty() {
            warnings.push(format!(
                "content was empty, so {path} is now an empty file. If your call was cut off, send the \
                 content in parts of at most ~{ADVISED_CHUNK_CHARS} characters (write_file, then append_file)"
            ));
        }
        warnings.extend(content_warnings(content, &text, unescaped));
        warnings.extend(stub_warnings(&stubs_of(&path.display(), &text, WRITE_STUB_KINDS), 1));
        let AfterWrite { hook, syntax } = self.after_write(seen, &path, Landed::Replaced { text: &text });
        Ok(WriteOutcome {
            action: Action::Write,
            path: path.display(),
            agent,
            created: written.created,
            size: written.size,
            chars: text.chars().count(),
            lines: count_lines(text.as_bytes()),
            unescaped,
            warnings,
            syntax,
            hook,
        })
    }
}
