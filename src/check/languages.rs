//! The one table of checked languages: extensions, grammar, validator, closing probes.
//!
//! Adding a language is one row in [`TABLE`] (plus its grammar crate). Everything else in
//! `check` reads the row, so no other file needs to know which languages exist.

use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;

/// Who decides whether a language's text is valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Validator {
    /// Ruff's Python parser (see `parsers/python.rs`).
    Python,
    /// oxc, for JavaScript, TypeScript and JSX (see `parsers/javascript.rs`).
    JavaScript,
    /// rust-analyzer's parser (see `parsers/rust.rs`).
    Rust,
    /// serde_json: tree-sitter-json accepts comments, `1 2` and raw tabs in strings,
    /// which real JSON readers reject.
    Json,
    /// toml_edit.
    Toml,
    /// saphyr's YAML 1.2 parser.
    Yaml,
    /// The tree-sitter grammar's ERROR and MISSING nodes, for languages without a
    /// well-kept Rust parser of their own (HTML, CSS, Bash).
    TreeSitter,
    /// Only fenced code blocks in a checked language count, each judged by its own
    /// row; tree-sitter-md's block grammar finds them (see `markdown.rs`).
    Markdown,
    /// A Jupyter notebook: JSON, the nbformat schema, and each code cell's source by its
    /// language's row (see `notebook.rs`).
    Notebook,
}

/// The stable name of a checked language, as reports give it (`"python"`, `"tsx"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LanguageName {
    /// `python`.
    Python,
    /// `json`.
    Json,
    /// `javascript`.
    JavaScript,
    /// `typescript`.
    TypeScript,
    /// `tsx`.
    Tsx,
    /// `yaml`.
    Yaml,
    /// `html`.
    Html,
    /// `css`.
    Css,
    /// `toml`.
    Toml,
    /// `rust`.
    Rust,
    /// `bash`.
    Bash,
    /// `markdown`.
    Markdown,
    /// `notebook`: a Jupyter notebook (`.ipynb`).
    Notebook,
}

impl LanguageName {
    /// The name as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            LanguageName::Python => "python",
            LanguageName::Json => "json",
            LanguageName::JavaScript => "javascript",
            LanguageName::TypeScript => "typescript",
            LanguageName::Tsx => "tsx",
            LanguageName::Yaml => "yaml",
            LanguageName::Html => "html",
            LanguageName::Css => "css",
            LanguageName::Toml => "toml",
            LanguageName::Rust => "rust",
            LanguageName::Bash => "bash",
            LanguageName::Markdown => "markdown",
            LanguageName::Notebook => "notebook",
        }
    }
}

impl std::fmt::Display for LanguageName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One row of the table.
#[derive(Debug)]
pub(crate) struct Spec {
    /// Stable name shown to the model and put in reports.
    pub(crate) name: LanguageName,
    /// File extensions without the dot, lower case; matched ASCII-case-insensitively.
    pub(crate) extensions: &'static [&'static str],
    /// Info strings of a Markdown fenced code block checked as this language, lower
    /// case; matched ASCII-case-insensitively against the info string's first word.
    pub(crate) fence_names: &'static [&'static str],
    /// Builds the tree-sitter grammar, used for the syntax tree (stubs, outlines) and,
    /// for [`Validator::TreeSitter`] rows, the verdict. A plain `fn` because `LanguageFn` is not
    /// re-exported by `tree-sitter` and we do not depend on `tree-sitter-language`.
    pub(crate) grammar: fn() -> tree_sitter::Language,
    /// Who decides validity.
    pub(crate) validator: Validator,
    /// For [`Validator::TreeSitter`] rows: texts that close a construct a prefix may be
    /// cut inside (a comment). A cut there makes tree-sitter report ERROR nodes
    /// mid-file; if appending one of these removes them all, the file is only unfinished.
    pub(crate) probes: &'static [&'static str],
    /// Which stub rules apply (see `stubs/mod.rs`).
    pub(crate) stubs: Rules,
    /// The grammar's external scanner must only see ASCII: tree-sitter-bash 0.25.1
    /// (the newest release) passes code points above 255 to C's `isdigit`-style
    /// functions, which read out of bounds and crash the process on input such as
    /// `{` followed by U+31860 (upstream issue 337). Such a grammar parses a copy with
    /// every non-ASCII byte replaced by `x`: offsets are unchanged, and in the
    /// languages concerned a non-ASCII character is only ever part of a word, a string
    /// or a comment, as `x` is.
    pub(crate) ascii_input: bool,
    /// The grammar is stricter than its language about text between tags:
    /// tree-sitter-html makes a bare `>` in text (`a > b`) an ERROR, while the HTML
    /// standard's parser takes any text without `<` as content. Such an ERROR in an
    /// element's content is then not a problem (see `syntax::findings`).
    pub(crate) text_without_markup_is_content: bool,
}

