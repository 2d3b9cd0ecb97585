//! Signs that an agent left a placeholder where code should be, read off the syntax tree.
//!
//! Agents that write in pieces sometimes stop early, or "abbreviate" with
//! `// ... rest of the code ...`, and then call the file done. `check_files` reports
//! these as `stubs`; writes and edits mention them as warnings, never as a refusal: a
//! heuristic that blocks a legitimate file makes the agent loop.
//!
//! # One table, one tree
//! The language comes from the one table in `languages.rs` (its `stubs` column says
//! which rules apply) and the text is parsed with that row's tree-sitter grammar, so a
//! comment is a comment node, a string is never mistaken for one, and a function body
//! is the grammar's body. A JavaScript or TypeScript text is read off oxc's tree instead
//! (`script.rs`, see `check::script_tree`), and a Rust text that parses off rust-analyzer's
//! parse (`rust.rs`), with the same rules. What is looked for:
//! - [`StubKind::NoCode`]: a file with only comments and whitespace (a module
//!   docstring or a `"use strict"` directive counts as a comment here). An empty or
//!   comment-only `__init__.py` is idiomatic and not flagged.
//! - [`StubKind::PlaceholderComment`]: a comment made only of placeholder words
//!   (`// ... rest of the code`, `# existing code here`, `/* implementation omitted
//!   for brevity */`); see `placeholder.rs`. An ordinary `// TODO: handle unicode`
//!   next to code is left alone.
//! - [`StubKind::StubBody`]: a function whose body is only a placeholder: per language
//!   in `python.rs`, `script.rs`, `rust.rs`, with the idioms that look alike but are
//!   not stubs (abstract methods, documented hooks, exception classes, `.pyi` files).
//! - [`StubKind::EmptyHtmlBody`], and the scripts and stylesheets of a page, with the
//!   placeholders inside them: `html.rs`.
//!
//! Pure: no file I/O. Linked files are read by the caller (see [`super::html::linked_assets`]).

mod html;
mod overrides;
mod placeholder;
mod prefilter;
mod python;
mod rust;
mod script;

use std::cell::OnceCell;
use std::collections::HashMap;
use std::ops::Range;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Serialize;
use tree_sitter::Node;

use super::languages::{Language, Rules, language_for};
use super::parsers::javascript::Dialect;
use super::report::source_text;
use super::script_tree::{self, Script};
use super::syntax::{parse_until, preorder};
use super::tree::Syntax;
use crate::lines::LineIndex;

pub use overrides::{ClassIndex, Overridable, class_index};
pub(crate) use rust::Reading as RustReading;

/// At most this many stubs are listed by [`find_stubs`]: the model needs the first
/// few to see the pattern, and a long list costs tokens for nothing.
pub const MAX_STUBS: usize = 10;

/// Time allowed for the parse behind one scan; past it, no stubs are reported.
const PARSE_BUDGET: Duration = Duration::from_secs(1);

/// One sign of a placeholder or of a file with no code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Stub {
    /// 1-based line, where the fix goes.
    pub line: usize,
    /// Which sign this is.
    pub kind: StubKind,
    /// Short and specific, e.g. "placeholder comment stands in for code".
    pub message: String,
    /// The line, trimmed and cut to about 200 characters.
    pub source: String,
    /// A method body that is no stub if the project overrides it or its class descends
    /// from an abstract one: what the finish check needs to tell (see `overrides.rs`).
    #[serde(skip)]
    #[schemars(skip)]
    pub overridable: Option<Overridable>,
    /// In a notebook, the cell of the stub: `line` is then within the cell's source.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "super::CellAt")]
    pub cell: Option<super::CellAt>,
}

/// The kinds of sign looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StubKind {
    /// The file holds only comments and whitespace: its code was never written.
    NoCode,
    /// A comment such as `// ... rest of the code ...` where code should be.
    PlaceholderComment,
    /// A function whose whole body is a placeholder: `pass  # TODO`, `...`, `todo!()`,
    /// a not-implemented error, or only a comment saying the code goes here.
    StubBody,
    /// An HTML `<body>` with nothing but whitespace and comments in it.
    EmptyHtmlBody,
    /// A script or stylesheet an HTML page links is missing, empty or has no code
    /// (found by the caller, which can look at other files).
    LinkedAsset,
}

/// The first [`MAX_STUBS`] signs in `text`, in text order, at most one per line.
/// `path` decides the language, as for the syntax check; a file type that is not
/// checked yields nothing. Use [`find_all_stubs`] to count what was left off.
pub fn find_stubs(path: &str, text: &str) -> Vec<Stub> {
    let mut stubs = find_all_stubs(path, text);
    stubs.truncate(MAX_STUBS);
    stubs
}

