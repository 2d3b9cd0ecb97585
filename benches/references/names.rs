//! The break kinds of names (issue 46), read with the bench's own crude scanners: a copy is a
//! case only where the break is real by rules stricter than any checker's:
//!
//! - *definition never written*: the last top-level `def`/`class` (Python) or `function`/
//!   `class` (JavaScript, TypeScript) of a file is removed, when the file still uses its name;
//! - *definition renamed*: a top-level definition is renamed where it is defined only;
//! - *import dropped*: a top-level `import json` / `import x as y` (Python), or `const x =
//!   require(...)` / `import x from` / `import * as x` / `import { x } from` (scripts) is
//!   removed, when the file uses the name;
//! - *page lost a script*: a page's classic `<script src>` is removed whose top-level
//!   `function f` another classic script of that page, or an inline handler, calls.
//!
//! For each: the name is bound nowhere else in the file (no other definition, assignment,
//! parameter, loop target, import, `as`, destructuring), is not a builtin or a global of the
//! environment, and the file has no star import, module `__getattr__`, `eval`, `exec`,
//! `globals()` or `with` that could still provide it. Uses are read off the code with
//! comments and strings blanked, not after a `.` (an attribute) and not as a keyword argument
//! or object key. A page with a script the check cannot read (remote, a module, a bundle)
//! is not used: what such a script defines is unknown by design. The user (the file that
//! must report the name) is the file itself, or for a lost script the script or page that
//! calls it, loaded by no other page.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::{Case, Disk, attribute_values, has_ext, is_ident, join, line_of, local, split};

pub(super) const NEVER_WRITTEN: &str = "definition never written";
pub(super) const RENAMED: &str = "definition renamed";
pub(super) const IMPORT_DROPPED: &str = "import dropped";
pub(super) const LOST_SCRIPT: &str = "page lost a script";

const SCRIPTS: &[&str] = &["js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts"];

/// Names every script environment has (ECMAScript, browser, Node): removing a definition of
/// one of them leaves the global, so nothing is broken.
const SCRIPT_GLOBALS: &[&str] = &[
    "alert",
    "atob",
    "btoa",
    "blur",
    "Buffer",
    "cancelAnimationFrame",
    "clearInterval",
    "clearTimeout",
    "close",
    "confirm",
    "console",
    "crypto",
    "decodeURI",
    "decodeURIComponent",
    "document",
    "encodeURI",
    "encodeURIComponent",
    "escape",
    "eval",
    "event",
    "exports",
    "fetch",
    "find",
    "focus",
    "global",
    "globalThis",
    "history",
    "isFinite",
    "isNaN",
    "length",
    "localStorage",
    "location",
    "module",
    "name",
    "navigator",
    "open",
    "origin",
    "parent",
    "parseFloat",
    "parseInt",
    "performance",
    "print",
    "process",
    "prompt",
    "queueMicrotask",
    "require",
    "requestAnimationFrame",
    "scroll",
    "scrollTo",
    "self",
    "sessionStorage",
    "setInterval",
    "setTimeout",
    "status",
    "stop",
    "structuredClone",
    "top",
    "unescape",
    "URL",
    "window",
    "Error",
    "Event",
    "Map",
    "Set",
    "Promise",
    "Symbol",
    "Node",
    "Element",
    "Image",
    "Option",
    "Audio",
    "Worker",
    "Request",
    "Response",
    "Headers",
    "Blob",
    "File",
    "Text",
    "Range",
    "Selection",
    "Location",
    "History",
    "Storage",
    "Notification",
    "postMessage",
    "getComputedStyle",
    "matchMedia",
    "moveTo",
    "resizeTo",
    "stream",
    "util",
    "path",
    "fs",
    "events",
    "url",
    "assert",
    "os",
    "crypto",
    "module",
    "__dirname",
    "__filename",
    "setImmediate",
    "clearImmediate",
    "toString",
    "valueOf",
];

/// Python's builtins, as the running python3 names them.
fn python_builtins() -> &'static HashSet<String> {
    static BUILTINS: OnceLock<HashSet<String>> = OnceLock::new();
    BUILTINS.get_or_init(|| {
        std::process::Command::new("python3")
            .args(["-c", "import builtins; print('\\n'.join(dir(builtins)))"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).lines().map(str::to_owned).collect())
            .unwrap_or_default()
    })
}

