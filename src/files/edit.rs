//! `edit_file`: exact, unique, all-or-nothing replacements and anchored line edits, applied
//! to text in memory.
//!
//! Pure: the caller reads the file, calls [`apply`], and writes the result atomically once.
//! Line edits come first: every anchor refers to the file as it was before the call, so they
//! are checked together, must not overlap, and are applied from the bottom up. Then each
//! string replacement applies to the result of the previous edit. The first edit that fails
//! fails them all.
//! The file's line endings are kept: when the file uses CRLF and an edit's strings use bare
//! LF (as models usually send), the strings are converted before matching. A BOM is kept
//! because matching starts after it.

use std::borrow::Cow;

use super::anchor::{Anchor, anchor_of, line_hash};
use super::matcher::{self, Located};
use crate::error::{EditFailure, Error, Result};
use crate::lines::LineIndex;

/// One edit of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Replace exact text.
    Replace {
        /// Exact text to find. Empty only to create a missing or empty file.
        old: String,
        /// Replacement text.
        new: String,
        /// Replace every occurrence instead of requiring exactly one.
        replace_all: bool,
    },
    /// Replace the lines `from..=to` with `new` (whole lines; empty deletes them).
    Lines {
        /// First line replaced.
        from: Anchor,
        /// Last line replaced.
        to: Anchor,
        /// The new lines.
        new: String,
    },
    /// Insert `new` (whole lines) after the anchored line, or at the top for line 0.
    Insert {
        /// The line to insert after.
        after: Anchor,
        /// The new lines.
        new: String,
    },
}

/// What [`apply`] produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    /// The whole new text.
    pub text: String,
    /// Replacements made, per edit.
    pub replacements: Vec<usize>,
    /// The edits' strings were converted from LF to the file's CRLF.
    pub converted_to_crlf: bool,
    /// The edits that matched only with a tolerance, and what it tolerated:
    /// `edit 2: matched lines 40-47 ignoring indentation (the file indents with tabs)`.
    pub tolerated: Vec<String>,
}

const BOM: char = '\u{feff}';
/// Time allowed for computing a diff; past it `similar` returns a coarser (still correct) one.
const DIFF_DEADLINE: std::time::Duration = std::time::Duration::from_secs(1);

/// Applies `edits` in order to `original`. `path` is only used in messages. With `tolerant`,
/// an old string that does not occur exactly is located by [`matcher::locate`]'s tolerances.
pub fn apply(path: &str, original: &str, edits: &[Edit], tolerant: bool) -> Result<Edited> {
    if edits.is_empty() {
        return Err(Error::InvalidArgument {
            name: "edits",
            reason: "give old_string and new_string, or a non-empty `edits` list".into(),
        });
    }
    let (bom, body) = match original.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, original),
    };
    let crlf = uses_crlf(body);
    let mut replacements = vec![0; edits.len()];
    let mut tolerated = Vec::new();
    let (mut text, mut converted) = apply_line_edits(path, body, crlf, edits, &mut replacements)?;
    for (index, edit) in edits.iter().enumerate() {
        let Edit::Replace { old, new, replace_all } = edit else { continue };
        let fail = |failure| Error::Edit {
            path: path.to_string(),
            index,
            total: edits.len(),
            failure: Box::new(failure),
        };
        // In a CRLF file, strings sent with bare LF (as models send them) are matched and
        // inserted as CRLF, each on its own: a one-line old_string may get a multi-line new one.
        let convert = |s: &str| crlf && s.contains('\n') && !s.contains("\r\n");
        converted |= convert(old) || convert(new);
        let (old, new) = (
            if convert(old) { to_crlf(old) } else { old.clone() },
            if convert(new) { to_crlf(new) } else { new.clone() },
        );
        if old == new {
            return Err(fail(EditFailure::NoChange));
        }
        if old.is_empty() {
            if !text.is_empty() {
                return Err(fail(EditFailure::EmptyOldOnNonEmptyFile));
            }
            text = Cow::Owned(new);
            replacements[index] = 1;
            continue;
        }
        match matcher::locate(&text, &old, tolerant) {
            Located::Exact(starts) => {
                if starts.len() > 1 && !replace_all {
                    let index = LineIndex::new(&text);
                    let lines = starts.iter().map(|&at| index.line_of(at)).collect();
                    return Err(fail(EditFailure::Ambiguous { count: starts.len(), lines }));
                }
                replacements[index] = starts.len();
                text = Cow::Owned(replace_at(&text, &starts, old.len(), &new));
            }
            Located::Tolerant(found) => {
                let landed = found.adapt(&text, &old, &new);
                let mut replaced = text.into_owned();
                replaced.replace_range(found.region.start..found.region.end, &landed);
                text = Cow::Owned(replaced);
                replacements[index] = 1;
                let which = if edits.len() > 1 { format!("edit {}: ", index + 1) } else { String::new() };
                tolerated.push(format!("{which}{}", found.describe()));
            }
            Located::Ambiguous { tolerance, candidates } => {
                return Err(fail(EditFailure::AmbiguousTolerant {
                    tolerance: tolerance.describe(),
                    candidates: candidates.iter().map(|c| c.region.describe()).collect(),
                }));
            }
            Located::NotFound => {
                return Err(fail(EditFailure::NotFound { closest: matcher::closest_lines(&text, &old) }));
            }
        }
    }
    let mut text = text.into_owned();
    if bom {
        text.insert(0, BOM);
    }
    Ok(Edited { text, replacements, converted_to_crlf: converted, tolerated })
}

