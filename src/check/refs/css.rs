//! CSS, on tree-sitter-css's tree: `@import` and `url()` of local files, which resolve
//! against the stylesheet's own directory.

use tree_sitter::Node;

use super::{Import, ImportKind, Refs, string_value};
use crate::lines::LineIndex;

/// Reads the `@import` and `url()` targets of `text` into `refs`.
pub(super) fn extract(text: &str, root: Node, index: &LineIndex, refs: &mut Refs) {
    let text_of = |n: Node| text.get(n.byte_range()).unwrap_or_default();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "at_rule"
            && node.child(0).is_some_and(|k| text_of(k).eq_ignore_ascii_case("@font-face"))
        {
            font_face(text, node, index, refs);
            continue;
        }
        let target = match node.kind() {
            "import_statement" => node.named_child(0).filter(|n| n.kind() == "string_value").map(|n| (n, n)),
            "call_expression" if node.child(0).is_some_and(|f| text_of(f).eq_ignore_ascii_case("url")) => {
                node.named_child(1).and_then(|args| args.named_child(0)).map(|arg| (node, arg))
            }
            _ => None,
        };
        if let Some((at, value)) = target
            && !node.has_error()
        {
            let written = match value.kind() {
                "string_value" => string_value(text, value),
                "plain_value" => Some(text_of(value)),
                _ => None,
            };
            if let Some(written) = written.and_then(local_path) {
                refs.imports.push(Import {
                    line: index.line_of(at.start_byte()),
                    written,
                    kind: ImportKind::Css,
                    names: Vec::new(),
                    optional: false,
                });
            }
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
}

/// The sources of an `@font-face` rule. Several are a fallback chain (`.eot` for old
/// Internet Explorer, `.woff2`, `.ttf`, `.svg`): a browser fetches the first format it takes,
/// so a missing one matters only when all are missing: with several, none is checked.
fn font_face(text: &str, rule: Node, index: &LineIndex, refs: &mut Refs) {
    let mut found = Refs::default();
    let mut cursor = rule.walk();
    for child in rule.named_children(&mut cursor).filter(|c| c.kind() == "block") {
        extract(text, child, index, &mut found);
    }
    if found.imports.len() > 1 {
        for import in &mut found.imports {
            import.optional = true;
        }
    }
    refs.imports.extend(found.imports);
}

/// The local file a stylesheet's `url()` or `@import` names, without `?query` or
/// `#fragment`; None for what is not a file beside it: remote and `data:` URLs, `#id`
/// (an SVG reference), site-absolute paths, `~package` (a bundler's), and values that a
/// preprocessor or a template fills in.
fn local_path(value: &str) -> Option<String> {
    let value = value.trim();
    if value.starts_with(['/', '#', '~']) || value.contains(['$', '@', '(', '{', '%']) {
        return None;
    }
    super::super::html::local_target(value)
}
