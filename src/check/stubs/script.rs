//! JavaScript and TypeScript stub bodies, on tree-sitter's JavaScript, TypeScript and
//! TSX trees.
//!
//! - A function or method whose only statement throws a not-implemented error
//!   (`throw new Error("Not implemented")`, `NotImplementedError`), unless it is in an
//!   `abstract` class, is a method put on a constructor's prototype
//!   (`Transform.prototype._transform = function () { throw ... }`: the pre-class way to
//!   declare a method for subclasses to override), or the message says subclasses provide it.
//! - A function or method with no statements whose comments say the code goes here
//!   (`// TODO: start the timer`).
//!
//! An empty body alone is not a stub: callbacks, no-op handlers and constructors are
//! empty by design, and an agent's stub says so in a comment or a throw.

use tree_sitter::Node;

use super::{File, Found, StubKind, comment_only_body, comment_words, placeholder, statements};

/// Function-like nodes of the JavaScript and TypeScript grammars.
const FUNCTIONS: &[&str] = &[
    "function_declaration",
    "function_expression",
    "function",
    "generator_function_declaration",
    "generator_function",
    "method_definition",
    "arrow_function",
];

/// Check `node` if it is a function with a block body.
pub(super) fn visit(file: &File, node: Node, found: &mut Vec<Found>) {
    if !FUNCTIONS.contains(&node.kind()) {
        return;
    }
    let Some(body) = node.child_by_field_name("body").filter(|b| b.kind() == "statement_block") else {
        return;
    };
    let name = function_name(file, node);
    if let [only] = statements(body)[..]
        && let Some(message) = not_implemented_throw(file, only)
    {
        let intended = placeholder::explains_no_op(&comment_words(file, body, ""));
        if !placeholder::says_abstract(message)
            && !in_abstract_class(node)
            && !on_a_prototype(file, node)
            && !intended
        {
            let what = format!("body of `{name}` only throws a not-implemented error");
            found.push(file.found(only.start_byte(), StubKind::StubBody, what));
        }
        return;
    }
    comment_only_body(file, body, &name, found);
}

/// The thrown error's constructor and message, when `stmt` is `throw new X("...")` (or
/// `throw X("...")`) and they say the code is not implemented.
fn not_implemented_throw<'t>(file: &File<'t>, stmt: Node<'_>) -> Option<&'t str> {
    if stmt.kind() != "throw_statement" {
        return None;
    }
    let thrown = stmt.named_child(0)?;
    let (callee, args) = match thrown.kind() {
        "new_expression" => {
            (thrown.child_by_field_name("constructor")?, thrown.child_by_field_name("arguments"))
        }
        "call_expression" => {
            (thrown.child_by_field_name("function")?, thrown.child_by_field_name("arguments"))
        }
        _ => return None,
    };
    let class = file.text_of(callee);
    let message = args.map(|a| file.text_of(a)).unwrap_or_default();
    let says = class.ends_with("NotImplementedError") || placeholder::says_not_implemented(message);
    says.then_some(message)
}

/// The name a function is known by: its own, the method's, or the variable or property
/// it is assigned to; `anonymous` otherwise.
fn function_name(file: &File, func: Node) -> String {
    if let Some(name) = func.child_by_field_name("name") {
        return file.text_of(name).to_owned();
    }
    let parent = func.parent();
    let assigned = parent.and_then(|p| match p.kind() {
        "variable_declarator" => p.child_by_field_name("name"),
        "assignment_expression" => p.child_by_field_name("left"),
        "pair" => p.child_by_field_name("key"),
        _ => None,
    });
    assigned.map_or_else(|| "anonymous".to_owned(), |n| file.text_of(n).to_owned())
}

/// Whether a function is assigned to a constructor's prototype (`Base.prototype.m = function`),
/// where a body that only throws marks the method subclasses must override, as Node's
/// `stream.Transform` does with `_transform`.
fn on_a_prototype(file: &File, func: Node) -> bool {
    func.parent()
        .filter(|p| p.kind() == "assignment_expression")
        .and_then(|p| p.child_by_field_name("left"))
        .is_some_and(|left| {
            left.kind() == "member_expression"
                && left.child_by_field_name("object").is_some_and(|o| {
                    o.kind() == "member_expression" && file.text_of(o).ends_with(".prototype")
                })
        })
}

/// Whether a method belongs to a TypeScript `abstract class`.
fn in_abstract_class(func: Node) -> bool {
    let mut node = func;
    while let Some(parent) = node.parent() {
        match parent.kind() {
            "abstract_class_declaration" => return true,
            "class_declaration" | "class" => return false,
            _ => node = parent,
        }
    }
    false
}
