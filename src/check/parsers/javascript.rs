//! JavaScript and TypeScript by oxc's parser, which implements the ECMAScript and
//! TypeScript grammars (JSX included) and stops at the first token that cannot
//! continue a program.

use oxc_allocator::Allocator;
use oxc_parser::{ParseOptions, Parser, ParserReturn};
use oxc_span::{GetSpan, SourceType};

use super::{Failure, Parsed, last_start_before, sentence};

/// Which grammar a file is parsed with, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// `.mjs`, and `.js` `.jsx` files with a top-level `import` or `export` line: an
    /// ES module. JSX allowed, as bundlers do.
    Module,
    /// `.cjs`, and other `.js` `.jsx` files: CommonJS, as `node` runs it (top-level
    /// `return` allowed). JSX allowed.
    CommonJs,
    /// `.ts` `.mts` `.cts`.
    TypeScript,
    /// `.tsx`.
    Tsx,
    /// `.d.ts`: declarations only.
    Declarations,
}

impl Dialect {
    /// The dialect of a file, from its name and, for `.js`, its whole text: decided on
    /// the whole text so that a check resumed mid-file parses the rest the same way.
    pub(crate) fn of(path: &str, text: &str) -> Dialect {
        let lower = path.to_ascii_lowercase();
        let ext = lower.rsplit('.').next().unwrap_or_default();
        match ext {
            "mjs" => Dialect::Module,
            "js" | "jsx" if has_module_syntax(text.as_bytes(), 0) => Dialect::Module,
            "cjs" => Dialect::CommonJs,
            "tsx" => Dialect::Tsx,
            "ts" | "mts" | "cts"
                if lower.ends_with(".d.ts") || lower.ends_with(".d.mts") || lower.ends_with(".d.cts") =>
            {
                Dialect::Declarations
            }
            "ts" | "mts" | "cts" => Dialect::TypeScript,
            _ => Dialect::CommonJs,
        }
    }

    /// The dialect of `text`, a text that grew at its end from one whose dialect was `self`,
    /// reading only from `from` on (a point in the old text): the same as [`Dialect::of`]
    /// the whole text, without reading all of it on every append. A `.js` script becomes a
    /// module when an `import` or `export` line appears.
    pub(crate) fn grown(self, path: &str, text: &str, from: usize) -> Dialect {
        // The longest word searched for is seven bytes with its line break, and the byte
        // after it decides: a match that the growth made starts at most eight bytes before
        // the old text's end.
        match self {
            // What the extension allows: a module for `.js` `.jsx`, still CommonJS for `.cjs`.
            Dialect::CommonJs if has_module_syntax(text.as_bytes(), from.saturating_sub(8)) => {
                Dialect::of(path, "export {}")
            }
            other => other,
        }
    }

    fn source_type(self) -> SourceType {
        match self {
            Dialect::Module => SourceType::mjs().with_jsx(true),
            Dialect::CommonJs => SourceType::cjs().with_jsx(true),
            Dialect::TypeScript => SourceType::ts(),
            Dialect::Tsx => SourceType::tsx(),
            Dialect::Declarations => SourceType::d_ts(),
        }
    }
}

