//! Python, on tree-sitter-python's tree: the modules a file imports, the names it takes from
//! them, and the names it defines at its top level (for the files that import from it).
//!
//! Only the imports every run makes are checked: the module's own statements. One inside a
//! function runs only when it is called (often an optional dependency, or compatibility with
//! an old version), one under `if` (`if TYPE_CHECKING:`, a platform or version test) or `try`
//! only when its branch is taken.

use tree_sitter::Node;

use super::{Import, ImportKind, PyModule, Refs};
use crate::lines::LineIndex;

/// Reads `text` into `refs`: its imports, and its module-level names.
pub(super) fn extract(text: &str, root: Node, index: &LineIndex, refs: &mut Refs) {
    let text_of = |n: Node| text.get(n.byte_range()).unwrap_or_default();
    let mut module = PyModule {
        // Ways a module can make names no statement shows.
        // Ways a module can make names no statement shows: writing its own namespace.
        open: [
            "globals()[",
            "globals().update",
            "globals().setdefault",
            "vars()[",
            "vars().update",
            "sys.modules[__name__]",
        ]
        .iter()
        .any(|w| text.contains(w)),
        path_tricks: text.contains("sys.path") || text.contains("site.addsitedir"),
        finder: ["meta_path", "path_hooks", "__path__"].iter().any(|w| text.contains(w)),
        ..PyModule::default()
    };
    // (node, inside a function or class body, a statement of the module itself): carried
    // down rather than found by walking up, which costs tree-sitter a descent from the root
    // each time.
    let mut stack = vec![(root, false, false)];
    while let Some((node, nested, top)) = stack.pop() {
        let at_module_level = !nested;
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
                    if at_module_level {
                        // `import a.b` binds `a`; `import a.b as c` binds `c`.
                        let bound =
                            alias.map_or_else(|| written.split('.').next().unwrap_or_default(), text_of);
                        module.bind(bound);
                    }
                    if top {
                        refs.imports.push(Import {
                            line: index.line_of(node.start_byte()),
                            written: written.to_owned(),
                            kind: ImportKind::Python { level: 0, from: false },
                            names: Vec::new(),
                            optional: false,
                        });
                    }
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
                    if at_module_level {
                        module.bind_imported(text_of(alias.unwrap_or(imported)), level, written);
                    }
                }
                if star && at_module_level {
                    module.open = true;
                }
                if top {
                    refs.imports.push(Import {
                        line: index.line_of(node.start_byte()),
                        written: written.to_owned(),
                        kind: ImportKind::Python { level, from: true },
                        names,
                        optional: false,
                    });
                }
                continue;
            }
            // A `global` statement in a function binds a module name too.
            "global_statement" => targets(text, node, &mut module),
            // `exec` of code at the module's level may define anything.
            "call" if top_level_exec(text, node, nested) => module.open = true,
            _ if at_module_level => define(text, node, &mut module),
            _ => {}
        }
        let inner = nested || matches!(node.kind(), "function_definition" | "class_definition" | "lambda");
        let statements_of_module = node.id() == root.id();
        let mut cursor = node.walk();
        let children: Vec<tree_sitter::Node> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev().map(|c| (c, inner, statements_of_module)));
    }
    refs.module = Some(module);
}

impl PyModule {
    /// `name` is bound at the module's level.
    fn bind(&mut self, name: &str) {
        self.imported_only.remove(name);
        self.names.insert(name.to_owned());
    }

    /// `name` is bound at the module's level by `from {level dots}{module} import`.
    fn bind_imported(&mut self, name: &str, level: usize, module: &str) {
        let source = (level, module.to_owned());
        if !self.names.contains(name) {
            self.imported_only.insert(name.to_owned(), vec![source]);
        } else if let Some(sources) = self.imported_only.get_mut(name) {
            sources.push(source);
        }
        self.names.insert(name.to_owned());
    }
}

/// Whether `call` is `exec(...)` outside any function or class.
fn top_level_exec(text: &str, call: Node, nested: bool) -> bool {
    !nested && call.child_by_field_name("function").is_some_and(|f| text.get(f.byte_range()) == Some("exec"))
}

/// The names a module-level statement binds: definitions, assignments, loop and `with`
/// targets.
fn define(text: &str, node: Node, module: &mut PyModule) {
    let text_of = |n: Node| text.get(n.byte_range()).unwrap_or_default();
    match node.kind() {
        "function_definition" | "class_definition" => {
            if let Some(name) = node.child_by_field_name("name") {
                let name = text_of(name);
                if name == "__getattr__" && node.kind() == "function_definition" {
                    module.open = true;
                }
                module.bind(name);
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
            module.bind(text.get(target.byte_range()).unwrap_or_default());
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

/// The children of `node` in field `field`.
fn named<'a>(node: Node<'a>, field: &str) -> Vec<Node<'a>> {
    let mut cursor = node.walk();
    node.children_by_field_name(field, &mut cursor).collect()
}

fn child_of_kind<'a>(node: Node<'a>, kind: &str) -> Option<Node<'a>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).find(|c| c.kind() == kind)
}
