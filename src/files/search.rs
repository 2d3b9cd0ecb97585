//! `search_files`: the lines of files under a directory that match a literal string or a
//! regular expression, with context, through the sandbox.
//!
//! Matching is ripgrep's own: `grep-regex` builds the matcher and `grep-searcher` finds the
//! lines and their context. Files come from [`super::walk`] (so `.gitignore` and `.ignore`
//! are honoured and symlinks are never entered), which also reads them, through the sandbox,
//! on every core; never by host path.
//!
//! Each file is searched as text in its own encoding ([`super::encoding`]: UTF-8, UTF-16 with
//! a BOM, or the legacy encoding detected), so matches and the lines shown are its decoded
//! text. A file with a NUL byte (outside UTF-16 with a BOM) is binary and skipped, as git and
//! ripgrep decide. The encoding is decided on the whole file, so a file is read whole (into
//! memory each thread reuses) before it is searched, not streamed: only a file whose first
//! 64 KB show it binary is left unread past them.

use std::collections::BTreeMap;
use std::sync::Mutex;

use grep_regex::RegexMatcherBuilder;
use grep_searcher::{Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch};
use schemars::JsonSchema;
use serde::Serialize;

use super::encoding;
use super::glob::PathGlob;
use super::read::cut_line;
use super::tree::Read;
use super::walk::{FileAt, Walked, walk_files};
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
///
/// Files are searched on every core ([`super::walk`]); what is shown is what a search of one
/// file after the other, in path order, would show: each file's matching lines until
/// `max_matches` are shown, with their context.
pub fn search(ws: &Workspace, dir: Option<&RootPath>, query: &Query) -> Result<Searched> {
    let matcher = matcher(query)?;
    let glob = query.glob.map(|g| PathGlob::new("glob", g, dir)).transpose()?;
    let context = query.context.min(MAX_CONTEXT);
    let selected = |path: &RootPath| glob.as_ref().is_none_or(|g| g.matches(path));
    let keep = |file: &FileAt| glob.as_ref().is_none_or(|g| g.matches_file(file)).then_some(());
    let kept = Kept::new(query.max_matches);
    let mut out = Searched::default();
    // A path that names one file searches that file, as ripgrep does.
    if let Some(file) = dir
        && ws.stat(file)?.is_some_and(|info| info.kind == FileKind::File)
    {
        if selected(file) {
            let mut worker = Worker::new(context);
            let read = ws.read(file, query.max_file_bytes).map(Some);
            let counted = worker.search(&matcher, &kept, file, read);
            out.count(&counted);
        }
    } else {
        let walk = walk_files(ws, dir, &keep)?;
        let counts = walk.visit(
            || Worker::new(context),
            |worker, file, ()| {
                let read = worker.read(file, query.max_file_bytes);
                worker.search(&matcher, &kept, file.path(), read)
            },
        );
        for counted in &counts {
            out.count(counted);
        }
        out.walked = walk.walked;
    }
    let mut left = query.max_matches;
    for (path, hits) in kept.into_files() {
        let matches = hits.matches;
        let (shown, lines) = hits.trim(left, context as u64);
        left -= shown;
        out.shown += shown;
        if !lines.is_empty() {
            out.files.push(FileHits { path, matches, lines });
        }
    }
    Ok(out)
}

impl Searched {
    fn count(&mut self, counted: &Counted) {
        match counted {
            Counted::Searched { matches } => {
                self.searched += 1;
                self.matches += matches;
                self.files_matched += usize::from(*matches > 0);
            }
            Counted::Binary => self.binary += 1,
            Counted::TooLarge => self.too_large += 1,
            Counted::Unreadable => self.unreadable += 1,
        }
    }
}

/// What became of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counted {
    /// Searched, with this many matching lines.
    Searched {
        matches: usize,
    },
    Binary,
    TooLarge,
    Unreadable,
}

/// One thread's means of searching: its searchers and the memory it reads files into.
struct Worker {
    /// Finds lines with their numbers and context, to show them.
    shower: Searcher,
    /// Only counts matching lines, for a file whose lines cannot be shown.
    counter: Searcher,
    bytes: Vec<u8>,
    context: u64,
}

