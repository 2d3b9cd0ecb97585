//! How a notebook file is spelled, and JSON written the same way.
//!
//! Jupyter writes a notebook with Python's `json.dumps(nb, indent=1, sort_keys=True,
//! ensure_ascii=False)`, every source split into lines (`str.splitlines(keepends=True)`).
//! Other tools indent by 2 or 4, or write compact JSON, or escape non-ASCII. Whatever the
//! file does, the bytes a change adds are spelled the same way, so a notebook stays
//! diff-clean in git and in Jupyter.

use super::parse::{Cell, Fields, span_in};

/// How a notebook's JSON is spelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// One level of indentation; None for JSON on one line.
    pub indent: Option<String>,
    /// The line break: `\n` or `\r\n`.
    pub newline: &'static str,
    /// Between a key and its value: `": "` or `":"`.
    pub key_sep: String,
    /// Between items on one line (compact JSON only): `", "` or `","`.
    pub item_sep: String,
    /// Non-ASCII characters are written as `\u` escapes.
    pub ascii: bool,
    /// Sources are lists of lines (else one string each).
    pub source_as_lines: bool,
}

impl Default for Layout {
    /// nbformat's own.
    fn default() -> Self {
        Layout {
            indent: Some(" ".to_owned()),
            newline: "\n",
            key_sep: ": ".to_owned(),
            item_sep: ",".to_owned(),
            ascii: false,
            source_as_lines: true,
        }
    }
}

impl Layout {
    /// Learn the layout from a notebook's text, its top-level fields and its cells.
    pub(super) fn of(text: &str, top: &Fields<'_>, cells: &[Cell<'_>]) -> Layout {
        let mut layout = Layout::default();
        let open = text.find('{').unwrap_or(0);
        let after_open = &text[open + 1..];
        let blank = after_open.len() - after_open.trim_start_matches([' ', '\t']).len();
        let rest = &after_open[blank..];
        layout.indent = if rest.starts_with('\n') || rest.starts_with("\r\n") {
            layout.newline = if rest.starts_with("\r\n") { "\r\n" } else { "\n" };
            let line = rest.trim_start_matches(['\r', '\n']);
            let unit = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
            Some(if unit.is_empty() { " ".to_owned() } else { unit.to_owned() })
        } else {
            None
        };
        if let Some((_, first)) = top.0.first() {
            let at = span_in(text, first.get()).start;
            let before = &text[..at];
            let colon = before.rfind(':').unwrap_or(at);
            layout.key_sep = before[colon..].to_owned();
            if layout.indent.is_none() {
                let end = span_in(text, first.get()).end;
                let between = &text[end..];
                let comma = between.find(',').map(|c| &between[c..]);
                if let Some(comma) = comma {
                    let spaces = comma[1..].len() - comma[1..].trim_start_matches(' ').len();
                    layout.item_sep = comma[..1 + spaces].to_owned();
                }
            }
        }
        if text.is_ascii() {
            layout.ascii = escapes_non_ascii(text);
        }
        if let Some(lines) = cells.iter().find_map(|c| c.source_as_lines) {
            layout.source_as_lines = lines;
        }
        layout
    }

    /// The break and indentation before an item at `depth` (0: the top-level object's own
    /// braces); in compact JSON, nothing.
    pub(super) fn break_at(&self, depth: usize) -> String {
        match &self.indent {
            Some(unit) => format!("{}{}", self.newline, unit.repeat(depth)),
            None => String::new(),
        }
    }

    /// What separates two items of a list or object at `depth`.
    pub(super) fn between(&self, depth: usize) -> String {
        match &self.indent {
            Some(_) => format!(",{}", self.break_at(depth)),
            None => self.item_sep.clone(),
        }
    }

    /// `value` written at `depth` (the depth of the line the value starts on).
    pub(super) fn write(&self, value: &Json, depth: usize) -> String {
        let mut out = String::new();
        self.write_into(&mut out, value, depth);
        out
    }

    fn write_into(&self, out: &mut String, value: &Json, depth: usize) {
        match value {
            Json::Null => out.push_str("null"),
            Json::Int(n) => out.push_str(&n.to_string()),
            Json::Str(s) => self.write_string(out, s),
            Json::Raw(raw) => out.push_str(raw),
            Json::List(items) if items.is_empty() => out.push_str("[]"),
            Json::Object(items) if items.is_empty() => out.push_str("{}"),
            Json::List(items) => {
                out.push('[');
                out.push_str(&self.break_at(depth + 1));
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(&self.between(depth + 1));
                    }
                    self.write_into(out, item, depth + 1);
                }
                out.push_str(&self.break_at(depth));
                out.push(']');
            }
            Json::Object(items) => {
                out.push('{');
                out.push_str(&self.break_at(depth + 1));
                for (i, (key, item)) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(&self.between(depth + 1));
                    }
                    self.write_string(out, key);
                    out.push_str(&self.key_sep);
                    self.write_into(out, item, depth + 1);
                }
                out.push_str(&self.break_at(depth));
                out.push('}');
            }
        }
    }

    /// A string as Python's `json.dumps` writes it (with `ensure_ascii` when the file
    /// escapes non-ASCII).
    fn write_string(&self, out: &mut String, s: &str) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 || (self.ascii && !(' '..='~').contains(&c)) => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }

    /// A cell's source as this file keeps sources: a list of lines, or one string.
    pub(super) fn source(&self, source: &str) -> Json {
        match self.source_as_lines {
            true => Json::List(split_lines(source).into_iter().map(|l| Json::Str(l.to_owned())).collect()),
            false => Json::Str(source.to_owned()),
        }
    }
}

