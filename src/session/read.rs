//! `read_file`: numbered lines of a text file, a window at a time.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Session, required};
use crate::budget::{Room, json_chars};
use crate::error::Result;
use crate::files;

/// Result of `read_file`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReadOutcome {
    /// Root-relative path read.
    pub path: String,
    /// Numbered lines, `<n>\t<text>` each (`<n>#<hash>\t<text>` with anchors).
    pub content: String,
    /// First line shown (1-based; 0 for an empty file).
    pub start_line: usize,
    /// Last line shown (0 for an empty file).
    pub end_line: usize,
    /// Lines in the whole file.
    pub total_lines: usize,
    /// Bytes in the whole file (use it as `expected_size` for the next append).
    pub total_bytes: u64,
    /// More lines follow the ones shown.
    pub more: bool,
    /// The offset to read on from; absent at the end of the file.
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

/// The room one page of `path` holds, as [`PAGE_FACTS`] and the path take it from `room`.
pub(super) fn page_room(mut room: Room, path: &str) -> Room {
    room.spend(PAGE_FACTS.0 + path.chars().count(), PAGE_FACTS.1 + json_chars(path));
    room
}

impl Session {
    /// `read_file`: numbered lines of a text file. Without `limit`, the page ends at
    /// [`files::DEFAULT_READ_LIMIT`] lines or at the result's budget ([`crate::budget`]),
    /// whichever comes first; an explicit `limit` is the caller asking for that many lines.
    pub fn read_file(
        &self,
        path: Option<&str>,
        offset: Option<i64>,
        limit: Option<usize>,
        anchors: bool,
    ) -> Result<ReadOutcome> {
        let room = match limit {
            Some(_) => Room::unbounded(),
            None => Room::result(),
        };
        self.read_page(path, offset, limit, anchors, room).map(|(page, _)| page)
    }

    /// One page of a file: `limit` lines (default [`files::DEFAULT_READ_LIMIT`]) from `offset`
    /// within `room` (the room of a whole result: the page's own facts are set aside from
    /// it). Also says whether the page stopped because the room was full.
    pub(super) fn read_page(
        &self,
        path: Option<&str>,
        offset: Option<i64>,
        limit: Option<usize>,
        anchors: bool,
        room: Room,
    ) -> Result<(ReadOutcome, bool)> {
        let path = self.target(required(path, "read_file", "path")?)?;
        self.settle(&path);
        let window = files::Window {
            offset: offset.unwrap_or(1),
            limit: limit.unwrap_or(files::DEFAULT_READ_LIMIT),
            anchors,
            room: page_room(room, &path.display()),
        };
        let view = files::read(&self.ws, &path, window, self.config.max_file_bytes)?;
        let stopped_by_room = view.stopped_by_room;
        self.lock_seen().insert(path.clone());
        let more = view.more_after();
        let line_endings = match view.crlf {
            true => LineEndings::Crlf,
            false if view.total_lines > 1 => LineEndings::Lf,
            false => LineEndings::None,
        };
        let page = ReadOutcome {
            path: path.display(),
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
            encoding_problem: view.inexact_at.map(|offset| {
                format!(
                    "the bytes from offset {offset} are not valid {0} (or spell a character {0} can also \
                     spell otherwise), so they do not convert back unchanged; edit_file and append_file \
                     refuse this file: to change it, replace it whole with write_file naming the encoding \
                     to write",
                    view.encoding.name()
                )
            }),
        };
        Ok((page, stopped_by_room))
    }
}
