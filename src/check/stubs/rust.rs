//! Rust stubs, on tree-sitter-rust's tree.
//!
//! - `todo!()` anywhere in code: it exists to mark code not written yet.
//! - `unimplemented!()` with no message, or with one that says the code is still to
//!   come ("not yet implemented", "TODO"). With another message
//!   (`unimplemented!("not supported on this platform")`) it states a real limit.
//! - A function with no statements whose comments say the code goes here.
//!
//! Macro calls in comments, strings and doc examples are not macro invocations in the
//! tree, so they never count.

use tree_sitter::Node;

use super::{File, Found, StubKind, comment_only_body, placeholder};

/// Check `node` if it is a macro call or a function.
pub(super) fn visit(file: &File, node: Node, found: &mut Vec<Found>) {
    match node.kind() {
        "macro_invocation" => {
            let Some(name) = node.child_by_field_name("macro").map(|m| file.text_of(m)) else { return };
            let name = name.rsplit("::").next().unwrap_or(name);
            let args = node
                .named_child((node.named_child_count() as u32).saturating_sub(1))
                .map(|a| file.text_of(a));
            let args = args.unwrap_or_default().trim_matches(|c| "()[]{} \n\t".contains(c));
            let stub = match name {
                "todo" => true,
                "unimplemented" => args.is_empty() || placeholder::says_not_implemented(args),
                _ => false,
            };
            if stub {
                found.push(file.found(
                    node.start_byte(),
                    StubKind::StubBody,
                    format!("`{name}!()` stands in for code"),
                ));
            }
        }
        "function_item" => {
            let Some(body) = node.child_by_field_name("body") else { return };
            let name = node.child_by_field_name("name").map(|n| file.text_of(n)).unwrap_or("?");
            comment_only_body(file, body, name, found);
        }
        _ => {}
    }
}
