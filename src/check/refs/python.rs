//! Python, on tree-sitter-python's tree: the modules a file imports, the names it takes from
//! them, and the names it defines at its top level (for the files that import from it).

use tree_sitter::Node;

use super::{Import, ImportKind, PyModule, Refs};
use crate::lines::LineIndex;

/// Reads `text` into `refs`: its imports, and its module-level names.
pub(super) fn extract(text: &str, root: Node, index: &LineIndex, refs: &mut Refs) {
    let text_of = |n: Node| text.get(n.byte_range()).unwrap_or_default();
    let mut module = PyModule {
        // Ways a module can make names no statement shows.
        open: ["globals()", "sys.modules", "exec(", "setattr(", "vars()", "__dict__"]
            .iter()
            .any(|w| text.contains(w)),
        path_tricks: text.contains("sys.path") || text.contains("site.addsitedir"),
        ..PyModule::default()
    };
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "import_statement" => {
                for name in named(node, "name") {
                    let (dotted, alias) = match name.kind() {
                        "aliased_import" => {
                            (name.child_by_field_name("name"), name.child_by_field_name("alias"))
                        }
                        _ => (Some(name), None),
                    };
                    let Some(dotted) = dotted else { continue };
                    let written = text_of(dotted);
                    if at_module_level(node) {
                        // `import a.b` binds `a`; `import a.b as c` binds `c`.
                        let bound =
                            alias.map_or_else(|| written.split('.').next().unwrap_or_default(), text_of);
                        module.names.insert(bound.to_owned());
                    }
                    let written = written.to_owned();
                    refs.imports.push(Import {
                        line: index.line_of(node.start_byte()),
                        written,
                        kind: ImportKind::Python { level: 0, from: false },
                        names: Vec::new(),
                        optional: in_try_block(node),
                    });
                }
            }
            "import_from_statement" => {
                let Some(source) = node.child_by_field_name("module_name") else { continue };
                let (level, written) = match source.kind() {
                    "relative_import" => {
                        let level = child_of_kind(source, "import_prefix").map_or(0, |p| text_of(p).len());
                        (level, child_of_kind(source, "dotted_name").map_or("", text_of))
                    }
                    _ => (0, text_of(source)),
                };
                let star = child_of_kind(node, "wildcard_import").is_some();
                let mut names = Vec::new();
                for name in named(node, "name") {
                    let (imported, alias) = match name.kind() {
                        "aliased_import" => {
                            (name.child_by_field_name("name"), name.child_by_field_name("alias"))
                        }
                        _ => (Some(name), None),
                    };
                    let Some(imported) = imported else { continue };
                    names.push((text_of(imported).to_owned(), index.line_of(name.start_byte())));
                    if at_module_level(node) {
                        module.names.insert(text_of(alias.unwrap_or(imported)).to_owned());
                    }
                }
                if star && at_module_level(node) {
                    module.open = true;
                }
                refs.imports.push(Import {
                    line: index.line_of(node.start_byte()),
                    written: written.to_owned(),
                    kind: ImportKind::Python { level, from: true },
                    names,
                    optional: in_try_block(node),
                });
            }
            _ => {
                if at_module_level(node) {
                    define(text, node, &mut module);
                }
            }
        }
        // Into every node: imports inside functions run when they are called.
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    refs.module = Some(module);
}

/// The names a module-level statement binds: definitions, assignments, loop and `with`
/// targets, `global` declarations (inside functions too: they bind module names).
fn define(text: &str, node: Node, module: &mut PyModule) {
    let text_of = |n: Node| text.get(n.byte_range()).unwrap_or_default();
    match node.kind() {
        "function_definition" | "class_definition" => {
            if let Some(name) = node.child_by_field_name("name") {
                let name = text_of(name);
                if name == "__getattr__" && node.kind() == "function_definition" {
                    module.open = true;
                }
                module.names.insert(name.to_owned());
            }
        }
        "assignment" | "augmented_assignment" => {
            if let Some(left) = node.child_by_field_name("left") {
                targets(text, left, module);
            }
        }
        "for_statement" => {
            if let Some(left) = node.child_by_field_name("left") {
                targets(text, left, module);
            }
        }
        "as_pattern_target" | "named_expression" => {
            let target = node.child_by_field_name("name").or_else(|| node.named_child(0));
            if let Some(target) = target {
                targets(text, target, module);
            }
        }
        "global_statement" => targets(text, node, module),
        "type_alias_statement" => {
            if let Some(name) = node.named_child(0) {
                targets(text, name, module);
            }
        }
        _ => {}
    }
}

/// The identifiers an assignment target binds (`a`, `a, (b, c)`, `[d, *e]`); attributes
/// and subscripts bind nothing.
fn targets(text: &str, target: Node, module: &mut PyModule) {
    match target.kind() {
        "identifier" => {
            module.names.insert(text.get(target.byte_range()).unwrap_or_default().to_owned());
        }
        "attribute" | "subscript" => {}
        _ => {
            let mut cursor = target.walk();
            for child in target.named_children(&mut cursor) {
                targets(text, child, module);
            }
        }
    }
}

/// Whether `node` runs when the module is imported: not inside a function or class body
/// (a `global` statement inside a function binds a module name too).
fn at_module_level(node: Node) -> bool {
    let mut current = node;
    while let Some(parent) = current.parent() {
        if matches!(parent.kind(), "function_definition" | "class_definition" | "lambda") {
            return node.kind() == "global_statement";
        }
        current = parent;
    }
    true
}

/// Whether `node` sits in the block of a `try` (an optional import: the `except` handles
/// its absence).
fn in_try_block(node: Node) -> bool {
    let mut node = node;
    while let Some(parent) = node.parent() {
        if parent.kind() == "try_statement"
            && parent.child_by_field_name("body").is_some_and(|b| b.id() == node.id())
        {
            return true;
        }
        node = parent;
    }
    false
}

/// The children of `node` in field `field`.
fn named<'a>(node: Node<'a>, field: &str) -> Vec<Node<'a>> {
    let mut cursor = node.walk();
    node.children_by_field_name(field, &mut cursor).collect()
}

fn child_of_kind<'a>(node: Node<'a>, kind: &str) -> Option<Node<'a>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).find(|c| c.kind() == kind)
}
