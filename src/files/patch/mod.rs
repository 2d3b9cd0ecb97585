//! The text of an `apply_patch` call, parsed into files and hunks: pure, no file is read.
//!
//! Models send one change across files in one of two shapes, and [`parse`] tells them apart by
//! their text:
//! - **The Codex envelope** (`*** Begin Patch` ... `*** End Patch`), which OpenAI's models are
//!   trained to write: files are added whole (`*** Add File:` and `+` lines), deleted
//!   (`*** Delete File:`) or updated (`*** Update File:`, optionally `*** Move to:`) by hunks
//!   located by their lines and by `@@ <line>` headers that narrow the search, not by numbers.
//! - **Unified diffs** as `git diff` and `diff -u` print them, which every model has read a
//!   great deal of: `--- a/x` / `+++ b/x` headers, git's extended headers, and hunks whose
//!   `@@ -l,n +l,n @@` header counts their lines.
//!
//! Both become one [`Patch`], built to be applied by a tolerant matcher: every hunk is its
//! lines in order ([`Hunk::old_text`] is what to find, [`Hunk::new_text`] what to put there),
//! with whatever helps to find it (`@@` context lines, the old line number as a hint, "at the
//! end of the file"). Nothing here decides whether a hunk applies; that needs the file.
//!
//! # Leniency
//! The parser accepts what models commonly send by mistake when its meaning is certain: a
//! heredoc (`apply_patch <<'EOF'` ... `EOF`) or a Markdown fence around the envelope, spaces
//! around markers (and their case), an update's first hunk without its `@@` line, an empty
//! line in a hunk that lost its leading space (an empty context line; at the end of a hunk
//! only a separator), unified `@@ -l,n +l,n @@` headers inside the envelope (the line number
//! is kept as a hint, the counts are not checked), several envelopes one after the other,
//! `./` before paths, text before a unified diff's first file (a commit message or
//! `git format-patch` headers), and bare `@@` hunks in a unified diff (uncounted, like
//! Codex's). A CRLF patch parses like an LF one; the `\r` stays in the lines' text, because
//! the applier matches line endings with the file's.
//!
//! It refuses what it cannot read for certain, with the patch line and what to do: a missing
//! `*** End Patch` (the call was most likely cut off by the model's output limit), hunk line
//! counts that disagree with their header (a miscount or a cut), binary patches, copies,
//! absolute paths, and a file touched twice, since the hunks of one file must be applied in
//! order against one text.

mod apply;

pub use apply::{HunkFailure, Patched, apply_hunks};

use std::collections::HashMap;
use std::fmt;

/// A parsed patch: the files it changes, in the order the patch gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// Which of the two formats the text was.
    pub format: Format,
    /// One entry per file; no path appears twice (a rename's new path included).
    pub files: Vec<FilePatch>,
}

/// The format of a patch's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `*** Begin Patch` ... `*** End Patch`.
    Codex,
    /// `git diff` / `diff -u` output.
    Unified,
}

/// What a patch does to one file. Paths are as the patch gives them, relative to the root,
/// with git's `a/` and `b/` prefixes and any leading `./` removed; never empty nor absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilePatch {
    /// Create the file.
    Add {
        /// The file to create.
        path: String,
        /// Its whole text, each line ending in `\n` unless the patch says the last has none.
        content: String,
    },
    /// Delete the file.
    Delete {
        /// The file to delete.
        path: String,
        /// The text the patch expects the file to have: a unified diff shows the deleted
        /// lines (git's `deleted file mode` without a hunk: an empty file, `Some("")`); a
        /// Codex patch does not (`None`), nor a `diff -u` one without a hunk.
        expected: Option<String>,
    },
    /// Change the file by hunks, and/or rename it.
    Update {
        /// The file to change.
        path: String,
        /// Where the file goes after the change (Codex `*** Move to:`, git `rename to`).
        move_to: Option<String>,
        /// The changes, in the patch's order (which should be the file's order); empty only
        /// for a pure rename.
        hunks: Vec<Hunk>,
    },
}

impl FilePatch {
    /// The path the file has before the patch (the one created, for an add).
    pub fn path(&self) -> &str {
        match self {
            FilePatch::Add { path, .. } | FilePatch::Delete { path, .. } | FilePatch::Update { path, .. } => {
                path
            }
        }
    }
}

/// One contiguous change of an updated file.
///
/// A hunk without old lines (only `+` lines) is located by its contexts or `old_start`
/// alone; Codex's own applier puts one that has neither at the end of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// 1-based line of the hunk's first header line in the patch (of its first line when a
    /// Codex update's first hunk has no `@@`), for messages: "hunk 2 of src/a.js, patch line 14".
    pub patch_line: usize,
    /// Codex `@@ <line>` headers, outermost first: lines that appear in the file, in this
    /// order, before the hunk (e.g. `class Foo`, then `def bar`); also the text of a bare
    /// `@@ <line>` in a unified diff, where models write it as in Codex. Empty for a counted
    /// unified hunk, whose header text is only a comment (see `section`).
    pub contexts: Vec<String>,
    /// The text after a unified header's second `@@` (git's function name): a comment, which
    /// may help a message but must not be required to match.
    pub section: Option<String>,
    /// 1-based line of the file where the old side begins, as the header says: a hint, since
    /// models' numbers are often off. For an insertion (`-l,0`, no old line), the line the new
    /// lines go before (`l + 1`), so that splicing always replaces old lines
    /// `old_start .. old_start + old_len()`. `None` when the patch gives no number (Codex).
    pub old_start: Option<usize>,
    /// The hunk's lines, in order.
    pub lines: Vec<HunkLine>,
    /// The old side ends at the end of the file: Codex `*** End of File`, or a
    /// `\ No newline at end of file` on either side (diff prints it only at the end).
    pub end_of_file: bool,
    /// The last old-side line has no line ending (`\ No newline at end of file` after it).
    pub old_missing_final_newline: bool,
    /// The last new-side line has no line ending.
    pub new_missing_final_newline: bool,
}

/// One line of a hunk: its text without the prefix and without the `\n` (a `\r` before the
/// `\n` stays in the text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    /// A line on both sides (` ` prefix, or an empty line).
    Context(String),
    /// A line only on the old side (`-`).
    Remove(String),
    /// A line only on the new side (`+`).
    Add(String),
}

impl HunkLine {
    /// The line's text.
    pub fn text(&self) -> &str {
        match self {
            HunkLine::Context(text) | HunkLine::Remove(text) | HunkLine::Add(text) => text,
        }
    }

    fn in_old(&self) -> bool {
        !matches!(self, HunkLine::Add(_))
    }

    fn in_new(&self) -> bool {
        !matches!(self, HunkLine::Remove(_))
    }
}

impl Hunk {
    /// The text the hunk replaces: its context and removed lines, each ending in `\n` but the
    /// last when `old_missing_final_newline` is set.
    pub fn old_text(&self) -> String {
        side_text(self.lines.iter().filter(|l| l.in_old()), self.old_missing_final_newline)
    }

    /// The text the hunk puts in its place: its context and added lines.
    pub fn new_text(&self) -> String {
        side_text(self.lines.iter().filter(|l| l.in_new()), self.new_missing_final_newline)
    }

    /// Lines of the old side.
    pub fn old_len(&self) -> usize {
        self.lines.iter().filter(|l| l.in_old()).count()
    }

    /// Lines of the new side.
    pub fn new_len(&self) -> usize {
        self.lines.iter().filter(|l| l.in_new()).count()
    }
}

fn side_text<'a>(lines: impl Iterator<Item = &'a HunkLine>, missing_final_newline: bool) -> String {
    let mut text = String::new();
    for line in lines {
        text.push_str(line.text());
        text.push('\n');
    }
    if missing_final_newline {
        text.pop();
    }
    text
}

/// Why a patch text could not be parsed: the line it is about and what to do, for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchError {
    /// 1-based line of the patch text the error is about.
    pub line: usize,
    /// What kind of problem, for callers that treat some apart (e.g. a cut-off call).
    pub kind: PatchErrorKind,
    /// What is wrong and what to do, without the line number (which [`fmt::Display`] adds).
    pub message: String,
}

/// The kinds of [`PatchError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchErrorKind {
    /// The patch is empty or only whitespace.
    Empty,
    /// No file header nor `*** Begin Patch` in the text.
    NoFiles,
    /// The text stops before the patch does: most likely the model's output limit.
    Truncated,
    /// A line that does not belong where it is.
    Syntax,
    /// A unified hunk whose lines disagree with its header's counts.
    LineCount,
    /// A binary patch.
    Binary,
    /// Something valid that `apply_patch` does not do (copies, mode changes, context diffs).
    Unsupported,
    /// An empty or absolute path, or a quoted name that is not UTF-8.
    Path,
    /// The same path in two entries.
    Duplicate,
    /// An update that changes nothing (no hunk, no rename).
    NoChange,
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "patch line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for PatchError {}

/// Parses a patch: a Codex envelope or a unified diff, told apart by the text.
pub fn parse(text: &str) -> Result<Patch, PatchError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines: Vec<&str> = text.split('\n').collect();
    // A final line ending ends the last line; it does not start another.
    if lines.last() == Some(&"") {
        lines.pop();
    }
    if lines.iter().all(|l| l.trim().is_empty()) {
        return Err(error(
            0,
            PatchErrorKind::Empty,
            "the patch is empty: send `*** Begin Patch`, the changes, and `*** End Patch` \
             (or a unified diff)"
                .into(),
        ));
    }
    let (format, entries) = match detect(&lines)? {
        Start::Codex(begin) => (Format::Codex, codex::parse(&lines, begin)?),
        Start::Unified => (Format::Unified, unified::parse(&lines)?),
    };
    if entries.is_empty() {
        return Err(error(
            0,
            PatchErrorKind::NoFiles,
            "the patch changes no file: add `*** Add File: <path>`, `*** Update File: <path>` or \
             `*** Delete File: <path>` sections between `*** Begin Patch` and `*** End Patch`"
                .into(),
        ));
    }
    refuse_duplicates(&entries)?;
    Ok(Patch { format, files: entries.into_iter().map(|e| e.file).collect() })
}

const BEGIN_PATCH: &str = "*** Begin Patch";
const END_PATCH: &str = "*** End Patch";
const END_OF_FILE: &str = "*** End of File";
const MOVE_TO: &str = "*** Move to:";
const DEV_NULL: &str = "/dev/null";

/// A file's entry with the 0-based index of its header line, for messages.
struct Entry {
    line: usize,
    file: FilePatch,
}

/// An error about the 0-based line `index`.
fn error(index: usize, kind: PatchErrorKind, message: String) -> PatchError {
    PatchError { line: index + 1, kind, message }
}

/// A line of the patch as messages quote it: escaped (a `\r` shows), and cut when long.
fn show(line: &str) -> String {
    const MAX_CHARS: usize = 80;
    match line.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{:?}…", &line[..cut]),
        None => format!("{line:?}"),
    }
}

/// Whether a line, trimmed, starts with `marker`, ASCII case aside; the rest, trimmed.
fn marker<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    let t = line.trim();
    let head = t.get(..marker.len())?;
    head.eq_ignore_ascii_case(marker).then(|| t[marker.len()..].trim())
}

fn is_marker(line: &str, whole: &str) -> bool {
    line.trim().eq_ignore_ascii_case(whole)
}

