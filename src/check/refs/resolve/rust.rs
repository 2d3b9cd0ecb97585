//! Rust `mod x;` declarations, resolved as Cargo finds a module's file.

use super::{Project, ancestors, join_name, split};
use crate::check::refs::ids::mentions;
use crate::check::refs::{Import, RefKind, Unresolved};

impl Project<'_> {
    /// `cfg`: the module is declared under `#[cfg(...)]`; it is reported too (the crate is
    /// broken for everyone who enables that configuration), unless a build script of the
    /// crate names it (it may write the file).
    pub(super) fn rust_mod(
        &self,
        path: &str,
        import: &Import,
        inline: &[String],
        cfg: bool,
        out: &mut Vec<Unresolved>,
    ) {
        let (dir, file) = split(path);
        let stem = file.strip_suffix(".rs").unwrap_or(file);
        // A crate root or `mod.rs` keeps its modules beside it; any other file, in a directory
        // of its name. A file may be a crate root by its manifest (`[[bin]] path`), so both.
        let mut bases = Vec::new();
        if !matches!(file, "lib.rs" | "main.rs" | "mod.rs") {
            bases.push(join_name(dir, stem));
        }
        bases.push(dir.to_owned());
        let name = &import.written;
        let candidates: Vec<(String, String)> = bases
            .iter()
            .map(|b| {
                let sub = inline.iter().fold(b.clone(), |d, m| join_name(&d, m));
                (join_name(&sub, &format!("{name}.rs")), join_name(&join_name(&sub, name), "mod.rs"))
            })
            .collect();
        if candidates.iter().any(|(file, module)| self.is_file(file) || self.is_file(module)) {
            return;
        }
        // Reported in the directory that exists (a crate root's, for `tests/compare.rs`).
        let (file, module) = candidates
            .iter()
            .find(|(file, _)| self.listing(split(file).0).is_some())
            .unwrap_or(&candidates[0]);
        if self.may_exist_elsewhere(file) || cfg && self.build_script_names(split(path).0, name) {
            return;
        }
        let hint = self
            .closest(split(file).0, &format!("{name}.rs"), false, |n| {
                n.ends_with(".rs") && split(path).1 != n
            })
            .map(|n| format!("; did you mean `mod {};`?", n.trim_end_matches(".rs")))
            .unwrap_or_default();
        out.push(Unresolved {
            cell: None,
            line: import.line,
            kind: RefKind::Module,
            reference: format!("mod {name};"),
            reason: format!("has no file ({file} or {module}){hint}"),
        });
    }

    /// Whether a `build.rs` in `dir` or a directory above it, up to its crate's root, names
    /// the module `name` (as a word: `name`, `name.rs`).
    fn build_script_names(&self, dir: &str, name: &str) -> bool {
        for d in ancestors(dir) {
            if self.is_file(&join_name(d, "build.rs"))
                && self.files.read(&join_name(d, "build.rs")).is_some_and(|text| mentions(&text, name))
            {
                return true;
            }
            if self.is_file(&join_name(d, "Cargo.toml")) {
                break;
            }
        }
        false
    }
}
