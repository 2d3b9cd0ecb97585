//! The nbformat 4 schema's rules (4.0 to 4.5), in Rust, on a notebook read as JSON.
//!
//! Jupyter refuses to open a notebook its schema rejects, so a verdict that says "ok" must
//! mean what `nbformat.validate` means: these rules are the published JSON schemas
//! (`nbformat.v4.N.schema.json`) written out, with the quirks of Python's checker kept
//! (`scripts/notebook-schema-truth.py` measures the agreement on a seeded corpus):
//! - the schema is chosen by `nbformat_minor`: `id` is required from 4.5 and an unknown key
//!   before it; cell `jupyter` metadata from 4.3, `execution` from 4.4, `title` and
//!   `authors` from 4.2 (before those, any value is allowed there);
//! - a notebook from a later minor version is checked against 4.5 with every
//!   "no other keys" rule relaxed and unknown cell and output types allowed, as nbformat does;
//! - patterns are Python's `re.search`: `$` also matches before a final newline;
//! - an integer is a JSON number without a fraction or exponent (JSON Schema draft 4);
//! - cell ids must be unique (nbformat's own check beside the schema, strict as `isvalid`:
//!   `validate` repairs a duplicate or missing id in memory, the file stays broken).
//!
//! Not followed: notebooks of nbformat 3 and earlier (their own schemas) are called wrong
//! here; a number too large for 64 bits is read as a float.

use std::collections::HashSet;

use serde_json::{Map, Value};

/// Where in a notebook a rule is broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The cell, when the problem is inside one: its 0-based index and its id, if it has a
    /// usable one.
    pub cell: Option<(usize, Option<String>)>,
    /// The key inside the cell (or the notebook, for a top-level problem), as a path:
    /// `outputs[0].text`, `metadata.kernelspec.name`; empty for the object itself.
    pub key: String,
    /// What nbformat expects there, and what is there instead.
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some((index, id)) = &self.cell {
            match id {
                Some(id) => write!(f, "cell {index} (id {id})")?,
                None => write!(f, "cell {index}")?,
            }
            if !self.key.is_empty() {
                write!(f, ", `{}`", self.key)?;
            }
            return write!(f, ": {}", self.message);
        }
        match self.key.is_empty() {
            true => f.write_str(&self.message),
            false => write!(f, "`{}`: {}", self.key, self.message),
        }
    }
}

/// The newest minor version whose schema nbformat knows.
const NEWEST_MINOR: u64 = 5;

/// The rules of one schema version.
#[derive(Clone, Copy)]
struct Rules {
    minor: u64,
    /// A later minor than [`NEWEST_MINOR`]: unknown keys, cell and output types allowed.
    relaxed: bool,
}

/// Every rule of the nbformat 4 schema `notebook` breaks, in document order; empty when
/// `nbformat.validate` (strict about cell ids) accepts it.
pub fn validate(notebook: &Value) -> Vec<Violation> {
    let mut out = Found::default();
    let Some(top) = notebook.as_object() else {
        out.top("", "a notebook is a JSON object".into());
        return out.0;
    };
    let rules = match (top.get("nbformat"), top.get("nbformat_minor")) {
        (None, _) => {
            out.top("nbformat", "missing: a notebook says `\"nbformat\": 4`".into());
            return out.0;
        }
        (Some(major), _) if major.as_u64() != Some(4) || !is_integer(major) => {
            out.top("nbformat", format!("must be 4 (nbformat 4), found {}", shown(major)));
            return out.0;
        }
        // nbformat reads a missing minor version as 0, then requires the key.
        (_, None) => Rules { minor: 0, relaxed: false },
        (_, Some(minor)) => match minor.as_u64().filter(|_| is_integer(minor)) {
            Some(minor) => Rules { minor, relaxed: minor > NEWEST_MINOR },
            None => {
                let message = format!("must be an integer from 0 to {NEWEST_MINOR}, found {}", shown(minor));
                out.top("nbformat_minor", message);
                return out.0;
            }
        },
    };
    for key in ["cells", "metadata", "nbformat", "nbformat_minor"] {
        if !top.contains_key(key) {
            out.top(
                key,
                "missing: every notebook has `cells`, `metadata`, `nbformat` and `nbformat_minor`".into(),
            );
        }
    }
    if !rules.relaxed {
        for key in
            top.keys().filter(|k| !["cells", "metadata", "nbformat", "nbformat_minor"].contains(&k.as_str()))
        {
            out.top(key, "not allowed at the top of a notebook (only `cells`, `metadata`, `nbformat`, `nbformat_minor`)".into());
        }
    }
    if let Some(metadata) = top.get("metadata") {
        notebook_metadata(metadata, rules, &mut out);
    }
    match top.get("cells") {
        Some(Value::Array(cells)) => {
            for (index, cell) in cells.iter().enumerate() {
                self::cell(index, cell, rules, &mut out);
            }
            if rules.minor >= 5 {
                unique_ids(cells, &mut out);
            }
        }
        Some(other) => out.top("cells", format!("must be a list of cells, found {}", shown(other))),
        None => {}
    }
    out.0
}

