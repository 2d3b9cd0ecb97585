//! `write_file`: create or replace a whole file, atomically.

use schemars::JsonSchema;
use serde::Serialize;

use super::after_write::{AfterWrite, Landed};
use super::warnings::{self, WRITE_STUB_KINDS, choose_form, content_warnings, stub_warnings, stubs_of};
use super::{Session, required_or_truncated};
use crate::cleanup;
use crate::error::{Error, Result};
use crate::files;
use crate::files::encoding::{self, Encoding};
use crate::files::sha256_hex;
use crate::lines::count_lines;
use crate::store::{Action, Before, WriteFacts};
use crate::workspace::RootPath;

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
    /// The encoding the file was written in, by its WHATWG name: the one the call named, else
    /// the replaced file's own (its BOM kept), else "UTF-8".
    pub encoding: String,
    /// The content arrived over-escaped (literal `\n`) and was unescaped before writing.
    pub unescaped: bool,
    /// Warnings, the syntax check and the hook's run.
    #[serde(flatten)]
    pub after: AfterWrite,
}

/// Why `write_file` refuses `text` for a `.ipynb`: it is not a notebook that nbformat
/// validates (what is wrong, and what to do). None for a valid notebook.
fn not_a_notebook(text: &str) -> Option<String> {
    let why = match crate::notebook::parse(text) {
        Err(not) => not.to_string(),
        Ok(_) => {
            let value: serde_json::Value = serde_json::from_str(text).ok()?;
            let violations = crate::notebook::validate(&value);
            let shown: Vec<String> = violations.iter().take(3).map(ToString::to_string).collect();
            match violations.len() {
                0 => return None,
                n if n > 3 => format!("{}; and {} more", shown.join("; "), n - 3),
                _ => shown.join("; "),
            }
        }
    };
    Some(format!(
        "the content is not a valid notebook ({why}). write_file takes a notebook only whole and valid; to \
         build one in pieces use edit_notebook: it creates the notebook and inserts cells a few at a time \
         (at most ~8,000 characters per call), the file valid after every call"
    ))
}

impl Session {
    /// `write_file`: create or replace the whole file, keeping a replaced file's encoding.
    pub fn write_file(
        &self,
        path: Option<&str>,
        content: Option<&str>,
        expected_sha256: Option<&str>,
        agent: Option<&str>,
    ) -> Result<WriteOutcome> {
        self.write_file_in(path, content, expected_sha256, agent, None)
    }

    /// `write_file` in the encoding `encoding` names (a WHATWG label such as "utf-8",
    /// "utf-16le" or "shift_jis"); without one, a replaced file keeps its own encoding and BOM,
    /// and a new one is UTF-8. A character the encoding cannot hold is an error, and nothing
    /// is written.
    pub fn write_file_in(
        &self,
        path: Option<&str>,
        content: Option<&str>,
        expected_sha256: Option<&str>,
        agent: Option<&str>,
        encoding: Option<&str>,
    ) -> Result<WriteOutcome> {
        let raw_path = required_or_truncated(path, "write_file", "path")?;
        let content = required_or_truncated(content, "write_file", "content")?;
        let named = encoding.map(Encoding::for_label).transpose()?;
        let agent = self.agent(agent)?;
        let path = self.target(raw_path)?;
        let (content, cleaned) = cleanup::cleaned(&path.display(), content);
        let content: &str = &content;
        let seen = self.lock_seen();
        let (text, unescaped) = choose_form(&path, "", content);
        if crate::notebook::is_notebook(&path.display())
            && let Some(why) = not_a_notebook(&text)
        {
            return Err(Error::Notebook { path: path.display(), reason: why });
        }
        let encoding = match named {
            Some(named) => named,
            None => self.encoding_to_keep(&path, &text)?,
        };
        // The file's whole text (with the BOM its encoding has) and its bytes.
        let stored = encoding.whole_text(&text);
        let bytes = encoding::encode(&path.display(), &stored, encoding)?;
        let sha256 = sha256_hex(&bytes);
        // Written beside the file before the claim is taken: only the rename waits for the
        // transaction.
        let staged = files::stage(&self.ws, &path, &bytes, self.config.max_file_bytes);
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
                    let size = bytes.len() as u64;
                    let facts = WriteFacts { size, added: size, sha256: sha256.clone(), before };
                    Ok((existing, Some(facts)))
                },
                |existing| {
                    let written = files::land(&self.ws, &path, staged, &bytes, self.config.max_file_bytes)?;
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
            Landed::whole(&stored, &bytes, &sha256, None, written.now),
            warnings,
        );
        Ok(WriteOutcome {
            action: Action::Write,
            path: path.display(),
            agent,
            created: written.created,
            size: written.size,
            chars: text.chars().count(),
            lines: count_lines(stored.as_bytes()),
            encoding: encoding.name().to_owned(),
            unescaped,
            after,
        })
    }

    /// The encoding a replaced file keeps when the call names none: its own (with its BOM),
    /// or UTF-8 for a new, empty or binary file. Text that is all ASCII is spelled alike in
    /// every encoding a file is detected in but UTF-16, so for it only the file's first bytes
    /// are read, for a byte order mark.
    fn encoding_to_keep(&self, path: &RootPath, text: &str) -> Result<Encoding> {
        let Some(head) = self.ws.read_head(path, 3)? else { return Ok(Encoding::UTF_8) };
        if let Some(marked) = encoding::bom_of(&head) {
            return Ok(marked);
        }
        if text.is_ascii() {
            return Ok(Encoding::UTF_8);
        }
        match self.ws.read_if_exists(path, self.config.max_file_bytes)? {
            Some((_, Ok(bytes))) => encoding::kept(&path.display(), Some(bytes)),
            // Gone meanwhile, or too large to hold: written as UTF-8.
            _ => Ok(Encoding::UTF_8),
        }
    }
}
