use super::*;
use crate::check::parsers::javascript::Dialect;
use crate::check::script_tree;

fn names(path: &str, text: &str) -> ScriptNames {
    script_tree::read(text, Dialect::of(path, text), |s| read(path, text, s)).expect("names")
}

fn free(path: &str, text: &str) -> Vec<(String, usize)> {
    names(path, text).free.into_iter().map(|n| (n.name, n.line)).collect()
}

#[test]
fn a_name_called_and_defined_nowhere_is_free_with_its_first_line() {
    let text = "const state = {};\nstartTimer();\nrender(state);\nrender(state);\nfunction go() { formatTime(1); }\n";
    assert_eq!(
        free("app.js", text),
        [("startTimer".to_owned(), 2), ("render".to_owned(), 3), ("formatTime".to_owned(), 5)]
    );
}

#[test]
fn environment_and_ecmascript_globals_are_not_free() {
    let text = "document.title = JSON.stringify([process.env, require('x'), __dirname, Promise]);\nconsole.log(window, globalThis, self, importScripts);\n";
    assert_eq!(free("a.js", text), []);
}

#[test]
fn typeof_is_not_a_use_and_a_write_is_an_implicit_global() {
    let text = "if (typeof jQuery === 'undefined') {}\ncounter = 0;\ncounter += 1;\nconsole.log(jQuery);\n";
    let n = names("a.js", text);
    assert!(n.free.is_empty(), "{:?}", n.free);
    assert!(n.globals.contains("counter"));
}

#[test]
fn global_comments_declare_names_and_eslint_env_their_environment() {
    let text = "/* global Chart, L:readonly */\n/* eslint-env jquery */\nnew Chart(L, $);\ndescribe('x');\n";
    assert_eq!(free("a.js", text), [("describe".to_owned(), 4)]);
    let declared: Vec<String> = names("a.js", text).declared.into_iter().map(|n| n.name).collect();
    assert_eq!(declared, ["Chart", "L"]);
    assert_eq!(free("a.test.js", text), []);
}

#[test]
fn a_classic_script_s_top_level_and_global_object_writes_are_globals() {
    let text = "var a = 1; let b; const c = 2; function d() { window.e = 1; } class F {}\nglobalThis.g = 1; self['h'] = 2; this.i = 3;\nfunction j() { this.notGlobal = 1; }\n(function (window) { window.k = 1; })(window);\n";
    let n = names("a.js", text);
    let globals: Vec<&str> = n.globals.iter().map(String::as_str).collect();
    assert_eq!(globals, ["F", "a", "b", "c", "d", "e", "g", "h", "i", "j", "k"]);
    assert!(!n.module && !n.dynamic);
}

#[test]
fn a_module_defines_only_what_it_puts_on_the_global_object() {
    let text =
        "import { x } from './x.js';\nexport function f() { return x; }\nconst y = 1;\nwindow.z = y;\n";
    let n = names("a.js", text);
    assert!(n.module);
    assert_eq!(n.globals.iter().collect::<Vec<_>>(), ["z"]);
}

#[test]
fn eval_a_computed_global_write_or_a_bundle_make_the_globals_unknown() {
    assert!(names("a.js", "eval('var x = 1');").dynamic);
    assert!(names("a.js", "var k = 'x'; window[k] = 1;").dynamic);
    assert!(names("lib.min.js", "var a=1;").dynamic);
    assert!(
        names(
            "umd.js",
            "(function(g,f){typeof define=='function'&&define.amd?define(f):g.Lib=f()})(this,function(){})"
        )
        .dynamic
    );
    assert!(!names("a.js", "window['x'] = 1;").dynamic);
    assert!(names("loader.js", "const s = document.createElement('script'); s.src = u;").dynamic);
}

#[test]
fn deno_and_a_test_runner_s_page_are_not_free() {
    assert_eq!(free("main.ts", "Deno.exit(0);\n"), []);
    assert_eq!(free("e2e/app.spec.ts", "cy.visit('/');\n"), []);
}

