//! Per-process state and one method per tool, composing the core: sandbox, file operations,
//! claims and journal, unescaping and the syntax check. Plain Rust in and out: the MCP layer
//! only parses arguments and renders what these methods return.
//!
//! # Layout
//! One file per tool, in the manner of a command module: the tool's method on [`Session`] and
//! its outcome type, so adding a tool means adding a file. What several tools share has a
//! room of its own:
//! - `after_write`: the steps after a write, append or edit has landed
//!   (mark the file seen, run the hook, check what is on disk), written once; nothing in it
//!   can fail, because the caller's bytes are already on disk;
//! - `warnings`: which warnings ride along with a successful write, and whether over-escaped
//!   content is unescaped.

mod after_write;
mod append;
mod artifacts;
mod check_cache;
mod check_files;
mod claims;
mod copy;
mod delete;
mod edit;
mod find;
mod info;
mod interrupted;
mod list;
mod media;
mod mkdir;
mod moves;
mod notebook;
mod outline;
mod patch;
mod patch_write;
mod project;
mod read;
mod read_many;
mod search;
mod undo;
mod warnings;
mod write;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

pub use after_write::AfterWrite;
pub use append::AppendOutcome;
pub use artifacts::{ArtifactView, ArtifactsOutcome, OnDisk};
pub use check_files::{CheckOutcome, Checked, FileCheck, FileStatus};
pub use claims::ClaimsOutcome;
pub use copy::CopyOutcome;
pub use delete::DeleteOutcome;
pub use edit::{EditOutcome, EditSpec};
pub use find::{FindOutcome, FoundFile};
pub use info::{INFO_CHECK_BYTES, InfoOutcome, LastChange};
pub use list::ListOutcome;
pub use media::{MAX_IMAGE_BYTES, MediaOutcome};
pub use mkdir::MkdirOutcome;
pub use moves::MoveOutcome;
pub use notebook::{CellAction, CellEditSpec, NotebookEditOutcome};
pub use outline::OutlineOutcome;
pub use patch::{PatchOutcome, PatchedAs, PatchedFile};
pub use read::{LineEndings, NotebookPage, ReadAs, ReadOutcome};
pub use read_many::{FileRead, MAX_PATHS, ReadManyOutcome};
pub use search::{SearchOptions, SearchOutcome};
pub use undo::UndoOutcome;
pub use write::WriteOutcome;

use crate::check::cache::{CheckCache, DEFAULT_BUDGET_BYTES};
use crate::error::{Error, Result};
use crate::files::Digests;
use crate::hooks::Hook;
use crate::store::{Opening, Store, StoreUrl};
use crate::timestamp::Timestamp;
use crate::workspace::{FileInfo, FileKind, RootPath, Workspace};

/// What the command line says, before a root is chosen: the server may learn its root from
/// the client later, so everything tied to the root is resolved in [`Config::for_root`].
#[derive(Debug, Clone)]
pub struct Settings {
    /// `--agent`.
    pub agent: String,
    /// `--max-file-bytes`.
    pub max_file_bytes: u64,
    /// `--state-dir`; None for the default state directory of the root.
    pub state_dir: Option<PathBuf>,
    /// `--claim-ttl`.
    pub claim_ttl: Option<Duration>,
    /// `--store`: SQLite in the state directory, or a shared PostgreSQL.
    pub store: StoreUrl,
    /// `--root-id`; None for the canonical root path.
    pub root_id: Option<String>,
    /// `--store-ca`: more trusted certificates for a PostgreSQL store over TLS.
    pub store_ca: Option<PathBuf>,
    /// `--after-write`.
    pub after_write: Option<String>,
    /// `--hook-timeout`.
    pub hook_timeout: Duration,
    /// `--history-bytes`.
    pub history_bytes: u64,
    /// `--durable`.
    pub durable: bool,
}

/// The settings a session on one root works with, resolved from [`Settings`].
#[derive(Debug, Clone)]
pub struct Config {
    /// The writer named in results (`--agent`).
    pub agent: String,
    /// Largest file the server will hold in memory (`--max-file-bytes`).
    pub max_file_bytes: u64,
    /// Command run after each successful write, append or edit (`--after-write`), in the root.
    pub after_write: Option<Hook>,
}

#[cfg(test)]
impl Settings {
    /// The settings the unit tests open a session with: agent `tester`, 1 MiB files and
    /// history, SQLite in `state_dir`, no hook.
    pub(crate) fn for_tests(state_dir: &Path) -> Settings {
        Settings {
            agent: "tester".into(),
            max_file_bytes: 1 << 20,
            state_dir: Some(state_dir.to_path_buf()),
            claim_ttl: None,
            store: StoreUrl::Sqlite,
            root_id: None,
            store_ca: None,
            after_write: None,
            hook_timeout: std::time::Duration::from_secs(1),
            history_bytes: 1 << 20,
            durable: false,
        }
    }
}

