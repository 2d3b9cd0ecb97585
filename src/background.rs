//! Work beside answering the client runs on threads of its own, at the lowest priority, so
//! that it takes only the time the protocol and the client leave: on a two-core machine our
//! busy threads otherwise kept the client from reading a reply. A start parses the tool
//! schemas and sweeps leftover temporary files this way ([`spawn`]); a call hands over what
//! is slow to drop but needed by nobody, such as the last handle on a replaced file
//! ([`drop_later`]). Only for work that starts no lasting threads: those would inherit the
//! priority, and it cannot be raised again.
//!
//! Work that a call needs but that does not depend on the rest of the call (the syntax check
//! of a text about to be written) can start [`ahead`] on a helper thread of the normal
//! priority, while the call does its own part; the call then takes its result, or does the
//! work itself when the helper has not begun it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, SyncSender, TrySendError, channel, sync_channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};

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

/// How long [`Ahead::finish`] polls for a running helper to end before it sleeps until then.
const FINISH_POLL: std::time::Duration = std::time::Duration::from_micros(100);

/// Whether this process may run on more than one CPU (asked once).
fn several_cpus() -> bool {
    static SEVERAL: OnceLock<bool> = OnceLock::new();
    *SEVERAL.get_or_init(|| std::thread::available_parallelism().is_ok_and(|n| n.get() > 1))
}

/// Work started by [`ahead`]: [`Ahead::finish`] gives its result.
pub struct Ahead<T> {
    slot: Arc<Slot<T>>,
}

/// Where the helper and the caller meet: the work until one of them takes it, then its
/// result.
struct Slot<T> {
    /// Whether the helper is running the work: the caller waits for that to end without
    /// sleeping, for a while.
    running: AtomicBool,
    state: Mutex<State<T>>,
    done: Condvar,
}

enum State<T> {
    /// Not begun: whoever comes first runs it.
    Waiting(Box<dyn FnOnce() -> T + Send>),
    /// The helper is running it.
    Running,
    /// The helper's result (a panic is carried over to the caller).
    Done(std::thread::Result<T>),
    /// Taken by the caller, or given up (the caller no longer needs it).
    Gone,
}

/// A job for the helper thread.
type Job = Box<dyn FnOnce() + Send>;

/// Starts `work` on the helper thread, so that it runs while the caller does something else.
/// Never waits longer than doing the work in place: [`Ahead::finish`] runs it itself when the
/// helper has not begun it (the helper is busy with another call's work, or could not start).
/// Dropping the [`Ahead`] before the helper begins gives the work up.
pub fn ahead<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Ahead<T> {
    static HELPER: OnceLock<Option<Sender<Job>>> = OnceLock::new();
    let helper = HELPER.get_or_init(|| {
        let (sender, jobs) = channel::<Job>();
        // At the normal priority: what it runs is on a call's path.
        let started = std::thread::Builder::new()
            .name("ahead".into())
            .spawn(move || jobs.into_iter().for_each(|job| job()));
        match started {
            Ok(_) => Some(sender),
            Err(e) => {
                tracing::debug!("work is not started ahead: {e}");
                None
            }
        }
    });
    let slot = Arc::new(Slot {
        running: AtomicBool::new(false),
        state: Mutex::new(State::Waiting(Box::new(work))),
        done: Condvar::new(),
    });
    if let Some(sender) = helper {
        let theirs = Arc::clone(&slot);
        // Failing to send leaves the work waiting for the caller.
        let _ = sender.send(Box::new(move || theirs.run()));
    }
    Ahead { slot }
}

impl<T> Slot<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The helper's side: runs the work unless the caller took it or gave it up.
    fn run(&self) {
        let work = {
            let mut state = self.lock();
            match std::mem::replace(&mut *state, State::Running) {
                State::Waiting(work) => {
                    self.running.store(true, Ordering::Release);
                    work
                }
                other => {
                    *state = other;
                    return;
                }
            }
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
        *self.lock() = State::Done(result);
        self.running.store(false, Ordering::Release);
        self.done.notify_all();
    }
}

