//! A notebook's cells, each with the span of its bytes in the file.
//!
//! serde_json reads the file; every value we may rewrite is kept as a borrowed
//! [`RawValue`], whose text is a slice of the file, so its byte span is known exactly and a
//! change can splice new bytes in and leave every other byte as it was.

use std::ops::Range;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::NotNotebook;
use super::layout::Layout;

/// A notebook read for showing and changing.
#[derive(Debug)]
pub struct Notebook<'t> {
    /// The file's text.
    pub text: &'t str,
    /// The cells, in order.
    pub cells: Vec<Cell<'t>>,
    /// The span of the `cells` list, `[` to `]`.
    pub cells_span: Range<usize>,
    /// The top-level keys, in file order, with their values.
    pub top: Fields<'t>,
    /// `nbformat` and `nbformat_minor`, when they are numbers.
    pub nbformat: Option<(u64, u64)>,
    /// The notebook's language: `metadata.kernelspec.language`, else
    /// `metadata.language_info.name`.
    pub language: Option<String>,
    /// How the file is spelled, for the bytes a change writes.
    pub layout: Layout,
}

/// One cell.
#[derive(Debug)]
pub struct Cell<'t> {
    /// 0-based position in the notebook.
    pub index: usize,
    /// The span of the cell's object, `{` to `}`.
    pub span: Range<usize>,
    /// Its keys, in file order, with their values.
    pub fields: Fields<'t>,
    /// `cell_type`.
    pub kind: CellKind,
    /// `id` (nbformat 4.5 and later).
    pub id: Option<String>,
    /// The source, its lines joined.
    pub source: String,
    /// The source was a list of lines (else one string).
    pub source_as_lines: Option<bool>,
    /// The source is not text: it holds an escaped lone surrogate (`\ud800`), which Python
    /// reads and Rust strings cannot hold. `source` then shows U+FFFD in its place, and a
    /// change that would write it back from `source` is refused.
    pub source_inexact: bool,

    /// A code cell's `execution_count`.
    pub execution_count: Option<u64>,
}

/// A cell's `cell_type`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CellKind {
    /// `code`.
    Code,
    /// `markdown`.
    Markdown,
    /// `raw`.
    Raw,
    /// Anything else (the schema check says it is wrong).
    Other(String),
}

impl CellKind {
    /// The kind `name` spells (`code`, `markdown`, `raw`), None for any other.
    pub fn named(name: &str) -> Option<CellKind> {
        match name {
            "code" => Some(CellKind::Code),
            "markdown" => Some(CellKind::Markdown),
            "raw" => Some(CellKind::Raw),
            _ => None,
        }
    }

    /// The name as in the file.
    pub fn name(&self) -> &str {
        match self {
            CellKind::Code => "code",
            CellKind::Markdown => "markdown",
            CellKind::Raw => "raw",
            CellKind::Other(name) => name,
        }
    }
}

/// One output of a code cell, summarised: never its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// `output_type`: `stream`, `execute_result`, `display_data` or `error`.
    pub kind: String,
    /// One line on what it holds: `stdout, 3 lines`, `image/png 34.2 KB, text/plain 1 line`,
    /// `ZeroDivisionError: division by zero`.
    pub summary: String,
}

/// An object's keys in file order, each with its value's raw text.
#[derive(Debug, Default)]
pub struct Fields<'t>(pub Vec<(String, &'t RawValue)>);

impl<'t> Fields<'t> {
    /// The value of `key` (the last, if the key is repeated, as Python's `json` reads it).
    pub fn get(&self, key: &str) -> Option<&'t RawValue> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| *v)
    }

    /// The keys, in file order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }
}

impl<'de: 't, 't> Deserialize<'de> for Fields<'t> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldsVisitor<'t>(std::marker::PhantomData<&'t ()>);
        impl<'de: 't, 't> Visitor<'de> for FieldsVisitor<'t> {
            type Value = Fields<'t>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Fields<'t>, M::Error> {
                let mut fields = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, &'de RawValue>()? {
                    fields.push((key, value));
                }
                Ok(Fields(fields))
            }
        }
        deserializer.deserialize_map(FieldsVisitor(std::marker::PhantomData))
    }
}

/// Where `part`, a slice of `text`, lies in it.
pub(crate) fn span_in(text: &str, part: &str) -> Range<usize> {
    let start = part.as_ptr() as usize - text.as_ptr() as usize;
    start..start + part.len()
}