/// The verdict on `text` as `dialect`, with the start of its last top-level statement
/// before the first error as the resume point.
///
/// A CommonJS script that opens with `"use strict"` is strict throughout, and a part of
/// it parsed alone would not be. That changes no verdict: oxc's parser reports no
/// strict-mode early errors (`with`, legacy octals, reserved words; oxc's semantic pass
/// does), so a strict script resumes like any other. A test pins this, so that an oxc
/// that starts to report them is noticed.
///
/// A text that ends inside an open bracket (a function still being written) is a fatal
/// error to oxc, which then returns no statements at all: the resume point would stay at
/// the start of the file, and every append to an unfinished file would parse all of it
/// again. So the statements are taken from the same text with its open brackets closed
/// (see [`statements_when_closed`]): the statements before the one left open are the
/// same in both.
pub(crate) fn parse(text: &str, dialect: Dialect) -> Parsed {
    let mut once = parse_once(text, dialect);
    if once.failure.as_ref().is_some_and(|f| !f.at_end) && grows_into_a_valid_token(text, dialect) {
        once.failure = Some(Failure::new(text.len(), true, unfinished_message("")));
    }
    if let Some(f) = &once.failure
        && !f.at_end
        && let Some((open, message)) = closes_an_open_literal(text, f.at, dialect)
    {
        // oxc's own word on the literal, where it gave one, names its place best.
        let (at, message) = match &once.open_literal {
            Some((at, message)) if *at >= f.at => (*at, message.as_str()),
            _ => (open, message),
        };
        once.failure = Some(Failure::new(at, true, unfinished_message(message)));
    }
    let limit = once.failure.as_ref().map_or(text.len(), |f| f.at);
    let starts = match (&once.failure, once.panicked) {
        (Some(f), true) if f.at_end => {
            let count = PlainCount::of(text);
            if count.later_statement {
                statements_when_closed(text, dialect, &count.closers)
            } else {
                Vec::new()
            }
        }
        _ => once.starts,
    };
    let resume = last_start_before(starts.iter().copied(), limit);
    let statements = once.failure.is_none().then_some(starts);
    Parsed { failure: once.failure, resume, statements }
}

/// Re-checks `new`, made from `old` by an edit, where `old` parsed without problem as
/// `dialect` with its top-level statements starting at `starts`. Parses only the statements
/// around the change: from the statement before the one the change starts in, to the
/// statement after the first unchanged statement that follows it. When they parse without
/// problem and that unchanged statement still starts a statement, the whole of `new` parses
/// without problem, and its statement starts are returned; None when the whole text must be
/// parsed to know (a problem near the change, a change of dialect, statements merged).
///
/// Why the rest need not be parsed: before the first re-parsed statement the text is as it
/// was, and so is the parser's path through it (the statement before the change is
/// re-parsed, so a change that joins it to the next, as a missing `;` does, is seen); from
/// the unchanged statement on, the parser starts at the top level of the same text, as it
/// did in `old`, where it found no problem.
pub(crate) fn reparse_edit(old: &str, new: &str, starts: &[usize], dialect: Dialect) -> Option<Vec<usize>> {
    let (old_b, new_b) = (old.as_bytes(), new.as_bytes());
    let prefix = crate::changed::same_start(old_b, new_b);
    let suffix = crate::changed::same_end(&old_b[prefix..], &new_b[prefix..]);
    let old_end = old.len() - suffix;
    let shift = |s: usize| s + new.len() - old.len();
    // The statement the change starts in is starts[within - 1]; parse from the one before.
    let within = starts.partition_point(|&s| s <= prefix);
    let from = if within >= 2 { starts[within - 2] } else { 0 };
    // The first statement that starts after the change, and the one after it.
    let after = starts.partition_point(|&s| s < old_end);
    let until = starts.get(after + 1).map_or(new.len(), |&s| shift(s));
    let region = new.get(from..until)?;
    if super::super::nesting_depth(region) > super::super::SHALLOW_NESTING {
        return None;
    }
    let once = parse_once(region, dialect);
    if once.failure.is_some() || once.panicked {
        return None;
    }
    let mut new_starts: Vec<usize> = starts[..starts.partition_point(|&s| s < from)].to_vec();
    match starts.get(after) {
        Some(&unchanged) => {
            let boundary = shift(unchanged);
            if !once.starts.iter().any(|&s| from + s == boundary) {
                return None;
            }
            new_starts.extend(once.starts.iter().map(|&s| from + s).filter(|&s| s < boundary));
            new_starts.extend(starts[after..].iter().map(|&s| shift(s)));
        }
        None => new_starts.extend(once.starts.iter().map(|&s| from + s)),
    }
    Some(new_starts)
}

/// Characters that make a longer operator of the one a text ends with: `=` into `=>`, `==`,
/// `<` into `<=`, `.` into `...`.
const GROWERS: [char; 3] = ['>', '=', '.'];

