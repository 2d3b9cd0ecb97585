//! What an unchanged file told `check_files`, kept between calls: an agent runs the finish
//! check again and again while it fixes what the check found, over a project of tens of
//! thousands of files of which it changed one; the check of each other file would parse it
//! again for the same answer.
//!
//! # What is kept, and what never is
//! Only what a file says on its own: its syntax report and survey (stubs, references, what it
//! offers), and what the reference resolver read off it for other files. A verdict that
//! depends on other files (a reference that resolves, a linked script that is empty) is worked
//! out anew in every call from these parts, so a file deleted or created elsewhere changes the
//! verdict of the file that refers to it although that file's own bytes did not change.
//!
//! # When an entry is used
//! Each entry carries the version of the file it was read from (for the server: size, mtime
//! and ctime to the nanosecond, device, inode, links and mode; see [`settled`]) and is used only while
//! the file still has that version. On top of the metadata, the session drops the entry of
//! every path the journal recorded a write for since shortly before its last check (see
//! [`Remembered::begin_call`]), whoever wrote it through a filewright server on this root.
//!
//! An entry is only made from a file whose mtime is older, by [`SETTLE_NS`], than the call
//! that read it (see [`settled`]): any later write then leaves a later mtime, whatever the
//! file system's timestamp granularity, and a write that renames a new file into place (as
//! the server's own writes, editors and `git checkout` do) leaves another inode.
//!
//! # What cannot be told
//! A file rewritten in place (same inode) to the same size whose mtime is then set back to
//! its old value (`touch -d`, `utimensat`) still has a new ctime, which no one can set back.
//! On a network mount whose server's clock runs more than [`SETTLE_NS`] behind this host's, a
//! write soon after a read may keep the mtime and the ctime.
//!
//! # Bounded memory
//! [`FileMemo`] holds at most its budget of estimated bytes (each value's cost is given by
//! the caller). When an insert would go over it, the entries least recently used by an
//! earlier call are dropped first; entries used by the current call are never dropped for
//! another of the same call, so a project larger than the budget keeps a stable part of itself
//! cached instead of each call evicting what the next will need (a scan in path order would
//! otherwise miss every time).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::Session;
use super::check_files::{FileCheck, FileStatus, Run};
use crate::check::refs::Refs;
use crate::check::stubs;
use crate::check::{self, LanguageName, Linked, Report, RustEdition};
use crate::error::Error;
use crate::files::encoding;
use crate::lines::count_lines;
use crate::store::Store;
use crate::timestamp::Timestamp;
use crate::workspace::{FileInfo, RootPath};

/// An entry's own cost beyond its value's: the key, the map's slot, the version.
pub const ENTRY_OVERHEAD: usize = 160;

/// How long after the read a file's mtime must be older than for its entry to be kept, in
/// nanoseconds: a write in the same tick of the file system's clock could leave the same
/// mtime (and size, and inode for an in-place write) behind, so an entry read that close to
/// its file's last change could never tell it. Two seconds cover the coarsest common
/// timestamps (FAT's); the kernel's own clock for timestamps runs a tick behind the wall
/// clock, which this covers too.
pub const SETTLE_NS: i128 = 2_000_000_000;

/// Whether a file whose mtime is `mtime_ns`, read after `read_started_ns` (both nanoseconds
/// since the epoch), may be kept: its last change is old enough that any later write gets a
/// later mtime. An unknown mtime (0) never is.
pub fn settled(mtime_ns: i128, read_started_ns: i128) -> bool {
    mtime_ns != 0 && mtime_ns < read_started_ns - SETTLE_NS
}

/// A value's estimated memory: the length of its `Debug` form, which spells out every string
/// and element it holds (and a little punctuation, which stands for the allocations'
/// overhead). The values kept are opaque to the memo, and new fields are counted without
/// anyone remembering to.
pub fn estimated_bytes(value: &impl std::fmt::Debug) -> usize {
    struct Count(usize);
    impl std::fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0 += s.len();
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = std::fmt::write(&mut count, format_args!("{value:?}"));
    count.0
}

/// Values of type `T` read off files, by root-relative path, each valid for one version `V`
/// of its file; at most `budget` estimated bytes (see the module's doc).
pub struct FileMemo<V, T> {
    inner: Mutex<Inner<V, T>>,
}

struct Inner<V, T> {
    budget: usize,
    used: usize,
    /// The current call's number: entries used by it are not evicted for it.
    call: u64,
    /// Counts uses, for least-recently-used eviction.
    clock: u64,
    /// No entry of an earlier call is left to evict in this call: an insert over the budget
    /// is refused without looking.
    nothing_old: bool,
    map: HashMap<String, Entry<V, T>>,
}

