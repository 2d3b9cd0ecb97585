//! Signs that an agent left a file unfinished or put a placeholder where code was.
//!
//! Agents that write in pieces sometimes stop early, or "abbreviate" with
//! `// ... rest of the code ...`, and then call the file done. These findings ride
//! along with a successful write as warnings, never as a refusal: a heuristic that
//! blocks a legitimate file makes the agent loop.
//!
//! Pure, and independent of the language table in `languages.rs`: the path is read
//! for its extension only, and an unknown extension still gets the comment and
//! end-of-text checks.
//!
//! # How each sign is found
//! - A small lexer per comment syntax separates comments from code and blanks string
//!   contents, so "rest of the code" inside a string is not a comment and `todo!()`
//!   inside a comment is not code.
//! - [`StubKind::PlaceholderComment`]: a short comment made only of placeholder words
//!   ("rest of the code", "existing code unchanged", "omitted for brevity", a bare
//!   ellipsis). An ordinary TODO names real work in other words and is left alone.
//! - [`StubKind::StubBody`]: Python through tree-sitter, because decorators, class
//!   bases and indentation are what tell a stub from `@abstractmethod ... ...`;
//!   JavaScript, TypeScript and Rust by scanning the blanked code.
//! - [`StubKind::EmptyHtmlBody`] and [`StubKind::EndsMidToken`]: plain scans.

use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Serialize;
use tree_sitter::{Node, ParseOptions, Parser, Tree};

/// At most this many stubs are listed by [`find_stubs`]: the model needs the first
/// few to see the pattern, and a long list costs tokens for nothing.
pub const MAX_STUBS: usize = 10;

/// Longest `Stub::source` kept, in characters.
const MAX_SOURCE_CHARS: usize = 120;

/// Python texts above this are not parsed for stub bodies (the other checks still run):
/// a tree costs ~24x its source in memory.
const MAX_PARSE_BYTES: usize = 8 * 1024 * 1024;

/// Time allowed for the one Python parse; past it, stub bodies are simply not reported.
const PARSE_BUDGET: Duration = Duration::from_secs(1);

/// How far the brace scans look back or ahead from a `{` or `throw`, in bytes: keeps a
/// pathological text (thousands of nested parentheses) linear.
const MAX_LOOKAROUND: usize = 4096;

/// One sign of an unfinished file or a placeholder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Stub {
    /// 1-based line, where the fix goes.
    pub line: usize,
    /// Which sign this is.
    pub kind: StubKind,
    /// Short and specific, e.g. "placeholder comment stands in for code".
    pub message: String,
    /// The line, trimmed and cut to about 120 characters.
    pub source: String,
}

/// The kinds of sign looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StubKind {
    /// A comment such as `// ... rest of the code ...` where code should be.
    PlaceholderComment,
    /// A function whose whole body is `pass`, `...`, `todo!()`, a not-implemented
    /// `throw`, or (JavaScript and TypeScript) nothing.
    StubBody,
    /// An HTML `<body>` with nothing but whitespace and comments in it.
    EmptyHtmlBody,
    /// The text stops without a final newline in the middle of a token or expression.
    EndsMidToken,
    /// A script or stylesheet an HTML page links is missing or nearly empty (found by
    /// the caller, which can look at other files).
    LinkedAsset,
}

/// A local file an HTML page loads: a script or a stylesheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Linked {
    /// 1-based line of the attribute's value.
    pub line: usize,
    /// `"src"` for a script, `"href"` for a stylesheet.
    pub attr: &'static str,
    /// The path as written, without `?query` or `#fragment`; relative to the page.
    pub target: String,
}

/// The first [`MAX_STUBS`] signs of a stub or an unfinished file in `text`, in text
/// order, at most one per line. `path` is used for its extension only.
///
/// Known extensions: .py .pyi .js .mjs .cjs .jsx .ts .tsx .rs .html .htm .css (and the
/// comment syntax of other common ones); for the rest only comments in a common
/// syntax (`#`, `//`, `/*`, `<!--` at the start of a line) and the end of the text
/// are looked at. Use [`find_all_stubs`] to count what was left off.
pub fn find_stubs(path: &str, text: &str) -> Vec<Stub> {
    let mut stubs = find_all_stubs(path, text);
    stubs.truncate(MAX_STUBS);
    stubs
}

/// Every sign [`find_stubs`] would list, uncapped: its length minus [`MAX_STUBS`] is
/// the "and N more" count.
pub fn find_all_stubs(path: &str, text: &str) -> Vec<Stub> {
    let family = Family::of(path);
    let lexed = match family.syntax() {
        Some(syntax) => lex(text, syntax),
        None => {
            Lexed { code: text.as_bytes().to_vec(), comments: full_line_comments(text), open_string: false }
        }
    };
    let mut found = Vec::new();
    placeholder_comments(text, &lexed.comments, &mut found);
    match family {
        Family::Python => python_stub_bodies(text, &mut found),
        Family::Script => script_stub_bodies(text, &lexed.code, &mut found),
        Family::Rust => rust_stub_macros(&lexed.code, &mut found),
        Family::Html => {
            embedded_placeholder_comments(text, &lexed.code, &mut found);
            if let Some(at) = empty_html_body(&lexed.code) {
                found.push(Found::new(at, StubKind::EmptyHtmlBody, "the <body> is empty"));
            }
        }
        _ => {}
    }
    found.extend(ends_mid_token(text, family, &lexed, has_tags(path)));

    found.sort_by_key(|f| f.at);
    let lines = Lines::new(text);
    let mut stubs: Vec<Stub> = found
        .into_iter()
        .map(|f| {
            let line = lines.line_of(f.at);
            Stub { line, kind: f.kind, message: f.message, source: lines.source(line) }
        })
        .collect();
    stubs.dedup_by_key(|s| s.line);
    stubs
}

/// The local scripts (`<script src>`) and stylesheets (`<link rel="stylesheet" href>`)
/// an HTML page links, in text order.
///
/// Remote and inline targets are skipped (`http:`, `https:`, any other scheme such as
/// `data:` or `mailto:`, `//host`, `#fragment`); tags inside `<!-- -->` do not count.
pub fn linked_assets(html: &str) -> Vec<Linked> {
    let code = lex(html, &HTML).code;
    let lower = code.to_ascii_lowercase();
    let lines = Lines::new(html);
    let mut linked = Vec::new();
    let mut i = 0;
    while let Some(open) = find(&lower, b"<", i) {
        let name_end = skip_while(&lower, open + 1, |b| b.is_ascii_alphanumeric());
        let name = &lower[open + 1..name_end];
        i = open + 1;
        if name != b"script" && name != b"link" {
            continue;
        }
        let (attrs, tag_end) = attributes(&code, name_end);
        i = tag_end.max(i);
        let wanted = match name {
            b"script" => {
                // A script's content is JavaScript, not markup: "<link" in a string there is no tag.
                i = find(&lower, b"</script", i).unwrap_or(lower.len());
                "src"
            }
            b"link" if attrs.iter().any(|a| a.name == b"rel" && is_stylesheet_rel(html, a)) => "href",
            _ => continue,
        };
        let Some(attr) = attrs.iter().find(|a| a.name.eq_ignore_ascii_case(wanted.as_bytes())) else {
            continue;
        };
        let value = html.get(attr.value.clone()).unwrap_or_default();
        if let Some(target) = local_target(value) {
            linked.push(Linked { line: lines.line_of(attr.value.start), attr: wanted, target });
        }
    }
    linked
}

/// A finding before it is located: a byte offset into the text.
struct Found {
    at: usize,
    kind: StubKind,
    message: String,
}

impl Found {
    fn new(at: usize, kind: StubKind, message: impl Into<String>) -> Self {
        Found { at, kind, message: message.into() }
    }
}

