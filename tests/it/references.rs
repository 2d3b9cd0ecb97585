//! `check_files` and references between files: each kind resolved and unresolved, and each
//! exemption (what is left unchecked because something outside the files may satisfy it).

use serde_json::{Value, json};

use crate::util::{Root, Server};

/// One checked file: its status and its unresolved references as (line, kind, reference).
#[derive(Debug)]
struct Checked {
    status: String,
    refs: Vec<(u64, String, String)>,
    reasons: Vec<String>,
}

/// Checks `paths` on `root` and returns each file's verdict, and the whole text.
async fn check(root: &Root, paths: &[&str]) -> (Vec<Checked>, String, Value) {
    let server = Server::spawn(root).await;
    let reply = server.call("check_files", json!({ "paths": paths })).await.ok();
    let j = reply.json().clone();
    server.stop().await;
    let files = j["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| Checked {
            status: f["status"].as_str().unwrap().to_owned(),
            refs: f["unresolved"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| {
                    (
                        u["line"].as_u64().unwrap(),
                        u["kind"].as_str().unwrap().to_owned(),
                        u["reference"].as_str().unwrap().to_owned(),
                    )
                })
                .collect(),
            reasons: f["unresolved"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| u["reason"].as_str().unwrap().to_owned())
                .collect(),
        })
        .collect();
    (files, reply.text(), j)
}

fn r(line: u64, kind: &str, reference: &str) -> (u64, String, String) {
    (line, kind.to_owned(), reference.to_owned())
}

// --- JavaScript and TypeScript ----------------------------------------------------------

#[tokio::test]
async fn script_imports_resolve_as_node_and_bundlers_resolve_them() {
    let root = Root::new()
        .file(
            "src/main.ts",
            "import { format } from './util';\nimport { Store } from './store/index.js';\nimport type { Task } from './types';\nimport data from './data.json';\nimport './styles.css';\nimport { h } from './lib';\nimport { render } from './view.js';\nimport React from 'react';\nexport const app = [format, Store, data, h, render, React] as Task[];\n",
        )
        .file("src/util.ts", "export function format(x: number): string {\n  return String(x);\n}\n")
        .file("src/store/index.ts", "export class Store {}\n")
        .file("src/types.d.ts", "export interface Task {\n  id: number;\n}\n")
        .file("src/data.json", "{}\n")
        .file("src/styles.css", "a { color: red; }\n")
        .file("src/lib/index.mjs", "export const h = 1;\n")
        .file("src/view.tsx", "export const render = () => <div />;\n");
    let (files, text, _) = check(&root, &["src/main.ts"]).await;
    assert_eq!(files[0].status, "complete", "{text}");
}

#[tokio::test]
async fn a_misspelled_or_deleted_script_import_is_reported_with_the_path_looked_for() {
    let root = Root::new()
        .file(
            "js/app.js",
            "import { format } from './utlis.js';\nimport { save } from './store';\nconst api = require('../lib/api');\nexport default [format, save, api];\n",
        )
        .file("js/utils.js", "export function format(x) {\n  return String(x);\n}\n");
    let (files, text, _) = check(&root, &["js/app.js"]).await;
    assert_eq!(files[0].status, "unresolved", "{text}");
    assert_eq!(
        files[0].refs,
        [r(1, "module", "./utlis.js"), r(2, "module", "./store"), r(3, "module", "../lib/api")],
        "{text}"
    );
    assert_eq!(files[0].reasons[0], "does not exist (js/utlis.js); did you mean `./utils.js`?", "{text}");
    assert!(files[0].reasons[1].contains("js/store"), "{text}");
    assert!(
        text.contains(
            "verdict: 0 files complete, 1 with unresolved references (js/app.js:1 `./utlis.js` does not exist"
        ),
        "{text}"
    );
}

