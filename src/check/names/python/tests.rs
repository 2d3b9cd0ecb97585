use super::*;

/// The free names of `text` read as `main.py`, as (name, line).
fn free(text: &str) -> Vec<(String, usize)> {
    free_in("main.py", text)
}

fn free_in(path: &str, text: &str) -> Vec<(String, usize)> {
    read(path, text).expect("names known").free.into_iter().map(|f| (f.name, f.line)).collect()
}

fn names(list: &[(&str, usize)]) -> Vec<(String, usize)> {
    list.iter().map(|(n, l)| ((*n).to_owned(), *l)).collect()
}

#[test]
fn builtins_are_sorted_for_the_binary_search() {
    assert!(builtins::BUILTINS.windows(2).all(|w| w[0] < w[1]));
    assert!(builtins::is_builtin("print") && builtins::is_builtin("ExceptionGroup"));
    assert!(builtins::is_builtin("aiter") && builtins::is_builtin("__file__"));
    assert!(!builtins::is_builtin("json"));
}

#[test]
fn a_name_used_and_never_defined_is_free_at_its_first_use() {
    let text =
        "def main():\n    total = compute_total()\n    print(json.dumps(total))\n    compute_total()\n";
    assert_eq!(free(text), names(&[("compute_total", 2), ("json", 3)]));
}

#[test]
fn a_function_sees_module_names_defined_after_it() {
    let text = "def main():\n    return helper() + LIMIT\n\ndef helper():\n    return 1\n\nLIMIT = 3\n";
    assert_eq!(free(text), []);
}

#[test]
fn a_method_does_not_see_its_class_body_but_the_class_body_does() {
    let text = "class A:\n    size = 3\n    double = size * 2\n    def f(self):\n        return size\n";
    assert_eq!(free(text), names(&[("size", 5)]));
}

#[test]
fn comprehensions_and_type_parameters_in_a_class_body_see_it() {
    let text = "class A:\n    xs = [1, 2]\n    ys = [x * k for x in xs for k in xs]\n    def f[T](self, a: T) -> T:\n        return a\n";
    assert_eq!(free(text), []);
}

#[test]
fn comprehension_and_lambda_variables_stay_inside() {
    let text = "ys = [x for x in range(3)]\nf = lambda a, b=ys: a + b\nprint(x, a)\n";
    assert_eq!(free(text), names(&[("x", 3), ("a", 3)]));
}

#[test]
fn a_walrus_in_a_comprehension_binds_in_the_enclosing_scope() {
    let text = "def f(xs):\n    if any((hit := x) > 2 for x in xs):\n        return hit\n";
    assert_eq!(free(text), []);
}

#[test]
fn every_binding_form_binds() {
    let text = "\
import os.path
import json as j
from collections import OrderedDict as OD, deque
for i, (k, *rest) in []:
    pass
with open('f') as fh, open('g') as (a, b):
    pass
try:
    pass
except ValueError as err:
    print(err)
match os:
    case {'k': v, **others}:
        pass
    case [first, *tail] if first:
        pass
    case Point(x=px) as whole:
        pass
    case _:
        pass
type Pair[T] = tuple[T, T]
n = 0
n += 1
ann: int = 2
def g(p, /, q=1, *args, r, **kw):
    global made
    made = 1
    return p, q, args, r, kw
print(os, j, OD, deque, i, k, rest, fh, a, b, v, others, first, tail, px, whole, Pair, n, ann, made)
";
    assert_eq!(free(text), names(&[("Point", 17)]));
}

#[test]
fn nonlocal_and_global_bind() {
    let text = "def outer():\n    count = 0\n    def inc():\n        nonlocal count\n        count += 1\n    return inc\n\ndef setup():\n    global CONFIG\n    CONFIG = {}\n\nprint(CONFIG)\n";
    assert_eq!(free(text), []);
}

#[test]
fn decorators_defaults_and_annotations_are_evaluated_where_the_function_is() {
    let text = "class A:\n    T = int\n    @staticmethod\n    def f(x: T = T(), *, y: missing_type = 0) -> T:\n        return x\n";
    assert_eq!(free(text), names(&[("missing_type", 4)]));
}