/// What an extension tells us: the comment syntax, and which body checks apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Python,
    /// `.pyi`: every body is `...` by design, so only comments and the end are checked.
    PythonStubs,
    /// JavaScript and TypeScript, with or without JSX.
    Script,
    Rust,
    Html,
    Css,
    /// Other languages with `//` and `/* */` comments.
    CLike,
    /// Other languages with `#` comments.
    Hash,
    /// Markdown: `#` is a heading, only `<!-- -->` is a comment.
    Markdown,
    Other,
}

impl Family {
    fn of(path: &str) -> Family {
        let ext = Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or_default();
        match ext.to_ascii_lowercase().as_str() {
            "py" => Family::Python,
            "pyi" => Family::PythonStubs,
            "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx" => Family::Script,
            "rs" => Family::Rust,
            "html" | "htm" => Family::Html,
            "css" => Family::Css,
            "c" | "h" | "cc" | "cpp" | "hpp" | "cxx" | "java" | "go" | "kt" | "kts" | "swift" | "cs"
            | "scala" | "dart" | "php" | "scss" | "less" => Family::CLike,
            "sh" | "bash" | "zsh" | "rb" | "yaml" | "yml" | "toml" | "pl" | "r" => Family::Hash,
            "md" | "markdown" => Family::Markdown,
            _ => Family::Other,
        }
    }

    fn syntax(self) -> Option<&'static Syntax> {
        match self {
            Family::Python | Family::PythonStubs => Some(&PYTHON),
            Family::Script => Some(&SCRIPT),
            Family::Rust => Some(&RUST),
            Family::Html | Family::Markdown => Some(&HTML),
            Family::Css => Some(&CSS),
            // C-like languages comment and quote like scripts do (backticks included, for Go).
            Family::CLike => Some(&SCRIPT),
            Family::Hash => Some(&HASH),
            Family::Other => None,
        }
    }

    /// Whether the lexer knows this language's strings well enough to say the text
    /// ends inside one; in prose and YAML an apostrophe is not a quote.
    fn knows_strings(self) -> bool {
        matches!(
            self,
            Family::Python
                | Family::PythonStubs
                | Family::Script
                | Family::Rust
                | Family::Css
                | Family::CLike
        )
    }
}

/// Extensions whose text holds markup tags, where `<div` at the end is a cut tag.
fn has_tags(path: &str) -> bool {
    let ext = Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or_default();
    ["html", "htm", "xml", "svg", "jsx", "tsx", "vue", "svelte"].iter().any(|t| t.eq_ignore_ascii_case(ext))
}

// ---------------------------------------------------------------------------------------
// Lexing: comments apart, strings blanked.

/// How one language writes comments and strings.
struct Syntax {
    /// Markers of comments that run to the end of the line.
    line: &'static [&'static str],
    /// Opening and closing markers of block comments.
    block: Option<(&'static str, &'static str)>,
    /// Quotes whose strings end at the line's end.
    quotes: &'static [u8],
    /// Quotes whose strings may span lines.
    multiline_quotes: &'static [u8],
    /// Python's `"""` and `'''`.
    triple_quotes: bool,
    /// Rust: `'` opens a char literal only as `'x'` or `'\n'`; `'a` is a lifetime.
    char_literals: bool,
}

const PYTHON: Syntax = Syntax {
    line: &["#"],
    block: None,
    quotes: b"\"'",
    multiline_quotes: b"",
    triple_quotes: true,
    char_literals: false,
};
const SCRIPT: Syntax = Syntax {
    line: &["//"],
    block: Some(("/*", "*/")),
    quotes: b"\"'",
    multiline_quotes: b"`",
    triple_quotes: false,
    char_literals: false,
};
const RUST: Syntax = Syntax {
    line: &["//"],
    block: Some(("/*", "*/")),
    quotes: b"'",
    multiline_quotes: b"\"",
    triple_quotes: false,
    char_literals: true,
};
const CSS: Syntax = Syntax {
    line: &[],
    block: Some(("/*", "*/")),
    quotes: b"\"'",
    multiline_quotes: b"",
    triple_quotes: false,
    char_literals: false,
};
const HASH: Syntax = Syntax {
    line: &["#"],
    block: None,
    quotes: b"\"'",
    multiline_quotes: b"",
    triple_quotes: false,
    char_literals: false,
};
const HTML: Syntax = Syntax {
    line: &[],
    block: Some(("<!--", "-->")),
    quotes: b"",
    multiline_quotes: b"",
    triple_quotes: false,
    char_literals: false,
};

/// A comment's byte range, markers included.
#[derive(Debug, Clone)]
struct Comment {
    start: usize,
    end: usize,
    /// Runs to the end of its line (`#`, `//`), so consecutive ones read as one text.
    to_line_end: bool,
    /// Code precedes it on its line.
    trailing: bool,
}

/// A text split for the detectors.
struct Lexed {
    /// The text's bytes with comments and string contents replaced by spaces (quotes
    /// and newlines kept), so offsets and lines match the text.
    code: Vec<u8>,
    comments: Vec<Comment>,
    /// The text ends inside a string.
    open_string: bool,
}

fn lex(text: &str, syntax: &Syntax) -> Lexed {
    let b = text.as_bytes();
    let mut code = b.to_vec();
    let mut comments = Vec::new();
    let mut open_string = false;
    let mut line_has_code = false;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let rest = &b[i..];
        if c == b'\n' {
            line_has_code = false;
            i += 1;
        } else if syntax.line.iter().any(|m| rest.starts_with(m.as_bytes())) {
            let end = find(b, b"\n", i).unwrap_or(b.len());
            comments.push(Comment { start: i, end, to_line_end: true, trailing: line_has_code });
            blank(&mut code, i, end);
            i = end;
        } else if let Some((open, close)) = syntax.block
            && rest.starts_with(open.as_bytes())
        {
            let end = find(b, close.as_bytes(), i + open.len()).map_or(b.len(), |e| e + close.len());
            comments.push(Comment { start: i, end, to_line_end: false, trailing: line_has_code });
            blank(&mut code, i, end);
            i = end;
        } else if syntax.triple_quotes && (c == b'"' || c == b'\'') && rest.starts_with(&[c, c, c]) {
            let (end, closed) = string_end(b, i + 3, &[c, c, c], true);
            blank(&mut code, i + 3, end.saturating_sub(if closed { 3 } else { 0 }));
            open_string |= !closed && end >= b.len();
            line_has_code = true;
            i = end;
        } else if (syntax.quotes.contains(&c) || syntax.multiline_quotes.contains(&c))
            && !(syntax.char_literals && c == b'\'' && !is_char_literal(text, i))
        {
            let multiline = syntax.multiline_quotes.contains(&c);
            let (end, closed) = string_end(b, i + 1, &[c], multiline);
            blank(&mut code, i + 1, end.saturating_sub(usize::from(closed)));
            open_string |= !closed && end >= b.len();
            line_has_code = true;
            i = end;
        } else {
            line_has_code |= !c.is_ascii_whitespace();
            i += 1;
        }
    }
    Lexed { code, comments, open_string }
}

/// Where a string whose contents start at `from` ends (just past its closing quote),
/// and whether it was closed; a single-line string stops unclosed at the newline.
fn string_end(b: &[u8], from: usize, close: &[u8], multiline: bool) -> (usize, bool) {
    let mut j = from;
    while let Some(&c) = b.get(j) {
        if c == b'\\' {
            j += 2;
        } else if b[j..].starts_with(close) {
            return (j + close.len(), true);
        } else if c == b'\n' && !multiline {
            return (j, false);
        } else {
            j += 1;
        }
    }
    (b.len(), false)
}

/// `'x'`, `'é'` or `'\n'` at `at`, as opposed to the lifetime `'a`.
fn is_char_literal(text: &str, at: usize) -> bool {
    let after = text.get(at + 1..).unwrap_or_default();
    let mut chars = after.chars();
    match chars.next() {
        Some('\\') => true,
        Some(_) => chars.next() == Some('\''),
        None => false,
    }
}