/// Whether `text`, which oxc calls broken, ends with an operator that one more character turns
/// into a token that continues it. oxc decides some constructs on the token after them:
/// `(path, data) =` is an assignment to a parenthesised list, which cannot be, unless the
/// next character makes the `=` an arrow. An error that the text's last token causes can
/// still be finished, and so the text is unfinished.
///
/// Why this never hides a real error: the parser reads left to right, so a character added
/// at the end removes only a first error that depends on the end.
fn grows_into_a_valid_token(text: &str, dialect: Dialect) -> bool {
    if !text.ends_with(|c: char| "=<>!&|?.*+-/%^".contains(c)) {
        return false;
    }
    GROWERS.iter().any(|more| {
        let probed = format!("{text}{more}");
        parse_once(&probed, dialect).failure.is_none_or(|f| f.at_end)
    })
}

/// The literals a text can be cut inside: how each opens, what closes it, whether it can span
/// lines, and oxc's word for one left open.
const LITERALS: [(&str, &str, bool, &str); 5] = [
    ("\"", "\"", false, "Unterminated string"),
    ("'", "'", false, "Unterminated string"),
    ("`", "`", true, "Unterminated template"),
    ("/*", "*/", true, "Unterminated multiline comment"),
    ("/", "/", false, "Unterminated regular expression"),
];

/// Where a string, template, regular expression or comment that the end of `text` leaves open
/// opens (with oxc's word for it), when closing it there clears the error oxc reports at
/// `error`: then the error was the cut's, and the text is unfinished.
///
/// oxc reads an open literal as no token at all, so whatever the literal completes is missing
/// to it, and some constructs are judged on that before the literal: `export { default } from
/// "./fa.` is "a reserved word cannot be used as an exported binding without `from`" at
/// `default`; `declare module "./fa.` is a missing `;` after `declare`, and oxc does not even
/// say that the string is open. Why this never hides a real error: the parser reads left to
/// right, so closing the literal at the end removes only an error that depends on what the end
/// holds; the text closed is then whole or still unfinished, and this text begins it.
///
/// Only literals that open after the error are tried (one that opens before it would hold it),
/// and strings and regular expressions only on the last line, which they cannot leave: a broken
/// file is parsed again once or twice at most.
fn closes_an_open_literal(text: &str, error: usize, dialect: Dialect) -> Option<(usize, &'static str)> {
    // Closed where the text's content ends: blanks after it are no part of the literal to a
    // check, which reads a string cut by a final line break as left open (see `first_failure`).
    let end = text.trim_end().len();
    let tail = text.get(error.min(end)..end)?;
    let last_line = tail.rfind('\n').map_or(0, |i| i + 1);
    let backslashes = tail.len() - tail.trim_end_matches('\\').len();
    LITERALS.iter().find_map(|&(open, close, multiline, message)| {
        let within = if multiline { tail } else { &tail[last_line..] };
        let opens = error.min(end) + (tail.len() - within.len()) + within.rfind(open)?;
        let still_open = match open {
            "`" => within.matches('`').count() % 2 == 1,
            "/*" => !text[opens..end].contains("*/"),
            _ => true,
        };
        if !still_open {
            return None;
        }
        // A text cut after a backslash would escape the closer: finish the escape first.
        let escape = if close != "*/" && backslashes % 2 == 1 { "n" } else { "" };
        let closed = format!("{}{escape}{close}{}", &text[..end], &text[end..]);
        let clears = parse_once(&closed, dialect).failure.is_none_or(|f| f.at_end || f.at >= end);
        clears.then_some((opens, message))
    })
}

/// What one oxc parse says: the first failure, whether oxc gave up (and so returned no
/// statements), and where each top-level statement starts.
struct Once {
    failure: Option<Failure>,
    panicked: bool,
    starts: Vec<usize>,
    /// Where a string, template, regular expression or comment left open by the end of the
    /// text opens, with oxc's message for it.
    open_literal: Option<(usize, String)>,
}