impl Worker {
    fn new(context: usize) -> Worker {
        let shower =
            SearcherBuilder::new().line_number(true).before_context(context).after_context(context).build();
        let counter = SearcherBuilder::new().line_number(false).build();
        Worker { shower, counter, bytes: Vec::new(), context: context as u64 }
    }

    /// Reads `file` into the worker's memory; None when its start shows that it is binary
    /// (a NUL byte, as [`encoding::text_of`] decides), which spares reading the rest.
    fn read(&mut self, file: &FileAt, limit: u64) -> Result<Option<Vec<u8>>> {
        let mut bytes = std::mem::take(&mut self.bytes);
        match file.read(limit, &mut bytes, &encoding::binary_at_start)? {
            Read::Whole => Ok(Some(bytes)),
            Read::Start => {
                self.bytes = bytes;
                Ok(None)
            }
        }
    }

    /// Searches the file at `path`, whose bytes `read` gave; its lines that may be shown go
    /// to `kept`.
    fn search(
        &mut self,
        matcher: &grep_regex::RegexMatcher,
        kept: &Kept,
        path: &RootPath,
        read: Result<Option<Vec<u8>>>,
    ) -> Counted {
        let bytes = match read {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Counted::Binary,
            Err(Error::TooLargeToRead { .. }) => return Counted::TooLarge,
            Err(_) => return Counted::Unreadable,
        };
        let counted = self.search_bytes(matcher, kept, path, &bytes);
        // The memory is kept for the next file, unless a large file made it large.
        if bytes.capacity() <= KEPT_BUFFER {
            self.bytes = bytes;
        }
        counted
    }

    fn search_bytes(
        &mut self,
        matcher: &grep_regex::RegexMatcher,
        kept: &Kept,
        path: &RootPath,
        bytes: &[u8],
    ) -> Counted {
        let Some(text) = encoding::text_of(bytes) else { return Counted::Binary };
        // A BOM is not part of the first line's text (`^` matches after it).
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let budget = kept.budget(path);
        if budget == 0 {
            let mut sink = CountMatches(0);
            return match self.counter.search_slice(matcher, text.as_bytes(), &mut sink) {
                Ok(()) => Counted::Searched { matches: sink.0 },
                Err(_) => Counted::Unreadable,
            };
        }
        let mut sink = Collect {
            matches: 0,
            shown: 0,
            lines: Vec::new(),
            budget,
            context: self.context,
            last_shown: None,
        };
        if self.shower.search_slice(matcher, text.as_bytes(), &mut sink).is_err() {
            return Counted::Unreadable;
        }
        let Collect { matches, shown, lines, .. } = sink;
        if shown > 0 {
            kept.add(Hits { path: path.clone(), matches, shown, lines });
        }
        Counted::Searched { matches }
    }
}

/// The largest read buffer a worker keeps between files: past it, a file's memory is given
/// back once it was searched.
const KEPT_BUFFER: usize = 1 << 20;

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

/// The lines of the files searched so far that may still be shown, by path. Once the files
/// up to one path show `max_matches` lines among them, no file after it can show any: its
/// lines are dropped, and files after it are only counted.
struct Kept {
    max_matches: usize,
    state: Mutex<KeptState>,
}

#[derive(Default)]
struct KeptState {
    files: BTreeMap<RootPath, Hits>,
    /// The path up to which `max_matches` lines are shown, once there is one.
    full_at: Option<RootPath>,
}