/// A name destructured from a `require` is checked only when it is called: one that is not
/// there is `undefined`, which code that only passes it around survives.
#[tokio::test]
async fn a_named_import_a_local_module_does_not_export_is_reported() {
    let root = Root::new()
        .file(
            "app.js",
            "import { loadTasks, saveTasks } from './store.js';\nimport api from './api.js';\nimport { a, b, c } from './all.js';\nconst { parse, missing, kSymbol } = require('./cjs.js');\nexport default [loadTasks, saveTasks, api, a, b, c, parse('x'), missing('y'), kSymbol];\n",
        )
        .file("store.js", "export function loadTasks() {\n  return [];\n}\nexport function saveTask(t) {\n  return t;\n}\n")
        .file("api.js", "export const get = () => 1;\n")
        .file("all.js", "export * from './part.js';\nexport { b } from './other.js';\n")
        .file("part.js", "export const a = 1;\n")
        .file("other.js", "export const b = 2;\n")
        .file("cjs.js", "function parse(s) {\n  return s;\n}\nmodule.exports = { parse };\n");
    let (files, text, _) = check(&root, &["app.js"]).await;
    assert_eq!(
        files[0].refs,
        [
            r(1, "name", "saveTasks"),
            r(2, "name", "default import from ./api.js"),
            r(3, "name", "c"),
            r(4, "name", "missing")
        ],
        "{text}"
    );
    assert_eq!(files[0].reasons[0], "is not exported by store.js; did you mean `saveTask`?", "{text}");
}

#[tokio::test]
async fn names_of_modules_whose_exports_are_computed_or_unknown_are_not_checked() {
    let root = Root::new()
        .file(
            "app.js",
            "import { a } from './factory.js';\nimport { b } from './star.js';\nimport { c } from './dyn.js';\nimport d from './plain.js';\nimport { e } from './broken.js';\nexport default [a, b, c, d, e];\n",
        )
        .file("factory.js", "module.exports = makeApi();\n")
        .file("star.js", "export * from 'some-package';\n")
        .file("dyn.js", "for (const k of ['c']) exports[k] = 1;\n")
        .file("plain.js", "module.exports = function () {};\n")
        .file("broken.js", "export const e = (;\n");
    let (files, text, _) = check(&root, &["app.js"]).await;
    assert_eq!(files[0].status, "complete", "{text}");
}

#[tokio::test]
async fn script_exemptions_bare_aliases_optional_dynamic_and_built_files() {
    let root = Root::new()
        .file(
            "src/app.js",
            "import x from 'lodash';\nimport y from '@/components/y';\nimport z from '~/z';\nimport w from '#internal';\nlet opt;\ntry {\n  opt = require('./optional-native');\n} catch (e) {\n  opt = null;\n}\nconst lazy = import(`./pages/${name}.js`);\nconst gen = require('./generated/schema');\nimport legacy from './legacy';\nimport url from './logo.svg?url';\nimport Comp from './Comp';\nexport default [x, y, z, w, opt, lazy, gen, legacy, url, Comp];\n",
        )
        .file(".gitignore", "src/generated/\n")
        .file("src/legacy.coffee", "x = 1\n")
        .file("src/logo.svg", "<svg/>\n")
        .file("src/Comp.vue", "<template><div/></template>\n");
    let (files, text, _) = check(&root, &["src/app.js"]).await;
    assert_eq!(files[0].status, "complete", "{text}");
}

#[tokio::test]
async fn a_relative_import_under_tsconfig_root_dirs_is_not_checked() {
    let root = Root::new()
        .file("tsconfig.json", "{ \"compilerOptions\": { \"rootDirs\": [\"src\", \"generated\"] } }\n")
        .file("src/app.ts", "import { t } from './template';\nexport const x = t;\n");
    let (files, text, _) = check(&root, &["src/app.ts"]).await;
    assert_eq!(files[0].status, "complete", "{text}");
}

// --- Python -----------------------------------------------------------------------------

