//! Cells inserted, replaced and deleted, all or nothing, with every other byte kept.
//!
//! Each edit splices new bytes over the span of what it changes (a cell, or a value inside
//! one) and leaves the rest of the file as it was: untouched cells and their outputs, the
//! notebook's metadata, key order, indentation and final newline. Edits apply in order, each
//! to the notebook the one before it left; one that cannot apply refuses the whole call.

use super::NotNotebook;
use super::layout::{Json, Layout};
use super::parse::{Cell, CellKind, Notebook, parse};

/// Cells sit at this depth: in the top-level object's `cells` list.
const CELL_DEPTH: usize = 2;

/// What an edit does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditAction {
    /// A new cell, before the one named, or at the end when none is.
    Insert,
    /// A cell's source and/or type.
    Replace,
    /// A cell, gone.
    Delete,
}

/// One edit of `edit_notebook`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellEdit {
    /// What it does.
    pub action: EditAction,
    /// The cell, by its id.
    pub cell_id: Option<String>,
    /// The cell, by its 0-based index.
    pub index: Option<usize>,
    /// `code`, `markdown` or `raw`.
    pub cell_type: Option<String>,
    /// The cell's whole source.
    pub source: Option<String>,
}

/// The kernel a new notebook names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// `kernelspec.name`: `python3`.
    pub name: String,
    /// `kernelspec.display_name`: `Python 3`.
    pub display_name: String,
    /// `kernelspec.language` and `language_info.name`: `python`.
    pub language: String,
}

impl Kernel {
    /// The usual kernel of `language` (`python`, `r`, `julia`...); Python's when None.
    pub fn for_language(language: Option<&str>) -> Kernel {
        let language = language.map(str::trim).filter(|l| !l.is_empty()).unwrap_or("python").to_lowercase();
        let (name, display_name) = match language.as_str() {
            "python" | "python3" => ("python3", "Python 3"),
            "r" => ("ir", "R"),
            "julia" => ("julia", "Julia"),
            "scala" => ("scala", "Scala"),
            "javascript" | "typescript" => ("deno", "Deno"),
            other => (other, other),
        };
        let (name, display_name) = (name.to_owned(), display_name.to_owned());
        let language = if language == "python3" { "python".to_owned() } else { language };
        Kernel { name, display_name, language }
    }
}

/// A notebook with no cells, as Jupyter writes one: nbformat 4.5, with `kernel`.
pub fn blank_notebook(kernel: &Kernel) -> String {
    let metadata = Json::Object(vec![
        (
            "kernelspec".into(),
            Json::Object(vec![
                ("display_name".into(), Json::Str(kernel.display_name.clone())),
                ("language".into(), Json::Str(kernel.language.clone())),
                ("name".into(), Json::Str(kernel.name.clone())),
            ]),
        ),
        ("language_info".into(), Json::Object(vec![("name".into(), Json::Str(kernel.language.clone()))])),
    ]);
    let notebook = Json::Object(vec![
        ("cells".into(), Json::List(Vec::new())),
        ("metadata".into(), metadata),
        ("nbformat".into(), Json::Int(4)),
        ("nbformat_minor".into(), Json::Int(5)),
    ]);
    Layout::default().write(&notebook, 0) + "\n"
}

/// Why an edit was refused; nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// 0-based index of the edit that cannot apply; None when the notebook itself is at fault.
    pub edit: Option<usize>,
    /// What is wrong and what to do.
    pub reason: String,
}

impl From<NotNotebook> for Refused {
    fn from(not: NotNotebook) -> Self {
        let what = match not.truncated {
            true => "the notebook is broken: ",
            false => "the file is not a notebook this tool can change: ",
        };
        let fix = "; it is left as it is. read_file shows its JSON lines; write it again whole with \
                   write_file (a valid notebook) to edit it as cells";
        Refused { edit: None, reason: format!("{what}{not}{fix}") }
    }
}

/// The result of [`apply`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The whole new text.
    pub text: String,
    /// What each edit did, for the reply: `inserted code cell 3 (id 1f0c9a2e)`.
    pub done: Vec<String>,
    /// Cells in the notebook after the edits.
    pub cells: usize,
}

