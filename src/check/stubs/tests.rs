//! Stub detection: what must be found, and the idioms that must stay quiet.

use super::*;
use crate::check::html::linked_assets;
use proptest::prelude::*;

use StubKind::{EmptyHtmlBody, NoCode, PlaceholderComment, StubBody};

/// (line, kind) of every finding, for compact assertions.
fn found(path: &str, text: &str) -> Vec<(usize, StubKind)> {
    find_all_stubs(path, text).into_iter().map(|s| (s.line, s.kind)).collect()
}

fn assert_none(path: &str, text: &str) {
    let stubs = find_all_stubs(path, text);
    assert!(stubs.is_empty(), "{path}: {stubs:#?}");
}

// --- files with no code ---------------------------------------------------------------

#[test]
fn a_script_that_is_only_a_todo_comment_has_no_code() {
    for (path, text) in [
        ("app.js", "// TODO: implement the timer logic here\n"),
        ("app.js", "// Main application logic\n"),
        ("app.js", "/* The rest of the application will be written later. */\n"),
        ("app.js", "\"use strict\";\n// later\n"),
        ("main.py", "# existing code here\n"),
        ("main.py", "\"\"\"The application.\"\"\"\n# to be written\n"),
        ("lib.rs", "//! The library.\n// code goes here\n"),
        ("style.css", "/* styles go here */\n"),
        ("run.sh", "#!/bin/sh\n# later\n"),
        ("index.html", "<!-- page goes here -->\n"),
        ("app.ts", "// types later\n"),
        ("ci.yaml", "# pipeline goes here\n"),
        ("Cargo.toml", "# manifest later\n"),
    ] {
        assert_eq!(found(path, text).first(), Some(&(1, NoCode)), "{path}: {text:?}");
    }
    assert_eq!(find_stubs("app.js", "\n\n  // x\n")[0].line, 3, "reported at the first comment");
}

#[test]
fn a_file_without_code_is_told_what_it_holds() {
    let message = |path: &str, text: &str| find_stubs(path, text)[0].message.clone();
    assert_eq!(message("a.js", "// later\n"), "no code: the file holds only comments");
    // What TypeScript emits for a module of types only.
    assert_eq!(message("types.js", "export {};\n"), "no code: the file holds only `export {};`");
    assert_eq!(
        message("types.js", "\"use strict\";\n// types\nexport {};\n"),
        "no code: the file holds only the directive `\"use strict\"` and comments and `export {};`"
    );
    assert_eq!(
        message("a.py", "\"\"\"Docs.\"\"\"\n# later\n"),
        "no code: the file holds only a docstring and comments"
    );
}

#[test]
fn an_f_string_is_code() {
    assert_none("main.py", "f\"{greeting}, {name}!\"\n");
    assert_none("main.py", "\"\"\"Docs.\"\"\"\nf\"{x!r}\"\n");
    assert_eq!(found("main.py", "\"plain\"\n"), vec![(1, NoCode)]);
}

#[test]
fn a_blank_file_has_no_code_except_an_init_py() {
    for path in ["app.js", "main.py", "style.css", "index.html", "lib.rs"] {
        assert_eq!(found(path, ""), vec![(1, NoCode)], "{path}");
        assert_eq!(found(path, "\n  \n"), vec![(1, NoCode)], "{path}");
    }
    assert_eq!(find_stubs("app.js", "")[0].message, "no code: the file is empty");
    assert_none("pkg/__init__.py", "\n");
}

#[test]
fn an_empty_or_comment_only_init_py_is_idiomatic() {
    assert_none("pkg/__init__.py", "");
    assert_none("pkg/__init__.py", "# Copyright 2026 The Authors\n");
    assert_eq!(found("pkg/other.py", "# Copyright 2026 The Authors\n"), vec![(1, NoCode)]);
}