#[tokio::test]
async fn python_relative_and_local_absolute_imports_resolve() {
    let root = Root::new()
        .file("app/__init__.py", "from .timer import PomodoroTimer\n")
        .file("app/timer.py", "class PomodoroTimer:\n    pass\n\n\nDEFAULT = 25\n")
        .file("app/models/__init__.py", "")
        .file("app/models/user.py", "class User:\n    pass\n")
        .file(
            "app/main.py",
            "import os\nimport requests\nfrom . import timer\nfrom .timer import PomodoroTimer, DEFAULT\nfrom .models import user\nfrom app.models.user import User\nimport app.models.user\nfrom app import PomodoroTimer as T\n\nprint(os, requests, timer, PomodoroTimer, DEFAULT, user, User, app, T)\n",
        );
    let (files, text, _) = check(&root, &["app/main.py"]).await;
    assert_eq!(files[0].status, "complete", "{text}");
}

#[tokio::test]
async fn a_python_name_or_module_that_does_not_exist_is_reported() {
    let root = Root::new()
        .file("app/__init__.py", "")
        .file("app/timer.py", "class PomodoroTimer:\n    pass\n")
        .file(
            "app/main.py",
            "from .timer import Timer\nfrom .sound import beep\nfrom app.config import load\nimport app.storage\n\nprint(Timer, beep, load, app)\n",
        );
    let (files, text, _) = check(&root, &["app/main.py"]).await;
    assert_eq!(
        files[0].refs,
        [
            r(1, "name", "Timer"),
            r(2, "module", ".sound"),
            r(3, "module", "app.config"),
            r(4, "module", "app.storage")
        ],
        "{text}"
    );
    assert_eq!(
        files[0].reasons[0], "is not defined in app/timer.py; did you mean `PomodoroTimer`?",
        "{text}"
    );
    assert_eq!(files[0].reasons[1], "is no module (no app/sound.py or app/sound/__init__.py)", "{text}");
}

#[tokio::test]
async fn a_script_beside_its_modules_imports_them_absolutely() {
    let root = Root::new()
        .file("main.py", "from timer import Timer\nfrom storage import save\n\nprint(Timer, save)\n")
        .file("timer.py", "class PomodoroTimer:\n    pass\n")
        .file("storage.py", "def save():\n    pass\n");
    let (files, text, _) = check(&root, &["main.py"]).await;
    assert_eq!(files[0].refs, [r(1, "name", "Timer")], "{text}");
}

/// A package's `__init__.py` importing its own submodule binds the name by that very
/// import: it must not count as the module defining it.
#[tokio::test]
async fn a_package_importing_its_own_missing_submodule_is_reported() {
    let root = Root::new()
        .file("js_example/__init__.py", "from flask import Flask\n\napp = Flask(__name__)\n\nfrom js_example import views  # noqa\nfrom . import models\nfrom js_example import app as application\nfrom . import helpers\n")
        .file("js_example/helpers.py", "def h():\n    pass\n");
    let (files, text, _) = check(&root, &["js_example/__init__.py"]).await;
    assert_eq!(files[0].refs, [r(5, "module", "js_example.views"), r(6, "module", ".models")], "{text}");
    assert_eq!(
        files[0].reasons[0], "is no module (no js_example/views.py or js_example/views/__init__.py)",
        "{text}"
    );
}

#[tokio::test]
async fn python_exemptions_leave_modules_that_may_make_any_name_or_live_elsewhere() {
    let root = Root::new()
        .file("pkg/__init__.py", "")
        .file("pkg/lazy.py", "def __getattr__(name):\n    return name\n")
        .file("pkg/star.py", "from os.path import *\n")
        .file("pkg/dyn.py", "globals()['made'] = 1\n")
        .file("pkg/fast.cpython-311-x86_64-linux-gnu.so", "\x7fELF")
        .file("pkg/typed.pyi", "def f() -> int: ...\n")
        .file("nspkg/other.py", "x = 1\n")
        .file("pyproject.toml", "[tool.setuptools_scm]\nwrite_to = \"pkg/_version.py\"\n")
        .file("types.py", "LOCAL = 1\n")
        .file(
            "pkg/main.py",
            "from .lazy import anything\nfrom .star import join\nfrom .dyn import made\nfrom .fast import speed\nfrom .typed import f\nfrom nspkg import missing\nfrom ._version import version\nfrom types import SimpleNamespace\ntry:\n    from .optional import extra\nexcept ImportError:\n    extra = None\n\nprint(anything, join, made, speed, f, missing, version, SimpleNamespace, extra)\n",
        )
        .file("tools/run.py", "import sys\nsys.path.insert(0, 'lib')\nfrom helpers import go\n\ngo()\n")
        .file("tools/helpers.py", "def other():\n    pass\n");
    let (files, text, _) = check(&root, &["pkg/main.py", "tools/run.py"]).await;
    assert_eq!(files[0].status, "complete", "{text}");
    assert_eq!(files[1].status, "complete", "{text}");
}

