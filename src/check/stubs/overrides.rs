//! Stub bodies that only a look at the whole project can clear: a method that only raises
//! `NotImplementedError` (or throws a not-implemented error) declares what subclasses
//! implement when a subclass in another file overrides it, and a `...` method is a
//! signature when its class descends from a `Protocol` or an abstract base declared in
//! another file.
//!
//! The stub scan reads one file; it marks such a stub with an [`Overridable`] (its class and
//! method), and the finish check, which sees the project, drops it when the project's
//! [`ClassIndex`] says a descendant overrides the method or an ancestor is abstract. The
//! index reads the project's files of the language once, and parses only those that name a
//! class it is asked about (a subclass names its base; a class's file names the class): a line
//! scan of Python's `class` statements, oxc's tree of a script. Parsing every script of a
//! large project for one stub halved the finish check's speed on JavaScript. Classes are
//! matched by name, so two classes of one name count as one: an error towards "not a stub".

use std::collections::{HashMap, HashSet};

use oxc_ast::AstKind;
use oxc_ast::ast::{ClassElement, Expression, PropertyKey};
use oxc_ast_visit::Visit;

use super::super::parsers::javascript::Dialect;
use super::super::script_tree::{self, text_of};

/// A stub body that is not one if the project overrides it or its class is abstract there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overridable {
    /// The class whose method it is.
    pub class: String,
    /// The method.
    pub method: String,
    /// A JavaScript or TypeScript class (else Python).
    pub script: bool,
}

/// Extensions of the files whose classes clear a stub of each kind.
const PYTHON: &[&str] = &["py", "pyi", "pyw"];
const SCRIPTS: &[&str] = &["js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts"];

/// Whether `path` is a file whose classes may clear a stub of the kind `script` says.
pub fn indexed(path: &str, script: bool) -> bool {
    let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    (if script { SCRIPTS } else { PYTHON }).contains(&extension.as_str())
}

/// What the project's files declare of their classes: by name, each class's bases, methods,
/// and whether it is abstract (Python: a `Protocol`, `ABC`, `ABCMeta` or `@abstractmethod`;
/// TypeScript: `abstract class`).
#[derive(Debug, Default)]
pub struct ClassIndex {
    classes: HashMap<String, Vec<Class>>,
    /// Class names by the names of their bases.
    children: HashMap<String, Vec<String>>,
    /// The files read and not parsed yet: (path, text).
    unread: Vec<(String, String)>,
    /// The names whose files are parsed.
    learned: HashSet<String>,
}

#[derive(Debug, Default)]
struct Class {
    bases: Vec<String>,
    methods: HashSet<String>,
    is_abstract: bool,
}

/// At most this many files, and this many bytes of them, are read for an index: past
/// them the index is partial, and a stub it would have cleared stays.
const MAX_FILES: usize = 20_000;
const MAX_BYTES: usize = 128 << 20;

/// The index of the classes in `paths` (the project's files) of the language `script` says,
/// each read with `read`.
pub fn class_index<'p>(
    paths: impl IntoIterator<Item = &'p str>,
    read: impl Fn(&str) -> Option<String>,
    script: bool,
) -> ClassIndex {
    let mut index = ClassIndex::default();
    let mut bytes = 0;
    for path in paths.into_iter().filter(|p| indexed(p, script)).take(MAX_FILES) {
        let Some(text) = read(path) else { continue };
        bytes += text.len();
        if bytes > MAX_BYTES {
            break;
        }
        index.unread.push((path.to_owned(), text));
    }
    index
}

/// How far up or down a hierarchy is followed.
const MAX_CLASSES_FOLLOWED: usize = 10_000;

impl ClassIndex {
    /// Adds the classes of the file `path` holding `text` (Python or a script, by its name).
    pub fn add_file(&mut self, path: &str, text: &str) {
        let found = if indexed(path, false) {
            python_classes(text)
        } else if indexed(path, true) {
            // Only a file that declares a class is parsed.
            if !text.contains("class") {
                return;
            }
            script_classes(text, Dialect::of(path, text))
        } else {
            return;
        };
        for (name, class) in found {
            for base in &class.bases {
                self.children.entry(base.clone()).or_default().push(name.clone());
            }
            self.classes.entry(name).or_default().push(class);
        }
    }

