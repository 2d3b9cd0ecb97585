//! The reference parsers: each language's verdict comes from the parser its own
//! community trusts (Ruff's for Python, oxc for JavaScript and TypeScript,
//! rust-analyzer's for Rust, toml_edit, saphyr, serde_json), not from a grammar that
//! only approximates the language.
//!
//! Each module turns its parser's first error into one [`Failure`]: where it is, what
//! it is in the language's own words, and whether it is *at the end of the input*.
//! Each also says where the last top-level statement before its first error starts
//! ([`Parsed::resume`]), read off its own syntax tree: the text before that point
//! parses on its own, so after an append only the text from there is parsed again.
//!
//! These are real parsers with the viable-prefix property: they stop at the first
//! token that cannot continue any valid program. So "the first error is at the end
//! of the input" is exactly "this text is an unfinished prefix of some valid file",
//! and an earlier first error means no continuation can fix it.

use crate::lines::LineIndex;

pub(crate) mod javascript;
pub(crate) mod json;
pub(crate) mod python;
pub(crate) mod rust;
pub(crate) mod toml;
pub(crate) mod yaml;

/// A reference parser's verdict on a text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Parsed {
    /// The first problem, None when the text parses.
    pub(crate) failure: Option<Failure>,
    /// Byte offset where the last top-level statement (or item) that starts before the
    /// first problem (or, with none, the end) begins; 0 when there is none or the
    /// language has no statements (data formats). Strictly before: a problem reported
    /// where a statement starts may belong to the one before it (`def f():` with no
    /// body is reported at the next line's first token).
    ///
    /// Why a later check may start there: the parser was at the top level, expecting
    /// a statement, exactly at this point, so the text before it parses on its own and
    /// the verdict on any text that extends this one is the verdict on its part from
    /// here (with offsets moved). The last statement itself is parsed again, since an
    /// append may continue it (`else:` after an `if`, `(c)` after `a = b`).
    pub(crate) resume: usize,
    /// Where every top-level statement starts, when the text parsed without problem and the
    /// parser can re-check an edit from them (JavaScript and TypeScript); None otherwise.
    pub(crate) statements: Option<Vec<usize>>,
}

impl Parsed {
    /// A verdict with no resume point.
    pub(crate) fn whole(failure: Option<Failure>) -> Self {
        Parsed { failure, resume: 0, statements: None }
    }
}

/// The start of the last statement in `starts` (ascending) strictly before `limit`.
pub(crate) fn last_start_before(starts: impl IntoIterator<Item = usize>, limit: usize) -> usize {
    starts.into_iter().take_while(|&s| s < limit).last().unwrap_or(0)
}

/// The first problem a reference parser found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    /// Byte offset of the problem in the text given to the parser.
    pub(crate) at: usize,
    /// The parser failed only at the end of the input (an unclosed bracket, block,
    /// string, comment or document): the text is unfinished, not broken.
    pub(crate) at_end: bool,
    /// What is wrong, in the language's own words: "expected an indented block after
    /// function definition", "`}` has no matching `{`". Empty for a bracket left open
    /// (`bracket` says which) and for an empty JSON text ("nothing written yet").
    pub(crate) message: String,
    /// The bracket still open at the end of an unfinished text, when that is what is
    /// unfinished; `at` is where it opens.
    pub(crate) bracket: Option<char>,
    /// Where the span the parser blamed ends (at least `at`): an error whose span runs
    /// into the text's last token may only be a cut token.
    pub(crate) end: usize,
}

impl Failure {
    /// A text that ends with `bracket`, opened at `at`, still open.
    pub(crate) fn unclosed(at: usize, bracket: char) -> Self {
        Failure { at, at_end: true, message: String::new(), bracket: Some(bracket), end: at }
    }

    /// Any other problem.
    pub(crate) fn new(at: usize, at_end: bool, message: String) -> Self {
        Failure { at, at_end, message, bracket: None, end: at }
    }

    /// The same failure, blaming the span up to `end`.
    pub(crate) fn spanning(self, end: usize) -> Self {
        Failure { end: end.max(self.at), ..self }
    }

    /// The same failure in a text that starts `by` bytes later (a suffix was parsed).
    pub(crate) fn shifted(self, by: usize) -> Self {
        Failure { at: self.at + by, end: self.end + by, ..self }
    }

    /// The message for a reader of `text` (the whole text the offsets refer to).
    pub(crate) fn describe(&self, text: &LineIndex) -> String {
        match self.bracket {
            Some(bracket) => format!("`{bracket}` on line {} is not closed yet", text.line_of(self.at)),
            None => self.message.clone(),
        }
    }
}

/// Lower-cases the first letter of a parser's message, so every message reads the
/// same way after "12:5".
pub(crate) fn sentence(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first)
            if first.is_ascii_uppercase()
                && !chars.clone().next().is_some_and(|c| c.is_ascii_uppercase()) =>
        {
            first.to_ascii_lowercase().to_string() + chars.as_str()
        }
        _ => message.to_owned(),
    }
}

/// The end of the last line that is neither blank nor a `#` comment: where a
/// TOML or YAML text's content ends.
pub(crate) fn hash_comments_end(text: &str) -> usize {
    let mut end = 0;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim();
        if !body.is_empty() && !body.starts_with('#') {
            end = start + line.trim_end().len();
        }
        start += line.len();
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentence_lowercases_a_word_but_not_an_acronym() {
        assert_eq!(sentence("Expected an expression"), "expected an expression");
        assert_eq!(sentence("EOF reached"), "EOF reached");
        assert_eq!(sentence("`}` expected"), "`}` expected");
    }
}
