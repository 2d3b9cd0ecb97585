//! A notebook's names: its Python code cells run in order, in one namespace. A name is
//! undefined when no cell binds it, and used too early when a cell's code that runs with
//! the cell (not a function body, which may run later) uses a name only a later cell binds.
//!
//! Conservative as the rest: a notebook that runs other code into its namespace (`%run`,
//! `%load`, `%store -r`, `%load_ext`, `%pylab`, `%%capture` into a name, `get_ipython()`)
//! says nothing of its names.

use std::collections::HashSet;

use super::{FreeName, PyNames, walk};
use crate::check::notebook::Masked;
use crate::check::report::CellAt;
use crate::lines::LineIndex;

/// Magics after which the notebook's names cannot all be known.
const UNKNOWABLE: &[&str] =
    &["run", "load", "store", "load_ext", "reload_ext", "pylab", "macro", "capture", "env"];

/// Names IPython defines in every notebook.
const IPYTHON_NAMES: &[&str] = &[
    "display",
    "get_ipython",
    "In",
    "Out",
    "_",
    "__",
    "___",
    "_i",
    "_ii",
    "_iii",
    "_ih",
    "_oh",
    "_dh",
    "exit",
    "quit",
];

/// What a notebook's code cells say about names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotebookNames {
    /// The cells read as one module, in order: free names are used and bound by no cell,
    /// at their line in the whole.
    pub(crate) whole: PyNames,
    /// The line of the whole where each cell starts, with the cell.
    pub(crate) cells: Vec<(usize, CellAt)>,
    /// Names a cell uses before a later cell binds them.
    pub(crate) early: Vec<EarlyUse>,
}

/// A name used in one cell and bound only in a later one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EarlyUse {
    pub(crate) name: String,
    /// Where it is first used: the cell, and the line in its source.
    pub(crate) cell: CellAt,
    pub(crate) line: usize,
    /// The first cell that binds it.
    pub(crate) bound_in: CellAt,
}

impl NotebookNames {
    /// The cell and the line in its source of `line` of the whole.
    pub(crate) fn locate(&self, line: usize) -> Option<(CellAt, usize)> {
        let (start, cell) = self.cells.iter().rev().find(|(start, _)| *start <= line)?;
        Some((cell.clone(), line - start + 1))
    }
}

fn is_ipython_name(name: &str) -> bool {
    IPYTHON_NAMES.contains(&name)
        || name
            .strip_prefix("_i")
            .or_else(|| name.strip_prefix('_'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The names of a notebook's code `cells` (masked, in order); None when they cannot be known.
pub(crate) fn read_notebook(cells: &[(CellAt, Masked)]) -> Option<NotebookNames> {
    let opaque = |m: &Masked| {
        m.magics.iter().any(|name| UNKNOWABLE.contains(&name.as_str())) || m.text.contains("get_ipython()")
    };
    if cells.iter().any(|(_, m)| opaque(m)) {
        return None;
    }
    let mut whole = String::new();
    let mut starts = Vec::with_capacity(cells.len());
    for (at, masked) in cells {
        starts.push((whole.matches('\n').count() + 1, at.clone()));
        whole.push_str(&masked.text);
        if !whole.ends_with('\n') {
            whole.push('\n');
        }
    }
    let mut names = super::read("notebook.py", &whole)?;
    names.free.retain(|f| !is_ipython_name(&f.name));
    names.exports.clear();
    // Each cell alone: what it binds at its level, and what its running code uses.
    let mut scans = Vec::with_capacity(cells.len());
    for (_, masked) in cells {
        let parsed = ruff_python_parser::parse_module(&masked.text).ok()?;
        let scan = walk::Scan::of(parsed.suite());
        let bound: HashSet<String> = scan.module_bound().map(str::to_owned).collect();
        let index = LineIndex::new(&masked.text);
        let mut used: Vec<FreeName> = Vec::new();
        for (name, at) in scan.free_now() {
            if !used.iter().any(|u| u.name == name) {
                used.push(FreeName { name: name.to_owned(), line: index.line_of(at) });
            }
        }
        scans.push((bound, used));
    }
    let mut early = Vec::new();
    let mut bound_before: HashSet<&str> = HashSet::new();
    for (k, (bound, used)) in scans.iter().enumerate() {
        for u in used.iter().filter(|u| !bound_before.contains(u.name.as_str()) && !is_ipython_name(&u.name))
        {
            let later = scans[k + 1..].iter().position(|(b, _)| b.contains(&u.name));
            if let Some(j) = later {
                early.push(EarlyUse {
                    name: u.name.clone(),
                    cell: cells[k].0.clone(),
                    line: u.line,
                    bound_in: cells[k + 1 + j].0.clone(),
                });
            }
        }
        bound_before.extend(bound.iter().map(String::as_str));
    }
    Some(NotebookNames { whole: names, cells: starts, early })
}
