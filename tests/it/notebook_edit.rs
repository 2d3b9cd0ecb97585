//! `edit_notebook` over stdio, and the other writing tools on a notebook: cells inserted,
//! replaced and deleted with every other byte kept, a notebook created, undo to the exact
//! bytes, `edit_file` inside one cell, and `append_file` and a non-notebook `write_file`
//! refused.

use serde_json::{Value, json};

use crate::util::{Root, Server};

/// What nbformat 5.11's writer writes for a notebook with a markdown cell and a code cell that
/// ran (a stream output and an image), then a markdown cell with `tags` metadata.
const JUPYTER: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"aa11bb22\",\n   \"metadata\": {},\n   \"source\": [\n    \"# Sales\\n\",\n    \"\\n\",\n    \"Totals by région\"\n   ]\n  },\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 2,\n   \"id\": \"c0de0001\",\n   \"metadata\": {\n    \"scrolled\": true\n   },\n   \"outputs\": [\n    {\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n      \"6\\n\"\n     ]\n    },\n    {\n     \"data\": {\n      \"image/png\": \"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==\",\n      \"text/plain\": [\n       \"<Figure size 640x480 with 1 Axes>\"\n      ]\n     },\n     \"metadata\": {},\n     \"output_type\": \"display_data\"\n    }\n   ],\n   \"source\": [\n    \"def total(xs):\\n\",\n    \"    return sum(xs)\\n\",\n    \"print(total([1, 2, 3]))\"\n   ]\n  },\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"ee33ff44\",\n   \"metadata\": {\n    \"tags\": [\n     \"notes\"\n    ]\n   },\n   \"source\": [\n    \"The end.\"\n   ]\n  }\n ],\n \"metadata\": {\n  \"kernelspec\": {\n   \"display_name\": \"Python 3 (ipykernel)\",\n   \"language\": \"python\",\n   \"name\": \"python3\"\n  },\n  \"language_info\": {\n   \"name\": \"python\",\n   \"version\": \"3.11.4\"\n  }\n },\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

fn cells(root: &Root, path: &str) -> Vec<Value> {
    let nb: Value = serde_json::from_slice(&root.read(path)).expect("the notebook is JSON");
    nb["cells"].as_array().cloned().expect("a cells list")
}

fn source(cell: &Value) -> String {
    match &cell["source"] {
        Value::Array(lines) => lines.iter().filter_map(Value::as_str).collect(),
        other => other.as_str().unwrap_or_default().to_owned(),
    }
}

/// The bytes of `text` from the start of its `n`th cell object to the end: what an edit before
/// that cell must leave as it was (cell objects at depth 2 open with `  {`).
fn from_cell(text: &str, n: usize) -> &str {
    let at = text.match_indices("\n  {\n").nth(n).map(|(at, _)| at).expect("that many cells");
    &text[at..]
}

#[tokio::test]
async fn a_notebook_is_created_and_built_cell_by_cell_valid_after_every_call() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let first = server
        .call(
            "edit_notebook",
            json!({"path": "nb/analysis.ipynb", "edits": [
                {"action": "insert", "cell_type": "markdown", "source": "# Analysis\n\nLoads the data."},
                {"action": "insert", "source": "import csv\n\nrows = list(csv.reader(open('d.csv')))\n"}
            ]}),
        )
        .await
        .ok();
    assert_eq!(first.json()["created"], true, "{}", first.text());
    assert_eq!(first.json()["cells"], 2);
    assert!(first.text().contains("inserted markdown cell 0 (id "), "{}", first.text());
    let text = String::from_utf8(root.read("nb/analysis.ipynb")).unwrap();
    assert!(
        text.starts_with("{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \""),
        "{text}"
    );
    assert!(text.ends_with(" \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n"), "{text}");
    assert!(text.contains("\"kernelspec\": {\n   \"display_name\": \"Python 3\""), "{text}");
    for i in 0..12 {
        let call = json!({"path": "nb/analysis.ipynb", "edits": [
            {"action": "insert", "source": format!("def step_{i}(rows):\n    return len(rows) + {i}\n")}
        ]});
        let reply = server.call("edit_notebook", call).await.ok();
        assert_eq!(reply.json()["cells"], i + 3);
        let nb: Value =
            serde_json::from_slice(&root.read("nb/analysis.ipynb")).expect("valid JSON after every call");
        assert_eq!(nb["cells"].as_array().map(Vec::len), Some(i + 3));
    }
    let all = cells(&root, "nb/analysis.ipynb");
    let ids: std::collections::HashSet<&str> = all.iter().filter_map(|c| c["id"].as_str()).collect();
    assert_eq!(ids.len(), 14, "every cell has its own id");
    assert_eq!(source(&all[13]), "def step_11(rows):\n    return len(rows) + 11\n");
    assert_eq!(all[13]["outputs"], json!([]));
    assert_eq!(all[13]["execution_count"], Value::Null);
    server.stop().await;
}

