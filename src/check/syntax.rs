//! Tree-sitter parsing under a deadline, and the problems a tree reports.

use std::ops::ControlFlow;
use std::time::Instant;

use tree_sitter::{Node, ParseOptions, Parser, Tree};

use super::DEFAULT_DEADLINE;
use super::languages::{Language, LanguageName};

/// Longest token quoted in an "unexpected `...`" message, in characters.
const MAX_TOKEN_CHARS: usize = 20;

/// A problem in byte offsets, before it is located for humans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    /// Where the problem starts; reported as its line:column.
    pub(crate) start: usize,
    /// Where it ends; decides whether it is "at the end of the text".
    pub(crate) end: usize,
    /// What is wrong.
    pub(crate) message: String,
    /// Where and how to say it when the text is only unfinished: "unexpected `d`" is
    /// misleading for `d = {` at the end of a prefix, "not finished: `d = {`" is not.
    pub(crate) unfinished: (usize, String),
}

impl Finding {
    /// A finding worded the same whether the text is broken or unfinished.
    pub(crate) fn plain(start: usize, end: usize, message: String) -> Self {
        Finding { start, end, unfinished: (start, message.clone()), message }
    }
}

/// Parse `text` as `lang`, reusing `old` (already `edit`ed to match `text`) when given.
///
/// Uses [`DEFAULT_DEADLINE`]; None when the parse ran past it. After an append,
/// `old.edit(..)` then `parse_tree(lang, new, Some(&old))` is ~10x faster than a fresh parse
/// of a large file (the tool path goes through `cache::CheckCache`).
pub fn parse_tree(lang: Language, text: &str, old: Option<&Tree>) -> Option<Tree> {
    parse_until(lang, text, old, Instant::now() + DEFAULT_DEADLINE)
}