/// Read `text` as a notebook: a JSON object whose `cells` is a list of objects. Whether it
/// also follows the nbformat schema is for `schema.rs` to say.
pub fn parse(text: &str) -> Result<Notebook<'_>, NotNotebook> {
    let top: Fields<'_> = serde_json::from_str(text).map_err(|e| not_json(&e))?;
    let refuse = |message: &str| NotNotebook { message: message.to_owned(), line: None, truncated: false };
    let cells_raw = top.get("cells").ok_or_else(|| refuse("it has no `cells` list: it is not a notebook"))?;
    let cells: Vec<&RawValue> =
        serde_json::from_str(cells_raw.get()).map_err(|_| refuse("its `cells` is not a list"))?;
    let mut parsed = Vec::with_capacity(cells.len());
    for (index, raw) in cells.into_iter().enumerate() {
        let fields: Fields<'_> = serde_json::from_str(raw.get())
            .map_err(|_| refuse(&format!("cell {index} is not a JSON object")))?;
        parsed.push(Cell::read(text, index, raw, fields));
    }
    let layout = Layout::of(text, &top, &parsed);
    let number = |key: &str| top.get(key).and_then(|v| serde_json::from_str::<u64>(v.get()).ok());
    let nbformat = number("nbformat").zip(number("nbformat_minor"));
    let language = top.get("metadata").and_then(|m| language_of(m.get()));
    Ok(Notebook {
        text,
        cells: parsed,
        cells_span: span_in(text, cells_raw.get()),
        top,
        nbformat,
        language,
        layout,
    })
}

fn not_json(e: &serde_json::Error) -> NotNotebook {
    let truncated = e.classify() == serde_json::error::Category::Eof;
    let what = match truncated {
        true => "its JSON ends before it is complete (the notebook was cut off)".to_owned(),
        false => format!("it is not valid JSON ({e})"),
    };
    NotNotebook { message: what, line: Some(e.line()).filter(|l| *l > 0), truncated }
}

/// The language `metadata` names.
fn language_of(metadata: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(metadata).ok()?;
    let named = |v: &serde_json::Value| v.as_str().filter(|s| !s.is_empty()).map(str::to_owned);
    named(&value["kernelspec"]["language"]).or_else(|| named(&value["language_info"]["name"]))
}

/// A multiline string of nbformat: one string, or a list of strings joined.
pub(super) fn multiline(raw: &RawValue) -> Option<(String, bool)> {
    if let Ok(one) = serde_json::from_str::<String>(raw.get()) {
        return Some((one, false));
    }
    serde_json::from_str::<Vec<String>>(raw.get()).ok().map(|lines| (lines.concat(), true))
}

/// [`multiline`] of a string whose escapes name lone surrogates, each surrogate escape read
/// as U+FFFD (a pair's halves too: this reading is for showing, never for writing back).
fn multiline_lossy(raw: &RawValue) -> Option<(String, bool)> {
    let text = raw.get();
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let unit = text.get(i + 2..i + 6).filter(|_| bytes.get(i + 1) == Some(&b'u'));
        if unit
            .and_then(|hex| u16::from_str_radix(hex, 16).ok())
            .is_some_and(|u| (0xd800..0xe000).contains(&u))
        {
            out.push_str(&text[copied..i]);
            out.push_str("\\ufffd");
            i += 6;
            copied = i;
        } else {
            // Any other escape: its two characters, so an escaped backslash is never read as
            // the start of one.
            i += 2;
        }
    }
    out.push_str(&text[copied..]);
    multiline(&RawValue::from_string(out).ok()?)
}

