//! HTML pages: the names a page's inline scripts and event handlers use and define, in the one
//! global scope a page's classic scripts share.
//!
//! Read here: the page's scripts in order (a `<script src>` by its written path, to be
//! resolved and read by the judge; an inline script read like a file), the names its inline
//! scripts use and put in the global scope, and the names its inline event handlers
//! (`onclick="pauseTimer()"`) call. A handler runs with the element, its form and the
//! document in scope before the globals (`onclick="submit()"` in a form, `onload="open()"`),
//! so a name any of them has as a property is never reported.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FreeName;
use super::script::{self, handler_free_names};
use crate::check::html::{attributes, child_of_kind, runs_javascript, tag_of};
use crate::check::parsers::javascript::Dialect;
use crate::check::script_tree;

/// What a page says about names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PageNames {
    /// Names its inline classic scripts use and do not define, first use each.
    pub(crate) free: Vec<FreeName>,
    /// Names its inline event handlers call and do not define.
    pub(crate) handlers: Vec<Handler>,
    /// Its `<script src>` values in page order, as written; `module` for `type="module"`.
    pub(crate) scripts: Vec<(String, bool)>,
    /// What its inline scripts put in the global scope.
    pub(crate) globals: BTreeSet<String>,
    /// A fragment (no `<html>`, `<body>` or doctype): another page includes it, whose scripts
    /// are not known.
    pub(crate) fragment: bool,
    /// An inline script makes globals no reading shows (`eval`, a computed write to
    /// `window`), or does not parse: the page's globals cannot all be known.
    pub(crate) dynamic: bool,
}

/// A name an inline event handler uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Handler {
    /// The attribute: `onclick`.
    pub(crate) attribute: String,
    pub(crate) name: String,
    pub(crate) line: usize,
}

