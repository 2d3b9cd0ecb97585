//! Syntax check of a whole text: is it fine, unfinished, or broken, and where.
//!
//! Pure: text in, [`Report`] out; no file I/O and no MCP types, so the tools and the
//! tests share one code path.
//!
//! # Layout
//! - `languages.rs`: the one table (extensions, grammar, who decides validity).
//! - `parsers/`: each language's own parser (Ruff's for Python, oxc for
//!   JavaScript/TypeScript, rust-analyzer's for Rust, serde_json, toml_edit, saphyr),
//!   turning its first error into one `Failure` and saying where the last top-level
//!   statement before it starts: where the check after an append resumes.
//! - `syntax.rs`: tree-sitter parsing under a deadline, for the syntax tree and for
//!   the languages without a parser of their own (HTML, CSS, Bash).
//! - `markdown.rs`: the fenced code blocks of a Markdown text, each checked as its language.
//! - `notebook/`: a Jupyter notebook: its JSON, the nbformat schema, each code cell's source
//!   (IPython's syntax masked), and per cell the stubs and names `check_files` reads.
//! - `report.rs`: [`Report`], [`Status`], [`Problem`] and the human summary.
//! - `cache.rs`: what one check leaves for the next after an append.
//! - `stubs/`: placeholders and files with no code, read off the syntax tree
//!   (`check_files` and the write warnings use it).
//! - `refs/`: what a file refers to in other files (imports, linked files, DOM ids), read off
//!   the same tree, and its resolution against the project's files through a
//!   [`refs::Files`] the caller implements (`check_files` uses it; [`survey`] parses once for
//!   both).
//! - `names/`: names a file uses that nothing defines (pyflakes' undefined names, eslint's
//!   `no-undef`), read off the same tree and judged with the project's files by `refs/`'s
//!   resolver (`check_files` only).
//! - `survey.rs`: [`Survey`], stubs and references from one parse, the verdict's where it
//!   gives a tree to read: oxc's for a script, rust-analyzer's for a Rust text that parses
//!   ([`check_and_survey`]); tree-sitter's for the rest.
//! - `html.rs`: the HTML walk the readers share (tags, attributes, a page's local links).
//! - `tree.rs`: [`tree::Syntax`], the tree every reader reads a text off.
//! - `script_tree.rs`: a script as the survey reads it off oxc's tree, and the way up from a
//!   node that oxc's tree does not store.
//!
//! # Incomplete or broken
//! An agent writes a file in appends, so most checks see a prefix. A real parser
//! stops at the first token that cannot continue any valid program, so when its first
//! error is at the end of the input the text is an unfinished prefix (`Incomplete`),
//! and when it is earlier no continuation can fix it (`Errors`). An error inside the
//! text's last token, when that token may still grow (`fal` into `false`), counts as at
//! the end: the token may only be cut. A dropped closing
//! bracket mid-file is, to every parser, indistinguishable from a file not finished
//! yet: `Incomplete` means "unfinished so far", and `check_files` treats it as a
//! failure once the agent says it is done.

pub mod cache;
mod html;
mod languages;
#[cfg(test)]
mod layout_tests;
mod markdown;
mod names;
mod notebook;
pub mod outline;
mod parsers;
pub mod refs;
mod report;
mod script_tree;
pub mod stubs;
mod survey;
mod syntax;
mod tree;

use std::time::{Duration, Instant};

pub use html::{Linked, linked_assets};
pub use languages::{Language, LanguageName, language_for};
pub use parsers::rust::RustEdition;
pub use parsers::toml::{ManifestEdition, rust_edition_of_manifest};
pub use report::{CellAt, MAX_PROBLEMS, MAX_SOURCE_CHARS, NotChecked, Problem, Report, Status};
pub use survey::{Survey, check_and_survey, survey};
pub use syntax::parse_tree;

use languages::Validator;
use parsers::Parsed;
use syntax::{Finding, content_end, findings, parse_until};

use crate::lines::LineIndex;

/// Texts larger than this are not checked: a Tree costs ~24x its source in memory.
pub const MAX_CHECK_BYTES: usize = 8 * 1024 * 1024;

/// Time allowed for all the tree-sitter parses of one check; random bytes that pass
/// as text can take tree-sitter seconds per MB. The reference parsers are linear and
/// need no deadline.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(2);

/// Brackets nested deeper than this are not checked: the reference parsers descend
/// recursively, and no hand-written file nests this deep.
pub const MAX_NESTING: usize = 1000;

