//! Work spread over every core: one thread per core the process may use (at most 16),
//! started for the call and ended with it, each with its own state. The walk lists and visits
//! files with it ([`super::walk`]), `find_files` counts lines with it, and `check_files`
//! checks files with it.
//!
//! Results always come back in the items' order, whatever the threads' schedule, so that a
//! call's answer never depends on it.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

/// `work` applied to each of `items` on every core, each thread with its own state from
/// `worker`; the results in the items' order.
pub fn in_parallel<T: Sync, W, R: Send>(
    items: &[T],
    worker: impl Fn() -> W + Sync,
    work: impl Fn(&mut W, &T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let done = on_threads(items.len(), || {
        let mut state = worker();
        let mut out = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(index) else { break };
            out.push((index, work(&mut state, item)));
        }
        out
    });
    let mut results: Vec<(usize, R)> = done.into_iter().flatten().collect();
    results.sort_unstable_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, result)| result).collect()
}

/// Items a thread of [`in_order`] may run ahead of the first result not yet handed on: the
/// results waiting for an earlier one are held in memory, so their number is bounded.
const AHEAD: usize = 64;

/// [`in_parallel`] for a caller that follows the work as it goes: `done` is called on the
/// calling thread with each result, in the items' order, as soon as it and every one before
/// it are ready (so progress can be told in order). When `done` breaks, no item is started
/// after that and the call returns Break once the items under way are finished.
///
/// The calling thread only hands results on: `done` may block (to send a notification)
/// without holding up the work.
pub fn in_order<T: Sync, W, R: Send>(
    items: &[T],
    worker: impl Fn() -> W + Sync,
    work: impl Fn(&mut W, &T) -> R + Sync,
    mut done: impl FnMut(usize, R) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // The first item whose result has not been handed on, for the threads to wait on when
    // they are [`AHEAD`] items past it.
    let handed = Mutex::new(0usize);
    let moved = Condvar::new();
    let (send, receive) = mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        for _ in 0..threads().min(items.len()) {
            let send = send.clone();
            let (next, stop, handed, moved, worker, work) = (&next, &stop, &handed, &moved, &worker, &work);
            scope.spawn(move || {
                // A thread that panics stops the others, which could otherwise wait forever
                // for its item's result; the scope then passes the panic on to the caller.
                let _on_panic = StopOnPanic { stop, moved, handed };
                let mut state = worker();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    let mut first = handed.lock().unwrap_or_else(|e| e.into_inner());
                    while index >= *first + AHEAD && !stop.load(Ordering::Relaxed) {
                        first = moved.wait(first).unwrap_or_else(|e| e.into_inner());
                    }
                    drop(first);
                    if stop.load(Ordering::Relaxed) || send.send((index, work(&mut state, item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        let mut waiting = std::collections::BTreeMap::new();
        let mut first = 0;
        // Ends when every thread has ended (each drops its sender).
        for (index, result) in receive {
            waiting.insert(index, result);
            while let Some(result) = waiting.remove(&first) {
                let flow = done(first, result);
                first += 1;
                *handed.lock().unwrap_or_else(|e| e.into_inner()) = first;
                moved.notify_all();
                if flow.is_break() {
                    stop.store(true, Ordering::Relaxed);
                    moved.notify_all();
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::Continue(())
    })
}

/// Stops the threads of an [`in_order`] call when the thread that holds it panics.
struct StopOnPanic<'a> {
    stop: &'a AtomicBool,
    moved: &'a Condvar,
    handed: &'a Mutex<usize>,
}

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.stop.store(true, Ordering::Relaxed);
            // Under the lock, so that no thread is between its check and its wait.
            let _first = self.handed.lock().unwrap_or_else(|e| e.into_inner());
            self.moved.notify_all();
        }
    }
}

/// A bound on the bytes the threads of one call work on at once: each takes a file's size
/// from it before working on the file and gives it back after, waiting while the others hold
/// too much. A file larger than the whole bound is worked on alone.
pub struct Budget {
    bound: usize,
    used: Mutex<usize>,
    freed: Condvar,
}

/// Bytes taken from a [`Budget`], given back when dropped.
pub struct Taken<'a> {
    budget: &'a Budget,
    bytes: usize,
}

impl Budget {
    /// A budget of `bound` bytes.
    pub fn new(bound: usize) -> Budget {
        Budget { bound, used: Mutex::new(0), freed: Condvar::new() }
    }

    /// Takes `bytes` (the whole bound when more), waiting until they fit.
    pub fn take(&self, bytes: usize) -> Taken<'_> {
        let bytes = bytes.min(self.bound);
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used + bytes > self.bound {
            used = self.freed.wait(used).unwrap_or_else(|e| e.into_inner());
        }
        *used += bytes;
        Taken { budget: self, bytes }
    }
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        *self.budget.used.lock().unwrap_or_else(|e| e.into_inner()) -= self.bytes;
        self.budget.freed.notify_all();
    }
}

