//! `read_file`: numbered lines of a text file, a window at a time.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::anchor::anchor_of;
use super::encoding::{self, Encoding};
use super::sha256_hex;
use crate::budget::{Room, json_chars};
use crate::error::{Error, Result};
use crate::lines::LineIndex;
use crate::workspace::{RootPath, Workspace};

/// Lines shown when the caller gives no limit (as Claude Code's Read does), unless the page
/// reaches its character budget first ([`crate::budget`]).
pub const DEFAULT_READ_LIMIT: usize = 2000;
/// Longer lines are cut with a marker so one minified line cannot flood the model's context.
pub const MAX_LINE_CHARS: usize = 2000;

/// A window of numbered lines plus the facts needed to continue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadView {
    /// `<n>\t<text>` lines joined with `\n` (CR of CRLF endings not shown).
    pub numbered: String,
    /// First line shown (1-based); 0 when nothing is shown.
    pub start_line: usize,
    /// Last line shown; 0 when nothing is shown.
    pub end_line: usize,
    /// Lines in the whole file.
    pub total_lines: usize,
    /// Bytes in the whole file.
    pub total_bytes: u64,
    /// How many shown lines were cut at [`MAX_LINE_CHARS`].
    pub cut_lines: usize,
    /// The window stopped before its limit because the next line did not fit its room.
    pub stopped_by_room: bool,
    /// The file uses CRLF line endings.
    pub crlf: bool,
    /// The file ends with a newline.
    pub ends_with_newline: bool,
    /// Hex sha256 of the whole file (empty when only a text was numbered).
    pub sha256: String,
    /// The file's encoding (UTF-8 when only a text was numbered).
    pub encoding: Encoding,
    /// The first byte of the file that does not come back unchanged from its text (see
    /// [`encoding::Decoded::inexact_at`]): the file can be read but not changed.
    pub inexact_at: Option<usize>,
}

impl ReadView {
    /// Lines after the window: the caller should read on from `end_line + 1`.
    pub fn more_after(&self) -> bool {
        self.end_line < self.total_lines
    }
}

/// How a window of lines is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// First line, 1-based; negative counts from the end (`-20` = the last 20 lines); 0 means 1.
    pub offset: i64,
    /// Lines shown at most.
    pub limit: usize,
    /// Prefix each line with its anchor (`<n>#<hash>\t`) instead of its number (`<n>\t`).
    pub anchors: bool,
    /// The room the numbered lines may take in a result, as text and again as a JSON string:
    /// the window stops at the first line that does not fit, though its first line is always
    /// shown (at most [`MAX_LINE_CHARS`] and a marker): a caller that must stay within the room
    /// checks what the page took.
    pub room: Room,
}

impl Window {
    /// `limit` lines from `offset`, with no bound on their characters.
    pub fn lines(offset: i64, limit: usize, anchors: bool) -> Window {
        Window { offset, limit, anchors, room: Room::unbounded() }
    }
}

/// Reads the file, decoded in its encoding, and numbers the requested window. Refuses binary
/// files.
pub fn read(ws: &Workspace, path: &RootPath, window: Window, max_bytes: u64) -> Result<ReadView> {
    number_decoded(&read_text(ws, path, max_bytes)?, window)
}

/// Reads the file, decoded in its encoding, for a caller that shows it its own way (a
/// notebook as cells). Refuses binary files.
pub fn read_text(ws: &Workspace, path: &RootPath, max_bytes: u64) -> Result<encoding::Decoded> {
    let bytes = ws.read(path, max_bytes)?;
    encoding::decode(bytes).map_err(|binary| binary.error(&path.display()))
}

/// Numbers the requested window of a file read with [`read_text`], with the file's facts.
pub fn number_decoded(decoded: &encoding::Decoded, window: Window) -> Result<ReadView> {
    let mut view = number_lines(&decoded.text, window)?;
    view.sha256 = sha256_hex(decoded.bytes());
    view.total_bytes = decoded.bytes().len() as u64;
    view.encoding = decoded.encoding;
    view.inexact_at = decoded.inexact_at;
    Ok(view)
}

/// Numbers a window of `text`.
pub fn number_lines(text: &str, Window { offset, limit, anchors, mut room }: Window) -> Result<ReadView> {
    if limit == 0 {
        return Err(Error::InvalidArgument { name: "limit", reason: "must be at least 1".into() });
    }
    let lines = LineIndex::new(text);
    let total = lines.count();
    let start = if offset < 0 {
        total.saturating_sub(offset.unsigned_abs() as usize) + 1
    } else {
        (offset.max(1)) as usize
    };
    if total > 0 && start > total {
        return Err(Error::InvalidArgument {
            name: "offset",
            reason: format!(
                "the file has only {total} lines; use an offset from 1 to {total}, or a negative offset \
                 (-20 shows the last 20 lines)"
            ),
        });
    }
    // The window's text plus a number and a tab per line, without growing as it is filled.
    let shown = lines.start_of(start.saturating_add(limit)).saturating_sub(lines.start_of(start));
    let mut numbered = String::with_capacity(shown + limit.min(total) * 8);
    let mut cut_lines = 0;
    let mut stopped_by_room = false;
    let mut end = start.saturating_sub(1);
    let mut prefix = String::new();
    for n in (start..=total).take(limit) {
        let line = lines.line(n);
        prefix.clear();
        match anchors {
            true => prefix.push_str(&anchor_of(n, line)),
            false => {
                // Cannot fail: writing to a String.
                let _ = write!(prefix, "{n}");
            }
        }
        let shown = cut_line(line, MAX_LINE_CHARS);
        // The prefix is ASCII with no escapes; the tab and the newline before the line are 2
        // characters each in JSON.
        let chars = prefix.len() + 2 + shown.chars().count();
        let json = prefix.len() + 4 + json_chars(&shown);
        if !room.take(chars, json) && n > start {
            stopped_by_room = true;
            break;
        }
        if !numbered.is_empty() {
            numbered.push('\n');
        }
        numbered.push_str(&prefix);
        numbered.push('\t');
        cut_lines += usize::from(matches!(shown, Cow::Owned(_)));
        numbered.push_str(&shown);
        end = n;
    }
    Ok(ReadView {
        numbered,
        start_line: if total == 0 { 0 } else { start },
        end_line: if total == 0 { 0 } else { end },
        total_lines: total,
        total_bytes: text.len() as u64,
        cut_lines,
        stopped_by_room,
        crlf: text.contains("\r\n"),
        ends_with_newline: text.ends_with('\n'),
        sha256: String::new(),
        encoding: Encoding::UTF_8,
        inexact_at: None,
    })
}

