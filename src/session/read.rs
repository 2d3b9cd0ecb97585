//! `read_file`: numbered lines of a text file, a window at a time; a notebook's cells a page
//! at a time.
//!
//! A `.ipynb` that reads as a notebook is shown as its cells ([`crate::notebook::view`]):
//! `offset` is then the 0-based index of the first cell (negative counts from the end) and
//! `limit` a number of cells, so a page ends at a cell, and `start_line`, `end_line` and
//! `next_offset` are cell indices. `raw: true` reads the JSON as numbered lines like any other
//! file, and so is a `.ipynb` that does not read as a notebook (with the reason): a read never
//! fails for a broken notebook, since seeing it is how it gets fixed.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Session, required};
use crate::budget::{Room, json_chars};
use crate::error::Result;
use crate::files::{self, encoding::Decoded};
use crate::notebook;

/// Result of `read_file`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReadOutcome {
    /// Root-relative path read.
    pub path: String,
    /// Numbered lines, `<n>\t<text>` each (`<n>#<hash>\t<text>` with anchors). For a notebook
    /// shown as cells: a header line, then each cell as `cell <index> [<type>] id=<id>`, its
    /// source lines numbered from 1 within the cell (`<cell>:<n>#<hash>` with anchors), and a
    /// line summarising its outputs.
    pub content: String,
    /// First line shown (1-based; 0 for an empty file). For a notebook shown as cells: the
    /// first cell shown (0-based index).
    pub start_line: usize,
    /// Last line shown (0 for an empty file). For a notebook shown as cells: the last cell
    /// shown (0-based index; 0 when it has no cells).
    pub end_line: usize,
    /// Lines in the whole file (for a notebook too: its JSON's lines).
    pub total_lines: usize,
    /// Bytes in the whole file (use it as `expected_size` for the next append).
    pub total_bytes: u64,
    /// More lines follow the ones shown (for a notebook shown as cells: more cells).
    pub more: bool,
    /// The offset to read on from; absent at the end of the file. For a notebook shown as
    /// cells: the index of the next cell.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub next_offset: Option<usize>,
    /// Lines shown cut at 2000 characters (the rest of such a line is not shown by read_file).
    pub cut_lines: usize,
    /// The file's line endings.
    pub line_endings: LineEndings,
    /// The file ends with a newline.
    pub ends_with_newline: bool,
    /// Hex sha256 of the whole file: pass it as `expected_sha256` to a write, append or edit
    /// to make sure nobody changed the file in between.
    pub sha256: String,
    /// The file's encoding, by its WHATWG name: "UTF-8", "UTF-16LE", "UTF-16BE", "Shift_JIS",
    /// "EUC-JP", "GBK", "Big5", "EUC-KR", "KOI8-U", "windows-1252"... Edits and appends keep it.
    pub encoding: String,
    /// The file starts with a byte order mark (kept by edits, appends and writes).
    pub bom: bool,
    /// Why the file can be read but not edited or appended to: its bytes do not convert to
    /// text and back unchanged from this offset on. Absent for almost every file.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub encoding_problem: Option<String>,
    /// A `.ipynb` read without `raw`: how it is shown. Absent for every other file.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "NotebookPage")]
    pub notebook: Option<NotebookPage>,
}

/// How a page shows a notebook.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NotebookPage {
    /// Shown as cells; false: shown as the file's JSON lines, because it does not read as a
    /// notebook (`broken` says why).
    pub as_cells: bool,
    /// Why the file is not shown as cells: its JSON is cut off or invalid, or it is not a
    /// notebook. Absent when it is shown as cells.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub broken: Option<String>,
    /// The notebook's language (`metadata.kernelspec.language`, else
    /// `metadata.language_info.name`), when it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub language: Option<String>,
    /// The nbformat version, `4.5`, when the file gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub nbformat: Option<String>,
    /// Cells in the notebook (0 when shown as JSON lines).
    pub total_cells: usize,
    /// First cell shown, 0-based (as `start_line`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub first_cell: Option<usize>,
    /// Last cell shown, 0-based (as `end_line`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub last_cell: Option<usize>,
    /// The last cell shown is cut after this many of its source lines: alone it is longer than
    /// a result holds (the page says where its JSON starts, to read the rest with `raw: true`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub cell_cut_after_line: Option<usize>,
}