/// Whether an all-ASCII text spells a non-ASCII character as a `\u` escape (as
/// `ensure_ascii=True` writes it).
fn escapes_non_ascii(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(found) = memchr::memmem::find(&bytes[at..], b"\\u") {
        let start = at + found;
        // An escaped backslash before it makes this `\\u`, not an escape.
        let backslashes = bytes[..start].iter().rev().take_while(|b| **b == b'\\').count();
        if backslashes % 2 == 0
            && let Some(hex) = text.get(start + 2..start + 6)
            && let Ok(unit) = u16::from_str_radix(hex, 16)
            && unit >= 0x7f
        {
            return true;
        }
        at = start + 2;
    }
    false
}

/// A JSON value to write: what a change adds. `Raw` is a value kept from the file, byte for
/// byte.
#[derive(Debug, Clone)]
pub(super) enum Json {
    Null,
    Int(u64),
    Str(String),
    Raw(String),
    List(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// A source split as nbformat splits it (`str.splitlines(keepends=True)`): after each `\n`,
/// `\r\n`, `\r`, `\v`, `\f`, `\x1c`-`\x1e`, `\x85`, U+2028 and U+2029.
pub fn split_lines(source: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = source.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let end = match c {
            '\r' if chars.peek().is_some_and(|(_, n)| *n == '\n') => {
                chars.next();
                at + 2
            }
            '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => at + c.len_utf8(),
            _ => continue,
        };
        lines.push(&source[start..end]);
        start = end;
    }
    if start < source.len() {
        lines.push(&source[start..]);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout_of(text: &str) -> Layout {
        let nb = super::super::parse(text).unwrap();
        nb.layout
    }

    #[test]
    fn lines_split_as_python_splitlines_keepends() {
        assert_eq!(split_lines(""), Vec::<&str>::new());
        assert_eq!(split_lines("a\nb"), vec!["a\n", "b"]);
        assert_eq!(split_lines("a\r\nb\rc\n"), vec!["a\r\n", "b\r", "c\n"]);
        assert_eq!(split_lines("a\u{2028}b\u{c}"), vec!["a\u{2028}", "b\u{c}"]);
        assert_eq!(split_lines("\n\n"), vec!["\n", "\n"]);
    }

    #[test]
    fn the_layout_is_learned_from_the_file() {
        let jupyter =
            "{\n \"cells\": [],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";
        assert_eq!(layout_of(jupyter), Layout::default());
        let two = layout_of("{\r\n  \"cells\": [],\r\n  \"nbformat\": 4\r\n}");
        assert_eq!((two.indent.as_deref(), two.newline), (Some("  "), "\r\n"));
        let compact = layout_of("{\"cells\":[],\"nbformat\":4}");
        assert_eq!((compact.indent, compact.key_sep.as_str(), compact.item_sep.as_str()), (None, ":", ","));
        let spaced = layout_of("{\"cells\": [], \"nbformat\": 4}");
        assert_eq!((spaced.key_sep.as_str(), spaced.item_sep.as_str()), (": ", ", "));
        assert!(layout_of("{\"cells\": [], \"m\": \"caf\\u00e9\"}").ascii);
        assert!(!layout_of("{\"cells\": [], \"m\": \"a\\\\u00e9\"}").ascii);
        let strings = layout_of("{\"cells\": [{\"cell_type\": \"code\", \"source\": \"x\"}]}");
        assert!(!strings.source_as_lines);
    }

    #[test]
    fn values_are_written_as_python_json_dumps_writes_them() {
        let layout = Layout::default();
        let cell = Json::Object(vec![
            ("a".into(), Json::List(vec![])),
            ("b".into(), Json::List(vec![Json::Str("x\"\\\n\u{1}é".into()), Json::Null])),
        ]);
        assert_eq!(
            layout.write(&cell, 2),
            "{\n   \"a\": [],\n   \"b\": [\n    \"x\\\"\\\\\\n\\u0001é\",\n    null\n   ]\n  }"
        );
        let ascii = Layout { ascii: true, indent: None, item_sep: ", ".into(), ..Layout::default() };
        assert_eq!(
            ascii.write(&Json::List(vec![Json::Str("é😀\u{7f}".into()), Json::Int(3)]), 0),
            "[\"\\u00e9\\ud83d\\ude00\\u007f\", 3]"
        );
    }
}
