//! Rust: `mod name;` declarations, whose files must exist. Read two ways: off
//! tree-sitter-rust's tree ([`extract`]), and off rust-analyzer's parse of a text that
//! parses ([`Reading`]), where the finish check has that parse already for its verdict.
//!
//! A module with `#[path]` or `#[cfg_attr(...)]` (which may set a path) names its own file
//! and is not followed; one inside a macro (`cfg_if!`) is a token tree, not an item; a file
//! under `#![cfg(...)]` is left alone, and so is a module under `#[cfg(test)]` (published
//! crates leave their test files out). A module under another `#[cfg(...)]` is read, marked
//! `cfg`: its file must exist for everyone who enables that configuration, unless a build
//! script may write it (see `resolve/rust.rs`). An inline module whose body sets attributes
//! of its own (`#![...]`) is not looked into. The rules are [`conditional_file`],
//! [`cfg_of`] and [`sets_own_attributes`], for both readings.

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

/// What an attribute of a module (`#[...]`, as written) says of its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Attribute {
    /// Nothing: `#[doc]`, `#[macro_use]`, `#[allow]`.
    Other,
    /// It may be left out of the build: `#[cfg(...)]`.
    Cfg,
    /// Its file is named elsewhere or may not be needed: `#[path = ...]`, `#[cfg_attr(...)]`,
    /// `#[cfg(test)]` (published crates leave their tests out).
    Skip,
}

/// What the attribute `attribute` (as written) says of a module's file.
fn cfg_of(attribute: &str) -> Attribute {
    let attribute = attribute.trim_start_matches("#[").trim_start();
    let after = |w: &str| attribute.strip_prefix(w).map(str::trim_start);
    if after("path").is_some_and(|r| r.starts_with('='))
        || after("cfg_attr").is_some_and(|r| r.starts_with('('))
    {
        return Attribute::Skip;
    }
    match after("cfg").filter(|r| r.starts_with('(')) {
        Some(condition)
            if condition.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|w| w == "test") =>
        {
            Attribute::Skip
        }
        Some(_) => Attribute::Cfg,
        None => Attribute::Other,
    }
}

/// Whether an inline module's body (`{ ... }`, as written) sets attributes of its own
/// (`#![path]`, `#![cfg]`): its modules are not ours to judge.
fn sets_own_attributes(body: &str) -> bool {
    body.contains("#![")
}

/// The import of a `mod name;` at `at`, inside the inline modules `inline`; `cfg`: under a
/// `#[cfg(...)]`, its own or an enclosing inline module's.
fn declaration(at: usize, name: &str, inline: &[String], cfg: bool, index: &LineIndex) -> Import {
    Import {
        line: index.line_of(at),
        written: name.trim_start_matches("r#").to_owned(),
        kind: ImportKind::RustMod { inline: inline.to_vec(), cfg },
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
        items(text, root, &mut Vec::new(), false, index, refs);
    }
}

/// The declarations among the items of `list` (a file, or an inline module's body), inside
/// the inline modules `inline`; `cfg`: one of them is under `#[cfg(...)]`.
fn items(text: &str, list: Node, inline: &mut Vec<String>, cfg: bool, index: &LineIndex, refs: &mut Refs) {
    let text_of = |n: Node| text.get(n.byte_range()).unwrap_or_default();
    let mut cursor = list.walk();
    let children: Vec<Node> = list.named_children(&mut cursor).collect();
    for (i, item) in children.iter().enumerate() {
        if item.kind() != "mod_item" {
            continue;
        }
        // The attributes written just before the item.
        let attributes: Vec<Attribute> = children[..i]
            .iter()
            .rev()
            .take_while(|n| matches!(n.kind(), "attribute_item" | "line_comment" | "block_comment"))
            .filter(|n| n.kind() == "attribute_item")
            .map(|a| cfg_of(text_of(*a)))
            .collect();
        if attributes.contains(&Attribute::Skip) {
            continue;
        }
        let cfg = cfg || attributes.contains(&Attribute::Cfg);
        let Some(name) = item.child_by_field_name("name") else { continue };
        let name = text_of(name);
        match item.child_by_field_name("body") {
            Some(body) => {
                if sets_own_attributes(text_of(body)) {
                    continue;
                }
                inline.push(name.trim_start_matches("r#").to_owned());
                items(text, body, inline, cfg, index, refs);
                inline.pop();
            }
            None => refs.imports.push(declaration(item.start_byte(), name, inline, cfg, index)),
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
    /// The names of the inline modules whose bodies are being read, outermost first, and
    /// whether each is under `#[cfg(...)]`.
    inline: Vec<(String, bool)>,
    /// Where the attribute being read starts.
    attribute: usize,
    /// Declarations so far: where, the name as written, inside which inline modules, and
    /// whether under `#[cfg(...)]`.
    found: Vec<(usize, String, Vec<String>, bool)>,
}

/// A module being read.
#[derive(Default)]
struct Module {
    /// Its declaration counts: it is an item of the file or of an inline module read.
    read: bool,
    /// It has an attribute that names its file or leaves it unjudged.
    conditional: bool,
    /// It has a `#[cfg(...)]`.
    cfg: bool,
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
                                self.inline.push((name.trim_start_matches("r#").to_owned(), m.cfg));
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
                        let attribute = text.get(self.attribute..at).map_or(Attribute::Other, cfg_of);
                        m.conditional |= attribute == Attribute::Skip;
                        m.cfg |= attribute == Attribute::Cfg;
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
                        let inline = self.inline.iter().map(|(n, _)| n.clone()).collect();
                        let cfg = m.cfg || self.inline.iter().any(|(_, cfg)| *cfg);
                        self.found.push((m.at.unwrap_or(m.name.start), name, inline, cfg));
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
        refs.imports = self
            .found
            .iter()
            .map(|(at, name, inline, cfg)| declaration(*at, name, inline, *cfg, &index))
            .collect();
        refs
    }
}