/// `text` with comments and the contents of strings blanked (newlines kept), so that a word
/// found in it is code. `python`: `#` comments and triple quotes; else `//`, `/* */` and
/// template literals.
fn code_of(text: &str, python: bool) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        let c = b[i];
        let comment_end =
            |from: usize| b[from..].iter().position(|&x| x == b'\n').map_or(b.len(), |e| from + e);
        if python && c == b'#' || !python && c == b'/' && b.get(i + 1) == Some(&b'/') {
            let end = comment_end(i);
            blank(&mut out, i, end);
            i = end;
        } else if !python && c == b'/' && b.get(i + 1) == Some(&b'*') {
            let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            blank(&mut out, i, end);
            i = end;
        } else if c == b'"' || c == b'\'' || !python && c == b'`' {
            let triple = python && b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&c);
            let mut j = if triple { i + 3 } else { i + 1 };
            while j < b.len() {
                if b[j] == b'\\' {
                    j += 2;
                    continue;
                }
                if triple {
                    if b[j] == c && b.get(j + 1) == Some(&c) && b.get(j + 2) == Some(&c) {
                        j += 3;
                        break;
                    }
                } else if b[j] == c || b[j] == b'\n' && c != b'`' {
                    j += 1;
                    break;
                }
                j += 1;
            }
            let j = j.min(b.len());
            blank(&mut out, i + 1, j.saturating_sub(1));
            i = j;
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Where `name` occurs in `code` as a whole word.
fn words(code: &str, name: &str) -> Vec<usize> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let b = code.as_bytes();
    code.match_indices(name)
        .map(|(at, _)| at)
        .filter(|&at| !(at > 0 && word(b[at - 1]) || b.get(at + name.len()).is_some_and(|c| word(*c))))
        .collect()
}

