use super::*;

/// What nbformat 5.11's `nbformat.write` writes for `new_notebook()` with a Python kernel.
const BLANK: &str = "{\n \"cells\": [],\n \"metadata\": {\n  \"kernelspec\": {\n   \"display_name\": \"Python 3\",\n   \"language\": \"python\",\n   \"name\": \"python3\"\n  },\n  \"language_info\": {\n   \"name\": \"python\"\n  }\n },\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

/// nbformat's writer on the same notebook with a markdown cell (id aa11bb22) and a code cell
/// (id c0de0001).
const TWO: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"aa11bb22\",\n   \"metadata\": {},\n   \"source\": [\n    \"# Title\\n\",\n    \"\\n\",\n    \"Some *text* é\"\n   ]\n  },\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"id\": \"c0de0001\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"import os\\n\",\n    \"print(os.getcwd())\\n\"\n   ]\n  }\n ],\n \"metadata\": {\n  \"kernelspec\": {\n   \"display_name\": \"Python 3\",\n   \"language\": \"python\",\n   \"name\": \"python3\"\n  },\n  \"language_info\": {\n   \"name\": \"python\"\n  }\n },\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

fn ids(list: &[&str]) -> impl FnMut() -> String {
    let mut list: Vec<String> = list.iter().rev().map(|s| s.to_string()).collect();
    move || list.pop().expect("no more ids")
}

fn edit(action: EditAction, index: Option<usize>, cell_type: Option<&str>, source: Option<&str>) -> CellEdit {
    CellEdit {
        action,
        cell_id: None,
        index,
        cell_type: cell_type.map(str::to_owned),
        source: source.map(str::to_owned),
    }
}

#[test]
fn a_blank_notebook_is_what_nbformat_writes() {
    assert_eq!(blank_notebook(&Kernel::for_language(None)), BLANK);
}

#[test]
fn inserted_cells_are_spelled_as_nbformat_spells_them() {
    let edits = [
        edit(EditAction::Insert, None, Some("markdown"), Some("# Title\n\nSome *text* é")),
        edit(EditAction::Insert, None, None, Some("import os\nprint(os.getcwd())\n")),
    ];
    let applied = apply(BLANK, &edits, &mut ids(&["aa11bb22", "c0de0001"])).unwrap();
    assert_eq!(applied.text, TWO);
    assert_eq!(
        applied.done,
        ["inserted markdown cell 0 (id aa11bb22)", "inserted code cell 1 (id c0de0001)"]
    );
}

#[test]
fn deleting_each_cell_and_inserting_it_again_gives_the_same_bytes() {
    let first = apply(TWO, &[edit(EditAction::Delete, Some(0), None, None)], &mut ids(&[])).unwrap().text;
    let back = apply(
        &first,
        &[edit(EditAction::Insert, Some(0), Some("markdown"), Some("# Title\n\nSome *text* é"))],
        &mut ids(&["aa11bb22"]),
    );
    assert_eq!(back.unwrap().text, TWO);
    let last = apply(TWO, &[edit(EditAction::Delete, Some(1), None, None)], &mut ids(&[])).unwrap().text;
    let back = apply(
        &last,
        &[edit(EditAction::Insert, None, None, Some("import os\nprint(os.getcwd())\n"))],
        &mut ids(&["c0de0001"]),
    );
    assert_eq!(back.unwrap().text, TWO);
    let none = apply(
        TWO,
        &[edit(EditAction::Delete, Some(1), None, None), edit(EditAction::Delete, Some(0), None, None)],
        &mut ids(&[]),
    );
    assert_eq!(none.unwrap().text, BLANK);
}

#[test]
fn a_replaced_code_cell_loses_its_outputs_and_count_and_nothing_else_changes() {
    let ran = TWO.replace("\"execution_count\": null", "\"execution_count\": 7").replace(
        "\"outputs\": [],",
        "\"outputs\": [\n    {\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n      \"/tmp\\n\"\n     ]\n    }\n   ],",
    );
    let mut replace = edit(EditAction::Replace, None, None, Some("import os\nprint(os.listdir())\n"));
    replace.cell_id = Some("c0de0001".into());
    let replaced = apply(&ran, &[replace], &mut ids(&[])).unwrap();
    assert_eq!(replaced.text, TWO.replace("getcwd", "listdir"));
    assert_eq!(replaced.done, ["replaced code cell 1 (id c0de0001)"]);
    // The same source: nothing to clear, nothing changes.
    let same = apply(
        &ran,
        &[edit(EditAction::Replace, Some(1), None, Some("import os\nprint(os.getcwd())\n"))],
        &mut ids(&[]),
    );
    assert_eq!(same.unwrap().text, ran);
}