// --- Rust -------------------------------------------------------------------------------

#[tokio::test]
async fn a_rust_mod_without_its_file_is_reported_and_exempt_ones_are_not() {
    let root = Root::new()
        .file(
            "src/lib.rs",
            "mod store;\nmod net;\npub mod api {\n    mod routes;\n}\n#[cfg(test)]\nmod extra;\n#[path = \"gen/out.rs\"]\nmod generated;\nmod missing;\n",
        )
        .file("src/store.rs", "mod db;\npub fn s() {}\n")
        .file("src/store/db.rs", "pub fn d() {}\n")
        .file("src/net/mod.rs", "pub fn n() {}\n")
        .file("src/api/routes.rs", "pub fn r() {}\n");
    let (files, text, _) = check(&root, &["src/lib.rs", "src/store.rs"]).await;
    assert_eq!(files[0].refs, [r(10, "module", "mod missing;")], "{text}");
    assert_eq!(files[0].reasons[0], "has no file (src/missing.rs or src/missing/mod.rs)", "{text}");
    assert_eq!(files[1].status, "complete", "{text}");
}

// --- CSS and HTML -----------------------------------------------------------------------

#[tokio::test]
async fn stylesheet_imports_and_urls_of_local_files_must_exist() {
    let root = Root::new()
        .file(
            "css/site.css",
            "@import \"base.css\";\n@import url('theme.css');\n@import url(\"https://fonts.example.com/a.css\");\nbody { background: url(../img/bg.png); }\n.a { background: url(\"../img/missing.png\"); }\n.b { filter: url(#blur); mask: url(\"data:image/svg+xml;utf8,<svg/>\"); }\n.c { background: url(/static/abs.png); }\n@font-face { src: url(../fonts/a.woff2?v=4) format('woff2'); }\n",
        )
        .file("css/base.css", "a { color: red; }\n")
        .file("img/bg.png", "png")
        .file("fonts/a.woff2", "woff");
    let (files, text, _) = check(&root, &["css/site.css"]).await;
    assert_eq!(files[0].refs, [r(2, "file", "theme.css"), r(5, "file", "../img/missing.png")], "{text}");
    assert_eq!(files[0].reasons[1], "does not exist (img/missing.png)", "{text}");
}

#[tokio::test]
async fn a_page_s_scripts_stylesheets_images_and_pages_must_exist() {
    let page = "<!doctype html>\n<html>\n<head>\n  <link rel=\"stylesheet\" href=\"css/style.css?v=2\">\n  <script src=\"js/app.js\" defer></script>\n  <script src=\"https://cdn.example.com/lib.js\"></script>\n</head>\n<body>\n  <img src=\"img/logo.png\" alt=\"\">\n  <img src=\"img/photo%201.jpg\" alt=\"\">\n  <a href=\"about.html#team\">About</a>\n  <a href=\"contact.html\">Contact</a>\n  <a href=\"/docs/\">Docs</a>\n  <a href=\"blog\">Blog</a>\n  <a href=\"mailto:me@example.com\">Mail</a>\n  <script src=\"/static/site.js\"></script>\n</body>\n</html>\n";
    let root = Root::new()
        .file("index.html", page)
        .file("css/style.css", "a { color: red; }\n")
        .file("js/main.js", "console.log(1);\n")
        .file("img/photo 1.jpg", "jpg")
        .file("about.html", "<!doctype html>\n<title>About</title>\n");
    let (files, text, _) = check(&root, &["index.html"]).await;
    assert_eq!(
        files[0].refs,
        [r(5, "file", "js/app.js"), r(9, "file", "img/logo.png"), r(12, "file", "contact.html")],
        "{text}"
    );
    assert_eq!(files[0].reasons[0], "does not exist (js/app.js); did you mean `js/main.js`?", "{text}");
}

