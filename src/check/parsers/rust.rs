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

/// The edition token names are written in: keywords of every edition.
const EDITION: Edition = Edition::Edition2021;

/// The Rust edition a file is read in: its crate's, from `Cargo.toml`. Keywords differ
/// (`try`, `async`, `dyn` are names in 2015), so the same text can be valid in one and broken
/// in another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RustEdition {
    /// 2015: Cargo's default for a manifest without `edition`.
    E2015,
    /// 2018.
    E2018,
    /// 2021: what `rustfmt` assumes without a manifest, and the check without one.
    #[default]
    E2021,
    /// 2024.
    E2024,
}

impl RustEdition {
    /// The edition a manifest's `edition = "..."` names; None for a value Cargo rejects.
    pub fn named(value: &str) -> Option<RustEdition> {
        match value.trim() {
            "2015" => Some(RustEdition::E2015),
            "2018" => Some(RustEdition::E2018),
            "2021" => Some(RustEdition::E2021),
            "2024" => Some(RustEdition::E2024),
            _ => None,
        }
    }

    fn parser_edition(self) -> Edition {
        match self {
            RustEdition::E2015 => Edition::Edition2015,
            RustEdition::E2018 => Edition::Edition2018,
            RustEdition::E2021 => Edition::Edition2021,
            RustEdition::E2024 => Edition::Edition2024,
        }
    }
}

/// One step of the walk over a parse, as a reader of the text beyond its verdict sees it
/// (the survey: see `check::survey`). Offsets are in the text parsed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'t> {
    /// A node opens here: after the trivia before it, except the comments rust-analyzer
    /// attaches to an item (its doc comments), which come next, inside it.
    Enter(SyntaxKind, usize),
    /// The node closes here, at the end of its last token.
    Exit(SyntaxKind, usize),
    /// A token (whitespace and comments included), where it starts and its text.
    Token(SyntaxKind, usize, &'t str),
}

