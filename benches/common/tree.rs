//! The large tree the benchmarks that time a whole project build (`search_find`,
//! `check_repeat`): a copy of cargo's unpacked registry sources, tens of thousands of files of
//! real code. Included by each with `#[path]`, since every file directly in `benches/` is a
//! benchmark of its own.

// Each benchmark that includes this file uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Where the registry's unpacked sources are.
pub fn source_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("FILEWRIGHT_SEARCH_SOURCE") {
        return dir.into();
    }
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    cargo_home.join("registry").join("src")
}

/// Copies the regular files under `from` into `to` (at most `limit`), in name order, and
/// adds our `.gitignore` and `.ignore` at the top. Returns the files and bytes copied.
pub fn build_tree(from: &Path, to: &Path, limit: usize) -> (usize, u64) {
    std::fs::create_dir_all(to).unwrap();
    let mut copied = (0, 0);
    copy_dir(from, to, limit, &mut copied);
    assert!(copied.0 > 0, "no files under {}", from.display());
    // Directories left out by each kind of ignore file, as a project's own would.
    std::fs::write(to.join(".gitignore"), "benches/\nwindows-sys-0.52.0/\n*.min.js\n").unwrap();
    std::fs::write(to.join(".ignore"), "windows_i686_gnu-*/\nfixtures/\n").unwrap();
    copied
}

/// Copies the regular files under `from` into `to`, in name order, until `copied` counts
/// `limit` files; adds the files and bytes copied to `copied`.
pub fn copy_dir(from: &Path, to: &Path, limit: usize, copied: &mut (usize, u64)) {
    let Ok(entries) = std::fs::read_dir(from) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if copied.0 >= limit {
            return;
        }
        let Ok(kind) = entry.file_type() else { continue };
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target, limit, copied);
        } else if kind.is_file()
            && let Ok(n) = std::fs::copy(entry.path(), &target)
        {
            copied.0 += 1;
            copied.1 += n;
        }
    }
}

/// Every regular file under `dir`, in path order (each directory's entries sorted by name).
pub fn files_in_path_order(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => walk(&entry.path(), out),
                Ok(kind) if kind.is_file() => out.push(entry.path()),
                _ => {}
            }
        }
    }
    let mut all = Vec::new();
    walk(dir, &mut all);
    all
}