/// `text` with the `len` bytes at each of `starts` (ascending, not overlapping, each on a
/// character boundary) replaced by `new`.
fn replace_at(text: &str, starts: &[usize], len: usize, new: &str) -> String {
    let grown = text.len() - starts.len() * len + starts.len() * new.len();
    let mut out = String::with_capacity(grown);
    let mut from = 0;
    for &at in starts {
        out.push_str(&text[from..at]);
        out.push_str(new);
        from = at + len;
    }
    out.push_str(&text[from..]);
    out
}

/// Lines shown around a stale anchor, on each side.
const STALE_CONTEXT: usize = 2;
/// How far from its old place a line's text is looked for when its anchor is stale.
const MOVED_WITHIN: usize = 10;

/// Applies the line edits among `edits` to `body` (the text after any BOM), all against
/// `body` as it is: checks every anchor, refuses overlaps, then splices from the bottom up.
/// Returns the new text and whether LF strings were converted to CRLF.
fn apply_line_edits<'a>(
    path: &str,
    body: &'a str,
    crlf: bool,
    edits: &[Edit],
    replacements: &mut [usize],
) -> Result<(Cow<'a, str>, bool)> {
    if edits.iter().all(|e| matches!(e, Edit::Replace { .. })) {
        // No anchors to check: the text is neither indexed nor copied.
        return Ok((Cow::Borrowed(body), false));
    }
    let index = LineIndex::new(body);
    let ending = if crlf { "\r\n" } else { "\n" };
    let ends_open = !body.is_empty() && !body.ends_with('\n');
    let mut splices: Vec<(usize, usize, String, usize)> = Vec::new();
    let mut converted = false;
    for (i, edit) in edits.iter().enumerate() {
        let fail = |failure| Error::Edit {
            path: path.to_string(),
            index: i,
            total: edits.len(),
            failure: Box::new(failure),
        };
        let check = |anchor: &Anchor, allow_top: bool| -> Result<()> {
            stale(&index, anchor, allow_top).map_or(Ok(()), |failure| Err(fail(failure)))
        };
        let (from_line, to_line, new, insert) = match edit {
            Edit::Replace { .. } => continue,
            Edit::Lines { from, to, new } => {
                check(from, false)?;
                check(to, false)?;
                if to.line < from.line {
                    return Err(fail(EditFailure::BackwardRange { from: from.line, to: to.line }));
                }
                (from.line, to.line, new, false)
            }
            Edit::Insert { after, new } => {
                check(after, true)?;
                if new.is_empty() {
                    return Err(fail(EditFailure::NoChange));
                }
                (after.line + 1, after.line, new, true)
            }
        };
        let convert = crlf && new.contains('\n') && !new.contains("\r\n");
        converted |= convert;
        let mut new = if convert { to_crlf(new) } else { new.clone() };
        if !new.is_empty() && !new.ends_with('\n') {
            new.push_str(ending);
        }
        let (start, end) = if insert {
            let at = index.start_of(from_line);
            (at, at)
        } else {
            (index.start_of(from_line), index.start_of(to_line + 1))
        };
        // Inserting after a last line that has no line ending: the new lines need one before
        // them. (The file's missing final newline is restored once all edits are applied.)
        if ends_open && insert && start == body.len() {
            new = format!("{ending}{new}");
        }
        splices.push((start, end, new, i));
        replacements[i] = 1;
    }
    splices.sort_by_key(|s| (s.0, s.1));
    for pair in splices.windows(2) {
        let ((a_start, a_end, _, a), (b_start, b_end, _, b)) = (&pair[0], &pair[1]);
        // A range that runs into the next edit, or two inserts at one place (their order would
        // be a guess). An insert at the edge of a range is not an overlap.
        if b_start < a_end || (a_start == a_end && b_start == b_end && a_start == b_start) {
            let failure = EditFailure::Overlap { other: *a + 1 };
            return Err(Error::Edit {
                path: path.to_string(),
                index: *b,
                total: edits.len(),
                failure: Box::new(failure),
            });
        }
    }
    let mut text = body.to_string();
    let edited = !splices.is_empty();
    for (start, end, new, _) in splices.into_iter().rev() {
        text.replace_range(start..end, &new);
    }
    // A file without a final newline keeps lacking one, whatever the edits ended it with.
    if edited && ends_open {
        let kept = text.strip_suffix("\r\n").or(text.strip_suffix('\n')).map(str::len);
        if let Some(len) = kept {
            text.truncate(len);
        }
    }
    Ok((Cow::Owned(text), converted))
}

