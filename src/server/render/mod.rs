//! Turns a session outcome or an [`Error`] into a `CallToolResult`: a short text for the model
//! plus `structuredContent` matching the tool's `outputSchema`; every failure is `isError: true`.
//!
//! The text of each outcome lives with its kind: [`changes`] (what a writing tool did),
//! [`reads`] (files, listings and searches shown) and [`project`] (the finish check, claims
//! and the journal); the helpers they share are here.

use rmcp::model::{CallToolResult, ContentBlock, Resource};
use serde::Serialize;

use crate::budget::{Room, TEXT_CHARS, cut_at_line, json_chars, json_size, keep_fitting};
use crate::check::{LanguageName, Report, Status};
use crate::error::Error;
use crate::session::{
    AppendOutcome, ArtifactsOutcome, CheckOutcome, ClaimsOutcome, CopyOutcome, DeleteOutcome, EditOutcome,
    FileCheck, FileStatus, FindOutcome, InfoOutcome, LineEndings, ListOutcome, MediaOutcome, MkdirOutcome,
    MoveOutcome, NotebookEditOutcome, OutlineOutcome, PatchOutcome, PatchedAs, PatchedFile, ReadManyOutcome,
    ReadOutcome, SearchOutcome, UndoOutcome, WriteOutcome,
};
use crate::workspace::FileKind;

mod changes;
mod project;
mod reads;

/// Something a tool can return: structured data and its human-readable text.
pub trait Rendered: Serialize {
    /// The text the model reads.
    fn text(&self) -> String;

    /// Cuts what the result shows to fit `room`, the room of one whole result
    /// ([`crate::budget`]): whole items while they fit, the rest counted in the outcome so
    /// that its text and its structured content both say what was left out and how to get
    /// it. Called once, before either is made. By default nothing is cut: the outcome is
    /// small by construction (a few facts, lists bounded by their own limits).
    fn fit(&mut self, _room: &mut Room) {}

    /// The root-relative path of the file the call wrote, for a `resource_link` in the result.
    fn written(&self) -> Option<&str> {
        None
    }

    /// An image the result shows the model (its bytes and MIME type), as image content after
    /// the text.
    fn image(&self) -> Option<(&[u8], &'static str)> {
        None
    }
}

/// Renders a tool's result or its error. `uri` turns the path of a written file into the
/// link the result carries.
pub fn rendered<T: Rendered>(
    outcome: Result<T, Error>,
    uri: &dyn Fn(&str) -> Option<String>,
) -> CallToolResult {
    match outcome {
        Ok(mut value) => {
            value.fit(&mut Room::result());
            success(&value, uri)
        }
        Err(error) => error_result(&error.to_string()),
    }
}

/// The result of a call whose thread stopped (a panic) before it answered.
pub fn task_failed(why: &dyn std::fmt::Display) -> CallToolResult {
    tracing::error!("tool task failed: {why}");
    error_result(
        "internal error: the tool stopped unexpectedly; nothing is known to have been written. \
         Run read_file on the path to see its current state before retrying.",
    )
}

fn success<T: Rendered>(value: &T, uri: &dyn Fn(&str) -> Option<String>) -> CallToolResult {
    match serde_json::to_value(value) {
        Ok(structured) => {
            let mut content = vec![ContentBlock::text(value.text())];
            if let Some(path) = value.written()
                && let Some(uri) = uri(path)
            {
                let name = path.rsplit('/').next().unwrap_or(path);
                content.push(ContentBlock::resource_link(Resource::new(uri, name).with_title(path)));
            }
            if let Some((bytes, mime_type)) = value.image() {
                use base64::Engine;
                let data = base64::engine::general_purpose::STANDARD.encode(bytes);
                content.push(ContentBlock::image(data, mime_type));
            }
            let mut result = CallToolResult::success(content);
            result.structured_content = Some(structured);
            result
        }
        Err(e) => error_result(&format!("internal error: could not encode the result ({e})")),
    }
}

