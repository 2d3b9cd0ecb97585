//! Which warnings ride along with a successful write, append or edit, and whether content
//! that arrived over-escaped is written unescaped. Warnings never refuse a call: a refusal
//! makes an agent loop, a warning lets it correct course.

use crate::check::stubs::{self, Stub, StubKind};
use crate::check::{self, Report};
use crate::error::ADVISED_CHUNK_CHARS;
use crate::unescape;
use crate::workspace::RootPath;

/// A write replaced a file this session had neither read nor written: the agent may have
/// overwritten work it never saw.
pub(super) fn replaced_unread(path: &RootPath, old_size: u64) -> String {
    format!(
        "you had not read {path} in this session before replacing it (it held {old_size} bytes); if \
         that was not intended, its old content is gone: rebuild it from what you know"
    )
}

/// A write with empty content: most often a call cut off by the model's output limit.
pub(super) fn emptied(path: &RootPath) -> String {
    format!(
        "content was empty, so {path} is now an empty file. If your call was cut off, send the \
         content in parts of at most ~{ADVISED_CHUNK_CHARS} characters (write_file, then append_file)"
    )
}

/// An append with empty content.
pub(super) const NOTHING_APPENDED: &str = "content was empty: nothing was appended";

/// An append skipped because the file already ended with the chunk (`chunk_bytes` long).
pub(super) fn retried_chunk(path: &RootPath, chunk_bytes: usize, size: u64) -> String {
    format!(
        "{path} already ended with exactly this chunk ({chunk_bytes} bytes), so it was not appended again \
         (a retried call?). If you really meant to repeat it, append it again with expected_size {size}"
    )
}

/// Stub kinds a write or edit result warns about: placeholders and stub bodies (an unfinished
/// ending or an empty body is expected while a file is still being built).
pub(super) const WRITE_STUB_KINDS: &[StubKind] = &[StubKind::PlaceholderComment, StubKind::StubBody];

/// Stub kinds an append result warns about: placeholders only, because only the chunk is
/// scanned and a stub body needs the whole definition.
pub(super) const APPEND_STUB_KINDS: &[StubKind] = &[StubKind::PlaceholderComment];

/// Stub warnings shown in one result at most.
const MAX_STUB_WARNINGS: usize = 3;

/// The stubs of `kinds` in `text`, as the file type of `path`.
pub(super) fn stubs_of(path: &str, text: &str, kinds: &[StubKind]) -> Vec<Stub> {
    stubs::find_stubs_of(path, text, kinds)
}

/// Result warnings for `found`, whose lines are counted from line `first_line` of the file.
pub(super) fn stub_warnings(found: &[Stub], first_line: usize) -> Vec<String> {
    found
        .iter()
        .take(MAX_STUB_WARNINGS)
        .map(|s| {
            format!(
                "line {}: {} (`{}`): write the real code before you finish",
                s.line + first_line - 1,
                s.message,
                s.source
            )
        })
        .collect()
}

/// Decides whether to write `content` as sent or unescaped. For a language we can check, the
/// unescaped form is chosen only when `before + unescaped` parses better than `before + raw`;
/// for other files the over-escaping heuristic alone decides.
pub(super) fn choose_form(path: &RootPath, before: &str, content: &str) -> (String, bool) {
    let Some(unescaped) = unescape::unescape_if_over_escaped(content) else {
        return (content.to_string(), false);
    };
    let name = path.display();
    if check::language_for(&name).is_none() {
        return (unescaped, true);
    }
    let raw_report = check::check(&name, &format!("{before}{content}"));
    let new_report = check::check(&name, &format!("{before}{unescaped}"));
    if health(&new_report) < health(&raw_report) { (unescaped, true) } else { (content.to_string(), false) }
}

/// Lower is healthier: the status first, then the number of problems.
fn health(report: &Report) -> (check::Status, usize) {
    (report.status, report.problems.len() + report.more_problems)
}

/// The warnings every writing tool gives about what was sent: over-escaping, and a call
/// large enough to risk being cut off.
pub(super) fn content_warnings(sent: &str, written: &str, unescaped: bool) -> Vec<String> {
    let mut warnings = Vec::new();
    if unescaped {
        warnings.push(format!(
            "the content arrived over-escaped (one line with {} literal \\n sequences) and was unescaped \
             before writing; send real newlines in `content`",
            unescape::count_escaped_newlines(sent)
        ));
    } else if unescape::looks_over_escaped(sent) {
        warnings.push(format!(
            "the content looked over-escaped (one line with {} literal \\n sequences) but parses better as \
             sent, so it was written unchanged; if you meant line breaks, send real newlines",
            unescape::count_escaped_newlines(sent)
        ));
    }
    let chars = written.chars().count();
    if chars > 2 * ADVISED_CHUNK_CHARS {
        warnings.push(format!(
            "this call carried {chars} characters; calls over ~{ADVISED_CHUNK_CHARS} risk being cut off by \
             your output limit: send smaller parts with append_file"
        ));
    }
    warnings
}