/// The names of the page `text` (whose tree-sitter tree's root is `root`); None when they
/// cannot be known.
pub(crate) fn read(_path: &str, text: &str, root: Node) -> Option<PageNames> {
    let mut page = PageNames::default();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let tag = tag_of(node);
        if let Some(tag) = tag {
            handlers(text, tag, &mut page);
        }
        if node.kind() == "script_element" {
            script_element(text, node, &mut page);
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    let lower = text.get(..text.len().min(4096)).unwrap_or(text).to_ascii_lowercase();
    page.fragment = !["<html", "<body", "<!doctype"].iter().any(|t| lower.contains(t));
    let mut seen = BTreeSet::new();
    page.free.retain(|n| seen.insert(n.name.clone()));
    Some(page)
}

/// The names the `on*` attributes of `tag` use.
fn handlers(text: &str, tag: Node, page: &mut PageNames) {
    for attr in attributes(text, tag) {
        let name = attr.name.to_ascii_lowercase();
        // Only the browser's own handlers (`onclick`, `onsubmit`): a framework's `on-tap` or
        // `onClick` binding names a method of its component, not a global.
        if !name.starts_with("on") || attr.text.trim().is_empty() || !is_event_handler(&name) {
            continue;
        }
        // Template syntax in a handler: the server writes its code.
        if crate::check::html::is_template(attr.text) {
            continue;
        }
        let Some(free) = handler_free_names(attr.text) else { continue };
        let line = text.get(..attr.at).map_or(0, |t| t.matches('\n').count()) + 1;
        for used in free.into_iter().filter(|n| !in_handler_scope(n)) {
            page.handlers.push(Handler { attribute: name.clone(), name: used, line });
        }
    }
}

/// A `<script>`: its `src`, or its inline code's names.
fn script_element(text: &str, element: Node, page: &mut PageNames) {
    let Some(start) = child_of_kind(element, "start_tag") else { return };
    let attrs = attributes(text, start);
    let get = |wanted: &str| attrs.iter().find(|a| a.name.eq_ignore_ascii_case(wanted));
    let module = get("type").is_some_and(|t| t.text.trim().eq_ignore_ascii_case("module"));
    if let Some(src) = get("src") {
        page.scripts.push((src.text.to_owned(), module));
        return;
    }
    if !runs_javascript(text, element) {
        return;
    }
    let Some(raw) = child_of_kind(element, "raw_text") else { return };
    let body = text.get(raw.byte_range()).unwrap_or_default();
    let dialect = if module { Dialect::Module } else { Dialect::of("inline.js", body) };
    let names = script_tree::read_if_whole(body, dialect, |s| script::read("inline.js", body, s)).flatten();
    let Some(names) = names else {
        page.dynamic = true;
        return;
    };
    page.dynamic |= names.dynamic;
    page.globals.extend(names.globals);
    let offset = raw.start_position().row;
    page.free.extend(names.free.into_iter().map(|n| FreeName { line: n.line + offset, name: n.name }));
}

/// Whether `attribute` is an event handler the browser runs: a property of the global object
/// (`onclick`, `onload`, `onsubmit`).
fn is_event_handler(attribute: &str) -> bool {
    javascript_globals::GLOBALS.get("browser").is_some_and(|set| set.contains_key(attribute))
}

/// Whether a handler's `name` may be a property of its element, its form or the document,
/// which a handler sees before the globals.
fn in_handler_scope(name: &str) -> bool {
    HANDLER_SCOPE.binary_search(&name).is_ok()
}

/// Properties of elements, forms and the document that a handler's code may call or read
/// bare (sorted).
const HANDLER_SCOPE: &[&str] = &[
    "accessKey",
    "action",
    "after",
    "animate",
    "append",
    "appendChild",
    "attributes",
    "before",
    "blur",
    "body",
    "checkValidity",
    "checked",
    "childNodes",
    "children",
    "classList",
    "className",
    "click",
    "close",
    "closest",
    "contentEditable",
    "cookie",
    "dataset",
    "defaultValue",
    "dir",
    "disabled",
    "dispatchEvent",
    "documentElement",
    "elements",
    "encoding",
    "enctype",
    "files",
    "firstChild",
    "firstElementChild",
    "focus",
    "form",
    "forms",
    "getAttribute",
    "getBoundingClientRect",
    "getElementById",
    "getElementsByClassName",
    "getElementsByTagName",
    "hasAttribute",
    "head",
    "height",
    "hidden",
    "href",
    "id",
    "images",
    "innerHTML",
    "innerText",
    "insertAdjacentHTML",
    "lang",
    "lastChild",
    "length",
    "links",
    "matches",
    "max",
    "method",
    "min",
    "name",
    "nextElementSibling",
    "nextSibling",
    "nodeName",
    "offsetHeight",
    "offsetWidth",
    "open",
    "options",
    "outerHTML",
    "parentElement",
    "parentNode",
    "pause",
    "placeholder",
    "play",
    "prepend",
    "previousElementSibling",
    "querySelector",
    "querySelectorAll",
    "readOnly",
    "remove",
    "removeAttribute",
    "replaceWith",
    "reportValidity",
    "requestSubmit",
    "required",
    "reset",
    "scrollIntoView",
    "select",
    "selected",
    "selectedIndex",
    "setAttribute",
    "src",
    "step",
    "style",
    "submit",
    "tabIndex",
    "tagName",
    "target",
    "textContent",
    "title",
    "toggleAttribute",
    "type",
    "value",
    "valueAsDate",
    "valueAsNumber",
    "width",
    "write",
    "writeln",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::languages::{LanguageName, language_named};

    fn page(text: &str) -> PageNames {
        let lang = language_named(LanguageName::Html).expect("html");
        let tree = crate::check::syntax::parse_tree(lang, text, None).expect("tree");
        read("index.html", text, tree.root_node()).expect("names")
    }

    #[test]
    fn the_scope_list_is_sorted() {
        assert!(HANDLER_SCOPE.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_handler_s_called_name_is_recorded_with_its_line() {
        let p = page(
            "<html><body>\n<button onclick=\"pauseTimer()\">x</button>\n<form onsubmit=\"return save(event)\"><button onclick=\"submit(); this.form.reset()\">s</button></form>\n<body onload=\"alert(1); focus()\"></body>\n",
        );
        let got: Vec<(&str, &str, usize)> =
            p.handlers.iter().map(|h| (h.attribute.as_str(), h.name.as_str(), h.line)).collect();
        assert_eq!(got, [("onclick", "pauseTimer", 2), ("onsubmit", "save", 3)]);
    }

    #[test]
    fn inline_scripts_give_globals_free_names_at_page_lines_and_srcs_in_order() {
        let p = page(
            "<html>\n<script src=\"https://cdn.example/jquery.js\"></script>\n<script src=\"js/app.js\" type=\"module\"></script>\n<script>\nvar count = 0;\nfunction tick() { count++; render(count); }\n</script>\n<script type=\"text/template\"><div>{{x}}</div></script>\n",
        );
        assert_eq!(
            p.scripts,
            [("https://cdn.example/jquery.js".to_owned(), false), ("js/app.js".to_owned(), true)]
        );
        assert_eq!(p.globals.iter().collect::<Vec<_>>(), ["count", "tick"]);
        assert_eq!(p.free, [FreeName { name: "render".to_owned(), line: 6 }]);
        assert!(!p.dynamic);
    }

    #[test]
    fn an_inline_script_that_evals_or_does_not_parse_makes_the_page_dynamic() {
        assert!(page("<script>eval(code)</script>").dynamic);
        assert!(page("<div onclick=\"go()\"></div>").fragment);
        assert!(!page("<!DOCTYPE html><div onclick=\"go()\"></div>").fragment);
        assert!(page("<script>function (</script>").dynamic);
    }
}