/// An `isError: true` result with `text` for the model, cut at a line to
/// [`TEXT_CHARS`] when longer (an error naming a hundred long paths), saying so.
pub fn error_result(text: &str) -> CallToolResult {
    let (kept, left_out) = cut_at_line(text, TEXT_CHARS - 200);
    let text = match left_out {
        0 => text.to_string(),
        n => format!(
            "{kept}\n... ({} more characters of this message not shown, to keep this result within {} \
             characters)",
            thousands(n),
            thousands(TEXT_CHARS)
        ),
    };
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// Room in a result for the note that says what a cut left out and how to get it.
const NOTE_ROOM: usize = 400;

/// Sets aside in `room` what `outcome` takes besides the items its `fit` is about to admit:
/// its text and JSON with those lists taken out, and a note on what is left out.
fn spend_rest<T: Rendered>(outcome: &T, room: &mut Room) {
    room.spend(outcome.text().chars().count() + NOTE_ROOM, json_size(outcome) + NOTE_ROOM);
}

/// Keeps the items of `items` whose text (as `line` shows one) and JSON fit in `room`, in
/// order, and returns how many it dropped from the end.
fn keep_shown<T: Serialize>(items: &mut Vec<T>, room: &mut Room, line: impl Fn(&T) -> String) -> usize {
    keep_fitting(items, room, |item| (line(item).chars().count() + 1, json_size(item) + 1))
}

/// `, and 3 more`/nothing: how a cut list ends in a result's text.
fn and_more(n: usize) -> String {
    match n {
        0 => String::new(),
        n => format!(
            ", and {n} more not listed (to keep this result within {} characters)",
            thousands(TEXT_CHARS)
        ),
    }
}

fn kind_name(kind: crate::check::stubs::StubKind) -> &'static str {
    use crate::check::stubs::StubKind::*;
    match kind {
        NoCode => "no code",
        PlaceholderComment => "placeholder comment",
        StubBody => "stub body",
        EmptyHtmlBody => "empty body",
        LinkedAsset => "linked asset",
    }
}

fn ref_kind_name(kind: crate::check::refs::RefKind) -> &'static str {
    use crate::check::refs::RefKind::*;
    match kind {
        File => "file",
        Module => "module",
        Name => "name",
        Id => "id",
    }
}

/// `1 line`, `2 lines`.
fn lines(n: usize) -> String {
    plural(n, "line")
}

/// What a walk under find or search left out, for the "(...)" line after the results.
fn walk_notes(walked: &crate::files::Walked) -> Vec<String> {
    let mut notes = Vec::new();
    if walked.stopped {
        notes.push("the search stopped after 100,000 entries: search a subdirectory".to_string());
    }
    if walked.ignored > 0 {
        notes.push(format!("{} ignored by .gitignore or .ignore", plural(walked.ignored, "entry")));
    }
    notes
}

/// `50,000`: a number with its thousands separated, as results write sizes people read.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// `n` and the noun, in the plural unless `n` is 1 ("1 file", "3 files", "2 entries").
fn plural(n: usize, noun: &str) -> String {
    match (n, noun.strip_suffix('y')) {
        (1, _) => format!("{n} {noun}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        _ => format!("{n} {noun}s"),
    }
}

/// The hook's line(s), when a hook ran.
fn hook_lines(hook: &Option<crate::hooks::HookReport>) -> String {
    let Some(h) = hook else { return String::new() };
    let status = match (h.timed_out, h.exit_code, h.signal) {
        (true, _, _) => "timed out".to_string(),
        (false, Some(0), _) => "ok".to_string(),
        (false, Some(code), _) => format!("exit code {code}"),
        (false, None, Some(signal)) => format!("killed by signal {signal}"),
        (false, None, None) => "did not run".to_string(),
    };
    let mut text = format!("\nhook `{}`: {status}", h.command);
    let output = h.output.trim_end();
    if !output.is_empty() {
        text.push_str(&format!("\n{output}"));
    }
    text
}

fn with_warnings(mut text: String, warnings: &[String]) -> String {
    for w in warnings {
        text.push_str("\nwarning: ");
        text.push_str(w);
    }
    text
}

/// The syntax line after an append. A clean parse of a file still being built is not proof
/// that it is finished (many prefixes parse clean), so it never says "ok" here.
fn append_syntax_line(report: &Report) -> String {
    match report.status {
        Status::Ok => "syntax: no problems so far (run check_files when the file is finished)".to_string(),
        _ => report.summary(),
    }
}

/// `", encoding Shift_JIS"`, `", encoding UTF-16LE with a BOM"`: how a result names a file's
/// encoding when it is not plain UTF-8 (nothing when it is).
fn encoding_note(name: &str, bom: bool) -> String {
    match (name, bom) {
        ("UTF-8", false) => String::new(),
        (name, true) => format!(", encoding {name} with a BOM"),
        (name, false) => format!(", encoding {name}"),
    }
}

/// `0750 (rwxr-x---)`: permission bits in octal and as `ls -l` shows them.
fn permissions(octal: &str) -> String {
    let Ok(mode) = u32::from_str_radix(octal, 8) else { return octal.to_string() };
    let rwx: String = (0..9)
        .map(|bit| match mode & (0o400 >> bit) != 0 {
            true => ['r', 'w', 'x'][bit % 3],
            false => '-',
        })
        .collect();
    format!("{octal} ({rwx})")
}
