//! The verdict on a Jupyter notebook, from every tool that checks a file: its JSON, the
//! nbformat schema and each code cell's Python, problems naming their cell; and what
//! `check_files` reads per cell (stubs, names used before any cell defines them).

use serde_json::{Value, json};

use crate::util::{Root, Server};

/// A notebook of nbformat 4.5 whose code cells hold `sources` (ids `c0`, `c1`...), as
/// Jupyter writes it.
fn notebook(sources: &[&str]) -> String {
    let cells: Vec<Value> = sources
        .iter()
        .enumerate()
        .map(|(i, source)| {
            let lines: Vec<&str> = source.split_inclusive('\n').collect();
            json!({"cell_type": "code", "execution_count": null, "id": format!("c{i}"), "metadata": {},
                   "outputs": [], "source": lines})
        })
        .collect();
    let nb = json!({"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3",
        "language": "python", "name": "python3"}}, "nbformat": 4, "nbformat_minor": 5});
    serde_json::to_string_pretty(&nb).unwrap() + "\n"
}

async fn check_one(server: &Server, path: &str) -> Value {
    let reply = server.call("check_files", json!({"paths": [path]})).await.ok();
    reply.json()["files"][0].clone()
}

#[tokio::test]
async fn a_syntax_error_in_one_cell_is_reported_naming_that_cell_and_its_line() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let text = notebook(&["import os\n", "x = 1\nprint(x))\n", "y = 2\n"]);
    let reply = server.call("write_file", json!({"path": "a.ipynb", "content": text})).await.ok();
    let syntax = &reply.json()["syntax"];
    assert_eq!(syntax["status"], "errors", "{}", reply.text());
    assert_eq!(syntax["language"], "notebook");
    let problem = &syntax["problems"][0];
    assert_eq!(problem["cell"], json!({"index": 1, "id": "c1"}), "{}", reply.text());
    assert_eq!((problem["line"].as_u64(), problem["column"].as_u64()), (Some(2), Some(9)));
    assert!(reply.text().contains("cell 1 (id c1), line 2: "), "{}", reply.text());
    let file = check_one(&server, "a.ipynb").await;
    assert_eq!(file["status"], "errors", "{file}");
    assert!(file["note"].as_str().unwrap().starts_with("cell 1 (id c1), line 2: "), "{file}");
    server.stop().await;
}

#[tokio::test]
async fn ipython_magics_shell_escapes_and_help_are_never_errors() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let text = notebook(&[
        "%matplotlib inline\n%load_ext autoreload\nimport os\n",
        "!pip install pandas\nfiles = !ls -la\nos.path?\n??os\n",
        "%%bash\nfor f in *; do echo $f; done\n",
        "%%time\nif files:\n    %time total = len(files)\n",
    ]);
    let reply = server.call("write_file", json!({"path": "m.ipynb", "content": text})).await.ok();
    assert_eq!(reply.json()["syntax"]["status"], "ok", "{}", reply.text());
    assert_eq!(check_one(&server, "m.ipynb").await["status"], "complete");
    server.stop().await;
}

#[tokio::test]
async fn a_truncated_notebook_is_errors_never_incomplete() {
    let text = notebook(&["x = 1\n", "y = 2\n"]);
    let root = Root::new().file("cut.ipynb", &text[..text.len() * 2 / 3]);
    let server = Server::spawn(&root).await;
    let info = server.call("get_file_info", json!({"path": "cut.ipynb"})).await.ok();
    assert_eq!(info.json()["syntax"]["status"], "errors", "{}", info.text());
    let file = check_one(&server, "cut.ipynb").await;
    assert_eq!(file["status"], "errors", "{file}");
    assert!(file["note"].as_str().unwrap().contains("cannot be appended to"), "{file}");
    server.stop().await;
}

#[tokio::test]
async fn a_schema_violation_is_errors_naming_the_cell_and_the_key() {
    let text = notebook(&["x = 1\n", "y = 2\n"]).replacen("\"outputs\": []", "\"outputs\": {}", 2);
    let text = text.replacen("\"outputs\": {}", "\"outputs\": []", 1);
    let root = Root::new().file("bad.ipynb", text);
    let server = Server::spawn(&root).await;
    let info = server.call("get_file_info", json!({"path": "bad.ipynb"})).await.ok();
    let syntax = &info.json()["syntax"];
    assert_eq!(syntax["status"], "errors", "{}", info.text());
    let message = syntax["problems"][0]["message"].as_str().unwrap();
    assert!(message.contains("cell 1 (id c1), `outputs`: must be a list"), "{message}");
    server.stop().await;
}

#[tokio::test]
async fn check_files_reports_stubs_per_cell() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let text = notebook(&["import math\n", "def area(r):\n    pass  # TODO\n", "print(area(2))\n"]);
    server.call("write_file", json!({"path": "s.ipynb", "content": text})).await.ok();
    let file = check_one(&server, "s.ipynb").await;
    assert_eq!(file["status"], "stubs", "{file}");
    let stub = &file["stubs"][0];
    assert_eq!(stub["cell"], json!({"index": 1, "id": "c1"}), "{file}");
    assert_eq!(stub["line"], 2);
    assert!(stub["message"].as_str().unwrap().starts_with("cell 1 (id c1), line 2: "), "{file}");
    server.stop().await;
}

#[tokio::test]
async fn check_files_reports_a_name_used_before_any_cell_defines_it_in_cell_order() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let text = notebook(&["import math\n", "print(radius * math.pi)\n", "radius = 2\n", "show(radius)\n"]);
    server.call("write_file", json!({"path": "n.ipynb", "content": text})).await.ok();
    let file = check_one(&server, "n.ipynb").await;
    assert_eq!(file["status"], "unresolved", "{file}");
    let found: Vec<(Value, Value, Value)> = file["unresolved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["reference"].clone(), u["cell"]["index"].clone(), u["line"].clone()))
        .collect();
    assert_eq!(
        found,
        vec![(json!("radius"), json!(1), json!(1)), (json!("show"), json!(3), json!(1))],
        "{file}"
    );
    let reasons: Vec<&str> =
        file["unresolved"].as_array().unwrap().iter().filter_map(|u| u["reason"].as_str()).collect();
    assert!(reasons[0].contains("cell 2 (id c2) defines it later"), "{reasons:?}");
    server.stop().await;
}
