//! Where the text a model quoted is in a file: the one place that decides it, for
//! `edit_file`'s old strings and `apply_patch`'s hunks.
//!
//! Exact first: an exact occurrence always wins and behaves as it always did. Only when there
//! is none are three tolerances tried, in order, each adding to the one before:
//! 1. [`Tolerance::TrailingWhitespace`]: blanks at the end of each line (and a `\r` before the
//!    newline) are ignored;
//! 2. [`Tolerance::Indentation`]: leading whitespace is ignored too, as long as the quoted
//!    lines' indentation differs from the file's by one uniform shift (levels more or fewer,
//!    tabs against spaces, 2 against 4 columns per level), so the quoted text still has the
//!    file's shape;
//! 3. [`Tolerance::Punctuation`]: Unicode look-alikes count as their ASCII form (curly quotes,
//!    dashes, the ellipsis, non-breaking and other Unicode spaces).
//!
//! A tolerant match is used only when exactly one region of the file matches at the first
//! level that matches anything: two or more are [`Located::Ambiguous`], and the caller changes
//! nothing. So too when one region matches ignoring indentation and another at the quote's own
//! indentation ignoring only look-alike punctuation: neither needs less than the other. Models'
//! drifted quotes are mostly unambiguous; when they are not, guessing is how other servers
//! damage files.
//!
//! A tolerant match also decides how its replacement lands ([`Tolerant::adapt`]): lines the
//! model sent unchanged are kept as the file has them (their whitespace and punctuation), and
//! new or changed lines are the model's own text, only re-indented by the same shift in the
//! file's own style. Tolerance never rewrites a character the model wrote: a hyphen it typed
//! stays a hyphen in a file full of dashes.
//!
//! How it works: each tolerance is a canonical form of a text (per line: trimmed, folded) that
//! remembers, for every byte, which bytes of the original it came from. The quoted text is put
//! in the same form and searched for; every hit is mapped back to the original and checked
//! (whole lines where indentation was ignored, the uniform shift).
//!
//! # Layout
//! This module holds the answers ([`Located`], [`Tolerant`]) and the search ([`locate`]);
//! `canonical` builds the form each tolerance compares, `indentation` fits the uniform shift
//! and knows how a file indents, `replacement` lands a replacement where a tolerant match
//! was found ([`Tolerant::adapt`]), and `closest` lists what was nearly there when nothing was.

mod canonical;
mod closest;
mod indentation;
mod replacement;

pub use canonical::line_key;
pub use closest::closest_lines;

use crate::lines::LineIndex;
use canonical::{Canonical, fold, is_indent, is_space};
use indentation::{Shift, Style, TAB_COLUMNS, fit_shift, indent_of, style_of};

/// How far from the exact text a match may stray. Each includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tolerance {
    /// Trailing whitespace of each line ignored.
    TrailingWhitespace,
    /// Leading whitespace ignored too, up to one uniform shift of indentation.
    Indentation,
    /// Unicode look-alike punctuation treated as its ASCII form too.
    Punctuation,
}

impl Tolerance {
    /// Every tolerance, in the order they are tried.
    pub const ALL: [Tolerance; 3] =
        [Tolerance::TrailingWhitespace, Tolerance::Indentation, Tolerance::Punctuation];

    /// What this tolerance ignores, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Tolerance::TrailingWhitespace => "trailing whitespace",
            Tolerance::Indentation => "indentation",
            Tolerance::Punctuation => "look-alike punctuation",
        }
    }
}

/// A stretch of a text: a byte range and the 1-based lines it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// First line (1-based).
    pub first_line: usize,
    /// Last line (1-based).
    pub last_line: usize,
    /// Anchors (`<n>#<hash>`) of the first and last line, for a line edit that picks this region.
    pub anchors: (String, String),
}

impl Region {
    /// `lines 40-47 (40#abc to 47#def)`, or `line 40 (40#abc)`.
    pub fn describe(&self) -> String {
        if self.first_line == self.last_line {
            format!("line {} ({})", self.first_line, self.anchors.0)
        } else {
            format!("lines {}-{} ({} to {})", self.first_line, self.last_line, self.anchors.0, self.anchors.1)
        }
    }
}

