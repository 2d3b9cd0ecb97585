//! Append 4 KB to a ~1 MB Python or JavaScript file and check it: incremental (the cached
//! tree, edited) versus a full parse. Target: incremental at most 15% of the full check.
//!
//! Run: `cargo bench --bench append_check` (release build). Prints a Markdown table for
//! BENCHMARKS.md. Plain `harness = false`: medians over repeated runs, no extra crates.

use std::time::{Duration, Instant};

use filewright::check::cache::{DEFAULT_BUDGET_BYTES, Fingerprint, TreeCache};
use filewright::check::{check_incremental, language_for, parse_tree};

const SAMPLE_PY: &str = include_str!("../src/check/testdata/sample.py");
const SAMPLE_JS: &str = include_str!("../src/check/testdata/sample.js");
const RUNS: usize = 25;

fn main() {
    // `cargo test` runs benches once with --bench absent; keep that fast.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { RUNS };
    println!("| file | size | full check (median) | append 4 KB + incremental check (median) | ratio |");
    println!("|---|---|---|---|---|");
    // flat.py: a module of ~30,000 small top-level functions, the shape where Python's
    // incremental re-parse is slowest.
    let flat_line = |i: usize| format!("def f_{i}(x):\n    return x * {i}\n\n");
    let flat: String = (0..30_000).map(flat_line).collect();
    let flat_chunk: String = (0..120).map(|i| flat_line(100_000 + i)).collect();
    let cases = [
        ("big.py", repeat_to(SAMPLE_PY, 1 << 20), repeat_to(SAMPLE_PY, 4 << 10)),
        ("big.js", repeat_to(SAMPLE_JS, 1 << 20), repeat_to(SAMPLE_JS, 4 << 10)),
        ("flat.py", flat, flat_chunk),
    ];
    let mut steps = Vec::new();
    for (path, base, chunk) in &cases {
        let (path, base, chunk) = (*path, base.as_str(), chunk.as_str());
        let full_text = format!("{base}{chunk}");
        let (_, base_tree) = check_incremental(path, base, None);
        let base_tree = base_tree.expect("tree-sitter language");
        let fp = Fingerprint { size: base.len() as u64, mtime_ns: 1, dev: 1, ino: 1 };

        let full = median(runs, || {
            let start = Instant::now();
            let (report, _) = check_incremental(path, &full_text, None);
            std::hint::black_box(report);
            start.elapsed()
        });
        let incremental = median(runs, || {
            let mut cache = TreeCache::new(DEFAULT_BUDGET_BYTES);
            cache.insert(path, base_tree.clone(), base, fp);
            let start = Instant::now();
            let old = cache.take_for_append(path, fp, &full_text);
            assert!(old.is_some());
            let (report, _) = check_incremental(path, &full_text, old.as_ref());
            std::hint::black_box(report);
            start.elapsed()
        });
        println!(
            "| {path} | {:.2} MB | {:.1} ms | {:.1} ms | {:.1}% |",
            full_text.len() as f64 / 1e6,
            ms(full),
            ms(incremental),
            100.0 * incremental.as_secs_f64() / full.as_secs_f64()
        );
        steps.push((path, step_times(runs, path, base, &full_text, &base_tree)));
    }
    println!();
    println!("| file | tree edit | incremental re-parse | error check of the new tree |");
    println!("|---|---|---|---|");
    for (path, (edit, parse, errors)) in steps {
        println!("| {path} | {:.1} us | {:.1} ms | {:.1} us |", us(edit), ms(parse), us(errors));
    }
}

/// Medians of the three steps of an incremental check, measured one by one.
fn step_times(
    runs: usize,
    path: &str,
    base: &str,
    full_text: &str,
    base_tree: &tree_sitter::Tree,
) -> (Duration, Duration, Duration) {
    let lang = language_for(path).expect("checked language");
    let fp = Fingerprint { size: base.len() as u64, mtime_ns: 1, dev: 1, ino: 1 };
    let (mut edits, mut parses, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let mut cache = TreeCache::new(DEFAULT_BUDGET_BYTES);
        cache.insert(path, base_tree.clone(), base, fp);
        let start = Instant::now();
        let old = cache.take_for_append(path, fp, full_text).expect("fingerprint matches");
        edits.push(start.elapsed());
        let start = Instant::now();
        let tree = parse_tree(lang, full_text, Some(&old)).expect("within the deadline");
        parses.push(start.elapsed());
        let start = Instant::now();
        std::hint::black_box(tree.root_node().has_error());
        errors.push(start.elapsed());
    }
    (median_of(edits), median_of(parses), median_of(errors))
}

fn median_of(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
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
    median_of((0..runs).map(|_| f()).collect())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
