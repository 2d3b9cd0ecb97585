//! References between the files of a project, and the ones that do not resolve: the
//! failure a syntax check cannot see, where every file parses and the page is still blank
//! (`index.html` loads `js/app.js` and the file is `js/main.js`; `app.js` looks up
//! `#start-btn` and the page says `id="startBtn"`; `from .timer import Timer` and
//! `timer.py` defines `PomodoroTimer`; `mod store;` and no `store.rs`).
//!
//! # Two steps
//! 1. **What a file refers to and what it offers**, read off the same tree the stub scan
//!    uses (one parse per file, see [`super::survey`]: oxc's for scripts, rust-analyzer's for
//!    a Rust text that parses, tree-sitter's otherwise): `script.rs` (JavaScript
//!    and TypeScript imports, requires, exports and DOM lookups), `python.rs` (imports and
//!    the names a module defines), `rust.rs` (`mod x;`), `css.rs` (`@import`, `url()`),
//!    `html.rs` (`src`, `href`, ids and inline scripts), `ids.rs` (ids a text creates).
//! 2. **Resolution** against the project's files (`resolve.rs`), through [`Files`], which
//!    the caller implements over its sandbox: each directory is listed at most once per
//!    check, and each other file read and surveyed at most once.
//!
//! # Only what is certain
//! `check_files` reports only at the finish check and only what is certain: a false alarm
//! on a project that works costs more than a miss. So a reference is not checked when
//! something outside the files may satisfy it: bare package names, computed paths, imports
//! inside `try` (optional ones), template expressions, site-absolute paths and extensionless
//! links (a server's routes decide), path aliases, `sys.path` changes, Python namespace
//! packages, Rust `#[path]` and `#[cfg]` modules, files a `.gitignore` or a build
//! configuration names (generated at build time), a name from a module whose exports are
//! computed. The README lists the rules.
//!
//! Pure: file access goes through [`Files`].

mod css;
mod html;
mod ids;
mod python;
mod resolve;
mod rust;
mod script;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::Serialize;

pub use resolve::{Entry, Files, Project};
pub(crate) use rust::Reading as RustReading;

use super::languages::{LanguageName, language_for};
use super::names::{self, Names};
use super::parsers::javascript::Dialect;
use super::script_tree;
use super::tree::Syntax;
use crate::lines::LineIndex;
use ids::IdSet;

/// At most this many unresolved references are listed per file: the first few show the
/// pattern, and a long list costs tokens for nothing.
pub const MAX_UNRESOLVED: usize = 10;

/// A reference that does not resolve, in the file that makes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Unresolved {
    /// 1-based line of the reference.
    pub line: usize,
    /// What is referred to.
    pub kind: RefKind,
    /// The reference as written: `./utils/format`, `Timer`, `#start-btn`, `mod store;`.
    pub reference: String,
    /// Why it does not resolve, naming what was looked for: "does not exist (web/js/app.js)",
    /// "is not defined in app/timer.py; did you mean `PomodoroTimer`?", "is on no page".
    pub reason: String,
    /// In a notebook, the cell of the reference: `line` is then within the cell's source.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "super::CellAt")]
    pub cell: Option<super::CellAt>,
}

impl Unresolved {
    /// `12 \`#start-btn\` is on no page`: the reference after its line, as the verdict shows
    /// it.
    pub fn summary(&self) -> String {
        match &self.cell {
            Some(cell) => format!("{cell}, line {}: `{}` {}", self.line, self.reference, self.reason),
            None => format!("{} `{}` {}", self.line, self.reference, self.reason),
        }
    }
}

/// What a reference names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RefKind {
    /// A file a page, stylesheet or script loads by its path (`src`, `href`, `@import`,
    /// `url()`).
    File,
    /// A module an import names (`./store`, `app.timer`, `mod store;`).
    Module,
    /// A name imported from a module of the project (`{ saveTasks }`, `Timer`), or used and
    /// defined nowhere (`startTimer()` that no script of the page defines).
    Name,
    /// A DOM id a page's script looks up (`getElementById`, `querySelector('#id')`).
    Id,
}

