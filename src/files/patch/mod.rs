//! The text of an `apply_patch` call, parsed into files and hunks: pure, no file is read.
//!
//! Models send one change across files in one of two shapes, and [`parse`] tells them apart by
//! their text:
//! - **The Codex envelope** (`*** Begin Patch` ... `*** End Patch`), which OpenAI's models are
//!   trained to write: files are added whole (`*** Add File:` and `+` lines), deleted
//!   (`*** Delete File:`) or updated (`*** Update File:`, optionally `*** Move to:`) by hunks
//!   located by their lines and by `@@ <line>` headers that narrow the search, not by numbers.
//! - **Unified diffs** as `git diff` and `diff -u` print them, which every model has read a
//!   great deal of: `--- a/x` / `+++ b/x` headers, git's extended headers, and hunks whose
//!   `@@ -l,n +l,n @@` header counts their lines.
//!
//! Both become one [`Patch`], built to be applied by a tolerant matcher: every hunk is its
//! lines in order ([`Hunk::old_text`] is what to find, [`Hunk::new_text`] what to put there),
//! with whatever helps to find it (`@@` context lines, the old line number as a hint, "at the
//! end of the file"). Nothing here decides whether a hunk applies; that needs the file.
//!
//! # Leniency
//! The parser accepts what models commonly send by mistake when its meaning is certain: a
//! heredoc (`apply_patch <<'EOF'` ... `EOF`) or a Markdown fence around the envelope, spaces
//! around markers (and their case), an update's first hunk without its `@@` line, an empty
//! line in a hunk that lost its leading space (an empty context line; at the end of a hunk
//! only a separator), unified `@@ -l,n +l,n @@` headers inside the envelope (the line number
//! is kept as a hint, the counts are not checked), several envelopes one after the other,
//! `./` before paths, text before a unified diff's first file (a commit message or
//! `git format-patch` headers), and bare `@@` hunks in a unified diff (uncounted, like
//! Codex's). A CRLF patch parses like an LF one; the `\r` stays in the lines' text, because
//! the applier matches line endings with the file's.
//!
//! It refuses what it cannot read for certain, with the patch line and what to do: a missing
//! `*** End Patch` (the call was most likely cut off by the model's output limit), hunk line
//! counts that disagree with their header (a miscount or a cut), binary patches, copies,
//! symbolic links and submodules, empty paths, and a file touched twice, since the hunks of
//! one file must be applied in order against one text.
//!
//! Paths are kept as the patch spells them (absolute ones too): what a path means is the
//! sandbox's to decide, once, for every tool (`Workspace::resolve`), not the parser's.
//!
//! # Layout
//! This module holds the patch's model and [`parse`], which tells the formats apart;
//! `codex` and `unified` read one format each into the [`Hunk`]s of `hunk`, `paths` checks
//! and unquotes the file names they give, and `apply` splices hunks into a file's text.

mod apply;
mod codex;
mod hunk;
mod paths;
mod unified;

pub use apply::{HunkFailure, Patched, apply_hunks};
pub use hunk::{Hunk, HunkLine};

use std::collections::HashMap;
use std::fmt;

/// A parsed patch: the files it changes, in the order the patch gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// Which of the two formats the text was.
    pub format: Format,
    /// One entry per file; no path appears twice (a rename's new path included).
    pub files: Vec<FilePatch>,
}

/// The format of a patch's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `*** Begin Patch` ... `*** End Patch`.
    Codex,
    /// `git diff` / `diff -u` output.
    Unified,
}

/// What a patch does to one file. Paths are as the patch gives them, relative to the root,
/// with git's `a/` and `b/` prefixes and any leading `./` removed; never empty. Not yet
/// resolved: an absolute path or a `..` is the sandbox's to accept or refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilePatch {
    /// Create the file.
    Add {
        /// The file to create.
        path: String,
        /// Its whole text, each line ending in `\n` unless the patch says the last has none.
        content: String,
    },
    /// Delete the file.
    Delete {
        /// The file to delete.
        path: String,
        /// The text the patch expects the file to have: a unified diff shows the deleted
        /// lines (git's `deleted file mode` without a hunk: an empty file, `Some("")`); a
        /// Codex patch does not (`None`), nor a `diff -u` one without a hunk.
        expected: Option<String>,
    },
    /// Change the file by hunks, and/or rename it.
    Update {
        /// The file to change.
        path: String,
        /// Where the file goes after the change (Codex `*** Move to:`, git `rename to`).
        move_to: Option<String>,
        /// The changes, in the patch's order (which should be the file's order); empty only
        /// for a pure rename.
        hunks: Vec<Hunk>,
    },
}

impl FilePatch {
    /// The path the file has before the patch (the one created, for an add).
    pub fn path(&self) -> &str {
        match self {
            FilePatch::Add { path, .. } | FilePatch::Delete { path, .. } | FilePatch::Update { path, .. } => {
                path
            }
        }
    }
}

/// Why a patch text could not be parsed: the line it is about and what to do, for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchError {
    /// 1-based line of the patch text the error is about.
    pub line: usize,
    /// What kind of problem, for callers that treat some apart (e.g. a cut-off call).
    pub kind: PatchErrorKind,
    /// What is wrong and what to do, without the line number (which [`fmt::Display`] adds).
    pub message: String,
}

/// The kinds of [`PatchError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchErrorKind {
    /// The patch is empty or only whitespace.
    Empty,
    /// No file header nor `*** Begin Patch` in the text.
    NoFiles,
    /// The text stops before the patch does: most likely the model's output limit.
    Truncated,
    /// A line that does not belong where it is.
    Syntax,
    /// A unified hunk whose lines disagree with its header's counts.
    LineCount,
    /// A binary patch.
    Binary,
    /// Something valid that `apply_patch` does not do (copies, mode changes, context diffs).
    Unsupported,
    /// An empty path, or a quoted name that is not UTF-8.
    Path,
    /// The same path in two entries.
    Duplicate,
    /// An update that changes nothing (no hunk, no rename).
    NoChange,
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "patch line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for PatchError {}

/// Parses a patch: a Codex envelope or a unified diff, told apart by the text.
pub fn parse(text: &str) -> Result<Patch, PatchError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines: Vec<&str> = text.split('\n').collect();
    // A final line ending ends the last line; it does not start another.
    if lines.last() == Some(&"") {
        lines.pop();
    }
    if lines.iter().all(|l| l.trim().is_empty()) {
        return Err(error(
            0,
            PatchErrorKind::Empty,
            "the patch is empty: send `*** Begin Patch`, the changes, and `*** End Patch` \
             (or a unified diff)"
                .into(),
        ));
    }
    let (format, entries) = match detect(&lines)? {
        Start::Codex(begin) => (Format::Codex, codex::parse(&lines, begin)?),
        Start::Unified => (Format::Unified, unified::parse(&lines)?),
    };
    if entries.is_empty() {
        return Err(error(
            0,
            PatchErrorKind::NoFiles,
            "the patch changes no file: add `*** Add File: <path>`, `*** Update File: <path>` or \
             `*** Delete File: <path>` sections between `*** Begin Patch` and `*** End Patch`"
                .into(),
        ));
    }
    refuse_duplicates(&entries)?;
    Ok(Patch { format, files: entries.into_iter().map(|e| e.file).collect() })
}

