//! How a replacement lands where a tolerant match was found ([`Tolerant::adapt`]): lines the
//! model sent unchanged stay as the file has them, new ones take the file's indentation,
//! look-alikes and line endings.
//!
//! Apart from locating because it answers a different question: not "where", but "what
//! should the file read". The look-alikes a match records for this (`file_forms`, found
//! while locating) are worked out here too, so that the rule for keeping the file's own
//! characters is in one place.

use super::canonical::{Canonical, canonical_line, fold, is_indent, is_space};
use super::indentation::{columns, indent_of};
use super::{Tolerance, Tolerant, split_lines};

impl Tolerant {
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

/// The trailing blanks of a line.
fn tail_of(line: &str) -> &str {
    &line[line.trim_end_matches(is_space).len()..]
}

/// True when the text's first line ending is CRLF.
fn uses_crlf(text: &str) -> bool {
    memchr::memchr(b'\n', text.as_bytes()).is_some_and(|i| i > 0 && text.as_bytes()[i - 1] == b'\r')
}

/// The look-alikes the quote (`quote`, aligned with `hay` from byte `cs`) shows for one and
/// the same character of the file everywhere: (the quote's character, the file's). A
/// character the quote also has where the file has it too is left out: it is not a drift.
pub(super) fn file_forms(
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
