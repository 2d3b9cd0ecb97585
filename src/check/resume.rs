//! Where a later check may start parsing again after an append.
//!
//! The reference parsers have no incremental mode, and re-parsing 1 MB after every
//! 4 KB append costs 10 to 60 ms. But a file is a sequence of top-level statements:
//! if `text[..s]` parses on its own and `s` starts a top-level statement, then the
//! verdict on `text` is the verdict on `text[s..]`, with offsets moved by `s`. So each
//! check proposes such an `s` near the end and proves it by parsing `text[from..s]`
//! (the part since the last proven point, so the cost follows the append, not the
//! file); the next check after an append parses only from there.
//!
//! Candidates are line starts at column 0 that begin a statement in the language
//! (a letter, `@` or `#` first; not a word that continues the statement before, such
//! as `else`). The proof makes a wrong guess harmless: a candidate inside a string,
//! comment or block leaves `text[from..s]` unfinished, and is skipped.

use super::languages::{Language, Validator};

/// Candidates tried per check, from the last one back; each costs a parse of the
/// text since the last proven point.
const MAX_TRIES: usize = 3;

/// The proven resume point for `text`, at or after `from` (itself proven). `parses_clean(s)`
/// says whether `text[from..s]` parses with no problem at all.
pub(crate) fn advance(
    text: &str,
    from: usize,
    lang: Language,
    parses_clean: impl Fn(usize) -> bool,
) -> usize {
    let validator = lang.spec().validator;
    if !matches!(validator, Validator::Python | Validator::JavaScript | Validator::Rust) {
        return from;
    }
    // The statement must start on a line that is complete: its first token cannot
    // grow with the next append.
    let complete = text.rfind('\n').map_or(0, |i| i + 1);
    let region = &text[from..complete.max(from)];
    let starts = region
        .match_indices('\n')
        .map(|(i, _)| from + i + 1)
        .filter(|&s| s < complete && starts_statement(validator, &text[s..]));
    let candidates: Vec<usize> = starts.collect();
    candidates.iter().rev().take(MAX_TRIES).copied().find(|&s| parses_clean(s)).unwrap_or(from)
}

/// Whether a line can begin a top-level statement in the language judged by `validator`.
fn starts_statement(validator: Validator, line: &str) -> bool {
    let first = line.bytes().next().unwrap_or(b' ');
    let word: &str =
        line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$')).next().unwrap_or("");
    match validator {
        Validator::Python => {
            (first.is_ascii_alphabetic() || first == b'_' || first == b'@')
                && !matches!(word, "else" | "elif" | "except" | "finally")
        }
        Validator::JavaScript => {
            (first.is_ascii_alphabetic() || first == b'_' || first == b'$')
                && !matches!(
                    word,
                    "else"
                        | "catch"
                        | "finally"
                        | "in"
                        | "instanceof"
                        | "of"
                        | "as"
                        | "satisfies"
                        | "extends"
                        | "implements"
                        | "while"
                        | "from"
                )
        }
        Validator::Rust => {
            (first.is_ascii_alphabetic() || first == b'#') && !matches!(word, "else" | "where" | "as")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::language_for;

    fn lang(path: &str) -> Language {
        language_for(path).expect("a checked language")
    }

    #[test]
    fn the_last_proven_statement_start_is_chosen() {
        let text = "def f():\n    return 1\n\ndef g():\n    return 2\nx = g(\n";
        let at = advance(text, 0, lang("a.py"), |s| {
            crate::check::parsers::python::parse(&text[..s], false).is_none()
        });
        assert_eq!(&text[at..], "x = g(\n");
    }

    #[test]
    fn a_candidate_that_does_not_prove_is_skipped() {
        // `def g` sits inside a docstring left open: text[..s] does not parse.
        let text = "x = 1\ny = \"\"\"\ndef g():\n    pass\nz\n";
        let at = advance(text, 0, lang("a.py"), |s| {
            crate::check::parsers::python::parse(&text[..s], false).is_none()
        });
        assert_eq!(&text[at..], "y = \"\"\"\ndef g():\n    pass\nz\n");
    }

    #[test]
    fn continuation_words_never_start_a_statement() {
        assert!(!starts_statement(Validator::Python, "else:\n"));
        assert!(!starts_statement(Validator::JavaScript, "catch (e) {}"));
        assert!(starts_statement(Validator::JavaScript, "function f() {}"));
        assert!(starts_statement(Validator::Rust, "#[derive(Debug)]"));
        assert!(!starts_statement(Validator::Rust, "    fn f() {}"));
    }

    #[test]
    fn data_languages_never_resume() {
        assert_eq!(advance("a = 1\nb = 2\nc = 3\n", 0, lang("a.toml"), |_| true), 0);
    }
}
