//! `search_files`: the lines of files under a directory that match a literal string or a
//! regular expression, with context, through the sandbox.
//!
//! Matching is ripgrep's own: `grep-regex` builds the matcher and `grep-searcher` finds the
//! lines and their context. Files come from [`super::walk`] (so `.gitignore` is honoured and
//! symlinks are never entered) and are read with [`Workspace::read`], never by host path.
//! Each file is searched as text in its own encoding ([`super::encoding`]: UTF-8, UTF-16 with a
//! BOM, or the legacy encoding detected), so matches and the lines shown are its decoded
//! text. A file with a NUL byte (outside UTF-16 with a BOM) is binary and skipped, as git and
//! ripgrep decide.

use grep_regex::RegexMatcherBuilder;
use grep_searcher::{Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch};
use schemars::JsonSchema;
use serde::Serialize;

use super::encoding;
use super::read::cut_line;
use super::walk::{PathGlob, Walked, walk_files};
use crate::error::{Error, Result};
use crate::workspace::{FileKind, RootPath, Workspace};

/// Characters of a matching line shown, at most: a minified file's one line must not flood the
/// model's context.
pub const MAX_SHOWN_CHARS: usize = 500;
/// Context lines around a match, at most.
pub const MAX_CONTEXT: usize = 20;

/// What to search for and where.
#[derive(Debug, Clone)]
pub struct Query<'a> {
    /// The text (or, with `regex`, the regular expression) to find on one line.
    pub pattern: &'a str,
    /// `pattern` is a regular expression (Rust `regex` syntax) rather than a literal.
    pub regex: bool,
    /// Upper and lower case differ.
    pub case_sensitive: bool,
    /// Lines shown before and after each match.
    pub context: usize,
    /// Only files whose path matches this glob (matched as [`super::PathGlob`] matches).
    pub glob: Option<&'a str>,
    /// Matching lines shown at most; the rest are counted.
    pub max_matches: usize,
    /// Larger files are skipped (and counted).
    pub max_file_bytes: u64,
}

/// One line of a file's results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HitLine {
    /// 1-based line number.
    pub line: u64,
    /// The line without its line ending, cut after 500 characters.
    pub text: String,
    /// A context line around a match, not a match itself.
    pub context: bool,
}

/// The results in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FileHits {
    /// The file, relative to the root.
    pub path: RootPath,
    /// Matching lines in the file, shown or not.
    pub matches: usize,
    /// The lines shown: matches and their context, in line order.
    pub lines: Vec<HitLine>,
}

/// What a search found. The field docs are the wire's (`search_files`' output schema).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, JsonSchema)]
pub struct Searched {
    /// Files with at least one shown line, in path order.
    pub files: Vec<FileHits>,
    /// Matching lines in every file searched.
    pub matches: usize,
    /// Matching lines shown (at most `max_results`).
    pub shown: usize,
    /// Files with a matching line, shown or not.
    pub files_matched: usize,
    /// Files searched.
    pub searched: usize,
    /// Files skipped because they contain a NUL byte.
    pub binary: usize,
    /// Files skipped because they are larger than the server's --max-file-bytes.
    pub too_large: usize,
    /// Files that vanished or could not be read while searching.
    pub unreadable: usize,
    /// What the walk left out.
    #[serde(flatten)]
    pub walked: Walked,
}

/// Searches the files under `dir` (the root when None), or `dir` itself when it is a file.
pub fn search(ws: &Workspace, dir: Option<&RootPath>, query: &Query) -> Result<Searched> {
    let matcher = matcher(query)?;
    let glob = query.glob.map(|g| PathGlob::new("glob", g, dir)).transpose()?;
    let context = query.context.min(MAX_CONTEXT);
    let mut searcher =
        SearcherBuilder::new().line_number(true).before_context(context).after_context(context).build();
    let mut out = Searched::default();
    let mut search_one = |path: &RootPath, size: Option<u64>, out: &mut Searched| {
        if glob.as_ref().is_some_and(|g| !g.matches(path)) {
            return;
        }
        if size.is_some_and(|size| size > query.max_file_bytes) {
            out.too_large += 1;
            return;
        }
        let bytes = match ws.read(path, query.max_file_bytes) {
            Ok(bytes) => bytes,
            Err(Error::TooLargeToRead { .. }) => {
                out.too_large += 1;
                return;
            }
            Err(_) => {
                out.unreadable += 1;
                return;
            }
        };
        let Some(text) = encoding::text_of(&bytes) else {
            out.binary += 1;
            return;
        };
        // A BOM is not part of the first line's text (`^` matches after it).
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        out.searched += 1;
        let mut hits = FileHits { path: path.clone(), matches: 0, lines: Vec::new() };
        let budget = query.max_matches - out.shown;
        let mut sink = Collect { hits: &mut hits, budget, context: context as u64, last_shown: None };
        if searcher.search_slice(&matcher, text.as_bytes(), &mut sink).is_err() {
            out.unreadable += 1;
            return;
        }
        let shown = budget - sink.budget;
        out.shown += shown;
        out.matches += hits.matches;
        if hits.matches > 0 {
            out.files_matched += 1;
        }
        if !hits.lines.is_empty() {
            out.files.push(hits);
        }
    };
    // A path that names one file searches that file, as ripgrep does.
    if let Some(file) = dir
        && ws.stat(file)?.is_some_and(|info| info.kind == FileKind::File)
    {
        search_one(file, None, &mut out);
        return Ok(out);
    }
    out.walked = walk_files(ws, dir, &mut |entry| search_one(&entry.path, entry.size, &mut out))?;
    Ok(out)
}

