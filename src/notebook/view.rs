//! A notebook as `read_file` shows it: its cells, not its JSON.
//!
//! The JSON of a notebook is what a model reads worst: every source line sits escaped in a
//! string, and an image's base64 can take more room than all the code. So a page shows a
//! header (language, nbformat version, the number of cells and which are shown), then each
//! cell as
//!
//! ```text
//! cell 3 [code] id=b2 execution_count=7
//! 1→import numpy as np
//! 2→np.arange(3)
//! outputs: execute_result (text/plain 1 line, 20 B); display_data (image/png 48.8 KB, ...)
//! ```
//!
//! (→ standing for a tab). Source lines are numbered from 1 within their cell, `<n>\t<text>`
//! as read_file numbers a file's lines, so "cell 3, line 2" names the same line in a read, an
//! edit and a verdict.
//! Every other line of a page starts with a word, never a number and a tab, so the two cannot
//! be mixed up. Outputs are summarised on one line (kind and size, never their data).
//!
//! A page holds whole cells, as many as its [`Room`] takes: `offset` and `limit` count cells.

use std::borrow::Cow;

use super::parse::{Cell, CellKind, Notebook};
use crate::budget::{Room, json_chars};
use crate::error::{Error, Result};
use crate::files::anchor::anchor_of;
use crate::files::{MAX_LINE_CHARS, cut_line};
use crate::lines::LineIndex;

/// Room kept for the page's header, written once the cells it names are known.
const HEADER_ROOM: (usize, usize) = (400, 500);

/// Room kept for the note that ends a page whose only cell was cut to fit.
const PARTIAL_NOTE_ROOM: (usize, usize) = (400, 500);

/// Which cells a page shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellWindow {
    /// The first cell, 0-based; negative counts from the end (-3 = the last 3 cells).
    pub offset: i64,
    /// Cells shown at most; None: as many as fit in `room`.
    pub limit: Option<usize>,
    /// Each source line numbered with its anchor, `<cell>:<n>#<hash>`, for edit_file's line
    /// edits (see `files::anchor`).
    pub anchors: bool,
    /// The room the page may take in a result, as text and again as a JSON string: the page
    /// stops before the first cell that does not fit. Its first cell is always shown, cut at
    /// a line when even it does not fit alone.
    pub room: Room,
}

/// One page of a notebook's cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// The header, then each cell shown.
    pub text: String,
    /// The first cell shown (0-based); 0 for a notebook without cells.
    pub first: usize,
    /// One past the last cell shown: the offset to read on from while it is below `total`.
    pub end: usize,
    /// Cells in the notebook.
    pub total: usize,
    /// Lines shown cut at [`MAX_LINE_CHARS`] (source lines and outputs lines).
    pub cut_lines: usize,
    /// The page stopped before `limit` because the next cell did not fit its room.
    pub stopped_by_room: bool,
    /// The page's only cell was too long for its room and is shown cut at a line.
    pub partial: Option<PartialCell>,
}

/// A cell shown only in part, because it alone is longer than a page holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartialCell {
    /// The cell's index.
    pub index: usize,
    /// Its source lines shown (from 1).
    pub lines_shown: usize,
    /// Its source lines.
    pub lines: usize,
    /// The line of the file where the cell's JSON starts: `read_file` with `raw: true` from
    /// there shows the rest.
    pub file_line: usize,
}

impl View {
    /// Cells follow the ones shown.
    pub fn more_after(&self) -> bool {
        self.end < self.total
    }
}

