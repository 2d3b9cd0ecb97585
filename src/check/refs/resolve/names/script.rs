//! JavaScript, TypeScript and pages: a free name of a script is undefined unless its
//! environment's globals, another classic script of a page that loads it, or an ambient
//! declaration of the project define it.
//!
//! - A classic script a page loads shares the page's global scope with the page's other
//!   scripts, before or after it (a function runs later, at event time): a name is defined
//!   when on every page that loads the script, one of the page's scripts puts it there.
//! - A script no page loads (a Node package's file, a bundled module, a TypeScript file) may
//!   still see what any classic script or ambient declaration of the project declares: a name
//!   is undefined only when none does.
//! - A page that loads a script the check cannot read (a remote URL, a missing file, a
//!   minified or UMD bundle, one that uses `eval`) or that a server renders (a template)
//!   says nothing of the names of its scripts and handlers.
//! - The environment beyond what [`crate::check::names::script`] already allows: the test
//!   frameworks a package depends on, jQuery's `$` where the package depends on it, a browser
//!   extension's `chrome`. A TypeScript file of a package with `@types` packages of other
//!   libraries says nothing: they declare globals (`google`, `gapi`) no file shows.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use javascript_globals::{GLOBALS, GlobalSet};

use super::super::script::{SCRIPTS, Script};
use super::super::{Project, ancestors, join_name, lock, split};
use super::undefined;
use crate::check::html::local_target;
use crate::check::names::page::PageNames;
use crate::check::names::script::{ScriptNames, TEST_ENVIRONMENTS, is_test_path};
use crate::check::names::{FreeName, Names};
use crate::check::refs::{ImportKind, Unresolved};

/// `@types` packages whose globals the environments already hold, or that declare none.
const KNOWN_TYPES: &[&str] = &["node", "react", "react-dom", "jest", "mocha", "jasmine", "qunit", "chai"];

/// Which scripts each page loads and what each page's scripts put in its global scope: one
/// walk of the project and a survey of its pages, made the first time a name needs it.
#[derive(Default)]
pub(in crate::check::refs::resolve) struct Scopes {
    /// For each script a page loads by `<script src>`, the pages that load it.
    loads: HashMap<String, Vec<String>>,
    /// Every page and every script of the project.
    pages: Vec<String>,
    scripts: Vec<String>,
    /// Each page's globals, None when they cannot be known.
    page_globals: Mutex<HashMap<String, Option<Arc<BTreeSet<String>>>>>,
    /// What any script or page of the project puts in the global scope.
    pool: OnceLock<Pool>,
    /// The environment a package adds, by the package's directory.
    packages: Mutex<HashMap<String, Arc<Extras>>>,
}

#[derive(Default)]
struct Pool {
    names: HashSet<String>,
    /// A script of the project makes globals no reading shows.
    dynamic: bool,
}

/// What a package's manifest adds to its files' environment.
#[derive(Default)]
struct Extras {
    environments: Vec<&'static GlobalSet>,
    /// `@types` packages of other libraries: their globals are unknown.
    foreign_types: bool,
}

