//! Rust stubs, read two ways: off tree-sitter-rust's tree ([`visit`]), and off
//! rust-analyzer's parse of a text that parses ([`Reading`]), where the finish check has
//! that parse already for its verdict. The rules are the same, and written once:
//!
//! - `todo!()` anywhere in code: it exists to mark code not written yet.
//! - `unimplemented!()` with no message, or with one that says the code is still to
//!   come ("not yet implemented", "TODO"). With another message
//!   (`unimplemented!("not supported on this platform")`) it states a real limit.
//!   See [`macro_stands_in`].
//! - A function with no statements whose comments say the code goes here.
//!
//! Macro calls in comments, strings and doc examples are not macro invocations in
//! either reading, so they never count; neither are calls inside another macro's
//! arguments (`vec![todo!()]`), which both parsers leave as tokens.

use std::ops::Range;

use ra_ap_parser::SyntaxKind;
use tree_sitter::Node;

use super::{File, Found, StubKind, comment_only_body, comments_say_code_goes_here, placeholder, words_of};
use crate::check::parsers::rust::Step;

/// Check `node` if it is a macro call or a function.
pub(super) fn visit(file: &File, node: Node, found: &mut Vec<Found>) {
    match node.kind() {
        "macro_invocation" => {
            let Some(name) = node.child_by_field_name("macro").map(|m| file.text_of(m)) else { return };
            let args = node
                .named_child((node.named_child_count() as u32).saturating_sub(1))
                .map(|a| file.text_of(a));
            if let Some(stub) = macro_stands_in(file, node.start_byte(), name, args.unwrap_or_default()) {
                found.push(stub);
            }
        }
        "function_item" => {
            let Some(body) = node.child_by_field_name("body") else { return };
            let name = node.child_by_field_name("name").map(|n| file.text_of(n)).unwrap_or("?");
            comment_only_body(file, body, name, found);
        }
        _ => {}
    }
}

/// The stub a macro call at `at` is when it stands in for code: `path` is the macro's name
/// as written (`todo`, `std::todo`), `args` its token tree with the brackets.
fn macro_stands_in(file: &File, at: usize, path: &str, args: &str) -> Option<Found> {
    let name = path.rsplit("::").next().unwrap_or(path);
    let args = args.trim_matches(|c| "()[]{} \n\t".contains(c));
    let stub = match name {
        "todo" => true,
        "unimplemented" => args.is_empty() || placeholder::says_not_implemented(args),
        _ => false,
    };
    stub.then(|| file.found(at, StubKind::StubBody, format!("`{name}!()` stands in for code")))
}

/// The Rust stubs of a text that parses, read off rust-analyzer's parse step by step (see
/// [`Step`]) as the walk for its verdict goes: what [`visit`] and the comment rules find on
/// tree-sitter's tree, without that tree (a tree costs ~24x its source in memory).
///
/// Where rust-analyzer's nodes differ from tree-sitter's, the reading follows
/// tree-sitter's, so that both readings find the same: a line doc comment spans its newline;
/// an item's attributes and doc comments are inside its node here and before it there, so
/// a function's own comments are those after them, and a macro call starts at its name.
pub(crate) struct Reading<'t> {
    file: File<'t>,
    /// Every comment, in text order.
    comments: Vec<Range<usize>>,
    /// A token other than whitespace and comments was read: the file holds code.
    code: bool,
    /// The macro calls open around the step being read.
    calls: Vec<Call>,
    /// The functions open around the step being read.
    functions: Vec<Function>,
    /// Findings so far, macro calls and bodies.
    found: Vec<Found>,
}

/// A macro call being read: where its name and its arguments are.
#[derive(Default)]
struct Call {
    path: Range<usize>,
    args: Range<usize>,
}

/// A function being read.
#[derive(Default)]
struct Function {
    name: Range<usize>,
    /// Past its attributes and the comments before it: at its visibility or `fn`.
    started: bool,
    /// Comments directly in it past that point (tree-sitter's function node holds them).
    own_comments: Vec<Range<usize>>,
    /// It has a body.
    body: bool,
    /// Comments directly in its body.
    body_comments: Vec<Range<usize>>,
    /// Its body holds a statement, an expression, an item or an attribute.
    statements: bool,
}

impl<'t> Reading<'t> {
    /// A reading of `text`, the whole file at `path`; None for a file the stub rules do not
    /// read (see [`File::of_path`]).
    pub(crate) fn new(path: &'t str, text: &'t str) -> Option<Self> {
        let file = File::of_path(path, text)?;
        Some(Reading {
            file,
            comments: Vec::new(),
            code: false,
            calls: Vec::new(),
            functions: Vec::new(),
            found: Vec::new(),
        })
    }

