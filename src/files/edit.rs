//! `edit_file`: exact, unique, all-or-nothing replacements, applied to text in memory.
//!
//! Pure: the caller reads the file, calls [`apply`], and writes the result atomically once.
//! Each edit applies to the result of the previous one; the first that fails fails them all.
//! The file's line endings are kept: when the file uses CRLF and an edit's strings use bare
//! LF (as models usually send), the strings are converted before matching. A BOM is kept
//! because matching starts after it.

use crate::error::{EditFailure, Error, Result};
use crate::lines::LineIndex;

/// One replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// Exact text to find. Empty only to create a missing or empty file.
    pub old: String,
    /// Replacement text.
    pub new: String,
    /// Replace every occurrence instead of requiring exactly one.
    pub replace_all: bool,
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
}

const BOM: char = '\u{feff}';
/// Characters of each line compared when looking for the closest lines.
const SIMILARITY_CHARS: usize = 300;
/// Time allowed for computing a diff; past it `similar` returns a coarser (still correct) one.
const DIFF_DEADLINE: std::time::Duration = std::time::Duration::from_secs(1);
/// Lines shown when an old string is not found.
const CLOSEST_LINES: usize = 3;

/// Applies `edits` in order to `original`. `path` is only used in messages.
pub fn apply(path: &str, original: &str, edits: &[Edit]) -> Result<Edited> {
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
    let mut text = body.to_string();
    let mut replacements = Vec::with_capacity(edits.len());
    let mut converted = false;
    for (index, edit) in edits.iter().enumerate() {
        let fail = |failure| Error::Edit { path: path.to_string(), index, total: edits.len(), failure };
        // In a CRLF file, strings sent with bare LF (as models send them) are matched and
        // inserted as CRLF, each on its own: a one-line old_string may get a multi-line new one.
        let convert = |s: &str| crlf && s.contains('\n') && !s.contains("\r\n");
        let (old, new) = (
            if convert(&edit.old) { to_crlf(&edit.old) } else { edit.old.clone() },
            if convert(&edit.new) { to_crlf(&edit.new) } else { edit.new.clone() },
        );
        converted |= convert(&edit.old) || convert(&edit.new);
        if old == new {
            return Err(fail(EditFailure::NoChange));
        }
        if old.is_empty() {
            if !text.is_empty() {
                return Err(fail(EditFailure::EmptyOldOnNonEmptyFile));
            }
            text = new;
            replacements.push(1);
            continue;
        }
        let starts: Vec<usize> = text.match_indices(&old).map(|(at, _)| at).collect();
        match starts.len() {
            0 => return Err(fail(EditFailure::NotFound { closest: closest_lines(&text, &old) })),
            1 => {}
            n if !edit.replace_all => {
                let index = LineIndex::new(&text);
                let lines = starts.iter().map(|&at| index.line_of(at)).collect();
                return Err(fail(EditFailure::Ambiguous { count: n, lines }));
            }
            _ => {}
        }
        replacements.push(starts.len());
        text = text.replace(&old, &new);
    }
    if bom {
        text.insert(0, BOM);
    }
    Ok(Edited { text, replacements, converted_to_crlf: converted })
}

/// True when most line breaks are CRLF.
fn uses_crlf(text: &str) -> bool {
    let crlf = text.matches("\r\n").count();
    crlf > 0 && crlf * 2 >= text.matches('\n').count()
}

fn to_crlf(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\n', "\r\n")
}

/// The lines of `text` most similar to the first non-blank line of `old`, best first, so
/// the model can correct its `old_string` (whitespace and small typos show up here).
fn closest_lines(text: &str, old: &str) -> Vec<(usize, String)> {
    let Some(needle) = old.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return Vec::new();
    };
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

