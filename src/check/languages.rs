//! The one table of checked languages: extensions, grammar, validator, closing probes.
//!
//! Adding a language is one row in [`TABLE`] (plus its grammar crate). Everything else in
//! `check` reads the row, so no other file needs to know which languages exist.

use std::path::Path;

/// How a language's text is judged valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Validator {
    /// The tree-sitter grammar's ERROR and MISSING nodes are the verdict.
    TreeSitter,
    /// serde_json decides: tree-sitter-json accepts comments, `1 2` and raw tabs in
    /// strings, which real JSON readers reject. The grammar is still kept for trees.
    SerdeJson,
}

/// One row of the table.
#[derive(Debug)]
pub(crate) struct Spec {
    /// Stable lower-case name shown to the model and put in reports.
    pub(crate) name: &'static str,
    /// File extensions without the dot, lower case; matched ASCII-case-insensitively.
    pub(crate) extensions: &'static [&'static str],
    /// Builds the tree-sitter grammar. A plain `fn` because `LanguageFn` is not
    /// re-exported by `tree-sitter` and we do not depend on `tree-sitter-language`.
    pub(crate) grammar: fn() -> tree_sitter::Language,
    /// Who decides validity.
    pub(crate) validator: Validator,
    /// Texts that close a construct a prefix may be cut inside (a docstring, a block
    /// comment, a template literal). A cut there makes tree-sitter report ERROR nodes
    /// mid-file; if appending one of these removes them all, the file is only unfinished.
    pub(crate) probes: &'static [&'static str],
}

/// Every checked language. Planned rows (grammar crate; probes):
/// typescript/tsx (`*/`, a backtick),
/// html, css (`*/`), yaml, toml (`tree_sitter_toml_ng`), rust (`*/`), bash, markdown
/// (`tree_sitter_md`, feature "parser").
pub(crate) static TABLE: &[Spec] = &[
    Spec {
        name: "python",
        extensions: &["py", "pyi"],
        grammar: || tree_sitter_python::LANGUAGE.into(),
        validator: Validator::TreeSitter,
        probes: &["\"\"\"", "'''"],
    },
    Spec {
        name: "json",
        extensions: &["json"],
        grammar: || tree_sitter_json::LANGUAGE.into(),
        validator: Validator::SerdeJson,
        probes: &[],
    },
    Spec {
        name: "javascript",
        extensions: &["js", "mjs", "cjs", "jsx"],
        grammar: || tree_sitter_javascript::LANGUAGE.into(),
        validator: Validator::TreeSitter,
        probes: &["*/", "`"],
    },
];

/// A checked language: a cheap handle on one row of the table.
#[derive(Clone, Copy)]
pub struct Language(&'static Spec);

impl Language {
    /// The stable lower-case name, e.g. `"python"` or `"json"`.
    pub fn name(self) -> &'static str {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn py_and_json_extensions_map_to_their_languages() {
        assert_eq!(language_for("src/app.py").map(Language::name), Some("python"));
        assert_eq!(language_for("types.pyi").map(Language::name), Some("python"));
        assert_eq!(language_for("a/b/data.json").map(Language::name), Some("json"));
    }

    #[test]
    fn extension_match_ignores_ascii_case() {
        assert_eq!(language_for("SETUP.PY").map(Language::name), Some("python"));
    }

    #[test]
    fn unknown_or_missing_extension_is_not_checked() {
        assert_eq!(language_for("README.md"), None);
        assert_eq!(language_for("Makefile"), None);
        assert_eq!(language_for(".py"), None);
        assert_eq!(language_for("dir.py/file"), None);
    }

    #[test]
    fn every_grammar_in_the_table_loads() {
        for spec in TABLE {
            let mut parser = tree_sitter::Parser::new();
            assert!(parser.set_language(&(spec.grammar)()).is_ok(), "{}", spec.name);
        }
    }

    #[test]
    fn no_extension_is_claimed_by_two_rows() {
        let mut seen = std::collections::HashSet::new();
        for spec in TABLE {
            for ext in spec.extensions {
                assert!(seen.insert(*ext), "{ext} listed twice");
            }
        }
    }
}