/// A reader of the walk over a parse: each step, with the kinds of the nodes open around it,
/// outermost first (for an `Enter` or `Exit`, the node's parents).
pub(crate) type Reader<'r> = &'r mut (dyn FnMut(Step<'_>, &[SyntaxKind]) + Send);

/// The verdict on `text` read in `edition`, with the start of its last top-level item before
/// the first error as the resume point. Every step of its walk over the parse is handed to
/// `reader` too: one lex and parse for the verdict and for what else is read off the text.
pub(crate) fn parse_read(text: &str, edition: RustEdition, mut reader: Option<Reader<'_>>) -> Parsed {
    let edition = edition.parser_edition();
    let lexed = LexedStr::new(edition, text);
    let output = TopEntryPoint::SourceFile.parse(&lexed.to_input(edition));
    // Walk the parser's steps: item starts are the `Enter`s directly under the source
    // file, at the text position reached so far. The same walk applies the rules rustc's
    // parser enforces and rust-analyzer's leaves to a later pass (see `misplaced`).
    let mut parser_error: Option<(usize, String)> = None;
    let mut note = |at: usize, message: String| {
        if parser_error.as_ref().is_none_or(|(first, _)| at < *first) {
            parser_error = Some((at, message));
        }
    };
    let mut item_starts = Vec::new();
    let mut open: Vec<SyntaxKind> = Vec::new();
    let mut pos = 0usize;
    // A doc comment not yet followed by the item it documents.
    let mut pending_doc: Option<usize> = None;
    // The first token the lexer could not read, which rustc reports as it reads it.
    let mut bad_token: Option<(usize, String)> = None;
    // An item found where it is not allowed, reported at its next token.
    let mut misplaced_item: Option<String> = None;
    lexed.intersperse_trivia(&output, &mut |step| match step {
        StrStep::Token { kind, text: token } => {
            if let Some(read) = reader.as_mut() {
                read(Step::Token(kind, pos, token), &open);
            }
            if kind == SyntaxKind::COMMENT && is_outer_doc(token) && !open.contains(&SyntaxKind::TOKEN_TREE) {
                pending_doc = Some(pos);
            } else if !kind.is_trivia() {
                if let Some(message) = misplaced_item.take() {
                    note(pos, message);
                }
                if let Some(doc) = pending_doc.take()
                    && kind == SyntaxKind::R_CURLY
                {
                    note(doc, "a doc comment must be followed by the item it documents".to_owned());
                }
                if kind == SyntaxKind::ERROR {
                    let first = token.chars().next().unwrap_or('?');
                    let message = format!("unknown start of token: {first}");
                    bad_token.get_or_insert((pos, message.clone()));
                    note(pos, message);
                }
            }
            pos += token.len();
        }
        StrStep::Enter { kind } => {
            if let Some(message) = open.last().and_then(|&parent| misplaced(parent, kind)) {
                // Reported at the item's first token, after its doc comments.
                misplaced_item = Some(message);
            }
            if open.len() == 1 {
                item_starts.push(pos);
            }
            if let Some(read) = reader.as_mut() {
                read(Step::Enter(kind, pos), &open);
            }
            open.push(kind);
        }
        StrStep::Exit => {
            let kind = open.pop();
            if let (Some(read), Some(kind)) = (reader.as_mut(), kind) {
                read(Step::Exit(kind, pos), &open);
            }
        }
        StrStep::Error { msg, pos } => note(pos, msg.to_owned()),
    });
    // A doc comment at the very end still waits for its item: unfinished.
    let dangling_doc = pending_doc.filter(|_| parser_error.is_none());
    let failure = match dangling_doc {
        Some(doc) => Some(Failure::new(
            doc,
            true,
            "a doc comment must be followed by the item it documents".to_owned(),
        )),
        None => first_failure(&lexed, parser_error, bad_token, text),
    };
    let limit = failure.as_ref().map_or(text.len(), |f| f.at);
    Parsed { resume: last_start_before(item_starts, limit), failure, statements: None }
}

/// The first syntax error, None when there is none, in the order rustc reports them: its
/// lexer reports a bad token as it reads it; then the delimiters that do not match (see
/// [`delimiter_failure`]), before any parse, which does not happen when they are wrong; then
/// the parser's first error.
fn first_failure(
    lexed: &LexedStr<'_>,
    parser_error: Option<(usize, String)>,
    bad_token: Option<(usize, String)>,
    text: &str,
) -> Option<Failure> {
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
        .chain(bad_token.map(|(at, message)| (at, false, message)))
        .min_by_key(|&(at, ..)| at);
    let delimiters = delimiter_failure(lexed, text);
    // rustc stops reading at a closing delimiter that closes nothing: a bad token after it
    // is never reached.
    let lexical =
        lexical.filter(|l| delimiters.as_ref().is_none_or(|d| d.stops_at.is_none_or(|stop| l.0 < stop)));
    if lexical.is_none()
        && let Some(d) = delimiters
    {
        return Some(d.failure);
    }
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

/// A closing delimiter that does not match, found the way rustc's lexer pairs delimiters
/// into token trees before it parses.
struct DelimiterFailure {
    failure: Failure,
    /// Where rustc stopped reading: at a closing delimiter that closes nothing.
    stops_at: Option<usize>,
}

/// The first delimiter problem rustc reports, None when every closing delimiter closes the
/// innermost open one (delimiters still open at the end are only unfinished).
///
/// rustc pairs delimiters before it parses and reports these instead of any parse error, at
/// its own places: a closing delimiter that closes the wrong kind ("mismatched closing
/// delimiter") where the delimiter it should have closed opens, and one with nothing open
/// ("unexpected closing delimiter") where it stands, and then that one alone. Its recovery is
/// followed so that the report is the same: the innermost open delimiter is dropped, and the
/// closing one is kept for the next if it matches one still open further out.
fn delimiter_failure(lexed: &LexedStr<'_>, text: &str) -> Option<DelimiterFailure> {
    let bracket = |kind: SyntaxKind| match kind {
        SyntaxKind::L_CURLY => Some((true, '{')),
        SyntaxKind::L_PAREN => Some((true, '(')),
        SyntaxKind::L_BRACK => Some((true, '[')),
        SyntaxKind::R_CURLY => Some((false, '{')),
        SyntaxKind::R_PAREN => Some((false, '(')),
        SyntaxKind::R_BRACK => Some((false, '[')),
        _ => None,
    };
    let line = |at: usize| text.get(..at).map_or(0, |before| before.matches('\n').count()) + 1;
    let mut open: Vec<(char, usize)> = Vec::new();
    let mut mismatched: Option<Failure> = None;
    let mut i = 0;
    while i < lexed.len() {
        let Some((opens, kind)) = bracket(lexed.kind(i)) else {
            i += 1;
            continue;
        };
        let at = lexed.text_start(i);
        if opens {
            open.push((kind, at));
            i += 1;
            continue;
        }
        let close = closing(kind);
        match open.last() {
            // rustc then reports this alone, without the mismatches before it.
            None => {
                let failure = Failure::new(at, false, format!("`{close}` has no matching `{kind}`"));
                return Some(DelimiterFailure { failure, stops_at: Some(at) });
            }
            Some(&(top, _)) if top == kind => {
                open.pop();
                i += 1;
            }
            Some(&(top, top_at)) => {
                mismatched.get_or_insert_with(|| {
                    let message = format!(
                        "`{top}` is closed by `{close}` on line {}, which does not match it",
                        line(at)
                    );
                    Failure::new(top_at, false, message)
                });
                open.pop();
                // Kept for an outer delimiter it matches, as rustc does.
                if !open.iter().any(|&(o, _)| o == kind) {
                    i += 1;
                }
            }
        }
    }
    mismatched.map(|failure| DelimiterFailure { failure, stops_at: None })
}

/// The closing delimiter of `open`.
fn closing(open: char) -> char {
    match open {
        '{' => '}',
        '(' => ')',
        _ => ']',
    }
}

/// `///` and `/** */` comments document the item after them (`////` and `/***/` are
/// plain comments; inner `//!` and `/*!` document the enclosing item).
fn is_outer_doc(comment: &str) -> bool {
    (comment.starts_with("///") && !comment.starts_with("////"))
        || (comment.starts_with("/**") && !comment.starts_with("/***") && comment != "/**/")
}

/// rustc's parser refuses these items where rust-analyzer's parses them and reports
/// them later: an `impl` or `trait` body holds only functions, constants, types and
/// macro calls, and an `extern` block only functions, statics, types and macro calls.
/// An agent's join that drops an `impl`'s closing `}` nests the next `impl` or
/// `struct` inside it, so the message says where to look.
fn misplaced(parent: SyntaxKind, child: SyntaxKind) -> Option<String> {
    let keyword = match child {
        SyntaxKind::MODULE => "mod",
        SyntaxKind::ENUM => "enum",
        SyntaxKind::STRUCT => "struct",
        SyntaxKind::UNION => "union",
        SyntaxKind::USE => "use",
        SyntaxKind::IMPL => "impl",
        SyntaxKind::TRAIT => "trait",
        SyntaxKind::EXTERN_CRATE => "extern crate",
        SyntaxKind::EXTERN_BLOCK => "extern",
        SyntaxKind::MACRO_RULES => "macro_rules!",
        SyntaxKind::MACRO_DEF => "macro",
        SyntaxKind::STATIC if parent == SyntaxKind::ASSOC_ITEM_LIST => "static",
        SyntaxKind::CONST if parent == SyntaxKind::EXTERN_ITEM_LIST => "const",
        _ => return None,
    };
    match parent {
        SyntaxKind::ASSOC_ITEM_LIST => Some(format!(
            "`{keyword}` is not allowed in an `impl` or `trait` body (is a `}}` missing before it?)"
        )),
        SyntaxKind::EXTERN_ITEM_LIST => Some(format!("`{keyword}` is not allowed in an `extern` block")),
        _ => None,
    }
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
    use crate::lines::LineIndex;

    fn parse(text: &str, edition: RustEdition) -> Parsed {
        parse_read(text, edition, None)
    }

    fn failure(text: &str) -> Failure {
        parse(text, RustEdition::E2021).failure.expect("a syntax error")
    }

    /// `try!` was the `?` of Rust 2015; `try` is a keyword from 2018 on.
    #[test]
    fn the_edition_decides_what_is_a_keyword() {
        let text = "fn read() -> Result<u8, E> {\n    let n = try!(parse(\"1\"));\n    Ok(n)\n}\n";
        assert_eq!(parse(text, RustEdition::E2015).failure, None);
        assert!(parse(text, RustEdition::E2021).failure.is_some_and(|f| !f.at_end));
        let text = "trait T {\n    fn f(&self, async: u8, dyn: u8);\n}\n";
        assert_eq!(parse(text, RustEdition::E2015).failure, None);
        assert!(parse(text, RustEdition::E2018).failure.is_some());
    }

    #[test]
    fn valid_code_and_macro_token_trees_parse() {
        assert_eq!(
            parse("macro_rules! m { ($mode:ident, $) => { 1 }; }\nfn main() {}\n", RustEdition::E2021)
                .failure,
            None
        );
        assert_eq!(parse("fn f<'a>(x: &'a str) -> &'a str { x }\n", RustEdition::E2021).failure, None);
    }

    #[test]
    fn an_unclosed_block_is_unfinished_at_its_opener() {
        let text = "fn f() {\n let x = 1;\n";
        let f = failure(text);
        assert!(f.at_end);
        assert_eq!(f.describe(&LineIndex::new(text)), "`{` on line 1 is not closed yet");
    }

    #[test]
    fn a_stray_brace_is_broken_and_named() {
        let f = failure("fn f() {}\n}\nfn g() {}\n");
        assert!(!f.at_end);
        assert_eq!(f.message, "`}` has no matching `{`");
        assert_eq!(f.at, 10);
    }

    /// rustc pairs delimiters before it parses and names the delimiter's line; the parser
    /// alone would blame where the item it reads goes wrong (3 and 4 here).
    #[test]
    fn delimiters_that_do_not_match_are_reported_where_rustc_reports_them() {
        // "mismatched closing delimiter: `}`" at the `(` it should have closed (2:16).
        let text = "fn main() {\n    let x = foo(1,\n        2;\n    bar();\n}\n\nfn g() {\n    h();\n}\n";
        let f = failure(text);
        assert!(!f.at_end);
        assert_eq!(f.at, text.find("(1,").unwrap());
        assert_eq!(f.message, "`(` is closed by `}` on line 5, which does not match it");
        // "unexpected closing delimiter: `}`" at the `}` (5:1).
        let text = "fn main() {\n    let x = 1;\n    }\n    bar();\n}\n\nfn g() {\n    h();\n}\n";
        let f = failure(text);
        assert!(!f.at_end);
        assert_eq!(LineIndex::new(text).line_of(f.at), 5);
        assert_eq!(f.message, "`}` has no matching `{`");
        // A bad token before the stray delimiter is read first, as rustc reads it.
        let text = "fn f() {\n    let c = 1 ` 2;\n}\n}\n";
        assert_eq!(LineIndex::new(text).line_of(failure(text).at), 2);
        // A mismatch before a stray `}`: rustc names only the stray one (4:1).
        let text = "fn f() {\n    foo(1];\n}\n}\nfn g() {}\n";
        assert_eq!(LineIndex::new(text).line_of(failure(text).at), 4);
        // A mismatch with a `{` still open at the end: the mismatch (2:8), not the end.
        let text = "fn f() {\n    foo(1];\n\nfn g() {}\n";
        let f = failure(text);
        assert!(!f.at_end);
        assert_eq!(f.at, text.find("(1").unwrap());
        // Still open at the end is unfinished, not broken.
        assert!(failure("fn f() {\n    g(1, [2,\n").at_end);
    }

    #[test]
    fn a_missing_semicolon_names_the_token() {
        let f = failure("fn f() {\n let x = 1\n let y = 2;\n}\n");
        assert!(!f.at_end);
        assert_eq!(f.message, "expected `;`");
    }

    #[test]
    fn items_rustc_refuses_in_impl_trait_and_extern_bodies_are_broken() {
        for (text, line) in [
            ("impl A {\n    mod m {}\n}\n", 2),
            ("impl A {\n    fn f() {}\nimpl B {\n    fn g() {}\n}\n", 3),
            ("trait T {\n    fn f();\nstruct S;\n}\n", 3),
            ("impl A {\n    use std::fmt;\n}\n", 2),
            ("extern \"C\" {\n    const X: u8;\n}\n", 2),
        ] {
            let f = failure(text);
            assert!(!f.at_end, "{text:?}: {f:?}");
            assert_eq!(LineIndex::new(text).line_of(f.at), line, "{text:?}: {f:?}");
        }
        assert_eq!(
            parse("impl A {\n    const C: u8 = 1;\n    type T = u8;\n    m!();\n}\n", RustEdition::E2021)
                .failure,
            None
        );
    }

    #[test]
    fn a_doc_comment_that_documents_nothing_is_broken_but_not_in_a_macro() {
        let f = failure("impl A {\n    fn f() {}\n    /// doc\n}\n");
        assert!(!f.at_end);
        assert_eq!(f.message, "a doc comment must be followed by the item it documents");
        assert_eq!(
            parse("macro_rules! m {\n    () => {\n        /// doc\n    };\n}\n", RustEdition::E2021).failure,
            None
        );
        assert_eq!(parse("/// doc\nfn f() {}\n//// not a doc\n", RustEdition::E2021).failure, None);
        assert!(failure("fn f() {}\n/// doc\n").at_end, "an item may still follow");
    }

    #[test]
    fn an_unknown_character_is_broken_even_in_a_macro() {
        let f = failure("macro_rules! m {\n    () => {\n        ```\n    };\n}\n");
        assert!(!f.at_end);
        assert!(f.message.starts_with("unknown start of token"), "{}", f.message);
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
