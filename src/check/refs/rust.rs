//! Rust: `mod name;` declarations, whose files must exist. Read two ways: off
//! tree-sitter-rust's tree ([`extract`]), and off rust-analyzer's parse of a text that
//! parses ([`Reading`]), where the finish check has that parse already for its verdict.
//!
//! Only declarations the compiler reads for every build: a module with `#[path]` names its
//! own file (not followed), one under `#[cfg(...)]` or `#[cfg_attr(...)]` (or in a file under
//! `#![cfg(...)]`) may not be built, and one inside a macro (`cfg_if!`) is a token tree, not
//! an item. An inline module whose body sets attributes of its own (`#![...]`) is not
//! looked into. The rules are [`conditional_file`], [`conditional_module`] and
//! [`sets_own_attributes`], for both readings.

use ra_ap_parser::SyntaxKind;
use tree_sitter::Node;

use super::{Import, ImportKind, Refs};
use crate::check::parsers::rust::Step;
use crate::lines::LineIndex;

/// Whether an inner attribute of the file (`#![...]`, as written) may leave the whole file
/// out of the build: `#![cfg(...)]`.
fn conditional_file(attribute: &str) -> bool {
    let inner = attribute.trim_start_matches("#![").trim_start();
    inner.starts_with("cfg(") || inner.starts_with("cfg (")
}

/// Whether an attribute of a module (`#[...]`, as written) names its file or may leave it
/// out of the build: `#[path = ...]`, `#[cfg(...)]`, `#[cfg_attr(...)]`.
fn conditional_module(attribute: &str) -> bool {
    let attribute = attribute.trim_start_matches("#[").trim_start();
    ["path", "cfg", "cfg_attr"]
        .iter()
        .any(|w| attribute.strip_prefix(w).is_some_and(|rest| rest.trim_start().starts_with(['=', '('])))
}

/// Whether an inline module's body (`{ ... }`, as written) sets attributes of its own
/// (`#![path]`, `#![cfg]`): its modules are not ours to judge.
fn sets_own_attributes(body: &str) -> bool {
    body.contains("#![")
}

/// The import of a `mod name;` at `at`, inside the inline modules `inline`.
fn declaration(at: usize, name: &str, inline: &[String], index: &LineIndex) -> Import {
    Import {
        line: index.line_of(at),
        written: name.trim_start_matches("r#").to_owned(),
        kind: ImportKind::RustMod { inline: inline.to_vec() },
        names: Vec::new(),
        optional: false,
    }
}

/// Reads the `mod name;` declarations of `text`, off tree-sitter's tree, into `refs`.
pub(super) fn extract(text: &str, root: Node, index: &LineIndex, refs: &mut Refs) {
    let mut cursor = root.walk();
    let whole_file_conditional = root.named_children(&mut cursor).any(|n| {
        n.kind() == "inner_attribute_item" && text.get(n.byte_range()).is_some_and(conditional_file)
    });
    if !whole_file_conditional {
        items(text, root, &mut Vec::new(), index, refs);
    }
}

/// The declarations among the items of `list` (a file, or an inline module's body), inside
/// the inline modules `inline`.
fn items(text: &str, list: Node, inline: &mut Vec<String>, index: &LineIndex, refs: &mut Refs) {
    let text_of = |n: Node| text.get(n.byte_range()).unwrap_or_default();
    let mut cursor = list.walk();
    let children: Vec<Node> = list.named_children(&mut cursor).collect();
    for (i, item) in children.iter().enumerate() {
        if item.kind() != "mod_item" {
            continue;
        }
        // The attributes written just before the item.
        let conditional = children[..i]
            .iter()
            .rev()
            .take_while(|n| matches!(n.kind(), "attribute_item" | "line_comment" | "block_comment"))
            .filter(|n| n.kind() == "attribute_item")
            .any(|a| conditional_module(text_of(*a)));
        if conditional {
            continue;
        }
        let Some(name) = item.child_by_field_name("name") else { continue };
        let name = text_of(name);
        match item.child_by_field_name("body") {
            Some(body) => {
                if sets_own_attributes(text_of(body)) {
                    continue;
                }
                inline.push(name.trim_start_matches("r#").to_owned());
                items(text, body, inline, index, refs);
                inline.pop();
            }
            None => refs.imports.push(declaration(item.start_byte(), name, inline, index)),
        }
    }
}

