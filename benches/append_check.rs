//! Append 4 KB to a ~1 MB file and check it, the way `append_file` does: the check of
//! the old text left a resume point (or, for tree-sitter languages, a tree) in the cache,
//! and the new check parses only from there. Compared with a full check of the same text.
//!
//! Cases: Python, JavaScript and Rust made of a valid sample repeated; `flat.py` (30,000
//! tiny top-level functions); each both *complete* (the old text ends between two
//! top-level statements) and *unfinished* (the old text and the chunk both end at a line
//! inside a function or class, as between real appends). `wrapped.js` puts the whole
//! file inside one `(function () { ... })` wrapper, the worst shape: no top-level
//! statement to resume from, so every check parses it all.
//!
//! Run: `cargo bench --bench append_check` (release build). Prints a Markdown table for
//! BENCHMARKS.md. Plain `harness = false`: medians over repeated runs, no extra crates.
//! Target: at most 10 ms per append + check on this 2-core machine.

use std::time::{Duration, Instant};

use filewright::check::cache::{CheckCache, DEFAULT_BUDGET_BYTES};
use filewright::check::{Status, check};

const SAMPLE_PY: &str = include_str!("../src/check/testdata/sample.py");
const SAMPLE_JS: &str = include_str!("../src/check/testdata/sample.js");
const SAMPLE_RS: &str = include_str!("../src/check/testdata/sample.rs");
const RUNS: usize = 25;
const MB: usize = 1 << 20;
const CHUNK: usize = 4 << 10;

fn main() {
    // `cargo test` runs benches once with --bench absent; keep that fast.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { RUNS };
    println!(
        "| file | old text | size | full check (median) | append 4 KB + incremental check (median) | verdict |"
    );
    println!("|---|---|---|---|---|---|");
    let flat_line = |i: usize| format!("def f_{i}(x):\n    return x * {i}\n\n");
    let flat: String = (0..32_000).map(flat_line).collect();
    let wrapped = format!("(function () {{\n{}\n}})();\n", repeat_to(SAMPLE_JS, MB + 2 * CHUNK));
    let texts = [
        ("big.py", repeat_to(SAMPLE_PY, MB + 2 * CHUNK)),
        ("big.js", repeat_to(SAMPLE_JS, MB + 2 * CHUNK)),
        ("big.rs", repeat_to(SAMPLE_RS, MB + 2 * CHUNK)),
        ("flat.py", flat),
        ("wrapped.js", wrapped),
    ];
    for (path, text) in &texts {
        for unfinished in [false, true] {
            let (base, chunk) = split(text, unfinished);
            run_case(path, base, chunk, unfinished, runs);
        }
    }
}

/// The old text (~1 MB) and a ~4 KB chunk of `text` that follows it. Complete: both end
/// where a new top-level statement starts. Unfinished: both end at an indented line.
fn split(text: &str, unfinished: bool) -> (&str, &str) {
    let cut = |from: usize| {
        let mut at = from;
        loop {
            let next = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
            let line = &text[next..];
            let indented = line.starts_with(' ') || line.starts_with('\t');
            if next >= text.len() || (indented == unfinished && !line.trim().is_empty()) {
                return next;
            }
            at = next;
        }
    };
    let base_end = cut(MB);
    let chunk_end = cut(base_end + CHUNK);
    (&text[..base_end], &text[base_end..chunk_end])
}

fn run_case(path: &str, base: &str, chunk: &str, unfinished: bool, runs: usize) {
    let full_text = format!("{base}{chunk}");
    let full = median(runs, || {
        let start = Instant::now();
        std::hint::black_box(check(path, &full_text));
        start.elapsed()
    });
    let mut status = Status::NotChecked;
    let incremental = median(runs, || {
        // Version 1 of the file is the base, version 2 the base and the chunk.
        let cache = CheckCache::new(DEFAULT_BUDGET_BYTES);
        cache.check_written(path, base, Some(1u8));
        assert!(cache.used_bytes() > 0, "the check of the base was kept");
        let start = Instant::now();
        let report = cache.check_appended(path, full_text.as_bytes(), 1, 2);
        let elapsed = start.elapsed();
        status = report.status;
        elapsed
    });
    println!(
        "| {path} | {} | {:.2} MB | {:.1} ms | {:.2} ms | {status:?} |",
        if unfinished { "unfinished" } else { "complete" },
        full_text.len() as f64 / 1e6,
        ms(full),
        ms(incremental),
    );
}

/// `sample` repeated (whole copies, so the result stays valid) to at least `bytes`.
fn repeat_to(sample: &str, bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + sample.len());
    while out.len() < bytes {
        out.push_str(sample);
    }
    out
}

fn median(runs: usize, mut f: impl FnMut() -> Duration) -> Duration {
    let mut times: Vec<Duration> = (0..runs).map(|_| f()).collect();
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
