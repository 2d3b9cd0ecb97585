//! The embedded backend: one SQLite database in the state directory, shared by every process
//! on this machine's root.
//!
//! SQLite in WAL mode, opened by every process on the same root, coordinates them: a write
//! runs in an IMMEDIATE transaction, so the database's write lock is held from the claim to
//! the journal row and every write to the root is serialised. Its locking is only safe on a
//! local filesystem; hosts sharing a network filesystem use the PostgreSQL backend.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::tx::{Fence, Lock, NewRow, NewVersion, Tx};
use super::{Action, Artifact, BUSY_TIMEOUT, Before, Claim, JournalEntry, UndoStep};
use crate::error::{Error, Result};
use crate::timestamp::Timestamp;

/// The database file's name inside the state directory.
pub const DB_FILE: &str = "state.db";

/// The version of [`SCHEMA`], kept in the database's `user_version`: raise it whenever the
/// schema changes, so that databases made before run the statements again (each is written to
/// add what is missing and leave the rest).
const SCHEMA_VERSION: i64 = 3;

/// The columns of `versions` added since it was first made, each with the statement that adds
/// it to a database made before: [`SCHEMA`] creates the table with them all.
const ADDED_COLUMNS: [(&str, &str); 3] = [
    ("splice_at", "ALTER TABLE versions ADD COLUMN splice_at INTEGER"),
    ("kept_total", "ALTER TABLE versions ADD COLUMN kept_total INTEGER"),
    ("kept_from", "ALTER TABLE versions ADD COLUMN kept_from INTEGER"),
];

/// What schema version 2 kept the history budget's running total in: a row of its own, kept
/// current by triggers, and an index of the versions with content. Each was a page more in
/// every change's commit; the newest version row carries both now (see [`SqliteTx::running`]).
const RETIRED: &str = "
DROP TRIGGER IF EXISTS kept_after_insert;
DROP TRIGGER IF EXISTS kept_after_update;
DROP TRIGGER IF EXISTS kept_after_delete;
DROP INDEX IF EXISTS versions_kept;
DROP TABLE IF EXISTS kept;
";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS claims (
    path    TEXT PRIMARY KEY,
    agent   TEXT NOT NULL,
    since   INTEGER NOT NULL,  -- unix ms: first claimed
    touched INTEGER NOT NULL   -- unix ms: last write by the owner (TTL counts from here)
);
-- The latest fencing token of each path; it outlives the claim.
CREATE TABLE IF NOT EXISTS fences (
    path  TEXT PRIMARY KEY,
    token INTEGER NOT NULL,
    agent TEXT NOT NULL
);
-- The sequence fencing tokens are taken from.
CREATE TABLE IF NOT EXISTS fencing_tokens (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    last INTEGER NOT NULL
);
INSERT OR IGNORE INTO fencing_tokens (id, last) VALUES (1, 0);
-- No AUTOINCREMENT: rows are never deleted, so the next id is always one past the last, and
-- a change does not write the sqlite_sequence page too (one WAL frame of eight). Databases
-- made with it keep it.
CREATE TABLE IF NOT EXISTS journal (
    id     INTEGER PRIMARY KEY,
    time   INTEGER NOT NULL,   -- unix ms
    agent  TEXT NOT NULL,
    action TEXT NOT NULL,      -- write | append | edit | undo | hook | move | delete | copy | mkdir
    path   TEXT NOT NULL,
    size   INTEGER NOT NULL,   -- bytes after
    added  INTEGER NOT NULL,   -- bytes added by this action
    sha256 TEXT NOT NULL       -- of the whole file after
);
CREATE INDEX IF NOT EXISTS journal_by_path ON journal (path, id);
CREATE TABLE IF NOT EXISTS versions (
    journal_id INTEGER PRIMARY KEY,  -- the change this version undoes
    kind       TEXT NOT NULL,        -- absent | content | prefix | splice: what the file was before it
    size       INTEGER NOT NULL,     -- bytes before
    content    BLOB,                 -- the bytes before (content), or those a splice puts back;
                                     -- NULL once the budget dropped them
    splice_at  INTEGER,              -- splice: where the bytes put back begin
    -- The history budget's running state, read from the newest row only (older rows keep
    -- what they had): the bytes of content kept over all versions, as SUM(LENGTH(content))
    -- would say, and the journal id below which the budget has dropped every content (it
    -- drops the oldest first). NULL on a row an older filewright wrote: then counted afresh.
    kept_total INTEGER,
    kept_from  INTEGER
);
";