/// The `mod name;` declarations of a text that parses, read off rust-analyzer's parse step
/// by step (see [`Step`]) as the walk for its verdict goes: what [`extract`] finds on
/// tree-sitter's tree. rust-analyzer puts an item's attributes inside its node, where
/// tree-sitter puts them before it; a module's line is where its visibility or `mod` is.
#[derive(Default)]
pub(crate) struct Reading {
    /// The file has a `#![cfg(...)]`.
    conditional_file: bool,
    /// The modules open around the step being read.
    modules: Vec<Module>,
    /// The names of the inline modules whose bodies are being read, outermost first.
    inline: Vec<String>,
    /// Where the attribute being read starts.
    attribute: usize,
    /// Declarations so far: where, the name as written, and inside which inline modules.
    found: Vec<(usize, String, Vec<String>)>,
}

/// A module being read.
#[derive(Default)]
struct Module {
    /// Its declaration counts: it is an item of the file or of an inline module read.
    read: bool,
    /// It has an attribute that names its file or may leave it out of the build.
    conditional: bool,
    /// Where its visibility or `mod` keyword is.
    at: Option<usize>,
    name: std::ops::Range<usize>,
    /// Where its body starts, when it has one, and how many declarations were found before
    /// it (those after are dropped if the body sets attributes of its own).
    body: Option<(usize, usize)>,
}

impl Reading {
    /// Reads one step of the walk over `text`; `open`: the kinds of the nodes around it.
    pub(crate) fn step(&mut self, text: &str, step: Step<'_>, open: &[SyntaxKind]) {
        let parent = open.last().copied();
        match step {
            Step::Token(kind, at, _) => {
                if parent == Some(SyntaxKind::MODULE)
                    && !kind.is_trivia()
                    && let Some(m) = self.modules.last_mut()
                {
                    m.at.get_or_insert(at);
                }
            }
            Step::Enter(kind, at) => match (parent, kind) {
                (_, SyntaxKind::MODULE) => {
                    // An item of the file, or of the body of an inline module being read.
                    let read = match parent {
                        Some(SyntaxKind::SOURCE_FILE) => true,
                        Some(SyntaxKind::ITEM_LIST) => {
                            open.len() >= 2
                                && open[open.len() - 2] == SyntaxKind::MODULE
                                && self.modules.last().is_some_and(|m| m.read && !m.conditional)
                        }
                        _ => false,
                    };
                    self.modules.push(Module { read, ..Module::default() });
                }
                (Some(SyntaxKind::SOURCE_FILE | SyntaxKind::MODULE), SyntaxKind::ATTR) => self.attribute = at,
                (Some(SyntaxKind::MODULE), _) => {
                    let Some(m) = self.modules.last_mut() else { return };
                    m.at.get_or_insert(at);
                    match kind {
                        SyntaxKind::NAME => m.name.start = at,
                        SyntaxKind::ITEM_LIST => {
                            m.body = Some((at, self.found.len()));
                            if m.read && !m.conditional {
                                let name = text.get(m.name.clone()).unwrap_or_default();
                                self.inline.push(name.trim_start_matches("r#").to_owned());
                            }
                        }
                        _ => {}
                    }
                }
                _ => {}
            },
            Step::Exit(kind, at) => match (parent, kind) {
                (Some(SyntaxKind::SOURCE_FILE), SyntaxKind::ATTR) => {
                    self.conditional_file |= text.get(self.attribute..at).is_some_and(conditional_file);
                }
                (Some(SyntaxKind::MODULE), SyntaxKind::ATTR) => {
                    if let Some(m) = self.modules.last_mut() {
                        m.conditional |= text.get(self.attribute..at).is_some_and(conditional_module);
                    }
                }
                (Some(SyntaxKind::MODULE), SyntaxKind::NAME) => {
                    if let Some(m) = self.modules.last_mut() {
                        m.name.end = at;
                    }
                }
                (Some(SyntaxKind::MODULE), SyntaxKind::ITEM_LIST) => {
                    let Some(m) = self.modules.last() else { return };
                    if let Some((start, before)) = m.body {
                        if m.read && !m.conditional {
                            self.inline.pop();
                        }
                        if text.get(start..at).is_some_and(sets_own_attributes) {
                            self.found.truncate(before);
                        }
                    }
                }
                (_, SyntaxKind::MODULE) => {
                    let Some(m) = self.modules.pop() else { return };
                    if m.read && !m.conditional && m.body.is_none() && !m.name.is_empty() {
                        let name = text.get(m.name.clone()).unwrap_or_default().to_owned();
                        self.found.push((m.at.unwrap_or(m.name.start), name, self.inline.clone()));
                    }
                }
                _ => {}
            },
        }
    }

    /// The references read: the declarations, unless the whole file may be left out.
    pub(crate) fn finish(self, text: &str) -> Refs {
        let mut refs = Refs::default();
        if self.conditional_file || self.found.is_empty() {
            return refs;
        }
        let index = LineIndex::new(text);
        refs.imports =
            self.found.iter().map(|(at, name, inline)| declaration(*at, name, inline, &index)).collect();
        refs
    }
}
