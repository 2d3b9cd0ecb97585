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
//! nothing. Models' drifted quotes are mostly unambiguous; when they are not, guessing is how
//! other servers damage files.
//!
//! A tolerant match also decides how its replacement lands ([`Tolerant::adapt`]): lines the
//! model sent unchanged are kept as the file has them (their whitespace and punctuation), and
//! new lines are re-indented by the same shift, in the file's own style, so that the file reads
//! as if the model had copied it exactly.
//!
//! How it works: each tolerance is a canonical form of a text (per line: trimmed, folded) that
//! remembers, for every byte, which bytes of the original it came from. The quoted text is put
//! in the same form and searched for; every hit is mapped back to the original and checked
//! (whole lines where indentation was ignored, the uniform shift).

use super::anchor::anchor_of;
use crate::lines::LineIndex;

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
    /// Exact occurrences: their starting bytes, ascending and not overlapping (at least one).
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
/// Columns a tab counts for when indentation is compared. Any width works for the shift (it
/// only has to be the same on both sides); 4 makes tab-against-4-spaces a shift of nothing.
const TAB_COLUMNS: i64 = 4;

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
    /// Look-alikes the model's copy shows consistently for one character of the file (its
    /// `“` for every `"` of the file): in what the model wrote itself, they are the file's.
    file_forms: Vec<(char, String)>,
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

    /// `new` as it should replace this region of `text`, for the quoted text `needle`: a line
    /// of `new` that the model sent exactly as it quoted it is the file's line as it stands; any
    /// other line is re-indented by the match's shift, in the file's indentation style (a
    /// blank line stays empty); line endings are the file's.
    pub fn adapt(&self, text: &str, needle: &str, new: &str) -> String {
        let file_lines = split_lines(&text[self.region.start..self.region.end]);
        let needle_lines = split_lines(needle);
        let new_lines = split_lines(new);
        // Each line ends as the file's line it stands for, a new line as the one before it.
        let endings: Vec<&str> = text[self.region.start..self.region.end]
            .split_inclusive('\n')
            .map(|l| if l.ends_with("\r\n") { "\r\n" } else { "\n" })
            .collect();
        let mut eol = endings.first().copied().unwrap_or(if uses_crlf(text) { "\r\n" } else { "\n" });
        let canon = |l: &(&str, bool)| canonical_line(l.0, self.tolerance);
        let old_keys: Vec<String> = needle_lines.iter().map(canon).collect();
        let new_keys: Vec<String> = new_lines.iter().map(canon).collect();
        // Which line of the quote each line of `new` repeats (`same`), or changes (`paired`:
        // the k-th line of a replaced run for the k-th line it replaces).
        let mut same: Vec<Option<usize>> = vec![None; new_lines.len()];
        let mut paired: Vec<Option<usize>> = vec![None; new_lines.len()];
        for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old_keys, &new_keys) {
            match op {
                similar::DiffOp::Equal { old_index, new_index, len } => {
                    for k in 0..len {
                        same[new_index + k] = Some(old_index + k);
                    }
                }
                similar::DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                    for k in 0..old_len.min(new_len) {
                        paired[new_index + k] = Some(old_index + k);
                    }
                }
                _ => {}
            }
        }
        // Trailing blanks that the quote adds to every line of the file's: the model's copy
        // adds them, so a new line carrying them has them from the copy too.
        let tails: Vec<(&str, &str)> = file_lines
            .iter()
            .zip(&needle_lines)
            .filter(|(_, q)| !q.0.trim().is_empty())
            .map(|(f, q)| (tail_of(f.0), tail_of(q.0)))
            .collect();
        fn added<'a>(file: &str, quoted: &'a str) -> Option<&'a str> {
            quoted.strip_prefix(file).filter(|t| !t.is_empty())
        }
        let drift_tail = match tails.first().and_then(|&(f, q)| added(f, q)) {
            Some(t) if tails.iter().all(|&(f, q)| added(f, q) == Some(t)) => t.to_owned(),
            _ => "\u{0}".to_owned(),
        };
        let mut out = String::with_capacity(new.len() + 16);
        // The quoted line a new line's indentation is told against: the last one with text
        // that the replacement kept or changed, else the first of the quote.
        let mut reference =
            needle_lines.iter().position(|l| !l.0.trim().is_empty()).filter(|&i| i < file_lines.len());
        for (j, &(line, ended)) in new_lines.iter().enumerate() {
            if let Some(&ending) = same[j].or(paired[j]).and_then(|i| endings.get(i)) {
                eol = ending;
            }
            let mapped = same[j].or(paired[j]).filter(|&i| i < file_lines.len());
            if let Some(i) = mapped.filter(|&i| !needle_lines[i].0.trim().is_empty()) {
                reference = Some(i);
            }
            let at = |i: usize| (file_lines[i].0, needle_lines[i].0);
            match mapped {
                // Sent as quoted: the file's line as it stands.
                Some(i) if needle_lines[i].0 == line => out.push_str(file_lines[i].0),
                // Changed: what the model kept of the quoted line keeps the file's characters.
                Some(i) => out.push_str(&keep_files_characters(
                    file_lines[i].0,
                    needle_lines[i].0,
                    &self.reindent(j, line, Some(at(i))),
                    &self.file_forms,
                )),
                None => {
                    let line = line.strip_suffix(drift_tail.as_str()).unwrap_or(line);
                    out.push_str(&in_file_forms(
                        &self.reindent(j, line, reference.map(at)),
                        &self.file_forms,
                    ));
                }
            }
            if ended {
                out.push_str(eol);
            }
        }
        out
    }

    /// Line `j` of a replacement with the match's shift applied. Where its indentation goes on
    /// from that of the quoted line `reference` (the file's line, the quote's line), it goes on
    /// from the file's line's own indentation, so that an alignment the file makes with tabs and
    /// spaces is kept; otherwise it is measured in columns.
    fn reindent(&self, j: usize, line: &str, reference: Option<(&str, &str)>) -> String {
        let Some(shift) = &self.shift else { return line.to_owned() };
        if j == 0 && !self.starts_line {
            return line.to_owned();
        }
        let rest = line.trim_start_matches(is_indent);
        if rest.trim().is_empty() {
            return String::new();
        }
        let own = &line[..line.len() - rest.len()];
        let width = columns(own);
        if let (Some(kept), 0, 0) = (&shift.first_line_indent, j, width) {
            return format!("{kept}{rest}");
        }
        // The quote's first line lost its indentation: it tells nothing to go on from.
        let usable = |(file, quoted): (&str, &str)| -> Option<String> {
            let (file_indent, quoted_indent) = (indent_of(file), indent_of(quoted));
            if shift.first_line_indent.is_some() && quoted_indent.is_empty() {
                return None;
            }
            let more = own.strip_prefix(quoted_indent)?;
            let scaled = (columns(more) * shift.num + shift.den / 2) / shift.den;
            Some(format!("{file_indent}{}", shift.style.indent(scaled)))
        };
        let indent = reference.and_then(usable).unwrap_or_else(|| shift.style.indent(shift.apply(width)));
        format!("{indent}{rest}")
    }
}

