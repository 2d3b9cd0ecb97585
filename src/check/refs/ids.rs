//! The DOM ids a text may create, read off its raw text: markup in strings and templates
//! (`'<button id="start">'`, `` `<li id="item-${i}">` ``), JSX (`id="start"`, `id={name}`),
//! property sets (`el.id = 'start'`), `setAttribute('id', ...)` and object keys
//! (`{ id: 'start' }`, as `createElement` helpers take them).
//!
//! A text scan rather than the syntax tree, because most of these live inside strings. It
//! errs towards "may create": an id counted as created that is not only costs a report that
//! is not made, while the opposite would be a false alarm.

use std::collections::HashSet;

/// Ids known to exist, and the patterns of those made at run time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct IdSet {
    /// Ids written out in full.
    pub(crate) literals: HashSet<String>,
    /// Ids made at run time, by what they start with (`item-` for `` `item-${i}` ``); an
    /// empty prefix means any id at all (`el.id = name`).
    pub(crate) prefixes: Vec<String>,
}

impl IdSet {
    /// Whether `id` is in the set or may be made by one of its patterns.
    pub(crate) fn covers(&self, id: &str) -> bool {
        self.literals.contains(id) || self.prefixes.iter().any(|p| id.starts_with(p.as_str()))
    }

    /// Adds every id and pattern of `other`.
    pub(crate) fn extend(&mut self, other: &IdSet) {
        self.literals.extend(other.literals.iter().cloned());
        for p in &other.prefixes {
            self.add_prefix(p);
        }
    }

    /// An id value as written: literal, or a pattern when it holds template syntax or
    /// string concatenation.
    pub(crate) fn add_value(&mut self, value: &str) {
        match value.find(DYNAMIC) {
            None => {
                let value = value.trim();
                if !value.is_empty() {
                    self.literals.insert(value.to_owned());
                }
            }
            Some(at) => self.add_prefix(value[..at].trim_start()),
        }
    }

    fn add_prefix(&mut self, prefix: &str) {
        if !self.prefixes.iter().any(|p| prefix.starts_with(p.as_str())) {
            self.prefixes.retain(|p| !p.starts_with(prefix));
            self.prefixes.push(prefix.to_owned());
        }
    }
}

/// Characters that start the computed part of an id value: template syntax (`${`, `{{`,
/// `{%`, `<%`), a quote or `+` of string concatenation (`id="' + name + '"`).
const DYNAMIC: &[char] = &['$', '{', '<', '\'', '"', '`', '+', '\\'];

/// The ids `text` may create; `script`: the text is JavaScript or TypeScript, where `id = x`
/// with spaces is a variable, not an attribute.
pub(crate) fn created_ids(text: &str, script: bool) -> IdSet {
    let mut set = IdSet::default();
    let bytes = text.as_bytes();
    for at in memchr::memmem::find_iter(bytes, b"id") {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + 2).copied();
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'$')
            || after.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'$')
        {
            continue;
        }
        let property = before == Some(b'.');
        // `"id": "x"` and `'id'`: a quoted key.
        let quoted_key = matches!(before, Some(b'"' | b'\''));
        let mut i = at + 2 + usize::from(quoted_key);
        let spaced_before = skip_spaces(bytes, &mut i);
        match bytes.get(i) {
            Some(b'=') if bytes.get(i + 1) != Some(&b'=') => {
                i += 1;
                let spaced_after = skip_spaces(bytes, &mut i);
                let spaced = spaced_before || spaced_after;
                assigned_value(text, i, property, spaced, script, &mut set);
            }
            Some(b':') if !property => {
                i += 1;
                skip_spaces(bytes, &mut i);
                if let Some(value) = quoted(text, i) {
                    set.add_value(value);
                }
            }
            _ => {}
        }
    }
    for at in memchr::memmem::find_iter(bytes, b"setAttribute(") {
        let mut i = at + "setAttribute(".len();
        skip_spaces(bytes, &mut i);
        if quoted(text, i).is_some_and(|name| name.eq_ignore_ascii_case("id")) {
            // Past the name and its closing quote, then the comma.
            i += 4;
            skip_spaces(bytes, &mut i);
            if bytes.get(i) == Some(&b',') {
                i += 1;
                skip_spaces(bytes, &mut i);
                match quoted(text, i) {
                    Some(value) => set.add_value(value),
                    None => set.add_prefix(""),
                }
            }
        }
    }
    set
}