#[test]
fn a_single_line_of_code_is_code() {
    assert_none("app.js", "// The app.\nstart();\n");
    assert_none("a.py", "# x\nx = 1\n");
    assert_none("a.css", "/* x */\na { color: red; }\n");
    assert_eq!(holds_code("app.js", "// only\n"), Some(false));
    assert_eq!(holds_code("app.js", "go();\n"), Some(true));
    assert_eq!(holds_code("notes.txt", "x"), None);
}

// --- placeholder comments -------------------------------------------------------------

#[test]
fn placeholder_comments_are_found_at_their_line_in_each_comment_syntax() {
    let cases = [
        ("a.py", "def f(x):\n    y = x * 2\n    # ... rest of the code\n    return y\n", 3),
        ("a.py", "import os\n\n# existing code here\nx = 1\n", 3),
        ("a.js", "function f() {\n  const a = 1;\n  // ... existing code ...\n  return a;\n}\n", 3),
        ("a.ts", "class A {\n  run(): void {\n    go();\n    // existing code unchanged\n  }\n}\n", 4),
        ("a.jsx", "const x = 1;\n/* ... */\nexport default x;\n", 2),
        ("a.rs", "fn f() -> u8 {\n    let a = 1;\n    // TODO: implement\n    a\n}\n", 3),
        ("a.css", "body { margin: 0; }\n\n/* ... more styles ... */\n", 3),
        ("a.js", "export function f() { /* implementation omitted for brevity */ }\n", 1),
        ("a.js", "go();\nfunction g() {\n  // Add your logic here\n}\n", 3),
        ("a.html", "<html>\n<body>\n  <h1>Hi</h1>\n  <!-- ... -->\n</body>\n</html>\n", 4),
        ("a.yaml", "a: 1\n# add more services here\n", 2),
        ("a.mts", "export const a = 1;\n// ... rest of the code\n", 2),
    ];
    for (path, text, line) in cases {
        let got = found(path, text);
        assert_eq!(got.first().map(|f| f.0), Some(line), "{path}: {text}\n{got:?}");
    }
}

#[test]
fn a_placeholder_above_an_unrelated_comment_is_still_found() {
    // A block comment is complete in itself, whatever the case of the next one.
    let css = "a { b: c; }\n/* TODO: implement */\n/* base0F - tags */\nf { g: h; }\n";
    assert_eq!(found("a.css", css), vec![(2, PlaceholderComment)]);
    assert_eq!(
        found("a.rs", "fn f() {}\n// existing code here\n// Reexport\npub use std::fmt;\n"),
        vec![(2, PlaceholderComment)]
    );
    assert_eq!(
        found("a.css", "a { b: c; }\n/* Add your styles here */\n/* Footer */\nf { g: h; }\n"),
        vec![(2, PlaceholderComment)]
    );
}

#[test]
fn a_page_placeholder_is_found() {
    let page = "<html>\n<body>\n<h1>Title</h1>\n<!-- ... rest of the page -->\n</body>\n</html>\n";
    assert_eq!(found("index.html", page), vec![(4, PlaceholderComment)]);
}

#[test]
fn placeholder_comment_in_an_inline_script_or_style_of_a_page_is_found() {
    let page = "<html>\n<body>\n<p>x</p>\n<script>\nlet a = 1;\n// ... rest of the code\n</script>\n</body>\n</html>\n";
    assert_eq!(found("index.html", page), vec![(6, PlaceholderComment)]);
    let page = "<html>\n<head><style>\nh1 { color: red; }\n/* ... more styles ... */\n</style></head>\n<body><p>x</p></body>\n</html>\n";
    assert_eq!(found("index.html", page), vec![(4, PlaceholderComment)]);
    let template = "<body><p>x</p><script type=\"text/template\">// ... rest of the code\n</script></body>\n";
    assert_none("index.html", template);
}

#[test]
fn placeholder_source_is_the_trimmed_line_and_message_is_short() {
    let stubs = find_stubs("a.py", "x = 1\n        # ... rest of the code ...\n");
    assert_eq!(stubs.len(), 1);
    assert_eq!(stubs[0].source, "# ... rest of the code ...");
    assert_eq!(stubs[0].message, "placeholder comment stands in for code");
}