impl<T> Ahead<T> {
    /// The work's result: the helper's when it has begun it (waiting for it to end), otherwise
    /// the work run here. A panic in the work is resumed here.
    pub fn finish(self) -> T {
        // A helper that is running the work mostly ends within tens of microseconds: the
        // caller polls for that first. Sleeping on the condition variable instead means being
        // woken from the helper's CPU, an interrupt across CPUs, which on a VM is slow; polling
        // first made writes faster (`--builds`, BENCHMARKS.md). With one CPU the helper cannot
        // go on while the caller polls, so there the caller sleeps at once.
        if several_cpus() {
            let until = std::time::Instant::now() + FINISH_POLL;
            while self.slot.running.load(Ordering::Acquire) && std::time::Instant::now() < until {
                std::hint::spin_loop();
            }
        }
        let mut state = self.slot.lock();
        loop {
            match std::mem::replace(&mut *state, State::Gone) {
                State::Waiting(work) => {
                    drop(state);
                    return work();
                }
                State::Running => {
                    *state = State::Running;
                    state = self.slot.done.wait(state).unwrap_or_else(|p| p.into_inner());
                }
                State::Done(Ok(value)) => return value,
                State::Done(Err(panic)) => {
                    drop(state);
                    std::panic::resume_unwind(panic)
                }
                State::Gone => unreachable!("an Ahead is finished once"),
            }
        }
    }
}

impl<T> Drop for Ahead<T> {
    fn drop(&mut self) {
        let mut state = self.slot.lock();
        if matches!(*state, State::Waiting(_)) {
            *state = State::Gone;
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
    fn work_started_ahead_gives_its_result() {
        let values: Vec<_> = (0..50u64).map(|k| ahead(move || k * k)).collect();
        let results: Vec<u64> = values.into_iter().map(Ahead::finish).collect();
        assert_eq!(results, (0..50u64).map(|k| k * k).collect::<Vec<_>>());
    }

    /// Work that keeps the helper busy until the returned sender is used (or dropped); returns
    /// once the helper has begun it.
    fn hold_the_helper() -> (Ahead<()>, std::sync::mpsc::Sender<()>) {
        let (release, held) = std::sync::mpsc::channel::<()>();
        let (began, has_begun) = std::sync::mpsc::channel::<()>();
        let blocker = ahead(move || {
            began.send(()).unwrap();
            held.recv().ok();
        });
        has_begun.recv().unwrap();
        (blocker, release)
    }

    /// Whether the helper thread (not the caller) runs a job within a few seconds. The helper
    /// takes its jobs in order, so once it has, it has looked at every job sent before.
    fn the_helper_runs_a_job() -> bool {
        let caller = std::thread::current().id();
        (0..500).any(|_| {
            let probe = ahead(|| std::thread::current().id());
            std::thread::sleep(std::time::Duration::from_millis(2));
            probe.finish() != caller
        })
    }

    #[test]
    fn work_the_helper_has_not_begun_is_run_by_the_caller() {
        let (blocker, release) = hold_the_helper();
        let caller = std::thread::current().id();
        let second = ahead(move || std::thread::current().id());
        assert_eq!(second.finish(), caller, "waited for a busy helper instead of running the work");
        release.send(()).unwrap();
        blocker.finish();
    }

    #[test]
    fn a_caller_waits_for_work_the_helper_runs_longer_than_the_caller_polls() {
        let (began, has_begun) = std::sync::mpsc::channel::<()>();
        let slow = ahead(move || {
            began.send(()).unwrap();
            std::thread::sleep(FINISH_POLL * 50);
            std::thread::current().id()
        });
        has_begun.recv().unwrap();
        let ran_on = slow.finish();
        assert_ne!(ran_on, std::thread::current().id(), "the caller ran work the helper had begun");
    }

    #[test]
    fn a_panic_ahead_reaches_the_caller_and_the_helper_goes_on() {
        let failing = ahead(|| -> u8 { panic!("on purpose") });
        std::thread::sleep(std::time::Duration::from_millis(20));
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| failing.finish()));
        assert!(caught.is_err());
        assert!(the_helper_runs_a_job(), "the helper thread died with the panic");
    }

    #[test]
    fn work_given_up_before_it_began_is_not_run() {
        let (blocker, release) = hold_the_helper();
        let ran = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&ran);
        drop(ahead(move || flag.store(true, Ordering::SeqCst)));
        release.send(()).unwrap();
        blocker.finish();
        assert!(the_helper_runs_a_job());
        assert!(!ran.load(Ordering::SeqCst));
    }

    #[test]
    fn a_value_given_to_drop_later_is_dropped_on_another_thread() {
        let (tell, told) = std::sync::mpsc::channel();
        drop_later(Told(tell));
        let dropped_on = told.recv_timeout(std::time::Duration::from_secs(10)).expect("never dropped");
        assert_ne!(dropped_on, std::thread::current().id());
    }
}
