//! Python stub bodies, on tree-sitter-python's tree.
//!
//! A function whose body (after its docstring) is only `pass`, `...` or
//! `raise NotImplementedError` may be a stub or an idiom; what tells them apart:
//! - `...` is a stub, except in `.pyi` files, under `@abstractmethod` or `@overload`,
//!   and in a `Protocol` or abstract base class.
//! - `raise NotImplementedError` with no message, or one that only says the code is
//!   missing ("TODO", "not implemented yet"), is a stub unless something marks the
//!   method as abstract: the decorators and classes above, a base-class name (`BaseX`,
//!   `XMixin`), another class of the file that defines the same method, or a docstring
//!   that says it is meant to be overridden. A message that states a real limit
//!   ("Can't dup() SSLSocket instances") is code.
//! - `pass` (or only a docstring) in a method is how the standard library writes hooks
//!   meant to be overridden, so it is a stub only with a placeholder comment beside it
//!   (`pass  # TODO`); so is a private or documented module-level function (`def _f():
//!   pass` exists to make a function object). A public module-level function that is
//!   only `pass` is a stub.
//! - Any of these with a docstring or comment that says doing nothing is intended
//!   ("Hook for subclasses", "# no-op"), or with a no-op name, is not a stub.

use std::collections::HashMap;

use tree_sitter::Node;

use super::{File, Found, StubKind, comment_words, placeholder, statements};

/// Check `node` if it is a function definition.
pub(super) fn visit(file: &File, node: Node, found: &mut Vec<Found>) {
    if node.kind() == "function_definition"
        && let Some(stub) = stub_body(file, node)
    {
        found.push(stub);
    }
}

/// What a body holds besides its docstring and comments, when that is a placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Only {
    Pass,
    Ellipsis,
    NotImplemented,
    Docstring,
}

fn stub_body(file: &File, func: Node) -> Option<Found> {
    let body = func.child_by_field_name("body")?;
    let mut stmts = statements(body);
    let docstring = stmts.first().copied().filter(|s| super::is_lone_string(*s));
    if docstring.is_some() {
        stmts.remove(0);
    }
    let (only, at) = match stmts[..] {
        [] => (Only::Docstring, docstring?.start_byte()),
        [s] => (classify(file, s)?, s.start_byte()),
        _ => return None,
    };
    let name = func.child_by_field_name("name").map(|n| file.text_of(n)).unwrap_or("?");
    let docstring_text = docstring.map(|d| file.text_of(d)).unwrap_or_default();
    let words = comment_words(file, body, docstring_text);
    if placeholder::noop_like(name) || placeholder::explains_no_op(&words) {
        return None;
    }
    let placeholder_comment = words.iter().any(|w| matches!(w.as_str(), "todo" | "fixme" | "tbd" | "xxx"))
        || super::child_comments(body).iter().any(|c| placeholder::stands_in(file.text_of(*c)));
    let stub_file = file.path.to_ascii_lowercase().ends_with(".pyi");
    let (outer, decorators) = decorators(file, func);
    let class = enclosing_class(outer);
    // Read last, and only for a body that is otherwise a stub: it may look at other classes.
    let abstract_by_declaration = || {
        stub_file
            || decorators.iter().any(|d| {
                matches!(
                    *d,
                    "abstractmethod"
                        | "abstractproperty"
                        | "abstractclassmethod"
                        | "abstractstaticmethod"
                        | "overload"
                )
            })
            || class.is_some_and(|c| abstract_class(file, c, 0) || null_object(file, c))
    };
    let what = match only {
        Only::Pass => "pass",
        Only::Ellipsis => "...",
        Only::NotImplemented => "raise NotImplementedError",
        Only::Docstring => "a docstring",
    };
    let message = format!("body of `{name}` is only `{what}`");
    let stub = match only {
        _ if placeholder_comment => true,
        Only::Ellipsis => true,
        Only::NotImplemented => {
            let overridden = class.is_some_and(|c| defined_in_another_class(file, c, name));
            let raised = stmts.first().map(|s| file.text_of(*s)).unwrap_or_default();
            !overridden && !placeholder::says_abstract(docstring_text) && placeholder_error_message(raised)
        }
        Only::Pass => {
            class.is_none() && is_module_level(outer) && docstring.is_none() && !name.starts_with('_')
        }
        Only::Docstring => false,
    };
    if !stub || abstract_by_declaration() {
        return None;
    }
    let found = file.found(at, StubKind::StubBody, message);
    // A declaration a subclass elsewhere may implement, unless a comment says it is a
    // placeholder.
    let declares = matches!(only, Only::NotImplemented | Only::Ellipsis) && !placeholder_comment;
    let class_name = class.filter(|_| declares).and_then(|c| c.child_by_field_name("name"));
    Some(found.overridable(class_name.map(|n| file.text_of(n)), name, false))
}