/// Violations as they are found.
#[derive(Default)]
struct Found(Vec<Violation>);

impl Found {
    fn top(&mut self, key: &str, message: String) {
        self.0.push(Violation { cell: None, key: key.to_owned(), message });
    }
}

/// One cell's violations: each names the cell.
struct InCell<'f> {
    index: usize,
    id: Option<String>,
    out: &'f mut Found,
}

impl InCell<'_> {
    fn push(&mut self, key: &str, message: String) {
        self.out.0.push(Violation {
            cell: Some((self.index, self.id.clone())),
            key: key.to_owned(),
            message,
        });
    }
}

fn notebook_metadata(metadata: &Value, rules: Rules, out: &mut Found) {
    let Some(m) = metadata.as_object() else {
        return out.top("metadata", format!("must be an object, found {}", shown(metadata)));
    };
    let mut at = |key: &str, message: String| out.top(&format!("metadata.{key}"), message);
    if let Some(spec) = m.get("kernelspec") {
        match spec.as_object() {
            Some(spec) => {
                for key in ["name", "display_name"] {
                    match spec.get(key) {
                        None => at(
                            &format!("kernelspec.{key}"),
                            "missing: a kernelspec has `name` and `display_name`".into(),
                        ),
                        Some(v) if !v.is_string() => at(&format!("kernelspec.{key}"), must_be("a string", v)),
                        _ => {}
                    }
                }
            }
            None => at("kernelspec", must_be("an object", spec)),
        }
    }
    if let Some(info) = m.get("language_info") {
        match info.as_object() {
            Some(info) => {
                match info.get("name") {
                    None => at("language_info.name", "missing: `language_info` names its language".into()),
                    Some(v) if !v.is_string() => at("language_info.name", must_be("a string", v)),
                    _ => {}
                }
                if let Some(v) = info.get("codemirror_mode")
                    && !(v.is_string() || v.is_object())
                {
                    at("language_info.codemirror_mode", must_be("a string or an object", v));
                }
                for key in ["file_extension", "mimetype", "pygments_lexer"] {
                    if let Some(v) = info.get(key).filter(|v| !v.is_string()) {
                        at(&format!("language_info.{key}"), must_be("a string", v));
                    }
                }
            }
            None => at("language_info", must_be("an object", info)),
        }
    }
    if let Some(v) = m.get("orig_nbformat")
        && !(is_integer(v) && v.as_i64().is_none_or(|n| n >= 1))
    {
        at("orig_nbformat", must_be("an integer of at least 1", v));
    }
    if rules.minor >= 2 {
        if let Some(v) = m.get("title").filter(|v| !v.is_string()) {
            at("title", must_be("a string", v));
        }
        if let Some(v) = m.get("authors").filter(|v| !v.is_array()) {
            at("authors", must_be("a list", v));
        }
    }
}

/// The keys each cell type allows (`id` from 4.5).
fn allowed_keys(kind: &str) -> &'static [&'static str] {
    match kind {
        "code" => &["cell_type", "execution_count", "metadata", "outputs", "source", "id"],
        _ => &["cell_type", "metadata", "source", "attachments", "id"],
    }
}