/// Where a quoted text is in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// Exact occurrences: their starting bytes, ascending (at least one); not overlapping,
    /// but for [`locate_lines_from`], where each line start is a place of its own.
    Exact(Vec<usize>),
    /// No exact occurrence, and exactly one region matched with the first tolerance that
    /// matched anything.
    Tolerant(Tolerant),
    /// No exact occurrence, and several regions matched with the first tolerance that matched
    /// anything: none is used.
    Ambiguous {
        /// The tolerance they matched with.
        tolerance: Tolerance,
        /// The candidates, in the order of the file (at most [`MAX_CANDIDATES`]).
        candidates: Vec<Tolerant>,
    },
    /// Nowhere, even with every tolerance.
    NotFound,
}

/// Candidates listed in an ambiguity: enough to pick from, bounded for a needle like `}`.
pub const MAX_CANDIDATES: usize = 10;

/// The one region a tolerant match found, and how to land a replacement there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tolerant {
    /// The region of the file the quoted text matched (whole lines where it started at the
    /// start of a line).
    pub region: Region,
    /// The tolerance it took.
    pub tolerance: Tolerance,
    /// What differed, for the result: `ignoring indentation (the file indents with tabs)`.
    pub tolerated: String,
    /// The re-indentation a replacement gets; None where indentation was not in question.
    shift: Option<Shift>,
    /// The match starts at the start of a line (else the quoted text's first line is the
    /// tail of a line, which keeps its place).
    starts_line: bool,
}

impl Tolerant {
    /// `matched lines 40-47 ignoring indentation (the file indents with tabs)`.
    pub fn describe(&self) -> String {
        let lines = match self.region.first_line == self.region.last_line {
            true => format!("line {}", self.region.first_line),
            false => format!("lines {}-{}", self.region.first_line, self.region.last_line),
        };
        format!("matched {lines} ignoring {}", self.tolerated)
    }
}

/// Finds `needle` in `text`: exactly, or (with `tolerant`) with the first tolerance that
/// finds anything. An empty needle is never found.
pub fn locate(text: &str, needle: &str, tolerant: bool) -> Located {
    locate_from(text, needle, 0, tolerant)
}

/// [`locate`], counting only what starts at or after byte `from` (a patch's hunks are found
/// in order, each after the one before). Lines and offsets are still those of all of `text`.
pub fn locate_from(text: &str, needle: &str, from: usize, tolerant: bool) -> Located {
    if needle.is_empty() || from > text.len() {
        return Located::NotFound;
    }
    let starts: Vec<usize> =
        memchr::memmem::find_iter(&text.as_bytes()[from..], needle.as_bytes()).map(|at| from + at).collect();
    if !starts.is_empty() {
        return Located::Exact(starts);
    }
    if !tolerant {
        return Located::NotFound;
    }
    tolerant_search(text, needle, from, false)
}

/// [`locate_from`] for a quote of whole lines, each ending in a newline (a patch hunk's old
/// side): a match starts where a line of `text` starts, so that no line is matched by the
/// tail of another (a quoted empty line is a line of its own, never the newline that ends the
/// line before). Exact occurrences may overlap here (`x\nx\n` is at lines 1 and 2 of
/// `x\nx\nx\n`): each is a place the hunk could go, which the caller's line number decides.
pub fn locate_lines_from(text: &str, needle: &str, from: usize, tolerant: bool) -> Located {
    if needle.is_empty() || from > text.len() {
        return Located::NotFound;
    }
    let bytes = text.as_bytes();
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut starts = Vec::new();
    let mut at = from;
    while let Some(hit) = finder.find(&bytes[at..]) {
        let start = at + hit;
        if start == 0 || bytes[start - 1] == b'\n' {
            starts.push(start);
        }
        at = start + 1;
    }
    if !starts.is_empty() {
        return Located::Exact(starts);
    }
    if !tolerant {
        return Located::NotFound;
    }
    tolerant_search(text, needle, from, true)
}

/// The tolerances in order, the first that finds anything deciding; with `whole_lines`, only
/// matches that start where a line starts count.
fn tolerant_search(text: &str, needle: &str, from: usize, whole_lines: bool) -> Located {
    let index = LineIndex::new(text);
    for tolerance in Tolerance::ALL {
        let mut found = candidates(text, &index, needle, from, tolerance, whole_lines, false);
        match found.len() {
            0 => continue,
            // One place matches ignoring indentation; another may match at the quote's own
            // indentation ignoring only look-alike punctuation (a file that writes dashes where
            // the quote has hyphens). Neither needs less tolerance than the other: the first
            // level is no reason to pick one, and a guess is a silent wrong edit.
            1 if tolerance == Tolerance::Indentation => {
                let one = &found[0].region;
                let mut others: Vec<Tolerant> =
                    candidates(text, &index, needle, from, Tolerance::Punctuation, whole_lines, true)
                        .into_iter()
                        .filter(|c| c.region.end <= one.start || c.region.start >= one.end)
                        .collect();
                if others.is_empty() {
                    return Located::Tolerant(found.remove(0));
                }
                others.push(found.remove(0));
                others.sort_by_key(|c| c.region.start);
                others.truncate(MAX_CANDIDATES);
                return Located::Ambiguous { tolerance: Tolerance::Punctuation, candidates: others };
            }
            1 => return Located::Tolerant(found.remove(0)),
            _ => {
                found.truncate(MAX_CANDIDATES);
                return Located::Ambiguous { tolerance, candidates: found };
            }
        }
    }
    Located::NotFound
}