/// Apply `edits` to the notebook `text`, in order; `new_id` makes a fresh cell id (checked
/// for uniqueness here).
pub fn apply(text: &str, edits: &[CellEdit], new_id: &mut dyn FnMut() -> String) -> Result<Applied, Refused> {
    let mut text = text.to_owned();
    let mut done = Vec::with_capacity(edits.len());
    let mut cells = 0;
    for (i, edit) in edits.iter().enumerate() {
        let nb = parse(&text)?;
        cells = nb.cells.len();
        let major = nb.top.get("nbformat").and_then(|v| serde_json::from_str::<u64>(v.get()).ok());
        if let Some(major) = major.filter(|m| *m != 4) {
            return Err(Refused {
                edit: None,
                reason: format!(
                    "it is an nbformat {major} notebook, and only nbformat 4 notebooks are changed here; it \
                     is left as it is (Jupyter converts one: jupyter nbconvert --to notebook --nbformat 4)"
                ),
            });
        }
        let (next, what) =
            apply_one(&nb, edit, new_id).map_err(|reason| Refused { edit: Some(i), reason })?;
        done.push(what);
        text = next;
        cells = match edit.action {
            EditAction::Insert => cells + 1,
            EditAction::Delete => cells - 1,
            EditAction::Replace => cells,
        };
    }
    Ok(Applied { text, done, cells })
}

/// `text` with cell `index`'s source replaced by `source` (a code cell's outputs and count
/// cleared, as they no longer belong to it): what `edit_file` does inside a notebook.
pub fn edit_source(text: &str, index: usize, source: &str) -> Result<String, Refused> {
    let edit = CellEdit {
        action: EditAction::Replace,
        cell_id: None,
        index: Some(index),
        cell_type: None,
        source: Some(source.to_owned()),
    };
    // A replace makes no cell id.
    apply(text, &[edit], &mut String::new).map(|applied| applied.text)
}

fn apply_one(
    nb: &Notebook<'_>,
    edit: &CellEdit,
    new_id: &mut dyn FnMut() -> String,
) -> Result<(String, String), String> {
    let kind = match &edit.cell_type {
        None => None,
        Some(name) => Some(CellKind::named(name).ok_or_else(|| {
            format!("`cell_type` {name:?} is not a cell type: use \"code\", \"markdown\" or \"raw\"")
        })?),
    };
    match edit.action {
        EditAction::Insert => {
            let before = match (&edit.cell_id, edit.index) {
                (None, None) => None,
                (None, Some(index)) if index == nb.cells.len() => None,
                _ => Some(target(nb, edit, "insert before")?),
            };
            let kind = kind.unwrap_or(CellKind::Code);
            let source = edit.source.clone().unwrap_or_default();
            let id = wants_ids(nb).then(|| fresh_id(nb, new_id));
            let cell = new_cell(&nb.layout, &kind, id.as_deref(), &source);
            let at = before.map_or(nb.cells.len(), |c| c.index);
            let text = insert(nb, before, &cell);
            let id_note = id.map(|id| format!(" (id {id})")).unwrap_or_default();
            Ok((text, format!("inserted {} cell {at}{id_note}", kind.name())))
        }
        EditAction::Delete => {
            if edit.source.is_some() || edit.cell_type.is_some() {
                return Err("a delete takes only `cell_id` or `index`: drop `source` and `cell_type`".into());
            }
            let cell = target(nb, edit, "delete")?;
            Ok((
                delete(nb, cell),
                format!("deleted {} cell {}{}", cell.kind.name(), cell.index, id_note(cell)),
            ))
        }
        EditAction::Replace => {
            if edit.source.is_none() && kind.is_none() {
                return Err("a replace needs `source`, `cell_type` or both".into());
            }
            let cell = target(nb, edit, "replace")?;
            let text = replace(nb, cell, kind.as_ref(), edit.source.as_deref());
            let kind = kind.as_ref().unwrap_or(&cell.kind);
            let dropped = match *kind == CellKind::Code && cell.fields.get("attachments").is_some() {
                true => " (its attachments dropped: a code cell cannot hold them)",
                false => "",
            };
            Ok((text, format!("replaced {} cell {}{}{dropped}", kind.name(), cell.index, id_note(cell))))
        }
    }
}

