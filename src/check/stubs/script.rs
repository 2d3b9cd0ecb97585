//! JavaScript and TypeScript stub bodies, on oxc's tree (see `check::script_tree`).
//!
//! - A function or method whose only statement throws a not-implemented error
//!   (`throw new Error("Not implemented")`, `NotImplementedError`), unless it is in an
//!   `abstract` class, is a method put on a constructor's prototype
//!   (`Transform.prototype._transform = function () { throw ... }`: the pre-class way to
//!   declare a method for subclasses to override), or the message says subclasses provide it.
//! - A function or method with no statements whose comments say the code goes here
//!   (`// TODO: start the timer`).
//!
//! An empty body alone is not a stub: callbacks, no-op handlers and constructors are
//! empty by design, and an agent's stub says so in a comment or a throw.

use std::ops::Range;

use oxc_ast::AstKind;
use oxc_ast::ast::{AssignmentTarget, Expression, FunctionBody, Program, Statement, ThrowStatement};
use oxc_ast_visit::Visit;
use oxc_span::{GetSpan, Span};

use super::super::script_tree::{Ancestors, Script, text_of};
use super::{File, Found, StubKind, comments_say_code_goes_here, placeholder, words_of};

/// Every stub body and placeholder comment of `script`, and whether it holds code.
pub(super) fn scan(file: &File, script: &Script, found: &mut Vec<Found>) {
    let mut bodies = Bodies { file, comments: &script.comments, ancestors: Ancestors::default(), found };
    bodies.visit_program(script.program);
    file.placeholder_comments(&script.comments, found);
}

/// The functions of a script, visited with the way up to each.
struct Bodies<'f, 't, 'a> {
    file: &'f File<'t>,
    comments: &'f [Range<usize>],
    ancestors: Ancestors<'a>,
    found: &'f mut Vec<Found>,
}

impl<'a> Visit<'a> for Bodies<'_, '_, 'a> {
    fn enter_node(&mut self, kind: AstKind<'a>) {
        self.ancestors.enter(kind);
        match kind {
            AstKind::Function(function) => {
                if let Some(body) = &function.body {
                    let own = function.id.as_ref().map(|id| text_of(self.file.text, id.span));
                    let around = match self.ancestors.parent() {
                        // A method's key and parameters are the function around its body.
                        Some(AstKind::MethodDefinition(m)) => m.span,
                        Some(AstKind::ObjectProperty(p)) if p.method => p.span,
                        _ => function.span,
                    };
                    let name = own.map_or_else(|| self.assigned_name(), str::to_owned);
                    self.body(around, function.params.span, body, &name);
                }
            }
            AstKind::ArrowFunctionExpression(arrow) => {
                if let Some(body) = arrow.body.as_function_body() {
                    let name = self.assigned_name();
                    self.body(arrow.span, arrow.params.span, body, &name);
                }
            }
            _ => {}
        }
    }

    fn leave_node(&mut self, _kind: AstKind<'a>) {
        self.ancestors.leave();
    }
}