#[tokio::test]
async fn an_edit_of_a_jupyter_notebook_changes_only_the_cell_it_names_and_undo_restores_the_bytes() {
    let root = Root::new().file("sales.ipynb", JUPYTER);
    let server = Server::spawn(&root).await;
    let reply = server
        .call(
            "edit_notebook",
            json!({"path": "sales.ipynb", "edits": [
                {"action": "replace", "cell_id": "c0de0001", "source": "def total(xs):\n    return sum(xs) * 2\n"}
            ]}),
        )
        .await
        .ok();
    assert!(reply.text().contains("replaced code cell 1 (id c0de0001)"), "{}", reply.text());
    let text = String::from_utf8(root.read("sales.ipynb")).unwrap();
    let before_code = JUPYTER.find("  {\n   \"cell_type\": \"code\"").unwrap();
    assert_eq!(text[..before_code], JUPYTER[..before_code], "the cells before are byte-identical");
    assert_eq!(
        from_cell(&text, 2),
        from_cell(JUPYTER, 2),
        "the cells after and the metadata are byte-identical"
    );
    let code = &cells(&root, "sales.ipynb")[1];
    assert_eq!((code["outputs"].clone(), code["execution_count"].clone()), (json!([]), Value::Null));
    assert_eq!(code["metadata"], json!({"scrolled": true}));
    let undone = server.call("undo", json!({"path": "sales.ipynb"})).await.ok();
    assert!(undone.text().contains("undone"), "{}", undone.text());
    assert_eq!(root.read("sales.ipynb"), JUPYTER.as_bytes());
    server.stop().await;
}

#[tokio::test]
async fn a_deleted_cell_and_an_insert_before_another_leave_the_rest_byte_identical() {
    let root = Root::new().file("sales.ipynb", JUPYTER);
    let server = Server::spawn(&root).await;
    server
        .call("edit_notebook", json!({"path": "sales.ipynb", "edits": [{"action": "delete", "index": 0}]}))
        .await
        .ok();
    let text = String::from_utf8(root.read("sales.ipynb")).unwrap();
    assert_eq!(from_cell(&text, 0), from_cell(JUPYTER, 1));
    server
        .call(
            "edit_notebook",
            json!({"path": "sales.ipynb", "edits": [
                {"action": "insert", "cell_id": "ee33ff44", "cell_type": "markdown", "source": "## Notes"}
            ]}),
        )
        .await
        .ok();
    let all = cells(&root, "sales.ipynb");
    let kinds: Vec<(&str, String)> =
        all.iter().map(|c| (c["cell_type"].as_str().unwrap(), source(c))).collect();
    assert_eq!(kinds[1], ("markdown", "## Notes".to_owned()));
    assert_eq!(kinds[2], ("markdown", "The end.".to_owned()));
    let text = String::from_utf8(root.read("sales.ipynb")).unwrap();
    assert_eq!(from_cell(&text, 2), from_cell(JUPYTER, 2));
    server.stop().await;
}

#[tokio::test]
async fn a_bad_edit_changes_nothing_and_says_which_edit_and_why() {
    let root = Root::new().file("sales.ipynb", JUPYTER);
    let server = Server::spawn(&root).await;
    let text = server
        .call(
            "edit_notebook",
            json!({"path": "sales.ipynb", "edits": [
                {"action": "insert", "source": "x = 1"},
                {"action": "replace", "cell_id": "nope", "source": "y"}
            ]}),
        )
        .await
        .err();
    assert!(text.contains("edit 2 of 2") && text.contains("aa11bb22, c0de0001, ee33ff44"), "{text}");
    assert_eq!(root.read("sales.ipynb"), JUPYTER.as_bytes());
    let text = server
        .call("edit_notebook", json!({"path": "notes.txt", "edits": [{"action": "insert", "source": "x"}]}))
        .await
        .err();
    assert!(text.contains("not a notebook") && text.contains("edit_file"), "{text}");
    assert!(!root.exists("notes.txt"));
    server.stop().await;
}

