//! JavaScript, TypeScript and pages: a free name of a script is undefined unless its
//! environment's globals, another classic script of a page that loads it, or an ambient
//! declaration of the project define it.

use super::super::Project;
use super::undefined;
use crate::check::names::page::PageNames;
use crate::check::names::script::ScriptNames;
use crate::check::refs::Unresolved;

impl Project<'_> {
    pub(in crate::check::refs::resolve) fn script_free_names(
        &self,
        _path: &str,
        names: &ScriptNames,
        out: &mut Vec<Unresolved>,
    ) {
        out.extend(names.free.iter().map(|n| undefined(&n.name, n.line, "is not defined")));
    }

    pub(in crate::check::refs::resolve) fn page_free_names(
        &self,
        _path: &str,
        names: &PageNames,
        out: &mut Vec<Unresolved>,
    ) {
        out.extend(names.free.iter().map(|n| undefined(&n.name, n.line, "is not defined")));
    }
}
