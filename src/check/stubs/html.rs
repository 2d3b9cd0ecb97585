//! HTML pages, on tree-sitter-html's tree: an empty `<body>`, the scripts and
//! stylesheets a page links (the caller checks that they exist and hold code), and the
//! placeholders inside inline `<script>` and `<style>` elements, each scanned with its
//! own language's rules.

use tree_sitter::Node;

use super::super::html::{child_of_kind, runs_javascript, tag_name};
use super::super::languages::{LanguageName, language_named};
use super::{File, Found, StubKind, is_comment};

/// Check `node` if it is a `<body>`, a `<script>` or a `<style>`.
pub(super) fn visit(file: &File, node: Node, found: &mut Vec<Found>) {
    match node.kind() {
        "element" if tag_name(file.text, node).eq_ignore_ascii_case("body") && is_empty_body(node) => {
            found.push(file.found(node.start_byte(), StubKind::EmptyHtmlBody, "the <body> is empty"));
        }
        "script_element" if runs_javascript(file.text, node) => {
            embedded(file, node, LanguageName::JavaScript, found)
        }
        "style_element" => embedded(file, node, LanguageName::Css, found),
        _ => {}
    }
}

/// A closed `<body>` with nothing but comments in it (blank text makes no node). An
/// open one is only not written yet.
fn is_empty_body(body: Node) -> bool {
    let mut cursor = body.walk();
    let children: Vec<Node> = body.named_children(&mut cursor).collect();
    let closed = children.iter().any(|c| c.kind() == "end_tag");
    closed && children.iter().all(|c| matches!(c.kind(), "start_tag" | "end_tag") || is_comment(*c))
}

/// Scan the text of an inline `<script>` or `<style>` as `language`.
fn embedded(file: &File, element: Node, language: LanguageName, found: &mut Vec<Found>) {
    let (Some(lang), Some(raw)) = (language_named(language), child_of_kind(element, "raw_text")) else {
        return;
    };
    let inner = File::new(file.path, lang, file.text_of(raw), file.base + raw.start_byte(), file.deadline);
    inner.scan_alone(found);
}
