//! The shared backend: one PostgreSQL database for processes on several hosts that serve one
//! workspace (a network filesystem, or a volume mounted into many containers), where
//! SQLite's file locking is unsafe.
//!
//! Every row carries the root identity (`--root-id`), so one database serves many roots.
//! A write transaction serialises with the other writers of its paths by transaction-level
//! advisory locks: exclusive on each path, shared on each of its parent directories up to
//! the root, so that a move or delete of a directory waits for the writes inside it, and
//! `Lock::Root` (exclusive on the root) waits for every writer. The locks go with the
//! transaction: never session-level ones, which would outlive a dropped call and live as long
//! as the connection, not the claim.
//!
//! A database that cannot be reached fails the call that needs it, with nothing written; the
//! next call connects again. Reads of files never touch it.
//!
//! The statements of `Tx` in PostgreSQL's dialect live in `statements`; this file connects,
//! reconnects, takes the advisory locks and runs transactions.

mod statements;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use postgres::{Client, NoTls, Statement, Transaction};

use super::BUSY_TIMEOUT;
use super::tx::{Lock, Tx};
use crate::error::{Error, Result};
use crate::timestamp::Timestamp;
use statements::PgTx;

/// How long connecting may take before the call fails (never a hang).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one statement may run: a database that stops answering fails the call.
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(30);

/// The tables, created by the first process that connects (under an advisory lock, so that
/// two first processes do not race on the catalog).
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS filewright_claims (
    root    TEXT NOT NULL,
    path    TEXT NOT NULL,
    agent   TEXT NOT NULL,
    since   BIGINT NOT NULL,   -- unix ms: first claimed
    touched BIGINT NOT NULL,   -- unix ms: last write by the owner (TTL counts from here)
    PRIMARY KEY (root, path)
);
CREATE TABLE IF NOT EXISTS filewright_fences (
    root  TEXT NOT NULL,
    path  TEXT NOT NULL,
    token BIGINT NOT NULL,     -- the latest fencing token of the path; it outlives the claim
    agent TEXT NOT NULL,
    PRIMARY KEY (root, path)
);
CREATE SEQUENCE IF NOT EXISTS filewright_fencing_tokens;
CREATE TABLE IF NOT EXISTS filewright_journal (
    id     BIGSERIAL PRIMARY KEY,
    root   TEXT NOT NULL,
    time   BIGINT NOT NULL,    -- unix ms
    agent  TEXT NOT NULL,
    action TEXT NOT NULL,      -- write | append | edit | undo | hook | move | delete | copy | mkdir
    path   TEXT NOT NULL,
    size   BIGINT NOT NULL,    -- bytes after
    added  BIGINT NOT NULL,    -- bytes added by this action
    sha256 TEXT NOT NULL       -- of the whole file after
);
CREATE INDEX IF NOT EXISTS filewright_journal_by_path ON filewright_journal (root, path, id);
CREATE INDEX IF NOT EXISTS filewright_journal_by_time ON filewright_journal (root, time);
CREATE TABLE IF NOT EXISTS filewright_versions (
    journal_id BIGINT PRIMARY KEY REFERENCES filewright_journal (id) ON DELETE CASCADE,
    root       TEXT NOT NULL,
    kind       TEXT NOT NULL,  -- absent | content | prefix | splice: what the file was before it
    size       BIGINT NOT NULL,
    content    BYTEA,          -- NULL once the history budget dropped it
    splice_at  BIGINT          -- splice: where the bytes put back begin
);
-- Tables made by a filewright before splices.
ALTER TABLE filewright_versions ADD COLUMN IF NOT EXISTS splice_at BIGINT;
CREATE INDEX IF NOT EXISTS filewright_versions_kept
    ON filewright_versions (root, journal_id) WHERE content IS NOT NULL;
CREATE TABLE IF NOT EXISTS filewright_kept (
    root  TEXT PRIMARY KEY,
    bytes BIGINT NOT NULL      -- SUM(LENGTH(content)) of the root's versions, kept current
);
";

