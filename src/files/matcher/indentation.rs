//! Indentation: the uniform shift that carries a quote's lines onto the file's, and how a
//! file indents (tabs or spaces).
//!
//! Apart because it is the one tolerance with a shape to check rather than characters to
//! ignore: a quote matches ignoring indentation only if one shift fits every line, and the
//! same shift then re-indents the replacement.

use super::canonical::is_indent;
use super::{Candidate, Tolerance, split_lines};

/// Columns a tab counts for when indentation is compared. Any width works for the shift (it
/// only has to be the same on both sides); 4 makes tab-against-4-spaces a shift of nothing.
pub(super) const TAB_COLUMNS: i64 = 4;

/// How the quoted text's indentation maps onto the file's: `file = f + (w - n) * num / den`,
/// in columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Shift {
    /// A file line's indentation, in columns...
    pub(super) file: i64,
    /// ... and the quoted line's it pairs with.
    pub(super) quoted: i64,
    pub(super) num: i64,
    pub(super) den: i64,
    /// The file's indentation of the first line, when the quote's first line had lost all of
    /// its own (copied from the line's first character) while the rest kept theirs.
    pub(super) first_line_indent: Option<String>,
    /// How the file indents.
    pub(super) style: Style,
}

impl Shift {
    /// The file's indentation, in columns, for a quoted indentation of `width` columns.
    pub(super) fn apply(&self, width: i64) -> i64 {
        let scaled = (width - self.quoted) * self.num;
        // Rounded to the nearest column: only an alignment that is not a whole level can fall
        // between two.
        let offset = (2 * scaled + self.den).div_euclid(2 * self.den);
        (self.file + offset).max(0)
    }
}

/// How a file indents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    Tabs,
    Spaces,
}

impl Style {
    /// `columns` of indentation in this style (tabs, then spaces for what is not a whole tab).
    pub(super) fn indent(self, columns: i64) -> String {
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

/// Columns of an indentation (a tab counts [`TAB_COLUMNS`]).
pub(super) fn columns(indent: &str) -> i64 {
    indent.chars().map(|c| if c == '\t' { TAB_COLUMNS } else { 1 }).sum()
}

/// The indentation of a line.
pub(super) fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches(is_indent).len()]
}

/// The re-indentation that carries the quote's lines onto the candidate's, checked: Some(None)
/// where indentation is not in question (a lower tolerance, or the quote indents as the file), Some(shift) where one uniform shift does it, None
/// where no shift does (the quote has another shape than the file: not a match).
pub(super) fn fit_shift(
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
    // The quote has the file's indentation, byte for byte: nothing to shift, and the model's own
    // lines keep the indentation it wrote.
    let counted = |i: usize, quoted: &str| !quoted.trim().is_empty() && (i > 0 || candidate.starts_line);
    if file_lines
        .iter()
        .zip(needle_lines)
        .enumerate()
        .all(|(i, ((file, _), (quoted, _)))| !counted(i, quoted) || indent_of(file) == indent_of(quoted))
    {
        return Some(None);
    }
    // The pairs that say something about indentation: lines with text, and the first only
    // when the match starts its line.
    let pairs: Vec<(usize, i64, i64)> = file_lines
        .iter()
        .zip(needle_lines)
        .enumerate()
        .filter(|(i, (_, (quoted, _)))| counted(*i, quoted))
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
pub(super) fn style_of(text: &str, region_lines: &[(&str, bool)]) -> Style {
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