/// What one check leaves for the next check of the same file after an append.
#[derive(Debug)]
pub(crate) enum Prior {
    /// A tree-sitter tree, re-parsed incrementally (languages judged by tree-sitter).
    Tree(tree_sitter::Tree),
    /// A byte offset where a top-level statement starts and everything before it
    /// parses on its own: after an append only the text from here is parsed again
    /// (languages judged by their own parser).
    Resume(usize),
    /// A JavaScript or TypeScript text that parsed without problem: where each top-level
    /// statement starts, and the dialect it was parsed as. After an edit only the statements
    /// around the change are parsed again; after an append, the last statement on.
    Statements {
        /// Byte offsets, ascending.
        starts: Vec<usize>,
        /// The dialect the text was parsed as (an edit that changes it parses all).
        dialect: parsers::javascript::Dialect,
    },
}

/// Check the whole text of a file. `path` is only used for its extension.
pub fn check(path: &str, text: &str) -> Report {
    check_within(path, text, DEFAULT_DEADLINE)
}

/// The report for a check of `path` that stopped on a fault of its own: not checked.
pub fn check_failed(path: &str) -> Report {
    Report::not_checked(language_for(path).map(Language::name), NotChecked::Failed)
}

/// Same for a file's bytes, decoded in their encoding ([`crate::files::encoding`]): a binary
/// file (a NUL byte) -> NotChecked("binary").
pub fn check_bytes(path: &str, bytes: &[u8]) -> Report {
    check_bytes_as(path, bytes, RustEdition::default())
}

/// [`check_bytes`] with Rust read in `edition`, its crate's (see
/// [`rust_edition_of_manifest`]): `try!(x)` is a macro call in 2015 and an error since 2018.
pub fn check_bytes_as(path: &str, bytes: &[u8], edition: RustEdition) -> Report {
    let Some(lang) = language_for(path) else {
        return Report::not_checked(None, NotChecked::UnknownFileType);
    };
    if bytes.len() > MAX_CHECK_BYTES {
        return Report::not_checked(Some(lang.name()), NotChecked::TooLarge);
    }
    match crate::files::encoding::text_of(bytes) {
        Some(text) => {
            check_from(path, &text, None, 0, Instant::now() + DEFAULT_DEADLINE, RustRead::in_edition(edition))
                .0
        }
        None => Report::not_checked(Some(lang.name()), NotChecked::Binary),
    }
}

/// [`check`] with a time budget other than [`DEFAULT_DEADLINE`] for its tree-sitter
/// parses; past it the report is NotChecked("timed out").
pub fn check_within(path: &str, text: &str, budget: Duration) -> Report {
    check_from(path, text, None, 0, Instant::now() + budget, RustRead::default()).0
}

/// [`check`] that reuses `prior`, what the check of an earlier version of this text
/// left (see [`cache::CheckCache`]: the text must have only grown at its end since),
/// and returns what this check leaves for next time. Appending 4 KB to 1 MB then costs
/// a few milliseconds instead of a full parse. The verdict is the same as [`check`]'s.
pub(crate) fn check_incremental(path: &str, text: &str, prior: Option<Prior>) -> (Report, Option<Prior>) {
    check_from(path, text, prior, 0, Instant::now() + DEFAULT_DEADLINE, RustRead::default())
}

/// [`check_incremental`] after an append, where the check that left `prior` was of
/// `text[..checked]`: that part is known to hold no NUL byte, and is not scanned again.
pub(crate) fn check_appended(
    path: &str,
    text: &str,
    prior: Option<Prior>,
    checked: usize,
) -> (Report, Option<Prior>) {
    let checked = if prior.is_some() { checked.min(text.len()) } else { 0 };
    check_from(path, text, prior, checked, Instant::now() + DEFAULT_DEADLINE, RustRead::default())
}

/// How a Rust text is read: in its crate's edition, and by whom besides the verdict (the
/// survey, which reads the same parse: see `survey.rs`).
#[derive(Default)]
struct RustRead<'r> {
    edition: RustEdition,
    /// Handed every step of the walk over a parse of the whole text.
    reader: Option<parsers::rust::Reader<'r>>,
}

impl RustRead<'_> {
    fn in_edition(edition: RustEdition) -> Self {
        RustRead { edition, reader: None }
    }
}