/// Whether every table, index and sequence of [`SCHEMA`] exists.
const SCHEMA_READY: &str = "SELECT to_regclass('filewright_claims') IS NOT NULL
    AND to_regclass('filewright_fences') IS NOT NULL
    AND to_regclass('filewright_fencing_tokens') IS NOT NULL
    AND to_regclass('filewright_journal') IS NOT NULL
    AND to_regclass('filewright_journal_by_path') IS NOT NULL
    AND to_regclass('filewright_journal_by_time') IS NOT NULL
    AND to_regclass('filewright_versions') IS NOT NULL
    AND EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('filewright_versions')
                AND attname = 'splice_at' AND NOT attisdropped)
    AND to_regclass('filewright_versions_kept') IS NOT NULL
    AND to_regclass('filewright_kept') IS NOT NULL";

/// The advisory lock key the schema is created under.
const SCHEMA_LOCK: i64 = 0x6669_6c65_7772_6974; // "filewrit"

/// The PostgreSQL store of one root.
pub(super) struct Postgres {
    config: postgres::Config,
    /// The TLS connector when the URL asks for `sslmode=require`.
    tls: Option<tokio_postgres_rustls::MakeRustlsConnect>,
    root: String,
    /// The open connection, if any; None after it failed, until the next call connects.
    conn: Mutex<Option<Connection>>,
    /// The last attempt to connect that failed slowly (a host that does not answer), and its
    /// error: for [`RETRY_AFTER`] calls fail at once with it, so that a start, which makes
    /// three calls, costs one connect timeout and not three. A refused connection fails at
    /// once anyway and is not kept, so a database that is back is used at the next call.
    failed: Mutex<Option<(std::time::Instant, Failure)>>,
}

/// A failed connect, kept to be told again (the error itself cannot be copied).
#[derive(Debug, Clone)]
struct Failure {
    down: bool,
    detail: String,
}

impl Failure {
    fn of(e: &Error) -> Failure {
        match e {
            Error::StoreDown { detail, .. } => Failure { down: true, detail: detail.clone() },
            Error::Store { detail, .. } => Failure { down: false, detail: detail.clone() },
            other => Failure { down: false, detail: other.to_string() },
        }
    }

    fn error(&self, store: &Postgres) -> Error {
        match self.down {
            true => Error::StoreDown { store: store.describe(), detail: self.detail.clone() },
            false => Error::Store { busy: false, detail: self.detail.clone() },
        }
    }
}

/// How long after a failed connect calls fail without trying again.
const RETRY_AFTER: Duration = Duration::from_secs(1);

impl std::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Drop for Postgres {
    /// Closes the connection on a thread of its own: the client blocks on its own runtime to
    /// say goodbye, which is forbidden on a thread that drives async tasks (the server drops
    /// its session there at exit).
    fn drop(&mut self) {
        if let Some(conn) = self.conn.get_mut().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = std::thread::spawn(move || drop(conn)).join();
        }
    }
}

/// A connection and the statements prepared on it.
struct Connection {
    client: Client,
    statements: HashMap<&'static str, Statement>,
}

