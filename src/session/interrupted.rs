//! What a killed append left behind: a part of its chunk at the end of the file, with its
//! intent in the store (see [`crate::store::AppendIntent`]). It is cut back before anything
//! else touches the file: by the next call on the path in any process, or by the next start.

use super::Session;
use crate::files::{self, RolledBack};
use crate::store::AppendIntent;
use crate::workspace::RootPath;

impl Session {
    /// Cuts back an interrupted append to `path`. Call it only under the store's write lock
    /// (inside a claimed write), where no append can be running, so any intent is a leftover.
    pub(super) fn settle_locked(&self, path: &RootPath) {
        if let Some(intent) = self.store.append_intent(&path.display()) {
            self.roll_back(path, &intent);
        }
    }

    /// [`Session::settle_locked`] for calls that take no lock (reads): when a dead process left an
    /// intent for `path`, the store's lock is taken and the append cut back.
    pub(super) fn settle(&self, path: &RootPath) {
        let key = path.display();
        let Some(intent) = self.store.append_intent(&key) else { return };
        if intent.pid == std::process::id() || process_alive(intent.pid) {
            return;
        }
        let settled = self.store.exclusive(|| {
            if let Some(intent) = self.store.append_intent(&key) {
                self.roll_back(path, &intent);
            }
        });
        if let Err(e) = settled {
            tracing::warn!("could not take the store's lock to repair {key}: {e}");
        }
    }

    /// At start: cuts back every interrupted append of the root.
    pub(super) fn settle_all(&self) {
        // Most starts find none: the store's lock (a write transaction) is taken only when
        // there is something to settle. An intent made after this look belongs to a live
        // append, which is not this start's to settle.
        if self.store.append_intents().is_empty() {
            return;
        }
        let settled = self.store.exclusive(|| {
            for intent in self.store.append_intents() {
                match self.ws.recorded(&intent.path) {
                    Ok(path) => self.roll_back(&path, &intent),
                    Err(_) => self.store.clear_append_intent(&intent.path),
                }
            }
        });
        if let Err(e) = settled {
            tracing::warn!("could not take the store's lock to repair interrupted appends: {e}");
        }
    }

    fn roll_back(&self, path: &RootPath, intent: &AppendIntent<'_>) {
        let key = path.display();
        let append = files::Interrupted {
            size_before: intent.size_before,
            dev: intent.dev,
            ino: intent.ino,
            created: intent.created,
            chunk: &intent.chunk,
        };
        match files::roll_back(&self.ws, path, append) {
            Ok(RolledBack::Cut(bytes)) => {
                tracing::warn!("{key}: cut back {bytes} bytes of an append that a kill interrupted")
            }
            Ok(RolledBack::Nothing) => {}
            Ok(RolledBack::Changed) => {
                tracing::warn!(
                    "{key}: an append was interrupted, but the file has changed since; left as it is"
                )
            }
            Err(e) => {
                // Kept, so that the next call tries again.
                tracing::warn!("{key}: could not cut back an interrupted append: {e}");
                return;
            }
        }
        self.store.clear_append_intent(&key);
    }
}

/// Whether process `pid` is alive (signal 0 reaches it, or it exists but is not ours). Only a
/// hint: a reused id keeps an intent until the next write to its path settles it under the lock.
fn process_alive(pid: u32) -> bool {
    let Some(pid) = rustix::process::Pid::from_raw(pid as i32) else { return false };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        Err(e) => e != rustix::io::Errno::SRCH,
    }
}
