//! `edit_file` on a notebook: each `old_string` is matched inside one cell's source, as
//! `read_file` shows it, with the same tolerances as in any other file; never across cells and
//! never in the escaped JSON.

use super::edit::{Refused, edit_source};
use super::parse::{Cell, parse};
use crate::error::{EditFailure, Error, Result};
use crate::files::anchor::Anchor;
use crate::files::{self, Edit, Edited};

/// Apply `edits` (replacements only) to the cells of the notebook `text` at `path`, in order.
/// An `old_string` found in exactly one cell is replaced there (in every cell it occurs in with
/// `replace_all`); a code cell whose source changed loses its outputs and execution count.
pub fn edit_in_cells(path: &str, text: &str, edits: &[Edit], tolerant: bool) -> Result<Edited> {
    let mut text = text.to_owned();
    let mut replacements = vec![0; edits.len()];
    let mut tolerated = Vec::new();
    for (index, edit) in edits.iter().enumerate() {
        let fail = |failure| Error::Edit {
            path: path.to_owned(),
            index,
            total: edits.len(),
            failure: Box::new(failure),
        };
        let nb = parse(&text).map_err(|not| refused(path, not.into()))?;
        let (old, replace_all) = match edit {
            Edit::Replace { old, replace_all, .. } if !old.is_empty() => (old, *replace_all),
            Edit::Replace { .. } => return Err(fail(EditFailure::NotInCells)),
            Edit::Lines { .. } | Edit::Insert { .. } => {
                let (cell, in_cell) = in_one_cell(edit).ok_or_else(|| fail(EditFailure::NotInCells))?;
                let source = nb.cells.get(cell).map(|c| c.source.as_str()).ok_or_else(|| {
                    refused(path, Refused { edit: Some(index), reason: no_cell(cell, nb.cells.len()) })
                })?;
                let edited = files::apply_edits(path, source, &[in_cell], tolerant).map_err(|e| match e {
                    Error::Edit { failure, .. } => fail(anchored_in(*failure, cell)),
                    other => other,
                })?;
                replacements[index] += 1;
                text = edit_source(&text, cell, &edited.text).map_err(|r| refused(path, r))?;
                continue;
            }
        };
        let mut hits = Vec::new();
        let mut closest = Vec::new();
        // Cells where old_string occurs more than once (or matches several places tolerantly).
        let mut several = Vec::new();
        // As in any file, an exact match comes first: when some cells hold old_string as it
        // is, only they are candidates, and the others are not searched with a tolerance (most
        // of the time of an edit in a large notebook).
        let exact: Vec<&Cell<'_>> = nb.cells.iter().filter(|c| c.source.contains(old.as_str())).collect();
        let candidates = if exact.is_empty() { nb.cells.iter().collect() } else { exact };
        for cell in candidates {
            match files::apply_edits(path, &cell.source, std::slice::from_ref(edit), tolerant) {
                Ok(edited) => hits.push((cell.index, edited)),
                Err(Error::Edit { failure, .. }) => match *failure {
                    EditFailure::NotFound { closest: near } => {
                        let cell_at = format!("cell {}", cell.index);
                        closest.extend(
                            near.into_iter().map(|(line, text)| (line, format!("({cell_at}) {text}"))),
                        );
                    }
                    EditFailure::NoChange => return Err(fail(EditFailure::NoChange)),
                    other => several.push((cell.index, other)),
                },
                Err(other) => return Err(other),
            }
        }
        let mut cells: Vec<usize> =
            hits.iter().map(|(i, _)| *i).chain(several.iter().map(|(i, _)| *i)).collect();
        cells.sort_unstable();
        match (cells.len(), several.pop()) {
            (0, _) => {
                closest.truncate(3);
                return Err(fail(EditFailure::NotFound { closest }));
            }
            (1, Some((cell, failure))) => return Err(fail(in_cell(failure, cell))),
            (1, None) => {}
            (_, None) if replace_all => {}
            _ => return Err(fail(EditFailure::InSeveralCells { cells })),
        }
        if let Some((cell, _)) = hits.iter().find(|(i, _)| nb.cells[*i].source_inexact) {
            let reason = format!(
                "cell {cell}'s source holds an escaped lone surrogate (such as \\ud800), which is not text, so \
                 it cannot be edited in place; give the cell its whole new source with edit_notebook"
            );
            return Err(refused(path, Refused { edit: Some(index), reason }));
        }
        for (cell, edited) in hits {
            replacements[index] += edited.replacements.iter().sum::<usize>();
            tolerated.extend(edited.tolerated.into_iter().map(|t| format!("cell {cell}: {t}")));
            text = edit_source(&text, cell, &edited.text).map_err(|r| refused(path, r))?;
        }
    }
    Ok(Edited { text, replacements, converted_to_crlf: false, tolerated })
}

