//! Rust by rust-analyzer's parser (`ra_ap_parser`), the resilient parser the Rust
//! project ships for its IDE. Macro bodies are token trees, as in rustc, so
//! `macro_rules!` arms such as `($mode:ident, $) => { 1 };` parse.
//!
//! Only the lexer and the parser run: no syntax tree is built, since the verdict
//! needs only the first error and where it is.

use std::collections::HashMap;
use std::sync::OnceLock;

use ra_ap_parser::{Edition, LexedStr, StrStep, SyntaxKind, TopEntryPoint};

use super::{Failure, Parsed, last_start_before, sentence};

/// The edition the grammar follows: 2021, what `rustfmt` assumes without a manifest.
const EDITION: Edition = Edition::Edition2021;

/// The verdict on `text`, with the start of its last top-level item before the first
/// error as the resume point.
pub(crate) fn parse(text: &str) -> Parsed {
    let lexed = LexedStr::new(EDITION, text);
    let output = TopEntryPoint::SourceFile.parse(&lexed.to_input(EDITION));
    // Walk the parser's steps: item starts are the `Enter`s directly under the source
    // file (depth 1), at the text position reached so far.
    let mut parser_error: Option<(usize, String)> = None;
    let mut item_starts = Vec::new();
    let (mut depth, mut pos) = (0usize, 0usize);
    lexed.intersperse_trivia(&output, &mut |step| match step {
        StrStep::Token { text, .. } => pos += text.len(),
        StrStep::Enter { .. } => {
            if depth == 1 {
                item_starts.push(pos);
            }
            depth += 1;
        }
        StrStep::Exit => depth = depth.saturating_sub(1),
        StrStep::Error { msg, pos } => {
            if parser_error.as_ref().is_none_or(|(at, _)| pos < *at) {
                parser_error = Some((pos, msg.to_owned()));
            }
        }
    });
    let failure = first_failure(&lexed, parser_error);
    let limit = failure.as_ref().map_or(text.len(), |f| f.at);
    Parsed { resume: last_start_before(item_starts, limit), failure }
}

/// The first syntax error, lexical or from the parser, None when there is none.
fn first_failure(lexed: &LexedStr<'_>, parser_error: Option<(usize, String)>) -> Option<Failure> {
    let content_end = (0..lexed.len())
        .rev()
        .find(|&i| !lexed.kind(i).is_trivia() && lexed.kind(i) != SyntaxKind::EOF)
        .map_or(0, |i| lexed.text_range(i).end);
    let lexical = lexed
        .errors()
        .map(|(i, msg)| {
            let range = lexed.text_range(i);
            (range.start, range.end >= content_end, sentence(msg))
        })
        .min_by_key(|&(at, ..)| at);
    // rust-analyzer places an error after the last token it accepted, so an error
    // at or past the last token's end means the next token was the end of input.
    let parsed = parser_error.map(|(at, msg)| (at, at >= content_end, msg));
    let (at, at_end, message) = match (lexical, parsed) {
        (Some(l), Some(p)) => {
            if l.0 <= p.0 {
                l
            } else {
                p
            }
        }
        (Some(l), None) => l,
        (None, Some(p)) => p,
        (None, None) => return None,
    };
    if at_end {
        if let Some((open, bracket)) = innermost_open(lexed) {
            return Some(Failure::unclosed(open, bracket));
        }
        let message = if message.starts_with("missing trailing") {
            message.replace("missing trailing", "not closed yet: no")
        } else {
            "the file ends in the middle of an item".to_owned()
        };
        return Some(Failure::new(at, true, message));
    }
    Some(Failure::new(at, false, words(&message)))
}

/// The innermost bracket left open at the end of the text, as (offset, bracket).
fn innermost_open(lexed: &LexedStr<'_>) -> Option<(usize, char)> {
    let mut open = Vec::new();
    for i in 0..lexed.len() {
        match lexed.kind(i) {
            SyntaxKind::L_CURLY => open.push((lexed.text_start(i), '{')),
            SyntaxKind::L_PAREN => open.push((lexed.text_start(i), '(')),
            SyntaxKind::L_BRACK => open.push((lexed.text_start(i), '[')),
            SyntaxKind::R_CURLY | SyntaxKind::R_PAREN | SyntaxKind::R_BRACK => {
                open.pop();
            }
            _ => {}
        }
    }
    open.pop()
}

/// The parser's message with its token names written as the tokens themselves:
/// "expected SEMICOLON" -> "expected `;`", "unmatched `}`" -> "`}` has no matching `{`".
fn words(message: &str) -> String {
    if let Some(close) = message.strip_prefix("unmatched `").and_then(|m| m.strip_suffix('`')) {
        let open = match close {
            ")" => "(",
            "]" => "[",
            _ => "{",
        };
        return format!("`{close}` has no matching `{open}`");
    }
    let names = token_names();
    message
        .split(' ')
        .map(|word| {
            let bare = word.trim_end_matches(',');
            let rest = &word[bare.len()..];
            match names.get(bare) {
                Some(text) => format!("`{text}`{rest}"),
                None if bare == "IDENT" => format!("an identifier{rest}"),
                None if bare.len() > 1 && bare.chars().all(|c| c.is_ascii_uppercase() || c == '_') => {
                    format!("{}{rest}", bare.to_ascii_lowercase().replace('_', " "))
                }
                None => word.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Token kind names (`SEMICOLON`, `R_CURLY`, `FN_KW`) to their text (`;`, `}`, `fn`).
fn token_names() -> &'static HashMap<String, &'static str> {
    static NAMES: OnceLock<HashMap<String, &'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        (0..SyntaxKind::__LAST as u16)
            .map(SyntaxKind::from)
            .filter(|kind| kind.is_punct() || kind.is_keyword(EDITION) || kind.is_contextual_keyword(EDITION))
            .map(|kind| (format!("{kind:?}"), kind.text()))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(text: &str) -> Failure {
        parse(text).failure.expect("a syntax error")
    }

    #[test]
    fn valid_code_and_macro_token_trees_parse() {
        assert_eq!(parse("macro_rules! m { ($mode:ident, $) => { 1 }; }\nfn main() {}\n").failure, None);
        assert_eq!(parse("fn f<'a>(x: &'a str) -> &'a str { x }\n").failure, None);
    }

    #[test]
    fn an_unclosed_block_is_unfinished_at_its_opener() {
        let text = "fn f() {\n let x = 1;\n";
        let f = failure(text);
        assert!(f.at_end);
        assert_eq!(f.describe(text), "`{` on line 1 is not closed yet");
    }

    #[test]
    fn a_stray_brace_is_broken_and_named() {
        let f = failure("fn f() {}\n}\nfn g() {}\n");
        assert!(!f.at_end);
        assert_eq!(f.message, "`}` has no matching `{`");
        assert_eq!(f.at, 10);
    }

    #[test]
    fn a_missing_semicolon_names_the_token() {
        let f = failure("fn f() {\n let x = 1\n let y = 2;\n}\n");
        assert!(!f.at_end);
        assert_eq!(f.message, "expected `;`");
    }

    #[test]
    fn a_block_comment_or_string_left_open_is_unfinished() {
        assert!(failure("fn f() {}\n/* abc\n").at_end);
        assert!(failure("fn f() {\n let s = \"abc\n").at_end);
    }

    #[test]
    fn a_cut_after_a_dot_or_keyword_is_unfinished() {
        assert!(failure("fn f() { x.").at_end);
        assert!(failure("use std::io;\nuse").at_end);
    }
}
