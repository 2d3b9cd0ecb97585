//! The hidden temporary files of atomic replaces: their names, the lock that says their
//! writer is alive, and the sweep of those a killed process left.
//!
//! A writer holds an exclusive `flock` on its temporary file from the moment it is created
//! until the file is renamed into place or removed ([`create`]); the kernel drops the lock
//! when the last descriptor closes, which a kill does too. The sweep removes a temporary file
//! only when it can take that lock itself, without waiting: a file whose writer still runs is
//! kept. A process id in the name cannot say as much: the id of a dead writer may belong to
//! another process by now, and a zombie's still answers signals, so such a file was kept for
//! ever. The name keeps the id only to tell a person whose file it was.

use std::io;
use std::path::PathBuf;

use cap_fs_ext::{FollowSymlinks, MetadataExt, OpenOptionsFollowExt};
use cap_std::fs::{Dir, File, OpenOptions};
use rustix::fs::{FlockOperation, flock};

use super::errors::map_io;
use super::{RootPath, Workspace};
use crate::error::Result;

/// How many times [`create`] makes a new temporary file when a sweep removed the one it had
/// just made before its lock was taken (a window of a few microseconds).
const CREATE_TRIES: usize = 3;

impl Workspace {
    /// Removes the temporary files of atomic replaces whose writer is gone (killed before it
    /// renamed them), anywhere under the root, looking at `budget` directory entries at most:
    /// those nobody holds the lock of (see the module's docs). Symlinks are not followed; the
    /// state directory and `.git` are skipped. Returns how many were removed.
    pub fn sweep_temps(&self, budget: usize) -> usize {
        let mut removed = 0;
        let mut seen = 0;
        let mut stack: Vec<PathBuf> = vec![PathBuf::new()];
        while let Some(relative) = stack.pop() {
            let opened = if relative.as_os_str().is_empty() {
                self.dir.try_clone()
            } else {
                self.dir.open_dir(&relative)
            };
            let Ok(dir) = opened else { continue };
            let Ok(entries) = dir.entries() else { continue };
            for entry in entries.flatten() {
                seen += 1;
                if seen > budget {
                    return removed;
                }
                let name = entry.file_name();
                let Ok(file_type) = entry.file_type() else { continue };
                if file_type.is_dir() {
                    let is_reserved = self.reserved.as_ref().is_some_and(|r| {
                        entry.metadata().is_ok_and(|m| (m.dev(), m.ino()) == (r.dev, r.ino))
                    });
                    if name != ".git" && !is_reserved {
                        stack.push(relative.join(&name));
                    }
                } else if file_type.is_file()
                    && name.to_str().is_some_and(is_temp_name)
                    && remove_if_abandoned(&dir, &name)
                {
                    removed += 1;
                }
            }
        }
        removed
    }
}

/// Removes the temporary file `name` of `dir` when no writer holds its lock, and says whether
/// it did. The lock is held while the name is removed, so that a writer that created the file
/// and has not locked it yet finds it gone once it has ([`create`] then makes another). A file
/// that cannot be opened or locked for another reason (a filesystem without `flock`) is kept.
fn remove_if_abandoned(dir: &Dir, name: &std::ffi::OsStr) -> bool {
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No);
    let Ok(file) = dir.open_with(name, &options) else { return false };
    if flock(&file, FlockOperation::NonBlockingLockExclusive).is_err() {
        return false;
    }
    dir.remove_file(name).is_ok()
}

/// Creates a new temporary file in `dir` for a replace of `path`, with its lock held (see the
/// module's docs), and returns it with its name. The lock goes with the file's last handle.
pub(super) fn create(dir: &Dir, path: &RootPath) -> Result<(File, String)> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true).follow(FollowSymlinks::No);
    let mut tries = 0;
    loop {
        let name = temp_name();
        let file =
            dir.open_with(&name, &options).map_err(|e| map_io(e, "create a temporary file for", path))?;
        // Blocks only while a sweep holds the lock of the file just made, to remove it.
        if let Err(e) = flock(&file, FlockOperation::LockExclusive) {
            // Without a lock a sweep cannot tell the file is in use, nor remove it (it cannot
            // take the lock either): the replace goes on.
            tracing::debug!("a temporary file could not be locked: {e}");
            return Ok((file, name));
        }
        tries += 1;
        match file.metadata() {
            // Still named: the lock is ours for the file's life.
            Ok(meta) if meta.nlink() > 0 => return Ok((file, name)),
            Ok(_) if tries < CREATE_TRIES => continue,
            Ok(_) => {
                let gone =
                    io::Error::new(io::ErrorKind::NotFound, "each temporary file made was swept at once");
                return Err(map_io(gone, "create a temporary file for", path));
            }
            Err(e) => {
                let _ = dir.remove_file(&name);
                return Err(map_io(e, "create a temporary file for", path));
            }
        }
    }
}

