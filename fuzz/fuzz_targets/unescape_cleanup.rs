//! What models send by mistake: over-escaped content and read_file's line prefixes or a fence
//! around a whole file. Detection and repair never panic, and a repair is stable: cleaning
//! cleaned content changes nothing more.
#![no_main]

use filewright::{cleanup, unescape};
use libfuzzer_sys::fuzz_target;

const PATHS: [&str; 5] = ["a.py", "b.js", "c.md", "d.rs", "e.txt"];

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let path = PATHS[first as usize % PATHS.len()];
    let _ = unescape::looks_over_escaped(&text);
    let _ = unescape::count_escaped_newlines(&text);
    let _ = unescape::unescape_if_over_escaped(&text);
    if let Some((cleaned, _)) = cleanup::clean(path, &text) {
        assert!(cleaned.len() <= text.len(), "cleaning only removes");
    }
    let (once, _) = cleanup::cleaned(path, &text);
    let _ = cleanup::cleaned(path, &once);
});
