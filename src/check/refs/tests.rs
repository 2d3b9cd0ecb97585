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
#[test]
fn a_module_in_a_package_imports_absolutely_from_the_top_not_from_its_directory() {
    let mem = Mem::with(&[
        ("pkg/__init__.py", ""),
        ("pkg/ext/__init__.py", ""),
        ("pkg/ext/boto.py", "from botocore.exceptions import E\nfrom pkg.ext import botocore\n"),
        ("pkg/ext/botocore/__init__.py", ""),
        ("pkg/cloud/__init__.py", "from pkg.cloud.picklr import P\n"),
        ("pkg/cloud/pkg.py", "P = 1\n"),
        ("script_dir/main.py", "from helper import h\n"),
        ("script_dir/helper.py", "h = 1\n"),
    ]);
    // `botocore` is an installed package, not `pkg/ext/botocore`.
    assert_eq!(mem.unresolved("pkg/ext/boto.py"), refs(&[]));
    // `pkg/cloud/pkg.py` does not make `pkg.cloud.picklr` resolve from `pkg/cloud/`.
    assert_eq!(mem.unresolved("pkg/cloud/__init__.py"), refs(&[(1, "pkg.cloud.picklr")]));
    assert_eq!(mem.unresolved("script_dir/main.py"), refs(&[]));
}

#[test]
fn a_dunder_a_module_defines_is_checked_and_one_every_module_has_is_not() {
    let mem = Mem::with(&[
        ("pkg/__init__.py", "from .version import __version__, __file__\nfrom .other import __version__\n"),
        ("pkg/version.py", "__version__ = '1.0'\n"),
        ("pkg/other.py", "VERSION = '1.0'\n"),
    ]);
    assert_eq!(mem.unresolved("pkg/__init__.py"), refs(&[(2, "__version__")]));
}

#[test]
fn a_bundle_s_requires_name_its_own_modules() {
    let amd = "define('lib/util/extend',[],function(){return 1;});\n\
               define('lib/util/promise',['require','./extend'],function(require){var e = require('./extend');});\n";
    let browserify = "(function(){function r(e,n,t){var c=\"function\"==typeof require&&require;}return r})()\n\
                      ({1:[function(require,module,exports){var s = require('./lib/secret');},{\"./lib/secret\":2}]});\n";
    let mem = Mem::with(&[
        ("js/amd.js", amd),
        ("js/bundle.js", browserify),
        ("js/app.js", "require('./missing');\n"),
    ]);
    assert_eq!(mem.unresolved("js/amd.js"), refs(&[]));
    assert_eq!(mem.unresolved("js/bundle.js"), refs(&[]));
    assert_eq!(mem.unresolved("js/app.js"), refs(&[(1, "./missing")]));
}

#[test]
fn a_font_with_several_sources_is_a_fallback_chain() {
    let css = "@font-face { font-family: a; src: url(a.eot); src: url(a.eot?#iefix) format('embedded-opentype'), url(a.woff) format('woff'); }\n\
               @font-face { font-family: b; src: url(b.woff2) format('woff2'); }\n";
    let mem = Mem::with(&[("css/fonts.css", css), ("css/a.woff", "")]);
    assert_eq!(mem.unresolved("css/fonts.css"), refs(&[(2, "b.woff2")]));
}

#[test]
fn a_page_a_build_copies_beside_the_files_it_links_is_not_reported() {
    let page = "<script src=\"./base.js\"></script><script src=\"app.js\"></script>\n";
    let mem = Mem::with(&[
        ("public/index.html", page),
        ("dist/index.html", page),
        ("dist/base.js", "var a;\n"),
        ("dist/app.js", "var b;\n"),
    ]);
    assert_eq!(mem.unresolved("public/index.html"), refs(&[]));
    let mem = Mem::with(&[
        ("site/index.html", page),
        ("site/copy/other.html", page),
        ("site/copy/base.js", "var a;\n"),
    ]);
    // A copy of another page, or no copy at all, proves nothing.
    assert_eq!(mem.unresolved("site/index.html"), refs(&[(1, "./base.js"), (1, "app.js")]));
    // A sibling example's page and files are its own, not a build's copy.
    let mem = Mem::with(&[
        ("examples/one/index.html", page),
        ("examples/two/index.html", page),
        ("examples/two/base.js", "var a;\n"),
        ("examples/two/app.js", "var a;\n"),
    ]);
    assert_eq!(mem.unresolved("examples/one/index.html"), refs(&[(1, "./base.js"), (1, "app.js")]));
}

