//! What the finish check reads off a file beyond its syntax: its stubs and its references to
//! other files.
//!
//! One set of rules (in `stubs/` and `refs/`), read off the tree of the parser that decides
//! the verdict where it gives one: oxc's for JavaScript and TypeScript (see `script_tree.rs`),
//! rust-analyzer's for a Rust text that parses ([`check_and_survey`] reads the verdict and the
//! survey off one parse), and tree-sitter's for the rest. Parsed
//! with tree-sitter too, the finish check of 100 MB of crates took 12.5 s of CPU instead of
//! 3.4 s, and a tree costs ~24x its source in memory. A Rust text that does not parse is read
//! off tree-sitter's tree, which recovers from errors.

use std::time::Instant;

use ra_ap_parser::SyntaxKind;

use super::languages::Validator;
use super::parsers::javascript::Dialect;
use super::parsers::rust::Step;
use super::tree::Syntax;
use super::{
    DEFAULT_DEADLINE, LanguageName, MAX_CHECK_BYTES, NotChecked, Report, RustEdition, RustRead,
    SHALLOW_NESTING, Status, check_from, language_for, nesting_depth, refs, script_tree, stubs,
};

/// What the finish check reads off a file beyond its syntax: its stubs and its references
/// to other files, from one parse.
#[derive(Debug, Clone, Default)]
pub struct Survey {
    /// Every stub [`stubs::find_all_stubs`] finds.
    pub stubs: Vec<stubs::Stub>,
    /// What the file refers to and offers (see [`refs`]).
    pub refs: refs::Refs,
}

/// The stubs and references of `text`, as the file type of `path`, from one parse: oxc's for
/// a script, tree-sitter's for any other language (see [`check_and_survey`] for a file whose
/// verdict is parsed too).
pub fn survey(path: &str, text: &str) -> Survey {
    if language_for(path).is_some_and(|l| l.name() == LanguageName::Notebook) {
        return super::notebook::survey(text);
    }
    let mut refs = refs::Refs::default();
    let stubs = stubs::find_all_stubs_and(path, text, |syntax| refs = refs::of_syntax(path, text, syntax));
    Survey { stubs, refs }
}

/// The check of a file's `bytes` (see [`super::check_bytes_as`], read in `edition` if Rust)
/// and the survey of its `text` (their [`crate::files::encoding::lossy_text`]), as the finish
/// check needs both: from one parse when the text parses, a script's by oxc and a Rust
/// text's by rust-analyzer's parser; the parse is most of what the check of a file costs.
/// Other texts are checked, then surveyed ([`survey`]).
pub fn check_and_survey(path: &str, bytes: &[u8], text: &str, edition: RustEdition) -> (Report, Survey) {
    if let Some(both) = script_checked_and_surveyed(path, bytes, text) {
        return both;
    }
    let (report, survey) = rust_checked_and_surveyed(path, bytes, edition);
    let survey = survey.unwrap_or_else(|| self::survey(path, text));
    (report, survey)
}

/// [`check_and_survey`] of a JavaScript or TypeScript file from one parse, when its text
/// parses without problem; None for any other text.
fn script_checked_and_surveyed(path: &str, bytes: &[u8], text: &str) -> Option<(Report, Survey)> {
    let lang = language_for(path)?;
    // What `check_bytes_as` and `check_from` decide before any parse: too large, binary,
    // nested deeper than the caller's stack holds.
    let plain = lang.spec().validator == Validator::JavaScript
        && bytes.len() <= MAX_CHECK_BYTES
        && text.len() <= MAX_CHECK_BYTES
        && memchr::memchr(0, text.as_bytes()).is_none()
        && nesting_depth(text) <= SHALLOW_NESTING;
    if !plain {
        return None;
    }
    let dialect = Dialect::of(path, text);
    script_tree::read_if_it_parses(text, dialect, |script| Survey {
        stubs: stubs::find_all_stubs_of_script(path, text, script),
        refs: refs::of_syntax(path, text, Syntax::Script(script)),
    })
    .map(|survey| (Report::ok(lang.name()), survey))
}

