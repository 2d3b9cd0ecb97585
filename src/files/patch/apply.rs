//! Applying one file's hunks of a patch to its text, in memory: each hunk is located by its
//! context and removed lines with [`matcher`], in order, each after the one before.
//!
//! Pure, like [`crate::files::apply_edits`]: the caller reads every file of a patch, applies all of them
//! here, and writes only when every hunk of every file found its place.

use super::{Hunk, HunkLine};
use crate::files::matcher::{self, Located};
use crate::lines::LineIndex;

/// One file's text after its hunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patched {
    /// The whole new text.
    pub text: String,
    /// Lines the hunks added.
    pub added: usize,
    /// Lines the hunks removed.
    pub removed: usize,
    /// The hunks that matched only with a tolerance: `hunk 2: matched lines 40-47 ignoring ...`.
    pub tolerated: Vec<String>,
}

/// Why a hunk found no place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkFailure {
    /// 1-based number of the hunk in its file.
    pub hunk: usize,
    /// The hunk's line in the patch.
    pub patch_line: usize,
    /// What went wrong, in words.
    pub problem: String,
    /// The lines of the file closest to what the hunk expected (number, text).
    pub closest: Vec<(usize, String)>,
}

const BOM: char = '\u{feff}';

/// Applies `hunks` in order to `original`, keeping its BOM, line endings and (unless a hunk
/// changes the last line) its lack of a final newline.
pub fn apply_hunks(original: &str, hunks: &[Hunk], tolerant: bool) -> Result<Patched, HunkFailure> {
    let (bom, body) = match original.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, original),
    };
    let eol = if body.contains("\r\n") && body.matches("\r\n").count() * 2 >= body.matches('\n').count() {
        "\r\n"
    } else {
        "\n"
    };
    // A file without a final newline is matched as if it had one (hunks quote whole lines); the
    // newline is taken off again when the end was not changed.
    let open_end = !body.is_empty() && !body.ends_with('\n');
    let mut text = body.to_owned();
    if open_end {
        text.push_str(eol);
    }
    let mut cursor = 0usize;
    // Lines added minus removed by the hunks so far: where a unified diff's line numbers,
    // which count the old file, now point.
    let mut drift: isize = 0;
    // Whether the result ends with a newline, where a hunk says (`\ No newline at end of file`).
    let mut final_newline: Option<bool> = None;
    let mut out = Patched { text: String::new(), added: 0, removed: 0, tolerated: Vec::new() };
    for (i, hunk) in hunks.iter().enumerate() {
        let fail = |problem: String, closest| HunkFailure {
            hunk: i + 1,
            patch_line: hunk.patch_line,
            problem,
            closest,
        };
        // `@@ class Foo` narrows the search to after that line.
        for context in &hunk.contexts {
            match find_line(&text, context, cursor, tolerant) {
                Some(after) => cursor = after,
                None => {
                    return Err(fail(
                        format!("its context line {context:?} is not in the file after the previous hunk"),
                        matcher::closest_lines(&text, context),
                    ));
                }
            }
        }
        // The text is matched with a final newline (see above): a side without one gets it,
        // and whether the file ends with one is decided at the end.
        let mut old = with_eol(&hunk.old_text(), eol);
        let mut new = with_eol(&hunk.new_text(), eol);
        if hunk.old_missing_final_newline && !old.is_empty() {
            old.push_str(eol);
        }
        if hunk.new_missing_final_newline && !new.is_empty() {
            new.push_str(eol);
        }
        match (hunk.old_missing_final_newline, hunk.new_missing_final_newline) {
            (_, true) => final_newline = Some(false),
            (true, false) => final_newline = Some(true),
            (false, false) => {}
        }
        out.added += hunk.lines.iter().filter(|l| matches!(l, HunkLine::Add(_))).count();
        out.removed += hunk.lines.iter().filter(|l| matches!(l, HunkLine::Remove(_))).count();
        let hint = hunk.old_start.map(|l| (l as isize + drift).max(1) as usize);
        let (start, end, landed) = if old.is_empty() {
            // Only added lines: where the hint says, else at the cursor (after the context
            // lines), else at the end.
            let at = match (hint, hunk.contexts.is_empty()) {
                (Some(line), _) => line_start(&text, line),
                (None, false) => cursor,
                (None, true) => text.len(),
            };
            (at, at, new.clone())
        } else {
            match matcher::locate_from(&text, &old, cursor, tolerant) {
                Located::Exact(starts) => {
                    let at = pick(&text, &starts, old.len(), hint, hunk.end_of_file).ok_or_else(|| {
                        fail(
                            "its lines are in the file but not at its end, as `*** End of File` says".into(),
                            Vec::new(),
                        )
                    })?;
                    (at, at + old.len(), new.clone())
                }
                Located::Tolerant(found) => {
                    if hunk.end_of_file && found.region.end < text.len() {
                        return Err(fail(
                            "its lines are in the file but not at its end, as `*** End of File` says".into(),
                            Vec::new(),
                        ));
                    }
                    let landed = found.adapt(&text, &old, &new);
                    out.tolerated.push(format!("hunk {}: {}", i + 1, found.describe()));
                    (found.region.start, found.region.end, landed)
                }
                Located::Ambiguous { tolerance, candidates } => {
                    // A unified diff's line number settles it when one candidate starts there.
                    let at_hint = hint.and_then(|h| candidates.iter().position(|c| c.region.first_line == h));
                    let Some(found) = at_hint.map(|k| &candidates[k]) else {
                        let listed: Vec<String> = candidates.iter().map(|c| c.region.describe()).collect();
                        return Err(fail(
                            format!(
                                "its lines do not occur exactly, and ignoring {} they match {} places ({}): \
                                 nothing was guessed; add context lines that tell them apart",
                                tolerance.describe(),
                                candidates.len(),
                                listed.join(", ")
                            ),
                            Vec::new(),
                        ));
                    };
                    let landed = found.adapt(&text, &old, &new);
                    out.tolerated.push(format!("hunk {}: {}", i + 1, found.describe()));
                    (found.region.start, found.region.end, landed)
                }
                Located::NotFound => {
                    return Err(fail(
                        "its context and removed lines are not in the file (after the previous hunk)".into(),
                        matcher::closest_lines(&text, &old),
                    ));
                }
            }
        };
        text.replace_range(start..end, &landed);
        cursor = start + landed.len();
        drift += new.lines().count() as isize - old.lines().count() as isize;
    }
    if final_newline.map_or(open_end, |ends| !ends)
        && let Some(kept) = text.strip_suffix(eol)
    {
        text.truncate(kept.len());
    }
    if bom {
        text.insert(0, BOM);
    }
    out.text = text;
    Ok(out)
}