/// An empty line that stands for an empty line of the file: its text keeps the `\r` of a CRLF
/// patch, like every other line's.
fn blank_text(line: &str) -> &str {
    if line.ends_with('\r') { "\r" } else { "" }
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Where the patch starts and in which format.
enum Start {
    /// At the 0-based index of `*** Begin Patch`.
    Codex(usize),
    Unified,
}

/// The first line that only one format has decides: `*** Begin Patch` for Codex, a file
/// header or hunk for a unified diff. What comes before it (a heredoc line, a fence, a
/// commit message) is not a patch line.
fn detect(lines: &[&str]) -> Result<Start, PatchError> {
    for (i, line) in lines.iter().enumerate() {
        if is_marker(line, BEGIN_PATCH) {
            return Ok(Start::Codex(i));
        }
        if line.starts_with("diff --git ")
            || line.starts_with("@@")
            || unified::is_file_header(lines, i)
            || unified::is_binary(line)
        {
            return Ok(Start::Unified);
        }
        if codex::file_op(line).is_some() {
            return Err(error(
                i,
                PatchErrorKind::Syntax,
                format!(
                    "{} comes before any `*** Begin Patch`: a Codex patch starts with a line \
                     `*** Begin Patch` and ends with a line `*** End Patch`",
                    show(line.trim())
                ),
            ));
        }
        if is_marker(line, END_PATCH) {
            return Err(error(
                i,
                PatchErrorKind::Syntax,
                "`*** End Patch` without `*** Begin Patch` before it: start the patch with a line \
                 `*** Begin Patch`"
                    .into(),
            ));
        }
        let context_diff = line.starts_with("***************")
            || (line.starts_with("*** ") && lines.get(i + 1).is_some_and(|next| next.starts_with("--- ")));
        if context_diff {
            return Err(error(
                i,
                PatchErrorKind::Unsupported,
                "this looks like a context diff (`diff -c`), which apply_patch does not read: send a \
                 unified diff (`diff -u`, `git diff`) or a Codex patch (`*** Begin Patch`)"
                    .into(),
            ));
        }
    }
    // The whole patch on one line with its line breaks escaped: JSON encoded twice.
    let escaped = if lines.len() == 1 && lines[0].contains("\\n") {
        " (its line breaks arrived as the two characters `\\n`: send real line breaks)"
    } else {
        ""
    };
    Err(error(
        0,
        PatchErrorKind::NoFiles,
        format!(
            "found no file in the patch{escaped}: a Codex patch starts with `*** Begin Patch` and \
             has `*** Update File: <path>` (or Add/Delete) sections; a unified diff has \
             `--- a/<path>` and `+++ b/<path>` lines before its `@@` hunks"
        ),
    ))
}

/// Refuses a path touched by two entries: their hunks would have to be applied one after the
/// other to the same text, and the order in which an applier did that is not the model's to
/// guess; one entry per file says it plainly.
fn refuse_duplicates(entries: &[Entry]) -> Result<(), PatchError> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for entry in entries {
        let mut paths = vec![entry.file.path()];
        if let FilePatch::Update { move_to: Some(to), .. } = &entry.file {
            paths.push(to);
        }
        for path in paths {
            if let Some(first) = seen.insert(path, entry.line) {
                return Err(error(
                    entry.line,
                    PatchErrorKind::Duplicate,
                    format!(
                        "{} is touched twice in one patch (patch lines {} and {}): give each file \
                         one entry, with all its hunks under one header in file order (a rename's \
                         new path counts as touched)",
                        show(path),
                        first + 1,
                        entry.line + 1
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Checks a path as the patch gives it: relative to the root and not empty. The sandbox
/// refuses the others too, but saying it here names the patch line.
fn check_path(raw: &str, index: usize) -> Result<String, PatchError> {
    let mut path = raw.trim();
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    if path.is_empty() {
        return Err(error(
            index,
            PatchErrorKind::Path,
            "the file's path is empty: give it relative to the root, e.g. `src/main.rs`".into(),
        ));
    }
    let bytes = path.as_bytes();
    let drive =
        bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && b"/\\".contains(&bytes[2]);
    if path.starts_with(['/', '\\', '~']) || drive {
        return Err(error(
            index,
            PatchErrorKind::Path,
            format!(
                "{} is an absolute path: give paths relative to the root (e.g. `src/main.rs`); \
                 the sandbox refuses any other",
                show(path)
            ),
        ));
    }
    Ok(path.to_string())
}

/// A hunk being read, with what is needed to finish it.
struct Building {
    hunk: Hunk,
    /// Empty lines without a prefix at the end so far: separators if nothing follows them.
    unprefixed_tail: usize,
}

impl Building {
    fn new(index: usize, contexts: Vec<String>, old_start: Option<usize>, section: Option<String>) -> Self {
        Building {
            hunk: Hunk {
                patch_line: index + 1,
                contexts,
                section,
                old_start,
                lines: Vec::new(),
                end_of_file: false,
                old_missing_final_newline: false,
                new_missing_final_newline: false,
            },
            unprefixed_tail: 0,
        }
    }

    /// Adds a line; a side already ended by `\ No newline at end of file` takes no more.
    fn push(&mut self, line: HunkLine, index: usize) -> Result<(), PatchError> {
        let ended = (line.in_old() && self.hunk.old_missing_final_newline)
            || (line.in_new() && self.hunk.new_missing_final_newline);
        if ended {
            return Err(error(
                index,
                PatchErrorKind::Syntax,
                "a line follows `\\ No newline at end of file`, which can only come after the last \
                 line of the file: move the marker after the last line, or remove it"
                    .into(),
            ));
        }
        self.hunk.lines.push(line);
        self.unprefixed_tail = 0;
        Ok(())
    }

    /// Adds an empty line that lost its space prefix: an empty context line if more lines
    /// follow, a separator if the hunk ends after it.
    fn push_blank(&mut self, line: &str) {
        if self.hunk.old_missing_final_newline || self.hunk.new_missing_final_newline {
            // After the end of the file: only a separator (a real line after it is refused).
            return;
        }
        self.hunk.lines.push(HunkLine::Context(blank_text(line).to_string()));
        self.unprefixed_tail += 1;
    }

    /// `\ No newline at end of file`: the line before it has no line ending.
    fn no_newline(&mut self, index: usize) -> Result<(), PatchError> {
        let Some(last) = self.hunk.lines.last() else {
            return Err(error(
                index,
                PatchErrorKind::Syntax,
                "`\\ No newline at end of file` must follow the line it is about: remove it or \
                 put it after the file's last line"
                    .into(),
            ));
        };
        let (old, new) = (last.in_old(), last.in_new());
        self.hunk.old_missing_final_newline |= old;
        self.hunk.new_missing_final_newline |= new;
        self.unprefixed_tail = 0;
        Ok(())
    }

    /// The hunk, without trailing separators; refused when it has no line.
    fn finish(mut self, path: &str, number: usize) -> Result<Hunk, PatchError> {
        let keep = self.hunk.lines.len() - self.unprefixed_tail;
        self.hunk.lines.truncate(keep);
        if self.hunk.lines.is_empty() {
            return Err(error(
                self.hunk.patch_line - 1,
                PatchErrorKind::Syntax,
                format!(
                    "hunk {number} of {} has no lines: after `@@` give the lines to change, \
                     prefixed with ' ' (context), '-' (removed) or '+' (added), or remove the `@@`",
                    show(path)
                ),
            ));
        }
        // diff prints the marker only at the end of a file, and the hunk holding a file's last
        // line holds the other side's last line too.
        self.hunk.end_of_file |= self.hunk.old_missing_final_newline || self.hunk.new_missing_final_newline;
        Ok(self.hunk)
    }
}

/// A unified hunk header's numbers, after the first `@@`: ` -l[,n] +l[,n] @@[ section]`.
struct Range {
    old_start: usize,
    old_count: usize,
    new_count: usize,
    section: Option<String>,
}

fn parse_range(after_at: &str) -> Option<Range> {
    fn side(text: &str) -> Option<(usize, usize)> {
        match text.split_once(',') {
            Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
            // A count left out is 1.
            None => Some((text.parse().ok()?, 1)),
        }
    }
    let rest = after_at.trim_start().strip_prefix('-')?;
    let (old, rest) = rest.split_once(' ')?;
    let rest = rest.trim_start().strip_prefix('+')?;
    let (new, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    let rest = rest.trim_start().strip_prefix("@@")?;
    let (old_start, old_count) = side(old)?;
    let (_, new_count) = side(new.trim_end())?;
    let section = rest.trim();
    Some(Range {
        old_start,
        old_count,
        new_count,
        section: (!section.is_empty()).then(|| section.to_string()),
    })
}

/// The 1-based line where the old side begins, from the header's `-l,n`: for `n = 0` the
/// header names the line before the insertion.
fn old_start_of(range: &Range, index: usize) -> Result<usize, PatchError> {
    let start = if range.old_count == 0 { range.old_start.checked_add(1) } else { Some(range.old_start) };
    match start {
        Some(start) if start >= 1 => Ok(start),
        _ => Err(error(
            index,
            PatchErrorKind::Syntax,
            format!(
                "the hunk header says its old lines start at line {} but has {} of them: lines \
                 count from 1 (an insertion at the top of a file is `-0,0`)",
                range.old_start, range.old_count
            ),
        )),
    }
}

/// The Codex envelope.
mod codex {
    use super::*;

    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(super) enum Op {
        Add,
        Delete,
        Update,
    }

    /// A file operation's header line and its path (raw); spaces around it are tolerated.
    pub(super) fn file_op(line: &str) -> Option<(Op, &str)> {
        [(Op::Add, "*** Add File:"), (Op::Delete, "*** Delete File:"), (Op::Update, "*** Update File:")]
            .into_iter()
            .find_map(|(op, name)| marker(line, name).map(|path| (op, path)))
    }

    fn is_envelope_marker(line: &str) -> bool {
        file_op(line).is_some() || is_marker(line, END_PATCH) || is_marker(line, BEGIN_PATCH)
    }

    /// The word that ends a heredoc opened on `line` (`apply_patch <<'EOF'`, `<<EOF`,
    /// `git apply <<-"PATCH"`), if the line opens one.
    fn heredoc_delimiter(line: &str) -> Option<&str> {
        let t = line.trim();
        let (_, after) = t.split_once("<<")?;
        let after = after.strip_prefix('-').unwrap_or(after).trim_start();
        let word = match after.chars().next()? {
            quote @ ('\'' | '"') => {
                let inner = &after[1..];
                let end = inner.find(quote)?;
                inner[end + 1..].trim().is_empty().then_some(&inner[..end])?
            }
            _ => after,
        };
        (!word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')).then_some(word)
    }

    /// Parses the envelope that starts at the 0-based line `begin`.
    pub(super) fn parse(lines: &[&str], begin: usize) -> Result<Vec<Entry>, PatchError> {
        let delimiter = lines[..begin].iter().find_map(|l| heredoc_delimiter(l));
        // What may follow the envelope: blank lines, a closing fence, the heredoc's end.
        let trailer = |line: &str| {
            let t = line.trim();
            t.is_empty() || t.starts_with("```") || delimiter.is_some_and(|d| t == d)
        };
        let last = lines.iter().rposition(|l| !trailer(l)).unwrap_or(begin);
        let end = if last > begin && is_marker(lines[last], END_PATCH) {
            last
        } else if let Some(end) = (begin + 1..lines.len())
            .rev()
            .find(|&k| is_marker(lines[k], END_PATCH) && !lines[k].starts_with(['+', '-']))
        {
            let after = (end + 1..lines.len()).find(|&k| !trailer(lines[k])).unwrap_or(end + 1);
            return Err(error(
                after,
                PatchErrorKind::Syntax,
                format!(
                    "text after `*** End Patch` (patch line {}): {}. Put every change inside one \
                     `*** Begin Patch` ... `*** End Patch` and nothing after it",
                    end + 1,
                    show(lines.get(after).copied().unwrap_or(""))
                ),
            ));
        } else {
            return Err(error(
                lines.len() - 1,
                PatchErrorKind::Truncated,
                format!(
                    "the patch ends without `*** End Patch` (it started at patch line {}): it was \
                     most likely cut off by your output limit. Nothing was applied; send it again \
                     complete, or split the change into several smaller patches",
                    begin + 1
                ),
            ));
        };

        let mut entries = Vec::new();
        let mut i = begin + 1;
        while i < end {
            let line = lines[i];
            if is_blank(line) {
                i += 1;
                continue;
            }
            match file_op(line) {
                Some((Op::Add, raw)) => {
                    let path = check_path(raw, i)?;
                    let (content, next) = add(lines, i + 1, end, &path)?;
                    entries.push(Entry { line: i, file: FilePatch::Add { path, content } });
                    i = next;
                }
                Some((Op::Delete, raw)) => {
                    let path = check_path(raw, i)?;
                    entries.push(Entry { line: i, file: FilePatch::Delete { path, expected: None } });
                    i += 1;
                }
                Some((Op::Update, raw)) => {
                    let path = check_path(raw, i)?;
                    let (move_to, hunks, next) = update(lines, i, end, &path)?;
                    entries.push(Entry { line: i, file: FilePatch::Update { path, move_to, hunks } });
                    i = next;
                }
                None => {
                    // Two envelopes one after the other: read them as one.
                    let next = (i + 1..end).find(|&k| !is_blank(lines[k]));
                    if is_marker(line, END_PATCH) && next.is_some_and(|k| is_marker(lines[k], BEGIN_PATCH)) {
                        i = next.unwrap_or(end) + 1;
                        continue;
                    }
                    return Err(unexpected_between_files(line, i, entries.last()));
                }
            }
        }
        Ok(entries)
    }

    fn unexpected_between_files(line: &str, index: usize, previous: Option<&Entry>) -> PatchError {
        let hint = if marker(line, MOVE_TO).is_some() {
            "`*** Move to: <path>` must come right after its `*** Update File: <path>` line".to_string()
        } else if is_marker(line, END_OF_FILE) {
            "`*** End of File` must come right after the last line of a hunk".to_string()
        } else if let Some(Entry { file: FilePatch::Delete { path, .. }, .. }) = previous {
            format!("`*** Delete File: {path}` takes no lines after it: remove them")
        } else if line.starts_with("@@") || line.starts_with([' ', '-', '+']) {
            "a hunk needs its file: put `*** Update File: <path>` before it".to_string()
        } else {
            "every section starts with `*** Add File: <path>`, `*** Update File: <path>` or \
             `*** Delete File: <path>`, and the patch ends with `*** End Patch`"
                .to_string()
        };
        error(index, PatchErrorKind::Syntax, format!("unexpected line {}: {hint}", show(line)))
    }

    /// An added file's `+` lines, from `start`; returns its content and where it stops.
    fn add(lines: &[&str], start: usize, end: usize, path: &str) -> Result<(String, usize), PatchError> {
        let mut content = String::new();
        let mut blanks: Vec<&str> = Vec::new();
        let mut lines_added = 0;
        let mut ended = false;
        let mut i = start;
        while i < end {
            let line = lines[i];
            if line.starts_with('*') {
                break;
            }
            if let Some(text) = line.strip_prefix('+') {
                if ended {
                    return Err(error(
                        i,
                        PatchErrorKind::Syntax,
                        "a line follows `\\ No newline at end of file`, which can only come after \
                         the file's last line: move the marker after the last line, or remove it"
                            .into(),
                    ));
                }
                // Empty lines that lost their '+' between content lines are empty lines.
                for blank in blanks.drain(..) {
                    content.push_str(blank_text(blank));
                    content.push('\n');
                }
                content.push_str(text);
                content.push('\n');
                lines_added += 1;
            } else if line.starts_with('\\') && lines_added > 0 && blanks.is_empty() && !ended {
                content.pop();
                ended = true;
            } else if is_blank(line) {
                blanks.push(line);
            } else {
                return Err(error(
                    i,
                    PatchErrorKind::Syntax,
                    format!(
                        "expected a line starting with '+' in the new file {}, found {}: every line \
                         of an added file starts with '+', empty lines too",
                        show(path),
                        show(line)
                    ),
                ));
            }
            i += 1;
        }
        Ok((content, i))
    }

    /// An updated file from its header at `header`: the optional move, the hunks, and where
    /// its section stops.
    fn update(
        lines: &[&str],
        header: usize,
        end: usize,
        path: &str,
    ) -> Result<(Option<String>, Vec<Hunk>, usize), PatchError> {
        let mut i = header + 1;
        let mut move_to = None;
        // Blank lines before the move are only spacing (before a hunk too, below).
        let first = (i..end).find(|&k| !is_blank(lines[k])).unwrap_or(end);
        if let Some(raw) = lines[..end].get(first).and_then(|l| marker(l, MOVE_TO)) {
            let to = check_path(raw, first)?;
            move_to = (to != path).then_some(to);
            i = first + 1;
        }
        let mut hunks: Vec<Hunk> = Vec::new();
        let mut current: Option<Building> = None;
        while i < end {
            let line = lines[i];
            if line.starts_with('*') {
                if is_marker(line, END_OF_FILE) {
                    let Some(mut building) = current.take() else {
                        return Err(error(
                            i,
                            PatchErrorKind::Syntax,
                            "`*** End of File` must come right after the last line of a hunk".into(),
                        ));
                    };
                    building.hunk.end_of_file = true;
                    hunks.push(building.finish(path, hunks.len() + 1)?);
                    i += 1;
                    continue;
                }
                if is_envelope_marker(line) {
                    break;
                }
            }
            if line.starts_with("@@") {
                if let Some(building) = current.take() {
                    hunks.push(building.finish(path, hunks.len() + 1)?);
                }
                current = Some(hunk_header(lines, &mut i, end)?);
                continue;
            }
            // `--- a/x`, `+++ b/x`, `@@ -1,2 +1,2 @@`: a unified file header pasted in.
            let starts_hunk = current.as_ref().is_none_or(|b| b.hunk.lines.is_empty());
            if starts_hunk
                && line.starts_with("--- ")
                && lines[..end].get(i + 1).is_some_and(|l| l.starts_with("+++ "))
                && lines[..end].get(i + 2).is_some_and(|l| l.starts_with("@@"))
            {
                return Err(error(
                    i,
                    PatchErrorKind::Syntax,
                    "a unified diff's `---`/`+++` file header inside the Codex patch: remove these \
                     two lines (the file is named by `*** Update File:`) and start the hunk with `@@`"
                        .into(),
                ));
            }
            match line.as_bytes().first() {
                Some(b' ' | b'-' | b'+') => {
                    let building = match &mut current {
                        Some(building) => building,
                        None if hunks.is_empty() => current.insert(Building::new(i, Vec::new(), None, None)),
                        None => {
                            return Err(error(
                                i,
                                PatchErrorKind::Syntax,
                                format!(
                                    "{} follows `*** End of File`, which ends its hunk: start a new \
                                     hunk with `@@`, or move `*** End of File` after this line",
                                    show(line)
                                ),
                            ));
                        }
                    };
                    let text = line[1..].to_string();
                    let hunk_line = match line.as_bytes()[0] {
                        b' ' => HunkLine::Context(text),
                        b'-' => HunkLine::Remove(text),
                        _ => HunkLine::Add(text),
                    };
                    building.push(hunk_line, i)?;
                }
                Some(b'\\') if current.is_some() => {
                    if let Some(building) = &mut current {
                        building.no_newline(i)?;
                    }
                }
                _ if is_blank(line) => {
                    if let Some(building) = &mut current {
                        building.push_blank(line);
                    }
                }
                _ => {
                    let hint = if marker(line, MOVE_TO).is_some() {
                        format!("`*** Move to:` must come right after `*** Update File: {path}`")
                    } else if line.starts_with("***") {
                        "the markers are `*** Add File:`, `*** Update File:`, `*** Delete File:`, \
                         `*** Move to:`, `*** End of File` and `*** End Patch`; a line of the file \
                         starting with `***` needs its prefix too"
                            .to_string()
                    } else {
                        "prefix context lines with a space".to_string()
                    };
                    return Err(error(
                        i,
                        PatchErrorKind::Syntax,
                        format!(
                            "expected a line starting with ' ', '-' or '+' inside hunk {} of {}, \
                             found {}: {hint}",
                            hunks.len() + 1,
                            show(path),
                            show(line)
                        ),
                    ));
                }
            }
            i += 1;
        }
        if let Some(building) = current.take() {
            hunks.push(building.finish(path, hunks.len() + 1)?);
        }
        if hunks.is_empty() && move_to.is_none() {
            return Err(error(
                header,
                PatchErrorKind::NoChange,
                format!(
                    "`*** Update File: {path}` has no hunk: give the change as `@@` followed by \
                     lines prefixed with ' ', '-' or '+', or remove the section"
                ),
            ));
        }
        Ok((move_to, hunks, i))
    }

    /// Consecutive `@@` lines starting at `*i`: one hunk's header. `@@ <line>` adds a context
    /// line; a unified `@@ -l,n +l,n @@` (models mix the formats) gives a line number hint.
    fn hunk_header(lines: &[&str], i: &mut usize, end: usize) -> Result<Building, PatchError> {
        let mut building = Building::new(*i, Vec::new(), None, None);
        while *i < end && lines[*i].starts_with("@@") {
            let rest = &lines[*i][2..];
            let text = rest.strip_prefix(' ').unwrap_or(rest);
            if text.trim().is_empty() {
                // A bare `@@`.
            } else if let Some(range) = parse_range(rest) {
                building.hunk.old_start = Some(old_start_of(&range, *i)?);
                building.hunk.section = range.section;
            } else {
                building.hunk.contexts.push(text.to_string());
            }
            *i += 1;
        }
        Ok(building)
    }
}

/// Unified diffs: `git diff` and `diff -u`.
mod unified {
    use super::*;

    /// `--- x` followed by `+++ y`: the start of a file in any unified diff.
    pub(super) fn is_file_header(lines: &[&str], i: usize) -> bool {
        lines[i].starts_with("--- ") && lines.get(i + 1).is_some_and(|next| next.starts_with("+++ "))
    }

    pub(super) fn is_binary(line: &str) -> bool {
        (line.starts_with("Binary files ") && line.trim_end().ends_with(" differ"))
            || line.trim_end() == "GIT binary patch"
    }

    fn binary(index: usize) -> PatchError {
        error(
            index,
            PatchErrorKind::Binary,
            "binary patches are not supported: apply_patch changes text files only; leave binary \
             files out of the patch"
                .into(),
        )
    }

    pub(super) fn parse(lines: &[&str]) -> Result<Vec<Entry>, PatchError> {
        let mut entries = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            if line.starts_with("diff --git ") {
                let (entry, next) = git_entry(lines, i)?;
                entries.push(entry);
                i = next;
            } else if is_file_header(lines, i) {
                let (entry, next) = traditional_entry(lines, i)?;
                entries.push(entry);
                i = next;
            } else if line.starts_with("@@") {
                return Err(error(
                    i,
                    PatchErrorKind::Syntax,
                    "this hunk has no file before it: start each file with a `--- a/<path>` line and \
                     a `+++ b/<path>` line, then its hunks"
                        .into(),
                ));
            } else if is_binary(line) {
                return Err(binary(i));
            } else {
                // A commit message, `git format-patch` headers, `Index:` lines: not the patch's.
                i += 1;
            }
        }
        Ok(entries)
    }

    /// `--- <name>` / `+++ <name>` after the marker: the name (unquoted) and what follows it
    /// (`diff -u`'s timestamp).
    fn header_name(raw: &str, index: usize) -> Result<(String, &str), PatchError> {
        let raw = raw.trim_start().trim_end_matches(['\r', '\n']);
        if raw.starts_with('"') {
            let (name, rest) = unquote(raw, index)?;
            return Ok((name, rest.trim()));
        }
        let (name, stamp) = match raw.split_once('\t') {
            Some((name, stamp)) => (name, stamp),
            None => match find_timestamp(raw) {
                Some(at) => (&raw[..at], &raw[at..]),
                None => (raw, ""),
            },
        };
        Ok((name.trim_end().to_string(), stamp.trim()))
    }

    /// Where a timestamp written after a space instead of a tab (` 2024-01-31 ...`) starts.
    fn find_timestamp(raw: &str) -> Option<usize> {
        let bytes = raw.as_bytes();
        let is_date = |at: usize| {
            let d = |k: usize| bytes.get(at + k).is_some_and(u8::is_ascii_digit);
            (0..4).all(d)
                && bytes.get(at + 4) == Some(&b'-')
                && (5..7).all(d)
                && bytes.get(at + 7) == Some(&b'-')
        };
        (0..bytes.len()).find(|&k| bytes[k] == b' ' && is_date(k + 1))
    }

    /// `diff -N` names a missing file by its name and the epoch (in the local time zone).
    fn is_epoch(stamp: &str) -> bool {
        stamp.starts_with("1970-01-01") || stamp.starts_with("1969-12-31")
    }

    /// A C-style quoted name as git writes names with special characters
    /// (`"a/caf\303\251.txt"`): the name and what follows the closing quote.
    pub(super) fn unquote(raw: &str, index: usize) -> Result<(String, &str), PatchError> {
        let malformed = |what: &str| {
            error(
                index,
                PatchErrorKind::Path,
                format!("the quoted file name {} {what}: quote names as git does, or not at all", show(raw)),
            )
        };
        let bytes = raw.as_bytes();
        let mut name = Vec::new();
        let mut k = 1;
        loop {
            match bytes.get(k) {
                None => return Err(malformed("has no closing quote")),
                Some(b'"') => break,
                Some(b'\\') => {
                    k += 1;
                    let byte = match bytes.get(k) {
                        Some(b'a') => 7,
                        Some(b'b') => 8,
                        Some(b't') => b'\t',
                        Some(b'n') => b'\n',
                        Some(b'v') => 11,
                        Some(b'f') => 12,
                        Some(b'r') => b'\r',
                        Some(&c @ (b'"' | b'\\')) => c,
                        Some(b'0'..=b'3') => {
                            let octal =
                                bytes.get(k..k + 3).filter(|o| o.iter().all(|b| (b'0'..=b'7').contains(b)));
                            let Some(octal) = octal else { return Err(malformed("has a bad octal escape")) };
                            k += 2;
                            octal.iter().fold(0u8, |n, b| (n << 3) | (b - b'0'))
                        }
                        _ => return Err(malformed("has an unknown escape")),
                    };
                    name.push(byte);
                }
                Some(&b) => name.push(b),
            }
            k += 1;
        }
        let name = String::from_utf8(name).map_err(|_| malformed("is not UTF-8"))?;
        Ok((name, &raw[k + 1..]))
    }

    /// The two names of `diff --git <a> <b>`, when they can be told apart: quoted, or the same
    /// path on both sides (git's usual case), or split before ` b/`.
    fn git_header_names(rest: &str, index: usize) -> Result<Option<(String, String)>, PatchError> {
        let rest = rest.trim_end_matches(['\r', '\n']).trim();
        if rest.starts_with('"') {
            let (a, after) = unquote(rest, index)?;
            let after = after.trim_start();
            let b = if after.starts_with('"') { unquote(after, index)?.0 } else { after.to_string() };
            return Ok(Some((a, b)));
        }
        if let Some((a, _)) = rest.split_once(" \"") {
            let (b, _) = unquote(&rest[a.len() + 1..], index)?;
            return Ok(Some((a.to_string(), b)));
        }
        // Same name on both sides after the first component: the split is in the middle.
        let middle = rest.len() / 2;
        if rest.len() % 2 == 1 && rest.is_char_boundary(middle) && rest.as_bytes()[middle] == b' ' {
            let (a, b) = (&rest[..middle], &rest[middle + 1..]);
            let tail = |s: &str| s.split_once('/').map(|(_, t)| t.to_string());
            if (tail(a).is_some() && tail(a) == tail(b)) || a == b {
                return Ok(Some((a.to_string(), b.to_string())));
            }
        }
        Ok(rest.split_once(" b/").map(|(a, b)| (a.to_string(), format!("b/{b}"))))
    }

    /// A `diff --git` entry: extended headers, then `---`/`+++` and hunks when it has content.
    fn git_entry(lines: &[&str], start: usize) -> Result<(Entry, usize), PatchError> {
        let header = git_header_names(&lines[start]["diff --git ".len()..], start)?;
        let (mut new_file, mut deleted_file, mut mode_change) = (false, false, false);
        let (mut rename_from, mut rename_to) = (None, None);
        let (mut minus, mut plus) = (None, None);
        let mut i = start + 1;
        while i < lines.len() {
            let line = lines[i].trim_end_matches('\r');
            let name = |raw: &str| -> Result<String, PatchError> {
                if raw.starts_with('"') { Ok(unquote(raw, i)?.0) } else { Ok(raw.to_string()) }
            };
            if let Some(raw) = line.strip_prefix("rename from ") {
                rename_from = Some(name(raw)?);
            } else if let Some(raw) = line.strip_prefix("rename to ") {
                rename_to = Some(name(raw)?);
            } else if line.starts_with("copy from ") || line.starts_with("copy to ") {
                return Err(error(
                    i,
                    PatchErrorKind::Unsupported,
                    "copies (`copy from`/`copy to`) are not supported: add the copy as a new file \
                     with its whole content (`--- /dev/null`, `+++ b/<path>`)"
                        .into(),
                ));
            } else if line.starts_with("new file mode ") {
                new_file = true;
            } else if line.starts_with("deleted file mode ") {
                deleted_file = true;
            } else if line.starts_with("old mode ") || line.starts_with("new mode ") {
                mode_change = true;
            } else if line.starts_with("index ")
                || line.starts_with("similarity index ")
                || line.starts_with("dissimilarity index ")
            {
                // Facts about the two versions, nothing to do.
            } else if is_binary(line) {
                return Err(binary(i));
            } else if is_file_header(lines, i) {
                minus = Some(header_name(&lines[i][4..], i)?.0);
                plus = Some(header_name(&lines[i + 1][4..], i + 1)?.0);
                i += 2;
                break;
            } else {
                break;
            }
            i += 1;
        }
        // git's `a/` and `b/` prefixes, unless it ran with --no-prefix.
        let prefixed = match &header {
            Some((a, b)) => a.starts_with("a/") && b.starts_with("b/"),
            None => {
                minus.as_deref().is_none_or(|m| m == DEV_NULL || m.starts_with("a/"))
                    && plus.as_deref().is_none_or(|p| p == DEV_NULL || p.starts_with("b/"))
            }
        };
        let strip = |name: String, prefix: &str| match name.strip_prefix(prefix) {
            Some(rest) if prefixed => rest.to_string(),
            _ => name,
        };
        let old_absent = new_file || minus.as_deref() == Some(DEV_NULL);
        let new_absent = deleted_file || plus.as_deref() == Some(DEV_NULL);
        let old_name = rename_from
            .or_else(|| minus.filter(|m| m != DEV_NULL).map(|m| strip(m, "a/")))
            .or_else(|| header.as_ref().map(|(a, _)| strip(a.clone(), "a/")));
        let new_name = rename_to
            .or_else(|| plus.filter(|p| p != DEV_NULL).map(|p| strip(p, "b/")))
            .or_else(|| header.as_ref().map(|(_, b)| strip(b.clone(), "b/")));
        let unnamed = || {
            error(
                start,
                PatchErrorKind::Syntax,
                "cannot tell the file's name from this `diff --git` line: add `--- a/<path>` and \
                 `+++ b/<path>` lines"
                    .into(),
            )
        };
        let shown = new_name.clone().or_else(|| old_name.clone()).unwrap_or_default();
        let (hunks, next) = hunks(lines, i, &shown)?;
        let file = if old_absent && new_absent {
            return Err(both_absent(start));
        } else if old_absent {
            let path = check_path(&new_name.ok_or_else(unnamed)?, start)?;
            FilePatch::Add { content: added(&hunks, &path)?, path }
        } else if new_absent {
            let path = check_path(&old_name.ok_or_else(unnamed)?, start)?;
            FilePatch::Delete { expected: Some(deleted(&hunks, &path)?), path }
        } else {
            let path = check_path(&old_name.ok_or_else(unnamed)?, start)?;
            let to = check_path(&new_name.ok_or_else(unnamed)?, start)?;
            let move_to = (to != path).then_some(to);
            if hunks.is_empty() && move_to.is_none() {
                return Err(if mode_change {
                    error(
                        start,
                        PatchErrorKind::Unsupported,
                        format!(
                            "the entry for {} only changes the file's mode (`old mode`/`new mode`), \
                             which apply_patch does not do: remove this entry",
                            show(&path)
                        ),
                    )
                } else {
                    no_hunk(start, &path)
                });
            }
            FilePatch::Update { path, move_to, hunks }
        };
        Ok((Entry { line: start, file }, next))
    }

    /// A `diff -u` entry: `--- old` and `+++ new`, then hunks.
    fn traditional_entry(lines: &[&str], start: usize) -> Result<(Entry, usize), PatchError> {
        let (old, old_stamp) = header_name(&lines[start][4..], start)?;
        let (new, new_stamp) = header_name(&lines[start + 1][4..], start + 1)?;
        let (old_null, new_null) = (old == DEV_NULL, new == DEV_NULL);
        let (old, new) = match (old.strip_prefix("a/"), new.strip_prefix("b/")) {
            (Some(o), Some(n)) => (o.to_string(), n.to_string()),
            (Some(o), None) if new_null => (o.to_string(), new),
            (None, Some(n)) if old_null => (old, n.to_string()),
            _ => (old, new),
        };
        let (hunks, next) = hunks(lines, start + 2, if old_null { &new } else { &old })?;
        let old_absent =
            old_null || (is_epoch(old_stamp) && !hunks.is_empty() && hunks.iter().all(|h| h.old_len() == 0));
        let new_absent =
            new_null || (is_epoch(new_stamp) && !hunks.is_empty() && hunks.iter().all(|h| h.new_len() == 0));
        let file = if old_absent && new_absent {
            return Err(both_absent(start));
        } else if old_absent {
            let path = check_path(&new, start + 1)?;
            FilePatch::Add { content: added(&hunks, &path)?, path }
        } else if new_absent {
            let path = check_path(&old, start)?;
            let expected = if hunks.is_empty() { None } else { Some(deleted(&hunks, &path)?) };
            FilePatch::Delete { path, expected }
        } else {
            let path = check_path(&old, start)?;
            let to = check_path(&new, start + 1)?;
            if to != path {
                return Err(error(
                    start,
                    PatchErrorKind::Syntax,
                    format!(
                        "the file header names two files, {} (`---`) and {} (`+++`), and a plain \
                         unified diff cannot rename: give the same path on both lines, or rename \
                         with git's `diff --git` and `rename from`/`rename to` headers",
                        show(&path),
                        show(&to)
                    ),
                ));
            }
            if hunks.is_empty() {
                return Err(no_hunk(start, &path));
            }
            FilePatch::Update { path, move_to: None, hunks }
        };
        Ok((Entry { line: start, file }, next))
    }

    fn both_absent(index: usize) -> PatchError {
        error(
            index,
            PatchErrorKind::Syntax,
            "both sides of this file are /dev/null: name the file on the `+++` line to add it, or \
             on the `---` line to delete it"
                .into(),
        )
    }

    fn no_hunk(index: usize, path: &str) -> PatchError {
        error(
            index,
            PatchErrorKind::NoChange,
            format!(
                "the entry for {} has no hunk: give its changes as `@@ -l,n +l,n @@` hunks, or \
                 remove the entry",
                show(path)
            ),
        )
    }

    /// A new file's content: its hunks may only add lines.
    fn added(hunks: &[Hunk], path: &str) -> Result<String, PatchError> {
        only(hunks, path, |l| matches!(l, HunkLine::Add(_)), "a new file's lines all start with '+'")?;
        Ok(hunks.iter().map(Hunk::new_text).collect())
    }

    /// A deleted file's expected content: its hunks may only remove lines.
    fn deleted(hunks: &[Hunk], path: &str) -> Result<String, PatchError> {
        only(hunks, path, |l| matches!(l, HunkLine::Remove(_)), "a deleted file's lines all start with '-'")?;
        Ok(hunks.iter().map(Hunk::old_text).collect())
    }

    fn only(hunks: &[Hunk], path: &str, fits: fn(&HunkLine) -> bool, rule: &str) -> Result<(), PatchError> {
        for (k, hunk) in hunks.iter().enumerate() {
            if let Some(line) = hunk.lines.iter().find(|l| !fits(l)) {
                return Err(error(
                    hunk.patch_line - 1,
                    PatchErrorKind::Syntax,
                    format!(
                        "hunk {} of {} has the line {}, but {rule}",
                        k + 1,
                        show(path),
                        show(line.text())
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A file's hunks from `start`, until the next file or the end; `path` is for messages.
    fn hunks(lines: &[&str], start: usize, path: &str) -> Result<(Vec<Hunk>, usize), PatchError> {
        let mut hunks: Vec<Hunk> = Vec::new();
        let mut last_counted = false;
        let mut i = start;
        while i < lines.len() {
            let line = lines[i];
            if line.starts_with("@@") {
                let (hunk, next, counted) = hunk(lines, i, path, hunks.len() + 1)?;
                hunks.push(hunk);
                last_counted = counted;
                i = next;
                continue;
            }
            if line.starts_with("diff --git ") || is_file_header(lines, i) {
                break;
            }
            if is_binary(line) {
                return Err(binary(i));
            }
            // `-- ` opens `git format-patch`'s signature.
            let signature = line.trim_end_matches('\r') == "-- " || line.trim_end_matches('\r') == "--";
            if !is_blank(line) && !signature && line.starts_with([' ', '-', '+']) {
                return Err(match hunks.last() {
                    None => error(
                        i,
                        PatchErrorKind::Syntax,
                        format!(
                            "expected a hunk header `@@ -l,n +l,n @@` after the file header of {}, \
                             found {}",
                            show(path),
                            show(line)
                        ),
                    ),
                    Some(hunk) if last_counted => error(
                        i,
                        PatchErrorKind::LineCount,
                        format!(
                            "hunk {} of {} (patch line {}) already has the {} old and {} new lines \
                             its header announces, but {} continues it: recount the lines (a \
                             context line counts on both sides), or send a Codex patch \
                             (`*** Begin Patch`), which needs no counts",
                            hunks.len(),
                            show(path),
                            hunk.patch_line,
                            hunk.old_len(),
                            hunk.new_len(),
                            show(line)
                        ),
                    ),
                    Some(hunk) => error(
                        i,
                        PatchErrorKind::Syntax,
                        format!(
                            "{} is outside any hunk: hunk {} of {} (patch line {}) ended at a line \
                             that does not start with ' ', '-' or '+'; prefix context lines with a \
                             space",
                            show(line),
                            hunks.len(),
                            show(path),
                            hunk.patch_line
                        ),
                    ),
                });
            }
            i += 1;
        }
        Ok((hunks, i))
    }

    /// One hunk from its `@@` line at `start`; also where it ends and whether it was counted.
    fn hunk(
        lines: &[&str],
        start: usize,
        path: &str,
        number: usize,
    ) -> Result<(Hunk, usize, bool), PatchError> {
        let header = lines[start];
        let Some(range) = parse_range(&header[2..]) else {
            return uncounted(lines, start, path, number);
        };
        let old_start = old_start_of(&range, start)?;
        let mut building = Building::new(start, Vec::new(), Some(old_start), range.section.clone());
        let (mut old_left, mut new_left) = (range.old_count, range.new_count);
        let shown_header = show(header.trim_end());
        let mut i = start + 1;
        while old_left > 0 || new_left > 0 {
            let short = |found: &str| {
                let (old_have, new_have) = (range.old_count - old_left, range.new_count - new_left);
                format!(
                    "hunk {number} of {} (patch line {}) has {old_have} old and {new_have} new lines \
                     where its header {shown_header} announces {} and {}, and {found}: recount the \
                     lines (a context line counts on both sides), or send a Codex patch \
                     (`*** Begin Patch`), which needs no counts",
                    show(path),
                    start + 1,
                    range.old_count,
                    range.new_count,
                )
            };
            let Some(&line) = lines.get(i) else {
                return Err(error(
                    lines.len() - 1,
                    PatchErrorKind::LineCount,
                    short(
                        "the patch ends there (if it was cut off by your output limit, send it again \
                         complete)",
                    ),
                ));
            };
            let hunk_line = match line.as_bytes().first() {
                Some(b' ') => HunkLine::Context(line[1..].to_string()),
                Some(b'-') => HunkLine::Remove(line[1..].to_string()),
                Some(b'+') => HunkLine::Add(line[1..].to_string()),
                Some(b'\\') => {
                    building.no_newline(i)?;
                    i += 1;
                    continue;
                }
                // An empty context line whose space was trimmed away.
                _ if line.trim_end_matches('\r').is_empty() => {
                    HunkLine::Context(blank_text(line).to_string())
                }
                _ => {
                    let found = if line.starts_with("@@") {
                        "the next hunk starts".to_string()
                    } else {
                        format!(
                            "the next line, {}, does not start with ' ', '-' or '+' (prefix context \
                             lines with a space)",
                            show(line)
                        )
                    };
                    return Err(error(i, PatchErrorKind::LineCount, short(&found)));
                }
            };
            let fits = (!hunk_line.in_old() || old_left > 0) && (!hunk_line.in_new() || new_left > 0);
            if !fits {
                let side = if old_left == 0 { "old" } else { "new" };
                return Err(error(
                    i,
                    PatchErrorKind::LineCount,
                    short(&format!("the next line, {}, is one {side} line more", show(line))),
                ));
            }
            old_left -= usize::from(hunk_line.in_old());
            new_left -= usize::from(hunk_line.in_new());
            building.push(hunk_line, i)?;
            i += 1;
        }
        if lines.get(i).is_some_and(|l| l.starts_with('\\')) {
            building.no_newline(i)?;
            i += 1;
        }
        if building.hunk.lines.is_empty() {
            return Err(error(
                start,
                PatchErrorKind::Syntax,
                format!(
                    "hunk {number} of {} announces no lines ({shown_header}): remove it, or give \
                     the lines it changes",
                    show(path)
                ),
            ));
        }
        Ok((building.finish(path, number)?, i, true))
    }

    /// A hunk whose `@@` line has no numbers (models write bare `@@` as in Codex patches): its
    /// lines run to the next `@@`, file, or line that is not a hunk line.
    fn uncounted(
        lines: &[&str],
        start: usize,
        path: &str,
        number: usize,
    ) -> Result<(Hunk, usize, bool), PatchError> {
        let text = lines[start][2..].trim();
        let text = text.strip_suffix("@@").unwrap_or(text).trim();
        if text.starts_with('-') || text.starts_with('+') {
            return Err(error(
                start,
                PatchErrorKind::Syntax,
                format!(
                    "malformed hunk header {}: expected `@@ -<old line>,<old count> +<new line>,<new \
                     count> @@`",
                    show(lines[start].trim_end())
                ),
            ));
        }
        let contexts = if text.is_empty() { Vec::new() } else { vec![text.to_string()] };
        let mut building = Building::new(start, contexts, None, None);
        let mut i = start + 1;
        while let Some(&line) = lines.get(i) {
            if line.starts_with("@@") || line.starts_with("diff --git ") || is_file_header(lines, i) {
                break;
            }
            match line.as_bytes().first() {
                Some(b' ') => building.push(HunkLine::Context(line[1..].to_string()), i)?,
                Some(b'-') => building.push(HunkLine::Remove(line[1..].to_string()), i)?,
                Some(b'+') => building.push(HunkLine::Add(line[1..].to_string()), i)?,
                Some(b'\\') => building.no_newline(i)?,
                _ if is_blank(line) => building.push_blank(line),
                _ => break,
            }
            i += 1;
        }
        Ok((building.finish(path, number)?, i, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A patch text from its lines, each ending in `\n` (string continuations would eat the
    /// leading space of context lines).
    fn text(lines: &[&str]) -> String {
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    fn ok(lines: &[&str]) -> Patch {
        let patch = text(lines);
        parse(&patch).unwrap_or_else(|e| panic!("{e}\n{patch}"))
    }

    fn fails(lines: &[&str]) -> PatchError {
        let patch = text(lines);
        match parse(&patch) {
            Ok(parsed) => panic!("parsed: {parsed:?}\n{patch}"),
            Err(e) => e,
        }
    }

    fn ctx(t: &str) -> HunkLine {
        HunkLine::Context(t.into())
    }
    fn rem(t: &str) -> HunkLine {
        HunkLine::Remove(t.into())
    }
    fn add(t: &str) -> HunkLine {
        HunkLine::Add(t.into())
    }

    fn hunks(file: &FilePatch) -> &[Hunk] {
        match file {
            FilePatch::Update { hunks, .. } => hunks,
            other => panic!("not an update: {other:?}"),
        }
    }

    fn hunk(patch_line: usize, lines: Vec<HunkLine>) -> Hunk {
        Hunk {
            patch_line,
            contexts: Vec::new(),
            section: None,
            old_start: None,
            lines,
            end_of_file: false,
            old_missing_final_newline: false,
            new_missing_final_newline: false,
        }
    }

    // ---- The Codex envelope ----

    #[test]
    fn codex_adds_updates_with_a_move_and_deletes_in_one_envelope() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Add File: hello.txt",
            "+Hello world",
            "+",
            "+bye",
            "*** Update File: src/app.py",
            "*** Move to: src/main.py",
            "@@ def greet():",
            "-print(\"Hi\")",
            "+print(\"Hello, world!\")",
            "*** Delete File: obsolete.txt",
            "*** End Patch",
        ]);
        assert_eq!(patch.format, Format::Codex);
        assert_eq!(
            patch.files,
            vec![
                FilePatch::Add { path: "hello.txt".into(), content: "Hello world\n\nbye\n".into() },
                FilePatch::Update {
                    path: "src/app.py".into(),
                    move_to: Some("src/main.py".into()),
                    hunks: vec![Hunk {
                        contexts: vec!["def greet():".into()],
                        ..hunk(8, vec![rem("print(\"Hi\")"), add("print(\"Hello, world!\")")])
                    }],
                },
                FilePatch::Delete { path: "obsolete.txt".into(), expected: None },
            ]
        );
        assert_eq!(patch.files[1].path(), "src/app.py");
    }

    #[test]
    fn codex_context_headers_narrow_down_one_after_the_other() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Update File: pygorithm/searching/binary_search.py",
            "@@ class BaseClass",
            "@@     def search():",
            "-        pass",
            "+        raise NotImplementedError()",
            "",
            "@@ class Subclass",
            "@@     def search():",
            "-        pass",
            "+        raise NotImplementedError()",
            "*** End Patch",
        ]);
        let hunks = hunks(&patch.files[0]);
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].contexts, ["class BaseClass", "    def search():"]);
        assert_eq!(hunks[0].patch_line, 3);
        // The empty line before the next `@@` separates; it is no context line.
        assert_eq!(hunks[0].lines, [rem("        pass"), add("        raise NotImplementedError()")]);
        assert_eq!(hunks[1].contexts, ["class Subclass", "    def search():"]);
        assert_eq!(hunks[1].patch_line, 8);
        assert_eq!(hunks[1].old_text(), "        pass\n");
        assert_eq!(hunks[1].new_text(), "        raise NotImplementedError()\n");
    }

    #[test]
    fn codex_end_of_file_anchors_the_hunk_at_the_end() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Update File: README.md",
            "@@",
            " ## License",
            "-MIT",
            "+MIT OR Apache-2.0",
            "*** End of File",
            "@@ ## Usage",
            " run it",
            "+again",
            "*** End Patch",
        ]);
        let hunks = hunks(&patch.files[0]);
        assert!(hunks[0].end_of_file);
        assert!(!hunks[1].end_of_file);
        assert_eq!(hunks[0].old_text(), "## License\nMIT\n");
        assert_eq!(hunks[0].new_text(), "## License\nMIT OR Apache-2.0\n");
    }

    #[test]
    fn codex_first_hunk_may_omit_its_header() {
        let patch =
            ok(&["*** Begin Patch", "*** Update File: file2.py", " import foo", "+bar", "*** End Patch"]);
        assert_eq!(hunks(&patch.files[0]), [hunk(3, vec![ctx("import foo"), add("bar")])]);
    }

    #[test]
    fn codex_empty_line_inside_a_hunk_is_an_empty_context_line() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Update File: a.py",
            "@@",
            " def f():",
            "",
            "-    return 1",
            "+    return 2",
            "",
            "",
            "*** End Patch",
        ]);
        // Inside: an empty line of the file. At the end: separators, dropped.
        assert_eq!(
            hunks(&patch.files[0])[0].lines,
            [ctx("def f():"), ctx(""), rem("    return 1"), add("    return 2")]
        );
    }

    #[test]
    fn codex_heredocs_fences_and_spaces_around_markers_are_tolerated() {
        let body = ["*** Begin Patch", "*** Update File: a.txt", "@@", "-x", "+y", "*** End Patch"];
        let expected = ok(&body);
        // One line more before the envelope: hunks one patch line further.
        let shifted = ok(&[&[""][..], &body[..]].concat());
        let wrapped = |before: &str, after: &str| {
            let mut lines = vec![before];
            lines.extend(body);
            lines.push(after);
            ok(&lines)
        };
        assert_eq!(wrapped("apply_patch <<'EOF'", "EOF"), shifted);
        assert_eq!(wrapped("<<EOF", "EOF"), shifted);
        assert_eq!(wrapped("apply_patch <<\"PATCH\"", "PATCH"), shifted);
        assert_eq!(wrapped("```diff", "```"), shifted);
        let spaced = ok(&[
            "",
            "  *** Begin Patch  ",
            " *** Update File:  a.txt ",
            "@@",
            "-x",
            "+y",
            "\t*** End Patch\t",
            "",
        ]);
        assert_eq!(spaced, shifted);
        // Markers in another case, as some models write them.
        assert_eq!(
            ok(&["*** BEGIN PATCH", "*** update file: a.txt", "@@", "-x", "+y", "*** end patch"]),
            expected
        );
    }

    #[test]
    fn codex_crlf_patch_keeps_the_carriage_returns_in_the_lines() {
        let patch = "*** Begin Patch\r\n*** Add File: n.txt\r\n+one\r\n*** Update File: a.txt\r\n@@ fn main\r\n \
                     keep\r\n-x\r\n+y\r\n\r\n z\r\n*** End of File\r\n*** End Patch\r\n";
        let parsed = parse(patch).unwrap();
        assert_eq!(parsed.files[0], FilePatch::Add { path: "n.txt".into(), content: "one\r\n".into() });
        let hunk = &hunks(&parsed.files[1])[0];
        assert_eq!(hunk.contexts, ["fn main\r"]);
        assert_eq!(hunk.lines, [ctx("keep\r"), rem("x\r"), add("y\r"), ctx("\r"), ctx("z\r")]);
        assert!(hunk.end_of_file);
        assert_eq!(hunk.old_text(), "keep\r\nx\r\n\r\nz\r\n");
    }

    #[test]
    fn codex_without_end_patch_was_probably_cut_off() {
        let e = fails(&["*** Begin Patch", "*** Update File: a.txt", "@@", "-x", "+y"]);
        assert_eq!(e.kind, PatchErrorKind::Truncated);
        assert_eq!(e.line, 5);
        assert!(e.message.contains("cut off by your output limit"), "{e}");
        // A heredoc's end does not stand in for the envelope's.
        let e = fails(&["<<'EOF'", "*** Begin Patch", "*** Add File: a.txt", "+x", "EOF"]);
        assert_eq!(e.kind, PatchErrorKind::Truncated);
    }

    #[test]
    fn codex_text_after_end_patch_is_refused() {
        let e =
            fails(&["*** Begin Patch", "*** Delete File: a.txt", "*** End Patch", "Done! The file is gone."]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Syntax, 4));
        assert!(e.message.contains("text after `*** End Patch` (patch line 3)"), "{e}");
    }

    #[test]
    fn codex_envelopes_one_after_the_other_read_as_one() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Delete File: a.txt",
            "*** End Patch",
            "",
            "*** Begin Patch",
            "*** Delete File: b.txt",
            "*** End Patch",
        ]);
        assert_eq!(patch.files.len(), 2);
    }

    #[test]
    fn codex_file_operation_before_begin_patch_is_refused() {
        let e = fails(&["*** Update File: a.txt", "@@", "-x", "+y", "*** End Patch"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Syntax, 1));
        assert!(e.message.contains("`*** Begin Patch`"), "{e}");
        let e = fails(&["*** End Patch"]);
        assert!(e.message.contains("without `*** Begin Patch`"), "{e}");
    }

    #[test]
    fn codex_line_without_prefix_in_a_hunk_names_the_hunk_and_what_to_do() {
        let e = fails(&[
            "*** Begin Patch",
            "*** Update File: src/app.js",
            "@@ function main() {",
            " const a = 1;",
            "-const b = 2;",
            "+const b = 3;",
            "foo",
            "*** End Patch",
        ]);
        assert_eq!(
            e.to_string(),
            "patch line 7: expected a line starting with ' ', '-' or '+' inside hunk 1 of \"src/app.js\", \
             found \"foo\": prefix context lines with a space"
        );
    }

    #[test]
    fn codex_added_file_lines_need_their_plus() {
        let e = fails(&["*** Begin Patch", "*** Add File: a.txt", "+one", "two", "*** End Patch"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Syntax, 4));
        assert!(e.message.contains("every line of an added file starts with '+'"), "{e}");
        // An empty added file, and empty lines that lost their '+' between lines.
        let patch = ok(&[
            "*** Begin Patch",
            "*** Add File: empty.txt",
            "*** Add File: b.txt",
            "+one",
            "",
            "+three",
            "",
            "*** End Patch",
        ]);
        assert_eq!(patch.files[0], FilePatch::Add { path: "empty.txt".into(), content: String::new() });
        assert_eq!(patch.files[1], FilePatch::Add { path: "b.txt".into(), content: "one\n\nthree\n".into() });
    }

    #[test]
    fn codex_no_newline_marker_ends_the_added_file_and_the_hunk() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Add File: a.txt",
            "+last",
            "\\ No newline at end of file",
            "*** Update File: b.txt",
            "@@",
            "-x",
            "+y",
            "\\ No newline at end of file",
            "*** End Patch",
        ]);
        assert_eq!(patch.files[0], FilePatch::Add { path: "a.txt".into(), content: "last".into() });
        let hunk = &hunks(&patch.files[1])[0];
        assert!(hunk.new_missing_final_newline && !hunk.old_missing_final_newline && hunk.end_of_file);
        assert_eq!(hunk.new_text(), "y");
        assert_eq!(hunk.old_text(), "x\n");
    }

    #[test]
    fn codex_update_needs_a_hunk_or_a_move() {
        let e = fails(&["*** Begin Patch", "*** Update File: test.py", "*** End Patch"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::NoChange, 2));
        let patch = ok(&["*** Begin Patch", "*** Update File: a.py", "*** Move to: b/a.py", "*** End Patch"]);
        assert_eq!(
            patch.files,
            [FilePatch::Update { path: "a.py".into(), move_to: Some("b/a.py".into()), hunks: vec![] }]
        );
        // A move to the same path is no move.
        let e = fails(&["*** Begin Patch", "*** Update File: a.py", "*** Move to: ./a.py", "*** End Patch"]);
        assert_eq!(e.kind, PatchErrorKind::NoChange);
    }

    #[test]
    fn codex_hunk_without_lines_is_refused() {
        let e = fails(&["*** Begin Patch", "*** Update File: a.py", "@@ def f", "@@@", "*** End Patch"]);
        assert_eq!(e.kind, PatchErrorKind::Syntax);
        let e = fails(&["*** Begin Patch", "*** Update File: a.py", "@@", "", "@@", "-x", "*** End Patch"]);
        assert_eq!(e.line, 3);
        assert!(e.message.contains("hunk 1 of \"a.py\" has no lines"), "{e}");
    }

    #[test]
    fn codex_deleted_file_takes_no_lines() {
        let e = fails(&["*** Begin Patch", "*** Delete File: a.txt", "-gone", "*** End Patch"]);
        assert_eq!(e.line, 3);
        assert!(e.message.contains("`*** Delete File: a.txt` takes no lines"), "{e}");
    }

    #[test]
    fn codex_end_of_file_must_close_a_hunk() {
        let e = fails(&["*** Begin Patch", "*** Update File: a", "*** End of File", "*** End Patch"]);
        assert_eq!(e.line, 3);
        let e = fails(&[
            "*** Begin Patch",
            "*** Update File: a",
            "@@",
            "-x",
            "*** End of File",
            "+y",
            "*** End Patch",
        ]);
        assert_eq!(e.line, 6);
        assert!(e.message.contains("start a new hunk with `@@`"), "{e}");
    }

    #[test]
    fn codex_misplaced_move_and_hunk_before_any_file_are_explained() {
        let e =
            fails(&["*** Begin Patch", "*** Update File: a", "@@", "-x", "*** Move to: b", "*** End Patch"]);
        assert!(e.message.contains("must come right after"), "{e}");
        let e = fails(&["*** Begin Patch", "@@", "-x", "*** End Patch"]);
        assert!(e.message.contains("put `*** Update File: <path>` before it"), "{e}");
        let e = fails(&["*** Begin Patch", "*** Update File: a", "@@", "-x", "*** Frob", "*** End Patch"]);
        assert_eq!(e.line, 5);
        assert!(e.message.contains("the markers are"), "{e}");
        // Blank lines before the move are spacing.
        let patch = ok(&[
            "*** Begin Patch",
            "*** Update File: a",
            "",
            "*** Move to: b",
            "",
            "@@",
            "-x",
            "*** End Patch",
        ]);
        assert_eq!(
            patch.files[0],
            FilePatch::Update {
                path: "a".into(),
                move_to: Some("b".into()),
                hunks: vec![hunk(6, vec![rem("x")])],
            }
        );
    }

    #[test]
    fn codex_unified_hunk_headers_give_a_line_hint() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Update File: a.rs",
            "@@ -12,3 +12,4 @@ fn main() {",
            " a",
            "+b",
            "@@ -30,0 +31 @@",
            "+c",
            "*** End Patch",
        ]);
        let hunks = hunks(&patch.files[0]);
        assert_eq!(hunks[0].old_start, Some(12));
        assert_eq!(hunks[0].section.as_deref(), Some("fn main() {"));
        assert!(hunks[0].contexts.is_empty());
        assert_eq!(hunks[1].old_start, Some(31));
        let e = fails(&[
            "*** Begin Patch",
            "*** Update File: a.rs",
            "--- a/a.rs",
            "+++ b/a.rs",
            "@@ -1 +1 @@",
            "-x",
            "+y",
            "*** End Patch",
        ]);
        assert_eq!(e.line, 3);
        assert!(e.message.contains("`---`/`+++` file header inside the Codex patch"), "{e}");
    }

    // ---- Unified diffs ----

    #[test]
    fn git_diff_of_a_modified_file() {
        let patch = ok(&[
            "diff --git a/src/app.js b/src/app.js",
            "index 3b18e51..a9c3f2d 100644",
            "--- a/src/app.js",
            "+++ b/src/app.js",
            "@@ -1,5 +1,6 @@",
            " const express = require('express');",
            "+const helmet = require('helmet');",
            " ",
            " const app = express();",
            " const port = 3000;",
            " ",
            "@@ -10,7 +11,7 @@ app.get('/', (req, res) => {",
            " });",
            " ",
            " app.listen(port, () => {",
            "-  console.log(`listening on ${port}`);",
            "+  console.log(`app listening on port ${port}`);",
            " });",
            " ",
            " module.exports = app;",
        ]);
        assert_eq!(patch.format, Format::Unified);
        let [FilePatch::Update { path, move_to: None, hunks }] = &patch.files[..] else {
            panic!("{patch:?}")
        };
        assert_eq!(path, "src/app.js");
        assert_eq!(hunks.len(), 2);
        assert_eq!(
            (hunks[0].patch_line, hunks[0].old_start, hunks[0].section.as_deref()),
            (5, Some(1), None)
        );
        assert_eq!(hunks[0].old_len(), 5);
        assert_eq!(hunks[0].new_len(), 6);
        assert_eq!(hunks[1].patch_line, 12);
        assert_eq!(hunks[1].old_start, Some(10));
        assert_eq!(hunks[1].section.as_deref(), Some("app.get('/', (req, res) => {"));
        assert!(hunks[1].contexts.is_empty());
        assert_eq!(
            hunks[1].new_text(),
            "});\n\napp.listen(port, () => {\n  console.log(`app listening on port ${port}`);\n});\n\nmodule.exports = app;\n"
        );
        assert!(!hunks[1].end_of_file);
    }

    #[test]
    fn git_diff_adds_deletes_and_renames() {
        let patch = ok(&[
            "diff --git a/docs/NOTES.md b/docs/NOTES.md",
            "new file mode 100644",
            "index 0000000..e69b1b2",
            "--- /dev/null",
            "+++ b/docs/NOTES.md",
            "@@ -0,0 +1,3 @@",
            "+# Notes",
            "+",
            "+Run `make test` before pushing.",
            "diff --git a/old.txt b/old.txt",
            "deleted file mode 100644",
            "index 7898192..0000000",
            "--- a/old.txt",
            "+++ /dev/null",
            "@@ -1,2 +0,0 @@",
            "-first",
            "-second",
            "diff --git a/lib/util.py b/lib/helpers.py",
            "similarity index 100%",
            "rename from lib/util.py",
            "rename to lib/helpers.py",
            "diff --git a/src/main.rs b/src/cli/main.rs",
            "similarity index 91%",
            "rename from src/main.rs",
            "rename to src/cli/main.rs",
            "index 1111111..2222222 100644",
            "--- a/src/main.rs",
            "+++ b/src/cli/main.rs",
            "@@ -1,3 +1,3 @@",
            " fn main() {",
            "-    println!(\"hi\");",
            "+    println!(\"hello\");",
            " }",
            "\\ No newline at end of file",
            "diff --git a/empty.txt b/empty.txt",
            "new file mode 100644",
            "index 0000000..e69de29",
            "diff --git a/gone.txt b/gone.txt",
            "deleted file mode 100644",
            "index e69de29..0000000",
        ]);
        assert_eq!(patch.files.len(), 6);
        assert_eq!(
            patch.files[0],
            FilePatch::Add {
                path: "docs/NOTES.md".into(),
                content: "# Notes\n\nRun `make test` before pushing.\n".into()
            }
        );
        assert_eq!(
            patch.files[1],
            FilePatch::Delete { path: "old.txt".into(), expected: Some("first\nsecond\n".into()) }
        );
        assert_eq!(
            patch.files[2],
            FilePatch::Update {
                path: "lib/util.py".into(),
                move_to: Some("lib/helpers.py".into()),
                hunks: vec![]
            }
        );
        let FilePatch::Update { path, move_to, hunks } = &patch.files[3] else { panic!() };
        assert_eq!((path.as_str(), move_to.as_deref()), ("src/main.rs", Some("src/cli/main.rs")));
        let hunk = &hunks[0];
        assert!(hunk.old_missing_final_newline && hunk.new_missing_final_newline && hunk.end_of_file);
        assert_eq!(hunk.old_text(), "fn main() {\n    println!(\"hi\");\n}");
        assert_eq!(hunk.new_text(), "fn main() {\n    println!(\"hello\");\n}");
        assert_eq!(patch.files[4], FilePatch::Add { path: "empty.txt".into(), content: String::new() });
        assert_eq!(
            patch.files[5],
            FilePatch::Delete { path: "gone.txt".into(), expected: Some(String::new()) }
        );
    }

    #[test]
    fn diff_u_with_timestamps() {
        let patch = ok(&[
            "--- hello.c\t2024-03-01 10:15:02.123456789 +0100",
            "+++ hello.c\t2024-03-01 10:16:40.987654321 +0100",
            "@@ -1,6 +1,6 @@",
            " #include <stdio.h>",
            " ",
            " int main(void)",
            " {",
            "-    printf(\"Hello\\n\");",
            "+    printf(\"Hello, world\\n\");",
            "     return 0;",
        ]);
        let [FilePatch::Update { path, hunks, .. }] = &patch.files[..] else { panic!() };
        assert_eq!(path, "hello.c");
        assert_eq!(hunks[0].lines[4], rem("    printf(\"Hello\\n\");"));
        // Timestamps after spaces instead of a tab, as models sometimes retype them.
        let patch = ok(&[
            "--- a/x y.txt 2024-03-01 10:15:02 +0000",
            "+++ b/x y.txt 2024-03-01 10:16:40 +0000",
            "@@ -1 +1 @@",
            "-a",
            "+b",
        ]);
        assert_eq!(patch.files[0].path(), "x y.txt");
    }

    #[test]
    fn diff_new_file_epoch_timestamp_means_absent() {
        // `diff -Nu a b` names a missing file and dates it at the epoch.
        let patch = ok(&[
            "diff -Nu a/added.txt b/added.txt",
            "--- a/added.txt\t1970-01-01 00:00:00.000000000 +0000",
            "+++ b/added.txt\t2024-03-01 10:16:40.987654321 +0000",
            "@@ -0,0 +1,2 @@",
            "+one",
            "+two",
            "diff -Nu a/removed.txt b/removed.txt",
            "--- a/removed.txt\t2024-03-01 10:16:40.987654321 +0100",
            "+++ b/removed.txt\t1970-01-01 01:00:00.000000000 +0100",
            "@@ -1 +0,0 @@",
            "-gone",
        ]);
        assert_eq!(
            patch.files,
            [
                FilePatch::Add { path: "added.txt".into(), content: "one\ntwo\n".into() },
                FilePatch::Delete { path: "removed.txt".into(), expected: Some("gone\n".into()) },
            ]
        );
    }

    #[test]
    fn no_newline_at_end_of_file_on_either_side() {
        let one = |marker_after: &str| {
            let mut lines = vec!["--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", " a", "-b"];
            if marker_after == "old" {
                lines.push("\\ No newline at end of file");
            }
            lines.push("+c");
            if marker_after == "new" {
                lines.push("\\ No newline at end of file");
            }
            hunks(&ok(&lines).files[0])[0].clone()
        };
        let old = one("old");
        assert!(old.old_missing_final_newline && !old.new_missing_final_newline && old.end_of_file);
        assert_eq!((old.old_text(), old.new_text()), ("a\nb".to_string(), "a\nc\n".to_string()));
        let new = one("new");
        assert!(!new.old_missing_final_newline && new.new_missing_final_newline && new.end_of_file);
        assert_eq!((new.old_text(), new.new_text()), ("a\nb\n".to_string(), "a\nc".to_string()));
        // A new file without a final newline.
        let patch =
            ok(&["--- /dev/null", "+++ b/n", "@@ -0,0 +1 @@", "+only", "\\ No newline at end of file"]);
        assert_eq!(patch.files[0], FilePatch::Add { path: "n".into(), content: "only".into() });
        // The marker must be at the end of its side.
        let e =
            fails(&["--- a/f", "+++ b/f", "@@ -1,2 +1 @@", "-a", "\\ No newline at end of file", "-b", "+c"]);
        assert_eq!(e.line, 6);
        assert!(e.message.contains("follows `\\ No newline at end of file`"), "{e}");
    }

    #[test]
    fn counts_default_to_one_and_insertions_point_after_their_line() {
        let patch = ok(&[
            "--- a/f",
            "+++ b/f",
            "@@ -0,0 +1 @@",
            "+top",
            "@@ -3 +4 @@",
            "-x",
            "+y",
            "@@ -7,0 +8,2 @@",
            "+after seven",
            "+and more",
        ]);
        let starts: Vec<_> = hunks(&patch.files[0]).iter().map(|h| h.old_start).collect();
        assert_eq!(starts, [Some(1), Some(3), Some(8)]);
        let e = fails(&["--- a/f", "+++ b/f", "@@ -0,2 +1,2 @@", "-x", "-y", "+a", "+b"]);
        assert!(e.message.contains("lines count from 1"), "{e}");
    }

    #[test]
    fn a_hunk_shorter_than_its_header_is_refused_with_its_counts() {
        let e = fails(&[
            "--- a/src/a.js",
            "+++ b/src/a.js",
            "@@ -1,2 +1,2 @@",
            "-x",
            "+y",
            " z",
            "@@ -10,4 +10,5 @@",
            " a",
            "-b",
            "+c",
            "+d",
            " e",
            "@@ -20 +21 @@",
            "-q",
            "+r",
        ]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::LineCount, 13));
        assert!(
            e.message.starts_with(
                "hunk 2 of \"src/a.js\" (patch line 7) has 3 old and 4 new lines where its header \
                 \"@@ -10,4 +10,5 @@\" announces 4 and 5, and the next hunk starts: recount"
            ),
            "{e}"
        );
        // The text ends inside a hunk: a miscount, or cut off.
        let e = fails(&["--- a/f", "+++ b/f", "@@ -1,3 +1,3 @@", " a", "-b", "+c"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::LineCount, 6));
        assert!(e.message.contains("the patch ends there"), "{e}");
        // A line that is not a hunk line where the count wants more.
        let e = fails(&["--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", " a", "b", "-c", "+d"]);
        assert!(e.message.contains("prefix context lines with a space"), "{e}");
        // An added line where the header has no room for one.
        let e = fails(&["--- a/f", "+++ b/f", "@@ -1,2 +1,1 @@", "-a", "+b", "+c", " d"]);
        assert_eq!(e.line, 6);
        assert!(e.message.contains("one new line more"), "{e}");
    }

    #[test]
    fn a_hunk_longer_than_its_header_is_refused() {
        let e = fails(&["--- a/f", "+++ b/f", "@@ -1 +1 @@", "-a", "+b", " c", "-d"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::LineCount, 6));
        assert!(e.message.contains("already has the 1 old and 1 new lines its header announces"), "{e}");
    }

    #[test]
    fn an_empty_context_line_that_lost_its_space_counts() {
        let patch = ok(&["--- a/f", "+++ b/f", "@@ -1,3 +1,3 @@", " a", "", "-b", "+c", ""]);
        assert_eq!(hunks(&patch.files[0])[0].lines, [ctx("a"), ctx(""), rem("b"), add("c")]);
    }

    #[test]
    fn crlf_unified_diff_keeps_carriage_returns_in_the_lines() {
        let patch = "diff --git a/w.txt b/w.txt\r\n--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1,2 +1,2 @@ sec\r\n a\r\n-b\r\n+c\r\n";
        let parsed = parse(patch).unwrap();
        let FilePatch::Update { path, hunks, .. } = &parsed.files[0] else { panic!() };
        assert_eq!(path, "w.txt");
        assert_eq!(hunks[0].section.as_deref(), Some("sec"));
        assert_eq!(hunks[0].lines, [ctx("a\r"), rem("b\r"), add("c\r")]);
    }

    #[test]
    fn bare_at_at_hunks_in_a_unified_diff_run_to_the_next_hunk() {
        let patch =
            ok(&["--- a/f.py", "+++ b/f.py", "@@", " a", "-b", "+c", "", "@@ def g():", "-x", "+y", ""]);
        let hunks = hunks(&patch.files[0]);
        assert_eq!(hunks[0], hunk(3, vec![ctx("a"), rem("b"), add("c")]));
        assert_eq!(hunks[1].contexts, ["def g():"]);
        assert_eq!(hunks[1].old_start, None);
        let e = fails(&["--- a/f", "+++ b/f", "@@ -1,x +1 @@", "-a", "+b"]);
        assert!(e.message.contains("malformed hunk header"), "{e}");
    }

    #[test]
    fn binary_patches_are_refused() {
        for line in ["Binary files a/logo.png and b/logo.png differ", "GIT binary patch"] {
            let e = fails(&["diff --git a/logo.png b/logo.png", "index 1..2 100644", line, "literal 5"]);
            assert_eq!((e.kind, e.line), (PatchErrorKind::Binary, 3));
            assert!(e.message.contains("binary patches are not supported"), "{e}");
        }
        let e = fails(&["Binary files /dev/null and b/x.bin differ"]);
        assert_eq!(e.kind, PatchErrorKind::Binary);
    }

    #[test]
    fn quoted_names_are_unquoted() {
        let patch = ok(&[
            "diff --git \"a/caf\\303\\251.txt\" \"b/caf\\303\\251.txt\"",
            "index 1..2 100644",
            "--- \"a/caf\\303\\251.txt\"",
            "+++ \"b/caf\\303\\251.txt\"",
            "@@ -1 +1 @@",
            "-a",
            "+b",
            "diff --git \"a/tab\\there\" \"b/new \\\"name\\\"\"",
            "similarity index 100%",
            "rename from \"tab\\there\"",
            "rename to \"new \\\"name\\\"\"",
        ]);
        assert_eq!(patch.files[0].path(), "café.txt");
        assert_eq!(
            patch.files[1],
            FilePatch::Update {
                path: "tab\there".into(),
                move_to: Some("new \"name\"".into()),
                hunks: vec![]
            }
        );
        let e = fails(&["--- \"a/x", "+++ b/x", "@@ -1 +1 @@", "-a", "+b"]);
        assert_eq!(e.kind, PatchErrorKind::Path);
        let e = fails(&["--- \"a/\\377\"", "+++ \"b/\\377\"", "@@ -1 +1 @@", "-a", "+b"]);
        assert!(e.message.contains("is not UTF-8"), "{e}");
    }

    #[test]
    fn git_header_names_without_other_headers() {
        // Names with spaces: the same path on both sides splits in the middle.
        let patch = ok(&[
            "diff --git a/my notes.txt b/my notes.txt",
            "new file mode 100644",
            "index 0000000..e69de29",
        ]);
        assert_eq!(patch.files[0], FilePatch::Add { path: "my notes.txt".into(), content: String::new() });
        // --no-prefix.
        let patch = ok(&["diff --git x.txt x.txt", "deleted file mode 100644"]);
        assert_eq!(patch.files[0], FilePatch::Delete { path: "x.txt".into(), expected: Some(String::new()) });
    }

    #[test]
    fn format_patch_mail_and_signature_are_ignored() {
        let patch = ok(&[
            "From 1a2b3c4d5e6f Mon Sep 17 00:00:00 2001",
            "From: Dev <dev@example.com>",
            "Date: Tue, 5 Mar 2024 12:00:00 +0000",
            "Subject: [PATCH] Fix typo",
            "",
            "---",
            " README.md | 2 +-",
            " 1 file changed, 1 insertion(+), 1 deletion(-)",
            "",
            "diff --git a/README.md b/README.md",
            "index 1234567..89abcde 100644",
            "--- a/README.md",
            "+++ b/README.md",
            "@@ -1 +1 @@",
            "-Helo",
            "+Hello",
            "-- ",
            "2.43.0",
            "",
        ]);
        assert_eq!(patch.files.len(), 1);
        assert_eq!(hunks(&patch.files[0])[0].lines, [rem("Helo"), add("Hello")]);
    }

    #[test]
    fn several_traditional_files_in_one_diff() {
        let patch = ok(&[
            "Index: a.txt",
            "===================================================================",
            "--- a.txt",
            "+++ a.txt",
            "@@ -1 +1 @@",
            "-1",
            "+one",
            "--- b.txt",
            "+++ b.txt",
            "@@ -1 +1,2 @@",
            " 2",
            "+two",
        ]);
        let paths: Vec<_> = patch.files.iter().map(FilePatch::path).collect();
        assert_eq!(paths, ["a.txt", "b.txt"]);
    }

    #[test]
    fn mode_changes_and_copies_are_not_supported() {
        let e = fails(&["diff --git a/run.sh b/run.sh", "old mode 100644", "new mode 100755"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Unsupported, 1));
        assert!(e.message.contains("only changes the file's mode"), "{e}");
        let e = fails(&["diff --git a/a b/b", "similarity index 100%", "copy from a", "copy to b"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Unsupported, 3));
        // A mode change with content: the content is the change.
        let patch = ok(&[
            "diff --git a/r b/r",
            "old mode 100644",
            "new mode 100755",
            "--- a/r",
            "+++ b/r",
            "@@ -1 +1 @@",
            "-a",
            "+b",
        ]);
        assert_eq!(hunks(&patch.files[0]).len(), 1);
    }

    #[test]
    fn a_plain_diff_naming_two_files_is_refused() {
        let e = fails(&["--- src/old.py", "+++ src/new.py", "@@ -1 +1 @@", "-a", "+b"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Syntax, 1));
        assert!(e.message.contains("cannot rename"), "{e}");
    }

    #[test]
    fn unified_structure_errors() {
        let e = fails(&["Here is the fix:", "@@ -1 +1 @@", "-a", "+b"]);
        assert_eq!(e.line, 2);
        assert!(e.message.contains("has no file before it"), "{e}");
        let e = fails(&["--- a/f", "+++ b/f"]);
        assert_eq!(e.kind, PatchErrorKind::NoChange);
        let e = fails(&["--- a/f", "+++ b/f", "-a", "+b"]);
        assert!(e.message.contains("expected a hunk header"), "{e}");
        let e = fails(&["--- /dev/null", "+++ /dev/null", "@@ -0,0 +1 @@", "+a"]);
        assert!(e.message.contains("both sides"), "{e}");
        let e = fails(&["--- /dev/null", "+++ b/new", "@@ -1 +1 @@", "-a", "+b"]);
        assert!(e.message.contains("a new file's lines all start with '+'"), "{e}");
        let e = fails(&["--- a/f", "+++ b/f", "@@ -1,0 +1,0 @@"]);
        assert!(e.message.contains("announces no lines"), "{e}");
        let e = fails(&["--- a/f", "+++ b/f", "@@", " a", "b", "+c"]);
        assert!(e.message.contains("is outside any hunk"), "{e}");
    }

    #[test]
    fn context_diffs_are_not_supported() {
        let e = fails(&["*** a.txt\t2024-01-01", "--- a.txt\t2024-01-02", "***************", "*** 1 ****"]);
        assert_eq!(e.kind, PatchErrorKind::Unsupported);
    }

    // ---- Both formats ----

    #[test]
    fn empty_patches_and_patches_without_files_are_refused() {
        for empty in ["", "\n", "  \n\t\n", "\u{feff}"] {
            assert_eq!(parse(empty).unwrap_err().kind, PatchErrorKind::Empty, "{empty:?}");
        }
        let e = parse("please apply my change").unwrap_err();
        assert_eq!((e.kind, e.line), (PatchErrorKind::NoFiles, 1));
        let e = parse("*** Begin Patch\\n*** Delete File: a\\n*** End Patch").unwrap_err();
        assert_eq!(e.kind, PatchErrorKind::NoFiles);
        assert!(e.message.contains("arrived as the two characters `\\n`"), "{e}");
        let e = fails(&["*** Begin Patch", "", "*** End Patch"]);
        assert_eq!(e.kind, PatchErrorKind::NoFiles);
    }

    #[test]
    fn empty_and_absolute_paths_are_refused() {
        let e = fails(&["*** Begin Patch", "*** Delete File: ", "*** End Patch"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Path, 2));
        assert!(e.message.contains("path is empty"), "{e}");
        for path in ["/etc/passwd", "~/x", "C:\\x", "\\\\server\\x"] {
            let e =
                parse(&format!("*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch\n")).unwrap_err();
            assert_eq!(e.kind, PatchErrorKind::Path, "{path}");
            assert!(e.message.contains("is an absolute path"), "{e}");
        }
        let e = fails(&[
            "--- /etc/hosts\t2024-01-01 00:00:00",
            "+++ /etc/hosts\t2024-01-01 00:00:01",
            "@@ -1 +1 @@",
            "-a",
            "+b",
        ]);
        assert_eq!(e.kind, PatchErrorKind::Path);
        // `./` is only noise.
        let patch = ok(&["*** Begin Patch", "*** Delete File: ./src/x.rs", "*** End Patch"]);
        assert_eq!(patch.files[0].path(), "src/x.rs");
    }

    #[test]
    fn a_path_touched_twice_is_refused_naming_both_lines() {
        let e = fails(&[
            "*** Begin Patch",
            "*** Update File: src/a.rs",
            "@@",
            "-x",
            "+y",
            "*** Update File: src/a.rs",
            "@@",
            "-z",
            "+w",
            "*** End Patch",
        ]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Duplicate, 6));
        assert!(
            e.message.starts_with("\"src/a.rs\" is touched twice in one patch (patch lines 2 and 6)"),
            "{e}"
        );
        // A rename's destination counts.
        let e = fails(&[
            "*** Begin Patch",
            "*** Add File: b.rs",
            "+x",
            "*** Update File: a.rs",
            "*** Move to: b.rs",
            "*** End Patch",
        ]);
        assert_eq!(e.kind, PatchErrorKind::Duplicate);
        let e = fails(&[
            "--- a/f",
            "+++ b/f",
            "@@ -1 +1 @@",
            "-a",
            "+b",
            "--- a/f",
            "+++ b/f",
            "@@ -5 +5 @@",
            "-c",
            "+d",
        ]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Duplicate, 6));
    }

    #[test]
    fn old_and_new_text_end_each_line_unless_the_side_has_no_final_newline() {
        let mut h = hunk(1, vec![ctx("a"), rem("b"), add("c"), add("d")]);
        assert_eq!((h.old_text(), h.new_text()), ("a\nb\n".into(), "a\nc\nd\n".into()));
        h.new_missing_final_newline = true;
        assert_eq!(h.new_text(), "a\nc\nd");
        let empty = hunk(1, vec![add("x")]);
        assert_eq!((empty.old_text(), empty.old_len()), (String::new(), 0));
    }

    #[test]
    fn long_lines_are_cut_in_messages() {
        let long = "y".repeat(500);
        let e =
            parse(&format!("*** Begin Patch\n*** Update File: a\n@@\n{long}\n*** End Patch\n")).unwrap_err();
        assert!(e.message.len() < 400, "{e}");
        assert!(e.message.contains("…"), "{e}");
    }

    // ---- Properties ----

    /// Applies hunks at their `old_start`, as an applier that trusted the numbers would.
    fn splice(old: &str, at: &[usize], hunks: &[Hunk]) -> Option<String> {
        let lines: Vec<&str> = old.split_inclusive('\n').collect();
        let mut out = String::new();
        let mut next = 0;
        for (start, hunk) in at.iter().zip(hunks) {
            let from = start.checked_sub(1)?;
            let to = from + hunk.old_len();
            if from < next || to > lines.len() || lines[from..to].concat() != hunk.old_text() {
                return None;
            }
            out.push_str(&lines[next..from].concat());
            out.push_str(&hunk.new_text());
            next = to;
        }
        out.push_str(&lines[next..].concat());
        Some(out)
    }

    /// A Codex envelope for the same hunks (it cannot say "no newline at end of file").
    fn codex_envelope(path: &str, hunks: &[Hunk]) -> String {
        let mut text = format!("*** Begin Patch\n*** Update File: {path}\n");
        for hunk in hunks {
            text.push_str("@@\n");
            for line in &hunk.lines {
                let prefix = match line {
                    HunkLine::Context(_) => ' ',
                    HunkLine::Remove(_) => '-',
                    HunkLine::Add(_) => '+',
                };
                text.push(prefix);
                text.push_str(line.text());
                text.push('\n');
            }
        }
        text.push_str("*** End Patch\n");
        text
    }

    fn joined(lines: &[String], eol: &str, final_eol: bool) -> String {
        let mut text = lines.join(eol);
        if final_eol && !text.is_empty() {
            text.push_str(eol);
        }
        text
    }

    const LINE: &str = "(a|b|c|é||  |\\*\\*\\* End Patch|\\*\\*\\* End of File|@@ x|-a|\\+b|-- x|\\\\ x|```)";

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// A diff that `similar` writes parses back into hunks that, spliced at their line
        /// numbers, turn the old text into the new one; a Codex envelope of the same hunks
        /// parses into the same lines.
        #[test]
        fn generated_diffs_round_trip(
            old_lines in proptest::collection::vec(LINE, 0..24),
            edits in proptest::collection::vec((0usize..24, 0usize..3, proptest::collection::vec(LINE, 0..3)), 0..4),
            old_final_eol in proptest::bool::ANY,
            new_final_eol in proptest::bool::ANY,
            crlf in proptest::bool::ANY,
        ) {
            let mut new_lines = old_lines.clone();
            for (at, removed, inserted) in edits {
                let at = at.min(new_lines.len());
                let removed = removed.min(new_lines.len() - at);
                new_lines.splice(at..at + removed, inserted);
            }
            let eol = if crlf { "\r\n" } else { "\n" };
            let old = joined(&old_lines, eol, old_final_eol);
            let mut new = joined(&new_lines, eol, new_final_eol);
            if new == old {
                // Rejecting equal texts instead would reject one case in six.
                new.push('z');
            }
            let diff = similar::TextDiff::from_lines(&old, &new).unified_diff().header("a/f", "b/f").to_string();
            let patch = parse(&diff).map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}\n{diff}")))?;
            proptest::prop_assert_eq!(patch.format, Format::Unified);
            proptest::prop_assert_eq!(patch.files.len(), 1);
            let FilePatch::Update { path, move_to: None, hunks } = &patch.files[0] else {
                return Err(proptest::test_runner::TestCaseError::fail(format!("{patch:?}")));
            };
            proptest::prop_assert_eq!(path, "f");
            let starts: Vec<usize> = hunks.iter().map(|h| h.old_start.unwrap()).collect();
            proptest::prop_assert_eq!(splice(&old, &starts, hunks), Some(new.clone()), "{}", diff);

            let no_newline_marker = hunks.iter().any(|h| h.old_missing_final_newline || h.new_missing_final_newline);
            if !no_newline_marker {
                let envelope = codex_envelope("f", hunks);
                let codex = parse(&envelope).map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}\n{envelope}")))?;
                proptest::prop_assert_eq!(codex.format, Format::Codex);
                let codex_hunks = match &codex.files[..] {
                    [FilePatch::Update { hunks, .. }] => hunks,
                    other => return Err(proptest::test_runner::TestCaseError::fail(format!("{other:?}"))),
                };
                let lines = |hs: &[Hunk]| hs.iter().map(|h| h.lines.clone()).collect::<Vec<_>>();
                proptest::prop_assert_eq!(lines(codex_hunks), lines(hunks), "{}", envelope);
                proptest::prop_assert_eq!(splice(&old, &starts, codex_hunks), Some(new), "{}", envelope);
            }
        }

        /// Any text at all: an answer, never a panic.
        #[test]
        fn parse_never_panics_on_any_text(text in "\\PC*") {
            let _ = parse(&text);
        }

        /// Patch-shaped soup, where the parser's branches are: an answer, never a panic, and
        /// an error's line is inside the patch.
        #[test]
        fn parse_never_panics_on_patch_shaped_text(
            lines in proptest::collection::vec(
                "(\\*\\*\\* Begin Patch|\\*\\*\\* End Patch|\\*\\*\\* Add File: a|\\*\\*\\* Update File: b|\
                 \\*\\*\\* Delete File: c|\\*\\*\\* Move to: d|\\*\\*\\* End of File|@@|@@ x|@@ -1,2 \\+1 @@|\
                 @@ -0,0 \\+1 @@|@@ -3 \\+3,0 @@ s|--- a/f|\\+\\+\\+ b/f|--- /dev/null|\\+\\+\\+ /dev/null|\
                 diff --git a/f b/f|diff --git \"a/\\\\303\\\\251\" b/e|new file mode 100644|deleted file mode 100644|\
                 rename from x|rename to y|old mode 1|\\\\ No newline at end of file| a|-a|\\+a||\r|x|<<'EOF'|EOF|```)",
                0..30,
            ),
            crlf in proptest::bool::ANY,
        ) {
            let text = lines.join(if crlf { "\r\n" } else { "\n" });
            if let Err(e) = parse(&text) {
                proptest::prop_assert!(e.line >= 1 && e.line <= lines.len().max(1), "{e} in {} lines", lines.len());
            }
        }
    }
}