/// The line of `code` around `at`.
fn line_around(code: &str, at: usize) -> &str {
    let start = code[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = code[at..].find('\n').map_or(code.len(), |e| at + e);
    &code[start..end]
}

/// Whether the occurrence of `name` at `at` in `code` may bind it rather than use it.
fn binds(code: &str, at: usize, name: &str, python: bool) -> bool {
    let line = line_around(code, at);
    let line_start = code[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = code[..at].trim_end();
    let before_line = &code[line_start..at];
    let after_line = &line[(at - line_start + name.len()).min(line.len())..];
    let after = code[at + name.len()..].trim_start();
    let trimmed = line.trim_start();
    let keywords: &[&str] = if python {
        &["def", "class", "import", "as", "for", "global", "nonlocal", "del", "lambda", "case"]
    } else {
        &["var", "let", "const", "function", "class", "import", "as", "catch", "interface", "type", "enum"]
    };
    let previous_word = before.rsplit(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("");
    let assigned = after.starts_with('=') && !after.starts_with("==") && !after.starts_with("=>")
        || after.starts_with(':')
        || ["+=", "-=", "*=", "/=", "|=", "&=", "++", "--", "??=", "||=", "&&="]
            .iter()
            .any(|op| after.starts_with(op));
    let in_header = if python {
        trimmed.starts_with("def ")
            || trimmed.starts_with("async def ")
            || trimmed.starts_with("from ")
            || trimmed.starts_with("import ")
            || trimmed.starts_with("lambda")
            || line.contains("lambda")
            || before_line.contains("for ") && after_line.contains(" in ")
            || trimmed.starts_with("with ")
            || trimmed.starts_with("except")
    } else {
        trimmed.starts_with("import ")
            || line.contains("function")
            || line.contains("=>")
            || before_line.contains('{')
                && (line.contains("} =") || line.contains("}=") || line.contains("} from"))
            || before_line.contains('[') && (line.contains("] =") || line.contains("]="))
            || before.ends_with(',')
                && (line.contains("const ") || line.contains("let ") || line.contains("var "))
            || before.ends_with("...")
            || before_line.contains("for (")
            || before_line.contains("for(")
    };
    keywords.contains(&previous_word) || assigned || in_header || before.ends_with('.')
}

/// The uses of `name` in `code` outside `skip` (a byte range), or None when `code` binds it
/// there or could provide it dynamically.
fn uses_only(code: &str, name: &str, skip: (usize, usize), python: bool) -> Option<Vec<usize>> {
    let dynamic: &[&str] = if python {
        &["import *", "__getattr__", "globals()", "exec(", "eval(", "locals()", "__builtins__", "__dict__"]
    } else {
        &["eval(", "with (", "with(", "new Function", "globalThis[", "window[", "self[", "importScripts"]
    };
    if dynamic.iter().any(|d| code.contains(d)) {
        return None;
    }
    let mut uses = Vec::new();
    for at in words(code, name).into_iter().filter(|at| *at < skip.0 || *at >= skip.1) {
        if binds(code, at, name, python) {
            return None;
        }
        uses.push(at);
    }
    (!uses.is_empty()).then_some(uses)
}

fn not_global(name: &str, python: bool) -> bool {
    name.len() >= 3
        && is_ident(name)
        && if python { !python_builtins().contains(name) } else { !SCRIPT_GLOBALS.contains(&name) }
}

/// A script a bundler or loader wrote, whose names are its own business.
fn bundle(text: &str) -> bool {
    [
        "define('",
        "define(\"",
        "typeof require&&require",
        "&&require;",
        "__webpack_require__",
        "System.register",
    ]
    .iter()
    .any(|m| text.contains(m))
}

/// A top-level definition: its name, where its text starts and ends (decorators included),
/// and where the name is.
struct Definition {
    name: String,
    start: usize,
    end: usize,
    name_at: usize,
}

/// The top-level definitions of a text, in order, read off its `code` (see [`code_of`]:
/// same offsets, strings blanked, so a docstring's line at column 0 ends nothing).
fn definitions(code: &str, python: bool) -> Vec<Definition> {
    let text = code;
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        lines.push((offset, line));
        offset += line.len();
    }
    let mut out = Vec::new();
    for (i, (start, line)) in lines.iter().enumerate() {
        let heads: &[&str] = if python {
            &["def ", "async def ", "class "]
        } else {
            &[
                "function ",
                "async function ",
                "class ",
                "export function ",
                "export async function ",
                "export class ",
            ]
        };
        let Some(head) = heads.iter().find(|h| line.starts_with(**h)) else { continue };
        let name: String = line[head.len()..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
            .collect();
        if name.is_empty() {
            continue;
        }
        let name_at = start + head.len();
        // Python: decorators above; the block ends before the next line at column 0 that is
        // code. Scripts: at the first `}` alone at column 0.
        let mut first = i;
        while python && first > 0 && lines[first - 1].1.starts_with('@') {
            first -= 1;
        }
        let end = if python {
            lines[i + 1..]
                .iter()
                .find(|(_, l)| !l.trim().is_empty() && !l.starts_with([' ', '\t', '#', ')', ']', '}']))
                .map_or(text.len(), |(s, _)| *s)
        } else {
            match lines[i..].iter().find(|(_, l)| matches!(l.trim_end(), "}" | "};")) {
                Some((s, l)) => s + l.len(),
                None => continue,
            }
        };
        out.push(Definition { name, start: lines[first].0, end, name_at });
    }
    out
}

fn is_python(path: &str) -> bool {
    has_ext(path, &["py"])
}

/// Candidate user files: checked, Python or a script (not a declaration file), readable.
fn sources<'a>(
    disk: &'a Disk,
    checked: &'a HashSet<&String>,
) -> impl Iterator<Item = (&'a String, String)> + 'a {
    let mut users: Vec<&&String> = checked.iter().filter(|p| is_python(p) || has_ext(p, SCRIPTS)).collect();
    users.sort();
    users.into_iter().filter(|p| !p.ends_with(".d.ts")).filter_map(move |p| {
        let text = disk.read(p)?;
        (!(has_ext(p, SCRIPTS) && bundle(&text))).then_some((*p, text))
    })
}

pub(super) fn never_written(disk: &Disk, checked: &HashSet<&String>) -> Vec<Case> {
    let mut out = Vec::new();
    for (user, text) in sources(disk, checked) {
        let python = is_python(user);
        let code = code_of(&text, python);
        let defs = definitions(&code, python);
        let Some(last) = defs.last() else { continue };
        if !not_global(&last.name, python) || defs.iter().filter(|d| d.name == last.name).count() > 1 {
            continue;
        }
        let Some(uses) = uses_only(&code, &last.name, (last.start, last.end), python) else { continue };
        let mut new = text.clone();
        new.replace_range(last.start..last.end, "");
        out.push(Case {
            kind: NEVER_WRITTEN,
            user: user.clone(),
            line: line_of(&text, uses[0]),
            expect: last.name.clone(),
            what: format!("last definition `{}` removed", last.name),
            changes: vec![(user.clone(), Some(new))],
        });
    }
    out
}

pub(super) fn renamed(disk: &Disk, checked: &HashSet<&String>) -> Vec<Case> {
    let mut out = Vec::new();
    for (user, text) in sources(disk, checked) {
        let python = is_python(user);
        let code = code_of(&text, python);
        let defs = definitions(&code, python);
        for def in &defs {
            if !not_global(&def.name, python) || defs.iter().filter(|d| d.name == def.name).count() > 1 {
                continue;
            }
            let name_end = def.name_at + def.name.len();
            let Some(uses) = uses_only(&code, &def.name, (def.name_at, name_end), python) else { continue };
            // Uses inside its own body (recursion) stay broken too; any use will do.
            let new_name = format!("{}Renamed", def.name);
            let mut new = text.clone();
            new.replace_range(def.name_at..name_end, &new_name);
            out.push(Case {
                kind: RENAMED,
                user: user.clone(),
                line: line_of(&text, uses[0]),
                expect: def.name.clone(),
                what: format!("`{}` renamed `{new_name}` where it is defined", def.name),
                changes: vec![(user.clone(), Some(new))],
            });
        }
    }
    out
}

/// The name a top-level import line binds, when it binds one name that way.
fn imported_name(line: &str, python: bool) -> Option<String> {
    let line = line.trim_end().trim_end_matches(';');
    let ident = |s: &str| is_ident(s).then(|| s.to_owned());
    if python {
        let rest = line.strip_prefix("import ")?;
        if rest.contains(',') || rest.contains('(') {
            return None;
        }
        return match rest.split_once(" as ") {
            Some((_, alias)) => ident(alias.trim()),
            None => ident(rest.trim()),
        };
    }
    for keyword in ["const ", "let ", "var "] {
        if let Some(rest) = line.strip_prefix(keyword)
            && let Some((name, value)) = rest.split_once('=')
            && value.trim_start().starts_with("require(")
            && value.trim_end().ends_with(')')
        {
            return ident(name.trim());
        }
    }
    let rest = line.strip_prefix("import ")?;
    let (clause, from) = rest.split_once(" from ")?;
    if !from.trim_start().starts_with(['\'', '"']) || clause.starts_with("type ") {
        return None;
    }
    let clause = clause.trim();
    if let Some(star) = clause.strip_prefix("* as ") {
        return ident(star.trim());
    }
    if let Some(inner) = clause.strip_prefix('{').and_then(|c| c.strip_suffix('}')) {
        let inner = inner.trim().trim_end_matches(',').trim();
        return (!inner.contains([',', ' '])).then(|| ident(inner)).flatten();
    }
    ident(clause)
}

pub(super) fn dropped_imports(disk: &Disk, checked: &HashSet<&String>) -> Vec<Case> {
    let mut out = Vec::new();
    for (user, text) in sources(disk, checked) {
        let python = is_python(user);
        let code = code_of(&text, python);
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let Some(name) = imported_name(line, python) else { continue };
            let global = if python { python_builtins().contains(&name) } else { !not_global(&name, false) };
            if global {
                continue;
            }
            let Some(uses) = uses_only(&code, &name, (start, offset), python) else { continue };
            let mut new = text.clone();
            new.replace_range(start..offset, "");
            out.push(Case {
                kind: IMPORT_DROPPED,
                user: user.clone(),
                line: line_of(&text, uses[0]),
                expect: name.clone(),
                what: format!("`{}` removed", line.trim()),
                changes: vec![(user.clone(), Some(new))],
            });
        }
    }
    out
}

/// The names a classic script declares at its top level: `function f`, `class C`, and
/// `var`/`let`/`const x =` at column 0.
fn globals_of(code: &str) -> Vec<String> {
    let mut names: Vec<String> = definitions(code, false).into_iter().map(|d| d.name).collect();
    for line in code.lines() {
        for keyword in ["var ", "let ", "const "] {
            if let Some(rest) = line.strip_prefix(keyword)
                && let Some((name, _)) = rest.split_once('=')
                && is_ident(name.trim())
            {
                names.push(name.trim().to_owned());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The `<script ...>` start tags of a page: (whole tag, src value, where the element starts
/// and ends).
fn script_tags(page: &str) -> Vec<(String, Option<String>, (usize, usize))> {
    let mut out = Vec::new();
    let lower = page.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find("<script") {
        let start = from + i;
        let Some(tag_end) = lower[start..].find('>').map(|e| start + e + 1) else { break };
        let end = lower[tag_end..].find("</script>").map_or(tag_end, |e| tag_end + e + "</script>".len());
        let tag = page[start..tag_end].to_owned();
        let src = attribute_values(&tag, "src").into_iter().next().map(|(v, _)| v);
        out.push((tag, src, (start, end)));
        from = end.max(start + 1);
    }
    out
}

/// Inline handlers of a page (`onclick="pause()"`): their code, with where it is.
fn handlers(page: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = page[from..].find(" on") {
        let at = from + i + 3;
        from = at;
        let name: String = page[at..].chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        let rest = &page[at + name.len()..];
        if name.is_empty() || !rest.starts_with('=') {
            continue;
        }
        let quote = rest.as_bytes().get(1).copied();
        if let Some(q @ (b'"' | b'\'')) = quote
            && let Some(end) = rest[2..].find(q as char)
        {
            out.push((rest[2..2 + end].to_owned(), at + name.len() + 2));
        }
    }
    out
}

/// A local script a page loads, and where its element is in the page.
type LoadedScript = (String, (usize, usize));

pub(super) fn lost_scripts(disk: &Disk, checked: &HashSet<&String>) -> Vec<Case> {
    let pages: Vec<&String> = disk.files.iter().filter(|f| has_ext(f, &["html", "htm"])).collect();
    // Which pages load each script.
    let mut loaded_by: HashMap<String, usize> = HashMap::new();
    let mut page_scripts: Vec<(&String, String, Vec<LoadedScript>)> = Vec::new();
    for page in &pages {
        let Some(text) = disk.read(page) else { continue };
        if text.contains("{{") || text.contains("{%") || text.contains("<%") {
            continue;
        }
        let mut scripts = Vec::new();
        let mut readable = true;
        for (tag, src, span) in script_tags(&text) {
            let Some(src) = src else { continue };
            let path = local(&src).and_then(|s| join(split(page).0, &s));
            match path {
                Some(p) if disk.is_file(&p) && !tag.contains("module") => scripts.push((p, span)),
                _ => readable = false,
            }
        }
        for (p, _) in &scripts {
            *loaded_by.entry(p.clone()).or_default() += 1;
        }
        if readable && scripts.len() >= 2 {
            page_scripts.push((page, text, scripts));
        }
    }
    let mut out = Vec::new();
    for (page, text, scripts) in page_scripts {
        let texts: Vec<Option<String>> = scripts.iter().map(|(p, _)| disk.read(p)).collect();
        // Classic scripts only: no import or export at the top level, no bundle.
        let classic = texts.iter().all(|t| {
            t.as_ref().is_some_and(|t| {
                !bundle(t) && !t.lines().any(|l| l.starts_with("import ") || l.starts_with("export "))
            })
        });
        if !classic {
            continue;
        }
        let inline: String = script_tags(&text)
            .iter()
            .filter(|(_, src, _)| src.is_none())
            .map(|(_, _, (s, e))| &text[*s..*e])
            .collect();
        let codes: Vec<String> =
            texts.iter().map(|t| code_of(t.as_deref().unwrap_or_default(), false)).collect();
        for (a, (a_path, a_span)) in scripts.iter().enumerate() {
            for name in &globals_of(&codes[a]) {
                if !not_global(name, false) || !words(&code_of(&inline, false), name).is_empty() {
                    continue;
                }
                // Defined by no other script of the page.
                let elsewhere = codes.iter().enumerate().any(|(b, code)| {
                    b != a && words(code, name).iter().any(|at| binds(code, *at, name, false))
                });
                if elsewhere {
                    continue;
                }
                let mut new_page = text.clone();
                new_page.replace_range(a_span.0..a_span.1, "");
                let change = vec![(page.clone(), Some(new_page))];
                // A script of the page that calls it, loaded by this page only.
                let user = scripts.iter().enumerate().find_map(|(b, (b_path, _))| {
                    let uses = (b != a && checked.contains(b_path) && loaded_by.get(b_path) == Some(&1))
                        .then(|| uses_only(&codes[b], name, (0, 0), false))
                        .flatten()?;
                    let calls =
                        uses.iter().any(|at| codes[b][at + name.len()..].trim_start().starts_with('('));
                    calls.then(|| (b_path.clone(), line_of(texts[b].as_deref().unwrap_or_default(), uses[0])))
                });
                let handler = || {
                    handlers(&text).into_iter().find_map(|(code, at)| {
                        words(&code, name)
                            .iter()
                            .any(|i| {
                                !binds(&code, *i, name, false)
                                    && code[i + name.len()..].trim_start().starts_with('(')
                            })
                            .then(|| ((*page).clone(), line_of(&text, at)))
                    })
                };
                let Some((user, line)) = user.or_else(|| checked.contains(page).then(handler).flatten())
                else {
                    continue;
                };
                out.push(Case {
                    kind: LOST_SCRIPT,
                    user,
                    line,
                    expect: name.clone(),
                    what: format!("`<script src>` of {a_path} removed from {page}"),
                    changes: change,
                });
            }
        }
    }
    out
}
