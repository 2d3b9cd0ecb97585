//! Work beside answering the client runs on threads of its own, at the lowest priority, so
//! that it takes only the time the protocol and the client leave: on a two-core machine our
//! busy threads otherwise kept the client from reading a reply. A start parses the tool
//! schemas and sweeps leftover temporary files this way ([`spawn`]), and the WAL is copied
//! into the database so. Only for work that starts no lasting threads: those would inherit
//! the priority, and it cannot be raised again.

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
