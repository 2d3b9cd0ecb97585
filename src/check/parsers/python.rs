//! Python by Ruff's parser (RustPython's published fork), which follows CPython's
//! grammar, indentation rules included: `expected an indented block` and `unexpected
//! indent` are parse errors here, as they are for `python3`.

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::{ModModule, PySourceType};
use ruff_python_parser::{LexicalErrorType, ParseErrorType, Parsed, parse_unchecked_source};
use ruff_text_size::Ranged;

use super::{Failure, last_start_before, sentence};

/// The verdict on `text`, with the start of its last top-level statement before the
/// first error as the resume point. `stub` is true for `.pyi` files, where `...`
/// bodies are the norm (the grammar is the same).
pub(crate) fn parse(text: &str, stub: bool) -> super::Parsed {
    let kind = if stub { PySourceType::Stub } else { PySourceType::Python };
    let parsed = parse_unchecked_source(text, kind);
    let failure = first_failure(text, &parsed);
    let limit = failure.as_ref().map_or(text.len(), |f| f.at);
    let starts = parsed.syntax().body.iter().map(|stmt| stmt.start().to_usize());
    super::Parsed { resume: last_start_before(starts, limit), failure, statements: None }
}

/// The first syntax error of a parsed text, None when it parses.
fn first_failure(text: &str, parsed: &Parsed<ModModule>) -> Option<Failure> {
    // A keyword argument given twice compares two places: CPython's compiler refuses
    // it, its parser does not, and a check resumed mid-file could not see it.
    let error = parsed
        .errors()
        .iter()
        .filter(|e| !matches!(e.error, ParseErrorType::DuplicateKeywordArgumentError(_)))
        .min_by_key(|e| e.location.start())?;
    let start = error.location.start().to_usize();
    let end = error.location.end().to_usize();
    let tokens = parsed.tokens();
    // Ruff reports an error found at the end of the input on the last token before
    // it (often the final newline), so "at the end" means: nothing but newlines,
    // comments and indentation changes from the error on.
    let only_trivia_after =
        tokens.iter().filter(|t| t.start().to_usize() >= start).all(|t| is_trivia(t.kind()));
    let lexical_to_end = matches!(error.error, ParseErrorType::Lexical(_)) && end >= text.trim_end().len();
    let at_end = only_trivia_after
        || lexical_to_end
        || matches!(error.error, ParseErrorType::Lexical(LexicalErrorType::Eof));
    if !at_end {
        let message = broken_message(text, start, end, &error.error);
        // Ruff puts "expected an indented block" on the header; CPython, like a
        // reader, at the statement that should have been indented.
        let at = if message.starts_with("expected an indented block") {
            tokens
                .iter()
                .map(|t| (t.start().to_usize(), t.kind()))
                .find(|&(at, kind)| at >= start && !is_trivia(kind))
                .map_or(start, |(at, _)| at)
        } else {
            start
        };
        return Some(Failure::new(at, false, message).spanning(end));
    }
    if let Some(&(at, bracket)) = open_brackets(parsed).last() {
        return Some(Failure::unclosed(at, bracket));
    }
    Some(Failure::new(start, true, unfinished_message(&error.error)))
}

fn is_trivia(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Newline
            | TokenKind::NonLogicalNewline
            | TokenKind::Comment
            | TokenKind::Indent
            | TokenKind::Dedent
            | TokenKind::EndOfFile
    )
}

/// Brackets still open at the end of the token stream, innermost last, as
/// (offset, bracket).
fn open_brackets(parsed: &Parsed<ModModule>) -> Vec<(usize, char)> {
    let mut open = Vec::new();
    for token in parsed.tokens().iter() {
        let at = token.start().to_usize();
        match token.kind() {
            TokenKind::Lpar => open.push((at, '(')),
            TokenKind::Lsqb => open.push((at, '[')),
            TokenKind::Lbrace => open.push((at, '{')),
            TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => {
                open.pop();
            }
            _ => {}
        }
    }
    open
}