/// Every checked language.
///
/// # What a verdict can and cannot see
/// - python, javascript, typescript, tsx, rust, json, toml, yaml: the language's own
///   parser decides; a text that is only unfinished is `Incomplete`, and a dropped
///   closing bracket mid-file (which no parser can tell from an unfinished one until
///   the end) is `Incomplete` too, as the compiler itself reports it at the end.
///   Semantic "early errors" (a name declared twice, `return` outside a function in
///   Python) are the compiler's, not the grammar's, and are not reported.
/// - html: no input fails the HTML standard's parse; the grammar reports only tags
///   still open at the end of the text and end tags with no element open. An unclosed
///   attribute quote swallows the rest of the text, so it reads as `Incomplete`.
/// - css: a missing `;` between declarations is not flagged (the syntax recovers from
///   it); a missing or extra `}` mid-file is reported at the end of the text.
/// - bash: the tree-sitter grammar, which is looser than `bash -n` in places.
/// - markdown: only fenced code blocks whose info string names a checked language are
///   checked (see `markdown.rs`); the prose itself is never an error.
pub(crate) static TABLE: &[Spec] = &[
    Spec {
        name: LanguageName::Python,
        extensions: &["py", "pyi"],
        fence_names: &["python", "py"],
        grammar: || tree_sitter_python::LANGUAGE.into(),
        validator: Validator::Python,
        probes: &[],
        stubs: Rules::Python,
        ascii_input: false,
        text_without_markup_is_content: false,
    },
    Spec {
        name: LanguageName::Json,
        extensions: &["json"],
        fence_names: &["json"],
        grammar: || tree_sitter_json::LANGUAGE.into(),
        validator: Validator::Json,
        probes: &[],
        stubs: Rules::None,
        ascii_input: false,
        text_without_markup_is_content: false,
    },
    Spec {
        name: LanguageName::JavaScript,
        extensions: &["js", "mjs", "cjs", "jsx"],
        fence_names: &["javascript", "js", "jsx"],
        grammar: || tree_sitter_javascript::LANGUAGE.into(),
        validator: Validator::JavaScript,
        probes: &[],
        stubs: Rules::Script,
        ascii_input: false,
        text_without_markup_is_content: false,
    },
    Spec {
        name: LanguageName::TypeScript,
        extensions: &["ts", "mts", "cts"],
        fence_names: &["typescript", "ts"],
        grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        validator: Validator::JavaScript,
        probes: &[],
        stubs: Rules::Script,
        ascii_input: false,
        text_without_markup_is_content: false,
    },
    Spec {
        name: LanguageName::Tsx,
        extensions: &["tsx"],
        fence_names: &["tsx"],
        grammar: || tree_sitter_typescript::LANGUAGE_TSX.into(),
        validator: Validator::JavaScript,
        probes: &[],
        stubs: Rules::Script,
        ascii_input: false,
        text_without_markup_is_content: false,
    },
    Spec {
        name: LanguageName::Yaml,
        extensions: &["yaml", "yml"],
        fence_names: &["yaml", "yml"],
        grammar: || tree_sitter_yaml::LANGUAGE.into(),
        validator: Validator::Yaml,
        probes: &[],
        stubs: Rules::Comments,
        ascii_input: false,
        text_without_markup_is_content: false,
    },
    Spec {
        name: LanguageName::Html,
        extensions: &["html", "htm"],
        fence_names: &["html"],
        grammar: || tree_sitter_html::LANGUAGE.into(),
        validator: Validator::TreeSitter,
        probes: &["-->"],
        stubs: Rules::Html,
        ascii_input: false,
        text_without_markup_is_content: true,
    },
    Spec {
        name: LanguageName::Css,
        extensions: &["css"],
        fence_names: &["css"],
        grammar: || tree_sitter_css::LANGUAGE.into(),
        validator: Validator::TreeSitter,
        probes: &["*/"],
        stubs: Rules::Comments,
        ascii_input: false,
        text_without_markup_is_content: false,
    },
    Spec {
        name: LanguageName::Toml,
        extensions: &["toml"],
        fence_names: &["toml"],
        grammar: || tree_sitter_toml_ng::LANGUAGE.into(),
        validator: Validator::Toml,
        probes: &[],
        stubs: Rules::Comments,
        ascii_input: false,
        text_without_markup_is_content: false,
    },
    Spec {
        name: LanguageName::Rust,
        extensions: &["rs"],
        fence_names: &["rust", "rs"],
        grammar: || tree_sitter_rust::LANGUAGE.into(),
        validator: Validator::Rust,
        probes: &[],
        stubs: Rules::Rust,
        ascii_input: false,
        text_without_markup_is_content: false,
    },
    Spec {
        name: LanguageName::Bash,
        extensions: &["sh", "bash"],
        fence_names: &["bash", "sh", "shell"],
        grammar: || tree_sitter_bash::LANGUAGE.into(),
        validator: Validator::TreeSitter,
        probes: &[],
        stubs: Rules::Comments,
        ascii_input: true,
        text_without_markup_is_content: false,
    },
    Spec {
        name: LanguageName::Markdown,
        extensions: &["md", "markdown"],
        fence_names: &[],
        grammar: || tree_sitter_md::LANGUAGE.into(),
        validator: Validator::Markdown,
        probes: &[],
        stubs: Rules::None,
        ascii_input: false,
        text_without_markup_is_content: false,
    },
    Spec {
        name: LanguageName::Notebook,
        extensions: &["ipynb"],
        fence_names: &[],
        // The JSON's tree; the stubs and names of a notebook are its cells' (see `notebook.rs`).
        grammar: || tree_sitter_json::LANGUAGE.into(),
        validator: Validator::Notebook,
        probes: &[],
        stubs: Rules::None,
        ascii_input: false,
        text_without_markup_is_content: false,
    },
];