    /// Whether the project clears `stub`: a class descending from its class defines the
    /// method, or a class its class descends from is abstract.
    pub fn clears(&mut self, stub: &Overridable) -> bool {
        self.overridden(stub) || self.abstract_ancestor(&stub.class)
    }

    /// Parses the files not parsed yet that name `name`: those that declare it or a class
    /// with it among its bases.
    fn learn(&mut self, name: &str) {
        if !self.learned.insert(name.to_owned()) {
            return;
        }
        let finder = memchr::memmem::Finder::new(name.as_bytes());
        let (naming, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.unread)
            .into_iter()
            .partition(|(_, text)| finder.find(text.as_bytes()).is_some());
        self.unread = rest;
        for (path, text) in naming {
            self.add_file(&path, &text);
        }
    }

    fn overridden(&mut self, stub: &Overridable) -> bool {
        let mut seen: HashSet<String> = HashSet::from([stub.class.clone()]);
        let mut queue: Vec<String> = vec![stub.class.clone()];
        while let Some(name) = queue.pop() {
            self.learn(&name);
            for child in self.children.get(&name).cloned().unwrap_or_default() {
                if seen.len() > MAX_CLASSES_FOLLOWED || !seen.insert(child.clone()) {
                    continue;
                }
                self.learn(&child);
                let defines =
                    self.classes.get(&child).into_iter().flatten().any(|c| c.methods.contains(&stub.method));
                if defines {
                    return true;
                }
                queue.push(child);
            }
        }
        false
    }

    fn abstract_ancestor(&mut self, class: &str) -> bool {
        let mut seen: HashSet<String> = HashSet::from([class.to_owned()]);
        let mut queue: Vec<String> = vec![class.to_owned()];
        while let Some(name) = queue.pop() {
            self.learn(&name);
            let bases: Vec<String> =
                self.classes.get(&name).into_iter().flatten().flat_map(|c| c.bases.clone()).collect();
            for base in bases {
                if seen.len() > MAX_CLASSES_FOLLOWED || !seen.insert(base.clone()) {
                    continue;
                }
                self.learn(&base);
                if self.classes.get(&base).into_iter().flatten().any(|b| b.is_abstract) {
                    return true;
                }
                queue.push(base);
            }
        }
        false
    }
}

/// Bases that make a Python class abstract.
pub(super) const ABSTRACT_BASES: &[&str] = &["Protocol", "ABC", "ABCMeta"];

/// The classes of a Python text, read off its lines: `class Name(Base, metaclass=M):`, and
/// the methods (`def`, and names assigned) and `@abstractmethod` decorators at the first
/// indentation of its body. Lines inside triple-quoted strings are skipped.
fn python_classes(text: &str) -> Vec<(String, Class)> {
    let mut out: Vec<(String, Class)> = Vec::new();
    // Open classes: (indentation of `class`, index in `out`, indentation of the body).
    let mut open: Vec<(usize, usize, Option<usize>)> = Vec::new();
    let mut in_string: Option<&str> = None;
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        let trimmed = line.trim_start();
        let quotes = |q: &str| trimmed.matches(q).count();
        if let Some(q) = in_string {
            if quotes(q) % 2 == 1 {
                in_string = None;
            }
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = line.len() - trimmed.len();
        while open.last().is_some_and(|(at, _, _)| *at >= indent) {
            open.pop();
        }
        if let Some((_, class, body)) = open.last_mut() {
            let body = *body.get_or_insert(indent);
            if body == indent {
                member(trimmed, &mut out[*class].1);
            }
        }
        if let Some(rest) = trimmed.strip_prefix("class ") {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let mut header = rest[name.len()..].to_owned();
            // Bases over several lines.
            while header.matches('(').count() > header.matches(')').count() && i < lines.len() {
                header.push_str(lines[i]);
                i += 1;
            }
            if !name.is_empty() {
                out.push((name, python_bases(&header)));
                open.push((indent, out.len() - 1, None));
            }
        }
        for q in ["\"\"\"", "'''"] {
            if quotes(q) % 2 == 1 {
                in_string = Some(q);
                break;
            }
        }
    }
    out
}

