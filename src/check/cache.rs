//! The check of files as they are written, keeping what each check leaves behind
//! (a resume point or a syntax tree) so that the check after an append parses only
//! the new part. Callers ask "check this file after this write" or "after this append"; what
//! is kept, and when it may be reused, stays in here.
//!
//! A tree costs about [`TREE_COST_PER_BYTE`] times its source in memory, so the cache is
//! bounded by estimated bytes, dropping the least recently used entries first. An entry is
//! only reused when the file still has the version the caller saw after its own last write
//! (for the server: size, mtime, device and inode), so any change made by someone else
//! invalidates it.

use std::collections::HashMap;
use std::sync::Mutex;

use tree_sitter::{InputEdit, Point};

use super::{Prior, Report, check_appended, check_bytes, check_edited, check_incremental};
use crate::lines;

/// Memory a tree costs per byte of source (measured: ~24x).
pub const TREE_COST_PER_BYTE: usize = 24;

/// Default memory budget for cached trees.
pub const DEFAULT_BUDGET_BYTES: usize = 64 * 1024 * 1024;

/// What a resume point costs to keep: the entry itself.
const RESUME_COST: usize = 64;

/// Texts at least this long are kept after an append, for the next one: below it, reading
/// the file back costs a few microseconds, and keeping every text would cost their memory.
pub const KEEP_TEXT_MIN: usize = 256 * 1024;

/// A file's whole text as the last append left it, with the version it has on disk and its
/// line breaks: the next append adds its chunk instead of reading the file back, and counts
/// lines in the chunk alone.
#[derive(Debug)]
pub struct KnownText<V> {
    /// The file's version on disk holding `text`.
    pub version: V,
    /// The whole file.
    pub text: String,
    /// `\n` bytes in `text`.
    pub newlines: usize,
}

/// Checks of recently written files, with what each left behind, by file key (the
/// root-relative path). `V` identifies one version of a file on disk: the server uses the
/// file's metadata; anything that changes when the file does will do.
pub struct CheckCache<V> {
    /// A `std` mutex: it is held only while an entry is taken or stored, never across a
    /// parse, so two files are checked in parallel.
    entries: Mutex<Entries<V>>,
}

impl<V> std::fmt::Debug for CheckCache<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let entries = self.lock();
        f.debug_struct("CheckCache")
            .field("budget", &entries.budget)
            .field("used", &entries.used)
            .field("files", &entries.map.len())
            .finish()
    }
}

impl<V: PartialEq + Copy> CheckCache<V> {
    /// An empty cache holding trees worth at most `budget_bytes` (estimated).
    pub fn new(budget_bytes: usize) -> Self {
        CheckCache {
            entries: Mutex::new(Entries { budget: budget_bytes, used: 0, clock: 0, map: HashMap::new() }),
        }
    }

    /// Estimated memory held now.
    pub fn used_bytes(&self) -> usize {
        self.lock().used
    }

    /// Checks `text`, the whole new content of `key`, and keeps what the check leaves for
    /// the next append when `version` (the file's version on disk now) is known.
    pub fn check_written(&self, key: &str, text: &str, version: Option<V>) -> Report {
        // What the last check left is of no use for a new text; dropping it before the parse
        // keeps two trees of one file from being held at once.
        self.lock().remove(key);
        let (report, prior) = check_incremental(key, text, None);
        self.keep(key, text, prior, version);
        report
    }

    /// Checks `bytes`, the whole content of `key` after an append that turned version
    /// `before` of the file into version `after`. Only the new part is parsed when the last
    /// check of `key` was of version `before`; otherwise the whole text is.
    pub fn check_appended(&self, key: &str, bytes: &[u8], before: V, after: V) -> Report {
        let Ok(text) = std::str::from_utf8(bytes) else {
            self.lock().remove(key);
            return check_bytes(key, bytes);
        };
        self.check_grown(key, text, before, after)
    }