/// The signs of `kinds` among those [`find_stubs`] lists. The parse is skipped when the
/// text certainly holds none of them (see `prefilter.rs`): most texts an agent writes hold
/// no placeholder, and the parse is most of what a write costs.
pub fn find_stubs_of(path: &str, text: &str, kinds: &[StubKind]) -> Vec<Stub> {
    if !may_hold(path, text, kinds) {
        return Vec::new();
    }
    find_stubs(path, text).into_iter().filter(|s| kinds.contains(&s.kind)).collect()
}

/// Whether `text`, as the file type of `path`, may hold a sign of one of `kinds`; false
/// only when it certainly holds none, decided without a parse (see `prefilter.rs`).
pub fn may_hold(path: &str, text: &str, kinds: &[StubKind]) -> bool {
    language_for(path).is_some_and(|lang| prefilter::may_hold(lang.spec().stubs, text, kinds))
}

/// Every sign [`find_stubs`] would list, uncapped: its length minus [`MAX_STUBS`] is
/// the "and N more" count.
pub fn find_all_stubs(path: &str, text: &str) -> Vec<Stub> {
    find_all_stubs_and(path, text, |_| {})
}

/// [`find_all_stubs`], handing the syntax tree it parsed to `also` (when there is one), so
/// that another reading of the file needs no parse of its own (see [`super::survey`]).
pub(crate) fn find_all_stubs_and(path: &str, text: &str, also: impl FnOnce(Syntax)) -> Vec<Stub> {
    let mut found = Vec::new();
    match File::of_path(path, text) {
        Some(file) if file.lang.spec().stubs == Rules::Script => {
            script_tree::read(text, Dialect::of(path, text), |script| {
                also(Syntax::Script(script));
                script_stubs(&file, script, &mut found);
            });
        }
        Some(file) => {
            if let Some(tree) = file.parse() {
                also(Syntax::Tree(&tree));
                let root = tree.root_node();
                if !has_code(root, text) {
                    found.extend(no_code(path, text, || what_it_holds(root, text)));
                }
                file.scan(root, &mut found);
            }
        }
        None => {}
    }
    located(text, found)
}

/// Every stub [`find_all_stubs`] finds in a script, on a parse already made (see
/// [`crate::check::check_and_survey`]).
pub(crate) fn find_all_stubs_of_script(path: &str, text: &str, script: &Script) -> Vec<Stub> {
    let mut found = Vec::new();
    if let Some(file) = File::of_path(path, text) {
        script_stubs(&file, script, &mut found);
    }
    located(text, found)
}

/// The stubs of a script: no code, placeholder comments, stub bodies.
fn script_stubs(file: &File, script: &Script, found: &mut Vec<Found>) {
    if !script::holds_code(script.program) && script.whole {
        found.extend(no_code(file.path, file.text, || script::what_it_holds(file.text, script)));
    }
    script::scan(file, script, found);
}

/// The "no code" finding of a file that holds no code (`holds` says what it holds instead),
/// unless empty is its usual form.
fn no_code(path: &str, text: &str, holds: impl FnOnce() -> String) -> Option<Found> {
    if idiomatically_empty(path) {
        return None;
    }
    // At the first comment, or at the top of an empty file.
    let (at, message) = match text.len() - text.trim_start().len() {
        _ if text.trim().is_empty() => (0, "no code: the file is empty".to_owned()),
        first => (first, format!("no code: the file holds only {}", holds())),
    };
    Some(Found::new(at, StubKind::NoCode, message))
}

/// `found` in `text` as stubs: in text order, at most one per line.
fn located(text: &str, mut found: Vec<Found>) -> Vec<Stub> {
    if found.is_empty() {
        return Vec::new();
    }
    found.sort_by_key(|f| f.at);
    let index = LineIndex::new(text);
    let mut stubs: Vec<Stub> = found
        .into_iter()
        .map(|f| {
            let line = index.line_of(f.at);
            Stub {
                line,
                kind: f.kind,
                message: f.message,
                source: source_text(index.line(line)).trim().to_owned(),
                overridable: f.overridable,
                cell: None,
            }
        })
        .collect();
    stubs.dedup_by_key(|s| s.line);
    stubs
}