/// The Flask case: the template's paths are the server's URLs, not files beside it.
#[tokio::test]
async fn a_server_template_s_paths_are_left_to_its_routes() {
    let template = "<!doctype html>\n<html>\n<head>\n  <link rel=\"stylesheet\" href=\"{{ url_for('static', filename='style.css') }}\">\n  <script src=\"static/app.js\"></script>\n</head>\n<body>{% block body %}{% endblock %}</body>\n</html>\n";
    let base_page = "<!doctype html>\n<html>\n<head>\n  <base href=\"/app/\">\n  <script src=\"js/app.js\"></script>\n</head>\n<body><p>x</p></body>\n</html>\n";
    let plain = "<!doctype html>\n<html>\n<head>\n  <script src=\"static/app.js\"></script>\n</head>\n<body><p>x</p></body>\n</html>\n";
    let root = Root::new()
        .file("templates/index.html", template)
        .file("templates/plain.html", plain)
        .file("site/base.html", base_page)
        .file("static/style.css", "a { color: red; }\n");
    let (files, text, _) =
        check(&root, &["templates/index.html", "templates/plain.html", "site/base.html"]).await;
    for f in &files {
        assert!(f.refs.is_empty(), "{text}");
        assert_ne!(f.status, "stubs", "{text}");
    }
}

// --- DOM ids ----------------------------------------------------------------------------

const PAGE: &str = "<!doctype html>\n<html>\n<head>\n  <link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n  <button id=\"startBtn\">Start</button>\n  <span id=\"time\">25:00</span>\n  <ul id=\"list\"></ul>\n  <script type=\"module\" src=\"js/app.js\"></script>\n  <script>\n    document.getElementById('inline-missing');\n  </script>\n</body>\n</html>\n";

#[tokio::test]
async fn an_id_a_page_s_script_looks_up_that_no_page_defines_is_reported() {
    let app = "import { tick } from './timer.js';\nconst start = document.getElementById('start-btn');\nconst time = document.getElementById('time');\nconst item = document.querySelector('#list li');\nconst made = document.getElementById('made-here');\nstart.addEventListener('click', () => tick(time, item, made));\n";
    let timer = "export function tick(el) {\n  const badge = document.createElement('span');\n  badge.id = 'made-here';\n  document.getElementById('other').textContent = el;\n}\n";
    let root = Root::new()
        .file("index.html", PAGE)
        .file("style.css", "#start-btn { color: red; }\n")
        .file("js/app.js", app)
        .file("js/timer.js", timer);
    let (files, text, _) = check(&root, &["js/app.js", "js/timer.js", "index.html"]).await;
    assert_eq!(files[0].refs, [r(2, "id", "#start-btn")], "{text}");
    assert_eq!(files[0].reasons[0], "is on no page; did you mean `#startBtn`?", "{text}");
    assert_eq!(files[1].refs, [r(4, "id", "#other")], "a module the page's script imports: {text}");
    assert_eq!(files[2].refs, [r(12, "id", "#inline-missing")], "an inline script: {text}");
    assert!(text.contains("js/app.js:2 `#start-btn` is on no page"), "{text}");
}

