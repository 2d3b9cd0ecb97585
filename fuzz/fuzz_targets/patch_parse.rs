//! The `apply_patch` parser: any text never panics; an error names a line of the patch; a
//! parsed patch names each path once, never empty nor absolute, and every hunk's texts are
//! built from its lines.
#![no_main]

use std::collections::HashSet;

use filewright::files::patch::{FilePatch, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match parse(&text) {
        Err(e) => {
            let lines = text.strip_prefix('\u{feff}').unwrap_or(&text).split('\n').count();
            assert!(e.line >= 1 && e.line <= lines.max(1), "{e} in {lines} lines");
        }
        Ok(patch) => {
            assert!(!patch.files.is_empty());
            let mut seen = HashSet::new();
            for file in &patch.files {
                let mut paths = vec![file.path()];
                if let FilePatch::Update { move_to: Some(to), .. } = file {
                    paths.push(to);
                }
                for path in paths {
                    assert!(!path.is_empty() && !path.starts_with('/'), "{path:?}");
                    assert!(seen.insert(path.to_string()), "{path:?} twice");
                }
                if let FilePatch::Update { hunks, move_to, .. } = file {
                    assert!(!hunks.is_empty() || move_to.is_some());
                    for hunk in hunks {
                        assert!(!hunk.lines.is_empty());
                        // No line holds a '\n': each side's text has one per line, but a last
                        // line without one.
                        let old_ends = hunk.old_text().matches('\n').count();
                        assert_eq!(old_ends + usize::from(hunk.old_missing_final_newline), hunk.old_len());
                        let new_ends = hunk.new_text().matches('\n').count();
                        assert_eq!(new_ends + usize::from(hunk.new_missing_final_newline), hunk.new_len());
                    }
                }
            }
        }
    }
});