/// Where the exact occurrence of a hunk (one of `starts`, each `len` bytes) goes: at the end of
/// the text for `*** End of File` (None when none ends there), else the one nearest the
/// hint's line, else the first.
fn pick(text: &str, starts: &[usize], len: usize, hint: Option<usize>, end_of_file: bool) -> Option<usize> {
    if end_of_file {
        return starts.iter().rev().copied().find(|&at| at + len == text.len());
    }
    match hint {
        Some(line) => {
            let index = LineIndex::new(text);
            starts.iter().copied().min_by_key(|&at| index.line_of(at).abs_diff(line))
        }
        None => starts.first().copied(),
    }
}

/// The byte after the first line at or after `from` that is the context line `context` (as a
/// whole line, leading and trailing blanks aside; with `tolerant`, also with look-alike
/// punctuation folded), or that contains it.
fn find_line(text: &str, context: &str, from: usize, tolerant: bool) -> Option<usize> {
    let wanted = context.trim();
    if wanted.is_empty() {
        return Some(from);
    }
    let key = |line: &str| match tolerant {
        true => matcher::line_key(line),
        false => line.trim().to_owned(),
    };
    let wanted_key = key(wanted);
    let lines = || {
        let mut at = from;
        text[from..].split_inclusive('\n').map(move |line| {
            at += line.len();
            (line, at)
        })
    };
    lines()
        .find(|(line, _)| key(line) == wanted_key)
        .or_else(|| lines().find(|(line, _)| key(line).contains(&wanted_key)))
        .map(|(_, end)| end)
}

/// Where 1-based `line` starts; past the end, the text's length.
fn line_start(text: &str, line: usize) -> usize {
    LineIndex::new(text).start_of(line)
}

