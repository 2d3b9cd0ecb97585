//! The state shared by every filewright process on one root: who owns which file (claims)
//! and what was written (the journal), in one SQLite database.
//!
//! Each MCP client spawns its own server process, so a lock inside one process coordinates
//! nothing; SQLite in WAL mode, opened by every process on the same root, does. A write
//! happens inside an IMMEDIATE transaction that first checks and takes the claim, then runs
//! the file operation, then records it in the journal: the database's write lock is held
//! throughout, so two processes can never both win a claim, and writes to one root are
//! serialised (no interleaved appends).

mod claims;
mod intents;
mod journal;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

pub use claims::{Claim, ClaimOutcome, NotReleased, ReleaseOutcome};
pub use intents::AppendIntent;
pub use journal::{Action, Artifact, JournalEntry};

use crate::error::{Error, Result};
use crate::timestamp::Timestamp;

/// How long a call waits for another process's transaction before giving up with an error
/// (never a hang).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The database file's name inside the state directory.
pub const DB_FILE: &str = "state.db";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS claims (
    path    TEXT PRIMARY KEY,
    agent   TEXT NOT NULL,
    since   INTEGER NOT NULL,  -- unix ms: first claimed
    touched INTEGER NOT NULL   -- unix ms: last write by the owner (TTL counts from here)
);
CREATE TABLE IF NOT EXISTS journal (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    time   INTEGER NOT NULL,   -- unix ms
    agent  TEXT NOT NULL,
    action TEXT NOT NULL,      -- write | append | edit
    path   TEXT NOT NULL,
    size   INTEGER NOT NULL,   -- bytes after
    added  INTEGER NOT NULL,   -- bytes added by this action
    sha256 TEXT NOT NULL       -- of the whole file after
);
CREATE INDEX IF NOT EXISTS journal_by_path ON journal (path, id);
CREATE TABLE IF NOT EXISTS versions (
    journal_id INTEGER PRIMARY KEY,  -- the change this version undoes
    kind       TEXT NOT NULL,        -- absent | content | prefix: what the file was before it
    size       INTEGER NOT NULL,     -- bytes before
    content    BLOB                  -- the bytes before (content); NULL once the budget dropped them
);
-- The versions whose content is still kept, oldest first: what the budget drops next.
CREATE INDEX IF NOT EXISTS versions_kept ON versions (journal_id) WHERE content IS NOT NULL;
-- The bytes of content kept, as SUM(LENGTH(content)) over versions would say, kept current by
-- the triggers below so that a write does not scan every version to learn it.
CREATE TABLE IF NOT EXISTS kept (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    bytes INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS kept_after_insert AFTER INSERT ON versions BEGIN
    UPDATE kept SET bytes = bytes + COALESCE(LENGTH(NEW.content), 0);
END;
CREATE TRIGGER IF NOT EXISTS kept_after_update AFTER UPDATE OF content ON versions BEGIN
    UPDATE kept SET bytes = bytes - COALESCE(LENGTH(OLD.content), 0) + COALESCE(LENGTH(NEW.content), 0);
END;
CREATE TRIGGER IF NOT EXISTS kept_after_delete AFTER DELETE ON versions BEGIN
    UPDATE kept SET bytes = bytes - COALESCE(LENGTH(OLD.content), 0);
END;
-- A database made before the running total: count once, in the transaction that adds it.
INSERT OR IGNORE INTO kept (id, bytes)
    SELECT 1, COALESCE(SUM(LENGTH(content)), 0) FROM versions WHERE NOT EXISTS (SELECT 1 FROM kept);
";

/// The most changes one `undo` takes back.
pub const MAX_UNDO_STEPS: usize = 100;

/// Bytes of old versions kept per root by default (`--history-bytes`).
pub const DEFAULT_HISTORY_BYTES: u64 = 64 * 1024 * 1024;

/// What the journal records about one write, computed by the caller from the bytes on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteFacts {
    /// Size after the write.
    pub size: u64,
    /// Bytes added by this write (the whole size for write_file).
    pub added: u64,
    /// Hex sha256 of the whole file after the write.
    pub sha256: String,
    /// What the file was before, so that `undo` can put it back; None when it could not be
    /// kept (the old file was too large to read), which makes this change final.
    pub before: Option<Before>,
}

/// What a file was before a change: kept so that `undo` can restore it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Before {
    /// There was no file.
    Absent,
    /// The whole old content (a write or an edit replaced it).
    Content(Vec<u8>),
    /// The first this many bytes of the file after the change (an append added the rest): no
    /// copy is needed.
    Prefix(u64),
}

