//! Starting a staged file's way to disk on a helper thread, before it is renamed into place.
//!
//! ext4 (with its default `auto_da_alloc`) writes out a file's delayed blocks when the file
//! is renamed over another: that is what keeps an atomic replace from leaving an empty file
//! after a crash, without an fsync. The rename then allocates the blocks and submits the
//! I/O itself, in the caller's time: on our VM a fifth of a 20 KB edit's time in the kernel.
//! Asked for on a helper thread (`sync_file_range`, which starts the writeback and does not
//! wait for it) as soon as the new content is staged, that work runs while the call takes
//! its claim, reads the old file and records the journal row, and the rename finds nothing
//! left to start. The order of the writes is unchanged: the data is on its way before the
//! rename, as ext4 would have made it.
//!
//! Nothing depends on it. When the helper is behind, could not start, or the platform has no
//! such call, the rename starts the writeback as before; a request the helper cannot take
//! is forgotten. `cargo bench --bench peers -- --bench --builds A B` measured the gain
//! (BENCHMARKS.md).

#[cfg(target_os = "linux")]
use std::sync::OnceLock;
#[cfg(target_os = "linux")]
use std::sync::mpsc::{SyncSender, sync_channel};

/// How many files may wait for the helper; past that the rename starts their writeback.
#[cfg(target_os = "linux")]
const WAITING: usize = 16;

/// Asks the helper thread to start writing `file`'s data to disk. Returns at once.
#[cfg(target_os = "linux")]
pub fn start(file: &impl std::os::fd::AsFd) {
    use std::os::fd::OwnedFd;
    static HELPER: OnceLock<Option<SyncSender<OwnedFd>>> = OnceLock::new();
    let helper = HELPER.get_or_init(|| {
        let (sender, files) = sync_channel::<OwnedFd>(WAITING);
        // At the normal priority: the call's rename is waiting for it to be done.
        let started = std::thread::Builder::new().name("writeback".into()).spawn(move || {
            for file in files {
                if let Err(e) = start_writeback(&file) {
                    tracing::debug!("writeback of a staged file is left to its rename: {e}");
                }
            }
        });
        match started {
            Ok(_) => Some(sender),
            Err(e) => {
                tracing::debug!("staged files are written back by their rename: {e}");
                None
            }
        }
    });
    // A handle of its own (a dup), so that the file may be renamed and closed meanwhile.
    if let Some(sender) = helper
        && let Ok(copy) = file.as_fd().try_clone_to_owned()
    {
        let _ = sender.try_send(copy);
    }
}

/// Elsewhere the rename (or the system) writes the file out as it always did.
#[cfg(not(target_os = "linux"))]
pub fn start(_file: &impl std::os::fd::AsFd) {}

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

    /// Starting the writeback changes nothing a reader sees.
    #[test]
    fn a_started_writeback_leaves_the_file_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(&vec![b'x'; 20_000]).unwrap();
        start_writeback(&file).unwrap();
        start(&file);
        drop(file);
        assert_eq!(std::fs::read(&path).unwrap(), vec![b'x'; 20_000]);
    }

    #[test]
    fn a_descriptor_that_is_not_a_file_is_an_error_not_a_panic() {
        let (reader, _writer) = std::io::pipe().unwrap();
        assert!(start_writeback(&reader).is_err());
        start(&reader);
    }
}
