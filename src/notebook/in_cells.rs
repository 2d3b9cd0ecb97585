//! `edit_file` on a notebook: each `old_string` is matched inside one cell's source, as
//! `read_file` shows it, with the same tolerances as in any other file; never across cells and
//! never in the escaped JSON.

use super::edit::{Refused, edit_source};
use super::parse::parse;
use crate::error::{EditFailure, Error, Result};
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
        let replace_all = match edit {
            Edit::Replace { old, replace_all, .. } if !old.is_empty() => *replace_all,
            _ => return Err(fail(EditFailure::NotInCells)),
        };
        let nb = parse(&text).map_err(|not| refused(path, not.into()))?;
        let mut hits = Vec::new();
        let mut closest = Vec::new();
        for cell in &nb.cells {
            match files::apply_edits(path, &cell.source, std::slice::from_ref(edit), tolerant) {
                Ok(edited) => hits.push((cell.index, edited)),
                Err(Error::Edit { failure, .. }) => match *failure {
                    EditFailure::NotFound { closest: near } => {
                        let cell_at = format!("cell {}", cell.index);
                        closest.extend(
                            near.into_iter().map(|(line, text)| (line, format!("({cell_at}) {text}"))),
                        );
                    }
                    // Found more than once in this cell: that is this cell's answer.
                    other => return Err(fail(in_cell(other, cell.index))),
                },
                Err(other) => return Err(other),
            }
        }
        match hits.len() {
            0 => {
                closest.truncate(3);
                return Err(fail(EditFailure::NotFound { closest }));
            }
            1 => {}
            _ if replace_all => {}
            _ => {
                return Err(fail(EditFailure::InSeveralCells {
                    cells: hits.iter().map(|(i, _)| *i).collect(),
                }));
            }
        }
        for (cell, edited) in hits {
            replacements[index] += edited.replacements.iter().sum::<usize>();
            tolerated.extend(edited.tolerated.into_iter().map(|t| format!("cell {cell}: {t}")));
            text = edit_source(&text, cell, &edited.text).map_err(|r| refused(path, r))?;
        }
    }
    Ok(Edited { text, replacements, converted_to_crlf: false, tolerated })
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
        assert!(nb.cells[1].outputs.is_empty() && nb.cells[1].execution_count.is_none());
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
        let all = edit_in_cells("a.ipynb", &text, &[replace("x", "y", true)], false).unwrap();
        let nb = parse(&all.text).unwrap();
        let sources: Vec<&str> = nb.cells.iter().map(|c| c.source.as_str()).collect();
        assert_eq!(sources, ["y = 1\n", "y", "print(y)\n"]);
        assert_eq!(all.replacements, [3]);
    }

    #[test]
    fn tolerance_works_inside_a_cell_and_line_edits_are_refused() {
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
    }
}
