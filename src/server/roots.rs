//! Which root the server serves, and switching it when the client's roots change.
//!
//! Precedence: `--root` when given (the client's roots are then ignored); else the client's
//! first `file://` root, when the client supports roots (followed on `roots/list_changed`);
//! else the current directory. A current directory of `/` or the home directory is never
//! served by default (Claude Desktop starts servers in `/`): the slot then holds a refusal,
//! and every call answers with it, so the client sees why and what to pass.
//!
//! Sessions on MCP 2026-07-28 or later have no `initialize` and no server-to-client requests
//! (roots are deprecated there, and the revision asks servers to take directories from their
//! configuration): their root is `--root`, else the current directory, decided on the first
//! request.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::ProtocolVersion;
use rmcp::service::{Peer, RequestContext};

use crate::error::Error;
use crate::session::{Session, Settings};

/// Holds the current session, if a root has been chosen, or why none will be.
#[derive(Debug)]
pub struct SessionSlot {
    settings: Settings,
    /// Where the root comes from.
    source: RootSource,
    current: RwLock<Served>,
    /// True until the first root decision is made: calls that arrive earlier wait for it
    /// instead of failing.
    deciding: AtomicBool,
    /// Held while the first decision is made, so that it is made once.
    decision: tokio::sync::Mutex<()>,
    /// Wakes the calls waiting for the first decision.
    decided: tokio::sync::Notify,
}

/// What the slot serves.
#[derive(Debug, Clone)]
enum Served {
    /// No root yet: the first decision is still to come.
    Nothing,
    /// A session on a root.
    Root(Arc<Session>),
    /// No root may be served; the message says why and what to pass.
    Refused(String),
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
    /// A slot for `--root` whose session is still being opened, on another thread, so that
    /// the protocol starts meanwhile: calls wait for [`SessionSlot::serve`].
    pub fn opening(settings: Settings) -> Self {
        SessionSlot {
            settings,
            source: RootSource::Explicit,
            current: RwLock::new(Served::Nothing),
            deciding: AtomicBool::new(true),
            decision: tokio::sync::Mutex::new(()),
            decided: tokio::sync::Notify::new(),
        }
    }

    /// Serves `session`, the `--root` this slot was [opening](SessionSlot::opening), from now on.
    pub fn serve(&self, session: Session) {
        self.settle(Served::Root(Arc::new(session)));
    }

    /// Makes `served` the first decision and wakes the calls that wait for it.
    fn settle(&self, served: Served) {
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = served;
        self.deciding.store(false, Ordering::Release);
        self.decided.notify_waiters();
    }

    /// A slot whose root is chosen once the client has initialized (or, on MCP 2026-07-28,
    /// sent its first request).
    pub fn from_client(settings: Settings, fallback: PathBuf) -> Self {
        SessionSlot {
            settings,
            source: RootSource::Client { fallback },
            current: RwLock::new(Served::Nothing),
            deciding: AtomicBool::new(true),
            decision: tokio::sync::Mutex::new(()),
            decided: tokio::sync::Notify::new(),
        }
    }

    /// The current session, waiting (up to 10 s) while the first root is still being chosen
    /// or opened.
    pub async fn wait(&self) -> Result<Arc<Session>, Error> {
        // A request needs the root: opening it waits no longer for the first reply.
        super::startup::GATE.proceed();
        let deadline = tokio::time::Instant::now() + DECISION_WAIT;
        loop {
            // Registered before the check, so that a decision made in between still wakes it.
            let decided = self.decided.notified();
            if !self.deciding.load(Ordering::Acquire)
                || tokio::time::timeout_at(deadline, decided).await.is_err()
            {
                return self.get();
            }
        }
    }

    /// The current session, or why there is none.
    pub fn get(&self) -> Result<Arc<Session>, Error> {
        match &*self.current.read().unwrap_or_else(|p| p.into_inner()) {
            Served::Root(session) => Ok(session.clone()),
            Served::Nothing => Err(Error::NoRoot),
            Served::Refused(reason) => Err(Error::RootRefused { reason: reason.clone() }),
        }
    }

    /// Called once the client has initialized (MCP 2025-11-25 and earlier): adopt its roots,
    /// or fall back to the current directory.
    pub async fn on_initialized(&self, peer: &Peer<RoleServer>) {
        let client_has_roots = peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
        self.decide_once(client_has_roots.then_some(peer)).await;
    }

    /// Called before every request is handled. A request on MCP 2026-07-28 or later comes
    /// without `initialize`, and the server may not ask the client for its roots: the first
    /// such request decides the root from the command line and the current directory.
    pub async fn on_request(&self, context: &RequestContext<RoleServer>) {
        let stateless =
            context.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        if stateless && self.deciding.load(Ordering::Acquire) {
            self.decide_once(None).await;
        }
    }

