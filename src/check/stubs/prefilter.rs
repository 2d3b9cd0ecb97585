//! Whether a text can hold a placeholder comment or a stub body at all, decided without
//! parsing it.
//!
//! Parsing is most of what a write costs (tree-sitter reads JavaScript at about 8 MB/s),
//! and most texts an agent writes hold no placeholder. Every rule of `placeholder.rs`,
//! `script.rs` and `rust.rs` needs one of a few words to fire: a comment that stands in
//! for code has a word of [`COMMENT_WORDS`] or an ellipsis, and a not-implemented throw or
//! macro has one of [`CODE_WORDS`] in it. A text with neither cannot hold a finding of
//! those kinds, and its parse is skipped. The test is *sound*, never exact: it looks at
//! more than the comments (from every comment marker to where that comment would end,
//! strings included), so it sometimes says "maybe" where the parse then finds nothing,
//! and never says "no" where the parse would find something (a property test checks this
//! against the parse).
//!
//! Python and HTML are always parsed: a Python stub body can be only `pass` or a
//! docstring, and a page's scripts have rules of their own.

use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::{Rules, StubKind, placeholder};

/// The kinds this test can rule out. A file with no code, or an empty page body, needs
/// the tree.
const RULED_OUT: &[StubKind] = &[StubKind::PlaceholderComment, StubKind::StubBody];

/// Words of which a comment must hold one (or an ellipsis) to be read as a placeholder,
/// or as the only content of a body whose code is still to come: every trigger and
/// "still to come" word of `placeholder.rs`, and "here" for its strong phrases
/// ("your logic here", "add more routes here", "goes here").
static COMMENT_WORDS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut words: Vec<&str> =
        placeholder::TRIGGERS.iter().chain(placeholder::STILL_TO_COME).copied().collect();
    words.push("here");
    words.sort_unstable();
    words.dedup();
    words
});

/// Text of which a throw's message or class, or a Rust macro, must hold one (in any case)
/// to say "not implemented": `todo!()`, `unimplemented!()`, `NotImplementedError`,
/// "TODO", "TBD", "stub", "not implemented".
const CODE_WORDS: &[&str] = &["todo", "tbd", "stub", "implement"];

static CODE_FINDERS: LazyLock<Vec<Finder<'static>>> =
    LazyLock::new(|| CODE_WORDS.iter().map(|w| Finder::new(w.as_bytes())).collect());

/// Whether `text` holds one of [`CODE_WORDS`] in any case: searched in a lower-cased copy,
/// since a case-blind search ran at a tenth of the speed.
fn has_code_word(text: &str) -> bool {
    let lower = text.as_bytes().to_ascii_lowercase();
    CODE_FINDERS.iter().any(|f| f.find(&lower).is_some())
}

/// Whether `text`, under `rules`, may hold a finding of one of `kinds`: false only when
/// it certainly holds none, so that the caller may skip the parse.
pub(super) fn may_hold(rules: Rules, text: &str, kinds: &[StubKind]) -> bool {
    if !kinds.iter().all(|k| RULED_OUT.contains(k)) {
        return true;
    }
    match rules {
        Rules::None => false,
        Rules::Python | Rules::Html => true,
        Rules::Script | Rules::Rust | Rules::Comments => {
            has_code_word(text) || comment_spans(text).any(placeholder_like)
        }
    }
}

/// Whether a comment with this text could be a placeholder or say that code goes here.
fn placeholder_like(comment: &str) -> bool {
    placeholder::has_ellipsis(comment)
        || placeholder::words(comment).iter().any(|w| COMMENT_WORDS.binary_search(&w.as_str()).is_ok())
}

/// From each comment marker in `text` (`//`, `/*`, `#`, `<!--`, `-->`) to where a comment
/// opened there would end: the end of its line, or for `/*` its matching `*/` (counted
/// with nesting, as Rust does; JavaScript's first `*/` comes no later). Markers inside
/// strings and inside comments start spans too, so every real comment lies inside one
/// span, and is not joined to a word next to it: a span ends at a line break, at `*/` or
/// at the end of the text.
fn comment_spans(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    memchr::memchr3_iter(b'/', b'#', b'-', bytes).chain(memchr::memchr_iter(b'<', bytes)).filter_map(
        move |at| {
            let rest = &bytes[at..];
            let end = if rest.starts_with(b"/*") {
                block_end(bytes, at)
            } else if rest.starts_with(b"//")
                || rest.starts_with(b"#")
                || rest.starts_with(b"<!--")
                || rest.starts_with(b"-->")
            {
                memchr::memchr(b'\n', rest).map_or(bytes.len(), |n| at + n)
            } else {
                return None;
            };
            // Markers are ASCII and spans end before a line break, a `*/` or the end, so both
            // ends are character boundaries.
            text.get(at..end)
        },
    )
}