/// A unified diff of the change, at most `max_lines` lines (then a note of how many more).
pub fn unified_diff(path: &str, before: &str, after: &str, max_lines: usize) -> String {
    let diff = similar::TextDiff::configure().timeout(DIFF_DEADLINE).diff_lines(before, after);
    let text =
        diff.unified_diff().context_radius(3).header(&format!("a/{path}"), &format!("b/{path}")).to_string();
    let total = text.lines().count();
    if total <= max_lines {
        return text;
    }
    let mut cut: String = text.lines().take(max_lines).collect::<Vec<_>>().join("\n");
    cut.push_str(&format!("\n... diff cut: {} more lines (read_file shows the result)\n", total - max_lines));
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old: &str, new: &str) -> Edit {
        Edit { old: old.into(), new: new.into(), replace_all: false }
    }

    #[test]
    fn a_unique_match_is_replaced() {
        let out = apply("a.py", "a = 1\nb = 2\n", &[edit("b = 2", "b = 3")]).unwrap();
        assert_eq!(out.text, "a = 1\nb = 3\n");
        assert_eq!(out.replacements, vec![1]);
    }

    #[test]
    fn several_matches_without_replace_all_fail_with_count_and_lines() {
        let err = apply("a.py", "x\ny\nx\n", &[edit("x", "z")]).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("2 times") && text.contains("lines 1, 3"), "{text}");
    }

    #[test]
    fn replace_all_replaces_every_match() {
        let out = apply("a.py", "x\ny\nx\n", &[Edit { old: "x".into(), new: "z".into(), replace_all: true }])
            .unwrap();
        assert_eq!(out.text, "z\ny\nz\n");
        assert_eq!(out.replacements, vec![2]);
    }

    #[test]
    fn not_found_shows_the_closest_lines_with_numbers() {
        let text = "def load(path):\n    return open(path).read()\n";
        let err = apply("a.py", text, &[edit("def load(pth):", "def load(p):")]).unwrap_err().to_string();
        assert!(err.contains("not found") && err.contains("1: def load(path):"), "{err}");
    }

    #[test]
    fn identical_old_and_new_is_an_error() {
        assert!(apply("a", "x", &[edit("x", "x")]).unwrap_err().to_string().contains("identical"));
    }

    #[test]
    fn edits_apply_in_order_and_fail_all_or_nothing() {
        let edits = [edit("a", "b"), edit("b", "c"), edit("missing", "x")];
        let err = apply("f", "a\n", &edits).unwrap_err().to_string();
        assert!(err.contains("edit 3 of 3"), "{err}");
        let out = apply("f", "a\n", &edits[..2]).unwrap();
        assert_eq!(out.text, "c\n");
    }

    #[test]
    fn lf_strings_edit_a_crlf_file_and_keep_crlf() {
        let out = apply("w.txt", "one\r\ntwo\r\nthree\r\n", &[edit("one\ntwo\n", "1\n2\n")]).unwrap();
        assert_eq!(out.text, "1\r\n2\r\nthree\r\n");
        assert!(out.converted_to_crlf);
    }

    #[test]
    fn a_multi_line_new_string_for_a_one_line_old_string_keeps_crlf() {
        let out = apply("w.txt", "a\r\nb\r\n", &[edit("a", "x\ny")]).unwrap();
        assert_eq!(out.text, "x\r\ny\r\nb\r\n");
        assert!(out.converted_to_crlf);
    }

    #[test]
    fn a_huge_single_line_file_gets_a_quick_not_found() {
        let text = "x".repeat(2_000_000);
        let started = std::time::Instant::now();
        assert!(apply("min.js", &text, &[edit("yyyy", "z")]).is_err());
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn bom_and_final_newline_are_kept() {
        let out = apply("b.txt", "\u{feff}alpha\nbeta\n", &[edit("alpha", "gamma")]).unwrap();
        assert_eq!(out.text, "\u{feff}gamma\nbeta\n");
    }

    #[test]
    fn empty_old_string_creates_content_only_in_an_empty_file() {
        assert_eq!(apply("n.txt", "", &[edit("", "hello\n")]).unwrap().text, "hello\n");
        let err = apply("n.txt", "x", &[edit("", "hello\n")]).unwrap_err().to_string();
        assert!(err.contains("empty"), "{err}");
    }

    #[test]
    fn unified_diff_is_capped() {
        let before: String = (0..100).map(|i| format!("{i}\n")).collect();
        let after: String = (0..100).map(|i| format!("{}\n", i * 2)).collect();
        let diff = unified_diff("a.txt", &before, &after, 20);
        assert!(diff.starts_with("--- a/a.txt\n+++ b/a.txt\n"));
        assert!(diff.contains("diff cut:"), "{diff}");
    }
}