    /// [`CheckCache::check_appended`] for a whole text already known to be UTF-8, with its
    /// line breaks counted. A long text is kept for the next append to
    /// [take](CheckCache::take_text).
    pub fn check_appended_text(
        &self,
        key: &str,
        text: String,
        newlines: usize,
        before: V,
        after: V,
    ) -> Report {
        let report = self.check_grown(key, &text, before, after);
        if text.len() >= KEEP_TEXT_MIN {
            self.lock().keep_text(key, KnownText { version: after, text, newlines });
        }
        report
    }

    /// The check of `text` after an append that turned version `before` into `after`,
    /// resuming from what the last check of `before` left; keeps what this one leaves.
    fn check_grown(&self, key: &str, text: &str, before: V, after: V) -> Report {
        let old = self.lock().take_for_append(key, before, text);
        let checked = old.as_ref().map_or(0, |(_, len)| *len);
        let (report, prior) = check_appended(key, text, old.map(|(prior, _)| prior), checked);
        self.keep(key, text, prior, Some(after));
        report
    }

    /// Takes the text the last append to `key` left, if it was kept; the caller compares its
    /// version with the file's before relying on it.
    pub fn take_text(&self, key: &str) -> Option<KnownText<V>> {
        self.lock().take_text(key)
    }

    /// Checks `text`, the whole new content of `key` after an edit turned `old` into it;
    /// `before` is the file's version just before the edit, `version` its version now. When
    /// the last check of `key` was of `before`, only the part around the change may need
    /// parsing (see `check_edited`); otherwise the whole text is parsed.
    pub fn check_edit(
        &self,
        key: &str,
        old: &str,
        text: &str,
        before: Option<V>,
        version: Option<V>,
    ) -> Report {
        let prior = {
            let mut entries = self.lock();
            let entry = entries.remove(key);
            entry.filter(|e| Some(e.version) == before && e.text_len == old.len()).map(|e| e.prior)
        };
        let (report, prior) = check_edited(key, old, text, prior);
        self.keep(key, text, prior, version);
        report
    }

    fn keep(&self, key: &str, text: &str, prior: Option<Prior>, version: Option<V>) {
        let mut entries = self.lock();
        match (prior, version) {
            (Some(prior), Some(version)) => entries.insert(key, prior, text, version),
            _ => {
                entries.remove(key);
            }
        }
    }
}

impl<V> CheckCache<V> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Entries<V>> {
        // A cache is valid whatever call panicked while holding it.
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}

struct Entry<V> {
    prior: Prior,
    /// The whole text, when an append left it to the next one (counted in `cost`).
    known: Option<KnownText<V>>,
    version: V,
    /// Bytes of source the entry was made from, and where that source ended.
    text_len: usize,
    end: Point,
    cost: usize,
    last_used: u64,
}

/// The entries, their estimated cost and a clock for least-recently-used eviction.
struct Entries<V> {
    budget: usize,
    used: usize,
    clock: u64,
    map: HashMap<String, Entry<V>>,
}

impl<V: PartialEq + Copy> Entries<V> {
    /// Keeps `known` with the entry of `key`, when that entry is of the same version and
    /// the budget allows.
    fn keep_text(&mut self, key: &str, known: KnownText<V>) {
        let cost = known.text.capacity();
        if self.used + cost > self.budget {
            return;
        }
        if let Some(entry) = self.map.get_mut(key)
            && entry.version == known.version
            && entry.text_len == known.text.len()
        {
            entry.cost += cost;
            self.used += cost;
            entry.known = Some(known);
        }
    }

    fn take_text(&mut self, key: &str) -> Option<KnownText<V>> {
        let entry = self.map.get_mut(key)?;
        let known = entry.known.take()?;
        let cost = known.text.capacity();
        entry.cost -= cost;
        self.used -= cost;
        Some(known)
    }