impl Bodies<'_, '_, '_> {
    /// The body of a function (spanning `around`, its parameters at `params`) named `name`.
    fn body(&mut self, around: Span, params: Span, body: &FunctionBody, name: &str) {
        let text = self.file.text;
        let statements = body.directives.len() + body.statements.len();
        // The comments directly in the body (not inside a statement), and those between the
        // function's other parts (`function f() /* here */ {`).
        let inside = |c: &&Range<usize>, s: Span| c.start >= s.start as usize && c.end <= s.end as usize;
        let in_body: Vec<&Range<usize>> = self
            .comments
            .iter()
            .filter(|c| inside(c, body.span) && !body.statements.iter().any(|s| inside(c, s.span())))
            .collect();
        let between = self.comments.iter().filter(|c| {
            inside(c, around)
                && !inside(c, body.span)
                && !inside(c, params)
                && c.start < body.span.start as usize
        });
        let words = || words_of("", in_body.iter().copied().chain(between.clone()).map(|c| &text[c.clone()]));
        if let ([Statement::ThrowStatement(throw)], 1) = (&body.statements[..], statements)
            && let Some(message) = not_implemented_throw(text, throw)
        {
            let intended = placeholder::explains_no_op(&words());
            if !placeholder::says_abstract(message)
                && !self.in_abstract_class()
                && !self.on_a_prototype()
                && !self.declared_for_subclasses(around)
                && !intended
            {
                let what = format!("body of `{name}` only throws a not-implemented error");
                let found = self.file.found(throw.span.start as usize, StubKind::StubBody, what);
                self.found.push(found.overridable(self.method_of().as_deref(), name, true));
            }
            return;
        }
        if statements == 0
            && !self.class().is_some_and(|c| placeholder::null_like(&c))
            && let Some(first) = in_body.first()
            && let Some(stub) = comments_say_code_goes_here(self.file, first.start, name, &words())
        {
            self.found.push(stub);
        }
    }

    /// The name of the variable, property or member the function being visited is assigned
    /// to; `anonymous` otherwise.
    fn assigned_name(&self) -> String {
        let text = self.file.text;
        let span = match self.ancestors.parent() {
            Some(AstKind::VariableDeclarator(d)) => d.id.span(),
            Some(AstKind::AssignmentExpression(a)) => a.left.span(),
            Some(AstKind::ObjectProperty(p)) => p.key.span(),
            Some(AstKind::MethodDefinition(m)) => m.key.span(),
            _ => return "anonymous".to_owned(),
        };
        text_of(text, span).to_owned()
    }

    /// Whether the function being visited is assigned to a constructor's prototype
    /// (`Base.prototype.m = function`), where a body that only throws marks the method
    /// subclasses must override, as Node's `stream.Transform` does with `_transform`.
    fn on_a_prototype(&self) -> bool {
        let Some(AstKind::AssignmentExpression(assignment)) = self.ancestors.parent() else { return false };
        match &assignment.left {
            AssignmentTarget::StaticMemberExpression(member) => matches!(
                &member.object,
                Expression::StaticMemberExpression(o) if text_of(self.file.text, o.span).ends_with(".prototype")
            ),
            _ => false,
        }
    }

    /// The name of the class whose method the function being visited is.
    fn method_of(&self) -> Option<String> {
        match self.ancestors.parent() {
            Some(AstKind::MethodDefinition(_)) => self.class(),
            _ => None,
        }
    }

    /// The name of the nearest class around the function being visited.
    fn class(&self) -> Option<String> {
        self.ancestors.up().find_map(|kind| match kind {
            AstKind::Class(class) => {
                Some(class.id.as_ref().map(|id| id.name.to_string()).unwrap_or_default())
            }
            _ => None,
        })
    }

    /// Whether the method being visited (spanning `around`) is declared for subclasses to
    /// implement: its class is named as a base (`BaseAdapter`, `StorageInterface`), or a doc
    /// comment on it or its class says `@abstract` or `@interface`.
    fn declared_for_subclasses(&self, around: Span) -> bool {
        let Some(AstKind::MethodDefinition(_)) = self.ancestors.parent() else { return false };
        let class = self.ancestors.up().find_map(|kind| match kind {
            AstKind::Class(class) => Some(class),
            _ => None,
        });
        let Some(class) = class else { return false };
        let named = class.id.as_ref().is_some_and(|id| placeholder::base_like(&id.name));
        named
            || [around.start, class.span.start]
                .into_iter()
                .any(|start| self.doc_says_abstract(start as usize))
    }

    /// Whether the doc comment just before `start` says `@abstract`, `@interface` or `@virtual`.
    fn doc_says_abstract(&self, start: usize) -> bool {
        let text = self.file.text;
        self.comments.iter().rev().find(|c| c.end <= start).is_some_and(|c| {
            let between = text.get(c.end..start).unwrap_or("x");
            let gap_is_blank = between.chars().all(|ch| ch.is_whitespace())
                || between.trim_start().starts_with("export") && between.len() < 40;
            let doc = &text[c.clone()];
            gap_is_blank && ["@abstract", "@interface", "@virtual"].iter().any(|tag| doc.contains(tag))
        })
    }

    /// Whether the function being visited is a method of a TypeScript `abstract class`.
    fn in_abstract_class(&self) -> bool {
        self.ancestors.up().find_map(|kind| match kind {
            AstKind::Class(class) => Some(class.r#abstract),
            _ => None,
        }) == Some(true)
    }
}

