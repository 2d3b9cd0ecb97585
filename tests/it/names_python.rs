//! `check_files` and the names a Python module uses that nothing defines: the function whose
//! definition never came, the module used without its import; and the exemptions (names a
//! star import from a local module provides; nothing said after a write, where a later part
//! may still define them).

use serde_json::{Value, json};

use crate::util::{Root, Server};

/// One unresolved reference: (line, kind, reference, reason).
type Ref = (u64, String, String, String);

/// Each file's status and its unresolved references.
fn verdicts(j: &Value) -> Vec<(String, Vec<Ref>)> {
    j["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let refs = f["unresolved"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| {
                    (
                        u["line"].as_u64().unwrap(),
                        u["kind"].as_str().unwrap().to_owned(),
                        u["reference"].as_str().unwrap().to_owned(),
                        u["reason"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            (f["status"].as_str().unwrap().to_owned(), refs)
        })
        .collect()
}

async fn check(root: &Root, paths: &[&str]) -> (Vec<(String, Vec<Ref>)>, String) {
    let server = Server::spawn(root).await;
    let reply = server.call("check_files", json!({ "paths": paths })).await.ok();
    server.stop().await;
    (verdicts(reply.json()), reply.text())
}

fn name(line: u64, reference: &str, reason: &str) -> Ref {
    (line, "name".to_owned(), reference.to_owned(), reason.to_owned())
}

#[tokio::test]
async fn a_function_called_and_never_written_is_reported_with_its_line() {
    let root = Root::new().file(
        "main.py",
        "def compute_totals(items):\n    return sum(items)\n\n\ndef main():\n    print(compute_total([1, 2]))\n\n\nmain()\n",
    );
    let (files, text) = check(&root, &["main.py"]).await;
    assert_eq!(files[0].0, "unresolved", "{text}");
    assert_eq!(
        files[0].1,
        [name(6, "compute_total", "is not defined; did you mean `compute_totals`?")],
        "{text}"
    );
    assert!(
        text.contains("1 with unresolved references (main.py:6 `compute_total` is not defined"),
        "{text}"
    );
}

#[tokio::test]
async fn a_module_used_without_its_import_is_reported() {
    let root = Root::new().file(
        "main.py",
        "import os\n\n\ndef load(path):\n    with open(os.path.join('data', path)) as f:\n        return json.load(f)\n",
    );
    let (files, text) = check(&root, &["main.py"]).await;
    assert_eq!(files[0].1, [name(6, "json", "is not defined: `import json`?")], "{text}");
}

#[tokio::test]
async fn a_star_import_from_a_local_module_provides_its_names_and_no_others() {
    let root = Root::new()
        .file("app/__init__.py", "from .helpers import *\n\n__all__ = helpers.__all__ + more.__all__\n")
        .file("app/helpers.py", "from .more import *\n\n\ndef fmt(x):\n    return str(x)\n")
        .file("app/more.py", "LIMIT = 3\n")
        .file("app/main.py", "from .helpers import *\n\nprint(fmt(LIMIT), render())\n")
        .file("app/other.py", "from os.path import *\n\nprint(join('a', 'b'), anything)\n");
    let (files, text) = check(&root, &["app/main.py", "app/other.py", "app/__init__.py"]).await;
    assert_eq!(files[0].1, [name(3, "render", "is not defined")], "{text}");
    assert_eq!(files[1].0, "complete", "a star import from outside may provide any name: {text}");
    // Importing a submodule binds its name in its package.
    assert_eq!(files[2].0, "complete", "{text}");
}

#[tokio::test]
async fn a_name_left_undefined_by_a_write_is_reported_by_check_files_only() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let first = "def main():\n    start_timer()\n\n\n";
    let reply = server.call("write_file", json!({"path": "main.py", "content": first})).await.ok();
    assert!(!reply.text().contains("start_timer"), "a later part may define it: {}", reply.text());
    let reply = server.call("append_file", json!({"path": "main.py", "content": "main()\n"})).await.ok();
    assert!(!reply.text().contains("start_timer"), "a later part may define it: {}", reply.text());
    let reply = server.call("check_files", json!({"paths": ["main.py"]})).await.ok();
    server.stop().await;
    let files = verdicts(reply.json());
    assert_eq!(files[0].1, [name(2, "start_timer", "is not defined")], "{}", reply.text());
}

/// Each file also holds one name that cannot exist, where one can be known: the exemptions
/// leave it, and only it, reported.
#[tokio::test]
async fn python_name_exemptions_leave_only_the_names_that_cannot_exist() {
    let root = Root::new()
        .file(
            "guarded.py",
            "try:\n    unicode\nexcept NameError:\n    unicode = str\n\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from decimal import Decimal\n\n\ndef f(x: 'Decimal') -> 'Decimal':\n    return x, long\n",
        )
        .file("lazy.py", "def __getattr__(name):\n    return name\n\n\nprint(anything)\n")
        .file("dyn.py", "globals()['made'] = 1\nprint(made)\n")
        .file("typed.pyi", "def f() -> Undefined: ...\n")
        .file(
            "classy.py",
            "class A:\n    size = 3\n    sizes = [size * k for k in range(3)]\n\n    def f(self):\n        return __class__, super().f(), size\n",
        );
    let (files, text) = check(&root, &["guarded.py", "lazy.py", "dyn.py", "typed.pyi", "classy.py"]).await;
    let refs: Vec<_> = files.iter().map(|(_, refs)| refs.clone()).collect();
    assert_eq!(
        refs,
        [
            vec![name(12, "long", "is not defined")],
            vec![],
            vec![],
            vec![],
            vec![name(6, "size", "is not defined in this scope")]
        ],
        "{text}"
    );
}

#[tokio::test]
async fn an_undefined_dunder_all_entry_is_reported() {
    let root = Root::new().file("api.py", "__all__ = ['run', 'stop']\n\n\ndef run():\n    pass\n");
    let (files, text) = check(&root, &["api.py"]).await;
    assert_eq!(files[0].1, [name(1, "stop", "is in `__all__` and not defined")], "{text}");
}