#[test]
fn a_cell_changed_to_another_type_keeps_its_id_and_metadata_and_gains_or_loses_what_the_type_has() {
    let tagged = TWO.replace(
        "\"id\": \"aa11bb22\",\n   \"metadata\": {}",
        "\"id\": \"aa11bb22\",\n   \"metadata\": {\n    \"tags\": []\n   }",
    );
    let code = apply(&tagged, &[edit(EditAction::Replace, Some(0), Some("code"), None)], &mut ids(&[]))
        .unwrap()
        .text;
    let nb = parse(&code).unwrap();
    assert_eq!((nb.cells[0].kind.clone(), nb.cells[0].id.as_deref()), (CellKind::Code, Some("aa11bb22")));
    let keys: Vec<&str> = nb.cells[0].fields.keys().collect();
    assert_eq!(keys, ["cell_type", "execution_count", "id", "metadata", "outputs", "source"]);
    assert!(code.contains("\"metadata\": {\n    \"tags\": []\n   }"));
    let back = apply(&code, &[edit(EditAction::Replace, Some(0), Some("markdown"), None)], &mut ids(&[]))
        .unwrap()
        .text;
    assert_eq!(back, tagged);
}

#[test]
fn a_bad_edit_refuses_the_whole_call_naming_it() {
    let edits =
        [edit(EditAction::Insert, None, None, Some("x = 1")), edit(EditAction::Delete, Some(9), None, None)];
    let refused = apply(TWO, &edits, &mut ids(&["1"])).unwrap_err();
    assert_eq!(refused.edit, Some(1));
    assert!(refused.reason.contains("has 3 cells"), "{}", refused.reason);
    let mut by_id = edit(EditAction::Delete, None, None, None);
    by_id.cell_id = Some("nope".into());
    let refused = apply(TWO, &[by_id], &mut ids(&[])).unwrap_err();
    assert!(refused.reason.contains("aa11bb22, c0de0001"), "{}", refused.reason);
    let bad_type =
        apply(TWO, &[edit(EditAction::Insert, None, Some("python"), None)], &mut ids(&[])).unwrap_err();
    assert!(bad_type.reason.contains("\"code\""), "{}", bad_type.reason);
    let cut =
        apply(&TWO[..200], &[edit(EditAction::Insert, None, None, None)], &mut ids(&["1"])).unwrap_err();
    assert!(cut.edit.is_none() && cut.reason.contains("broken"), "{}", cut.reason);
}

#[test]
fn other_layouts_are_kept_compact_two_spaces_crlf_and_string_sources() {
    let compact = "{\"cells\": [{\"cell_type\": \"code\", \"execution_count\": null, \"metadata\": {}, \"outputs\": [], \"source\": \"a = 1\"}], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 4}";
    let added =
        apply(compact, &[edit(EditAction::Insert, None, Some("markdown"), Some("hi\nthere"))], &mut ids(&[]))
            .unwrap()
            .text;
    assert_eq!(
        added,
        compact.replace(
            "\"a = 1\"}]",
            "\"a = 1\"}, {\"cell_type\": \"markdown\", \"metadata\": {}, \"source\": \"hi\\nthere\"}]"
        )
    );
    let two = "{\r\n  \"cells\": [\r\n    {\r\n      \"cell_type\": \"markdown\",\r\n      \"metadata\": {},\r\n      \"source\": [\r\n        \"a\"\r\n      ]\r\n    }\r\n  ],\r\n  \"nbformat\": 4,\r\n  \"nbformat_minor\": 2\r\n}";
    let added = apply(two, &[edit(EditAction::Insert, Some(0), Some("raw"), Some("b\n"))], &mut ids(&[]))
        .unwrap()
        .text;
    let cell = "{\r\n      \"cell_type\": \"raw\",\r\n      \"metadata\": {},\r\n      \"source\": [\r\n        \"b\\n\"\r\n      ]\r\n    },\r\n    ";
    assert_eq!(
        added,
        two.replacen(
            "{\r\n      \"cell_type\": \"markdown\"",
            &format!("{cell}{{\r\n      \"cell_type\": \"markdown\""),
            1
        )
    );
}

#[test]
fn new_ids_never_repeat_one_the_notebook_has() {
    let applied = apply(
        TWO,
        &[edit(EditAction::Insert, None, None, None)],
        &mut ids(&["aa11bb22", "c0de0001", "fresh"]),
    )
    .unwrap();
    assert_eq!(applied.done, ["inserted code cell 2 (id fresh)"]);
}

mod properties {
    use proptest::prelude::*;

    use super::*;

    /// Notebooks spelled four ways: nbformat's, 2 spaces with CRLF, compact, and sources as strings.
    const LAYOUTS: [&str; 4] = [
        BLANK,
        "{\r\n  \"cells\": [],\r\n  \"metadata\": {},\r\n  \"nbformat\": 4,\r\n  \"nbformat_minor\": 5\r\n}",
        "{\"cells\":[],\"metadata\":{},\"nbformat\":4,\"nbformat_minor\":4}",
        "{\"cells\": [{\"cell_type\": \"raw\", \"metadata\": {}, \"source\": \"r\"}], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 4}",
    ];

