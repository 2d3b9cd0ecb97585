use serde_json::{Value, json};

use super::*;

fn valid() -> Value {
    json!({
        "cells": [
            {"cell_type": "markdown", "id": "a1", "metadata": {}, "source": "# Title"},
            {"cell_type": "code", "execution_count": 1, "id": "b2", "metadata": {"tags": ["x"]},
             "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["hi\n"]},
                {"output_type": "execute_result", "execution_count": 1, "data": {"text/plain": "1",
                  "application/vnd.x+json": {"a": 1}}, "metadata": {}},
                {"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["t"]}
             ],
             "source": ["x = 1\n", "x"]},
            {"cell_type": "raw", "id": "c3", "metadata": {"format": "text/plain"}, "source": ""}
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5
    })
}

fn messages(v: &Value) -> Vec<String> {
    validate(v).iter().map(ToString::to_string).collect()
}

#[test]
fn a_valid_notebook_has_no_violation() {
    assert_eq!(messages(&valid()), Vec::<String>::new());
}

#[test]
fn a_violation_names_the_cell_its_id_and_the_key() {
    let mut nb = valid();
    nb["cells"][1]["execution_count"] = json!("one");
    assert_eq!(
        messages(&nb),
        vec!["cell 1 (id b2), `execution_count`: must be an integer of at least 0, or null, found \"one\""]
    );
}

#[test]
fn ids_are_required_from_4_5_and_refused_before() {
    let mut nb = valid();
    nb["cells"][0].as_object_mut().unwrap().remove("id");
    assert!(messages(&nb)[0].starts_with("cell 0, `id`: missing"), "{:?}", messages(&nb));
    let mut old = valid();
    old["nbformat_minor"] = json!(4);
    let found = messages(&old);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found[0].contains("not allowed before nbformat 4.5"), "{found:?}");
}

#[test]
fn bad_and_duplicate_ids_are_named() {
    let mut nb = valid();
    nb["cells"][2]["id"] = json!("b2");
    assert!(messages(&nb)[0].contains("earlier cell too"), "{:?}", messages(&nb));
    nb["cells"][2]["id"] = json!("has space");
    assert!(messages(&nb)[0].contains("is not a cell id"));
    nb["cells"][2]["id"] = json!("x".repeat(65));
    assert!(messages(&nb)[0].contains("is not a cell id"));
    // Python's `$` matches before a final newline.
    nb["cells"][2]["id"] = json!("ok\n");
    assert_eq!(messages(&nb), Vec::<String>::new());
}

#[test]
fn unknown_keys_missing_keys_and_bad_outputs_are_violations() {
    let mut nb = valid();
    nb["extra"] = json!(1);
    nb["cells"][0]["outputs"] = json!([]);
    nb["cells"][1]["outputs"][0].as_object_mut().unwrap().remove("name");
    nb["cells"][1]["outputs"][1]["data"]["text/plain"] = json!(3);
    let found = messages(&nb);
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(found[0].starts_with("`extra`: not allowed"));
    assert!(found[1].starts_with("cell 0 (id a1), `outputs`: not allowed in a markdown cell"));
    assert!(found[2].contains("`outputs[0].name`: missing"));
    assert!(found[3].contains("`outputs[1].data.text/plain`: must be a string or a list of strings"));
}

#[test]
fn a_later_minor_version_is_relaxed_and_nbformat_3_is_refused() {
    let mut nb = valid();
    nb["nbformat_minor"] = json!(9);
    nb["cells"][0]["extra"] = json!(1);
    nb["cells"].as_array_mut().unwrap().push(json!({"cell_type": "future", "metadata": {}}));
    assert_eq!(messages(&nb), Vec::<String>::new());
    nb["nbformat"] = json!(3);
    assert_eq!(messages(&nb), vec!["`nbformat`: must be 4 (nbformat 4), found 3"]);
}

#[test]
fn integers_are_written_without_a_fraction() {
    let mut nb = valid();
    nb["cells"][1]["execution_count"] = json!(1.0);
    assert_eq!(validate(&nb).len(), 1);
}
