//! JavaScript and TypeScript, on tree-sitter's JavaScript, TypeScript and TSX trees: the
//! modules a file loads (`import`, `export ... from`, `require`, `import()`), the names it
//! imports from them, what it exports (ES modules and CommonJS), and the DOM ids it looks up.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::{Exports, Import, ImportKind, Lookup, Refs, string_value};
use crate::check::syntax::preorder;
use crate::lines::LineIndex;

/// Reads `text` (a whole file, or an inline script starting at `base` in the page that
/// `index` is of) into `refs`.
/// Whether `text` is a bundle of several modules, whose `require('./x')` calls name modules
/// inside it: named AMD modules (`define('app/util/extend', ...)`, as r.js writes them),
/// browserify's prelude, webpack's runtime.
pub(super) fn is_bundle(text: &str) -> bool {
    const MARKS: &[&str] = &[
        "define('",
        "define(\"",
        "\"function\"==typeof require&&require",
        "typeof require==\"function\"&&require",
        "__webpack_require__",
    ];
    MARKS.iter().any(|m| text.contains(m))
}

pub(super) fn extract(text: &str, root: Node, base: usize, index: &LineIndex, refs: &mut Refs) {
    let reader = Reader { text, base, index };
    let mut exports = Exports { known: true, ..Exports::default() };
    let (mut esm, mut cjs) = (false, false);
    preorder(root, |node| {
        match node.kind() {
            "import_statement" => {
                esm = true;
                reader.import_statement(node, refs);
            }
            "export_statement" => {
                esm = true;
                reader.export_statement(node, refs, &mut exports);
            }
            "call_expression" => reader.call(node, refs, &mut exports),
            "identifier" if reader.text_of(node) == "exports" => {
                cjs = true;
                reader.exports_use(node, &mut exports);
            }
            "member_expression" if reader.is_module_exports(node) => {
                cjs = true;
                reader.module_exports_use(node, &mut exports);
            }
            _ => {}
        }
        true
    });
    if esm && cjs {
        exports.known = false;
    }
    exports.module = esm;
    refs.exports = Some(exports);
}

struct Reader<'t, 'i> {
    text: &'t str,
    base: usize,
    index: &'i LineIndex<'i>,
}