/// What one file refers to and what it offers to others.
#[derive(Debug, Clone, Default)]
pub struct Refs {
    /// Files and modules it loads.
    pub(crate) imports: Vec<Import>,
    /// JavaScript and TypeScript: what it exports.
    pub(crate) exports: Option<Exports>,
    /// Python: the names it defines at module level.
    pub(crate) module: Option<PyModule>,
    /// DOM ids its scripts look up.
    pub(crate) lookups: Vec<Lookup>,
    /// DOM ids it may create (scripts) or defines (pages).
    pub(crate) ids: IdSet,
    /// An HTML page: what it loads and how its paths resolve.
    pub(crate) page: Option<Page>,
    /// The tree had errors: what the file offers is not certain.
    pub(crate) broken: bool,
    /// The names it uses and defines (see [`super::names`]); None where they are not read.
    pub(crate) names: Option<Names>,
}

impl Refs {
    /// Whether the file refers to nothing: no file, module, id or name to look for.
    pub fn is_empty(&self) -> bool {
        self.imports.is_empty() && self.lookups.is_empty() && self.names.is_none()
    }
}

/// One file or module a file loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Import {
    pub(crate) line: usize,
    /// The path or module as written (Python: the dotted module without its leading dots).
    pub(crate) written: String,
    pub(crate) kind: ImportKind,
    /// Names imported from it (`default` for a default import), each with its line.
    pub(crate) names: Vec<(String, usize)>,
    /// Inside a `try`: an optional dependency, whose absence the code handles.
    pub(crate) optional: bool,
}

/// How an import is resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ImportKind {
    /// A JavaScript or TypeScript module specifier (`import`, `export ... from`,
    /// `require`, `import()`); `require`: a CommonJS require, whose names are destructured.
    Script { require: bool },
    /// A Python import: `level` leading dots (0 for an absolute import); `from`: a
    /// `from ... import` whose names may be submodules.
    Python { level: usize, from: bool },
    /// Rust `mod name;`, inside the inline modules `inline` (outermost first).
    RustMod {
        inline: Vec<String>,
        /// Declared under `#[cfg(...)]`: left out of some builds.
        cfg: bool,
    },
    /// A stylesheet's `@import` or `url()`.
    Css,
    /// An HTML page's `src` or `href`.
    Html(Tag),
}

/// What an HTML attribute loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tag {
    Script,
    Stylesheet,
    Image,
    Page,
}

/// What a JavaScript or TypeScript module exports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Exports {
    /// Names exported (`default` included).
    pub(crate) names: BTreeSet<String>,
    /// Specifiers of `export * from`, whose names it exports too.
    pub(crate) stars: Vec<String>,
    /// Every export is known: false for CommonJS exports that are computed
    /// (`module.exports = factory()`, `exports[name] =`), TypeScript's `export =`, and a
    /// file with both `export` and `module.exports`.
    pub(crate) known: bool,
    /// The file has ES module syntax (`import`, `export`): a default import needs an
    /// `export default`. Without it, a default import is its `module.exports`.
    pub(crate) module: bool,
}

/// The names a Python module defines at its top level.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PyModule {
    pub(crate) names: BTreeSet<String>,
    /// Any name may exist: a module `__getattr__`, a star import, writes to `globals()` or
    /// `vars()`, `sys.modules[__name__]`, `exec` at the module's level.
    pub(crate) open: bool,
    /// The module changes `sys.path`: its absolute imports may come from anywhere.
    pub(crate) path_tricks: bool,
    /// The module installs an import hook or changes its package's `__path__` (a vendoring
    /// package's `__init__.py` that maps `pkg.extern.x` to `pkg._vendor.x`): its submodules
    /// may be anywhere.
    pub(crate) finder: bool,
    /// Names bound at the module's level by `from ... import` only, with the (level, module)
    /// of each import binding them: `from . import views` in a package's `__init__.py` binds
    /// `views` by importing it, which does not make the package define it.
    pub(crate) imported_only: BTreeMap<String, Vec<(usize, String)>>,
}

