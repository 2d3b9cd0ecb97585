//! Starting a staged file's way to disk on a helper thread, before it is renamed into place.
//!
//! ext4 (with its default `auto_da_alloc`) writes out a file's delayed blocks when the file
//! is renamed over another: that is what keeps an atomic replace from leaving an empty file
//! after a crash, without an fsync. The rename then allocates the blocks and submits the
//! I/O itself, in the caller's time: about a fifth of a 20 KB edit's time on our VM (perf).
//! Asked of the helper that runs work ahead ([`crate::background::ahead`], the one a write's
//! syntax check runs on, so that one wake-up serves both) as soon as the new content is
//! staged, `sync_file_range` starts that writeback without waiting for it, while the call
//! takes its claim, reads the old file and records the journal row; the rename then finds
//! nothing left to start. The order of the writes is unchanged: the data is on its way
//! before the rename, as ext4 would have made it.
//!
//! Nothing depends on it. When the helper has not begun by the time of the rename, could not
//! start, or the platform has no such call, the rename starts the writeback as before.
//! `cargo bench --bench peers -- --bench --builds A B` measured the gain (BENCHMARKS.md).

/// Asks the helper thread ([`crate::background::ahead`]) to start writing `file`'s data to
/// disk, and returns at once. Dropping what it returns gives the request up when the helper
/// has not begun it (the rename then starts the writeback itself).
#[cfg(target_os = "linux")]
pub fn start(file: &impl std::os::fd::AsFd) -> Option<crate::background::Ahead<()>> {
    if !crate::platform::linux_calls() {
        return None;
    }
    // A handle of its own (a dup), so that the file may be renamed and closed meanwhile.
    let copy = file.as_fd().try_clone_to_owned().ok()?;
    Some(crate::background::ahead(move || {
        if let Err(e) = start_writeback(&copy) {
            tracing::debug!("writeback of a staged file is left to its rename: {e}");
        }
    }))
}

/// Elsewhere the rename (or the system) writes the file out as it always did.
#[cfg(not(target_os = "linux"))]
pub fn start(_file: &impl std::os::fd::AsFd) -> Option<crate::background::Ahead<()>> {
    None
}

/// Starts the writeback of every dirty page of `file`, without waiting for it to end.
#[cfg(target_os = "linux")]
fn start_writeback(file: &impl std::os::fd::AsRawFd) -> std::io::Result<()> {
    // SAFETY: `sync_file_range` reads nothing from memory; the descriptor is open for the
    // whole call, held by the caller.
    let done = unsafe { libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
    if done == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Write;

    /// The call is accepted for a regular file (wrong flags would be `EINVAL`), and starting
    /// the writeback changes nothing a reader sees. Whether pages left for the disk is not
    /// visible per file; BENCHMARKS.md measured the effect.
    #[test]
    fn a_writeback_starts_on_a_regular_file_and_changes_nothing_a_reader_sees() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(&vec![b'x'; 20_000]).unwrap();
        start_writeback(&file).unwrap();
        if let Some(started) = start(&file) {
            started.finish();
        }
        drop(file);
        assert_eq!(std::fs::read(&path).unwrap(), vec![b'x'; 20_000]);
    }

    #[test]
    fn a_descriptor_that_is_not_a_file_is_an_error_not_a_panic() {
        let (reader, _writer) = std::io::pipe().unwrap();
        assert!(start_writeback(&reader).is_err());
        if let Some(started) = start(&reader) {
            started.finish();
        }
    }
}
