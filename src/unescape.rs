//! Over-escaped content: detect it and undo it (pure, no I/O).
//!
//! Some models send a whole file "over-escaped": it arrives on one line with
//! literal two-character sequences such as `\n`, `\t`, `\"` and `\\` where the
//! file should have real newlines, tabs and quotes. Writing that as is gives a
//! one-line file that no parser accepts, so we offer the repaired text instead.
//!
//! # Detection rule
//!
//! Content looks over-escaped when both hold:
//!
//! 1. it contains no real line break (LF or CR), except possibly one line
//!    ending (`\n` or `\r\n`) at the very end;
//! 2. it contains at least 2 literal `\n` sequences: a backslash followed by
//!    `n` where the backslash is not itself escaped (`\\n` is an escaped
//!    backslash followed by `n`, not a newline).
//!
//! The first condition is what keeps real content safe: ordinary multi-line
//! code with `print("a\nb")` on one of its lines has real line breaks, so it is
//! never touched. The second keeps a lone one-liner such as `print("a\nb")`
//! as sent, because one escape is far more likely meant than a whole file
//! squeezed onto a line.
//!
//! # Undoing
//!
//! One left-to-right pass maps `\n` to LF, `\r` to CR, `\t` to TAB, `\"` to `"`,
//! `\'` to `'` and `\\` to `\`. Any other backslash sequence is kept as is, so a
//! regex's `\d` stays `\d`. Because the pass consumes `\\` as a unit, `\\n`
//! becomes backslash + `n`, not a newline.
//!
//! This module only answers "does it look over-escaped, and what would the
//! repaired text be". Choosing between the raw and the repaired form (for
//! example by which one parses better) is the caller's decision.

/// Undo over-escaping when the content looks over-escaped; None when it does
/// not (then use the content as sent).
///
/// None is the common answer and means "leave the content alone": this never
/// alters content that fails [`looks_over_escaped`].
pub fn unescape_if_over_escaped(content: &str) -> Option<String> {
    looks_over_escaped(content).then(|| unescape(content))
}

/// True when the content looks over-escaped (the detection rule alone; see the
/// module doc).
pub fn looks_over_escaped(content: &str) -> bool {
    let body = content.strip_suffix("\r\n").or_else(|| content.strip_suffix('\n')).unwrap_or(content);
    let has_real_line_break = body.contains(['\n', '\r']);
    !has_real_line_break && count_escaped_newlines(body) >= 2
}

/// Number of literal `\n` sequences whose backslash is not itself escaped.
///
/// Given to the caller so its warning can say how many line breaks were
/// restored; it counts the same way the detection rule does.
pub fn count_escaped_newlines(content: &str) -> usize {
    let mut count = 0;
    let mut chars = content.chars();
    while let Some(c) = chars.next() {
        // Consuming the character after a backslash pairs `\\` up, so the `n`
        // in `\\n` is never read as the start of an escape.
        if c == '\\' && chars.next() == Some('n') {
            count += 1;
        }
    }
    count
}