/// Where a block comment opened at `start` ends (after its `*/`), counting nested `/*`.
fn block_end(bytes: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'/', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::languages::language_for;
    use crate::check::stubs::find_all_stubs;
    use proptest::prelude::*;

    const KINDS: &[StubKind] = RULED_OUT;

    fn may(path: &str, text: &str) -> bool {
        may_hold(language_for(path).expect("a checked type").spec().stubs, text, KINDS)
    }

    fn parse_finds(path: &str, text: &str) -> bool {
        find_all_stubs(path, text).iter().any(|s| KINDS.contains(&s.kind))
    }

    #[test]
    fn plain_code_needs_no_parse() {
        let js = "function add(a, b) {\n  // sum of two numbers\n  return a + b;\n}\n";
        assert!(!may("app.js", js));
        assert!(!may("lib.rs", "/// Adds.\nfn add(a: u8, b: u8) -> u8 {\n    a + b /* wrapping? */\n}\n"));
        assert!(!may("style.css", "/* layout */\nbody { margin: 0; }\n"));
        assert!(!parse_finds("app.js", js));
    }

    #[test]
    fn placeholders_and_stub_bodies_are_never_ruled_out() {
        for (path, text) in [
            ("app.js", "function f() {\n  // ... rest of the code\n}\n"),
            ("app.js", "let a = 1;\n// ...\n"),
            ("app.js", "function f() {\n  // timer logic here\n}\n"),
            ("app.js", "function f() {\n  throw new Error('Not implemented');\n}\n"),
            ("app.ts", "class A {\n  m(): void {\n    throw new NotImplementedError();\n  }\n}\n"),
            ("lib.rs", "fn f() {\n    todo!()\n}\n"),
            ("lib.rs", "fn f() {\n    /* outer /* inner */ rest of the code */\n}\n"),
            ("style.css", "body { margin: 0; }\n/* ... */\n"),
            ("run.sh", "echo hi\n# existing code here\n"),
            ("main.py", "def f():\n    pass\n"),
        ] {
            assert!(may(path, text), "{path}: {text:?}");
            assert!(parse_finds(path, text), "the parse finds it too: {path}: {text:?}");
        }
    }

    #[test]
    fn a_nested_rust_comment_is_read_to_its_own_end() {
        let text = "/* a /* b */ rest */\nfn main() {}\n";
        assert!(comment_spans(text).any(|s| s.contains("rest")));
    }

    /// Pieces of source an agent writes, placeholders among them, in every language whose
    /// parse the test may skip.
    fn piece() -> impl Strategy<Value = String> {
        let words = prop::sample::select(vec![
            "rest",
            "of",
            "the",
            "code",
            "here",
            "todo",
            "TODO",
            "existing",
            "logic",
            "your",
            "add",
            "more",
            "omitted",
            "for",
            "brevity",
            "later",
            "goes",
            "implement",
            "timer",
            "sum",
            "items",
            "returns",
            "...",
            "…",
            "x",
            "not",
            "implemented",
            "stub",
            "tbd",
        ]);
        let comment = (prop::collection::vec(words.clone(), 0..6), 0..5usize).prop_map(|(w, style)| {
            let body = w.join(" ");
            match style {
                0 => format!("// {body}\n"),
                1 => format!("/* {body} */\n"),
                2 => format!("# {body}\n"),
                3 => format!("<!-- {body} -->\n"),
                _ => format!("/* a /* {body} */ b */\n"),
            }
        });
        let message = prop::collection::vec(words, 0..4).prop_map(|w| w.join(" "));
        prop_oneof![
            comment.clone(),
            comment.prop_map(|c| format!("function f() {{\n  {c}}}\n")),
            message.clone().prop_map(|m| format!("function g() {{\n  throw new Error(\"{m}\");\n}}\n")),
            message.clone().prop_map(|m| format!("fn h() {{\n    unimplemented!(\"{m}\")\n}}\n")),
            message.prop_map(|m| format!("const s = \"// {m}\";\n")),
            Just("fn k() {\n    todo!()\n}\n".to_owned()),
            Just("let total = items.reduce((a, b) => a + b, 0);\n".to_owned()),
            Just("body { color: red; }\n".to_owned()),
            Just("echo done\n".to_owned()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// Soundness: whenever the test rules a text out, the parse finds nothing there.
        #[test]
        fn what_is_ruled_out_the_parse_never_finds(
            pieces in prop::collection::vec(piece(), 1..8),
            which in 0usize..6,
        ) {
            let path = ["app.js", "app.ts", "app.tsx", "lib.rs", "style.css", "run.sh"][which];
            let text = pieces.concat();
            if !may(path, &text) {
                prop_assert!(!parse_finds(path, &text), "{path}: {text:?}");
            }
        }
    }
}