/// A line edit's cell and the edit with its anchors freed of it; None when its anchors
/// name no cell, or two.
fn in_one_cell(edit: &Edit) -> Option<(usize, Edit)> {
    let free = |anchor: &Anchor| Anchor { cell: None, ..anchor.clone() };
    match edit {
        Edit::Lines { from, to, new } if to.cell.is_none() || to.cell == from.cell => {
            Some((from.cell?, Edit::Lines { from: free(from), to: free(to), new: new.clone() }))
        }
        Edit::Insert { after, new } => {
            Some((after.cell?, Edit::Insert { after: free(after), new: new.clone() }))
        }
        _ => None,
    }
}

fn no_cell(cell: usize, cells: usize) -> String {
    format!(
        "there is no cell {cell}: the notebook has {cells} cells; read_file with anchors: true shows each line's anchor"
    )
}

/// A stale anchor found in cell `cell`, its anchors named as that cell's.
fn anchored_in(failure: EditFailure, cell: usize) -> EditFailure {
    match failure {
        EditFailure::StaleAnchor { anchor, problem, moved_to, around } => EditFailure::StaleAnchor {
            anchor: format!("{cell}:{anchor}"),
            problem: format!("in cell {cell}, {problem}"),
            moved_to,
            around: around.into_iter().map(|(a, text)| (format!("{cell}:{a}"), text)).collect(),
        },
        other => other,
    }
}

/// A failure found inside one cell, its lines named as that cell's.
fn in_cell(failure: EditFailure, cell: usize) -> EditFailure {
    match failure {
        EditFailure::AmbiguousTolerant { tolerance, candidates } => EditFailure::AmbiguousTolerant {
            tolerance,
            candidates: candidates.into_iter().map(|c| format!("cell {cell}, {c}")).collect(),
        },
        other => other,
    }
}