/// Whether `text`, as the file type of `path`, holds any code: None when the type is
/// not checked or the text cannot be parsed in time. Comments, whitespace, a module
/// docstring and a `"use strict"` directive are not code.
pub fn holds_code(path: &str, text: &str) -> Option<bool> {
    let file = File::of_path(path, text)?;
    if file.lang.spec().stubs == Rules::Script {
        // A text oxc's parser stops in holds something besides comments.
        let read =
            script_tree::read_if_whole(text, Dialect::of(path, text), |s| script::holds_code(s.program));
        return Some(read.unwrap_or(true));
    }
    let tree = file.parse()?;
    Some(has_code(tree.root_node(), text))
}

/// `__init__.py` marks a package; empty, or a license header only, is its usual form.
fn idiomatically_empty(path: &str) -> bool {
    path.rsplit(['/', '\\']).next().is_some_and(|name| name == "__init__.py")
}

/// A finding before it is located: a byte offset into the whole text.
struct Found {
    at: usize,
    kind: StubKind,
    message: String,
    overridable: Option<Overridable>,
}

impl Found {
    fn new(at: usize, kind: StubKind, message: impl Into<String>) -> Self {
        Found { at, kind, message: message.into(), overridable: None }
    }

    /// This finding, cleared if the project overrides `method` of `class` (see `overrides.rs`).
    fn overridable(mut self, class: Option<&str>, method: &str, script: bool) -> Self {
        self.overridable = class.filter(|c| !c.is_empty()).map(|class| Overridable {
            class: class.to_owned(),
            method: method.to_owned(),
            script,
        });
        self
    }
}

/// One text being scanned: a file, or a `<script>` or `<style>` inside a page.
struct File<'t> {
    /// The file's path, for its name (`.pyi`, `__init__.py`).
    path: &'t str,
    lang: Language,
    /// The text parsed: the whole file, or an embedded script.
    text: &'t str,
    /// Where `text` starts in the whole file.
    base: usize,
    deadline: Instant,
    /// Python: the classes defining each method name, by class node id, built the first
    /// time a rule asks (see `python.rs`) and reused for the rest of the scan.
    methods: OnceCell<HashMap<&'t str, Vec<usize>>>,
}

impl<'t> File<'t> {
    fn new(path: &'t str, lang: Language, text: &'t str, base: usize, deadline: Instant) -> Self {
        File { path, lang, text, base, deadline, methods: OnceCell::new() }
    }

    /// A whole file of a checked type, with the parse budget starting now; None for an
    /// unknown type, and for text the syntax check would not look at either (NUL bytes,
    /// over [`super::MAX_CHECK_BYTES`]).
    fn of_path(path: &'t str, text: &'t str) -> Option<Self> {
        let lang = language_for(path)?;
        let checkable = text.len() <= super::MAX_CHECK_BYTES && !text.contains('\0');
        checkable.then(|| File::new(path, lang, text, 0, Instant::now() + PARSE_BUDGET))
    }

    fn parse(&self) -> Option<tree_sitter::Tree> {
        if self.lang.spec().stubs == Rules::None {
            return None;
        }
        parse_until(self.lang, self.text, None, self.deadline)
    }

    /// Every placeholder and stub body of the text, parsed on its own: an inline `<script>`
    /// or `<style>` of a page.
    fn scan_alone(&self, found: &mut Vec<Found>) {
        if self.lang.spec().stubs == Rules::Script {
            // Where a `.js` file would be a module, so is an inline script.
            let dialect = Dialect::of("inline.js", self.text);
            script_tree::read(self.text, dialect, |script| script::scan(self, script, found));
        } else if let Some(tree) = self.parse() {
            self.scan(tree.root_node(), found);
        }
    }

