//! The embedded backend: one SQLite database in the state directory, shared by every process
//! on this machine's root.
//!
//! SQLite in WAL mode, opened by every process on the same root, coordinates them: a write
//! runs in an IMMEDIATE transaction, so the database's write lock is held from the claim to
//! the journal row and every write to the root is serialised. Its locking is only safe on a
//! local filesystem; hosts sharing a network filesystem use the PostgreSQL backend.
//!
//! The statements of `Tx` in SQLite's dialect live in `statements`; this file opens the
//! database and runs transactions.

mod statements;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

use super::BUSY_TIMEOUT;
use super::tx::{Lock, Tx};
use crate::error::{Error, Result};
use statements::SqliteTx;

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
}