impl<'t> Cell<'t> {
    fn read(text: &'t str, index: usize, raw: &'t RawValue, fields: Fields<'t>) -> Cell<'t> {
        let string = |key: &str| fields.get(key).and_then(|v| serde_json::from_str::<String>(v.get()).ok());
        let kind = match string("cell_type") {
            Some(name) => CellKind::named(&name).unwrap_or(CellKind::Other(name)),
            None => CellKind::Other(String::new()),
        };
        let (source, source_as_lines, source_inexact) = match fields.get("source") {
            None => (String::new(), None, false),
            Some(raw) => match multiline(raw) {
                Some((source, lines)) => (source, Some(lines), false),
                None => match multiline_lossy(raw) {
                    Some((source, lines)) => (source, Some(lines), true),
                    None => (String::new(), None, false),
                },
            },
        };
        let execution_count = fields.get("execution_count").and_then(|v| serde_json::from_str(v.get()).ok());
        Cell {
            index,
            span: span_in(text, raw.get()),
            id: string("id"),
            kind,
            source,
            source_as_lines,
            source_inexact,
            execution_count,
            fields,
        }
    }

    /// A code cell's outputs, summarised: read from the file when asked, since an image's
    /// base64 is most of a notebook's bytes and only a reader needs this.
    pub fn outputs(&self) -> Vec<Output> {
        self.fields.get("outputs").map(|v| summarise_outputs(v.get())).unwrap_or_default()
    }

    /// The span of `key`'s value in the file.
    pub fn value_span(&self, text: &str, key: &str) -> Option<Range<usize>> {
        self.fields.get(key).map(|v| span_in(text, v.get()))
    }
}

/// One line per output, on its kind and size: a reader needs to know a plot is there, not
/// its base64.
fn summarise_outputs(outputs: &str) -> Vec<Output> {
    let Ok(list) = serde_json::from_str::<Vec<serde_json::Value>>(outputs) else { return Vec::new() };
    list.iter().map(summarise_output).collect()
}

fn summarise_output(output: &serde_json::Value) -> Output {
    let kind = output["output_type"].as_str().unwrap_or("unknown").to_owned();
    let text_of = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(lines) => lines.iter().filter_map(|l| l.as_str()).collect(),
        _ => String::new(),
    };
    let summary = match kind.as_str() {
        "stream" => {
            let text = text_of(&output["text"]);
            format!("{}, {}", output["name"].as_str().unwrap_or("stream"), lines_and_size(&text))
        }
        "error" => {
            let name = output["ename"].as_str().unwrap_or("error");
            let value = output["evalue"].as_str().unwrap_or("");
            let line = format!("{name}: {value}");
            crate::files::cut_line(&line, 120).into_owned()
        }
        _ => match output["data"].as_object() {
            Some(data) => data
                .iter()
                .map(|(mime, value)| {
                    let text = text_of(value);
                    match mime.starts_with("text/") || mime.ends_with("json") {
                        true if !text.is_empty() || value.is_string() || value.is_array() => {
                            format!("{mime} {}", lines_and_size(&text))
                        }
                        _ => format!("{mime} {}", size(text.len().max(value.to_string().len()))),
                    }
                })
                .collect::<Vec<_>>()
                .join(", "),
            None => "no data".to_owned(),
        },
    };
    Output { kind, summary }
}

fn lines_and_size(text: &str) -> String {
    let lines = text.lines().count();
    let plural = if lines == 1 { "" } else { "s" };
    format!("{lines} line{plural}, {}", size(text.len()))
}

/// `812 B`, `34.2 KB`, `1.3 MB`.
fn size(bytes: usize) -> String {
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MB", bytes as f64 / 1_048_576.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JUPYTER: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "a1",
   "metadata": {},
   "source": [
    "# Title\n",
    "text"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "b2",
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "hi\n"
     ]
    },
    {
     "data": {
      "image/png": "iVBORw0KGgo=",
      "text/plain": [
       "<Figure>"
      ]
     },
     "metadata": {},
     "output_type": "display_data"
    }
   ],
   "source": [
    "print('hi')"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

    #[test]
    fn cells_are_read_with_their_ids_types_sources_and_spans() {
        let nb = parse(JUPYTER).unwrap();
        assert_eq!(nb.cells.len(), 2);
        assert_eq!(nb.nbformat, Some((4, 5)));
        assert_eq!(nb.language.as_deref(), Some("python"));
        let md = &nb.cells[0];
        assert_eq!(
            (md.kind.clone(), md.id.as_deref(), md.source.as_str()),
            (CellKind::Markdown, Some("a1"), "# Title\ntext")
        );
        assert!(JUPYTER[md.span.clone()].starts_with('{') && JUPYTER[md.span.clone()].ends_with('}'));
        let code = &nb.cells[1];
        assert_eq!(code.execution_count, Some(3));
        let outputs = code.outputs();
        assert_eq!(outputs.len(), 2);
        assert_eq!(outputs[0].summary, "stdout, 1 line, 3 B");
        assert!(outputs[1].summary.starts_with("image/png"), "{:?}", outputs[1]);
        assert_eq!(&JUPYTER[nb.cells_span.clone()].chars().next(), &Some('['));
        let source = code.value_span(JUPYTER, "source").unwrap();
        assert_eq!(&JUPYTER[source], "[\n    \"print('hi')\"\n   ]");
    }

    #[test]
    fn a_cut_notebook_is_truncated_and_other_json_is_not_a_notebook() {
        let cut = parse(&JUPYTER[..JUPYTER.len() / 2]).unwrap_err();
        assert!(cut.truncated, "{cut:?}");
        let not = parse("{\"a\": 1}").unwrap_err();
        assert!(!not.truncated && not.message.contains("cells"), "{not:?}");
        assert!(!parse("{\"cells\": [1]}").unwrap_err().truncated);
        assert!(parse("{\"cells\": ]").unwrap_err().line.is_some());
    }
}
