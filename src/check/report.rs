//! The verdict on one text ([`Report`]) and its human rendering ([`Report::summary`]).

use schemars::JsonSchema;
use serde::Serialize;

use super::languages::LanguageName;
use crate::lines::LineIndex;

/// At most this many problems are listed; the rest are only counted, because a model
/// fixes the first few and re-checks, and a long list costs tokens for nothing.
pub const MAX_PROBLEMS: usize = 5;

/// Longest `Problem::source` kept, in characters: minified files have huge lines.
pub const MAX_SOURCE_CHARS: usize = 200;

/// The verdict on a text, ordered from healthiest to least healthy (`NotChecked` last: a
/// verdict that says nothing is worth least when two are compared).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
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
    /// In a notebook, the cell whose source holds the problem: `line` and `column` are then
    /// within that cell's source (as `read_file` shows it), not the file's JSON. Absent
    /// elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "CellAt")]
    pub cell: Option<CellAt>,
}

/// A notebook cell, as a problem or stub names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CellAt {
    /// 0-based position in the notebook.
    pub index: usize,
    /// The cell's `id` (nbformat 4.5); absent in older notebooks.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub id: Option<String>,
}

impl std::fmt::Display for CellAt {
    /// `cell 3 (id ab12cd34)`, or `cell 3` without an id.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.id {
            Some(id) => write!(f, "cell {} (id {id})", self.index),
            None => write!(f, "cell {}", self.index),
        }
    }
}

/// The result of checking one text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Report {
    /// The language checked as; absent when the file type is not checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LanguageName")]
    pub language: Option<LanguageName>,
    /// The verdict.
    pub status: Status,
    /// Why the text was not checked; absent when it was checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "NotChecked")]
    pub reason: Option<NotChecked>,
    /// The first problems in text order, at most [`MAX_PROBLEMS`], one per line.
    pub problems: Vec<Problem>,
    /// How many more problems were found but not listed.
    pub more_problems: usize,
}

/// Why a text was not checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub enum NotChecked {
    /// No checked language has the file's extension.
    #[serde(rename = "unknown file type")]
    UnknownFileType,
    /// NUL bytes: not text in any encoding.
    #[serde(rename = "binary")]
    Binary,
    /// Larger than the check's limit (8 MiB).
    #[serde(rename = "too large")]
    TooLarge,
    /// The parse ran out of its time budget.
    #[serde(rename = "timed out")]
    TimedOut,
    /// Brackets nested deeper than the check's limit.
    #[serde(rename = "nested too deeply")]
    NestedTooDeeply,
    /// The language's grammar could not be loaded (a build fault, never expected).
    #[serde(rename = "no grammar")]
    NoGrammar,
    /// The check stopped on a fault of its own (a bug, never expected).
    #[serde(rename = "check failed")]
    Failed,
    /// A symbolic link that leads to no file to check (its target does not exist, is a
    /// directory or lies outside the root).
    #[serde(rename = "link to no file")]
    NoLinkTarget,
}

impl NotChecked {
    /// The reason as on the wire and in text results.
    pub fn as_str(self) -> &'static str {
        match self {
            NotChecked::UnknownFileType => "unknown file type",
            NotChecked::Binary => "binary",
            NotChecked::TooLarge => "too large",
            NotChecked::TimedOut => "timed out",
            NotChecked::NestedTooDeeply => "nested too deeply",
            NotChecked::NoGrammar => "no grammar",
            NotChecked::Failed => "check failed",
            NotChecked::NoLinkTarget => "link to no file",
        }
    }
}

impl Report {
    /// A clean parse.
    pub(crate) fn ok(language: LanguageName) -> Self {
        Self::with(Some(language), Status::Ok, None, Vec::new())
    }

    /// Not checked, for `reason`; `language` is None only for an unknown file type.
    pub(crate) fn not_checked(language: Option<LanguageName>, reason: NotChecked) -> Self {
        Self::with(language, Status::NotChecked, Some(reason), Vec::new())
    }

    /// Incomplete or Errors with the problems found, which must be in text order
    /// (sorted by line, then column); keeps the first per line and caps the list.
    pub(crate) fn found(language: LanguageName, status: Status, mut problems: Vec<Problem>) -> Self {
        problems.dedup_by_key(|p| (p.cell.as_ref().map(|c| c.index), p.line));
        Self::with(Some(language), status, None, problems)
    }

