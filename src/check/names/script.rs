//! JavaScript and TypeScript: the names a file uses that none of its scopes binds, by eslint's
//! `no-undef`, on oxc's semantic analysis of the tree the survey parsed; and what a classic
//! script puts in the global scope that a page's other scripts share.
//!
//! Read here, from the file alone: the references no scope binds (`typeof x` is not a use,
//! as eslint's default; a write to an undeclared name is an implicit global, not a use; a
//! type-only reference is never reported: the TypeScript libraries and `@types` packages
//! declare more types than anyone can list), less ECMAScript's globals, the browser's and
//! Node's (the union: a file's environment is the judge's, and the union never raises a
//! name eslint would not), and the names the file's own `/* global */` and `/* eslint-env */`
//! comments declare. The judge (`refs/resolve/names/script.rs`) then looks for each in the
//! project: the other scripts of the pages that load the file, the project's ambient
//! declarations.

use std::collections::{BTreeSet, HashMap, HashSet};

use javascript_globals::{GLOBALS, GlobalSet};
use oxc_ast::ast::{
    AssignmentExpression, AssignmentTarget, CallExpression, Class, Declaration, Expression, Function,
    IdentifierReference, Program, Statement, TSGlobalDeclaration, UnaryExpression, UnaryOperator,
    WithStatement,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{ScopeFlags, Scoping, SemanticBuilder};

use super::FreeName;
use crate::check::script_tree::{Script, literal};
use crate::lines::LineIndex;

/// What a script says about names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ScriptNames {
    /// Names read that no scope binds and that no environment the file may run in provides,
    /// first use each.
    pub(crate) free: Vec<FreeName>,
    /// A module, whose top-level names are its own: an ES module (`import`, `export`), or a
    /// CommonJS one (Node's `require`, `module.exports`, `exports.x`), which Node runs
    /// wrapped in a function. Only a classic script's top-level names are globals.
    pub(crate) module: bool,
    /// What it puts in the global scope other scripts share: a classic script's top-level
    /// declarations, and any script's `window.x =`, `globalThis.x =`, `self.x =`, top-level
    /// `this.x =`, implicit globals, `declare global` names.
    pub(crate) globals: BTreeSet<String>,
    /// Names its `/* global */` comments declare and it reads, first use each: what eslint
    /// takes on trust, checked only against the pages that load it, whose scripts are known.
    pub(crate) declared: Vec<FreeName>,
    /// Its globals cannot all be known: `eval`, a computed write to the global object, a
    /// minified or UMD bundle (which makes its globals through a factory).
    pub(crate) dynamic: bool,
}

/// The names a CommonJS module reads that Node's module wrapper binds.
const COMMONJS: &[&str] = &["require", "module", "exports"];

/// The environments whose globals a script may see wherever it runs (see the module doc).
const ANY_ENVIRONMENT: &[&str] =
    &["builtin", "browser", "node", "commonjs", "shared-node-browser", "worker", "serviceworker", "amd"];

/// Test frameworks' globals: a test file sees them.
pub(crate) const TEST_ENVIRONMENTS: &[&str] = &["jest", "mocha", "vitest", "jasmine", "qunit"];

