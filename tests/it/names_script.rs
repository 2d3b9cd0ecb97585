//! `check_files` and names a script or page uses that nothing defines (eslint's `no-undef`
//! with the file's environment): each is reported where it is used, and what defines a name
//! elsewhere (another classic script of the page, a library from a CDN, Node's and the
//! browser's globals, TypeScript's declarations, a `typeof` guard) is never reported.
//!
//! Each test that expects nothing of one file also holds a name nothing defines, reported,
//! so that it fails on a server that reports no names.

use serde_json::{Value, json};

use crate::util::{Root, Server};

/// The names reported for each of `paths`, as (line, name, reason).
async fn names(root: &Root, paths: &[&str]) -> (Vec<Vec<(u64, String, String)>>, String) {
    let server = Server::spawn(root).await;
    let reply = server.call("check_files", json!({ "paths": paths })).await.ok();
    let j: Value = reply.json().clone();
    server.stop().await;
    let files = j["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            f["unresolved"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|u| u["kind"] == "name")
                .map(|u| {
                    (
                        u["line"].as_u64().unwrap(),
                        u["reference"].as_str().unwrap().to_owned(),
                        u["reason"].as_str().unwrap().to_owned(),
                    )
                })
                .collect()
        })
        .collect();
    (files, reply.text())
}

fn names_only(file: &[(u64, String, String)]) -> Vec<(u64, &str)> {
    file.iter().map(|(line, name, _)| (*line, name.as_str())).collect()
}

const PAGE: &str = "<!doctype html>\n<html><body>\n<button id=\"go\">Go</button>\n<script src=\"js/app.js\"></script>\n</body></html>\n";

#[tokio::test]
async fn functions_app_js_calls_and_no_script_defines_are_reported_with_their_lines() {
    let root = Root::new().file("index.html", PAGE).file(
        "js/app.js",
        "const state = { seconds: 1500 };\ndocument.getElementById('go').addEventListener('click', () => {\n  startTimer();\n  render(state);\n});\nfunction tick(s) {\n  return formatTime(s);\n}\ntick(1);\n",
    );
    let (files, text) = names(&root, &["js/app.js"]).await;
    assert_eq!(names_only(&files[0]), [(3, "startTimer"), (4, "render"), (7, "formatTime")], "{text}");
    assert!(files[0][0].2.contains("no script of index.html defines it"), "{text}");
    assert!(text.contains("unresolved references"), "{text}");
}

#[tokio::test]
async fn an_onclick_calling_a_function_no_script_of_the_page_defines_is_reported_in_the_page() {
    let root = Root::new()
        .file(
            "index.html",
            "<html><body>\n<button onclick=\"startTimer()\">Start</button>\n<button onclick=\"pauseTimer()\">Pause</button>\n<form onsubmit=\"return check(event)\"><button onclick=\"submit()\">s</button></form>\n<script src=\"timer.js\"></script>\n</body></html>\n",
        )
        .file("timer.js", "function startTimer() {}\nfunction check(e) { return !!e; }\n");
    let (files, text) = names(&root, &["index.html"]).await;
    assert_eq!(names_only(&files[0]), [(3, "pauseTimer")], "{text}");
    assert!(files[0][0].2.contains("onclick in index.html"), "{text}");
}

#[tokio::test]
async fn two_classic_scripts_of_a_page_share_their_globals_and_only_what_neither_defines_is_reported() {
    let root = Root::new()
        .file(
            "index.html",
            "<html><body>\n<script src=\"js/app.js\"></script>\n<script src=\"js/timer.js\"></script>\n<script>var settings = { sound: true };</script>\n</body></html>\n",
        )
        .file("js/timer.js", "let seconds = 0;\nfunction startTimer() { seconds = 1500; }\nwindow.stopTimer = function () {};\nconst Timer = { settings };\n")
        .file("js/app.js", "startTimer();\nstopTimer();\nconsole.log(seconds, Timer, settings.sound);\nneverWritten();\n");
    let (files, text) = names(&root, &["js/app.js"]).await;
    assert_eq!(names_only(&files[0]), [(4, "neverWritten")], "{text}");
}