/// The class a Python header's bases (`(Base, abc.ABC, metaclass=ABCMeta):`) declare.
fn python_bases(header: &str) -> Class {
    let mut class = Class::default();
    let Some(open) = header.find('(') else { return class };
    let inner = &header[open + 1..header.rfind(')').unwrap_or(header.len())];
    let mut depth = 0usize;
    let mut parts = vec![String::new()];
    for c in inner.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(String::new());
                continue;
            }
            _ => {}
        }
        if depth == 0 && !matches!(c, ']' | ')') {
            parts.last_mut().unwrap().push(c);
        }
    }
    for part in parts {
        let value = part.rsplit('=').next().unwrap_or_default().trim();
        let name = value.rsplit('.').next().unwrap_or_default().trim();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        class.is_abstract |= ABSTRACT_BASES.contains(&name);
        if !part.contains('=') {
            class.bases.push(name.to_owned());
        }
    }
    class
}

/// A line at the first indentation of a class body: a method, an assigned name, or an
/// abstract method's decorator.
fn member(line: &str, class: &mut Class) {
    if let Some(decorator) = line.strip_prefix('@') {
        let name = decorator.split('(').next().unwrap_or_default().rsplit('.').next().unwrap_or_default();
        class.is_abstract |= name.trim().starts_with("abstract");
        return;
    }
    let def = line.strip_prefix("async def ").or_else(|| line.strip_prefix("def "));
    let head = def.unwrap_or(line);
    let name: String = head.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    if name.is_empty() {
        return;
    }
    let after = head[name.len()..].trim_start();
    let assigned =
        after.starts_with('=') && !after.starts_with("==") || after.starts_with(':') && after.contains('=');
    if def.is_some() || assigned {
        class.methods.insert(name);
    }
}

/// The classes of a script, off oxc's tree: declarations and named class expressions.
fn script_classes(text: &str, dialect: Dialect) -> Vec<(String, Class)> {
    script_tree::read(text, dialect, |script| {
        let mut visitor = Classes { text, out: Vec::new() };
        visitor.visit_program(script.program);
        visitor.out
    })
}

struct Classes<'t> {
    text: &'t str,
    out: Vec<(String, Class)>,
}

