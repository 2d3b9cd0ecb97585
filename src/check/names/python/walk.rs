//! One walk over Ruff's tree of a module: every scope with every name it binds anywhere,
//! and every name a scope loads, with where. Whether a load is free is decided after the
//! walk ([`Scan::free`]), when each scope's bindings are all known: a function may use a
//! name its module defines further down, and a name bound anywhere in a scope is taken as
//! bound for all of it (pyflakes, which follows the order of a module's statements, reports
//! a superset of what this reports).

use std::collections::HashSet;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{
    self as ast, ExceptHandler, Expr, ExprContext, Parameters, Pattern, Stmt, TypeParam, TypeParams,
};
use ruff_text_size::Ranged;

use super::builtins::{CLASS_MAGIC, is_builtin};

/// What a scope is, for the rules of which scope sees which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Module,
    /// A class body: seen by nothing nested in it but comprehensions and type parameters.
    Class,
    /// A function or a lambda.
    Function,
    /// A comprehension or generator expression.
    Comprehension,
    /// The type parameters of a generic function, class or alias (PEP 695).
    Type,
}

#[derive(Debug)]
struct Scope<'a> {
    kind: Kind,
    parent: Option<usize>,
    bound: HashSet<&'a str>,
}

/// A name loaded (or deleted) in a scope.
#[derive(Debug)]
struct Use<'a> {
    name: &'a str,
    scope: usize,
    at: usize,
    /// Inside the body of a `try` whose handlers catch `NameError`: the code expects it.
    guarded: bool,
}

