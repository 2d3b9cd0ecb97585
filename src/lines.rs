//! Lines of a text: how many there are, where each starts, and which line and column a byte
//! offset falls on. Every tool that counts or numbers lines asks this module, so "line 12"
//! means the same in a read, an edit, a syntax problem and a stub warning.
//!
//! The rules are an editor's: lines end at `\n` (a `\r` before it belongs to the ending, not
//! to the line), a final newline does not start another line, and columns count characters,
//! not bytes.

use std::cell::Cell;

/// Counts lines the way an editor shows them: a final newline does not start another line.
/// The same count as [`LineIndex::count`], without building an index.
pub fn count_lines(text: &[u8]) -> usize {
    lines_given(text, newlines(text))
}

/// [`count_lines`] of `text[..at]` and of all of `text`, counting each byte once: an append
/// needs both, for the line its chunk starts on and for the file.
pub fn count_lines_before_and_all(text: &[u8], at: usize) -> (usize, usize) {
    let (head, tail) = text.split_at(at.min(text.len()));
    let in_head = newlines(head);
    (lines_given(head, in_head), lines_given(text, in_head + newlines(tail)))
}

/// Lines as an editor shows them, for a text holding `newlines` line breaks.
pub fn lines_given(text: &[u8], newlines: usize) -> usize {
    match text {
        [] => 0,
        [.., b'\n'] => newlines,
        _ => newlines + 1,
    }
}

/// The `\n` bytes in `bytes`, counted in blocks of 255 whose per-byte counts fit a `u8`: the
/// compiler then compares and adds 16 or 32 bytes at a time, where counting into a `usize`
/// widened every byte (the count ran on every append over the whole file).
pub fn newlines(bytes: &[u8]) -> usize {
    bytes.chunks(255).map(|block| block.iter().map(|&b| u8::from(b == b'\n')).sum::<u8>() as usize).sum()
}

/// Rows (newlines) in `text` and the byte length of its last line: the point at its end, as
/// tree-sitter counts positions. Without building an index, as [`count_lines`].
pub fn end_point(text: &str) -> (usize, usize) {
    let bytes = text.as_bytes();
    let rows = newlines(bytes);
    let last_start = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    (rows, bytes.len() - last_start)
}

/// Characters in a byte slice of UTF-8: every byte that does not continue a character. An
/// offset inside a character (offsets can come from C parsers) counts as that character.
fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// Where each line of a text starts, for locating offsets and slicing lines by number.
#[derive(Debug, Clone)]
pub struct LineIndex<'t> {
    text: &'t str,
    /// Byte offset where each line starts; the first is 0. A text ending in `\n` has a last
    /// start equal to its length, which begins no line an editor shows.
    starts: Vec<usize>,
    /// The last offset located and its column: offsets located in order along one long line
    /// (a minified file with thousands of problems) are counted on from here instead of from
    /// the line's start, which would be quadratic.
    last: Cell<(usize, usize)>,
}