/// Brackets closed, at most, to find the statements of an unfinished text.
const MAX_CLOSED: usize = 8;

/// The top-level statement starts of `text`, an unfinished text oxc gave up on, found by
/// parsing it with its open brackets closed: first with `guessed`, the closers a plain count
/// of the brackets suggests ([`PlainCount`]), then
/// adding the closer of each bracket oxc still names as open, up to [`MAX_CLOSED`] times.
///
/// Why the starts are right whatever the closers: the parser reads left to right, so a
/// statement that ends before the end of `text` ends at the same place in any text that
/// continues it, and only starts before the first failure are used (the resume point is
/// strictly before it). A closed text that still fails inside `text` proves nothing and
/// gives no starts, as does one that cannot be closed (it ends inside a string).
fn statements_when_closed(text: &str, dialect: Dialect, guessed: &str) -> Vec<usize> {
    let mut closed = format!("{text}\n{guessed}");
    for _ in 0..MAX_CLOSED {
        let once = parse_once(&closed, dialect);
        match once.failure {
            None => return once.starts.into_iter().filter(|&s| s < text.len()).collect(),
            Some(f) if f.at >= text.len() && !once.panicked => {
                return once.starts.into_iter().filter(|&s| s < text.len()).collect();
            }
            Some(f) if f.at_end && f.at < text.len() && once.panicked => {
                let Some(close) = f.bracket.and_then(closer) else { return Vec::new() };
                closed.push('\n');
                closed.push(close);
            }
            Some(_) => return Vec::new(),
        }
    }
    Vec::new()
}

/// What a plain count of the brackets of `text` says (strings, comments and regular
/// expressions are not told apart, so it may be wrong; a wrong count only costs or saves the
/// parses of [`statements_when_closed`], whose statements, when taken, are exact).
struct PlainCount {
    /// The closers of the brackets left open at the end, innermost first.
    closers: String,
    /// A `;` or line break at the top level is followed by more text at the top level, or no
    /// bracket is left open. When false, the text is one statement left open (a whole file
    /// in one wrapper, or the function an append is still inside): the resume point cannot
    /// move, and closing the brackets would show nothing new.
    later_statement: bool,
}

impl PlainCount {
    fn of(text: &str) -> Self {
        let mut open = Vec::new();
        let (mut after_break, mut later_statement) = (false, false);
        for b in text.bytes() {
            if open.is_empty() {
                match b {
                    b';' | b'\n' => after_break = true,
                    _ if b.is_ascii_whitespace() => {}
                    _ if after_break => later_statement = true,
                    _ => {}
                }
            }
            match b {
                b'(' | b'[' | b'{' => open.push(b),
                b')' | b']' | b'}' => {
                    open.pop();
                }
                _ => {}
            }
        }
        let closers = open.iter().rev().filter_map(|&b| closer(b as char)).collect();
        PlainCount { closers, later_statement: later_statement || open.is_empty() }
    }
}

/// The bracket that closes `open`.
fn closer(open: char) -> Option<char> {
    match open {
        '{' => Some('}'),
        '(' => Some(')'),
        '[' => Some(']'),
        _ => None,
    }
}

fn parse_once(text: &str, dialect: Dialect) -> Once {
    let allocator = Allocator::default();
    let parsed = parse_program(&allocator, text, dialect);
    let reported: Vec<Reported> = parsed
        .diagnostics
        .errors()
        .filter(|d| !compares_two_places(&d.message))
        .map(|d| {
            let label = d.labels.first();
            let opened = d
                .labels
                .iter()
                .find(|l| l.label().is_some_and(|s| s.contains("Opened here")))
                .map(|l| l.offset() as usize);
            Reported {
                at: label.map_or(text.len(), |l| l.offset() as usize),
                len: label.map_or(0, |l| l.len() as usize),
                message: d.message.to_string(),
                opened,
            }
        })
        .collect();
    let content_end = text.trim_end().len();
    let open_literal = reported
        .iter()
        .filter(|r| r.message.starts_with("Unterminated") && r.at + r.len >= content_end)
        .min_by_key(|r| r.at)
        .map(|r| (r.at, r.message.clone()));
    let failure = first_failure(text, reported, open_literal.as_ref().map(|o| o.0));
    // A string statement that opens the parsed part is a directive to oxc, kept apart from
    // the body: the same statement mid-file is in the body. Both start a statement.
    let directives = parsed.program.directives.iter().map(|d| d.span.start as usize);
    let starts =
        directives.chain(parsed.program.body.iter().map(|stmt| stmt.span().start as usize)).collect();
    Once { failure, panicked: parsed.panicked, starts, open_literal }
}