fn cell(index: usize, cell: &Value, rules: Rules, out: &mut Found) {
    let id = cell.get("id").and_then(Value::as_str).filter(|id| is_cell_id(id)).map(str::to_owned);
    let mut at = InCell { index, id, out };
    let Some(c) = cell.as_object() else {
        return at.push("", must_be("an object", cell));
    };
    let kind = match c.get("cell_type") {
        None => {
            return at.push(
                "cell_type",
                "missing: every cell says `cell_type` (`code`, `markdown` or `raw`)".into(),
            );
        }
        Some(Value::String(kind)) if ["code", "markdown", "raw"].contains(&kind.as_str()) => kind.as_str(),
        Some(Value::String(_)) if rules.relaxed => return unknown_cell(c, &mut at),
        Some(other) => return at.push("cell_type", must_be("`code`, `markdown` or `raw`", other)),
    };
    let mut required = vec!["cell_type", "metadata", "source"];
    if kind == "code" {
        required.extend(["outputs", "execution_count"]);
    }
    if rules.minor >= 5 {
        required.push("id");
    }
    for key in required {
        if !c.contains_key(key) {
            let message = match key {
                "id" => "missing: a cell of nbformat 4.5 has an `id`".to_owned(),
                _ => format!("missing: a {kind} cell has `{key}`"),
            };
            at.push(key, message);
        }
    }
    if !rules.relaxed {
        let allowed = |k: &str| allowed_keys(kind).contains(&k) && (k != "id" || rules.minor >= 5);
        for key in c.keys().filter(|k| !allowed(k)) {
            let message = match key.as_str() {
                "id" => format!(
                    "not allowed before nbformat 4.5 (this notebook is 4.{}): set `nbformat_minor` to 5 or remove the id",
                    rules.minor
                ),
                "attachments" | "outputs" | "execution_count" => format!("not allowed in a {kind} cell"),
                _ => format!("not allowed in a {kind} cell (only {})", quoted(allowed_keys(kind), rules)),
            };
            at.push(key, message);
        }
    }
    if rules.minor >= 5
        && let Some(id) = c.get("id")
    {
        cell_id(id, &mut at);
    }
    if let Some(source) = c.get("source")
        && !is_multiline(source)
    {
        at.push("source", must_be("a string or a list of strings", source));
    }
    if let Some(metadata) = c.get("metadata") {
        cell_metadata(kind, metadata, rules, &mut at);
    }
    if kind != "code" {
        if let Some(attachments) = c.get("attachments") {
            match attachments.as_object() {
                Some(map) => {
                    for (name, bundle) in map {
                        mimebundle(&format!("attachments.{name}"), bundle, rules, &mut at);
                    }
                }
                None => at.push("attachments", must_be("an object", attachments)),
            }
        }
        return;
    }
    if let Some(count) = c.get("execution_count")
        && !is_count(count)
    {
        at.push("execution_count", must_be("an integer of at least 0, or null", count));
    }
    match c.get("outputs") {
        Some(Value::Array(outputs)) => {
            for (i, o) in outputs.iter().enumerate() {
                output(&format!("outputs[{i}]"), o, rules, &mut at);
            }
        }
        Some(other) => at.push("outputs", must_be("a list", other)),
        None => {}
    }
}

/// A cell of a type from a later minor version: `cell_type` and object `metadata`.
fn unknown_cell(c: &Map<String, Value>, at: &mut InCell) {
    match c.get("metadata") {
        None => at.push("metadata", "missing: every cell has `metadata`".into()),
        Some(metadata) => {
            common_metadata(metadata, at);
        }
    }
}

fn cell_id(id: &Value, at: &mut InCell) {
    let Some(text) = id.as_str() else {
        return at.push("id", must_be("a string", id));
    };
    if !is_cell_id(text) {
        at.push(
            "id",
            format!("{} is not a cell id: 1 to 64 characters of letters, digits, `-` and `_`", shown(id)),
        );
    }
}