const BEGIN_PATCH: &str = "*** Begin Patch";
const END_PATCH: &str = "*** End Patch";
const END_OF_FILE: &str = "*** End of File";
const MOVE_TO: &str = "*** Move to:";
const DEV_NULL: &str = "/dev/null";

/// A file's entry with the 0-based index of its header line, for messages.
struct Entry {
    line: usize,
    file: FilePatch,
}

/// An error about the 0-based line `index`.
fn error(index: usize, kind: PatchErrorKind, message: String) -> PatchError {
    PatchError { line: index + 1, kind, message }
}

/// A line of the patch as messages quote it: escaped (a `\r` shows), and cut when long.
fn show(line: &str) -> String {
    const MAX_CHARS: usize = 80;
    match line.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{:?}…", &line[..cut]),
        None => format!("{line:?}"),
    }
}

/// Whether a line, trimmed, starts with `marker`, ASCII case aside; the rest, trimmed.
fn marker<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    let t = line.trim();
    let head = t.get(..marker.len())?;
    head.eq_ignore_ascii_case(marker).then(|| t[marker.len()..].trim())
}

fn is_marker(line: &str, whole: &str) -> bool {
    line.trim().eq_ignore_ascii_case(whole)
}

/// An empty line that stands for an empty line of the file: its text keeps the `\r` of a CRLF
/// patch, like every other line's.
fn blank_text(line: &str) -> &str {
    if line.ends_with('\r') { "\r" } else { "" }
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Where the patch starts and in which format.
enum Start {
    /// At the 0-based index of `*** Begin Patch`.
    Codex(usize),
    Unified,
}

/// The first line that only one format has decides: `*** Begin Patch` for Codex, a file
/// header or hunk for a unified diff. What comes before it (a heredoc line, a fence, a
/// commit message) is not a patch line.
fn detect(lines: &[&str]) -> Result<Start, PatchError> {
    for (i, line) in lines.iter().enumerate() {
        if is_marker(line, BEGIN_PATCH) {
            return Ok(Start::Codex(i));
        }
        if line.starts_with("diff --git ")
            || line.starts_with("@@")
            || unified::is_file_header(lines, i)
            || unified::is_binary(line)
        {
            return Ok(Start::Unified);
        }
        if codex::file_op(line).is_some() {
            return Err(error(
                i,
                PatchErrorKind::Syntax,
                format!(
                    "{} comes before any `*** Begin Patch`: a Codex patch starts with a line \
                     `*** Begin Patch` and ends with a line `*** End Patch`",
                    show(line.trim())
                ),
            ));
        }
        if is_marker(line, END_PATCH) {
            return Err(error(
                i,
                PatchErrorKind::Syntax,
                "`*** End Patch` without `*** Begin Patch` before it: start the patch with a line \
                 `*** Begin Patch`"
                    .into(),
            ));
        }
        let context_diff = line.starts_with("***************")
            || (line.starts_with("*** ") && lines.get(i + 1).is_some_and(|next| next.starts_with("--- ")));
        if context_diff {
            return Err(error(
                i,
                PatchErrorKind::Unsupported,
                "this looks like a context diff (`diff -c`), which apply_patch does not read: send a \
                 unified diff (`diff -u`, `git diff`) or a Codex patch (`*** Begin Patch`)"
                    .into(),
            ));
        }
    }
    // The whole patch on one line with its line breaks escaped: JSON encoded twice.
    let escaped = if lines.len() == 1 && lines[0].contains("\\n") {
        " (its line breaks arrived as the two characters `\\n`: send real line breaks)"
    } else {
        ""
    };
    Err(error(
        0,
        PatchErrorKind::NoFiles,
        format!(
            "found no file in the patch{escaped}: a Codex patch starts with `*** Begin Patch` and \
             has `*** Update File: <path>` (or Add/Delete) sections; a unified diff has \
             `--- a/<path>` and `+++ b/<path>` lines before its `@@` hunks"
        ),
    ))
}

/// Refuses a path touched by two entries: their hunks would have to be applied one after the
/// other to the same text, and the order in which an applier did that is not the model's to
/// guess; one entry per file says it plainly.
fn refuse_duplicates(entries: &[Entry]) -> Result<(), PatchError> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for entry in entries {
        let mut paths = vec![entry.file.path()];
        if let FilePatch::Update { move_to: Some(to), .. } = &entry.file {
            paths.push(to);
        }
        for path in paths {
            if let Some(first) = seen.insert(path, entry.line) {
                return Err(error(
                    entry.line,
                    PatchErrorKind::Duplicate,
                    format!(
                        "{} is touched twice in one patch (patch lines {} and {}): give each file \
                         one entry, with all its hunks under one header in file order (a rename's \
                         new path counts as touched)",
                        show(path),
                        first + 1,
                        entry.line + 1
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A patch text from its lines, each ending in `\n` (string continuations would eat the
    /// leading space of context lines).
    fn text(lines: &[&str]) -> String {
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    fn ok(lines: &[&str]) -> Patch {
        let patch = text(lines);
        parse(&patch).unwrap_or_else(|e| panic!("{e}\n{patch}"))
    }

    fn fails(lines: &[&str]) -> PatchError {
        let patch = text(lines);
        match parse(&patch) {
            Ok(parsed) => panic!("parsed: {parsed:?}\n{patch}"),
            Err(e) => e,
        }
    }

    fn ctx(t: &str) -> HunkLine {
        HunkLine::Context(t.into())
    }
    fn rem(t: &str) -> HunkLine {
        HunkLine::Remove(t.into())
    }
    fn add(t: &str) -> HunkLine {
        HunkLine::Add(t.into())
    }

    fn hunks(file: &FilePatch) -> &[Hunk] {
        match file {
            FilePatch::Update { hunks, .. } => hunks,
            other => panic!("not an update: {other:?}"),
        }
    }

    fn hunk(patch_line: usize, lines: Vec<HunkLine>) -> Hunk {
        Hunk {
            patch_line,
            contexts: Vec::new(),
            section: None,
            old_start: None,
            lines,
            end_of_file: false,
            old_missing_final_newline: false,
            new_missing_final_newline: false,
        }
    }

    // ---- The Codex envelope ----

    #[test]
    fn codex_adds_updates_with_a_move_and_deletes_in_one_envelope() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Add File: hello.txt",
            "+Hello world",
            "+",
            "+bye",
            "*** Update File: src/app.py",
            "*** Move to: src/main.py",
            "@@ def greet():",
            "-print(\"Hi\")",
            "+print(\"Hello, world!\")",
            "*** Delete File: obsolete.txt",
            "*** End Patch",
        ]);
        assert_eq!(patch.format, Format::Codex);
        assert_eq!(
            patch.files,
            vec![
                FilePatch::Add { path: "hello.txt".into(), content: "Hello world\n\nbye\n".into() },
                FilePatch::Update {
                    path: "src/app.py".into(),
                    move_to: Some("src/main.py".into()),
                    hunks: vec![Hunk {
                        contexts: vec!["def greet():".into()],
                        ..hunk(8, vec![rem("print(\"Hi\")"), add("print(\"Hello, world!\")")])
                    }],
                },
                FilePatch::Delete { path: "obsolete.txt".into(), expected: None },
            ]
        );
        assert_eq!(patch.files[1].path(), "src/app.py");
    }

    #[test]
    fn codex_context_headers_narrow_down_one_after_the_other() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Update File: pygorithm/searching/binary_search.py",
            "@@ class BaseClass",
            "@@     def search():",
            "-        pass",
            "+        raise NotImplementedError()",
            "",
            "@@ class Subclass",
            "@@     def search():",
            "-        pass",
            "+        raise NotImplementedError()",
            "*** End Patch",
        ]);
        let hunks = hunks(&patch.files[0]);
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].contexts, ["class BaseClass", "    def search():"]);
        assert_eq!(hunks[0].patch_line, 3);
        // The empty line before the next `@@` separates; it is no context line.
        assert_eq!(hunks[0].lines, [rem("        pass"), add("        raise NotImplementedError()")]);
        assert_eq!(hunks[1].contexts, ["class Subclass", "    def search():"]);
        assert_eq!(hunks[1].patch_line, 8);
        assert_eq!(hunks[1].old_text(), "        pass\n");
        assert_eq!(hunks[1].new_text(), "        raise NotImplementedError()\n");
    }

    #[test]
    fn codex_end_of_file_anchors_the_hunk_at_the_end() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Update File: README.md",
            "@@",
            " ## License",
            "-MIT",
            "+MIT OR Apache-2.0",
            "*** End of File",
            "@@ ## Usage",
            " run it",
            "+again",
            "*** End Patch",
        ]);
        let hunks = hunks(&patch.files[0]);
        assert!(hunks[0].end_of_file);
        assert!(!hunks[1].end_of_file);
        assert_eq!(hunks[0].old_text(), "## License\nMIT\n");
        assert_eq!(hunks[0].new_text(), "## License\nMIT OR Apache-2.0\n");
    }

    #[test]
    fn codex_first_hunk_may_omit_its_header() {
        let patch =
            ok(&["*** Begin Patch", "*** Update File: file2.py", " import foo", "+bar", "*** End Patch"]);
        assert_eq!(hunks(&patch.files[0]), [hunk(3, vec![ctx("import foo"), add("bar")])]);
    }

    #[test]
    fn codex_empty_line_inside_a_hunk_is_an_empty_context_line() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Update File: a.py",
            "@@",
            " def f():",
            "",
            "-    return 1",
            "+    return 2",
            "",
            "",
            "*** End Patch",
        ]);
        // Inside: an empty line of the file. At the end: separators, dropped.
        assert_eq!(
            hunks(&patch.files[0])[0].lines,
            [ctx("def f():"), ctx(""), rem("    return 1"), add("    return 2")]
        );
    }

    #[test]
    fn codex_heredocs_fences_and_spaces_around_markers_are_tolerated() {
        let body = ["*** Begin Patch", "*** Update File: a.txt", "@@", "-x", "+y", "*** End Patch"];
        let expected = ok(&body);
        // One line more before the envelope: hunks one patch line further.
        let shifted = ok(&[&[""][..], &body[..]].concat());
        let wrapped = |before: &str, after: &str| {
            let mut lines = vec![before];
            lines.extend(body);
            lines.push(after);
            ok(&lines)
        };
        assert_eq!(wrapped("apply_patch <<'EOF'", "EOF"), shifted);
        assert_eq!(wrapped("<<EOF", "EOF"), shifted);
        assert_eq!(wrapped("apply_patch <<\"PATCH\"", "PATCH"), shifted);
        assert_eq!(wrapped("```diff", "```"), shifted);
        let spaced = ok(&[
            "",
            "  *** Begin Patch  ",
            " *** Update File:  a.txt ",
            "@@",
            "-x",
            "+y",
            "\t*** End Patch\t",
            "",
        ]);
        assert_eq!(spaced, shifted);
        // Markers in another case, as some models write them.
        assert_eq!(
            ok(&["*** BEGIN PATCH", "*** update file: a.txt", "@@", "-x", "+y", "*** end patch"]),
            expected
        );
    }

    #[test]
    fn codex_crlf_patch_keeps_the_carriage_returns_in_the_lines() {
        let patch = "*** Begin Patch\r\n*** Add File: n.txt\r\n+one\r\n*** Update File: a.txt\r\n@@ fn main\r\n \
                     keep\r\n-x\r\n+y\r\n\r\n z\r\n*** End of File\r\n*** End Patch\r\n";
        let parsed = parse(patch).unwrap();
        assert_eq!(parsed.files[0], FilePatch::Add { path: "n.txt".into(), content: "one\r\n".into() });
        let hunk = &hunks(&parsed.files[1])[0];
        assert_eq!(hunk.contexts, ["fn main\r"]);
        assert_eq!(hunk.lines, [ctx("keep\r"), rem("x\r"), add("y\r"), ctx("\r"), ctx("z\r")]);
        assert!(hunk.end_of_file);
        assert_eq!(hunk.old_text(), "keep\r\nx\r\n\r\nz\r\n");
    }

    #[test]
    fn codex_without_end_patch_was_probably_cut_off() {
        let e = fails(&["*** Begin Patch", "*** Update File: a.txt", "@@", "-x", "+y"]);
        assert_eq!(e.kind, PatchErrorKind::Truncated);
        assert_eq!(e.line, 5);
        assert!(e.message.contains("cut off by your output limit"), "{e}");
        // A heredoc's end does not stand in for the envelope's.
        let e = fails(&["<<'EOF'", "*** Begin Patch", "*** Add File: a.txt", "+x", "EOF"]);
        assert_eq!(e.kind, PatchErrorKind::Truncated);
    }

    #[test]
    fn codex_text_after_end_patch_is_refused() {
        let e =
            fails(&["*** Begin Patch", "*** Delete File: a.txt", "*** End Patch", "Done! The file is gone."]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Syntax, 4));
        assert!(e.message.contains("text after `*** End Patch` (patch line 3)"), "{e}");
    }

    #[test]
    fn codex_envelopes_one_after_the_other_read_as_one() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Delete File: a.txt",
            "*** End Patch",
            "",
            "*** Begin Patch",
            "*** Delete File: b.txt",
            "*** End Patch",
        ]);
        assert_eq!(patch.files.len(), 2);
    }

    #[test]
    fn codex_file_operation_before_begin_patch_is_refused() {
        let e = fails(&["*** Update File: a.txt", "@@", "-x", "+y", "*** End Patch"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Syntax, 1));
        assert!(e.message.contains("`*** Begin Patch`"), "{e}");
        let e = fails(&["*** End Patch"]);
        assert!(e.message.contains("without `*** Begin Patch`"), "{e}");
    }

    #[test]
    fn codex_line_without_prefix_in_a_hunk_names_the_hunk_and_what_to_do() {
        let e = fails(&[
            "*** Begin Patch",
            "*** Update File: src/app.js",
            "@@ function main() {",
            " const a = 1;",
            "-const b = 2;",
            "+const b = 3;",
            "foo",
            "*** End Patch",
        ]);
        assert_eq!(
            e.to_string(),
            "patch line 7: expected a line starting with ' ', '-' or '+' inside hunk 1 of \"src/app.js\", \
             found \"foo\": prefix context lines with a space"
        );
    }

    #[test]
    fn codex_added_file_lines_need_their_plus() {
        let e = fails(&["*** Begin Patch", "*** Add File: a.txt", "+one", "two", "*** End Patch"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Syntax, 4));
        assert!(e.message.contains("every line of an added file starts with '+'"), "{e}");
        // An empty added file, and empty lines that lost their '+' between lines.
        let patch = ok(&[
            "*** Begin Patch",
            "*** Add File: empty.txt",
            "*** Add File: b.txt",
            "+one",
            "",
            "+three",
            "",
            "*** End Patch",
        ]);
        assert_eq!(patch.files[0], FilePatch::Add { path: "empty.txt".into(), content: String::new() });
        assert_eq!(patch.files[1], FilePatch::Add { path: "b.txt".into(), content: "one\n\nthree\n".into() });
    }

    #[test]
    fn codex_no_newline_marker_ends_the_added_file_and_the_hunk() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Add File: a.txt",
            "+last",
            "\\ No newline at end of file",
            "*** Update File: b.txt",
            "@@",
            "-x",
            "+y",
            "\\ No newline at end of file",
            "*** End Patch",
        ]);
        assert_eq!(patch.files[0], FilePatch::Add { path: "a.txt".into(), content: "last".into() });
        let hunk = &hunks(&patch.files[1])[0];
        assert!(hunk.new_missing_final_newline && !hunk.old_missing_final_newline && hunk.end_of_file);
        assert_eq!(hunk.new_text(), "y");
        assert_eq!(hunk.old_text(), "x\n");
    }

    #[test]
    fn codex_update_needs_a_hunk_even_with_a_move() {
        let e = fails(&["*** Begin Patch", "*** Update File: test.py", "*** End Patch"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::NoChange, 2));
        // As Codex: a move alone is an empty update (move_file renames).
        let e = fails(&["*** Begin Patch", "*** Update File: a.py", "*** Move to: b/a.py", "*** End Patch"]);
        assert_eq!(e.kind, PatchErrorKind::NoChange);
        assert!(e.message.contains("move_file"), "{e}");
        let e = fails(&["*** Begin Patch", "*** Update File: a.py", "*** Move to: ./a.py", "*** End Patch"]);
        assert_eq!(e.kind, PatchErrorKind::NoChange);
        let e =
            fails(&["*** Begin Patch", "*** Environment ID:   ", "*** Add File: a", "+a", "*** End Patch"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Unsupported, 2));
    }

    #[test]
    fn codex_hunk_without_lines_is_refused() {
        let e = fails(&["*** Begin Patch", "*** Update File: a.py", "@@ def f", "@@@", "*** End Patch"]);
        assert_eq!(e.kind, PatchErrorKind::Syntax);
        let e = fails(&["*** Begin Patch", "*** Update File: a.py", "@@", "", "@@", "-x", "*** End Patch"]);
        assert_eq!(e.line, 3);
        assert!(e.message.contains("hunk 1 of \"a.py\" has no lines"), "{e}");
    }

    #[test]
    fn codex_deleted_file_takes_no_lines() {
        let e = fails(&["*** Begin Patch", "*** Delete File: a.txt", "-gone", "*** End Patch"]);
        assert_eq!(e.line, 3);
        assert!(e.message.contains("`*** Delete File: a.txt` takes no lines"), "{e}");
    }

    #[test]
    fn codex_end_of_file_must_close_a_hunk() {
        let e = fails(&["*** Begin Patch", "*** Update File: a", "*** End of File", "*** End Patch"]);
        assert_eq!(e.line, 3);
        let e = fails(&[
            "*** Begin Patch",
            "*** Update File: a",
            "@@",
            "-x",
            "*** End of File",
            "+y",
            "*** End Patch",
        ]);
        assert_eq!(e.line, 6);
        assert!(e.message.contains("start a new hunk with `@@`"), "{e}");
    }

    #[test]
    fn codex_misplaced_move_and_hunk_before_any_file_are_explained() {
        let e =
            fails(&["*** Begin Patch", "*** Update File: a", "@@", "-x", "*** Move to: b", "*** End Patch"]);
        assert!(e.message.contains("must come right after"), "{e}");
        let e = fails(&["*** Begin Patch", "@@", "-x", "*** End Patch"]);
        assert!(e.message.contains("put `*** Update File: <path>` before it"), "{e}");
        let e = fails(&["*** Begin Patch", "*** Update File: a", "@@", "-x", "*** Frob", "*** End Patch"]);
        assert_eq!(e.line, 5);
        assert!(e.message.contains("the markers are"), "{e}");
        // Blank lines before the move are spacing.
        let patch = ok(&[
            "*** Begin Patch",
            "*** Update File: a",
            "",
            "*** Move to: b",
            "",
            "@@",
            "-x",
            "*** End Patch",
        ]);
        assert_eq!(
            patch.files[0],
            FilePatch::Update {
                path: "a".into(),
                move_to: Some("b".into()),
                hunks: vec![hunk(6, vec![rem("x")])],
            }
        );
    }

    #[test]
    fn codex_unified_hunk_headers_give_a_line_hint() {
        let patch = ok(&[
            "*** Begin Patch",
            "*** Update File: a.rs",
            "@@ -12,3 +12,4 @@ fn main() {",
            " a",
            "+b",
            "@@ -30,0 +31 @@",
            "+c",
            "*** End Patch",
        ]);
        let hunks = hunks(&patch.files[0]);
        assert_eq!(hunks[0].old_start, Some(12));
        assert_eq!(hunks[0].section.as_deref(), Some("fn main() {"));
        assert!(hunks[0].contexts.is_empty());
        assert_eq!(hunks[1].old_start, Some(31));
        let e = fails(&[
            "*** Begin Patch",
            "*** Update File: a.rs",
            "--- a/a.rs",
            "+++ b/a.rs",
            "@@ -1 +1 @@",
            "-x",
            "+y",
            "*** End Patch",
        ]);
        assert_eq!(e.line, 3);
        assert!(e.message.contains("`---`/`+++` file header inside the Codex patch"), "{e}");
    }

    // ---- Unified diffs ----

    #[test]
    fn git_diff_of_a_modified_file() {
        let patch = ok(&[
            "diff --git a/src/app.js b/src/app.js",
            "index 3b18e51..a9c3f2d 100644",
            "--- a/src/app.js",
            "+++ b/src/app.js",
            "@@ -1,5 +1,6 @@",
            " const express = require('express');",
            "+const helmet = require('helmet');",
            " ",
            " const app = express();",
            " const port = 3000;",
            " ",
            "@@ -10,7 +11,7 @@ app.get('/', (req, res) => {",
            " });",
            " ",
            " app.listen(port, () => {",
            "-  console.log(`listening on ${port}`);",
            "+  console.log(`app listening on port ${port}`);",
            " });",
            " ",
            " module.exports = app;",
        ]);
        assert_eq!(patch.format, Format::Unified);
        let [FilePatch::Update { path, move_to: None, hunks }] = &patch.files[..] else {
            panic!("{patch:?}")
        };
        assert_eq!(path, "src/app.js");
        assert_eq!(hunks.len(), 2);
        assert_eq!(
            (hunks[0].patch_line, hunks[0].old_start, hunks[0].section.as_deref()),
            (5, Some(1), None)
        );
        assert_eq!(hunks[0].old_len(), 5);
        assert_eq!(hunks[0].new_len(), 6);
        assert_eq!(hunks[1].patch_line, 12);
        assert_eq!(hunks[1].old_start, Some(10));
        assert_eq!(hunks[1].section.as_deref(), Some("app.get('/', (req, res) => {"));
        assert!(hunks[1].contexts.is_empty());
        assert_eq!(
            hunks[1].new_text(),
            "});\n\napp.listen(port, () => {\n  console.log(`app listening on port ${port}`);\n});\n\nmodule.exports = app;\n"
        );
        assert!(!hunks[1].end_of_file);
    }

    #[test]
    fn git_diff_adds_deletes_and_renames() {
        let patch = ok(&[
            "diff --git a/docs/NOTES.md b/docs/NOTES.md",
            "new file mode 100644",
            "index 0000000..e69b1b2",
            "--- /dev/null",
            "+++ b/docs/NOTES.md",
            "@@ -0,0 +1,3 @@",
            "+# Notes",
            "+",
            "+Run `make test` before pushing.",
            "diff --git a/old.txt b/old.txt",
            "deleted file mode 100644",
            "index 7898192..0000000",
            "--- a/old.txt",
            "+++ /dev/null",
            "@@ -1,2 +0,0 @@",
            "-first",
            "-second",
            "diff --git a/lib/util.py b/lib/helpers.py",
            "similarity index 100%",
            "rename from lib/util.py",
            "rename to lib/helpers.py",
            "diff --git a/src/main.rs b/src/cli/main.rs",
            "similarity index 91%",
            "rename from src/main.rs",
            "rename to src/cli/main.rs",
            "index 1111111..2222222 100644",
            "--- a/src/main.rs",
            "+++ b/src/cli/main.rs",
            "@@ -1,3 +1,3 @@",
            " fn main() {",
            "-    println!(\"hi\");",
            "+    println!(\"hello\");",
            " }",
            "\\ No newline at end of file",
            "diff --git a/empty.txt b/empty.txt",
            "new file mode 100644",
            "index 0000000..e69de29",
            "diff --git a/gone.txt b/gone.txt",
            "deleted file mode 100644",
            "index e69de29..0000000",
        ]);
        assert_eq!(patch.files.len(), 6);
        assert_eq!(
            patch.files[0],
            FilePatch::Add {
                path: "docs/NOTES.md".into(),
                content: "# Notes\n\nRun `make test` before pushing.\n".into()
            }
        );
        assert_eq!(
            patch.files[1],
            FilePatch::Delete { path: "old.txt".into(), expected: Some("first\nsecond\n".into()) }
        );
        assert_eq!(
            patch.files[2],
            FilePatch::Update {
                path: "lib/util.py".into(),
                move_to: Some("lib/helpers.py".into()),
                hunks: vec![]
            }
        );
        let FilePatch::Update { path, move_to, hunks } = &patch.files[3] else { panic!() };
        assert_eq!((path.as_str(), move_to.as_deref()), ("src/main.rs", Some("src/cli/main.rs")));
        let hunk = &hunks[0];
        assert!(hunk.old_missing_final_newline && hunk.new_missing_final_newline && hunk.end_of_file);
        assert_eq!(hunk.old_text(), "fn main() {\n    println!(\"hi\");\n}");
        assert_eq!(hunk.new_text(), "fn main() {\n    println!(\"hello\");\n}");
        assert_eq!(patch.files[4], FilePatch::Add { path: "empty.txt".into(), content: String::new() });
        assert_eq!(
            patch.files[5],
            FilePatch::Delete { path: "gone.txt".into(), expected: Some(String::new()) }
        );
    }

    #[test]
    fn diff_u_with_timestamps() {
        let patch = ok(&[
            "--- hello.c\t2024-03-01 10:15:02.123456789 +0100",
            "+++ hello.c\t2024-03-01 10:16:40.987654321 +0100",
            "@@ -1,6 +1,6 @@",
            " #include <stdio.h>",
            " ",
            " int main(void)",
            " {",
            "-    printf(\"Hello\\n\");",
            "+    printf(\"Hello, world\\n\");",
            "     return 0;",
        ]);
        let [FilePatch::Update { path, hunks, .. }] = &patch.files[..] else { panic!() };
        assert_eq!(path, "hello.c");
        assert_eq!(hunks[0].lines[4], rem("    printf(\"Hello\\n\");"));
        // Timestamps after spaces instead of a tab, as models sometimes retype them.
        let patch = ok(&[
            "--- a/x y.txt 2024-03-01 10:15:02 +0000",
            "+++ b/x y.txt 2024-03-01 10:16:40 +0000",
            "@@ -1 +1 @@",
            "-a",
            "+b",
        ]);
        assert_eq!(patch.files[0].path(), "x y.txt");
    }

    #[test]
    fn diff_new_file_epoch_timestamp_means_absent() {
        // `diff -Nu a b` names a missing file and dates it at the epoch.
        let patch = ok(&[
            "diff -Nu a/added.txt b/added.txt",
            "--- a/added.txt\t1970-01-01 00:00:00.000000000 +0000",
            "+++ b/added.txt\t2024-03-01 10:16:40.987654321 +0000",
            "@@ -0,0 +1,2 @@",
            "+one",
            "+two",
            "diff -Nu a/removed.txt b/removed.txt",
            "--- a/removed.txt\t2024-03-01 10:16:40.987654321 +0100",
            "+++ b/removed.txt\t1970-01-01 01:00:00.000000000 +0100",
            "@@ -1 +0,0 @@",
            "-gone",
        ]);
        assert_eq!(
            patch.files,
            [
                FilePatch::Add { path: "added.txt".into(), content: "one\ntwo\n".into() },
                FilePatch::Delete { path: "removed.txt".into(), expected: Some("gone\n".into()) },
            ]
        );
    }

    #[test]
    fn no_newline_at_end_of_file_on_either_side() {
        let one = |marker_after: &str| {
            let mut lines = vec!["--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", " a", "-b"];
            if marker_after == "old" {
                lines.push("\\ No newline at end of file");
            }
            lines.push("+c");
            if marker_after == "new" {
                lines.push("\\ No newline at end of file");
            }
            hunks(&ok(&lines).files[0])[0].clone()
        };
        let old = one("old");
        assert!(old.old_missing_final_newline && !old.new_missing_final_newline && old.end_of_file);
        assert_eq!((old.old_text(), old.new_text()), ("a\nb".to_string(), "a\nc\n".to_string()));
        let new = one("new");
        assert!(!new.old_missing_final_newline && new.new_missing_final_newline && new.end_of_file);
        assert_eq!((new.old_text(), new.new_text()), ("a\nb\n".to_string(), "a\nc".to_string()));
        // A new file without a final newline.
        let patch =
            ok(&["--- /dev/null", "+++ b/n", "@@ -0,0 +1 @@", "+only", "\\ No newline at end of file"]);
        assert_eq!(patch.files[0], FilePatch::Add { path: "n".into(), content: "only".into() });
        // The marker must be at the end of its side.
        let e =
            fails(&["--- a/f", "+++ b/f", "@@ -1,2 +1 @@", "-a", "\\ No newline at end of file", "-b", "+c"]);
        assert_eq!(e.line, 6);
        assert!(e.message.contains("follows `\\ No newline at end of file`"), "{e}");
    }

    #[test]
    fn counts_default_to_one_and_insertions_point_after_their_line() {
        let patch = ok(&[
            "--- a/f",
            "+++ b/f",
            "@@ -0,0 +1 @@",
            "+top",
            "@@ -3 +4 @@",
            "-x",
            "+y",
            "@@ -7,0 +8,2 @@",
            "+after seven",
            "+and more",
        ]);
        let starts: Vec<_> = hunks(&patch.files[0]).iter().map(|h| h.old_start).collect();
        assert_eq!(starts, [Some(1), Some(3), Some(8)]);
        let e = fails(&["--- a/f", "+++ b/f", "@@ -0,2 +1,2 @@", "-x", "-y", "+a", "+b"]);
        assert!(e.message.contains("lines count from 1"), "{e}");
    }

    #[test]
    fn a_hunk_shorter_than_its_header_is_refused_with_its_counts() {
        let e = fails(&[
            "--- a/src/a.js",
            "+++ b/src/a.js",
            "@@ -1,2 +1,2 @@",
            "-x",
            "+y",
            " z",
            "@@ -10,4 +10,5 @@",
            " a",
            "-b",
            "+c",
            "+d",
            " e",
            "@@ -20 +21 @@",
            "-q",
            "+r",
        ]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::LineCount, 13));
        assert!(
            e.message.starts_with(
                "hunk 2 of \"src/a.js\" (patch line 7) has 3 old and 4 new lines where its header \
                 \"@@ -10,4 +10,5 @@\" announces 4 and 5, and the next hunk starts: recount"
            ),
            "{e}"
        );
        // The text ends inside a hunk: a miscount, or cut off.
        let e = fails(&["--- a/f", "+++ b/f", "@@ -1,3 +1,3 @@", " a", "-b", "+c"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::LineCount, 6));
        assert!(e.message.contains("the patch ends there"), "{e}");
        // A line that is not a hunk line where the count wants more.
        let e = fails(&["--- a/f", "+++ b/f", "@@ -1,2 +1,2 @@", " a", "b", "-c", "+d"]);
        assert!(e.message.contains("prefix context lines with a space"), "{e}");
        // An added line where the header has no room for one.
        let e = fails(&["--- a/f", "+++ b/f", "@@ -1,2 +1,1 @@", "-a", "+b", "+c", " d"]);
        assert_eq!(e.line, 6);
        assert!(e.message.contains("one new line more"), "{e}");
    }

    #[test]
    fn a_hunk_longer_than_its_header_is_refused() {
        let e = fails(&["--- a/f", "+++ b/f", "@@ -1 +1 @@", "-a", "+b", " c", "-d"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::LineCount, 6));
        assert!(e.message.contains("already has the 1 old and 1 new lines its header announces"), "{e}");
    }

    #[test]
    fn an_empty_context_line_that_lost_its_space_counts() {
        let patch = ok(&["--- a/f", "+++ b/f", "@@ -1,3 +1,3 @@", " a", "", "-b", "+c", ""]);
        assert_eq!(hunks(&patch.files[0])[0].lines, [ctx("a"), ctx(""), rem("b"), add("c")]);
    }

    #[test]
    fn crlf_unified_diff_keeps_carriage_returns_in_the_lines() {
        let patch = "diff --git a/w.txt b/w.txt\r\n--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1,2 +1,2 @@ sec\r\n a\r\n-b\r\n+c\r\n";
        let parsed = parse(patch).unwrap();
        let FilePatch::Update { path, hunks, .. } = &parsed.files[0] else { panic!() };
        assert_eq!(path, "w.txt");
        assert_eq!(hunks[0].section.as_deref(), Some("sec"));
        assert_eq!(hunks[0].lines, [ctx("a\r"), rem("b\r"), add("c\r")]);
    }

    #[test]
    fn bare_at_at_hunks_in_a_unified_diff_run_to_the_next_hunk() {
        let patch =
            ok(&["--- a/f.py", "+++ b/f.py", "@@", " a", "-b", "+c", "", "@@ def g():", "-x", "+y", ""]);
        let hunks = hunks(&patch.files[0]);
        assert_eq!(hunks[0], hunk(3, vec![ctx("a"), rem("b"), add("c")]));
        assert_eq!(hunks[1].contexts, ["def g():"]);
        assert_eq!(hunks[1].old_start, None);
        let e = fails(&["--- a/f", "+++ b/f", "@@ -1,x +1 @@", "-a", "+b"]);
        assert!(e.message.contains("malformed hunk header"), "{e}");
    }

    #[test]
    fn binary_patches_are_refused() {
        for line in ["Binary files a/logo.png and b/logo.png differ", "GIT binary patch"] {
            let e = fails(&["diff --git a/logo.png b/logo.png", "index 1..2 100644", line, "literal 5"]);
            assert_eq!((e.kind, e.line), (PatchErrorKind::Binary, 3));
            assert!(e.message.contains("binary patches are not supported"), "{e}");
        }
        let e = fails(&["Binary files /dev/null and b/x.bin differ"]);
        assert_eq!(e.kind, PatchErrorKind::Binary);
    }

    #[test]
    fn quoted_names_are_unquoted() {
        let patch = ok(&[
            "diff --git \"a/caf\\303\\251.txt\" \"b/caf\\303\\251.txt\"",
            "index 1..2 100644",
            "--- \"a/caf\\303\\251.txt\"",
            "+++ \"b/caf\\303\\251.txt\"",
            "@@ -1 +1 @@",
            "-a",
            "+b",
            "diff --git \"a/tab\\there\" \"b/new \\\"name\\\"\"",
            "similarity index 100%",
            "rename from \"tab\\there\"",
            "rename to \"new \\\"name\\\"\"",
        ]);
        assert_eq!(patch.files[0].path(), "café.txt");
        assert_eq!(
            patch.files[1],
            FilePatch::Update {
                path: "tab\there".into(),
                move_to: Some("new \"name\"".into()),
                hunks: vec![]
            }
        );
        let e = fails(&["--- \"a/x", "+++ b/x", "@@ -1 +1 @@", "-a", "+b"]);
        assert_eq!(e.kind, PatchErrorKind::Path);
        let e = fails(&["--- \"a/\\377\"", "+++ \"b/\\377\"", "@@ -1 +1 @@", "-a", "+b"]);
        assert!(e.message.contains("is not UTF-8"), "{e}");
    }

    #[test]
    fn git_header_names_without_other_headers() {
        // Names with spaces: the same path on both sides splits in the middle.
        let patch = ok(&[
            "diff --git a/my notes.txt b/my notes.txt",
            "new file mode 100644",
            "index 0000000..e69de29",
        ]);
        assert_eq!(patch.files[0], FilePatch::Add { path: "my notes.txt".into(), content: String::new() });
        // --no-prefix.
        let patch = ok(&["diff --git x.txt x.txt", "deleted file mode 100644"]);
        assert_eq!(patch.files[0], FilePatch::Delete { path: "x.txt".into(), expected: Some(String::new()) });
    }

    #[test]
    fn format_patch_mail_and_signature_are_ignored() {
        let patch = ok(&[
            "From 1a2b3c4d5e6f Mon Sep 17 00:00:00 2001",
            "From: Dev <dev@example.com>",
            "Date: Tue, 5 Mar 2024 12:00:00 +0000",
            "Subject: [PATCH] Fix typo",
            "",
            "---",
            " README.md | 2 +-",
            " 1 file changed, 1 insertion(+), 1 deletion(-)",
            "",
            "diff --git a/README.md b/README.md",
            "index 1234567..89abcde 100644",
            "--- a/README.md",
            "+++ b/README.md",
            "@@ -1 +1 @@",
            "-Helo",
            "+Hello",
            "-- ",
            "2.43.0",
            "",
        ]);
        assert_eq!(patch.files.len(), 1);
        assert_eq!(hunks(&patch.files[0])[0].lines, [rem("Helo"), add("Hello")]);
    }

    #[test]
    fn several_traditional_files_in_one_diff() {
        let patch = ok(&[
            "Index: a.txt",
            "===================================================================",
            "--- a.txt",
            "+++ a.txt",
            "@@ -1 +1 @@",
            "-1",
            "+one",
            "--- b.txt",
            "+++ b.txt",
            "@@ -1 +1,2 @@",
            " 2",
            "+two",
        ]);
        let paths: Vec<_> = patch.files.iter().map(FilePatch::path).collect();
        assert_eq!(paths, ["a.txt", "b.txt"]);
    }

    #[test]
    fn mode_changes_and_copies_are_not_supported() {
        let e = fails(&["diff --git a/run.sh b/run.sh", "old mode 100644", "new mode 100755"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Unsupported, 1));
        assert!(e.message.contains("only changes the file's mode"), "{e}");
        let e = fails(&["diff --git a/a b/b", "similarity index 100%", "copy from a", "copy to b"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Unsupported, 3));
        // A mode change with content: the content is the change.
        let patch = ok(&[
            "diff --git a/r b/r",
            "old mode 100644",
            "new mode 100755",
            "--- a/r",
            "+++ b/r",
            "@@ -1 +1 @@",
            "-a",
            "+b",
        ]);
        assert_eq!(hunks(&patch.files[0]).len(), 1);
    }

    #[test]
    fn a_plain_diff_naming_two_files_is_refused() {
        let e = fails(&["--- src/old.py", "+++ src/new.py", "@@ -1 +1 @@", "-a", "+b"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Syntax, 1));
        assert!(e.message.contains("cannot rename"), "{e}");
    }

    #[test]
    fn unified_structure_errors() {
        let e = fails(&["Here is the fix:", "@@ -1 +1 @@", "-a", "+b"]);
        assert_eq!(e.line, 2);
        assert!(e.message.contains("has no file before it"), "{e}");
        let e = fails(&["--- a/f", "+++ b/f"]);
        assert_eq!(e.kind, PatchErrorKind::NoChange);
        let e = fails(&["--- a/f", "+++ b/f", "-a", "+b"]);
        assert!(e.message.contains("expected a hunk header"), "{e}");
        let e = fails(&["--- /dev/null", "+++ /dev/null", "@@ -0,0 +1 @@", "+a"]);
        assert!(e.message.contains("both sides"), "{e}");
        let e = fails(&["--- /dev/null", "+++ b/new", "@@ -1 +1 @@", "-a", "+b"]);
        assert!(e.message.contains("a new file's lines all start with '+'"), "{e}");
        let e = fails(&["--- a/f", "+++ b/f", "@@ -1,0 +1,0 @@"]);
        assert!(e.message.contains("announces no lines"), "{e}");
        let e = fails(&["--- a/f", "+++ b/f", "@@", " a", "b", "+c"]);
        assert!(e.message.contains("is outside any hunk"), "{e}");
    }

    #[test]
    fn context_diffs_are_not_supported() {
        let e = fails(&["*** a.txt\t2024-01-01", "--- a.txt\t2024-01-02", "***************", "*** 1 ****"]);
        assert_eq!(e.kind, PatchErrorKind::Unsupported);
    }

    // ---- Both formats ----

    #[test]
    fn empty_patches_and_patches_without_files_are_refused() {
        for empty in ["", "\n", "  \n\t\n", "\u{feff}"] {
            assert_eq!(parse(empty).unwrap_err().kind, PatchErrorKind::Empty, "{empty:?}");
        }
        let e = parse("please apply my change").unwrap_err();
        assert_eq!((e.kind, e.line), (PatchErrorKind::NoFiles, 1));
        let e = parse("*** Begin Patch\\n*** Delete File: a\\n*** End Patch").unwrap_err();
        assert_eq!(e.kind, PatchErrorKind::NoFiles);
        assert!(e.message.contains("arrived as the two characters `\\n`"), "{e}");
        let e = fails(&["*** Begin Patch", "", "*** End Patch"]);
        assert_eq!(e.kind, PatchErrorKind::NoFiles);
    }

    #[test]
    fn empty_paths_are_refused_and_absolute_ones_are_left_to_the_sandbox() {
        let e = fails(&["*** Begin Patch", "*** Delete File: ", "*** End Patch"]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Path, 2));
        assert!(e.message.contains("path is empty"), "{e}");
        // Whether `/root/x` is inside the root is not the parser's to say.
        for path in ["/root/x", "~/x", "C:\\x"] {
            let patch = ok(&["*** Begin Patch", &format!("*** Add File: {path}"), "+x", "*** End Patch"]);
            assert_eq!(patch.files[0].path(), path);
        }
        let patch = ok(&[
            "--- /root/hosts\t2024-01-01 00:00:00",
            "+++ /root/hosts\t2024-01-01 00:00:01",
            "@@ -1 +1 @@",
            "-a",
            "+b",
        ]);
        assert_eq!(patch.files[0].path(), "/root/hosts");
        // `./` is the sandbox's to read too (`./~name` names a file whose name begins with `~`).
        let patch = ok(&["*** Begin Patch", "*** Delete File: ./src/x.rs", "*** End Patch"]);
        assert_eq!(patch.files[0].path(), "./src/x.rs");
    }

    #[test]
    fn a_path_touched_twice_is_refused_naming_both_lines() {
        let e = fails(&[
            "*** Begin Patch",
            "*** Update File: src/a.rs",
            "@@",
            "-x",
            "+y",
            "*** Update File: src/a.rs",
            "@@",
            "-z",
            "+w",
            "*** End Patch",
        ]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Duplicate, 6));
        assert!(
            e.message.starts_with("\"src/a.rs\" is touched twice in one patch (patch lines 2 and 6)"),
            "{e}"
        );
        // A rename's destination counts.
        let e = fails(&[
            "*** Begin Patch",
            "*** Add File: b.rs",
            "+x",
            "*** Update File: a.rs",
            "*** Move to: b.rs",
            "@@",
            "-x",
            "*** End Patch",
        ]);
        assert_eq!(e.kind, PatchErrorKind::Duplicate);
        let e = fails(&[
            "--- a/f",
            "+++ b/f",
            "@@ -1 +1 @@",
            "-a",
            "+b",
            "--- a/f",
            "+++ b/f",
            "@@ -5 +5 @@",
            "-c",
            "+d",
        ]);
        assert_eq!((e.kind, e.line), (PatchErrorKind::Duplicate, 6));
    }

    #[test]
    fn old_and_new_text_end_each_line_unless_the_side_has_no_final_newline() {
        let mut h = hunk(1, vec![ctx("a"), rem("b"), add("c"), add("d")]);
        assert_eq!((h.old_text(), h.new_text()), ("a\nb\n".into(), "a\nc\nd\n".into()));
        h.new_missing_final_newline = true;
        assert_eq!(h.new_text(), "a\nc\nd");
        let empty = hunk(1, vec![add("x")]);
        assert_eq!((empty.old_text(), empty.old_len()), (String::new(), 0));
    }

    #[test]
    fn long_lines_are_cut_in_messages() {
        let long = "y".repeat(500);
        let e =
            parse(&format!("*** Begin Patch\n*** Update File: a\n@@\n{long}\n*** End Patch\n")).unwrap_err();
        assert!(e.message.len() < 400, "{e}");
        assert!(e.message.contains("…"), "{e}");
    }

    // ---- Properties ----

    /// Applies hunks at their `old_start`, as an applier that trusted the numbers would.
    fn splice(old: &str, at: &[usize], hunks: &[Hunk]) -> Option<String> {
        let lines: Vec<&str> = old.split_inclusive('\n').collect();
        let mut out = String::new();
        let mut next = 0;
        for (start, hunk) in at.iter().zip(hunks) {
            let from = start.checked_sub(1)?;
            let to = from + hunk.old_len();
            if from < next || to > lines.len() || lines[from..to].concat() != hunk.old_text() {
                return None;
            }
            out.push_str(&lines[next..from].concat());
            out.push_str(&hunk.new_text());
            next = to;
        }
        out.push_str(&lines[next..].concat());
        Some(out)
    }

    /// A Codex envelope for the same hunks (it cannot say "no newline at end of file").
    fn codex_envelope(path: &str, hunks: &[Hunk]) -> String {
        let mut text = format!("*** Begin Patch\n*** Update File: {path}\n");
        for hunk in hunks {
            text.push_str("@@\n");
            for line in &hunk.lines {
                let prefix = match line {
                    HunkLine::Context(_) => ' ',
                    HunkLine::Remove(_) => '-',
                    HunkLine::Add(_) => '+',
                };
                text.push(prefix);
                text.push_str(line.text());
                text.push('\n');
            }
        }
        text.push_str("*** End Patch\n");
        text
    }

    fn joined(lines: &[String], eol: &str, final_eol: bool) -> String {
        let mut text = lines.join(eol);
        if final_eol && !text.is_empty() {
            text.push_str(eol);
        }
        text
    }

    const LINE: &str = "(a|b|c|é||  |\\*\\*\\* End Patch|\\*\\*\\* End of File|@@ x|-a|\\+b|-- x|\\\\ x|```)";

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// A diff that `similar` writes parses back into hunks that, spliced at their line
        /// numbers, turn the old text into the new one; a Codex envelope of the same hunks
        /// parses into the same lines.
        #[test]
        fn generated_diffs_round_trip(
            old_lines in proptest::collection::vec(LINE, 0..24),
            edits in proptest::collection::vec((0usize..24, 0usize..3, proptest::collection::vec(LINE, 0..3)), 0..4),
            old_final_eol in proptest::bool::ANY,
            new_final_eol in proptest::bool::ANY,
            crlf in proptest::bool::ANY,
        ) {
            let mut new_lines = old_lines.clone();
            for (at, removed, inserted) in edits {
                let at = at.min(new_lines.len());
                let removed = removed.min(new_lines.len() - at);
                new_lines.splice(at..at + removed, inserted);
            }
            let eol = if crlf { "\r\n" } else { "\n" };
            let old = joined(&old_lines, eol, old_final_eol);
            let mut new = joined(&new_lines, eol, new_final_eol);
            if new == old {
                // Rejecting equal texts instead would reject one case in six.
                new.push('z');
            }
            let diff = similar::TextDiff::from_lines(&old, &new).unified_diff().header("a/f", "b/f").to_string();
            let patch = parse(&diff).map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}\n{diff}")))?;
            proptest::prop_assert_eq!(patch.format, Format::Unified);
            proptest::prop_assert_eq!(patch.files.len(), 1);
            let FilePatch::Update { path, move_to: None, hunks } = &patch.files[0] else {
                return Err(proptest::test_runner::TestCaseError::fail(format!("{patch:?}")));
            };
            proptest::prop_assert_eq!(path, "f");
            let starts: Vec<usize> = hunks.iter().map(|h| h.old_start.unwrap()).collect();
            proptest::prop_assert_eq!(splice(&old, &starts, hunks), Some(new.clone()), "{}", diff);

            let no_newline_marker = hunks.iter().any(|h| h.old_missing_final_newline || h.new_missing_final_newline);
            if !no_newline_marker {
                let envelope = codex_envelope("f", hunks);
                let codex = parse(&envelope).map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}\n{envelope}")))?;
                proptest::prop_assert_eq!(codex.format, Format::Codex);
                let codex_hunks = match &codex.files[..] {
                    [FilePatch::Update { hunks, .. }] => hunks,
                    other => return Err(proptest::test_runner::TestCaseError::fail(format!("{other:?}"))),
                };
                let lines = |hs: &[Hunk]| hs.iter().map(|h| h.lines.clone()).collect::<Vec<_>>();
                proptest::prop_assert_eq!(lines(codex_hunks), lines(hunks), "{}", envelope);
                proptest::prop_assert_eq!(splice(&old, &starts, codex_hunks), Some(new), "{}", envelope);
            }
        }

        /// Any text at all: an answer, never a panic.
        #[test]
        fn parse_never_panics_on_any_text(text in "\\PC*") {
            let _ = parse(&text);
        }

        /// Patch-shaped soup, where the parser's branches are: an answer, never a panic, and
        /// an error's line is inside the patch.
        #[test]
        fn parse_never_panics_on_patch_shaped_text(
            lines in proptest::collection::vec(
                "(\\*\\*\\* Begin Patch|\\*\\*\\* End Patch|\\*\\*\\* Add File: a|\\*\\*\\* Update File: b|\
                 \\*\\*\\* Delete File: c|\\*\\*\\* Move to: d|\\*\\*\\* End of File|@@|@@ x|@@ -1,2 \\+1 @@|\
                 @@ -0,0 \\+1 @@|@@ -3 \\+3,0 @@ s|--- a/f|\\+\\+\\+ b/f|--- /dev/null|\\+\\+\\+ /dev/null|\
                 diff --git a/f b/f|diff --git \"a/\\\\303\\\\251\" b/e|new file mode 100644|deleted file mode 100644|\
                 rename from x|rename to y|old mode 1|\\\\ No newline at end of file| a|-a|\\+a||\r|x|<<'EOF'|EOF|```)",
                0..30,
            ),
            crlf in proptest::bool::ANY,
        ) {
            let text = lines.join(if crlf { "\r\n" } else { "\n" });
            if let Err(e) = parse(&text) {
                proptest::prop_assert!(e.line >= 1 && e.line <= lines.len().max(1), "{e} in {} lines", lines.len());
            }
        }
    }
}