/// How large the WAL may grow (in 4 KB pages) before a commit copies it into the database
/// itself: only reached when the checkpoint thread falls behind (SQLite's default is 1000).
const COMMIT_CHECKPOINT_PAGES: u32 = 8_192;

/// Passes the checkpoint thread makes after a burst, at most, to copy the commits that came
/// during the one before.
const CHECKPOINT_PASSES: usize = 8;

/// How long the checkpoint thread gathers commits before it copies them: one checkpoint (and
/// its sync) for a burst of calls, not one each.
const CHECKPOINT_AFTER: Duration = Duration::from_millis(100);

/// The SQLite database of one root.
#[derive(Debug)]
pub(super) struct Sqlite {
    /// A `std` mutex: calls run on blocking threads and never await while holding it.
    conn: Mutex<Connection>,
    path: PathBuf,
    /// Tells the checkpoint thread that a commit added to the WAL (None when it could not
    /// start: commits then checkpoint as SQLite does by default).
    commits: Option<SyncSender<()>>,
}

impl Sqlite {
    /// Opens (creating if needed) the database in `state_dir`, which exists and is writable.
    ///
    /// # Ambient authority
    /// Opens a host path outside the sandbox; the workspace is told to keep this directory
    /// out of every tool's reach.
    pub(super) fn open(state_dir: &Path) -> anyhow::Result<Sqlite> {
        use anyhow::Context;
        let path = state_dir.join(DB_FILE);
        let hint = || {
            format!(
                "cannot use the state database {}: if it is corrupt, move it away (claims and the journal \
                 start afresh) or pass another --state-dir",
                path.display()
            )
        };
        if let Some(kind) = network_filesystem(state_dir) {
            tracing::warn!(
                "the state directory {} is on {kind}: SQLite's locking is unsafe there, so processes on \
                 different hosts could both win a claim and lose journal rows. Give --state-dir a local \
                 directory, or share claims across hosts with --store postgres://...",
                state_dir.display()
            );
        }
        let conn = Connection::open(&path).with_context(hint)?;
        conn.busy_timeout(BUSY_TIMEOUT).with_context(hint)?;
        switch_to_wal(&conn).with_context(hint)?;
        conn.pragma_update(None, "synchronous", "NORMAL").with_context(hint)?;
        // In one write transaction: a database file that is read-only (while its directory is
        // not) fails here, not at the first write, and two processes opening a database made
        // by an older filewright add the running total once. A database already at this
        // schema skips the statements: compiling them was a fifth of every start.
        conn.execute_batch("BEGIN IMMEDIATE").with_context(hint)?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).with_context(hint)?;
        if version < SCHEMA_VERSION {
            conn.execute_batch(SCHEMA).with_context(hint)?;
            for (column, add) in ADDED_COLUMNS {
                let present: bool = conn
                    .query_row(
                        "SELECT COUNT(*) > 0 FROM pragma_table_info('versions') WHERE name = ?1",
                        [column],
                        |r| r.get(0),
                    )
                    .with_context(hint)?;
                if !present {
                    conn.execute_batch(add).with_context(hint)?;
                }
            }
            conn.execute_batch(RETIRED).with_context(hint)?;
            conn.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION};")).with_context(hint)?;
        }
        conn.execute_batch("COMMIT").with_context(hint)?;
        // No `PRAGMA quick_check` here: it reads every page, and with a full history budget
        // (64 MB) it took 21 ms of every start. A file that is not a database fails above; a
        // damaged page fails the call that reads it, as an error naming the database.
        let commits = checkpoint_in_background(&path);
        if commits.is_some() {
            conn.pragma_update(None, "wal_autocheckpoint", COMMIT_CHECKPOINT_PAGES).with_context(hint)?;
        }
        Ok(Sqlite { conn: Mutex::new(conn), path, commits })
    }

    /// With `durable`, a commit reaches the disk before it returns (`synchronous=FULL`), so a
    /// journal row survives a power loss with its change; otherwise (`NORMAL`, in WAL mode)
    /// the last commits may roll back, leaving the database consistent.
    pub(super) fn durable(&self) -> Result<()> {
        self.lock().pragma_update(None, "synchronous", "FULL").map_err(db_error)
    }

    pub(super) fn describe(&self) -> String {
        self.path.display().to_string()
    }

    /// Runs `f` in an IMMEDIATE transaction (the lock is always the whole database). `f`
    /// failing rolls everything back and is the error; `f` succeeding with a second error
    /// rolls back too but returns the value, with that error beside it, as does a failed
    /// commit.
    pub(super) fn write<T>(
        &self,
        _lock: Lock<'_>,
        f: impl FnOnce(&mut dyn Tx) -> Result<(T, Result<()>)>,
    ) -> Result<(T, Option<Error>)> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_error)?;
        let (value, then) = f(&mut SqliteTx(&tx, None))?;
        let unrecorded = then.and_then(|()| tx.commit().map_err(db_error)).err();
        if let Some(commits) = &self.commits {
            // Full means a checkpoint is already due; it will include this commit.
            let _ = commits.try_send(());
        }
        Ok((value, unrecorded))
    }

    /// Runs `f` outside any write transaction.
    pub(super) fn read<T>(&self, f: impl FnOnce(&mut dyn Tx) -> Result<T>) -> Result<T> {
        f(&mut SqliteTx(&self.lock(), None))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A poisoned lock means a call panicked; SQLite rolled its transaction back when the
        // Transaction was dropped, so the connection is still usable.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    #[cfg(test)]
    pub(super) fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.lock()
    }
}