#[tokio::test]
async fn a_page_loading_jquery_from_a_cdn_says_nothing_of_dollar_while_a_file_of_no_page_still_reports() {
    let root = Root::new()
        .file(
            "index.html",
            "<html><body>\n<script src=\"https://code.jquery.com/jquery-3.7.1.min.js\"></script>\n<script src=\"app.js\"></script>\n<button onclick=\"$('#x').hide()\">h</button>\n</body></html>\n",
        )
        .file("app.js", "$(function () {\n  $('#go').on('click', pluginCall);\n});\n")
        .file("tools/lint.js", "const fs = require('fs');\nfs.readFileSync(lintTarget());\n");
    let (files, text) = names(&root, &["app.js", "index.html", "tools/lint.js"]).await;
    assert_eq!(names_only(&files[0]), [], "{text}");
    assert_eq!(names_only(&files[1]), [], "{text}");
    assert_eq!(names_only(&files[2]), [(2, "lintTarget")], "{text}");
}

#[tokio::test]
async fn a_node_package_file_using_process_require_and_dirname_reports_only_the_undefined_call() {
    let root = Root::new().file("package.json", "{\"name\": \"tool\", \"main\": \"index.js\"}\n").file(
        "index.js",
        "const path = require('path');\nconst out = path.join(__dirname, process.env.OUT || 'dist');\nmodule.exports = { out, run: () => buildAll(out) };\n",
    );
    let (files, text) = names(&root, &["index.js"]).await;
    assert_eq!(names_only(&files[0]), [(3, "buildAll")], "{text}");
}

#[tokio::test]
async fn a_browser_script_using_document_and_window_reports_only_the_undefined_call() {
    let root = Root::new().file("index.html", PAGE).file(
        "js/app.js",
        "document.querySelector('#go').textContent = window.location.hash;\nlocalStorage.setItem('k', JSON.stringify(navigator.language));\nrenderBoard();\n",
    );
    let (files, text) = names(&root, &["js/app.js"]).await;
    assert_eq!(names_only(&files[0]), [(3, "renderBoard")], "{text}");
}

#[tokio::test]
async fn typescript_lib_types_and_a_d_ts_global_are_defined_and_an_undefined_value_is_not() {
    let root = Root::new()
        .file("tsconfig.json", "{}\n")
        .file("src/globals.d.ts", "declare const APP_VERSION: string;\ndeclare global {\n  function track(event: string): void;\n}\nexport {};\n")
        .file(
            "src/main.ts",
            "export const counts: Record<string, number> = {};\nlet el: HTMLElement | null = null;\nexport function show(p: Partial<{ a: number }>): Promise<void> {\n  track(APP_VERSION);\n  return saveCounts(counts, el, p);\n}\n",
        );
    let (files, text) = names(&root, &["src/main.ts"]).await;
    assert_eq!(names_only(&files[0]), [(5, "saveCounts")], "{text}");
}

#[tokio::test]
async fn a_typeof_guard_is_not_a_use_and_an_unguarded_use_is_reported() {
    let root = Root::new().file("index.html", PAGE).file(
        "js/app.js",
        "if (typeof analytics === 'undefined') {\n  console.log('no analytics');\n} else {\n  analytics.track('x');\n}\nconfetti();\n",
    );
    let (files, text) = names(&root, &["js/app.js"]).await;
    assert_eq!(names_only(&files[0]), [(6, "confetti")], "{text}");
}

#[tokio::test]
async fn a_page_that_lost_the_script_defining_what_a_global_comment_declares_is_reported() {
    let helpers = "(function (window) {\n  window.qs = function (s) { return document.querySelector(s); };\n})(window);\n";
    let view = "/* global qs */\n(function () {\n  qs('#go').focus();\n})();\n";
    let whole = Root::new()
        .file(
            "index.html",
            "<html><body>\n<script src=\"helpers.js\"></script>\n<script src=\"view.js\"></script>\n</body></html>\n",
        )
        .file("helpers.js", helpers)
        .file("view.js", view);
    let (files, text) = names(&whole, &["view.js"]).await;
    assert_eq!(names_only(&files[0]), [], "{text}");
    let lost = Root::new()
        .file("index.html", "<html><body>\n<script src=\"view.js\"></script>\n</body></html>\n")
        .file("helpers.js", helpers)
        .file("view.js", view);
    let (files, text) = names(&lost, &["view.js"]).await;
    assert_eq!(names_only(&files[0]), [(3, "qs")], "{text}");
}