/// Every region of `text` starting at or after byte `from` that `needle` matches with
/// `tolerance` (at most one past [`MAX_CANDIDATES`], which is enough to say there are more
/// than can be listed); with `whole_lines`, only those that start a line. With `keep_indent`
/// (and [`Tolerance::Punctuation`]), leading whitespace must match as it is.
fn candidates(
    text: &str,
    index: &LineIndex,
    needle: &str,
    from: usize,
    tolerance: Tolerance,
    whole_lines: bool,
    keep_indent: bool,
) -> Vec<Tolerant> {
    let form = |s: &str| match keep_indent {
        true => Canonical::punctuation_only(s),
        false => Canonical::of(s, tolerance),
    };
    let (hay, quote) = (form(text), form(needle));
    if quote.text.trim().is_empty() {
        return Vec::new();
    }
    let finder = memchr::memmem::Finder::new(quote.text.as_bytes());
    let bytes = hay.text.as_bytes();
    let needle_lines = split_lines(needle);
    // At the indentation tolerances, a quote whose first line is indented must start where a
    // line starts: its indentation claims that place.
    let first_indented = needle_lines.first().is_some_and(|(l, _)| l.starts_with(is_indent));
    let mut found = Vec::new();
    // The canonical text is never longer than the original but for folded characters: start
    // where the original's `from` went.
    let mut at = hay.source.partition_point(|&(start, _)| (start as usize) < from);
    while let Some(hit) = finder.find(&bytes[at..]) {
        let (cs, ce) = (at + hit, at + hit + quote.text.len());
        at = cs + hay.text[cs..].chars().next().map_or(1, char::len_utf8);
        if let Some(candidate) = hay.region(text, index, cs, ce, tolerance, first_indented)
            && candidate.region.start >= from
            && (candidate.starts_line || !whole_lines)
        {
            let Some(shift) = fit_shift(text, &candidate, &needle_lines, tolerance) else { continue };
            let tolerated = tolerated(text, &candidate, needle, &hay, &quote, cs, tolerance, shift.as_ref());
            found.push(Tolerant {
                region: candidate.region,
                tolerance,
                tolerated,
                shift,
                starts_line: candidate.starts_line,
            });
            if found.len() > MAX_CANDIDATES {
                break;
            }
        }
    }
    found
}

/// A region found in the canonical text, mapped back to the original.
struct Candidate {
    region: Region,
    starts_line: bool,
}

/// The lines of a text, each without its line ending (`\n` or `\r\n`) and whether it had one.
fn split_lines(text: &str) -> Vec<(&str, bool)> {
    text.split_inclusive('\n')
        .map(|l| match l.strip_suffix('\n') {
            Some(c) => (c.strip_suffix('\r').unwrap_or(c), true),
            None => (l, false),
        })
        .collect()
}

