//! What a browser loads: a stylesheet's or page's local files, and the DOM ids a page's
//! scripts look up, found on the project's pages or created by its scripts.
//!
//! A server template's ids count for the templates it renders with: those it extends,
//! includes or imports (up, resolved against the template directories above it) and those
//! that extend or include it, so a child page's script finds the ids of its base. Where a
//! template's family cannot be told (a computed include, a name that resolves nowhere), the
//! ids of every template count, as for a script.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::script::{SCRIPTS, Script};
use super::{Project, ancestors, closest_of, join, join_name, respell, split};
use crate::check::refs::ids::{IdSet, mentions};
use crate::check::refs::{Import, ImportKind, RefKind, Refs, Unresolved};

/// Stylesheets: an id they mention is styled, not defined.
const STYLES: &[&str] = &["css", "scss", "sass", "less", "styl"];

/// Files read for ids a server renders (templates, server code), at most this large each.
const MAX_OTHER_TEXT: usize = 1 << 20;

/// What every page of the project defines, and which scripts run on one.
pub(super) struct Dom {
    /// Ids on any page that is not a template, or created by any script.
    ids: IdSet,
    /// Ids on any template.
    template_ids: IdSet,
    /// Each template's ids and the templates it extends, includes or imports (None: one
    /// that cannot be told).
    templates: HashMap<String, (IdSet, Vec<Option<String>>)>,
    /// Scripts a page loads, directly or through imports.
    page_scripts: HashSet<String>,
    /// Every other text file (templates, server code): an id it mentions may be rendered.
    others: Vec<String>,
    /// The texts of `others`, read the first time an id is not found elsewhere.
    other_texts: OnceLock<Vec<String>>,
}

impl Dom {
    /// Whether a page runs `script`, by `<script src>` or through imports.
    pub(super) fn runs(&self, script: &str) -> bool {
        self.page_scripts.contains(script)
    }
}

impl Project<'_> {
    pub(super) fn file(&self, path: &str, import: &Import, out: &mut Vec<Unresolved>) {
        let from_dir = split(path).0;
        let Some(target) = join(from_dir, &import.written) else { return };
        if self.is_file(&target) || self.may_exist_elsewhere(&target) || self.copied_by_build(path, import) {
            return;
        }
        let (dir, name) = split(&target);
        let extension = name.rsplit_once('.').map(|(_, e)| format!(".{e}")).unwrap_or_default();
        let code = matches!(
            import.kind,
            ImportKind::Html(crate::check::refs::Tag::Script | crate::check::refs::Tag::Stylesheet)
        ) || matches!(import.kind, ImportKind::Css) && extension == ".css";
        let hint = self
            .closest(dir, name, code, |n| n.ends_with(&extension))
            .map(|n| format!("; did you mean `{}`?", respell(&import.written, name, &n)))
            .unwrap_or_default();
        out.push(Unresolved {
            cell: None,
            line: import.line,
            kind: RefKind::File,
            reference: import.written.clone(),
            reason: format!("does not exist ({target}){hint}"),
        });
    }

    /// Whether page `path` is a template a build copies into an output directory (`dist/`,
    /// `build/`: not a sibling example's directory, whose page and files are its own) beside or
    /// below it (`public/index.html` into `dist/`) where its link resolves: a copy of the page
    /// of the same name is there, and so is the file it links (`dist/base.js`, which the
    /// build copied from a package).
    fn copied_by_build(&self, path: &str, import: &Import) -> bool {
        if !matches!(import.kind, ImportKind::Html(_)) {
            return false;
        }
        let (dir, page) = split(path);
        let below = self.listing(dir).map(|l| l.dirs.iter().map(|d| join_name(dir, d)).collect::<Vec<_>>());
        let beside = (!dir.is_empty()).then(|| split(dir).0).and_then(|parent| {
            self.listing(parent).map(|l| l.dirs.iter().map(|d| join_name(parent, d)).collect())
        });
        below.into_iter().chain(beside).flatten().filter(|out| out != dir && is_output_dir(out)).any(|out| {
            self.is_file(&join_name(&out, page))
                && join(&out, &import.written).is_some_and(|t| self.is_file(&t))
        })
    }

    // --- DOM ids --------------------------------------------------------------------------

    pub(super) fn ids(&self, path: &str, refs: &Refs, out: &mut Vec<Unresolved>) {
        if refs.lookups.is_empty() {
            return;
        }
        let Some(dom) = self.dom() else { return };
        if refs.page.is_none() && !dom.page_scripts.contains(path) {
            // Not a script any page of the project runs: its ids are another page's.
            return;
        }
        let family = refs.page.as_ref().filter(|p| p.template).and_then(|_| dom.family(path));
        let covered = |id: &str| {
            dom.ids.covers(id)
                || match &family {
                    Some(ids) => ids.covers(id),
                    None => dom.template_ids.covers(id),
                }
        };
        let mut missing: Vec<&crate::check::refs::Lookup> =
            refs.lookups.iter().filter(|l| !covered(&l.id)).collect();
        if missing.is_empty() {
            return;
        }
        let texts = dom.other_texts.get_or_init(|| {
            let mut budget: usize = 64 << 20;
            dom.others
                .iter()
                .filter_map(|p| self.files.read(p))
                .filter(|t| t.len() <= MAX_OTHER_TEXT)
                .take_while(|t| {
                    budget = budget.saturating_sub(t.len());
                    budget > 0
                })
                .collect()
        });
        missing.retain(|l| !texts.iter().any(|t| mentions(t, &l.id)));
        let mut known: Vec<&str> = dom
            .ids
            .literals
            .iter()
            .chain(family.as_ref().map_or(&dom.template_ids, |f| f).literals.iter())
            .map(String::as_str)
            .collect();
        known.sort();
        known.dedup();
        for lookup in missing {
            let hint = closest_of(&lookup.id, known.iter().copied())
                .map(|n| format!("; did you mean `#{n}`?"))
                .unwrap_or_default();
            out.push(Unresolved {
                cell: None,
                line: lookup.line,
                kind: RefKind::Id,
                reference: format!("#{}", lookup.id),
                reason: format!("is on no page{hint}"),
            });
        }
    }

    pub(super) fn dom(&self) -> Option<&Dom> {
        self.dom.get_or_init(|| self.build_dom()).as_ref()
    }

    /// Every page's ids and scripts, and every script's created ids: one walk of the project.
    pub(super) fn build_dom(&self) -> Option<Dom> {
        let files = self.every_file()?;
        let has_ext = |p: &str, exts: &[&str]| {
            p.rsplit_once('.').is_some_and(|(_, e)| exts.iter().any(|x| x.eq_ignore_ascii_case(e)))
        };
        let mut dom = Dom {
            ids: IdSet::default(),
            template_ids: IdSet::default(),
            templates: HashMap::new(),
            page_scripts: HashSet::new(),
            others: Vec::new(),
            other_texts: OnceLock::new(),
        };
        let mut queue: Vec<String> = Vec::new();
        for file in files.iter() {
            if has_ext(file, &["html", "htm"]) {
                let Some(refs) = self.survey(file) else { continue };
                match refs.page.as_ref().filter(|p| p.template) {
                    Some(page) => {
                        dom.template_ids.extend(&refs.ids);
                        dom.templates.insert(file.clone(), (refs.ids.clone(), page.includes.clone()));
                    }
                    None => dom.ids.extend(&refs.ids),
                }
                let page_dir = split(file).0;
                for src in refs.page.iter().flat_map(|p| p.scripts.iter()) {
                    queue.extend(self.page_script(page_dir, src));
                }
                for import in refs.imports.iter().filter(|i| matches!(i.kind, ImportKind::Script { .. })) {
                    if let Script::Found(found) = self.resolve_script(file, &import.written) {
                        queue.extend(found);
                    }
                }
            } else if has_ext(file, SCRIPTS) {
                if let Some(text) = self.files.read(file) {
                    dom.ids.extend(&crate::check::refs::ids::created_ids(&text, true));
                }
            } else if !has_ext(file, STYLES) {
                dom.others.push(file.clone());
            }
        }
        while let Some(script) = queue.pop() {
            if !dom.page_scripts.insert(script.clone()) {
                continue;
            }
            let Some(refs) = self.survey(&script) else { continue };
            for import in refs.imports.iter().filter(|i| matches!(i.kind, ImportKind::Script { .. })) {
                if let Script::Found(found) = self.resolve_script(&script, &import.written) {
                    queue.extend(found);
                }
            }
        }
        Some(dom)
    }

    /// The file a page's `<script src>` loads: beside the page, or for a site-absolute path,
    /// under the root or a directory above the page (the site's root, where it is served).
    pub(super) fn page_script(&self, page_dir: &str, src: &str) -> Option<String> {
        match src.strip_prefix('/') {
            Some(absolute) => std::iter::once(page_dir)
                .chain(ancestors(page_dir))
                .filter_map(|d| join(d, absolute))
                .find(|p| self.is_file(p)),
            None => join(page_dir, src).filter(|p| self.is_file(p)),
        }
    }
}

