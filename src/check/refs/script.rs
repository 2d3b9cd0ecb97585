//! JavaScript and TypeScript, on oxc's tree (see `check::script_tree`): the modules a file
//! loads (`import`, `export ... from`, `require`, `import()`), the names it imports from
//! them, what it exports (ES modules and CommonJS), and the DOM ids it looks up.

use std::collections::BTreeSet;

use oxc_ast::AstKind;
use oxc_ast::ast::{
    Argument, BinaryOperator, BindingPattern, CallExpression, Declaration, ExportDefaultDeclarationKind,
    Expression, ImportDeclarationSpecifier, ModuleExportName, ObjectExpression, ObjectPropertyKind,
    PropertyKey, TSModuleReference, UnaryOperator,
};
use oxc_ast_visit::Visit;
use oxc_span::{GetSpan, Span};

use super::{Exports, Import, ImportKind, Lookup, Refs};
use crate::check::script_tree::{Ancestors, Script, literal, text_of, unquoted};
use crate::lines::LineIndex;

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

/// Reads `script` (of `text`: a whole file, or an inline script starting at `base` in the
/// page that `index` is of) into `refs`.
pub(super) fn extract(text: &str, script: &Script, base: usize, index: &LineIndex, refs: &mut Refs) {
    let mut reader = Reader {
        text,
        base,
        index,
        ancestors: Ancestors::default(),
        refs,
        exports: Exports { known: true, ..Exports::default() },
        esm: false,
        cjs: false,
    };
    reader.visit_program(script.program);
    let Reader { mut exports, esm, cjs, .. } = reader;
    if esm && cjs {
        exports.known = false;
    }
    exports.module = esm;
    refs.exports = Some(exports);
}

struct Reader<'t, 'i, 'r, 'a> {
    text: &'t str,
    base: usize,
    index: &'i LineIndex<'i>,
    ancestors: Ancestors<'a>,
    refs: &'r mut Refs,
    exports: Exports,
    /// ES module syntax seen (`import`, `export`).
    esm: bool,
    /// CommonJS exports seen (`exports`, `module.exports`).
    cjs: bool,
}

impl<'a> Visit<'a> for Reader<'_, '_, '_, 'a> {
    fn enter_node(&mut self, kind: AstKind<'a>) {
        self.ancestors.enter(kind);
        match kind {
            AstKind::ImportDeclaration(import) => {
                self.esm = true;
                let names = self.imported_names(import.specifiers.as_ref().map_or(&[][..], |s| &s[..]));
                let written = self.specifier_of(import.source.span);
                self.import(import.span, written, false, names);
            }
            AstKind::TSImportEqualsDeclaration(import) => {
                // `import x = require('./x')`.
                self.esm = true;
                if let TSModuleReference::ExternalModuleReference(module) = &import.module_reference {
                    let written = self.specifier_of(module.expression.span);
                    self.import(import.span, written, false, Vec::new());
                }
            }
            AstKind::ExportNamedDeclaration(export) => {
                // `export { a, b as c }`.
                self.esm = true;
                for spec in &export.specifiers {
                    self.exports.names.insert(self.name_of(&spec.exported).to_owned());
                }
            }
            AstKind::ExportFromDeclaration(export) => {
                // `export { a, b as c } from './x'`.
                self.esm = true;
                let mut taken = Vec::new();
                for spec in &export.specifiers {
                    self.exports.names.insert(self.name_of(&spec.exported).to_owned());
                    taken.push((self.name_of(&spec.local).to_owned(), self.line(spec.span)));
                }
                let written = self.specifier_of(export.source.span);
                self.import(export.span, written, false, taken);
            }
            AstKind::ExportDeclaration(export) => {
                // `export const a = 1`, `export function f() {}`.
                self.esm = true;
                declared_names(self.text, &export.declaration, &mut self.exports.names);
            }
            AstKind::ExportDefaultDeclaration(export) => {
                self.esm = true;
                self.exports.names.insert("default".to_owned());
                let id = match &export.declaration {
                    ExportDefaultDeclarationKind::FunctionDeclaration(f) => f.id.as_ref(),
                    ExportDefaultDeclarationKind::ClassDeclaration(c) => c.id.as_ref(),
                    ExportDefaultDeclarationKind::TSInterfaceDeclaration(i) => Some(&i.id),
                    _ => None,
                };
                if let Some(id) = id {
                    self.exports.names.insert(text_of(self.text, id.span).to_owned());
                }
            }
            AstKind::ExportAllDeclaration(export) => {
                self.esm = true;
                let written = self.specifier_of(export.source.span);
                match &export.exported {
                    Some(name) => {
                        self.exports.names.insert(self.name_of(name).to_owned());
                    }
                    None => self.exports.stars.extend(written.clone()),
                }
                self.import(export.span, written, false, Vec::new());
            }
            AstKind::TSExportAssignment(_) => {
                // `export = value`: the module is that value.
                self.esm = true;
                self.exports.known = false;
            }
            AstKind::TSNamespaceExportDeclaration(_) => self.esm = true,
            AstKind::CallExpression(call) => self.call(call),
            AstKind::ImportExpression(import) => {
                let written = literal(self.text, &import.source).map(str::to_owned);
                self.import(import.span, written, false, Vec::new());
            }
            AstKind::IdentifierReference(id) if id.name == "exports" => self.exports_use(id.span),
            AstKind::BindingIdentifier(id) if id.name == "exports" => self.exports_use(id.span),
            AstKind::StaticMemberExpression(member)
                if member.property.name == "exports"
                    && matches!(&member.object, Expression::Identifier(o) if o.name == "module") =>
            {
                self.cjs = true;
                self.module_exports_use(member.span);
            }
            _ => {}
        }
    }

