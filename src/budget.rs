//! How much one tool result may hold, decided here for every tool.
//!
//! A client caps what it passes on from one tool call: Claude Code at 25,000 tokens by
//! default, and it cuts or refuses a larger result, so the model never sees the page it asked
//! for. At about 4 characters a token that is about 100,000 characters, and a result carries
//! its text twice: once in its text block for the model and again, as JSON, in
//! `structuredContent` (where escapes make it longer still). So a result holds at most
//! [`TEXT_CHARS`] of text and [`RESULT_CHARS`] in all, text and `structuredContent` together.
//!
//! The bound is kept where each result is built, never by cutting JSON at the end: a tool
//! shows whole items (lines, entries, files) while they fit in a [`Room`], counts the rest, and
//! says how to get them (the next offset, a narrower path, a smaller group of files). A call
//! gets more only when it asks for a size itself (`limit` of read_file, `max_results` of
//! find_files and search_files).

use serde::Serialize;

/// Characters of text (the text blocks of a result) a result holds at most, unless the call
/// asked for more: half of the ~100,000 characters a client takes, since the same text comes
/// again in `structuredContent`.
pub const TEXT_CHARS: usize = 50_000;

/// Characters a result holds at most in all, unless the call asked for more: its text plus its
/// `structuredContent` written as JSON. Under Claude Code's 25,000 tokens for text as dense as
/// source code (~5 characters a token), with room for the escapes JSON adds.
pub const RESULT_CHARS: usize = 120_000;

/// Room left in one result: characters of text, and characters in all (text and JSON).
///
/// Items are admitted whole with [`Room::take`], or not at all, so a result never holds half
/// an entry; fixed parts (headers, footers, fields every result has) are set aside first with
/// [`Room::spend`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Room {
    text: usize,
    whole: usize,
}

impl Room {
    /// The room of one whole result: [`TEXT_CHARS`] and [`RESULT_CHARS`].
    pub fn result() -> Room {
        Room { text: TEXT_CHARS, whole: RESULT_CHARS }
    }

    /// Room for `text` characters of text and `whole` in all.
    pub fn new(text: usize, whole: usize) -> Room {
        Room { text, whole }
    }

    /// No bound: the caller asked for a size itself.
    pub fn unbounded() -> Room {
        Room { text: usize::MAX, whole: usize::MAX }
    }

    /// Takes an item of `text` characters of text and `json` characters of JSON when both fit,
    /// and says whether it did; an item that does not fit takes nothing.
    pub fn take(&mut self, text: usize, json: usize) -> bool {
        let whole = text.saturating_add(json);
        if text > self.text || whole > self.whole {
            return false;
        }
        self.text -= text;
        self.whole -= whole;
        true
    }

    /// Sets aside `text` characters of text and `json` of JSON that the result holds whatever
    /// else fits (its header, its fields); the room never goes below nothing.
    pub fn spend(&mut self, text: usize, json: usize) {
        self.text = self.text.saturating_sub(text);
        self.whole = self.whole.saturating_sub(text.saturating_add(json));
    }

    /// Characters of text left.
    pub fn text_left(&self) -> usize {
        self.text
    }

    /// Characters left in all.
    pub fn whole_left(&self) -> usize {
        self.whole
    }

    /// Whether this room is [`Room::unbounded`] (or as large).
    pub fn is_unbounded(&self) -> bool {
        self.text == usize::MAX
    }
}

/// Characters `s` takes inside a JSON string, its escapes counted (`\t` is 2, a control
/// character 6) and its quotes not.
pub fn json_chars(s: &str) -> usize {
    s.chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if (c as u32) < 0x20 => 6,
            _ => 1,
        })
        .sum()
}

/// Characters of `value` as serde_json writes it (0 if it cannot be written, which a value
/// built of strings, numbers and lists never is).
pub fn json_size<T: Serialize + ?Sized>(value: &T) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.chars().count())
}

/// Keeps the longest prefix of `items` whose text and JSON (as `cost` gives them, per item)
/// fit in `room`, takes their room, and returns how many it dropped from the end.
pub fn keep_fitting<T>(
    items: &mut Vec<T>,
    room: &mut Room,
    mut cost: impl FnMut(&T) -> (usize, usize),
) -> usize {
    let kept = items
        .iter()
        .position(|item| {
            let (text, json) = cost(item);
            !room.take(text, json)
        })
        .unwrap_or(items.len());
    let dropped = items.len() - kept;
    items.truncate(kept);
    dropped
}

