//! Stub detection over any text, for every language: never panics, every stub it reports is
//! on a line of the text, and the write-time prefilter never rules out a text in which the
//! parse finds a placeholder comment or a stub body.
#![no_main]

use filewright::check::stubs;
use libfuzzer_sys::fuzz_target;

const PATHS: [&str; 10] = ["a.py", "a.js", "a.ts", "a.rs", "a.html", "a.css", "a.sh", "a.go", "a.pyi", "__init__.py"];

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else { return };
    let path = PATHS[first as usize % PATHS.len()];
    let text = String::from_utf8_lossy(rest);
    let lines = text.split('\n').count();
    let kinds = [stubs::StubKind::PlaceholderComment, stubs::StubKind::StubBody];
    let ruled_out = !stubs::may_hold(path, &text, &kinds);
    for stub in stubs::find_all_stubs(path, &text) {
        assert!(stub.line >= 1 && stub.line <= lines, "{path}: stub on line {} of {lines}", stub.line);
        assert!(!(ruled_out && kinds.contains(&stub.kind)), "{path}: the prefilter ruled out {stub:?}");
    }
    let _ = stubs::holds_code(path, &text);
    let _ = stubs::linked_assets(&text);
});