/// oxc's parse of `text` as `dialect`, with the options every reading of a script shares:
/// the verdict's, and the survey's (stubs and references, see `check::script_tree`).
pub(crate) fn parse_program<'a>(
    allocator: &'a Allocator,
    text: &'a str,
    dialect: Dialect,
) -> ParserReturn<'a> {
    let options = ParseOptions {
        allow_return_outside_function: dialect == Dialect::CommonJs,
        enable_ident_hashes: false,
        ..ParseOptions::default()
    };
    Parser::new(allocator, text, dialect.source_type()).with_options(options).parse()
}

/// Whether `parsed` has no problem the verdict reports: what [`parse`] calls a text without
/// failure, decided on a parse already made.
pub(crate) fn parses_without_problem(parsed: &ParserReturn) -> bool {
    !parsed.panicked && parsed.diagnostics.errors().all(|d| compares_two_places(&d.message))
}

/// One error oxc reported, in byte offsets.
struct Reported {
    at: usize,
    len: usize,
    message: String,
    /// Where the bracket it says is unclosed opens.
    opened: Option<usize>,
}

/// The first of the errors oxc reported, None when there is none.
///
/// It is at the end of the text when:
/// - it is at the end (oxc reports a missing token there as an empty span);
/// - its span reaches the end and is not a closing bracket, `;` or `,` (tokens no
///   continuation turns into anything else): oxc decides some
///   constructs by looking ahead (`(a, b) =>` is an arrow function only if a body
///   follows), so "expected function body" or "missing initializer" for a construct
///   the text ends with, or "expected `)` but found `=>`", means only that the rest is
///   not written yet;
/// - a string, template, comment or regular expression left open runs to the end and
///   nothing but whitespace separates the error from it (oxc also reports the
///   statement it interrupts).
///
/// `open_to_end` is where a literal left open by the end of the text opens, if one is.
fn first_failure(text: &str, reported: Vec<Reported>, open_to_end: Option<usize>) -> Option<Failure> {
    let content_end = text.trim_end().len();
    let Reported { at, len, message, opened } = reported.into_iter().min_by_key(|r| r.at)?;
    let span = text.get(at..(at + len).min(text.len())).unwrap_or_default().trim();
    let reaches_end = at + len >= content_end && !matches!(span, ")" | "]" | "}" | ";" | ",");
    let cut_by_open_literal = open_to_end
        .is_some_and(|open| text.get((at + len).min(open)..open).is_some_and(|gap| gap.trim().is_empty()));
    // `const x: Type` at the end: the initializer may still come.
    let declaration_to_end = message.starts_with("Missing initializer")
        && text.get((at + len).min(text.len())..).is_some_and(|rest| !rest.trim().contains([';', '\n']));
    let at_end = at >= content_end || reaches_end || cut_by_open_literal || declaration_to_end;
    if !at_end {
        let failure = Failure::new(at.min(text.len()), false, broken_message(text, at, len, &message));
        return Some(failure.spanning((at + len).min(text.len())));
    }
    if let Some(open) = opened {
        let bracket = text.get(open..).and_then(|s| s.chars().next()).unwrap_or('{');
        return Some(Failure::unclosed(open, bracket));
    }
    Some(Failure::new(at.min(text.len()), true, unfinished_message(&message)))
}

