//! The truth regression set: small snippets, written here, of every kind of verdict the
//! check once got wrong (lines dropped between appends, valid code a grammar rejected, an
//! error region swallowing the file), each run through the real server on every path
//! that checks: `write_file` whole, `write_file` + `append_file` in two parts,
//! `edit_file` creating the file, and `check_files`. The expected verdicts were checked
//! against the languages' own compilers (python3, node --check, rustfmt, json, tomllib)
//! when the set was written.

use serde_json::{Value, json};

use crate::util::{Root, Server};

struct Case {
    name: &'static str,
    path: &'static str,
    text: &'static str,
    /// `ok`, `incomplete` or `errors`.
    status: &'static str,
    /// The first problem's line, for `errors`.
    line: Option<u64>,
}

const CASES: &[Case] = &[
    Case {
        name: "py_missing_indented_block_mid_file",
        path: "a.py",
        text: "def load(path):\n    with open(path) as f:\n    return f.read()\n\nprint(load(\"a\"))\n",
        status: "errors",
        line: Some(3),
    },
    Case {
        name: "py_def_without_body_mid_file",
        path: "b.py",
        text: "def f():\nx = 1\n",
        status: "errors",
        line: Some(2),
    },
    Case {
        name: "py_unexpected_indent",
        path: "c.py",
        text: "x = 1\n    y = 2\nz = 3\n",
        status: "errors",
        line: Some(2),
    },
    Case {
        name: "py_dropped_lines_in_dict",
        path: "d.py",
        text: "class A:\n    def f(self):\n        return {\n            \"a\": 1,\n    def g(self):\n        return 2\n",
        status: "errors",
        // CPython says "'{' was never closed" at line 3, though no continuation can
        // fix a `def` inside a dict; the check reports the end of line 4.
        line: Some(4),
    },
    Case {
        name: "py_unindent_mismatch",
        path: "e.py",
        text: "if x:\n        a = 1\n    b = 2\n",
        status: "errors",
        line: Some(3),
    },
    Case {
        name: "py_stray_paren",
        path: "f.py",
        text: "x = 1\nfoo(a))\ny = 2\n",
        status: "errors",
        line: Some(2),
    },
    Case {
        name: "py_open_docstring_at_end",
        path: "g.py",
        text: "def f():\n    \"\"\"Docs.\n\n    x = (1,\n",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "py_block_header_at_end",
        path: "h.py",
        text: "class A:\n    def f(self):\n",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "py_exception_class_pass",
        path: "i.py",
        text: "class Error(Exception):\n    pass\n",
        status: "ok",
        line: None,
    },
    Case {
        name: "js_stray_brace_swallows_nothing",
        path: "a.js",
        text: "function a() {\n  return 1;\n}\n}\nfunction b() {\n  return 2;\n}\n",
        status: "errors",
        line: Some(4),
    },
    Case {
        name: "js_dropped_lines_mid_object",
        path: "b.js",
        text: "const o = {\n  a: 1,\n  b: [1, 2\n};\nconsole.log(o);\n",
        status: "errors",
        line: Some(4),
    },
    Case {
        name: "js_missing_paren_mid_file",
        path: "c.js",
        text: "function f(a {\n  return a;\n}\nf(1);\n",
        status: "errors",
        line: Some(1),
    },
    Case {
        name: "js_export_keyword_name",
        path: "d.mjs",
        text: "const _null = null;\nexport { _null as null };\n",
        status: "ok",
        line: None,
    },
    Case {
        name: "js_open_block_comment_at_end",
        path: "e.js",
        text: "let a = 1;\n/**\n * More to come\n",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "js_open_template_at_end",
        path: "f.js",
        text: "const t = `\n  <h1>${title}</h1>\n",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "js_asi_bracket_after_brace",
        path: "g.js",
        text: "function f() {\n  return 1\n}\n[1, 2].forEach(f)\n",
        status: "ok",
        line: None,
    },
    Case {
        name: "ts_generics_and_types",
        path: "h.ts",
        text: "export function id<T>(x: T): T {\n  return x as T;\n}\ninterface A { b?: number }\n",
        status: "ok",
        line: None,
    },
    Case {
        name: "rs_macro_dollar_arm",
        path: "a.rs",
        text: "macro_rules! m {\n    ($mode:ident, $) => { 1 };\n}\nfn main() {}\n",
        status: "ok",
        line: None,
    },
    Case {
        name: "rs_stray_brace_mid_file",
        path: "b.rs",
        text: "fn f() {}\n}\nfn g() {}\n",
        status: "errors",
        line: Some(2),
    },
    Case {
        name: "rs_missing_semicolon_mid_file",
        path: "c.rs",
        text: "fn f() {\n    let x = 1\n    let y = 2;\n}\n",
        status: "errors",
        line: Some(2),
    },
    Case {
        name: "rs_dropped_lines_in_match",
        path: "d.rs",
        text: "fn f(x: u8) -> u8 {\n    match x {\n        0 => 1,\n        1 =>\n}\n\nfn g() {}\n",
        status: "errors",
        // rustc's delimiter pass reports the unclosed `{` of `fn f`; the parser's first
        // unfixable token is the `}` after `1 =>`, reported after the `=>`.
        line: Some(4),
    },
    Case {
        name: "rs_open_block_at_end",
        path: "e.rs",
        text: "fn f() {\n    let x = 1;\n",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "json_trailing_comma",
        path: "a.json",
        text: "{\n  \"a\": [1, 2,],\n  \"b\": 2\n}\n",
        status: "errors",
        line: Some(2),
    },
    Case {
        name: "json_cut_mid_document",
        path: "b.json",
        text: "{\n  \"a\": [\n    1,\n",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "toml_bad_line_mid_file",
        path: "a.toml",
        text: "[package]\nname = = \"x\"\nversion = \"1\"\n",
        status: "errors",
        line: Some(2),
    },
    Case {
        name: "toml_open_array_at_end",
        path: "b.toml",
        text: "[deps]\nlist = [\n  1,\n",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "yaml_comment_then_document_marker",
        path: "a.yaml",
        text: "# Ranking of 1998 home runs\n---\n- Mark McGwire\n- Sammy Sosa\n",
        status: "ok",
        line: None,
    },
    Case {
        name: "yaml_bad_indentation",
        path: "b.yaml",
        text: "a:\n  b: 1\n c: 2\nd: 3\n",
        status: "errors",
        line: Some(3),
    },
    Case {
        name: "html_bare_greater_than_in_text",
        path: "a.html",
        text: "<!doctype html>\n<html>\n<body>\n<p>a > b</p>\n</body>\n</html>\n",
        status: "ok",
        line: None,
    },
    Case {
        name: "css_brace_left_open_at_end",
        path: "a.css",
        text: "a { color: red; }\nb {\n  margin: 0;\n",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "bash_stray_paren",
        path: "a.sh",
        text: "echo start\nif true; then\n  echo )\nfi\n",
        status: "errors",
        line: Some(3),
    },
    Case {
        name: "py_prefix_cut_in_a_keyword",
        path: "p1.py",
        text: "from .pgen2 i",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "py_prefix_cut_in_an_operator",
        path: "p2.py",
        text: "def f(c):\n    if type(c) =",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "py_prefix_cut_after_a_default",
        path: "p3.py",
        text: "class D:\n    def __init__(self, master=None, cnf=",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "rs_prefix_cut_in_a_path",
        path: "p1.rs",
        text: "fn f() {\n    Self:",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "rs_prefix_cut_in_a_keyword",
        path: "p2.rs",
        text: "extern cr",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "rs_impl_nested_by_a_dropped_brace",
        path: "f.rs",
        text: "impl A {\n    fn f() {}\nimpl B {\n    fn g() {}\n}\n",
        status: "errors",
        line: Some(3),
    },
    Case {
        name: "rs_doc_comment_documents_nothing",
        path: "g.rs",
        text: "impl A {\n    fn f() {}\n    /// doc\n}\n",
        status: "errors",
        line: Some(3),
    },
    Case {
        name: "ts_prefix_declaration_with_a_type",
        path: "p.ts",
        text: "function f() {\n  const nextSources: O",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "js_prefix_arrow_without_a_body",
        path: "p.js",
        text: "f((total, value, i) => ",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "js_semicolon_where_a_comma_goes",
        path: "h.js",
        text: "const o = {\n  now() {\n};\n",
        status: "errors",
        line: Some(3),
    },
    Case {
        name: "yaml_prefix_cut_in_an_alias",
        path: "p.yaml",
        text: "a:\n  - *SA",
        status: "incomplete",
        line: None,
    },
    Case {
        name: "yaml_flow_closer_at_the_keys_indentation",
        path: "c.yaml",
        text: "a: [\n]\nb: 1\n",
        status: "ok",
        line: None,
    },
    Case {
        name: "toml_prefix_cut_in_a_boolean",
        path: "p.toml",
        text: "[a]\nb = fal",
        status: "incomplete",
        line: None,
    },
];