/// ripgrep's matcher for `query`; an invalid pattern is an error that quotes it and says how
/// to search for it literally.
fn matcher(query: &Query) -> Result<grep_regex::RegexMatcher> {
    let pattern = query.pattern;
    if pattern.is_empty() {
        return Err(Error::InvalidArgument { name: "pattern", reason: "give the text to search for".into() });
    }
    if pattern.contains('\n') {
        return Err(Error::InvalidArgument {
            name: "pattern",
            reason: format!(
                "{pattern:?} spans more than one line, but matches are found one line at a time; search for \
                 one line of it"
            ),
        });
    }
    let mut builder = RegexMatcherBuilder::new();
    builder.case_insensitive(!query.case_sensitive).fixed_strings(!query.regex).line_terminator(Some(b'\n'));
    builder.build(pattern).map_err(|e| Error::InvalidArgument {
        name: "pattern",
        reason: format!(
            "{pattern:?} is not a valid regular expression ({}). To search for the text as written, pass \
             regex: false; to keep it a regex, escape each special character with a backslash, e.g. \
             \\( \\) \\[ \\{{ \\. \\* \\+ \\? \\| \\$ \\^",
            parse_error(&e.to_string())
        ),
    })
}

/// The reason in a regex error, without the echo of the (internally wrapped) pattern and its
/// caret line: "unclosed group".
fn parse_error(message: &str) -> String {
    match message.rsplit_once("error: ") {
        Some((_, reason)) => reason.trim().to_string(),
        None => message.trim().replace('\n', " "),
    }
}

/// Collects one file's lines: every matching line is counted; the first `budget` are kept with
/// their context, plus the after-context of the last one kept.
struct Collect<'a> {
    hits: &'a mut FileHits,
    budget: usize,
    context: u64,
    /// Line number of the last match kept.
    last_shown: Option<u64>,
}