/// The one path every check takes.
///
/// `clean`: `text[..clean]` is known to hold no NUL byte (an earlier check of it ran).
fn check_from(
    path: &str,
    text: &str,
    prior: Option<Prior>,
    clean: usize,
    deadline: Instant,
    rust: RustRead<'_>,
) -> (Report, Option<Prior>) {
    let Some(lang) = language_for(path) else {
        return (Report::not_checked(None, NotChecked::UnknownFileType), None);
    };
    if text.len() > MAX_CHECK_BYTES {
        return (Report::not_checked(Some(lang.name()), NotChecked::TooLarge), None);
    }
    // Valid UTF-8 can still be binary; NUL never occurs in source we check, and
    // parsing binary is slow and its errors are noise.
    if text.as_bytes()[clean..].contains(&0) {
        return (Report::not_checked(Some(lang.name()), NotChecked::Binary), None);
    }
    match lang.spec().validator {
        Validator::Markdown => (markdown::check_markdown(text, deadline), None),
        Validator::Notebook => (notebook::check_notebook(text, deadline), None),
        Validator::TreeSitter => {
            let old = match prior {
                Some(Prior::Tree(tree)) => Some(tree),
                _ => None,
            };
            let (report, tree) = check_tree_sitter(lang, text, deadline, old.as_ref());
            (report, tree.map(Prior::Tree))
        }
        _ => {
            let valid = |at: usize| at <= text.len() && text.is_char_boundary(at);
            let (from, before, dialect) = match prior {
                Some(Prior::Resume(at)) if valid(at) => (at, None, None),
                // An append to a text of known statements: the last is parsed again, and the
                // ones before it stay known, as does the dialect of the text before it.
                Some(Prior::Statements { mut starts, dialect }) => match starts.pop() {
                    Some(last) if valid(last) => (last, Some(starts), Some(dialect.grown(path, text, last))),
                    _ => (0, Some(Vec::new()), None),
                },
                _ => (0, Some(Vec::new()), None),
            };
            check_with_parser(lang, path, text, from, before, dialect, rust)
        }
    }
}

/// [`check_incremental`] for a text made from `old` by an edit, where `prior` is what the
/// check of `old` left. A JavaScript or TypeScript text that had no problem has only the
/// statements around the change parsed again (see `parsers::javascript::reparse_edit`);
/// anything else is checked whole. The verdict is the same as [`check`]'s.
pub(crate) fn check_edited(
    path: &str,
    old: &str,
    text: &str,
    prior: Option<Prior>,
) -> (Report, Option<Prior>) {
    if let (Some(lang), Some(Prior::Statements { starts, dialect })) = (language_for(path), &prior)
        && lang.spec().validator == Validator::JavaScript
        && text.len() <= MAX_CHECK_BYTES
        && !text.as_bytes().contains(&0)
        && parsers::javascript::Dialect::of(path, text) == *dialect
        && let Some(starts) = parsers::javascript::reparse_edit(old, text, starts, *dialect)
    {
        return (Report::ok(lang.name()), Some(Prior::Statements { starts, dialect: *dialect }));
    }
    check_incremental(path, text, None)
}

/// The verdict of the language's own parser on `text`, parsing only `text[from..]`
/// (`text[..from]` is known to parse on its own, ending where a top-level statement
/// starts), and where the next check may resume.
///
/// `before`: the statement starts known before `from` (all of them, when not None); with
/// them, a JavaScript or TypeScript text with no problem leaves every statement start for
/// the check after an edit.
fn check_with_parser(
    lang: Language,
    path: &str,
    text: &str,
    from: usize,
    before: Option<Vec<usize>>,
    dialect: Option<parsers::javascript::Dialect>,
    rust: RustRead<'_>,
) -> (Report, Option<Prior>) {
    let name = lang.name();
    let depth = nesting_depth(&text[from..]);
    if depth > MAX_NESTING {
        return (Report::not_checked(Some(name), NotChecked::NestedTooDeeply), None);
    }
    // Decided once per check, unless the check resumes with it known: it reads the whole
    // text of a `.js` file.
    let dialect = (lang.spec().validator == Validator::JavaScript)
        .then(|| dialect.unwrap_or_else(|| parsers::javascript::Dialect::of(path, text)));
    let Parsed { failure, resume, statements } =
        reference_parse(lang, path, text, from, depth, dialect, rust);
    let prior = match (before, statements, dialect) {
        (Some(mut starts), Some(part), Some(dialect)) if failure.is_none() => {
            starts.extend(part);
            Prior::Statements { starts, dialect }
        }
        _ => Prior::Resume(resume),
    };
    let failure = failure.map(|f| match f.at_end || !in_growing_last_token(text, f.at, f.end) {
        true => f,
        false => parsers::Failure { at_end: true, ..f },
    });
    let report = match failure {
        None => Report::ok(name),
        // "Nothing written yet": an empty JSON text.
        Some(f) if f.bracket.is_none() && f.message.is_empty() => {
            Report::found(name, Status::Incomplete, Vec::new())
        }
        Some(f) => {
            let status = if f.at_end { Status::Incomplete } else { Status::Errors };
            let index = LineIndex::new(text);
            Report::found(name, status, vec![Problem::at(&index, f.at, f.describe(&index))])
        }
    };
    (report, Some(prior))
}