/// `^[a-zA-Z0-9-_]+$` under `re.search`, 1 to 64 characters.
fn is_cell_id(id: &str) -> bool {
    let body = id.strip_suffix('\n').unwrap_or(id);
    let length = id.chars().count();
    (1..=64).contains(&length)
        && !body.is_empty()
        && body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn unique_ids(cells: &[Value], out: &mut Found) {
    let mut seen = HashSet::new();
    for (index, cell) in cells.iter().enumerate() {
        let Some(id) = cell.get("id") else { continue };
        if !seen.insert(id.to_string()) {
            let shown_id = id.as_str().filter(|id| is_cell_id(id)).map(str::to_owned);
            let message = format!("{} is the id of an earlier cell too: ids must be unique", shown(id));
            out.0.push(Violation { cell: Some((index, shown_id)), key: "id".into(), message });
        }
    }
}

/// The metadata every cell type shares: an object, with `name` and `tags` well formed.
fn common_metadata(metadata: &Value, at: &mut InCell) -> bool {
    let Some(m) = metadata.as_object() else {
        at.push("metadata", must_be("an object", metadata));
        return false;
    };
    if let Some(name) = m.get("name")
        && !name.as_str().is_some_and(|n| whole_line(n, |_| true))
    {
        at.push("metadata.name", must_be("a non-empty string on one line", name));
    }
    if let Some(tags) = m.get("tags") {
        match tags.as_array() {
            Some(list) => {
                for (i, tag) in list.iter().enumerate() {
                    if !tag.as_str().is_some_and(|t| whole_line(t, |c| c != ',')) {
                        at.push(
                            &format!("metadata.tags[{i}]"),
                            must_be("a non-empty string without commas", tag),
                        );
                    }
                }
                if list.iter().enumerate().any(|(i, t)| list[..i].contains(t)) {
                    at.push("metadata.tags", "must not repeat a tag".into());
                }
            }
            None => at.push("metadata.tags", must_be("a list of strings", tags)),
        }
    }
    true
}

fn cell_metadata(kind: &str, metadata: &Value, rules: Rules, at: &mut InCell) {
    if !common_metadata(metadata, at) {
        return;
    }
    let Some(m) = metadata.as_object() else { return };
    if rules.minor >= 3
        && let Some(v) = m.get("jupyter").filter(|v| !v.is_object())
    {
        at.push("metadata.jupyter", must_be("an object", v));
    }
    match kind {
        "raw" => {
            if let Some(v) = m.get("format").filter(|v| !v.is_string()) {
                at.push("metadata.format", must_be("a string", v));
            }
        }
        "code" => {
            if let Some(v) = m.get("collapsed").filter(|v| !v.is_boolean()) {
                at.push("metadata.collapsed", must_be("true or false", v));
            }
            if let Some(v) = m.get("scrolled").filter(|v| !(v.is_boolean() || v.as_str() == Some("auto"))) {
                at.push("metadata.scrolled", must_be("true, false or \"auto\"", v));
            }
            if rules.minor >= 4
                && let Some(execution) = m.get("execution")
            {
                match execution.as_object() {
                    Some(times) => {
                        for (key, v) in times {
                            // `^.*$` under `re.search` matches a key with no newline but a final one.
                            let matched = !key.strip_suffix('\n').unwrap_or(key).contains('\n');
                            let named = [
                                "iopub.execute_input",
                                "iopub.status.busy",
                                "shell.execute_reply",
                                "iopub.status.idle",
                            ]
                            .contains(&key.as_str());
                            if (matched || named) && !v.is_string() {
                                at.push(
                                    &format!("metadata.execution.{key}"),
                                    must_be("a string (a time)", v),
                                );
                            }
                        }
                    }
                    None => at.push("metadata.execution", must_be("an object", execution)),
                }
            }
        }
        _ => {}
    }
}

/// One output of a code cell, by its `output_type`.
fn output(key: &str, o: &Value, rules: Rules, at: &mut InCell) {
    let Some(map) = o.as_object() else {
        return at.push(key, must_be("an object", o));
    };
    let kind = match map.get("output_type") {
        None => {
            return at.push(
                &format!("{key}.output_type"),
                "missing: every output says `output_type` (`execute_result`, `display_data`, `stream` or `error`)"
                    .into(),
            );
        }
        Some(Value::String(kind))
            if ["execute_result", "display_data", "stream", "error"].contains(&kind.as_str()) =>
        {
            kind.as_str()
        }
        Some(Value::String(_)) if rules.relaxed => return,
        Some(other) => {
            return at.push(
                &format!("{key}.output_type"),
                must_be("`execute_result`, `display_data`, `stream` or `error`", other),
            );
        }
    };
    let keys: &[&str] = match kind {
        "execute_result" => &["output_type", "data", "metadata", "execution_count"],
        "display_data" => &["output_type", "data", "metadata"],
        "stream" => &["output_type", "name", "text"],
        _ => &["output_type", "ename", "evalue", "traceback"],
    };
    for k in keys.iter().filter(|k| !map.contains_key(**k)) {
        at.push(&format!("{key}.{k}"), format!("missing: a `{kind}` output has {}", quoted(keys, rules)));
    }
    if !rules.relaxed {
        for k in map.keys().filter(|k| !keys.contains(&k.as_str())) {
            at.push(
                &format!("{key}.{k}"),
                format!("not allowed in a `{kind}` output (only {})", quoted(keys, rules)),
            );
        }
    }
    let field = |k: &str| map.get(k).map(|v| (format!("{key}.{k}"), v));
    if let Some((k, v)) = field("data") {
        mimebundle(&k, v, rules, at);
    }
    if let Some((k, v)) = field("metadata").filter(|(_, v)| !v.is_object()) {
        at.push(&k, must_be("an object", v));
    }
    if let Some((k, v)) = field("execution_count").filter(|(_, v)| !is_count(v)) {
        at.push(&k, must_be("an integer of at least 0, or null", v));
    }
    for name in ["name", "ename", "evalue"] {
        if let Some((k, v)) = field(name).filter(|(_, v)| !v.is_string()) {
            at.push(&k, must_be("a string", v));
        }
    }
    if let Some((k, v)) = field("text").filter(|(_, v)| !is_multiline(v)) {
        at.push(&k, must_be("a string or a list of strings", v));
    }
    if let Some((k, v)) = field("traceback")
        && !v.as_array().is_some_and(|l| l.iter().all(Value::is_string))
    {
        at.push(&k, must_be("a list of strings", v));
    }
}

/// A mime bundle: each value a string or a list of strings, any JSON for a JSON type
/// (`application/json`, `application/vnd.x+json`).
fn mimebundle(key: &str, bundle: &Value, rules: Rules, at: &mut InCell) {
    let Some(map) = bundle.as_object() else {
        return at.push(key, must_be("an object of mime types", bundle));
    };
    // nbformat relaxes every `additionalProperties` for a later minor version, this one too.
    if rules.relaxed {
        return;
    }
    for (mime, value) in map {
        if !is_json_mime(mime) && !is_multiline(value) {
            at.push(&format!("{key}.{mime}"), must_be("a string or a list of strings", value));
        }
    }
}

/// `^application/(.*\+)?json$` under `re.search`.
fn is_json_mime(mime: &str) -> bool {
    let mime = mime.strip_suffix('\n').unwrap_or(mime);
    let Some(rest) = mime.strip_prefix("application/").and_then(|r| r.strip_suffix("json")) else {
        return false;
    };
    rest.is_empty() || (rest.ends_with('+') && !rest.contains('\n'))
}

/// `^X+$` under `re.search`, where X is any character but a newline that `keep` keeps: a
/// non-empty line, and at most a final newline after it.
fn whole_line(text: &str, keep: impl Fn(char) -> bool) -> bool {
    let body = text.strip_suffix('\n').unwrap_or(text);
    !body.is_empty() && body.chars().all(|c| c != '\n' && keep(c))
}

fn is_multiline(v: &Value) -> bool {
    v.is_string() || v.as_array().is_some_and(|l| l.iter().all(Value::is_string))
}

/// An integer of JSON Schema draft 4: written without a fraction or exponent.
fn is_integer(v: &Value) -> bool {
    v.is_i64() || v.is_u64()
}

fn is_count(v: &Value) -> bool {
    v.is_null() || (is_integer(v) && v.as_i64().is_none_or(|n| n >= 0))
}

fn must_be(what: &str, found: &Value) -> String {
    format!("must be {what}, found {}", shown(found))
}

fn quoted(keys: &[&str], rules: Rules) -> String {
    keys.iter()
        .filter(|k| **k != "id" || rules.minor >= 5)
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value as a message shows it: its JSON, cut short.
fn shown(v: &Value) -> String {
    let kind = match v {
        Value::Null => return "null".into(),
        Value::Bool(_) | Value::Number(_) => return v.to_string(),
        Value::String(_) => "",
        Value::Array(_) => "a list ",
        Value::Object(_) => "an object ",
    };
    let text = v.to_string();
    let cut: String = text.chars().take(40).collect();
    let more = if cut.len() < text.len() { "…" } else { "" };
    format!("{kind}{cut}{more}")
}

#[cfg(test)]
mod tests;