    /// Removes and returns what the last check of `key` left, made fit for an append that
    /// turned the old text into `new_text` (the old text must be a prefix of it; a tree is
    /// edited), but only when the file still had `before` as its version just before the
    /// append. None otherwise: the caller then parses from scratch.
    fn take_for_append(&mut self, key: &str, before: V, new_text: &str) -> Option<(Prior, usize)> {
        let entry = self.remove(key)?;
        if entry.version != before
            || entry.text_len > new_text.len()
            || !new_text.is_char_boundary(entry.text_len)
        {
            return None;
        }
        let prior = match entry.prior {
            Prior::Resume(at) => Prior::Resume(at),
            // The text only grew: every statement start is still one.
            Prior::Statements { starts, dialect } => Prior::Statements { starts, dialect },
            Prior::Tree(mut tree) => {
                tree.edit(&InputEdit {
                    start_byte: entry.text_len,
                    old_end_byte: entry.text_len,
                    new_end_byte: new_text.len(),
                    start_position: entry.end,
                    old_end_position: entry.end,
                    new_end_position: advance(entry.end, &new_text[entry.text_len..]),
                });
                Prior::Tree(tree)
            }
        };
        Some((prior, entry.text_len))
    }

    /// Stores what the check of `text` left, `text` being now on disk as `version`.
    fn insert(&mut self, key: &str, prior: Prior, text: &str, version: V) {
        self.remove(key);
        let cost = match prior {
            Prior::Tree(_) => text.len().saturating_mul(TREE_COST_PER_BYTE),
            Prior::Resume(_) => RESUME_COST,
            Prior::Statements { ref starts, .. } => RESUME_COST + starts.len() * std::mem::size_of::<usize>(),
        };
        if cost > self.budget {
            return;
        }
        while self.used + cost > self.budget {
            let Some(oldest) = self.map.iter().min_by_key(|(_, e)| e.last_used).map(|(k, _)| k.clone())
            else {
                break;
            };
            self.remove(&oldest);
        }
        self.clock += 1;
        self.used += cost;
        // Only a tree needs to know where its text ended (to be edited); finding out costs a
        // pass over the whole text.
        let end = match prior {
            Prior::Tree(_) => advance(Point { row: 0, column: 0 }, text),
            Prior::Resume(_) | Prior::Statements { .. } => Point { row: 0, column: 0 },
        };
        self.map.insert(
            key.to_string(),
            Entry { prior, known: None, version, text_len: text.len(), end, cost, last_used: self.clock },
        );
    }

    fn remove(&mut self, key: &str) -> Option<Entry<V>> {
        let entry = self.map.remove(key)?;
        self.used -= entry.cost;
        Some(entry)
    }
}

