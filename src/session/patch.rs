//! `apply_patch`: one change across files, all or nothing.
//!
//! Every file of the patch is read and every hunk located first (with the same tolerant
//! matcher as `edit_file`), in the store's transaction that claims every path the patch
//! touches. Only when all of them found their place is anything written: each new content is
//! staged beside its file (the slow, failing part: space, permissions), then all are renamed
//! into place and the deleted files removed. Should a rename still fail, the files already
//! changed are put back. Each path gets its own journal row, so `undo` works per path.
//!
//! Every path of the patch is resolved by the sandbox like any tool's path argument (an
//! absolute path inside the root is the relative one). As in Codex, an added file or a move's
//! destination that exists is replaced (claimed and journaled like the rest, so `undo` brings
//! it back), and a file may give way to a directory of the same name in one patch (git's
//! rename of `a` to `a/a`): the file goes before anything is staged under it.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use super::after_write::{AfterWrite, Landed};
use super::patch_write::journal_rows;
use super::{Session, required_or_truncated};
use crate::error::{Error, Result};
use crate::files::patch::{FilePatch, Patch};
use crate::files::{self, encoding, sha256_hex};
use crate::lines::count_lines;
use crate::workspace::RootPath;

/// What a patch did to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PatchedAs {
    /// Created.
    Added,
    /// Changed in place.
    Updated,
    /// Changed (or not) and renamed.
    Moved,
    /// Removed.
    Deleted,
}

impl std::fmt::Display for PatchedAs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PatchedAs::Added => "added",
            PatchedAs::Updated => "updated",
            PatchedAs::Moved => "moved",
            PatchedAs::Deleted => "deleted",
        })
    }
}

/// One file of an applied patch.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PatchedFile {
    /// What happened to it.
    pub action: PatchedAs,
    /// Root-relative path (for a move: where it was).
    pub path: String,
    /// For a move: the root-relative path it moved to.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub moved_to: Option<String>,
    /// The file the patch added, or moved onto, existed and was replaced (`undo` of that path
    /// brings it back).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub replaced: bool,
    /// Lines the patch added to it.
    pub added_lines: usize,
    /// Lines the patch removed from it.
    pub removed_lines: usize,
    /// Size after the patch in bytes (0 when deleted).
    pub size: u64,
    /// Lines after the patch.
    pub lines: usize,
    /// The hunks that matched only with a tolerance, and what each ignored.
    pub tolerated: Vec<String>,
    /// Unified diff of the file (only in a dry run, or where a hunk matched with a tolerance:
    /// what landed then is not exactly what the patch said).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub diff: Option<String>,
    /// Warnings, the syntax check of the file as it now is, and the hook's run (absent for a
    /// deleted file).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "AfterWrite")]
    pub after: Option<AfterWrite>,
}

/// Result of `apply_patch`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PatchOutcome {
    /// `codex` (the `*** Begin Patch` envelope) or `unified` (a unified diff).
    pub format: String,
    /// Agent that applied it.
    pub agent: String,
    /// Nothing was written: every hunk was only located.
    pub dry_run: bool,
    /// Each file, in the order of the patch.
    pub files: Vec<PatchedFile>,
    /// Things the caller should know although the patch applied.
    pub warnings: Vec<String>,
    /// How many files (the last in the patch) were left out of this result to keep it within its budget (50,000
    /// characters of text): they were patched all the same; check_files checks them.
    pub not_listed: usize,
    /// How many files' diffs were left out of this result to keep it within its budget (50,000
    /// characters of text): read_file shows the files once applied, or a dry run of fewer files shows theirs.
    pub diffs_not_shown: usize,
}

/// Lines of diff shown per file.
const MAX_DIFF_LINES: usize = 120;

