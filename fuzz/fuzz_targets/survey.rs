//! The finish check's verdict and survey of any bytes, for the languages read off their
//! verdict parser's tree (oxc for scripts, rust-analyzer's parser for Rust) and one read off
//! tree-sitter's: never panics, and every stub it reports is on a line of the text.
#![no_main]

use filewright::check::{self, RustEdition};
use filewright::files::encoding;
use libfuzzer_sys::fuzz_target;

const PATHS: [&str; 7] = ["a.js", "a.mjs", "a.ts", "a.tsx", "a.rs", "a.py", "a.html"];

fuzz_target!(|data: &[u8]| {
    let Some((&first, bytes)) = data.split_first() else { return };
    let path = PATHS[first as usize % PATHS.len()];
    let text = encoding::lossy_text(bytes);
    let lines = text.split('\n').count();
    let (_report, survey) = check::check_and_survey(path, bytes, &text, RustEdition::default());
    for stub in &survey.stubs {
        assert!(stub.line >= 1 && stub.line <= lines, "{path}: stub on line {} of {lines}", stub.line);
    }
});