/// [`super::check_bytes_as`] on a file's bytes, and, for a Rust text that parses, its
/// [`survey`] read off the same parse; None for any other text.
fn rust_checked_and_surveyed(path: &str, bytes: &[u8], edition: RustEdition) -> (Report, Option<Survey>) {
    if !is_rust(path) || bytes.len() > MAX_CHECK_BYTES {
        return (super::check_bytes_as(path, bytes, edition), None);
    }
    let Some(text) = crate::files::encoding::text_of(bytes) else {
        return (Report::not_checked(Some(LanguageName::Rust), NotChecked::Binary), None);
    };
    let deadline = Instant::now() + DEFAULT_DEADLINE;
    let Some(mut reading) = RustReading::new(path, &text) else {
        return (check_from(path, &text, None, 0, deadline, RustRead::in_edition(edition)).0, None);
    };
    let mut read = |step: Step<'_>, open: &[SyntaxKind]| reading.step(step, open);
    let (report, _) =
        check_from(path, &text, None, 0, deadline, RustRead { edition, reader: Some(&mut read) });
    let survey = (report.status == Status::Ok).then(|| reading.finish());
    (report, survey)
}

fn is_rust(path: &str) -> bool {
    language_for(path).is_some_and(|l| l.name() == LanguageName::Rust)
}

/// The survey of a Rust text that parses, read as rust-analyzer's parse is walked.
struct RustReading<'t> {
    text: &'t str,
    stubs: stubs::RustReading<'t>,
    refs: refs::RustReading,
}

impl<'t> RustReading<'t> {
    /// None for a text the stub rules do not read (too large, NUL bytes).
    fn new(path: &'t str, text: &'t str) -> Option<Self> {
        let stubs = stubs::RustReading::new(path, text)?;
        Some(RustReading { text, stubs, refs: refs::RustReading::default() })
    }

    fn step(&mut self, step: Step<'_>, open: &[SyntaxKind]) {
        self.stubs.step(step, open);
        self.refs.step(self.text, step, open);
    }