/// Threads a call uses: one per core the process may run on.
pub(super) fn threads() -> usize {
    #[cfg(test)]
    if ONE_THREAD.with(std::cell::Cell::get) {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(16)
}

#[cfg(test)]
thread_local! {
    static ONE_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the work it starts from this thread done on one thread: a serial run, for
/// tests that compare it with a parallel one.
#[cfg(test)]
pub(crate) fn on_one_thread<R>(f: impl FnOnce() -> R) -> R {
    ONE_THREAD.with(|one| one.set(true));
    let result = f();
    ONE_THREAD.with(|one| one.set(false));
    result
}

/// Runs `work` on up to [`threads`] threads (no more than `jobs`, at least one; the calling
/// thread is one of them) and returns what each returned.
pub(super) fn on_threads<T: Send>(jobs: usize, work: impl Fn() -> T + Sync) -> Vec<T> {
    let n = threads().min(jobs).max(1);
    std::thread::scope(|scope| {
        let others: Vec<_> = (1..n).map(|_| scope.spawn(&work)).collect();
        let mut results = vec![work()];
        // A thread that panicked would leave its files out: the panic goes on to the caller,
        // whose call fails as a whole.
        results.extend(
            others.into_iter().map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))),
        );
        results
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_parallel_keeps_the_order_of_the_items() {
        let items: Vec<usize> = (0..1000).collect();
        let doubled = in_parallel(&items, || (), |_, i| i * 2);
        assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn in_order_hands_on_every_result_in_the_items_order() {
        let items: Vec<usize> = (0..1000).collect();
        let mut seen = Vec::new();
        let flow = in_order(
            &items,
            || (),
            |_, i| i * 2,
            |index, doubled| {
                seen.push((index, doubled));
                ControlFlow::Continue(())
            },
        );
        assert_eq!(flow, ControlFlow::Continue(()));
        assert_eq!(seen, items.iter().map(|&i| (i, i * 2)).collect::<Vec<_>>());
    }

    #[test]
    fn in_order_starts_no_item_long_after_done_breaks() {
        let items: Vec<usize> = (0..10_000).collect();
        let started = AtomicUsize::new(0);
        let mut seen = 0;
        let flow = in_order(
            &items,
            || (),
            |_, _| started.fetch_add(1, Ordering::Relaxed),
            |index, _| {
                seen += 1;
                if index == 10 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
            },
        );
        assert_eq!(flow, ControlFlow::Break(()));
        assert_eq!(seen, 11);
        // The threads run at most AHEAD items past the last result handed on.
        assert!(started.load(Ordering::Relaxed) <= 11 + AHEAD + threads(), "{started:?}");
    }

    #[test]
    fn a_panicking_item_fails_the_call_instead_of_leaving_the_others_waiting() {
        // Item 0 panics once the other threads have run AHEAD items past it and wait for its
        // result; the call must end (with the panic), not wait forever.
        let (send, receive) = mpsc::channel();
        std::thread::spawn(move || {
            let items: Vec<usize> = (0..10 * AHEAD).collect();
            let ran = AtomicUsize::new(0);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                in_order(
                    &items,
                    || (),
                    |_, &i| {
                        if i == 0 {
                            while ran.load(Ordering::SeqCst) < AHEAD - 1 && threads() > 1 {
                                std::thread::yield_now();
                            }
                            panic!("a check that panics");
                        }
                        ran.fetch_add(1, Ordering::SeqCst);
                    },
                    |_, ()| ControlFlow::Continue(()),
                )
            }));
            let _ = send.send(outcome.is_err());
        });
        let failed = receive.recv_timeout(std::time::Duration::from_secs(120));
        assert_eq!(failed, Ok(true), "the call must end, and with the panic");
    }

    #[test]
    fn a_budget_holds_no_more_than_its_bound_at_once() {
        let budget = Budget::new(100);
        let held = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let items: Vec<usize> = (0..200).map(|i| 10 + i % 70).collect();
        in_parallel(
            &items,
            || (),
            |_, &bytes| {
                let _taken = budget.take(bytes);
                let now = held.fetch_add(bytes, Ordering::SeqCst) + bytes;
                most.fetch_max(now, Ordering::SeqCst);
                std::thread::yield_now();
                held.fetch_sub(bytes, Ordering::SeqCst);
            },
        );
        assert!(most.load(Ordering::SeqCst) <= 100);
        // Larger than the bound: taken alone, not forever waited for.
        drop(budget.take(1000));
    }
}
