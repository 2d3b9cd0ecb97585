//! The state shared by every filewright process on one root: who owns which file (claims,
//! with their fencing tokens), what was written (the journal) and what each change replaced
//! (the versions `undo` restores).
//!
//! Each MCP client spawns its own server process, so a lock inside one process coordinates
//! nothing; a database every process opens does. A write happens inside one transaction that
//! first checks and takes the claim, then runs the file operation, then records it in the
//! journal, and that transaction serialises the writers of the path: two processes can never
//! both win a claim, and appends never interleave.
//!
//! Two backends hold it, behind the statements of `tx::Tx`:
//! - `sqlite`, the default: one database in the state directory, for the processes of one
//!   machine;
//! - `postgres`, chosen with `--store postgres://...`: for processes on several hosts that
//!   share one workspace, keyed by a root identity every host agrees on.
//!
//! The rules (claims, fencing, the history budget, undo's reach) are written once over those
//! statements, in `claims.rs` and `journal.rs`; nothing outside this module knows which
//! backend is in use.
//!
//! `open.rs` chooses the backend, makes and checks the state directory and opens the store;
//! `versions.rs` holds what a change replaced, which `undo` puts back.

mod claims;
mod intents;
mod journal;
mod open;
mod postgres;
mod sqlite;
mod tx;
mod versions;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

pub use claims::{Claim, ClaimOutcome, NotReleased, ReleaseOutcome};
pub use intents::AppendIntent;
pub use journal::{Action, Artifact, JournalEntry};
pub use open::{Opening, StoreUrl, default_state_dir};
pub use sqlite::DB_FILE;
pub use versions::{Before, DEFAULT_HISTORY_BYTES, MAX_UNDO_STEPS, UndoStep, link_sha256};

use crate::error::{Error, Result};
use crate::timestamp::Timestamp;
use tx::{Lock, Tx};

/// How long a call waits for another process's transaction before giving up with an error
/// (never a hang).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

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

/// The shared store of one root.
#[derive(Debug)]
pub struct Store {
    /// The database. Set when the store is made, or a little later by [`Opening::finish`]
    /// on another thread (see [`Store::open_sqlite_later`]): until then every use of it waits.
    backend: Arc<OnceLock<Backend>>,
    /// Where the store lives, for startup logs (see [`Store::describe`]).
    description: String,
    /// The store is SQLite: its clock is this host's (`now` needs no database), and it blocks
    /// on no async runtime.
    sqlite: bool,
    /// Appends in flight, recorded before their bytes are written (always in the local state
    /// directory: only this host's processes can be killed mid-append on this host).
    intents: intents::Intents,
    claim_ttl: Option<Duration>,
    /// Bytes of old versions kept; the oldest are dropped first.
    history_bytes: u64,
    /// The fencing token this process last held for each agent and path: a write under a
    /// token another agent's claim has superseded since is refused.
    held: Mutex<HashMap<(String, String), u64>>,
}

#[derive(Debug)]
enum Backend {
    Sqlite(sqlite::Sqlite),
    /// Boxed: its configuration is large, and there is one store per process.
    Postgres(Box<postgres::Postgres>),
}

impl Backend {
    fn write<T>(
        &self,
        lock: Lock<'_>,
        f: impl FnOnce(&mut dyn Tx) -> Result<(T, Result<()>)>,
    ) -> Result<(T, Option<Error>)> {
        match self {
            Backend::Sqlite(db) => db.write(lock, f),
            Backend::Postgres(db) => db.write(lock, f),
        }
    }

    /// [`Backend::write`] for a change that lives only in the database: a failed commit is
    /// the call's error.
    fn change<T>(&self, lock: Lock<'_>, f: impl FnOnce(&mut dyn Tx) -> Result<T>) -> Result<T> {
        match self.write(lock, |tx| Ok((f(tx)?, Ok(()))))? {
            (value, None) => Ok(value),
            (_, Some(e)) => Err(e),
        }
    }

    fn read<T>(&self, f: impl FnOnce(&mut dyn Tx) -> Result<T>) -> Result<T> {
        match self {
            Backend::Sqlite(db) => db.read(f),
            Backend::Postgres(db) => db.read(f),
        }
    }
}

impl Store {
    /// The database, once it is open (see [`Store::open_sqlite_later`]).
    fn backend(&self) -> &Backend {
        self.backend.wait()
    }

    /// With `durable`, a commit reaches the disk before it returns, so a journal row survives
    /// a power loss with its change. (PostgreSQL commits are durable already.) For a store
    /// whose database opens later, say it to [`Store::open_sqlite_later`] instead: this waits
    /// for the database.
    pub fn durable(self, durable: bool) -> anyhow::Result<Self> {
        if durable && let Backend::Sqlite(db) = self.backend() {
            db.durable()?;
        }
        Ok(self)
    }

    /// Keeps at most `bytes` of old versions for `undo` (default [`DEFAULT_HISTORY_BYTES`]).
    pub fn with_history_budget(mut self, bytes: u64) -> Self {
        self.history_bytes = bytes;
        self
    }

    /// Where the store lives, for startup logs: the database file, or the PostgreSQL server
    /// and root identity (never the password).
    pub fn describe(&self) -> String {
        self.description.clone()
    }