#[tokio::test]
async fn a_broken_notebook_is_never_rewritten() {
    let cut = &JUPYTER[..JUPYTER.len() / 2];
    let root = Root::new().file("cut.ipynb", cut);
    let server = Server::spawn(&root).await;
    let text = server
        .call(
            "edit_notebook",
            json!({"path": "cut.ipynb", "edits": [{"action": "insert", "source": "x = 1"}]}),
        )
        .await
        .err();
    assert!(text.contains("broken") && text.contains("cut off"), "{text}");
    let text = server
        .call("edit_file", json!({"path": "cut.ipynb", "old_string": "total", "new_string": "sum"}))
        .await
        .err();
    assert!(text.contains("cut off"), "{text}");
    assert_eq!(root.read("cut.ipynb"), cut.as_bytes());
    server.stop().await;
}

#[tokio::test]
async fn edit_file_on_a_notebook_replaces_text_inside_one_cell_as_read_file_shows_it() {
    let root = Root::new().file("sales.ipynb", JUPYTER);
    let server = Server::spawn(&root).await;
    // Plain text with real newlines and quotes, never the escaped JSON.
    let reply = server
        .call(
            "edit_file",
            json!({"path": "sales.ipynb", "old_string": "    return sum(xs)\nprint(", "new_string": "    return sum(xs) or 0\nprint("}),
        )
        .await
        .ok();
    assert_eq!(reply.json()["replacements"], 1, "{}", reply.text());
    // The diff shows the cell's lines as read_file shows them, not the escaped JSON.
    let diff = reply.json()["diff"].as_str().unwrap_or_default().to_owned();
    assert!(diff.contains("+2\t    return sum(xs) or 0\n") && !diff.contains("\\n\","), "{diff}");
    let code = &cells(&root, "sales.ipynb")[1];
    assert_eq!(source(code), "def total(xs):\n    return sum(xs) or 0\nprint(total([1, 2, 3]))");
    assert_eq!(code["outputs"], json!([]), "the outputs of the old source are gone");
    // Across two cells: not found; escaped JSON: not found; nothing changed.
    let before = root.read("sales.ipynb");
    for old in ["Totals by région\nThe end.", "\\\"# Sales\\\\n\\\""] {
        let text = server
            .call("edit_file", json!({"path": "sales.ipynb", "old_string": old, "new_string": "x"}))
            .await
            .err();
        assert!(text.contains("not found"), "{text}");
    }
    let text = server
        .call("edit_file", json!({"path": "sales.ipynb", "edits": [{"after": "0", "new_string": "x\n"}]}))
        .await
        .err();
    assert!(text.contains("edit_notebook"), "{text}");
    assert_eq!(root.read("sales.ipynb"), before);
    server.stop().await;
}

#[tokio::test]
async fn append_file_and_a_write_file_that_is_no_notebook_are_refused_with_what_to_do() {
    let root = Root::new().file("sales.ipynb", JUPYTER);
    let server = Server::spawn(&root).await;
    let text = server.call("append_file", json!({"path": "sales.ipynb", "content": "more"})).await.err();
    assert!(text.contains("edit_notebook") && text.contains("insert"), "{text}");
    let text =
        server.call("append_file", json!({"path": "new.ipynb", "content": "{\"cells\": ["})).await.err();
    assert!(text.contains("edit_notebook"), "{text}");
    assert!(!root.exists("new.ipynb"));
    let text = server
        .call("write_file", json!({"path": "sales.ipynb", "content": "{\"cells\": [{\"cell_type\""}))
        .await
        .err();
    assert!(text.contains("not a valid notebook") && text.contains("edit_notebook"), "{text}");
    assert_eq!(root.read("sales.ipynb"), JUPYTER.as_bytes());
    // JSON with a cells list, but no nbformat version: nbformat refuses it, and so does write_file.
    let text = server
        .call("write_file", json!({"path": "bare.ipynb", "content": "{\"cells\": [], \"metadata\": {}}"}))
        .await
        .err();
    assert!(text.contains("not a valid notebook") && text.contains("nbformat"), "{text}");
    assert!(!root.exists("bare.ipynb"));
    // A whole valid notebook is a write like any other.
    let reply = server.call("write_file", json!({"path": "copy.ipynb", "content": JUPYTER})).await.ok();
    assert_eq!(reply.json()["created"], true);
    assert_eq!(root.read("copy.ipynb"), JUPYTER.as_bytes());
    server.stop().await;
}

