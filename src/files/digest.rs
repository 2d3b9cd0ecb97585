//! The sha256 of files after appends, kept as running hash states so that the digest after an
//! append costs the chunk, not the whole file.
//!
//! Every write result carries the whole file's sha256 (for `expected_sha256` and the journal).
//! Hashing 1.5 MB anew after each of thousands of small appends made the ten-thousandth append
//! several times slower than the first. A state is reused only when the file is still at the
//! version the last append left it at (for the server: size, mtime, device and inode), the
//! rule the check cache follows; any other change makes the next append hash the file whole.

use std::collections::HashMap;
use std::sync::Mutex;

use sha2::{Digest, Sha256};

/// Files whose running state is kept; past this the map starts afresh (a state is ~100 bytes).
const MAX_FILES: usize = 4096;

/// Running sha256 states by file key, each with the file version it describes.
pub struct Digests<V> {
    states: Mutex<HashMap<String, (V, Sha256)>>,
}

impl<V> std::fmt::Debug for Digests<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Digests").finish_non_exhaustive()
    }
}

impl<V> Default for Digests<V> {
    fn default() -> Self {
        Digests { states: Mutex::new(HashMap::new()) }
    }
}

impl<V: PartialEq + Copy> Digests<V> {
    /// The hex sha256 of `whole`, the content of `key` after an append turned version `before`
    /// (its first `size_before` bytes) into version `after`. Only the appended part is hashed
    /// when the state after the last append is still the file's; otherwise all of it is.
    pub fn after_append(&self, key: &str, before: V, after: V, whole: &[u8], size_before: usize) -> String {
        let mut states = self.states.lock().unwrap_or_else(|p| p.into_inner());
        let size_before = size_before.min(whole.len());
        let mut state = match states.remove(key) {
            Some((version, state)) if version == before => state,
            _ => Sha256::new_with_prefix(&whole[..size_before]),
        };
        state.update(&whole[size_before..]);
        let hex = super::hex(&state.clone().finalize());
        if states.len() >= MAX_FILES {
            states.clear();
        }
        states.insert(key.to_owned(), (after, state));
        hex
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::sha256_hex;

    #[test]
    fn digests_after_appends_equal_hashing_the_whole_file() {
        let digests = Digests::<u32>::default();
        let mut whole = Vec::new();
        for (version, chunk) in [&b"first "[..], b"second ", b"", b"third\n"].iter().enumerate() {
            let size_before = whole.len();
            whole.extend_from_slice(chunk);
            let v = version as u32;
            assert_eq!(digests.after_append("a.js", v, v + 1, &whole, size_before), sha256_hex(&whole));
        }
    }

    #[test]
    fn a_file_changed_by_someone_else_is_hashed_whole() {
        let digests = Digests::<u32>::default();
        digests.after_append("a.js", 0, 1, b"abc", 0);
        // The file is not at version 1 any more: another writer replaced its start.
        let whole = b"XYZdef";
        assert_eq!(digests.after_append("a.js", 7, 8, whole, 3), sha256_hex(whole));
    }
}