impl Project<'_> {
    pub(in crate::check::refs::resolve) fn script_free_names(
        &self,
        path: &str,
        names: &ScriptNames,
        out: &mut Vec<Unresolved>,
    ) {
        if names.free.is_empty() && names.declared.is_empty() {
            return;
        }
        // A script's pages are beside it or above it: without one there, a `/* global */`
        // name is taken on trust and the project is not walked.
        if names.free.is_empty() && !self.page_above(path) {
            return;
        }
        let Some(scopes) = self.scopes() else { return };
        let extras = self.extras(scopes, path);
        let typescript = [".ts", ".tsx", ".mts", ".cts"].iter().any(|e| path.ends_with(e));
        if typescript && extras.foreign_types {
            return;
        }
        let provided = |n: &&FreeName| !extras.environments.iter().any(|set| set.contains_key(&n.name));
        let mut candidates: Vec<&FreeName> = names.free.iter().filter(provided).collect();
        match scopes.loads.get(path).filter(|_| !names.module) {
            Some(pages) => {
                // On a page whose scripts are all known, a `/* global */` comment's name must
                // still come from one of them.
                candidates.extend(names.declared.iter().filter(provided));
                candidates.sort_by_key(|n| n.line);
                let mut globals = Vec::new();
                for page in pages {
                    match self.page_globals(scopes, page) {
                        Some(g) => globals.push((page, g)),
                        None => return,
                    }
                }
                for name in candidates {
                    if let Some((page, _)) = globals.iter().find(|(_, g)| !g.contains(&name.name)) {
                        let reason = format!("is not defined: no script of {page} defines it");
                        out.push(undefined(&name.name, name.line, reason));
                    }
                }
            }
            None if candidates.is_empty() => {}
            None => {
                let pool = self.pool(scopes);
                let run_by_a_page = self.dom().is_none_or(|dom| dom.runs(path));
                if pool.dynamic && !names.module || run_by_a_page && self.any_page_unknown(scopes) {
                    return;
                }
                candidates.retain(|n| !pool.names.contains(&n.name));
                for name in candidates {
                    out.push(undefined(
                        &name.name,
                        name.line,
                        "is not defined: no file of the project defines it",
                    ));
                }
            }
        }
    }

    pub(in crate::check::refs::resolve) fn page_free_names(
        &self,
        path: &str,
        names: &PageNames,
        out: &mut Vec<Unresolved>,
    ) {
        if names.free.is_empty() && names.handlers.is_empty() {
            return;
        }
        let Some(scopes) = self.scopes() else { return };
        let Some(globals) = self.page_globals(scopes, path) else { return };
        let extras = self.extras(scopes, path);
        let known = |name: &str| {
            globals.contains(name) || extras.environments.iter().any(|set| set.contains_key(name))
        };
        for name in names.free.iter().filter(|n| !known(&n.name)) {
            let reason = format!("is not defined: no script of {} defines it", split(path).1);
            out.push(undefined(&name.name, name.line, reason));
        }
        for handler in names.handlers.iter().filter(|h| !known(&h.name)) {
            let reason = format!(
                "is called by {} in {} and no script of the page defines it",
                handler.attribute,
                split(path).1
            );
            out.push(undefined(&handler.name, handler.line, reason));
        }
    }

    /// Whether a page is in the directory of `path` or one above it.
    fn page_above(&self, path: &str) -> bool {
        ancestors(split(path).0).any(|dir| {
            self.listing(dir).is_some_and(|l| {
                l.files.iter().any(|f| {
                    let lower = f.to_ascii_lowercase();
                    lower.ends_with(".html") || lower.ends_with(".htm")
                })
            })
        })
    }

    fn scopes(&self) -> Option<&Scopes> {
        self.scopes.get_or_init(|| self.build_scopes()).as_ref()
    }

    /// The project's pages and scripts, and which scripts each page loads by `<script src>`.
    fn build_scopes(&self) -> Option<Scopes> {
        let mut scopes = Scopes::default();
        for file in self.every_file()?.iter() {
            let extension = file.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
            if extension == "html" || extension == "htm" {
                let Some(refs) = self.survey(file) else { continue };
                for src in refs.page.iter().flat_map(|p| p.scripts.iter()) {
                    if let Some(script) = self.page_script(split(file).0, src) {
                        scopes.loads.entry(script).or_default().push(file.clone());
                    }
                }
                scopes.pages.push(file.clone());
            } else if SCRIPTS.contains(&extension.as_str()) {
                scopes.scripts.push(file.clone());
            }
        }
        Some(scopes)
    }

    /// What the scripts of `page` put in its global scope; None when they cannot be known.
    fn page_globals(&self, scopes: &Scopes, page: &str) -> Option<Arc<BTreeSet<String>>> {
        if let Some(known) = lock(&scopes.page_globals).get(page) {
            return known.clone();
        }
        let globals = self.read_page_globals(page).map(Arc::new);
        lock(&scopes.page_globals).insert(page.to_owned(), globals.clone());
        globals
    }

    fn read_page_globals(&self, page: &str) -> Option<BTreeSet<String>> {
        let refs = self.survey(page)?;
        let Some(Names::Page(names)) = &refs.names else { return None };
        if names.dynamic || names.fragment || refs.page.as_ref().is_none_or(|p| p.template) {
            return None;
        }
        let mut globals = names.globals.clone();
        // An element's id is a property of `window` (`<ul id="list">` makes `list`).
        globals.extend(refs.ids.literals.iter().cloned());
        let page_dir = split(page).0;
        // Module scripts and what they import may put names on `window`.
        let mut queue = Vec::new();
        for (src, _) in &names.scripts {
            queue.push(self.page_script(page_dir, &local_target(src)?)?);
        }
        let mut seen = HashSet::new();
        while let Some(script) = queue.pop() {
            if !seen.insert(script.clone()) || seen.len() > 200 {
                continue;
            }
            let refs = self.survey(&script)?;
            let Some(Names::Script(names)) = &refs.names else { return None };
            if names.dynamic {
                return None;
            }
            globals.extend(names.globals.iter().cloned());
            for import in refs.imports.iter().filter(|i| matches!(i.kind, ImportKind::Script { .. })) {
                if let Script::Found(found) = self.resolve_script(&script, &import.written) {
                    queue.extend(found);
                }
            }
        }
        Some(globals)
    }

    /// Whether some page of the project has globals that cannot be known.
    fn any_page_unknown(&self, scopes: &Scopes) -> bool {
        scopes.pages.iter().any(|p| self.page_globals(scopes, p).is_none())
    }

    /// What every script and page of the project puts in the global scope, read once.
    fn pool<'s>(&self, scopes: &'s Scopes) -> &'s Pool {
        scopes.pool.get_or_init(|| {
            let mut pool = Pool::default();
            for file in scopes.scripts.iter().chain(scopes.pages.iter()) {
                let Some(refs) = self.survey(file) else { continue };
                match &refs.names {
                    Some(Names::Script(n)) => {
                        pool.dynamic |= n.dynamic;
                        pool.names.extend(n.globals.iter().cloned());
                    }
                    Some(Names::Page(n)) => {
                        pool.dynamic |= n.dynamic;
                        pool.names.extend(n.globals.iter().cloned());
                    }
                    _ => {}
                }
            }
            pool
        })
    }

    /// The environment the package holding `path` adds (see the module doc).
    fn extras(&self, scopes: &Scopes, path: &str) -> Arc<Extras> {
        let dir = split(path).0;
        if let Some(known) = lock(&scopes.packages).get(dir) {
            return known.clone();
        }
        let mut extras = Extras::default();
        let mut environments: Vec<&str> = Vec::new();
        if is_test_path(path) {
            environments.extend(TEST_ENVIRONMENTS);
        }
        let mut manifest_seen = false;
        for above in ancestors(dir) {
            let Some(listing) = self.listing(above) else { continue };
            if !manifest_seen && listing.files.contains("manifest.json") {
                manifest_seen = true;
                environments.extend(["webextensions", "greasemonkey"]);
            }
            if listing.files.contains("package.json") {
                let text = self.files.read(&join_name(above, "package.json")).unwrap_or_default();
                environments.extend(TEST_ENVIRONMENTS.iter().filter(|e| text.contains(&format!("\"{e}"))));
                if text.contains("\"jquery\"") {
                    environments.push("jquery");
                }
                extras.foreign_types = text.match_indices("\"@types/").any(|(at, _)| {
                    let name = text[at + 8..].split('"').next().unwrap_or_default();
                    !KNOWN_TYPES.contains(&name)
                });
                break;
            }
        }
        extras.environments = environments.into_iter().filter_map(|e| GLOBALS.get(e)).collect();
        let extras = Arc::new(extras);
        lock(&scopes.packages).insert(dir.to_owned(), extras.clone());
        extras
    }
}
