//! File operations with their policies, on top of the sandbox: whole-file writes, appends that
//! cannot duplicate on retry, and numbered reads. Syntax checks and bookkeeping live elsewhere.

mod append;
mod edit;
mod list;
mod read;
mod write;

pub use append::{Appended, DEDUPE_MIN_BYTES, append};
pub use edit::{Edit, Edited, apply as apply_edits, unified_diff};
pub use list::{ListOptions, Listed, Listing, MAX_ENTRIES, list};
pub use read::{DEFAULT_READ_LIMIT, MAX_LINE_CHARS, ReadView, number_lines, read};
pub use write::{Written, write};

/// Counts lines the way an editor shows them: a final newline does not start another line.
pub fn count_lines(text: &[u8]) -> usize {
    if text.is_empty() {
        return 0;
    }
    let newlines = text.iter().filter(|&&b| b == b'\n').count();
    if text.ends_with(b"\n") { newlines } else { newlines + 1 }
}

#[cfg(test)]
mod tests {
    use super::count_lines;

    #[test]
    fn count_lines_ignores_final_newline() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"a"), 1);
        assert_eq!(count_lines(b"a\n"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
        assert_eq!(count_lines(b"a\r\nb\r\n"), 2);
    }
}