/// Why `anchor` does not name a current line of the indexed text, or None when it does.
fn stale(index: &LineIndex, anchor: &Anchor, allow_top: bool) -> Option<EditFailure> {
    let count = index.count();
    let around = |n: usize| -> Vec<(String, String)> {
        let first = n.saturating_sub(STALE_CONTEXT).max(1);
        let last = (n + STALE_CONTEXT).min(count);
        (first..=last)
            .map(|k| (anchor_of(k, index.line(k)), index.line(k).chars().take(200).collect()))
            .collect()
    };
    if anchor.cell.is_some() {
        return Some(EditFailure::StaleAnchor {
            anchor: anchor.to_string(),
            problem: "it names a notebook cell (`<cell>:`), and this file is not a notebook".into(),
            moved_to: None,
            around: around(anchor.line.clamp(1, count.max(1))),
        });
    }
    let Some(hash) = &anchor.hash else {
        return (!allow_top).then(|| EditFailure::StaleAnchor {
            anchor: anchor.to_string(),
            problem: "line 0 is only valid as `after`, to insert at the top".into(),
            moved_to: None,
            around: around(1),
        });
    };
    if anchor.line > count {
        return Some(EditFailure::StaleAnchor {
            anchor: anchor.to_string(),
            problem: format!("the file has only {count} lines"),
            moved_to: (1..=count)
                .rev()
                .find(|&k| line_hash(index.line(k)) == *hash && anchor.line - k <= MOVED_WITHIN),
            around: around(count),
        });
    }
    if line_hash(index.line(anchor.line)) == *hash {
        return None;
    }
    let near = (1..=MOVED_WITHIN).flat_map(|d| [anchor.line.checked_sub(d), Some(anchor.line + d)]);
    let moved_to =
        near.flatten().filter(|&k| k >= 1 && k <= count).find(|&k| line_hash(index.line(k)) == *hash);
    Some(EditFailure::StaleAnchor {
        anchor: anchor.to_string(),
        problem: format!("line {} has changed since you read it", anchor.line),
        moved_to,
        around: around(anchor.line),
    })
}

/// True when most line breaks are CRLF.
fn uses_crlf(text: &str) -> bool {
    let bytes = text.as_bytes();
    // Most files have no CR at all: one pass says so.
    if memchr::memchr(b'\r', bytes).is_none() {
        return false;
    }
    let crlf = memchr::memmem::find_iter(bytes, b"\r\n").count();
    crlf > 0 && crlf * 2 >= memchr::memchr_iter(b'\n', bytes).count()
}

fn to_crlf(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\n', "\r\n")
}

/// Lines of context a diff shows around each change.
const DIFF_CONTEXT: usize = 3;