/// A checked language: a cheap handle on one row of the table.
#[derive(Clone, Copy)]
pub struct Language(&'static Spec);

impl Language {
    /// The stable name, e.g. `python` or `json`.
    pub fn name(self) -> LanguageName {
        self.0.name
    }

    /// The row behind this handle, for the rest of `check`.
    pub(crate) fn spec(self) -> &'static Spec {
        self.0
    }
}

impl PartialEq for Language {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Language {}

impl std::fmt::Debug for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Language").field(&self.0.name).finish()
    }
}

/// Which language a root-relative path is checked as, from its extension; None = not checked.
///
/// Only the extension counts, never the content: the caller may be halfway through
/// writing the file, and a guess from a prefix would change under its feet.
pub fn language_for(path: &str) -> Option<Language> {
    let ext = Path::new(path).extension()?.to_str()?;
    TABLE.iter().find(|spec| spec.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext))).map(Language)
}

/// The language of the table row named `name`: for text embedded in another language,
/// such as a page's `<script>`.
pub(crate) fn language_named(name: LanguageName) -> Option<Language> {
    TABLE.iter().find(|spec| spec.name == name).map(Language)
}

/// Which language a Markdown fenced code block is checked as, from the first word of
/// its info string (`python`, `ts`, `sh`...); None = the block is not checked.
pub(crate) fn language_for_fence(name: &str) -> Option<Language> {
    TABLE.iter().find(|spec| spec.fence_names.iter().any(|n| n.eq_ignore_ascii_case(name))).map(Language)
}

