//! HTML pages, on tree-sitter-html's tree: the files a page loads (`<script src>`,
//! `<link rel="stylesheet" href>`, `<img src>`, `<a href>` and `<iframe src>` of pages), the
//! ids it defines, and what its inline scripts import, look up and create.
//!
//! A page's paths are URLs: they name files beside it only on a static site. A server
//! template (template syntax in the page, or a page under a `templates`-like directory) has
//! its URLs decided by the server's routes, so none of its paths is checked, nor any path of
//! a page with `<base href>`. Site-absolute paths (`/static/app.js`) and extensionless links
//! are left to the server everywhere.

use tree_sitter::Node;

use super::super::html::{
    attributes, child_of_kind, is_template, local_target, runs_javascript, tag_name_of_tag, tag_of,
};
use super::super::parsers::javascript::Dialect;
use super::super::script_tree;
use super::{Import, ImportKind, Page, Refs, Tag, ids, script};
use crate::lines::LineIndex;

/// Directories whose pages are server templates by convention (Flask, Django, Jekyll,
/// Express views, Hugo).
const TEMPLATE_DIRS: &[&str] =
    &["templates", "_layouts", "_includes", "layouts", "partials", "includes", "views"];

/// Reads the page `text` (at `path`) into `refs`.
pub(super) fn extract(path: &str, text: &str, root: Node, index: &LineIndex, refs: &mut Refs) {
    let mut page = Page::default();
    let mut base = false;
    let mut raw_ranges = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let tag = tag_of(node);
        if let Some(tag) = tag {
            let name = tag_name_of_tag(text, tag).to_ascii_lowercase();
            let attrs = attributes(text, tag);
            let get = |wanted: &str| attrs.iter().find(|a| a.name.eq_ignore_ascii_case(wanted));
            if let Some(id) = get("id") {
                refs.ids.add_value(id.text);
            }
            let (attr, kind) = match name.as_str() {
                "base" if get("href").is_some() => {
                    base = true;
                    (None, Tag::Page)
                }
                "script" => (get("src"), Tag::Script),
                "link"
                    if get("rel").is_some_and(|r| {
                        r.text.split_ascii_whitespace().any(|t| t.eq_ignore_ascii_case("stylesheet"))
                    }) =>
                {
                    (get("href"), Tag::Stylesheet)
                }
                "img" => (get("src"), Tag::Image),
                "a" => (get("href"), Tag::Page),
                "iframe" => (get("src"), Tag::Page),
                _ => (None, Tag::Page),
            };
            // A template's script, by the static files route it names (for which scripts run
            // on a page; such a path is never reported).
            if let Some(attr) = attr.filter(|_| kind == Tag::Script)
                && let Some(path) = static_route(attr.text)
            {
                page.scripts.push(path);
            }
            if let Some(attr) = attr
                && let Some(target) = local_target(attr.text)
            {
                if kind == Tag::Script {
                    page.scripts.push(target.clone());
                }
                if let Some(written) = checked_path(&target, kind) {
                    refs.imports.push(Import {
                        line: index.line_of(attr.at),
                        written,
                        kind: ImportKind::Html(kind),
                        names: Vec::new(),
                        optional: false,
                    });
                }
            }
        }
        if matches!(node.kind(), "script_element" | "style_element")
            && let Some(raw) = child_of_kind(node, "raw_text")
        {
            raw_ranges.push(raw.byte_range());
            if node.kind() == "script_element" {
                inline_script(text, node, raw, index, refs);
            }
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    page.template = is_template_page(path, text, &raw_ranges);
    if page.template {
        page.includes = template_includes(text);
    }
    if page.template || base {
        // Its paths are URLs the server resolves: inline module imports included.
        refs.imports.retain(|i| !matches!(i.kind, ImportKind::Html(_) | ImportKind::Script { .. }));
    }
    refs.exports = None;
    refs.page = Some(page);
}

/// An inline `<script>`: JavaScript is read like a file (imports, lookups, ids it creates);
/// a template block (`type="text/template"`) holds markup, whose ids count as the page's.
fn inline_script(text: &str, element: Node, raw: Node, index: &LineIndex, refs: &mut Refs) {
    let body = text.get(raw.byte_range()).unwrap_or_default();
    if !runs_javascript(text, element) {
        refs.ids.extend(&ids::created_ids(body, false));
        return;
    }
    refs.ids.extend(&ids::created_ids(body, true));
    // A template's script is read as the browser gets it, with the template's tags filled
    // in: `fetch({{ url_for('add')|tojson }})` must parse for its lookups to be read.
    let body = &*without_template_tags(body);
    // Where a `.js` file would be a module, so is an inline script.
    let dialect = Dialect::of("inline.js", body);
    let mut inner = Refs::default();
    script_tree::read(body, dialect, |script| {
        script::extract(body, script, raw.start_byte(), index, &mut inner)
    });
    refs.imports.extend(inner.imports);
    refs.lookups.extend(inner.lookups);
}

/// `body` with each template tag blanked, offsets kept: an expression (`{{ x|tojson }}`) as
/// `0` and spaces, a statement or comment (`{% if %}`, `{# #}`) as spaces; newlines stay.
fn without_template_tags(body: &str) -> std::borrow::Cow<'_, str> {
    if !["{{", "{%", "{#"].iter().any(|open| body.contains(open)) {
        return std::borrow::Cow::Borrowed(body);
    }
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = rest.find('{') {
        let close = match rest.get(at + 1..at + 2) {
            Some("{") => "}}",
            Some("%") => "%}",
            Some("#") => "#}",
            _ => {
                out.push_str(&rest[..=at]);
                rest = &rest[at + 1..];
                continue;
            }
        };
        let Some(end) = rest[at + 2..].find(close).map(|e| at + 2 + e + 2) else { break };
        out.push_str(&rest[..at]);
        let mut first = close == "}}";
        for c in rest[at..end].chars() {
            if c == '\n' {
                out.push('\n');
            } else if first {
                out.push('0');
                out.extend(std::iter::repeat_n(' ', c.len_utf8() - 1));
                first = false;
            } else {
                out.extend(std::iter::repeat_n(' ', c.len_utf8()));
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// The site path of a static file a template names through its framework's route:
/// `{{ url_for('static', filename='js/app.js') }}` (Flask) and `{% static 'js/app.js' %}`
/// (Django) are `/static/js/app.js`.
fn static_route(value: &str) -> Option<String> {
    let quoted = |s: &str| {
        let s = s.trim_start();
        let quote = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
        s[1..].split(quote).next().map(str::to_owned)
    };
    let file = if let Some(rest) = value.split("url_for(").nth(1) {
        let (route, args) = rest.split_once(',')?;
        if quoted(route)? != "static" {
            return None;
        }
        quoted(args.trim_start().strip_prefix("filename")?.trim_start().strip_prefix('=')?)?
    } else {
        quoted(value.split("{%").nth(1)?.trim_start().strip_prefix("static")?)?
    };
    (!file.is_empty() && !file.contains(['{', '$', '<']))
        .then(|| format!("/static/{}", file.trim_start_matches('/')))
}

/// Files a page links (`<a href>`, `<iframe src>`) that a static site serves as they are:
/// documents, data, archives and media. Other extensions may be routes a server answers
/// (`.php`, `.aspx`, `.cgi`) or not files at all (`example.com`), and are left unjudged.
const DOCUMENTS: &[&str] = &[
    "html", "htm", "pdf", "doc", "docx", "odt", "rtf", "xls", "xlsx", "ods", "csv", "tsv", "ppt", "pptx",
    "odp", "txt", "md", "json", "xml", "epub", "zip", "gz", "tgz", "bz2", "xz", "7z", "tar", "png", "jpg",
    "jpeg", "gif", "svg", "webp", "mp3", "mp4", "webm", "ogg", "wav", "ics", "vcf",
];

/// The templates a Jinja, Django or Nunjucks template extends, includes or imports:
/// `{% extends "base.html" %}`, `{%- include 'nav.html' -%}`, `{% from "m.html" import f %}`,
/// as written; None for a name the template computes (`{% include item.template %}`).
fn template_includes(text: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for tag in text.split("{%").skip(1) {
        let tag =
            tag.split("%}").next().unwrap_or_default().trim_matches(|c: char| c == '-' || c.is_whitespace());
        let mut words = tag.splitn(2, char::is_whitespace);
        let keyword = words.next().unwrap_or_default();
        if !matches!(keyword, "extends" | "include" | "import" | "from") {
            continue;
        }
        let argument = words.next().unwrap_or_default().trim_start();
        let quote = argument.chars().next().filter(|c| *c == '"' || *c == '\'');
        let name = quote
            .and_then(|q| argument[1..].split(q).next())
            .filter(|n| !n.is_empty() && !is_template(n))
            .map(str::to_owned);
        // A list of names (`{% include ['a.html', 'b.html'] %}`) or a variable: unknown.
        out.push(name);
    }
    out
}

/// The path a page's attribute names, when it is checked: relative, with an extension (a
/// link: a page or a document, see [`DOCUMENTS`]), percent-escapes decoded.
fn checked_path(target: &str, kind: Tag) -> Option<String> {
    if target.starts_with('/') || target.starts_with('\\') {
        return None;
    }
    let name = target.rsplit('/').next().unwrap_or_default();
    let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    if kind == Tag::Page && !DOCUMENTS.contains(&extension.as_str()) {
        return None;
    }
    percent_decoded(target)
}

/// `my%20page.html` as `my page.html`; None for a malformed escape.
fn percent_decoded(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Whether a page is a server template: it sits in a templates-like directory, or holds
/// template syntax outside its scripts and styles (`{{ }}`, `{% %}`, `<% %>`, `<?php`).
fn is_template_page(path: &str, text: &str, raw: &[std::ops::Range<usize>]) -> bool {
    let in_template_dir = path.split(['/', '\\']).rev().skip(1).any(|dir| TEMPLATE_DIRS.contains(&dir));
    if in_template_dir || text.contains("<?php") {
        return true;
    }
    let mut from = 0;
    let mut sorted: Vec<_> = raw.to_vec();
    sorted.sort_by_key(|r| r.start);
    for range in sorted.iter().chain(std::iter::once(&(text.len()..text.len()))) {
        let part = text.get(from..range.start.max(from)).unwrap_or_default();
        if is_template(part) && (part.contains("{{") || part.contains("{%") || part.contains("<%")) {
            return true;
        }
        from = range.end.max(from);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_s_static_route_is_a_site_path() {
        assert_eq!(
            static_route("{{ url_for('static', filename='js/app.js') }}").as_deref(),
            Some("/static/js/app.js")
        );
        assert_eq!(
            static_route("{{url_for(\"static\",filename=\"app.js\")}}").as_deref(),
            Some("/static/app.js")
        );
        assert_eq!(static_route("{% static 'js/app.js' %}").as_deref(), Some("/static/js/app.js"));
        assert_eq!(static_route("{{ url_for('index') }}"), None);
        assert_eq!(static_route("js/app.js"), None);
    }

    #[test]
    fn a_template_s_includes_are_read_and_a_computed_one_is_unknown() {
        let text = "{% extends \"layouts/base.html\" %}\n{%- include 'nav.html' -%}\n{% from \"forms.html\" import field %}\n{% include item.template %}\n{% block x %}{% endblock %}\n";
        assert_eq!(
            template_includes(text),
            vec![
                Some("layouts/base.html".to_owned()),
                Some("nav.html".to_owned()),
                Some("forms.html".to_owned()),
                None
            ]
        );
    }

    #[test]
    fn a_template_s_tags_are_blanked_in_its_script_with_offsets_kept() {
        let body = "fetch({{ url_for('add')|tojson }}, x);\n{% if a %}go();{% endif %}\n{ y: 1 }";
        let blanked = without_template_tags(body);
        assert_eq!(blanked.len(), body.len());
        assert_eq!(blanked, "fetch(0                          , x);\n          go();           \n{ y: 1 }");
    }

    #[test]
    fn percent_escapes_are_decoded() {
        assert_eq!(percent_decoded("my%20page.html").as_deref(), Some("my page.html"));
        assert_eq!(percent_decoded("a%zz.html"), None);
    }

    #[test]
    fn only_relative_paths_with_an_extension_are_checked() {
        assert_eq!(checked_path("js/app.js", Tag::Script).as_deref(), Some("js/app.js"));
        assert_eq!(checked_path("/static/app.js", Tag::Script), None);
        assert_eq!(checked_path("about", Tag::Page), None);
        assert_eq!(checked_path("../pdfs/brief.pdf", Tag::Page).as_deref(), Some("../pdfs/brief.pdf"));
        assert_eq!(checked_path("search.php", Tag::Page), None);
        assert_eq!(checked_path("www.example.com", Tag::Page), None);
        assert_eq!(checked_path("../index.html", Tag::Page).as_deref(), Some("../index.html"));
    }
}