fn id_note(cell: &Cell<'_>) -> String {
    cell.id.as_ref().map(|id| format!(" (id {id})")).unwrap_or_default()
}

/// The cell an edit names, by id or index (both must agree when both are given).
fn target<'n, 't>(nb: &'n Notebook<'t>, edit: &CellEdit, doing: &str) -> Result<&'n Cell<'t>, String> {
    let by_index = match edit.index {
        None => None,
        Some(index) => Some(nb.cells.get(index).ok_or_else(|| match nb.cells.len() {
            0 => format!("there is no cell {index} to {doing}: the notebook has no cells (insert one)"),
            n => format!(
                "there is no cell {index} to {doing}: the notebook has {n} cells, indexes 0-{}",
                n - 1
            ),
        })?),
    };
    let by_id = match &edit.cell_id {
        None => None,
        Some(id) => {
            Some(nb.cells.iter().find(|c| c.id.as_deref() == Some(id.as_str())).ok_or_else(|| {
                let ids: Vec<String> = nb.cells.iter().filter_map(|c| c.id.clone()).take(12).collect();
                match ids.is_empty() {
                    true => format!(
                        "no cell has id {id:?}: this notebook's cells have no ids; name the cell by `index`"
                    ),
                    false => format!(
                        "no cell has id {id:?}; the notebook's ids are {}{} (read_file shows each cell's id)",
                        ids.join(", "),
                        if nb.cells.len() > 12 { ", ..." } else { "" }
                    ),
                }
            })?)
        }
    };
    match (by_index, by_id) {
        (Some(a), Some(b)) if a.index != b.index => Err(format!(
            "`index` {} and `cell_id` {:?} name different cells (that id is cell {}): give one",
            a.index,
            edit.cell_id.as_deref().unwrap_or(""),
            b.index
        )),
        (Some(cell), _) | (None, Some(cell)) => Ok(cell),
        (None, None) => Err(format!("name the cell to {doing} with `cell_id` or `index`")),
    }
}

/// nbformat 4.5 and later give every cell an id; so does a notebook whose cells have them.
fn wants_ids(nb: &Notebook<'_>) -> bool {
    nb.nbformat.is_some_and(|(major, minor)| major > 4 || (major == 4 && minor >= 5))
        || nb.cells.iter().any(|c| c.id.is_some())
}

fn fresh_id(nb: &Notebook<'_>, new_id: &mut dyn FnMut() -> String) -> String {
    loop {
        let id = new_id();
        if !nb.cells.iter().any(|c| c.id.as_deref() == Some(id.as_str())) {
            return id;
        }
    }
}

/// A new cell, keys sorted as nbformat writes them.
fn new_cell(layout: &Layout, kind: &CellKind, id: Option<&str>, source: &str) -> String {
    let mut fields = vec![("cell_type".to_owned(), Json::Str(kind.name().to_owned()))];
    if *kind == CellKind::Code {
        fields.push(("execution_count".into(), Json::Null));
    }
    if let Some(id) = id {
        fields.push(("id".into(), Json::Str(id.to_owned())));
    }
    fields.push(("metadata".into(), Json::Object(Vec::new())));
    if *kind == CellKind::Code {
        fields.push(("outputs".into(), Json::List(Vec::new())));
    }
    fields.push(("source".into(), layout.source(source)));
    layout.write(&Json::Object(fields), CELL_DEPTH)
}

fn splice(text: &str, range: std::ops::Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..range.start]);
    out.push_str(with);
    out.push_str(&text[range.end..]);
    out
}

fn insert(nb: &Notebook<'_>, before: Option<&Cell<'_>>, cell: &str) -> String {
    let layout = &nb.layout;
    match (before, nb.cells.last()) {
        (Some(before), _) => {
            let at = before.span.start;
            splice(nb.text, at..at, &format!("{cell}{}", layout.between(CELL_DEPTH)))
        }
        (None, Some(last)) => {
            let at = last.span.end;
            splice(nb.text, at..at, &format!("{}{cell}", layout.between(CELL_DEPTH)))
        }
        (None, None) => {
            let list = format!("[{}{cell}{}]", layout.break_at(CELL_DEPTH), layout.break_at(CELL_DEPTH - 1));
            splice(nb.text, nb.cells_span.clone(), &list)
        }
    }
}

