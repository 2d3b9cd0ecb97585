//! Names a file uses that nothing defines: the failure of a file written in parts where the
//! part that would have defined `startTimer` or `compute_total` never came. Every file parses,
//! holds no placeholder and imports what exists, and still fails on its first call.
//!
//! Like [`super::refs`], in two steps:
//! 1. **What a file says about names**, read off the tree the survey parsed: the names it uses
//!    that no scope of its own binds and no builtin of its language provides, each with the line
//!    of its first use, and what it offers other files (a classic script's globals, a Python
//!    module's star imports): `python.rs` (pyflakes' scope rules on Ruff's tree), `script.rs`
//!    (eslint `no-undef` on oxc's semantic analysis), `page.rs` (a page's inline scripts and
//!    event handlers).
//! 2. **Judged with the project's other files** (`refs/resolve/names.rs`), by `check_files`
//!    only: after a write, an append or an edit a later part may still define a name.
//!
//! As everywhere in the finish check, only what is certain is reported: a file whose names
//! cannot all be known (a star import from a module outside the project, a module
//! `__getattr__`, `eval`, `with` in sloppy code, a page that loads a script the check cannot
//! read) says nothing of the names it cannot know.

pub(crate) mod page;
pub(crate) mod python;
pub(crate) mod script;

/// One name a file uses and does not define.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FreeName {
    /// The name as written.
    pub(crate) name: String,
    /// 1-based line of its first use.
    pub(crate) line: usize,
}

/// What one file says about names, by language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Names {
    /// A Python module.
    Python(python::PyNames),
    /// A JavaScript or TypeScript file.
    Script(script::ScriptNames),
    /// An HTML page: its inline scripts and event handlers.
    Page(page::PageNames),
    /// A Jupyter notebook: its Python code cells in order.
    Notebook(python::NotebookNames),
}
