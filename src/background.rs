//! Work beside answering the client runs on threads of its own, at the lowest priority, so
//! that it takes only the time the protocol and the client leave: on a two-core machine our
//! busy threads otherwise kept the client from reading a reply. A start parses the tool
//! schemas and sweeps leftover temporary files this way ([`spawn`]); a call hands over what
//! is slow to drop but needed by nobody, such as the last handle on a replaced file
//! ([`drop_later`]). Only for work that starts no lasting threads: those would inherit the
//! priority, and it cannot be raised again.

use std::sync::OnceLock;
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};

/// Starts `work` on a thread named `name` at the lowest scheduling priority. An error means
/// the thread could not be started (and `work` was not run).
pub fn spawn<T: Send + 'static>(
    name: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<T>> {
    std::thread::Builder::new().name(name.into()).spawn(move || {
        lower_priority();
        work()
    })
}

/// How many values may wait for the dropping thread; past that a caller drops its own.
const WAITING_DROPS: usize = 64;

/// Something to drop on the dropping thread.
type Droppable = Box<dyn Send>;

/// Drops `value` on a thread of the lowest priority instead of here, so that a tool call
/// answers before the work its drop does. Freeing a replaced file's blocks happens when its
/// last handle closes: about a tenth of a 4 KB write's time on ext4, which the caller does
/// not need to wait for. When that thread cannot start or is behind by [`WAITING_DROPS`]
/// values, `value` is dropped here, as it would have been.
pub fn drop_later<T: Send + 'static>(value: T) {
    static DROPPER: OnceLock<Option<SyncSender<Droppable>>> = OnceLock::new();
    let dropper = DROPPER.get_or_init(|| {
        let (sender, receiver) = sync_channel::<Droppable>(WAITING_DROPS);
        let started = spawn("drop-later", move || receiver.into_iter().for_each(drop));
        match started {
            Ok(_) => Some(sender),
            Err(e) => {
                tracing::debug!("replaced files are closed by the call itself: {e}");
                None
            }
        }
    });
    if let Some(sender) = dropper {
        match sender.try_send(Box::new(value)) {
            Ok(()) => {}
            Err(TrySendError::Full(value) | TrySendError::Disconnected(value)) => drop(value),
        }
    }
}

/// Gives the calling thread the lowest priority (nice 19; on Linux each thread has its own).
/// Failing to is harmless: the work runs at the normal priority. There is no way back without
/// privileges: call it on a thread whose remaining work is all in the background.
pub fn lower_priority() {
    #[cfg(target_os = "linux")]
    if crate::platform::linux_calls()
        && let Err(e) = rustix::process::setpriority_process(None, 19)
    {
        tracing::debug!("background work keeps the normal priority: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Says on which thread it was dropped.
    struct Told(std::sync::mpsc::Sender<std::thread::ThreadId>);

    impl Drop for Told {
        fn drop(&mut self) {
            let _ = self.0.send(std::thread::current().id());
        }
    }

    #[test]
    fn a_value_given_to_drop_later_is_dropped_on_another_thread() {
        let (tell, told) = std::sync::mpsc::channel();
        drop_later(Told(tell));
        let dropped_on = told.recv_timeout(std::time::Duration::from_secs(10)).expect("never dropped");
        assert_ne!(dropped_on, std::thread::current().id());
    }
}