impl<'t> Reader<'t, '_> {
    fn text_of(&self, node: Node) -> &'t str {
        self.text.get(node.byte_range()).unwrap_or_default()
    }

    fn line(&self, node: Node) -> usize {
        self.index.line_of(self.base + node.start_byte())
    }

    /// A module specifier: the text of a plain string literal.
    fn specifier(&self, node: Option<Node>) -> Option<String> {
        let node = node?;
        matches!(node.kind(), "string" | "template_string")
            .then(|| string_value(self.text, node))?
            .map(str::to_owned)
    }

    fn import(&self, at: Node, written: String, require: bool, names: Vec<(String, usize)>) -> Import {
        Import {
            line: self.line(at),
            written,
            kind: ImportKind::Script { require },
            names,
            optional: in_try_block(at),
        }
    }

    /// `import d, { a, b as c } from './x'`, `import * as ns from`, `import './x'`,
    /// TypeScript's `import x = require('./x')`.
    fn import_statement(&self, node: Node, refs: &mut Refs) {
        let (source, names) = match child_of_kind(node, "import_require_clause") {
            Some(clause) => (clause.child_by_field_name("source"), Vec::new()),
            None => (node.child_by_field_name("source"), self.imported_names(node)),
        };
        if let Some(written) = self.specifier(source) {
            refs.imports.push(self.import(node, written, false, names));
        }
    }

    /// The names an import statement takes from its module (`default` for a default
    /// import); none when part of it did not parse (Flow's `import type` in a `.js` file).
    fn imported_names(&self, node: Node) -> Vec<(String, usize)> {
        if child_of_kind(node, "ERROR").is_some() {
            return Vec::new();
        }
        let Some(clause) = child_of_kind(node, "import_clause") else { return Vec::new() };
        let mut names = Vec::new();
        let mut cursor = clause.walk();
        for part in clause.named_children(&mut cursor) {
            match part.kind() {
                "identifier" => names.push(("default".to_owned(), self.line(part))),
                "named_imports" => {
                    let mut inner = part.walk();
                    for spec in part.named_children(&mut inner).filter(|s| s.kind() == "import_specifier") {
                        if let Some(name) = spec.child_by_field_name("name") {
                            names.push((self.text_of(name).to_owned(), self.line(spec)));
                        }
                    }
                }
                _ => {}
            }
        }
        names
    }

    /// `export ... from`, `export { a }`, `export const a`, `export default`, `export =`.
    fn export_statement(&self, node: Node, refs: &mut Refs, exports: &mut Exports) {
        if child_of_kind(node, "ERROR").is_some() {
            exports.known = false;
        }
        let mut cursor = node.walk();
        let tokens: Vec<Node> = node.children(&mut cursor).collect();
        if tokens.iter().any(|t| !t.is_named() && t.kind() == "=") {
            // TypeScript's `export = value`: the module is that value.
            exports.known = false;
            return;
        }
        if tokens.iter().any(|t| !t.is_named() && t.kind() == "default") {
            exports.names.insert("default".to_owned());
        }
        let source = self.specifier(node.child_by_field_name("source"));
        let mut taken = Vec::new();
        if let Some(clause) = child_of_kind(node, "export_clause") {
            let mut inner = clause.walk();
            for spec in clause.named_children(&mut inner).filter(|s| s.kind() == "export_specifier") {
                let Some(name) = spec.child_by_field_name("name") else { continue };
                let exported = spec.child_by_field_name("alias").unwrap_or(name);
                exports.names.insert(self.text_of(exported).to_owned());
                taken.push((self.text_of(name).to_owned(), self.line(spec)));
            }
        }
        if let Some(namespace) = child_of_kind(node, "namespace_export") {
            if let Some(name) = namespace.named_child(0) {
                exports.names.insert(self.text_of(name).to_owned());
            }
        } else if let Some(spec) = &source
            && tokens.iter().any(|t| !t.is_named() && t.kind() == "*")
        {
            exports.stars.push(spec.clone());
        }
        if let Some(declaration) = node.child_by_field_name("declaration") {
            declared_names(self.text, declaration, &mut exports.names);
        }
        if let Some(written) = source {
            refs.imports.push(self.import(node, written, false, taken));
        }
    }

    /// `require('./x')`, `import('./x')`, `getElementById('x')`, `querySelector('#x')`,
    /// `Object.defineProperty(exports, 'x', ...)`.
    fn call(&self, node: Node, refs: &mut Refs, exports: &mut Exports) {
        let (Some(function), Some(args)) =
            (node.child_by_field_name("function"), node.child_by_field_name("arguments"))
        else {
            return;
        };
        let mut cursor = args.walk();
        let arguments: Vec<Node> =
            args.named_children(&mut cursor).filter(|a| a.kind() != "comment").collect();
        match function.kind() {
            "identifier" if self.text_of(function) == "require" && arguments.len() == 1 => {
                if let Some(written) = self.specifier(arguments.first().copied()) {
                    let names = self.destructured(node);
                    refs.imports.push(self.import(node, written, true, names));
                }
            }
            "import" => {
                if let Some(written) = self.specifier(arguments.first().copied()) {
                    refs.imports.push(self.import(node, written, false, Vec::new()));
                }
            }
            "member_expression" => {
                let property =
                    function.child_by_field_name("property").map(|p| self.text_of(p)).unwrap_or_default();
                let object =
                    function.child_by_field_name("object").map(|o| self.text_of(o)).unwrap_or_default();
                let first = arguments.first().and_then(|a| string_value(self.text, *a));
                match (object, property) {
                    ("Object", "defineProperty") => {
                        if arguments.first().is_some_and(|a| self.text_of(*a) == "exports")
                            && let Some(name) = arguments.get(1).and_then(|a| string_value(self.text, *a))
                        {
                            exports.names.insert(name.to_owned());
                        }
                    }
                    (_, "getElementById") if arguments.len() == 1 => {
                        if let Some(id) = first.filter(plain_id) {
                            self.lookup(node, id, refs);
                        }
                    }
                    (_, "querySelector") if arguments.len() == 1 => {
                        if let Some(id) = first.and_then(selector_id) {
                            self.lookup(node, id, refs);
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn lookup(&self, call: Node, id: &str, refs: &mut Refs) {
        if !self.guarded(call) {
            refs.lookups.push(Lookup { id: id.to_owned(), line: self.line(call) });
        }
    }

    /// Whether the code handles a lookup finding nothing: `?.` after it, the lookup as a
    /// condition (`if (document.getElementById('x'))`, `... && `), or the variable it is
    /// stored in tested later (`if (el)`, `if (!el) return`, `el?.`, `el && `).
    fn guarded(&self, call: Node) -> bool {
        if self.text[call.end_byte()..].trim_start().starts_with("?.") {
            return true;
        }
        let mut node = call;
        while let Some(parent) = node.parent() {
            match parent.kind() {
                "if_statement" | "while_statement" | "ternary_expression"
                    if parent.child_by_field_name("condition").is_some_and(|c| c.id() == node.id()) =>
                {
                    return true;
                }
                "binary_expression"
                | "unary_expression"
                | "parenthesized_expression"
                | "await_expression" => {
                    if parent.kind() != "parenthesized_expression" && parent.kind() != "await_expression" {
                        let op = parent
                            .child_by_field_name("operator")
                            .map(|o| self.text_of(o))
                            .unwrap_or_default();
                        if matches!(op, "&&" | "||" | "??" | "!" | "==" | "===" | "!=" | "!==") {
                            return true;
                        }
                    }
                }
                "variable_declarator" | "assignment_expression" => {
                    let name =
                        parent.child_by_field_name("name").or_else(|| parent.child_by_field_name("left"));
                    let scope = enclosing_scope(parent);
                    return name.is_some_and(|n| {
                        let rest = self.text.get(parent.end_byte()..scope.end_byte()).unwrap_or_default();
                        tested(rest, self.text_of(n))
                    });
                }
                _ => return false,
            }
            node = parent;
        }
        false
    }

    /// The names `const { a, b: c } = require('./x')` takes and calls.
    fn destructured(&self, call: Node) -> Vec<(String, usize)> {
        let Some(declarator) = call.parent().filter(|p| p.kind() == "variable_declarator") else {
            return Vec::new();
        };
        let Some(pattern) = declarator.child_by_field_name("name").filter(|p| p.kind() == "object_pattern")
        else {
            return Vec::new();
        };
        let mut names = Vec::new();
        let mut cursor = pattern.walk();
        for part in pattern.named_children(&mut cursor) {
            let key = match part.kind() {
                "shorthand_property_identifier_pattern" => Some(part),
                "pair_pattern" => {
                    part.child_by_field_name("key").filter(|k| k.kind() == "property_identifier")
                }
                "object_assignment_pattern" => part.child_by_field_name("left"),
                _ => None,
            };
            // A name that is not there is `undefined`, which the code survives unless it
            // calls it: only names called are checked.
            if let Some(key) = key.filter(|k| called(self.text, self.text_of(*k))) {
                names.push((self.text_of(key).to_owned(), self.line(part)));
            }
        }
        names
    }

    /// `module.exports`.
    fn is_module_exports(&self, node: Node) -> bool {
        node.child_by_field_name("object")
            .is_some_and(|o| o.kind() == "identifier" && self.text_of(o) == "module")
            && node.child_by_field_name("property").is_some_and(|p| self.text_of(p) == "exports")
    }

    /// `exports.a = ...` exports `a`; reading `exports.a` changes nothing; any other use of
    /// `exports` (passed to a function, indexed) makes the exports computed.
    fn exports_use(&self, node: Node, exports: &mut Exports) {
        let Some(parent) = node.parent() else { return };
        match parent.kind() {
            "member_expression"
                if parent.child_by_field_name("object").is_some_and(|o| o.id() == node.id()) =>
            {
                if assigned_to(parent)
                    && let Some(property) = parent.child_by_field_name("property")
                {
                    exports.names.insert(self.text_of(property).to_owned());
                }
            }
            // `Object.defineProperty(exports, 'a', ...)`, read in `call`.
            "arguments"
                if parent
                    .parent()
                    .is_some_and(|call| self.text_of(call).starts_with("Object.defineProperty")) => {}
            _ => exports.known = false,
        }
    }

    /// `module.exports = { a, b }` exports `a` and `b`; `module.exports.a = ` exports `a`;
    /// `module.exports = anything else` makes the exports computed.
    fn module_exports_use(&self, node: Node, exports: &mut Exports) {
        let Some(parent) = node.parent() else { return };
        match parent.kind() {
            "assignment_expression"
                if parent.child_by_field_name("left").is_some_and(|l| l.id() == node.id()) =>
            {
                match parent.child_by_field_name("right").filter(|r| r.kind() == "object") {
                    Some(object) => self.object_keys(object, exports),
                    None => exports.known = false,
                }
            }
            "member_expression"
                if parent.child_by_field_name("object").is_some_and(|o| o.id() == node.id()) =>
            {
                if assigned_to(parent)
                    && let Some(property) = parent.child_by_field_name("property")
                {
                    exports.names.insert(self.text_of(property).to_owned());
                }
            }
            _ => exports.known = false,
        }
    }

    /// The keys of an object literal assigned to `module.exports`.
    fn object_keys(&self, object: Node, exports: &mut Exports) {
        let mut cursor = object.walk();
        for part in object.named_children(&mut cursor) {
            let key = match part.kind() {
                "shorthand_property_identifier" => Some(part),
                "pair" | "method_definition" => {
                    part.child_by_field_name("key").or_else(|| part.child_by_field_name("name"))
                }
                "comment" => continue,
                _ => None,
            };
            match key {
                Some(k) if k.kind() == "string" => match string_value(self.text, k) {
                    Some(name) => {
                        exports.names.insert(name.to_owned());
                    }
                    None => exports.known = false,
                },
                Some(k)
                    if matches!(
                        k.kind(),
                        "property_identifier" | "shorthand_property_identifier" | "identifier"
                    ) =>
                {
                    exports.names.insert(self.text_of(k).to_owned());
                }
                _ => exports.known = false,
            }
        }
    }
}

/// The names a declaration after `export` declares.
fn declared_names(text: &str, declaration: Node, out: &mut BTreeSet<String>) {
    match declaration.kind() {
        "lexical_declaration" | "variable_declaration" => {
            let mut cursor = declaration.walk();
            for declarator in
                declaration.named_children(&mut cursor).filter(|d| d.kind() == "variable_declarator")
            {
                if let Some(pattern) = declarator.child_by_field_name("name") {
                    pattern_names(text, pattern, out);
                }
            }
        }
        "ambient_declaration" => {
            let mut cursor = declaration.walk();
            for inner in declaration.named_children(&mut cursor) {
                declared_names(text, inner, out);
            }
        }
        _ => {
            let name = declaration.child_by_field_name("name").or_else(|| {
                // `export import A = B.C` has no name field.
                (declaration.kind() == "import_alias").then(|| declaration.named_child(0)).flatten()
            });
            if let Some(name) = name {
                out.insert(text.get(name.byte_range()).unwrap_or_default().to_owned());
            }
        }
    }
}

/// The names a binding pattern binds: `a`, `{ a, b: [c] }`, `[d, ...e]`, `f = 1`.
fn pattern_names(text: &str, pattern: Node, out: &mut BTreeSet<String>) {
    match pattern.kind() {
        "identifier" | "shorthand_property_identifier_pattern" => {
            out.insert(text.get(pattern.byte_range()).unwrap_or_default().to_owned());
        }
        "pair_pattern" => {
            if let Some(value) = pattern.child_by_field_name("value") {
                pattern_names(text, value, out);
            }
        }
        "assignment_pattern" | "object_assignment_pattern" => {
            if let Some(left) = pattern.child_by_field_name("left") {
                pattern_names(text, left, out);
            }
        }
        _ => {
            let mut cursor = pattern.walk();
            for child in pattern.named_children(&mut cursor) {
                pattern_names(text, child, out);
            }
        }
    }
}

/// Whether a member expression is assigned to (`x.a = 1`).
fn assigned_to(member: Node) -> bool {
    member.parent().is_some_and(|p| {
        p.kind() == "assignment_expression"
            && p.child_by_field_name("left").is_some_and(|l| l.id() == member.id())
    })
}

/// Whether `node` sits in the block of a `try` (not its `catch` or `finally`).
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

/// The block or program a declaration's name is visible in.
fn enclosing_scope(node: Node) -> Node {
    let mut scope = node;
    while let Some(parent) = scope.parent() {
        scope = parent;
        if matches!(scope.kind(), "statement_block" | "program" | "class_body") {
            break;
        }
    }
    scope
}

/// Whether `rest` tests `name` for being there: `if (name)`, `!name`, `name?.`, `name &&`,
/// `name ||`, `name ==`, `name !=`, `name ??`.
fn tested(rest: &str, name: &str) -> bool {
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.') {
        return false;
    }
    let bytes = rest.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    memchr::memmem::find_iter(bytes, name.as_bytes()).any(|at| {
        let before = rest[..at].trim_end();
        let after = rest[at + name.len()..].trim_start();
        if at > 0 && word(bytes[at - 1]) || bytes.get(at + name.len()).is_some_and(|b| word(*b)) {
            return false;
        }
        let condition = (before.ends_with("if (") || before.ends_with("if(")) && after.starts_with(')');
        condition
            || before.ends_with('!') && !before.ends_with("!!")
            || ["?.", "&&", "||", "==", "!=", "??"].iter().any(|op| after.starts_with(op))
    })
}

/// Whether `text` calls `name` (`name(`, `new name`), not as a method of something else.
fn called(text: &str, name: &str) -> bool {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    memchr::memmem::find_iter(bytes, name.as_bytes()).any(|at| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = text[at + name.len()..].trim_start();
        !before.is_some_and(|b| word(b) || b == b'.')
            && !bytes.get(at + name.len()).is_some_and(|b| word(*b))
            && (after.starts_with('(') || text[..at].trim_end().ends_with("new"))
    })
}

/// An id `getElementById` is given, when it is a plain one.
fn plain_id(id: &&str) -> bool {
    !id.is_empty() && !id.contains(|c: char| c.is_whitespace() || c == '\\')
}

/// The id a `querySelector` selector requires: `#id` alone or before descendants,
/// classes or pseudo-classes (`#list li`, `#form.active`); None for any other selector or a
/// list (`#a, #b` needs only one of them).
fn selector_id(selector: &str) -> Option<&str> {
    let rest = selector.trim().strip_prefix('#')?;
    if selector.contains(',') {
        return None;
    }
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_')).unwrap_or(rest.len());
    let (id, after) = rest.split_at(end);
    let boundary = after.is_empty() || after.starts_with([' ', '>', '+', '~', '.', ':', '[']);
    (!id.is_empty() && boundary && !id.starts_with(|c: char| c.is_ascii_digit())).then_some(id)
}

fn child_of_kind<'a>(node: Node<'a>, kind: &str) -> Option<Node<'a>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).find(|c| c.kind() == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selector_requires_the_id_it_starts_with() {
        assert_eq!(selector_id("#start-btn"), Some("start-btn"));
        assert_eq!(selector_id("#list li"), Some("list"));
        assert_eq!(selector_id("#form.active"), Some("form"));
        assert_eq!(selector_id(".btn"), None);
        assert_eq!(selector_id("#a, #b"), None);
        assert_eq!(selector_id("div#x"), None);
    }

    #[test]
    fn a_variable_tested_later_guards_its_lookup() {
        assert!(tested(";\nif (btn) btn.onclick = f;", "btn"));
        assert!(tested(";\nif (!btn) return;", "btn"));
        assert!(tested(";\nbtn?.addEventListener('click', f);", "btn"));
        assert!(tested(";\nbtn && btn.focus();", "btn"));
        assert!(!tested(";\nbtn.addEventListener('click', f);", "btn"));
        assert!(!tested(";\nif (button) x();", "btn"));
    }
}
