//! The outline of a file: its definitions with their line ranges and nesting, read off the
//! tree-sitter tree, so that an agent can find its way in a file it wrote without reading it
//! back. A tree with syntax errors still has the parts that parsed; the outline says so.

use schemars::JsonSchema;
use serde::Serialize;
use tree_sitter::Node;

use super::languages::{LanguageName, language_for};
use super::syntax::parse_tree;

/// Entries listed at most; the rest are counted.
pub const MAX_ITEMS: usize = 300;
/// Nesting shown at most (a class's method's inner function is depth 3).
const MAX_DEPTH: usize = 6;
/// Characters of a name shown at most (a long CSS selector list).
const MAX_NAME_CHARS: usize = 120;

/// One definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Item {
    /// First line (1-based).
    pub start_line: usize,
    /// Last line.
    pub end_line: usize,
    /// 0 for top-level definitions, 1 for what they contain...
    pub depth: usize,
    /// What it is: `class`, `def`, `fn`, `impl`, `rule`, `key`, `heading`...
    pub kind: String,
    /// Its name (for an impl its header, for a CSS rule its selectors, for a heading its text).
    pub name: String,
}

/// The outline of one text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Outline {
    /// The language it was read as; absent when the file type has no outline.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LanguageName")]
    pub language: Option<LanguageName>,
    /// Definitions in file order, at most 300.
    pub items: Vec<Item>,
    /// Definitions found but not listed.
    pub more: usize,
    /// What limits this outline (syntax problems, an unsupported file type); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub note: Option<String>,
}

impl Outline {
    fn without(language: Option<LanguageName>, note: &str) -> Self {
        Outline { language, items: Vec::new(), more: 0, note: Some(note.to_owned()) }
    }
}

/// The outline of `text` as the file type of `path`.
pub fn outline(path: &str, text: &str) -> Outline {
    let Some(lang) = language_for(path) else {
        return Outline::without(None, "no outline for this file type");
    };
    let name = lang.name();
    let Some(tree) = parse_tree(lang, text, None) else {
        return Outline::without(Some(name), "the file could not be parsed in time");
    };
    let mut walk = Walk { text, language: name, items: Vec::new(), more: 0 };
    walk.children(tree.root_node(), 0);
    let note = tree.root_node().has_error().then(|| {
        "the file has syntax problems: the outline shows what parsed (run check_files for the problems)"
            .to_owned()
    });
    Outline { language: Some(name), items: walk.items, more: walk.more, note }
}

struct Walk<'t> {
    text: &'t str,
    language: LanguageName,
    items: Vec<Item>,
    more: usize,
}