/// The page of `notebook` that `window` asks for.
pub fn view(notebook: &Notebook<'_>, window: CellWindow) -> Result<View> {
    let CellWindow { offset, limit, anchors, mut room } = window;
    if limit == Some(0) {
        return Err(Error::InvalidArgument { name: "limit", reason: "must be at least 1 (cell)".into() });
    }
    let total = notebook.cells.len();
    let first = match offset {
        o if o < 0 => total.saturating_sub(o.unsigned_abs() as usize),
        o => o as usize,
    };
    if total > 0 && first >= total {
        return Err(Error::InvalidArgument {
            name: "offset",
            reason: format!(
                "the notebook has {total} cells, numbered from 0; use an offset from 0 to {}, or a negative \
                 offset (-3 shows the last 3 cells)",
                total - 1
            ),
        });
    }
    let first = first.min(total);
    room.spend(HEADER_ROOM.0, HEADER_ROOM.1);
    let last_allowed = limit.map_or(total, |l| first.saturating_add(l).min(total));
    let mut body = String::new();
    let mut end = first;
    let mut cut_lines = 0;
    let mut stopped_by_room = false;
    let mut partial = None;
    for cell in &notebook.cells[first..last_allowed] {
        let (block, cut) = cell_block(cell, anchors);
        // The blank line between cells: 2 characters of text, 4 of JSON.
        if room.take(block.chars().count() + 2, json_chars(&block) + 4) {
            push_block(&mut body, &block);
            cut_lines += cut;
            end = cell.index + 1;
            continue;
        }
        stopped_by_room = true;
        if end == first {
            room.spend(PARTIAL_NOTE_ROOM.0, PARTIAL_NOTE_ROOM.1);
            let (block, cut, shown) = cell_block_within(cell, &mut room, notebook.text, anchors);
            push_block(&mut body, &block);
            cut_lines += cut;
            end = cell.index + 1;
            partial = Some(shown);
        }
        break;
    }
    let mut text = header(notebook, first, end, total);
    if !body.is_empty() {
        text.push_str("\n\n");
        text.push_str(&body);
    }
    Ok(View { text, first, end, total, cut_lines, stopped_by_room, partial })
}

fn push_block(body: &mut String, block: &str) {
    if !body.is_empty() {
        body.push_str("\n\n");
    }
    body.push_str(block);
}

/// The page's first line: what the notebook is, which cells follow, and how to read it.
fn header(notebook: &Notebook<'_>, first: usize, end: usize, total: usize) -> String {
    let language = notebook.language.as_deref().unwrap_or("language not named");
    let version = match notebook.nbformat {
        Some((major, minor)) => format!("nbformat {major}.{minor}"),
        None => "nbformat version not given".to_owned(),
    };
    let shown = match (total, end - first) {
        (0, _) => "no cells".to_owned(),
        (_, 1) => format!("cell {first} shown"),
        _ => format!("cells {first}-{} shown", end - 1),
    };
    format!(
        "notebook: {language}, {version}, {total} cell{}; {shown}. Each cell: `cell <index> [<type>] id=<id>`, \
         its source lines numbered from 1 within the cell, then its outputs summarised (read_file with raw: \
         true shows the file's JSON).",
        if total == 1 { "" } else { "s" }
    )
}

/// The cell's first line: `cell 3 [code] id=b2 execution_count=7`.
fn cell_line(cell: &Cell<'_>) -> String {
    let kind = match &cell.kind {
        CellKind::Other(name) if name.is_empty() => "no cell_type",
        kind => kind.name(),
    };
    let mut line = format!("cell {} [{kind}]", cell.index);
    if let Some(id) = &cell.id {
        let plain = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        match plain {
            true => line.push_str(&format!(" id={id}")),
            false => line.push_str(&format!(" id={id:?}")),
        }
    }
    if let Some(count) = cell.execution_count {
        line.push_str(&format!(" execution_count={count}"));
    }
    line
}

/// The outputs line of a code cell, None for other cells.
fn outputs_line(cell: &Cell<'_>) -> Option<String> {
    if cell.kind != CellKind::Code {
        return None;
    }
    let outputs = cell.outputs();
    let outputs = match outputs.is_empty() {
        true => "none".to_owned(),
        false => outputs
            .iter()
            .map(|o| format!("{} ({})", o.kind, one_line(&o.summary)))
            .collect::<Vec<_>>()
            .join("; "),
    };
    Some(format!("outputs: {outputs}"))
}

/// `text` on one line: an error's message can hold newlines (and terminal escapes), and a line
/// of its own could pass for a source line.
fn one_line(text: &str) -> Cow<'_, str> {
    match text.contains(char::is_control) {
        true => Cow::Owned(text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()),
        false => Cow::Borrowed(text),
    }
}

/// A line of a page, cut as read_file cuts a file's lines; counts into `cut` when it was.
fn shown<'a>(line: &'a str, cut: &mut usize) -> Cow<'a, str> {
    let shown = cut_line(line, MAX_LINE_CHARS);
    *cut += usize::from(matches!(shown, Cow::Owned(_)));
    shown
}

/// Line `n` of `cell`'s source as a page numbers it: `n`, or its anchor `<cell>:<n>#<hash>`.
fn number(cell: &Cell<'_>, n: usize, line: &str, anchors: bool) -> String {
    match anchors {
        true => format!("{}:{}", cell.index, anchor_of(n, line)),
        false => n.to_string(),
    }
}

