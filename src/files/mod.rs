//! File operations with their policies, on top of the sandbox: whole-file writes, appends that
//! cannot duplicate on retry, and numbered reads. Syntax checks and bookkeeping live elsewhere.

mod append;
mod edit;
mod list;
mod read;
mod write;

pub use append::{Appended, DEDUPE_MIN_BYTES, append};
pub use edit::{Edit, Edited, apply as apply_edits, unified_diff};
pub use list::{ListOptions, Listing, MAX_ENTRIES, list};
pub use read::{DEFAULT_READ_LIMIT, MAX_LINE_CHARS, ReadView, number_lines, read};
pub use write::{Written, write};