/// Whether a `raise NotImplementedError...` says only that the code is missing: no
/// message, or one such as "TODO" or "not implemented yet". A message that states a
/// real limit ("Can't dup() SSLSocket instances") or names subclasses is code.
fn placeholder_error_message(raised: &str) -> bool {
    let message = raised.split_once('(').map_or("", |(_, args)| args);
    let message = message.trim_end().trim_end_matches(')');
    message.trim().is_empty()
        || placeholder::says_not_implemented(message) && !placeholder::says_abstract(message)
}

/// Which placeholder statement `stmt` is, if any.
fn classify(file: &File, stmt: Node) -> Option<Only> {
    match stmt.kind() {
        "pass_statement" => Some(Only::Pass),
        "expression_statement"
            if stmt.named_child_count() == 1
                && stmt.named_child(0).is_some_and(|c| c.kind() == "ellipsis") =>
        {
            Some(Only::Ellipsis)
        }
        "raise_statement" => {
            let raised = stmt.named_child(0)?;
            let callee = match raised.kind() {
                "call" => raised.child_by_field_name("function")?,
                _ => raised,
            };
            let name = file.text_of(callee);
            (name.rsplit('.').next() == Some("NotImplementedError")).then_some(Only::NotImplemented)
        }
        _ => None,
    }
}

/// The node that sits in the enclosing block (the decorated definition, if any) and
/// the last dotted part of each decorator's name (`abc.abstractmethod` ->
/// `abstractmethod`).
fn decorators<'t, 'n>(file: &File<'t>, func: Node<'n>) -> (Node<'n>, Vec<&'t str>) {
    let Some(parent) = func.parent().filter(|p| p.kind() == "decorated_definition") else {
        return (func, Vec::new());
    };
    let mut cursor = parent.walk();
    let names = parent
        .named_children(&mut cursor)
        .filter(|d| d.kind() == "decorator")
        .map(|d| {
            let decorator = file.text_of(d).trim_start_matches('@');
            let callee = decorator.split('(').next().unwrap_or_default().trim();
            callee.rsplit('.').next().unwrap_or_default()
        })
        .collect();
    (parent, names)
}

/// The class whose body holds `outer` directly, if any.
fn enclosing_class(outer: Node) -> Option<Node> {
    outer
        .parent()
        .filter(|b| b.kind() == "block")
        .and_then(|b| b.parent())
        .filter(|c| c.kind() == "class_definition")
}

/// Whether a function sits at the top level of its module.
fn is_module_level(outer: Node) -> bool {
    outer.parent().is_some_and(|p| p.kind() == "module")
}

/// How many classes of the file up a hierarchy [`abstract_class`] follows.
const MAX_DEPTH: usize = 8;

/// A class whose methods are meant to be filled in by others: a `Protocol`, an `ABC`
/// or `metaclass=ABCMeta` class, one with an `@abstractmethod`, one named as a base
/// (`BaseHandler`, `AbstractLoop`, `HandlerBase`, `ReprMixin`, `Interface`), or one whose
/// bases include such a class of the same file (a `Protocol`'s subclass); `depth`: how many
/// classes down from the one asked about.
fn abstract_class(file: &File, class: Node, depth: usize) -> bool {
    let name = class.child_by_field_name("name").map(|n| file.text_of(n)).unwrap_or_default();
    let bases = class.child_by_field_name("superclasses").map(|s| file.text_of(s)).unwrap_or_default();
    let base_words = ["Protocol", "ABC", "ABCMeta", "Generic"];
    let words = || bases.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty());
    if words().any(|w| base_words.contains(&w))
        || placeholder::base_like(name)
        || has_abstract_method(file, class)
    {
        return true;
    }
    depth < MAX_DEPTH
        && words().any(|base| {
            base != name
                && classes_named(class, file, base).into_iter().any(|c| abstract_class(file, c, depth + 1))
        })
}

