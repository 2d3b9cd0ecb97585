//! The syntax check over any bytes, for every language: never panics, and every problem it
//! reports points inside the text.
#![no_main]

use filewright::check;
use libfuzzer_sys::fuzz_target;

const PATHS: [&str; 16] = [
    "a.py", "a.js", "a.ts", "a.tsx", "a.jsx", "a.rs", "a.json", "a.toml", "a.yaml", "a.html", "a.css", "a.sh",
    "a.md", "a.mjs", "a.pyi", "a.txt",
];

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else { return };
    let path = PATHS[first as usize % PATHS.len()];
    let report = check::check_bytes(path, rest);
    let lines = rest.split(|&b| b == b'\n').count();
    for problem in &report.problems {
        assert!(problem.line >= 1 && problem.line <= lines + 1, "{path}: line {} of {lines}", problem.line);
    }
    if let Ok(text) = std::str::from_utf8(rest) {
        let _ = check::outline::outline(path, text);
    }
});
