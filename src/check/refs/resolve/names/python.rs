//! Python: a free name of a module is undefined unless a star import from a module of the
//! project provides it. A star import from anywhere else (an installed package, the standard
//! library, a module whose names cannot all be known) may provide any name: then the module
//! says nothing of its free names.

use std::collections::HashSet;

use super::super::python::{PYTHON_STDLIB, PyTarget};
use super::super::{Project, distance, split};
use super::undefined;
use crate::check::names::Names;
use crate::check::names::python::{NotebookNames, PyNames, StarImport};
use crate::check::refs::{RefKind, Unresolved};

/// How deep star imports of star imports are followed before the names are taken as
/// unknowable.
const MAX_STAR_DEPTH: usize = 4;

/// What the star imports of a module provide.
#[derive(Default)]
struct Provided {
    names: HashSet<String>,
    /// Packages imported by star: their submodules may be named by their `__all__`.
    packages: Vec<String>,
}

impl Project<'_> {
    pub(in crate::check::refs::resolve) fn python_free_names(
        &self,
        path: &str,
        names: &PyNames,
        out: &mut Vec<Unresolved>,
    ) {
        let mut seen = HashSet::from([path.to_owned()]);
        let Some(provided) = self.star_names(path, &names.stars, 0, &mut seen) else { return };
        // Importing a submodule binds its name in its package: in a package's `__init__.py`,
        // `from .runners import *` makes `runners` a name of the module.
        let (dir, file) = split(path);
        let package = (file == "__init__.py").then_some(dir);
        let defined = |name: &str| {
            provided.names.contains(name)
                || provided.packages.iter().any(|p| self.python_submodule(p, name))
                || package.is_some_and(|dir| self.python_submodule(dir, name))
        };
        let hint = |name: &str| {
            if PYTHON_STDLIB.contains(&name) {
                return format!(": `import {name}`?");
            }
            // Bound, but in a scope the use does not see (a class body from its methods).
            if names.bound.binary_search_by(|b| b.as_str().cmp(name)).is_ok() {
                return " in this scope".to_owned();
            }
            near_name(name, &names.bound).map(|n| format!("; did you mean `{n}`?")).unwrap_or_default()
        };
        for free in names.free.iter().filter(|n| !defined(&n.name)) {
            out.push(undefined(&free.name, free.line, format!("is not defined{}", hint(&free.name))));
        }
        for entry in names.exports.iter().filter(|n| !defined(&n.name)) {
            let reason = format!("is in `__all__` and not defined{}", hint(&entry.name));
            out.push(undefined(&entry.name, entry.line, reason));
        }
    }

    /// A notebook's names: those no cell defines (as for a module of its cells in order), at
    /// their cell, and those a cell uses before a later cell defines them (unless a star
    /// import may define them first).
    pub(in crate::check::refs::resolve) fn notebook_free_names(
        &self,
        path: &str,
        names: &NotebookNames,
        out: &mut Vec<Unresolved>,
    ) {
        let mut found = Vec::new();
        self.python_free_names(path, &names.whole, &mut found);
        for mut u in found {
            if let Some((cell, line)) = names.locate(u.line) {
                u.line = line;
                u.cell = Some(cell);
            }
            out.push(u);
        }
        if !names.whole.stars.is_empty() {
            return;
        }
        for early in &names.early {
            out.push(Unresolved {
                line: early.line,
                kind: RefKind::Name,
                reference: early.name.clone(),
                reason: format!(
                    "is used before any cell defines it: {} defines it later (cells run in order)",
                    early.bound_in
                ),
                cell: Some(early.cell.clone()),
            });
        }
    }

    /// The names the star imports `stars` of `path` provide; None when one of them may
    /// provide any name (not a module of the project, or one whose names are not all known).
    fn star_names(
        &self,
        path: &str,
        stars: &[StarImport],
        depth: usize,
        seen: &mut HashSet<String>,
    ) -> Option<Provided> {
        let mut provided = Provided::default();
        for star in stars {
            if depth >= MAX_STAR_DEPTH {
                return None;
            }
            let (file, package) = self.star_target(path, star)?;
            if !seen.insert(file.clone()) {
                // An import cycle: that module's names are being gathered already.
                continue;
            }
            let refs = self.survey(&file)?;
            let module = refs.module.as_ref().filter(|_| !refs.broken)?;
            let Some(Names::Python(names)) = &refs.names else { return None };
            if module.open && names.stars.is_empty() {
                return None;
            }
            provided.names.extend(module.names.iter().cloned());
            provided.packages.extend(package);
            let inner = self.star_names(&file, &names.stars, depth + 1, seen)?;
            provided.names.extend(inner.names);
            provided.packages.extend(inner.packages);
        }
        Some(provided)
    }

    /// The file (and package directory) `from m import *` in `path` loads, when it is one of
    /// the project's.
    fn star_target(&self, path: &str, star: &StarImport) -> Option<(String, Option<String>)> {
        let parts: Vec<&str> = star.module.split('.').filter(|p| !p.is_empty()).collect();
        let targets = if star.level > 0 {
            let mut base = split(path).0.to_owned();
            for _ in 1..star.level {
                if base.is_empty() {
                    return None;
                }
                base = split(&base).0.to_owned();
            }
            vec![self.resolve_python(&base, &parts)]
        } else {
            let top = parts.first()?;
            if PYTHON_STDLIB.contains(top) {
                return None;
            }
            self.import_roots(path)
                .iter()
                .filter(|root| self.local_top_level(root, top))
                .map(|root| self.resolve_python(root, &parts))
                .collect()
        };
        targets.into_iter().find_map(|target| match target {
            PyTarget::Module { file: Some(file), package, opaque: false } => Some((file, package)),
            _ => None,
        })
    }
}

/// The bound name `name` is likely a slip for: one or two edits away once case and `_` are
/// ignored (`compute_total` for `compute_totals`, `startTimer` for `start_timer`), for names
/// long enough that a near one means something; a dunder only for a dunder.
fn near_name<'b>(name: &str, bound: &'b [String]) -> Option<&'b str> {
    let fold = |s: &str| s.chars().filter(|c| *c != '_').flat_map(char::to_lowercase).collect::<String>();
    let wanted = fold(name);
    let length = wanted.chars().count();
    if length < 4 {
        return None;
    }
    let limit = (length / 5).clamp(1, 2);
    bound
        .iter()
        .filter(|b| *b != name && (!b.starts_with("__") || name.starts_with("__")))
        .map(|b| (distance(&wanted, &fold(b)), b.as_str()))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, b)| b)
}

#[cfg(test)]
mod tests {
    use super::near_name;

    #[test]
    fn a_near_name_is_a_likely_slip_and_a_short_or_far_one_is_not() {
        let bound: Vec<String> =
            ["compute_totals", "start_timer", "__long__", "i", "encode"].map(String::from).to_vec();
        assert_eq!(near_name("compute_total", &bound), Some("compute_totals"));
        assert_eq!(near_name("startTimer", &bound), Some("start_timer"));
        assert_eq!(near_name("long", &bound), None);
        assert_eq!(near_name("_ip", &bound), None);
        assert_eq!(near_name("unicode", &bound), None);
    }
}
