//! Append 4 KB to a ~1 MB Python or JavaScript file and check it: incremental (the cached
//! tree, edited) versus a full parse. Target: incremental at most 15% of the full check.
//!
//! Run: `cargo bench --bench append_check` (release build). Prints a Markdown table for
//! BENCHMARKS.md. Plain `harness = false`: medians over repeated runs, no extra crates.

use std::time::{Duration, Instant};

use filewright::check::cache::{DEFAULT_BUDGET_BYTES, Fingerprint, TreeCache};
use filewright::check::check_incremental;

const SAMPLE_PY: &str = include_str!("../src/check/testdata/sample.py");
const SAMPLE_JS: &str = include_str!("../src/check/testdata/sample.js");
const RUNS: usize = 25;

fn main() {
    // `cargo test` runs benches once with --bench absent; keep that fast.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { RUNS };
    println!("| file | size | full check (median) | append 4 KB + incremental check (median) | ratio |");
    println!("|---|---|---|---|---|");
    for (path, sample) in [("big.py", SAMPLE_PY), ("big.js", SAMPLE_JS)] {
        let base = repeat_to(sample, 1 << 20);
        let chunk = repeat_to(sample, 4 << 10);
        let full_text = format!("{base}{chunk}");
        let (_, base_tree) = check_incremental(path, &base, None);
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
            cache.insert(path, base_tree.clone(), &base, fp);
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
    }
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
