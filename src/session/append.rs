//! `append_file`: add a chunk at the end of a file, guarded against stale and retried calls.

use schemars::JsonSchema;
use serde::Serialize;

use super::after_write::{AfterWrite, Landed, Whole};
use super::warnings::{self, APPEND_STUB_KINDS, choose_form, content_warnings, stub_warnings, stubs_of};
use super::{Session, required_or_truncated};
use crate::check::cache::KnownText;
use crate::cleanup;
use crate::error::{Error, Result};
use crate::files;
use crate::files::encoding::{self, Decoded, Encoding};
use crate::files::sha256_hex;
use crate::lines;
use crate::store::{Action, AppendIntent, Before, WriteFacts};
use crate::unescape;
use crate::workspace::{FileInfo, RootPath};

/// Result of `append_file`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AppendOutcome {
    /// Always `append`.
    pub action: Action,
    /// Root-relative path appended to.
    pub path: String,
    /// Agent that appended.
    pub agent: String,
    /// The file did not exist before this call.
    pub created: bool,
    /// Size of the file after the call, in bytes.
    pub size: u64,
    /// Bytes appended by this call (0 when the chunk was a retried duplicate).
    pub appended: u64,
    /// Characters in the chunk.
    pub chars: usize,
    /// Lines in the file after the call.
    pub lines: usize,
    /// The file's encoding, which the chunk was written in, by its WHATWG name: "UTF-8",
    /// "UTF-16LE", "Shift_JIS"... (a new or empty file is UTF-8).
    pub encoding: String,
    /// The file already ended with this chunk, so nothing was appended (a retried call).
    pub duplicate_skipped: bool,
    /// The chunk arrived over-escaped (literal `\n`) and was unescaped before appending.
    pub unescaped: bool,
    /// Warnings, the syntax check and the hook's run.
    #[serde(flatten)]
    pub after: AfterWrite,
}

/// Why a notebook is never appended to, and what to do instead.
const NOT_APPENDABLE: &str = "a notebook is JSON, and anything appended to it breaks it. Add cells with \
    edit_notebook (action \"insert\", a few cells and at most ~8,000 characters per call; it creates a \
    missing notebook): the notebook is valid after every call.";

impl Session {
    /// `append_file`: add a chunk at the end of the file.
    pub fn append_file(
        &self,
        path: Option<&str>,
        content: Option<&str>,
        expected: files::Expected,
        agent: Option<&str>,
    ) -> Result<AppendOutcome> {
        let raw_path = required_or_truncated(path, "append_file", "path")?;
        let content = required_or_truncated(content, "append_file", "content")?;
        let agent = self.agent(agent)?;
        let path = self.target(raw_path)?;
        if crate::notebook::is_notebook(&path.display()) {
            return Err(Error::Notebook { path: path.display(), reason: NOT_APPENDABLE.into() });
        }
        let (content, cleaned) = cleanup::cleaned(&path.display(), content);
        let content: &str = &content;
        let seen = self.lock_seen();
        let (text, unescaped) = if unescape::looks_over_escaped(content) {
            let before = match self.ws.stat(&path)? {
                Some(_) => {
                    let bytes = self.ws.read(&path, self.config.max_file_bytes)?;
                    encoding::lossy_text(&bytes).into_owned()
                }
                None => String::new(),
            };
            choose_form(&path, &before, content)
        } else {
            (content.to_string(), false)
        };
        // The file's text as this session's last append left it (kept for large files): when
        // the file is still at that version, it is not read back.
        let known = self.checks.take_text(&path.display());
        let ((out, whole, sha256, encoding), unrecorded) = self
            .store
            .write_claimed(&path.display(), &agent, Action::Append, || {
                self.settle_locked(&path);
                let key = path.display();
                // The chunk is written in the file's encoding.
                let held = self.held_for_append(&path, known)?;
                let encoding = held.encoding();
                let chunk = held.encode_chunk(&key, &text)?;
                let mut recorded = false;
                let mut record = |pending: files::Pending| {
                    self.store.record_append_intent(&AppendIntent {
                        path: key.clone(),
                        size_before: pending.before.size,
                        dev: pending.before.dev,
                        ino: pending.before.ino,
                        pid: std::process::id(),
                        created: pending.creates,
                        len: pending.chunk.len() as u64,
                        chunk: std::borrow::Cow::Borrowed(pending.chunk),
                    })?;
                    recorded = true;
                    Ok(())
                };
                let appended = files::append(
                    &self.ws,
                    &path,
                    &chunk,
                    &expected,
                    self.config.max_file_bytes,
                    &mut record,
                    held.version(),
                );
                // This process saw how the append ended and reports it: only a kill leaves the
                // intent behind. Cleared before the commit, so a kill after it leaves a whole
                // append (at worst without its journal row), never a part of one.
                if recorded {
                    self.store.clear_append_intent(&key);
                }
                let mut out = appended?;
                let appended = out.added > 0;
                let whole = match (out.contents.take(), held) {
                    (Some(read), _) => Whole::read(read, out.size_before as usize),
                    (None, Held::Known(known)) => Whole::known(known, &text, appended),
                    (None, Held::Read(version, Decoded { text: before, other_bytes: None, .. })) => {
                        let newlines = lines::newlines(before.as_bytes());
                        Whole::known(KnownText { version, text: before, newlines }, &text, appended)
                    }
                    (None, Held::Read(_, Decoded { text: mut all, other_bytes: Some(mut bytes), .. })) => {
                        let text_before = all.len();
                        if appended {
                            all.push_str(&text);
                            bytes.extend_from_slice(&chunk);
                        }
                        Whole::encoded(bytes, all, text_before)
                    }
                    (None, Held::Other) => {
                        unreachable!("files::append reads the file back unless told it is known")
                    }
                };
                // Only the new part is hashed when this session left the file as it was.
                let sha256 = match whole.bytes().len() as u64 == out.size {
                    true => self.digests.after_append(
                        &key,
                        out.before,
                        out.after,
                        whole.bytes(),
                        out.size_before as usize,
                    ),
                    false => sha256_hex(whole.bytes()),
                };
                let facts = (out.added > 0 || out.created).then(|| WriteFacts {
                    size: out.size,
                    added: out.added,
                    sha256: sha256.clone(),
                    before: Some(if out.created { Before::Absent } else { Before::Prefix(out.size_before) }),
                });
                Ok(((out, whole, sha256, encoding), facts))
            })
            .map_err(|e| self.with_last_write(e))?;
        // The bytes have landed: from here on nothing may turn this call into an error.
        let mut warnings: Vec<String> = unrecorded.into_iter().collect();
        if out.duplicate_skipped {
            warnings.push(warnings::retried_chunk(&path, text.len(), out.size));
        }
        if content.is_empty() {
            warnings.push(warnings::NOTHING_APPENDED.into());
        }
        let (lines_before, lines) = whole.lines(out.size_before as usize);
        let first_new_line = lines_before + 1;
        warnings.extend(stub_warnings(&stubs_of(&path.display(), &text, APPEND_STUB_KINDS), first_new_line));
        warnings.extend(cleaned.iter().map(|c| c.describe()));
        warnings.extend(content_warnings(content, &text, unescaped));
        let landed = Landed::Appended { whole, sha256: &sha256, before: out.before, after: out.after };
        let after = self.after_write(seen, &path, &agent, landed, warnings);
        Ok(AppendOutcome {
            action: Action::Append,
            path: path.display(),
            agent,
            created: out.created,
            size: out.size,
            appended: out.added,
            chars: text.chars().count(),
            lines,
            duplicate_skipped: out.duplicate_skipped,
            encoding: encoding.name().to_owned(),
            unescaped,
            after,
        })
    }