    #[derive(Debug, Clone)]
    enum Op {
        Insert { at: usize, kind: usize, source: String },
        Replace { at: usize, kind: Option<usize>, source: Option<String> },
        Delete { at: usize },
    }

    fn op() -> impl Strategy<Value = Op> {
        let source = "(\\PC|\n|\r|\"|\\\\){0,40}";
        prop_oneof![
            (0usize..8, 0usize..3, source).prop_map(|(at, kind, source)| Op::Insert { at, kind, source }),
            (0usize..8, proptest::option::of(0usize..3), proptest::option::of(source))
                .prop_map(|(at, kind, source)| Op::Replace { at, kind, source }),
            (0usize..8).prop_map(|at| Op::Delete { at }),
        ]
    }

    const KINDS: [&str; 3] = ["code", "markdown", "raw"];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Whatever the edits, the notebook parses after each, holds the cells meant, and every
        /// cell the edit did not name keeps its bytes.
        #[test]
        fn edits_give_the_cells_meant_and_leave_the_others_byte_identical(layout in 0usize..4, ops in proptest::collection::vec(op(), 1..12)) {
            let mut text = LAYOUTS[layout].to_owned();
            let mut counter = 0;
            let mut fresh = move || { counter += 1; format!("id{counter}") };
            for op in ops {
                let nb = parse(&text).unwrap();
                let mut meant: Vec<(String, String)> = nb.cells.iter().map(|c| (c.kind.name().to_owned(), c.source.clone())).collect();
                let mut kept: Vec<Option<String>> = nb.cells.iter().map(|c| Some(text[c.span.clone()].to_owned())).collect();
                let n = nb.cells.len();
                let edit = match &op {
                    Op::Insert { at, kind, source } => {
                        let at = at % (n + 1);
                        meant.insert(at, (KINDS[*kind].to_owned(), source.clone()));
                        kept.insert(at, None);
                        CellEdit { action: EditAction::Insert, cell_id: None, index: Some(at), cell_type: Some(KINDS[*kind].into()), source: Some(source.clone()) }
                    }
                    Op::Replace { at, kind, source } if n > 0 && (kind.is_some() || source.is_some()) => {
                        let at = at % n;
                        if let Some(kind) = kind { meant[at].0 = KINDS[*kind].to_owned(); }
                        if let Some(source) = source { meant[at].1 = source.clone(); }
                        kept[at] = None;
                        CellEdit { action: EditAction::Replace, cell_id: None, index: Some(at), cell_type: kind.map(|k| KINDS[k].to_owned()), source: source.clone() }
                    }
                    Op::Delete { at } if n > 0 => {
                        meant.remove(at % n);
                        kept.remove(at % n);
                        CellEdit { action: EditAction::Delete, cell_id: None, index: Some(at % n), cell_type: None, source: None }
                    }
                    _ => continue,
                };
                text = apply(&text, &[edit], &mut fresh).unwrap().text;
                let json: serde_json::Value = serde_json::from_str(&text).unwrap();
                prop_assert!(json.is_object());
                let nb = parse(&text).unwrap();
                let got: Vec<(String, String)> = nb.cells.iter().map(|c| (c.kind.name().to_owned(), c.source.clone())).collect();
                prop_assert_eq!(&got, &meant);
                for (cell, kept) in nb.cells.iter().zip(&kept) {
                    if let Some(kept) = kept {
                        prop_assert_eq!(&text[cell.span.clone()], kept.as_str());
                    }
                    if cell.kind == CellKind::Code {
                        prop_assert!(cell.fields.get("outputs").is_some() && cell.fields.get("execution_count").is_some());
                    } else {
                        prop_assert!(cell.fields.get("outputs").is_none());
                    }
                }
                let ids: Vec<&str> = nb.cells.iter().filter_map(|c| c.id.as_deref()).collect();
                let unique: std::collections::HashSet<&&str> = ids.iter().collect();
                prop_assert_eq!(ids.len(), unique.len());
            }
        }
    }
}

/// Notebooks written by nbformat's own writer (`scripts/notebook-fixtures.py`).
const FIXTURES: [(&str, &str); 5] = [
    ("analysis", include_str!("../../tests/data/notebooks/analysis.ipynb")),
    ("attachments", include_str!("../../tests/data/notebooks/attachments.ipynb")),
    ("legacy-v4.4", include_str!("../../tests/data/notebooks/legacy-v4.4.ipynb")),
    ("magics", include_str!("../../tests/data/notebooks/magics.ipynb")),
    ("unicode", include_str!("../../tests/data/notebooks/unicode.ipynb")),
];