/// The syntax verdict of a tool result, with the case's name for failures.
fn assert_verdict(case: &Case, how: &str, reply: &Value, text: &str) {
    let syntax = &reply["syntax"];
    assert_eq!(syntax["status"], case.status, "{} ({how}): {text}", case.name);
    if let Some(line) = case.line {
        assert_eq!(syntax["problems"][0]["line"], line, "{} ({how}): {text}", case.name);
    }
    for p in syntax["problems"].as_array().into_iter().flatten() {
        let message = p["message"].as_str().unwrap_or_default();
        assert!(
            !message.contains("ERROR") && !message.contains("MISSING"),
            "{}: parser internals in {message}",
            case.name
        );
        if case.status == "errors" {
            assert!(
                !message.contains("would close it"),
                "{}: a closing hint on a broken file: {message}",
                case.name
            );
        }
    }
}

/// The first part of a text for a write + append: up to the line before the middle one.
fn first_part(text: &str) -> &str {
    let lines: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
    lines.get(lines.len() / 2).map_or(text, |&end| &text[..end.min(text.len())])
}

#[tokio::test]
async fn every_path_gives_the_compilers_verdict_on_the_regression_set() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    for (i, case) in CASES.iter().enumerate() {
        let whole = format!("whole{i}/{}", case.path);
        let reply = server.call("write_file", json!({"path": whole, "content": case.text})).await.ok();
        assert_verdict(case, "write", reply.json(), &reply.text());

        let parts = format!("parts{i}/{}", case.path);
        let head = first_part(case.text);
        server.call("write_file", json!({"path": parts, "content": head})).await.ok();
        let reply = server
            .call("append_file", json!({"path": parts, "content": &case.text[head.len()..]}))
            .await
            .ok();
        assert_verdict(case, "write + append", reply.json(), &reply.text());

        let edited = format!("edit{i}/{}", case.path);
        let reply = server
            .call("edit_file", json!({"path": edited, "old_string": "", "new_string": case.text}))
            .await
            .ok();
        assert_verdict(case, "edit", reply.json(), &reply.text());

        let reply = server.call("check_files", json!({"paths": [whole]})).await.ok();
        let file = &reply.json()["files"][0];
        let expected = match case.status {
            "ok" => "complete",
            other => other,
        };
        assert_eq!(file["status"], expected, "{} (check_files): {}", case.name, reply.text());
        assert_verdict(case, "check_files", file, &reply.text());
    }
    server.stop().await;
}