impl Kept {
    fn new(max_matches: usize) -> Kept {
        Kept { max_matches, state: Mutex::new(KeptState::default()) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, KeptState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The matching lines worth keeping in the file at `path`: none when the files before it
    /// show all that may be shown.
    fn budget(&self, path: &RootPath) -> usize {
        match &self.lock().full_at {
            Some(full_at) if path > full_at => 0,
            _ => self.max_matches,
        }
    }

    /// Keeps a file's lines, unless files before it show all that may be shown.
    fn add(&self, hits: Hits) {
        let mut state = self.lock();
        if state.full_at.as_ref().is_some_and(|full_at| hits.path > *full_at) {
            return;
        }
        state.files.insert(hits.path.clone(), hits);
        let mut shown = 0;
        let full_at = state.files.values().find_map(|h| {
            shown += h.shown;
            (shown >= self.max_matches).then(|| h.path.clone())
        });
        if let Some(full_at) = full_at {
            let mut after = state.files.split_off(&full_at);
            let first = after.pop_first();
            state.files.extend(first);
            state.full_at = Some(full_at);
        }
    }

    /// The files kept, in path order.
    fn into_files(self) -> BTreeMap<RootPath, Hits> {
        self.state.into_inner().unwrap_or_else(|e| e.into_inner()).files
    }
}

/// One file's lines, as a search with the most lines that could be shown found them.
struct Hits {
    path: RootPath,
    /// Matching lines in the file, kept or not.
    matches: usize,
    /// Matching lines kept.
    shown: usize,
    lines: Vec<Line>,
}

/// A line kept: a match, or context before or after one.
struct Line {
    number: u64,
    text: String,
    kind: LineKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Match,
    Before,
    After,
}

impl Hits {
    /// The lines a search that could show only `budget` matching lines would have shown
    /// (`context` lines around each), and how many matching lines are among them. The rules
    /// are [`Collect`]'s, replayed over the lines it kept with a larger budget, which hold all
    /// of these.
    fn trim(self, budget: usize, context: u64) -> (usize, Vec<HitLine>) {
        let mut left = budget;
        let mut last_shown: Option<u64> = None;
        let mut lines = Vec::new();
        for line in self.lines {
            let keep = match line.kind {
                LineKind::Match if left > 0 => {
                    left -= 1;
                    last_shown = Some(line.number);
                    true
                }
                LineKind::Match => false,
                LineKind::Before => left > 0,
                LineKind::After => last_shown.is_some_and(|last| line.number <= last + context),
            };
            if keep {
                lines.push(HitLine {
                    line: line.number,
                    text: line.text,
                    context: line.kind != LineKind::Match,
                });
            }
        }
        (budget - left, lines)
    }
}

/// Counts matching lines, for a file none of whose lines can be shown.
struct CountMatches(usize);

impl Sink for CountMatches {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> std::result::Result<bool, Self::Error> {
        self.0 += found.lines().count();
        Ok(true)
    }
}

/// Collects one file's lines: every matching line is counted; the first `budget` are kept with
/// their context, plus the after-context of the last one kept.
struct Collect {
    /// Matching lines, kept or not.
    matches: usize,
    /// Matching lines kept.
    shown: usize,
    lines: Vec<Line>,
    budget: usize,
    context: u64,
    /// Line number of the last match kept.
    last_shown: Option<u64>,
}

impl Collect {
    fn keep(&mut self, number: u64, bytes: &[u8], kind: LineKind) {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches('\n').trim_end_matches('\r');
        self.lines.push(Line { number, text: cut_line(text, MAX_SHOWN_CHARS).into_owned(), kind });
    }
}

impl Sink for Collect {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> std::result::Result<bool, Self::Error> {
        let first = found.line_number().unwrap_or(0);
        for (i, line) in found.lines().enumerate() {
            let number = first + i as u64;
            self.matches += 1;
            if self.budget > 0 {
                self.budget -= 1;
                self.shown += 1;
                self.last_shown = Some(number);
                self.keep(number, line, LineKind::Match);
            }
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, around: &SinkContext<'_>) -> std::result::Result<bool, Self::Error> {
        let number = around.line_number().unwrap_or(0);
        // Before a match that will be kept (budget left), or after the last one kept.
        let kind = match around.kind() {
            SinkContextKind::Before if self.budget > 0 => LineKind::Before,
            SinkContextKind::After if self.last_shown.is_some_and(|last| number <= last + self.context) => {
                LineKind::After
            }
            _ => return Ok(true),
        };
        self.keep(number, around.bytes(), kind);
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

    /// The search of every file on its own, one after the other in path order, each with
    /// what is left of `max_matches`: what a search of the tree must show.
    fn one_file_after_the_other(ws: &Workspace, paths: &[RootPath], q: &Query) -> Searched {
        let mut out = Searched::default();
        for path in paths {
            let one = search(ws, Some(path), &Query { max_matches: q.max_matches - out.shown, ..q.clone() })
                .unwrap();
            out.files.extend(one.files);
            out.matches += one.matches;
            out.shown += one.shown;
            out.files_matched += one.files_matched;
            out.searched += one.searched;
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(40))]
        #[test]
        fn a_tree_searched_on_every_core_shows_what_one_file_after_the_other_shows(
            files in proptest::collection::vec(
                (0usize..4, 0usize..8, proptest::collection::vec(0usize..4, 0..14)), 1..30),
            max_matches in 1usize..15,
            context in 0usize..3,
        ) {
            let (t, ws) = temp_workspace();
            let mut paths = Vec::new();
            for (dir, name, lines) in &files {
                let path = match dir {
                    0 => format!("f{name}.txt"),
                    d => format!("d{d}/f{name}.txt"),
                };
                let text: String = lines.iter().map(|l| ["hit\n", "x\n", "hit, hit\n", "y\n"][*l]).collect();
                std::fs::create_dir_all(t.path().join(&path).parent().unwrap()).unwrap();
                std::fs::write(t.path().join(&path), text).unwrap();
                paths.push(ws.resolve(&path).unwrap());
            }
            paths.sort();
            paths.dedup();
            let q = Query { context, max_matches, ..query("hit") };
            let expected = one_file_after_the_other(&ws, &paths, &q);
            for _ in 0..3 {
                proptest::prop_assert_eq!(&search(&ws, None, &q).unwrap(), &expected);
            }
        }
    }

    #[test]
    fn many_matching_files_show_the_first_ones_in_path_order() {
        let (t, ws) = temp_workspace();
        let mut paths = Vec::new();
        for d in 0..20 {
            for f in 0..20 {
                let path = format!("d{d:02}/f{f:02}.txt");
                std::fs::create_dir_all(t.path().join(&path).parent().unwrap()).unwrap();
                std::fs::write(t.path().join(&path), "hit\nhit\nhit\n").unwrap();
                paths.push(ws.resolve(&path).unwrap());
            }
        }
        let s = search(&ws, None, &Query { max_matches: 100, ..query("hit") }).unwrap();
        assert_eq!((s.matches, s.shown, s.files_matched, s.searched), (1200, 100, 400, 400));
        let shown: Vec<String> = s.files.iter().map(|f| f.path.display()).collect();
        let first: Vec<String> = paths.iter().take(34).map(RootPath::display).collect();
        assert_eq!(shown, first, "33 files of 3 lines and one of 1");
        assert_eq!(s.files[33].lines.len(), 1);
        assert_eq!(s, one_file_after_the_other(&ws, &paths, &Query { max_matches: 100, ..query("hit") }));
    }

    #[test]
    fn a_large_file_is_binary_for_a_nul_at_its_start_or_past_it_but_utf16_is_text() {
        let (t, ws) = temp_workspace();
        let lines = "hit\n".repeat(40_000);
        std::fs::write(t.path().join("a_nul_first.bin"), format!("\0{lines}")).unwrap();
        std::fs::write(t.path().join("b_nul_last.bin"), format!("{lines}\0")).unwrap();
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend(lines.encode_utf16().flat_map(u16::to_le_bytes));
        std::fs::write(t.path().join("c_utf16.txt"), utf16).unwrap();
        std::fs::write(t.path().join("d_plain.txt"), &lines).unwrap();
        let s = search(&ws, None, &Query { max_matches: 3, ..query("hit") }).unwrap();
        assert_eq!((s.binary, s.searched, s.files_matched, s.matches), (2, 2, 2, 80_000));
        assert_eq!(shown(&s), ["c_utf16.txt:1:hit", "c_utf16.txt:2:hit", "c_utf16.txt:3:hit"]);
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