#[tokio::test]
async fn id_exemptions_guards_dynamic_ids_templates_and_scripts_no_page_runs() {
    let app = "const a = document.getElementById('guarded');\nif (a) a.remove();\ndocument.getElementById('optional')?.focus();\nif (document.getElementById('cond')) go();\nconst row = document.getElementById('row-7');\nconst srv = document.getElementById('from-template');\nfunction render(items) {\n  list.innerHTML = items.map((t) => `<li id=\"row-${t.id}\">${t.name}</li>`).join('');\n}\nrender([]);\nconsole.log(row, srv);\nfunction go() {}\n";
    let widget = "document.getElementById('host-page-div').textContent = 'hi';\n";
    let root = Root::new()
        .file("index.html", "<!doctype html>\n<html>\n<body>\n  <ul id=\"list\"></ul>\n  <script src=\"app.js\"></script>\n</body>\n</html>\n")
        .file("app.js", app)
        .file("widget.js", widget)
        .file("server/templates/partial.jinja", "<div id=\"from-template\"></div>\n");
    let (files, text, _) = check(&root, &["app.js", "widget.js"]).await;
    assert_eq!(files[0].status, "complete", "{text}");
    assert_eq!(files[1].status, "complete", "a script no page runs: {text}");
}

#[tokio::test]
async fn any_id_may_exist_once_a_page_s_script_sets_ids_it_computes() {
    let app = "const names = ['a'];\nconst el = document.getElementById('anything');\nfor (const [i, n] of names.entries()) {\n  const li = document.createElement('li');\n  li.id = n;\n}\nconsole.log(el);\n";
    let root = Root::new()
        .file(
            "index.html",
            "<!doctype html>\n<html>\n<body>\n  <script src=\"app.js\"></script>\n</body>\n</html>\n",
        )
        .file("app.js", app);
    let (files, text, _) = check(&root, &["app.js"]).await;
    assert_eq!(files[0].status, "complete", "{text}");
}

/// Without `paths`: every file written on the root, judged together.
#[tokio::test]
async fn check_files_without_paths_judges_the_written_files_together() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let html = "<!doctype html>\n<html>\n<body>\n  <button id=\"startBtn\">Start</button>\n  <script src=\"js/app.js\"></script>\n</body>\n</html>\n";
    server.call("write_file", json!({"path": "index.html", "content": html})).await.ok();
    let reply = server
        .call("write_file", json!({"path": "js/main.js", "content": "document.getElementById('start-btn').onclick = () => 1;\n"}))
        .await
        .ok();
    assert!(!reply.text().contains("unresolved"), "a write does not judge references: {}", reply.text());
    let reply = server.call("check_files", json!({})).await.ok();
    let j = reply.json();
    assert_eq!(j["unresolved"], 1, "{}", reply.text());
    assert_eq!(j["all_complete"], false);
    // The page loads js/app.js, which is not there: js/main.js is no page's script, so its
    // lookup is not judged.
    assert!(
        reply
            .text()
            .contains("index.html:5 `js/app.js` does not exist (js/app.js); did you mean `js/main.js`?"),
        "{}",
        reply.text()
    );
    server.stop().await;
}

/// Flask: the page is a template whose script is named through `url_for`; that script runs
/// on it, so its lookups are judged against the template's ids.
#[tokio::test]
async fn a_template_s_script_named_by_its_static_route_is_judged_against_the_template() {
    let template = "<!doctype html>\n<html>\n<body>\n  <form id=\"new-task\"></form>\n  <script src=\"{{ url_for('static', filename='js/app.js') }}\"></script>\n</body>\n</html>\n";
    let app = "const form = document.getElementById('new-task');\nconst list = document.getElementById('tasks');\nform.onsubmit = () => list.append('x');\n";
    let root = Root::new().file("templates/index.html", template).file("static/js/app.js", app);
    let (files, text, _) = check(&root, &["static/js/app.js", "templates/index.html"]).await;
    assert_eq!(files[0].refs, [r(2, "id", "#tasks")], "{text}");
    assert_eq!(files[1].status, "complete", "{text}");
}