/// Puts the database in WAL mode (a no-op once it is). Switching a new database takes an
/// exclusive lock without calling the busy handler, so processes that start together on a new
/// state directory could see "database is locked" from one another's switch and exit: this
/// retries, pausing up to 50 ms between tries, for as long as a busy lock is waited for
/// elsewhere ([`BUSY_TIMEOUT`]).
fn switch_to_wal(conn: &Connection) -> rusqlite::Result<()> {
    let give_up = std::time::Instant::now() + BUSY_TIMEOUT;
    let mut pause = Duration::from_millis(1);
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(e) if db_error_is_busy(&e) && std::time::Instant::now() < give_up => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            done => return done,
        }
    }
}

/// Starts the thread that copies the WAL into the database (a checkpoint) after commits, on a
/// connection of its own, and returns the sender that wakes it. SQLite otherwise does this
/// inside the commit that fills 1000 pages: with a 20 KB file kept for undo that was every
/// ~25th edit, and a tenth of all edits' time. `PASSIVE`: it never waits for a writer or
/// holds one up, and what it cannot copy now waits for the next round. None when the thread
/// cannot start.
fn checkpoint_in_background(path: &Path) -> Option<SyncSender<()>> {
    let (commits, committed) = sync_channel(1);
    let path = path.to_owned();
    let started = crate::background::spawn("checkpoint", move || checkpoint_after_commits(&path, &committed));
    match started {
        Ok(_) => Some(commits),
        Err(e) => {
            tracing::debug!("the WAL is checkpointed by commits: {e}");
            None
        }
    }
}

/// The checkpoint thread's loop: ends when the database is closed (its sender dropped).
fn checkpoint_after_commits(path: &Path, committed: &Receiver<()>) {
    let mut conn: Option<Connection> = None;
    while committed.recv().is_ok() {
        std::thread::sleep(CHECKPOINT_AFTER);
        while committed.try_recv().is_ok() {}
        if conn.is_none() {
            conn = Connection::open(path)
                .and_then(|c| c.busy_timeout(super::BUSY_TIMEOUT).map(|()| c))
                .map_err(|e| tracing::warn!("cannot checkpoint the state database in the background: {e}"))
                .ok();
        }
        let Some(conn) = &conn else { continue };
        // Commits that land during a pass leave it incomplete, and SQLite starts the WAL
        // over only after a complete one: a few quick passes more catch up with a client
        // that keeps writing (each copies only what came meanwhile), instead of letting the
        // WAL grow until a commit checkpoints all of it.
        for _ in 0..CHECKPOINT_PASSES {
            let pass = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                Ok((r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
            });
            match pass {
                Ok((in_wal, copied)) if copied < in_wal => continue,
                Ok(_) => break,
                Err(e) => {
                    tracing::debug!("background checkpoint: {e}");
                    break;
                }
            }
        }
    }
}

