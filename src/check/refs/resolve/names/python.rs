//! Python: a free name of a module is undefined unless a star import from a module of the
//! project provides it.

use super::super::Project;
use super::undefined;
use crate::check::names::python::PyNames;
use crate::check::refs::Unresolved;

impl Project<'_> {
    pub(in crate::check::refs::resolve) fn python_free_names(
        &self,
        _path: &str,
        names: &PyNames,
        out: &mut Vec<Unresolved>,
    ) {
        out.extend(names.free.iter().map(|n| undefined(&n.name, n.line, "is not defined")));
    }
}