    /// Reads one step of the walk; `open`: the kinds of the nodes around it.
    pub(crate) fn step(&mut self, step: Step<'_>, open: &[SyntaxKind]) {
        let parent = open.last().copied();
        let grandparents = open.len().checked_sub(3).map(|i| (open[i], open[i + 1]));
        // The body of the innermost function open: a statement list in its block.
        let in_body = parent == Some(SyntaxKind::STMT_LIST)
            && grandparents == Some((SyntaxKind::FN, SyntaxKind::BLOCK_EXPR));
        match step {
            Step::Token(kind, at, token) => {
                let end = at + token.len();
                if kind == SyntaxKind::COMMENT {
                    let span = at..self.comment_end(token, end);
                    if in_body && let Some(f) = self.functions.last_mut() {
                        f.body_comments.push(span.clone());
                    } else if let Some(f) = self.functions.last_mut().filter(|f| f.started)
                        && (parent == Some(SyntaxKind::FN)
                            || parent == Some(SyntaxKind::RET_TYPE)
                                && open.len() >= 2
                                && open[open.len() - 2] == SyntaxKind::FN)
                    {
                        // tree-sitter's function node holds the `->` and the return type's
                        // comments before the type.
                        f.own_comments.push(span.clone());
                    }
                    self.comments.push(span);
                    return;
                }
                if kind == SyntaxKind::WHITESPACE {
                    return;
                }
                self.code = true;
                match parent {
                    Some(SyntaxKind::FN) => {
                        if let Some(f) = self.functions.last_mut() {
                            f.started = true;
                        }
                    }
                    _ if in_body && !matches!(kind, SyntaxKind::L_CURLY | SyntaxKind::R_CURLY) => {
                        if let Some(f) = self.functions.last_mut() {
                            f.statements = true;
                        }
                    }
                    _ => {}
                }
            }
            Step::Enter(kind, at) => {
                if in_body && let Some(f) = self.functions.last_mut() {
                    f.statements = true;
                }
                match kind {
                    SyntaxKind::MACRO_CALL => self.calls.push(Call::default()),
                    SyntaxKind::FN => self.functions.push(Function::default()),
                    _ if parent == Some(SyntaxKind::FN) => {
                        if let Some(f) = self.functions.last_mut() {
                            f.started |= kind != SyntaxKind::ATTR;
                            f.body |= kind == SyntaxKind::BLOCK_EXPR;
                        }
                    }
                    _ => {}
                }
                if let Some(span) = self.marked(parent, kind) {
                    span.start = at;
                }
            }
            Step::Exit(kind, at) => match kind {
                SyntaxKind::MACRO_CALL => {
                    if let Some(call) = self.calls.pop() {
                        self.macro_call(call);
                    }
                }
                SyntaxKind::FN => {
                    if let Some(f) = self.functions.pop() {
                        self.function(f);
                    }
                }
                _ => {
                    if let Some(span) = self.marked(parent, kind) {
                        span.end = at;
                    }
                }
            },
        }
    }

    /// The span that a node of `kind` directly in `parent` marks, if any: the path or the
    /// arguments of the macro call open, the name of the function open.
    fn marked(&mut self, parent: Option<SyntaxKind>, kind: SyntaxKind) -> Option<&mut Range<usize>> {
        match (parent?, kind) {
            (SyntaxKind::MACRO_CALL, SyntaxKind::PATH) => self.calls.last_mut().map(|c| &mut c.path),
            (SyntaxKind::MACRO_CALL, SyntaxKind::TOKEN_TREE) => self.calls.last_mut().map(|c| &mut c.args),
            (SyntaxKind::FN, SyntaxKind::NAME) => self.functions.last_mut().map(|f| &mut f.name),
            _ => None,
        }
    }

    /// Where a comment ends as tree-sitter-rust spans it: a line doc comment (`///`, `//!`)
    /// with its newline, other comments at their last character.
    fn comment_end(&self, comment: &str, end: usize) -> usize {
        let line_doc =
            comment.starts_with("//!") || comment.starts_with("///") && !comment.starts_with("////");
        match line_doc && self.file.text.as_bytes().get(end) == Some(&b'\n') {
            true => end + 1,
            false => end,
        }
    }

    fn text(&self, span: &Range<usize>) -> &'t str {
        self.file.text.get(span.clone()).unwrap_or_default()
    }

    fn macro_call(&mut self, call: Call) {
        let (path, args) = (self.text(&call.path), self.text(&call.args));
        if let Some(stub) = macro_stands_in(&self.file, call.path.start, path, args) {
            self.found.push(stub);
        }
    }

    /// [`super::comment_only_body`] on a function read.
    fn function(&mut self, f: Function) {
        let Some(first) = f.body_comments.first() else { return };
        if !f.body || f.statements {
            return;
        }
        let name = match self.text(&f.name) {
            "" => "?",
            name => name,
        };
        let comments = f.body_comments.iter().chain(&f.own_comments).map(|c| self.text(c));
        let words = words_of("", comments);
        if let Some(stub) = comments_say_code_goes_here(&self.file, first.start, name, &words) {
            self.found.push(stub);
        }
    }

    /// Every stub read, with the comment rules applied to the comments read (see
    /// [`super::File::placeholder_comments`]) and "no code" when there is none.
    pub(crate) fn finish(self) -> Vec<super::Stub> {
        let Reading { file, comments, code, mut found, .. } = self;
        let mut all = Vec::new();
        if !code {
            all.extend(super::no_code(file.path, file.text, || "comments".to_owned()));
        }
        all.append(&mut found);
        file.placeholder_comments(&comments, &mut all);
        super::located(file.text, all)
    }
}