/// A file's line endings, as an edit keeps them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LineEndings {
    /// `\n`.
    Lf,
    /// `\r\n`.
    Crlf,
    /// None to tell: the file is a single line.
    None,
}

/// Room set aside in a result for what a page shows besides its lines: the footer's facts in
/// the text, the other fields in `structuredContent` (a note on the encoding the longest), each
/// holding the path once.
const PAGE_FACTS: (usize, usize) = (600, 1200);

/// Room set aside in a notebook's page for its `notebook` facts, besides [`PAGE_FACTS`] and
/// the reason it is broken, when it is.
const NOTEBOOK_FACTS: (usize, usize) = (100, 300);

/// The room one page of `path` holds, as [`PAGE_FACTS`] and the path take it from `room`.
pub(super) fn page_room(mut room: Room, path: &str) -> Room {
    room.spend(PAGE_FACTS.0 + path.chars().count(), PAGE_FACTS.1 + json_chars(path));
    room
}

impl Session {
    /// `read_file`: numbered lines of a text file. Without `limit`, the page ends at
    /// [`files::DEFAULT_READ_LIMIT`] lines or at the result's budget ([`crate::budget`]),
    /// whichever comes first; an explicit `limit` is the caller asking for that many lines.
    /// A notebook is shown as cells unless `raw` (see the module's doc).
    pub fn read_file(
        &self,
        path: Option<&str>,
        offset: Option<i64>,
        limit: Option<usize>,
        how: ReadAs,
    ) -> Result<ReadOutcome> {
        let room = match limit {
            Some(_) => Room::unbounded(),
            None => Room::result(),
        };
        self.read_page(path, offset, limit, how, room).map(|(page, _)| page)
    }

    /// One page of a file: `limit` lines (default [`files::DEFAULT_READ_LIMIT`]) from `offset`
    /// within `room` (the room of a whole result: the page's own facts are set aside from
    /// it). Also says whether the page stopped because the room was full.
    pub(super) fn read_page(
        &self,
        path: Option<&str>,
        offset: Option<i64>,
        limit: Option<usize>,
        how: ReadAs,
        room: Room,
    ) -> Result<(ReadOutcome, bool)> {
        let path = self.target(required(path, "read_file", "path")?)?;
        self.settle(&path);
        let shown = path.display();
        let decoded = files::read_text(&self.ws, &path, self.config.max_file_bytes)?;
        let mut room = page_room(room, &shown);
        let broken = match !how.raw && notebook::is_notebook(&shown) {
            true => match notebook::parse(&decoded.text) {
                Ok(nb) => {
                    room.spend(NOTEBOOK_FACTS.0, NOTEBOOK_FACTS.1);
                    let (offset, anchors) = (offset.unwrap_or(0), how.anchors);
                    let window = notebook::CellWindow { offset, limit, anchors, room };
                    let page = notebook_page(shown, &decoded, &nb, window)?;
                    self.lock_seen().insert(path.clone());
                    return Ok(page);
                }
                Err(not) => Some(broken_reason(&not)),
            },
            false => None,
        };
        if let Some(reason) = &broken {
            room.spend(NOTEBOOK_FACTS.0 + reason.chars().count(), NOTEBOOK_FACTS.1 + json_chars(reason));
        }
        let window = files::Window {
            offset: offset.unwrap_or(1),
            limit: limit.unwrap_or(files::DEFAULT_READ_LIMIT),
            anchors: how.anchors,
            room,
        };
        let view = files::number_decoded(&decoded, window)?;
        let stopped_by_room = view.stopped_by_room;
        self.lock_seen().insert(path.clone());
        let more = view.more_after();
        let line_endings = match view.crlf {
            true => LineEndings::Crlf,
            false if view.total_lines > 1 => LineEndings::Lf,
            false => LineEndings::None,
        };
        let page = ReadOutcome {
            path: shown,
            content: view.numbered,
            start_line: view.start_line,
            end_line: view.end_line,
            total_lines: view.total_lines,
            total_bytes: view.total_bytes,
            more,
            next_offset: more.then_some(view.end_line + 1),
            cut_lines: view.cut_lines,
            line_endings,
            ends_with_newline: view.ends_with_newline,
            sha256: view.sha256,
            encoding: view.encoding.name().to_owned(),
            bom: view.encoding.bom(),
            encoding_problem: encoding_problem(&decoded),
            notebook: broken.map(|reason| NotebookPage {
                as_cells: false,
                broken: Some(reason),
                language: None,
                nbformat: None,
                total_cells: 0,
                first_cell: None,
                last_cell: None,
                cell_cut_after_line: None,
            }),
        };
        Ok((page, stopped_by_room))
    }
}