    /// The text of a node.
    fn text_of(&self, node: Node) -> &'t str {
        self.text.get(node.byte_range()).unwrap_or_default()
    }

    /// A finding at `at`, an offset in `text`.
    fn found(&self, at: usize, kind: StubKind, message: impl Into<String>) -> Found {
        Found::new(self.base + at, kind, message)
    }

    /// Every placeholder and stub body under `root`.
    fn scan(&self, root: Node, found: &mut Vec<Found>) {
        let rules = self.lang.spec().stubs;
        let mut comments = Vec::new();
        preorder(root, |node| {
            if is_comment(node) {
                comments.push(node);
                return false;
            }
            match rules {
                Rules::Python => python::visit(self, node, found),
                Rules::Rust => rust::visit(self, node, found),
                Rules::Html => html::visit(self, node, found),
                // Scripts are read off oxc's tree (`scan_alone`).
                Rules::Script | Rules::Comments | Rules::None => {}
            }
            true
        });
        let spans: Vec<Range<usize>> = comments.iter().map(|c| c.byte_range()).collect();
        self.placeholder_comments(&spans, found);
    }

    /// Comments made only of placeholder words. Consecutive full-line comments are read
    /// as one text: "// The rest of the code" followed by "// assumes sorted input." is
    /// prose, not a placeholder. A text ends where the next comment starts a sentence
    /// (`// existing code here` above `// Reexport` is a placeholder) and at a block
    /// comment (`/* */`, `<!-- -->`), which is complete in itself.
    /// `comments`: where each comment of the text is, in text order.
    fn placeholder_comments(&self, comments: &[Range<usize>], found: &mut Vec<Found>) {
        let text = self.text;
        let views: Vec<CommentView> = comments.iter().map(|c| CommentView::of(c.clone(), text)).collect();
        let mut group_start = 0;
        for i in 0..views.len() {
            let continues = views.get(i + 1).is_some_and(|next| {
                let this = &views[i];
                let between = text.get(this.end..next.start).unwrap_or("x");
                this.own_line
                    && next.own_line
                    && this.to_line_end
                    && between.trim().is_empty()
                    && between.matches('\n').count() == 1
                    && !next.starts_a_sentence()
                    && !this.closes_itself()
                    && !next.closes_itself()
            });
            if continues {
                continue;
            }
            let group = &views[group_start..=i];
            group_start = i + 1;
            let whole = text.get(group[0].start..group[group.len() - 1].end).unwrap_or_default();
            let whole_stands_in = placeholder::stands_in(whole);
            for comment in group {
                if let Some(at) = comment.placeholder_at(group.len() == 1 || whole_stands_in) {
                    found.push(self.found(
                        at,
                        StubKind::PlaceholderComment,
                        "placeholder comment stands in for code",
                    ));
                }
            }
        }
    }
}

/// Where a comment sits, for the placeholder rules.
struct CommentView<'t> {
    start: usize,
    end: usize,
    body: &'t str,
    /// Nothing but whitespace before it on its line.
    own_line: bool,
    /// Nothing but whitespace after it on its line.
    to_line_end: bool,
}

impl<'t> CommentView<'t> {
    fn of(span: Range<usize>, text: &'t str) -> Self {
        let Range { start, end } = span;
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
        CommentView {
            start,
            end,
            body: text.get(start..end).unwrap_or_default(),
            own_line: text[line_start..start].trim().is_empty(),
            to_line_end: text[end..line_end].trim().is_empty(),
        }
    }

    /// Whether the comment is a block (`/* */`, `<!-- -->`), complete in itself.
    fn closes_itself(&self) -> bool {
        self.body.starts_with("/*") || self.body.starts_with("<!--")
    }

    /// Whether the comment's first word starts with a capital letter, as a new
    /// sentence does (its markers skipped).
    fn starts_a_sentence(&self) -> bool {
        self.body.chars().find(|c| c.is_alphanumeric()).is_some_and(char::is_uppercase)
    }

    /// Where to report this comment as a placeholder, if it is one. `in_context`: it
    /// stands alone, or the comments around it read as a placeholder too.
    fn placeholder_at(&self, in_context: bool) -> Option<usize> {
        let body = self.body;
        if !placeholder::stands_in(body) {
            return None;
        }
        let bare = placeholder::words(body).is_empty();
        let strong = placeholder::strong_placeholder(body);
        let alone = in_context || strong || placeholder::has_ellipsis(body) && !bare;
        // After code on its line a comment describes that code (`self // unchanged`),
        // and `items, // ...` says "and so on".
        let after_code = !self.own_line && (bare || !placeholder::has_ellipsis(body) && !strong);
        // Doc comments hold examples, where a placeholder is the point.
        let doc =
            ["///", "//!", "/**", "/*!"].iter().any(|m| body.starts_with(m)) && !body.starts_with("/**/");
        if !alone || after_code || doc {
            return None;
        }
        let first_word = body.find(|c: char| c.is_alphanumeric() || c == '.' || c == '…');
        Some(self.start + first_word.unwrap_or(0))
    }
}

/// Comment nodes of every grammar in the table: `comment`, `line_comment`,
/// `block_comment`, `html_comment`.
fn is_comment(node: Node) -> bool {
    node.kind().ends_with("comment")
}

/// Whether the tree holds code: a named leaf outside comments, other than a top-level
/// docstring or directive (a string that is a whole statement of the module).
fn has_code(root: Node, text: &str) -> bool {
    let mut cursor = root.walk();
    let top: Vec<Node> = root.named_children(&mut cursor).collect();
    top.into_iter().any(|node| !is_comment(node) && !is_lone_string(node) && holds_named_leaf(node, text))
}

