//! Turns a session outcome or an [`Error`] into a `CallToolResult`: a short text for the model
//! plus `structuredContent` matching the tool's `outputSchema`; every failure is `isError: true`.

use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

use crate::check::{Report, Status};
use crate::error::Error;
use crate::session::{AppendOutcome, ReadOutcome, WriteOutcome};

/// Something a tool can return: structured data and its human-readable text.
pub trait Rendered: Serialize {
    /// The text the model reads.
    fn text(&self) -> String;
}

/// Renders a tool's result, or its error, or a failure of the blocking task itself.
pub fn result<T: Rendered>(outcome: Result<Result<T, Error>, tokio::task::JoinError>) -> CallToolResult {
    match outcome {
        Ok(Ok(value)) => success(&value),
        Ok(Err(error)) => error_result(&error.to_string()),
        Err(join) => {
            tracing::error!("tool task failed: {join}");
            error_result(
                "internal error: the tool stopped unexpectedly; nothing is known to have been written. \
                 Run read_file on the path to see its current state before retrying.",
            )
        }
    }
}

fn success<T: Rendered>(value: &T) -> CallToolResult {
    match serde_json::to_value(value) {
        Ok(structured) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(value.text())]);
            result.structured_content = Some(structured);
            result
        }
        Err(e) => error_result(&format!("internal error: could not encode the result ({e})")),
    }
}

/// An `isError: true` result with `text` for the model.
pub fn error_result(text: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.to_string())])
}

fn with_warnings(mut text: String, warnings: &[String]) -> String {
    for w in warnings {
        text.push_str("\nwarning: ");
        text.push_str(w);
    }
    text
}

/// The syntax line for a result after a write or append. Problems only at the end are
/// "incomplete so far", the expected state while a file is still being appended to.
fn syntax_line(report: &Report) -> String {
    report.summary()
}

impl Rendered for WriteOutcome {
    fn text(&self) -> String {
        let head = format!(
            "{} {}: {} chars, {} lines ({} bytes){}",
            if self.created { "Created" } else { "Wrote" },
            self.path,
            self.chars,
            self.lines,
            self.size,
            if self.unescaped { ", unescaped" } else { "" }
        );
        let mut text = format!("{head}\n{}", syntax_line(&self.syntax));
        if self.syntax.status == Status::Incomplete {
            text.push_str("\nnext: append_file the next part");
        }
        with_warnings(text, &self.warnings)
    }
}

impl Rendered for AppendOutcome {
    fn text(&self) -> String {
        let head = if self.duplicate_skipped {
            format!(
                "Nothing appended to {}: it already ends with this chunk (total: {} bytes, {} lines)",
                self.path, self.size, self.lines
            )
        } else {
            format!(
                "Appended to {}: +{} chars (total: {} bytes, {} lines){}",
                self.path,
                self.chars,
                self.size,
                self.lines,
                if self.unescaped { ", unescaped" } else { "" }
            )
        };
        with_warnings(format!("{head}\n{}", syntax_line(&self.syntax)), &self.warnings)
    }
}

impl Rendered for ReadOutcome {
    fn text(&self) -> String {
        if self.total_lines == 0 {
            return format!("{} is empty (0 bytes).", self.path);
        }
        let mut text = self.content.clone();
        text.push_str(&format!(
            "\n\n[{}: lines {}-{} of {}, {} bytes{}{}",
            self.path,
            self.start_line,
            self.end_line,
            self.total_lines,
            self.total_bytes,
            if self.line_endings == "crlf" { ", CRLF line endings" } else { "" },
            if self.ends_with_newline { "" } else { ", no newline at end of file" },
        ));
        match self.next_offset {
            Some(next) => text.push_str(&format!("; more follows: read_file with offset {next}]")),
            None => text.push_str("; end of file]"),
        }
        if self.cut_lines > 0 {
            text.push_str(&format!("\n({} long lines were cut at 2000 characters)", self.cut_lines));
        }
        text
    }
}