/// A DOM id a script looks up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lookup {
    pub(crate) id: String,
    pub(crate) line: usize,
}

/// What an HTML page loads, and whether its paths are files at all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Page {
    /// Local `<script src>` values, as written (site-absolute ones included).
    pub(crate) scripts: Vec<String>,
    /// The page is a server template (template syntax, or a templates directory): its
    /// paths are URLs the server's routes decide, not files beside it.
    pub(crate) template: bool,
    /// A template's `{% extends %}`, `{% include %}`, `{% import %}` and `{% from ... import %}`
    /// names, as written; `None` for one that is computed (`{% include name %}`).
    pub(crate) includes: Vec<Option<String>>,
}

/// The references of `text`, parsed on its own (for files other than the one checked).
pub fn extract(path: &str, text: &str) -> Refs {
    let Some(lang) = language_for(path) else { return Refs::default() };
    if text.len() > super::MAX_CHECK_BYTES || text.contains('\0') {
        return Refs::default();
    }
    if is_script(lang.name()) {
        let dialect = Dialect::of(path, text);
        return script_tree::read(text, dialect, |script| of_syntax(path, text, Syntax::Script(script)));
    }
    match super::syntax::parse_until(lang, text, None, std::time::Instant::now() + PARSE_BUDGET) {
        Some(tree) => of_syntax(path, text, Syntax::Tree(&tree)),
        None => Refs::default(),
    }
}

/// Time allowed for the parse of a file read only for what it offers.
const PARSE_BUDGET: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether files of this language are read off oxc's tree.
fn is_script(name: LanguageName) -> bool {
    matches!(name, LanguageName::JavaScript | LanguageName::TypeScript | LanguageName::Tsx)
}

/// The references of `text`, read off its tree (the one the stub scan parsed).
pub(crate) fn of_syntax(path: &str, text: &str, syntax: Syntax) -> Refs {
    let Some(lang) = language_for(path) else { return Refs::default() };
    let index = LineIndex::new(text);
    let mut refs = Refs::default();
    let root = match syntax {
        Syntax::Script(script) => {
            refs.broken = !script.whole;
            if is_script(lang.name()) {
                script::extract(text, script, 0, &index, &mut refs);
                let require = |i: &Import| matches!(i.kind, ImportKind::Script { require: true });
                // A bundle's requires name the modules bundled in it, not files beside it (the
                // look for a bundle reads the whole text: only when there is a require).
                if refs.imports.iter().any(require) && script::is_bundle(text) {
                    refs.imports.retain(|i| !require(i));
                }
                refs.ids = ids::created_ids(text, true);
                if script.whole {
                    refs.names = names::script::read(path, text, script).map(Names::Script);
                }
            }
            return refs;
        }
        Syntax::Tree(tree) => tree.root_node(),
    };
    refs.broken = root.has_error();
    match lang.name() {
        LanguageName::Python => {
            python::extract(text, root, &index, &mut refs);
            if !refs.broken {
                refs.names = names::python::read(path, text).map(Names::Python);
            }
        }
        LanguageName::Rust => rust::extract(text, root, &index, &mut refs),
        LanguageName::Css => css::extract(text, root, &index, &mut refs),
        LanguageName::Html => {
            html::extract(path, text, root, &index, &mut refs);
            refs.names = names::page::read(path, text, root).map(Names::Page);
        }
        _ => {}
    }
    refs
}

/// The text of a string literal node of any grammar, without its quotes; None when it holds
/// an escape or a substitution (the value is then not what is written).
fn string_value<'t>(text: &'t str, node: tree_sitter::Node) -> Option<&'t str> {
    let raw = text.get(node.byte_range())?;
    let mut cursor = node.walk();
    let computed = node
        .named_children(&mut cursor)
        .any(|c| matches!(c.kind(), "escape_sequence" | "template_substitution" | "interpolation"));
    if computed {
        return None;
    }
    script_tree::unquoted(raw)
}