impl<'a> Visit<'a> for Classes<'_> {
    fn enter_node(&mut self, kind: AstKind<'a>) {
        let AstKind::Class(class) = kind else { return };
        let Some(id) = &class.id else { return };
        let mut found = Class { is_abstract: class.r#abstract, ..Class::default() };
        if let Some(heritage) = &class.heritage {
            let base = &heritage.expression;
            // `Base`, `ns.Base`; a computed base (`mixin(Base)`) names no class.
            let name = match base {
                Expression::Identifier(_) | Expression::StaticMemberExpression(_) => {
                    text_of(self.text, oxc_span::GetSpan::span(base)).rsplit('.').next()
                }
                _ => None,
            };
            found.bases.extend(name.map(|n| n.trim().to_owned()));
        }
        for element in &class.body.body {
            let key = match element {
                ClassElement::MethodDefinition(m) => &m.key,
                ClassElement::PropertyDefinition(p) => &p.key,
                ClassElement::AccessorProperty(p) => &p.key,
                _ => continue,
            };
            let name = match key {
                PropertyKey::StaticIdentifier(k) => Some(k.name.as_str()),
                PropertyKey::PrivateIdentifier(k) => Some(k.name.as_str()),
                PropertyKey::StringLiteral(s) => Some(s.value.as_str()),
                _ => None,
            };
            found.methods.extend(name.map(str::to_owned));
        }
        self.out.push((id.name.to_string(), found));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index of `files`, read as the finish check reads them: parsed only when a question
    /// names one of their classes.
    fn index(files: &[(&str, &str)]) -> ClassIndex {
        let script = files.iter().any(|(path, _)| indexed(path, true));
        let read = |path: &str| files.iter().find(|(p, _)| *p == path).map(|(_, text)| text.to_string());
        class_index(files.iter().map(|(path, _)| *path), read, script)
    }

    fn stub(class: &str, method: &str, script: bool) -> Overridable {
        Overridable { class: class.to_owned(), method: method.to_owned(), script }
    }

    #[test]
    fn a_python_method_overridden_by_a_descendant_in_another_file_is_cleared() {
        let mut index = index(&[
            (
                "pkg/base.py",
                "class Exporter:\n    def export(self, rows):\n        raise NotImplementedError\n",
            ),
            (
                "pkg/mid.py",
                "from .base import Exporter\n\nclass TextExporter(base.Exporter):\n    \"\"\"Text.\n\nclass Fake:\n    def export(self): pass\n\"\"\"\n    sep = ','\n",
            ),
            (
                "pkg/csv.py",
                "class CsvExporter(\n    TextExporter,\n):\n    async def export(self, rows):\n        return rows\n",
            ),
        ]);
        assert!(index.clears(&stub("Exporter", "export", false)));
        assert!(!index.clears(&stub("Exporter", "flush", false)));
        assert!(index.clears(&stub("Exporter", "sep", false)), "an assigned name overrides too");
        assert!(!index.clears(&stub("CsvExporter", "export", false)));
    }

    #[test]
    fn a_python_class_below_a_protocol_or_abstract_base_elsewhere_is_cleared() {
        let mut index = index(&[
            ("proto.py", "class Clock(typing.Protocol):\n    def now(self) -> float: ...\n"),
            ("abc_base.py", "class Store:\n    @abc.abstractmethod\n    def get(self): ...\n"),
            ("meta.py", "class Meta(object, metaclass=abc.ABCMeta):\n    pass\n"),
            (
                "impl.py",
                "class Wall(Clock):\n    def now(self): ...\nclass Disk(Store): ...\nclass M(Meta): ...\nclass Plain(object): ...\n",
            ),
        ]);
        assert!(index.clears(&stub("Wall", "now", false)));
        assert!(index.clears(&stub("Disk", "put", false)));
        assert!(index.clears(&stub("M", "x", false)));
        assert!(!index.clears(&stub("Plain", "x", false)));
    }

    #[test]
    fn a_script_method_overridden_by_a_subclass_or_below_an_abstract_class_is_cleared() {
        let mut index = index(&[
            (
                "src/store.ts",
                "export class Store {\n  get(k: string): string { throw new Error('not implemented'); }\n}\nexport abstract class Shape {}\n",
            ),
            (
                "src/mem.ts",
                "import { Store } from './store';\nexport class MemStore extends Store {\n  get(k: string) { return k; }\n}\n",
            ),
            (
                "src/sq.js",
                "class Square extends lib.Shape {\n  area() { throw new Error('not implemented'); }\n}\n",
            ),
        ]);
        assert!(index.clears(&stub("Store", "get", true)));
        assert!(!index.clears(&stub("Store", "set", true)));
        assert!(index.clears(&stub("Square", "area", true)));
        assert!(!index.clears(&stub("MemStore", "get", true)));
    }

    #[test]
    fn only_files_of_the_stub_s_language_are_indexed() {
        assert!(indexed("a/b.py", false) && !indexed("a/b.py", true));
        assert!(indexed("a/b.tsx", true) && !indexed("a/b.rs", true));
    }

    #[test]
    fn only_the_files_that_name_a_class_asked_about_are_parsed() {
        let mut index = index(&[
            ("base.py", "class Exporter:\n    def export(self):\n        raise NotImplementedError\n"),
            (
                "json_out.py",
                "from base import Exporter\nclass Json(Exporter):\n    def export(self):\n        return 1\n",
            ),
            ("other.py", "class Unrelated:\n    def run(self):\n        return 2\n"),
        ]);
        assert!(index.clears(&stub("Exporter", "export", false)));
        let unread: Vec<&str> = index.unread.iter().map(|(path, _)| path.as_str()).collect();
        assert_eq!(unread, ["other.py"], "a file that names no class asked about is not parsed");
    }
}