impl Config {
    /// The one conversion from the command line's settings to a session's: the hook runs in
    /// `host_root`.
    pub fn for_root(settings: &Settings, host_root: &Path) -> Config {
        Config {
            agent: settings.agent.clone(),
            max_file_bytes: settings.max_file_bytes,
            after_write: settings
                .after_write
                .clone()
                .map(|cmd| Hook::new(cmd, host_root, settings.hook_timeout)),
        }
    }
}

/// The state of one server process on one root: the sandbox, the settings, the shared store,
/// which files this session has seen (read or written) and what the last check of each
/// written file left.
#[derive(Debug)]
pub struct Session {
    ws: Workspace,
    config: Config,
    /// Claims and the journal, shared with every other process on this root.
    store: Store,
    /// Files read or written by this session, for the "you had not read this file" warning.
    /// A `std` mutex, not a Tokio one: it is held only inside blocking tasks, never across an
    /// await. Writing tools hold it from before their write until it has landed, so it also
    /// serialises this process's writes.
    seen: Mutex<HashSet<RootPath>>,
    /// When this session started: `check_files` without paths checks what the journal
    /// recorded since then.
    started: Timestamp,
    /// Checks of the files this session wrote, kept for incremental checks after appends,
    /// valid while the file keeps the metadata the session saw after its own write.
    checks: CheckCache<FileInfo>,
    /// Running sha256 states of the files this session appended to, by the same rule.
    digests: Digests<FileInfo>,
    /// What unchanged files told earlier `check_files` calls, so that a repeated finish
    /// check parses only what changed.
    remembered: check_cache::Remembered,
}

impl Session {
    /// Opens the root, its shared store (in the state directory) and the hook: a session
    /// ready to serve. Errors are for startup messages.
    ///
    /// # Ambient authority
    /// Opens two host paths: `root` (through [`Workspace::open_root`]) and the state
    /// directory (through [`Store::open_at`] or [`Store::open_sqlite_later`]), which is then
    /// put out of the tools' reach.
    pub fn open(root: &Path, settings: &Settings) -> anyhow::Result<Session> {
        let (session, database) = Self::open_database_later(root, settings)?;
        if let Some(database) = database {
            database.finish()?;
        }
        Ok(session)
    }

    /// [`Session::open`], except that a SQLite database is opened by the [`Opening`]
    /// returned, which the caller finishes (on the same thread, once the session serves):
    /// opening it is most of a start's work, and until it is done only the calls that need
    /// it (claims, the journal, undo) wait for it. A read does not. When killed appends must
    /// be repaired first, that needs the database, and it is opened here.
    pub fn open_database_later(
        root: &Path,
        settings: &Settings,
    ) -> anyhow::Result<(Session, Option<Opening>)> {
        use anyhow::Context;
        let mut ws = Workspace::open_root(root)?;
        ws.set_durable(settings.durable);
        let state_dir = match &settings.state_dir {
            Some(dir) => dir.clone(),
            None => crate::store::default_state_dir(ws.host_root())
                .context("no state directory is known for this platform: pass --state-dir")?,
        };
        // The key of this root's rows in a shared store: hosts that mount the workspace at
        // different paths must agree on it with --root-id.
        let root_id = settings.root_id.clone().unwrap_or_else(|| ws.host_root().display().to_string());
        let (store, database) = match &settings.store {
            StoreUrl::Sqlite => {
                let (store, database) =
                    Store::open_sqlite_later(&state_dir, settings.claim_ttl, settings.durable)?;
                (store, Some(database))
            }
            StoreUrl::Postgres(_) => {
                let store = Store::open_at(
                    &settings.store,
                    &root_id,
                    settings.store_ca.as_deref(),
                    &state_dir,
                    settings.claim_ttl,
                )?
                .durable(settings.durable)?;
                (store, None)
            }
        };
        let store = store.with_history_budget(settings.history_bytes);
        ws.reserve(&state_dir).context("cannot keep the state directory out of the tools' reach")?;
        tracing::info!(
            root = %ws.host_root().display(),
            agent = %settings.agent,
            state = %store.describe(),
            "serving this root"
        );
        // Temporary files left by a kill of some earlier process: removed in the background,
        // so that a large tree does not delay the first call.
        if let Ok(sweeper) = ws.try_clone() {
            let spawned = crate::background::spawn("temp-sweep", move || {
                let removed = sweeper.sweep_temps(TEMP_SWEEP_ENTRIES);
                if removed > 0 {
                    tracing::info!("removed {removed} temporary files left by an interrupted write");
                }
            });
            if let Err(e) = spawned {
                tracing::warn!("could not start the sweep of leftover temporary files: {e}");
            }
        }
        let config = Config::for_root(settings, ws.host_root());
        let session = Session::new(ws, config, store);
        // No call may see what a killed append left: repairing it needs the database.
        let database = match database {
            Some(database) if !session.store.append_intents().is_empty() => {
                database.finish()?;
                None
            }
            database => database,
        };
        session.settle_all();
        Ok((session, database))
    }