/// The network filesystem `dir` is on, when it is one where SQLite's file locks do not
/// coordinate hosts (as SQLite's own documentation warns).
fn network_filesystem(dir: &Path) -> Option<&'static str> {
    #[cfg(target_os = "linux")]
    {
        if !crate::platform::linux_calls() {
            return None;
        }
        let fs = rustix::fs::statfs(dir).ok()?;
        network_kind(fs.f_type as u64)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = dir;
        None
    }
}

/// The name of a Linux filesystem magic number's network filesystem.
fn network_kind(magic: u64) -> Option<&'static str> {
    match magic & 0xFFFF_FFFF {
        0x6969 => Some("NFS"),
        0x517B => Some("SMB"),
        0xFF53_4D42 => Some("CIFS"),
        0xFE53_4D42 => Some("SMB2"),
        0x0102_1997 => Some("9P"),
        0x00C3_6400 => Some("CephFS"),
        0x0BD0_0BD0 => Some("Lustre"),
        0x5346_414F => Some("AFS"),
        0x6573_5546 => Some("a FUSE filesystem (often a network one: sshfs, s3fs)"),
        _ => None,
    }
}

fn db_error(e: rusqlite::Error) -> Error {
    Error::Store { busy: db_error_is_busy(&e), detail: e.to_string() }
}

/// Whether `e` is another connection's lock ("database is locked"), which passes.
fn db_error_is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

impl rusqlite::types::FromSql for Action {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        Action::from_name(value.as_str()?).map_err(|e| rusqlite::types::FromSqlError::Other(e.into()))
    }
}

/// The statements, on a connection inside the caller's transaction (or none, for reads), and
/// the history budget's running state once this transaction has read or set it: nothing else
/// writes the versions while the transaction holds the database's write lock.
struct SqliteTx<'c>(&'c Connection, Option<(i64, i64)>);

fn row_to_claim(row: &rusqlite::Row<'_>) -> rusqlite::Result<Claim> {
    Ok(Claim {
        path: row.get(0)?,
        agent: row.get(1)?,
        since: Timestamp::from_millis(row.get(2)?),
        expires: None,
        touched: Timestamp::from_millis(row.get(3)?),
        token: row.get::<_, i64>(4)?.max(0) as u64,
    })
}

const CLAIM_COLUMNS: &str = "c.path, c.agent, c.since, c.touched, COALESCE(f.token, 0)
    FROM claims c LEFT JOIN fences f ON f.path = c.path";

impl SqliteTx<'_> {
    /// The history budget's running state, as the newest version row carries it: the bytes of
    /// content kept, and the journal id below which none is. Counted over every version when
    /// there is no such row yet or an older filewright wrote it (its columns are NULL).
    fn running(&mut self) -> Result<(i64, i64)> {
        if let Some(running) = self.1 {
            return Ok(running);
        }
        let running = self.read_running()?;
        self.1 = Some(running);
        Ok(running)
    }

    /// [`SqliteTx::running`] as the database has it.
    fn read_running(&self) -> Result<(i64, i64)> {
        let newest: Option<(Option<i64>, Option<i64>)> = self
            .0
            .prepare_cached("SELECT kept_total, kept_from FROM versions ORDER BY journal_id DESC LIMIT 1")
            .and_then(|mut s| s.query_row([], |r| Ok((r.get(0)?, r.get(1)?))).optional())
            .map_err(db_error)?;
        match newest {
            None => Ok((0, 0)),
            Some((Some(total), Some(from))) => Ok((total, from)),
            Some(_) => self
                .0
                .query_row(
                    "SELECT COALESCE(SUM(LENGTH(content)), 0),
                            COALESCE((SELECT MIN(journal_id) FROM versions WHERE content IS NOT NULL), 0)
                     FROM versions",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .map_err(db_error),
        }
    }
}