/// The reference parser's verdict on `text[from..]`, with offsets in `text`. The parse
/// runs on a thread with a large stack when the text nests deeply (`depth`, its
/// [`nesting_depth`]): the parsers descend recursively, and [`MAX_NESTING`] levels of
/// brackets must not overflow a tool call's stack. `dialect`: the whole text's, for
/// JavaScript and TypeScript.
fn reference_parse(
    lang: Language,
    path: &str,
    text: &str,
    from: usize,
    depth: usize,
    dialect: Option<parsers::javascript::Dialect>,
    rust: RustRead<'_>,
) -> Parsed {
    let part = &text[from..];
    // A reader reads the whole text, with offsets in it.
    let reader = rust.reader.filter(|_| from == 0);
    let judge = move || match lang.spec().validator {
        Validator::Python => parsers::python::parse(part, path.to_ascii_lowercase().ends_with(".pyi")),
        Validator::JavaScript => parsers::javascript::parse(
            part,
            dialect.unwrap_or_else(|| parsers::javascript::Dialect::of(path, text)),
        ),
        Validator::Rust => parsers::rust::parse_read(part, rust.edition, reader),
        Validator::Json => parsers::json::parse(part),
        Validator::Toml => parsers::toml::parse(part),
        Validator::Yaml => parsers::yaml::parse(part),
        Validator::TreeSitter | Validator::Markdown | Validator::Notebook => Parsed::default(),
    };
    let parsed = if depth <= SHALLOW_NESTING {
        judge()
    } else {
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .stack_size(PARSER_STACK_BYTES)
                .spawn_scoped(scope, judge)
                .ok()
                .and_then(|handle| handle.join().ok())
                .unwrap_or_default()
        })
    };
    Parsed {
        failure: parsed.failure.map(|f| f.shifted(from)),
        resume: from + parsed.resume,
        statements: parsed.statements.map(|starts| starts.into_iter().map(|s| from + s).collect()),
    }
}

/// Whether a problem blamed on bytes `at..end` touches the text's last token and that
/// token may still grow into another: the text ends (no whitespace after) in a word or
/// an operator character (`fal` may become `false`, `=` may become `==`, `/` may become
/// `//`, `in` may become `inline`, `*SA` may become `*SAVE`). The last token counts the
/// operator characters just before a word (`*` of an alias, `$`, `#[`), and a problem
/// just before it with only whitespace between counts too (rust-analyzer places an
/// error after the last token it accepted). A parser's error there can be a cut token,
/// not a mistake, so it is unfinished. A closing bracket, `;` or `,` never grows:
/// `foo(a))` stays broken.
fn in_growing_last_token(text: &str, at: usize, end: usize) -> bool {
    let Some(last) = text.chars().next_back() else { return false };
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let operator = |c: char| "=:/*<>!&|-+.?%^~#@[".contains(c);
    let run_start = |class: &dyn Fn(char) -> bool, before: usize| {
        text[..before].char_indices().rev().take_while(|&(_, c)| class(c)).last().map_or(before, |(i, _)| i)
    };
    let start = if word(last) {
        run_start(&operator, run_start(&word, text.len()))
    } else if operator(last) {
        run_start(&operator, text.len())
    } else {
        return false;
    };
    at >= start || end >= start || text.get(at..start).is_some_and(|gap| gap.trim().is_empty())
}

/// Brackets nested at most this deep are parsed on the caller's stack; deeper texts
/// get a thread of their own with [`PARSER_STACK_BYTES`].
const SHALLOW_NESTING: usize = 64;

/// Stack for a parser thread: ample for [`MAX_NESTING`] levels.
const PARSER_STACK_BYTES: usize = 256 * 1024 * 1024;

