//! Recently checked files' syntax trees, kept so that the check after an append re-parses
//! only the new part.
//!
//! A tree costs about [`TREE_COST_PER_BYTE`] times its source in memory, so the cache is
//! bounded by estimated bytes, dropping the least recently used trees first. A tree is only
//! reused when the file still has the fingerprint (size, mtime, device, inode) the server saw
//! after its own last write: any change made by someone else invalidates it.

use std::collections::HashMap;

use tree_sitter::{InputEdit, Point, Tree};

/// Memory a tree costs per byte of source (measured: ~24x).
pub const TREE_COST_PER_BYTE: usize = 24;

/// Default memory budget for cached trees.
pub const DEFAULT_BUDGET_BYTES: usize = 64 * 1024 * 1024;

/// What identifies one version of a file on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Device number.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
}

struct Entry {
    tree: Tree,
    fingerprint: Fingerprint,
    /// Bytes of source the tree was parsed from, and where that source ended.
    text_len: usize,
    end: Point,
    cost: usize,
    last_used: u64,
}

/// Trees by file key (the root-relative path), bounded by estimated memory.
pub struct TreeCache {
    budget: usize,
    used: usize,
    clock: u64,
    entries: HashMap<String, Entry>,
}

impl std::fmt::Debug for TreeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeCache")
            .field("budget", &self.budget)
            .field("used", &self.used)
            .field("files", &self.entries.len())
            .finish()
    }
}

impl TreeCache {
    /// An empty cache holding trees worth at most `budget_bytes` (estimated).
    pub fn new(budget_bytes: usize) -> Self {
        TreeCache { budget: budget_bytes, used: 0, clock: 0, entries: HashMap::new() }
    }

    /// Estimated memory held now.
    pub fn used_bytes(&self) -> usize {
        self.used
    }

    /// Removes and returns the tree for `key`, edited for an append that turned the old
    /// text into `new_text` (the old text must be a prefix of it), but only when the file
    /// still had `before` as its fingerprint just before the append. None otherwise: the
    /// caller then parses from scratch.
    pub fn take_for_append(&mut self, key: &str, before: Fingerprint, new_text: &str) -> Option<Tree> {
        let entry = self.remove(key)?;
        if entry.fingerprint != before
            || entry.text_len > new_text.len()
            || !new_text.is_char_boundary(entry.text_len)
        {
            return None;
        }
        let mut tree = entry.tree;
        tree.edit(&InputEdit {
            start_byte: entry.text_len,
            old_end_byte: entry.text_len,
            new_end_byte: new_text.len(),
            start_position: entry.end,
            old_end_position: entry.end,
            new_end_position: advance(entry.end, &new_text[entry.text_len..]),
        });
        Some(tree)
    }

    /// Stores the tree of `text`, which is now on disk with `fingerprint`.
    pub fn insert(&mut self, key: &str, tree: Tree, text: &str, fingerprint: Fingerprint) {
        self.remove(key);
        let cost = text.len().saturating_mul(TREE_COST_PER_BYTE);
        if cost > self.budget {
            return;
        }
        while self.used + cost > self.budget {
            let Some(oldest) = self.entries.iter().min_by_key(|(_, e)| e.last_used).map(|(k, _)| k.clone())
            else {
                break;
            };
            self.remove(&oldest);
        }
        self.clock += 1;
        self.used += cost;
        let end = advance(Point { row: 0, column: 0 }, text);
        self.entries.insert(
            key.to_string(),
            Entry { tree, fingerprint, text_len: text.len(), end, cost, last_used: self.clock },
        );
    }

    /// Forgets the tree for `key` (the file was replaced or changed).
    pub fn invalidate(&mut self, key: &str) {
        self.remove(key);
    }

    fn remove(&mut self, key: &str) -> Option<Entry> {
        let entry = self.entries.remove(key)?;
        self.used -= entry.cost;
        Some(entry)
    }
}