fn refused(path: &str, refused: Refused) -> Error {
    Error::Notebook { path: path.to_owned(), reason: refused.reason }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notebook(sources: &[(&str, &str)]) -> String {
        let cells: Vec<String> = sources
            .iter()
            .map(|(kind, source)| {
                let extra = if *kind == "code" { "\"execution_count\": 4, \"outputs\": [{\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": \"x\"}], " } else { "" };
                format!("{{\"cell_type\": \"{kind}\", {extra}\"metadata\": {{}}, \"source\": {}}}", serde_json::to_string(source).unwrap())
            })
            .collect();
        format!(
            "{{\"cells\": [{}], \"metadata\": {{}}, \"nbformat\": 4, \"nbformat_minor\": 4}}",
            cells.join(", ")
        )
    }

    fn replace(old: &str, new: &str, replace_all: bool) -> Edit {
        Edit::Replace { old: old.into(), new: new.into(), replace_all }
    }

    #[test]
    fn a_string_in_one_cell_is_replaced_there_and_its_outputs_cleared() {
        let text = notebook(&[("markdown", "# Sum\nadds"), ("code", "def total(xs):\n    return sum(xs)\n")]);
        let edited =
            edit_in_cells("a.ipynb", &text, &[replace("sum(xs)", "sum(xs) + 1", false)], false).unwrap();
        let nb = parse(&edited.text).unwrap();
        assert_eq!(nb.cells[1].source, "def total(xs):\n    return sum(xs) + 1\n");
        assert!(nb.cells[1].outputs().is_empty() && nb.cells[1].execution_count.is_none());
        let untouched = parse(&text).unwrap().cells[1].span.start;
        assert_eq!(edited.text[..untouched], text[..untouched]);
        assert_eq!(edited.replacements, [1]);
    }

    #[test]
    fn a_string_never_matches_across_cells_or_in_the_escaped_json() {
        let text = notebook(&[("code", "a = 1\n"), ("code", "b = 2\n")]);
        let across =
            edit_in_cells("a.ipynb", &text, &[replace("a = 1\nb = 2", "c", false)], false).unwrap_err();
        assert!(across.to_string().contains("not found"), "{across}");
        let escaped = edit_in_cells("a.ipynb", &text, &[replace("a = 1\\n", "c", false)], false).unwrap_err();
        assert!(escaped.to_string().contains("not found"), "{escaped}");
    }

    #[test]
    fn a_string_in_several_cells_names_them_unless_replace_all() {
        let text = notebook(&[("code", "x = 1\n"), ("markdown", "x"), ("code", "print(x)\n")]);
        let two = edit_in_cells("a.ipynb", &text, &[replace("x", "y", false)], false).unwrap_err();
        assert!(two.to_string().contains("cell 0, cell 1, cell 2"), "{two}");
        let twice = notebook(&[("code", "x = x + 1\n"), ("code", "print(x)\n")]);
        let both = edit_in_cells("a.ipynb", &twice, &[replace("x", "y", false)], false).unwrap_err();
        assert!(both.to_string().contains("cell 0, cell 1"), "{both}");
        let all = edit_in_cells("a.ipynb", &text, &[replace("x", "y", true)], false).unwrap();
        let nb = parse(&all.text).unwrap();
        let sources: Vec<&str> = nb.cells.iter().map(|c| c.source.as_str()).collect();
        assert_eq!(sources, ["y = 1\n", "y", "print(y)\n"]);
        assert_eq!(all.replacements, [3]);
    }

    #[test]
    fn tolerance_works_inside_a_cell_and_edits_without_a_cell_are_refused() {
        let text = notebook(&[("code", "if x:\n\tprint('a')\n")]);
        let edited = edit_in_cells(
            "a.ipynb",
            &text,
            &[replace("if x:\n    print('a')", "if x:\n    print('b')", false)],
            true,
        )
        .unwrap();
        assert!(parse(&edited.text).unwrap().cells[0].source.contains("'b'"));
        assert!(edited.tolerated[0].starts_with("cell 0: "), "{:?}", edited.tolerated);
        let empty = edit_in_cells("a.ipynb", &text, &[replace("", "x", false)], false).unwrap_err();
        assert!(empty.to_string().contains("edit_notebook"), "{empty}");
        let top = Edit::Insert { after: Anchor::parse("0").unwrap(), new: "x\n".into() };
        let no_cell = edit_in_cells("a.ipynb", &text, &[top], false).unwrap_err();
        assert!(no_cell.to_string().contains("`<cell>:<line>#<hash>`"), "{no_cell}");
    }

    #[test]
    fn a_line_edit_names_its_cell_and_a_stale_one_shows_fresh_anchors_of_that_cell() {
        use crate::files::anchor::anchor_of;
        let text = notebook(&[("code", "a = 1\n"), ("code", "b = 2\nc = 3\n")]);
        let line = Anchor::parse(&format!("1:2#{}", &anchor_of(2, "c = 3")[2..])).unwrap();
        let lines = Edit::Lines { from: line.clone(), to: line, new: "c = 4\n".into() };
        let top = Edit::Insert { after: Anchor::parse("0:0").unwrap(), new: "import os\n".into() };
        let edited = edit_in_cells("a.ipynb", &text, &[lines, top], false).unwrap();
        let nb = parse(&edited.text).unwrap();
        assert_eq!(
            (nb.cells[0].source.as_str(), nb.cells[1].source.as_str()),
            ("import os\na = 1\n", "b = 2\nc = 4\n")
        );
        let stale = Anchor::parse(&format!("0:1#{}", &anchor_of(1, "zzz")[2..])).unwrap();
        let stale = Edit::Lines { from: stale.clone(), to: stale, new: "x\n".into() };
        let error = edit_in_cells("a.ipynb", &text, &[stale], false).unwrap_err().to_string();
        assert!(
            error.contains("in cell 0") && error.contains(&format!("0:{}", anchor_of(1, "a = 1"))),
            "{error}"
        );
    }
}