/// The point after `text` when it starts at `from` (rows by `\n`, columns in bytes, as
/// tree-sitter counts them).
fn advance(from: Point, text: &str) -> Point {
    let (rows, column) = lines::end_point(text);
    match rows {
        0 => Point { row: from.row, column: from.column + column },
        _ => Point { row: from.row + rows, column },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check, check_incremental};
    use proptest::prelude::*;

    const SAMPLE_PY: &str = include_str!("testdata/sample.py");
    const SAMPLE_JS: &str = include_str!("testdata/sample.js");
    const SAMPLE_RS: &str = include_str!("testdata/sample.rs");
    const SAMPLE_CSS: &str = include_str!("testdata/sample.css");

    /// A file version as the tests see it: (size, mtime).
    type Version = (usize, i128);

    fn fp(size: usize, mtime_ns: i128) -> Version {
        (size, mtime_ns)
    }

    fn entries(budget: usize) -> Entries<Version> {
        Entries { budget, used: 0, clock: 0, map: HashMap::new() }
    }

    /// Appends `parts` one by one through the cache and checks every step against a fresh
    /// check of the same text: reports (and trees, where there are trees) must be identical.
    fn appends_match_fresh_checks(path: &str, parts: &[&str]) {
        let mut cache = entries(DEFAULT_BUDGET_BYTES);
        let mut text = String::new();
        for (i, part) in parts.iter().enumerate() {
            let before = fp(text.len(), i as i128);
            text.push_str(part);
            let old = cache.take_for_append(path, before, &text);
            assert_eq!(old.is_some(), i > 0, "step {i}: the prior is reused after the first write");
            let checked = old.as_ref().map_or(0, |(_, len)| *len);
            let (report, prior) = crate::check::check_appended(path, &text, old.map(|(p, _)| p), checked);
            let fresh = check(path, &text);
            assert_eq!(report, fresh, "step {i} of {path}:\n{text}");
            let prior = prior.expect("every checked language leaves a prior");
            if let Prior::Tree(tree) = &prior {
                let (_, fresh_prior) = check_incremental(path, &text, None);
                let Some(Prior::Tree(fresh_tree)) = fresh_prior else { panic!("a tree") };
                assert_eq!(tree.root_node().to_sexp(), fresh_tree.root_node().to_sexp(), "step {i}");
            }
            cache.insert(path, prior, &text, fp(text.len(), i as i128 + 1));
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
            which in 0usize..4,
            drop_line in any::<usize>(),
        ) {
            let (path, sample) = [("a.py", SAMPLE_PY), ("a.js", SAMPLE_JS), ("a.rs", SAMPLE_RS), ("a.css", SAMPLE_CSS)][which];
            // Half the runs drop a line, so broken texts go through the cache too.
            let lines: Vec<&str> = sample.split_inclusive('\n').collect();
            let text: String = if drop_line % 2 == 0 {
                sample.to_owned()
            } else {
                let gone = drop_line % lines.len();
                lines.iter().enumerate().filter(|&(i, _)| i != gone).map(|(_, l)| *l).collect()
            };
            let parts = split_at(&text, &cuts);
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            appends_match_fresh_checks(path, &parts);
        }
    }

    /// Every text with one line dropped (what an agent that loses its place between
    /// appends produces), written in two parts split at every line from just before the
    /// drop to four lines after it, and at the end (an empty append): the check after
    /// the append must equal a fresh one. A resume point placed on the statement where
    /// an error is reported, instead of before it, passed the random test above and
    /// fails here.
    #[test]
    fn appends_after_every_dropped_line_equal_fresh_checks() {
        for (path, sample) in
            [("a.py", SAMPLE_PY), ("a.js", SAMPLE_JS), ("a.rs", SAMPLE_RS), ("a.css", SAMPLE_CSS)]
        {
            let lines: Vec<&str> = sample.split_inclusive('\n').collect();
            for gone in 0..lines.len() {
                let kept: Vec<&str> =
                    lines.iter().enumerate().filter(|&(i, _)| i != gone).map(|(_, l)| *l).collect();
                let splits = (gone.saturating_sub(1)..gone + 5).chain([kept.len()]);
                for split in splits {
                    let split = split.min(kept.len());
                    let (head, tail) = (kept[..split].concat(), kept[split..].concat());
                    appends_match_fresh_checks(path, &[head.as_str(), tail.as_str()]);
                }
            }
        }
    }

    /// Only the appended part is scanned for NUL bytes (the part before was checked): one
    /// there still makes the file binary, as a fresh check says.
    #[test]
    fn a_nul_byte_in_an_appended_part_is_seen() {
        let mut cache = entries(DEFAULT_BUDGET_BYTES);
        let (_, prior) = check_incremental("a.js", "let a = 1;\n", None);
        cache.insert("a.js", prior.expect("a prior"), "let a = 1;\n", fp(11, 1));
        let text = "let a = 1;\nlet b = '\0';\n";
        let old = cache.take_for_append("a.js", fp(11, 1), text);
        let (report, _) = crate::check::check_appended("a.js", text, old.map(|(p, _)| p), 11);
        assert_eq!(report, check("a.js", text));
        assert_eq!(report.status, crate::check::Status::NotChecked);
    }

    #[test]
    fn a_changed_fingerprint_invalidates_the_entry() {
        let mut cache = entries(DEFAULT_BUDGET_BYTES);
        let (_, prior) = check_incremental("a.py", "x = 1\n", None);
        cache.insert("a.py", prior.expect("a prior"), "x = 1\n", fp(6, 1));
        // Someone else rewrote the file: same size, new mtime.
        assert!(cache.take_for_append("a.py", fp(6, 2), "x = 2\ny = 3\n").is_none());
        assert_eq!(cache.used, 0);
    }

    #[test]
    fn an_unchanged_fingerprint_gives_the_entry_back_once() {
        let mut cache = entries(DEFAULT_BUDGET_BYTES);
        let (_, prior) = check_incremental("a.css", "a { b: c; }\n", None);
        cache.insert("a.css", prior.expect("a prior"), "a { b: c; }\n", fp(12, 1));
        assert!(cache.take_for_append("a.css", fp(12, 1), "a { b: c; }\nd {}\n").is_some());
        assert!(cache.take_for_append("a.css", fp(12, 1), "a { b: c; }\nd {}\n").is_none());
    }

    #[test]
    fn the_budget_evicts_least_recently_used_trees() {
        let text = "a { b: c; }\n".repeat(100);
        let cost = text.len() * TREE_COST_PER_BYTE;
        let mut cache = entries(cost * 2);
        for key in ["a.css", "b.css", "c.css"] {
            let (_, prior) = check_incremental(key, &text, None);
            cache.insert(key, prior.expect("a tree"), &text, fp(text.len(), 0));
        }
        assert_eq!(cache.used, cost * 2);
        let longer = format!("{text}d {{}}\n");
        assert!(cache.take_for_append("a.css", fp(text.len(), 0), &longer).is_none(), "oldest evicted");
        assert!(cache.take_for_append("c.css", fp(text.len(), 0), &longer).is_some());
    }

    #[test]
    fn a_tree_larger_than_the_budget_is_not_kept() {
        let mut cache = entries(10);
        let (_, prior) = check_incremental("a.css", "a {}\n", None);
        cache.insert("a.css", prior.expect("a tree"), "a {}\n", fp(5, 0));
        assert_eq!(cache.used, 0);
    }

    #[test]
    fn advance_counts_rows_and_byte_columns() {
        let p = advance(Point { row: 2, column: 5 }, "ab");
        assert_eq!((p.row, p.column), (2, 7));
        let p = advance(Point { row: 2, column: 5 }, "ab\ncdé");
        assert_eq!((p.row, p.column), (3, 4));
    }
}