#[test]
fn class_magic_and_dunder_class_are_defined_in_classes_only() {
    let text = "class A:\n    name = __qualname__\n    def f(self):\n        return __class__, super()\n\nprint(__class__, __file__, __name__, __doc__)\n";
    assert_eq!(free(text), names(&[("__class__", 6)]));
}

#[test]
fn dunder_path_is_defined_in_a_package_only() {
    assert_eq!(free_in("pkg/__init__.py", "print(__path__)\n"), []);
    assert_eq!(free_in("pkg/mod.py", "print(__path__)\n"), names(&[("__path__", 1)]));
}

#[test]
fn a_del_of_a_name_defined_nowhere_is_free() {
    assert_eq!(free("x = 1\ndel x\ndel y\n"), names(&[("y", 3)]));
}

#[test]
fn names_in_a_try_that_catches_name_error_are_expected_missing() {
    let text = "import builtins\ntry:\n    unicode\nexcept NameError:\n    unicode = str\ntry:\n    basestring\nexcept (ImportError, builtins.NameError):\n    pass\ntry:\n    long\nexcept Exception:\n    pass\n";
    assert_eq!(free(text), names(&[("long", 11)]));
}

#[test]
fn type_checking_imports_and_conditional_definitions_bind() {
    let text = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from decimal import Decimal\nif True:\n    def f() -> 'Decimal':\n        return Decimal(1)\nelse:\n    def f():\n        return 0\nprint(f)\n";
    assert_eq!(free(text), []);
}

#[test]
fn string_annotations_are_not_read() {
    assert_eq!(free("def f(x: 'Undefined') -> 'Other':\n    return x\n"), []);
}

#[test]
fn a_star_import_is_kept_for_the_judge() {
    let n = read("main.py", "from .helpers import *\nfrom os import *\nrun()\n").unwrap();
    assert_eq!(
        n.stars,
        [StarImport { level: 1, module: "helpers".into() }, StarImport { level: 0, module: "os".into() }]
    );
    assert_eq!(n.free, [FreeName { name: "run".into(), line: 3 }]);
}

#[test]
fn a_module_that_may_make_any_name_says_nothing() {
    assert_eq!(read("m.py", "def __getattr__(name):\n    return name\n\nprint(x)\n"), None);
    assert_eq!(read("m.py", "globals()['x'] = 1\nprint(x)\n"), None);
    assert_eq!(read("m.py", "exec('x = 1')\nprint(x)\n"), None);
    assert_eq!(read("m.py", "@enum.global_enum\nclass F(enum.IntFlag):\n    T = 1\nprint(T)\n"), None);
    assert_eq!(read("m.pyi", "def f() -> Undefined: ...\n"), None);
    assert_eq!(read("m.py", "def f(:\n"), None);
}

#[test]
fn undefined_dunder_all_entries_are_reported_outside_packages() {
    let text = "__all__ = ['run', 'gone']\n__all__ += ('stop',)\n\ndef run():\n    pass\n";
    let n = read("m.py", text).unwrap();
    let exports: Vec<(String, usize)> = n.exports.into_iter().map(|f| (f.name, f.line)).collect();
    assert_eq!(exports, names(&[("gone", 1), ("stop", 2)]));
    assert!(read("pkg/__init__.py", text).unwrap().exports.is_empty());
    // A computed `__all__` names nothing pyflakes checks.
    assert!(read("m.py", "__all__ = make()\n").unwrap().exports.is_empty());
    assert!(read("m.py", "__all__ = ['open']\n").unwrap().exports.is_empty());
    assert!(read("m.py", "from .a import *\n__all__ = ['x']\n").unwrap().exports.is_empty());
}

#[test]
fn the_names_a_module_binds_are_kept_for_hints() {
    let n = read("m.py", "def compute_totals():\n    local = 1\n    return local\n").unwrap();
    assert_eq!(n.bound, ["compute_totals", "local"]);
}