/// A file's change, worked out and not yet written.
pub(super) struct Planned {
    pub(super) action: PatchedAs,
    pub(super) path: RootPath,
    pub(super) moved_to: Option<RootPath>,
    /// The file before (None: it did not exist).
    pub(super) before: Option<Vec<u8>>,
    /// For a move onto an existing file: that file before.
    pub(super) replaced: Option<Vec<u8>>,
    /// The text of the symbolic link at `path` when the change takes the link itself away (a
    /// delete or a move's source: `rm` and `mv` act on the link, never on what it points to).
    pub(super) source_link: Option<Vec<u8>>,
    /// For a move whose source is a link: the file it leads to, where the new content is
    /// written (edits go through a link) before the link itself is moved.
    pub(super) through: Option<RootPath>,
    /// The text of the symbolic link at a move's destination, which the moved file replaces
    /// (as `mv` does; the link's target is untouched).
    pub(super) replaced_link: Option<Vec<u8>>,
    /// Its text, in whatever encoding it is (empty for a binary file being deleted).
    pub(super) text_before: String,
    /// The file after (None: deleted), in the file's own encoding...
    pub(super) after: Option<Vec<u8>>,
    /// ... and its text.
    pub(super) text_after: Option<String>,
    pub(super) added_lines: usize,
    pub(super) removed_lines: usize,
    pub(super) tolerated: Vec<String>,
}

impl Planned {
    /// Where the new content goes: where the file ends up.
    pub(super) fn destination(&self) -> &RootPath {
        self.moved_to.as_ref().unwrap_or(&self.path)
    }

    /// Where the new content is written: the destination, or the file a moved link leads to.
    pub(super) fn writes_at(&self) -> &RootPath {
        self.through.as_ref().unwrap_or_else(|| self.destination())
    }

    /// The path the change takes away: a deleted file, a move's source.
    pub(super) fn removes(&self) -> Option<&RootPath> {
        (self.moved_to.is_some() || self.after.is_none()).then_some(&self.path)
    }

    /// Whether an existing file at the destination is replaced.
    fn replaces(&self) -> bool {
        match self.action {
            PatchedAs::Added => self.before.is_some(),
            PatchedAs::Moved => self.replaced.is_some() || self.replaced_link.is_some(),
            PatchedAs::Updated | PatchedAs::Deleted => false,
        }
    }
}

/// Whether `path` lies strictly inside `dir`.
pub(super) fn is_inside(path: &RootPath, dir: &RootPath) -> bool {
    path != dir && path.as_path().starts_with(dir.as_path())
}

