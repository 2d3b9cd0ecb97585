//! JavaScript and TypeScript imports, resolved as Node and the bundlers resolve them, and
//! the names they take from local modules.

use std::collections::{BTreeSet, HashSet};

use super::{Project, ancestors, closest_of, join, join_name, respell, split};
use crate::check::refs::{Exports, Import, RefKind, Unresolved};

/// Extensions a relative script import may leave out, in the order Node, TypeScript and the
/// bundlers try them (a superset: any of them satisfies the import).
const SCRIPT_EXTENSIONS: &[&str] =
    &["js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "d.ts", "json", "node", "vue", "svelte"];

/// Extensions whose files this module reads exports from.
pub(super) const SCRIPTS: &[&str] = &["js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts"];

/// Where a relative script import leads.
pub(super) enum Script {
    /// The files that satisfy it (one or more: `x.js` beside `x.d.ts`).
    Found(Vec<String>),
    /// Something satisfies it whose exports are not read (a package directory).
    Opaque,
    /// Nothing does: the path looked for.
    Missing(String),
    /// Not checked (a bare package name, an alias, a computed path, a file that may be built).
    Skip,
}

impl Project<'_> {
    /// Where `spec`, imported by `importer`, leads. A TypeScript importer may name a `.ts`
    /// source by its `.js` output and take types from a `.d.ts`; a script's import is
    /// satisfied only by code that runs.
    pub(super) fn resolve_script(&self, importer: &str, spec: &str) -> Script {
        let from_dir = split(importer).0;
        let typescript = [".ts", ".tsx", ".mts", ".cts"].iter().any(|e| importer.ends_with(e));
        let extensions = SCRIPT_EXTENSIONS.iter().filter(|e| typescript || **e != "d.ts");
        let relative = spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../");
        let spec = spec.split('?').next().unwrap_or_default();
        if !relative || spec.contains(['*', '!', '{', '$', '<', '#']) {
            return Script::Skip;
        }
        let Some(target) = join(from_dir, spec) else { return Script::Skip };
        let mut found = Vec::new();
        if self.is_file(&target) {
            found.push(target.clone());
        }
        // A `.js` naming the TypeScript source it is compiled from.
        for (js, sources) in [
            (".js", &[".ts", ".tsx", ".d.ts"][..]),
            (".jsx", &[".tsx"][..]),
            (".mjs", &[".mts", ".d.mts"][..]),
            (".cjs", &[".cts", ".d.cts"][..]),
        ] {
            if let Some(stem) = target.strip_suffix(js).filter(|_| typescript) {
                found.extend(sources.iter().map(|s| format!("{stem}{s}")).filter(|p| self.is_file(p)));
            }
        }
        found.extend(extensions.clone().map(|e| format!("{target}.{e}")).filter(|p| self.is_file(p)));
        if self.is_dir(&target) || target.is_empty() {
            if self.is_file(&join_name(&target, "package.json")) {
                return Script::Opaque;
            }
            let index = join_name(&target, "index");
            found.extend(extensions.map(|e| format!("{index}.{e}")).filter(|p| self.is_file(p)));
            if found.is_empty()
                && self.listing(&target).is_some_and(|l| l.files.iter().any(|f| f.starts_with("index.")))
            {
                return Script::Skip;
            }
        }
        if !found.is_empty() {
            found.dedup();
            return Script::Found(found);
        }
        if self.may_exist_elsewhere(&target) || self.ts_root_dirs(from_dir) {
            return Script::Skip;
        }
        Script::Missing(target)
    }

    /// Whether a `tsconfig.json` above `dir` merges directories (`rootDirs`), under which a
    /// relative import may name a file in another directory.
    pub(super) fn ts_root_dirs(&self, dir: &str) -> bool {
        ancestors(dir).any(|d| {
            let config = join_name(d, "tsconfig.json");
            self.is_file(&config) && self.files.read(&config).is_some_and(|t| t.contains("rootDirs"))
        })
    }

    pub(super) fn script(&self, path: &str, import: &Import, out: &mut Vec<Unresolved>) {
        match self.resolve_script(path, &import.written) {
            Script::Missing(target) => {
                let (dir, name) = split(&target);
                let hint = self
                    .closest(dir, name, true, |n| {
                        (dir, n) != split(path)
                            && (SCRIPT_EXTENSIONS.iter().any(|e| n.ends_with(&format!(".{e}")))
                                || !n.contains('.'))
                    })
                    .map(|n| format!("; did you mean `{}`?", respell(&import.written, name, &n)))
                    .unwrap_or_default();
                let reason = if name.contains('.') && self.listing(dir).is_some() {
                    format!("does not exist ({target}){hint}")
                } else {
                    format!(
                        "resolves to no file (no {target} with a script extension, nor {target}/index){hint}"
                    )
                };
                out.push(Unresolved {
                    cell: None,
                    line: import.line,
                    kind: RefKind::Module,
                    reference: import.written.clone(),
                    reason,
                });
            }
            Script::Found(files) if !import.names.is_empty() => self.script_names(import, &files, out),
            _ => {}
        }
    }

    /// The names `import` takes from `files` (the files its specifier resolves to) that none
    /// of them exports.
    pub(super) fn script_names(&self, import: &Import, files: &[String], out: &mut Vec<Unresolved>) {
        let mut exports = Vec::new();
        for file in files {
            if !SCRIPTS.iter().any(|e| file.ends_with(&format!(".{e}"))) {
                return;
            }
            match self.survey(file) {
                Some(refs) if !refs.broken => match &refs.exports {
                    Some(e) if e.known => exports.push((file.clone(), e.clone())),
                    _ => return,
                },
                _ => return,
            }
        }
        let Some((shown, _)) = exports.first().cloned() else { return };
        for (name, line) in &import.names {
            let provided = exports.iter().any(|(file, e)| {
                // A default import of a module without ES module syntax is its
                // `module.exports`, whatever that is.
                name == "default" && !e.module || self.exports_name(file, e, name, &mut HashSet::new())
            });
            if provided {
                continue;
            }
            let all: BTreeSet<&str> =
                exports.iter().flat_map(|(_, e)| e.names.iter().map(String::as_str)).collect();
            let hint = closest_of(name, all.into_iter().filter(|n| *n != "default"))
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default();
            let reason = match name.as_str() {
                "default" => format!("is not exported by {shown}: it has no default export{hint}"),
                _ => format!("is not exported by {shown}{hint}"),
            };
            let reference = if name == "default" {
                format!("default import from {}", import.written)
            } else {
                name.clone()
            };
            out.push(Unresolved { line: *line, kind: RefKind::Name, reference, reason, cell: None });
        }
    }

    /// Whether `file` (exporting `exports`) exports `name`, following `export * from`; true
    /// when a star leads somewhere whose exports are not known.
    pub(super) fn exports_name(
        &self,
        file: &str,
        exports: &Exports,
        name: &str,
        seen: &mut HashSet<String>,
    ) -> bool {
        if exports.names.contains(name) || !seen.insert(file.to_owned()) {
            return true;
        }
        exports.stars.iter().any(|spec| match self.resolve_script(file, spec) {
            Script::Found(targets) => targets.iter().any(|t| match self.survey(t) {
                Some(refs) if !refs.broken => match &refs.exports {
                    Some(e) if e.known => self.exports_name(t, e, name, seen),
                    _ => true,
                },
                _ => true,
            }),
            _ => true,
        })
    }
}