    fn finish(self) -> Survey {
        Survey { stubs: self.stubs.finish(), refs: self.refs.finish(self.text) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::stubs::StubKind::{self, NoCode, PlaceholderComment, StubBody};

    #[test]
    fn a_script_checked_and_surveyed_from_one_parse_gets_what_the_two_apart_get() {
        let texts = [
            ("sample.js", include_str!("testdata/sample.js")),
            ("sample.ts", include_str!("testdata/sample.ts")),
            ("sample.tsx", include_str!("testdata/sample.tsx")),
            ("a.js", "import { a } from './a';\nconst el = document.getElementById('x');\nel.focus();\n"),
            ("a.js", "function f() {\n  // ... rest of the code ...\n}\nmodule.exports = { f };\n"),
            ("a.ts", "export {};\n"),
            ("a.mjs", "export function run() {\n  throw new Error('not implemented');\n}\n"),
            ("a.cjs", "return;\n"),
            ("a.js", "let x = (1;\n// ... existing code ...\n"),
            ("a.ts", "export function f(): void {\n  go();\n"),
            ("a.js", ""),
        ];
        for (path, text) in texts {
            let (report, surveyed_once) =
                check_and_survey(path, text.as_bytes(), text, RustEdition::default());
            let apart = super::super::check_bytes(path, text.as_bytes());
            let surveyed = survey(path, text);
            assert_eq!(format!("{report:?}"), format!("{apart:?}"), "{path}: {text:?}");
            assert_eq!(format!("{surveyed_once:?}"), format!("{surveyed:?}"), "{path}: {text:?}");
            let once = script_checked_and_surveyed(path, text.as_bytes(), text).is_some();
            assert_eq!(
                once,
                apart.status == Status::Ok,
                "one parse for a script that parses: {path}: {text:?}"
            );
        }
    }

    /// The survey of `text` read off rust-analyzer's parse, the shortcut left out.
    fn read(text: &str) -> Survey {
        let mut reading = RustReading::new("lib.rs", text).expect("a text the rules read");
        let mut read = |step: Step<'_>, open: &[SyntaxKind]| reading.step(step, open);
        let parsed = super::super::parsers::rust::parse_read(text, RustEdition::E2021, Some(&mut read));
        assert_eq!(parsed.failure, None, "{text}");
        reading.finish()
    }

    /// The stubs of `text` as (line, kind, message), read off rust-analyzer's parse and
    /// checked against tree-sitter's reading.
    fn stubs(text: &str) -> Vec<(usize, StubKind, String)> {
        let (new, old) = (read(text), survey("lib.rs", text));
        assert_eq!(new.stubs, old.stubs, "{text}");
        new.stubs.into_iter().map(|s| (s.line, s.kind, s.message)).collect()
    }

    /// The `mod name;` declarations of `text` as (line, name, inline modules), read both ways.
    fn mods(text: &str) -> Vec<(usize, String, Vec<String>)> {
        let (new, old) = (read(text), survey("lib.rs", text));
        assert_eq!(new.refs.imports, old.refs.imports, "{text}");
        new.refs
            .imports
            .into_iter()
            .map(|i| match i.kind {
                refs::ImportKind::RustMod { inline, .. } => (i.line, i.written, inline),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    /// (line, name, under a `#[cfg]`) of each module declaration, both readings agreeing.
    fn cfg_mods(text: &str) -> Vec<(usize, String, bool)> {
        let (new, old) = (read(text), survey("lib.rs", text));
        assert_eq!(new.refs.imports, old.refs.imports, "{text}");
        new.refs
            .imports
            .into_iter()
            .map(|i| match i.kind {
                refs::ImportKind::RustMod { cfg, .. } => (i.line, i.written, cfg),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_module_under_a_cfg_other_than_test_is_read_and_marked() {
        let text = "#[cfg(unix)]
mod unix;
#[cfg(feature = \"extra\")]
#[doc(hidden)]
pub mod extra;
#[cfg(all(test, unix))]
mod tests;
#[cfg(windows)]
mod sys {
    mod win;
}
#[cfg_attr(unix, path = \"u.rs\")]
mod c;
mod plain;
";
        let t = |line: usize, name: &str, cfg: bool| (line, name.to_owned(), cfg);
        assert_eq!(
            cfg_mods(text),
            vec![t(2, "unix", true), t(5, "extra", true), t(10, "win", true), t(14, "plain", false)]
        );
    }

    fn stub(line: usize, kind: StubKind, message: &str) -> (usize, StubKind, String) {
        (line, kind, message.to_owned())
    }

    #[test]
    fn todo_anywhere_in_code_is_a_stub_at_its_name() {
        let text = "const X: u8 = todo!();\nfn f() -> u32 {\n    let x = std::todo!(\"later\");\n    x\n}\n// note\n#[cfg(unix)]\ntodo! {}\n";
        let todo = "`todo!()` stands in for code";
        assert_eq!(
            stubs(text),
            vec![stub(1, StubBody, todo), stub(3, StubBody, todo), stub(8, StubBody, todo)]
        );
    }

    #[test]
    fn unimplemented_is_a_stub_without_a_message_or_with_one_that_says_so() {
        let text = "fn f() {\n    unimplemented!()\n}\nfn g() {\n    unimplemented!(\"not yet implemented\")\n}\nfn h() {\n    unimplemented!(\"not supported on this platform\")\n}\n";
        let message = "`unimplemented!()` stands in for code";
        assert_eq!(stubs(text), vec![stub(2, StubBody, message), stub(5, StubBody, message)]);
    }

    /// Both parsers leave another macro's arguments as tokens; comments and strings are not
    /// code.
    #[test]
    fn macro_calls_in_token_trees_comments_and_strings_are_not_stubs() {
        let text = "fn f() -> Vec<u8> {\n    println!(\"{}\", todo!());\n    let s = \"todo!()\"; // todo!()\n    vec![todo!()]\n}\nmacro_rules! m {\n    () => { todo!() };\n}\n";
        assert_eq!(stubs(text), vec![]);
    }

    #[test]
    fn a_body_of_only_a_comment_saying_the_code_goes_here_is_a_stub() {
        let text = "fn start() {\n    // TODO: timer logic\n}\nfn stop() {\n    // TODO: timer logic\n    drop(1);\n}\nfn noop() {\n    // TODO\n}\n";
        let message = "body of `start` is only a comment saying the code goes here";
        assert_eq!(stubs(text), vec![stub(2, StubBody, message)]);
        // A body with only `;` or an inner attribute has a statement.
        assert_eq!(
            stubs("fn f() {\n    ;\n    // TODO\n}\nfn g() {\n    #![allow(unused)]\n    // TODO\n}\n"),
            vec![]
        );
    }

    /// The function's own comments count with its body's (tree-sitter's function node holds
    /// those after its visibility or `fn`), and its doc comments and attributes' do not.
    #[test]
    fn the_comments_of_a_body_are_read_with_the_function_s_own_but_not_its_docs() {
        let text = "/// Does nothing: a hook.\n#[inline] // nothing\nfn f() {\n    // TODO\n}\n";
        let message = "body of `f` is only a comment saying the code goes here";
        assert_eq!(stubs(text), vec![stub(4, StubBody, message)]);
        assert_eq!(stubs("fn f() // nothing to do: a hook\n{\n    // TODO\n}\n"), vec![]);
        assert_eq!(stubs("pub /* a hook */ fn f() {\n    // TODO\n}\n"), vec![]);
        assert_eq!(stubs("fn f() -> /* a hook */ () {\n    // TODO\n}\n"), vec![]);
    }

    #[test]
    fn placeholder_comments_are_stubs() {
        let text = "fn f() {}\n// ... rest of the code ...\nfn g() {}\n";
        let message = "placeholder comment stands in for code";
        assert_eq!(stubs(text), vec![stub(2, PlaceholderComment, message)]);
        // Doc comments are examples, never placeholders.
        assert_eq!(stubs("/// ... rest of the code ...\nfn g() {}\n"), vec![]);
    }

    /// tree-sitter-rust's line doc comment holds its newline, so the comment on the next line
    /// is read on its own: a placeholder here, where read with the doc line it is not.
    #[test]
    fn a_line_doc_comment_ends_with_its_newline_as_in_tree_sitter() {
        let text = "fn f() {}\n/// Reads.\n// rest of the code\nfn g() {}\n";
        let message = "placeholder comment stands in for code";
        assert_eq!(stubs(text), vec![stub(3, PlaceholderComment, message)]);
    }

    #[test]
    fn a_file_with_no_code_is_a_stub() {
        let comments = "no code: the file holds only comments";
        assert_eq!(stubs("\n// only a comment\n/* and another */\n"), vec![stub(2, NoCode, comments)]);
        assert_eq!(stubs("//! Docs.\n"), vec![stub(1, NoCode, comments)]);
        assert_eq!(stubs(""), vec![stub(1, NoCode, "no code: the file is empty")]);
        assert_eq!(stubs(" \n\n"), vec![stub(1, NoCode, "no code: the file is empty")]);
        assert_eq!(stubs("#![allow(dead_code)]\n"), vec![]);
    }

    #[test]
    fn module_declarations_are_read_with_their_lines_and_inline_modules() {
        let text = "mod a;\n/// Docs.\n#[allow(unused)]\npub(crate) mod r#type;\nmod outer {\n    mod inner {\n        pub mod b;\n    }\n    mod c;\n}\nmod d;\n";
        let inline = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        assert_eq!(
            mods(text),
            vec![
                (1, "a".to_owned(), vec![]),
                (4, "type".to_owned(), vec![]),
                (7, "b".to_owned(), inline(&["outer", "inner"])),
                (9, "c".to_owned(), inline(&["outer"])),
                (11, "d".to_owned(), vec![]),
            ]
        );
    }

    #[test]
    fn conditional_modules_and_modules_in_macros_are_not_read() {
        let text = "#[cfg(test)]\nmod a;\n#[path = \"x.rs\"]\nmod b;\n#[cfg_attr(unix, path = \"u.rs\")]\nmod c;\n#[cfg(test)]\nmod d {\n    mod e;\n}\nmod f {\n    #![cfg(unix)]\n    mod g;\n}\ncfg_if::cfg_if! {\n    if #[cfg(unix)] {\n        mod h;\n    }\n}\nmod i;\n";
        assert_eq!(mods(text), vec![(20, "i".to_owned(), vec![])]);
        // The file itself may not be built.
        assert_eq!(mods("#![cfg(unix)]\nmod a;\n"), vec![]);
        assert_eq!(mods("#![allow(unused)]\nmod a;\n"), vec![(2, "a".to_owned(), vec![])]);
    }

    /// What the finish check runs: the verdict's parse gives the survey.
    #[test]
    fn a_check_surveys_a_rust_text_that_parses_off_its_own_parse() {
        let text = "mod store;\nfn f() {\n    todo!()\n}\n";
        let (report, survey) = rust_checked_and_surveyed("lib.rs", text.as_bytes(), RustEdition::E2021);
        assert_eq!(report.status, Status::Ok);
        let survey = survey.expect("a survey");
        assert_eq!(survey.stubs.iter().map(|s| s.line).collect::<Vec<_>>(), vec![3]);
        assert_eq!(survey.refs.imports.len(), 1);
        // One that does not parse is left to tree-sitter; other languages are not read.
        assert!(rust_checked_and_surveyed("lib.rs", b"fn f() {", RustEdition::E2021).1.is_none());
        assert!(rust_checked_and_surveyed("a.py", b"x = 1\n", RustEdition::E2021).1.is_none());
        // `async` is a name in 2015: the crate's edition decides what parses.
        let old = "fn f(async: u8) {\n    todo!()\n}\n";
        assert!(rust_checked_and_surveyed("lib.rs", old.as_bytes(), RustEdition::E2015).1.is_some());
    }

    /// Every `.rs` file of the cargo registry's sources (`CARGO_HOME`, else `~/.cargo`) that
    /// parses is surveyed alike off either parse. Run with
    /// `cargo test --lib check::survey -- --ignored`.
    #[test]
    #[ignore = "reads the cargo registry: minutes"]
    fn registry_rust_surveys_alike_off_either_parse() {
        let home = std::env::var("CARGO_HOME")
            .unwrap_or_else(|_| format!("{}/.cargo", std::env::var("HOME").unwrap_or_default()));
        let mut stack = vec![std::path::PathBuf::from(home).join("registry/src")];
        let mut files = Vec::new();
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                match entry.file_type() {
                    Ok(t) if t.is_dir() => stack.push(path),
                    Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "rs") => files.push(path),
                    _ => {}
                }
            }
        }
        files.sort();
        let (mut compared, mut mismatched) = (0, Vec::new());
        for file in &files {
            let Ok(bytes) = std::fs::read(file) else { continue };
            let Some(text) = crate::files::encoding::text_of(&bytes) else { continue };
            let Some(mut reading) = RustReading::new("lib.rs", &text) else { continue };
            let mut read = |step: Step<'_>, open: &[SyntaxKind]| reading.step(step, open);
            let parsed = super::super::parsers::rust::parse_read(&text, RustEdition::E2021, Some(&mut read));
            if parsed.failure.is_some() {
                continue;
            }
            let (new, old) = (reading.finish(), survey("lib.rs", &text));
            compared += 1;
            // tree-sitter-rust reads no named leaf in `impl ! {}`: no code, to it.
            let no_code_to_tree_sitter = |s: &stubs::Stub| s.kind == stubs::StubKind::NoCode;
            if new.stubs.is_empty() && old.stubs.len() == 1 && old.stubs.iter().all(no_code_to_tree_sitter) {
                println!(
                    "{}: code to rust-analyzer, {:?} to tree-sitter",
                    file.display(),
                    old.stubs[0].message
                );
                continue;
            }
            if new.stubs != old.stubs || new.refs.imports != old.refs.imports {
                mismatched.push(file.display().to_string());
                if mismatched.len() <= 40 {
                    println!(
                        "{}\n  new: {:?} {:?}\n  old: {:?} {:?}",
                        file.display(),
                        new.stubs,
                        new.refs.imports,
                        old.stubs,
                        old.refs.imports
                    );
                }
            }
        }
        println!("{} files, {compared} parse and were compared, {} differ", files.len(), mismatched.len());
        assert!(compared > 1000, "the registry has few Rust files: {compared}");
        assert_eq!(mismatched, Vec::<String>::new());
    }

    proptest::proptest! {
        /// The finish check of any text, read off one parse or two, never panics, reports
        /// its stubs on lines of the text, and agrees with the check and survey made apart.
        #[test]
        fn a_check_and_survey_of_any_text_never_panics_and_agrees_with_the_two_apart(
            text in proptest::prop_oneof![
                "(?s).{0,200}",
                "([ \n{}()\\[\\];,.=!?:'\"`/*#]|fn f\\(\\)|mod m;|todo!\\(\\)|import a from './a'|require\\('./b'\\)|export|function g\\(\\)|throw new Error\\('not implemented'\\)|// \\.\\.\\. rest of the code|document\\.getElementById\\('x'\\)|module\\.exports|exports\\.a){0,40}",
            ],
        ) {
            let lines = text.split('\n').count();
            for path in ["a.js", "a.mjs", "a.ts", "a.tsx", "lib.rs"] {
                let (report, surveyed) = check_and_survey(path, text.as_bytes(), &text, RustEdition::default());
                for stub in &surveyed.stubs {
                    proptest::prop_assert!(stub.line >= 1 && stub.line <= lines, "{path}: {stub:?}");
                }
                if path.ends_with(".rs") {
                    // Rust reads differ where tree-sitter is wrong (see `registry_rust_surveys_alike_off_either_parse`).
                    continue;
                }
                let apart = super::super::check_bytes(path, text.as_bytes());
                proptest::prop_assert_eq!(format!("{report:?}"), format!("{apart:?}"), "{}", path);
                proptest::prop_assert_eq!(format!("{:?}", surveyed.stubs), format!("{:?}", survey(path, &text).stubs), "{}", path);
            }
        }
    }
}