/// The names of the script `text` (read as `script`); None when they cannot be known.
pub(crate) fn read(path: &str, text: &str, script: &Script) -> Option<ScriptNames> {
    let program: &Program = script.program;
    let semantic = SemanticBuilder::new().build(program).semantic;
    let scoping = semantic.scoping();
    let es_module = program.body.iter().any(|s| s.is_module_declaration())
        || program.source_type.is_module() && !program.source_type.is_typescript();
    // A file that tests for CommonJS with `typeof` (UMD, or a library for both the page and
    // Node) may run as a classic script: its top-level names are then globals.
    let commonjs = path.ends_with(".cjs")
        || scoping.root_unresolved_references().keys().any(|name| COMMONJS.contains(&name.as_ref()))
            && !COMMONJS.iter().any(|n| text.contains(&format!("typeof {n}")));
    let module = es_module || commonjs;
    let mut declared = Declared::of_comments(text, script);
    if is_test_path(path) {
        declared.environments.extend(TEST_ENVIRONMENTS.iter().filter_map(|e| GLOBALS.get(e)));
        declared.others.extend(OTHER_TEST_NAMES);
    }
    declared.others.extend(OTHER_RUNTIMES);
    let mut walker = Walker {
        text,
        scoping,
        depth: 0,
        with: 0,
        reads: HashMap::new(),
        written: HashSet::new(),
        guarded: HashSet::new(),
        in_with: HashSet::new(),
        globals: BTreeSet::new(),
        dynamic: false,
    };
    // The walk finds where a free name is first read and what is put on the global object;
    // a file with neither (most: every unbound name an environment's) is spared it.
    let root_unbound = scoping.root_unresolved_references();
    let candidate = root_unbound.keys().any(|name| !declared.covers(name));
    if candidate || mentions_global_object(text) {
        walker.visit_program(program);
    } else {
        for (name, ids) in root_unbound {
            if ids.iter().any(|id| scoping.get_reference(*id).flags().is_write_only()) {
                walker.written.insert(name.to_string());
            }
        }
    }
    let mut names =
        ScriptNames { module, dynamic: walker.dynamic || is_bundle(path, text), ..Default::default() };
    // A declarations file's top-level names count even in a module (`export {}`): lenient,
    // where TypeScript would keep them to the module.
    if !module || program.source_type.is_typescript_definition() {
        let root = scoping.root_scope_id();
        names.globals.extend(scoping.get_bindings(root).keys().map(|name| name.to_string()));
    }
    names.globals.extend(walker.globals);
    names.globals.extend(walker.written.iter().cloned());
    let (mut free, mut trusted): (Vec<Read>, Vec<Read>) = walker
        .reads
        .into_iter()
        .filter(|(name, _)| {
            !walker.written.contains(name)
                && !walker.guarded.contains(name)
                && !walker.in_with.contains(name)
                && !declared.covers(name)
        })
        .partition(|(name, _)| !declared.names.contains(name));
    if !free.is_empty() || !trusted.is_empty() {
        let index = LineIndex::new(text);
        let lines = |mut names: Vec<Read>| {
            names.sort_by_key(|(_, at)| *at);
            names.into_iter().map(|(name, at)| FreeName { line: index.line_of(at as usize), name }).collect()
        };
        names.free = lines(std::mem::take(&mut free));
        names.declared = lines(std::mem::take(&mut trusted));
    }
    // `/// <reference types="tree-sitter-cli/dsl" />`: a package declares globals the files
    // do not show (a tree-sitter grammar's `seq` and `choice`), as an `@types` package does.
    if references_foreign_types(text) {
        names.free.clear();
        names.declared.clear();
    }
    Some(names)
}

/// Whether `text` has a triple-slash directive that takes types from a package other than
/// Node's (whose globals the environments hold).
fn references_foreign_types(text: &str) -> bool {
    memchr::memmem::find_iter(text.as_bytes(), b"/// <reference types=").any(|at| {
        let rest = &text[at + "/// <reference types=".len()..];
        let package = rest.trim_start_matches(['"', '\'']).split(['"', '\'']).next().unwrap_or_default();
        package != "node"
    })
}

/// The names an inline event handler's body (`pauseTimer()`, `return save(event)`) reads
/// that it does not bind and no environment provides, each once; None when it does not parse.
pub(crate) fn handler_free_names(body: &str) -> Option<Vec<String>> {
    use crate::check::parsers::javascript::Dialect;
    // A handler's body is a function's: CommonJS allows its `return`.
    crate::check::script_tree::read_if_whole(body, Dialect::CommonJs, |script| {
        let names = read("handler.js", body, script)?;
        Some(names.free.into_iter().map(|n| n.name).collect())
    })
    .flatten()
}