/// The whole cell as a page shows it, and how many of its lines were cut.
fn cell_block(cell: &Cell<'_>, anchors: bool) -> (String, usize) {
    let mut cut = 0;
    let mut block = cell_line(cell);
    let lines = LineIndex::new(&cell.source);
    for n in 1..=lines.count() {
        block.push_str(&format!(
            "\n{}\t{}",
            number(cell, n, lines.line(n), anchors),
            shown(lines.line(n), &mut cut)
        ));
    }
    if lines.count() == 0 {
        block.push_str("\n(empty source)");
    }
    if let Some(outputs) = outputs_line(cell) {
        block.push('\n');
        block.push_str(&shown(&outputs, &mut cut));
    }
    (block, cut)
}

/// The cell's first line and as many of its source lines as fit in `room` (at least one), with
/// a note that says where the rest is.
fn cell_block_within(
    cell: &Cell<'_>,
    room: &mut Room,
    text: &str,
    anchors: bool,
) -> (String, usize, PartialCell) {
    let mut cut = 0;
    let mut block = cell_line(cell);
    room.spend(block.chars().count(), json_chars(&block));
    let lines = LineIndex::new(&cell.source);
    let mut lines_shown = 0;
    for n in 1..=lines.count() {
        let line =
            format!("\n{}\t{}", number(cell, n, lines.line(n), anchors), shown(lines.line(n), &mut cut));
        if !room.take(line.chars().count(), json_chars(&line)) && n > 1 {
            break;
        }
        block.push_str(&line);
        lines_shown = n;
    }
    let file_line = LineIndex::new(text).line_of(cell.span.start);
    block.push_str(&format!(
        "\n(cell {} is cut here, after line {lines_shown} of {}, to keep this result within its bound: its \
         other lines and its outputs are not shown. read_file with raw: true and offset {file_line} shows \
         the cell's JSON)",
        cell.index,
        lines.count()
    ));
    let partial = PartialCell { index: cell.index, lines_shown, lines: lines.count(), file_line };
    (block, cut, partial)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::parse;

    /// A notebook as nbformat writes it, with `cells` given as JSON objects.
    fn notebook(cells: &[serde_json::Value]) -> String {
        let nb = serde_json::json!({
            "cells": cells,
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
            "nbformat": 4,
            "nbformat_minor": 5
        });
        serde_json::to_string_pretty(&nb).unwrap() + "\n"
    }

    fn code(id: &str, source: &str, outputs: serde_json::Value) -> serde_json::Value {
        serde_json::json!({"cell_type": "code", "execution_count": 1, "id": id, "metadata": {},
            "outputs": outputs, "source": source})
    }

    fn markdown(id: &str, source: &str) -> serde_json::Value {
        serde_json::json!({"cell_type": "markdown", "id": id, "metadata": {}, "source": source})
    }

    fn all(offset: i64, limit: Option<usize>) -> CellWindow {
        CellWindow { offset, limit, anchors: false, room: Room::unbounded() }
    }

    #[test]
    fn cells_show_their_index_type_id_numbered_source_and_outputs() {
        let image = serde_json::json!([{"output_type": "display_data", "metadata": {},
            "data": {"image/png": "iVBORw0KGgo".repeat(1000), "text/plain": ["<Figure>"]}}]);
        let text = notebook(&[
            markdown("intro", "# Title\ntext"),
            code("b2", "import os\nprint(os.sep)\n", image),
            code("c3", "", serde_json::json!([])),
        ]);
        let nb = parse(&text).unwrap();
        let v = view(&nb, all(0, None)).unwrap();
        assert!(
            v.text.starts_with("notebook: python, nbformat 4.5, 3 cells; cells 0-2 shown."),
            "{}",
            v.text
        );
        assert!(v.text.contains("raw: true"), "the header says how to see the JSON");
        let body = v.text.split_once("\n\n").unwrap().1;
        assert_eq!(
            body,
            "cell 0 [markdown] id=intro\n1\t# Title\n2\ttext\n\n\
             cell 1 [code] id=b2 execution_count=1\n1\timport os\n2\tprint(os.sep)\n\
             outputs: display_data (image/png 10.7 KB, text/plain 1 line, 8 B)\n\n\
             cell 2 [code] id=c3 execution_count=1\n(empty source)\noutputs: none"
        );
        assert!(!v.text.contains("iVBOR"), "never base64");
        assert_eq!((v.first, v.end, v.total, v.more_after()), (0, 3, 3, false));
    }

    #[test]
    fn offset_and_limit_count_cells_and_a_negative_offset_counts_from_the_end() {
        let cells: Vec<_> = (0..10).map(|i| markdown(&format!("m{i}"), &format!("text {i}"))).collect();
        let text = notebook(&cells);
        let nb = parse(&text).unwrap();
        let v = view(&nb, all(4, Some(3))).unwrap();
        assert_eq!((v.first, v.end), (4, 7));
        assert!(v.text.contains("cells 4-6 shown") && v.text.contains("cell 4 [markdown] id=m4\n1\ttext 4"));
        assert!(!v.text.contains("cell 7 "));
        let v = view(&nb, all(-2, None)).unwrap();
        assert_eq!((v.first, v.end, v.more_after()), (8, 10, false));
        let v = view(&nb, all(-50, Some(1))).unwrap();
        assert_eq!((v.first, v.end), (0, 1));
        assert!(v.text.contains("; cell 0 shown."), "{}", v.text);
        let e = view(&nb, all(10, None)).unwrap_err().to_string();
        assert!(e.contains("has 10 cells") && e.contains("from 0 to 9"), "{e}");
        assert!(view(&nb, all(0, Some(0))).is_err());
    }

    #[test]
    fn a_page_holds_whole_cells_while_they_fit_its_room() {
        let cells: Vec<_> =
            (0..50).map(|i| code(&format!("c{i}"), &"x = 1\n".repeat(20), serde_json::json!([]))).collect();
        let text = notebook(&cells);
        let nb = parse(&text).unwrap();
        let room = Room::new(3_000, 8_000);
        let v = view(&nb, CellWindow { offset: 0, limit: None, anchors: false, room }).unwrap();
        assert!(v.stopped_by_room && v.more_after() && v.end > 1, "{:?}", (v.end, v.stopped_by_room));
        assert!(v.text.chars().count() <= 3_000, "{}", v.text.chars().count());
        assert!(v.text.ends_with("outputs: none"), "ends with a whole cell");
        assert!(v.partial.is_none());
    }

    #[test]
    fn a_cell_longer_than_the_page_is_cut_at_a_line_and_says_where_the_rest_is() {
        let long: String = (0..2000).map(|i| format!("value_{i} = {i}\n")).collect();
        let text = notebook(&[code("big", &long, serde_json::json!([])), markdown("after", "x")]);
        let nb = parse(&text).unwrap();
        let v =
            view(&nb, CellWindow { offset: 0, limit: None, anchors: false, room: Room::new(5_000, 12_000) })
                .unwrap();
        let partial = v.partial.clone().expect("cut");
        assert!(partial.lines_shown > 10 && partial.lines_shown < 2000, "{partial:?}");
        assert_eq!(partial.file_line, 3, "the cell's `{{` is on line 3 of the file");
        assert_eq!((v.first, v.end), (0, 1));
        assert!(v.text.chars().count() <= 5_000);
        assert!(v.text.contains("offset 3 shows the cell's JSON"), "{}", &v.text[v.text.len() - 300..]);
    }

    #[test]
    fn an_output_summary_stays_on_one_line() {
        let error = serde_json::json!([{"output_type": "error", "ename": "ValueError",
            "evalue": "bad\n1\tvalue", "traceback": []}]);
        let text = notebook(&[code("e", "f()", error)]);
        let nb = parse(&text).unwrap();
        let v = view(&nb, all(0, None)).unwrap();
        assert!(v.text.ends_with("\n1\tf()\noutputs: error (ValueError: bad 1 value)"), "{}", v.text);
    }

    #[test]
    fn long_lines_are_cut_as_read_file_cuts_them() {
        let text = notebook(&[code("w", &"y".repeat(MAX_LINE_CHARS + 10), serde_json::json!([]))]);
        let nb = parse(&text).unwrap();
        let v = view(&nb, all(0, None)).unwrap();
        assert_eq!(v.cut_lines, 1);
        assert!(v.text.contains("[... line cut: 10 more characters]"));
    }

    #[test]
    fn a_notebook_without_cells_or_facts_says_so() {
        let nb = parse("{\"cells\": []}").unwrap();
        let v = view(&nb, all(0, None)).unwrap();
        assert_eq!((v.first, v.end, v.total), (0, 0, 0));
        assert!(
            v.text
                .starts_with("notebook: language not named, nbformat version not given, 0 cells; no cells."),
            "{}",
            v.text
        );
        let nb = parse("{\"cells\": [{\"source\": \"a\", \"id\": \"a b\"}]}").unwrap();
        let v = view(&nb, all(0, None)).unwrap();
        assert!(v.text.ends_with("cell 0 [no cell_type] id=\"a b\"\n1\ta"), "{}", v.text);
    }
}