/// A unified diff of the change, at most `max_lines` lines (then a note of how many more).
///
/// Only the lines between those both texts start and end with are compared, with the context
/// around them: an edit of a few lines in a 20 KB file otherwise split all of it into lines
/// twice, a twentieth of the edit's time. The hunks are those of the whole texts, renumbered.
pub fn unified_diff(path: &str, before: &str, after: &str, max_lines: usize) -> String {
    let window = Window::of(before, after, DIFF_CONTEXT);
    let diff = similar::TextDiff::configure().timeout(DIFF_DEADLINE).diff_lines(window.before, window.after);
    let (a, b) = (format!("a/{path}"), format!("b/{path}"));
    // A change slid along repeated lines (similar may show an inserted `x` after the `x`
    // beside it) can end nearer the window's edge than the context: the whole texts then.
    let text = if window.holds_context(&diff, before.len(), DIFF_CONTEXT) {
        let text = diff.unified_diff().context_radius(DIFF_CONTEXT).header(&a, &b).to_string();
        renumber_hunks(&text, window.lines_before)
    } else {
        let diff = similar::TextDiff::configure().timeout(DIFF_DEADLINE).diff_lines(before, after);
        diff.unified_diff().context_radius(DIFF_CONTEXT).header(&a, &b).to_string()
    };
    let text = cut_long_lines(text);
    let total = text.lines().count();
    if total <= max_lines {
        return text;
    }
    let mut cut: String = text.lines().take(max_lines).collect::<Vec<_>>().join("\n");
    cut.push_str(&format!("\n... diff cut: {} more lines (read_file shows the result)\n", total - max_lines));
    cut
}

/// `diff` with each line longer than [`super::MAX_LINE_CHARS`] cut as read_file cuts it, with
/// a marker: one edited line of a minified file must not fill a result.
fn cut_long_lines(diff: String) -> String {
    if !diff.lines().any(|l| l.len() > super::MAX_LINE_CHARS) {
        return diff;
    }
    diff.split_inclusive('\n')
        .map(|l| {
            let (body, end) = l.strip_suffix('\n').map_or((l, ""), |body| (body, "\n"));
            format!("{}{end}", super::read::cut_line(body, super::MAX_LINE_CHARS))
        })
        .collect()
}

/// The part of two texts a diff needs: whole lines, from `context` lines before the first
/// byte that differs to `context` lines after the last.
#[derive(Debug, PartialEq)]
struct Window<'a> {
    /// Lines of both texts before the window.
    lines_before: usize,
    /// Where the window ends in the text before.
    end: usize,
    before: &'a str,
    after: &'a str,
}

impl<'a> Window<'a> {
    fn of(before: &'a str, after: &'a str, context: usize) -> Window<'a> {
        let (old, new) = (before.as_bytes(), after.as_bytes());
        let same_start = crate::changed::same_start(old, new);
        // Back to the start of the line the difference is in, then `context` lines more.
        let mut start = memchr::memrchr(b'\n', &old[..same_start]).map_or(0, |i| i + 1);
        for _ in 0..context {
            start = match start.checked_sub(1) {
                Some(end) => memchr::memrchr(b'\n', &old[..end]).map_or(0, |i| i + 1),
                None => break,
            };
        }
        // The common end, not reaching back into the common start.
        let same_end = crate::changed::same_end(&old[start..], &new[start..]);
        // Forward to the first line that starts inside the common end (after a newline of its
        // own, so it is a line start in both texts), then `context` lines more.
        let tail = &old[old.len() - same_end..];
        let mut end = match memchr::memchr(b'\n', tail) {
            Some(i) => i + 1,
            None => same_end,
        };
        for _ in 0..context {
            if end >= same_end {
                break;
            }
            end = memchr::memchr(b'\n', &tail[end..]).map_or(same_end, |i| end + i + 1);
        }
        let kept_end = same_end - end.min(same_end);
        Window {
            lines_before: memchr::memchr_iter(b'\n', &old[..start]).count(),
            end: before.len() - kept_end,
            before: &before[start..before.len() - kept_end],
            after: &after[start..after.len() - kept_end],
        }
    }
}

impl Window<'_> {
    /// Whether `diff` (of this window) leaves `context` unchanged lines between its changes
    /// and each edge of the window that is not an end of the text (`text_len` bytes).
    fn holds_context(&self, diff: &similar::TextDiff<'_, '_, str>, text_len: usize, context: usize) -> bool {
        let ops = diff.ops();
        let unchanged = |op: Option<&similar::DiffOp>| match op {
            Some(similar::DiffOp::Equal { len, .. }) => *len,
            _ => 0,
        };
        let (starts_text, ends_text) = (self.lines_before == 0, self.end == text_len);
        (starts_text || unchanged(ops.first()) >= context) && (ends_text || unchanged(ops.last()) >= context)
    }
}