/// Whether a method of `class` is decorated `@abstractmethod` (or `@abc.abstractproperty`...).
fn has_abstract_method(file: &File, class: Node) -> bool {
    class_members(class).into_iter().any(|member| {
        let (_, decorators) = match member.kind() {
            "decorated_definition" => member
                .child_by_field_name("definition")
                .filter(|d| d.kind() == "function_definition")
                .map_or((member, Vec::new()), |d| decorators(file, d)),
            _ => (member, Vec::new()),
        };
        decorators.iter().any(|d| d.starts_with("abstract"))
    })
}

/// The statements of a class's body.
fn class_members(class: Node) -> Vec<Node> {
    class.child_by_field_name("body").map(statements).unwrap_or_default()
}

/// The classes of `from`'s file named `name`, at any depth.
fn classes_named<'n>(from: Node<'n>, file: &File, name: &str) -> Vec<Node<'n>> {
    let mut root = from;
    while let Some(parent) = root.parent() {
        root = parent;
    }
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "class_definition"
            && node.child_by_field_name("name").is_some_and(|n| file.text_of(n) == name)
        {
            out.push(node);
        }
        // Classes sit in blocks and decorated definitions, never inside expressions.
        if matches!(
            node.kind(),
            "module"
                | "block"
                | "class_definition"
                | "decorated_definition"
                | "function_definition"
                | "if_statement"
                | "try_statement"
                | "else_clause"
                | "elif_clause"
                | "except_clause"
        ) {
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
        }
    }
    out
}

/// A null object: a class whose every method does nothing (`pass`, `...`, a docstring,
/// `return` or `return None`), named so (`NullHandler`, `NoopLogger`, `DummyLock`) or
/// documented so (its docstring says "no-op", "does nothing", "dummy").
fn null_object(file: &File, class: Node) -> bool {
    let name = class.child_by_field_name("name").map(|n| file.text_of(n)).unwrap_or_default();
    let members = class_members(class);
    let docstring = members.first().filter(|s| super::is_lone_string(**s)).map(|d| file.text_of(*d));
    let documented = docstring.is_some_and(|d| {
        let words = placeholder::words(d);
        placeholder::explains_no_op(&words) || words.windows(2).any(|w| w[0] == "null" && w[1] == "object")
    });
    if !(placeholder::null_like(name) || documented) {
        return false;
    }
    let methods: Vec<Node> = members
        .iter()
        .filter_map(|m| match m.kind() {
            "function_definition" => Some(*m),
            "decorated_definition" => {
                m.child_by_field_name("definition").filter(|d| d.kind() == "function_definition")
            }
            _ => None,
        })
        .collect();
    !methods.is_empty() && methods.iter().all(|m| does_nothing(file, *m))
}

/// Whether a function's body, past its docstring, is only `pass`, `...`, `return` or
/// `return None`.
fn does_nothing(file: &File, func: Node) -> bool {
    let Some(body) = func.child_by_field_name("body") else { return false };
    let mut stmts = statements(body);
    if stmts.first().is_some_and(|s| super::is_lone_string(*s)) {
        stmts.remove(0);
    }
    stmts.iter().all(|s| match s.kind() {
        "return_statement" => matches!(file.text_of(*s).trim(), "return" | "return None"),
        _ => matches!(classify(file, *s), Some(Only::Pass | Only::Ellipsis)),
    })
}

/// Whether a class of the same file other than `class` defines a method `name`: then
/// `class` declares what its subclasses implement.
fn defined_in_another_class(file: &File, class: Node, name: &str) -> bool {
    let methods = file.methods.get_or_init(|| {
        let mut root = class;
        while let Some(parent) = root.parent() {
            root = parent;
        }
        classes_by_method(file, root)
    });
    methods.get(name).is_some_and(|classes| classes.iter().any(|&c| c != class.id()))
}

/// The classes (by node id) defining each method name in the tree.
fn classes_by_method<'t>(file: &File<'t>, root: Node) -> HashMap<&'t str, Vec<usize>> {
    let mut out: HashMap<&'t str, Vec<usize>> = HashMap::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "function_definition"
            && let Some(class) = enclosing_class(decorated(node))
            && let Some(name) = node.child_by_field_name("name")
        {
            out.entry(file.text_of(name)).or_default().push(class.id());
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    out
}

/// The decorated definition around a function, or the function itself.
fn decorated(func: Node) -> Node {
    func.parent().filter(|p| p.kind() == "decorated_definition").unwrap_or(func)
}