    fn leave_node(&mut self, _kind: AstKind<'a>) {
        self.ancestors.leave();
    }
}

impl<'t> Reader<'t, '_, '_, '_> {
    fn line(&self, span: Span) -> usize {
        self.index.line_of(self.base + span.start as usize)
    }

    /// A module specifier: the value of a string literal, as written.
    fn specifier_of(&self, span: Span) -> Option<String> {
        unquoted(text_of(self.text, span)).map(str::to_owned)
    }

    /// A name in an import or export clause, as written.
    fn name_of(&self, name: &ModuleExportName) -> &'t str {
        text_of(self.text, name.span())
    }

    fn import(&mut self, at: Span, written: Option<String>, require: bool, names: Vec<(String, usize)>) {
        let Some(written) = written else { return };
        let import = Import {
            line: self.line(at),
            written,
            kind: ImportKind::Script { require },
            names,
            optional: self.in_try_block(),
        };
        self.refs.imports.push(import);
    }

    /// The names an import takes from its module (`default` for a default import).
    fn imported_names(&self, specifiers: &[ImportDeclarationSpecifier]) -> Vec<(String, usize)> {
        specifiers
            .iter()
            .filter_map(|spec| match spec {
                ImportDeclarationSpecifier::ImportDefaultSpecifier(d) => {
                    Some(("default".to_owned(), self.line(d.span)))
                }
                ImportDeclarationSpecifier::ImportSpecifier(s) => {
                    Some((self.name_of(&s.imported).to_owned(), self.line(s.span)))
                }
                ImportDeclarationSpecifier::ImportNamespaceSpecifier(_) => None,
            })
            .collect()
    }

    /// `require('./x')`, `getElementById('x')`, `querySelector('#x')`,
    /// `Object.defineProperty(exports, 'x', ...)`.
    fn call(&mut self, call: &CallExpression) {
        let arguments: Vec<Option<&Expression>> =
            call.arguments.iter().map(Argument::as_expression).collect();
        let first = arguments.first().copied().flatten();
        let first_value = first.and_then(|a| literal(self.text, a));
        match &call.callee {
            Expression::Identifier(callee) if callee.name == "require" && arguments.len() == 1 => {
                if let Some(written) = first_value {
                    let names = self.destructured(call.span);
                    self.import(call.span, Some(written.to_owned()), true, names);
                }
            }
            Expression::StaticMemberExpression(member) => {
                let object = text_of(self.text, member.object.span());
                match (object, member.property.name.as_str()) {
                    ("Object", "defineProperty") => {
                        if first.is_some_and(|a| text_of(self.text, a.span()) == "exports")
                            && let Some(name) =
                                arguments.get(1).copied().flatten().and_then(|a| literal(self.text, a))
                        {
                            self.exports.names.insert(name.to_owned());
                        }
                    }
                    (_, "getElementById") if arguments.len() == 1 => {
                        if let Some(id) = first_value.filter(plain_id) {
                            self.lookup(call.span, id);
                        }
                    }
                    (_, "querySelector") if arguments.len() == 1 => {
                        if let Some(id) = first_value.and_then(selector_id) {
                            self.lookup(call.span, id);
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn lookup(&mut self, call: Span, id: &str) {
        if !self.guarded(call) {
            let lookup = Lookup { id: id.to_owned(), line: self.line(call) };
            self.refs.lookups.push(lookup);
        }
    }

    /// Whether the code handles the lookup `call` (the node being visited) finding nothing:
    /// `?.` after it, the lookup as a condition (`if (document.getElementById('x'))`,
    /// `... && `), or the variable it is stored in tested later (`if (el)`, `if (!el)
    /// return`, `el?.`, `el && `).
    fn guarded(&self, call: Span) -> bool {
        if self.text[call.end as usize..].trim_start().starts_with("?.") {
            return true;
        }
        let mut node = call;
        for parent in self.ancestors.up().skip(1) {
            match parent {
                AstKind::IfStatement(s) if s.test.span() == node => return true,
                AstKind::WhileStatement(s) if s.test.span() == node => return true,
                AstKind::ConditionalExpression(e) if e.test.span() == node => return true,
                AstKind::LogicalExpression(_) => return true,
                AstKind::BinaryExpression(e)
                    if matches!(
                        e.operator,
                        BinaryOperator::Equality
                            | BinaryOperator::StrictEquality
                            | BinaryOperator::Inequality
                            | BinaryOperator::StrictInequality
                    ) =>
                {
                    return true;
                }
                AstKind::UnaryExpression(e) if e.operator == UnaryOperator::LogicalNot => return true,
                AstKind::BinaryExpression(_)
                | AstKind::UnaryExpression(_)
                | AstKind::ParenthesizedExpression(_)
                | AstKind::AwaitExpression(_)
                | AstKind::ChainExpression(_) => {}
                AstKind::VariableDeclarator(d) => return self.tested_after(d.span, d.id.span()),
                AstKind::AssignmentExpression(a) => return self.tested_after(a.span, a.left.span()),
                _ => return false,
            }
            node = parent.span();
        }
        false
    }

    /// Whether the variable at `name`, stored to by the statement part at `store`, is tested
    /// for being there in the rest of its scope.
    fn tested_after(&self, store: Span, name: Span) -> bool {
        let scope_end = self
            .ancestors
            .up()
            .find(|kind| {
                matches!(
                    kind,
                    AstKind::BlockStatement(_)
                        | AstKind::FunctionBody(_)
                        | AstKind::StaticBlock(_)
                        | AstKind::Program(_)
                        | AstKind::ClassBody(_)
                )
            })
            .map_or(self.text.len(), |scope| scope.span().end as usize);
        let rest = self.text.get(store.end as usize..scope_end).unwrap_or_default();
        tested(rest, text_of(self.text, name))
    }

    /// The names `const { a, b: c } = require('./x')` (the call at `call`) takes and calls.
    fn destructured(&self, call: Span) -> Vec<(String, usize)> {
        let Some(AstKind::VariableDeclarator(declarator)) = self.ancestors.parent() else {
            return Vec::new();
        };
        let (BindingPattern::ObjectPattern(pattern), Some(init)) = (&declarator.id, &declarator.init) else {
            return Vec::new();
        };
        if init.span() != call {
            return Vec::new();
        }
        let mut names = Vec::new();
        for property in &pattern.properties {
            let PropertyKey::StaticIdentifier(key) = &property.key else { continue };
            if property.computed {
                continue;
            }
            // A name that is not there is `undefined`, which the code survives unless it
            // calls it: only names called are checked.
            if called(self.text, &key.name) {
                names.push((key.name.to_string(), self.line(property.span)));
            }
        }
        names
    }

    /// Whether the node being visited sits in the block of a `try` (not its `catch` or
    /// `finally`).
    fn in_try_block(&self) -> bool {
        let mut child: Option<Span> = None;
        for kind in self.ancestors.up() {
            if let AstKind::TryStatement(t) = kind
                && child == Some(t.block.span)
            {
                return true;
            }
            child = Some(kind.span());
        }
        false
    }

    /// A use of `exports` (at `at`, the node being visited): `exports.a = ...` exports `a`;
    /// reading `exports.a` changes nothing; any other use (passed to a function, indexed,
    /// bound as a parameter) makes the exports computed. `{ exports }` names a property.
    fn exports_use(&mut self, at: Span) {
        let parents: Vec<AstKind> = self.ancestors.up().skip(1).take(2).collect();
        let mut up = parents.into_iter();
        let Some(parent) = up.next() else { return };
        match parent {
            AstKind::ObjectProperty(p) if p.shorthand => return,
            AstKind::BindingProperty(p) if p.shorthand => return,
            _ => {}
        }
        self.cjs = true;
        match parent {
            AstKind::StaticMemberExpression(member) if member.object.span() == at => {
                if let Some(AstKind::AssignmentExpression(a)) = up.next()
                    && a.left.span() == member.span
                {
                    self.exports.names.insert(member.property.name.to_string());
                }
            }
            // `Object.defineProperty(exports, 'a', ...)`, read in `call`.
            AstKind::CallExpression(call)
                if call.callee.span() != at
                    && text_of(self.text, call.span).starts_with("Object.defineProperty") => {}
            _ => self.exports.known = false,
        }
    }

    /// `module.exports = { a, b }` exports `a` and `b`; `module.exports.a = ` exports `a`;
    /// `module.exports = anything else` makes the exports computed.
    fn module_exports_use(&mut self, at: Span) {
        let parents: Vec<AstKind> = self.ancestors.up().skip(1).take(2).collect();
        let mut up = parents.into_iter();
        match up.next() {
            Some(AstKind::AssignmentExpression(a)) if a.left.span() == at => match &a.right {
                Expression::ObjectExpression(object) => self.object_keys(object),
                _ => self.exports.known = false,
            },
            Some(AstKind::StaticMemberExpression(member)) if member.object.span() == at => {
                if let Some(AstKind::AssignmentExpression(a)) = up.next()
                    && a.left.span() == member.span
                {
                    self.exports.names.insert(member.property.name.to_string());
                }
            }
            _ => self.exports.known = false,
        }
    }

    /// The keys of an object literal assigned to `module.exports`.
    fn object_keys(&mut self, object: &ObjectExpression) {
        for property in &object.properties {
            let ObjectPropertyKind::ObjectProperty(property) = property else {
                self.exports.known = false;
                continue;
            };
            let name = match &property.key {
                _ if property.computed => None,
                PropertyKey::StaticIdentifier(key) => Some(key.name.as_str()),
                PropertyKey::StringLiteral(_) => {
                    property.key.as_expression().and_then(|k| literal(self.text, k))
                }
                _ => None,
            };
            match name {
                Some(name) => {
                    self.exports.names.insert(name.to_owned());
                }
                None => self.exports.known = false,
            }
        }
    }
}

/// The names a declaration after `export` declares.
fn declared_names(text: &str, declaration: &Declaration, out: &mut BTreeSet<String>) {
    let mut name = |span: Span| {
        out.insert(text_of(text, span).to_owned());
    };
    match declaration {
        Declaration::VariableDeclaration(v) => {
            for declarator in &v.declarations {
                pattern_names(text, &declarator.id, out);
            }
        }
        Declaration::FunctionDeclaration(f) => f.id.iter().for_each(|id| name(id.span)),
        Declaration::ClassDeclaration(c) => c.id.iter().for_each(|id| name(id.span)),
        Declaration::TSTypeAliasDeclaration(d) => name(d.id.span),
        Declaration::TSInterfaceDeclaration(d) => name(d.id.span),
        Declaration::TSEnumDeclaration(d) => name(d.id.span),
        Declaration::TSNamespaceDeclaration(d) => name(d.id.span),
        Declaration::TSImportEqualsDeclaration(d) => name(d.id.span),
        Declaration::TSExternalModuleDeclaration(_) | Declaration::TSGlobalDeclaration(_) => {}
    }
}

/// The names a binding pattern binds: `a`, `{ a, b: [c] }`, `[d, ...e]`, `f = 1`.
fn pattern_names(text: &str, pattern: &BindingPattern, out: &mut BTreeSet<String>) {
    match pattern {
        BindingPattern::BindingIdentifier(id) => {
            out.insert(text_of(text, id.span).to_owned());
        }
        BindingPattern::ObjectPattern(object) => {
            for property in &object.properties {
                pattern_names(text, &property.value, out);
            }
            if let Some(rest) = &object.rest {
                pattern_names(text, &rest.argument, out);
            }
        }
        BindingPattern::ArrayPattern(array) => {
            for element in array.elements.iter().flatten() {
                pattern_names(text, element, out);
            }
            if let Some(rest) = &array.rest {
                pattern_names(text, &rest.argument, out);
            }
        }
        BindingPattern::AssignmentPattern(assignment) => pattern_names(text, &assignment.left, out),
    }
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
