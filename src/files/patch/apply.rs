//! Applying one file's hunks of a patch to its text, in memory: each hunk is located by its
//! context and removed lines with [`matcher`], in order, each after the one before.
//!
//! A hunk quotes whole lines, so it is matched at line starts only
//! ([`matcher::locate_lines_from`]): a quoted empty line is an empty line of the file, never
//! the newline that ends the line before it, and a removed `b` is never the end of `ab`. Among
//! several exact places, a unified diff's line number picks the nearest, as `git apply` does.
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
///
/// A hunk of added lines only, with neither a line number nor a `@@` context to place it, goes
/// at the end of the file, after every other hunk has been applied, as Codex's applier puts it
/// (its other hunks are still looked for from the top).
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
    // Whether the result ends with a newline, where a hunk says (`\ No newline at end of file`)
    // or a hunk without that marker replaces the end of the file (its new lines end with one).
    let mut final_newline: Option<bool> = None;
    // Hunks of added lines with nothing to place them: for the end of the file, in order.
    let mut at_end = String::new();
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
        let marked = match (hunk.old_missing_final_newline, hunk.new_missing_final_newline) {
            (_, true) => Some(false),
            (true, false) => Some(true),
            (false, false) => None,
        };
        final_newline = marked.or(final_newline);
        out.added += hunk.lines.iter().filter(|l| matches!(l, HunkLine::Add(_))).count();
        out.removed += hunk.lines.iter().filter(|l| matches!(l, HunkLine::Remove(_))).count();
        let hint = hunk.old_start.map(|l| (l as isize + drift).max(1) as usize);
        let (start, end, landed) = if old.is_empty() {
            // Only added lines: where the hint says, else at the cursor (after the context
            // lines), else at the end once the other hunks are in.
            let at = match (hint, hunk.contexts.is_empty()) {
                (Some(line), _) => line_start(&text, line),
                (None, false) => cursor,
                (None, true) => {
                    at_end.push_str(&new);
                    if marked.is_none() {
                        final_newline = Some(true);
                    }
                    continue;
                }
            };
            (at, at, new.clone())
        } else {
            match matcher::locate_lines_from(&text, &old, cursor, tolerant) {
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
        if end == text.len() && marked.is_none() {
            // The file's end is the hunk's, whose lines end with a newline.
            final_newline = Some(true);
        }
        text.replace_range(start..end, &landed);
        cursor = start + landed.len();
        drift += new.lines().count() as isize - old.lines().count() as isize;
    }
    text.push_str(&at_end);
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
/// hint's line (after it on a tie, as `git apply` tries forward first), else the first.
fn pick(text: &str, starts: &[usize], len: usize, hint: Option<usize>, end_of_file: bool) -> Option<usize> {
    if end_of_file {
        return starts.iter().rev().copied().find(|&at| at + len == text.len());
    }
    match hint {
        Some(line) => {
            let index = LineIndex::new(text);
            starts.iter().copied().min_by_key(|&at| {
                let at = index.line_of(at);
                (at.abs_diff(line), at < line)
            })
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
        // A hunk that replaces the last line gives it a line ending, as Codex does; a marker
        // says otherwise.
        let out = apply_hunks(text, &codex("@@\n b\n-c\n+C\n"), true).unwrap();
        assert_eq!(out.text, "\u{feff}a\r\nb\r\nC\r\n");
        let out = apply_hunks(text, &codex("@@\n b\n-c\n+C\n\\ No newline at end of file\n"), true).unwrap();
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

    #[test]
    fn a_line_inserted_between_two_blank_context_lines_lands_between_them() {
        let diff = "--- a/f\n+++ b/f\n@@ -2,2 +2,3 @@\n \n+middle\n \n";
        let out = apply_hunks("# Notes\n\n\nend\n", &hunks(diff), false).unwrap();
        assert_eq!(out.text, "# Notes\n\nmiddle\n\nend\n");
    }

    #[test]
    fn a_quoted_empty_line_is_never_the_newline_that_ends_another_line() {
        for tolerant in [false, true] {
            let err = apply_hunks("first\nsecond\n", &codex("@@\n \n+inserted\n second\n"), tolerant);
            assert!(err.is_err(), "tolerant: {tolerant}: {err:?}");
        }
    }

    #[test]
    fn a_removed_line_is_never_the_tail_of_another_line() {
        let out = apply_hunks("tab\nb\n", &codex("@@\n-b\n+c\n"), false).unwrap();
        assert_eq!(out.text, "tab\nc\n");
        // Tolerantly too: a trailing blank on the whole line, none on the other's tail (the
        // new line is the model's own text, without the file's blanks).
        let out = apply_hunks("tab\nb  \n", &codex("@@\n-b\n+c\n"), true).unwrap();
        assert_eq!(out.text, "tab\nc\n");
    }

    #[test]
    fn a_zero_context_hunk_over_blank_lines_changes_the_lines_it_names() {
        let diff = "--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n-\n-\n+a\n+b\n";
        assert_eq!(apply_hunks("x\n\n\ny\n", &hunks(diff), false).unwrap().text, "x\na\nb\ny\n");
    }

    #[test]
    fn on_a_tie_the_line_after_the_hint_wins_as_in_git_apply() {
        let diff = "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-x\n+y\n";
        assert_eq!(apply_hunks("x\no\nx\n", &hunks(diff), false).unwrap().text, "x\no\ny\n");
    }

    #[test]
    fn added_lines_with_nothing_to_place_them_go_to_the_end_after_the_other_hunks() {
        // Codex's test_pure_addition_chunk_followed_by_removal.
        let patch =
            codex("@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement\n");
        let out = apply_hunks("line1\nline2\nline3\n", &patch, true).unwrap();
        assert_eq!(out.text, "line1\nline2-replacement\nafter-context\nsecond-line\n");
        // At the end of a file without a final newline, the added lines end with one.
        let out = apply_hunks("line1", &codex("@@\n+line2\n"), true).unwrap();
        assert_eq!(out.text, "line1\nline2\n");
    }

    /// A file of lines drawn from few values (blank lines and repeats are the hard part).
    fn lines() -> impl proptest::strategy::Strategy<Value = Vec<String>> {
        proptest::collection::vec(
            proptest::prop_oneof![Just(""), Just("a"), Just("b"), Just("  a"), Just("}"), Just("x = 1")]
                .prop_map(str::to_owned),
            0..24,
        )
    }

    use proptest::prelude::{Just, Strategy};

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(768))]

        /// A real unified diff of two files (by the `similar` crate), with 0, 1 or 3 lines of
        /// context, turns the one into the other exactly, tolerant or not.
        #[test]
        fn a_real_diff_reproduces_the_new_text_exactly(
            old in lines(),
            edits in proptest::collection::vec((0usize..30, 0u8..3, lines()), 1..5),
            old_newline: bool,
            new_newline: bool,
            context in proptest::prop_oneof![Just(0usize), Just(1), Just(3)],
        ) {
            let mut new = old.clone();
            for (at, op, inserted) in edits {
                let at = at.min(new.len());
                match op {
                    0 => { new.splice(at..at, inserted.into_iter().take(3)); }
                    1 => { let end = (at + 2).min(new.len()); new.drain(at..end); }
                    _ => { let end = (at + 1).min(new.len()); new.splice(at..end, inserted.into_iter().take(2)); }
                }
            }
            let join = |lines: &[String], newline: bool| {
                let mut text = lines.join("\n");
                if newline && !lines.is_empty() { text.push('\n'); }
                text
            };
            let (old, new) = (join(&old, old_newline), join(&new, new_newline));
            proptest::prop_assume!(old != new && !old.is_empty());
            let diff = similar::TextDiff::from_lines(&old, &new)
                .unified_diff()
                .context_radius(context)
                .header("a/f", "b/f")
                .to_string();
            let patch = parse(&diff).unwrap_or_else(|e| panic!("{e}\n{diff}"));
            let hunks = match &patch.files[0] {
                FilePatch::Update { hunks, .. } => hunks.clone(),
                other => panic!("{other:?}"),
            };
            for tolerant in [false, true] {
                let out = apply_hunks(&old, &hunks, tolerant).map(|p| p.text);
                proptest::prop_assert_eq!(out.as_deref(), Ok(new.as_str()), "{}", diff);
            }
        }
    }
}