/// A module's scopes and the names they load.
#[derive(Debug)]
pub(super) struct Scan<'a> {
    scopes: Vec<Scope<'a>>,
    uses: Vec<Use<'a>>,
    current: usize,
    guarded: bool,
    /// `from m import *`: (level, module, offset).
    pub(super) stars: Vec<(usize, &'a str, usize)>,
    /// The entries of the module's `__all__` as pyflakes reads it (its last assignment, with
    /// the `+=` after it), each with its offset; None without one.
    pub(super) exports: Option<Vec<(&'a str, usize)>>,
    /// The module may make names no statement shows (`exec`, anywhere).
    pub(super) open: bool,
}

impl<'a> Scan<'a> {
    /// The scan of a module's statements.
    pub(super) fn of(body: &'a [Stmt]) -> Self {
        let module = Scope { kind: Kind::Module, parent: None, bound: HashSet::new() };
        let mut scan = Scan {
            scopes: vec![module],
            uses: Vec::new(),
            current: 0,
            guarded: false,
            stars: Vec::new(),
            exports: None,
            open: false,
        };
        scan.visit_body(body);
        scan
    }

    /// Every name bound anywhere in the module, for a "did you mean".
    pub(super) fn all_bound(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.scopes.iter().flat_map(|s| s.bound.iter().copied())
    }

    /// Whether the module's own scope binds `name`.
    pub(super) fn module_binds(&self, name: &str) -> bool {
        self.scopes[0].bound.contains(name)
    }

    /// Every name the module's own scope binds.
    pub(super) fn module_bound(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.scopes[0].bound.iter().copied()
    }

    /// [`Scan::free`] of the loads that run when the module runs: not in a function or lambda
    /// body, which may run later, when more names are bound (a notebook's cells).
    pub(super) fn free_now(&self) -> impl Iterator<Item = (&'a str, usize)> + '_ {
        self.uses
            .iter()
            .filter(move |u| !u.guarded && self.runs_now(u.scope) && !self.resolves(u, false))
            .map(|u| (u.name, u.at))
    }

    fn runs_now(&self, mut scope: usize) -> bool {
        loop {
            let s = &self.scopes[scope];
            if s.kind == Kind::Function {
                return false;
            }
            match s.parent {
                Some(parent) => scope = parent,
                None => return true,
            }
        }
    }

    /// The loads no scope that sees them binds and no builtin provides, with their offsets,
    /// in the order of the walk. `package`: the module is a package's `__init__.py`.
    pub(super) fn free(&self, package: bool) -> impl Iterator<Item = (&'a str, usize)> + '_ {
        self.uses.iter().filter(move |u| !u.guarded && !self.resolves(u, package)).map(|u| (u.name, u.at))
    }

    /// pyflakes' lookup: the scope of the use, then the enclosing ones, a class body only
    /// when it is the scope of the use or is reached from a comprehension or type scope.
    fn resolves(&self, u: &Use<'a>, package: bool) -> bool {
        let mut scope = Some(u.scope);
        let mut class_visible = true;
        let mut in_class = false;
        while let Some(i) = scope {
            let s = &self.scopes[i];
            let visible = s.kind != Kind::Class || class_visible;
            if s.kind == Kind::Class {
                in_class = true;
            }
            if visible && s.bound.contains(u.name) {
                return true;
            }
            class_visible = class_visible && matches!(s.kind, Kind::Comprehension | Kind::Type);
            scope = s.parent;
        }
        is_builtin(u.name)
            || (in_class && (u.name == "__class__" || CLASS_MAGIC.contains(&u.name)))
            || (package && u.name == "__path__")
    }

    fn bind(&mut self, name: &'a str) {
        self.scopes[self.current].bound.insert(name);
    }

    fn load(&mut self, name: &'a str, at: usize) {
        self.uses.push(Use { name, scope: self.current, at, guarded: self.guarded });
    }

    /// Runs `inside` in a new scope of `kind` under the current one.
    fn enter(&mut self, kind: Kind, inside: impl FnOnce(&mut Self)) {
        let parent = self.current;
        self.scopes.push(Scope { kind, parent: Some(parent), bound: HashSet::new() });
        self.current = self.scopes.len() - 1;
        inside(self);
        self.current = parent;
    }

    /// Enters the type scope of `params`, if any, binding them, and runs `inside` there.
    fn with_type_params(&mut self, params: Option<&'a TypeParams>, inside: impl FnOnce(&mut Self)) {
        match params {
            Some(params) => self.enter(Kind::Type, |scan| {
                for param in &params.type_params {
                    let name = match param {
                        TypeParam::TypeVar(p) => &p.name,
                        TypeParam::ParamSpec(p) => &p.name,
                        TypeParam::TypeVarTuple(p) => &p.name,
                    };
                    scan.bind(name.as_str());
                }
                for param in &params.type_params {
                    visitor::walk_type_param(scan, param);
                }
                inside(scan);
            }),
            None => inside(self),
        }
    }

    /// A function's or lambda's defaults and annotations, evaluated where it is defined.
    fn parameters_outside(&mut self, parameters: &'a Parameters) {
        for p in parameters.iter_non_variadic_params() {
            if let Some(default) = &p.default {
                self.visit_expr(default);
            }
        }
        for p in parameters.iter() {
            if let Some(annotation) = p.annotation() {
                self.visit_annotation(annotation);
            }
        }
    }

    /// Binds a function's or lambda's parameters in its own scope.
    fn bind_parameters(&mut self, parameters: &'a Parameters) {
        for p in parameters.iter() {
            self.bind(p.name().as_str());
        }
    }

    /// Records an assignment to `__all__` at the module's level.
    fn export(&mut self, target: &Expr, value: Option<&'a Expr>, augmented: bool) {
        if self.current != 0 || !matches!(target, Expr::Name(n) if n.id.as_str() == "__all__") {
            return;
        }
        let mut names = if augmented { self.exports.take().unwrap_or_default() } else { Vec::new() };
        if let Some(value) = value {
            literal_names(value, &mut names);
        }
        self.exports = Some(names);
    }
}

/// The string entries of a list or tuple (or a `+` of them), as pyflakes reads `__all__`.
fn literal_names<'a>(value: &'a Expr, out: &mut Vec<(&'a str, usize)>) {
    match value {
        Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => {
            for e in elts {
                if let Expr::StringLiteral(s) = e {
                    out.push((s.value.to_str(), s.start().to_usize()));
                }
            }
        }
        Expr::BinOp(ast::ExprBinOp { left, op: ast::Operator::Add, right, .. }) => {
            if matches!(**right, Expr::List(_) | Expr::Tuple(_)) {
                literal_names(left, out);
                literal_names(right, out);
            }
        }
        _ => {}
    }
}

/// The name of an exception class as pyflakes compares it (`NameError`, `builtins.NameError`).
fn catches_name_error(handlers: &[ExceptHandler]) -> bool {
    let is_name_error = |e: &Expr| match e {
        Expr::Name(n) => n.id.as_str() == "NameError",
        Expr::Attribute(a) => a.attr.as_str() == "NameError",
        _ => false,
    };
    handlers.iter().any(|ExceptHandler::ExceptHandler(h)| match h.type_.as_deref() {
        Some(Expr::Tuple(t)) => t.elts.iter().any(is_name_error),
        Some(e) => is_name_error(e),
        None => false,
    })
}

impl<'a> Visitor<'a> for Scan<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(def) => {
                for decorator in &def.decorator_list {
                    self.visit_decorator(decorator);
                }
                self.bind(def.name.as_str());
                self.with_type_params(def.type_params.as_deref(), |scan| {
                    scan.parameters_outside(&def.parameters);
                    if let Some(returns) = &def.returns {
                        scan.visit_annotation(returns);
                    }
                    scan.enter(Kind::Function, |scan| {
                        scan.bind_parameters(&def.parameters);
                        scan.visit_body(&def.body);
                    });
                });
            }
            Stmt::ClassDef(class) => {
                for decorator in &class.decorator_list {
                    self.visit_decorator(decorator);
                }
                self.bind(class.name.as_str());
                self.with_type_params(class.type_params.as_deref(), |scan| {
                    if let Some(arguments) = &class.arguments {
                        scan.visit_arguments(arguments);
                    }
                    scan.enter(Kind::Class, |scan| scan.visit_body(&class.body));
                });
            }
            Stmt::TypeAlias(alias) => {
                self.visit_expr(&alias.name);
                self.with_type_params(alias.type_params.as_deref(), |scan| {
                    scan.enter(Kind::Type, |scan| scan.visit_expr(&alias.value));
                });
            }
            Stmt::Try(t) => {
                let outer = self.guarded;
                self.guarded = catches_name_error(&t.handlers);
                self.visit_body(&t.body);
                self.guarded = outer;
                for handler in &t.handlers {
                    self.visit_except_handler(handler);
                }
                self.visit_body(&t.orelse);
                self.visit_body(&t.finalbody);
            }
            Stmt::Global(ast::StmtGlobal { names, .. }) | Stmt::Nonlocal(ast::StmtNonlocal { names, .. }) => {
                // pyflakes binds the name in the module and every scope on the way.
                for name in names {
                    self.bind(name.as_str());
                    self.scopes[0].bound.insert(name.as_str());
                }
            }
            Stmt::Import(import) => {
                for alias in &import.names {
                    let bound = match &alias.asname {
                        Some(asname) => asname.as_str(),
                        None => alias.name.as_str().split('.').next().unwrap_or_default(),
                    };
                    self.bind(bound);
                }
            }
            Stmt::ImportFrom(import) => {
                for alias in &import.names {
                    if alias.name.as_str() == "*" {
                        let module = import.module.as_ref().map_or("", |m| m.as_str());
                        self.stars.push((import.level as usize, module, import.start().to_usize()));
                    } else {
                        self.bind(alias.asname.as_ref().unwrap_or(&alias.name).as_str());
                    }
                }
            }
            Stmt::Assign(assign) => {
                visitor::walk_stmt(self, stmt);
                for target in &assign.targets {
                    self.export(target, Some(&assign.value), false);
                }
            }
            Stmt::AnnAssign(assign) => {
                visitor::walk_stmt(self, stmt);
                self.export(&assign.target, assign.value.as_deref(), false);
            }
            Stmt::AugAssign(assign) => {
                visitor::walk_stmt(self, stmt);
                if assign.op == ast::Operator::Add {
                    self.export(&assign.target, Some(&assign.value), true);
                }
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(name) => match name.ctx {
                ExprContext::Store => self.bind(name.id.as_str()),
                ExprContext::Load | ExprContext::Del => self.load(name.id.as_str(), name.start().to_usize()),
                ExprContext::Invalid => {}
            },
            Expr::Named(named) => {
                self.visit_expr(&named.value);
                // PEP 572: the target belongs to the nearest scope that is no comprehension.
                if let Expr::Name(target) = &*named.target {
                    let mut scope = self.current;
                    while self.scopes[scope].kind == Kind::Comprehension {
                        scope = self.scopes[scope].parent.unwrap_or(0);
                    }
                    self.scopes[scope].bound.insert(target.id.as_str());
                }
            }
            Expr::Lambda(lambda) => {
                if let Some(parameters) = &lambda.parameters {
                    self.parameters_outside(parameters);
                }
                self.enter(Kind::Function, |scan| {
                    if let Some(parameters) = &lambda.parameters {
                        scan.bind_parameters(parameters);
                    }
                    scan.visit_expr(&lambda.body);
                });
            }
            Expr::ListComp(ast::ExprListComp { elt, generators, .. })
            | Expr::SetComp(ast::ExprSetComp { elt, generators, .. })
            | Expr::Generator(ast::ExprGenerator { elt, generators, .. }) => {
                self.comprehension(generators, |scan| scan.visit_expr(elt));
            }
            Expr::DictComp(ast::ExprDictComp { key, value, generators, .. }) => {
                self.comprehension(generators, |scan| {
                    scan.visit_expr(key);
                    scan.visit_expr(value);
                });
            }
            Expr::Call(call) => {
                // Code run by `exec` may bind any name, in the module too (`exec(code, globals())`).
                if let Expr::Name(f) = &*call.func
                    && matches!(f.id.as_str(), "exec" | "execfile")
                {
                    self.open = true;
                }
                visitor::walk_expr(self, expr);
            }
            _ => visitor::walk_expr(self, expr),
        }
    }

    fn visit_except_handler(&mut self, handler: &'a ExceptHandler) {
        let ExceptHandler::ExceptHandler(h) = handler;
        if let Some(name) = &h.name {
            self.bind(name.as_str());
        }
        visitor::walk_except_handler(self, handler);
    }

    fn visit_pattern(&mut self, pattern: &'a Pattern) {
        let bound = match pattern {
            Pattern::MatchAs(p) => p.name.as_ref(),
            Pattern::MatchStar(p) => p.name.as_ref(),
            Pattern::MatchMapping(p) => p.rest.as_ref(),
            _ => None,
        };
        if let Some(name) = bound {
            self.bind(name.as_str());
        }
        visitor::walk_pattern(self, pattern);
    }
}

impl<'a> Scan<'a> {
    /// A comprehension: its first iterable is evaluated where it stands, the rest in its own
    /// scope.
    fn comprehension(&mut self, generators: &'a [ast::Comprehension], last: impl FnOnce(&mut Self)) {
        if let Some(first) = generators.first() {
            self.visit_expr(&first.iter);
        }
        self.enter(Kind::Comprehension, |scan| {
            for (i, g) in generators.iter().enumerate() {
                if i > 0 {
                    scan.visit_expr(&g.iter);
                }
                scan.visit_expr(&g.target);
                for condition in &g.ifs {
                    scan.visit_expr(condition);
                }
            }
            last(scan);
        });
    }
}