    /// Makes the first root decision, once: from the client's roots when `peer` may be asked
    /// for them, else the current directory.
    async fn decide_once(&self, peer: Option<&Peer<RoleServer>>) {
        // `--root` is decided by the command line alone (see `serve`).
        if self.source == RootSource::Explicit {
            return;
        }
        let _deciding = self.decision.lock().await;
        if !self.deciding.load(Ordering::Acquire) {
            return;
        }
        let served = self.decide(peer).await;
        self.settle(served);
    }

    async fn decide(&self, peer: Option<&Peer<RoleServer>>) -> Served {
        let RootSource::Client { fallback } = &self.source else { return self.served() };
        if let Some(peer) = peer
            && let Some(Served::Root(session)) = self.client_root(peer).await
        {
            return Served::Root(session);
        }
        if is_too_broad(fallback) {
            let reason = format!(
                "no sandbox root: filewright was started without --root, {}, and its current directory is \
                 {}, which is never served by default. Ask the user to add --root /path/to/project to \
                 this server's arguments in the client's MCP configuration and restart it.",
                if peer.is_some() {
                    "the client offered no usable root"
                } else {
                    "the client offers no roots"
                },
                fallback.display()
            );
            tracing::error!("{reason}");
            return Served::Refused(reason);
        }
        self.open(fallback.clone()).await
    }

    /// What is served now.
    fn served(&self) -> Served {
        self.current.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Called on `roots/list_changed`: switch to the client's new first root.
    pub async fn on_roots_changed(&self, peer: &Peer<RoleServer>) {
        if matches!(self.source, RootSource::Client { .. })
            && let Some(served @ Served::Root(_)) = self.client_root(peer).await
        {
            *self.current.write().unwrap_or_else(|p| p.into_inner()) = served;
        }
    }

    /// A session on the client's first `file://` root; None when there is none or it
    /// cannot be opened (the reason is logged).
    #[allow(deprecated)] // Roots are deprecated by SEP-2577 but current in 2025-11-25 sessions.
    async fn client_root(&self, peer: &Peer<RoleServer>) -> Option<Served> {
        let roots = match peer.list_roots().await {
            Ok(result) => result.roots,
            Err(e) => {
                tracing::warn!("the client's roots could not be listed: {e}");
                return None;
            }
        };
        let Some(path) = roots.iter().find_map(|r| file_uri_to_path(&r.uri)) else {
            tracing::warn!("the client offered no file:// root ({} roots)", roots.len());
            return None;
        };
        match self.open(path).await {
            served @ Served::Root(_) => Some(served),
            _ => None,
        }
    }

    /// A session on `root`, or the refusal that says why it cannot be served.
    ///
    /// # Ambient authority
    /// `root` is a host path the client named or the process's current directory: the doors
    /// through which something other than `--root` chooses what is served. It is opened as a
    /// new sandbox with [`Session::open`]; nothing outside it becomes reachable by the tools.
    async fn open(&self, root: PathBuf) -> Served {
        let settings = self.settings.clone();
        let shown = root.display().to_string();
        let opened = tokio::task::spawn_blocking(move || Session::open(&root, &settings)).await;
        let reason = match opened {
            Ok(Ok(session)) => return Served::Root(Arc::new(session)),
            Ok(Err(e)) => format!("cannot serve {shown}: {e:#}"),
            Err(e) => format!("opening {shown} stopped: {e}"),
        };
        tracing::error!("{reason}");
        Served::Refused(format!("no sandbox root: {reason}. Start filewright with --root /path/to/project."))
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

/// Refuses a current directory that is too broad to serve without `--root` (`/`, the home
/// directory), with what to pass instead: the HTTP transport's rule, where no client offers roots.
pub fn refuse_too_broad(dir: &Path) -> Result<(), String> {
    if is_too_broad(dir) {
        return Err(format!(
            "no --root given and the current directory {} is never served by default; pass --root /path/to/project",
            dir.display()
        ));
    }
    Ok(())
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

    #[tokio::test]
    async fn a_call_before_the_root_is_open_waits_for_it() {
        let tmp = tempfile::tempdir().unwrap();
        let settings = Settings::for_tests(&tmp.path().join("state"));
        let slot = Arc::new(SessionSlot::opening(settings.clone()));
        assert!(matches!(slot.get(), Err(Error::NoRoot)), "nothing is served before it opens");
        let waiting = tokio::spawn({
            let slot = slot.clone();
            async move { slot.wait().await.map(|s| s.file_uri("a.txt").unwrap_or_default()) }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "the call waits while the root opens");
        let opened = std::time::Instant::now();
        slot.serve(Session::open(tmp.path(), &settings).unwrap());
        let uri = waiting.await.unwrap().expect("served once open");
        assert!(uri.ends_with("/a.txt"), "{uri}");
        assert!(opened.elapsed() < DECISION_WAIT / 10, "woken when it opened, not by the time limit");
    }

    #[test]
    fn the_filesystem_root_is_too_broad() {
        assert!(is_too_broad(Path::new("/")));
        assert!(!is_too_broad(&std::env::temp_dir().join("definitely-a-project")));
    }
}
