//! File operations with their policies, on top of the sandbox: whole-file writes, appends that
//! cannot duplicate on retry, and numbered reads. Syntax checks and bookkeeping live elsewhere.

pub mod anchor;
mod append;
pub mod cores;
mod digest;
mod edit;
pub mod encoding;
mod find;
mod glob;
mod ignore_rules;
mod list;
pub mod matcher;
pub mod media;
pub mod patch;
mod read;
mod search;
mod tree;
mod walk;
mod write;

pub use append::{Appended, DEDUPE_MIN_BYTES, Expected, Interrupted, Pending, RolledBack, append, roll_back};
pub use digest::Digests;
pub use edit::{Edit, Edited, apply as apply_edits, unified_diff};
pub use find::{Found, FoundFile, find};
pub use glob::PathGlob;
pub use ignore_rules::is_ignored;
pub use list::{ListOptions, Listing, MAX_ENTRIES, list};
pub use read::{
    DEFAULT_READ_LIMIT, MAX_LINE_CHARS, ReadView, Window, cut_line, number_decoded, number_lines, read,
    read_text,
};
pub use search::{FileHits, HitLine, MAX_CONTEXT, Query, Searched, search};
pub use walk::{FileAt, MAX_VISITED, Walk, Walked, walk_files};
pub use write::{Written, land, stage, write};

/// Hex sha256 of a file's bytes: what the journal records, results report and
/// `expected_sha256` is compared with.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex(&Sha256::digest(bytes))
}

/// Lower-case hex of a digest, as [`sha256_hex`] writes it.
fn hex(digest: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(digest.len() * 2);
    for &b in digest {
        text.push(DIGITS[usize::from(b >> 4)] as char);
        text.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_hex_gives_the_published_digests() {
        // FIPS 180-2's example and the empty input.
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}