fn blank(code: &mut [u8], from: usize, to: usize) {
    for b in code.iter_mut().take(to).skip(from) {
        if *b != b'\n' {
            *b = b' ';
        }
    }
}

/// For files of unknown type: lines that start with a common comment marker.
fn full_line_comments(text: &str) -> Vec<Comment> {
    let mut comments = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let indent = body.len() - body.trim_start().len();
        if ["#", "//", "/*", "<!--"].iter().any(|m| body[indent..].starts_with(m)) {
            comments.push(Comment {
                start: start + indent,
                end: start + body.len(),
                to_line_end: true,
                trailing: false,
            });
        }
        start += line.len();
    }
    comments
}

// ---------------------------------------------------------------------------------------
// Placeholder comments.

/// Words of which at least one must appear: each says "code was here" or "code goes here".
const TRIGGERS: &[&str] = &[
    "rest",
    "existing",
    "remaining",
    "remainder",
    "implement",
    "implemented",
    "unimplemented",
    "omitted",
    "omit",
    "brevity",
    "unchanged",
    "untouched",
    "unmodified",
    "elided",
    "snip",
    "snipped",
    "truncated",
    "your",
    "previous",
    "previously",
    "before",
    "earlier",
];

/// The other words a placeholder comment may use. Nouns are only the generic ones
/// ("code", "method"): "rest of the items" describes real code below it, "rest of the
/// code" replaces it.
const FILLERS: &[&str] = &[
    "a",
    "above",
    "add",
    "all",
    "an",
    "and",
    "are",
    "as",
    "be",
    "below",
    "body",
    "class",
    "classes",
    "code",
    "component",
    "components",
    "content",
    "css",
    "else",
    "etc",
    "everything",
    "file",
    "fill",
    "fixme",
    "for",
    "function",
    "functionality",
    "functions",
    "go",
    "goes",
    "helper",
    "helpers",
    "here",
    "html",
    "implementation",
    "in",
    "is",
    "it",
    "keep",
    "kept",
    "like",
    "logic",
    "markup",
    "method",
    "methods",
    "module",
    "more",
    "not",
    "of",
    "or",
    "original",
    "other",
    "others",
    "program",
    "put",
    "remain",
    "remains",
    "same",
    "script",
    "similar",
    "stay",
    "stays",
    "still",
    "styles",
    "that",
    "the",
    "this",
    "to",
    "todo",
    "xxx",
    "yet",
];

/// Words that, next to an ellipsis, make a comment a placeholder: `// ... other methods ...`.
const ELLIPSIS_WORDS: &[&str] = &["code", "etc", "more", "other", "others", "same", "similar"];

fn placeholder_comments(text: &str, comments: &[Comment], found: &mut Vec<Found>) {
    // Consecutive full-line comments are one text: "// The rest of the code" followed by
    // "// assumes sorted input." is prose, not a placeholder.
    let mut group_start = 0;
    for i in 0..comments.len() {
        let continues = |j: usize| {
            let (Some(a), Some(b)) = (comments.get(j), comments.get(j + 1)) else { return false };
            let between = text.get(a.end..b.start).unwrap_or("x");
            a.to_line_end
                && b.to_line_end
                && !a.trailing
                && !b.trailing
                && between.trim().is_empty()
                && between.matches('\n').count() == 1
        };
        if continues(i) {
            continue;
        }
        let group = &comments[group_start..=i];
        group_start = i + 1;
        let whole = match (group.first(), group.last()) {
            (Some(first), Some(last)) => text.get(first.start..last.end).unwrap_or_default(),
            _ => continue,
        };
        let whole_stands_in = stands_in(whole);
        for comment in group {
            let body = text.get(comment.start..comment.end).unwrap_or_default();
            // A bare `# ...` inside a longer comment is part of a diagram or an example.
            let bare = words(body).is_empty();
            let alone = group.len() == 1 || strong_placeholder(body) || has_ellipsis(body) && !bare;
            // After code on its line a comment describes that code (`self // unchanged`),
            // and `items, // ...` says "and so on".
            let after_code = comment.trailing
                && comment.to_line_end
                && (bare || !has_ellipsis(body) && !strong_placeholder(body));
            // Doc comments hold examples, where a placeholder is the point.
            let doc =
                ["///", "//!", "/**", "/*!"].iter().any(|m| body.starts_with(m)) && !body.starts_with("/**/");
            if stands_in(body) && (alone || whole_stands_in) && !after_code && !doc {
                let first_word = body.find(|c: char| c.is_alphanumeric() || c == '.' || c == '…');
                let at = comment.start + first_word.unwrap_or(0);
                found.push(Found::new(
                    at,
                    StubKind::PlaceholderComment,
                    "placeholder comment stands in for code",
                ));
            }
        }
    }
}

/// Placeholder comments in the `<script>` and `<style>` elements of an HTML page.
fn embedded_placeholder_comments(text: &str, html_code: &[u8], found: &mut Vec<Found>) {
    let lower = html_code.to_ascii_lowercase();
    for (open, close, syntax) in [(&b"<script"[..], &b"</script"[..], &SCRIPT), (b"<style", b"</style", &CSS)]
    {
        let mut i = 0;
        while let Some(tag) = find(&lower, open, i) {
            let Some(start) = find(&lower, b">", tag).map(|e| e + 1) else { break };
            let end = find(&lower, close, start).unwrap_or(lower.len());
            i = end.max(start);
            let Some(inner) = text.get(start..end) else { continue };
            let comments: Vec<Comment> = lex(inner, syntax)
                .comments
                .into_iter()
                .map(|c| Comment { start: c.start + start, end: c.end + start, ..c })
                .collect();
            placeholder_comments(text, &comments, found);
        }
    }
}

/// Whether a comment (markers included) is only a stand-in for code.
fn stands_in(body: &str) -> bool {
    let ellipsis = has_ellipsis(body);
    let words = words(body);
    if words.is_empty() {
        // `/* ....... */` is a separator and `// '...'` a quote, not an ellipsis.
        let bare = body.chars().all(|c| c.is_whitespace() || "./*#<!->…".contains(c));
        return ellipsis && bare && body.matches('.').count() <= 4;
    }
    // "// unchanged" or "// Truncated" next to code describes it.
    if words.len() > 12 || words.len() == 1 && !ellipsis {
        return false;
    }
    if strong_placeholder(body) {
        return true;
    }
    if words.len() > 8 && !ellipsis {
        return false;
    }
    let known = |w: &String| TRIGGERS.contains(&w.as_str()) || FILLERS.contains(&w.as_str());
    let has_trigger = words.iter().any(|w| TRIGGERS.contains(&w.as_str()));
    let ellipsis_word = ellipsis && words.iter().any(|w| ELLIPSIS_WORDS.contains(&w.as_str()));
    words.iter().all(known) && (has_trigger || ellipsis_word)
}

/// Phrases that are placeholders whatever other words come with them: "validation
/// omitted for brevity", "add more routes here", "your API calls here".
fn strong_placeholder(body: &str) -> bool {
    let words = words(body);
    if words.is_empty() || words.len() > 12 {
        return false;
    }
    let at = |i: usize| words.get(i).map_or("", String::as_str);
    let left_out =
        ["omitted", "omit", "removed", "skipped", "elided", "left", "shortened", "abbreviated", "truncated"];
    let brevity = words.windows(2).any(|w| w[0] == "for" && w[1] == "brevity")
        && words.iter().any(|w| left_out.contains(&w.as_str()));
    let add_more_here = words
        .windows(2)
        .position(|w| w[0] == "add" && w[1] == "more")
        .is_some_and(|i| words.iter().skip(i + 2).take(5).any(|w| w == "here"));
    let short = words.len() <= 6;
    let goes_here = short && words.windows(2).any(|w| (w[0] == "goes" || w[0] == "go") && w[1] == "here");
    let your_here = short && at(0) == "your" && at(words.len() - 1) == "here";
    brevity || add_more_here || goes_here || your_here
}