#[cfg(test)]
mod edit_tests {
    use super::*;
    use crate::check::{check, check_edited, check_incremental};
    use proptest::prelude::*;

    const SAMPLE_JS: &str = include_str!("testdata/sample.js");
    const SAMPLE_TS: &str = include_str!("testdata/sample.ts");
    const SAMPLE_TSX: &str = include_str!("testdata/sample.tsx");
    /// Statements that open with a token that continues the one before when its `;` is
    /// missing: an edit that deletes a `;` joins them.
    const JOINABLE: &str = "let a = 1;\n(function () { a++; })();\nlet b = a;\n[1, 2].forEach(f);\nlet c = b;\n`t${c}`;\nlet d = c;\n+d;\nlet e = d;\n/re/.test(e);\nlet g = e;\n";

    /// Pieces an edit puts in: brackets, statement ends, tokens that join or split
    /// statements, literals and comments left open, module syntax.
    const PIECES: &[&str] = &[
        "",
        ";",
        "}",
        "{",
        "(",
        ")",
        "\n",
        "x",
        "(a)",
        "`",
        "'",
        "/",
        "/*",
        "*/",
        "//",
        "=>",
        "\n(b)\n",
        "[1]",
        "function f() {",
        "return 1;",
        "\nlet y = 2;\n",
        "async ",
        "yield ",
        "import x from 'y';\n",
        "export ",
        "<div>",
        "</div>",
        "'use strict';\n",
        "a = b\n",
        "++",
        "\nfoo()\n",
        "class C { m() {} }\n",
        "if (a) b; else c;\n",
    ];

    fn statements(prior: &Option<Prior>) -> Option<&Vec<usize>> {
        match prior {
            Some(Prior::Statements { starts, .. }) => Some(starts),
            _ => None,
        }
    }