/// Imports that run only sometimes are not judged: in a function, under `if` (a platform or
/// version test, `TYPE_CHECKING`) or `try` (an optional dependency).
#[tokio::test]
async fn python_imports_that_run_only_sometimes_are_not_checked() {
    let main = "import sys\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .types import Missing\nif sys.platform == 'win32':\n    from .winapi import call\ntry:\n    from .speedups import fast\nexcept ImportError:\n    fast = None\n\n\ndef legacy():\n    from .old import thing\n    return thing\n\n\nfrom .gone import value\n";
    let root = Root::new().file("pkg/__init__.py", "").file("pkg/main.py", main);
    let (files, text, _) = check(&root, &["pkg/main.py"]).await;
    assert_eq!(files[0].refs, [r(19, "module", ".gone")], "{text}");
}

#[tokio::test]
async fn a_rust_file_built_only_under_a_cfg_declares_no_checked_module() {
    let root = Root::new()
        .file("src/lib.rs", "#[cfg(unix)]\nmod unix;\n")
        .file("src/unix.rs", "#![cfg(target_os = \"linux\")]\nmod epoll;\n")
        .file("src/other.rs", "mod gone;\n");
    let (files, text, _) = check(&root, &["src/unix.rs", "src/other.rs"]).await;
    assert_eq!(files[0].status, "complete", "{text}");
    assert_eq!(files[1].refs, [r(1, "module", "mod gone;")], "{text}");
    assert_eq!(files[1].reasons[0], "has no file (src/gone.rs or src/gone/mod.rs)", "{text}");
}

#[tokio::test]
async fn a_rust_mod_under_a_cfg_whose_file_is_gone_is_reported() {
    let root = Root::new()
        .file(
            "src/lib.rs",
            "#[cfg(feature = \"simd\")]\nmod simd;\n#[cfg(windows)]\nmod win;\n#[cfg(unix)]\nmod generated;\n#[cfg(test)]\nmod tests;\n",
        )
        .file("src/win/mod.rs", "pub fn w() {}\n")
        .file("build.rs", "fn main() { std::fs::write(\"src/generated.rs\", \"\").unwrap(); }\n")
        .file("Cargo.toml", "[package]\nname = \"x\"\nversion = \"0.1.0\"\n");
    let (files, text, _) = check(&root, &["src/lib.rs"]).await;
    assert_eq!(files[0].refs, [r(2, "module", "mod simd;")], "{text}");
    assert_eq!(files[0].reasons[0], "has no file (src/simd.rs or src/simd/mod.rs)", "{text}");
}

#[tokio::test]
async fn a_page_s_link_to_a_local_document_that_is_gone_is_reported() {
    let root = Root::new()
        .file(
            "site/index.html",
            "<!doctype html>\n<a href=\"../pdfs/brief.pdf\">Brief</a>\n<a href=\"../pdfs/gone.pdf\">Gone</a>\n<a href=\"/abs.pdf\">Abs</a>\n<a href=\"contact\">Contact</a>\n",
        )
        .file("pdfs/brief.pdf", "%PDF-1.4\n");
    let (files, text, _) = check(&root, &["site/index.html"]).await;
    assert_eq!(files[0].refs, [r(3, "file", "../pdfs/gone.pdf")], "{text}");
}

#[tokio::test]
async fn an_id_renamed_in_the_base_template_a_child_page_extends_is_reported() {
    let root = Root::new()
        .file(
            "app/templates/base.html",
            "<!doctype html>\n{% include 'nav.html' %}\n<form id=\"calc-form\"></form>\n{% block script %}{% endblock %}\n",
        )
        .file("app/templates/nav.html", "<nav id=\"menu\"></nav>\n")
        .file(
            "app/templates/fetch.html",
            "{% extends 'base.html' %}\n{% block script %}\n<script>\nfetch({{ url_for('add')|tojson }});\nvar form = document.getElementById('calc');\nvar nav = document.getElementById('menu');\n</script>\n{% endblock %}\n",
        )
        // Another template's computed ids are not this page's.
        .file("app/templates/list.html", "<ul>{% for r in rows %}<li id=\"{{ r.key }}\"></li>{% endfor %}</ul>\n");
    let (files, text, _) = check(&root, &["app/templates/fetch.html"]).await;
    assert_eq!(files[0].refs, [r(5, "id", "#calc")], "{text}");
}