/// The point after `text` when it starts at `from` (rows by `\n`, columns in bytes, as
/// tree-sitter counts them).
fn advance(from: Point, text: &str) -> Point {
    match text.rfind('\n') {
        Some(last) => Point { row: from.row + text.matches('\n').count(), column: text.len() - last - 1 },
        None => Point { row: from.row, column: from.column + text.len() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check, check_incremental};
    use proptest::prelude::*;

    const SAMPLE_PY: &str = include_str!("testdata/sample.py");
    const SAMPLE_JS: &str = include_str!("testdata/sample.js");

    fn fp(size: usize, mtime_ns: i128) -> Fingerprint {
        Fingerprint { size: size as u64, mtime_ns, dev: 1, ino: 7 }
    }

    /// Appends `parts` one by one through the cache and checks every step against a fresh
    /// check of the same text: reports and trees must be identical.
    fn appends_match_fresh_parse(path: &str, parts: &[&str]) {
        let mut cache = TreeCache::new(DEFAULT_BUDGET_BYTES);
        let mut text = String::new();
        for (i, part) in parts.iter().enumerate() {
            let before = fp(text.len(), i as i128);
            text.push_str(part);
            let old = cache.take_for_append(path, before, &text);
            assert_eq!(old.is_some(), i > 0, "step {i}: the tree is reused after the first write");
            let (report, tree) = check_incremental(path, &text, old.as_ref());
            let fresh = check(path, &text);
            assert_eq!(report, fresh, "step {i} of {path}");
            let tree = tree.expect("tree-sitter language");
            let (fresh_report, fresh_tree) = check_incremental(path, &text, None);
            assert_eq!(fresh_report, fresh);
            assert_eq!(
                tree.root_node().to_sexp(),
                fresh_tree.expect("tree").root_node().to_sexp(),
                "step {i}"
            );
            cache.insert(path, tree, &text, fp(text.len(), i as i128 + 1));
        }
    }

    fn split_at(text: &str, cuts: &[usize]) -> Vec<String> {
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (text.len() + 1)).collect();
        bounds.push(0);
        bounds.push(text.len());
        bounds.sort_unstable();
        bounds.dedup();
        bounds.retain(|&b| text.is_char_boundary(b));
        bounds.windows(2).map(|w| text[w[0]..w[1]].to_string()).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn incremental_checks_after_random_appends_equal_fresh_checks(
            cuts in proptest::collection::vec(any::<usize>(), 1..12),
            js in any::<bool>(),
        ) {
            let (path, sample) = if js { ("a.js", SAMPLE_JS) } else { ("a.py", SAMPLE_PY) };
            let parts = split_at(sample, &cuts);
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            appends_match_fresh_parse(path, &parts);
        }
    }

    #[test]
    fn a_changed_fingerprint_invalidates_the_tree() {
        let mut cache = TreeCache::new(DEFAULT_BUDGET_BYTES);
        let (_, tree) = check_incremental("a.py", "x = 1\n", None);
        cache.insert("a.py", tree.unwrap(), "x = 1\n", fp(6, 1));
        // Someone else rewrote the file: same size, new mtime.
        assert!(cache.take_for_append("a.py", fp(6, 2), "x = 2\ny = 3\n").is_none());
        assert_eq!(cache.used_bytes(), 0);
    }

    #[test]
    fn an_unchanged_fingerprint_gives_the_tree_back_once() {
        let mut cache = TreeCache::new(DEFAULT_BUDGET_BYTES);
        let (_, tree) = check_incremental("a.py", "x = 1\n", None);
        cache.insert("a.py", tree.unwrap(), "x = 1\n", fp(6, 1));
        assert!(cache.take_for_append("a.py", fp(6, 1), "x = 1\ny = 2\n").is_some());
        assert!(cache.take_for_append("a.py", fp(6, 1), "x = 1\ny = 2\n").is_none());
    }

    #[test]
    fn the_budget_evicts_least_recently_used_trees() {
        let text = "x = 1\n".repeat(100);
        let cost = text.len() * TREE_COST_PER_BYTE;
        let mut cache = TreeCache::new(cost * 2);
        for key in ["a.py", "b.py", "c.py"] {
            let (_, tree) = check_incremental(key, &text, None);
            cache.insert(key, tree.unwrap(), &text, fp(text.len(), 0));
        }
        assert_eq!(cache.used_bytes(), cost * 2);
        let longer = format!("{text}y = 2\n");
        assert!(cache.take_for_append("a.py", fp(text.len(), 0), &longer).is_none(), "oldest evicted");
        assert!(cache.take_for_append("c.py", fp(text.len(), 0), &longer).is_some());
    }

    #[test]
    fn a_tree_larger_than_the_budget_is_not_kept() {
        let mut cache = TreeCache::new(10);
        let (_, tree) = check_incremental("a.py", "x = 1\n", None);
        cache.insert("a.py", tree.unwrap(), "x = 1\n", fp(6, 0));
        assert_eq!(cache.used_bytes(), 0);
    }

    #[test]
    fn advance_counts_rows_and_byte_columns() {
        let p = advance(Point { row: 2, column: 5 }, "ab");
        assert_eq!((p.row, p.column), (2, 7));
        let p = advance(Point { row: 2, column: 5 }, "ab\ncdé");
        assert_eq!((p.row, p.column), (3, 4));
    }
}