/// Whether `path` is a test file, which sees a test framework's globals.
pub(crate) fn is_test_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or_default();
    name.contains(".test.")
        || name.contains(".spec.")
        || name.contains("_test.")
        || name.contains("-test.")
        || name.starts_with("test")
        || lower.split('/').rev().skip(1).any(|d| {
            matches!(d, "test" | "tests" | "__tests__" | "spec" | "specs" | "__mocks__" | "e2e" | "cypress")
        })
}

/// Whether a script makes its globals in ways no reading of it shows: a minified file (long
/// lines) or a UMD wrapper, whose factory puts its result on whatever global it is given.
fn is_bundle(path: &str, text: &str) -> bool {
    if path.contains(".min.") || text.contains("define.amd") || loads_scripts(text) {
        return true;
    }
    let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
    text.len() > 4096 && text.len() / lines > 300
}

/// Whether `text` may write to the global object (`window.x =`, `globalThis.x =`, `self.x =`,
/// a top-level `this.x =`), call `eval` or declare globals: what only the walk finds.
fn mentions_global_object(text: &str) -> bool {
    text.starts_with("this.")
        || ["window", "global", "self.", "self[", "\nthis.", "eval"]
            .iter()
            .any(|t| memchr::memmem::find(text.as_bytes(), t.as_bytes()).is_some())
}

/// Whether a script adds scripts to its page (`createElement('script')`, `document.write`
/// of a `<script>`, jQuery's `getScript`): their globals are not known.
fn loads_scripts(text: &str) -> bool {
    ["createElement('script')", "createElement(\"script\")", "<script", "getScript("]
        .iter()
        .any(|t| memchr::memmem::find(text.as_bytes(), t.as_bytes()).is_some())
}

/// Names some runtime or test runner defines that no environment of `globals` lists: Deno's,
/// and Cypress' and Playwright's in a test file.
const OTHER_RUNTIMES: &[&str] = &["Deno", "Bun"];
const OTHER_TEST_NAMES: &[&str] = &["cy", "Cypress", "page", "browser", "context", "fixture"];

/// A name read, and where it is first read.
type Read = (String, u32);

/// What the environment and the file's comments declare.
struct Declared {
    /// The globals of the environments the file may run in, and those its `/* eslint-env */`
    /// comments name.
    environments: Vec<&'static GlobalSet>,
    /// Names its `/* global */` comments declare.
    names: HashSet<String>,
    /// Names other runtimes and test runners define.
    others: Vec<&'static str>,
}

impl Declared {
    fn of_comments(text: &str, script: &Script) -> Declared {
        let mut declared = Declared {
            environments: ANY_ENVIRONMENT.iter().filter_map(|e| GLOBALS.get(e)).collect(),
            names: HashSet::new(),
            others: Vec::new(),
        };
        for range in &script.comments {
            let Some(comment) = text.get(range.clone()) else { continue };
            let Some(body) = comment.strip_prefix("/*") else { continue };
            let body = body.strip_suffix("*/").unwrap_or(body).trim_start();
            let (word, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
            let items = rest.split([',', ' ', '\n', '\t', '\r']).filter(|s| !s.is_empty());
            match word {
                "global" | "globals" => {
                    declared.names.extend(items.map(|i| i.split(':').next().unwrap_or(i).to_owned()))
                }
                "eslint-env" => declared.environments.extend(items.filter_map(|e| GLOBALS.get(e))),
                _ => {}
            }
        }
        declared
    }

    /// Whether an environment provides `name` (a name a `/* global */` comment declares is
    /// kept apart, see [`ScriptNames::declared`]).
    fn covers(&self, name: &str) -> bool {
        name == "arguments"
            || self.others.contains(&name)
            || self.environments.iter().any(|set| set.contains_key(name))
    }
}

/// One walk over the tree, after semantic analysis has bound its references.
struct Walker<'t, 's> {
    text: &'t str,
    scoping: &'s Scoping,
    /// Functions and classes around the node: `this` is the global object only at depth 0.
    depth: usize,
    /// `with` bodies around the node: a name there may be the object's property.
    with: usize,
    /// Each unbound name read, with where it is first read.
    reads: HashMap<String, u32>,
    /// Unbound names written to (implicit globals, or a global another script declares).
    written: HashSet<String>,
    /// Names the file tests with `typeof x`: it knows they may be missing.
    guarded: HashSet<String>,
    /// Unbound names read in a `with` body.
    in_with: HashSet<String>,
    globals: BTreeSet<String>,
    dynamic: bool,
}

impl Walker<'_, '_> {
    /// The name of `expression` when it is an identifier no scope binds.
    fn unbound<'e>(&self, expression: &'e Expression) -> Option<&'e str> {
        match expression {
            Expression::Identifier(id) if self.is_unbound(id) => Some(id.name.as_str()),
            _ => None,
        }
    }

    fn is_unbound(&self, id: &IdentifierReference) -> bool {
        id.reference_id.get().is_some_and(|r| self.scoping.get_reference(r).symbol_id().is_none())
    }

    /// Whether `object` is the global object: `window`, `globalThis`, `self`, or `this` at the
    /// top level.
    fn is_global_object(&self, object: &Expression) -> bool {
        match object {
            Expression::ThisExpression(_) => self.depth == 0,
            // By name even where bound: `(function (window) { window.qs = ... })(window)`.
            Expression::Identifier(id) => matches!(id.name.as_str(), "window" | "globalThis" | "self"),
            _ => false,
        }
    }
}

