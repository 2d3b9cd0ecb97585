//! The house rule of `check/`: the readers of a file (the stub scan, the references, the names)
//! stand on the rooms they share (`html.rs`, `tree.rs`, `script_tree.rs`, `syntax.rs`,
//! `parsers/`, `languages.rs`) and never on one another, so that a change to one reader cannot
//! change what another finds. Read off the source: a `use` that breaks the rule fails here.

use std::path::{Path, PathBuf};

/// The `.rs` files at `path` (a file, or a directory and all below it), tests left out.
fn code_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).unwrap().flatten() {
        let path = entry.path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            files.extend(code_files(&path));
        } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
            files.push(path);
        }
    }
    files
}

/// The readers (and the survey that runs them) that the code at `path` names, outside its
/// unit tests and comments, with the file that names each.
fn named_modules(path: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    for file in code_files(path) {
        let text = std::fs::read_to_string(&file).unwrap();
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
        for line in code.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
            for module in ["stubs", "refs", "names", "survey"] {
                let named = [
                    format!("crate::check::{module}"),
                    format!("super::{module}"),
                    format!("super::super::{module}"),
                ];
                if named.iter().any(|n| line.contains(&format!("{n}::")) || line.contains(&format!("{n};"))) {
                    found.push((file.clone(), module.to_string()));
                }
            }
        }
    }
    found
}

fn check_dir(reader: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/check").join(reader)
}

#[test]
fn the_stub_scan_stands_on_no_other_reader() {
    let named: Vec<_> =
        named_modules(&check_dir("stubs")).into_iter().filter(|(_, m)| m != "stubs").collect();
    assert!(named.is_empty(), "stubs/ names another reader: {named:?}");
}

#[test]
fn the_names_readers_stand_on_no_other_reader() {
    let named: Vec<_> =
        named_modules(&check_dir("names")).into_iter().filter(|(_, m)| m != "names").collect();
    assert!(named.is_empty(), "names/ names another reader: {named:?}");
}

#[test]
fn the_references_stand_on_no_stub_rule_and_no_survey() {
    let named: Vec<_> = named_modules(&check_dir("refs"))
        .into_iter()
        .filter(|(_, m)| m == "stubs" || m == "survey")
        .collect();
    assert!(named.is_empty(), "refs/ names the stub scan or the survey: {named:?}");
}

#[test]
fn the_shared_rooms_stand_on_no_reader() {
    for room in ["html.rs", "tree.rs", "script_tree.rs", "syntax.rs", "languages.rs", "parsers"] {
        let named = named_modules(&check_dir(room));
        assert!(named.is_empty(), "{room} names a reader: {named:?}");
    }
}