/// A line at column 0 that imports or exports (not `import(`, a dynamic import). Found by
/// searching for a line break followed by either word rather than visiting every line: it
/// runs on the whole text of every append.
/// A line of `bytes` that starts with `import` or `export`, looking at lines that start
/// from byte `from` on.
fn has_module_syntax(bytes: &[u8], from: usize) -> bool {
    let from = from.min(bytes.len());
    let followed_well = |end: usize| bytes.get(end).is_some_and(|b| b" {*\"'\t".contains(b));
    ["import", "export"].iter().any(|word| {
        let at_start = from == 0 && bytes.starts_with(word.as_bytes()) && followed_well(word.len());
        let needle = format!("\n{word}");
        at_start
            || memchr::memmem::find_iter(&bytes[from..], &needle)
                .any(|i| followed_well(from + i + needle.len()))
    })
}

/// Early errors that compare two places in the file (a name exported or declared
/// twice): the compiler's semantics, not the grammar, and invisible to a check that
/// resumes mid-file, so left out of the verdict.
fn compares_two_places(message: &str) -> bool {
    message.starts_with("Duplicated export")
        || message.contains("has already been declared")
        || message.contains("multiple default exports")
}

/// "comment `/*` is not closed yet", "template literal is not closed yet".
fn unfinished_message(message: &str) -> String {
    match message {
        m if m.starts_with("Unterminated multiline comment") => "comment `/*` is not closed yet".to_owned(),
        m if m.starts_with("Unterminated string") || m.starts_with("Unterminated template") => {
            "string or template literal is not closed yet".to_owned()
        }
        m if m.starts_with("Unterminated regular expression") => {
            "regular expression is not closed yet".to_owned()
        }
        _ => "the file ends in the middle of a statement".to_owned(),
    }
}

/// oxc's message, with the offending token quoted where oxc only says "Unexpected
/// token", and a stray closing bracket named as such.
fn broken_message(text: &str, at: usize, len: usize, message: &str) -> String {
    let token = text.get(at..at + len.max(1)).unwrap_or_default().trim();
    if message == "Unexpected token" {
        return match token {
            ")" | "]" | "}" => format!("`{token}` has no matching `{}`", opener(token)),
            "" => "unexpected token".to_owned(),
            t => format!("unexpected `{}`", t.chars().take(20).collect::<String>()),
        };
    }
    sentence(message)
}