impl Session {
    /// `apply_patch`: applies a Codex patch envelope or a unified diff to the files it names,
    /// all or nothing.
    pub fn apply_patch(
        &self,
        patch: Option<&str>,
        tolerant: bool,
        dry_run: bool,
        expected_sha256: Option<&BTreeMap<String, String>>,
        agent: Option<&str>,
    ) -> Result<PatchOutcome> {
        let text = required_or_truncated(patch, "apply_patch", "patch")?;
        let agent = self.agent(agent)?;
        let parsed = files::patch::parse(text).map_err(|e| Error::PatchRefused { reason: e.to_string() })?;
        // Every path resolved before anything is read: one outside the root refuses it all.
        let mut targets = Vec::new();
        for file in &parsed.files {
            let (path, to) = match file {
                FilePatch::Add { path, .. } | FilePatch::Delete { path, .. } => (path, None),
                FilePatch::Update { path, move_to, .. } => (path, move_to.as_ref()),
            };
            let refused = |raw: &str, e: Error| Error::PatchRefused { reason: format!("{raw}: {e}") };
            // A delete and both ends of a move name the entry itself (a link is removed or
            // replaced, as `rm` and `mv` do); an added or updated file is written through a link.
            let takes_entry = matches!(file, FilePatch::Delete { .. }) || to.is_some();
            let resolve = |raw: &str| match takes_entry {
                true => self.ws.resolve(raw).map_err(|e| refused(raw, e)),
                false => self.target(raw).map_err(|e| refused(raw, e)),
            };
            targets.push((resolve(path)?, to.map(|t| resolve(t)).transpose()?));
        }
        let mut keys: Vec<String> = Vec::new();
        for (k, (path, to)) in targets.iter().enumerate() {
            for key in std::iter::once(path).chain(to).map(RootPath::display) {
                // Two spellings of one file (`x` and `/root/x`) look like two files to the parser.
                let first = targets
                    .iter()
                    .position(|(p, t)| p.display() == key || t.as_ref().is_some_and(|t| t.display() == key));
                if let Some(first) = first.filter(|&first| first != k) {
                    return Err(Error::PatchRefused {
                        reason: format!(
                            "{key} is touched twice in one patch (its entries {} and {}): give each file \
                             one entry, with all its hunks under one header in file order",
                            first + 1,
                            k + 1
                        ),
                    });
                }
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
            // A moved link's file is written too (the edit goes through the link): claimed.
            if to.is_some()
                && self.ws.link_text(path)?.is_some()
                && let Ok(through) = self.ws.follow(path)
                && !keys.contains(&through.display())
            {
                keys.push(through.display());
            }
        }
        // Paths the patch takes away: a file below one of them is not there for the patch.
        let removed: Vec<RootPath> = parsed
            .files
            .iter()
            .zip(&targets)
            .filter_map(|(file, (path, to))| match file {
                FilePatch::Delete { .. } => Some(path.clone()),
                FilePatch::Update { .. } if to.as_ref().is_some_and(|to| to != path) => Some(path.clone()),
                _ => None,
            })
            .collect();
        if let Some(expected) = expected_sha256
            && let Some(stray) = expected.keys().find(|k| !keys.iter().any(|key| self.same_path(key, k)))
        {
            return Err(Error::PatchRefused {
                reason: format!("expected_sha256 names {stray}, which the patch does not touch"),
            });
        }
        let seen = self.lock_seen();
        let plan = |this: &Self| -> Result<Vec<Planned>> {
            parsed
                .files
                .iter()
                .zip(&targets)
                .map(|(file, (path, to))| {
                    this.plan(file, path, to.as_ref(), &removed, tolerant, expected_sha256).map_err(|e| {
                        match e {
                            // Errors that already say nothing was written, and who to ask.
                            Error::PatchRefused { .. }
                            | Error::ContentChanged { .. }
                            | Error::Conflict { .. } => e,
                            other => Error::PatchRefused { reason: format!("{}: {other}", path.display()) },
                        }
                    })
                })
                .collect()
        };
        let (planned, unrecorded) = if dry_run {
            (plan(self)?, None)
        } else {
            let key_refs: Vec<&str> = keys.iter().map(String::as_str).collect();
            self.store
                .write_claimed_paths(&key_refs, &agent, || {
                    for (path, to) in &targets {
                        self.settle_locked(path);
                        if let Some(to) = to {
                            self.settle_locked(to);
                        }
                    }
                    let planned = plan(self)?;
                    self.write_planned(&planned)?;
                    let rows = planned.iter().flat_map(journal_rows).collect();
                    Ok((planned, rows))
                })
                .map_err(|e| self.with_last_write(e))?
        };
        // The files have changed: from here on nothing may turn this call into an error.
        let mut seen = Some(seen);
        let mut files = Vec::new();
        for p in &planned {
            let key = p.path.display();
            let text_after = p.text_after.as_deref();
            let diff = (dry_run || !p.tolerated.is_empty())
                .then(|| files::unified_diff(&key, &p.text_before, text_after.unwrap_or(""), MAX_DIFF_LINES));
            let after = match (&text_after, dry_run) {
                (None, _) => None,
                (Some(text), true) => Some(AfterWrite {
                    warnings: Vec::new(),
                    syntax: crate::check::check(&p.destination().display(), text),
                    hook: None,
                    sha256: sha256_hex(p.after.as_deref().unwrap_or_default()),
                }),
                (Some(text), false) => {
                    let mut guard = seen.take().unwrap_or_else(|| self.lock_seen());
                    if p.moved_to.is_some() {
                        guard.remove(&p.path);
                    }
                    let bytes = p.after.as_deref().unwrap_or_default();
                    let sha256 = sha256_hex(bytes);
                    let landed =
                        Landed::Encoded { text, bytes, sha256: &sha256, edited_from: None, on_disk: None };
                    Some(self.after_write(guard, p.destination(), &agent, landed, Vec::new()))
                }
            };
            if p.action == PatchedAs::Deleted && !dry_run {
                let mut guard = seen.take().unwrap_or_else(|| self.lock_seen());
                guard.remove(&p.path);
            }
            files.push(PatchedFile {
                action: p.action,
                path: key,
                moved_to: p.moved_to.as_ref().map(RootPath::display),
                replaced: p.replaces(),
                added_lines: p.added_lines,
                removed_lines: p.removed_lines,
                size: p.after.as_ref().map_or(0, |a| a.len() as u64),
                lines: p.after.as_deref().map_or(0, count_lines),
                tolerated: p.tolerated.clone(),
                diff,
                after,
            });
        }
        Ok(PatchOutcome {
            format: parsed_format(&parsed),
            agent,
            dry_run,
            files,
            warnings: unrecorded.into_iter().collect(),
            not_listed: 0,
            diffs_not_shown: 0,
        })
    }

    /// Whether the root-relative `key` and the caller's `raw` path name the same file.
    fn same_path(&self, key: &str, raw: &str) -> bool {
        self.target(raw).is_ok_and(|p| p.display() == key)
    }

    /// Works out one file's change: reads it and locates every hunk, or says why not.
    /// `removed` are the paths the patch takes away: nothing is there below them.
    #[allow(clippy::too_many_arguments)]
    fn plan(
        &self,
        file: &FilePatch,
        path: &RootPath,
        to: Option<&RootPath>,
        removed: &[RootPath],
        tolerant: bool,
        expected: Option<&BTreeMap<String, String>>,
    ) -> Result<Planned> {
        let key = path.display();
        let refuse = |reason: String| Error::PatchRefused { reason: format!("{key}: {reason}") };
        // The file at `at` before the patch, or None.
        let read = |at: &RootPath| -> Result<Option<Vec<u8>>> {
            if removed.iter().any(|gone| is_inside(at, gone)) {
                return Ok(None);
            }
            // A link (a delete's or a move's entry) is read through.
            let at = &self.ws.follow(at)?;
            match self.ws.read_if_exists(at, self.config.max_file_bytes)? {
                Some((info, bytes)) => {
                    if info.kind != crate::workspace::FileKind::File {
                        return Err(Error::PatchRefused {
                            reason: format!("{}: it is not a regular file", at.display()),
                        });
                    }
                    Ok(Some(bytes?))
                }
                None => Ok(None),
            }
        };
        let link_text = |at: &RootPath| -> Result<Option<Vec<u8>>> {
            if removed.iter().any(|gone| is_inside(at, gone)) {
                return Ok(None);
            }
            self.ws.link_text(at)
        };
        let source_link = match file {
            FilePatch::Delete { .. } => link_text(path)?,
            FilePatch::Update { .. } if to.is_some_and(|to| to != path) => link_text(path)?,
            _ => None,
        };
        // A link that is only removed need not lead anywhere (`rm` of a dangling link).
        let before = match (&source_link, file) {
            (Some(_), FilePatch::Delete { .. }) => read(path).ok().flatten(),
            _ => read(path)?,
        };
        if let Some(sha) =
            expected.and_then(|e| e.iter().find(|(k, _)| self.same_path(&key, k)).map(|(_, v)| v))
        {
            files::Expected { size: None, sha256: Some(sha.clone()) }
                .check_content(path, before.as_deref())?;
        }
        // The file's text, in its own encoding (a binary file can only be deleted or
        // replaced whole).
        let decoded = match &before {
            Some(bytes) => match encoding::decode(bytes.clone()) {
                Ok(decoded) => Some(decoded),
                Err(_)
                    if matches!(file, FilePatch::Delete { expected: None, .. } | FilePatch::Add { .. }) =>
                {
                    None
                }
                Err(binary) => return Err(binary.error(&key)),
            },
            None => None,
        };
        let text_before = decoded.as_ref().map(|d| d.text.clone()).unwrap_or_default();
        let planned = |action,
                       moved_to,
                       replaced,
                       after: Option<(Vec<u8>, String)>,
                       added_lines,
                       removed_lines,
                       tolerated| {
            let (after, text_after) = after.unzip();
            Planned {
                action,
                path: path.clone(),
                moved_to,
                replaced,
                source_link: source_link.clone(),
                replaced_link: None,
                through: None,
                before: before.clone(),
                text_before: text_before.clone(),
                after,
                text_after,
                added_lines,
                removed_lines,
                tolerated,
            }
        };
        match file {
            FilePatch::Add { content, .. } => {
                // An existing file is replaced, as Codex does: the journal keeps it for undo.
                let lines = count_lines(content.as_bytes());
                let after = (content.clone().into_bytes(), content.clone());
                Ok(planned(PatchedAs::Added, None, None, Some(after), lines, 0, Vec::new()))
            }
            FilePatch::Delete { expected: quoted, .. } => {
                let old = match (&before, &source_link) {
                    (Some(old), _) => old.as_slice(),
                    (None, Some(_)) => b"",
                    (None, None) => return Err(refuse("the patch deletes it, but it does not exist".into())),
                };
                if let Some(quoted) = quoted {
                    // Line endings and a BOM aside; with tolerance, trailing blanks and
                    // look-alike punctuation too, as hunks are matched.
                    let same = |a: &str| -> Vec<String> {
                        let a = a.trim_start_matches('\u{feff}');
                        match tolerant {
                            true => a.lines().map(files::matcher::line_key).collect(),
                            false => a.lines().map(|l| l.trim_end_matches('\r').to_owned()).collect(),
                        }
                    };
                    if same(&text_before) != same(quoted) {
                        return Err(refuse(
                            "the patch deletes it, but the lines it quotes are not the file's: read it again"
                                .into(),
                        ));
                    }
                }
                let lines = count_lines(old);
                Ok(planned(PatchedAs::Deleted, None, None, None, 0, lines, Vec::new()))
            }
            FilePatch::Update { hunks, .. } => {
                let Some(decoded) = &decoded else {
                    return Err(refuse(
                        "the patch updates it, but it does not exist (to create it, add it)".into(),
                    ));
                };
                decoded.writable(&key)?;
                let text = decoded.text.as_str();
                let patched = files::patch::apply_hunks(text, hunks, tolerant).map_err(|failure| {
                    let mut reason = format!(
                        "hunk {} (patch line {}) does not apply: {}",
                        failure.hunk, failure.patch_line, failure.problem
                    );
                    if !failure.closest.is_empty() {
                        reason.push_str(". Closest lines of the file:");
                        for (n, line) in &failure.closest {
                            reason.push_str(&format!("\n  {n}: {line}"));
                        }
                    }
                    refuse(reason)
                })?;
                // A file at the destination is replaced, as Codex does (kept for undo).
                let (moved_to, replaced, replaced_link) = match to {
                    Some(to) if to != path => match link_text(to)? {
                        // A link there is replaced itself, not written through.
                        Some(text) => (Some(to.clone()), None, Some(text)),
                        None => (Some(to.clone()), read(to)?, None),
                    },
                    _ => (None, None, None),
                };
                let action = if moved_to.is_some() { PatchedAs::Moved } else { PatchedAs::Updated };
                let bytes = encoding::encode(&key, &patched.text, decoded.encoding)?.into_owned();
                let mut plan = planned(
                    action,
                    moved_to,
                    replaced,
                    Some((bytes, patched.text)),
                    patched.added,
                    patched.removed,
                    patched.tolerated,
                );
                plan.replaced_link = replaced_link;
                if plan.moved_to.is_some() && source_link.is_some() {
                    plan.through = Some(self.ws.follow(path)?);
                }
                Ok(plan)
            }
        }
    }
}

fn parsed_format(patch: &Patch) -> String {
    match patch.format {
        files::patch::Format::Codex => "codex".into(),
        files::patch::Format::Unified => "unified".into(),
    }
}