impl<'t> LineIndex<'t> {
    /// Indexes `text` in one pass.
    pub fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { text, starts, last: Cell::new((0, 1)) }
    }

    /// Lines as an editor shows them (see [`count_lines`]).
    pub fn count(&self) -> usize {
        match self.text.is_empty() {
            true => 0,
            false if self.text.ends_with('\n') => self.starts.len() - 1,
            false => self.starts.len(),
        }
    }

    /// The 1-based line that `byte` falls on (past the end: the last line).
    pub fn line_of(&self, byte: usize) -> usize {
        self.starts.partition_point(|&start| start <= byte).max(1)
    }

    /// The byte where 1-based `line` starts; past the last line, the text's length.
    pub fn start_of(&self, line: usize) -> usize {
        line.checked_sub(1).and_then(|i| self.starts.get(i)).copied().unwrap_or(self.text.len())
    }

    /// The text of 1-based `line` without its line ending (`\n` or `\r\n`); empty past the end.
    pub fn line(&self, line: usize) -> &'t str {
        if line == 0 {
            return "";
        }
        let start = self.start_of(line);
        // The next line starts one past this line's `\n`; the last line ends with the text.
        let end = self.starts.get(line).map_or(self.text.len(), |&next| next - 1);
        let body = &self.text[start..end.max(start)];
        body.strip_suffix('\r').unwrap_or(body)
    }

    /// The 1-based line and character column of `byte` (clamped to the text).
    pub fn locate(&self, byte: usize) -> (usize, usize) {
        let byte = byte.min(self.text.len());
        let line = self.line_of(byte);
        let start = self.start_of(line);
        let bytes = self.text.as_bytes();
        let (last_byte, last_column) = self.last.get();
        let column = if last_byte >= start && last_byte <= byte {
            last_column + char_count(&bytes[last_byte..byte])
        } else {
            1 + char_count(&bytes[start..byte])
        };
        self.last.set((byte, column));
        (line, column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn count_lines_ignores_final_newline() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"a"), 1);
        assert_eq!(count_lines(b"a\n"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
        assert_eq!(count_lines(b"a\r\nb\r\n"), 2);
        assert_eq!(count_lines(b"\n\n"), 2);
    }

    #[test]
    fn lines_are_sliced_without_their_endings() {
        let index = LineIndex::new("ab\r\ncd\n\nef");
        assert_eq!((index.line(1), index.line(2), index.line(3), index.line(4)), ("ab", "cd", "", "ef"));
        assert_eq!(index.line(5), "");
        assert_eq!(index.start_of(4), 8);
    }

    #[test]
    fn locate_counts_columns_in_characters() {
        let text = "a\néé = )\n";
        let index = LineIndex::new(text);
        assert_eq!(index.locate(text.find(')').unwrap_or_default()), (2, 6));
        assert_eq!(index.locate(text.len()), (3, 1));
        assert_eq!(index.locate(0), (1, 1));
    }

    #[test]
    fn lines_before_and_all_equal_two_counts() {
        for text in ["", "a", "a\n", "a\nb", "a\nb\n", "\n\n"] {
            for at in 0..=text.len() + 1 {
                let b = text.as_bytes();
                let expected = (count_lines(&b[..at.min(b.len())]), count_lines(b));
                assert_eq!(count_lines_before_and_all(b, at), expected, "{text:?} at {at}");
            }
        }
    }

    #[test]
    fn newlines_are_counted_across_blocks() {
        for len in [0, 1, 254, 255, 256, 510, 1000] {
            let text: Vec<u8> = (0..len).map(|i| if i % 3 == 0 { b'\n' } else { b'x' }).collect();
            assert_eq!(newlines(&text), text.iter().filter(|&&b| b == b'\n').count(), "{len}");
        }
        assert_eq!(newlines(&[b'\n'; 1000]), 1000);
    }

    #[test]
    fn end_point_counts_rows_and_byte_columns() {
        assert_eq!(end_point("ab"), (0, 2));
        assert_eq!(end_point("ab\ncdé"), (1, 4));
        assert_eq!(end_point("ab\n"), (1, 0));
    }

    proptest! {
        /// The index agrees with counting from scratch at every offset, located in any
        /// order (the memo of the last offset must never leak into another line).
        #[test]
        fn locate_equals_a_scan_from_the_start(
            text in "(a|é|\n|\r\n| |🎉){0,40}",
            order in proptest::collection::vec(any::<usize>(), 0..40),
        ) {
            let index = LineIndex::new(&text);
            prop_assert_eq!(index.count(), count_lines(text.as_bytes()));
            for pick in order {
                let byte = pick % (text.len() + 1);
                let before = &text.as_bytes()[..byte];
                let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
                let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                let column = 1 + char_count(&before[line_start..]);
                prop_assert_eq!(index.locate(byte), (line, column), "at {}", byte);
            }
        }

        /// Every line, and the lines before the first and past the last, is the text between
        /// line breaks with its `\r\n` ending taken off.
        #[test]
        fn line_equals_splitting_the_text(text in "(a|é|\n|\r\n|\r| |🎉){0,40}") {
            let index = LineIndex::new(&text);
            let split: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
            prop_assert_eq!(index.line(0), "");
            for (k, expected) in split.iter().enumerate() {
                prop_assert_eq!(index.line(k + 1), *expected, "line {}", k + 1);
            }
            prop_assert_eq!(index.line(split.len() + 1), "");
            prop_assert_eq!(index.line(split.len() + 7), "");
        }
    }
}