#[test]
fn ordinary_todo_in_complete_code_is_not_a_placeholder() {
    assert_none("a.py", "# TODO: handle unicode normalisation later\ndef f(s):\n    return s.strip()\n");
    assert_none("a.js", "// TODO: add tests\nexport const f = (s) => s.trim();\n");
    assert_none("a.js", "function f(s) {\n  // TODO: handle unicode\n  return s.trim();\n}\n");
    assert_none("a.py", "# Implementation\n\ndef f():\n    return 1\n");
}

#[test]
fn prose_comment_that_mentions_the_rest_of_the_code_is_not_a_placeholder() {
    assert_none("a.py", "# The rest of the code\n# assumes the input is sorted.\nx = sorted(y)\n");
    assert_none("a.py", "# rest of the items\nfor item in rest:\n    print(item)\n");
    assert_none("a.rs", "/// ```\n/// fn main() {\n///     // your code here\n/// }\n/// ```\nfn f() {}\n");
    assert_none("a.rs", "fn round(self) -> Self {\n    self // unchanged\n}\n// Truncated\n// '...'\n");
    assert_none("a.js", "/* ............ */\nconst rules = [\n  a,\n  b, // ...\n];\n");
    assert_none("a.py", "# Layout:\n#   header\n#   ...\n#   footer\nx = 1\n");
}

#[test]
fn placeholder_words_inside_strings_are_not_comments() {
    assert_none("a.py", "MSG = \"# ... rest of the code\"\nprint(MSG)\n");
    assert_none("a.js", "const s = '// ... existing code ...';\nconst t = `\n/* ... */\n`;\n");
    assert_none(
        "a.rs",
        "fn f() {\n    let s = \"// rest of the code\";\n    let r: &'static str = \"/* ... */\";\n}\n",
    );
}

// --- stub bodies ----------------------------------------------------------------------

#[test]
fn python_placeholder_bodies_are_stubs_at_the_statement() {
    assert_eq!(found("a.py", "import os\n\n\ndef load(path):\n    pass  # TODO\n"), vec![(5, StubBody)]);
    assert_eq!(found("a.py", "def load(path):\n    pass\n"), vec![(2, StubBody)]);
    assert_eq!(found("a.py", "def f(): ...\n"), vec![(1, StubBody)]);
    let method = "class Store:\n    def save(self, item):\n        \"\"\"Persist the item.\"\"\"\n        pass  # TODO: write it\n";
    assert_eq!(found("a.py", method), vec![(4, StubBody)]);
    let raise = "class Store:\n    def save(self, item):\n        raise NotImplementedError\n";
    assert_eq!(found("a.py", raise), vec![(3, StubBody)]);
    let raise = "class Store:\n    def save(self, item):\n        raise NotImplementedError(\"TODO\")\n";
    assert_eq!(found("a.py", raise), vec![(3, StubBody)]);
    assert_eq!(find_stubs("a.py", "def load(path):\n    pass\n")[0].message, "body of `load` is only `pass`");
}

