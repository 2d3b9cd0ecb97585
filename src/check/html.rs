//! The HTML walk the readers share: tags, attributes and the local files a page links.
//!
//! The stub scan (`stubs/html.rs`), the references (`refs/html.rs`) and the names a page's
//! handlers call each read a page off tree-sitter-html's tree; what a tag, an attribute or a
//! local link is, is decided here once, so the three never disagree about a page.

use std::time::Instant;

use serde::Serialize;
use tree_sitter::Node;

use super::languages::{Language, LanguageName, language_named};
use crate::lines::LineIndex;

/// Time allowed for the parse of a page read only for its links.
const PARSE_BUDGET: std::time::Duration = std::time::Duration::from_secs(1);

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

/// Whether a `<script>` holds JavaScript: no `type`, or a JavaScript or module type
/// (not a template or JSON data block).
pub(crate) fn runs_javascript(text: &str, script: Node) -> bool {
    let Some(start) = child_of_kind(script, "start_tag") else { return false };
    match attributes(text, start).into_iter().find(|a| a.name.eq_ignore_ascii_case("type")) {
        None => true,
        Some(attr) => {
            let value = attr.text.trim().to_ascii_lowercase();
            value.is_empty()
                || value == "module"
                || value.ends_with("javascript")
                || value.ends_with("ecmascript")
        }
    }
}

/// The local scripts (`<script src>`) and stylesheets (`<link rel="stylesheet" href>`)
/// an HTML page links, in text order.
///
/// Remote and inline targets are skipped (`http:`, `https:`, any other scheme such as
/// `data:` or `mailto:`, `//host`, `#fragment`); tags inside `<!-- -->` do not count.
pub fn linked_assets(html: &str) -> Vec<Linked> {
    let Some(lang) = language_named(LanguageName::Html) else { return Vec::new() };
    let Some(tree) = parse(lang, html) else { return Vec::new() };
    let mut links: Vec<(usize, &'static str, String)> = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let tag = match node.kind() {
            "script_element" => child_of_kind(node, "start_tag"),
            "element" => child_of_kind(node, "start_tag").or_else(|| child_of_kind(node, "self_closing_tag")),
            "self_closing_tag" => Some(node),
            _ => None,
        };
        if let Some(tag) = tag {
            let name = tag_name_of_tag(html, tag);
            let attrs = attributes(html, tag);
            let get = |wanted: &str| attrs.iter().find(|a| a.name.eq_ignore_ascii_case(wanted));
            let link = if name.eq_ignore_ascii_case("script") {
                get("src").map(|a| ("src", a))
            } else if name.eq_ignore_ascii_case("link")
                && get("rel").is_some_and(|rel| {
                    rel.text.split_ascii_whitespace().any(|t| t.eq_ignore_ascii_case("stylesheet"))
                })
            {
                get("href").map(|a| ("href", a))
            } else {
                None
            };
            if let Some((attr, value)) = link
                && let Some(target) = local_target(value.text)
            {
                links.push((value.at, attr, target));
            }
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    links.sort_by_key(|l| l.0);
    let index = LineIndex::new(html);
    links.into_iter().map(|(at, attr, target)| Linked { line: index.line_of(at), attr, target }).collect()
}

fn parse(lang: Language, text: &str) -> Option<tree_sitter::Tree> {
    super::syntax::parse_until(lang, text, None, Instant::now() + PARSE_BUDGET)
}

/// The tag a node of the page opens with: an element's start tag (or self-closing tag), or a
/// self-closing tag standing alone; None for any other node. Every reader of a page walks its
/// tags through this, so they agree on which tags a page has.
pub(crate) fn tag_of(node: Node) -> Option<Node> {
    match node.kind() {
        "element" | "script_element" | "style_element" => {
            child_of_kind(node, "start_tag").or_else(|| child_of_kind(node, "self_closing_tag"))
        }
        "self_closing_tag" if node.parent().is_none_or(|p| p.kind() != "element") => Some(node),
        _ => None,
    }
}

/// The first child of `node` of `kind`.
pub(crate) fn child_of_kind<'a>(node: Node<'a>, kind: &str) -> Option<Node<'a>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).find(|c| c.kind() == kind)
}

/// The tag name of an element (`body`), from its start tag.
pub(crate) fn tag_name<'t>(text: &'t str, element: Node) -> &'t str {
    child_of_kind(element, "start_tag").map_or("", |tag| tag_name_of_tag(text, tag))
}

pub(crate) fn tag_name_of_tag<'t>(text: &'t str, tag: Node) -> &'t str {
    child_of_kind(tag, "tag_name").and_then(|n| text.get(n.byte_range())).unwrap_or_default()
}

/// One attribute of a start tag: its name, and its value with where the value starts
/// (for a bare attribute, an empty value where the attribute ends).
pub(crate) struct Attribute<'t> {
    pub(crate) name: &'t str,
    pub(crate) text: &'t str,
    pub(crate) at: usize,
}

/// The attributes of a start tag, as slices of `text`.
pub(crate) fn attributes<'t>(text: &'t str, tag: Node) -> Vec<Attribute<'t>> {
    let mut cursor = tag.walk();
    tag.named_children(&mut cursor)
        .filter(|a| a.kind() == "attribute")
        .filter_map(|attr| {
            let name = text.get(child_of_kind(attr, "attribute_name")?.byte_range())?;
            let value = child_of_kind(attr, "quoted_attribute_value")
                .and_then(|q| child_of_kind(q, "attribute_value"))
                .or_else(|| child_of_kind(attr, "attribute_value"));
            let range = value.map_or(attr.end_byte()..attr.end_byte(), |v| v.byte_range());
            Some(Attribute { name, text: text.get(range.clone())?, at: range.start })
        })
        .collect()
}

/// The local path a link's value names, without `?query` or `#fragment`; None for a
/// remote or inline target, and for a template expression (`{{ url_for('static', ...) }}`,
/// `{% static %}`, `<%= %>`, `${...}`), which the server fills in when it renders the page.
pub(crate) fn local_target(value: &str) -> Option<String> {
    let value = value.trim();
    if value.starts_with("//") || value.starts_with('#') || is_template(value) {
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

/// Whether `text` holds template syntax that a server or a build fills in: `{{ }}`,
/// `{% %}`, `<% %>`, `${ }`, `<? ?>`.
pub(crate) fn is_template(text: &str) -> bool {
    ["{{", "{%", "<%", "${", "<?"].iter().any(|open| text.contains(open))
}