/// How `read_file` shows a file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadAs {
    /// Each line as `<n>#<hash>\t<text>` (lines of a file, not of a notebook's cells).
    pub anchors: bool,
    /// A notebook as its JSON lines, like any other file, instead of its cells.
    pub raw: bool,
}

/// Why the file's bytes cannot be changed in place, when they cannot.
fn encoding_problem(decoded: &Decoded) -> Option<String> {
    decoded.inexact_at.map(|offset| {
        format!(
            "the bytes from offset {offset} are not valid {0} (or spell a character {0} can also spell \
             otherwise), so they do not convert back unchanged; edit_file and append_file refuse this \
             file: to change it, replace it whole with write_file naming the encoding to write",
            decoded.encoding.name()
        )
    })
}

/// Why a `.ipynb` is shown as JSON lines, and what to do.
fn broken_reason(not: &notebook::NotNotebook) -> String {
    let at = match (not.truncated, not.line) {
        (true, Some(line)) => format!(" (it stops at line {line})"),
        _ => String::new(),
    };
    format!(
        "a broken notebook, not shown as cells: {}{at}. Its lines are shown as they are; tools that \
         change cells refuse it: write the notebook again whole with write_file (a valid notebook) to \
         read and edit it as cells",
        not.message
    )
}

/// One page of a notebook's cells, with the file's facts.
fn notebook_page(
    path: String,
    decoded: &Decoded,
    nb: &notebook::Notebook<'_>,
    window: notebook::CellWindow,
) -> Result<(ReadOutcome, bool)> {
    let view = notebook::view(nb, window)?;
    let text = &decoded.text;
    let total_lines = crate::lines::count_lines(text.as_bytes());
    let more = view.more_after();
    let last = view.end.checked_sub(1);
    let page = ReadOutcome {
        path,
        content: view.text,
        start_line: view.first,
        end_line: last.unwrap_or(0),
        total_lines,
        total_bytes: decoded.bytes().len() as u64,
        more,
        next_offset: more.then_some(view.end),
        cut_lines: view.cut_lines,
        line_endings: match text.contains("\r\n") {
            true => LineEndings::Crlf,
            false if total_lines > 1 => LineEndings::Lf,
            false => LineEndings::None,
        },
        ends_with_newline: text.ends_with('\n'),
        sha256: files::sha256_hex(decoded.bytes()),
        encoding: decoded.encoding.name().to_owned(),
        bom: decoded.encoding.bom(),
        encoding_problem: encoding_problem(decoded),
        notebook: Some(NotebookPage {
            as_cells: true,
            broken: None,
            language: nb.language.clone(),
            nbformat: nb.nbformat.map(|(major, minor)| format!("{major}.{minor}")),
            total_cells: view.total,
            first_cell: last.map(|_| view.first),
            last_cell: last,
            cell_cut_after_line: view.partial.map(|p| p.lines_shown),
        }),
    };
    Ok((page, view.stopped_by_room))
}
