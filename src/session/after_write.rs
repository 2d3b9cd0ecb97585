//! The steps after a write, append or edit has landed, written once for every writing tool.
//!
//! The rule they keep: the caller's bytes are on disk, so nothing here may fail. A hook that
//! errs, a file that changed again or cannot be re-read only changes what the result says;
//! it never turns the call into an error (an agent would retry and duplicate its chunk).

use std::collections::HashSet;
use std::sync::MutexGuard;

use schemars::JsonSchema;
use serde::Serialize;

use super::Session;
use crate::check::cache::KnownText;
use crate::check::{self, Report};
use crate::files::encoding::{self, Decoded};
use crate::files::sha256_hex;
use crate::hooks::HookReport;
use crate::lines;
use crate::store::{Action, Before, WriteFacts};
use crate::workspace::{FileInfo, RootPath};

/// What a writing tool left on disk, as the check needs to know it.
pub(super) enum Landed<'a> {
    /// The whole file is now `text`, in UTF-8: its bytes are the text's own.
    Replaced {
        /// The file's content.
        text: &'a str,
        /// Its hex sha256.
        sha256: &'a str,
        /// An edit's text before it, and that text's version on disk.
        edited_from: Option<EditedFrom<'a>>,
        /// The file's version right after the write, when the tool knows it (otherwise it
        /// is looked up).
        on_disk: Option<FileInfo>,
    },
    /// The whole file is now `bytes`, which hold `text` in the file's encoding (any: a
    /// writing tool that keeps the file's encoding lands this way).
    Encoded {
        /// The file's text.
        text: &'a str,
        /// The file's content.
        bytes: &'a [u8],
        /// Its hex sha256.
        sha256: &'a str,
        /// An edit's text before it, and that text's version on disk.
        edited_from: Option<EditedFrom<'a>>,
        /// The file's version right after the write, when the tool knows it (otherwise it
        /// is looked up).
        on_disk: Option<FileInfo>,
    },
    /// An append turned the file from version `before` into version `after`, whose whole
    /// content is `whole`.
    Appended {
        /// The file's content after the append.
        whole: Whole,
        /// Its hex sha256.
        sha256: &'a str,
        /// The file's metadata just before the append.
        before: FileInfo,
        /// The file's metadata just after it.
        after: FileInfo,
    },
}

impl<'a> Landed<'a> {
    /// The whole file is now `bytes`, which hold `text`: [`Landed::Replaced`] when they are
    /// the text's own (UTF-8), else [`Landed::Encoded`].
    pub(super) fn whole(
        text: &'a str,
        bytes: &'a [u8],
        sha256: &'a str,
        edited_from: Option<EditedFrom<'a>>,
        on_disk: Option<FileInfo>,
    ) -> Landed<'a> {
        match std::ptr::eq(bytes, text.as_bytes()) || bytes == text.as_bytes() {
            true => Landed::Replaced { text, sha256, edited_from, on_disk },
            false => Landed::Encoded { text, bytes, sha256, edited_from, on_disk },
        }
    }
}

/// The text an edit changed and its version on disk: the check may then parse only around
/// the change (see [`crate::check::cache::CheckCache::check_edit`]).
pub(super) struct EditedFrom<'a> {
    /// The file's text before the edit.
    pub(super) text: &'a str,
    /// Its version on disk (None for a file the edit created).
    pub(super) version: Option<FileInfo>,
}

/// The whole file after an append, as the check takes it.
pub(super) enum Whole {
    /// UTF-8 text, with its `\n` bytes counted: all of them, and those before the append.
    Text { text: String, newlines: usize, newlines_before: usize },
    /// Text in another encoding: the file's `bytes` and their `text`, `text_before` bytes
    /// of which were there before the append; `\n` counted as for `Text`.
    Encoded { bytes: Vec<u8>, text: String, text_before: usize, newlines: usize, newlines_before: usize },
    /// Bytes that are not text (binary): checked as they are, and not kept.
    Bytes(Vec<u8>),
}

impl Whole {
    /// A file read back after an append, `size_before` of its bytes there before it.
    pub(super) fn read(bytes: Vec<u8>, size_before: usize) -> Whole {
        match encoding::decode(bytes) {
            Ok(Decoded { text, other_bytes: None, .. }) => {
                let (head, tail) = text.as_bytes().split_at(size_before.min(text.len()));
                let newlines_before = lines::newlines(head);
                let newlines = newlines_before + lines::newlines(tail);
                Whole::Text { text, newlines, newlines_before }
            }
            Ok(Decoded { text, other_bytes: Some(bytes), encoding: kind, .. }) => {
                // The text of the bytes there before: they end where a character does.
                let head = &bytes[..size_before.min(bytes.len())];
                let text_before = encoding::text_in(head, kind).len().min(text.len());
                Whole::encoded(bytes, text, text_before)
            }
            Err(binary) => Whole::Bytes(binary.bytes),
        }
    }

