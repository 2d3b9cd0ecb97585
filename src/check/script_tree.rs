//! JavaScript and TypeScript for the survey (stubs and references), read off oxc's tree: the
//! parser the verdict trusts, and at several times tree-sitter's speed. Tree-sitter's parse
//! and the walk over its tree were three quarters of the finish check's time on scripts.
//!
//! oxc's parser does not recover from an error: a text that does not parse gives no
//! statements. So the survey of such a text reads the statements before the one that breaks
//! it (the prefix the verdict's check resumes from), and every comment of the text, found by
//! tree-sitter's parse, which recovers: an unfinished or broken file still has its
//! placeholder comments found, after the mistake too. Its stub bodies and references after
//! the mistake are not read (a reference in a broken file is not judged anyway).

use std::ops::Range;
use std::time::{Duration, Instant};

use oxc_allocator::Allocator;
use oxc_ast::AstKind;
use oxc_ast::ast::{Expression, Program};
use oxc_parser::ParserReturn;
use oxc_span::{GetSpan, Span};

use super::languages::{LanguageName, language_named};
use super::parsers::javascript::{self, Dialect};
use super::syntax::{parse_until, preorder};

/// One script as the survey reads it.
pub(crate) struct Script<'s, 'a> {
    /// The statements: the whole text's, or those of the prefix that parses.
    pub(crate) program: &'s Program<'a>,
    /// Every comment the parse read, in text order.
    pub(crate) comments: Vec<Range<usize>>,
    /// The whole text parsed: false when `program` holds only a prefix of it.
    pub(crate) whole: bool,
}

/// Reads `text`, parsed as `dialect`, with `read`.
pub(crate) fn read<R>(text: &str, dialect: Dialect, read: impl FnOnce(&Script) -> R) -> R {
    let allocator = Allocator::default();
    let parsed = javascript::parse_program(&allocator, text, dialect);
    if !parsed.panicked {
        return read(&whole(&parsed));
    }
    let (comments, parses_until) = recover(text, dialect);
    let prefix = text.get(..parses_until).unwrap_or_default();
    let allocator = Allocator::default();
    let before = javascript::parse_program(&allocator, prefix, dialect);
    read(&Script { program: &before.program, comments, whole: false })
}

/// [`read`] of a text that parses without problem (the verdict on it is "ok"), from the one
/// parse that decides it; None when it has a problem.
pub(crate) fn read_if_it_parses<R>(
    text: &str,
    dialect: Dialect,
    read: impl FnOnce(&Script) -> R,
) -> Option<R> {
    let allocator = Allocator::default();
    let parsed = javascript::parse_program(&allocator, text, dialect);
    javascript::parses_without_problem(&parsed).then(|| read(&whole(&parsed)))
}

/// [`read`] of a text oxc's parser reads to its end (it may still report a problem that does
/// not stop it); None for one it stops in, without the recovering parse [`read`] makes then.
pub(crate) fn read_if_whole<R>(text: &str, dialect: Dialect, read: impl FnOnce(&Script) -> R) -> Option<R> {
    let allocator = Allocator::default();
    let parsed = javascript::parse_program(&allocator, text, dialect);
    (!parsed.panicked).then(|| read(&whole(&parsed)))
}

/// The script of a parse that read the whole text.
fn whole<'s, 'a>(parsed: &'s ParserReturn<'a>) -> Script<'s, 'a> {
    let comments = parsed.program.comments.iter().map(|c| range(c.span)).collect();
    Script { program: &parsed.program, comments, whole: true }
}

/// Every comment of `text`, a text oxc's parser stops in, and where the first top-level
/// statement that does not parse starts: read off tree-sitter's parse, which recovers from
/// errors, so that a placeholder after a mistake is still found (oxc's lexer stops where its
/// parser does).
fn recover(text: &str, dialect: Dialect) -> (Vec<Range<usize>>, usize) {
    let grammar = match dialect {
        Dialect::Module | Dialect::CommonJs => LanguageName::JavaScript,
        Dialect::TypeScript | Dialect::Declarations => LanguageName::TypeScript,
        Dialect::Tsx => LanguageName::Tsx,
    };
    let deadline = Instant::now() + RECOVERY_BUDGET;
    let Some(tree) = language_named(grammar).and_then(|lang| parse_until(lang, text, None, deadline)) else {
        return (Vec::new(), 0);
    };
    let mut comments = Vec::new();
    preorder(tree.root_node(), |node| {
        let comment = node.kind().ends_with("comment");
        if comment {
            comments.push(node.byte_range());
        }
        !comment
    });
    let root = tree.root_node();
    let mut cursor = root.walk();
    let broken = root.children(&mut cursor).find(|n| n.is_error() || n.has_error() || n.is_missing());
    (comments, broken.map_or(0, |n| n.start_byte()))
}

/// Time allowed for the parse that finds the comments of a text oxc's parser stops in.
const RECOVERY_BUDGET: Duration = Duration::from_secs(1);

/// A span as a range of byte offsets.
pub(crate) fn range(span: Span) -> Range<usize> {
    span.start as usize..span.end as usize
}

/// The text of `span` in `text`.
pub(crate) fn text_of(text: &str, span: Span) -> &str {
    text.get(range(span)).unwrap_or_default()
}

/// The value of a string literal or a template without substitutions, as written between its
/// quotes; None for any other expression, and when it holds an escape (the value is then not
/// what is written).
pub(crate) fn literal<'t>(text: &'t str, expression: &Expression) -> Option<&'t str> {
    match expression {
        Expression::StringLiteral(_) => {}
        Expression::TemplateLiteral(t) if t.expressions.is_empty() => {}
        _ => return None,
    }
    unquoted(text_of(text, expression.span()))
}

/// A string literal's text between its quotes; None when it holds an escape.
pub(crate) fn unquoted(raw: &str) -> Option<&str> {
    let inner = raw.get(1..raw.len().checked_sub(1)?)?;
    let quoted = raw.starts_with(['"', '\'', '`']) && raw.ends_with(&raw[..1]);
    (quoted && !inner.contains('\\')).then_some(inner)
}

/// The nodes from the root down to the node being visited, kept by a visitor's
/// `enter_node` and `leave_node`: the way up that oxc's tree does not store.
#[derive(Default)]
pub(crate) struct Ancestors<'a> {
    stack: Vec<AstKind<'a>>,
}

impl<'a> Ancestors<'a> {
    pub(crate) fn enter(&mut self, kind: AstKind<'a>) {
        self.stack.push(kind);
    }

    pub(crate) fn leave(&mut self) {
        self.stack.pop();
    }

    /// The parent of the node last entered.
    pub(crate) fn parent(&self) -> Option<AstKind<'a>> {
        self.up().nth(1)
    }

    /// The node last entered, then its parent, and so on to the root.
    pub(crate) fn up(&self) -> impl Iterator<Item = AstKind<'a>> + '_ {
        self.stack.iter().rev().copied()
    }
}