fn opener(close: &str) -> char {
    match close {
        ")" => '(',
        "]" => '[',
        _ => '{',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::LineIndex;

    fn failure(text: &str) -> Failure {
        parse(text, Dialect::of("a.js", text)).failure.expect("a syntax error")
    }

    #[test]
    fn valid_code_has_no_failure() {
        for text in [
            "export { _null as null };\n",
            "const a = <div>{1}</div>;\n",
            "return 1;\n",
            "let x = 1;\nlet x = 2;\n", // an early error, not a syntax error
            "export class A {}\nexport class A {}\n",
            "export default 1;\nexport default 2;\n",
        ] {
            assert_eq!(parse(text, Dialect::of("a.js", text)).failure, None, "{text}");
        }
    }

    /// Why a strict script may resume mid-file like any other (see [`parse`]): the parser's
    /// verdict does not depend on strictness. Should oxc start to report strict-mode
    /// errors, this fails, and a resumed part must then be parsed as strict code.
    #[test]
    fn strictness_changes_no_verdict_of_the_parser() {
        for body in
            ["with (a) { f(b); }\n", "let c = 010;\n", "var interface = 1;\n", "function g(a, a) {}\n"]
        {
            let strict = format!("\"use strict\";\n{body}");
            assert_eq!(parse(&strict, Dialect::CommonJs).failure, None, "{strict}");
            assert_eq!(parse(body, Dialect::CommonJs).failure, None, "{body}");
        }
    }

    #[test]
    fn module_syntax_is_an_import_or_export_line_at_column_zero() {
        for text in [
            "import x from 'y';\n",
            "a;\nexport { b };\n",
            "x\nimport * as y from 'z'",
            "export\tconst a = 1;",
        ] {
            assert!(has_module_syntax(text.as_bytes(), 0), "{text:?}");
        }
        for text in [
            "import('x');\n",
            " import x from 'y';\n",
            "reimport x;\n",
            "exports.a = 1;\n",
            "a.export {}",
            "export",
        ] {
            assert!(!has_module_syntax(text.as_bytes(), 0), "{text:?}");
        }
    }

    /// Resuming after an append, the dialect is what the whole text's would be, wherever the
    /// text was cut and wherever the resumed part starts.
    #[test]
    fn the_dialect_of_a_grown_text_is_that_of_the_whole() {
        let texts = [
            "a;\nexport { b };\n",
            "x = 1;\nimport y from 'z';\n",
            "import x from 'y'",
            "a;\nexports.b = 1;\n",
        ];
        for path in ["a.js", "a.jsx", "a.cjs", "a.mjs", "a.ts"] {
            for text in texts {
                let whole = Dialect::of(path, text);
                for cut in 0..=text.len() {
                    let start = Dialect::of(path, &text[..cut]);
                    for from in 0..=cut {
                        assert_eq!(
                            start.grown(path, text, from),
                            whole,
                            "{path} {text:?} cut at {cut}, from {from}"
                        );
                    }
                }
            }
        }
    }

    /// oxc returns no statements for a text it gives up on; an unfinished text must still
    /// resume at the statement left open, or every append parses the whole file again.
    #[test]
    fn an_unfinished_text_resumes_at_the_statement_left_open() {
        for (text, open) in [
            ("let a = 1;\nfunction f() {\n  let b = 2;\n", "function f"),
            ("let a = 1;\nclass A {\n  m() {\n    if (x) {\n      y(", "class A"),
            ("const a = [1,\n2];\nmodule.exports = {\n  a,\n", "module.exports"),
            ("x();\n(function () {\n  'use strict';\n  var a = 1;\n", "(function"),
        ] {
            let parsed = parse(text, Dialect::CommonJs);
            assert!(parsed.failure.as_ref().is_some_and(|f| f.at_end), "{text:?}: unfinished");
            assert_eq!(parsed.resume, text.find(open).unwrap(), "{text:?}");
        }
        // One statement left open: nothing to gain from closing it.
        assert!(!PlainCount::of("(function () {\n  var a = 1;\n  var b = 2;\n").later_statement);
        assert!(!PlainCount::of("function tail(a) {\n  let t = 0;\n  t += a;\n").later_statement);
        assert!(PlainCount::of("let a = 1;\nfunction tail(a) {\n  let t = 0;\n").later_statement);
        assert_eq!(PlainCount::of("f(a, [1, {b: (2").closers, ")}])");
        // Nothing to close: a string left open. The check still stands; the resume point is
        // only not advanced.
        let text = "let a = 1;\nlet s = 'abc";
        assert!(parse(text, Dialect::CommonJs).failure.is_some_and(|f| f.at_end));
    }

    #[test]
    fn a_strict_script_resumes_at_its_last_statement() {
        let text = "\"use strict\";\nlet a = 1;\nlet b = 2;\n";
        assert_eq!(parse(text, Dialect::CommonJs).resume, text.find("let b").unwrap());
    }

    #[test]
    fn an_unclosed_block_is_unfinished_at_its_opener() {
        let text = "class A {\n m() {\n";
        let f = failure(text);
        assert!(f.at_end);
        assert_eq!(f.describe(&LineIndex::new(text)), "`{` on line 2 is not closed yet");
    }

    #[test]
    fn a_stray_closing_brace_is_broken() {
        let f = failure("}\nlet x = 1;\n");
        assert!(!f.at_end);
        assert_eq!(f.message, "`}` has no matching `{`");
    }

    #[test]
    fn open_comments_templates_strings_and_regexes_at_the_end_are_unfinished() {
        for text in
            ["let a = 1;\n/**\n * doc", "const t = `\n<h1>\n", "let s = 'abc", "let r = /ab", "x = a ="]
        {
            assert!(failure(text).at_end, "{text:?}");
        }
    }

    /// `(path, data) =` is a list assigned to, to oxc, until a `>` makes it an arrow.
    #[test]
    fn a_text_whose_last_operator_may_still_grow_is_unfinished() {
        for text in
            ["const save = async (path, data) =", "export const f = (a, b) =", "items.map((item, i) ="]
        {
            assert!(failure(text).at_end, "{text:?}: {:?}", failure(text));
        }
        // Once a space follows, the `=` is whole: assigning to a list is broken.
        assert!(!failure("const save = (path, data) = \nlet x = 1;\n").at_end);
        assert!(!failure("(path, data) =\nx;\n").at_end);
    }

    #[test]
    fn a_module_specifier_cut_inside_its_string_is_unfinished() {
        let texts = [
            "export { a } from \"./fa.",
            "export * from \"./fa.",
            "export * as ns from './fa.",
            "export { default } from \"./fa.",
            "export { default as b, c } from \"./fa.",
            "export {\n  default,\n  a,\n} from \"./fa.",
            "import x from \"./fa.",
            "import { a } from \"./fa.",
            "import \"./fa.",
            "import a from './a';\nexport { default } from \"./fa.\n",
            "export { default } from \"./fa\\",
            "declare module \"./fa.",
            "export { default } from \"./fa.\" with { type: \"js",
        ];
        for text in texts {
            let paths: &[&str] = match text.starts_with("declare") {
                true => &["a.ts", "a.tsx", "a.d.ts"],
                false => &["a.mjs", "a.js", "a.ts", "a.tsx"],
            };
            for path in paths {
                let f = parse(text, Dialect::of(path, text)).failure.expect("not finished");
                assert!(f.at_end, "{path} {text:?}: {f:?}");
            }
        }
        let text = "import a from './a';\nexport { default } from \"./fa.";
        let f = parse(text, Dialect::Module).failure.unwrap();
        assert_eq!(
            (f.at, f.message.as_str()),
            (text.find('"').unwrap(), "string or template literal is not closed yet")
        );
    }

    #[test]
    fn closing_a_literal_left_open_does_not_hide_an_earlier_error() {
        for text in [
            "export { default };\nexport * from \"./fa.",
            "let x = = 1;\nexport { default } from \"./fa.",
            "export { default } from './a'\n}\nimport x from \"./fa.",
            // A template is no module specifier, closed or not.
            "export { default } from `./fa.",
        ] {
            let f = parse(text, Dialect::Module).failure.expect("an error");
            assert!(!f.at_end, "{text:?}: {f:?}");
        }
    }

    #[test]
    fn a_string_left_open_mid_file_is_broken() {
        assert!(!failure("let s = 'abc\nlet x;\n").at_end);
    }

    #[test]
    fn missing_comma_in_an_object_is_broken_at_its_line() {
        let text = "const o = {\n a: 1\n b: 2\n};\n";
        let f = failure(text);
        assert!(!f.at_end);
        assert_eq!(LineIndex::new(text).line_of(f.at), 3);
    }

    #[test]
    fn typescript_generics_and_types_parse() {
        let text = "function f<T>(x: T): T { return x as T; }\ninterface A { b?: number }\n";
        assert_eq!(parse(text, Dialect::TypeScript).failure, None);
    }

    #[test]
    fn dialect_follows_the_extension() {
        assert_eq!(Dialect::of("a.mjs", ""), Dialect::Module);
        assert_eq!(Dialect::of("a.d.ts", ""), Dialect::Declarations);
        assert_eq!(Dialect::of("a.MTS", ""), Dialect::TypeScript);
        assert_eq!(Dialect::of("a.tsx", ""), Dialect::Tsx);
        assert_eq!(Dialect::of("a.jsx", "const a = 1;\n"), Dialect::CommonJs);
        assert_eq!(Dialect::of("a.js", "x();\nexport { a };\n"), Dialect::Module);
        assert_eq!(Dialect::of("a.js", "import('./a.js');\n"), Dialect::CommonJs);
    }
}