#[test]
fn jupyter_written_notebooks_round_trip_byte_for_byte_through_edits_that_do_not_touch_them() {
    for (name, text) in FIXTURES {
        let nb = parse(text).unwrap();
        let n = nb.cells.len();
        let cells: Vec<&str> = nb.cells.iter().map(|c| &text[c.span.clone()]).collect();
        for at in 0..=n {
            for kind in ["code", "markdown", "raw"] {
                let inserted = apply(
                    text,
                    &[edit(EditAction::Insert, Some(at), Some(kind), Some("x = 1\ny\n"))],
                    &mut ids(&["new1"]),
                )
                .unwrap()
                .text;
                let after = parse(&inserted).unwrap();
                let kept: Vec<&str> =
                    after.cells.iter().filter(|c| c.index != at).map(|c| &inserted[c.span.clone()]).collect();
                assert_eq!(kept, cells, "{name}: insert at {at} touched another cell");
                let back = apply(&inserted, &[edit(EditAction::Delete, Some(at), None, None)], &mut ids(&[]))
                    .unwrap();
                assert_eq!(back.text, text, "{name}: insert then delete at {at} is not the original");
            }
        }
        for cell in &nb.cells {
            let k = cell.index;
            let replaced = apply(
                text,
                &[edit(EditAction::Replace, Some(k), None, Some("changed = True\n"))],
                &mut ids(&[]),
            )
            .unwrap()
            .text;
            let after = parse(&replaced).unwrap();
            for other in after.cells.iter().filter(|c| c.index != k) {
                assert_eq!(
                    &replaced[other.span.clone()],
                    cells[other.index],
                    "{name}: replacing {k} touched {}",
                    other.index
                );
            }
            assert_eq!(
                replaced[..nb.cells[0].span.start],
                text[..nb.cells[0].span.start],
                "{name}: the head changed"
            );
            let tail = nb.cells[n - 1].span.end;
            assert_eq!(
                &replaced[after.cells[n - 1].span.end..],
                &text[tail..],
                "{name}: the metadata changed"
            );
            if cell.kind != CellKind::Code || cell.outputs().is_empty() && cell.execution_count.is_none() {
                let source = cell.source.clone();
                let back = apply(
                    &replaced,
                    &[edit(EditAction::Replace, Some(k), None, Some(&source))],
                    &mut ids(&[]),
                )
                .unwrap();
                assert_eq!(back.text, text, "{name}: replacing cell {k} and back is not the original");
            }
            let deleted =
                apply(text, &[edit(EditAction::Delete, Some(k), None, None)], &mut ids(&[])).unwrap().text;
            let left: Vec<&str> =
                parse(&deleted).unwrap().cells.iter().map(|c| &deleted[c.span.clone()]).collect();
            let mut meant = cells.clone();
            meant.remove(k);
            assert_eq!(left, meant, "{name}: deleting {k}");
        }
    }
}

#[test]
fn a_source_that_is_not_text_keeps_its_bytes_through_a_type_change_and_other_versions_are_refused() {
    let text = "{\"cells\":[{\"cell_type\":\"code\",\"execution_count\":null,\"id\":\"c0\",\"metadata\":{},\"outputs\":[],\"source\":\"x = '\\ud800' + 1\"}],\"metadata\":{},\"nbformat\":4,\"nbformat_minor\":5}";
    let nb = parse(text).unwrap();
    assert!(nb.cells[0].source_inexact);
    assert_eq!(nb.cells[0].source, "x = '\u{fffd}' + 1");
    let changed = apply(text, &[edit(EditAction::Replace, Some(0), Some("markdown"), None)], &mut ids(&[]))
        .unwrap()
        .text;
    assert!(changed.contains("\"source\":\"x = '\\ud800' + 1\""), "{changed}");
    let five = "{\"cells\":[],\"metadata\":{},\"nbformat\":5,\"nbformat_minor\":0}";
    let refused =
        apply(five, &[edit(EditAction::Insert, None, None, Some("x"))], &mut ids(&["a"])).unwrap_err();
    assert!(refused.reason.contains("nbformat 5"), "{}", refused.reason);
}

#[test]
fn a_markdown_cell_made_code_says_its_attachments_are_dropped() {
    let text = TWO.replace("\"id\": \"aa11bb22\",", "\"attachments\": {},\n   \"id\": \"aa11bb22\",");
    let applied =
        apply(&text, &[edit(EditAction::Replace, Some(0), Some("code"), None)], &mut ids(&[])).unwrap();
    assert!(
        applied.done[0].ends_with("(its attachments dropped: a code cell cannot hold them)"),
        "{:?}",
        applied.done
    );
    assert!(!applied.text.contains("attachments"));
}
