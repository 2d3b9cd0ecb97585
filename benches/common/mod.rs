//! What the corpus benchmarks (`truth`, `stub_corpus`) share: finding files and
//! printing percentages. Included by each with `#[path]`, since every file directly in
//! `benches/` is a benchmark of its own.

use std::path::{Path, PathBuf};

/// Every file under `dir`, in name order (so that seeded choices repeat), skipping the
/// directories whose name `skip` accepts.
pub fn walk(dir: &Path, skip: &dyn Fn(&str) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let Ok(kind) = entry.file_type() else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        if kind.is_dir() && !skip(&name) {
            walk(&entry.path(), skip, out);
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
}

/// `part` of `whole` as "12.3%", or "-" when there is nothing to divide by.
pub fn pct(part: usize, whole: usize) -> String {
    if whole == 0 { "-".into() } else { format!("{:.1}%", 100.0 * part as f64 / whole as f64) }
}