impl Tx for SqliteTx<'_> {
    fn now(&mut self) -> Result<Timestamp> {
        Ok(Timestamp::now())
    }

    fn claim(&mut self, path: &str) -> Result<Option<Claim>> {
        self.0
            .prepare_cached(&format!("SELECT {CLAIM_COLUMNS} WHERE c.path = ?1"))
            .and_then(|mut s| s.query_row([path], row_to_claim).optional())
            .map_err(db_error)
    }

    fn fence(&mut self, path: &str) -> Result<Option<Fence>> {
        self.0
            .prepare_cached("SELECT token, agent FROM fences WHERE path = ?1")
            .and_then(|mut s| {
                s.query_row([path], |r| {
                    Ok(Fence { token: r.get::<_, i64>(0)?.max(0) as u64, agent: r.get(1)? })
                })
                .optional()
            })
            .map_err(db_error)
    }

    fn touch_claim(&mut self, path: &str, now: Timestamp) -> Result<()> {
        self.0
            .prepare_cached("UPDATE claims SET touched = ?2 WHERE path = ?1")
            .and_then(|mut s| s.execute(params![path, now.as_millis()]))
            .map(drop)
            .map_err(db_error)
    }

    fn put_claim(&mut self, path: &str, agent: &str, now: Timestamp) -> Result<()> {
        self.0
            .prepare_cached(
                "INSERT OR REPLACE INTO claims (path, agent, since, touched) VALUES (?1, ?2, ?3, ?3)",
            )
            .and_then(|mut s| s.execute(params![path, agent, now.as_millis()]))
            .map(drop)
            .map_err(db_error)
    }

    fn new_token(&mut self, path: &str, agent: &str) -> Result<u64> {
        let token: i64 = self
            .0
            .prepare_cached("UPDATE fencing_tokens SET last = last + 1 WHERE id = 1 RETURNING last")
            .and_then(|mut s| s.query_row([], |r| r.get(0)))
            .map_err(db_error)?;
        self.0
            .prepare_cached("INSERT OR REPLACE INTO fences (path, token, agent) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![path, token, agent]))
            .map_err(db_error)?;
        Ok(token as u64)
    }

    fn drop_claim(&mut self, path: &str) -> Result<()> {
        self.0.execute("DELETE FROM claims WHERE path = ?1", [path]).map(drop).map_err(db_error)
    }

    fn claimed_by(&mut self, agent: &str) -> Result<Vec<String>> {
        let mut stmt =
            self.0.prepare("SELECT path FROM claims WHERE agent = ?1 ORDER BY path").map_err(db_error)?;
        let rows = stmt.query_map([agent], |r| r.get(0)).map_err(db_error)?;
        rows.collect::<rusqlite::Result<_>>().map_err(db_error)
    }

    fn all_claims(&mut self) -> Result<Vec<Claim>> {
        let mut stmt =
            self.0.prepare(&format!("SELECT {CLAIM_COLUMNS} ORDER BY c.since, c.path")).map_err(db_error)?;
        let rows = stmt.query_map([], row_to_claim).map_err(db_error)?;
        rows.collect::<rusqlite::Result<_>>().map_err(db_error)
    }

    fn add_row(&mut self, row: NewRow<'_>) -> Result<i64> {
        self.0
            .prepare_cached(
                "INSERT INTO journal (time, agent, action, path, size, added, sha256)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    row.time.as_millis(),
                    row.agent,
                    row.action.as_str(),
                    row.path,
                    row.size as i64,
                    row.added as i64,
                    row.sha256
                ])
            })
            .map_err(db_error)?;
        Ok(self.0.last_insert_rowid())
    }

    fn add_version(&mut self, v: NewVersion<'_>) -> Result<()> {
        // The new row is the newest: it carries the running state on, with its own content.
        let (total, from) = self.running()?;
        let total = total + v.content.map_or(0, |c| c.len() as i64);
        self.0
            .prepare_cached(
                "INSERT INTO versions (journal_id, kind, size, content, splice_at, kept_total, kept_from)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    v.journal_id,
                    v.kind,
                    v.size as i64,
                    v.content,
                    v.at.map(|at| at as i64),
                    total,
                    from
                ])
            })
            .map_err(db_error)?;
        self.1 = Some((total, from));
        Ok(())
    }

    fn kept_bytes(&mut self) -> Result<i64> {
        Ok(self.running()?.0)
    }

    fn oldest_kept(&mut self) -> Result<Option<(i64, i64)>> {
        // Walks the table from where the budget stopped, past the versions that never had
        // content to keep: each is passed once, as that point only moves on.
        let (_, from) = self.running()?;
        self.0
            .prepare_cached(
                "SELECT journal_id, LENGTH(content) FROM versions WHERE journal_id >= ?1 AND content IS NOT NULL
                 ORDER BY journal_id LIMIT 1",
            )
            .and_then(|mut s| s.query_row([from], |r| Ok((r.get(0)?, r.get(1)?))).optional())
            .map_err(db_error)
    }

    fn drop_kept(&mut self, journal_id: i64, len: i64) -> Result<()> {
        let (total, _) = self.running()?;
        self.0
            .prepare_cached("UPDATE versions SET content = NULL WHERE journal_id = ?1")
            .and_then(|mut s| s.execute([journal_id]))
            .map_err(db_error)?;
        // The newest row is on the page this change writes anyway: no page more.
        self.0
            .prepare_cached(
                "UPDATE versions SET kept_total = ?1, kept_from = ?2
                 WHERE journal_id = (SELECT MAX(journal_id) FROM versions)",
            )
            .and_then(|mut s| s.execute(params![total - len, journal_id + 1]))
            .map_err(db_error)?;
        self.1 = Some((total - len, journal_id + 1));
        Ok(())
    }

    fn last_changes(&mut self, path: &str, steps: usize) -> Result<Vec<UndoStep>> {
        let mut stmt = self
            .0
            .prepare(
                "SELECT j.action, j.agent, j.time, j.sha256, v.kind, v.size, v.content, v.splice_at
                 FROM journal j LEFT JOIN versions v ON v.journal_id = j.id
                 WHERE j.path = ?1 ORDER BY j.id DESC LIMIT ?2",
            )
            .map_err(db_error)?;
        let rows = stmt
            .query_map(params![path, steps as i64], |r| {
                Ok(UndoStep {
                    action: r.get(0)?,
                    agent: r.get(1)?,
                    time: Timestamp::from_millis(r.get(2)?),
                    sha256_after: r.get(3)?,
                    before: Before::from_row(
                        r.get::<_, Option<String>>(4)?.as_deref(),
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                    ),
                })
            })
            .map_err(db_error)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)
    }

    fn latest(&mut self, agent: Option<&str>, path: Option<&str>) -> Result<Vec<Artifact>> {
        let mut stmt = self
            .0
            .prepare(
                "SELECT j.path, j.agent, j.action, j.time, j.size, j.sha256,
                        (SELECT COUNT(*) FROM journal c WHERE c.path = j.path)
                 FROM journal j
                 WHERE j.id = (SELECT MAX(id) FROM journal m WHERE m.path = j.path)
                   AND (?1 IS NULL OR EXISTS (SELECT 1 FROM journal a WHERE a.path = j.path AND a.agent = ?1))
                   AND (?2 IS NULL OR j.path = ?2)
                 ORDER BY j.path",
            )
            .map_err(db_error)?;
        let rows = stmt
            .query_map(params![agent, path], |r| {
                Ok(Artifact {
                    path: r.get(0)?,
                    agent: r.get(1)?,
                    action: r.get(2)?,
                    time: Timestamp::from_millis(r.get(3)?),
                    size: r.get::<_, i64>(4)? as u64,
                    sha256: r.get(5)?,
                    writes: r.get::<_, i64>(6)? as u64,
                    history: Vec::new(),
                })
            })
            .map_err(db_error)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)
    }

    fn history(&mut self, path: &str) -> Result<Vec<(JournalEntry, bool)>> {
        let mut stmt = self
            .0
            .prepare(
                "SELECT j.time, j.agent, j.action, j.size, j.added, j.sha256,
                        v.kind IS NOT NULL AND (v.kind NOT IN ('content', 'splice') OR v.content IS NOT NULL)
                 FROM journal j LEFT JOIN versions v ON v.journal_id = j.id
                 WHERE j.path = ?1 ORDER BY j.id",
            )
            .map_err(db_error)?;
        let rows = stmt
            .query_map([path], |r| {
                let entry = JournalEntry {
                    time: Timestamp::from_millis(r.get(0)?),
                    agent: r.get(1)?,
                    action: r.get(2)?,
                    size: r.get::<_, i64>(3)? as u64,
                    added: r.get::<_, i64>(4)? as u64,
                    sha256: r.get(5)?,
                    restore_with_steps: None,
                };
                Ok((entry, r.get::<_, bool>(6)?))
            })
            .map_err(db_error)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)
    }

    fn paths_since(&mut self, since: Timestamp) -> Result<Vec<String>> {
        let mut stmt = self
            .0
            .prepare("SELECT DISTINCT path FROM journal WHERE time >= ?1 ORDER BY path")
            .map_err(db_error)?;
        let rows = stmt.query_map([since.as_millis()], |r| r.get(0)).map_err(db_error)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_filesystems_are_told_from_local_ones() {
        assert_eq!(network_kind(0x6969), Some("NFS"));
        assert_eq!(network_kind(0xFF53_4D42), Some("CIFS"));
        // statfs reports the magic sign-extended on some targets.
        assert_eq!(network_kind(0xFFFF_FFFF_FF53_4D42), Some("CIFS"));
        for local in [
            0xEF53,      /* ext4 */
            0x5846_5342, /* xfs */
            0x0102_1994, /* tmpfs */
            0x794C_7630, /* overlay */
        ] {
            assert_eq!(network_kind(local), None, "{local:#x}");
        }
        assert_eq!(network_filesystem(Path::new("/definitely/not/here")), None);
    }

    #[test]
    fn commits_are_copied_into_the_database_off_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        let db = Sqlite::open(dir.path()).unwrap();
        let autocheckpoint: u32 = db.conn().query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0)).unwrap();
        assert_eq!(autocheckpoint, COMMIT_CHECKPOINT_PAGES, "commits would checkpoint every 1000 pages");
        // Pages of the database file itself, which only a checkpoint writes while a connection
        // is open.
        let pages = || std::fs::metadata(dir.path().join(DB_FILE)).unwrap().len() / 4096;
        let before = pages();
        db.conn()
            .execute_batch("CREATE TABLE filler (x BLOB); INSERT INTO filler VALUES (zeroblob(65536));")
            .unwrap();
        let ((), failed) = db.write(Lock::Root, |_| Ok(((), Ok(())))).unwrap();
        assert!(failed.is_none());
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while pages() < before + 16 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(pages() >= before + 16, "the WAL was not checkpointed: {} pages, {before} before", pages());
    }

    #[test]
    fn a_database_of_an_older_schema_gets_what_it_lacks_and_a_current_one_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let tables = |conn: &Connection| -> Vec<String> {
            let mut names = conn.prepare("SELECT name FROM sqlite_master ORDER BY name").unwrap();
            names.query_map([], |r| r.get(0)).unwrap().map(|n| n.unwrap()).collect()
        };
        let full = tables(&Sqlite::open(dir.path()).unwrap().conn());
        assert!(full.contains(&"fences".to_string()), "{full:?}");
        {
            // As a filewright before fencing left it: no fences table, no version.
            let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
            conn.execute_batch("DROP TABLE fences; PRAGMA user_version = 0;").unwrap();
        }
        let db = Sqlite::open(dir.path()).unwrap();
        assert_eq!(tables(&db.conn()), full, "the missing table is made again");
        let version: i64 = db.conn().query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        drop(db);
        {
            // At the current version the statements are skipped: a table dropped behind its
            // back stays dropped (which is how the skip shows).
            let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
            conn.execute_batch("DROP TABLE fences;").unwrap();
        }
        let db = Sqlite::open(dir.path()).unwrap();
        assert!(!tables(&db.conn()).contains(&"fences".to_string()));
    }

    /// Processes starting together on a new state directory all open its database: the
    /// switch to WAL takes its lock without SQLite's busy handler, so without a retry one of
    /// them failed with "database is locked" (one start in ten, two at once) and exited.
    #[test]
    fn opens_racing_on_a_new_database_all_succeed() {
        for _ in 0..40 {
            let dir = tempfile::tempdir().unwrap();
            let start = std::sync::Barrier::new(4);
            std::thread::scope(|s| {
                let opens: Vec<_> = (0..4)
                    .map(|_| {
                        s.spawn(|| {
                            start.wait();
                            Sqlite::open(dir.path()).map(|_| ())
                        })
                    })
                    .collect();
                for open in opens {
                    if let Err(e) = open.join().unwrap() {
                        panic!("a racing open failed: {e:#}");
                    }
                }
            });
            let db = Sqlite::open(dir.path()).unwrap();
            let mode: String = db.conn().query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
            assert_eq!(mode, "wal");
        }
    }

    #[test]
    fn actions_are_read_back_from_their_stored_names() {
        for action in Action::ALL {
            let stored = rusqlite::types::ValueRef::Text(action.as_str().as_bytes());
            assert_eq!(<Action as rusqlite::types::FromSql>::column_result(stored).ok(), Some(action));
        }
    }
}
