//! References resolved against an in-memory project: each kind, the exemptions that need no
//! server, and the invariant that a project whose references all resolve has no complaint,
//! while removing one file makes exactly the references to it complain.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

/// A project held in memory: path -> text, with `.gitignore`d paths by prefix.
#[derive(Default)]
struct Mem {
    files: BTreeMap<String, String>,
    ignored: Vec<String>,
}

impl Mem {
    fn with(files: &[(&str, &str)]) -> Self {
        Mem {
            files: files.iter().map(|(p, t)| ((*p).to_owned(), (*t).to_owned())).collect(),
            ..Mem::default()
        }
    }

    /// The unresolved references of `path`, as (line, reference).
    fn unresolved(&self, path: &str) -> Vec<(usize, String)> {
        let project = Project::new(self);
        let refs = extract(path, &self.files[path]);
        project.unresolved(path, &refs).into_iter().map(|u| (u.line, u.reference)).collect()
    }
}

impl Files for Mem {
    fn list(&self, dir: &str) -> Option<Vec<Entry>> {
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        let mut entries: Vec<Entry> = Vec::new();
        for path in self.files.keys().filter_map(|p| p.strip_prefix(&prefix)) {
            let (name, is_dir) = match path.split_once('/') {
                Some((first, _)) => (first, true),
                None => (path, false),
            };
            if !entries.iter().any(|e| e.name == name) {
                entries.push(Entry { name: name.to_owned(), is_dir });
            }
        }
        (dir.is_empty() || !entries.is_empty()).then_some(entries)
    }

    fn read(&self, path: &str) -> Option<String> {
        self.files.get(path).cloned()
    }

    fn ignored(&self, path: &str, _is_dir: bool) -> bool {
        self.ignored.iter().any(|i| path.starts_with(i.as_str()))
    }

    fn walk(&self) -> Option<Vec<String>> {
        Some(self.files.keys().cloned().collect())
    }
}

fn refs(list: &[(usize, &str)]) -> Vec<(usize, String)> {
    list.iter().map(|(l, r)| (*l, (*r).to_owned())).collect()
}

#[test]
fn a_script_import_resolves_with_extensions_index_files_and_typescript_sources() {
    let mem = Mem::with(&[
        (
            "src/main.ts",
            "import { a } from './a.js';\nimport { b } from './lib';\nimport type { T } from './types';\nimport { gone } from './gone';\nexport const x: T = [a, b, gone];\n",
        ),
        ("src/a.ts", "export const a = 1;\n"),
        ("src/lib/index.js", "export const b = 2;\n"),
        ("src/types.d.ts", "export type T = number[];\n"),
    ]);
    assert_eq!(mem.unresolved("src/main.ts"), refs(&[(4, "./gone")]));
}

#[test]
fn a_plain_script_cannot_take_types_from_a_declaration_file() {
    let mem = Mem::with(&[
        ("app.js", "import { f } from './util.js';\nf();\n"),
        ("util.d.ts", "export declare function f(): void;\n"),
    ]);
    assert_eq!(mem.unresolved("app.js"), refs(&[(1, "./util.js")]));
}

#[test]
fn names_follow_re_exports_and_stop_at_unknown_exports() {
    let mem = Mem::with(&[
        (
            "app.js",
            "import { a, b, nope } from './index.js';\nimport { c } from './dyn.js';\nexport default [a, b, nope, c];\n",
        ),
        ("index.js", "export * from './a.js';\nexport { b } from './b.js';\n"),
        ("a.js", "export const a = 1;\n"),
        ("b.js", "export const b = 1;\n"),
        ("dyn.js", "module.exports = build();\n"),
    ]);
    assert_eq!(mem.unresolved("app.js"), refs(&[(1, "nope")]));
}

#[test]
fn python_names_come_from_definitions_or_submodules() {
    let mem = Mem::with(&[
        ("pkg/__init__.py", "from .core import run\n"),
        (
            "pkg/core.py",
            "import os as _os\n\n\ndef run():\n    return _os\n\n\nfor LAST in range(2):\n    pass\n",
        ),
        ("pkg/sub/__init__.py", ""),
        ("pkg/sub/leaf.py", "x = 1\n"),
        (
            "pkg/main.py",
            "from .core import run, LAST, _os, missing\nfrom . import sub, core\nfrom .sub import leaf\nfrom pkg import run as r2\n",
        ),
    ]);
    assert_eq!(mem.unresolved("pkg/main.py"), refs(&[(1, "missing")]));
}

#[test]
fn an_ignored_or_generated_path_is_not_reported() {
    let mut mem = Mem::with(&[
        (
            "index.html",
            "<!doctype html>\n<script src=\"dist/bundle.js\"></script>\n<script src=\"out/app.js\"></script>\n<link rel=\"stylesheet\" href=\"css/site.css\">\n",
        ),
        ("build/vite.config.js", "export default { build: { outDir: '../out' } };\n"),
        ("package.json", "{ \"scripts\": { \"build\": \"esbuild src/app.ts --outfile=out/app.js\" } }\n"),
        ("css/site.scss", "a { b: c; }\n"),
    ]);
    mem.ignored.push("dist/".to_owned());
    assert_eq!(mem.unresolved("index.html"), Vec::new());
    mem.ignored.clear();
    assert_eq!(mem.unresolved("index.html"), refs(&[(2, "dist/bundle.js")]));
}

/// Module names: lower-case identifiers that are no Python keyword or standard module.
fn module_names() -> impl Strategy<Value = Vec<String>> {
    prop::collection::btree_set("m[a-z]{2,8}", 1..6).prop_map(|s| s.into_iter().collect())
}

proptest! {
    /// A project whose every import resolves has no complaint; removing any one module makes
    /// exactly its import complain, at its line, naming it.
    #[test]
    fn removing_one_imported_module_makes_exactly_its_import_complain(names in module_names(), pick in any::<prop::sample::Index>()) {
        for (ext, import, define) in [
            ("js", "import {{ f_{n} }} from './{n}.js';\n", "export function f_{n}() {{}}\n"),
            ("py", "from .{n} import f_{n}\n", "def f_{n}():\n    pass\n"),
        ] {
            let main = format!("main.{ext}");
            let mut files: Vec<(String, String)> = vec![(main.clone(), names.iter().map(|n| import.replace("{n}", n).replace("{{", "{").replace("}}", "}")).collect())];
            for n in &names {
                files.push((format!("{n}.{ext}"), define.replace("{n}", n).replace("{{", "{").replace("}}", "}")));
            }
            files.push(("__init__.py".to_owned(), String::new()));
            let mut mem = Mem { files: files.into_iter().collect(), ..Mem::default() };
            prop_assert_eq!(mem.unresolved(&main), Vec::new());
            let gone = pick.index(names.len());
            mem.files.remove(&format!("{}.{ext}", names[gone]));
            let spec = match ext { "js" => format!("./{}.js", names[gone]), _ => format!(".{}", names[gone]) };
            prop_assert_eq!(mem.unresolved(&main), vec![(gone + 1, spec)]);
        }
    }
}