#[test]
fn python_idioms_that_look_like_stubs_are_not() {
    assert_none("a.py", "class E(Exception): pass\n");
    assert_none("a.py", "class E(Exception):\n    \"\"\"Raised when x.\"\"\"\n");
    assert_none("a.py", "try:\n    d['k']\nexcept KeyError: pass\n");
    assert_none("a.py", "import abc\nclass A(abc.ABC):\n    @abc.abstractmethod\n    def f(self): ...\n");
    assert_none("a.py", "def noop(*args):\n    pass\n");
    assert_none(
        "a.py",
        "class Base:\n    def on_event(self):\n        \"\"\"Hook for subclasses.\"\"\"\n        pass\n",
    );
    assert_none(
        "a.py",
        "class Handler:\n    def setup(self):\n        pass\n\n    def handle(self):\n        pass\n",
    );
    assert_none("a.py", "def reinit():\n    pass  # no-op when fork is unsupported\n");
    let abstract_by_message = "class Reader:\n    def read(self):\n        raise NotImplementedError('subclasses must implement read')\n";
    assert_none("a.py", abstract_by_message);
    let overridden = "class Reader:\n    def read(self):\n        raise NotImplementedError\n\nclass FileReader(Reader):\n    def read(self):\n        return 1\n";
    assert_none("a.py", overridden);
    let commented = "class Encoder:\n    def _encode(self, data):\n        # Overwrite this method in subclasses\n        raise NotImplementedError\n";
    assert_none("a.py", commented);
    assert_none(
        "a.py",
        "def nolog(*args):\n    \"\"\"Dummy function, used when logging is off.\"\"\"\n    pass\n",
    );
    let real_limit = "class Sock:\n    def dup(self):\n        raise NotImplementedError(\"Can't dup() %s instances\" % self.__class__.__name__)\n";
    assert_none("a.py", real_limit);
    assert_none("a.py", "def _f(): pass\nasync def _c(): pass\n");
    let base_name = "class BaseReader:\n    def read(self):\n        raise NotImplementedError\n";
    assert_none("a.py", base_name);
    let protocol = "from typing import Protocol\nclass Clock(Protocol):\n    def now(self) -> float: ...\n";
    assert_none("a.py", protocol);
}

#[test]
fn python_stub_file_bodies_are_not_stubs() {
    assert_none(
        "types.pyi",
        "def f(x: int) -> str: ...\nclass A:\n    def g(self) -> None: ...\n    x: int\n",
    );
}

#[test]
fn javascript_and_typescript_not_implemented_throws_are_stubs() {
    let js = "function save(data) {\n  throw new Error(\"not implemented\");\n}\n";
    assert_eq!(found("a.js", js), vec![(2, StubBody)]);
    let ts =
        "class Api {\n  async fetchUser(id: string): Promise<User> {\n    throw new Error('TODO');\n  }\n}\n";
    assert_eq!(found("a.ts", ts), vec![(3, StubBody)]);
    let arrow = "export const parse = (s: string): Ast => { throw new Error(`Not yet implemented`) };\n";
    assert_eq!(found("a.tsx", arrow), vec![(1, StubBody)]);
    assert_eq!(find_stubs("a.js", js)[0].message, "body of `save` only throws a not-implemented error");
}

#[test]
fn a_script_that_does_not_parse_still_has_its_placeholders_and_earlier_stub_bodies_found() {
    // oxc stops at `(1;`: the placeholder after it comes from tree-sitter's recovering parse,
    // the stub body before it from the statements that parse.
    let js = "function a() {\n  throw new Error('not implemented');\n}\nlet x = (1;\nfunction b() {\n  // ... existing code unchanged ...\n}\n";
    assert_eq!(found("a.js", js), vec![(2, StubBody), (6, PlaceholderComment)]);
    // Unfinished: still being written, with its placeholder already there.
    let ts = "export function run(): void {\n  go();\n  // ... rest of the code ...\n";
    assert_eq!(found("a.ts", ts), vec![(3, PlaceholderComment)]);
    assert_eq!(holds_code("a.js", "let x = (1;\n"), Some(true));
}

#[test]
fn javascript_bodies_that_are_only_a_todo_comment_are_stubs() {
    let js = "const a = 1;\nfunction startTimer() {\n  // TODO: implement the timer logic here\n}\n";
    assert_eq!(found("a.js", js), vec![(3, StubBody)]);
    let generic = "export async function load<T>(url: string): Promise<T[]> {\n  // TODO\n}\n";
    assert_eq!(found("a.ts", generic), vec![(2, StubBody)]);
}