/// What the match tolerated, in words: `indentation (the file indents with tabs)`.
#[allow(clippy::too_many_arguments)]
fn tolerated(
    text: &str,
    candidate: &Candidate,
    needle: &str,
    hay: &Canonical,
    quote: &Canonical,
    cs: usize,
    tolerance: Tolerance,
    shift: Option<&Shift>,
) -> String {
    let region = &candidate.region;
    let file_lines = split_lines(&text[region.start..region.end]);
    let needle_lines = split_lines(needle);
    let mut parts = Vec::new();
    let trailing = |l: &str| l.len() - l.trim_end_matches(is_space).len();
    if file_lines.iter().zip(&needle_lines).any(|(f, q)| trailing(f.0) != trailing(q.0)) {
        parts.push("trailing whitespace".to_owned());
    }
    if let Some(shift) = shift {
        let quoted_style = style_of(needle, &needle_lines);
        let mut how = Vec::new();
        if shift.style != quoted_style && needle_lines.iter().any(|l| l.0.starts_with(is_indent)) {
            how.push(match shift.style {
                Style::Tabs => "the file indents with tabs".to_owned(),
                Style::Spaces => "the file indents with spaces".to_owned(),
            });
        } else if shift.num != shift.den {
            how.push(format!("the file's levels are {}/{} as wide as old_string's", shift.num, shift.den));
        }
        if shift.first_line_indent.is_some() {
            how.push("old_string's first line had lost its indentation".to_owned());
        }
        let moved = shift.apply(shift.quoted) - shift.quoted;
        if moved != 0 && shift.first_line_indent.is_none() && shift.num == shift.den {
            let unit = match shift.style {
                Style::Tabs if moved % TAB_COLUMNS == 0 => format!("{} tab(s)", moved.abs() / TAB_COLUMNS),
                _ => format!("{} column(s)", moved.abs()),
            };
            how.push(format!(
                "the file's lines are indented {unit} {}",
                if moved > 0 { "more" } else { "less" }
            ));
        }
        if !how.is_empty()
            || file_lines.iter().zip(&needle_lines).any(|(f, q)| indent_of(f.0) != indent_of(q.0))
        {
            parts.push(match how.is_empty() {
                true => "indentation".to_owned(),
                false => format!("indentation ({})", how.join("; ")),
            });
        }
    }
    if tolerance == Tolerance::Punctuation {
        let mut pairs: Vec<(char, char)> = Vec::new();
        let char_at = |s: &str, src: (u32, u32)| s[src.0 as usize..].chars().next();
        for (k, _) in quote.text.char_indices() {
            let (f, q) = (char_at(text, hay.source[cs + k]), char_at(needle, quote.source[k]));
            if let (Some(f), Some(q)) = (f, q)
                && f != q
                && (fold(f).is_some() || fold(q).is_some())
                && !pairs.contains(&(f, q))
            {
                pairs.push((f, q));
            }
        }
        let shown = |c: char| match c {
            c if c.is_whitespace() => format!("U+{:04X}", c as u32),
            c => c.to_string(),
        };
        let listed: Vec<String> = pairs
            .iter()
            .take(6)
            .map(|&(f, q)| format!("the file has {} where old_string has {}", shown(f), shown(q)))
            .collect();
        parts.push(format!("look-alike punctuation ({})", listed.join(", ")));
    }
    if parts.is_empty() {
        parts.push(tolerance.describe().to_owned());
    }
    parts.join(" and ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text after replacing `old` by `new` in `text`, tolerantly, with what was tolerated.
    fn replace(text: &str, old: &str, new: &str) -> (String, String) {
        match locate(text, old, true) {
            Located::Tolerant(t) => {
                let replaced = t.adapt(text, old, new);
                let mut out = text.to_owned();
                out.replace_range(t.region.start..t.region.end, &replaced);
                (out, t.describe())
            }
            other => panic!("expected a tolerant match, got {other:?}"),
        }
    }

    #[test]
    fn an_exact_match_wins_and_is_reported_as_exact() {
        assert_eq!(locate("a b\nc\n", "a b", true), Located::Exact(vec![0]));
        assert_eq!(locate("x\nx\n", "x", true), Located::Exact(vec![0, 2]));
        assert_eq!(locate("abc", "  abc", false), Located::NotFound);
    }

    #[test]
    fn trailing_whitespace_in_the_file_is_ignored_and_kept_on_unchanged_lines() {
        let text = "def f():  \n    return 1 \nprint(f())\n";
        let (out, note) = replace(text, "def f():\n    return 1\n", "def f():\n    return 2\n");
        // The changed line is the model's, which has no blank at its end.
        assert_eq!(out, "def f():  \n    return 2\nprint(f())\n");
        assert_eq!(note, "matched lines 1-2 ignoring trailing whitespace");
    }

    #[test]
    fn a_tab_indented_file_stays_tab_indented() {
        let text = "class A {\n\tm() {\n\t\treturn 1;\n\t}\n}\n";
        let old = "    m() {\n        return 1;\n    }\n";
        let new = "    m() {\n        const x = 2;\n\n        return x;\n    }\n";
        let (out, note) = replace(text, old, new);
        assert_eq!(out, "class A {\n\tm() {\n\t\tconst x = 2;\n\n\t\treturn x;\n\t}\n}\n");
        assert!(note.contains("lines 2-4") && note.contains("the file indents with tabs"), "{note}");
    }

    #[test]
    fn a_quote_one_level_shallower_is_shifted_back() {
        let text = "class A:\n    def m(self):\n        if x:\n            return 1\n";
        let old = "def m(self):\n    if x:\n        return 1\n";
        let new = "def m(self):\n    if x:\n        return 1\n    return 0\n";
        let (out, note) = replace(text, old, new);
        assert_eq!(
            out,
            "class A:\n    def m(self):\n        if x:\n            return 1\n        return 0\n"
        );
        assert!(note.contains("indented 4 column(s) more"), "{note}");
    }

    #[test]
    fn two_space_quotes_of_a_four_space_file_are_scaled() {
        let text = "fn a() {\n    if b {\n        c();\n    }\n}\n";
        let old = "fn a() {\n  if b {\n    c();\n  }\n}\n";
        let new = "fn a() {\n  if b {\n    c();\n    d();\n  }\n}\n";
        let (out, _) = replace(text, old, new);
        assert_eq!(out, "fn a() {\n    if b {\n        c();\n        d();\n    }\n}\n");
    }

    #[test]
    fn a_first_line_that_lost_its_indentation_keeps_the_files() {
        // (With the rest exact, an exact match from the line's first character does it.)
        let text = "class A:\n\tdef m(self):\n\t\tx = 1\n\t\tif x:\n\t\t\treturn x\n";
        let old = "def m(self):\n        x = 1\n        if x:\n            return x\n";
        let new = "def m(self):\n        x = 2\n        if x:\n            return x\n";
        let (out, note) = replace(text, old, new);
        assert_eq!(out, "class A:\n\tdef m(self):\n\t\tx = 2\n\t\tif x:\n\t\t\treturn x\n");
        assert!(note.contains("first line had lost its indentation"), "{note}");
    }

    #[test]
    fn a_quote_with_another_shape_is_not_a_match() {
        // The quote flattens nesting the file has: no uniform shift carries one onto the other.
        let text = "if a:\n    if b:\n        c()\n";
        assert_eq!(locate(text, "if a:\nif b:\nc()\n", true), Located::NotFound);
    }

    #[test]
    fn curly_quotes_and_dashes_match_their_ascii_forms_and_unchanged_lines_keep_them() {
        let text = "msg = “Hello — world…”\nprint(msg)\n";
        let old = "msg = \"Hello - world...\"\nprint(msg)\n";
        let new = "msg = \"Hello - world...\"\nprint(msg, end='')\n";
        let (out, note) = replace(text, old, new);
        assert_eq!(out, "msg = “Hello — world…”\nprint(msg, end='')\n");
        assert!(note.contains("the file has “ where old_string has \""), "{note}");
        // And the other way round: the model typed curly quotes into a straight file.
        let (out, _) = replace("x = 'a'\n", "x = ‘a’", "x = 'b'");
        assert_eq!(out, "x = 'b'\n");
    }

    #[test]
    fn two_tolerant_candidates_are_ambiguous_with_their_lines_and_anchors() {
        let text = "\tfoo();\n\tbar();\n\nfn x() {\n    foo();\n    bar();\n}\n";
        match locate(text, "  foo();\n  bar();\n", true) {
            Located::Ambiguous { tolerance: Tolerance::Indentation, candidates } => {
                let lines: Vec<(usize, usize)> =
                    candidates.iter().map(|c| (c.region.first_line, c.region.last_line)).collect();
                assert_eq!(lines, vec![(1, 2), (5, 6)]);
                let shown = candidates[0].region.describe();
                assert!(shown.starts_with("lines 1-2 (1#"), "{shown}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_quote_matching_one_place_by_indentation_and_another_by_punctuation_is_ambiguous() {
        // Lines 1-2 are the quote at another depth; lines 4-5 at its depth, with a dash.
        let text = "    a = x - 1\n    b()\n\na = x — 1\nb()\n";
        match locate(text, "a = x - 1\nb()\n", true) {
            Located::Ambiguous { candidates, .. } => {
                let lines: Vec<usize> = candidates.iter().map(|c| c.region.first_line).collect();
                assert_eq!(lines, vec![1, 4]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_first_level_that_finds_anything_decides() {
        // Trailing whitespace finds one region; indentation would find two. The first wins.
        let text = "  a = 1 \n\ta = 1\n";
        match locate(text, "  a = 1\n", true) {
            Located::Tolerant(t) => {
                assert_eq!((t.tolerance, t.region.first_line), (Tolerance::TrailingWhitespace, 1))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn crlf_files_keep_crlf_on_every_line_of_the_replacement() {
        let text = "a:\r\n\tb\r\nc\r\n";
        let (out, _) = replace(text, "a:\n    b\n", "a:\n    b\n    b2\n");
        assert_eq!(out, "a:\r\n\tb\r\n\tb2\r\nc\r\n");
    }

    #[test]
    fn lines_keep_their_own_endings_in_a_file_that_mixes_them() {
        let text = "a\nb\r\nc\r\nd\n";
        let (out, _) = replace(text, "b  \nc\n", "b  \nx\nc\n");
        assert_eq!(out, "a\nb\r\nx\r\nc\r\nd\n");
    }

    #[test]
    fn a_shift_back_to_column_zero_is_exact() {
        let text = "fn a() {\n    x();\n}\ny();\n";
        let (out, _) =
            replace(text, "        x();\n    }\n    y();\n", "        x();\n    }\n    z();\n    y();\n");
        assert_eq!(out, "fn a() {\n    x();\n}\nz();\ny();\n");
    }

    #[test]
    fn a_new_line_that_goes_on_from_an_aligned_line_keeps_the_files_alignment() {
        // The file aligns a continuation with a tab and 7 spaces; the model's copy has spaces.
        let text = "\tfor (; n;\n\t       n--) x;\n\ty();\n";
        let old = "    for (; n;\n           n--) x;\n    y();\n";
        let new = "    for (; n;\n           n--) x;\n               z();\n    y();\n";
        let (out, _) = replace(text, old, new);
        assert_eq!(out, "\tfor (; n;\n\t       n--) x;\n\t       \tz();\n\ty();\n");
    }

    #[test]
    fn whitespace_only_quotes_and_empty_quotes_are_never_found() {
        assert_eq!(locate("a\n\t\nb\n", "  \n", true), Located::NotFound);
        assert_eq!(locate("a", "", true), Located::NotFound);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Wherever the needle occurs exactly, the exact occurrences are what is found,
        /// tolerant or not.
        #[test]
        fn an_exact_match_is_never_overridden_by_a_tolerant_one(
            lines in proptest::collection::vec("( |\t)?(a|b|x = 1|“q”)( )?", 1..12),
            from in 0usize..12,
            len in 1usize..4,
        ) {
            let text = lines.join("\n") + "\n";
            let from = from.min(lines.len() - 1);
            let to = (from + len).min(lines.len());
            let needle = lines[from..to].join("\n");
            proptest::prop_assume!(!needle.is_empty());
            let exact: Vec<usize> = text.match_indices(needle.as_str()).map(|m| m.0).collect();
            let mut expected = Vec::new();
            let mut end = 0;
            for at in exact {
                if at >= end {
                    expected.push(at);
                    end = at + needle.len();
                }
            }
            proptest::prop_assert_eq!(locate(&text, &needle, true), Located::Exact(expected));
        }

        /// A tolerant replacement changes only the lines of its region: every line before
        /// and after it is byte for byte what it was.
        #[test]
        fn a_tolerant_match_changes_no_line_outside_its_region(
            lines in proptest::collection::vec("(\t|    |  )?(a|b|c()|“q”|x — y|é\"ü\"|─)( )?", 1..14),
            from in 0usize..14,
            len in 1usize..4,
            drift in 0usize..4,
            new in "(z|  w|\tv|\n){0,6}",
        ) {
            let text = lines.join("\n") + "\n";
            let from = from.min(lines.len() - 1);
            let to = (from + len).min(lines.len());
            // Drift the quote the ways models do.
            let quote: Vec<String> = lines[from..to].iter().map(|l| match drift {
                0 => l.trim_end().to_owned(),
                1 => format!("  {l}"),
                2 => l.replace('\t', "    "),
                _ => l.replace('“', "\"").replace('—', "-").replace('"', "”"),
            }).collect();
            let needle = quote.join("\n") + "\n";
            if let Located::Tolerant(t) = locate(&text, &needle, true) {
                let replaced = t.adapt(&text, &needle, &new);
                let mut out = text.clone();
                out.replace_range(t.region.start..t.region.end, &replaced);
                let index = LineIndex::new(&text);
                let (before, after) = (&text[..index.start_of(t.region.first_line)], &text[index.start_of(t.region.last_line + 1)..]);
                proptest::prop_assert!(out.starts_with(before) && out.ends_with(after), "{:?} -> {:?}", text, out);
                proptest::prop_assert!(t.region.start >= before.len() && t.region.end <= text.len() - after.len());
            }
        }
    }
}