    /// A session over an opened root.
    pub fn new(ws: Workspace, config: Config, store: Store) -> Self {
        // By the store's clock, which journal times are in: a shared database's, not this
        // host's (this host's when the database cannot be reached now).
        let started = store.now().unwrap_or_else(|_| Timestamp::now());
        Session {
            ws,
            config,
            store,
            seen: Mutex::new(HashSet::new()),
            started,
            checks: CheckCache::new(DEFAULT_BUDGET_BYTES),
            digests: Digests::default(),
            remembered: check_cache::Remembered::default(),
        }
    }

    /// The `file://` URI of a root-relative path, for the resource links in results: clients
    /// open it to show the file. None when the path cannot be expressed as one.
    pub fn file_uri(&self, path: &str) -> Option<String> {
        url::Url::from_file_path(self.ws.host_root().join(path)).ok().map(String::from)
    }

    /// The agent for a call: the argument when given, else the process's `--agent`.
    fn agent(&self, given: Option<&str>) -> Result<String> {
        match given.map(str::trim) {
            None => Ok(self.config.agent.clone()),
            Some("") => Err(Error::InvalidArgument {
                name: "agent",
                reason: "must not be empty; omit it to use the server's agent".into(),
            }),
            Some(name) => Ok(name.to_string()),
        }
    }

    /// A path argument resolved in the sandbox, in-root symlinks followed: the file a tool
    /// reads or writes. A link to a directory is refused as what it is (a link), not as the
    /// directory it leads to, which the caller did not name.
    fn target(&self, raw: &str) -> Result<RootPath> {
        let entry = self.ws.resolve(raw)?;
        let target = self.ws.follow(&entry)?;
        if target != entry
            && matches!(self.ws.stat(&target), Ok(Some(info)) if info.kind == FileKind::Directory)
        {
            return Err(Error::InvalidPath {
                path: entry.display(),
                reason: format!(
                    "it is a symbolic link to the directory {target}, not a file; name a file inside it, like \
                     \"{entry}/name.ext\" (delete_file and move_file act on the link itself)"
                ),
            });
        }
        Ok(target)
    }

    /// A path argument that may name a directory, resolved in the sandbox with in-root
    /// symlinks followed (a link to a directory is that directory).
    fn place(&self, raw: &str) -> Result<RootPath> {
        self.ws.follow(&self.ws.resolve(raw)?)
    }

    /// A directory argument of a tool that walks files (list, find, search): None for the root
    /// (`path` absent or empty, or naming the root however spelled: `.`, its absolute path,
    /// its `file://` URI), else the directory resolved in the sandbox, links followed.
    fn directory(&self, path: Option<&str>) -> Result<Option<RootPath>> {
        match path {
            None | Some("") => Ok(None),
            Some(p) => self.ws.resolve_place(p),
        }
    }

    /// `e` with what the journal knows of the file's last write, when `e` says the file was
    /// not what the caller expected: the agent sees who changed it and when.
    fn with_last_write(&self, e: Error) -> Error {
        match e {
            Error::ContentChanged { path, expected, actual, last_write: None } => {
                let last =
                    self.store.artifacts(None, Some(&path), false).ok().and_then(|a| a.into_iter().next());
                let last_write = last.map(|a| Box::new((a.agent, a.action.to_string(), a.time)));
                Error::ContentChanged { path, expected, actual, last_write }
            }
            other => other,
        }
    }

    fn lock_seen(&self) -> MutexGuard<'_, HashSet<RootPath>> {
        // A poisoned lock only means another call panicked mid-way; the set itself is still valid.
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Directory entries the start's sweep of leftover temporary files looks at, at most.
const TEMP_SWEEP_ENTRIES: usize = 1_000_000;

/// Results listed when the caller gives no `max_results` (find, search).
pub const DEFAULT_MAX_RESULTS: usize = 200;
/// The most results one call lists.
pub const MAX_RESULTS: usize = 1000;

/// The `max_results` argument, defaulted and bounded.
fn max_results(given: Option<usize>) -> Result<usize> {
    let max = given.unwrap_or(DEFAULT_MAX_RESULTS);
    if !(1..=MAX_RESULTS).contains(&max) {
        return Err(Error::InvalidArgument {
            name: "max_results",
            reason: format!("use 1 to {MAX_RESULTS}"),
        });
    }
    Ok(max)
}

/// An argument the schema requires, in a tool that carries no content: its absence is a
/// plain missing argument.
fn required<T>(value: Option<T>, tool: &'static str, field: &'static str) -> Result<T> {
    value.ok_or(Error::Missing { tool, field })
}

/// An argument the schema requires, in a tool that carries content (write, append, edit): its
/// absence is what a call cut off by the model's output limit looks like, and the error says how
/// to send the content in parts.
fn required_or_truncated<T>(value: Option<T>, tool: &'static str, field: &'static str) -> Result<T> {
    value.ok_or(Error::Truncated { tool, field })
}

#[cfg(test)]
mod tests;
