//! `check_files` and code that only looks like a stub (issue 46): a method that only raises
//! `NotImplementedError` which a subclass in another file overrides, `...` bodies of a
//! `Protocol`, `@overload` signatures and a null object are complete; a concrete
//! `raise NotImplementedError` nothing overrides is still a stub.

use serde_json::{Value, json};

use crate::util::{Root, Server};

/// `check_files` on `paths`: each file's (path, status, stub lines).
async fn check(root: &Root, paths: &[&str]) -> Vec<(String, String, Vec<u64>)> {
    let server = Server::spawn(root).await;
    let reply = server.call("check_files", json!({ "paths": paths })).await.ok();
    let j: Value = reply.json().clone();
    server.stop().await;
    j["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let lines = f["stubs"].as_array().unwrap().iter().map(|s| s["line"].as_u64().unwrap()).collect();
            (f["path"].as_str().unwrap().to_owned(), f["status"].as_str().unwrap().to_owned(), lines)
        })
        .collect()
}

fn complete(path: &str) -> (String, String, Vec<u64>) {
    (path.to_owned(), "complete".to_owned(), Vec::new())
}

#[tokio::test]
async fn a_method_a_subclass_in_another_file_overrides_is_complete() {
    let root = Root::new()
        .file("shop/__init__.py", "")
        .file(
            "shop/base.py",
            "class Exporter:\n    def export(self, rows):\n        raise NotImplementedError\n\n    def run(self, rows):\n        return self.export(rows)\n",
        )
        .file("shop/text.py", "from .base import Exporter\n\n\nclass TextExporter(Exporter):\n    sep = ' '\n")
        .file(
            "shop/csv.py",
            "from .text import TextExporter\n\n\nclass CsvExporter(TextExporter):\n    def export(self, rows):\n        return ','.join(rows)\n",
        );
    assert_eq!(check(&root, &["shop/base.py"]).await, vec![complete("shop/base.py")]);
}

#[tokio::test]
async fn a_concrete_not_implemented_method_nothing_overrides_is_a_stub() {
    let root = Root::new()
        .file(
            "shop/base.py",
            "class Exporter:\n    def export(self, rows):\n        raise NotImplementedError\n",
        )
        // A class of the same method name that is no subclass clears nothing.
        .file("shop/other.py", "class Importer:\n    def export(self, rows):\n        return rows\n");
    let got = check(&root, &["shop/base.py"]).await;
    assert_eq!(got, vec![("shop/base.py".to_owned(), "stubs".to_owned(), vec![3])]);
}

#[tokio::test]
async fn protocol_methods_and_their_subclasses_dots_are_complete() {
    let root = Root::new()
        .file("clock.py", "from typing import Protocol\n\n\nclass Clock(Protocol):\n    def now(self) -> float: ...\n")
        .file(
            "wall.py",
            "from typing import Protocol\n\nfrom clock import Clock\n\n\nclass Ticking(Clock, Protocol):\n    def tick(self) -> None: ...\n",
        )
        .file("alarm.py", "from wall import Ticking\n\n\nclass Alarm(Ticking):\n    def ring(self) -> None: ...\n");
    let got = check(&root, &["alarm.py", "clock.py", "wall.py"]).await;
    assert_eq!(got, vec![complete("alarm.py"), complete("clock.py"), complete("wall.py")]);
}

#[tokio::test]
async fn overload_signatures_are_complete() {
    let root = Root::new().file(
        "conv.py",
        "from typing import overload\n\n\n@overload\ndef conv(x: int) -> int: ...\n@overload\ndef conv(x: str) -> str: ...\ndef conv(x):\n    return x\n",
    );
    assert_eq!(check(&root, &["conv.py"]).await, vec![complete("conv.py")]);
}

#[tokio::test]
async fn a_null_object_is_complete() {
    let root = Root::new()
        .file(
            "trace.py",
            "class NullTracer:\n    \"\"\"Used when tracing is off.\"\"\"\n\n    def start(self, name): ...\n\n    def stop(self): ...\n",
        )
        .file("log.js", "export class NoopLogger {\n  log(message) {\n    // TODO\n  }\n}\n");
    assert_eq!(check(&root, &["log.js", "trace.py"]).await, vec![complete("log.js"), complete("trace.py")]);
}

#[tokio::test]
async fn a_script_method_a_subclass_in_another_file_overrides_is_complete() {
    let root = Root::new()
        .file("src/store.js", "export class Store {\n  get(key) {\n    throw new Error('not implemented');\n  }\n}\n")
        .file(
            "src/mem.js",
            "import { Store } from './store.js';\n\nexport class MemStore extends Store {\n  get(key) {\n    return key;\n  }\n}\n",
        )
        .file("src/api.js", "export function save(data) {\n  throw new Error('not implemented');\n}\n");
    let got = check(&root, &["src/api.js", "src/store.js"]).await;
    assert_eq!(got, vec![("src/api.js".to_owned(), "stubs".to_owned(), vec![2]), complete("src/store.js")]);
}