/// The thrown error's arguments as written (`("Not implemented")`), when `throw` is
/// `throw new X("...")` (or `throw X("...")`) and they or the class say the code is not
/// implemented.
fn not_implemented_throw<'t>(text: &'t str, throw: &ThrowStatement) -> Option<&'t str> {
    let (callee, end) = match &throw.argument {
        Expression::NewExpression(new) => (&new.callee, new.span.end),
        Expression::CallExpression(call) => (&call.callee, call.span.end),
        _ => return None,
    };
    let class = text_of(text, callee.span());
    let after = text.get(callee.span().end as usize..end as usize).unwrap_or_default();
    let message = after.find('(').map_or("", |open| &after[open..]);
    let says = class.ends_with("NotImplementedError") || placeholder::says_not_implemented(message);
    says.then_some(message)
}

/// Whether `program` holds code: a statement that does something. Comments, directives
/// (`"use strict"`), a string alone as a statement, `;`, `{}`, `debugger;` and
/// `export {};` (what TypeScript emits for a module of types only) do not.
pub(super) fn holds_code(program: &Program) -> bool {
    program.hashbang.is_some() || program.body.iter().any(statement_holds_code)
}

fn statement_holds_code(statement: &Statement) -> bool {
    match statement {
        Statement::EmptyStatement(_) | Statement::DebuggerStatement(_) => false,
        Statement::BlockStatement(block) => block.body.iter().any(statement_holds_code),
        Statement::ExpressionStatement(e) => !matches!(e.expression, Expression::StringLiteral(_)),
        Statement::ReturnStatement(r) => r.argument.is_some(),
        Statement::BreakStatement(b) => b.label.is_some(),
        Statement::ContinueStatement(c) => c.label.is_some(),
        Statement::ExportNamedDeclaration(e) => !e.specifiers.is_empty(),
        _ => true,
    }
}

/// What a script without code holds, for the message that says so, in text order:
/// "comments", "the directive `\"use strict\"`", "`export {};`".
pub(super) fn what_it_holds(text: &str, script: &Script) -> String {
    let program = script.program;
    let statements: Vec<Span> =
        program.directives.iter().map(|d| d.span).chain(program.body.iter().map(GetSpan::span)).collect();
    let top_comments = script
        .comments
        .iter()
        .filter(|c| !statements.iter().any(|s| c.start >= s.start as usize && c.end <= s.end as usize));
    let mut parts: Vec<(usize, String)> = top_comments.map(|c| (c.start, "comments".to_owned())).collect();
    for directive in &program.directives {
        parts.push((directive.span.start as usize, lone_string(text_of(text, directive.span))));
    }
    for statement in &program.body {
        let written = text_of(text, statement.span());
        let part = match statement {
            Statement::ExpressionStatement(e) if matches!(e.expression, Expression::StringLiteral(_)) => {
                lone_string(written)
            }
            _ => format!("`{}`", written.chars().take(60).collect::<String>().trim()),
        };
        parts.push((statement.span().start as usize, part));
    }
    parts.sort_by_key(|(at, _)| *at);
    let mut said: Vec<String> = Vec::new();
    for (_, part) in parts {
        if !said.contains(&part) {
            said.push(part);
        }
    }
    match said.len() {
        0 => "comments".to_owned(),
        _ => said.join(" and "),
    }
}

/// A string alone as a statement: a short one is a directive, a long one documentation.
fn lone_string(written: &str) -> String {
    if written.len() > 40 {
        "a docstring".to_owned()
    } else {
        format!("the directive `{}`", written.trim_end_matches(';'))
    }
}