/// `text` with its line endings made `eol`.
fn with_eol(text: &str, eol: &str) -> String {
    let lf = text.replace("\r\n", "\n");
    if eol == "\n" { lf } else { lf.replace('\n', eol) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::patch::{FilePatch, parse};

    /// The hunks of the first file of `patch`.
    fn hunks(patch: &str) -> Vec<Hunk> {
        match parse(patch).unwrap().files.remove(0) {
            FilePatch::Update { hunks, .. } => hunks,
            other => panic!("{other:?}"),
        }
    }

    fn codex(body: &str) -> Vec<Hunk> {
        hunks(&format!("*** Begin Patch\n*** Update File: f\n{body}*** End Patch\n"))
    }

    #[test]
    fn hunks_apply_in_order_each_after_the_one_before() {
        let text = "a\nx\nb\nx\nc\n";
        let out = apply_hunks(text, &codex("@@\n a\n-x\n+y\n@@\n b\n-x\n+z\n"), true).unwrap();
        assert_eq!(out.text, "a\ny\nb\nz\nc\n");
        assert_eq!((out.added, out.removed), (2, 2));
        assert!(out.tolerated.is_empty());
    }

    #[test]
    fn a_context_header_narrows_the_search_to_after_its_line() {
        let text = "def a():\n    return 1\n\ndef b():\n    return 1\n";
        let out = apply_hunks(text, &codex("@@ def b():\n-    return 1\n+    return 2\n"), true).unwrap();
        assert_eq!(out.text, "def a():\n    return 1\n\ndef b():\n    return 2\n");
    }

    #[test]
    fn a_unified_line_number_picks_among_exact_occurrences() {
        let text = "x\n1\nx\n2\nx\n3\n";
        let diff = "--- a/f\n+++ b/f\n@@ -5,1 +5,1 @@\n-x\n+y\n";
        assert_eq!(apply_hunks(text, &hunks(diff), true).unwrap().text, "x\n1\nx\n2\ny\n3\n");
    }

    #[test]
    fn a_unified_insertion_goes_where_its_numbers_say() {
        let diff = "--- a/f\n+++ b/f\n@@ -1,0 +2,1 @@\n+inserted\n";
        assert_eq!(apply_hunks("one\ntwo\n", &hunks(diff), true).unwrap().text, "one\ninserted\ntwo\n");
    }

    #[test]
    fn end_of_file_requires_the_end() {
        let text = "x\ny\nx\n";
        let out = apply_hunks(text, &codex("@@\n-x\n+z\n*** End of File\n"), true).unwrap();
        assert_eq!(out.text, "x\ny\nz\n");
    }

    #[test]
    fn crlf_bom_and_a_missing_final_newline_are_kept() {
        let text = "\u{feff}a\r\nb\r\nc";
        let out = apply_hunks(text, &codex("@@\n a\n-b\n+B\n"), true).unwrap();
        assert_eq!(out.text, "\u{feff}a\r\nB\r\nc");
        let out = apply_hunks(text, &codex("@@\n b\n-c\n+C\n"), true).unwrap();
        assert_eq!(out.text, "\u{feff}a\r\nb\r\nC");
    }

    #[test]
    fn no_newline_markers_decide_the_final_newline() {
        let diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n";
        assert_eq!(apply_hunks("a\nb", &hunks(diff), true).unwrap().text, "a\nb\n");
        let diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n";
        assert_eq!(apply_hunks("a\nb\n", &hunks(diff), true).unwrap().text, "a\nc");
    }

    #[test]
    fn a_hunk_indented_with_spaces_lands_in_a_tab_file_with_tabs_and_says_so() {
        let text = "fn main() {\n\tlet x = 1;\n\tprintln!(\"{x}\");\n}\n";
        let out = apply_hunks(
            text,
            &codex("@@\n     let x = 1;\n-    println!(\"{x}\");\n+    println!(\"x = {x}\");\n"),
            true,
        )
        .unwrap();
        assert_eq!(out.text, "fn main() {\n\tlet x = 1;\n\tprintln!(\"x = {x}\");\n}\n");
        assert!(
            out.tolerated[0].starts_with("hunk 1: matched lines 2-3 ignoring indentation"),
            "{:?}",
            out.tolerated
        );
        let exact =
            apply_hunks(text, &codex("@@\n     let x = 1;\n-    println!(\"{x}\");\n+    y\n"), false);
        assert!(exact.is_err());
    }

    #[test]
    fn a_hunk_that_is_not_there_fails_with_its_number_and_the_closest_lines() {
        let text = "alpha\nbeta\ngamma\n";
        let err = apply_hunks(text, &codex("@@\n alpha\n-beta\n+b\n@@\n-gamme\n+g\n"), true).unwrap_err();
        assert_eq!(err.hunk, 2);
        assert!(err.problem.contains("not in the file"), "{}", err.problem);
        assert_eq!(err.closest.first(), Some(&(3, "gamma".to_owned())));
    }

    #[test]
    fn two_tolerant_places_without_a_deciding_line_number_fail() {
        let text = "\tx = 1\n\ny = 2\n\n  x = 1\n";
        let err = apply_hunks(text, &codex("@@\n-    x = 1\n+    x = 2\n"), true).unwrap_err();
        assert!(err.problem.contains("2 places"), "{}", err.problem);
    }
}
