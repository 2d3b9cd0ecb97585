//! JavaScript and TypeScript by oxc's parser, which implements the ECMAScript and
//! TypeScript grammars (JSX included) and stops at the first token that cannot
//! continue a program.

use oxc_allocator::Allocator;
use oxc_parser::{ParseOptions, Parser};
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
            "js" | "jsx" if has_module_syntax(text) => Dialect::Module,
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
pub(crate) fn parse(text: &str, dialect: Dialect) -> Parsed {
    let allocator = Allocator::default();
    let options = ParseOptions {
        allow_return_outside_function: dialect == Dialect::CommonJs,
        enable_ident_hashes: false,
        ..ParseOptions::default()
    };
    let parsed = Parser::new(&allocator, text, dialect.source_type()).with_options(options).parse();
    let reported = parsed.diagnostics.errors().filter(|d| !compares_two_places(&d.message)).map(|d| {
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
    });
    let failure = first_failure(text, reported);
    let limit = failure.as_ref().map_or(text.len(), |f| f.at);
    let resume = last_start_before(parsed.program.body.iter().map(|stmt| stmt.span().start as usize), limit);
    Parsed { failure, resume }
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
fn first_failure(text: &str, reported: impl Iterator<Item = Reported>) -> Option<Failure> {
    let reported: Vec<Reported> = reported.collect();
    let content_end = text.trim_end().len();
    let open_to_end = reported
        .iter()
        .filter(|r| r.message.starts_with("Unterminated") && r.at + r.len >= content_end)
        .map(|r| r.at)
        .min();
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

/// A line at column 0 that imports or exports (not `import(`, a dynamic import).
fn has_module_syntax(text: &str) -> bool {
    let starts = |line: &str, word: &str| {
        line.strip_prefix(word).is_some_and(|rest| rest.starts_with([' ', '{', '*', '"', '\'', '\t']))
    };
    std::iter::once(text)
        .chain(text.match_indices('\n').map(|(i, _)| &text[i + 1..]))
        .any(|line| starts(line, "import") || starts(line, "export"))
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
        m if m.starts_with("Unterminated string") => {
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
