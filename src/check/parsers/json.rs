//! JSON validity by serde_json, which (unlike tree-sitter-json) rejects comments,
//! `1 2` and raw tabs in strings, exactly as the programs reading the file will.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::{Failure, Parsed};

/// The first problem of a JSON text, None when it is valid.
///
/// Empty or whitespace-only text is unfinished with no message ("nothing written
/// yet"), not broken: a JSON file is created empty and appended to, and an empty file
/// is the first prefix of every document. serde_json's `is_eof()` errors mean the text
/// stopped inside a value (it held for every truncated prefix tested), so they are
/// unfinished; any other error is broken.
///
/// Known limit: serde_json refuses nesting deeper than 128 as an error.
pub(crate) fn parse(text: &str) -> Parsed {
    Parsed::whole(first_failure(text))
}

/// The first problem of `text`, None when it parses.
fn first_failure(text: &str) -> Option<Failure> {
    // A UTF-8 byte order mark is common from Windows editors and harmless to readers
    // that strip it; serde_json does not, so skip it and keep offsets right.
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = text.len() - body.len();
    if body.trim().is_empty() {
        return Some(Failure::new(text.len(), true, String::new()));
    }
    let err = serde_json::from_str::<Valid>(body).err()?;
    let at = bom + offset_of(body, err.line(), err.column());
    let full = err.to_string();
    let message = full.rsplit_once(" at line ").map_or(full.as_str(), |(head, _)| head).to_owned();
    Some(Failure::new(at, err.is_eof(), message))
}

/// A JSON value read and dropped, for validity only.
///
/// Not `IgnoredAny`: serde_json's skipping path reports `[1,]` as "expected value"
/// rather than "trailing comma". Not `Value`: that allocates the whole document.
struct Valid;

impl<'de> Deserialize<'de> for Valid {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValidVisitor)
    }
}

struct ValidVisitor;

impl<'de> Visitor<'de> for ValidVisitor {
    type Value = Valid;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_str<E>(self, _: &str) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_unit<E>(self) -> Result<Valid, E> {
        Ok(Valid)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Valid, A::Error> {
        while seq.next_element::<Valid>()?.is_some() {}
        Ok(Valid)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Valid, A::Error> {
        while map.next_entry::<Valid, Valid>()?.is_some() {}
        Ok(Valid)
    }
}

/// Byte offset of serde_json's (1-based line, column): the column counts bytes and
/// points at the byte that was just read, or is 0 right after a newline.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start =
        if line <= 1 { 0 } else { text.match_indices('\n').nth(line - 2).map_or(text.len(), |(i, _)| i + 1) };
    (line_start + column.saturating_sub(1)).min(text.len())
}

#[cfg(test)]
mod tests {
    use crate::check::{Report, Status, check};

    fn check_json(text: &str) -> Report {
        check("a.json", text)
    }

    #[test]
    fn valid_json_is_ok() {
        assert_eq!(check_json("{\"a\": [1, 2, {\"b\": null}]}\n").status, Status::Ok);
    }

    #[test]
    fn empty_json_is_incomplete_with_nothing_listed() {
        let report = check_json("  \n");
        assert_eq!(report.status, Status::Incomplete);
        assert!(report.problems.is_empty());
    }

    #[test]
    fn json_cut_mid_object_is_incomplete() {
        let report = check_json("{\n  \"a\": 1,\n  \"b\": [\n    2,\n");
        assert_eq!(report.status, Status::Incomplete);
    }

    #[test]
    fn trailing_comma_mid_file_is_an_error_at_its_line_and_column() {
        let text = "{\n  \"a\": [1, 2,],\n  \"b\": 3\n}\n";
        let report = check_json(text);
        assert_eq!(report.status, Status::Errors);
        let p = &report.problems[0];
        assert_eq!((p.line, p.column), (2, 14), "{p:?}");
        assert_eq!(p.message, "trailing comma");
        assert_eq!(p.source, "  \"a\": [1, 2,],");
    }

    #[test]
    fn json_column_is_counted_in_characters_after_multibyte_text() {
        let text = "{\"é€\": 1,}";
        let report = check_json(text);
        assert_eq!(report.status, Status::Errors);
        assert_eq!((report.problems[0].line, report.problems[0].column), (1, 10));
    }

    #[test]
    fn json_comments_are_errors_even_though_tree_sitter_accepts_them() {
        assert_eq!(check_json("// note\n{}\n").status, Status::Errors);
    }

    #[test]
    fn byte_order_mark_is_allowed_and_keeps_columns() {
        assert_eq!(check_json("\u{feff}{}").status, Status::Ok);
        let report = check_json("\u{feff}[1,]");
        assert_eq!(report.problems[0].column, 5);
    }
}