struct Entry<V, T> {
    version: V,
    value: Arc<T>,
    cost: usize,
    /// The call that last used it.
    used_by: u64,
    /// When it was last used, by the memo's clock.
    tick: u64,
}

impl<V, T> std::fmt::Debug for FileMemo<V, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("FileMemo")
            .field("budget", &inner.budget)
            .field("used", &inner.used)
            .field("files", &inner.map.len())
            .finish()
    }
}

impl<V, T> FileMemo<V, T> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<V, T>> {
        // A poisoned lock only means another call panicked mid-way; every entry is whole.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<V: PartialEq, T> FileMemo<V, T> {
    /// An empty memo of at most `budget` estimated bytes.
    pub fn new(budget: usize) -> Self {
        FileMemo {
            inner: Mutex::new(Inner {
                budget,
                used: 0,
                call: 0,
                clock: 0,
                nothing_old: false,
                map: HashMap::new(),
            }),
        }
    }

    /// Starts a call: what it uses is kept over what earlier calls used.
    pub fn begin_call(&self) {
        let mut inner = self.lock();
        inner.call += 1;
        inner.nothing_old = false;
    }

    /// The value kept for `key` when it was read from `version`; an entry of another version
    /// is dropped.
    pub fn get(&self, key: &str, version: &V) -> Option<Arc<T>> {
        let mut inner = self.lock();
        let (call, tick) = (inner.call, inner.tick());
        match inner.map.get_mut(key) {
            Some(entry) if entry.version == *version => {
                entry.used_by = call;
                entry.tick = tick;
                Some(entry.value.clone())
            }
            Some(_) => {
                inner.remove(key);
                None
            }
            None => None,
        }
    }

    /// Keeps `value`, read off `key` at `version`, at an estimated `cost` in bytes (the
    /// entry's own overhead is added). Not kept when the budget cannot make room for it
    /// without dropping what this call has used.
    pub fn insert(&self, key: &str, version: V, value: Arc<T>, cost: usize) {
        let cost = cost.saturating_add(ENTRY_OVERHEAD + key.len());
        let mut inner = self.lock();
        inner.remove(key);
        if !inner.make_room(cost) {
            return;
        }
        let (call, tick) = (inner.call, inner.tick());
        inner.used += cost;
        inner.map.insert(key.to_owned(), Entry { version, value, cost, used_by: call, tick });
    }

    /// Drops the entry of `key`.
    pub fn forget(&self, key: &str) {
        self.lock().remove(key);
    }

    /// Drops every entry.
    pub fn forget_all(&self) {
        let mut inner = self.lock();
        inner.map.clear();
        inner.used = 0;
    }

    /// Estimated bytes held now.
    pub fn used_bytes(&self) -> usize {
        self.lock().used
    }

    /// Entries held now.
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }
}

impl<V, T> Inner<V, T> {
    /// The clock's next reading.
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    fn remove(&mut self, key: &str) {
        if let Some(old) = self.map.remove(key) {
            self.used -= old.cost;
        }
    }

    /// Drops entries that earlier calls used, least recently used first, until `cost` more
    /// bytes fit, and an eighth of the budget besides (so that the entries are sorted once for
    /// many inserts, not once for each); false when `cost` does not fit even with all of
    /// those gone.
    fn make_room(&mut self, cost: usize) -> bool {
        if cost > self.budget {
            return false;
        }
        if self.used + cost <= self.budget {
            return true;
        }
        if self.nothing_old {
            return false;
        }
        let mut old: Vec<(u64, String)> = self
            .map
            .iter()
            .filter(|(_, e)| e.used_by < self.call)
            .map(|(k, e)| (e.tick, k.clone()))
            .collect();
        old.sort_unstable();
        let target = self.budget.saturating_sub(self.budget / 8).max(cost);
        let mut old = old.into_iter();
        while self.used + cost > target {
            let Some((_, key)) = old.next() else {
                self.nothing_old = true;
                break;
            };
            self.remove(&key);
        }
        self.used + cost <= self.budget
    }
}

// --- what the session keeps -----------------------------------------------------------------

/// What one file told the check on its own, from its bytes alone: kept between calls while
/// the file is unchanged (see [`Remembered`]). Everything that depends on other files is
/// worked out from it anew in each call.
#[derive(Debug)]
pub(super) struct Told {
    pub(super) size: u64,
    pub(super) lines: usize,
    /// Blank, in a language where that is no stub: unfinished.
    pub(super) empty_unjudged: bool,
    pub(super) report: Report,
    /// The survey, its references taken out into `refs`.
    pub(super) survey: check::Survey,
    pub(super) refs: Arc<Refs>,
    /// A page's scripts and stylesheets, each with its line's text.
    pub(super) links: Vec<(Linked, String)>,
}

