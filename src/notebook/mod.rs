//! Jupyter notebooks (`.ipynb`), read and changed cell by cell.
//!
//! A notebook is JSON, so it cannot be appended to, and every source line sits escaped inside
//! a string: an agent that writes one in parts leaves invalid JSON until the last part lands.
//! Here a notebook is handled as what a person sees, a list of cells:
//! - `parse.rs`: the cells, their ids, types, sources and outputs, each with the span of its
//!   bytes in the file, so a change rewrites only the bytes it means to;
//! - `layout.rs`: how the file is spelled (indentation, separators, key order, `\u` escapes,
//!   sources as line lists), learned from the file and used for every byte we write, so a
//!   notebook Jupyter wrote stays diff-clean;
//! - `edit.rs`: insert, replace and delete cells, all or nothing, and a new notebook;
//! - `in_cells.rs`: `edit_file`'s replacements, each inside one cell's source;
//! - `schema.rs`: the nbformat 4 schema's rules;
//! - `view.rs`: the cells as `read_file` shows them.
//!
//! Pure: no file I/O and no MCP types. The session reads and writes the file.

mod edit;
mod in_cells;
mod layout;
mod parse;
mod schema;
mod view;

pub use edit::{Applied, CellEdit, EditAction, Kernel, Refused, apply, blank_notebook, edit_source};
pub use in_cells::edit_in_cells;
pub use layout::split_lines;
pub(crate) use parse::span_in;
pub use parse::{Cell, CellKind, Notebook, Output, parse};
pub use schema::{Violation, validate};
pub use view::{CellWindow, PartialCell, View, view};

/// Whether `path` names a notebook: its extension is `.ipynb` (any case).
pub fn is_notebook(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.len() > ".ipynb".len()
        && name.get(name.len() - 6..).is_some_and(|ext| ext.eq_ignore_ascii_case(".ipynb"))
}

/// Why a text is not a notebook this module can read or change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotNotebook {
    /// What is wrong, for a person: "not valid JSON: EOF while parsing a list at line 40".
    pub message: String,
    /// 1-based line of the problem in the file, where known.
    pub line: Option<usize>,
    /// The JSON ends before it is complete: a notebook cut off.
    pub truncated: bool,
}

impl std::fmt::Display for NotNotebook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notebook_is_named_by_its_extension_in_any_case() {
        assert!(is_notebook("a.ipynb"));
        assert!(is_notebook("dir/Analysis.IPYNB"));
        assert!(!is_notebook(".ipynb"));
        assert!(!is_notebook("a.ipynb.bak"));
        assert!(!is_notebook("a.py"));
    }
}