/// `line`, cut after `max` characters with a marker that says how many were left out, so one
/// minified line cannot flood the model's context. Borrowed when nothing was cut.
pub fn cut_line(line: &str, max: usize) -> Cow<'_, str> {
    // No more characters than bytes: a line this short is never cut.
    if line.len() <= max {
        return Cow::Borrowed(line);
    }
    match line.char_indices().nth(max) {
        Some((cut, _)) => {
            let rest = line[cut..].chars().count();
            Cow::Owned(format!("{} [... line cut: {rest} more characters]", &line[..cut]))
        }
        None => Cow::Borrowed(line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_lines_from_one() {
        let v = number_lines("a\nb\nc\n", Window::lines(1, 10, false)).unwrap();
        assert_eq!(v.numbered, "1\ta\n2\tb\n3\tc");
        assert_eq!((v.start_line, v.end_line, v.total_lines), (1, 3, 3));
        assert!(!v.more_after());
    }

    #[test]
    fn negative_offset_shows_the_tail() {
        let text: String = (1..=100).map(|i| format!("l{i}\n")).collect();
        let v = number_lines(&text, Window::lines(-3, 2000, false)).unwrap();
        assert_eq!(v.numbered, "98\tl98\n99\tl99\n100\tl100");
        let v = number_lines(&text, Window::lines(-500, 2, false)).unwrap();
        assert_eq!((v.start_line, v.end_line), (1, 2));
        assert!(v.more_after());
    }

    #[test]
    fn offset_past_the_end_is_an_error_naming_the_line_count() {
        let err = number_lines("a\nb\n", Window::lines(5, 10, false)).unwrap_err();
        assert!(err.to_string().contains("only 2 lines"));
    }

    #[test]
    fn long_lines_are_cut_with_a_marker() {
        let text = "é".repeat(MAX_LINE_CHARS + 5);
        let v = number_lines(&text, Window::lines(1, 10, false)).unwrap();
        assert_eq!(v.cut_lines, 1);
        assert!(v.numbered.ends_with("[... line cut: 5 more characters]"));
    }

    #[test]
    fn crlf_is_reported_and_hidden() {
        let v = number_lines("a\r\nb\r\n", Window::lines(1, 10, false)).unwrap();
        assert_eq!(v.numbered, "1\ta\n2\tb");
        assert!(v.crlf);
    }

    #[test]
    fn anchors_prefix_each_line_with_its_number_and_hash() {
        let v = number_lines("a\r\nb\n", Window::lines(1, 10, true)).unwrap();
        let expected = format!(
            "1#{}\ta\n2#{}\tb",
            super::super::anchor::line_hash("a"),
            super::super::anchor::line_hash("b")
        );
        assert_eq!(v.numbered, expected);
    }

    #[test]
    fn a_window_stops_at_the_first_line_that_does_not_fit_its_room() {
        let text: String = (1..=100).map(|i| format!("{i:03} {}\n", "x".repeat(16))).collect();
        // Each line is `<n>\t`, 20 characters and its newline: 23 characters of text (24
        // from line 10 on).
        let room = Room::new(23 * 9 + 24 + 5, usize::MAX);
        let v = number_lines(&text, Window { room, ..Window::lines(1, 2000, false) }).unwrap();
        assert_eq!((v.start_line, v.end_line), (1, 10));
        assert!(v.stopped_by_room && v.more_after());
        let v = number_lines(&text, Window { room, ..Window::lines(1, 5, false) }).unwrap();
        assert!(!v.stopped_by_room, "the limit came first");
    }

    #[test]
    fn json_escapes_count_against_the_room() {
        let text = "\"\"\"\"\n".repeat(10);
        // `<n>\t""""` and its newline are 7 characters of text and 13 of JSON (each quote
        // escaped, the tab and the newline 2 each): 20 a line.
        let room = Room::new(usize::MAX, 20 * 3 + 2);
        let v = number_lines(&text, Window { room, ..Window::lines(1, 10, false) }).unwrap();
        assert_eq!(v.end_line, 3);
    }

    #[test]
    fn the_first_line_is_shown_even_when_it_does_not_fit() {
        let window = Window { room: Room::new(3, 3), ..Window::lines(1, 10, false) };
        let v = number_lines("abcdef\ng\n", window).unwrap();
        assert_eq!((v.end_line, v.numbered.as_str()), (1, "1\tabcdef"));
        assert!(v.stopped_by_room);
    }

    #[test]
    fn empty_file_has_no_lines() {
        let v = number_lines("", Window::lines(1, 10, false)).unwrap();
        assert_eq!((v.total_lines, v.start_line, v.end_line), (0, 0, 0));
    }
}