/// One change `undo` may take back, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoStep {
    /// What the change was.
    pub action: Action,
    /// Who made it.
    pub agent: String,
    /// When.
    pub time: Timestamp,
    /// The file's sha256 right after the change.
    pub sha256_after: String,
    /// What the file was before the change; None when no copy was kept (the history budget
    /// dropped it, or the change predates undo).
    pub before: Option<Before>,
}

/// The shared store of one root.
#[derive(Debug)]
pub struct Store {
    /// A `std` mutex: calls run on blocking threads and never await while holding it.
    conn: Mutex<Connection>,
    path: PathBuf,
    /// Appends in flight, recorded before their bytes are written.
    intents: intents::Intents,
    claim_ttl: Option<Duration>,
    /// Bytes of old versions kept; the oldest are dropped first.
    history_bytes: u64,
}

impl Store {
    /// Opens (creating if needed) the database in `state_dir`.
    ///
    /// # Ambient authority
    /// Opens a host path outside the sandbox; the workspace is told to keep this directory
    /// out of every tool's reach.
    pub fn open(state_dir: &Path, claim_ttl: Option<Duration>) -> anyhow::Result<Self> {
        use anyhow::Context;
        std::fs::create_dir_all(state_dir)
            .with_context(|| format!("cannot create the state directory {}", state_dir.display()))?;
        let path = state_dir.join(DB_FILE);
        let hint = || {
            format!(
                "cannot use the state database {}: if it is corrupt, move it away (claims and the journal \
                 start afresh) or pass another --state-dir",
                path.display()
            )
        };
        // A state directory that cannot be written would let the server start and then fail
        // every write: refuse it now, with what to do.
        let probe = state_dir.join(format!(".write-probe-{}", std::process::id()));
        std::fs::write(&probe, b"").and_then(|()| std::fs::remove_file(&probe)).with_context(|| {
            format!(
                "the state directory {} is not writable: claims, the journal and undo live there. Make it \
                 writable or pass --state-dir with a writable directory",
                state_dir.display()
            )
        })?;
        let conn = Connection::open(&path).with_context(hint)?;
        conn.busy_timeout(BUSY_TIMEOUT).with_context(hint)?;
        conn.pragma_update(None, "journal_mode", "WAL").with_context(hint)?;
        conn.pragma_update(None, "synchronous", "NORMAL").with_context(hint)?;
        // In one write transaction: a database file that is read-only (while its directory is
        // not) fails here, not at the first write, and two processes opening a database made
        // by an older filewright add the running total once.
        conn.execute_batch(&format!("BEGIN IMMEDIATE; {SCHEMA} COMMIT;")).with_context(hint)?;
        // No `PRAGMA quick_check` here: it reads every page, and with a full history budget
        // (64 MB) it took 21 ms of every start. A file that is not a database fails above; a
        // damaged page fails the call that reads it, as an error naming the database.
        Ok(Store {
            conn: Mutex::new(conn),
            path,
            intents: intents::Intents::new(state_dir),
            claim_ttl,
            history_bytes: DEFAULT_HISTORY_BYTES,
        })
    }

    /// With `durable`, a commit reaches the disk before it returns (SQLite `synchronous=FULL`),
    /// so a journal row survives a power loss with its change; otherwise (`NORMAL`, in WAL mode)
    /// the last commits may roll back, leaving the database consistent.
    pub fn durable(self, durable: bool) -> anyhow::Result<Self> {
        if durable {
            self.lock().pragma_update(None, "synchronous", "FULL")?;
        }
        Ok(self)
    }

    /// Keeps at most `bytes` of old versions for `undo` (default [`DEFAULT_HISTORY_BYTES`]).
    pub fn with_history_budget(mut self, bytes: u64) -> Self {
        self.history_bytes = bytes;
        self
    }

    /// Where the database lives (for startup logs).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `write` as `agent`'s `action` on `path` under the claim rules: when another
    /// agent holds a live claim, nothing runs and the error names the owner; otherwise the
    /// claim is taken (or refreshed), `write` runs, and its facts go to the journal, all in
    /// one transaction. A failed `write` leaves no claim and no journal row behind; a
    /// `write` that changed nothing returns no facts and adds no row.
    ///
    /// Once `write` has succeeded the file has changed, so nothing after it is an error:
    /// when the journal row or the commit fails, the value comes back with a warning
    /// saying what landed and what was not recorded (an error would make the agent
    /// repeat a write that happened, and duplicate an appended chunk).
    pub fn write_claimed<T>(
        &self,
        path: &str,
        agent: &str,
        action: Action,
        write: impl FnOnce() -> Result<(T, Option<WriteFacts>)>,
    ) -> Result<(T, Option<String>)> {
        self.claimed_change(path, agent, action, |_| write())
    }