/// The longest run of whole lines at the start of `text` whose characters, as text and again
/// as a JSON string, fit in `room` (and are taken from it), and how many characters of `text`
/// it leaves out.
pub fn fit_lines<'a>(text: &'a str, room: &mut Room) -> (&'a str, usize) {
    let mut end = 0;
    for line in text.split_inclusive('\n') {
        let chars = line.chars().count();
        if !room.take(chars, json_chars(line)) {
            break;
        }
        end += line.len();
    }
    let left_out = match end == text.len() {
        true => 0,
        false => text[end..].chars().count(),
    };
    (&text[..end], left_out)
}

/// `text` cut to at most `max` characters at the end of a line (within the first line when
/// even it is longer, at a character boundary), and how many characters it left out.
pub fn cut_at_line(text: &str, max: usize) -> (&str, usize) {
    let total = text.chars().count();
    if total <= max {
        return (text, 0);
    }
    // The byte where character `max` starts: nothing at or after it is kept.
    let limit = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let end = match text[..limit].rfind('\n') {
        Some(newline) => newline,
        None => limit,
    };
    let kept = &text[..end];
    (kept, total - kept.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_is_taken_only_when_it_fits_both_bounds() {
        let mut room = Room::new(10, 25);
        assert!(room.take(5, 10));
        assert_eq!((room.text_left(), room.whole_left()), (5, 10));
        assert!(!room.take(6, 0), "too much text");
        assert!(!room.take(4, 7), "too much in all");
        assert_eq!((room.text_left(), room.whole_left()), (5, 10), "a refused item takes nothing");
        assert!(room.take(5, 5));
        assert!(!room.take(1, 0));
        assert!(room.take(0, 0), "nothing always fits");
    }

    #[test]
    fn spending_more_than_is_left_leaves_nothing() {
        let mut room = Room::new(10, 20);
        room.spend(4, 30);
        assert_eq!((room.text_left(), room.whole_left()), (6, 0));
    }

    #[test]
    fn an_unbounded_room_takes_everything() {
        let mut room = Room::unbounded();
        assert!(room.is_unbounded());
        assert!(room.take(usize::MAX / 2, usize::MAX / 2));
        assert!(!Room::result().is_unbounded());
    }

    #[test]
    fn json_chars_counts_escapes_as_serde_json_writes_them() {
        for s in
            ["plain", "tab\there", "quote \" and \\ backslash", "line\r\n", "bell \u{7} nul \0", "é ✓ 😀", ""]
        {
            let written = serde_json::to_string(s).unwrap().chars().count();
            assert_eq!(json_chars(s) + 2, written, "{s:?}");
        }
    }

    #[test]
    fn json_size_counts_characters() {
        assert_eq!(json_size(&vec!["é", "a"]), "[\"é\",\"a\"]".chars().count());
    }

    #[test]
    fn keep_fitting_keeps_the_longest_prefix_that_fits() {
        let mut items = vec![3, 3, 3, 1];
        let mut room = Room::new(7, 100);
        assert_eq!(keep_fitting(&mut items, &mut room, |&n| (n, 0)), 2);
        assert_eq!(items, [3, 3], "a small item after the first that does not fit is not taken");
        assert_eq!(room.text_left(), 1);
        let mut all = vec![1, 2];
        assert_eq!(keep_fitting(&mut all, &mut Room::result(), |&n| (n, n)), 0);
    }

    #[test]
    fn fit_lines_keeps_whole_lines_while_text_and_json_fit() {
        let mut room = Room::new(7, 100);
        assert_eq!(fit_lines("ab\ncd\nef\n", &mut room), ("ab\ncd\n", 3));
        assert_eq!(room.text_left(), 1);
        // `""` and a newline are 3 characters of text and 6 of JSON.
        let mut room = Room::new(100, 19);
        assert_eq!(fit_lines("\"\"\n\"\"\n\"\"\n", &mut room), ("\"\"\n\"\"\n", 3));
        assert_eq!(fit_lines("x", &mut Room::result()), ("x", 0));
    }

    #[test]
    fn cut_at_line_keeps_whole_lines_and_counts_the_rest() {
        assert_eq!(cut_at_line("ab\ncd\nef", 100), ("ab\ncd\nef", 0));
        assert_eq!(cut_at_line("ab\ncd\nef", 6), ("ab\ncd", 3));
        assert_eq!(cut_at_line("abcdef\ngh", 4), ("abcd", 5), "a first line longer than max is cut in it");
        assert_eq!(cut_at_line("ééé", 2), ("éé", 1), "at a character boundary");
    }
}