/// The deepest bracket nesting in `text`, counting `( [ {` without regard to strings
/// or comments: an upper bound that is cheap to compute.
fn nesting_depth(text: &str) -> usize {
    let mut depth = 0usize;
    let mut deepest = 0;
    for b in text.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The verdict from tree-sitter, with the closing probes when problems are mid-file.
/// Returns the tree of `text` too, for the incremental cache.
fn check_tree_sitter(
    lang: Language,
    text: &str,
    deadline: Instant,
    old: Option<&tree_sitter::Tree>,
) -> (Report, Option<tree_sitter::Tree>) {
    let name = lang.name();
    let Some(tree) = parse_until(lang, text, old, deadline) else {
        return (Report::not_checked(Some(name), NotChecked::TimedOut), None);
    };
    let report = verdict(lang, text, &tree, deadline);
    (report, Some(tree))
}

/// The verdict on a parsed text: findings, then the closing probes if they are mid-file.
fn verdict(lang: Language, text: &str, tree: &tree_sitter::Tree, deadline: Instant) -> Report {
    let name = lang.name();
    let timed_out = || Report::not_checked(Some(name), NotChecked::TimedOut);
    let found = findings(tree, text, lang);
    if found.is_empty() {
        return Report::ok(name);
    }
    let end = content_end(tree, text);
    if found.iter().all(|f| f.end >= end) {
        return Report::found(name, Status::Incomplete, problems(text, &found, Status::Incomplete));
    }
    for probe in lang.spec().probes {
        let probed = format!("{text}{probe}");
        let Some(probed_tree) = parse_until(lang, &probed, None, deadline) else {
            return timed_out();
        };
        // The probe must clear every problem: then the text was only cut inside the
        // construct it closes, and the hint is verified.
        if findings(&probed_tree, &probed, lang).is_empty() {
            let kept: Vec<Finding> = unclosed(&probed_tree, text.len(), probe).into_iter().collect();
            return Report::found(name, Status::Incomplete, problems(text, &kept, Status::Incomplete));
        }
    }
    Report::found(name, Status::Errors, problems(text, &found, Status::Errors))
}

/// The construct a probe closed: the smallest named node holding the probe that
/// starts in the original text, e.g. a `comment`. Reported where it opens, since that
/// is where a reader looks.
fn unclosed(tree: &tree_sitter::Tree, text_len: usize, probe: &str) -> Option<Finding> {
    let mut node = tree.root_node().descendant_for_byte_range(text_len, text_len + probe.len())?;
    while node.start_byte() >= text_len || !node.is_named() || node.is_error() {
        node = node.parent()?;
    }
    // The root is not a construct: nothing specific to point at.
    node.parent()?;
    let message = format!("{} is not closed yet (`{probe}` would close it)", node.kind().replace('_', " "));
    Some(Finding::plain(node.start_byte(), node.end_byte(), message))
}

/// Findings located for humans, in text order, worded for `status`.
fn problems(text: &str, found: &[Finding], status: Status) -> Vec<Problem> {
    let mut located: Vec<(usize, &str)> = found
        .iter()
        .map(|f| match status {
            Status::Incomplete => (f.unfinished.0, f.unfinished.1.as_str()),
            _ => (f.start, f.message.as_str()),
        })
        .collect();
    located.sort_by_key(|&(at, _)| at);
    let index = LineIndex::new(text);
    located.into_iter().map(|(at, message)| Problem::at(&index, at, message.to_owned())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A valid ~60-line Python file: classes, docstrings, decorators, multi-line dicts
    /// and calls, f-strings, comments.
    const SAMPLE_PY: &str = include_str!("testdata/sample.py");

    const SAMPLE_JSON: &str = r#"{
  "name": "filewright",
  "version": 1,
  "tags": ["mcp", "files", "ünïcode"],
  "nested": {
    "empty_list": [],
    "empty_object": {},
    "numbers": [1, -2.5, 3e10],
    "flags": [true, false, null],
    "text": "a \"quoted\" line\nwith an escape"
  },
  "last": [
    {"a": 1},
    {"b": [2, 3]}
  ]
}
"#;

    /// Every prefix of `text` that ends at a line boundary, the empty one included.
    pub(crate) fn line_prefixes(text: &str) -> impl Iterator<Item = &str> {
        std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).map(|end| &text[..end])
    }

    fn first_problem(report: &Report) -> (usize, usize) {
        let p = report.problems.first().expect("a problem is listed");
        (p.line, p.column)
    }

    #[test]
    fn valid_python_is_ok() {
        let report = check("pkg/sample.py", SAMPLE_PY);
        assert_eq!(report.status, Status::Ok, "{}", report.summary());
        assert_eq!(report.language.map(LanguageName::as_str), Some("python"));
        assert!(report.problems.is_empty());
    }

    #[test]
    fn valid_json_is_ok() {
        assert_eq!(check("data.json", SAMPLE_JSON).status, Status::Ok);
    }

    #[test]
    fn empty_python_is_ok() {
        assert_eq!(check("a.py", "").status, Status::Ok);
        assert_eq!(check("a.py", " \n\n").status, Status::Ok);
    }

    #[test]
    fn empty_json_is_incomplete() {
        assert_eq!(check("a.json", "").status, Status::Incomplete);
    }

    #[test]
    fn python_error_mid_file_is_errors_at_its_line_and_column() {
        let text = "x = (1,\ny = 2\nprint(x))\nz = 3\nw = 4\n";
        let report = check("a.py", text);
        assert_eq!(report.status, Status::Errors, "{}", report.summary());
        // CPython: "invalid syntax. Maybe you meant '==' or ':=' instead of '='?" at 2:3.
        assert_eq!(first_problem(&report), (2, 3));
        assert_eq!(report.problems[0].source, "y = 2");
    }

    #[test]
    fn python_extra_paren_is_reported_at_the_paren() {
        let report = check("a.py", "x = 1\nfoo(a, b))\ny = 2\n");
        assert_eq!(report.status, Status::Errors);
        assert_eq!(first_problem(&report), (2, 10));
        assert_eq!(report.problems[0].message, "`)` has no matching `(`");
    }

    #[test]
    fn python_missing_token_mid_file_says_what_was_expected() {
        let report = check("a.py", "def f(:\n    pass\n\nx = 1\n");
        assert_eq!(report.status, Status::Errors);
        assert_eq!(report.problems[0].message, "expected a parameter or the end of the parameter list");
    }

    #[test]
    fn python_missing_final_paren_at_eof_is_incomplete() {
        let text = "def f(a):\n    return a\n\n\nprint(f(1),\n      f(2)\n";
        let report = check("a.py", text);
        assert_eq!(report.status, Status::Incomplete, "{}", report.summary());
        assert!(!report.problems.is_empty());
    }

    #[test]
    fn trailing_comments_do_not_make_an_eof_problem_mid_file() {
        let text = "items = [\n    1,\n    2,\n# more to come\n\n   # and more\n";
        assert_eq!(check("a.py", text).status, Status::Incomplete);
    }

    #[test]
    fn two_broken_statements_apart_are_errors_at_the_first() {
        let report = check("a.py", "x = 1\nfoo(a))\ny = 2\nbar(b))\n");
        assert_eq!(report.status, Status::Errors, "{}", report.summary());
        assert_eq!(first_problem(&report).0, 2);
    }

    #[test]
    fn python_cut_inside_a_docstring_is_incomplete_not_errors() {
        for (quote, text) in
            [("\"\"\"", "class A:\n    \"\"\"Docs.\n\n    x = (1,\n"), ("'''", "def f():\n    '''Docs: f(\n")]
        {
            let report = check("a.py", text);
            assert_eq!(report.status, Status::Incomplete, "{}", report.summary());
            assert!(!report.problems.is_empty(), "{quote}");
        }
    }

    #[test]
    fn a_real_error_before_an_open_docstring_is_still_errors() {
        let text = "x = 1\nfoo(a))\ndef f():\n    \"\"\"Docs\n";
        let report = check("a.py", text);
        assert_eq!(report.status, Status::Errors, "{}", report.summary());
        assert_eq!(first_problem(&report).0, 2);
    }

    #[test]
    fn python_column_is_counted_in_characters_after_multibyte_text() {
        let report = check("a.py", "s = \"日本語\" + (1))\nx = 2\n");
        assert_eq!(report.status, Status::Errors, "{}", report.summary());
        assert_eq!(first_problem(&report), (1, 16));
    }

    #[test]
    fn json_cut_mid_object_is_incomplete() {
        let cut = &SAMPLE_JSON[..SAMPLE_JSON.find("\"flags\"").unwrap_or_default()];
        assert_eq!(check("a.json", cut).status, Status::Incomplete);
    }

    #[test]
    fn json_trailing_comma_mid_file_is_errors_at_its_line_and_column() {
        let text = SAMPLE_JSON.replace("\"b\": [2, 3]}", "\"b\": [2, 3],}");
        let report = check("a.json", &text);
        assert_eq!(report.status, Status::Errors);
        assert_eq!(first_problem(&report), (14, 18));
        assert_eq!(report.problems[0].message, "trailing comma");
    }

    #[test]
    fn unknown_extension_is_not_checked() {
        let report = check("notes.txt", "anything (");
        assert_eq!(report.status, Status::NotChecked);
        assert_eq!(report.reason, Some(NotChecked::UnknownFileType));
        assert_eq!(report.language, None);
    }

    #[test]
    fn nul_bytes_are_binary_and_other_encodings_are_checked_decoded() {
        let report = check_bytes("a.py", b"x = 1\0\n");
        assert_eq!(report.status, Status::NotChecked);
        assert_eq!(report.reason, Some(NotChecked::Binary));
        assert_eq!(check_bytes("a.py", b"x = 1\n").status, Status::Ok);
        // windows-1252: checked as the text it holds.
        let latin =
            b"s = \"Les \xe9l\xe8ves ont \xe9tudi\xe9 la le\xe7on \xe0 l'\xe9cole, tr\xe8s fach\xe9s.\"\n";
        assert_eq!(check_bytes("a.py", latin).status, Status::Ok);
        // UTF-16LE with a BOM: an unclosed call at the end is incomplete, as in UTF-8.
        let utf16: Vec<u8> =
            "\u{feff}print(\"\u{e9}t\u{e9}\"\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(check_bytes("a.py", &utf16).status, Status::Incomplete);
    }

    #[test]
    fn text_above_the_limit_is_too_large() {
        let text = " ".repeat(MAX_CHECK_BYTES + 1);
        let report = check("a.json", &text);
        assert_eq!(report.status, Status::NotChecked);
        assert_eq!(report.reason, Some(NotChecked::TooLarge));
    }

    #[test]
    fn parse_past_its_deadline_is_not_checked_timed_out() {
        // The deadline bounds tree-sitter's parses; the reference parsers are linear.
        let text = "a { b: c; }\n".repeat(20_000);
        let report = check_within("a.css", &text, Duration::ZERO);
        assert_eq!(report.status, Status::NotChecked);
        assert_eq!(report.reason, Some(NotChecked::TimedOut));
    }

    /// Hostile input: 4 MiB of pseudo-random printable text takes tree-sitter seconds per
    /// grammar; the deadline must stop it, and the next check must work normally.
    #[test]
    fn a_hostile_input_is_stopped_by_the_deadline_and_the_next_check_works() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let text: String = (0..4 << 20)
            .map(|_| {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                char::from(b' ' + ((seed >> 33) % 95) as u8)
            })
            .collect();
        for (path, valid) in
            [("hostile.py", "x = 1\n"), ("hostile.js", "let x = 1;\n"), ("hostile.rs", "fn main() {}\n")]
        {
            let started = Instant::now();
            let report = check_within(path, &text, Duration::from_millis(200));
            let elapsed = started.elapsed();
            assert!(elapsed < Duration::from_secs(5), "{path}: the deadline was not honoured ({elapsed:?})");
            assert!(
                report.status != Status::NotChecked || report.reason == Some(NotChecked::TimedOut),
                "{path}: {}",
                report.summary()
            );
            assert_eq!(check(path, valid).status, Status::Ok, "a later check after a cancelled parse");
        }
    }

    /// tree-sitter-bash's scanner reads out of bounds on code points above 255 (its
    /// upstream issue 337): these inputs crashed the whole server with SIGSEGV before
    /// its grammar was given ASCII only. Also run for every other grammar and for the
    /// stub scan, which parses with the same grammars.
    #[test]
    fn astral_characters_after_a_brace_do_not_crash_any_grammar() {
        let texts = [
            "{\u{31860}",
            "\u{102026}\u{1F574}\u{A16D9}\u{E9F4A}{\u{10596C}",
            "$\u{390C3}",
            "x=${\u{31860}}\n",
        ];
        for ext in ["sh", "bash", "py", "js", "ts", "tsx", "rs", "html", "css", "yaml", "toml", "md", "json"]
        {
            for text in texts {
                let path = format!("a.{ext}");
                let report = check(&path, text);
                assert!(report.problems.iter().all(|p| p.line >= 1), "{path}");
                let _ = stubs::find_all_stubs(&path, text);
            }
        }
        let report = check("a.sh", "echo \u{31860}\n");
        assert_eq!(report.status, Status::Ok, "{}", report.summary());
    }

    #[test]
    fn only_the_first_error_is_reported_since_later_ones_may_follow_from_it() {
        let text = "foo(a))\n".repeat(9) + "x = 1\n";
        let report = check("a.py", &text);
        assert_eq!(report.status, Status::Errors);
        assert_eq!(report.problems.len(), 1);
        assert_eq!(report.problems[0].line, 1);
    }

    #[test]
    fn deep_nesting_is_not_checked_rather_than_overflowing_the_stack() {
        for path in ["a.py", "a.js", "a.rs", "a.ts"] {
            let text = "(".repeat(200_000);
            let report = check(path, &text);
            assert_eq!(report.status, Status::NotChecked, "{path}");
            assert_eq!(report.reason, Some(NotChecked::NestedTooDeeply));
            // Just under the limit is parsed, on a thread with room for it.
            let text = format!("x = {}1{}\n", "(".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
            let report = check(if path == "a.rs" { "a.py" } else { path }, &text);
            assert_ne!(report.status, Status::NotChecked, "{path}: {}", report.summary());
        }
    }

    #[test]
    fn summary_names_each_status() {
        assert_eq!(check("a.py", "x = 1\n").summary(), "syntax: ok");
        assert!(check("a.py", "f(1,\n").summary().starts_with("syntax: incomplete so far (python: "));
        assert!(
            check("a.py", "f(1))\nx = 1\n")
                .summary()
                .starts_with("syntax: 1 error (python)\n  1:5 `)` has no matching `(`\n      f(1))")
        );
        assert_eq!(check("notes.txt", "#").summary(), "syntax: not checked (unknown file type)");
    }

    #[test]
    fn no_line_prefix_of_valid_python_is_errors() {
        for prefix in line_prefixes(SAMPLE_PY) {
            let report = check("a.py", prefix);
            assert_ne!(report.status, Status::Errors, "{prefix}\n---\n{}", report.summary());
        }
    }

    #[test]
    fn no_line_prefix_of_valid_python_with_crlf_endings_is_errors() {
        let crlf = SAMPLE_PY.replace('\n', "\r\n");
        for prefix in line_prefixes(&crlf) {
            let report = check("a.py", prefix);
            assert_ne!(report.status, Status::Errors, "{prefix}\n---\n{}", report.summary());
        }
    }

    #[test]
    fn some_line_prefix_of_the_sample_is_cut_inside_a_docstring() {
        // Guards the prefix test above: it must exercise a string that swallows the
        // rest of the text, not only brackets left open.
        let cut = line_prefixes(SAMPLE_PY).any(|prefix| {
            let report = check("a.py", prefix);
            report.problems.iter().any(|p| p.message == "string is not closed yet")
        });
        assert!(cut);
    }

    const SAMPLE_JS: &str = include_str!("testdata/sample.js");

    #[test]
    fn valid_javascript_is_ok() {
        let report = check("app.js", SAMPLE_JS);
        assert_eq!(report.status, Status::Ok, "{}", report.summary());
    }

    #[test]
    fn no_line_prefix_of_valid_javascript_is_errors() {
        for prefix in line_prefixes(SAMPLE_JS) {
            let report = check("app.mjs", prefix);
            assert_ne!(report.status, Status::Errors, "{prefix}\n---\n{}", report.summary());
        }
    }

    #[test]
    fn javascript_cut_inside_a_block_comment_or_template_is_incomplete() {
        for cut in ["/**\n * A small store", "const t = `\n  <h1>\n"] {
            let report = check("a.js", &format!("let a = 1;\n{cut}\n"));
            assert_eq!(report.status, Status::Incomplete, "{cut}: {}", report.summary());
        }
    }

    #[test]
    fn javascript_error_mid_file_is_errors_at_its_line() {
        let text = "function f(a {\n  return a;\n}\n\nconst b = f(1);\nconsole.log(b);\n";
        let report = check("a.js", text);
        assert_eq!(report.status, Status::Errors, "{}", report.summary());
        assert_eq!(first_problem(&report).0, 1, "{}", report.summary());
    }

    #[test]
    fn no_line_prefix_of_valid_json_is_errors() {
        for prefix in line_prefixes(SAMPLE_JSON) {
            let report = check("a.json", prefix);
            assert_ne!(report.status, Status::Errors, "{prefix}\n---\n{}", report.summary());
        }
    }

    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            ".{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(".{0,8}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_text_gets_a_report_with_problems_inside_the_text(text in "(?s).{0,200}") {
            for path in ["a.py", "a.json"] {
                let report = check(path, &text);
                let lines = text.split('\n').count();
                for p in &report.problems {
                    prop_assert!(p.line >= 1 && p.line <= lines && p.column >= 1, "{:?}", p);
                }
                prop_assert!(report.problems.len() <= MAX_PROBLEMS);
            }
        }

        #[test]
        fn generated_json_is_ok_and_no_line_prefix_is_errors(value in json_value()) {
            let text = serde_json::to_string_pretty(&value).unwrap_or_default() + "\n";
            prop_assert_eq!(check("g.json", &text).status, Status::Ok);
            for prefix in line_prefixes(&text) {
                let report = check("g.json", prefix);
                prop_assert_ne!(report.status, Status::Errors, "{}\n---\n{}", prefix, report.summary());
            }
        }
    }
}