fn delete(nb: &Notebook<'_>, cell: &Cell<'_>) -> String {
    let range = match (cell.index.checked_sub(1), nb.cells.get(cell.index + 1)) {
        (_, Some(next)) => cell.span.start..next.span.start,
        (Some(previous), None) => nb.cells[previous].span.end..cell.span.end,
        (None, None) => return splice(nb.text, nb.cells_span.clone(), "[]"),
    };
    splice(nb.text, range, "")
}

/// A cell with a new source and/or type. The same type: only the values that change are
/// rewritten (`source`; a code cell's `outputs` and `execution_count`, stale once its source
/// changed). Another type: the cell is written anew around its kept `id`, `metadata` and
/// other keys, in their order.
fn replace(nb: &Notebook<'_>, cell: &Cell<'_>, kind: Option<&CellKind>, source: Option<&str>) -> String {
    let layout = &nb.layout;
    let kind = kind.unwrap_or(&cell.kind);
    let source_changed = source.is_some_and(|s| s != cell.source || cell.source_inexact);
    let text = nb.text;
    if *kind == cell.kind {
        let mut changes: Vec<(std::ops::Range<usize>, String)> = Vec::new();
        if let (Some(source), true) = (source, source_changed) {
            match cell.value_span(text, "source") {
                Some(span) => changes.push((span, layout.write(&layout.source(source), CELL_DEPTH + 1))),
                None => return rebuild(nb, cell, kind, Some(source)),
            }
        }
        if *kind == CellKind::Code && source_changed {
            if let Some(span) = cell.value_span(text, "outputs").filter(|s| &text[s.clone()] != "[]") {
                changes.push((span, "[]".into()));
            }
            if let Some(span) =
                cell.value_span(text, "execution_count").filter(|s| &text[s.clone()] != "null")
            {
                changes.push((span, "null".into()));
            }
        }
        changes.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
        return changes.into_iter().fold(text.to_owned(), |text, (span, with)| splice(&text, span, &with));
    }
    rebuild(nb, cell, kind, source)
}

/// Cell `cell` written anew as `kind` with `source` (None: its own), keeping its other keys (those `kind`
/// allows) and their order; keys `kind` needs and the cell lacks go where sorted order puts
/// them when the cell's keys are sorted, else at the end.
fn rebuild(nb: &Notebook<'_>, cell: &Cell<'_>, kind: &CellKind, source: Option<&str>) -> String {
    let layout = &nb.layout;
    let code = *kind == CellKind::Code;
    let mut fields: Vec<(String, Json)> = Vec::new();
    for (key, value) in &cell.fields.0 {
        let json = match key.as_str() {
            "cell_type" => Json::Str(kind.name().to_owned()),
            // A source the edit does not change keeps its bytes (also one that is not text).
            "source" => source.map_or_else(|| Json::Raw(value.get().to_owned()), |s| layout.source(s)),
            "outputs" | "execution_count" if !code => continue,
            "outputs" => Json::List(Vec::new()),
            "execution_count" => Json::Null,
            "attachments" if code => continue,
            _ => Json::Raw(value.get().to_owned()),
        };
        if fields.iter().any(|(k, _)| k == key) {
            continue;
        }
        fields.push((key.clone(), json));
    }
    let sorted = fields.windows(2).all(|w| w[0].0 <= w[1].0);
    let mut needed =
        vec![("cell_type", Json::Str(kind.name().to_owned())), ("metadata", Json::Object(Vec::new()))];
    needed.push(("source", layout.source(source.unwrap_or_default())));
    if code {
        needed.push(("execution_count", Json::Null));
        needed.push(("outputs", Json::List(Vec::new())));
    }
    for (key, json) in needed {
        if fields.iter().any(|(k, _)| k == key) {
            continue;
        }
        let at = match sorted {
            true => fields.iter().position(|(k, _)| k.as_str() > key).unwrap_or(fields.len()),
            false => fields.len(),
        };
        fields.insert(at, (key.to_owned(), json));
    }
    let written = layout.write(&Json::Object(fields), CELL_DEPTH);
    splice(nb.text, cell.span.clone(), &written)
}

#[cfg(test)]
#[path = "edit_tests.rs"]
mod tests;