impl<'a> Visit<'a> for Walker<'_, '_> {
    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        let Some(reference) = it.reference_id.get().map(|r| self.scoping.get_reference(r)) else { return };
        if reference.symbol_id().is_some() {
            return;
        }
        let flags = reference.flags();
        let name = it.name.as_str();
        if flags.is_write_only() {
            self.written.insert(name.to_owned());
        } else if flags.is_read() && !flags.is_type() && !flags.is_value_as_type() {
            if self.with > 0 {
                self.in_with.insert(name.to_owned());
            }
            self.reads.entry(name.to_owned()).or_insert(it.span.start);
        }
    }

    fn visit_unary_expression(&mut self, it: &UnaryExpression<'a>) {
        if it.operator == UnaryOperator::Typeof
            && let Some(name) = self.unbound(it.argument.without_parentheses())
        {
            self.guarded.insert(name.to_owned());
        }
        walk::walk_unary_expression(self, it);
    }

    fn visit_with_statement(&mut self, it: &WithStatement<'a>) {
        self.visit_expression(&it.object);
        self.with += 1;
        self.visit_statement(&it.body);
        self.with -= 1;
    }

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        self.depth += 1;
        walk::walk_function(self, it, flags);
        self.depth -= 1;
    }

    fn visit_class(&mut self, it: &Class<'a>) {
        self.depth += 1;
        walk::walk_class(self, it);
        self.depth -= 1;
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        match &it.left {
            AssignmentTarget::StaticMemberExpression(member) if self.is_global_object(&member.object) => {
                self.globals.insert(member.property.name.to_string());
            }
            AssignmentTarget::ComputedMemberExpression(member) if self.is_global_object(&member.object) => {
                match literal(self.text, &member.expression) {
                    Some(name) => {
                        self.globals.insert(name.to_owned());
                    }
                    None => self.dynamic = true,
                }
            }
            _ => {}
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if self.unbound(&it.callee) == Some("eval") {
            self.dynamic = true;
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_ts_global_declaration(&mut self, it: &TSGlobalDeclaration<'a>) {
        for statement in &it.body.body {
            declared_names(statement, &mut self.globals);
        }
        walk::walk_ts_global_declaration(self, it);
    }
}

/// The names a statement of a `declare global` block declares.
fn declared_names(statement: &Statement, out: &mut BTreeSet<String>) {
    let Some(declaration) = statement.as_declaration() else { return };
    match declaration {
        Declaration::VariableDeclaration(v) => {
            for d in &v.declarations {
                out.extend(d.id.get_binding_identifiers().iter().map(|b| b.name.to_string()));
            }
        }
        other => out.extend(other.id().map(|id| id.name.to_string())),
    }
}

#[cfg(test)]
#[path = "script_tests.rs"]
mod tests;