impl Dom {
    /// The ids of the templates template `path` renders with: itself, those it extends,
    /// includes or imports (transitively), and those that extend or include it; None when one
    /// of them cannot be told.
    fn family(&self, path: &str) -> Option<IdSet> {
        let (own, _) = self.templates.get(path)?;
        let mut ids = own.clone();
        let mut seen: HashSet<&str> = HashSet::from([path]);
        let mut queue = vec![path];
        while let Some(template) = queue.pop() {
            let (_, includes) = self.templates.get(template)?;
            for name in includes {
                let found = self.resolve_template(template, name.as_deref()?)?;
                if seen.insert(found) {
                    ids.extend(&self.templates[found].0);
                    queue.push(found);
                }
            }
        }
        // Those that extend or include it directly fill its blocks.
        for (other, (other_ids, includes)) in &self.templates {
            let renders_it = includes
                .iter()
                .flatten()
                .any(|name| self.resolve_template(other, name).is_some_and(|found| found == path));
            if renders_it {
                ids.extend(other_ids);
            }
        }
        Some(ids)
    }

    /// The template the name `name` in template `from` loads: under the nearest directory
    /// above `from` where it is, else the one template anywhere whose path ends with it.
    fn resolve_template(&self, from: &str, name: &str) -> Option<&str> {
        let name = name.trim_start_matches("./");
        let nearest = ancestors(split(from).0).find_map(|dir| {
            let path = join(dir, name)?;
            self.templates.get_key_value(path.as_str()).map(|(k, _)| k.as_str())
        });
        nearest.or_else(|| {
            let suffix = format!("/{name}");
            let mut ends = self.templates.keys().filter(|k| k.ends_with(&suffix));
            match (ends.next(), ends.next()) {
                (Some(only), None) => Some(only.as_str()),
                _ => None,
            }
        })
    }
}

/// Directories a build writes a site into.
fn is_output_dir(path: &str) -> bool {
    matches!(split(path).1, "dist" | "build" | "out" | "www" | "_site" | "public")
}