    /// A file in an encoding other than UTF-8: its `bytes`, their `text`, and the length of
    /// the text that was there before the append.
    pub(super) fn encoded(bytes: Vec<u8>, text: String, text_before: usize) -> Whole {
        let text_before = if text.is_char_boundary(text_before) { text_before } else { 0 };
        let newlines_before = lines::newlines(&text.as_bytes()[..text_before]);
        let newlines = newlines_before + lines::newlines(&text.as_bytes()[text_before..]);
        Whole::Encoded { bytes, text, text_before, newlines, newlines_before }
    }

    /// The text this session kept of the file before the append, with `chunk` added when it
    /// was `appended` (not skipped as a retry).
    pub(super) fn known(known: KnownText<FileInfo>, chunk: &str, appended: bool) -> Whole {
        let KnownText { mut text, newlines: newlines_before, .. } = known;
        let mut newlines = newlines_before;
        if appended {
            text.push_str(chunk);
            newlines += lines::newlines(chunk.as_bytes());
        }
        Whole::Text { text, newlines, newlines_before }
    }

    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            Whole::Text { text, .. } => text.as_bytes(),
            Whole::Encoded { bytes, .. } | Whole::Bytes(bytes) => bytes,
        }
    }

    /// The lines of the file's first `size_before` bytes and of all of it, as an editor
    /// shows them.
    pub(super) fn lines(&self, size_before: usize) -> (usize, usize) {
        match self {
            Whole::Text { text, newlines, newlines_before } => {
                let bytes = text.as_bytes();
                let head = &bytes[..size_before.min(bytes.len())];
                (lines::lines_given(head, *newlines_before), lines::lines_given(bytes, *newlines))
            }
            Whole::Encoded { text, text_before, newlines, newlines_before, .. } => {
                let text = text.as_bytes();
                (
                    lines::lines_given(&text[..*text_before], *newlines_before),
                    lines::lines_given(text, *newlines),
                )
            }
            Whole::Bytes(bytes) => lines::count_lines_before_and_all(bytes, size_before),
        }
    }
}

/// What every writing tool reports besides its own facts: the warnings, the syntax check of
/// the file as it is on disk after the call, and the hook's run. Flattened into each outcome.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AfterWrite {
    /// Things the caller should know although the call succeeded.
    pub warnings: Vec<String>,
    /// Syntax check of the whole file as it is on disk after the call (after the hook, when
    /// the hook changed it).
    pub syntax: Report,
    /// What the --after-write hook did; absent when none is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "HookReport")]
    pub hook: Option<HookReport>,
    /// Hex sha256 of the whole file after the call: pass it as `expected_sha256` to the next
    /// write, append or edit to make sure nobody changed the file in between.
    pub sha256: String,
}

impl Session {
    /// The steps after a change that left a symbolic link at `link` (a link moved, or put
    /// back by `undo`): the file it leads to is checked as after a write, when it leads to
    /// one; otherwise the result says so, with the link's own digest.
    pub(super) fn after_link_change(
        &self,
        seen: MutexGuard<'_, HashSet<RootPath>>,
        link: &RootPath,
        text: &[u8],
        agent: &str,
        mut warnings: Vec<String>,
    ) -> AfterWrite {
        let target = self.ws.follow(link).ok();
        let bytes = target.as_ref().and_then(|t| self.ws.read(t, self.config.max_file_bytes).ok());
        if let (Some(target), Some(bytes)) = (target, bytes) {
            let text = encoding::lossy_text(&bytes);
            let sha256 = sha256_hex(&bytes);
            return self.after_write(
                seen,
                &target,
                agent,
                Landed::whole(&text, &bytes, &sha256, None, None),
                warnings,
            );
        }
        drop(seen);
        warnings.push(format!(
            "{link} is a symbolic link to {:?}, which leads to no file inside the root, so nothing was checked",
            String::from_utf8_lossy(text)
        ));
        AfterWrite {
            warnings,
            syntax: Report::not_checked(None, crate::check::NotChecked::NoLinkTarget),
            hook: None,
            sha256: crate::store::link_sha256(text),
        }
    }

