//! A hunk: the unit both formats reduce a file's change to, and how one is read.
//!
//! Apart from the two formats because it is what they share: [`Hunk`] and [`HunkLine`] are
//! what the applier consumes, `Building` collects a hunk's lines whichever envelope they come
//! in (the separators, `\ No newline at end of file`), and a unified `@@ -l,n +l,n @@` header
//! is read here because Codex patches carry them too.

use super::{PatchError, PatchErrorKind, blank_text, error, show};

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

    pub(super) fn in_old(&self) -> bool {
        !matches!(self, HunkLine::Add(_))
    }

    pub(super) fn in_new(&self) -> bool {
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

/// A hunk being read, with what is needed to finish it.
pub(super) struct Building {
    pub(super) hunk: Hunk,
    /// Empty lines without a prefix at the end so far: separators if nothing follows them.
    unprefixed_tail: usize,
}

impl Building {
    pub(super) fn new(
        index: usize,
        contexts: Vec<String>,
        old_start: Option<usize>,
        section: Option<String>,
    ) -> Self {
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
    pub(super) fn push(&mut self, line: HunkLine, index: usize) -> Result<(), PatchError> {
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
    pub(super) fn push_blank(&mut self, line: &str) {
        if self.hunk.old_missing_final_newline || self.hunk.new_missing_final_newline {
            // After the end of the file: only a separator (a real line after it is refused).
            return;
        }
        self.hunk.lines.push(HunkLine::Context(blank_text(line).to_string()));
        self.unprefixed_tail += 1;
    }

    /// `\ No newline at end of file`: the line before it has no line ending.
    pub(super) fn no_newline(&mut self, index: usize) -> Result<(), PatchError> {
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
    pub(super) fn finish(mut self, path: &str, number: usize) -> Result<Hunk, PatchError> {
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
pub(super) struct Range {
    pub(super) old_start: usize,
    pub(super) old_count: usize,
    pub(super) new_count: usize,
    pub(super) section: Option<String>,
}

pub(super) fn parse_range(after_at: &str) -> Option<Range> {
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
pub(super) fn old_start_of(range: &Range, index: usize) -> Result<usize, PatchError> {
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
