//! The verdict on one text ([`Report`]) and its human rendering ([`Report::summary`]).

use schemars::JsonSchema;
use serde::Serialize;

/// At most this many problems are listed; the rest are only counted, because a model
/// fixes the first few and re-checks, and a long list costs tokens for nothing.
pub const MAX_PROBLEMS: usize = 5;

/// Longest `Problem::source` kept, in characters: minified files have huge lines.
pub const MAX_SOURCE_CHARS: usize = 200;

/// The verdict on a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Parses cleanly. Not proof the file is finished: many prefixes parse clean too.
    Ok,
    /// Problems only at the end of the text: what an unfinished file looks like, and
    /// also what some real bugs look like (a dropped `}` is often reported at EOF).
    Incomplete,
    /// At least one problem before the end: broken, however much is appended.
    Errors,
    /// Not looked at; `Report::reason` says why.
    NotChecked,
}

/// One syntax problem, located for a human (and a model) to fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Problem {
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters, not bytes, so it matches what an editor shows.
    pub column: usize,
    /// What is wrong, e.g. "missing `)` in argument list" or "unexpected `else`".
    pub message: String,
    /// The offending source line without its line ending, cut to about 200 characters.
    pub source: String,
}

/// The result of checking one text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Report {
    /// `"python"`, `"json"`, `"javascript"`...; absent when the file type is not checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub language: Option<String>,
    /// The verdict.
    pub status: Status,
    /// Why the text was not checked: "unknown file type", "binary", "too large", "timed out";
    /// absent when it was checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub reason: Option<String>,
    /// The first problems in text order, at most [`MAX_PROBLEMS`], one per line.
    pub problems: Vec<Problem>,
    /// How many more problems were found but not listed.
    pub more_problems: usize,
}

impl Report {
    /// A clean parse.
    pub(crate) fn ok(language: &str) -> Self {
        Self::with(Some(language), Status::Ok, None, Vec::new())
    }

    /// Not checked, for `reason`; `language` is None only for an unknown file type.
    pub(crate) fn not_checked(language: Option<&str>, reason: &str) -> Self {
        Self::with(language, Status::NotChecked, Some(reason), Vec::new())
    }

    /// Incomplete or Errors with the problems found, which must be in text order
    /// (sorted by line, then column); keeps the first per line and caps the list.
    pub(crate) fn found(language: &str, status: Status, mut problems: Vec<Problem>) -> Self {
        problems.dedup_by_key(|p| p.line);
        Self::with(Some(language), status, None, problems)
    }

    fn with(
        language: Option<&str>,
        status: Status,
        reason: Option<&str>,
        mut problems: Vec<Problem>,
    ) -> Self {
        let more_problems = problems.len().saturating_sub(MAX_PROBLEMS);
        problems.truncate(MAX_PROBLEMS);
        Report {
            language: language.map(str::to_owned),
            status,
            reason: reason.map(str::to_owned),
            problems,
            more_problems,
        }
    }

    /// One or more lines of human text for a tool result, e.g.
    /// "syntax: ok" | "syntax: incomplete so far (python: unclosed at end of file: line 40:1
    /// missing `)`) - expected while you are still appending" | "syntax: 2 errors
    /// (python)\n  12:5 unexpected `)`\n      foo(a, b))\n ..." | "syntax: not checked
    /// (unknown file type)".
    ///
    /// Incomplete says "so far" because an EOF-only problem is also how some real bugs
    /// show up: the caller should check strictly once it says the file is finished.
    pub fn summary(&self) -> String {
        let language = self.language.as_deref().unwrap_or("unknown");
        match self.status {
            Status::Ok => "syntax: ok".to_owned(),
            Status::NotChecked => {
                format!("syntax: not checked ({})", self.reason.as_deref().unwrap_or("no reason given"))
            }
            Status::Incomplete => {
                let detail = match self.problems.first() {
                    Some(p) => format!("unclosed at end of file: line {}:{} {}", p.line, p.column, p.message),
                    None => "nothing written yet".to_owned(),
                };
                format!(
                    "syntax: incomplete so far ({language}: {detail}) - expected while you are still appending"
                )
            }
            Status::Errors => {
                let total = self.problems.len() + self.more_problems;
                let noun = if total == 1 { "error" } else { "errors" };
                let mut out = format!("syntax: {total} {noun} ({language})");
                for p in &self.problems {
                    out.push_str(&format!("\n  {}:{} {}", p.line, p.column, p.message));
                    if !p.source.trim().is_empty() {
                        out.push_str(&format!("\n      {}", p.source.trim_end()));
                    }
                }
                if self.more_problems > 0 {
                    out.push_str(&format!("\n  ...and {} more", self.more_problems));
                }
                out
            }
        }
    }
}

/// The 1-based line and character column of `byte` in `text`, and that line's source.
///
/// Works on bytes so an offset inside a multi-byte character (never expected, but the
/// offsets come from C) cannot panic: such an offset counts as its character.
pub(crate) fn locate(text: &str, byte: usize) -> (usize, usize, String) {
    let bytes = text.as_bytes();
    let byte = byte.min(bytes.len());
    let line_start = bytes[..byte].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = 1 + bytes[..line_start].iter().filter(|&&b| b == b'\n').count();
    let column = 1 + char_count(&bytes[line_start..byte]);
    (line, column, source_line(text, line_start))
}

/// Locates many sorted byte offsets in one forward pass: [`locate`] for each would rescan
/// the text from the start every time, which is quadratic on a hostile file with thousands
/// of problems (seen: 20 s for 4 MiB).
pub(crate) struct Locator<'t> {
    text: &'t str,
    /// Position reached, its line, where that line starts, and its column.
    at: usize,
    line: usize,
    line_start: usize,
    column: usize,
}

