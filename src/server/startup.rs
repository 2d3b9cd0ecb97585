//! What a start puts off until the client has had its first answer.
//!
//! Opening the root (its store, its threads) and parsing the tools' schemas are not needed
//! for the `initialize` reply. Started on threads beside the protocol
//! from the first instant, they took the cores the reply needed (BENCHMARKS.md's history has
//! the profile and the times, 2026-11-25 evening). So their threads are started only once the
//! first reply line has been written ([`Gate::proceed`] on [`GATE`]), or when a request needs
//! the root before that (an MCP 2026-07-28 client sends no `initialize`), or after
//! [`AT_MOST`] (a timer `main` starts): a client that sends nothing still learns soon that
//! the root cannot be opened.

use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long deferred work waits, at most, for the first reply.
pub const AT_MOST: Duration = Duration::from_millis(50);

/// What starts one thread put off.
type Start = Box<dyn FnOnce() + Send>;

/// Threads put off until a first reply. The process has one, [`GATE`].
pub struct Gate {
    /// The threads waiting; None once the gate is open (threads then start at once).
    pending: Mutex<Option<Vec<Start>>>,
}

/// The process's gate: its first reply line opens it.
pub static GATE: Gate = Gate::new();

impl Gate {
    /// A closed gate.
    pub const fn new() -> Gate {
        Gate { pending: Mutex::new(Some(Vec::new())) }
    }

    /// Starts the threads put off so far, and from now on any at once.
    pub fn proceed(&self) {
        let pending = self.pending.lock().unwrap_or_else(|p| p.into_inner()).take();
        for start in pending.into_iter().flatten() {
            start();
        }
    }

    /// Runs `work` on a thread named `name` once this gate is open (where the gate opens, when
    /// no thread can be started).
    pub fn spawn<T: Send + 'static>(
        &self,
        name: &str,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Deferred<'_, T> {
        self.run_then_spawn(name, || (), move |()| work())
    }

    /// Once this gate is open, runs `first` on the thread that opens it (at once when it is
    /// open), then `then` with what `first` returned on a thread named `name`. For work whose
    /// first part must not wait for a thread to be scheduled (on a busy machine that took
    /// longer than the part itself).
    pub fn run_then_spawn<A: Send + 'static, T: Send + 'static>(
        &self,
        name: &str,
        first: impl FnOnce() -> A + Send + 'static,
        then: impl FnOnce(A) -> T + Send + 'static,
    ) -> Deferred<'_, T> {
        let handle = Arc::new(Mutex::new(None));
        let start = {
            let handle = handle.clone();
            let name = name.to_string();
            move || {
                let done = first();
                // Shared with the thread, so that `then` still runs here when it cannot start.
                let work = Arc::new(Mutex::new(Some(move || then(done))));
                let theirs = work.clone();
                let spawned = std::thread::Builder::new().name(name.clone()).spawn(move || {
                    let work = theirs.lock().unwrap_or_else(|p| p.into_inner()).take();
                    work.map(|work| work())
                });
                match spawned {
                    Ok(started) => *handle.lock().unwrap_or_else(|p| p.into_inner()) = Some(started),
                    Err(e) => {
                        tracing::error!("cannot start the thread {name}: {e}; its work runs here");
                        let work = work.lock().unwrap_or_else(|p| p.into_inner()).take();
                        // Its result is not kept: `join` says None, as for any thread not started.
                        drop(work.map(|work| work()));
                    }
                }
            }
        };
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        match pending.as_mut() {
            Some(waiting) => waiting.push(Box::new(start)),
            None => {
                drop(pending);
                start();
            }
        }
        Deferred { gate: self, handle }
    }
}

impl Default for Gate {
    fn default() -> Self {
        Gate::new()
    }
}

/// Work on a thread of its own, started once its gate is open.
pub struct Deferred<'g, T> {
    gate: &'g Gate,
    /// The thread's handle once it has started; None before. The thread's result is None
    /// only when its work ran elsewhere.
    handle: Arc<Mutex<Option<JoinHandle<Option<T>>>>>,
}

impl<T> Deferred<'_, T> {
    /// Opens the gate if it is not open and waits for the work's end: None when its thread
    /// could not start or panicked.
    pub fn join(self) -> Option<T> {
        self.gate.proceed();
        loop {
            if let Some(started) = self.handle.lock().unwrap_or_else(|p| p.into_inner()).take() {
                return started.join().ok().flatten();
            }
            // Only this one is left: the start was given up (the thread could not start).
            if Arc::strong_count(&self.handle) == 1 {
                return None;
            }
            // Another thread is opening the gate and starting this work at this moment.
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn work_put_off_starts_when_the_gate_opens_and_later_work_at_once() {
        let gate = Gate::new();
        let ran = Arc::new(AtomicBool::new(false));
        let first = {
            let ran = ran.clone();
            gate.spawn("test-first", move || ran.store(true, Ordering::SeqCst))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!ran.load(Ordering::SeqCst), "the work ran before the gate opened");
        gate.proceed();
        assert!(first.handle.lock().unwrap().is_some(), "opening the gate started the thread");
        assert_eq!(first.join(), Some(()));
        assert!(ran.load(Ordering::SeqCst));
        let later = gate.spawn("test-later", || 7);
        assert!(later.handle.lock().unwrap().is_some(), "an open gate starts work at once");
        assert_eq!(later.join(), Some(7));
    }

    #[test]
    fn joining_opens_the_gate_so_that_the_work_runs() {
        let gate = Gate::new();
        let other = gate.spawn("test-other", || 1);
        assert_eq!(gate.spawn("test-join", || 2).join(), Some(2));
        assert_eq!(other.join(), Some(1), "the gate opened for every thread put off");
    }

    #[test]
    fn the_first_part_runs_on_the_thread_that_opens_the_gate_and_the_rest_on_its_own() {
        let gate = Gate::new();
        let opener = std::thread::current().id();
        let work = gate.run_then_spawn(
            "test-then",
            move || std::thread::current().id() == opener,
            |first_here| (first_here, std::thread::current().name() == Some("test-then")),
        );
        gate.proceed();
        assert_eq!(work.join(), Some((true, true)));
    }

    #[test]
    fn a_panic_in_the_work_is_a_join_of_none() {
        let gate = Gate::new();
        gate.proceed();
        assert_eq!(gate.spawn("test-panic", || -> u8 { panic!("boom") }).join(), None);
    }
}
