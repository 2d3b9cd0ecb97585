//! The canonical form of a text at a tolerance: what the search compares, mapped back byte
//! by byte to the original.
//!
//! Apart from the search because it is the definition of each tolerance (what is trimmed,
//! what is folded) and the bookkeeping that lets a hit in the folded text name a region of
//! the original; the rest of the matcher only asks it for text and source ranges.

use super::{Candidate, Region, Tolerance};
use crate::files::anchor::anchor_of;
use crate::lines::LineIndex;

/// A text in the canonical form of a tolerance, with the original bytes each of its bytes
/// came from.
pub(super) struct Canonical {
    pub(super) text: String,
    /// For each byte of `text`: the range of the original character it came from. A folded
    /// character (`…` to `...`) gives each of its bytes the same range.
    pub(super) source: Vec<(u32, u32)>,
}

impl Canonical {
    pub(super) fn of(text: &str, tolerance: Tolerance) -> Canonical {
        Canonical::built(text, tolerance >= Tolerance::Indentation, tolerance == Tolerance::Punctuation)
    }

    /// With look-alike punctuation folded but leading whitespace kept: the form a quote matches
    /// where only the file's punctuation differs from it (see `locate_from`).
    pub(super) fn punctuation_only(text: &str) -> Canonical {
        Canonical::built(text, false, true)
    }

    fn built(text: &str, strip_indent: bool, fold_look_alikes: bool) -> Canonical {
        let mut canon =
            Canonical { text: String::with_capacity(text.len()), source: Vec::with_capacity(text.len()) };
        let mut at = 0usize;
        for line in text.split_inclusive('\n') {
            let (content, ended) = match line.strip_suffix('\n') {
                Some(c) => (c.strip_suffix('\r').unwrap_or(c), true),
                None => (line, false),
            };
            // (canonical form, original start, original end, folded)
            let mut chars: Vec<(&str, usize, usize, bool)> = Vec::with_capacity(content.len());
            for (i, c) in content.char_indices() {
                let end = i + c.len_utf8();
                let folded = if fold_look_alikes { fold(c) } else { None };
                chars.push((folded.unwrap_or(&content[i..end]), at + i, at + end, folded.is_some()));
            }
            let blank = |s: &str| s.len() == 1 && is_space(s.as_bytes()[0] as char);
            let mut lo = 0;
            if strip_indent {
                while lo < chars.len() && blank(chars[lo].0) {
                    lo += 1;
                }
            }
            let mut hi = chars.len();
            while hi > lo && blank(chars[hi - 1].0) {
                hi -= 1;
            }
            for &(s, start, end, folded) in &chars[lo..hi] {
                canon.text.push_str(s);
                if !folded {
                    // Copied as it is: each byte from its own byte.
                    canon.source.extend((start..end).map(|b| (b as u32, b as u32 + 1)));
                } else {
                    canon.source.extend(std::iter::repeat_n((start as u32, end as u32), s.len()));
                }
            }
            if ended {
                let newline = at + line.len() - 1;
                canon.text.push('\n');
                canon.source.push((newline as u32, newline as u32 + 1));
            }
            at += line.len();
        }
        canon
    }

    /// The region of `original` that the canonical bytes `cs..ce` came from, or None where
    /// the hit cannot stand for a region (it splits a folded character, or claims the start of
    /// a line it does not start on).
    pub(super) fn region(
        &self,
        original: &str,
        index: &LineIndex,
        cs: usize,
        ce: usize,
        tolerance: Tolerance,
        first_indented: bool,
    ) -> Option<Candidate> {
        let src = &self.source;
        if (cs > 0 && src[cs - 1].0 == src[cs].0) || (ce < src.len() && src[ce].0 == src[ce - 1].0) {
            return None;
        }
        let starts_line = cs == 0 || self.text.as_bytes()[cs - 1] == b'\n';
        if tolerance >= Tolerance::Indentation && first_indented && !starts_line {
            return None;
        }
        let mut start = src[cs].0 as usize;
        if starts_line {
            // The whole line, with the indentation the canonical form left out.
            start = memchr::memrchr(b'\n', &original.as_bytes()[..start]).map_or(0, |i| i + 1);
        }
        let end = src[ce - 1].1 as usize;
        let (first_line, last_line) = (index.line_of(start), index.line_of(end.max(start + 1) - 1));
        let anchors =
            (anchor_of(first_line, index.line(first_line)), anchor_of(last_line, index.line(last_line)));
        Some(Candidate { region: Region { start, end, first_line, last_line, anchors }, starts_line })
    }
}

/// The ASCII form of a Unicode look-alike, or None for any other character.
pub(super) fn fold(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => "'",
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => "\"",
        '\u{2010}'..='\u{2015}' | '\u{2212}' => "-",
        '\u{2026}' => "...",
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => " ",
        _ => return None,
    })
}

/// Blank within a line: spaces, tabs, vertical tab, form feed, and a stray `\r`.
pub(super) fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0b' | '\x0c' | '\r')
}

/// A character of indentation.
pub(super) fn is_indent(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// A line's key with every tolerance: trimmed, look-alike punctuation folded. Two lines with
/// equal keys are the same line to a tolerant reader (a patch's `@@ context` line).
pub fn line_key(line: &str) -> String {
    Canonical::of(line.trim_end_matches(['\n', '\r']), Tolerance::Punctuation).text
}

/// A line's key at a tolerance: what two lines must share to be the same line there.
pub(super) fn canonical_line(line: &str, tolerance: Tolerance) -> String {
    Canonical::of(line, tolerance).text
}