impl Postgres {
    /// Reads `url` and connects once, to create the tables and to say at start whether the
    /// database is there. A database that cannot be reached is logged, not fatal: the server
    /// still reads files, and each write connects again.
    pub(super) fn open(url: &str, root: &str, ca: Option<&std::path::Path>) -> anyhow::Result<Postgres> {
        use anyhow::Context;
        let mut config: postgres::Config = url.parse().with_context(|| {
            "cannot read the --store URL: expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
                .to_string()
        })?;
        // `sslmode=require` encrypts, and verifies the server's certificate against the system's
        // roots and --store-ca: a stricter reading than libpq's, which would encrypt without
        // knowing whom to. Without it (libpq's `prefer`) the connection is plain, as it would be
        // with a server whose certificate is self-signed.
        let tls = match config.get_ssl_mode() {
            postgres::config::SslMode::Require => Some(tls_connector(ca)?),
            _ => {
                config.ssl_mode(postgres::config::SslMode::Disable);
                None
            }
        };
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("filewright");
        }
        config.keepalives(true).keepalives_idle(Duration::from_secs(30));
        let store = Postgres {
            config,
            tls,
            root: root.to_string(),
            conn: Mutex::new(None),
            failed: Mutex::new(None),
        };
        let started = std::time::Instant::now();
        match store.connect() {
            Ok(conn) => *store.lock() = Some(conn),
            Err(e) => {
                tracing::warn!("{e}; the server starts, and each write will try to connect again");
                if started.elapsed() >= RETRY_AFTER {
                    *store.failed.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some((std::time::Instant::now(), Failure::of(&e)));
                }
            }
        }
        Ok(store)
    }

    /// The server, database and root identity, never the password.
    pub(super) fn describe(&self) -> String {
        let host = match self.config.get_hosts().first() {
            Some(postgres::config::Host::Tcp(name)) => name.clone(),
            #[cfg(unix)]
            Some(postgres::config::Host::Unix(dir)) => dir.display().to_string(),
            None => "localhost".into(),
        };
        let port = self.config.get_ports().first().copied().unwrap_or(5432);
        let db = self.config.get_dbname().or(self.config.get_user()).unwrap_or("postgres");
        format!("postgres {host}:{port}/{db} (root id {:?})", self.root)
    }

    fn connect(&self) -> Result<Connection> {
        let mut client = match &self.tls {
            Some(tls) => self.config.connect(tls.clone()),
            None => self.config.connect(NoTls),
        }
        .map_err(|e| self.error(e))?;
        let session = format!(
            "SET lock_timeout = {}; SET statement_timeout = {};",
            BUSY_TIMEOUT.as_millis(),
            STATEMENT_TIMEOUT.as_millis()
        );
        client.batch_execute(&session).map_err(|e| self.error(e))?;
        // The tables are created once, by the first process: `CREATE ... IF NOT EXISTS` would
        // need the right to create (and, for an index, to own the table) on every connection,
        // and would lock the journal against the inserts of other hosts while it ran.
        let ready: bool =
            client.query_one(SCHEMA_READY, &[]).and_then(|row| row.try_get(0)).map_err(|e| self.error(e))?;
        if !ready {
            client
                .batch_execute(&format!(
                    "BEGIN; SELECT pg_advisory_xact_lock({SCHEMA_LOCK}); {SCHEMA} COMMIT;"
                ))
                .map_err(|e| self.error(e))?;
        }
        Ok(Connection { client, statements: HashMap::new() })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Connection>> {
        // A poisoned lock means a call panicked mid-transaction; the transaction was rolled
        // back when it was dropped, and a broken connection is replaced below.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` in a transaction holding the advisory locks `lock` names, as
    /// `Sqlite::write` does.
    pub(super) fn write<T>(
        &self,
        lock: Lock<'_>,
        f: impl FnOnce(&mut dyn Tx) -> Result<(T, Result<()>)>,
    ) -> Result<(T, Option<Error>)> {
        self.transaction(Some(lock), f)
    }

    /// Runs `f` in a transaction that takes no lock.
    pub(super) fn read<T>(&self, f: impl FnOnce(&mut dyn Tx) -> Result<T>) -> Result<T> {
        match self.transaction(None, |tx| Ok((f(tx)?, Ok(()))))? {
            (value, None) => Ok(value),
            (_, Some(e)) => Err(e),
        }
    }

    /// Connects when there is no connection; says whether there was one already.
    fn ensure_connected(&self, guard: &mut Option<Connection>) -> Result<bool> {
        if guard.as_ref().is_some_and(|c| !c.client.is_closed()) {
            return Ok(true);
        }
        *guard = None;
        let mut failed = self.failed.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((when, failure)) = failed.as_ref()
            && when.elapsed() < RETRY_AFTER
        {
            return Err(failure.error(self));
        }
        let started = std::time::Instant::now();
        match self.connect() {
            Ok(conn) => {
                *guard = Some(conn);
                *failed = None;
                Ok(false)
            }
            Err(e) => {
                if started.elapsed() >= RETRY_AFTER {
                    *failed = Some((std::time::Instant::now(), Failure::of(&e)));
                }
                Err(e)
            }
        }
    }

    fn transaction<T>(
        &self,
        lock: Option<Lock<'_>>,
        f: impl FnOnce(&mut dyn Tx) -> Result<(T, Result<()>)>,
    ) -> Result<(T, Option<Error>)> {
        let mut guard = self.lock();
        let reused = self.ensure_connected(&mut guard)?;
        let Some(conn) = guard.as_mut() else { unreachable!("connected above") };
        // A connection left idle may have been closed by the server (a restart, a failover,
        // an idle timeout): the client learns it only when it next speaks, at BEGIN. Nothing
        // has run yet then, so the call goes on over a new connection.
        let mut f = Some(f);
        let first = match conn.client.transaction() {
            Ok(tx) => Ok(self.run(tx, &mut conn.statements, lock, f.take().expect("runs once"))),
            Err(e) => Err(e),
        };
        let lost = match first {
            Ok(outcome) => return self.settled(&mut guard, outcome),
            Err(e) if reused && lost(&e) => e,
            Err(e) => {
                let e = self.error(e);
                return self.settled(&mut guard, Err(e));
            }
        };
        tracing::info!(
            "the connection to {} was lost while idle ({lost}); connecting again",
            self.describe()
        );
        *guard = None;
        self.ensure_connected(&mut guard)?;
        let Some(conn) = guard.as_mut() else { unreachable!("connected above") };
        let outcome = match conn.client.transaction() {
            Ok(tx) => {
                self.run(tx, &mut conn.statements, lock, f.take().expect("not run on the lost connection"))
            }
            Err(e) => Err(self.error(e)),
        };
        self.settled(&mut guard, outcome)
    }

    /// Drops a connection the call found broken, so that the next call starts a new one.
    fn settled<V>(&self, guard: &mut Option<Connection>, outcome: Result<V>) -> Result<V> {
        if guard.as_ref().is_some_and(|c| c.client.is_closed())
            || matches!(outcome, Err(Error::StoreDown { .. }))
        {
            *guard = None;
        }
        outcome
    }

    fn run<T>(
        &self,
        mut tx: Transaction<'_>,
        statements: &mut HashMap<&'static str, Statement>,
        lock: Option<Lock<'_>>,
        f: impl FnOnce(&mut dyn Tx) -> Result<(T, Result<()>)>,
    ) -> Result<(T, Option<Error>)> {
        let now = match lock {
            Some(lock) => Some(
                tx.query_one(&self.lock_sql(lock), &[])
                    .and_then(|row| row.try_get::<_, i64>(row.len() - 1))
                    .map(Timestamp::from_millis)
                    .map_err(|e| self.error(e))?,
            ),
            None => None,
        };
        let mut pg = PgTx { store: self, tx, statements, now };
        let (value, then) = f(&mut pg)?;
        let PgTx { tx, .. } = pg;
        let unrecorded = then.and_then(|()| tx.commit().map_err(|e| self.error(e))).err();
        Ok((value, unrecorded))
    }

    /// One statement that takes every advisory lock of `lock`, in key order (so that two
    /// transactions never wait on each other in a cycle), and returns the database's clock.
    fn lock_sql(&self, lock: Lock<'_>) -> String {
        // key -> exclusive?
        let mut keys: std::collections::BTreeMap<i64, bool> = std::collections::BTreeMap::new();
        match lock {
            Lock::Root => {
                keys.insert(self.key(""), true);
            }
            Lock::Paths(paths) => {
                for path in paths {
                    keys.insert(self.key(path), true);
                    let mut dir = *path;
                    while !dir.is_empty() {
                        dir = dir.rfind('/').map_or("", |i| &dir[..i]);
                        keys.entry(self.key(dir)).or_insert(false);
                    }
                }
            }
        }
        let mut sql = String::from("SELECT ");
        for (key, exclusive) in keys {
            let function = if exclusive { "pg_advisory_xact_lock" } else { "pg_advisory_xact_lock_shared" };
            sql.push_str(&format!("{function}({key}), "));
        }
        sql.push_str("(extract(epoch FROM clock_timestamp()) * 1000)::bigint");
        sql
    }

    /// The advisory lock key of `path` (the root itself for "") in this root.
    fn key(&self, path: &str) -> i64 {
        use sha2::{Digest, Sha256};
        let digest =
            Sha256::new().chain_update(self.root.as_bytes()).chain_update([0]).chain_update(path).finalize();
        i64::from_be_bytes(digest[..8].try_into().expect("a sha256 has 32 bytes"))
    }

    fn error(&self, e: postgres::Error) -> Error {
        if lost(&e) {
            let detail = e.as_db_error().map_or_else(|| with_causes(&e), |db| db.message().to_string());
            return Error::StoreDown { store: self.describe(), detail };
        }
        match e.as_db_error() {
            Some(db) => {
                use postgres::error::SqlState;
                let busy =
                    [SqlState::LOCK_NOT_AVAILABLE, SqlState::QUERY_CANCELED, SqlState::T_R_DEADLOCK_DETECTED]
                        .contains(db.code());
                Error::Store { busy, detail: format!("{}: {}", self.describe(), db.message()) }
            }
            // The server answered with something this version cannot read.
            None => Error::Store { busy: false, detail: format!("{}: {e}", self.describe()) },
        }
    }
}

/// `e` with the errors under it ("error performing TLS handshake: invalid peer certificate:
/// UnknownIssuer"), and what to do about a certificate nobody vouched for.
fn with_causes(e: &postgres::Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(inner) = cause {
        text.push_str(&format!(": {inner}"));
        cause = inner.source();
    }
    if text.contains("UnknownIssuer") {
        text.push_str(" (pass the authority that signed the server's certificate with --store-ca)");
    }
    text
}

/// A TLS connector that trusts the system's roots and the certificates in `ca` (PEM).
fn tls_connector(ca: Option<&std::path::Path>) -> anyhow::Result<tokio_postgres_rustls::MakeRustlsConnect> {
    use anyhow::Context;
    use rustls::pki_types::{CertificateDer, pem::PemObject};
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_native_certs::load_native_certs().certs {
        // A system certificate rustls cannot use is skipped, as browsers do.
        let _ = roots.add(cert);
    }
    if let Some(ca) = ca {
        let certs: Vec<CertificateDer> = CertificateDer::pem_file_iter(ca)
            .and_then(|certs| certs.collect::<Result<_, _>>())
            .with_context(|| format!("cannot read --store-ca {}: expected PEM certificates", ca.display()))?;
        anyhow::ensure!(!certs.is_empty(), "--store-ca {} holds no PEM certificate", ca.display());
        for cert in certs {
            roots
                .add(cert)
                .with_context(|| format!("--store-ca {}: a certificate is not usable", ca.display()))?;
        }
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("cannot set up TLS")?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// Whether `e` says the server could not be reached or the connection is gone (it broke, or
/// the server ended it: a shutdown, a restart, an administrator), rather than that the
/// server refused a statement.
fn lost(e: &postgres::Error) -> bool {
    use postgres::error::SqlState;
    use std::error::Error as _;
    if let Some(db) = e.as_db_error() {
        let code = db.code();
        return code.code().starts_with("08")
            || [SqlState::ADMIN_SHUTDOWN, SqlState::CRASH_SHUTDOWN, SqlState::CANNOT_CONNECT_NOW]
                .contains(code);
    }
    e.is_closed()
        || e.source().is_some_and(|s| s.is::<std::io::Error>())
        || e.to_string().starts_with("timeout")
}
#[cfg(test)]
mod tests {
    use super::*;

    fn store(root: &str) -> Postgres {
        Postgres {
            config: "postgres://u@h/db".parse().unwrap(),
            tls: None,
            root: root.into(),
            conn: Mutex::new(None),
            failed: Mutex::new(None),
        }
    }

    #[test]
    fn a_write_locks_its_path_exclusively_and_each_parent_directory_shared_in_key_order() {
        let s = store("r");
        let sql = s.lock_sql(Lock::Paths(&["src/app/main.js"]));
        for (dir, function) in [
            ("src/app/main.js", "pg_advisory_xact_lock("),
            ("src/app", "pg_advisory_xact_lock_shared("),
            ("src", "pg_advisory_xact_lock_shared("),
            ("", "pg_advisory_xact_lock_shared("),
        ] {
            assert!(sql.contains(&format!("{function}{})", s.key(dir))), "{dir:?} in {sql}");
        }
        let keys: Vec<i64> = sql.split('(').filter_map(|part| part.split(')').next()?.parse().ok()).collect();
        assert_eq!(keys.len(), 4, "{sql}");
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "taken in key order: {sql}");
        let root = s.lock_sql(Lock::Root);
        assert!(root.contains(&format!("pg_advisory_xact_lock({})", s.key(""))), "{root}");
    }

    #[test]
    fn a_move_into_its_own_directory_locks_that_directory_exclusively() {
        let s = store("r");
        let sql = s.lock_sql(Lock::Paths(&["a/b.js", "a"]));
        assert!(sql.contains(&format!("pg_advisory_xact_lock({})", s.key("a"))), "{sql}");
        assert!(!sql.contains(&format!("pg_advisory_xact_lock_shared({})", s.key("a"))), "{sql}");
    }

    #[test]
    fn a_ca_file_that_holds_no_certificate_is_a_startup_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let ca = dir.path().join("ca.pem");
        std::fs::write(&ca, "not a certificate\n").unwrap();
        let err = Postgres::open("postgres://u@127.0.0.1:1/db?sslmode=require", "r", Some(&ca)).unwrap_err();
        assert!(format!("{err:#}").contains("ca.pem"), "{err:#}");
    }

    #[test]
    fn a_server_that_cannot_be_reached_is_a_store_down_error_and_not_fatal_at_start() {
        // Port 1 on the loopback: nothing listens, the connection is refused at once.
        let store =
            Postgres::open("postgres://u@127.0.0.1:1/db", "r", None).expect("starts without the database");
        let err = store.read(|tx| tx.claimed_by("a")).unwrap_err();
        assert!(matches!(err, Error::StoreDown { .. }), "{err:?}");
        assert!(err.to_string().contains("cannot be reached"), "{err}");
        assert!(err.to_string().contains("nothing was written"), "{err}");
    }

    #[test]
    fn lock_keys_differ_between_roots_and_paths() {
        assert_ne!(store("r1").key("a.js"), store("r2").key("a.js"));
        assert_ne!(store("r1").key("a.js"), store("r1").key("b.js"));
        assert_eq!(store("r1").key("a.js"), store("r1").key("a.js"));
    }

    #[test]
    fn the_description_names_the_server_and_root_but_never_the_password() {
        let s = Postgres {
            config: "postgres://fw:secret@db.internal:6543/shared".parse().unwrap(),
            tls: None,
            root: "team".into(),
            conn: Mutex::new(None),
            failed: Mutex::new(None),
        };
        let text = s.describe();
        assert_eq!(text, "postgres db.internal:6543/shared (root id \"team\")");
        assert!(!text.contains("secret"));
    }
}