fn has_ellipsis(body: &str) -> bool {
    body.contains("...") || body.contains('…')
}

fn words(body: &str) -> Vec<String> {
    body.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

// ---------------------------------------------------------------------------------------
// Stub bodies.

/// Functions whose body, besides a docstring and comments, is only `pass` or `...`.
///
/// Not flagged: `@abstractmethod` and `@overload` functions, methods of a `Protocol`,
/// and no-op names (`noop`); `pass` in `except` or in `class E(Exception)` is not a
/// function body at all.
fn python_stub_bodies(text: &str, found: &mut Vec<Found>) {
    if text.len() > MAX_PARSE_BYTES {
        return;
    }
    let Some(tree) = parse_python(text) else { return };
    let mut cursor = tree.walk();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "function_definition"
            && let Some((at, message)) = python_stub(node, text)
        {
            found.push(Found::new(at, StubKind::StubBody, message));
        }
        stack.extend(node.named_children(&mut cursor));
    }
}

/// Parse under [`PARSE_BUDGET`]: random bytes that pass as text can take seconds.
fn parse_python(text: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
    let deadline = Instant::now() + PARSE_BUDGET;
    let bytes = text.as_bytes();
    let mut input = |offset: usize, _| bytes.get(offset..).unwrap_or_default();
    let mut past_deadline = |_: &tree_sitter::ParseState| {
        if Instant::now() >= deadline { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    };
    let options = ParseOptions::new().progress_callback(&mut past_deadline);
    parser.parse_with_options(&mut input, None, Some(options))
}

fn python_stub(func: Node, text: &str) -> Option<(usize, String)> {
    let node_text = |n: Node| text.get(n.byte_range()).unwrap_or_default();
    let body = func.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let mut statements: Vec<Node> =
        body.named_children(&mut cursor).filter(|n| n.kind() != "comment").collect();
    let docstring = statements.first().is_some_and(|s| {
        s.kind() == "expression_statement"
            && s.named_child_count() == 1
            && s.named_child(0).is_some_and(|c| matches!(c.kind(), "string" | "concatenated_string"))
    });
    if docstring {
        statements.remove(0);
    }
    let [only] = statements[..] else { return None };
    let what = match only.kind() {
        "pass_statement" => "pass",
        "expression_statement"
            if only.named_child_count() == 1
                && only.named_child(0).is_some_and(|c| c.kind() == "ellipsis") =>
        {
            "..."
        }
        _ => return None,
    };
    let name = func.child_by_field_name("name").map(node_text).unwrap_or("?");
    if noop_like(name) || says_intended(func, only, text) {
        return None;
    }
    // The node that sits in the enclosing block: the decorated definition if any.
    let mut outer = func;
    if let Some(parent) = func.parent().filter(|p| p.kind() == "decorated_definition") {
        outer = parent;
        let mut cursor = parent.walk();
        let by_contract = parent.named_children(&mut cursor).filter(|d| d.kind() == "decorator").any(|d| {
            let decorator = node_text(d).trim_start_matches('@');
            let callee = decorator.split('(').next().unwrap_or_default().trim();
            let last = callee.rsplit('.').next().unwrap_or_default();
            matches!(
                last,
                "abstractmethod"
                    | "abstractproperty"
                    | "abstractclassmethod"
                    | "abstractstaticmethod"
                    | "overload"
            )
        });
        if by_contract {
            return None;
        }
    }
    let class = outer.parent().filter(|b| b.kind() == "block").and_then(|b| b.parent());
    if let Some(class) = class.filter(|c| c.kind() == "class_definition")
        && class.child_by_field_name("superclasses").is_some_and(|s| node_text(s).contains("Protocol"))
    {
        return None;
    }
    Some((only.start_byte(), format!("body of `{name}` is only `{what}`")))
}

/// Whether the docstring or a comment of a one-statement function says that doing
/// nothing is the point ("Hook for subclasses", "# no-op"): base classes are full of
/// such methods, and an agent's stub does not explain itself that way.
fn says_intended(func: Node, only: Node, text: &str) -> bool {
    let from = func.child_by_field_name("parameters").map_or(func.start_byte(), |p| p.end_byte());
    let to = text
        .get(only.end_byte()..)
        .and_then(|rest| rest.find('\n'))
        .map_or(text.len(), |n| only.end_byte() + n);
    explains_no_op(&words(text.get(from..to).unwrap_or_default()))
}

/// Whether a function's comments or docstring say that doing nothing is intended.
fn explains_no_op(words: &[String]) -> bool {
    const INTENT: &[&str] = &[
        "noop",
        "nop",
        "nothing",
        "override",
        "overridden",
        "overrides",
        "subclass",
        "subclasses",
        "subclassed",
        "hook",
        "hooks",
        "intentionally",
        "deliberately",
        "ignore",
        "ignored",
    ];
    words.iter().any(|w| INTENT.contains(&w.as_str()))
        || words.windows(2).any(|w| w[0] == "no" && w[1] == "op")
}

/// Names that promise to do nothing.
fn noop_like(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.contains("noop") || lower == "nop" || lower == "_nop"
}

/// JavaScript and TypeScript: a not-implemented `throw` as a block's only statement,
/// and named functions and methods with an empty body.
fn script_stub_bodies(text: &str, code: &[u8], found: &mut Vec<Found>) {
    let parens = Parens::new(code);
    for at in word_positions(code, b"throw") {
        if sole_not_implemented_throw(text, code, &parens, at) {
            let message = "the body only throws a not-implemented error";
            found.push(Found::new(at, StubKind::StubBody, message));
        }
    }
    for (open, _) in code.iter().enumerate().filter(|&(_, &c)| c == b'{') {
        let close = skip_while(code, open + 1, |b| b.is_ascii_whitespace());
        if code.get(close) != Some(&b'}') {
            continue;
        }
        if let Some(name) = empty_function_name(text, code, &parens, open, close) {
            found.push(Found::new(open, StubKind::StubBody, format!("`{name}` has an empty body")));
        }
    }
}

/// `{ throw new Error("not implemented"); }`: the throw at `at` is a block's only
/// statement and its message (or error class) says the code is missing.
fn sole_not_implemented_throw(text: &str, code: &[u8], parens: &Parens, at: usize) -> bool {
    if back_skip_ws(code, at).and_then(|i| code.get(i)) != Some(&b'{') {
        return false;
    }
    let mut i = skip_while(code, at + b"throw".len(), |b| b.is_ascii_whitespace());
    if code[i..].starts_with(b"new") && code.get(i + 3).is_some_and(u8::is_ascii_whitespace) {
        i = skip_while(code, i + 3, |b| b.is_ascii_whitespace());
    }
    let class_end = skip_while(code, i, is_ident_byte);
    let class = text.get(i..class_end).unwrap_or_default();
    let open = skip_while(code, class_end, |b| b.is_ascii_whitespace());
    if class.is_empty() || code.get(open) != Some(&b'(') {
        return false;
    }
    let Some(close) = parens.close_of(open) else { return false };
    let mut after = skip_while(code, close + 1, |b| b.is_ascii_whitespace());
    if code.get(after) == Some(&b';') {
        after = skip_while(code, after + 1, |b| b.is_ascii_whitespace());
    }
    if code.get(after) != Some(&b'}') {
        return false;
    }
    let message = words(text.get(open + 1..close).unwrap_or_default()).join(" ");
    let says_missing = ["todo", "tbd", "unimplemented", "stub"]
        .iter()
        .any(|w| message.split(' ').any(|m| m == *w))
        || ["not implemented", "not yet implemented", "implement me", "implement this", "to be implemented"]
            .iter()
            .any(|p| message.contains(p));
    says_missing || class == "NotImplementedError"
}

/// Keywords that take a parenthesis before a block, and so are never function names.
const NOT_NAMES: &[&str] = &[
    "if", "for", "while", "switch", "catch", "with", "function", "return", "typeof", "await", "yield",
    "super",
];

/// Words that may precede a method or function name.
const MODIFIERS: &[&str] = &[
    "function",
    "async",
    "static",
    "get",
    "set",
    "public",
    "private",
    "protected",
    "override",
    "abstract",
    "export",
    "default",
    "declare",
    "readonly",
];

/// The name of the function or method whose body is the empty `{` .. `}` at `open`
/// and `close`; None for anything else: arrow functions and anonymous functions
/// (callbacks), constructors, `on*` handlers, no-ops, control statements, objects.
fn empty_function_name<'t>(
    text: &'t str,
    code: &[u8],
    parens: &Parens,
    open: usize,
    close: usize,
) -> Option<&'t str> {
    // `(): {} {`: that `{}` was a TypeScript return type.
    let after = skip_while(code, close + 1, |b| b.is_ascii_whitespace());
    if code.get(after) == Some(&b'{') {
        return None;
    }
    // Back over a TypeScript return type to the `)` of the parameters. `=` is not
    // allowed, so `(a) => {}` stops here.
    let floor = open.saturating_sub(MAX_LOOKAROUND);
    let mut paren = open;
    loop {
        paren = paren.checked_sub(1).filter(|&p| p >= floor)?;
        let c = *code.get(paren)?;
        if c == b')' {
            break;
        }
        let type_byte =
            c.is_ascii_alphanumeric() || c.is_ascii_whitespace() || b"_$<>[]|&.,:?\"'".contains(&c);
        if !type_byte {
            return None;
        }
    }
    let between = text.get(paren + 1..open)?.trim();
    if !between.is_empty() && !between.starts_with(':') {
        return None;
    }
    let lparen = parens.open_of(paren)?;
    let mut i = back_skip_ws(code, lparen)?;
    if code.get(i) == Some(&b'>') {
        i = back_skip_ws(code, type_params_start(code, i)?)?;
    }
    let name_end = i + 1;
    let name_start = back_skip_while(code, name_end, is_ident_byte);
    let name = text.get(name_start..name_end)?;
    if name.is_empty() || NOT_NAMES.contains(&name) || name == "constructor" || noop_like(name) {
        return None;
    }
    if name.strip_prefix("on").is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase())) {
        return None;
    }
    // What precedes the name decides between a definition and a call.
    let Some(prev) = back_skip_ws(code, name_start) else {
        return Some(name); // start of the text
    };
    let newline_between = code.get(prev + 1..name_start).is_some_and(|gap| gap.contains(&b'\n'));
    let prev_word_start = back_skip_while(code, prev + 1, is_ident_byte);
    let prev_word = text.get(prev_word_start..prev + 1).unwrap_or_default();
    let definition = newline_between || MODIFIERS.contains(&prev_word) || b"{};,*".contains(&code[prev]);
    let params = text.get(lparen + 1..paren).unwrap_or_default();
    let deliberate = matches!(prev_word, "get" | "set") // an accessor that ignores writes
        || code.get(after) == Some(&b',') // a member of an object literal: a callback
        || explains_no_op(&words(text.get(open..=close).unwrap_or_default()))
        || !params.trim().is_empty()
            && params.split(',').all(|p| p.trim().trim_start_matches("...").starts_with('_'))
        || name.len() == 1 // minified
        || es5_constructor(text, name, close);
    (definition && !deliberate).then_some(name)
}