/// `diff` (of a window) with each hunk header's line numbers moved down by `lines`.
fn renumber_hunks(diff: &str, lines: usize) -> String {
    if lines == 0 {
        return diff.to_owned();
    }
    let mut out = String::with_capacity(diff.len() + 16);
    for line in diff.split_inclusive('\n') {
        match line.strip_prefix("@@ -").and_then(|rest| rest.split_once(" @@")) {
            Some((ranges, rest)) => {
                let shifted: Vec<String> = ranges
                    .split(' ')
                    .map(|range| {
                        let (sign, range) = range.split_at(range.starts_with('+') as usize);
                        let (start, count) = match range.split_once(',') {
                            Some((start, count)) => (start, Some(count)),
                            None => (range, None),
                        };
                        let start = start
                            .parse::<usize>()
                            .map_or_else(|_| start.to_owned(), |n| (n + lines).to_string());
                        match count {
                            Some(count) => format!("{sign}{start},{count}"),
                            None => format!("{sign}{start}"),
                        }
                    })
                    .collect();
                out.push_str(&format!("@@ -{} @@{rest}", shifted.join(" ")));
            }
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old: &str, new: &str) -> Edit {
        Edit::Replace { old: old.into(), new: new.into(), replace_all: false }
    }

    #[test]
    fn a_unique_match_is_replaced() {
        let out = apply("a.py", "a = 1\nb = 2\n", &[edit("b = 2", "b = 3")], true).unwrap();
        assert_eq!(out.text, "a = 1\nb = 3\n");
        assert_eq!(out.replacements, vec![1]);
    }

    #[test]
    fn several_matches_without_replace_all_fail_with_count_and_lines() {
        let err = apply("a.py", "x\ny\nx\n", &[edit("x", "z")], true).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("2 times") && text.contains("lines 1, 3"), "{text}");
    }

    #[test]
    fn replace_all_replaces_every_match() {
        let out = apply(
            "a.py",
            "x\ny\nx\n",
            &[Edit::Replace { old: "x".into(), new: "z".into(), replace_all: true }],
            true,
        )
        .unwrap();
        assert_eq!(out.text, "z\ny\nz\n");
        assert_eq!(out.replacements, vec![2]);
    }

    #[test]
    fn not_found_shows_the_closest_lines_with_numbers() {
        let text = "def load(path):\n    return open(path).read()\n";
        let err =
            apply("a.py", text, &[edit("def load(pth):", "def load(p):")], true).unwrap_err().to_string();
        assert!(err.contains("not found") && err.contains("1: def load(path):"), "{err}");
    }

    #[test]
    fn identical_old_and_new_is_an_error() {
        assert!(apply("a", "x", &[edit("x", "x")], true).unwrap_err().to_string().contains("identical"));
    }

    #[test]
    fn edits_apply_in_order_and_fail_all_or_nothing() {
        let edits = [edit("a", "b"), edit("b", "c"), edit("missing", "x")];
        let err = apply("f", "a\n", &edits, true).unwrap_err().to_string();
        assert!(err.contains("edit 3 of 3"), "{err}");
        let out = apply("f", "a\n", &edits[..2], true).unwrap();
        assert_eq!(out.text, "c\n");
    }

    #[test]
    fn lf_strings_edit_a_crlf_file_and_keep_crlf() {
        let out = apply("w.txt", "one\r\ntwo\r\nthree\r\n", &[edit("one\ntwo\n", "1\n2\n")], true).unwrap();
        assert_eq!(out.text, "1\r\n2\r\nthree\r\n");
        assert!(out.converted_to_crlf);
    }

    #[test]
    fn a_multi_line_new_string_for_a_one_line_old_string_keeps_crlf() {
        let out = apply("w.txt", "a\r\nb\r\n", &[edit("a", "x\ny")], true).unwrap();
        assert_eq!(out.text, "x\r\ny\r\nb\r\n");
        assert!(out.converted_to_crlf);
    }

    #[test]
    fn a_huge_single_line_file_gets_a_not_found_with_its_closest_line_cut() {
        // A minified megabyte line: every tolerance and the closest-line search are linear in
        // it (the similarity compares at most the matcher's SIMILARITY_CHARS of a line), so this returns.
        let text = "x".repeat(2_000_000);
        let err = apply("min.js", &text, &[edit("yyyy", "z")], true).unwrap_err().to_string();
        assert!(err.contains("not found"), "{}", &err[..err.len().min(300)]);
        assert!(err.len() < 2_000, "the closest line is shown cut, not whole");
    }

    #[test]
    fn bom_and_final_newline_are_kept() {
        let out = apply("b.txt", "\u{feff}alpha\nbeta\n", &[edit("alpha", "gamma")], true).unwrap();
        assert_eq!(out.text, "\u{feff}gamma\nbeta\n");
    }

    #[test]
    fn empty_old_string_creates_content_only_in_an_empty_file() {
        assert_eq!(apply("n.txt", "", &[edit("", "hello\n")], true).unwrap().text, "hello\n");
        let err = apply("n.txt", "x", &[edit("", "hello\n")], true).unwrap_err().to_string();
        assert!(err.contains("empty"), "{err}");
    }

    /// The diff as it was made before windows: of the whole texts.
    fn whole_diff(before: &str, after: &str) -> String {
        similar::TextDiff::configure()
            .diff_lines(before, after)
            .unified_diff()
            .context_radius(DIFF_CONTEXT)
            .header("a/f", "b/f")
            .to_string()
    }

    /// Whether every hunk of `diff` shows, at its line numbers, the lines of `before` and
    /// `after` it claims (line endings aside), with full context where the text goes on.
    fn hunks_match(diff: &str, before: &str, after: &str) -> bool {
        let lines =
            |t: &str| -> Vec<String> { t.lines().map(|l| l.trim_end_matches('\r').to_owned()).collect() };
        let (old, new) = (lines(before), lines(after));
        let mut rest = diff.lines().skip(2).peekable();
        while let Some(header) = rest.next() {
            let Some(ranges) = header.strip_prefix("@@ -").and_then(|r| r.split_once(" @@")).map(|r| r.0)
            else {
                return false;
            };
            let range = |r: &str| -> (usize, usize) {
                let (start, count) = r.split_once(',').unwrap_or((r, "1"));
                (start.parse().unwrap(), count.parse().unwrap())
            };
            let (o, n) = ranges.split_once(" +").unwrap();
            let ((o_start, o_len), (n_start, n_len)) = (range(o), range(n));
            let (mut o_side, mut n_side, mut kinds) = (Vec::new(), Vec::new(), Vec::new());
            while let Some(line) = rest.next_if(|l| !l.starts_with("@@")) {
                let text = line.get(1..).unwrap_or("").trim_end_matches('\r').to_owned();
                kinds.extend(line.bytes().next().filter(|k| b" +-".contains(k)));
                match line.as_bytes().first() {
                    Some(b' ') => {
                        o_side.push(text.clone());
                        n_side.push(text);
                    }
                    Some(b'-') => o_side.push(text),
                    Some(b'+') => n_side.push(text),
                    _ => {}
                }
            }
            let from = |start: usize, len: usize| if len == 0 { start } else { start - 1 };
            let (o_from, n_from) = (from(o_start, o_len), from(n_start, n_len));
            if o_side.len() != o_len || n_side.len() != n_len {
                return false;
            }
            let leading = kinds.iter().take_while(|&&k| k == b' ').count();
            let trailing = kinds.iter().rev().take_while(|&&k| k == b' ').count();
            if (o_from > 0 && leading < DIFF_CONTEXT)
                || (o_from + o_len < old.len() && trailing < DIFF_CONTEXT)
            {
                return false;
            }
            if old.get(o_from..o_from + o_len) != Some(&o_side[..])
                || new.get(n_from..n_from + n_len) != Some(&n_side[..])
            {
                return false;
            }
        }
        true
    }

    #[test]
    fn a_window_keeps_the_context_lines_around_the_change() {
        let before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
        let after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
        let window = Window::of(before, after, 2);
        assert_eq!(
            window,
            Window { lines_before: 2, end: 14, before: "3\n4\n5\n6\n7\n", after: "3\n4\nfive\n6\n7\n" }
        );
        assert_eq!(unified_diff("f", before, after, 100), whole_diff(before, after));
        assert!(unified_diff("f", before, after, 100).contains("@@ -2,7 +2,7 @@"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// A replacement gives what the standard library's `str::replace` gives, counts the
        /// matches `str::matches` counts, and tells CRLF text by its line endings.
        #[test]
        fn a_replacement_matches_the_standard_librarys(
            text in "(ab|a|b|é|\r\n|\n| ){0,60}",
            old in "(ab|a|b|é|\n| ){1,3}",
            new in "(x|é|\n){0,3}",
        ) {
            let edit = Edit::Replace { old: old.clone(), new: new.clone(), replace_all: true };
            let crlf = {
                let pairs = text.matches("\r\n").count();
                pairs > 0 && pairs * 2 >= text.matches('\n').count()
            };
            proptest::prop_assert_eq!(uses_crlf(&text), crlf);
            // Edit strings are converted to CRLF in a CRLF file; compare where they are not.
            proptest::prop_assume!(!crlf && old != new);
            // Exact only: a tolerant match would replace what `str::replace` does not.
            match apply("f", &text, &[edit], false) {
                Ok(edited) => {
                    proptest::prop_assert_eq!(&edited.text, &text.replace(&old, &new));
                    proptest::prop_assert_eq!(edited.replacements, vec![text.matches(&old).count()]);
                }
                Err(_) => proptest::prop_assert!(!text.contains(&old)),
            }
        }

        /// Whatever the texts, every hunk of the windowed diff shows the lines it claims at
        /// its line numbers, with full context, and it changes as many lines as the whole
        /// texts' diff.
        #[test]
        fn a_windowed_diff_shows_the_change_at_its_lines_with_full_context(
            lines in proptest::collection::vec("(a|b|c|é|x y)", 0..40),
            cut in 0usize..40,
            removed in 0usize..6,
            inserted in proptest::collection::vec("(a|b|z|é)", 0..5),
            newline_at_end in proptest::bool::ANY,
            joined_with_crlf in proptest::bool::ANY,
        ) {
            let eol = if joined_with_crlf { "\r\n" } else { "\n" };
            let mut before = lines.join(eol);
            if newline_at_end && !before.is_empty() {
                before.push_str(eol);
            }
            let old: Vec<&str> = before.split_inclusive('\n').collect();
            let at = cut.min(old.len());
            let gone = removed.min(old.len() - at);
            let mut new: Vec<String> = old[..at].iter().map(|l| l.to_string()).collect();
            new.extend(inserted.iter().map(|l| format!("{l}{eol}")));
            new.extend(old[at + gone..].iter().map(|l| l.to_string()));
            let after = new.concat();
            let diff = unified_diff("f", &before, &after, usize::MAX);
            let whole = whole_diff(&before, &after);
            let changed = |d: &str| d.lines().skip(2).filter(|l| l.starts_with(['+', '-'])).count();
            proptest::prop_assert_eq!(changed(&diff), changed(&whole), "{}\n{}", diff, whole);
            proptest::prop_assert!(hunks_match(&diff, &before, &after), "{}", diff);
        }
    }

    #[test]
    fn unified_diff_is_capped() {
        let before: String = (0..100).map(|i| format!("{i}\n")).collect();
        let after: String = (0..100).map(|i| format!("{}\n", i * 2)).collect();
        let diff = unified_diff("a.txt", &before, &after, 20);
        assert!(diff.starts_with("--- a/a.txt\n+++ b/a.txt\n"));
        assert!(diff.contains("diff cut:"), "{diff}");
    }

    fn at(text: &str, n: usize) -> Anchor {
        let line = LineIndex::new(text).line(n).to_string();
        Anchor { line: n, hash: Some(line_hash(&line)), cell: None }
    }

    fn lines(text: &str, from: usize, to: usize, new: &str) -> Edit {
        Edit::Lines { from: at(text, from), to: at(text, to), new: new.into() }
    }

    #[test]
    fn a_line_range_is_replaced_and_an_empty_new_string_deletes_it() {
        let text = "a\nb\nc\nd\n";
        assert_eq!(apply("f", text, &[lines(text, 2, 3, "B\nC")], true).unwrap().text, "a\nB\nC\nd\n");
        assert_eq!(apply("f", text, &[lines(text, 2, 3, "")], true).unwrap().text, "a\nd\n");
    }

    #[test]
    fn inserts_go_after_the_anchored_line_or_at_the_top_after_the_bom() {
        let text = "\u{feff}a\nb\n";
        let body = "a\nb\n";
        let after = Edit::Insert { after: at(body, 1), new: "x".into() };
        assert_eq!(apply("f", text, &[after], true).unwrap().text, "\u{feff}a\nx\nb\n");
        let top = Edit::Insert { after: Anchor { line: 0, hash: None, cell: None }, new: "# head\n".into() };
        assert_eq!(apply("f", text, &[top], true).unwrap().text, "\u{feff}# head\na\nb\n");
    }

    #[test]
    fn the_first_line_of_a_bom_file_is_anchored_as_read_file_shows_it() {
        let text = "\u{feff}a\nb\n";
        let read = super::super::number_lines(text, super::super::Window::lines(1, 1, true)).unwrap();
        let anchor = Anchor::parse(&read.numbered).unwrap();
        let out =
            apply("f", text, &[Edit::Lines { from: anchor.clone(), to: anchor, new: "A".into() }], true)
                .unwrap();
        assert_eq!(out.text, "\u{feff}A\nb\n");
    }

    #[test]
    fn a_last_line_without_a_newline_stays_without_one() {
        let text = "a\nb";
        assert_eq!(apply("f", text, &[lines(text, 2, 2, "B\n")], true).unwrap().text, "a\nB");
        assert_eq!(apply("f", text, &[lines(text, 2, 2, "")], true).unwrap().text, "a");
        let after = Edit::Insert { after: at(text, 2), new: "c\n".into() };
        assert_eq!(apply("f", text, &[after], true).unwrap().text, "a\nb\nc");
    }

    #[test]
    fn edits_next_to_a_deleted_last_line_are_not_overlaps_and_no_final_newline_appears() {
        let text = "a\nb\nc";
        let out = apply("f", text, &[lines(text, 2, 2, "B"), lines(text, 3, 3, "")], true).unwrap();
        assert_eq!(out.text, "a\nB");
        let top = Edit::Insert { after: Anchor { line: 0, hash: None, cell: None }, new: "x".into() };
        assert_eq!(apply("f", "a", &[top, lines("a", 1, 1, "")], true).unwrap().text, "x");
        assert_eq!(apply("f", text, &[lines(text, 3, 3, "C\r\n")], true).unwrap().text, "a\nb\nC");
    }

    #[test]
    fn line_edits_in_a_crlf_file_get_crlf() {
        let text = "a\r\nb\r\n";
        let out = apply("f", text, &[lines(text, 1, 1, "x\ny")], true).unwrap();
        assert_eq!(out.text, "x\r\ny\r\nb\r\n");
        assert!(out.converted_to_crlf);
    }

    #[test]
    fn all_anchors_refer_to_the_file_before_the_call() {
        let text = "1\n2\n3\n4\n5\n";
        let edits =
            [lines(text, 4, 4, "four"), Edit::Insert { after: at(text, 1), new: "1.5\n1.7\n".into() }];
        assert_eq!(apply("f", text, &edits, true).unwrap().text, "1\n1.5\n1.7\n2\n3\nfour\n5\n");
    }

    #[test]
    fn an_insert_at_the_edge_of_a_range_is_not_an_overlap_but_two_at_one_place_are() {
        let text = "1\n2\n3\n";
        let insert = || Edit::Insert { after: at(text, 1), new: "x".into() };
        let out = apply("f", text, &[lines(text, 2, 2, "two"), insert()], true).unwrap();
        assert_eq!(out.text, "1\nx\ntwo\n3\n");
        assert!(apply("f", text, &[insert(), insert()], true).is_err());
    }

    #[test]
    fn overlapping_line_edits_change_nothing() {
        let text = "1\n2\n3\n4\n";
        let err = apply("f", text, &[lines(text, 1, 3, "x"), lines(text, 3, 4, "y")], true)
            .unwrap_err()
            .to_string();
        assert!(err.contains("edit 2 of 2") && err.contains("same lines as edit 1"), "{err}");
    }

    #[test]
    fn a_stale_anchor_shows_fresh_anchors_and_where_the_line_went() {
        let old = "fn a() {}\nfn b() {}\nfn c() {}\n";
        let now = "// header\nfn a() {}\nfn b() {}\nfn c() {}\n";
        let err = apply("f.rs", now, &[lines(old, 2, 2, "fn b2() {}")], true).unwrap_err().to_string();
        assert!(err.contains("anchor 2#") && err.contains("is now on line 3"), "{err}");
        assert!(err.contains(&format!("3#{}\tfn b() {{}}", line_hash("fn b() {}"))), "{err}");
        let past = Anchor { line: 9, hash: Some(line_hash("x")), cell: None };
        let err = apply("f", now, &[Edit::Lines { from: past.clone(), to: past, new: String::new() }], true)
            .unwrap_err();
        assert!(err.to_string().contains("only 4 lines"), "{err}");
    }

    #[test]
    fn repeated_text_that_defeats_old_string_is_fixed_by_anchor() {
        let text: String = (1..=50).map(|_| "handle(req);\n").collect();
        let err =
            apply("h.js", &text, &[edit("handle(req);", "handle(req, ctx);")], true).unwrap_err().to_string();
        assert!(err.contains("50 times"), "{err}");
        let out = apply("h.js", &text, &[lines(&text, 37, 37, "handle(req, ctx);")], true).unwrap();
        let diff = unified_diff("h.js", &text, &out.text, 50);
        let changed: Vec<&str> = diff
            .lines()
            .filter(|l| l.starts_with(['+', '-']) && !l.starts_with("+++") && !l.starts_with("---"))
            .collect();
        assert_eq!(changed, ["-handle(req);", "+handle(req, ctx);"]);
        assert_eq!(LineIndex::new(&out.text).line(37), "handle(req, ctx);");
    }
}
