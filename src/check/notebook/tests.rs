use serde_json::json;

use super::*;
use crate::check::check;

/// A notebook of nbformat 4.5 with these code cells (ids `c0`, `c1`...).
fn notebook(cells: &[&str]) -> String {
    let cells: Vec<_> = cells
        .iter()
        .enumerate()
        .map(|(i, source)| {
            json!({"cell_type": "code", "execution_count": null, "id": format!("c{i}"), "metadata": {},
                   "outputs": [], "source": crate::notebook::split_lines(source)})
        })
        .collect();
    let nb = json!({"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
        "language": "python"}}, "nbformat": 4, "nbformat_minor": 5});
    serde_json::to_string_pretty(&nb).unwrap() + "\n"
}

#[test]
fn a_valid_notebook_with_magics_is_ok() {
    let text = notebook(&["%matplotlib inline\nimport os\n!ls\nfiles = !ls\n", "%%bash\necho (\n", "os?\n"]);
    let report = check("a.ipynb", &text);
    assert_eq!(report.status, Status::Ok, "{}", report.summary());
    assert_eq!(report.language, Some(LanguageName::Notebook));
}

#[test]
fn a_syntax_error_names_its_cell_and_its_line_in_the_cell() {
    let text = notebook(&["x = 1\n", "y = 2\nfoo(a))\nz = 3\n"]);
    let report = check("a.ipynb", &text);
    assert_eq!(report.status, Status::Errors, "{}", report.summary());
    let p = &report.problems[0];
    assert_eq!(p.cell, Some(CellAt { index: 1, id: Some("c1".into()) }));
    assert_eq!((p.line, p.column), (2, 7));
    assert_eq!(p.source, "foo(a))");
    assert!(p.message.starts_with("cell 1 (id c1), line 2: "), "{}", p.message);
}

#[test]
fn a_bracket_left_open_at_a_cells_end_is_an_error_in_it() {
    let report = check("a.ipynb", &notebook(&["print(1,\n", "x = 1\n"]));
    assert_eq!(report.status, Status::Errors, "{}", report.summary());
    assert_eq!(report.problems[0].cell.as_ref().map(|c| c.index), Some(0));
}

#[test]
fn a_cut_notebook_is_errors_never_incomplete() {
    let text = notebook(&["x = 1\n"]);
    for cut in [&text[..text.len() / 2], ""] {
        let report = check("a.ipynb", cut);
        assert_eq!(report.status, Status::Errors, "{}", report.summary());
        assert!(report.problems[0].message.contains("cannot be appended to"), "{}", report.summary());
    }
}

#[test]
fn a_schema_violation_names_the_cell_at_its_line_in_the_file() {
    let text =
        notebook(&["x = 1\n", "y = 2\n"]).replace("\"execution_count\": null", "\"execution_count\": \"no\"");
    let report = check("a.ipynb", &text);
    assert_eq!(report.status, Status::Errors, "{}", report.summary());
    let p = &report.problems[0];
    assert!(p.message.starts_with("nbformat: cell 0 (id c0), `execution_count`"), "{}", p.message);
    assert!(p.source.contains("execution_count"), "{p:?}");
    assert_eq!(p.cell, None);
}

#[test]
fn cells_of_another_language_are_not_checked() {
    let text = notebook(&["x <- c(1, 2\n"]).replace("\"python\"", "\"R\"");
    assert_eq!(check("a.ipynb", &text).status, Status::Ok);
}

#[test]
fn stubs_are_found_per_cell() {
    let text = notebook(&["x = 1\n", "def f():\n    pass  # TODO\n"]);
    let found = survey(&text).stubs;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].cell, Some(CellAt { index: 1, id: Some("c1".into()) }));
    assert_eq!(found[0].line, 2);
}

fn names(cells: &[&str]) -> Option<python::NotebookNames> {
    match survey(&notebook(cells)).refs.names {
        Some(Names::Notebook(n)) => Some(n),
        _ => None,
    }
}

#[test]
fn a_name_used_before_the_cell_that_defines_it_is_early_and_one_defined_nowhere_is_free() {
    let n = names(&[
        "print(total)\ndisplay(1)\n",
        "def f():\n    return later\n",
        "total = 1\nlater = 2\n",
        "g(1)\n",
    ])
    .expect("names known");
    assert_eq!(n.early.len(), 1, "{:?}", n.early);
    assert_eq!((n.early[0].name.as_str(), n.early[0].cell.index, n.early[0].bound_in.index), ("total", 0, 2));
    let free: Vec<_> =
        n.whole.free.iter().map(|f| (f.name.as_str(), n.locate(f.line).map(|(c, l)| (c.index, l)))).collect();
    assert_eq!(free, vec![("g", Some((3, 1)))]);
}

#[test]
fn a_notebook_that_runs_other_code_says_nothing_of_names() {
    assert!(names(&["%run other.py\n", "print(x)\n"]).is_none());
    assert!(names(&["get_ipython().run_line_magic('x', '')\n"]).is_none());
}