    /// Runs `write` as `agent`'s `action` on `path` under the claim rules: when another
    /// agent holds a live claim, or has superseded this process's claim since its last write,
    /// nothing runs and the error names the owner; otherwise the claim is taken (or
    /// refreshed), `write` runs, and its facts go to the journal, all in one transaction. A
    /// failed `write` leaves no claim and no journal row behind; a `write` that changed
    /// nothing returns no facts and adds no row.
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
        self.claimed_change(path, agent, Action::Undo, |tx| {
            let plan = tx.last_changes(path, steps)?;
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
        change: impl FnOnce(&mut dyn Tx) -> Result<(T, Option<WriteFacts>)>,
    ) -> Result<(T, Option<String>)> {
        self.claimed_changes(&[path], agent, |tx| {
            let (value, facts) = change(tx)?;
            Ok((value, facts.into_iter().map(|f| (path.to_string(), action, f)).collect()))
        })
    }

    fn claimed_changes<T>(
        &self,
        paths: &[&str],
        agent: &str,
        change: impl FnOnce(&mut dyn Tx) -> Result<(T, Vec<(String, Action, WriteFacts)>)>,
    ) -> Result<(T, Option<String>)> {
        self.claimed_steps(paths, agent, change, Ok, Landing::InChange)
    }

    /// [`Store::write_claimed`] for a change that goes on disk in one last step: `prepare`
    /// does the rest (reads the file, decides, stages the new content) and returns the
    /// journal's facts, which are recorded; then `land` puts the change in place, and the
    /// transaction commits. A row that cannot be recorded fails the call before anything has
    /// changed.
    pub fn write_claimed_then_land<P, T>(
        &self,
        path: &str,
        agent: &str,
        action: Action,
        prepare: impl FnOnce() -> Result<(P, Option<WriteFacts>)>,
        land: impl FnOnce(P) -> Result<T>,
    ) -> Result<(T, Option<String>)> {
        let change = |_: &mut dyn Tx| {
            let (prepared, facts) = prepare()?;
            Ok((prepared, facts.into_iter().map(|f| (path.to_string(), action, f)).collect()))
        };
        self.claimed_steps(&[path], agent, change, land, Landing::Last)
    }

    /// The claims of `paths`, then `change`, its journal rows and `land`, in one transaction.
    fn claimed_steps<P, T>(
        &self,
        paths: &[&str],
        agent: &str,
        change: impl FnOnce(&mut dyn Tx) -> Result<(P, Vec<(String, Action, WriteFacts)>)>,
        land: impl FnOnce(P) -> Result<T>,
        landing: Landing,
    ) -> Result<(T, Option<String>)> {
        let mut tokens = Vec::with_capacity(paths.len());
        // Held from before the transaction until its tokens are kept, so that a release by
        // another call of this process cannot fall in between.
        let mut held = self.held_tokens();
        let (value, unrecorded) = self.backend().write(Lock::Paths(paths), |tx| {
            let now = tx.now()?;
            for path in paths {
                let token = held.get(&(agent.to_string(), path.to_string())).copied();
                tokens.push((path.to_string(), claims::take(tx, path, agent, now, self.claim_ttl, token)?));
            }
            let (prepared, rows) = change(tx)?;
            let recorded = rows.iter().try_for_each(|(path, action, facts)| {
                journal::record(tx, now, agent, *action, path, facts, self.history_bytes)
            });
            if landing == Landing::Last {
                // Nothing has changed yet: the call fails whole, and the agent may repeat it.
                recorded?;
                return Ok((land(prepared)?, Ok(())));
            }
            Ok((land(prepared)?, recorded))
        })?;
        if unrecorded.is_none() {
            hold(&mut held, agent, tokens);
        }
        drop(held);
        let unrecorded = unrecorded.map(|e| {
            format!(
                "{} WAS changed by this call, but its claim and journal row could not be recorded \
                 ({}): do not repeat the call; list_artifacts will not show this change",
                paths.join(" and "),
                cause(&e)
            )
        });
        Ok((value, unrecorded))
    }

    /// Claims every path for `agent`, or none when any is owned by someone else. An explicit
    /// claim is how an agent whose claim was superseded takes the path back.
    pub fn claim(&self, paths: &[String], agent: &str) -> Result<ClaimOutcome> {
        let locked: Vec<&str> = paths.iter().map(String::as_str).collect();
        let mut held = self.held_tokens();
        let (outcome, tokens) = self.backend().change(Lock::Paths(&locked), |tx| {
            let now = tx.now()?;
            claims::take_all(tx, paths, agent, now, self.claim_ttl)
        })?;
        hold(&mut held, agent, tokens);
        Ok(outcome)
    }

    /// Releases `agent`'s claims on `paths`, or all of them when `paths` is None.
    pub fn release(&self, paths: Option<&[String]>, agent: &str) -> Result<ReleaseOutcome> {
        let locked: Vec<&str> = paths.unwrap_or_default().iter().map(String::as_str).collect();
        let lock = if paths.is_some() { Lock::Paths(&locked) } else { Lock::Root };
        let mut held = self.held_tokens();
        let outcome = self.backend().change(lock, |tx| claims::release(tx, paths, agent))?;
        // Only what was released: a token superseded by another agent's claim stays held, so
        // that the stale write is still refused after that agent lets go.
        for path in &outcome.released {
            held.remove(&(agent.to_string(), path.clone()));
        }
        Ok(outcome)
    }

    /// Every live claim, oldest first.
    pub fn claims(&self) -> Result<Vec<Claim>> {
        self.backend().read(|tx| claims::list(tx, self.claim_ttl))
    }

    /// The latest journal state of each file (filtered), with its history when asked.
    pub fn artifacts(&self, agent: Option<&str>, path: Option<&str>, history: bool) -> Result<Vec<Artifact>> {
        self.backend().read(|tx| journal::artifacts(tx, agent, path, history))
    }

    /// The time by the store's clock: the database's for PostgreSQL, whose journal times and
    /// claim expiries are in it, so that hosts whose clocks differ agree.
    pub fn now(&self) -> Result<Timestamp> {
        if self.sqlite {
            return Ok(Timestamp::now());
        }
        self.backend().read(|tx| tx.now())
    }

    /// Every path the journal recorded a write for at or after `since`, in order.
    pub fn journal_paths(&self, since: Timestamp) -> Result<Vec<String>> {
        self.backend().read(|tx| tx.paths_since(since))
    }

    /// Records an append about to be made; see [`AppendIntent`]. A failure is an error that
    /// says nothing was appended: an append without its intent could not be repaired.
    pub fn record_append_intent(&self, intent: &AppendIntent) -> Result<()> {
        self.intents.record(intent).map_err(|e| Error::StateDir {
            reason: format!(
                "could not record the append to {} in the state directory {} ({e})",
                intent.path,
                self.intents.dir().display()
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

    /// Runs `f` holding the store's lock on every writer of the root (no claim is taken and
    /// nothing is journaled), so that no append of any process runs meanwhile: for repairing
    /// what a killed one left.
    pub fn exclusive<T>(&self, f: impl FnOnce() -> T) -> Result<T> {
        self.backend().change(Lock::Root, |_| Ok(f()))
    }

    fn held_tokens(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), u64>> {
        // Only plain inserts and removals happen under it: a poisoned map is still whole.
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Where a claimed change lands on disk, which decides what a journal row that cannot be
/// recorded means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Landing {
    /// Within the change itself: it has landed, so an unrecorded row is a warning.
    InChange,
    /// In a last step after the rows: an unrecorded row stops the change before it lands.
    Last,
}

/// Keeps the tokens `agent` now holds.
fn hold(held: &mut HashMap<(String, String), u64>, agent: &str, tokens: Vec<(String, u64)>) {
    for (path, token) in tokens {
        held.insert((agent.to_string(), path), token);
    }
}

/// What went wrong in the store, without the advice its error gives to a call that wrote
/// nothing ("retry"): quoted in the warning of a call whose bytes did land.
fn cause(e: &Error) -> String {
    match e {
        Error::Store { detail, .. } => detail.clone(),
        Error::StoreDown { store, detail } => format!("{store} could not be reached: {detail}"),
        other => other.to_string(),
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn store(ttl: Option<Duration>) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), ttl).unwrap();
        (dir, store)
    }

    /// A store whose database opens later tells its place and the time at once, and a claim
    /// made meanwhile waits for the database, then holds.
    #[test]
    fn a_store_opened_later_waits_for_its_database() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let (store, opening) = Store::open_sqlite_later(&state, None, false).unwrap();
        assert!(state.is_dir(), "the state directory is made at once");
        assert!(store.describe().ends_with(DB_FILE), "{}", store.describe());
        assert!(store.now().is_ok(), "the time needs no database");
        std::thread::scope(|scope| {
            let claiming = scope.spawn(|| store.claim(&["a.txt".to_string()], "ann"));
            std::thread::sleep(Duration::from_millis(50));
            assert!(!claiming.is_finished(), "the claim waits for the database");
            opening.finish().unwrap();
            assert!(claiming.join().unwrap().is_ok());
        });
        let claims = store.claims().unwrap();
        assert_eq!(claims.iter().map(|c| c.agent.as_str()).collect::<Vec<_>>(), ["ann"]);
    }

    #[test]
    fn a_database_that_cannot_open_later_is_an_error_of_the_opening() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(DB_FILE), b"not a database, but long enough to be read as one......")
            .unwrap();
        let (_store, opening) = Store::open_sqlite_later(dir.path(), None, false).unwrap();
        let e = opening.finish().expect_err("a corrupt database");
        assert!(format!("{e:#}").contains("cannot use the state database"), "{e:#}");
    }

    /// A SQLite store, and a PostgreSQL one (under a root identity of its own) when
    /// `FILEWRIGHT_TEST_POSTGRES` names a database: the rules must hold on both.
    fn stores(ttl: Option<Duration>) -> Vec<(tempfile::TempDir, Store)> {
        let mut out = vec![store(ttl)];
        if let Some(url) = test_postgres() {
            let dir = tempfile::tempdir().unwrap();
            let root = format!("unit-{}", unique());
            let ca = std::env::var_os("FILEWRIGHT_TEST_POSTGRES_CA").map(PathBuf::from);
            let store =
                Store::open_at(&StoreUrl::Postgres(url), &root, ca.as_deref(), dir.path(), ttl).unwrap();
            out.push((dir, store));
        }
        out
    }

    /// The PostgreSQL the tests may use (`FILEWRIGHT_TEST_POSTGRES`); None without one, which
    /// fails the test when CI requires one (`FILEWRIGHT_REQUIRE_POSTGRES=1`).
    fn test_postgres() -> Option<String> {
        let url = std::env::var("FILEWRIGHT_TEST_POSTGRES").ok().filter(|url| !url.is_empty());
        assert!(
            url.is_some() || std::env::var("FILEWRIGHT_REQUIRE_POSTGRES").as_deref() != Ok("1"),
            "FILEWRIGHT_REQUIRE_POSTGRES=1 but FILEWRIGHT_TEST_POSTGRES is not set"
        );
        url
    }

    /// A name no other test of any run uses.
    fn unique() -> String {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        format!("{}_{nanos}", std::process::id())
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
        for (_d, s) in stores(None) {
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
    }

    #[test]
    fn a_failed_write_leaves_no_claim_and_no_journal_row() {
        for (_d, s) in stores(None) {
            let r: Result<((), Option<String>)> = s.write_claimed("a.js", "alice", Action::Write, || {
                Err(Error::NotFound { path: "a.js".into() })
            });
            assert!(r.is_err());
            assert!(s.claims().unwrap().is_empty());
            assert!(s.artifacts(None, None, true).unwrap().is_empty());
        }
    }

    #[test]
    fn a_landing_that_fails_leaves_no_claim_and_no_journal_row() {
        for (_d, s) in stores(None) {
            let r: Result<((), Option<String>)> = s.write_claimed_then_land(
                "a.js",
                "alice",
                Action::Write,
                || Ok(((), facts(1))),
                |()| Err(Error::NotFound { path: "a.js".into() }),
            );
            assert!(r.is_err());
            assert!(s.claims().unwrap().is_empty());
            assert!(s.artifacts(None, None, true).unwrap().is_empty());
        }
    }

    #[test]
    fn a_row_that_cannot_be_recorded_stops_the_change_before_it_lands() {
        let (_d, s) = store(None);
        {
            let Backend::Sqlite(db) = s.backend() else { unreachable!() };
            db.conn().execute_batch("DROP TABLE versions").unwrap();
        }
        let landed = std::cell::Cell::new(false);
        let r = s.write_claimed_then_land(
            "a.js",
            "alice",
            Action::Write,
            || Ok(((), facts(1))),
            |()| {
                landed.set(true);
                Ok(())
            },
        );
        assert!(r.is_err(), "{r:?}");
        assert!(!landed.get(), "nothing may land when its row cannot be recorded");
        assert!(s.claims().unwrap().is_empty());
        // The same failure in a change that landed by itself is a warning, not an error.
        let (_, unrecorded) = s.write_claimed("b.js", "alice", Action::Write, || Ok(((), facts(1)))).unwrap();
        assert!(unrecorded.is_some_and(|w| w.contains("WAS changed")));
    }

    #[test]
    fn claims_expire_after_the_ttl() {
        for (_d, s) in stores(Some(Duration::from_millis(50))) {
            s.write_claimed("a.js", "alice", Action::Write, || Ok(((), facts(1)))).unwrap();
            std::thread::sleep(Duration::from_millis(80));
            assert!(s.claims().unwrap().is_empty(), "expired claims are not listed");
            s.write_claimed("a.js", "bob", Action::Write, || Ok(((), facts(1)))).unwrap();
            assert_eq!(s.claims().unwrap()[0].agent, "bob");
        }
    }

    /// The owner's writes restart the time to live, but one within a hundredth of it of the
    /// last recorded one leaves the claim's row alone (see `claims::touch_every`).
    #[test]
    fn an_owners_write_restarts_the_ttl_unless_the_last_restart_was_just_before() {
        for (_d, s) in stores(Some(Duration::from_secs(10))) {
            let expires = |s: &Store| s.claims().unwrap()[0].expires.unwrap();
            s.write_claimed("a.js", "alice", Action::Write, || Ok(((), facts(1)))).unwrap();
            let first = expires(&s);
            std::thread::sleep(Duration::from_millis(20));
            s.write_claimed("a.js", "alice", Action::Write, || Ok(((), facts(2)))).unwrap();
            assert_eq!(expires(&s), first, "20 ms after the last restart, within 100 ms");
            std::thread::sleep(Duration::from_millis(120));
            s.write_claimed("a.js", "alice", Action::Write, || Ok(((), facts(3)))).unwrap();
            let later = expires(&s);
            assert!(later.as_millis() >= first.as_millis() + 140, "{first:?} then {later:?}");
        }
    }

    #[test]
    fn a_write_under_a_token_another_agent_superseded_is_refused_until_claimed_again() {
        for (_d, s) in stores(Some(Duration::from_millis(50))) {
            s.write_claimed("a.js", "alice", Action::Write, || Ok(((), facts(1)))).unwrap();
            let alice_token = s.claims().unwrap()[0].token;
            std::thread::sleep(Duration::from_millis(80));
            // Alice's claim lapsed; bob is given the path, writes, and lets it go.
            s.write_claimed("a.js", "bob", Action::Write, || Ok(((), facts(2)))).unwrap();
            let bob_token = s.claims().unwrap()[0].token;
            assert!(bob_token > alice_token, "tokens come from one sequence: {alice_token} then {bob_token}");
            // Alice letting go of a path she no longer holds does not forget her old token.
            assert!(s.release(Some(&["a.js".into()]), "alice").unwrap().released.is_empty());
            s.release(None, "bob").unwrap();
            assert!(s.claims().unwrap().is_empty());
            let mut ran = false;
            let err = s
                .write_claimed("a.js", "alice", Action::Write, || {
                    ran = true;
                    Ok(((), facts(3)))
                })
                .unwrap_err();
            assert!(!ran, "a superseded writer must not write");
            let text = err.to_string();
            assert!(
                text.starts_with(&format!("SUPERSEDED: your claim on a.js (fencing token {alice_token})")),
                "{text}"
            );
            assert!(
                text.contains(&format!("agent \"bob\" was given the path since (token {bob_token})")),
                "{text}"
            );
            // Taking it back explicitly is how alice says she has seen bob's change.
            s.claim(&["a.js".into()], "alice").unwrap();
            s.write_claimed("a.js", "alice", Action::Write, || Ok(((), facts(3)))).unwrap();
            assert!(s.claims().unwrap()[0].token > bob_token);
        }
    }

    #[test]
    fn a_lapsed_claim_nobody_took_is_renewed_under_the_same_token() {
        for (_d, s) in stores(Some(Duration::from_millis(30))) {
            s.write_claimed("a.js", "alice", Action::Write, || Ok(((), facts(1)))).unwrap();
            let token = s.claims().unwrap()[0].token;
            std::thread::sleep(Duration::from_millis(50));
            s.write_claimed("a.js", "alice", Action::Append, || Ok(((), facts(2)))).unwrap();
            assert_eq!(s.claims().unwrap()[0].token, token);
        }
    }

    #[test]
    fn a_change_whose_journal_row_fails_comes_back_with_a_warning_that_never_says_retry() {
        let (_d, s) = store(None);
        {
            let Backend::Sqlite(db) = s.backend() else { unreachable!() };
            db.conn()
                .execute_batch(
                    "CREATE TRIGGER refuse BEFORE INSERT ON journal BEGIN SELECT RAISE(FAIL, 'disk I/O error'); END;",
                )
                .unwrap();
        }
        let (value, warning) =
            s.write_claimed("a.js", "alice", Action::Append, || Ok(("landed", facts(4)))).unwrap();
        assert_eq!(value, "landed");
        let warning = warning.expect("a warning");
        assert!(warning.starts_with("a.js WAS changed by this call"), "{warning}");
        assert!(
            warning.contains("disk I/O error") && warning.contains("do not repeat the call"),
            "{warning}"
        );
        assert!(!warning.contains("Retry") && !warning.contains("nothing was written"), "{warning}");
        assert!(s.claims().unwrap().is_empty(), "the claim went with the rolled back transaction");
    }

    #[test]
    fn claim_all_is_all_or_nothing() {
        for (_d, s) in stores(None) {
            s.claim(&["b.js".into()], "bob").unwrap();
            let out = s.claim(&["a.js".into(), "b.js".into()], "alice").unwrap();
            assert_eq!(out.conflicts.len(), 1);
            assert!(out.claimed.is_empty());
            assert_eq!(s.claims().unwrap().len(), 1, "a.js was not claimed");
        }
    }

    #[test]
    fn release_drops_only_the_callers_claims() {
        for (_d, s) in stores(None) {
            s.claim(&["a".into(), "b".into()], "alice").unwrap();
            s.claim(&["c".into()], "bob").unwrap();
            let out = s.release(Some(&["a".into(), "c".into()]), "alice").unwrap();
            assert_eq!(out.released, vec!["a".to_string()]);
            assert_eq!(out.not_released.len(), 1);
            let out = s.release(None, "alice").unwrap();
            assert_eq!(out.released, vec!["b".to_string()]);
            assert_eq!(s.claims().unwrap().len(), 1);
        }
    }

    #[test]
    fn journal_keeps_history_and_latest_state() {
        for (_d, s) in stores(None) {
            s.write_claimed("a.js", "alice", Action::Write, || Ok(((), facts(10)))).unwrap();
            s.write_claimed("a.js", "alice", Action::Append, || {
                Ok((
                    (),
                    Some(WriteFacts {
                        size: 15,
                        added: 5,
                        sha256: "h".into(),
                        before: Some(Before::Prefix(10)),
                    }),
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
    }

    #[test]
    fn paths_are_listed_bytewise_on_every_backend() {
        for (_d, s) in stores(None) {
            for path in ["b.js", "B.js", "a.js", "_x.js"] {
                s.write_claimed(path, "alice", Action::Write, || Ok(((), facts(1)))).unwrap();
            }
            let listed: Vec<String> =
                s.artifacts(None, None, false).unwrap().into_iter().map(|a| a.path).collect();
            assert_eq!(listed, ["B.js", "_x.js", "a.js", "b.js"], "{}", s.describe());
            assert_eq!(s.journal_paths(Timestamp::from_millis(0)).unwrap(), listed, "{}", s.describe());
            let released = s.release(None, "alice").unwrap().released;
            assert_eq!(released, listed, "{}", s.describe());
        }
    }

    #[test]
    fn the_history_budget_drops_the_same_versions_on_every_backend() {
        let mut seen = Vec::new();
        for (_d, s) in stores(None) {
            let s = s.with_history_budget(100);
            for k in 0..30u64 {
                let before = Some(Before::Content(vec![b'x'; (k as usize * 7) % 40 + 1]));
                let path = if k % 3 == 0 { "b.js" } else { "a.js" };
                s.write_claimed(path, "alice", Action::Write, || {
                    Ok((
                        (),
                        Some(WriteFacts { size: k, added: k, sha256: "h".into(), before: before.clone() }),
                    ))
                })
                .unwrap();
            }
            let reach: Vec<Vec<(u64, Option<u64>)>> = s
                .artifacts(None, None, true)
                .unwrap()
                .iter()
                .map(|a| a.history.iter().map(|h| (h.size, h.restore_with_steps)).collect())
                .collect();
            let kept: Vec<bool> = s
                .undo_claimed("a.js", "alice", 30, |plan| {
                    Ok((plan.iter().map(|p| p.before.is_some()).collect(), None))
                })
                .unwrap()
                .0;
            assert!(
                kept.iter().any(|k| *k) && kept.iter().any(|k| !*k),
                "the budget kept some, not all: {kept:?}"
            );
            seen.push((reach, kept));
        }
        assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
    }

    #[test]
    fn an_edits_version_keeps_only_the_stretch_it_changed_on_every_backend() {
        let before: Vec<u8> = (0..200_000u32).flat_map(|k| format!("line {k}\n").into_bytes()).collect();
        let mut after = before.clone();
        after.splice(100_000..100_010, b"changed".iter().copied());
        for (_d, s) in stores(None) {
            let splice = Before::splice(&before, &after);
            let Before::Splice { at, ref old, size } = splice else { unreachable!() };
            assert_eq!((at, old.len(), size), (100_000, 10, before.len() as u64));
            let change = WriteFacts {
                size: after.len() as u64,
                added: 0,
                sha256: "h".into(),
                before: Some(splice.clone()),
            };
            s.write_claimed("big.txt", "alice", Action::Edit, || Ok(((), Some(change)))).unwrap();
            let plan = s.undo_claimed("big.txt", "alice", 1, |plan| Ok((plan.to_vec(), None))).unwrap().0;
            assert_eq!(plan[0].before.as_ref(), Some(&splice), "the splice came back changed");
            let Some(Before::Splice { at, old, size }) = &plan[0].before else { unreachable!() };
            assert_eq!(Before::unsplice(*at, old, *size, &after).as_deref(), Some(&before[..]));
            let history = s.artifacts(None, Some("big.txt"), true).unwrap();
            assert_eq!(history[0].history[0].restore_with_steps, Some(0));
        }
    }

    proptest::proptest! {
        #[test]
        fn a_splice_puts_back_exactly_the_file_before(
            before in proptest::collection::vec(0u8..3, 0..300),
            after in proptest::collection::vec(0u8..3, 0..300),
        ) {
            let Before::Splice { at, old, size } = Before::splice(&before, &after) else { unreachable!() };
            proptest::prop_assert_eq!(Before::unsplice(at, &old, size, &after), Some(before.clone()));
            // Nothing both files share at their ends is kept: the stretch starts and ends with
            // a byte that differs (or the shorter file is used up).
            let (at, tail) = (at as usize, before.len() - at as usize - old.len());
            proptest::prop_assert_eq!(&before[..at], &after[..at]);
            proptest::prop_assert_eq!(&before[before.len() - tail..], &after[after.len() - tail..]);
            proptest::prop_assert!(at == before.len().min(after.len()) || before[at] != after[at] || at + tail >= before.len().min(after.len()));
        }
    }

    proptest::proptest! {
        /// Files that share long runs, as before and after an edit do: the stretch kept is
        /// at most what the edit replaced, and puts the file back.
        #[test]
        fn a_splice_of_an_edit_keeps_at_most_the_text_it_replaced(
            before in proptest::collection::vec(0u8..3, 0..600),
            from in 0usize..600,
            cut in 0usize..80,
            put in proptest::collection::vec(0u8..3, 0..80),
        ) {
            let from = from.min(before.len());
            let to = (from + cut).min(before.len());
            let mut after = before.clone();
            after.splice(from..to, put.iter().copied());
            let Before::Splice { at, old, size } = Before::splice(&before, &after) else { unreachable!() };
            proptest::prop_assert!(old.len() <= to - from);
            proptest::prop_assert_eq!(Before::unsplice(at, &old, size, &after), Some(before.clone()));
        }
    }

    #[test]
    fn a_splice_that_does_not_fit_the_file_is_refused() {
        assert_eq!(Before::unsplice(5, b"x", 10, b"abc"), None, "head and tail longer than the file");
        assert_eq!(Before::unsplice(5, b"xyz", 4, b"abcdefgh"), None, "a size smaller than what it holds");
        assert_eq!(Before::unsplice(1, b"X", 3, b"abc").as_deref(), Some(&b"aXc"[..]));
    }

    /// The running total the newest version row carries, and SUM(LENGTH(content)) over the
    /// versions, which it must equal.
    fn summed(s: &Store) -> (i64, i64) {
        let Backend::Sqlite(db) = s.backend() else { unreachable!("the tests open SQLite") };
        let conn = db.conn();
        let kept = conn
            .query_row("SELECT kept_total FROM versions ORDER BY journal_id DESC LIMIT 1", [], |r| r.get(0))
            .unwrap();
        let sum = conn
            .query_row("SELECT COALESCE(SUM(LENGTH(content)), 0) FROM versions", [], |r| r.get(0))
            .unwrap();
        (kept, sum)
    }

    /// Writes `a.js` keeping `len` bytes of the version before it.
    /// A SQLite store that keeps at most `bytes` of undo copies.
    fn store_with_history_budget(bytes: u64) -> (tempfile::TempDir, Store) {
        let (dir, s) = store(None);
        (dir, s.with_history_budget(bytes))
    }

    fn keep_bytes(s: &Store, len: usize) {
        let before = Some(Before::Content(vec![b'x'; len]));
        s.write_claimed("a.js", "alice", Action::Write, || {
            Ok(((), Some(WriteFacts { size: 1, added: 1, sha256: "h".into(), before })))
        })
        .unwrap();
    }

    #[test]
    fn the_running_total_of_kept_versions_matches_their_sum_as_the_budget_drops_them() {
        let (_d, s) = store_with_history_budget(100);
        for k in 0..30 {
            keep_bytes(&s, (k * 7) % 40 + 1);
            let (kept, sum) = summed(&s);
            assert_eq!(kept, sum, "after write {k}");
            assert!(kept <= 100, "the budget holds: {kept}");
            // Changes that keep no content carry the total on.
            s.write_claimed("b.js", "alice", Action::Append, || {
                Ok((
                    (),
                    Some(WriteFacts {
                        size: 1,
                        added: 1,
                        sha256: "h".into(),
                        before: Some(Before::Prefix(0)),
                    }),
                ))
            })
            .unwrap();
            assert_eq!(summed(&s), (kept, sum), "after an append {k}");
        }
        // The budget dropped the oldest first, and only as many as it had to.
        let Backend::Sqlite(db) = s.backend() else { unreachable!() };
        let kept_ids: Vec<i64> = db
            .conn()
            .prepare("SELECT journal_id FROM versions WHERE content IS NOT NULL ORDER BY journal_id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let newest: i64 = db.conn().query_row("SELECT MAX(id) FROM journal", [], |r| r.get(0)).unwrap();
        let first = kept_ids[0];
        assert!(kept_ids.windows(2).all(|w| w[1] == w[0] + 2), "a run of the newest writes: {kept_ids:?}");
        assert_eq!(*kept_ids.last().unwrap(), newest - 1, "the newest write's version is kept");
        let dropped: i64 = db
            .conn()
            .query_row("SELECT LENGTH(content) FROM versions WHERE journal_id = ?1", [first - 2], |r| {
                r.get::<_, Option<i64>>(0)
            })
            .unwrap()
            .unwrap_or(0);
        assert_eq!(dropped, 0, "the version before the oldest kept was dropped");
    }

    /// Two copies kept in one transaction (a move's two rows), each making the budget drop
    /// older ones: the second row carries on the total the first one's drops left.
    #[test]
    fn copies_kept_twice_in_one_change_leave_the_total_right() {
        let (_d, s) = store_with_history_budget(100);
        keep_bytes(&s, 40);
        keep_bytes(&s, 40);
        let row = |path: &str| {
            let facts = WriteFacts {
                size: 1,
                added: 1,
                sha256: "h".into(),
                before: Some(Before::Content(vec![b'y'; 40])),
            };
            (path.to_string(), Action::Move, facts)
        };
        s.write_claimed_paths(&["a.js", "b.js"], "alice", || Ok(((), vec![row("a.js"), row("b.js")])))
            .unwrap();
        assert_eq!(summed(&s), (80, 80), "the two old copies dropped, the two new kept");
        keep_bytes(&s, 10);
        assert_eq!(summed(&s), (90, 90));
    }

    /// A newest row that an older filewright wrote carries no running state: the next change
    /// counts it afresh.
    #[test]
    fn a_running_total_left_out_by_an_older_filewright_is_counted_afresh() {
        let (_d, s) = store_with_history_budget(100);
        keep_bytes(&s, 30);
        keep_bytes(&s, 30);
        {
            let Backend::Sqlite(db) = s.backend() else { unreachable!() };
            db.conn().execute_batch("UPDATE versions SET kept_total = NULL, kept_from = NULL").unwrap();
        }
        keep_bytes(&s, 30);
        assert_eq!(summed(&s), (90, 90));
        keep_bytes(&s, 30);
        assert_eq!(summed(&s), (90, 90), "the oldest was dropped to stay within 100");
    }

    /// A database of schema version 2 kept the running total in a table of its own, by
    /// triggers, with an index of the versions with content: an open retires all three, adds
    /// the columns, keeps the versions, and the next change counts the total.
    #[test]
    fn a_database_of_schema_2_retires_its_running_total_table_and_counts_afresh() {
        let dir = tempfile::tempdir().unwrap();
        {
            let s = Store::open(dir.path(), None).unwrap();
            let Backend::Sqlite(db) = s.backend() else { unreachable!() };
            db.conn()
                .execute_batch(
                    "CREATE TABLE old (journal_id INTEGER PRIMARY KEY, kind TEXT NOT NULL, size INTEGER NOT NULL,
                                       content BLOB, splice_at INTEGER);
                     DROP TABLE versions; ALTER TABLE old RENAME TO versions;
                     INSERT INTO journal (id, time, agent, action, path, size, added, sha256)
                         VALUES (1, 0, 'ann', 'write', 'old.txt', 3, 3, 'h'), (2, 0, 'ann', 'append', 'old.txt', 4, 1, 'h');
                     INSERT INTO versions (journal_id, kind, size, content) VALUES (1, 'content', 3, x'616263'), (2, 'prefix', 3, NULL);
                     CREATE INDEX versions_kept ON versions (journal_id) WHERE content IS NOT NULL;
                     CREATE TABLE kept (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL);
                     INSERT INTO kept VALUES (1, 3);
                     CREATE TRIGGER kept_after_insert AFTER INSERT ON versions BEGIN
                         UPDATE kept SET bytes = bytes + COALESCE(LENGTH(NEW.content), 0);
                     END;
                     PRAGMA user_version = 2;",
                )
                .unwrap();
        }
        for _ in 0..2 {
            let s = Store::open(dir.path(), None).unwrap();
            let Backend::Sqlite(db) = s.backend() else { unreachable!() };
            let retired: i64 = db
                .conn()
                .query_row(
                    "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('kept', 'versions_kept', 'kept_after_insert')",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(retired, 0);
        }
        let s = Store::open(dir.path(), None).unwrap();
        keep_bytes(&s, 5);
        assert_eq!(summed(&s), (8, 8), "the 3 bytes kept before, and 5");
    }

    /// Keeps a whole old version of `a.txt`, as any filewright did.
    fn keep_a_whole_version(s: &Store) {
        let facts = WriteFacts { before: Some(Before::Content(b"old".to_vec())), ..facts(3).unwrap() };
        s.write_claimed("a.txt", "ann", Action::Write, || Ok(((), Some(facts)))).unwrap();
    }

    /// Keeps a splice of `a.txt` after the versions there, and finds both.
    fn keep_a_splice_after_them(s: &Store) {
        let splice = Before::Splice { at: 1, old: b"X".to_vec(), size: 3 };
        let facts = WriteFacts { before: Some(splice.clone()), ..facts(3).unwrap() };
        s.write_claimed("a.txt", "ann", Action::Edit, || Ok(((), Some(facts)))).unwrap();
        let plan = s.undo_claimed("a.txt", "ann", 30, |plan| Ok((plan.to_vec(), None))).unwrap().0;
        assert_eq!(plan[0].before, Some(splice));
        assert_eq!(plan.last().unwrap().before, Some(Before::Content(b"old".to_vec())));
    }

    #[test]
    fn a_database_made_before_splices_keeps_its_versions_and_gains_them() {
        let dir = tempfile::tempdir().unwrap();
        {
            let s = Store::open(dir.path(), None).unwrap();
            keep_a_whole_version(&s);
            let Backend::Sqlite(db) = s.backend() else { unreachable!() };
            // The table as schema version 1 made it.
            db.conn()
                .execute_batch(
                    "CREATE TABLE old (journal_id INTEGER PRIMARY KEY, kind TEXT NOT NULL, size INTEGER NOT NULL, content BLOB);
                     INSERT INTO old SELECT journal_id, kind, size, content FROM versions;
                     DROP TABLE versions; ALTER TABLE old RENAME TO versions; PRAGMA user_version = 1;",
                )
                .unwrap();
        }
        // The second open finds the column the first added.
        for _ in 0..2 {
            keep_a_splice_after_them(&Store::open(dir.path(), None).unwrap());
        }
    }

    /// A PostgreSQL database whose tables a filewright before splices made: the first process
    /// to connect adds the column, and the versions already kept stay.
    #[test]
    fn a_postgres_database_made_before_splices_gains_them() {
        let Some(url) = test_postgres() else { return };
        let name = format!("filewright_upgrade_{}", unique());
        let mut admin = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
        admin.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
        let (base, query) = url.split_once('?').unwrap_or((url.as_str(), ""));
        let (server, _) = base.rsplit_once('/').unwrap();
        let upgraded = format!("{server}/{name}{}{query}", if query.is_empty() { "" } else { "?" });
        let open =
            |dir: &Path| Store::open_at(&StoreUrl::Postgres(upgraded.clone()), "r", None, dir, None).unwrap();
        let dir = tempfile::tempdir().unwrap();
        keep_a_whole_version(&open(dir.path()));
        let mut old = ::postgres::Client::connect(&upgraded, ::postgres::NoTls).unwrap();
        old.batch_execute("ALTER TABLE filewright_versions DROP COLUMN splice_at").unwrap();
        drop(old);
        keep_a_splice_after_them(&open(dir.path()));
        admin.batch_execute(&format!("DROP DATABASE {name} WITH (FORCE)")).unwrap();
    }

    /// A new database numbers the journal without AUTOINCREMENT (whose sequence row is one
    /// more page for every change to write), and its ids still only grow.
    #[test]
    fn a_new_database_numbers_the_journal_without_a_sequence_table() {
        let (_d, s) = store(None);
        for _ in 0..3 {
            s.write_claimed("a.txt", "ann", Action::Write, || Ok(((), facts(3)))).unwrap();
        }
        let Backend::Sqlite(db) = s.backend() else { unreachable!() };
        let conn = db.conn();
        let sequences: i64 = conn
            .query_row("SELECT COUNT(*) FROM sqlite_master WHERE name = 'sqlite_sequence'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(sequences, 0);
        let ids: Vec<i64> = conn
            .prepare("SELECT id FROM journal")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(ids, [1, 2, 3]);
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