/// Module names other than `main`, the importing module's.
fn module_names() -> impl Strategy<Value = Vec<String>> {
    prop::collection::btree_set("m[a-z]{2,8}", 1..6)
        .prop_filter("`main` imports the others", |s| !s.contains("main"))
        .prop_map(|s| s.into_iter().collect())
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

/// A Flask app's templates: `blog/fetch.html` extends `base.html`, which includes
/// `parts/nav.html`; `admin/other.html` is `unrelated`.
fn flask_templates(base_form_id: &str, unrelated: &str) -> Mem {
    let base = format!(
        "<!doctype html>\n{{% include 'parts/nav.html' %}}\n<form id=\"{base_form_id}\"></form>\n{{% block script %}}{{% endblock %}}\n"
    );
    let child = "{% extends 'base.html' %}\n{% block script %}\n<script>\nfetch({{ url_for('add')|tojson }}); var form = document.getElementById('calc');\nvar nav = document.getElementById('menu');\nvar s = document.getElementById('result');\n</script>\n{% endblock %}\n{% block body %}<span id=\"result\"></span>{% endblock %}\n";
    Mem::with(&[
        ("app/templates/base.html", &base),
        ("app/templates/parts/nav.html", "<nav id=\"menu\"></nav>\n"),
        ("app/templates/blog/fetch.html", child),
        ("app/templates/admin/other.html", unrelated),
        ("app/views.py", "def index():\n    return render_template('blog/fetch.html')\n"),
    ])
}

#[test]
fn a_child_template_s_script_finds_the_ids_of_the_templates_it_extends_and_includes() {
    let computed = "{% extends 'base.html' %}\n<div id=\"{{ row.key }}\"></div>\n";
    let mem = flask_templates("calc", computed);
    assert_eq!(mem.unresolved("app/templates/blog/fetch.html"), refs(&[]));
    // Renamed in the base: a computed id of a template the child does not render with
    // does not cover it.
    let mem = flask_templates("calc-form", computed);
    assert_eq!(mem.unresolved("app/templates/blog/fetch.html"), refs(&[(4, "#calc")]));
}

#[test]
fn a_template_whose_family_cannot_be_told_counts_every_template_s_ids() {
    let mem = flask_templates("calc-form", "<div id=\"{{ row.key }}\"></div>\n");
    let mut files = mem.files.clone();
    let child =
        files["app/templates/blog/fetch.html"].replace("{% extends 'base.html' %}", "{% extends layout %}");
    files.insert("app/templates/blog/fetch.html".to_owned(), child);
    let mem = Mem { files, ..Mem::default() };
    assert_eq!(mem.unresolved("app/templates/blog/fetch.html"), refs(&[]));
}

#[test]
fn a_page_s_link_to_a_local_document_must_exist() {
    let page = "<!doctype html>\n<a href=\"../pdfs/brief.pdf\">Brief</a>\n<a href=\"../pdfs/gone.pdf\">Gone</a>\n<a href=\"notes/paper.pdf\">Paper</a>\n<a href=\"/files/abs.pdf\">Abs</a>\n<a href=\"search.php\">Search</a>\n<a href=\"contact\">Contact</a>\n";
    let mem = Mem::with(&[
        ("site/index.html", page),
        ("pdfs/brief.pdf", "%PDF"),
        // Built from its source.
        ("site/notes/paper.tex", "\\documentclass{article}"),
    ]);
    assert_eq!(mem.unresolved("site/index.html"), refs(&[(3, "../pdfs/gone.pdf")]));
}

#[test]
fn a_rust_mod_under_a_cfg_is_reported_unless_a_build_script_names_it() {
    let mem = Mem::with(&[
        ("Cargo.toml", "[package]\nname = \"x\"\n[features]\nsimd = []\n"),
        (
            "src/lib.rs",
            "#[cfg(feature = \"simd\")]\nmod simd;\n#[cfg(unix)]\nmod bindings;\n#[cfg(test)]\nmod tests;\n#[cfg(windows)]\n#[path = \"w.rs\"]\nmod win;\n",
        ),
        ("build.rs", "fn main() { gen(\"src/bindings.rs\"); }\n"),
    ]);
    assert_eq!(mem.unresolved("src/lib.rs"), refs(&[(2, "mod simd;")]));
}