/// The value after `id =` at `i`.
fn assigned_value(text: &str, i: usize, property: bool, spaced: bool, script: bool, set: &mut IdSet) {
    let bytes = text.as_bytes();
    match bytes.get(i) {
        Some(b'"' | b'\'' | b'`') => {
            if let Some(value) = quoted(text, i) {
                set.add_value(value);
            }
        }
        // `id=\"x\"` inside a string.
        Some(b'\\') if matches!(bytes.get(i + 1), Some(b'"' | b'\'')) => {
            let quote = bytes[i + 1];
            let from = i + 2;
            let end =
                text[from..].find(|c: char| c as u32 == u32::from(quote) || c == '\\').map(|e| from + e);
            match end {
                Some(end) if bytes.get(end) == Some(&quote) || text[end..].starts_with(['\\']) => {
                    set.add_value(&text[from..end]);
                }
                _ => set.add_prefix(""),
            }
        }
        // JSX `id={...}`: a literal inside, or computed.
        Some(b'{') if !spaced => match quoted(text, i + 1) {
            Some(value) if bytes.get(i + value.len() + 3) == Some(&b'}') => set.add_value(value),
            _ => set.add_prefix(""),
        },
        // `id=${x}` in a template.
        Some(b'$') => set.add_prefix(""),
        Some(&b) if b.is_ascii_alphanumeric() || b == b'_' => {
            if property {
                // `el.id = name`: any id.
                set.add_prefix("");
            } else if !spaced {
                // Markup without quotes: `<div id=main>`.
                let end = text[i..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || "_-:.".contains(c)))
                    .map_or(text.len(), |e| i + e);
                set.add_value(&text[i..end]);
            } else if !script {
                set.add_prefix("");
            }
        }
        Some(_) if property => set.add_prefix(""),
        _ => {}
    }
}

/// The text of the quoted string starting at `i` (its quote included), without escapes;
/// a template literal's substitutions are kept, for [`IdSet::add_value`] to see.
fn quoted(text: &str, i: usize) -> Option<&str> {
    let quote = *text.as_bytes().get(i)?;
    if !matches!(quote, b'"' | b'\'' | b'`') {
        return None;
    }
    let rest = &text[i + 1..];
    let end = rest.find(|c: char| c as u32 == u32::from(quote) || c == '\n')?;
    (rest.as_bytes()[end] == quote).then(|| &rest[..end])
}

/// Moves `i` past spaces and tabs; whether there were any.
fn skip_spaces(bytes: &[u8], i: &mut usize) -> bool {
    let start = *i;
    while bytes.get(*i).is_some_and(|b| *b == b' ' || *b == b'\t') {
        *i += 1;
    }
    *i > start
}

/// Whether `text` mentions `id` as a whole word: not inside a longer name of letters,
/// digits, `_` or `-`.
pub(crate) fn mentions(text: &str, id: &str) -> bool {
    if id.is_empty() {
        return false;
    }
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let bytes = text.as_bytes();
    memchr::memmem::find_iter(bytes, id.as_bytes()).any(|at| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + id.len()).copied();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literals(text: &str, script: bool) -> Vec<String> {
        let mut ids: Vec<String> = created_ids(text, script).literals.into_iter().collect();
        ids.sort();
        ids
    }

    #[test]
    fn markup_properties_attributes_and_keys_create_ids() {
        let js = r#"
const b = document.createElement('button');
b.id = 'start-btn';
list.innerHTML = '<li id="first">a</li><li id=second>b</li>';
el.setAttribute("id", "third");
const tpl = `<div id='fourth'></div>`;
h('div', { id: 'fifth' });
const s = "<p id=\"sixth\"></p>";
"#;
        assert_eq!(literals(js, true), ["fifth", "first", "fourth", "second", "sixth", "start-btn", "third"]);
        let jsx = "export const A = () => <main id=\"app\"><p id={'x'} /></main>;\n";
        assert_eq!(literals(jsx, true), ["app", "x"]);
    }

    #[test]
    fn computed_ids_are_patterns() {
        let set = created_ids("li.innerHTML = `<li id=\"task-${t.id}\">`;\n", true);
        assert!(set.covers("task-12") && !set.covers("list"));
        let set = created_ids("row.id = name;\n", true);
        assert!(set.covers("anything"));
        let set = created_ids("html += '<li id=\"' + id + '\">';\n", true);
        assert!(set.covers("anything"));
        let set = created_ids("<Item id={item.key} />\n", true);
        assert!(set.covers("anything"));
        let set = created_ids("<li id=\"row-{{ loop.index }}\">\n", false);
        assert!(set.covers("row-3") && !set.covers("rows"));
    }

    #[test]
    fn names_that_only_contain_id_create_nothing() {
        let js = "let id = 5;\nconst userId = 'x';\nif (a.id === 'z') {}\nconst grid = 'w';\n<div data-id=\"q\">\n";
        let set = created_ids(js, true);
        assert!(set.literals.is_empty() && set.prefixes.is_empty(), "{set:?}");
    }

    #[test]
    fn a_mention_is_a_whole_word() {
        assert!(mentions("<div id=\"start-btn\">", "start-btn"));
        assert!(!mentions("#start-btn-2 { }", "start-btn"));
        assert!(!mentions("restart-btn", "start-btn"));
    }
}