/// Which stub rules apply to a language: a column of the language table, read by
/// `stubs/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rules {
    /// Python's stub bodies (`stubs/python.rs`).
    Python,
    /// JavaScript and TypeScript stub bodies (`stubs/script.rs`).
    Script,
    /// Rust's `todo!()` and friends (`stubs/rust.rs`).
    Rust,
    /// HTML pages: empty body, and their scripts and styles (`stubs/html.rs`).
    Html,
    /// Only comments: placeholders and files with no code (CSS, Bash, YAML, TOML).
    Comments,
    /// Not looked at: data (JSON) and prose (Markdown).
    None,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn py_and_json_extensions_map_to_their_languages() {
        assert_eq!(language_for("src/app.py").map(|l| l.name().as_str()), Some("python"));
        assert_eq!(language_for("types.pyi").map(|l| l.name().as_str()), Some("python"));
        assert_eq!(language_for("a/b/data.json").map(|l| l.name().as_str()), Some("json"));
    }

    #[test]
    fn extension_match_ignores_ascii_case() {
        assert_eq!(language_for("SETUP.PY").map(|l| l.name().as_str()), Some("python"));
    }

    #[test]
    fn unknown_or_missing_extension_is_not_checked() {
        assert_eq!(language_for("Makefile"), None);
        assert_eq!(language_for(".py"), None);
        assert_eq!(language_for("dir.py/file"), None);
    }

    #[test]
    fn every_grammar_in_the_table_loads() {
        for spec in crate::check::languages::TABLE {
            let mut parser = tree_sitter::Parser::new();
            assert!(parser.set_language(&(spec.grammar)()).is_ok(), "{}", spec.name);
        }
    }

    #[test]
    fn no_extension_is_claimed_by_two_rows() {
        let mut seen = std::collections::HashSet::new();
        for spec in crate::check::languages::TABLE {
            for ext in spec.extensions {
                assert!(seen.insert(*ext), "{ext} listed twice");
            }
        }
    }

    #[test]
    fn new_extensions_map_to_their_languages() {
        for (path, name) in [
            ("ci.yaml", "yaml"),
            ("ci.yml", "yaml"),
            ("app.ts", "typescript"),
            ("App.tsx", "tsx"),
            ("index.html", "html"),
            ("index.htm", "html"),
            ("style.css", "css"),
            ("Cargo.toml", "toml"),
            ("main.rs", "rust"),
            ("build.sh", "bash"),
            ("env.bash", "bash"),
            ("README.md", "markdown"),
            ("notes.markdown", "markdown"),
        ] {
            assert_eq!(language_for(path).map(|l| l.name().as_str()), Some(name), "{path}");
        }
    }

    #[test]
    fn fence_names_map_to_their_languages() {
        for (fence, name) in [
            ("py", "python"),
            ("jsx", "javascript"),
            ("ts", "typescript"),
            ("yml", "yaml"),
            ("rs", "rust"),
            ("shell", "bash"),
            ("JSON", "json"),
        ] {
            assert_eq!(language_for_fence(fence).map(|l| l.name().as_str()), Some(name), "{fence}");
        }
        assert_eq!(language_for_fence("text"), None);
        assert_eq!(language_for_fence("markdown"), None);
    }

    #[test]
    fn no_fence_name_is_claimed_by_two_rows() {
        let mut seen = std::collections::HashSet::new();
        for spec in crate::check::languages::TABLE {
            for name in spec.fence_names {
                assert!(seen.insert(*name), "{name} listed twice");
            }
        }
    }
}

/// Each language's verdicts on a realistic valid sample, its line-boundary prefixes and
/// a mid-file error. Python, JSON and JavaScript are covered in `check`'s own tests.
#[cfg(test)]
mod language_tests {
    use crate::check::tests::line_prefixes;
    use crate::check::{Report, Status, check};

    const SAMPLE_TS: &str = include_str!("testdata/sample.ts");
    const SAMPLE_TSX: &str = include_str!("testdata/sample.tsx");
    const SAMPLE_YAML: &str = include_str!("testdata/sample.yaml");
    const SAMPLE_HTML: &str = include_str!("testdata/sample.html");
    const SAMPLE_CSS: &str = include_str!("testdata/sample.css");
    const SAMPLE_TOML: &str = include_str!("testdata/sample.toml");
    const SAMPLE_RS: &str = include_str!("testdata/sample.rs");
    const SAMPLE_SH: &str = include_str!("testdata/sample.sh");

    fn assert_ok(path: &str, text: &str) {
        let report = check(path, text);
        assert_eq!(report.status, Status::Ok, "{path}: {}", report.summary());
    }