/// Temporary files of atomic replaces are named `.filewright-<pid>-<random>.tmp`.
const TEMP_PREFIX: &str = ".filewright-";
const TEMP_SUFFIX: &str = ".tmp";

/// A fresh temporary name for this process.
fn temp_name() -> String {
    use std::hash::{BuildHasher, Hasher};
    // RandomState is seeded randomly per instance: 64 random bits without a dependency.
    let random = std::collections::hash_map::RandomState::new().build_hasher().finish();
    // The process id once: each `std::process::id()` is a system call.
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    format!("{TEMP_PREFIX}{}-{random:016x}{TEMP_SUFFIX}", PID.get_or_init(std::process::id))
}

/// Whether `name` is one of filewright's temporary files (of any process).
pub fn is_temp_name(name: &str) -> bool {
    let Some(middle) = name.strip_prefix(TEMP_PREFIX).and_then(|n| n.strip_suffix(TEMP_SUFFIX)) else {
        return false;
    };
    let Some((pid, random)) = middle.split_once('-') else { return false };
    pid.parse::<u32>().is_ok() && random.len() == 16 && random.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::temp_workspace as ws;

    /// A process that has exited (and been reaped): its id is free for the system to reuse.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    /// Holds the lock of the file at `path` as a writer does, from a handle of its own.
    fn hold_lock(path: &std::path::Path) -> std::fs::File {
        let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        flock(&file, FlockOperation::LockExclusive).unwrap();
        file
    }

    #[test]
    fn temp_files_are_hidden_from_listings_and_swept_when_nobody_holds_their_lock() {
        let (t, ws) = ws();
        std::fs::create_dir_all(t.path().join("src/deep")).unwrap();
        // Its name says this process: a process id proves nothing, the lock does.
        let orphan = format!(".filewright-{}-0123456789abcdef.tmp", std::process::id());
        for p in [format!("src/deep/{orphan}"), orphan.clone(), ".filewright-notes.tmp".into()] {
            std::fs::write(t.path().join(p), "x").unwrap();
        }
        let names: Vec<String> = ws.list(None).unwrap().iter().map(|e| e.name().to_string()).collect();
        assert!(!names.iter().any(|n| is_temp_name(n)), "{names:?}");
        assert!(names.contains(&".filewright-notes.tmp".to_string()), "only our exact pattern is hidden");
        assert_eq!(ws.sweep_temps(1000), 2, "both orphans, at the top and deep down");
        assert!(!t.path().join(&orphan).exists() && !t.path().join("src/deep").join(&orphan).exists());
        assert!(t.path().join(".filewright-notes.tmp").exists());
    }

    #[test]
    fn a_temp_file_whose_writer_holds_its_lock_is_kept_though_its_pid_is_dead() {
        let (t, ws) = ws();
        let name = format!(".filewright-{}-fedcba9876543210.tmp", dead_pid());
        std::fs::write(t.path().join(&name), "x").unwrap();
        let writer = hold_lock(&t.path().join(&name));
        assert_eq!(ws.sweep_temps(1000), 0);
        assert!(t.path().join(&name).exists(), "a file in use was swept");
        drop(writer);
        assert_eq!(ws.sweep_temps(1000), 1, "the lock is gone with its writer");
        assert!(!t.path().join(&name).exists());
    }

    #[test]
    fn a_staged_file_is_kept_by_a_sweep_until_it_lands() {
        let (t, ws) = ws();
        let p = ws.resolve("f.txt").unwrap();
        let staged = ws.stage(&p, b"new", false).unwrap();
        assert_eq!(ws.sweep_temps(1000), 0, "the staged file was swept");
        ws.land(staged).unwrap();
        assert_eq!(std::fs::read(t.path().join("f.txt")).unwrap(), b"new");
    }

    #[test]
    fn a_temp_file_made_by_create_is_locked_for_its_life() {
        let (t, ws) = ws();
        let (file, name) = create(&ws.dir, &ws.resolve("f.txt").unwrap()).unwrap();
        let other = std::fs::File::open(t.path().join(&name)).unwrap();
        assert!(flock(&other, FlockOperation::NonBlockingLockExclusive).is_err(), "no lock is held");
        drop(file);
        assert!(flock(&other, FlockOperation::NonBlockingLockExclusive).is_ok());
    }
}
