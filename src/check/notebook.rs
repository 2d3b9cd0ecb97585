//! A Jupyter notebook's verdict: its JSON, the nbformat schema, and each code cell's source.
//!
//! # Verdict
//! - Not JSON, or JSON cut off: `Errors` at its line. A notebook cannot be appended to (its
//!   JSON closes at the end), so a cut one is broken, never `Incomplete`.
//! - A rule of the nbformat schema broken (see [`crate::notebook::validate`]): `Errors`, at the
//!   line of the JSON where the cell or key is, the message naming the cell (index and id) and
//!   the key.
//! - Each code cell's source checked by its language's parser: Python when the notebook's
//!   language is Python or not said, IPython's syntax masked (see `ipython.rs`); a cell is
//!   complete text, so a bracket it leaves open is an error in it. Its problems carry the
//!   cell ([`CellAt`]) with the line and column in the cell's source, as `read_file` shows it.
//!   Cells of other languages are not checked.
//!
//! `check_files` reads more off the same cells ([`survey`]): each cell's stubs, and the names
//! a cell uses before any cell defines them.

mod ipython;

use std::time::Instant;

use serde_json::value::RawValue;

use super::languages::LanguageName;
use super::names::{Names, python};
use super::refs::Refs;
use super::report::{CellAt, NotChecked, Problem, Report, Status, source_text};
use super::stubs::{self, Stub, StubKind};
use super::survey::Survey;
use crate::lines::LineIndex;
use crate::notebook::{self, CellKind, Notebook};

pub(crate) use ipython::{Masked, mask};

const NAME: LanguageName = LanguageName::Notebook;

/// The verdict on the notebook `text`; past `deadline` NotChecked("timed out").
pub(crate) fn check_notebook(text: &str, deadline: Instant) -> Report {
    let index = LineIndex::new(text);
    let nb = match notebook::parse(text) {
        Ok(nb) => nb,
        Err(not) => {
            let next = match not.truncated {
                true => "; a notebook cannot be appended to: write it whole, or change it with edit_notebook",
                false => "",
            };
            let line = not.line.unwrap_or(1);
            let what = if not.truncated { "a broken notebook" } else { "not a notebook" };
            let message = format!("{what}: {}{next}", not.message);
            let problem = Problem::at(&index, index.start_of(line), message);
            return Report::found(NAME, Status::Errors, vec![problem]);
        }
    };
    let mut problems = schema_problems(&nb, &index);
    if is_python(&nb) {
        for cell in nb.cells.iter().filter(|c| c.kind == CellKind::Code) {
            let Some(masked) = mask(&cell.source) else { continue };
            if masked.text.trim().is_empty() {
                continue;
            }
            let budget = deadline.saturating_duration_since(Instant::now());
            let report = super::check_within("cell.py", &masked.text, budget);
            let at = CellAt { index: cell.index, id: cell.id.clone() };
            let lines = LineIndex::new(&cell.source);
            match report.status {
                Status::Ok => {}
                Status::NotChecked if report.reason == Some(NotChecked::TimedOut) => {
                    return Report::not_checked(Some(NAME), NotChecked::TimedOut);
                }
                Status::NotChecked => {}
                Status::Errors | Status::Incomplete => {
                    let cut =
                        if report.status == Status::Incomplete { " (the cell ends before it)" } else { "" };
                    for p in report.problems {
                        problems.push(Problem {
                            message: format!("{at}, line {}: {}{cut}", p.line, p.message),
                            source: source_text(lines.line(p.line)),
                            cell: Some(at.clone()),
                            ..p
                        });
                    }
                }
            }
        }
    }
    match problems.is_empty() {
        true => Report::ok(NAME),
        false => Report::found(NAME, Status::Errors, problems),
    }
}

/// Whether the notebook's code cells are Python: its kernel says so, or says nothing.
fn is_python(nb: &Notebook) -> bool {
    nb.language.as_deref().is_none_or(|l| {
        let l = l.to_ascii_lowercase();
        l == "python" || l == "python3" || l == "ipython" || l == "ipython3"
    })
}

/// The schema's violations, each at the line of the JSON where its cell or key is.
fn schema_problems(nb: &Notebook, index: &LineIndex) -> Vec<Problem> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(nb.text) else { return Vec::new() };
    let offset = |raw: &RawValue| notebook::span_in(nb.text, raw.get()).start;
    notebook::validate(&value)
        .into_iter()
        .map(|v| {
            let first = v.key.split(['.', '[']).next().unwrap_or_default();
            let at = match &v.cell {
                Some((i, _)) => nb.cells.get(*i).map_or(nb.cells_span.start, |cell| {
                    cell.fields.get(first).map_or(cell.span.start, offset)
                }),
                None => nb.top.get(first).map_or(0, offset),
            };
            Problem::at(index, at, format!("nbformat: {v}"))
        })
        .collect()
}

/// What `check_files` reads off a notebook besides its verdict: each Python code cell's
/// stubs, and the names its cells use before any defines them.
pub(crate) fn survey(text: &str) -> Survey {
    let Ok(nb) = notebook::parse(text) else { return Survey::default() };
    if !is_python(&nb) {
        return Survey::default();
    }
    let cells: Vec<(CellAt, Masked)> = nb
        .cells
        .iter()
        .filter(|c| c.kind == CellKind::Code)
        .filter_map(|c| Some((CellAt { index: c.index, id: c.id.clone() }, mask(&c.source)?)))
        .collect();
    let mut found = Vec::new();
    for (at, masked) in &cells {
        for stub in stubs::find_all_stubs("cell.py", &masked.text) {
            // A code cell of comments only is a note, not a file without code.
            if stub.kind == StubKind::NoCode {
                continue;
            }
            let original = nb.cells[at.index].source.lines().nth(stub.line.saturating_sub(1)).unwrap_or("");
            found.push(Stub {
                message: format!("{at}, line {}: {}", stub.line, stub.message),
                source: source_text(original).trim().to_owned(),
                cell: Some(at.clone()),
                ..stub
            });
        }
    }
    let refs = Refs { names: python::read_notebook(&cells).map(Names::Notebook), ..Refs::default() };
    Survey { stubs: found, refs }
}

#[cfg(test)]
mod tests;