    /// The file an append is about to add to, as far as the chunk's encoding needs it: the
    /// text this session's last append left, when the file is still at that version (it is
    /// UTF-8), else the file read now. A file whose text does not encode back to its bytes
    /// is refused: the chunk's encoding is only a guess.
    fn held_for_append(&self, path: &RootPath, known: Option<KnownText<FileInfo>>) -> Result<Held> {
        if let Some(known) = known
            && self.ws.stat(path)? == Some(known.version)
        {
            return Ok(Held::Known(known));
        }
        match self.ws.read_if_exists(path, self.config.max_file_bytes)? {
            Some((version, Ok(bytes))) => match encoding::decode(bytes) {
                Ok(decoded) => {
                    decoded.writable(&path.display())?;
                    Ok(Held::Read(version, decoded))
                }
                // Bytes that are not text take the chunk's UTF-8 as they did.
                Err(_) => Ok(Held::Other),
            },
            // Missing (the append creates it: UTF-8), or too large to read (the append then
            // says so).
            _ => Ok(Held::Other),
        }
    }
}

/// The file before an append, as far as it is known.
enum Held {
    /// The text this session's last append left (UTF-8), still on disk.
    Known(KnownText<FileInfo>),
    /// The file as read at this version.
    Read(FileInfo, Decoded),
    /// Missing, binary or too large: the chunk is UTF-8, and the file is read back.
    Other,
}

impl Held {
    fn encoding(&self) -> Encoding {
        match self {
            Held::Read(_, decoded) => decoded.encoding,
            Held::Known(_) | Held::Other => Encoding::UTF_8,
        }
    }

    /// The version whose content is held: the append need not read it back.
    fn version(&self) -> Option<&FileInfo> {
        match self {
            Held::Known(known) => Some(&known.version),
            Held::Read(version, _) => Some(version),
            Held::Other => None,
        }
    }

    /// `text` in the file's encoding (without a second BOM); a character it cannot hold is an
    /// error naming its line in the file as it would be.
    fn encode_chunk<'a>(&self, key: &str, text: &'a str) -> Result<std::borrow::Cow<'a, [u8]>> {
        let Held::Read(_, before) = self else { return Ok(std::borrow::Cow::Borrowed(text.as_bytes())) };
        encoding::encode(key, text, before.encoding).map_err(|e| match e {
            Error::Unrepresentable { path, character, line, encoding } => {
                let line = line + lines::newlines(before.text.as_bytes());
                Error::Unrepresentable { path, character, line, encoding }
            }
            other => other,
        })
    }
}
