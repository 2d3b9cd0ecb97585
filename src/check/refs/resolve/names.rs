//! Names a file uses and nothing defines, judged with the project's other files (see
//! [`crate::check::names`]). Each language's rules are in their own file.

use super::Project;
use crate::check::names::Names;
use crate::check::refs::{RefKind, Refs, Unresolved};

mod python;
pub(super) mod script;

impl Project<'_> {
    /// The names `path` (whose survey is `refs`) uses that no file of the project defines.
    pub(super) fn names(&self, path: &str, refs: &Refs, out: &mut Vec<Unresolved>) {
        match &refs.names {
            Some(Names::Python(names)) => self.python_free_names(path, names, out),
            Some(Names::Script(names)) => self.script_free_names(path, names, out),
            Some(Names::Page(names)) => self.page_free_names(path, names, out),
            Some(Names::Notebook(names)) => self.notebook_free_names(path, names, out),
            None => {}
        }
    }
}

/// The report of `name`, used at `line` and defined nowhere.
pub(super) fn undefined(name: &str, line: usize, reason: impl Into<String>) -> Unresolved {
    Unresolved { line, kind: RefKind::Name, reference: name.to_owned(), reason: reason.into(), cell: None }
}