    fn assert_no_prefix_is_errors(path: &str, text: &str) {
        for prefix in line_prefixes(text) {
            let report = check(path, prefix);
            assert_ne!(report.status, Status::Errors, "{path}:\n{prefix}\n---\n{}", report.summary());
        }
    }

    /// Errors, with the first problem at `line`:`column`.
    fn assert_error_at(path: &str, text: &str, line: usize, column: usize) -> Report {
        let report = check(path, text);
        assert_eq!(report.status, Status::Errors, "{path}: {}", report.summary());
        let p = report.problems.first().expect("a problem is listed");
        assert_eq!((p.line, p.column), (line, column), "{path}: {}", report.summary());
        report
    }

    fn assert_incomplete(path: &str, text: &str) {
        let report = check(path, text);
        assert_eq!(report.status, Status::Incomplete, "{path}:\n{text}\n---\n{}", report.summary());
    }

    #[test]
    fn valid_typescript_is_ok() {
        assert_ok("src/queue.ts", SAMPLE_TS);
    }

    #[test]
    fn no_line_prefix_of_valid_typescript_is_errors() {
        assert_no_prefix_is_errors("src/queue.ts", SAMPLE_TS);
    }

    #[test]
    fn typescript_error_mid_file_is_errors_at_its_line_and_column() {
        let text = "const a: number = 1;\nfunction f(x: number {\n  return x;\n}\nconst b = f(a);\n";
        assert_error_at("a.ts", text, 2, 22);
    }

    #[test]
    fn typescript_cut_inside_a_block_comment_or_template_is_incomplete() {
        assert_incomplete("a.ts", "let a = 1;\n/**\n * Docs: f(\n");
        assert_incomplete("a.ts", "let a = 1;\nconst t = `\n  ${a} (\n");
    }

    #[test]
    fn valid_tsx_is_ok() {
        assert_ok("src/App.tsx", SAMPLE_TSX);
    }

    #[test]
    fn no_line_prefix_of_valid_tsx_is_errors() {
        assert_no_prefix_is_errors("src/App.tsx", SAMPLE_TSX);
    }

    #[test]
    fn tsx_error_mid_file_is_errors_at_its_line_and_column() {
        let text = "export function A() {\n  return <div>{1 +}</div>;\n}\n\nexport const b = 2;\n";
        assert_error_at("a.tsx", text, 2, 19);
    }

    #[test]
    fn valid_yaml_is_ok() {
        assert_ok(".github/workflows/ci.yml", SAMPLE_YAML);
    }

    #[test]
    fn no_line_prefix_of_valid_yaml_is_errors() {
        assert_no_prefix_is_errors("ci.yaml", SAMPLE_YAML);
    }

    #[test]
    fn yaml_error_mid_file_is_errors_at_its_line_and_column() {
        let text = "name: ci\nsteps:\n  - run: [a, b\n  - run: c\nafter: done\n";
        // The flow sequence left open on line 3 runs into line 4's `:`.
        assert_error_at("a.yaml", text, 4, 8);
    }

    #[test]
    fn yaml_bad_indentation_is_errors() {
        let text = "a:\n  b: 1\n c: 2\nd: 3\n";
        let report = check("a.yaml", text);
        assert_eq!(report.status, Status::Errors, "{}", report.summary());
        assert_eq!(report.problems[0].line, 3, "{}", report.summary());
    }

    #[test]
    fn valid_html_is_ok() {
        assert_ok("index.html", SAMPLE_HTML);
    }

    #[test]
    fn no_line_prefix_of_valid_html_is_errors() {
        assert_no_prefix_is_errors("index.html", SAMPLE_HTML);
    }

    #[test]
    fn html_stray_end_tag_mid_file_is_errors_at_its_line_and_column() {
        // Only an end tag with no element open is stray: see the table's known limits.
        let text = "<div>\n  <p>a</p>\n</div>\n</div>\n<p>b</p>\n";
        assert_error_at("a.html", text, 4, 1);
    }

    #[test]
    fn html_cut_inside_a_comment_is_incomplete() {
        assert_incomplete("a.html", "<html>\n<body>\n  <!-- a note <p>\n");
    }