/// Parse, giving up at `deadline`: random or pathological input can take seconds.
///
/// None on timeout (or if the grammar fails to load, which the table tests rule out).
pub(crate) fn parse_until(lang: Language, text: &str, old: Option<&Tree>, deadline: Instant) -> Option<Tree> {
    // Each thread keeps its parser, so that a check of many small files does not make one
    // for each.
    let mut parser = PARSER.with(|p| p.take()).unwrap_or_default();
    parser.set_language(&(lang.spec().grammar)()).ok()?;
    let ascii: Vec<u8>;
    let mut old = old;
    let bytes = if lang.spec().ascii_input && !text.is_ascii() {
        ascii = text.bytes().map(|b| if b.is_ascii() { b } else { b'x' }).collect();
        &ascii[..]
    } else if lang.name() == LanguageName::Css
        && let Some(masked) = masked_urls(text)
    {
        ascii = masked;
        // An append may close a `url(` the old text left open, changing bytes before the
        // edit: the old tree would not see that.
        old = None;
        &ascii[..]
    } else {
        text.as_bytes()
    };
    let mut input = |offset: usize, _| bytes.get(offset..).unwrap_or_default();
    let mut past_deadline = |_: &tree_sitter::ParseState| {
        if Instant::now() >= deadline { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    };
    let options = ParseOptions::new().progress_callback(&mut past_deadline);
    let tree = parser.parse_with_options(&mut input, old, Some(options));
    if tree.is_none() {
        // A cancelled parse is resumed by the next call on this parser unless reset.
        parser.reset();
    }
    PARSER.with(|p| p.set(Some(parser)));
    tree
}

thread_local! {
    /// The parser [`parse_until`] uses on this thread, between its calls.
    static PARSER: std::cell::Cell<Option<Parser>> = const { std::cell::Cell::new(None) };
}

/// Calls `visit` with every node under `root` (itself included) in text order, children
/// after their parent, and enters a node's children only when `visit` says so. One cursor
/// walks the whole tree: a cursor and a list of children per node cost as much as the parse
/// of a script (measured on `check_files`).
pub(crate) fn preorder<'t>(
    root: tree_sitter::Node<'t>,
    mut visit: impl FnMut(tree_sitter::Node<'t>) -> bool,
) {
    let mut cursor = root.walk();
    loop {
        if visit(cursor.node()) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Every ERROR and MISSING node of `tree` as findings (unsorted), plus "parser
/// stopped" when the root does not reach the end of the (whitespace-trimmed) text.
///
/// Only subtrees with `has_error()` are entered, so a clean 1 MB tree costs
/// microseconds. Findings inside an ERROR node take its end as theirs: tree-sitter
/// wraps a whole unfinished statement (`d = {` ... at EOF) in one ERROR, and the
/// pieces inside must not look mid-file.
pub(crate) fn findings(tree: &Tree, text: &str, lang: Language) -> Vec<Finding> {
    let lenient = lang.spec().text_without_markup_is_content;
    let root = tree.root_node();
    let mut found = Vec::new();
    // (node, end of the outermost enclosing ERROR). A stack, not recursion: trees of
    // deeply nested brackets are deep.
    let mut stack = vec![(root, None::<usize>)];
    let mut cursor = root.walk();
    while let Some((node, outer_end)) = stack.pop() {
        let end = outer_end.unwrap_or(0).max(node.end_byte());
        if node.is_missing() {
            let mut finding = describe_missing(node);
            finding.end = end;
            found.push(finding);
            continue;
        }
        if !node.has_error() {
            continue;
        }
        if lenient && node.is_error() && text_in_content(node, text) {
            continue;
        }
        let inherited = if node.is_error() {
            found.extend(describe_error(node, text, end));
            Some(end)
        } else {
            outer_end
        };
        for child in node.children(&mut cursor) {
            if child.has_error() {
                stack.push((child, inherited));
            }
        }
    }
    let trimmed_len = text.trim_end().len();
    if root.end_byte() < trimmed_len {
        found.push(Finding::plain(
            root.end_byte(),
            root.end_byte(),
            format!("parser stopped at line {}", root.end_position().row + 1),
        ));
    }
    found
}

/// A stylesheet with the inside of each unquoted `url(...)` replaced by `x`s, when it has
/// one. CSS reads such a URL as one token (`url(../img/bg.png)`, `url(#blur)`,
/// `url(font.woff?v=4)`); tree-sitter-css reads its `..`, `#` or `?` as errors in valid
/// CSS. Offsets are unchanged, so the tree's ranges still slice the real text.
fn masked_urls(text: &str) -> Option<Vec<u8>> {
    let ranges = unquoted_urls(text);
    if ranges.is_empty() {
        return None;
    }
    let mut bytes = text.as_bytes().to_vec();
    for range in ranges {
        for b in &mut bytes[range.start + 4..range.end - 1] {
            if !b.is_ascii_whitespace() {
                *b = b'x';
            }
        }
    }
    Some(bytes)
}

/// Where each unquoted `url(...)` of a stylesheet is, `url(` to `)`.
fn unquoted_urls(text: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut ranges = Vec::new();
    let lower = text.to_ascii_lowercase();
    for at in memchr::memmem::find_iter(lower.as_bytes(), b"url(") {
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'-' || bytes[at - 1] == b'_')
        {
            continue;
        }
        let open = at + 4;
        let rest = &text[open..];
        let Some(first) = rest.trim_start().chars().next() else { continue };
        if first == '"' || first == '\'' {
            continue;
        }
        // A URL token ends at `)`; whitespace, quotes or `(` inside make it a bad one.
        let Some(close) = rest.find(')') else { continue };
        let inner = rest[..close].trim();
        if inner.contains(|c: char| c.is_whitespace() || "\"'(".contains(c)) {
            continue;
        }
        ranges.push(at..open + close + 1);
    }
    ranges
}

/// An ERROR node that is only text in an element's content, for a grammar whose
/// table row says such text is content (HTML: only `<` starts markup).
fn text_in_content(node: Node, text: &str) -> bool {
    let in_content = node.parent().is_some_and(|p| matches!(p.kind(), "element" | "document"));
    in_content && text.get(node.start_byte()..node.end_byte()).is_some_and(|t| !t.contains('<'))
}

/// Where the text's content ends: the end of its last token that is neither an extra
/// (comment) nor empty. Problems ending at or after this point are "at the end".
///
/// When the parser stopped early the unparsed rest counts as content, so the stop is
/// mid-file.
pub(crate) fn content_end(tree: &Tree, text: &str) -> usize {
    let root = tree.root_node();
    let trimmed_len = text.trim_end().len();
    if root.end_byte() < trimmed_len {
        return trimmed_len;
    }
    // Depth-first from the right; a stack rather than recursion because trees of
    // deeply nested brackets are deep.
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        // ERROR nodes are extras too, but they are content, not comments.
        let comment = node.is_extra() && !node.is_error();
        if comment || node.start_byte() >= node.end_byte() {
            continue;
        }
        if node.child_count() == 0 {
            return node.end_byte();
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    0
}

/// " in argument list": the grammar rule the node sits in, when that says more than
/// "somewhere in the file".
fn context(node: Node) -> String {
    match node.parent() {
        Some(parent) if parent.parent().is_some() && !parent.is_error() => {
            format!(" in {}", human_kind(parent.kind()))
        }
        _ => String::new(),
    }
}

/// "missing `)` in argument list", "missing identifier".
fn describe_missing(node: Node) -> Finding {
    let what = if node.is_named() { human_kind(node.kind()) } else { format!("`{}`", node.kind()) };
    let message = format!("missing {what}{}", context(node));
    Finding::plain(node.start_byte(), node.end_byte(), message)
}

/// The tokens an ERROR node could not place, each as "unexpected `tok`", all ending
/// at `end`.
///
/// An ERROR node holds the complete subtrees the parser gave up on, interleaved with
/// the tokens it could not fit: in `foo(a))` that is (call) `)`. So the culprits are
/// its first direct token child and every direct token child right after a complete
/// subtree; tokens after a child that holds its own errors are left to that child,
/// which is usually the cause. When the text turns out to be unfinished, the first
/// culprit is reworded "not finished: `d = {...`" at the ERROR's start.
fn describe_error(node: Node, text: &str, end: usize) -> Vec<Finding> {
    let context = context(node);
    let mut found: Vec<Finding> = Vec::new();
    let mut after_subtree = true;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.child_count() > 0 {
            if child.has_error() {
                break;
            }
            after_subtree = true;
            continue;
        }
        let Some(token) = token_text(child, text) else {
            continue;
        };
        if after_subtree {
            found.push(Finding::plain(child.start_byte(), end, format!("unexpected `{token}`{context}")));
        }
        after_subtree = false;
    }
    if found.is_empty() && !node.children(&mut cursor).any(|c| c.has_error()) {
        let (start, message) = match first_token(node, text) {
            Some((at, token)) => (at, format!("unexpected `{token}`{context}")),
            None => (node.start_byte(), format!("unexpected text{context}")),
        };
        found.push(Finding::plain(start, end, message));
    }
    if let Some(first) = found.first_mut() {
        let head = token_text(node, text).unwrap_or_default();
        first.unfinished = (node.start_byte(), format!("not finished: `{head}`{context}"));
    }
    found
}

/// The first non-empty, non-comment token in `node`, depth first.
fn first_token(node: Node, text: &str) -> Option<(usize, String)> {
    let mut cursor = node.walk();
    loop {
        let current = cursor.node();
        if current.child_count() == 0 {
            if let Some(token) = token_text(current, text) {
                return Some((current.start_byte(), token));
            }
        } else if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

/// A token's text for a message: its first line, cut to [`MAX_TOKEN_CHARS`] (enough
/// to find the spot, short enough to read); None for comments and empty tokens.
fn token_text(token: Node, text: &str) -> Option<String> {
    if token.is_extra() && !token.is_error() {
        return None;
    }
    let full = text.get(token.start_byte()..token.end_byte())?;
    let line = full.trim().lines().next()?.trim_end();
    if line.is_empty() {
        return None;
    }
    let cut: String = line.chars().take(MAX_TOKEN_CHARS).collect();
    let more = full.trim().chars().nth(cut.chars().count()).is_some();
    Some(if more { format!("{cut}...") } else { cut })
}

/// `argument_list` -> `argument list`: grammar names read as words.
fn human_kind(kind: &str) -> String {
    kind.trim_start_matches('_').replace('_', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::language_for;

    fn python() -> Language {
        language_for("x.py").expect("python is in the table")
    }

    fn tree(text: &str) -> Tree {
        parse_tree(python(), text, None).expect("small parses finish in time")
    }

    #[test]
    fn clean_tree_has_no_findings() {
        let text = "def f(a):\n    return a\n";
        assert!(findings(&tree(text), text, python()).is_empty());
    }

    #[test]
    fn missing_token_is_named_by_its_kind() {
        let text = "def f(:\n    pass\n";
        let found = findings(&tree(text), text, python());
        assert!(found.iter().any(|f| f.message.starts_with("missing `)`")), "{found:?}");
    }

    #[test]
    fn content_end_ignores_trailing_comments_and_whitespace() {
        let text = "x = 1\n# done\n\n   # really\n";
        assert_eq!(content_end(&tree(text), text), "x = 1".len());
    }

    #[test]
    fn past_deadline_parse_gives_up() {
        let text = "x = [1, 2, 3]\n".repeat(20_000);
        assert!(parse_until(python(), &text, None, Instant::now()).is_none());
    }

    #[test]
    fn incremental_parse_after_append_matches_a_fresh_parse() {
        let first = "class A:\n    def f(self):\n        return [1,\n";
        let full = format!("{first}                2]\n\nprint(A().f())\n");
        let mut old = tree(first);
        let point = |s: &str| {
            let (row, column) = crate::lines::end_point(s);
            tree_sitter::Point { row, column }
        };
        old.edit(&tree_sitter::InputEdit {
            start_byte: first.len(),
            old_end_byte: first.len(),
            new_end_byte: full.len(),
            start_position: point(first),
            old_end_position: point(first),
            new_end_position: point(&full),
        });
        let incremental = parse_tree(python(), &full, Some(&old)).expect("finishes");
        assert_eq!(incremental.root_node().to_sexp(), tree(&full).root_node().to_sexp());
    }
}