    /// [`Store::write_claimed`] for `undo`: `undo` receives the last `steps` changes of `path`
    /// (newest first), read in the same transaction, so no other writer can slip in between.
    pub fn undo_claimed<T>(
        &self,
        path: &str,
        agent: &str,
        steps: usize,
        undo: impl FnOnce(&[UndoStep]) -> Result<(T, Option<WriteFacts>)>,
    ) -> Result<(T, Option<String>)> {
        self.claimed_change(path, agent, Action::Undo, |conn| {
            let plan = journal::undo_steps(conn, path, steps)?;
            undo(&plan)
        })
    }

    /// [`Store::write_claimed`] for a change of several paths (a move): every path is claimed
    /// before `change` runs, and each changed path gets its journal row.
    pub fn write_claimed_paths<T>(
        &self,
        paths: &[&str],
        agent: &str,
        change: impl FnOnce() -> Result<(T, Vec<(String, Action, WriteFacts)>)>,
    ) -> Result<(T, Option<String>)> {
        self.claimed_changes(paths, agent, |_| change())
    }

    fn claimed_change<T>(
        &self,
        path: &str,
        agent: &str,
        action: Action,
        change: impl FnOnce(&Connection) -> Result<(T, Option<WriteFacts>)>,
    ) -> Result<(T, Option<String>)> {
        self.claimed_changes(&[path], agent, |conn| {
            let (value, facts) = change(conn)?;
            Ok((value, facts.into_iter().map(|f| (path.to_string(), action, f)).collect()))
        })
    }

    fn claimed_changes<T>(
        &self,
        paths: &[&str],
        agent: &str,
        change: impl FnOnce(&Connection) -> Result<(T, Vec<(String, Action, WriteFacts)>)>,
    ) -> Result<(T, Option<String>)> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_error)?;
        let now = Timestamp::now();
        for path in paths {
            claims::take(&tx, path, agent, now, self.claim_ttl)?;
        }
        let (value, rows) = change(&tx)?;
        let recorded = rows
            .iter()
            .try_for_each(|(path, action, facts)| {
                journal::record(&tx, now, agent, *action, path, facts, self.history_bytes)
            })
            .and_then(|()| tx.commit().map_err(db_error));
        let unrecorded = recorded.err().map(|e| {
            format!(
                "{} WAS changed by this call, but its claim and journal row could not be recorded \
                 ({e}): do not repeat the call; list_artifacts will not show this change",
                paths.join(" and ")
            )
        });
        Ok((value, unrecorded))
    }

    /// Claims every path for `agent`, or none when any is owned by someone else.
    pub fn claim(&self, paths: &[String], agent: &str) -> Result<ClaimOutcome> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_error)?;
        let outcome = claims::take_all(&tx, paths, agent, Timestamp::now(), self.claim_ttl)?;
        tx.commit().map_err(db_error)?;
        Ok(outcome)
    }

    /// Releases `agent`'s claims on `paths`, or all of them when `paths` is None.
    pub fn release(&self, paths: Option<&[String]>, agent: &str) -> Result<ReleaseOutcome> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_error)?;
        let outcome = claims::release(&tx, paths, agent)?;
        tx.commit().map_err(db_error)?;
        Ok(outcome)
    }

    /// Every live claim, oldest first.
    pub fn claims(&self) -> Result<Vec<Claim>> {
        claims::list(&self.lock(), Timestamp::now(), self.claim_ttl)
    }

    /// The latest journal state of each file (filtered), with its history when asked.
    pub fn artifacts(&self, agent: Option<&str>, path: Option<&str>, history: bool) -> Result<Vec<Artifact>> {
        journal::artifacts(&self.lock(), agent, path, history)
    }

    /// Every path the journal recorded a write for at or after `since`, in order.
    pub fn journal_paths(&self, since: Timestamp) -> Result<Vec<String>> {
        journal::paths(&self.lock(), since)
    }

    /// Records an append about to be made; see [`AppendIntent`]. A failure is an error that
    /// says nothing was appended: an append without its intent could not be repaired.
    pub fn record_append_intent(&self, intent: &AppendIntent) -> Result<()> {
        self.intents.record(intent).map_err(|e| Error::StateDir {
            reason: format!(
                "could not record the append to {} in the state directory next to {} ({e})",
                intent.path,
                self.path.display()
            ),
        })
    }

    /// Forgets the intent of `path`: its append has landed whole, or has been taken back.
    pub fn clear_append_intent(&self, path: &str) {
        self.intents.clear(path);
    }

    /// The intent a killed append left for `path`, if any.
    pub fn append_intent(&self, path: &str) -> Option<AppendIntent<'static>> {
        self.intents.get(path)
    }

    /// Every intent killed appends left (and any in flight, unless the store's lock is held).
    pub fn append_intents(&self) -> Vec<AppendIntent<'static>> {
        self.intents.all()
    }

    /// Runs `f` holding the store's write lock (no claim is taken and nothing is journaled), so
    /// that no append of any process runs meanwhile: for repairing what a killed one left.
    pub fn exclusive<T>(&self, f: impl FnOnce() -> T) -> Result<T> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_error)?;
        let value = f();
        tx.commit().map_err(db_error)?;
        Ok(value)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A poisoned lock means a call panicked; SQLite rolled its transaction back when the
        // Transaction was dropped, so the connection is still usable.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The state directory for `root` when `--state-dir` is not given: the platform's state