/// `changed` (a line of a replacement, already re-indented) with the characters it kept of
/// `quoted` (the model's copy of the file's line `file`) as the file has them: a look-alike the
/// model typed differently (a straight quote for the file's curly one) is the file's again,
/// and so are the line's trailing blanks where the model's are those of its quote. What the
/// model changed is its own. Where the quoted line is not the file's line but for those
/// tolerances, `changed` is returned as it is.
fn keep_files_characters(file: &str, quoted: &str, changed: &str, forms: &[(char, String)]) -> String {
    let body = |l: &str| -> (String, String, String) {
        let rest = l.trim_start_matches(is_indent);
        let kept = rest.trim_end_matches(is_space);
        (l[..l.len() - rest.len()].to_owned(), kept.to_owned(), rest[kept.len()..].to_owned())
    };
    let ((_, file_body, file_tail), (_, quoted_body, quoted_tail), (indent, changed_body, changed_tail)) =
        (body(file), body(quoted), body(changed));
    let (f, q) = (
        Canonical::of(&file_body, Tolerance::Punctuation),
        Canonical::of(&quoted_body, Tolerance::Punctuation),
    );
    if f.text != q.text {
        return in_file_forms(changed, forms);
    }
    // Each character of the quoted body that the file has otherwise: the file's character.
    let mut theirs: std::collections::HashMap<usize, (usize, usize)> = std::collections::HashMap::new();
    for (c, _) in q.text.char_indices() {
        let (q_at, f_range) = (q.source[c].0 as usize, (f.source[c].0 as usize, f.source[c].1 as usize));
        if quoted_body[q_at..].chars().next() != file_body[f_range.0..].chars().next() {
            theirs.insert(q_at, f_range);
        }
    }
    let quoted_chars: Vec<(usize, char)> = quoted_body.char_indices().collect();
    let changed_chars: Vec<char> = changed_body.chars().collect();
    let just_chars: Vec<char> = quoted_chars.iter().map(|&(_, c)| c).collect();
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &just_chars, &changed_chars);
    let mut out = indent;
    let mut last_taken: Option<(usize, usize)> = None;
    for op in &ops {
        match *op {
            similar::DiffOp::Equal { old_index, new_index, len } => {
                for k in 0..len {
                    match theirs.get(&quoted_chars[old_index + k].0) {
                        // A folded character (`…` for `...`) is taken once for all of its parts.
                        Some(&range) if last_taken == Some(range) => {}
                        Some(&range) => {
                            out.push_str(&file_body[range.0..range.1]);
                            last_taken = Some(range);
                        }
                        None => out.push(changed_chars[new_index + k]),
                    }
                }
            }
            _ => {
                let (from, len) = (op.new_range().start, op.new_range().len());
                let own: String = changed_chars[from..from + len].iter().collect();
                out.push_str(&in_file_forms(&own, forms));
            }
        }
    }
    // Blanks the model left as it quoted them are the file's; its own are its own.
    out.push_str(if changed_tail == quoted_tail { &file_tail } else { &changed_tail });
    out
}