    /// Edits `text` at `at` (replacing `len` bytes with `piece`), at char boundaries.
    fn edit(text: &str, at: usize, len: usize, piece: &str) -> String {
        let mut start = at % (text.len() + 1);
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (start + len).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        format!("{}{piece}{}", &text[..start], &text[end..])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]
        /// Two edits in a row, each checked from what the check before it left: every
        /// report equals a fresh check, and the statement starts kept equal a fresh parse's.
        #[test]
        fn checks_after_edits_equal_fresh_checks(
            which in 0usize..4,
            edits in prop::collection::vec((any::<usize>(), 0usize..40, prop::sample::select(PIECES)), 1..4),
        ) {
            let (path, sample) =
                [("a.js", SAMPLE_JS), ("a.ts", SAMPLE_TS), ("a.tsx", SAMPLE_TSX), ("a.js", JOINABLE)][which];
            let (_, mut prior) = check_incremental(path, sample, None);
            let mut text = sample.to_owned();
            for (at, len, piece) in edits {
                let new = edit(&text, at, len, piece);
                let (report, next) = check_edited(path, &text, &new, prior);
                prop_assert_eq!(&report, &check(path, &new), "{}: {:?}", path, new);
                if let Some(kept) = statements(&next) {
                    let (_, fresh) = check_incremental(path, &new, None);
                    prop_assert_eq!(Some(kept), statements(&fresh), "{}: {:?}", path, new);
                }
                text = new;
                prior = next;
            }
        }
    }

    #[test]
    fn an_edit_inside_one_function_parses_only_around_it_and_is_still_ok() {
        let text = format!("{SAMPLE_JS}\nfunction tail() {{\n  return 1;\n}}\n");
        let (_, prior) = check_incremental("a.js", &text, None);
        assert!(statements(&prior).is_some(), "a text with no problem keeps its statements");
        let new = text.replace("return 1;", "return 2;");
        let (report, next) = check_edited("a.js", &text, &new, prior);
        assert_eq!(report, check("a.js", &new));
        assert!(statements(&next).is_some());
        // A change that breaks the file is checked whole, and says where.
        let broken = new.replace("return 2;", "return 2 +;");
        let (report, next) = check_edited("a.js", &new, &broken, next);
        assert_eq!(report, check("a.js", &broken));
        assert_eq!(report.status, crate::check::Status::Errors);
        assert!(statements(&next).is_none());
    }

    /// Deleting the `;` before a statement that opens with `(` makes it the arguments of
    /// the one before: the statement after the change no longer starts a statement.
    #[test]
    fn an_edit_that_joins_the_next_statement_is_seen() {
        for (i, _) in JOINABLE.match_indices(";\n") {
            let new = format!("{}{}", &JOINABLE[..i], &JOINABLE[i + 1..]);
            let (_, prior) = check_incremental("a.js", JOINABLE, None);
            let (report, next) = check_edited("a.js", JOINABLE, &new, prior);
            assert_eq!(report, check("a.js", &new), "{new}");
            let (_, fresh) = check_incremental("a.js", &new, None);
            assert_eq!(statements(&next).is_some(), statements(&fresh).is_some(), "{new}");
            if statements(&next).is_some() {
                assert_eq!(statements(&next), statements(&fresh), "{new}");
            }
        }
    }

    #[test]
    fn an_edit_that_joins_two_statements_is_seen() {
        let text = "let a = 1;\nlet b = c\nfoo();\nbar();\n";
        let (_, prior) = check_incremental("a.js", text, None);
        // `c\n(foo)()` is one call: the statement `foo()` no longer starts a statement.
        let new = text.replace("foo();", "(foo)();");
        let (report, next) = check_edited("a.js", text, &new, prior);
        assert_eq!(report, check("a.js", &new));
        let (_, fresh) = check_incremental("a.js", &new, None);
        assert_eq!(statements(&next), statements(&fresh));
    }
}