/// directory, keyed by a hash of the canonical root so that every process on the same root
/// finds the same database.
pub fn default_state_dir(canonical_root: &Path) -> Option<PathBuf> {
    use sha2::{Digest, Sha256};
    let base = dirs::state_dir().or_else(dirs::data_local_dir)?;
    let digest = Sha256::digest(canonical_root.as_os_str().as_encoded_bytes());
    let key: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let name =
        canonical_root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "root".into());
    Some(base.join("filewright").join(format!("{name}-{key}")))
}

fn db_error(e: rusqlite::Error) -> Error {
    let busy = matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    );
    Error::Store { busy, detail: e.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(ttl: Option<Duration>) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), ttl).unwrap();
        (dir, store)
    }

    fn facts(size: u64) -> Option<WriteFacts> {
        Some(WriteFacts {
            size,
            added: size,
            sha256: "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881".into(),
            before: Some(Before::Absent),
        })
    }

    #[test]
    fn first_writer_claims_and_second_agent_gets_a_conflict() {
        let (_d, s) = store(None);
        s.write_claimed("a.js", "alice", Action::Write, || Ok(((), facts(1)))).unwrap();
        let mut ran = false;
        let err = s
            .write_claimed("a.js", "bob", Action::Append, || {
                ran = true;
                Ok(((), facts(2)))
            })
            .unwrap_err();
        assert!(!ran, "the write must not run when the claim fails");
        let text = err.to_string();
        assert!(text.starts_with("CONFLICT: a.js is owned by agent \"alice\" since "), "{text}");
        assert!(text.contains("UTC; write a different file or ask that agent to release it"), "{text}");
    }

    #[test]
    fn a_failed_write_leaves_no_claim_and_no_journal_row() {
        let (_d, s) = store(None);
        let r: Result<((), Option<String>)> =
            s.write_claimed("a.js", "alice", Action::Write, || Err(Error::NotFound { path: "a.js".into() }));
        assert!(r.is_err());
        assert!(s.claims().unwrap().is_empty());
        assert!(s.artifacts(None, None, true).unwrap().is_empty());
    }

    #[test]
    fn claims_expire_after_the_ttl() {
        let (_d, s) = store(Some(Duration::from_millis(50)));
        s.write_claimed("a.js", "alice", Action::Write, || Ok(((), facts(1)))).unwrap();
        std::thread::sleep(Duration::from_millis(80));
        assert!(s.claims().unwrap().is_empty(), "expired claims are not listed");
        s.write_claimed("a.js", "bob", Action::Write, || Ok(((), facts(1)))).unwrap();
        assert_eq!(s.claims().unwrap()[0].agent, "bob");
    }

    #[test]
    fn claim_all_is_all_or_nothing() {
        let (_d, s) = store(None);
        s.claim(&["b.js".into()], "bob").unwrap();
        let out = s.claim(&["a.js".into(), "b.js".into()], "alice").unwrap();
        assert_eq!(out.conflicts.len(), 1);
        assert!(out.claimed.is_empty());
        assert_eq!(s.claims().unwrap().len(), 1, "a.js was not claimed");
    }

    #[test]
    fn release_drops_only_the_callers_claims() {
        let (_d, s) = store(None);
        s.claim(&["a".into(), "b".into()], "alice").unwrap();
        s.claim(&["c".into()], "bob").unwrap();
        let out = s.release(Some(&["a".into(), "c".into()]), "alice").unwrap();
        assert_eq!(out.released, vec!["a".to_string()]);
        assert_eq!(out.not_released.len(), 1);
        let out = s.release(None, "alice").unwrap();
        assert_eq!(out.released, vec!["b".to_string()]);
        assert_eq!(s.claims().unwrap().len(), 1);
    }

    #[test]
    fn journal_keeps_history_and_latest_state() {
        let (_d, s) = store(None);
        s.write_claimed("a.js", "alice", Action::Write, || Ok(((), facts(10)))).unwrap();
        s.write_claimed("a.js", "alice", Action::Append, || {
            Ok((
                (),
                Some(WriteFacts { size: 15, added: 5, sha256: "h".into(), before: Some(Before::Prefix(10)) }),
            ))
        })
        .unwrap();
        s.write_claimed("b.py", "bob", Action::Write, || Ok(((), facts(3)))).unwrap();
        let latest = s.artifacts(None, None, false).unwrap();
        assert_eq!(latest.len(), 2);
        assert_eq!(latest[0].path, "a.js");
        assert_eq!(latest[0].size, 15);
        assert_eq!(latest[0].writes, 2);
        assert!(latest[0].history.is_empty());
        let only_bob = s.artifacts(Some("bob"), None, true).unwrap();
        assert_eq!(only_bob.len(), 1);
        assert_eq!(only_bob[0].history.len(), 1);
        let epoch = Timestamp::from_millis(0);
        assert_eq!(s.journal_paths(epoch).unwrap(), vec!["a.js".to_string(), "b.py".to_string()]);
        assert!(s.journal_paths(Timestamp::now().after(Duration::from_secs(60))).unwrap().is_empty());
    }

    /// SUM(LENGTH(content)) over the versions, the way the running total must say it.
    fn summed(s: &Store) -> (i64, i64) {
        let conn = s.lock();
        let kept = conn.query_row("SELECT bytes FROM kept", [], |r| r.get(0)).unwrap();
        let sum = conn
            .query_row("SELECT COALESCE(SUM(LENGTH(content)), 0) FROM versions", [], |r| r.get(0))
            .unwrap();
        (kept, sum)
    }

    #[test]
    fn the_running_total_of_kept_versions_matches_their_sum_as_the_budget_drops_them() {
        let (_d, s) = store(None);
        let s = s.with_history_budget(100);
        for k in 0..30u64 {
            let before = Some(Before::Content(vec![b'x'; (k as usize * 7) % 40 + 1]));
            s.write_claimed("a.js", "alice", Action::Write, || {
                Ok(((), Some(WriteFacts { size: k, added: k, sha256: "h".into(), before: before.clone() })))
            })
            .unwrap();
            let (kept, sum) = summed(&s);
            assert_eq!(kept, sum, "after write {k}");
            assert!(kept <= 100, "the budget holds: {kept}");
        }
        s.lock().execute("DELETE FROM versions WHERE journal_id % 2 = 0", []).unwrap();
        let (kept, sum) = summed(&s);
        assert_eq!(kept, sum, "after deleting versions");
    }

    #[test]
    fn a_database_made_before_the_running_total_gets_it_counted_once() {
        let dir = tempfile::tempdir().unwrap();
        {
            let s = Store::open(dir.path(), None).unwrap();
            let conn = s.lock();
            conn.execute_batch(
                "DROP TRIGGER kept_after_insert; DROP TRIGGER kept_after_update; DROP TRIGGER kept_after_delete;
                 DROP TABLE kept;
                 INSERT INTO versions (journal_id, kind, size, content) VALUES (1, 'content', 3, x'616263'), (2, 'prefix', 3, NULL);",
            )
            .unwrap();
        }
        let s = Store::open(dir.path(), None).unwrap();
        assert_eq!(summed(&s), (3, 3));
        drop(s);
        let s = Store::open(dir.path(), None).unwrap();
        assert_eq!(summed(&s), (3, 3), "a second open does not count again");
    }

    #[test]
    fn a_corrupt_database_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(DB_FILE), vec![b'x'; 4096]).unwrap();
        let err = Store::open(dir.path(), None).unwrap_err();
        assert!(format!("{err:#}").contains("if it is corrupt, move it away"), "{err:#}");
    }

    #[test]
    fn default_state_dir_is_stable_per_root_and_differs_between_roots() {
        let a = default_state_dir(Path::new("/srv/project"));
        assert_eq!(a, default_state_dir(Path::new("/srv/project")));
        assert_ne!(a, default_state_dir(Path::new("/srv/project2")));
    }
}