/// One left-to-right pass over the escapes listed in the module doc; unknown
/// escapes and a trailing lone backslash are kept as sent.
fn unescape(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    let mut chars = content.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('"') => out.push('"'),
            Some('\'') => out.push('\''),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn one_line_python_file_becomes_multi_line() {
        let sent = r#"def greet(name):\n    print(\"hello\", name)\n\ngreet(\"world\")\n"#;
        let expected = "def greet(name):\n    print(\"hello\", name)\n\ngreet(\"world\")\n";
        assert_eq!(unescape_if_over_escaped(sent).as_deref(), Some(expected));
    }

    #[test]
    fn escaped_backslash_before_n_stays_backslash_n() {
        let sent = r"a\nb\nc = '\\n'";
        assert_eq!(unescape_if_over_escaped(sent).as_deref(), Some("a\nb\nc = '\\n'"));
    }

    #[test]
    fn escaped_backslash_before_n_is_not_counted() {
        assert_eq!(count_escaped_newlines(r"x\\ny\\n"), 0);
        assert!(!looks_over_escaped(r"x\\ny\\n"));
        assert_eq!(count_escaped_newlines(r"a\nb\\nc\n"), 2);
    }

    #[test]
    fn tab_and_quote_escapes_are_undone() {
        let sent = r#"if x:\n\treturn \"y\"\n\ts = \'z\'"#;
        assert_eq!(unescape_if_over_escaped(sent).as_deref(), Some("if x:\n\treturn \"y\"\n\ts = 'z'"));
    }

    #[test]
    fn unknown_escapes_are_kept() {
        let sent = r"import re\npattern = re.compile(r'\d+\s\w')\n";
        assert_eq!(
            unescape_if_over_escaped(sent).as_deref(),
            Some("import re\npattern = re.compile(r'\\d+\\s\\w')\n")
        );
    }

    #[test]
    fn trailing_lone_backslash_is_kept() {
        assert_eq!(unescape_if_over_escaped(r"a\nb\nc\").as_deref(), Some("a\nb\nc\\"));
    }

    #[test]
    fn multi_line_code_with_newline_escapes_in_strings_is_unchanged() {
        let sent = "x = 1\nprint(\"a\\nb\")\nprint(\"c\\nd\\ne\")\n";
        assert!(!looks_over_escaped(sent));
        assert_eq!(unescape_if_over_escaped(sent), None);
    }

    #[test]
    fn single_newline_escape_on_one_line_is_unchanged() {
        assert_eq!(unescape_if_over_escaped(r#"print("a\nb")"#), None);
        assert_eq!(unescape_if_over_escaped("print(\"a\\nb\")\n"), None);
    }

    #[test]
    fn empty_content_is_unchanged() {
        assert_eq!(unescape_if_over_escaped(""), None);
        assert_eq!(count_escaped_newlines(""), 0);
    }

    #[test]
    fn only_a_trailing_real_newline_still_counts_as_one_line() {
        let sent = "a = 1\\nb = 2\\nc = 3\n";
        assert_eq!(unescape_if_over_escaped(sent).as_deref(), Some("a = 1\nb = 2\nc = 3\n"));
        let crlf = "a = 1\\nb = 2\\nc = 3\r\n";
        assert_eq!(unescape_if_over_escaped(crlf).as_deref(), Some("a = 1\nb = 2\nc = 3\r\n"));
    }

    #[test]
    fn real_carriage_return_in_the_middle_is_unchanged() {
        assert_eq!(unescape_if_over_escaped("a\\nb\rc\\nd"), None);
    }

    #[test]
    fn literal_crlf_becomes_real_crlf() {
        let sent = r"line one\r\nline two\r\nline three\r\n";
        assert_eq!(unescape_if_over_escaped(sent).as_deref(), Some("line one\r\nline two\r\nline three\r\n"));
    }

    /// The escaping a model applies when it over-escapes a file.
    fn over_escape(text: &str) -> String {
        text.replace('\n', r"\n").replace('\t', r"\t").replace('"', r#"\""#)
    }

    proptest! {
        #[test]
        fn content_with_a_real_line_break_before_the_end_is_never_changed(
            head in any::<String>(),
            tail in any::<String>().prop_filter("non-empty tail", |t| !t.is_empty()),
        ) {
            let content = format!("{head}\n{tail}");
            prop_assert!(!looks_over_escaped(&content));
            prop_assert_eq!(unescape_if_over_escaped(&content), None);
        }

        #[test]
        fn over_escaped_text_round_trips_exactly(
            lines in prop::collection::vec("[^\\\\\r\n]*", 3..8),
            last in "[^\\\\\r\n]+",
        ) {
            // At least 2 newlines (3+ joined pieces) and none at the end; no
            // backslashes or CRs, which the model's escaping would not produce.
            let text = format!("{}\n{last}", lines.join("\n"));
            let sent = over_escape(&text);
            prop_assert_eq!(unescape_if_over_escaped(&sent), Some(text));
        }
    }
}