impl<'t> Locator<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Locator { text, at: 0, line: 1, line_start: 0, column: 1 }
    }

    /// (line, column, source line) of `byte`, which must not be before the previous one.
    pub(crate) fn locate(&mut self, byte: usize) -> (usize, usize, String) {
        let bytes = self.text.as_bytes();
        let byte = byte.min(bytes.len()).max(self.at);
        let span = &bytes[self.at..byte];
        match span.iter().rposition(|&b| b == b'\n') {
            Some(last) => {
                self.line += span.iter().filter(|&&b| b == b'\n').count();
                self.line_start = self.at + last + 1;
                self.column = 1 + char_count(&bytes[self.line_start..byte]);
            }
            None => self.column += char_count(span),
        }
        self.at = byte;
        (self.line, self.column, source_line(self.text, self.line_start))
    }
}

/// Characters in a byte slice of UTF-8: every byte that does not continue a character.
pub(crate) fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// The line starting at byte `line_start`, without its line ending, cut to
/// [`MAX_SOURCE_CHARS`] characters (with "..." when cut).
pub(crate) fn source_line(text: &str, line_start: usize) -> String {
    let rest = text.get(line_start..).unwrap_or("");
    let line = rest.split('\n').next().unwrap_or("");
    let line = line.strip_suffix('\r').unwrap_or(line);
    match line.char_indices().nth(MAX_SOURCE_CHARS) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(line: usize, column: usize, message: &str, source: &str) -> Problem {
        Problem { line, column, message: message.to_owned(), source: source.to_owned() }
    }

    #[test]
    fn summary_of_ok_is_one_short_line() {
        assert_eq!(Report::ok("python").summary(), "syntax: ok");
    }

    #[test]
    fn summary_of_not_checked_gives_the_reason() {
        let report = Report::not_checked(None, "unknown file type");
        assert_eq!(report.summary(), "syntax: not checked (unknown file type)");
    }

    #[test]
    fn summary_of_incomplete_names_the_first_problem_and_says_it_is_expected() {
        let report =
            Report::found("python", Status::Incomplete, vec![problem(40, 1, "missing `)`", "print(x")]);
        assert_eq!(
            report.summary(),
            "syntax: incomplete so far (python: unclosed at end of file: line 40:1 missing `)`) \
             - expected while you are still appending"
        );
    }

    #[test]
    fn summary_of_incomplete_without_problems_says_nothing_written_yet() {
        let report = Report::found("json", Status::Incomplete, Vec::new());
        assert_eq!(
            report.summary(),
            "syntax: incomplete so far (json: nothing written yet) - expected while you are still appending"
        );
    }

    #[test]
    fn summary_of_errors_lists_each_problem_with_its_source_line() {
        let report = Report::found(
            "python",
            Status::Errors,
            vec![problem(12, 5, "unexpected `)`", "foo(a, b))"), problem(20, 1, "missing `:`", "def f()")],
        );
        assert_eq!(
            report.summary(),
            "syntax: 2 errors (python)\n  12:5 unexpected `)`\n      foo(a, b))\n  20:1 missing `:`\n      def f()"
        );
    }

    #[test]
    fn summary_of_one_error_is_singular() {
        let report = Report::found("json", Status::Errors, vec![problem(1, 4, "trailing comma", "[1,]")]);
        assert!(report.summary().starts_with("syntax: 1 error (json)\n"));
    }

    #[test]
    fn problems_beyond_the_cap_are_counted_not_listed() {
        let problems = (1..=8).map(|l| problem(l, 1, "x", "")).collect();
        let report = Report::found("python", Status::Errors, problems);
        assert_eq!(report.problems.len(), MAX_PROBLEMS);
        assert_eq!(report.more_problems, 3);
        assert!(report.summary().starts_with("syntax: 8 errors"));
        assert!(report.summary().ends_with("\n  ...and 3 more"));
    }

    #[test]
    fn problems_on_the_same_line_are_listed_once() {
        let problems = vec![problem(3, 1, "a", ""), problem(3, 7, "b", ""), problem(4, 1, "c", "")];
        let report = Report::found("python", Status::Errors, problems);
        let lines: Vec<_> = report.problems.iter().map(|p| (p.line, p.column)).collect();
        assert_eq!(lines, [(3, 1), (4, 1)]);
    }

    #[test]
    fn the_locator_agrees_with_locate_at_every_offset() {
        let text = "ab\néé = )\r\n\nxyz";
        let mut locator = Locator::new(text);
        for byte in 0..=text.len() {
            if text.is_char_boundary(byte) {
                assert_eq!(locator.locate(byte), locate(text, byte), "at {byte}");
            }
        }
    }

    #[test]
    fn locate_counts_columns_in_characters() {
        let text = "a\néé = )\n";
        let byte = text.find(')').unwrap_or_default();
        assert_eq!(locate(text, byte), (2, 6, "éé = )".to_owned()));
    }

    #[test]
    fn source_line_is_cut_to_the_limit_and_drops_crlf() {
        let long = "x".repeat(300);
        assert_eq!(source_line(&format!("{long}\r\n"), 0).chars().count(), MAX_SOURCE_CHARS + 3);
        assert_eq!(source_line("ab\r\ncd", 0), "ab");
    }

    #[test]
    fn report_serializes_with_snake_case_names() {
        let report = Report::not_checked(Some("python"), "binary");
        let json = serde_json::to_value(&report).unwrap_or_default();
        assert_eq!(
            json,
            serde_json::json!({"language": "python", "status": "not_checked", "reason": "binary",
                "problems": [], "more_problems": 0})
        );
    }
}