/// Estimated memory `check_files` keeps between calls, at most: 96 MB of what checked files
/// told it, 32 MB of what the references read off other files (each value estimated by
/// [`estimated_bytes`]). Measured on cargo's registry sources (20,919 files, 368 MB): 15.2 MB
/// estimated, and the server's resident memory after the call 15.1 MB above a server that
/// keeps nothing. A project whose parts do not fit keeps what fits.
const TOLD_BUDGET: usize = 96 << 20;
const SURVEYS_BUDGET: usize = 32 << 20;

/// Journal rows this much older than the last check are read again at the next one: a
/// write whose transaction began before that check started may have landed during it.
const JOURNAL_OVERLAP_MS: i64 = 60_000;

/// What `check_files` keeps between calls, one per server process: each entry holds while
/// its file keeps the metadata it had when read (see [`super::check_cache`]), and the entry
/// of every path the journal records a write for is dropped at the next call's start.
#[derive(Debug)]
pub(super) struct Remembered {
    pub(super) told: FileMemo<(FileInfo, RustEdition), Told>,
    pub(super) surveys: FileMemo<FileInfo, Refs>,
    /// When the last call started, by the store's clock.
    last_call: Mutex<Option<Timestamp>>,
}

impl Default for Remembered {
    fn default() -> Self {
        Remembered {
            told: FileMemo::new(TOLD_BUDGET),
            surveys: FileMemo::new(SURVEYS_BUDGET),
            last_call: Mutex::new(None),
        }
    }
}

impl Remembered {
    /// Starts a call: drops what the journal says was written since shortly before the last
    /// one started (by this server or another on this root), or everything when the journal
    /// cannot be read.
    pub(super) fn begin_call(&self, store: &Store) {
        self.told.begin_call();
        self.surveys.begin_call();
        let mut last = self.last_call.lock().unwrap_or_else(|p| p.into_inner());
        let now = match store.now() {
            Ok(now) => now,
            Err(_) => {
                *last = None;
                return self.forget_all();
            }
        };
        if let Some(previous) = last.replace(now) {
            let since = Timestamp::from_millis(previous.as_millis() - JOURNAL_OVERLAP_MS);
            match store.journal_paths(since) {
                Ok(paths) => paths.iter().for_each(|p| self.forget(p)),
                Err(_) => self.forget_all(),
            }
        }
    }

    fn forget(&self, path: &str) {
        self.told.forget(path);
        self.surveys.forget(path);
    }

    fn forget_all(&self) {
        self.told.forget_all();
        self.surveys.forget_all();
    }
}

impl Session {
    /// What `path` (named `name`) told the check on its own: kept from an earlier call while
    /// the file keeps its version and its crate's edition, else read and checked now. Err:
    /// the file's verdict when it cannot be read.
    pub(super) fn told(
        &self,
        name: &str,
        path: &RootPath,
        edition: RustEdition,
        run: &Run<'_>,
    ) -> std::result::Result<Arc<Told>, Box<FileCheck>> {
        if let Ok(Some(info)) = self.ws.stat(path)
            && let Some(known) = self.remembered.told.get(name, &(info, edition))
        {
            return Ok(known);
        }
        let failed = |status, note: String| Box::new(FileCheck::failed(name.to_owned(), status, note));
        let missing = || failed(FileStatus::Missing, "the file does not exist: write it".into());
        // The version kept is the one the open saw, before the bytes were read: a change
        // during the read leaves a later mtime, which the next call sees.
        let (info, bytes) = match self.ws.read_if_exists(path, self.config.max_file_bytes) {
            Ok(Some((info, Ok(bytes)))) => (info, bytes),
            Ok(None) | Err(Error::NotFound { .. }) => return Err(missing()),
            Ok(Some((_, Err(e)))) | Err(e) => return Err(failed(FileStatus::Unreadable, e.to_string())),
        };
        // Held until the file's parses are done.
        let _taken = run.budget.take(bytes.len());
        // Decoded in the file's encoding; a binary file's bytes as they are.
        let text = encoding::lossy_text(&bytes);
        let (report, mut survey) = check::check_and_survey(name, &bytes, &text, edition);
        let refs = Arc::new(std::mem::take(&mut survey.refs));
        let links = if check::language_for(name).is_some_and(|l| l.name() == LanguageName::Html) {
            page_links(&text)
        } else {
            Vec::new()
        };
        let told = Arc::new(Told {
            size: bytes.len() as u64,
            lines: count_lines(text.as_bytes()),
            // An empty file in a language with stub rules is a stub ("no code"), or
            // complete where empty is idiomatic (`__init__.py`); elsewhere it is unfinished.
            empty_unjudged: text.bytes().all(|b| b.is_ascii_whitespace())
                && stubs::holds_code(name, &text).is_none(),
            report,
            survey,
            refs,
            links,
        });
        if settled(info.mtime_ns, run.started_ns) {
            self.remembered.told.insert(name, (info, edition), told.clone(), estimated_bytes(&*told));
        }
        Ok(told)
    }
}

