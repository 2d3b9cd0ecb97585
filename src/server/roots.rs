//! Which root the server serves, and switching it when the client's roots change.
//!
//! Precedence: `--root` when given (the client's roots are then ignored); else the client's
//! first `file://` root, when the client supports roots (followed on `roots/list_changed`);
//! else the current directory. A current directory of `/` or the home directory is never
//! served by default (Claude Desktop starts servers in `/`): the slot signals a refusal, and
//! `main` stops the server with an error that asks for `--root`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::service::Peer;

use crate::error::Error;
use crate::session::{Session, Settings};

/// Holds the current session, if a root has been chosen.
#[derive(Debug)]
pub struct SessionSlot {
    settings: Settings,
    /// Where the root comes from.
    source: RootSource,
    current: RwLock<Option<Arc<Session>>>,
    /// True until the first root decision after initialization is made: calls that arrive
    /// earlier wait for it instead of failing.
    deciding: AtomicBool,
    /// Set when no root may be served at all; `main` waits on it to stop with that message.
    refusal: tokio::sync::watch::Sender<Option<String>>,
}

/// How long an early call waits for the first root decision.
const DECISION_WAIT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, PartialEq, Eq)]
enum RootSource {
    /// `--root` was given.
    Explicit,
    /// Ask the client; fall back to this directory (the process's current directory).
    Client { fallback: PathBuf },
}

impl SessionSlot {
    /// A slot serving `session` for the whole process (`--root` given).
    pub fn fixed(session: Session, settings: Settings) -> Self {
        SessionSlot {
            settings,
            source: RootSource::Explicit,
            current: RwLock::new(Some(Arc::new(session))),
            deciding: AtomicBool::new(false),
            refusal: tokio::sync::watch::Sender::new(None),
        }
    }

    /// A slot whose root is chosen once the client has initialized.
    pub fn from_client(settings: Settings, fallback: PathBuf) -> Self {
        SessionSlot {
            settings,
            source: RootSource::Client { fallback },
            current: RwLock::new(None),
            deciding: AtomicBool::new(true),
            refusal: tokio::sync::watch::Sender::new(None),
        }
    }

    /// Resolves with a message when the server must stop because it may serve no root.
    pub fn refusal(&self) -> impl std::future::Future<Output = String> + Send + 'static {
        let mut receiver = self.refusal.subscribe();
        async move {
            let message = receiver.wait_for(Option::is_some).await.map(|m| m.clone().unwrap_or_default());
            match message {
                Ok(message) => message,
                // The slot is gone, so the server is too: never resolve.
                Err(_) => std::future::pending().await,
            }
        }
    }

    /// The current session, waiting (up to 10 s) while the first root is still being chosen.
    pub async fn wait(&self) -> Result<Arc<Session>, Error> {
        let started = Instant::now();
        while self.deciding.load(Ordering::Acquire) && started.elapsed() < DECISION_WAIT {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.get()
    }

    /// The current session, or [`Error::NoRoot`] while no root is chosen.
    pub fn get(&self) -> Result<Arc<Session>, Error> {
        self.current.read().unwrap_or_else(|p| p.into_inner()).clone().ok_or(Error::NoRoot)
    }

    /// Called once the client has initialized: adopt its roots, or fall back to the current
    /// directory. Exits the process when that fallback is `/` or the home directory.
    pub async fn on_initialized(&self, peer: &Peer<RoleServer>) {
        self.decide(peer).await;
        self.deciding.store(false, Ordering::Release);
    }

    async fn decide(&self, peer: &Peer<RoleServer>) {
        let RootSource::Client { fallback } = &self.source else { return };
        let client_has_roots = peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
        if client_has_roots && self.adopt_client_roots(peer).await {
            return;
        }
        if is_too_broad(fallback) {
            // Tell `main`, which stops the server and exits non-zero with this message.
            let message = format!(
                "no --root given, the client offered no roots, and the current directory is {}, which is \
                 never served by default; pass --root /path/to/project in the server's configuration",
                fallback.display()
            );
            let _ = self.refusal.send(Some(message));
            return;
        }
        self.open(fallback.clone()).await;
    }

    /// Called on `roots/list_changed`: switch to the client's new first root.
    pub async fn on_roots_changed(&self, peer: &Peer<RoleServer>) {
        if matches!(self.source, RootSource::Client { .. }) {
            self.adopt_client_roots(peer).await;
        }
    }

    /// Lists the client's roots and serves the first `file://` one. False when there is none
    /// or it cannot be opened (the reason is logged).
    #[allow(deprecated)] // Roots are deprecated by SEP-2577 but current in 2025-11-25 sessions.
    async fn adopt_client_roots(&self, peer: &Peer<RoleServer>) -> bool {
        let roots = match peer.list_roots().await {
            Ok(result) => result.roots,
            Err(e) => {
                tracing::warn!("the client's roots could not be listed: {e}");
                return false;
            }
        };
        let Some(path) = roots.iter().find_map(|r| file_uri_to_path(&r.uri)) else {
            tracing::warn!("the client offered no file:// root ({} roots)", roots.len());
            return false;
        };
        self.open(path).await
    }

    /// Serves `root` from now on.
    ///
    /// # Ambient authority
    /// `root` is a host path the client named: the one door through which a client (not the
    /// person who started the server) chooses what is served. It is opened as a new sandbox
    /// with [`Session::open`]; nothing outside it becomes reachable by the tools.
    async fn open(&self, root: PathBuf) -> bool {
        let settings = self.settings.clone();
        let shown = root.display().to_string();
        match tokio::task::spawn_blocking(move || Session::open(&root, &settings)).await {
            Ok(Ok(session)) => {
                *self.current.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(session));
                true
            }
            Ok(Err(e)) => {
                tracing::error!("cannot serve {shown}: {e:#}");
                false
            }
            Err(e) => {
                tracing::error!("opening {shown} stopped: {e}");
                false
            }
        }
    }
}

/// The local path of a `file://` URI (percent-decoded, as URIs require); None for others.
pub fn file_uri_to_path(uri: &str) -> Option<PathBuf> {
    let url = url::Url::parse(uri).ok()?;
    if url.scheme() != "file" {
        return None;
    }
    url.to_file_path().ok()
}

/// `/` and the home directory are too broad to serve unless named explicitly.
///
/// # Ambient authority
/// Canonicalizes the host path `dir` and reads `$HOME`, to compare them; it opens nothing.
fn is_too_broad(dir: &Path) -> bool {
    let canonical = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let home = std::env::var_os("HOME").map(PathBuf::from).map(|h| std::fs::canonicalize(&h).unwrap_or(h));
    canonical.parent().is_none() || home.is_some_and(|h| h == canonical)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_are_decoded_and_other_schemes_ignored() {
        assert_eq!(file_uri_to_path("file:///srv/my%20project"), Some(PathBuf::from("/srv/my project")));
        assert_eq!(file_uri_to_path("https://example.com/x"), None);
        assert_eq!(file_uri_to_path("not a uri"), None);
    }

    #[test]
    fn the_filesystem_root_is_too_broad() {
        assert!(is_too_broad(Path::new("/")));
        assert!(!is_too_broad(&std::env::temp_dir().join("definitely-a-project")));
    }
}