impl<'t> Walk<'t> {
    fn children(&mut self, node: Node, depth: usize) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            self.node(child, depth);
        }
    }

    fn node(&mut self, node: Node, depth: usize) {
        match self.item(node) {
            Some((kind, name, inside)) => {
                if self.items.len() >= MAX_ITEMS {
                    self.more += 1;
                } else {
                    let start = node.start_position();
                    let end = node.end_position();
                    // A node that ends at the start of a line ends on the line before.
                    let end_line = if end.column == 0 && end.row > start.row { end.row } else { end.row + 1 };
                    let name: String = name.split_whitespace().collect::<Vec<_>>().join(" ");
                    let name = match name.char_indices().nth(MAX_NAME_CHARS) {
                        Some((cut, _)) => format!("{}...", &name[..cut]),
                        None => name,
                    };
                    self.items.push(Item {
                        start_line: start.row + 1,
                        end_line,
                        depth,
                        kind: kind.into(),
                        name,
                    });
                }
                if let Some(inside) = inside
                    && depth + 1 < MAX_DEPTH
                {
                    self.children(inside, depth + 1);
                }
            }
            None if self.descends(node) => self.children(node, depth),
            None => {}
        }
    }

    fn text_of(&self, node: Node) -> &'t str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    fn field(&self, node: Node, name: &str) -> String {
        node.child_by_field_name(name).map(|n| self.text_of(n).to_owned()).unwrap_or_default()
    }

    /// Whether definitions may sit below `node`, which is not one itself.
    fn descends(&self, node: Node) -> bool {
        use LanguageName::*;
        match self.language {
            // Keys count only at the top of a document.
            Json => matches!(node.kind(), "document" | "object"),
            Yaml => matches!(node.kind(), "stream" | "document" | "block_node" | "block_mapping"),
            Toml => false,
            _ => true,
        }
    }

    /// (kind, name, the node whose children are nested in it) when `node` is a definition.
    fn item(&self, node: Node<'t>) -> Option<(&'static str, String, Option<Node<'t>>)> {
        use LanguageName::*;
        let body = node.child_by_field_name("body");
        let named = |kind: &'static str| Some((kind, self.field(node, "name"), body));
        match (self.language, node.kind()) {
            (Python, "class_definition") => named("class"),
            (Python, "function_definition") => named("def"),
            (Python, "decorated_definition") => {
                let inner = node.child_by_field_name("definition")?;
                let kind = if inner.kind() == "class_definition" { "class" } else { "def" };
                Some((kind, self.field(inner, "name"), inner.child_by_field_name("body")))
            }
            (JavaScript | TypeScript | Tsx, kind) => match kind {
                "function_declaration" | "generator_function_declaration" => named("function"),
                "class_declaration" | "abstract_class_declaration" => named("class"),
                "method_definition" | "method_signature" | "abstract_method_signature" => named("method"),
                "interface_declaration" => named("interface"),
                "type_alias_declaration" => Some(("type", self.field(node, "name"), None)),
                "enum_declaration" => named("enum"),
                "internal_module" | "module" => named("namespace"),
                "variable_declarator" | "public_field_definition" | "field_definition" => {
                    let value = node.child_by_field_name("value")?;
                    let kind = match value.kind() {
                        "arrow_function" | "function_expression" | "function" | "generator_function" => {
                            if node.kind() == "variable_declarator" {
                                "function"
                            } else {
                                "method"
                            }
                        }
                        "class" => "class",
                        _ => return None,
                    };
                    let name =
                        node.child_by_field_name("name").or_else(|| node.child_by_field_name("property"));
                    Some((
                        kind,
                        name.map(|n| self.text_of(n).to_owned()).unwrap_or_default(),
                        value.child_by_field_name("body"),
                    ))
                }
                _ => None,
            },
            (Rust, kind) => match kind {
                "function_item" | "function_signature_item" => named("fn"),
                "struct_item" => named("struct"),
                "enum_item" => named("enum"),
                "union_item" => named("union"),
                "trait_item" => named("trait"),
                "mod_item" => named("mod"),
                "type_item" => Some(("type", self.field(node, "name"), None)),
                "macro_definition" => Some(("macro_rules!", self.field(node, "name"), None)),
                "impl_item" => {
                    let header = match node.child_by_field_name("trait") {
                        Some(t) => format!("{} for {}", self.text_of(t), self.field(node, "type")),
                        None => self.field(node, "type"),
                    };
                    Some(("impl", header, body))
                }
                _ => None,
            },
            (Css, "rule_set") => {
                let selectors = node.named_child(0).map(|n| self.text_of(n).to_owned()).unwrap_or_default();
                Some(("rule", selectors, None))
            }
            (Css, kind) if kind.ends_with("_statement") && kind != "declaration" => {
                let text = self.text_of(node);
                let header = text.split('{').next().unwrap_or(text).trim().to_owned();
                let block = (0..node.named_child_count())
                    .filter_map(|i| node.named_child(i as u32))
                    .find(|c| c.kind() == "block");
                Some(("at-rule", header, block))
            }
            (Json, "pair") => Some(("key", self.field(node, "key"), None)),
            (Yaml, "block_mapping_pair") => Some(("key", self.field(node, "key"), None)),
            (Toml, "pair") => Some((
                "key",
                node.named_child(0).map(|k| self.text_of(k).to_owned()).unwrap_or_default(),
                None,
            )),
            (Toml, "table") => Some(("table", self.header(node), None)),
            (Toml, "table_array_element") => Some(("table", self.header(node), None)),
            (Markdown, "section") => {
                let heading = node.named_child(0).filter(|h| h.kind().ends_with("heading"))?;
                let text = self
                    .text_of(heading)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim_start_matches('#')
                    .trim()
                    .to_owned();
                Some(("heading", text, Some(node)))
            }
            (Bash, "function_definition") => named("function"),
            (Html, "element" | "script_element" | "style_element") => self.html_element(node),
            _ => None,
        }
    }

    /// Headings, the page's landmarks (head, body, header, nav, main, section, article, aside,
    /// footer, form, template, script, style) and any element with an id.
    fn html_element(&self, node: Node<'t>) -> Option<(&'static str, String, Option<Node<'t>>)> {
        const LANDMARKS: &[&str] = &[
            "head", "body", "header", "nav", "main", "section", "article", "aside", "footer", "form",
            "template", "script", "style",
        ];
        let start = (0..node.named_child_count())
            .filter_map(|i| node.named_child(i as u32))
            .find(|c| c.kind() == "start_tag")?;
        let mut cursor = start.walk();
        let parts: Vec<Node> = start.named_children(&mut cursor).collect();
        let tag =
            parts.iter().find(|p| p.kind() == "tag_name").map(|t| self.text_of(*t).to_ascii_lowercase())?;
        let id = parts.iter().filter(|p| p.kind() == "attribute").find_map(|a| {
            let name = a.named_child(0).map(|n| self.text_of(n))?;
            let value = a.named_child(1).map(|v| self.text_of(v).trim_matches(['"', '\'']))?;
            name.eq_ignore_ascii_case("id").then(|| value.to_owned())
        });
        if matches!(tag.as_str(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6") {
            let inner = self.text_of(node);
            let text = inner
                .split_once('>')
                .map_or("", |(_, rest)| rest)
                .rsplit_once("</")
                .map_or("", |(body, _)| body);
            return Some(("heading", format!("{tag} {}", text.trim()), None));
        }
        let name = match id {
            Some(id) => format!("{tag}#{id}"),
            None if LANDMARKS.contains(&tag.as_str()) => tag,
            None => return None,
        };
        Some(("element", name, Some(node)))
    }

    /// A TOML table's header line (`[server.http]`, `[[bin]]`).
    fn header(&self, node: Node) -> String {
        self.text_of(node).lines().next().unwrap_or("").trim().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(path: &str, text: &str) -> Vec<String> {
        outline(path, text)
            .items
            .iter()
            .map(|i| format!("{}{}-{} {} {}", "  ".repeat(i.depth), i.start_line, i.end_line, i.kind, i.name))
            .collect()
    }

    #[test]
    fn python_classes_methods_and_decorated_functions_nest() {
        let text = "import x\n\nclass Timer:\n    def start(self):\n        pass\n\n    @property\n    def left(self):\n        return 1\n\ndef main():\n    pass\n";
        assert_eq!(
            shown("t.py", text),
            ["3-9 class Timer", "  4-5 def start", "  7-9 def left", "11-12 def main"]
        );
    }

    #[test]
    fn javascript_functions_classes_and_arrow_constants() {
        let text = "function a() {}\nconst b = () => {\n  return 1;\n};\nclass C {\n  m() {}\n  h = () => {};\n}\nexport function d() {}\n";
        assert_eq!(
            shown("a.js", text),
            [
                "1-1 function a",
                "2-4 function b",
                "5-8 class C",
                "  6-6 method m",
                "  7-7 method h",
                "9-9 function d"
            ]
        );
    }

    #[test]
    fn rust_items_and_impls() {
        let text =
            "struct S;\nimpl Display for S {\n    fn fmt(&self) {}\n}\nmod m {\n    pub fn f() {}\n}\n";
        assert_eq!(
            shown("a.rs", text),
            ["1-1 struct S", "2-4 impl Display for S", "  3-3 fn fmt", "5-7 mod m", "  6-6 fn f"]
        );
    }

    #[test]
    fn css_rules_inside_media_queries() {
        let text = "body { margin: 0; }\n@media (max-width: 600px) {\n  .a, .b { color: red; }\n}\n";
        assert_eq!(
            shown("s.css", text),
            ["1-1 rule body", "2-4 at-rule @media (max-width: 600px)", "  3-3 rule .a, .b"]
        );
    }

    #[test]
    fn top_level_keys_of_data_files() {
        assert_eq!(
            shown("a.json", "{\n  \"name\": 1,\n  \"deps\": {\n    \"x\": 1\n  }\n}\n"),
            ["2-2 key \"name\"", "3-5 key \"deps\""]
        );
        assert_eq!(shown("a.yaml", "name: x\nsteps:\n  - run: a\n"), ["1-1 key name", "2-3 key steps"]);
        assert_eq!(
            shown("a.toml", "title = 1\n[server]\nport = 2\n[[bin]]\nname = 3\n"),
            ["1-1 key title", "2-3 table [server]", "4-5 table [[bin]]"]
        );
    }

    #[test]
    fn markdown_headings_nest_by_level() {
        let text = "# Title\n\nintro\n\n## Usage\n\ntext\n\n## Install\n";
        assert_eq!(
            shown("r.md", text),
            ["1-9 heading Title", "  5-8 heading Usage", "  9-9 heading Install"]
        );
    }

    #[test]
    fn html_landmarks_ids_and_headings() {
        let text = "<!doctype html>\n<html>\n<body>\n  <nav id=\"top\"><a href=\"/\">home</a></nav>\n  <h1>Todo app</h1>\n  <div><p>x</p></div>\n  <script src=\"app.js\"></script>\n</body>\n</html>\n";
        assert_eq!(
            shown("i.html", text),
            [
                "3-8 element body",
                "  4-4 element nav#top",
                "  5-5 heading h1 Todo app",
                "  7-7 element script"
            ]
        );
    }

    #[test]
    fn a_broken_file_still_gets_what_parsed_with_a_note() {
        let out = outline("a.py", "def ok():\n    pass\n\ndef broken(:\n");
        assert!(out.items.iter().any(|i| i.name == "ok"));
        assert!(out.note.is_some_and(|n| n.contains("syntax problems")));
    }

    #[test]
    fn the_outline_is_bounded() {
        let text: String = (0..MAX_ITEMS + 20).map(|i| format!("def f{i}():\n    pass\n")).collect();
        let out = outline("a.py", &text);
        assert_eq!((out.items.len(), out.more), (MAX_ITEMS, 20));
    }
}