/// The scripts and stylesheets a page links, each with its line's text (trimmed, at most 120
/// characters), as a stub about it shows.
fn page_links(html: &str) -> Vec<(Linked, String)> {
    check::linked_assets(html)
        .into_iter()
        .map(|link| {
            let source = html
                .lines()
                .nth(link.line.saturating_sub(1))
                .unwrap_or("")
                .trim()
                .chars()
                .take(120)
                .collect();
            (link, source)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memo(budget: usize) -> FileMemo<u64, String> {
        FileMemo::new(budget)
    }

    /// A cost that makes each entry of a one-letter key cost `n` in all.
    fn cost(n: usize) -> usize {
        n - ENTRY_OVERHEAD - 1
    }

    #[test]
    fn a_value_is_used_only_for_the_version_it_was_read_from() {
        let m = memo(1 << 20);
        m.begin_call();
        m.insert("a.rs", 1, Arc::new("one".into()), 10);
        assert_eq!(m.get("a.rs", &1).as_deref().map(String::as_str), Some("one"));
        assert_eq!(m.get("a.rs", &2), None, "another version of the file");
        assert_eq!(m.get("a.rs", &1), None, "the stale entry was dropped, not kept beside");
        assert_eq!((m.len(), m.used_bytes()), (0, 0));
    }

    #[test]
    fn forgetting_drops_entries_and_their_cost() {
        let m = memo(1 << 20);
        m.begin_call();
        m.insert("a", 1, Arc::new("a".into()), 100);
        m.insert("b", 1, Arc::new("b".into()), 100);
        m.insert("b", 2, Arc::new("b2".into()), 50);
        assert_eq!(m.used_bytes(), 100 + 50 + 2 * (ENTRY_OVERHEAD + 1), "a new version replaces the old");
        m.forget("a");
        assert_eq!(m.get("a", &1), None);
        assert_eq!(m.used_bytes(), 50 + ENTRY_OVERHEAD + 1);
        m.forget_all();
        assert_eq!((m.len(), m.used_bytes()), (0, 0));
    }

    #[test]
    fn the_budget_holds_and_the_least_recently_used_of_earlier_calls_go_first() {
        let m = memo(1000);
        m.begin_call();
        for key in ["a", "b", "c", "d"] {
            m.insert(key, 1, Arc::new(key.into()), cost(250));
        }
        assert_eq!(m.used_bytes(), 1000);
        m.begin_call();
        assert!(m.get("a", &1).is_some(), "a is used again: b is now the oldest");
        m.insert("e", 1, Arc::new("e".into()), cost(250));
        assert!(m.used_bytes() <= 1000);
        assert!(m.get("b", &1).is_none(), "the least recently used went");
        assert!(m.get("a", &1).is_some() && m.get("e", &1).is_some());
    }

    #[test]
    fn a_call_never_evicts_what_it_used_itself() {
        let m = memo(1000);
        m.begin_call();
        for key in ["a", "b", "c", "d"] {
            m.insert(key, 1, Arc::new(key.into()), cost(250));
        }
        // A scan larger than the budget keeps its first part, and the next call finds it.
        m.insert("e", 1, Arc::new("e".into()), cost(250));
        assert!(m.get("e", &1).is_none(), "refused: everything held was used by this call");
        m.begin_call();
        assert!(["a", "b", "c", "d"].iter().all(|k| m.get(k, &1).is_some()));
        assert_eq!(m.used_bytes(), 1000);
    }

    #[test]
    fn a_value_larger_than_the_budget_is_not_kept() {
        let m = memo(1000);
        m.begin_call();
        m.insert("a", 1, Arc::new("a".into()), 2000);
        assert_eq!((m.len(), m.used_bytes()), (0, 0));
    }

    #[test]
    fn a_value_is_estimated_by_what_it_spells_out() {
        let small = estimated_bytes(&vec!["a".to_string()]);
        let large = estimated_bytes(&vec!["a".repeat(1000); 10]);
        assert!(small < 16 && large >= 10_000, "{small} {large}");
    }

    #[test]
    fn a_file_changed_within_the_settling_time_of_its_read_is_not_kept() {
        let read = 1_000 * SETTLE_NS;
        assert!(settled(read - SETTLE_NS - 1, read));
        assert!(!settled(read - SETTLE_NS, read), "a later write in the same tick could keep this mtime");
        assert!(!settled(read + 5, read), "changed after the read started (or a clock ahead)");
        assert!(!settled(0, read), "no mtime known");
    }
}