/// The parser's own words for an unfinished block or string.
fn unfinished_message(error: &ParseErrorType) -> String {
    match error {
        ParseErrorType::Lexical(LexicalErrorType::UnclosedStringError) => {
            "string is not closed yet".to_owned()
        }
        ParseErrorType::Lexical(LexicalErrorType::Eof) => {
            "the file ends in the middle of a statement".to_owned()
        }
        other => sentence(&other.to_string()),
    }
}

/// The parser's message, made specific where it is vague: a stray closing bracket
/// is "`)` has no matching `(`" rather than "expected a statement".
fn broken_message(text: &str, start: usize, end: usize, error: &ParseErrorType) -> String {
    let token = text.get(start..end).unwrap_or_default().trim();
    let stray = match token {
        ")" => Some('('),
        "]" => Some('['),
        "}" => Some('{'),
        _ => None,
    };
    match (stray, error) {
        (Some(open), ParseErrorType::OtherError(_) | ParseErrorType::ExpectedToken { .. }) => {
            format!("`{token}` has no matching `{open}`")
        }
        (_, ParseErrorType::UnexpectedIndentation) => "unexpected indent".to_owned(),
        (_, ParseErrorType::Lexical(LexicalErrorType::IndentationError)) => {
            "unindent does not match any outer indentation level".to_owned()
        }
        _ => sentence(&error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::LineIndex;

    fn failure(text: &str) -> Failure {
        parse(text, false).failure.expect("a syntax error")
    }

    #[test]
    fn valid_code_has_no_failure() {
        assert_eq!(parse("def f(a):\n    return a\n", false).failure, None);
    }

    #[test]
    fn a_missing_indented_block_mid_file_is_broken_at_the_next_line() {
        let f = failure("def f():\nx = 1\n");
        assert!(!f.at_end);
        assert_eq!(LineIndex::new("def f():\nx = 1\n").line_of(f.at), 2);
        assert!(f.message.starts_with("expected an indented block"), "{}", f.message);
    }

    #[test]
    fn a_missing_indented_block_at_the_end_is_unfinished() {
        for text in ["def f():\n", "def f():", "class A:\n    def f(self):\n", "def f():\n    # later\n"] {
            assert!(failure(text).at_end, "{text:?}");
        }
    }

    #[test]
    fn a_missing_block_before_a_dedent_is_reported_at_the_next_statement() {
        let text = "class A:\n    def f(self):\n\n# a\n# b\nclass B:\n    pass\n";
        let f = failure(text);
        assert!(!f.at_end);
        assert_eq!(LineIndex::new(text).line_of(f.at), 6, "where CPython reports it: {f:?}");
    }

    #[test]
    fn a_keyword_argument_given_twice_is_the_compilers_business() {
        assert_eq!(parse("f(default=None,\n  default=False)\n", false).failure, None);
    }

    #[test]
    fn an_unexpected_indent_is_broken() {
        let f = failure("x = 1\n    y = 2\nz = 3\n");
        assert!(!f.at_end);
        assert_eq!(f.message, "unexpected indent");
    }

    #[test]
    fn an_unclosed_bracket_is_unfinished_and_named() {
        let text = "print(f(1),\n      f(2)\n";
        let f = failure(text);
        assert!(f.at_end);
        assert_eq!(f.describe(&LineIndex::new(text)), "`(` on line 1 is not closed yet");
    }

    #[test]
    fn a_stray_closing_bracket_is_broken_and_named() {
        let f = failure("foo(a))\nx = 1\n");
        assert!(!f.at_end);
        assert_eq!(f.message, "`)` has no matching `(`");
        let f = failure("foo(a))");
        assert!(!f.at_end, "a stray `)` can never be completed, even on the last line");
    }

    #[test]
    fn a_docstring_cut_open_is_unfinished_and_one_closed_on_the_line_is_not() {
        assert!(failure("x = 1\ndef f():\n    \"\"\"Docs.\n\n    x = (1,\n").at_end);
        assert!(failure("x = 'abc").at_end);
        assert!(!failure("x = 'abc\ny = 1\n").at_end);
    }

    #[test]
    fn a_cut_inside_an_expression_is_unfinished() {
        for text in ["x = 1 +", "x = a *", "d = {'a': 1,\n 'b'", "@dec\n", "if x:\n    pass\nelse:"] {
            assert!(failure(text).at_end, "{text:?}");
        }
    }
}