#[tokio::test]
async fn every_edit_notebook_result_carries_the_verdict_naming_the_broken_cell() {
    let root = Root::new().file("sales.ipynb", JUPYTER);
    let server = Server::spawn(&root).await;
    let magics = json!({"path": "sales.ipynb", "edits": [
        {"action": "insert", "index": 1, "source": "%matplotlib inline\n!pip install pandas\nfiles = !ls\n"},
        {"action": "insert", "index": 2, "source": "%%time\nsum(range(10))\n"}
    ]});
    let reply = server.call("edit_notebook", magics).await.ok();
    assert_eq!(reply.json()["syntax"]["status"], "ok", "{}", reply.text());
    let broken = json!({"path": "sales.ipynb", "edits": [
        {"action": "replace", "cell_id": "c0de0001", "source": "def total(xs):\n    return sum(xs\nprint(total([1]))\n"}
    ]});
    let reply = server.call("edit_notebook", broken).await.ok();
    let syntax = &reply.json()["syntax"];
    assert_eq!(syntax["status"], "errors", "{}", reply.text());
    assert_eq!(syntax["problems"][0]["cell"]["index"], 3, "{}", reply.text());
    assert_eq!(syntax["problems"][0]["cell"]["id"], "c0de0001", "{}", reply.text());
    assert!(reply.text().contains("cell 3 (id c0de0001)"), "{}", reply.text());
    assert_eq!(reply.json()["new_problems"], 1, "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn line_anchors_read_from_a_notebook_name_their_cell_and_edit_file_lands_there() {
    let root = Root::new().file("sales.ipynb", JUPYTER);
    let server = Server::spawn(&root).await;
    let read = server.call("read_file", json!({"path": "sales.ipynb", "anchors": true})).await.ok();
    let anchor = |prefix: &str| -> String {
        let line = read.text().lines().find(|l| l.contains(prefix)).map(str::to_owned);
        line.and_then(|l| l.split('\t').next().map(str::to_owned))
            .unwrap_or_else(|| panic!("{}", read.text()))
    };
    let body = anchor("\t    return sum(xs)");
    assert!(body.starts_with("1:2#"), "{body}");
    let top = "2:0";
    let edits = json!([
        {"from": body, "new_string": "    return sum(xs) or 0\n"},
        {"after": top, "new_string": "Written down:\n"}
    ]);
    let reply = server.call("edit_file", json!({"path": "sales.ipynb", "edits": edits})).await.ok();
    assert_eq!(reply.json()["replacements"], 2, "{}", reply.text());
    let all = cells(&root, "sales.ipynb");
    assert_eq!(source(&all[1]), "def total(xs):\n    return sum(xs) or 0\nprint(total([1, 2, 3]))");
    assert_eq!(source(&all[2]), "Written down:\nThe end.");
    // The same anchor again is stale now: nothing changes, and fresh anchors of that cell are shown.
    let before = root.read("sales.ipynb");
    let text = server
        .call("edit_file", json!({"path": "sales.ipynb", "edits": [{"from": body, "new_string": "x\n"}]}))
        .await
        .err();
    assert!(text.contains("in cell 1") && text.contains("1:2#"), "{text}");
    // An anchor without its cell names no line of a notebook.
    let bare = body.trim_start_matches("1:");
    let text = server
        .call("edit_file", json!({"path": "sales.ipynb", "edits": [{"from": bare, "new_string": "x\n"}]}))
        .await
        .err();
    assert!(text.contains("<cell>:<line>#<hash>"), "{text}");
    assert_eq!(root.read("sales.ipynb"), before);
    server.stop().await;
}
