//! Opening a store: which database `--store` names, the state directory it needs, and the
//! SQLite database whose opening a start may leave to another thread ([`Opening`]).
//!
//! Apart from the claim rules because it is about where the store lives, not what it holds,
//! and runs once per process: its public doors (`Store::open_at`, `Store::open_sqlite_later`)
//! are the store's "Ambient authority" entries, gathered here for whoever audits them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::{Backend, DEFAULT_HISTORY_BYTES, Store, intents, postgres, sqlite};

/// Where claims, the journal and versions are kept: `--store`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreUrl {
    /// SQLite in the state directory (the default; `--store sqlite`).
    Sqlite,
    /// A PostgreSQL database shared by several hosts (`--store postgres://...`).
    Postgres(String),
}

impl std::str::FromStr for StoreUrl {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<StoreUrl, String> {
        if s == "sqlite" {
            Ok(StoreUrl::Sqlite)
        } else if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            Ok(StoreUrl::Postgres(s.to_string()))
        } else {
            Err("expected `sqlite` (the default) or a PostgreSQL URL, postgres://USER@HOST:PORT/DATABASE"
                .into())
        }
    }
}

/// A store's SQLite database still to be opened, by [`Opening::finish`].
#[derive(Debug)]
#[must_use = "the store waits for ever unless its opening is finished"]
pub struct Opening {
    backend: Arc<OnceLock<Backend>>,
    state_dir: PathBuf,
    durable: bool,
}

impl Opening {
    /// Opens the database and hands it to the store, whose uses have waited for it.
    pub fn finish(self) -> anyhow::Result<()> {
        let db = sqlite::Sqlite::open(&self.state_dir)?;
        if self.durable {
            db.durable()?;
        }
        let _ = self.backend.set(Backend::Sqlite(db));
        Ok(())
    }
}

impl Store {
    /// Opens (creating if needed) the SQLite store in `state_dir`.
    pub fn open(state_dir: &Path, claim_ttl: Option<Duration>) -> anyhow::Result<Self> {
        Store::open_at(&StoreUrl::Sqlite, "", None, state_dir, claim_ttl)
    }

    /// Opens the store `url` names for the root `root_id` (the key of its rows in a shared
    /// PostgreSQL; unused by SQLite, whose database is the root's own). `ca` adds trusted
    /// certificates for a PostgreSQL URL with `sslmode=require`. `state_dir` holds the SQLite
    /// database and, for both, the intents of appends in flight.
    ///
    /// A PostgreSQL that cannot be reached does not stop the server: reads need no store, and
    /// each write says the store is down, with nothing written, until it is back.
    ///
    /// # Ambient authority
    /// Opens a host path outside the sandbox (the state directory); the workspace is told to
    /// keep it out of every tool's reach.
    pub fn open_at(
        url: &StoreUrl,
        root_id: &str,
        ca: Option<&Path>,
        state_dir: &Path,
        claim_ttl: Option<Duration>,
    ) -> anyhow::Result<Self> {
        Self::prepare_state_dir(state_dir)?;
        let backend = match url {
            StoreUrl::Sqlite => Backend::Sqlite(sqlite::Sqlite::open(state_dir)?),
            StoreUrl::Postgres(url) => {
                Backend::Postgres(Box::new(postgres::Postgres::open(url, root_id, ca)?))
            }
        };
        let description = match &backend {
            Backend::Sqlite(db) => db.describe(),
            Backend::Postgres(db) => db.describe(),
        };
        let sqlite = matches!(backend, Backend::Sqlite(_));
        Ok(Store::made(Arc::new(OnceLock::from(backend)), description, sqlite, state_dir, claim_ttl))
    }

    /// Makes the state directory if it is missing, and refuses one this process cannot write.
    fn prepare_state_dir(state_dir: &Path) -> anyhow::Result<()> {
        use anyhow::Context;
        std::fs::create_dir_all(state_dir)
            .with_context(|| format!("cannot create the state directory {}", state_dir.display()))?;
        // A state directory that cannot be written would let the server start and then fail
        // every write: refuse it now, with what to do. The kernel's own check for this process
        // (permissions, ACLs, a read-only mount, an immutable directory), rather than a file
        // made and removed at every start.
        use rustix::fs::{Access, AtFlags, CWD, accessat};
        let writable = accessat(CWD, state_dir, Access::WRITE_OK | Access::EXEC_OK, AtFlags::EACCESS);
        writable.map_err(std::io::Error::from).with_context(|| {
            format!(
                "the state directory {} is not writable: claims, the journal and undo live there. Make it \
                 writable or pass --state-dir with a writable directory",
                state_dir.display()
            )
        })?;
        Ok(())
    }

    /// A SQLite store in `state_dir` whose database [`Opening::finish`] opens, on another
    /// thread: opening it (WAL, schema) is most of a start's work, and a call that needs no
    /// claim or journal (a read) need not wait for it. Every use of the database waits until
    /// then. The state directory is made and checked here, as [`Store::open_at`] does.
    ///
    /// # Ambient authority
    /// Opens a host path outside the sandbox (the state directory, here and in
    /// [`Opening::finish`]); the workspace is told to keep it out of every tool's reach.
    pub fn open_sqlite_later(
        state_dir: &Path,
        claim_ttl: Option<Duration>,
        durable: bool,
    ) -> anyhow::Result<(Self, Opening)> {
        Self::prepare_state_dir(state_dir)?;
        let backend = Arc::new(OnceLock::new());
        let description = state_dir.join(sqlite::DB_FILE).display().to_string();
        let store = Store::made(backend.clone(), description, true, state_dir, claim_ttl);
        Ok((store, Opening { backend, state_dir: state_dir.to_path_buf(), durable }))
    }

    fn made(
        backend: Arc<OnceLock<Backend>>,
        description: String,
        sqlite: bool,
        state_dir: &Path,
        claim_ttl: Option<Duration>,
    ) -> Store {
        Store {
            backend,
            description,
            sqlite,
            intents: intents::Intents::new(state_dir),
            claim_ttl,
            history_bytes: DEFAULT_HISTORY_BYTES,
            held: Mutex::new(HashMap::new()),
        }
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
