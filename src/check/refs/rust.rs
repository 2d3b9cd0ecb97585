//! Rust, on tree-sitter-rust's tree: `mod name;` declarations, whose files must exist.
//!
//! Only declarations the compiler reads for every build: a module with `#[path]` names its
//! own file (not followed), one under `#[cfg(...)]` or `#[cfg_attr(...)]` (or in a file under
//! `#![cfg(...)]`) may not be built, and one inside a macro (`cfg_if!`) is a token tree, not
//! an item.

use tree_sitter::Node;

use super::{Import, ImportKind, Refs};
use crate::lines::LineIndex;

/// Reads the `mod name;` declarations of `text` into `refs`.
pub(super) fn extract(text: &str, root: Node, index: &LineIndex, refs: &mut Refs) {
    // `#![cfg(...)]` at the top: the whole file may not be built.
    let mut cursor = root.walk();
    let whole_file_conditional = root.named_children(&mut cursor).any(|n| {
        n.kind() == "inner_attribute_item"
            && text.get(n.byte_range()).is_some_and(|a| {
                let inner = a.trim_start_matches("#![").trim_start();
                inner.starts_with("cfg(") || inner.starts_with("cfg (")
            })
    });
    if !whole_file_conditional {
        items(text, root, &mut Vec::new(), index, refs);
    }
}

/// The declarations among the items of `list` (a file, or an inline module's body), inside
/// the inline modules `inline`.
fn items(text: &str, list: Node, inline: &mut Vec<String>, index: &LineIndex, refs: &mut Refs) {
    let text_of = |n: Node| text.get(n.byte_range()).unwrap_or_default();
    let mut cursor = list.walk();
    let children: Vec<Node> = list.named_children(&mut cursor).collect();
    for (i, item) in children.iter().enumerate() {
        if item.kind() != "mod_item" {
            continue;
        }
        // The attributes written just before the item.
        let conditional = children[..i]
            .iter()
            .rev()
            .take_while(|n| matches!(n.kind(), "attribute_item" | "line_comment" | "block_comment"))
            .filter(|n| n.kind() == "attribute_item")
            .any(|a| {
                let attribute = text_of(*a).trim_start_matches("#[").trim_start();
                ["path", "cfg", "cfg_attr"].iter().any(|w| {
                    attribute.strip_prefix(w).is_some_and(|rest| rest.trim_start().starts_with(['=', '(']))
                })
            });
        if conditional {
            continue;
        }
        let Some(name) = item.child_by_field_name("name") else { continue };
        let name = text_of(name).trim_start_matches("r#").to_owned();
        match item.child_by_field_name("body") {
            Some(body) => {
                // `#![path]` or `#![cfg]` inside the body: its children are not ours to judge.
                if text_of(body).contains("#![") {
                    continue;
                }
                inline.push(name);
                items(text, body, inline, index, refs);
                inline.pop();
            }
            None => refs.imports.push(Import {
                line: index.line_of(item.start_byte()),
                written: name,
                kind: ImportKind::RustMod { inline: inline.clone() },
                names: Vec::new(),
                optional: false,
            }),
        }
    }
}