/// How the quoted text's indentation maps onto the file's: `file = f + (w - n) * num / den`,
/// in columns.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shift {
    /// A file line's indentation, in columns...
    file: i64,
    /// ... and the quoted line's it pairs with.
    quoted: i64,
    num: i64,
    den: i64,
    /// The file's indentation of the first line, when the quote's first line had lost all of
    /// its own (copied from the line's first character) while the rest kept theirs.
    first_line_indent: Option<String>,
    /// How the file indents.
    style: Style,
}

impl Shift {
    /// The file's indentation, in columns, for a quoted indentation of `width` columns.
    fn apply(&self, width: i64) -> i64 {
        let scaled = (width - self.quoted) * self.num;
        // Rounded to the nearest column: only an alignment that is not a whole level can fall
        // between two.
        let offset = (2 * scaled + self.den).div_euclid(2 * self.den);
        (self.file + offset).max(0)
    }
}

/// How a file indents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Tabs,
    Spaces,
}

impl Style {
    /// `columns` of indentation in this style (tabs, then spaces for what is not a whole tab).
    fn indent(self, columns: i64) -> String {
        let columns = columns.max(0) as usize;
        match self {
            Style::Tabs => {
                let tab = TAB_COLUMNS as usize;
                format!("{}{}", "\t".repeat(columns / tab), " ".repeat(columns % tab))
            }
            Style::Spaces => " ".repeat(columns),
        }
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
    let index = LineIndex::new(text);
    for tolerance in Tolerance::ALL {
        let mut found = candidates(text, &index, needle, from, tolerance);
        match found.len() {
            0 => continue,
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
/// than can be listed).
fn candidates(
    text: &str,
    index: &LineIndex,
    needle: &str,
    from: usize,
    tolerance: Tolerance,
) -> Vec<Tolerant> {
    let hay = Canonical::of(text, tolerance);
    let quote = Canonical::of(needle, tolerance);
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
        {
            let Some(shift) = fit_shift(text, &candidate, &needle_lines, tolerance) else { continue };
            let tolerated = tolerated(text, &candidate, needle, &hay, &quote, cs, tolerance, shift.as_ref());
            let file_forms = match tolerance {
                Tolerance::Punctuation => file_forms(text, needle, &hay, &quote, cs),
                _ => Vec::new(),
            };
            found.push(Tolerant {
                region: candidate.region,
                tolerance,
                tolerated,
                shift,
                starts_line: candidate.starts_line,
                file_forms,
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

/// A text in the canonical form of a tolerance, with the original bytes each of its bytes
/// came from.
struct Canonical {
    text: String,
    /// For each byte of `text`: the range of the original character it came from. A folded
    /// character (`…` to `...`) gives each of its bytes the same range.
    source: Vec<(u32, u32)>,
}

impl Canonical {
    fn of(text: &str, tolerance: Tolerance) -> Canonical {
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
                let folded = match tolerance {
                    Tolerance::Punctuation => fold(c),
                    _ => None,
                };
                chars.push((folded.unwrap_or(&content[i..end]), at + i, at + end, folded.is_some()));
            }
            let blank = |s: &str| s.len() == 1 && is_space(s.as_bytes()[0] as char);
            let mut lo = 0;
            if tolerance >= Tolerance::Indentation {
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
    fn region(
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
fn fold(c: char) -> Option<&'static str> {
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
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\x0b' | '\x0c' | '\r')
}

/// A character of indentation.
fn is_indent(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// The trailing blanks of a line.
fn tail_of(line: &str) -> &str {
    &line[line.trim_end_matches(is_space).len()..]
}

/// Columns of an indentation (a tab counts [`TAB_COLUMNS`]).
fn columns(indent: &str) -> i64 {
    indent.chars().map(|c| if c == '\t' { TAB_COLUMNS } else { 1 }).sum()
}

/// The indentation of a line.
fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches(is_indent).len()]
}

/// Characters of each line compared when looking for the closest lines.
const SIMILARITY_CHARS: usize = 300;
/// Lines shown when a quoted text is not found.
const CLOSEST_LINES: usize = 3;

/// The lines of `text` most similar to the first line of `quote` that is not in it (or to its
/// first non-blank line), best first, each with its number, so that the model can correct its
/// quote (what differs shows up here).
pub fn closest_lines(text: &str, quote: &str) -> Vec<(usize, String)> {
    let mut lines = quote.lines().map(str::trim).filter(|l| !l.is_empty());
    let Some(first) = lines.clone().next() else {
        return Vec::new();
    };
    let present = |l: &str| text.lines().any(|t| t.trim() == l);
    let needle = lines.find(|l| !present(l)).unwrap_or(first);
    // Comparing characters is quadratic: cap both sides so a minified megabyte line cannot
    // stall the call.
    let cap = |s: &str| -> String { s.chars().take(SIMILARITY_CHARS).collect() };
    let needle = cap(needle);
    let mut scored: Vec<(f32, usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            (similar::TextDiff::from_chars(needle.as_str(), cap(line.trim()).as_str()).ratio(), i + 1, line)
        })
        .filter(|(score, _, _)| *score >= 0.5)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(CLOSEST_LINES)
        .map(|(_, n, line)| (n, line.trim_end_matches('\r').chars().take(200).collect()))
        .collect()
}

/// A line's key with every tolerance: trimmed, look-alike punctuation folded. Two lines with
/// equal keys are the same line to a tolerant reader (a patch's `@@ context` line).
pub fn line_key(line: &str) -> String {
    Canonical::of(line.trim_end_matches(['\n', '\r']), Tolerance::Punctuation).text
}

/// A line's key at a tolerance: what two lines must share to be the same line there.
fn canonical_line(line: &str, tolerance: Tolerance) -> String {
    Canonical::of(line, tolerance).text
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

/// True when the text's first line ending is CRLF.
fn uses_crlf(text: &str) -> bool {
    memchr::memchr(b'\n', text.as_bytes()).is_some_and(|i| i > 0 && text.as_bytes()[i - 1] == b'\r')
}

/// The re-indentation that carries the quote's lines onto the candidate's, checked: Some(None)
/// where indentation is not in question, Some(shift) where one uniform shift does it, None
/// where no shift does (the quote has another shape than the file: not a match).
fn fit_shift(
    text: &str,
    candidate: &Candidate,
    needle_lines: &[(&str, bool)],
    tolerance: Tolerance,
) -> Option<Option<Shift>> {
    if tolerance < Tolerance::Indentation {
        return Some(None);
    }
    let region = &candidate.region;
    let file_lines = split_lines(&text[region.start..region.end]);
    if file_lines.len() != needle_lines.len() {
        return None;
    }
    // The pairs that say something about indentation: lines with text, and the first only
    // when the match starts its line.
    let pairs: Vec<(usize, i64, i64)> = file_lines
        .iter()
        .zip(needle_lines)
        .enumerate()
        .filter(|(i, (_, (quoted, _)))| !quoted.trim().is_empty() && (*i > 0 || candidate.starts_line))
        .map(|(i, ((file, _), (quoted, _)))| (i, columns(indent_of(file)), columns(indent_of(quoted))))
        .collect();
    let style = style_of(text, &file_lines);
    let first_stripped =
        pairs.first().is_some_and(|&(i, _, quoted)| i == 0 && quoted == 0) && pairs.len() > 1;
    let kept_first = || Some(indent_of(file_lines[0].0).to_owned());
    let shift = |pairs: &[(usize, i64, i64)], first_line_indent: Option<String>| {
        fit(pairs).map(|(file, quoted, num, den)| Shift { file, quoted, num, den, first_line_indent, style })
    };
    let found = shift(&pairs, None)
        .filter(|s| s.num == s.den)
        .or_else(|| {
            first_stripped.then(|| shift(&pairs[1..], kept_first()).filter(|s| s.num == s.den)).flatten()
        })
        .or_else(|| shift(&pairs, None))
        .or_else(|| first_stripped.then(|| shift(&pairs[1..], kept_first())).flatten())?;
    Some(Some(found))
}

/// The uniform shift `file = f + (quoted - q) * num / den` that holds for every pair
/// `(_, file columns, quoted columns)`, or None. The ratio is 1 unless the two indent with
/// different units (tabs against spaces, 2 against 4 columns); it is never 0 or negative, so
/// nesting keeps its direction.
fn fit(pairs: &[(usize, i64, i64)]) -> Option<(i64, i64, i64, i64)> {
    let Some(&(_, f0, q0)) = pairs.first() else { return Some((0, 0, 1, 1)) };
    if pairs.iter().all(|&(_, f, q)| f - q == f0 - q0) {
        return Some((f0, q0, 1, 1));
    }
    let &(_, fr, qr) = pairs.iter().find(|&&(_, _, q)| q != q0)?;
    let (df, dq) = (fr - f0, qr - q0);
    if df == 0 || (df > 0) != (dq > 0) {
        return None;
    }
    let g = gcd(df.abs(), dq.abs());
    let (num, den) = (df.abs() / g, dq.abs() / g);
    // Beyond 8 to 1 it is no longer a unit of indentation but another shape.
    if num > 8 * den || den > 8 * num {
        return None;
    }
    pairs.iter().all(|&(_, f, q)| (f - f0) * den == (q - q0) * num).then_some((f0, q0, num, den))
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

/// How the file indents: as the matched lines do, or where none of them is indented, as most
/// indented lines of the file do.
fn style_of(text: &str, region_lines: &[(&str, bool)]) -> Style {
    let vote = |lines: &mut dyn Iterator<Item = &str>| -> Option<Style> {
        let (mut tabs, mut spaces) = (0usize, 0usize);
        for line in lines {
            match line.as_bytes().first() {
                Some(b'\t') => tabs += 1,
                Some(b' ') if !line.trim().is_empty() => spaces += 1,
                _ => {}
            }
        }
        (tabs + spaces > 0).then_some(if tabs > spaces { Style::Tabs } else { Style::Spaces })
    };
    vote(&mut region_lines.iter().map(|l| l.0))
        .or_else(|| vote(&mut text.lines().take(20_000)))
        .unwrap_or(Style::Spaces)
}

/// The look-alikes the quote (`quote`, aligned with `hay` from byte `cs`) shows for one and
/// the same character of the file everywhere: (the quote's character, the file's). A
/// character the quote also has where the file has it too is left out: it is not a drift.
fn file_forms(
    text: &str,
    needle: &str,
    hay: &Canonical,
    quote: &Canonical,
    cs: usize,
) -> Vec<(char, String)> {
    let mut forms: Vec<(char, String)> = Vec::new();
    let mut kept: Vec<char> = Vec::new();
    for (k, _) in quote.text.char_indices() {
        let (f, q) = (hay.source[cs + k], quote.source[k]);
        // A character copied as it is maps byte by byte: take it whole from its first byte.
        let Some(first) = text[f.0 as usize..].chars().next() else { continue };
        let file_char = &text[f.0 as usize..(f.0 as usize + first.len_utf8()).max(f.1 as usize)];
        let Some(quoted) = needle[q.0 as usize..].chars().next() else { continue };
        if file_char.starts_with(quoted) && file_char.len() == quoted.len_utf8() {
            kept.push(quoted);
        } else if fold(quoted).is_some() || file_char.chars().next().and_then(fold).is_some() {
            forms.push((quoted, file_char.to_owned()));
        }
    }
    let mut consistent: Vec<(char, String)> = Vec::new();
    for (q, f) in &forms {
        let same = forms.iter().filter(|(q2, _)| q2 == q).all(|(_, f2)| f2 == f);
        if same && !kept.contains(q) && !consistent.iter().any(|(c, _)| c == q) {
            consistent.push((*q, f.clone()));
        }
    }
    consistent
}

/// `text` the model wrote itself, with the file's forms of the look-alikes its copy shows
/// consistently (see [`Tolerant::file_forms`]).
fn in_file_forms(text: &str, forms: &[(char, String)]) -> String {
    if forms.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match forms.iter().find(|(q, _)| *q == c) {
            Some((_, f)) => out.push_str(f),
            None => out.push(c),
        }
    }
    out
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
        // The changed line keeps the file's blank too: the model did not touch its end.
        assert_eq!(out, "def f():  \n    return 2 \nprint(f())\n");
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
    fn a_changed_line_keeps_the_files_look_alikes_and_trailing_blanks_where_the_model_kept_them() {
        let text = "msg = “Hi” + name  \ncount = 1\n";
        let old = "msg = \"Hi\" + name\ncount = 1\n";
        let new = "msg = \"Hi\" + full_name\ncount = 1\n";
        let (out, _) = replace(text, old, new);
        assert_eq!(out, "msg = “Hi” + full_name  \ncount = 1\n");
        let new = "msg = \"Hi\" + name + \"!\" \ncount = 1\n";
        let (out, _) = replace(text, old, new);
        assert_eq!(out, "msg = “Hi” + name + \"!\" \ncount = 1\n", "blanks the model typed are its own");
        // A copy that adds blanks to every line: new lines lose them too.
        let (out, _) = replace("a()\nb()\n", "a()  \nb()  \n", "a()  \nc()  \nb()  \n");
        assert_eq!(out, "a()\nc()\nb()\n");
        let new = "msg = \"Hey\" + name\ncount = 1\n";
        let (out, _) = replace(text, old, new);
        assert_eq!(out, "msg = “Hey” + name  \ncount = 1\n");
        // An ellipsis is one character in the file and three in the quote: taken once.
        let (out, _) = replace("wait…\ndone\n", "wait...\ndone\n", "wait... please\ndone\n");
        assert_eq!(out, "wait… please\ndone\n");
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
    fn look_alikes_the_copy_shows_consistently_are_the_files_in_the_models_own_text() {
        let text = "a = \"x\"\nb = 'y'\n";
        let (out, _) = replace(text, "a = “x”\nb = ‘y’\n", "a = “x”\nc = “new”\nb = ‘y’\n");
        assert_eq!(out, "a = \"x\"\nc = \"new\"\nb = 'y'\n");
    }

    #[test]
    fn a_fragment_inside_a_line_matches_with_punctuation_but_only_there() {
        let text = "    log(“done”); next();\n";
        let (out, _) = replace(text, "log(\"done\");", "log(\"finished\");");
        // The quotes the model kept are the file's again.
        assert_eq!(out, "    log(“finished”); next();\n");
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