/// `function Codec() {}` followed by `Codec.prototype...`: an ES5 class, empty by
/// design. Only the text just after the body is searched, to stay linear.
fn es5_constructor(text: &str, name: &str, close: usize) -> bool {
    let window = text.as_bytes().get(close..).unwrap_or_default();
    let window = &window[..window.len().min(4 * MAX_LOOKAROUND)];
    let needle = format!("{name}.prototype");
    name.starts_with(|c: char| c.is_ascii_uppercase()) && find(window, needle.as_bytes(), 0).is_some()
}

/// Rust: `todo!` and `unimplemented!` wherever they are code.
fn rust_stub_macros(code: &[u8], found: &mut Vec<Found>) {
    for mac in [&b"todo"[..], b"unimplemented"] {
        for at in word_positions(code, mac) {
            let bang = skip_while(code, at + mac.len(), |b| b.is_ascii_whitespace());
            if code.get(bang) == Some(&b'!') {
                let name = String::from_utf8_lossy(mac);
                found.push(Found::new(at, StubKind::StubBody, format!("`{name}!()` stands in for code")));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Whole-file signs.

/// The offset of a `<body>` that holds only whitespace (comments are already blanked
/// in `code`). Needs `</body>` or `</html>` after it: while a page is being appended,
/// an open body is just not written yet.
fn empty_html_body(code: &[u8]) -> Option<usize> {
    let lower = code.to_ascii_lowercase();
    let mut from = 0;
    let start = loop {
        let at = find(&lower, b"<body", from)?;
        if lower.get(at + 5).is_some_and(|&b| b == b'>' || b == b'/' || b.is_ascii_whitespace()) {
            break at;
        }
        from = at + 5;
    };
    let content = find(&lower, b">", start)? + 1;
    let end = find(&lower, b"</body", content).or_else(|| find(&lower, b"</html", content))?;
    lower[content..end].iter().all(u8::is_ascii_whitespace).then_some(start)
}

/// Operators a line of code cannot end with once the statement is finished.
const OPEN_ENDINGS: &[&str] = &["&&", "||", "=>", "->", "=", "(", "[", "{", ",", "+", "."];

/// The text stops without a final newline, cut in a string, a tag, or after an operator.
fn ends_mid_token(text: &str, family: Family, lexed: &Lexed, tags: bool) -> Option<Found> {
    if text.is_empty() || text.ends_with(['\n', '\r']) {
        return None;
    }
    let last_start = text.rfind('\n').map_or(0, |i| i + 1);
    if text[last_start..].trim().is_empty() {
        return None;
    }
    let last_code = String::from_utf8_lossy(lexed.code.get(last_start..).unwrap_or_default());
    let last_code = last_code.trim_end();
    let in_string = match family {
        _ if family.knows_strings() => lexed.open_string,
        // In markup a quote outside a tag is prose; inside one, `in_tag` covers it.
        Family::Html | Family::Markdown => false,
        _ => last_code.matches('"').count() % 2 == 1,
    };
    let in_tag = tags
        && last_code.rfind('<').is_some_and(|lt| {
            let rest = &last_code[lt + 1..];
            rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/') && !rest.contains('>')
        });
    // `i++` and `cd ..` are finished; in prose and shell a final `.` is normal.
    let finished = last_code.ends_with("++") || last_code.ends_with("..");
    let operator = match family {
        Family::Html => None,
        _ if finished => None,
        _ if family.knows_strings() => OPEN_ENDINGS.iter().find(|op| last_code.ends_with(*op)),
        _ => OPEN_ENDINGS.iter().filter(|op| **op != ".").find(|op| last_code.ends_with(*op)),
    };
    let message = if in_string {
        "the text ends inside a string, without a final newline".to_owned()
    } else if in_tag {
        "the text ends inside a tag, without a final newline".to_owned()
    } else {
        format!("the text ends after `{}`, without a final newline", operator?)
    };
    Some(Found::new(last_start, StubKind::EndsMidToken, message))
}

// ---------------------------------------------------------------------------------------
// HTML attributes.

/// One attribute of a tag: its lower-case name and the byte range of its value.
struct Attribute {
    name: Vec<u8>,
    value: std::ops::Range<usize>,
}

/// The attributes of the tag whose name ends at `from`, and where the tag ends.
fn attributes(code: &[u8], from: usize) -> (Vec<Attribute>, usize) {
    let mut attrs = Vec::new();
    let mut i = from;
    loop {
        i = skip_while(code, i, |b| b.is_ascii_whitespace() || b == b'/');
        match code.get(i) {
            None => return (attrs, code.len()),
            Some(b'>') => return (attrs, i + 1),
            Some(_) => {}
        }
        let name_end = skip_while(code, i, |b| !(b.is_ascii_whitespace() || b"=>/".contains(&b)));
        let name = code[i..name_end].to_ascii_lowercase();
        let eq = skip_while(code, name_end, |b| b.is_ascii_whitespace());
        if code.get(eq) != Some(&b'=') {
            i = name_end.max(i + 1);
            continue;
        }
        let v = skip_while(code, eq + 1, |b| b.is_ascii_whitespace());
        let value = match code.get(v) {
            Some(&q) if q == b'"' || q == b'\'' => {
                let end = find(code, &[q], v + 1).unwrap_or(code.len());
                i = end + 1;
                v + 1..end
            }
            _ => {
                let end = skip_while(code, v, |b| !(b.is_ascii_whitespace() || b == b'>'));
                i = end;
                v..end
            }
        };
        attrs.push(Attribute { name, value });
    }
}

fn is_stylesheet_rel(html: &str, rel: &Attribute) -> bool {
    html.get(rel.value.clone())
        .unwrap_or_default()
        .split_ascii_whitespace()
        .any(|token| token.eq_ignore_ascii_case("stylesheet"))
}

/// The local path in a `src` or `href`, without query or fragment; None when remote
/// or inline.
fn local_target(value: &str) -> Option<String> {
    let value = value.trim();
    if value.starts_with("//") || value.starts_with('#') {
        return None;
    }
    // Any scheme (`https:`, `data:`, `mailto:`, `javascript:`) means not a local file.
    let scheme_end = value.find(|c: char| !(c.is_ascii_alphanumeric() || "+.-".contains(c)));
    if scheme_end.is_some_and(|e| e > 0 && value[e..].starts_with(':')) {
        return None;
    }
    let path = value.split(['?', '#']).next().unwrap_or_default();
    (!path.is_empty()).then(|| path.to_owned())
}

// ---------------------------------------------------------------------------------------
// Byte scanning helpers.

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let tail = haystack.get(from..)?;
    if needle.is_empty() || tail.len() < needle.len() {
        return None;
    }
    tail.windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// The first index at or after `from` whose byte fails `keep` (or the length).
fn skip_while(code: &[u8], from: usize, keep: impl Fn(u8) -> bool) -> usize {
    let from = from.min(code.len());
    code[from..].iter().position(|&b| !keep(b)).map_or(code.len(), |p| p + from)
}

/// The start of the run of bytes satisfying `keep` that ends just before `end`.
fn back_skip_while(code: &[u8], end: usize, keep: impl Fn(u8) -> bool) -> usize {
    let end = end.min(code.len());
    code[..end].iter().rposition(|&b| !keep(b)).map_or(0, |p| p + 1)
}

/// The last non-whitespace byte before `end`.
fn back_skip_ws(code: &[u8], end: usize) -> Option<usize> {
    back_skip_while(code, end, |b| b.is_ascii_whitespace()).checked_sub(1)
}

/// The matching pairs of parentheses in a code view, found in one pass: scanning for
/// each pair on demand is quadratic on `((((... ) {} ) {}`.
struct Parens {
    /// (open, close), sorted by open.
    by_open: Vec<(usize, usize)>,
    /// (close, open), sorted by close.
    by_close: Vec<(usize, usize)>,
}

impl Parens {
    fn new(code: &[u8]) -> Self {
        let mut stack = Vec::new();
        let mut by_close = Vec::new();
        for (i, &b) in code.iter().enumerate() {
            if b == b'(' {
                stack.push(i);
            } else if b == b')'
                && let Some(open) = stack.pop()
            {
                by_close.push((i, open));
            }
        }
        let mut by_open: Vec<(usize, usize)> = by_close.iter().map(|&(c, o)| (o, c)).collect();
        by_open.sort_unstable();
        Parens { by_open, by_close }
    }

    fn close_of(&self, open: usize) -> Option<usize> {
        let i = self.by_open.binary_search_by_key(&open, |&(o, _)| o).ok()?;
        self.by_open.get(i).map(|&(_, c)| c)
    }

    fn open_of(&self, close: usize) -> Option<usize> {
        let i = self.by_close.binary_search_by_key(&close, |&(c, _)| c).ok()?;
        self.by_close.get(i).map(|&(_, o)| o)
    }
}

/// The `<` opening the `>` at `close` (a TypeScript type parameter list), within
/// [`MAX_LOOKAROUND`].
fn type_params_start(code: &[u8], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    let floor = close.saturating_sub(MAX_LOOKAROUND);
    for i in (floor..=close).rev() {
        match code.get(i) {
            Some(b'>') => depth += 1,
            Some(b'<') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Every offset where `word` occurs as a whole identifier.
fn word_positions<'c>(code: &'c [u8], word: &'c [u8]) -> impl Iterator<Item = usize> + 'c {
    code.windows(word.len().max(1)).enumerate().filter_map(move |(i, w)| {
        let before = i.checked_sub(1).and_then(|p| code.get(p)).is_some_and(|&b| is_ident_byte(b));
        let after = code.get(i + word.len()).is_some_and(|&b| is_ident_byte(b));
        (w == word && !before && !after).then_some(i)
    })
}

/// Byte offsets to lines, and lines to their trimmed text.
struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Self {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Lines { text, starts }
    }

    /// 1-based line holding byte `at`.
    fn line_of(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at).max(1)
    }

    fn source(&self, line: usize) -> String {
        let start = self.starts.get(line - 1).copied().unwrap_or(self.text.len());
        let end = self.starts.get(line).map_or(self.text.len(), |s| s - 1);
        let trimmed = self.text.get(start..end).unwrap_or_default().trim();
        trimmed.chars().take(MAX_SOURCE_CHARS).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// (line, kind) of every finding, for compact assertions.
    fn found(path: &str, text: &str) -> Vec<(usize, StubKind)> {
        find_all_stubs(path, text).into_iter().map(|s| (s.line, s.kind)).collect()
    }

    fn assert_none(path: &str, text: &str) {
        let stubs = find_all_stubs(path, text);
        assert!(stubs.is_empty(), "{path}: {stubs:#?}");
    }

    use StubKind::{EmptyHtmlBody, EndsMidToken, PlaceholderComment, StubBody};

    // --- placeholder comments -----------------------------------------------------------

    #[test]
    fn placeholder_comments_are_found_at_their_line_in_each_comment_syntax() {
        let cases = [
            ("a.py", "def f(x):\n    y = x * 2\n    # ... rest of the code\n    return y\n", 3),
            ("a.py", "import os\n\n# rest of implementation\n", 3),
            ("a.js", "function f() {\n  const a = 1;\n  // ... existing code ...\n  return a;\n}\n", 3),
            ("a.ts", "class A {\n  run(): void {\n    go();\n    // existing code unchanged\n  }\n}\n", 4),
            ("a.jsx", "const x = 1;\n/* ... */\nexport default x;\n", 2),
            ("a.rs", "fn f() -> u8 {\n    let a = 1;\n    // TODO: implement\n    a\n}\n", 3),
            ("a.css", "body { margin: 0; }\n\n/* ... more styles ... */\n", 3),
            ("a.js", "export function f() { /* ... */ }\n", 1),
            ("a.html", "<html>\n<body>\n  <h1>Hi</h1>\n  <!-- ... -->\n</body>\n</html>\n", 4),
            ("a.go", "func f() {\n\t// your code here\n}\n", 2),
            ("a.yaml", "a: 1\n# add more services here\n", 2),
            ("a.java", "class A {\n  // helpers omitted for brevity\n}\n", 2),
            ("notes.txt", "one\n\n// implement this\n", 3),
            ("a.md", "# Title\n\n<!-- rest of the file -->\n", 3),
        ];
        for (path, text, line) in cases {
            assert_eq!(found(path, text), vec![(line, PlaceholderComment)], "{path}: {text}");
        }
    }

    #[test]
    fn placeholder_comment_in_an_inline_script_of_a_page_is_found() {
        let page = "<html>\n<body>\n<p>x</p>\n<script>\nlet a = 1;\n// ... rest of the code\n</script>\n</body>\n</html>\n";
        assert_eq!(found("index.html", page), vec![(6, PlaceholderComment)]);
    }

    #[test]
    fn placeholder_source_is_the_trimmed_line_and_message_is_short() {
        let stubs = find_stubs("a.py", "x = 1\n        # ... rest of the code ...\n");
        assert_eq!(stubs.len(), 1);
        assert_eq!(stubs[0].source, "# ... rest of the code ...");
        assert_eq!(stubs[0].message, "placeholder comment stands in for code");
    }

    #[test]
    fn ordinary_todo_above_real_code_is_not_a_placeholder() {
        assert_none("a.py", "# TODO: handle unicode normalisation later\ndef f(s):\n    return s.strip()\n");
        assert_none("a.js", "// TODO: add tests\nexport const f = (s) => s.trim();\n");
        assert_none("a.py", "# Implementation\n\ndef f():\n    return 1\n");
    }

    #[test]
    fn prose_comment_that_mentions_the_rest_of_the_code_is_not_a_placeholder() {
        assert_none("a.py", "# The rest of the code\n# assumes the input is sorted.\nx = sorted(y)\n");
        assert_none("a.py", "# rest of the items\nfor item in rest:\n    print(item)\n");
        assert_none(
            "a.rs",
            "/// ```\n/// fn main() {\n///     // your code here\n/// }\n/// ```\nfn f() {}\n",
        );
        assert_none("a.rs", "fn round(self) -> Self {\n    self // unchanged\n}\n// Truncated\n// '...'\n");
        assert_none("a.rs", "// Customized for brevity for a better debug experience\nfn f() {}\n");
        assert_none("a.js", "/* ............ */\nconst rules = [\n  a,\n  b, // ...\n];\n");
        assert_none("a.py", "# Layout:\n#   header\n#   ...\n#   footer\nx = 1\n");
        assert_none(
            "a.js",
            "// Handle the rest of the code paths the same way as before we got here\nf();\n",
        );
    }

    #[test]
    fn placeholder_words_inside_strings_are_not_comments() {
        assert_none("a.py", "MSG = \"# ... rest of the code\"\nprint(MSG)\n");
        assert_none("a.js", "const s = '// ... existing code ...';\nconst t = `\n/* ... */\n`;\n");
        assert_none(
            "a.rs",
            "let s = \"// rest of the code\";\nlet c = '\"';\nlet r: &'static str = \"/* ... */\";\n",
        );
    }

    // --- stub bodies -------------------------------------------------------------------

    #[test]
    fn python_function_of_only_pass_or_ellipsis_is_a_stub_at_the_statement() {
        assert_eq!(found("a.py", "import os\n\n\ndef load(path):\n    pass\n"), vec![(5, StubBody)]);
        assert_eq!(found("a.py", "def f(): ...\n"), vec![(1, StubBody)]);
        let with_doc = "class Store:\n    def save(self, item):\n        \"\"\"Persist the item.\"\"\"\n        # later\n        pass\n";
        assert_eq!(found("a.py", with_doc), vec![(5, StubBody)]);
        let message = &find_stubs("a.py", "def load(path):\n    pass\n")[0].message;
        assert_eq!(message, "body of `load` is only `pass`");
    }

    #[test]
    fn javascript_and_typescript_not_implemented_throws_are_stubs() {
        let js = "function save(data) {\n  throw new Error(\"not implemented\");\n}\n";
        assert_eq!(found("a.js", js), vec![(2, StubBody)]);
        let ts = "class Api {\n  async fetchUser(id: string): Promise<User> {\n    throw new Error('TODO');\n  }\n}\n";
        assert_eq!(found("a.ts", ts), vec![(3, StubBody)]);
        let arrow = "export const parse = (s: string): Ast => { throw new Error(`Not yet implemented`) };\n";
        assert_eq!(found("a.tsx", arrow), vec![(1, StubBody)]);
    }

    #[test]
    fn javascript_and_typescript_named_functions_with_empty_bodies_are_stubs() {
        assert_eq!(found("a.js", "const a = 1;\nfunction render(state) {}\n"), vec![(2, StubBody)]);
        let ts = "export class Cache {\n  private map = new Map<string, number>()\n  evict(key: string): void {\n  }\n}\n";
        assert_eq!(found("a.ts", ts), vec![(3, StubBody)]);
        let generic = "export async function load<T>(url: string): Promise<T[]> {\n  // TODO\n}\n";
        assert_eq!(found("a.mjs", generic), vec![(1, StubBody)]);
        assert_eq!(find_stubs("a.js", "function render() {}\n")[0].message, "`render` has an empty body");
    }

    #[test]
    fn rust_todo_and_unimplemented_macros_are_stubs() {
        let rs = "fn f() -> u32 {\n    todo!()\n}\n\nfn g() {\n    unimplemented!(\"later\");\n}\n";
        assert_eq!(found("a.rs", rs), vec![(2, StubBody), (6, StubBody)]);
    }

    // --- whole-file signs --------------------------------------------------------------

    #[test]
    fn html_body_with_only_whitespace_and_comments_is_empty() {
        let page = "<!doctype html>\n<html>\n<head><title>x</title></head>\n<body class=\"x\">\n  <!-- content -->\n\n</body>\n</html>\n";
        assert_eq!(found("index.html", page), vec![(4, EmptyHtmlBody)]);
        assert_eq!(found("a.htm", "<html><body></body></html>\n"), vec![(1, EmptyHtmlBody)]);
    }

    #[test]
    fn html_body_still_being_written_is_not_yet_empty() {
        assert_none("index.html", "<html>\n<head></head>\n<body>\n");
    }

    #[test]
    fn text_cut_mid_token_without_final_newline_is_found_on_its_last_line() {
        let cases = [
            ("a.py", "x = 1\ny = foo("),
            ("a.py", "x = 1\ny = x +"),
            ("a.py", "x = 1\nname = \"unfinished str"),
            ("a.js", "const a = 1;\nif (a &&"),
            ("a.js", "const a = 1;\nconsole."),
            ("a.ts", "let a = [\n  1,"),
            ("a.html", "<html>\n<body>\n<div class=\"main\""),
            ("a.html", "<html>\n<body>\n<div"),
            ("a.css", "body {\n  margin: 0;\n}\nh1,"),
            ("notes.txt", "first line\nsecond ="),
        ];
        for (path, text) in cases {
            let line = text.matches('\n').count() + 1;
            assert_eq!(found(path, text), vec![(line, EndsMidToken)], "{path}: {text:?}");
        }
    }

    #[test]
    fn complete_last_line_without_final_newline_is_not_mid_token() {
        assert_none("a.py", "x = [1,\n     2]");
        assert_none("a.js", "let i = 0;\ni++");
        assert_none("a.py", "def f(): return 1  # see foo(");
        assert_none("a.sh", "cd ..");
        assert_none("a.md", "# Notes\n\nThat is all, (really).");
        assert_none("a.html", "<html><body><p>Hi</p></body></html>");
        assert_none("a.rs", "fn f<'a>(s: &'a str) -> &'a str {\n    s\n}");
    }

    #[test]
    fn line_ending_in_a_comma_inside_an_array_with_final_newline_is_fine() {
        assert_none("a.js", "const xs = [\n  1,\n  2,\n");
        assert_none("a.py", "xs = [\n    1,\n    2,\n]\n");
    }

    // --- look-alikes that must stay quiet ----------------------------------------------

    /// A complete module with an ordinary TODO, an exception class, `except: pass`, an
    /// abstract method and a Protocol.
    const COMPLETE_PY: &str = r#""""Small key-value cache with expiry."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Protocol, overload


class CacheMiss(Exception):
    pass


class Clock(Protocol):
    def now(self) -> float: ...


class Backend(ABC):
    @abstractmethod
    def get(self, key: str) -> bytes | None: ...

    @abstractmethod
    def put(self, key: str, value: bytes) -> None:
        pass


class Cache:
    def __init__(self, backend: Backend, clock: Clock) -> None:
        self.backend = backend
        self.clock = clock

    # TODO: handle unicode normalisation later
    def get(self, key: str) -> bytes:
        try:
            value = self.backend.get(key)
        except KeyError:
            pass
        else:
            if value is not None:
                return value
        raise CacheMiss(key)

    @overload
    def expire(self, key: str) -> None: ...
    @overload
    def expire(self, key: list[str]) -> None: ...
    def expire(self, key):
        _ = time.monotonic()
        return None
"#;

    #[test]
    fn complete_python_module_with_a_todo_yields_nothing() {
        assert!(COMPLETE_PY.lines().count() >= 40);
        assert_none("cache.py", COMPLETE_PY);
    }

    #[test]
    fn python_exception_class_except_pass_and_abstract_ellipsis_are_not_stubs() {
        assert_none("a.py", "class E(Exception): pass\n");
        assert_none("a.py", "try:\n    d['k']\nexcept KeyError: pass\n");
        assert_none("a.py", "import abc\nclass A(abc.ABC):\n    @abc.abstractmethod\n    def f(self): ...\n");
        assert_none("a.py", "def noop(*args):\n    pass\n");
        let hook =
            "class Base:\n    def on_event(self):\n        \"\"\"Hook for subclasses.\"\"\"\n        pass\n";
        assert_none("a.py", hook);
        assert_none("a.py", "def reinit():\n    pass  # no-op when fork is unsupported\n");
    }

    #[test]
    fn python_stub_file_bodies_are_not_stubs() {
        assert_none(
            "types.pyi",
            "def f(x: int) -> str: ...\nclass A:\n    def g(self) -> None: ...\n    x: int\n",
        );
    }

    #[test]
    fn javascript_callbacks_constructors_and_control_blocks_with_empty_bodies_are_not_stubs() {
        let js = r#"class Widget extends Base {
  constructor() {}
  onClick() {}
}
const noop = () => {};
items.forEach((x) => {});
promise.then(function () {}, function (err) {});
try { run(); } catch (e) {}
if (ready) {} else {}
for (const x of xs) {}
while (busy()) {}
const empty = {};
call({});
export default {};
"#;
        assert_none("a.js", js);
        let ts = "interface A {}\nclass B implements A {\n  constructor(private readonly a: A) {}\n}\nfunction f(opts: {}): void {\n  use(opts);\n}\ntype T = {};\n";
        assert_none("a.ts", ts);
        let deliberate = r#"class Sink {
  set name(n) {}
  debug(..._args) {}
  flush() {
    // nothing to flush: writes are unbuffered
  }
}
function Codec() {}
Codec.prototype.write = function (s) { return s; };
const source = { start() {}, pull(c) { c.close(); } };
"#;
        assert_none("a.js", deliberate);
    }

    #[test]
    fn javascript_throw_that_is_not_a_stub_is_quiet() {
        let js = "function f(x) {\n  if (!x) {\n    throw new Error('todos must be a list');\n  }\n  if (x.win) throw new Error('not implemented on Windows');\n  return x;\n}\n";
        assert_none("a.js", js);
    }

    #[test]
    fn rust_todo_as_an_identifier_or_in_comments_and_strings_is_not_a_stub() {
        let rs = "struct Todo { todo: Vec<String> }\nfn f(todo: &Todo) -> usize {\n    // todo!() later? no\n    let s = \"todo!()\";\n    todo.todo.len() + s.len()\n}\n";
        assert_none("a.rs", rs);
    }

    #[test]
    fn html_page_with_a_full_body_yields_nothing() {
        let page = "<!doctype html>\n<html lang=\"en\">\n<head>\n  <link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n  <!-- header -->\n  <h1>Hello</h1>\n  <script src=\"app.js\"></script>\n</body>\n</html>\n";
        assert_none("index.html", page);
    }

    // --- capping and robustness ------------------------------------------------------

    #[test]
    fn many_stubs_are_capped_and_all_are_still_counted() {
        let text = "def f():\n    pass\n\n".repeat(15);
        assert_eq!(find_stubs("a.py", &text).len(), MAX_STUBS);
        assert_eq!(find_all_stubs("a.py", &text).len(), 15);
    }

    #[test]
    fn long_source_lines_are_cut() {
        let text = format!("fn f() -> String {{ todo!(\"{}\") }}\n", "x".repeat(300));
        let stubs = find_stubs("a.rs", &text);
        assert_eq!(stubs.len(), 1);
        assert_eq!(stubs[0].source.chars().count(), MAX_SOURCE_CHARS);
        assert!(stubs[0].source.starts_with("fn f() -> String { todo!(\"xxx"));
    }

    // --- linked assets -----------------------------------------------------------------

    #[test]
    fn local_scripts_and_stylesheets_are_listed_with_their_lines() {
        let page = r#"<html>
<head>
  <LINK REL="stylesheet" HREF="css/site.css?v=3">
  <link rel="icon" href="favicon.ico">
  <link rel=stylesheet href=print.css#top media=print>
  <script type="module"
          src="./js/app.js"></script>
</head>
</html>
"#;
        let linked = linked_assets(page);
        let got: Vec<(usize, &str, &str)> =
            linked.iter().map(|l| (l.line, l.attr, l.target.as_str())).collect();
        assert_eq!(
            got,
            vec![(3, "href", "css/site.css"), (5, "href", "print.css"), (7, "src", "./js/app.js")]
        );
    }

    #[test]
    fn remote_inline_and_commented_out_assets_are_not_listed() {
        let page = r##"<head>
<script src="https://cdn.example.com/x.js"></script>
<script src="//cdn.example.com/y.js"></script>
<script src="data:text/javascript,alert(1)"></script>
<link rel="stylesheet" href="http://example.com/a.css">
<link rel="stylesheet" href="#inline">
<a href="mailto:me@example.com">mail</a>
<!-- <script src="old.js"></script> -->
<script>document.write('<script src="fake.js"></scr' + 'ipt>');</script>
<script src="kept.js"></script>
</head>
"##;
        let targets: Vec<String> = linked_assets(page).into_iter().map(|l| l.target).collect();
        assert_eq!(targets, vec!["kept.js"]);
    }

    proptest! {
        #[test]
        fn find_stubs_never_panics_and_lines_are_inside_the_text(
            text in prop_oneof![
                "(?s).{0,200}",
                "([ \n\t{}()\\[\\]<>\"'`#/*!=,.+&:;]|pass|def f\\(\\):|\\.\\.\\.|todo|throw new Error\\('TODO'\\)|function a\\(\\)|<body>|</body>|<!--|-->|rest of the code|\r|é){0,60}",
            ],
        ) {
            let lines = text.split('\n').count();
            for path in ["a.py", "a.pyi", "a.js", "a.ts", "a.rs", "a.html", "a.css", "a.md", "a.yaml", "a.go", "a"] {
                let stubs = find_stubs(path, &text);
                prop_assert!(stubs.len() <= MAX_STUBS);
                for s in &stubs {
                    prop_assert!(s.line >= 1 && s.line <= lines, "{path}: {s:?}");
                }
            }
            for l in linked_assets(&text) {
                prop_assert!(l.line >= 1 && l.line <= lines);
            }
        }
    }
}
