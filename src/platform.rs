//! Whether the server uses the Linux-only calls it has, or the portable paths other Unix
//! systems take.
//!
//! A few calls make the server faster or safer on Linux and have no equal in POSIX; each one's
//! module keeps a portable path beside it, which other Unix systems (macOS, the BSDs) take:
//!
//! | Linux call | where | the portable path |
//! |---|---|---|
//! | `renameat2(RENAME_NOREPLACE)` | [`crate::workspace`], `move_file` | check that the target is absent, then `rename` |
//! | `O_PATH` handle on a replaced file | [`crate::workspace`] | its permissions looked up by name |
//! | `setpriority` of one thread | [`crate::background::lower_priority`] | background work at the normal priority |
//! | `statfs` filesystem type | `store::sqlite` | no warning about a network filesystem |
//! | `F_SETPIPE_SZ` on stdout | `main.rs` | the system's pipe size |
//! | `mallopt` (glibc: arenas, mmap and trim thresholds) | `main.rs` | the allocator's defaults |
//!
//! Those paths would be dead code on Linux, where the tests run, so a Linux build takes them
//! all when `FILEWRIGHT_PORTABLE` is set (`FILEWRIGHT_PORTABLE=1 cargo test` runs the whole
//! suite so): [`linux_calls`] is the one switch every site asks. The rename also falls back
//! per call on Linux, when a filesystem refuses the flag.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set once the Linux-only calls are switched off (see [`use_portable_paths`]).
static PORTABLE: AtomicBool = AtomicBool::new(false);

/// The environment variable that switches the Linux-only calls off: set to anything but
/// `0` or an empty value.
pub const PORTABLE_ENV: &str = "FILEWRIGHT_PORTABLE";

/// Whether to use the Linux-only calls: on Linux, unless [`use_portable_paths`] was called;
/// never elsewhere.
pub fn linux_calls() -> bool {
    cfg!(target_os = "linux") && !PORTABLE.load(Ordering::Relaxed)
}

/// Makes every site take its portable path from now on, as on another Unix system. Called by
/// the binary at start, before any file is touched, when [`PORTABLE_ENV`] asks for it.
pub fn use_portable_paths() {
    PORTABLE.store(true, Ordering::Relaxed);
}

/// Whether `value`, the value of [`PORTABLE_ENV`], asks for the portable paths.
pub fn asks_for_portable(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_value_other_than_empty_or_zero_asks_for_the_portable_paths() {
        assert!(!asks_for_portable(None));
        assert!(!asks_for_portable(Some("".as_ref())));
        assert!(!asks_for_portable(Some("0".as_ref())));
        assert!(asks_for_portable(Some("1".as_ref())));
        assert!(asks_for_portable(Some("yes".as_ref())));
    }
}