    fn with(
        language: Option<LanguageName>,
        status: Status,
        reason: Option<NotChecked>,
        mut problems: Vec<Problem>,
    ) -> Self {
        let more_problems = problems.len().saturating_sub(MAX_PROBLEMS);
        problems.truncate(MAX_PROBLEMS);
        Report { language, status, reason, problems, more_problems }
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
        let language = self.language.map_or("unknown", LanguageName::as_str);
        match self.status {
            Status::Ok => "syntax: ok".to_owned(),
            Status::NotChecked => {
                format!("syntax: not checked ({})", self.reason.map_or("no reason given", NotChecked::as_str))
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
                    // A notebook cell's problem says its cell and line in its message.
                    match p.cell {
                        Some(_) => out.push_str(&format!("\n  {}", p.message)),
                        None => out.push_str(&format!("\n  {}:{} {}", p.line, p.column, p.message)),
                    }
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

impl Problem {
    /// The problem `message` at byte `at` of the indexed text, located for a reader.
    pub(crate) fn at(index: &LineIndex, at: usize, message: String) -> Self {
        let (line, column) = index.locate(at);
        Problem { line, column, message, source: source_text(index.line(line)), cell: None }
    }
}

/// A source line as a problem or stub shows it: cut to [`MAX_SOURCE_CHARS`] characters (with
/// "..." when cut).
pub(crate) fn source_text(line: &str) -> String {
    match line.char_indices().nth(MAX_SOURCE_CHARS) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(line: usize, column: usize, message: &str, source: &str) -> Problem {
        Problem { line, column, message: message.to_owned(), source: source.to_owned(), cell: None }
    }

    #[test]
    fn summary_of_ok_is_one_short_line() {
        assert_eq!(Report::ok(LanguageName::Python).summary(), "syntax: ok");
    }

    #[test]
    fn summary_of_not_checked_gives_the_reason() {
        let report = Report::not_checked(None, NotChecked::UnknownFileType);
        assert_eq!(report.summary(), "syntax: not checked (unknown file type)");
    }

    #[test]
    fn summary_of_incomplete_names_the_first_problem_and_says_it_is_expected() {
        let report = Report::found(
            LanguageName::Python,
            Status::Incomplete,
            vec![problem(40, 1, "missing `)`", "print(x")],
        );
        assert_eq!(
            report.summary(),
            "syntax: incomplete so far (python: unclosed at end of file: line 40:1 missing `)`) \
             - expected while you are still appending"
        );
    }

    #[test]
    fn summary_of_incomplete_without_problems_says_nothing_written_yet() {
        let report = Report::found(LanguageName::Json, Status::Incomplete, Vec::new());
        assert_eq!(
            report.summary(),
            "syntax: incomplete so far (json: nothing written yet) - expected while you are still appending"
        );
    }

    #[test]
    fn summary_of_errors_lists_each_problem_with_its_source_line() {
        let report = Report::found(
            LanguageName::Python,
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
        let report =
            Report::found(LanguageName::Json, Status::Errors, vec![problem(1, 4, "trailing comma", "[1,]")]);
        assert!(report.summary().starts_with("syntax: 1 error (json)\n"));
    }

    #[test]
    fn problems_beyond_the_cap_are_counted_not_listed() {
        let problems = (1..=8).map(|l| problem(l, 1, "x", "")).collect();
        let report = Report::found(LanguageName::Python, Status::Errors, problems);
        assert_eq!(report.problems.len(), MAX_PROBLEMS);
        assert_eq!(report.more_problems, 3);
        assert!(report.summary().starts_with("syntax: 8 errors"));
        assert!(report.summary().ends_with("\n  ...and 3 more"));
    }

    #[test]
    fn problems_on_the_same_line_are_listed_once() {
        let problems = vec![problem(3, 1, "a", ""), problem(3, 7, "b", ""), problem(4, 1, "c", "")];
        let report = Report::found(LanguageName::Python, Status::Errors, problems);
        let lines: Vec<_> = report.problems.iter().map(|p| (p.line, p.column)).collect();
        assert_eq!(lines, [(3, 1), (4, 1)]);
    }

    #[test]
    fn a_problem_is_located_in_characters_with_its_source_line() {
        let text = "a\néé = )\r\n";
        let index = LineIndex::new(text);
        let p = Problem::at(&index, text.find(')').unwrap_or_default(), "m".into());
        assert_eq!(p, problem(2, 6, "m", "éé = )"));
    }

    #[test]
    fn source_text_is_cut_to_the_limit_and_drops_crlf() {
        let long = "x".repeat(300);
        let index = LineIndex::new(&long);
        assert_eq!(source_text(index.line(1)).chars().count(), MAX_SOURCE_CHARS + 3);
        assert_eq!(source_text(LineIndex::new("ab\r\ncd").line(1)), "ab");
    }

    #[test]
    fn report_serializes_with_snake_case_names() {
        let report = Report::not_checked(Some(LanguageName::Python), NotChecked::Binary);
        let json = serde_json::to_value(&report).unwrap_or_default();
        assert_eq!(
            json,
            serde_json::json!({"language": "python", "status": "not_checked", "reason": "binary",
                "problems": [], "more_problems": 0})
        );
    }

    #[test]
    fn text_names_of_not_checked_reasons_are_their_wire_names() {
        use NotChecked::*;
        for reason in [UnknownFileType, Binary, TooLarge, TimedOut, NestedTooDeeply, NoGrammar, Failed] {
            assert_eq!(serde_json::to_value(reason).ok(), Some(serde_json::json!(reason.as_str())));
        }
    }
}