    /// Runs the steps after a write to `path` landed: marks the file seen and releases
    /// `seen` (the writer's lock), runs the hook, and checks what is on disk now, keeping
    /// what the check leaves for the next append. `warnings` are the tool's own.
    pub(super) fn after_write(
        &self,
        mut seen: MutexGuard<'_, HashSet<RootPath>>,
        path: &RootPath,
        agent: &str,
        landed: Landed<'_>,
        mut warnings: Vec<String>,
    ) -> AfterWrite {
        seen.insert(path.clone());
        drop(seen);
        let key = path.display();
        let on_disk = match &landed {
            Landed::Replaced { on_disk: Some(now), .. } | Landed::Encoded { on_disk: Some(now), .. } => {
                Some(*now)
            }
            Landed::Replaced { .. } | Landed::Encoded { .. } => self.ws.stat(path).ok().flatten(),
            Landed::Appended { after, .. } => Some(*after),
        };
        // A panic below (a parser's bug on a strange text) must not turn a landed write into
        // an error: the agent would retry it. It becomes a warning and an unchecked verdict.
        let steps = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.hook_and_check(path, agent, on_disk, landed)
        }));
        match steps {
            Ok((hook, syntax, sha256, unrecorded)) => {
                warnings.extend(unrecorded);
                AfterWrite { warnings, syntax, hook, sha256 }
            }
            Err(_) => {
                warnings.push(format!(
                    "{path} was written, but checking it failed inside filewright (a bug; the log has \
                     the details): run check_files on it"
                ));
                let sha256 = self
                    .ws
                    .read(path, self.config.max_file_bytes)
                    .map(|b| sha256_hex(&b))
                    .unwrap_or_default();
                AfterWrite { warnings, syntax: check::check_failed(&key), hook: None, sha256 }
            }
        }
    }

    /// The hook's run, then the check of what is on disk and its sha256. A rewrite by the hook
    /// is journaled as a change of its own (with the tool's result as the version before it),
    /// so that `undo` and `list_artifacts` see the file as it is; a failure to record it is a
    /// warning.
    fn hook_and_check(
        &self,
        path: &RootPath,
        agent: &str,
        on_disk: Option<FileInfo>,
        landed: Landed<'_>,
    ) -> (Option<HookReport>, Report, String, Option<String>) {
        let key = path.display();
        let (hook, rewritten) = self.run_hook(path, on_disk);
        let mut unrecorded = None;
        let (syntax, sha256) = match (rewritten, landed) {
            // The hook rewrote the file (a formatter): check its text, as it is now.
            (Some(now), landed) => {
                let written: &[u8] = match &landed {
                    Landed::Replaced { text, .. } => text.as_bytes(),
                    Landed::Encoded { bytes, .. } => bytes,
                    Landed::Appended { whole, .. } => whole.bytes(),
                };
                let sha256 = sha256_hex(&now);
                let facts = WriteFacts {
                    size: now.len() as u64,
                    added: (now.len() as u64).saturating_sub(written.len() as u64),
                    sha256: sha256.clone(),
                    before: Some(Before::Content(written.to_vec())),
                };
                unrecorded = match self
                    .store
                    .write_claimed(&key, agent, Action::Hook, || Ok(((), Some(facts))))
                {
                    Ok(((), warning)) => warning,
                    Err(e) => Some(format!(
                        "the --after-write command rewrote {key}, but that could not be journaled ({e}): undo \
                         will see the rewrite as a change made outside filewright"
                    )),
                };
                let text = encoding::lossy_text(&now);
                let syntax = self.checks.check_written(&key, &text, self.ws.stat(path).ok().flatten());
                (syntax, sha256)
            }
            (
                None,
                Landed::Replaced { text, sha256, edited_from, .. }
                | Landed::Encoded { text, sha256, edited_from, .. },
            ) => {
                let syntax = match edited_from {
                    Some(old) => self.checks.check_edit(&key, old.text, text, old.version, on_disk),
                    None => self.checks.check_written(&key, text, on_disk),
                };
                (syntax, sha256.to_owned())
            }
            (None, Landed::Appended { whole, sha256, before, after }) => {
                let syntax = match whole {
                    Whole::Text { text, newlines, .. } => {
                        self.checks.check_appended_text(&key, text, newlines, before, after)
                    }
                    // Not kept as a known text: that is UTF-8, the file's own bytes.
                    Whole::Encoded { text, .. } => {
                        self.checks.check_appended(&key, text.as_bytes(), before, after)
                    }
                    Whole::Bytes(bytes) => self.checks.check_appended(&key, &bytes, before, after),
                };
                (syntax, sha256.to_owned())
            }
        };
        (hook, syntax, sha256, unrecorded)
    }

    /// Runs the `--after-write` hook on `path`, if one is configured. When the hook changed
    /// the file (a formatter), also returns its new content, so that the syntax check and the
    /// sha256 describe what is on disk now.
    fn run_hook(&self, path: &RootPath, written: Option<FileInfo>) -> (Option<HookReport>, Option<Vec<u8>>) {
        let Some(hook) = &self.config.after_write else {
            return (None, None);
        };
        let report = hook.run(&path.display());
        let changed = self.ws.stat(path).ok().flatten() != written;
        let now = changed.then(|| self.ws.read(path, self.config.max_file_bytes).ok()).flatten();
        (Some(report), now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le(text: &str) -> Vec<u8> {
        text.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    #[test]
    fn a_file_in_another_encoding_read_back_after_an_append_counts_lines_in_its_text() {
        let before = utf16le("\u{feff}a\r\nb\r\n");
        let bytes = [before.clone(), utf16le("c\r\nd")].concat();
        let whole = Whole::read(bytes.clone(), before.len());
        assert!(matches!(whole, Whole::Encoded { .. }));
        assert_eq!(whole.bytes(), bytes.as_slice(), "the bytes on disk, not the text's");
        assert_eq!(whole.lines(before.len()), (2, 4));
        // UTF-8 stays text whose bytes are the file's.
        let whole = Whole::read(b"a\nb\nc".to_vec(), 4);
        assert!(matches!(whole, Whole::Text { .. }));
        assert_eq!(whole.lines(4), (2, 3));
    }
}