#[test]
fn javascript_empty_callbacks_handlers_and_abstract_methods_are_not_stubs() {
    let js = r#"class Widget extends Base {
  constructor() {}
  onClick() {}
  render() {}
}
const noop = () => {};
items.forEach((x) => {});
try { run(); } catch (e) {}
function flush() {
  // nothing to flush: writes are unbuffered
}
const source = { start() {}, pull(c) { c.close(); } };
"#;
    assert_none("a.js", js);
    let ts = "abstract class Shape {\n  area(): number {\n    throw new Error('not implemented');\n  }\n}\n";
    assert_none("a.ts", ts);
    // `stream.Transform` (readable-stream 2): the base class's method, for subclasses to override.
    let prototype = "function Transform(options) {\n  Duplex.call(this, options);\n}\nTransform.prototype._transform = function (chunk, encoding, cb) {\n  throw new Error('_transform() is not implemented');\n};\n";
    assert_none("a.js", prototype);
    let by_message =
        "class Shape {\n  area() {\n    throw new Error('Subclasses must override area()');\n  }\n}\n";
    assert_none("a.js", by_message);
    let guard =
        "function f(x) {\n  if (x.win) throw new Error('not implemented on Windows');\n  return x;\n}\n";
    assert_none("a.js", guard);
}

#[test]
fn rust_todo_and_unimplemented_macros_are_stubs() {
    let rs = "fn f() -> u32 {\n    todo!()\n}\n\nfn g() {\n    unimplemented!(\"not yet implemented\");\n}\n\nfn h() {\n    unimplemented!();\n}\n";
    assert_eq!(found("a.rs", rs), vec![(2, StubBody), (6, StubBody), (10, StubBody)]);
}

#[test]
fn rust_todo_in_comments_strings_and_real_limits_is_not_a_stub() {
    let rs = "struct Todo { todo: Vec<String> }\nfn f(todo: &Todo) -> usize {\n    // todo!() later? no\n    let s = \"todo!()\";\n    todo.todo.len() + s.len()\n}\nfn g() {\n    unimplemented!(\"not supported on this platform\")\n}\n";
    assert_none("a.rs", rs);
}

// --- pages ----------------------------------------------------------------------------

#[test]
fn html_body_with_only_whitespace_and_comments_is_empty() {
    let page = "<!doctype html>\n<html>\n<head><title>x</title></head>\n<body class=\"x\">\n  <!-- content -->\n\n</body>\n</html>\n";
    assert_eq!(found("index.html", page), vec![(4, EmptyHtmlBody)]);
    assert_eq!(found("a.htm", "<html><body></body></html>\n"), vec![(1, EmptyHtmlBody)]);
}

#[test]
fn html_body_still_being_written_is_not_yet_empty() {
    assert_none("index.html", "<html>\n<head></head>\n<body>\n");
}

#[test]
fn html_page_with_a_full_body_yields_nothing() {
    let page = "<!doctype html>\n<html lang=\"en\">\n<head>\n  <link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n  <!-- header -->\n  <h1>Hello</h1>\n  <script src=\"app.js\"></script>\n</body>\n</html>\n";
    assert_none("index.html", page);
}

/// A complete module with an ordinary TODO, an exception class, `except: pass`, an
/// abstract method and a Protocol.
const COMPLETE_PY: &str = r#""""Small key-value cache with expiry."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Protocol, overload


class CacheMiss(Exception):
    pass


class Clock(Protocol):
    def now(self) -> float: ...


class Backend(ABC):
    @abstractmethod
    def get(self, key: str) -> bytes | None: ...

    @abstractmethod
    def put(self, key: str, value: bytes) -> None:
        pass


class Cache:
    def __init__(self, backend: Backend, clock: Clock) -> None:
        self.backend = backend
        self.clock = clock

    # TODO: handle unicode normalisation later
    def get(self, key: str) -> bytes:
        try:
            value = self.backend.get(key)
        except KeyError:
            pass
        else:
            if value is not None:
                return value
        raise CacheMiss(key)

    @overload
    def expire(self, key: str) -> None: ...
    @overload
    def expire(self, key: list[str]) -> None: ...
    def expire(self, key):
        _ = time.monotonic()
        return None
"#;

#[test]
fn complete_python_module_with_a_todo_yields_nothing() {
    assert!(COMPLETE_PY.lines().count() >= 40);
    assert_none("cache.py", COMPLETE_PY);
}