    #[test]
    fn valid_css_is_ok() {
        assert_ok("style.css", SAMPLE_CSS);
    }

    /// CSS reads an unquoted `url(...)` as one token; tree-sitter-css does not.
    #[test]
    fn unquoted_urls_with_dots_fragments_and_queries_are_valid_css() {
        let text = "body { background: url(../img/bg.png) no-repeat; }\n.b { filter: url(#blur); }\n@font-face { src: url(../fonts/a.woff2?v=4) format('woff2'); }\n";
        assert_ok("a.css", text);
        // A broken rule beside them is still found.
        let broken = format!("{text}a {{ color: (red; }}\n\np {{ margin: 0; }}\n");
        assert_error_at("a.css", &broken, 4, 16);
    }

    #[test]
    fn no_line_prefix_of_valid_css_is_errors() {
        assert_no_prefix_is_errors("style.css", SAMPLE_CSS);
    }

    #[test]
    fn css_error_mid_file_is_errors_at_its_line_and_column() {
        let text = "body {\n  margin: 0;\n}\n\na { color: (red; }\n\np {\n  padding: 0;\n}\n";
        let report = assert_error_at("a.css", text, 5, 16);
        assert_eq!(report.problems[0].message, "missing `)` in parenthesized value");
    }

    #[test]
    fn css_cut_inside_a_comment_is_incomplete() {
        assert_incomplete("a.css", "a { color: red; }\n/* note:\n   b { (\n");
    }

    #[test]
    fn valid_toml_is_ok() {
        assert_ok("Cargo.toml", SAMPLE_TOML);
    }

    #[test]
    fn no_line_prefix_of_valid_toml_is_errors() {
        assert_no_prefix_is_errors("Cargo.toml", SAMPLE_TOML);
    }

    #[test]
    fn toml_error_mid_file_is_errors_at_its_line_and_column() {
        let text = "[package]\nname = \"x\"\nversion = [1,, 2]\n\n[deps]\na = 1\n";
        let report = assert_error_at("a.toml", text, 3, 14);
        assert_eq!(report.problems[0].message, "extra comma in array, expected value");
    }

    #[test]
    fn toml_cut_inside_a_multi_line_string_is_incomplete() {
        assert_incomplete("a.toml", "a = 1\nb = \"\"\"\ntext [x\nc = \n");
        assert_incomplete("a.toml", "a = 1\nb = '''\ntext [x\nc = \n");
    }

    #[test]
    fn valid_rust_is_ok() {
        assert_ok("src/cache.rs", SAMPLE_RS);
    }

    #[test]
    fn no_line_prefix_of_valid_rust_is_errors() {
        assert_no_prefix_is_errors("src/cache.rs", SAMPLE_RS);
    }

    #[test]
    fn rust_error_mid_file_is_errors_at_its_line_and_column() {
        let text = "fn a() -> u32 {\n    let x = (1 + 2));\n    x\n}\n\nfn b() {}\n";
        // rustc: "unexpected closing delimiter: `}`" at 4:1, where the extra `)` leaves
        // nothing open (its pairing runs before the parse).
        assert_error_at("a.rs", text, 4, 1);
    }

    #[test]
    fn rust_cut_inside_a_block_comment_is_incomplete() {
        assert_incomplete("a.rs", "fn a() {}\n/* note:\n   fn b( {\n");
    }

    #[test]
    fn valid_bash_is_ok() {
        assert_ok("build.sh", SAMPLE_SH);
    }

    #[test]
    fn no_line_prefix_of_valid_bash_is_errors() {
        assert_no_prefix_is_errors("build.sh", SAMPLE_SH);
    }

    #[test]
    fn bash_error_mid_file_is_errors_at_its_line_and_column() {
        let text = "#!/bin/sh\nfor x in a b; do\n  echo $x\ndone)\necho done\n";
        let report = assert_error_at("a.sh", text, 4, 5);
        assert_eq!(report.problems[0].message, "unexpected `)`");
    }

    #[test]
    fn language_names_in_text_are_their_wire_names() {
        for spec in crate::check::languages::TABLE {
            assert_eq!(serde_json::to_value(spec.name).ok(), Some(serde_json::json!(spec.name.as_str())));
        }
    }
}