// --- rules learned on real projects (benches/references.rs) ------------------------------

#[tokio::test]
async fn a_module_in_a_package_imports_absolutely_from_the_package_root_only() {
    let root = Root::new()
        .file("pkg/__init__.py", "")
        .file("pkg/ext/__init__.py", "")
        .file("pkg/ext/botocore/__init__.py", "")
        .file("pkg/ext/boto.py", "from botocore.exceptions import ClientError\n")
        .file("pkg/cloud/__init__.py", "from pkg.cloud.picklr import Pickler\n")
        .file("pkg/cloud/pkg.py", "Pickler = 1\n");
    let (files, text, _) = check(&root, &["pkg/ext/boto.py", "pkg/cloud/__init__.py"]).await;
    // An installed `botocore`, not the package's `ext/botocore/`.
    assert!(files[0].refs.is_empty(), "{text}");
    // `pkg/cloud/pkg.py` is no top-level `pkg`: the misspelled module is reported.
    assert_eq!(files[1].refs, [r(1, "module", "pkg.cloud.picklr")], "{text}");
}

#[tokio::test]
async fn a_dunder_the_module_defines_is_a_name_like_any_other() {
    let root = Root::new()
        .file(
            "pkg/__init__.py",
            "from .version import __version__, __file__\nfrom .about import __author__\n",
        )
        .file("pkg/version.py", "VERSION = '1.0'\n")
        .file("pkg/about.py", "__author__ = 'me'\n");
    let (files, text, _) = check(&root, &["pkg/__init__.py"]).await;
    assert_eq!(files[0].refs, [r(1, "name", "__version__")], "{text}");
}

#[tokio::test]
async fn a_bundle_s_requires_are_its_own_modules_and_not_files() {
    let root = Root::new()
        .file(
            "js/lib.js",
            "define('lib/util/extend',[],function(){return {};});\ndefine('lib/promise',['require','./util/extend'],function(require){var e = require('./util/extend');return e;});\n",
        )
        .file("js/app.js", "const a = require('./missing');\nmodule.exports = a;\n");
    let (files, text, _) = check(&root, &["js/lib.js", "js/app.js"]).await;
    assert!(files[0].refs.is_empty(), "{text}");
    assert_eq!(files[1].refs, [r(1, "module", "./missing")], "{text}");
}

#[tokio::test]
async fn a_font_s_fallback_sources_are_not_each_required() {
    let root = Root::new()
        .file(
            "css/fonts.css",
            "@font-face { font-family: a; src: url(a.eot); src: url(a.eot?#iefix) format('embedded-opentype'), url(a.woff) format('woff'); }\n@font-face { font-family: b; src: url(b.woff2) format('woff2'); }\n",
        )
        .file("css/a.woff", "woff");
    let (files, text, _) = check(&root, &["css/fonts.css"]).await;
    assert_eq!(files[0].refs, [r(2, "file", "b.woff2")], "{text}");
}

#[tokio::test]
async fn a_page_template_a_build_copies_beside_its_files_is_not_reported() {
    let page = "<!doctype html>\n<script src=\"./base.js\"></script>\n<script src=\"app.js\"></script>\n";
    let root = Root::new()
        .file("public/index.html", page)
        .file("dist/index.html", page)
        .file("dist/base.js", "var a = 1;\n")
        .file("dist/app.js", "var b = 2;\n")
        .file("site/about.html", page);
    // No copy of `about.html` beside `dist/base.js`: the page itself is served.
    let (files, text, _) = check(&root, &["public/index.html", "site/about.html"]).await;
    assert!(files[0].refs.is_empty(), "{text}");
    assert_eq!(files[1].refs, [r(2, "file", "./base.js"), r(3, "file", "app.js")], "{text}");
}