// --- capping and robustness -------------------------------------------------------------

#[test]
fn many_stubs_are_capped_and_all_are_still_counted() {
    let text = "def f():\n    pass\n\n".repeat(15);
    assert_eq!(find_stubs("a.py", &text).len(), MAX_STUBS);
    assert_eq!(find_all_stubs("a.py", &text).len(), 15);
}

#[test]
fn unchecked_file_types_and_data_yield_nothing() {
    assert_none("notes.txt", "// rest of the code\n");
    assert_none("README.md", "# Title\n\n<!-- rest of the file -->\n");
    assert_none("a.json", "{}\n");
}

#[test]
fn local_scripts_and_stylesheets_are_listed_with_their_lines() {
    let page = r#"<html>
<head>
  <LINK REL="stylesheet" HREF="css/site.css?v=3">
  <link rel="icon" href="favicon.ico">
  <link rel=stylesheet href=print.css#top media=print>
  <script type="module"
      src="./js/app.js"></script>
</head>
</html>
"#;
    let linked = linked_assets(page);
    let got: Vec<(usize, &str, &str)> = linked.iter().map(|l| (l.line, l.attr, l.target.as_str())).collect();
    assert_eq!(got, vec![(3, "href", "css/site.css"), (5, "href", "print.css"), (7, "src", "./js/app.js")]);
}

#[test]
fn remote_inline_templated_and_commented_out_assets_are_not_listed() {
    let page = r##"<head>
<script src="https://cdn.example.com/x.js"></script>
<script src="//cdn.example.com/y.js"></script>
<script src="data:text/javascript,alert(1)"></script>
<link rel="stylesheet" href="http://example.com/a.css">
<link rel="stylesheet" href="#inline">
<a href="mailto:me@example.com">mail</a>
<!-- <script src="old.js"></script> -->
<script>document.write('<script src="fake.js"></scr' + 'ipt>');</script>
<link rel="stylesheet" href="{{ url_for('static', filename='style.css') }}">
<script src="{% static 'js/app.js' %}"></script>
<script src="<%= asset_path('app.js') %>"></script>
<img src="${base}/logo.png">
<script src="kept.js"></script>
</head>
"##;
    let targets: Vec<String> = linked_assets(page).into_iter().map(|l| l.target).collect();
    assert_eq!(targets, vec!["kept.js"]);
}

proptest! {
    #[test]
    fn find_stubs_never_panics_and_lines_are_inside_the_text(
        text in prop_oneof![
            "(?s).{0,200}",
            "([ \n\t{}()\\[\\]<>\"'`#/*!=,.+&:;]|pass|def f\\(\\):|\\.\\.\\.|todo|throw new Error\\('TODO'\\)|function a\\(\\)|<body>|</body>|<!--|-->|<script>|rest of the code|\r|é){0,60}",
        ],
    ) {
        let lines = text.split('\n').count();
        for path in ["a.py", "a.pyi", "a.js", "a.ts", "a.rs", "a.html", "a.css", "a.md", "a.yaml", "a.sh", "a"] {
            let stubs = find_stubs(path, &text);
            prop_assert!(stubs.len() <= MAX_STUBS);
            for s in &stubs {
                prop_assert!(s.line >= 1 && s.line <= lines, "{path}: {s:?}");
            }
        }
        for l in linked_assets(&text) {
            prop_assert!(l.line >= 1 && l.line <= lines);
        }
    }
}

// --- idioms that only look like stubs (issue 46) ----------------------------------------

/// The class and method of each stub the project may still clear.
fn overridable(path: &str, text: &str) -> Vec<(String, String)> {
    find_all_stubs(path, text)
        .into_iter()
        .filter_map(|s| s.overridable.map(|o| (o.class, o.method)))
        .collect()
}

#[test]
fn a_method_of_a_class_with_an_abstract_method_is_not_a_stub() {
    let py = "import abc\nclass Store:\n    @abc.abstractmethod\n    def get(self, key): ...\n\n    def put(self, key, value):\n        raise NotImplementedError\n";
    assert_none("a.py", py);
}