#[test]
fn names_in_a_with_body_are_not_known() {
    assert_eq!(free("a.js", "with (Math) { foo(PI); }\nbar();\n"), [("bar".to_owned(), 2)]);
}

#[test]
fn typescript_types_are_never_free_and_values_are() {
    let text = "const m: Record<string, number> = {};\nlet e: HTMLElement | NodeJS.Timeout | Foo;\ntype T = Partial<Bar>;\nformatTime(m);\n";
    assert_eq!(free("a.ts", text), [("formatTime".to_owned(), 4)]);
}

#[test]
fn typescript_declarations_define_names() {
    let text = "declare const API_URL: string;\ndeclare function track(x: string): void;\nenum Color { Red }\nnamespace NS { export const v = 1; }\ntrack(API_URL + Color.Red + NS.v);\n";
    assert_eq!(free("a.ts", text), []);
    let dts = "export {};\ndeclare global {\n  interface Window { app: App }\n  const APP_VERSION: string;\n  function helper(): void;\n}\n";
    let n = names("types.d.ts", dts);
    assert!(n.module);
    assert!(
        n.globals.contains("APP_VERSION") && n.globals.contains("helper") && n.globals.contains("Window")
    );
    let script_dts = "declare const BUILD: number;\ninterface Thing {}\n";
    assert!(names("globals.d.ts", script_dts).globals.contains("BUILD"));
}

#[test]
fn jsx_components_are_references_and_lowercase_tags_are_not() {
    let text = "export function App() { return <div><Header/><Missing.Part/></div>; }\nfunction Header() { return <span/>; }\n";
    assert_eq!(free("app.jsx", text), [("Missing".to_owned(), 1)]);
    assert_eq!(free("app.tsx", text), [("Missing".to_owned(), 1)]);
}

#[test]
fn a_handler_s_free_names_are_read_as_a_function_body() {
    assert_eq!(handler_free_names("return save(event, this)"), Some(vec!["save".to_owned()]));
    assert_eq!(handler_free_names("pauseTimer()"), Some(vec!["pauseTimer".to_owned()]));
    assert_eq!(handler_free_names("alert(1)"), Some(vec![]));
}

#[test]
fn test_paths_are_recognised() {
    assert!(is_test_path("src/a.test.ts") && is_test_path("test/a.js") && is_test_path("x/__tests__/a.js"));
    assert!(!is_test_path("src/app.js") && !is_test_path("src/latest.js"));
}

#[test]
fn a_commonjs_file_is_a_module_whose_top_level_names_are_its_own() {
    let node = names(
        "lib/a.js",
        "const semver = require('semver');\nfunction helper() {}\nmodule.exports = helper;\n",
    );
    assert!(node.module, "Node wraps a CommonJS file in a function");
    assert!(!node.globals.contains("semver") && !node.globals.contains("helper"), "{:?}", node.globals);
    // A file for both the page and Node tests for `module`: it may run as a classic script.
    let both = names(
        "lib/b.js",
        "function helper() {}\nif (typeof module !== 'undefined') module.exports = helper;\n",
    );
    assert!(!both.module);
    assert!(both.globals.contains("helper"));
    let classic = names("js/c.js", "function helper() {}\n");
    assert!(!classic.module && classic.globals.contains("helper"));
}

#[test]
fn a_triple_slash_reference_to_a_types_package_says_nothing_of_free_names() {
    let grammar = "/// <reference types=\"tree-sitter-cli/dsl\" />\nmodule.exports = grammar({ rules: { a: $ => seq('x') } });\n";
    assert_eq!(free("grammar.js", grammar), []);
    let node = "/// <reference types=\"node\" />\nstartTimer();\n";
    assert_eq!(free("a.ts", node), [("startTimer".to_owned(), 2)]);
}