impl Collect<'_> {
    fn keep(&mut self, line: u64, bytes: &[u8], context: bool) {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches('\n').trim_end_matches('\r');
        self.hits.lines.push(HitLine { line, text: cut_line(text, MAX_SHOWN_CHARS).into_owned(), context });
    }
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> std::result::Result<bool, Self::Error> {
        let first = found.line_number().unwrap_or(0);
        for (i, line) in found.lines().enumerate() {
            let number = first + i as u64;
            self.hits.matches += 1;
            if self.budget > 0 {
                self.budget -= 1;
                self.last_shown = Some(number);
                self.keep(number, line, false);
            }
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, around: &SinkContext<'_>) -> std::result::Result<bool, Self::Error> {
        let number = around.line_number().unwrap_or(0);
        // Before a match that will be kept (budget left), or after the last one kept.
        let wanted = match around.kind() {
            SinkContextKind::Before => self.budget > 0,
            SinkContextKind::After => self.last_shown.is_some_and(|last| number <= last + self.context),
            SinkContextKind::Other => false,
        };
        if wanted {
            self.keep(number, around.bytes(), true);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::temp_workspace;

    fn query(pattern: &str) -> Query<'_> {
        Query {
            pattern,
            regex: false,
            case_sensitive: true,
            context: 0,
            glob: None,
            max_matches: 200,
            max_file_bytes: 1 << 20,
        }
    }

    fn shown(s: &Searched) -> Vec<String> {
        s.files
            .iter()
            .flat_map(|f| {
                f.lines.iter().map(move |l| {
                    format!(
                        "{}{}{}{}",
                        f.path,
                        if l.context { "-" } else { ":" },
                        l.line,
                        if l.context { "-" } else { ":" }
                    ) + &l.text
                })
            })
            .collect()
    }

    fn setup() -> (tempfile::TempDir, Workspace) {
        let (t, ws) = temp_workspace();
        let files: &[(&str, &[u8])] = &[
            ("src/a.rs", b"fn main() {\n    let x = foo(1);\n}\n"),
            ("src/b.py", b"def foo(x):\r\n    return x\r\n"),
            ("target/gen.rs", b"foo(2)\n"),
            ("img.png", b"\x89PNG\x00foo"),
            ("notes.txt", b"Foo and foo.\n"),
        ];
        for (p, bytes) in files {
            std::fs::create_dir_all(t.path().join(p).parent().unwrap()).unwrap();
            std::fs::write(t.path().join(p), bytes).unwrap();
        }
        std::fs::write(t.path().join(".gitignore"), "target/\n").unwrap();
        (t, ws)
    }

    #[test]
    fn a_literal_is_found_on_each_line_in_path_order_skipping_ignored_and_binary_files() {
        let (_t, ws) = setup();
        let s = search(&ws, None, &query("foo(")).unwrap();
        assert_eq!(shown(&s), ["src/a.rs:2:    let x = foo(1);", "src/b.py:1:def foo(x):"]);
        assert_eq!((s.matches, s.files_matched, s.walked.ignored), (2, 2, 1));
        let s = search(&ws, None, &query("foo")).unwrap();
        assert_eq!(s.binary, 1, "img.png has a NUL byte");
        let files: Vec<String> = s.files.iter().map(|f| f.path.display()).collect();
        assert_eq!(files, ["notes.txt", "src/a.rs", "src/b.py"], "each directory's entries by name");
        assert_eq!(s.matches, 3, "notes.txt's line with two matches counts once");
    }

    #[test]
    fn regex_case_and_glob_options_change_what_matches() {
        let (_t, ws) = setup();
        let s = search(&ws, None, &Query { regex: true, ..query(r"foo\(\d\)") }).unwrap();
        assert_eq!(shown(&s), ["src/a.rs:2:    let x = foo(1);"]);
        assert_eq!(search(&ws, None, &query(r"foo\(")).unwrap().matches, 0, "a literal backslash is literal");
        let s = search(&ws, None, &Query { case_sensitive: false, ..query("FOO AND") }).unwrap();
        assert_eq!(shown(&s), ["notes.txt:1:Foo and foo."]);
        let s = search(&ws, None, &Query { glob: Some("*.py"), ..query("foo") }).unwrap();
        assert_eq!(shown(&s), ["src/b.py:1:def foo(x):"]);
        let src = ws.resolve("src").unwrap();
        let s = search(&ws, Some(&src), &Query { glob: Some("a.*"), ..query("foo") }).unwrap();
        assert_eq!(shown(&s), ["src/a.rs:2:    let x = foo(1);"]);
    }

    #[test]
    fn context_lines_are_marked_and_the_output_is_bounded_with_a_count() {
        let (t, ws) = temp_workspace();
        let text: String = (1..=30)
            .map(|i| if i % 10 == 0 { format!("hit {i}\n") } else { format!("line {i}\n") })
            .collect();
        std::fs::write(t.path().join("f.txt"), &text).unwrap();
        let s = search(&ws, None, &Query { context: 1, max_matches: 2, ..query("hit") }).unwrap();
        assert_eq!(
            shown(&s),
            [
                "f.txt-9-line 9",
                "f.txt:10:hit 10",
                "f.txt-11-line 11",
                "f.txt-19-line 19",
                "f.txt:20:hit 20",
                "f.txt-21-line 21"
            ]
        );
        assert_eq!((s.matches, s.shown), (3, 2), "the third match is counted, not shown");
    }

    #[test]
    fn a_path_that_names_a_file_searches_that_file() {
        let (_t, ws) = setup();
        let file = ws.resolve("src/a.rs").unwrap();
        let s = search(&ws, Some(&file), &query("foo")).unwrap();
        assert_eq!(shown(&s), ["src/a.rs:2:    let x = foo(1);"]);
        assert_eq!(s.searched, 1);
    }

    #[test]
    fn long_lines_are_cut_and_large_files_skipped() {
        let (t, ws) = temp_workspace();
        std::fs::write(t.path().join("min.js"), format!("x{}", "a".repeat(10_000))).unwrap();
        let s = search(&ws, None, &query("x")).unwrap();
        assert!(s.files[0].lines[0].text.contains("line cut"), "{:?}", s.files[0].lines[0].text.len());
        let s = search(&ws, None, &Query { max_file_bytes: 100, ..query("x") }).unwrap();
        assert_eq!((s.too_large, s.matches), (1, 0));
    }

    #[test]
    fn an_invalid_regex_is_an_error_that_quotes_it_and_says_how_to_escape() {
        let (_t, ws) = setup();
        let err = search(&ws, None, &Query { regex: true, ..query("foo(") }).unwrap_err().to_string();
        assert!(err.contains("\"foo(\"") && err.contains("regex: false") && err.contains("\\("), "{err}");
        assert!(err.contains("(unclosed group)"), "the reason, without the wrapped pattern: {err}");
        assert!(search(&ws, None, &query("a\nb")).is_err(), "a pattern over two lines can never match");
    }
}