#[test]
fn a_subclass_of_a_protocol_or_abstract_class_of_the_same_file_declares_signatures() {
    let py = "from typing import Protocol\n\nclass Clock(Protocol):\n    def now(self) -> float: ...\n\nclass Timer(Clock, Protocol):\n    def start(self) -> None: ...\n\nclass Alarm(Timer):\n    def ring(self) -> None: ...\n";
    assert_none("a.py", py);
}

#[test]
fn overload_signatures_and_stub_files_are_not_stubs() {
    let py = "import typing\n\n@typing.overload\ndef f(x: int) -> int: ...\n@typing.overload\ndef f(x: str) -> str: ...\ndef f(x):\n    return x\n";
    assert_none("a.py", py);
    assert_none("a.pyi", "class A:\n    def f(self) -> int: ...\n");
}

#[test]
fn a_null_object_s_empty_methods_are_not_stubs() {
    let named = "class NullTracer:\n    def start(self, name): ...\n    def stop(self): ...\n    def enabled(self):\n        return None\n";
    assert_none("a.py", named);
    let documented = "class Silent:\n    \"\"\"A logger that does nothing.\"\"\"\n    def log(self, msg): ...\n    def flush(self): pass\n";
    assert_none("a.py", documented);
    let js = "class NoopLogger {\n  log(msg) {\n    // TODO\n  }\n}\n";
    assert_none("a.js", js);
}

#[test]
fn a_class_that_only_looks_null_still_has_its_stubs() {
    // Not named or documented as a null object.
    let plain = "class Tracer:\n    def start(self, name): ...\n    def stop(self): ...\n";
    assert_eq!(found("a.py", plain), vec![(2, StubBody), (3, StubBody)]);
    // Named so, but one method does something: its `...` sibling is a placeholder.
    let mixed =
        "class NullTracer:\n    def start(self, name): ...\n    def stop(self):\n        print('x')\n";
    assert_eq!(found("a.py", mixed), vec![(2, StubBody)]);
}

#[test]
fn a_script_base_class_by_name_or_doc_declares_what_subclasses_implement() {
    let named =
        "export class BaseAdapter {\n  send(msg) {\n    throw new Error('not implemented');\n  }\n}\n";
    assert_none("a.js", named);
    let documented = "/** @interface */\nexport class Storage {\n  get(key) {\n    throw new Error('Not implemented');\n  }\n}\n";
    assert_none("a.js", documented);
    let method_doc = "class Storage {\n  /** @abstract */\n  get(key) {\n    throw new Error('Not implemented');\n  }\n}\n";
    assert_none("a.js", method_doc);
}

#[test]
fn a_real_placeholder_is_still_a_stub_and_carries_what_may_clear_it() {
    let py = "class Exporter:\n    def export(self, rows):\n        raise NotImplementedError\n";
    assert_eq!(found("a.py", py), vec![(3, StubBody)]);
    assert_eq!(overridable("a.py", py), vec![("Exporter".to_owned(), "export".to_owned())]);
    // A placeholder comment says what it is: nothing can clear it.
    let todo = "class Exporter:\n    def export(self, rows):\n        pass  # TODO\n";
    assert_eq!(found("a.py", todo), vec![(3, StubBody)]);
    assert_eq!(overridable("a.py", todo), vec![]);
    let js = "function save(data) {\n  throw new Error('not implemented');\n}\n";
    assert_eq!(found("a.js", js), vec![(2, StubBody)]);
    assert_eq!(overridable("a.js", js), vec![]);
    let method = "class Api {\n  fetch(id) {\n    throw new Error('not implemented');\n  }\n}\n";
    assert_eq!(overridable("a.js", method), vec![("Api".to_owned(), "fetch".to_owned())]);
    // A module-level `...` is no method.
    assert_eq!(overridable("a.py", "def f(): ...\n"), vec![]);
}