/// What a file without code holds, for the message that says so: "comments", "a docstring
/// and comments", "`export {};`" (what TypeScript emits for a module of types only).
fn what_it_holds(root: Node, text: &str) -> String {
    let mut cursor = root.walk();
    let top: Vec<Node> = root.named_children(&mut cursor).collect();
    let mut parts: Vec<String> = Vec::new();
    let mut add = |part: String| {
        if !parts.contains(&part) {
            parts.push(part);
        }
    };
    for node in top {
        if is_comment(node) {
            add("comments".to_owned());
        } else if is_lone_string(node) {
            let string = text.get(node.byte_range()).unwrap_or_default();
            // Python's module is a `module`; a script's, a `program` with directives.
            add(if root.kind() == "module" || string.len() > 40 {
                "a docstring".to_owned()
            } else {
                format!("the directive `{}`", string.trim_end_matches(';'))
            });
        } else {
            let statement: String =
                text.get(node.byte_range()).unwrap_or_default().chars().take(60).collect();
            add(format!("`{}`", statement.trim()));
        }
    }
    match parts.len() {
        0 => "comments".to_owned(),
        _ => parts.join(" and "),
    }
}

/// `"""Docstring."""` or `"use strict";`: an expression statement that is one string, not
/// an f-string (`f"{x}"` computes its value: code).
fn is_lone_string(node: Node) -> bool {
    node.kind() == "expression_statement"
        && node.named_child_count() == 1
        && node
            .named_child(0)
            .is_some_and(|c| matches!(c.kind(), "string" | "concatenated_string") && !holds_interpolation(c))
}

/// Whether a string holds an interpolation (`{x}` of an f-string), at any depth.
fn holds_interpolation(string: Node) -> bool {
    let mut stack = vec![string];
    while let Some(n) = stack.pop() {
        if n.kind() == "interpolation" {
            return true;
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    false
}

/// Whether `node` is or contains a named leaf that is not in a comment. YAML's `---`
/// and an empty document are anonymous or childless, so they are not code.
fn holds_named_leaf(node: Node, text: &str) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if is_comment(n) {
            continue;
        }
        if n.child_count() == 0 {
            if n.is_named() && !text.get(n.byte_range()).unwrap_or_default().trim().is_empty() {
                return true;
            }
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    false
}

/// The comments directly inside `node` (its children), for rules about bodies.
fn child_comments<'a>(node: Node<'a>) -> Vec<Node<'a>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).filter(|c| is_comment(*c)).collect()
}

/// The named children of `node` that are not comments: a body's statements.
fn statements<'a>(node: Node<'a>) -> Vec<Node<'a>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).filter(|c| !is_comment(*c)).collect()
}

/// The words of every comment directly in `body` or in the function around it (a
/// grammar may attach a comment before the first statement to the function rather
/// than to its body), plus `extra` text.
fn comment_words(file: &File, body: Node, extra: &str) -> Vec<String> {
    let around = body.parent().map(child_comments).unwrap_or_default();
    let texts = child_comments(body).into_iter().chain(around).map(|c| file.text_of(c));
    words_of(extra, texts)
}

/// The placeholder words of `extra` and `comments`, read as one text.
fn words_of<'a>(extra: &str, comments: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut all = String::from(extra);
    for comment in comments {
        all.push(' ');
        all.push_str(comment);
    }
    placeholder::words(&all)
}

/// A body with no statements whose comments say the code goes here:
/// `function start() { // TODO: timer logic }`. Reported at its first comment.
fn comment_only_body(file: &File, body: Node, name: &str, found: &mut Vec<Found>) {
    let comments = child_comments(body);
    let Some(first) = comments.first() else { return };
    if statements(body).is_empty() {
        let words = comment_words(file, body, "");
        if let Some(stub) = comments_say_code_goes_here(file, first.start_byte(), name, &words) {
            found.push(stub);
        }
    }
}

/// The stub a body with no statements is when its comments' `words` say the code goes
/// here, reported at its first comment (`first`, an offset in the text scanned): any
/// parser's reading of [`comment_only_body`].
fn comments_say_code_goes_here(file: &File, first: usize, name: &str, words: &[String]) -> Option<Found> {
    (!placeholder::noop_like(name) && placeholder::says_code_goes_here(words)).then(|| {
        let message = format!("body of `{name}` is only a comment saying the code goes here");
        file.found(first, StubKind::StubBody, message)
    })
}

#[cfg(test)]
mod tests;
