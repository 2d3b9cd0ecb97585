//! Python: the names a module uses that none of its scopes binds, by pyflakes' rules, on
//! Ruff's tree (the survey's tree is tree-sitter's, which knows no scopes).
//!
//! pyflakes' rules: module, class, function, lambda, comprehension and type-parameter
//! scopes; a class body is seen only by itself, its comprehensions and its type parameters;
//! a function sees every name its enclosing scopes bind, wherever they bind it; builtins;
//! `global` and `nonlocal` bind in the module; names used in the body of a `try` that
//! catches `NameError` are expected to be missing. Where pyflakes follows the order of a
//! module's statements (a name used at module level above its definition, after a `del`, or
//! after its `except ... as` block) this takes a name bound anywhere in a scope as bound: a
//! miss, never a false alarm.
//!
//! A module that writes its own namespace (`globals()[...] =`, `vars().update`, `exec` at
//! its level) or has a module `__getattr__` says nothing: its names cannot all be known. A
//! star import is kept for the judge, who knows whether its module is one of the project's.

use ruff_python_ast::Stmt;

use super::FreeName;
use crate::lines::LineIndex;

mod builtins;
mod notebook;
mod walk;

pub(crate) use notebook::{NotebookNames, read_notebook};

/// What a Python module says about names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PyNames {
    /// Names used that no scope binds and that are not builtins, first use each, in line
    /// order.
    pub(crate) free: Vec<FreeName>,
    /// Entries of a literal `__all__` that the module does not bind (as pyflakes: never in a
    /// package's `__init__.py`, whose `__all__` may name submodules, nor in a module with a
    /// star import).
    pub(crate) exports: Vec<FreeName>,
    /// `from m import *`, which may provide any free name.
    pub(crate) stars: Vec<StarImport>,
    /// Every name the module binds, in any scope, sorted: the candidates of a "did you mean".
    pub(crate) bound: Vec<String>,
}

/// `from .m import *`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StarImport {
    /// Leading dots.
    pub(crate) level: usize,
    /// The dotted module after them (empty for `from . import *`).
    pub(crate) module: String,
}

/// Text that writes a module's namespace: any name may then exist.
const NAMESPACE_WRITES: &[&str] = &[
    "globals()[",
    "globals().update",
    "globals().setdefault",
    "globals().__setitem__",
    "vars()[",
    "vars().update",
    "locals()[",
    "locals().update",
    "sys.modules[__name__]",
    // `enum.global_enum` and `Enum._convert_` put an enum's members among the module's names.
    "global_enum",
    "._convert_(",
];

/// The names of the Python module `text` at `path`; None when they cannot be known: a type
/// stub (whose names describe another module), a text Ruff does not parse, a module that
/// writes its own namespace or has a module `__getattr__`.
pub(crate) fn read(path: &str, text: &str) -> Option<PyNames> {
    if path.ends_with(".pyi") || NAMESPACE_WRITES.iter().any(|w| text.contains(w)) {
        return None;
    }
    let parsed = ruff_python_parser::parse_module(text).ok()?;
    let body = parsed.suite();
    if body.iter().any(is_module_getattr) {
        return None;
    }
    let scan = walk::Scan::of(body);
    if scan.open {
        return None;
    }
    let package = path.rsplit('/').next() == Some("__init__.py");
    let index = LineIndex::new(text);
    let mut free: Vec<FreeName> = Vec::new();
    for (name, at) in scan.free(package) {
        let line = index.line_of(at);
        match free.iter_mut().find(|f| f.name == name) {
            Some(first) => first.line = first.line.min(line),
            None => free.push(FreeName { name: name.to_owned(), line }),
        }
    }
    free.sort_by_key(|f| f.line);
    // pyflakes checks `__all__` only where no star import may provide its names.
    let exports = match (&scan.exports, package || !scan.stars.is_empty()) {
        (Some(entries), false) => {
            let mut seen = std::collections::HashSet::new();
            entries
                .iter()
                .filter(|(name, _)| !scan.module_binds(name) && !builtins::is_builtin(name))
                .filter(|(name, _)| seen.insert(*name))
                .map(|(name, at)| FreeName { name: (*name).to_owned(), line: index.line_of(*at) })
                .collect()
        }
        _ => Vec::new(),
    };
    let mut bound: Vec<String> = scan.all_bound().map(str::to_owned).collect();
    bound.sort();
    bound.dedup();
    let stars = scan
        .stars
        .iter()
        .map(|(level, module, _)| StarImport { level: *level, module: (*module).to_owned() })
        .collect();
    Some(PyNames { free, exports, stars, bound })
}

/// `def __getattr__(name)` at a module's level (PEP 562), under `if` or `try` too.
fn is_module_getattr(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::FunctionDef(def) => def.name.as_str() == "__getattr__",
        Stmt::If(s) => {
            s.body.iter().any(is_module_getattr)
                || s.elif_else_clauses.iter().any(|c| c.body.iter().any(is_module_getattr))
        }
        Stmt::Try(s) => {
            [&s.body, &s.orelse, &s.finalbody].iter().any(|b| b.iter().any(is_module_getattr))
                || s.handlers.iter().any(|ruff_python_ast::ExceptHandler::ExceptHandler(h)| {
                    h.body.iter().any(is_module_getattr)
                })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
