//! Atomic replaces: new content is written into a hidden temporary file beside its target
//! ([`Workspace::stage`]), then renamed over it ([`Workspace::land`]), so a reader sees the old
//! content or the new, never a mix. The temporary file is named and locked by
//! [`super::temps`] for as long as it lives.

use std::io::{self, Write};

use cap_std::fs::{Dir, File};

use super::errors::{map_io, require_file};
use super::{FileInfo, RootPath, Workspace, temps};
use crate::error::{Error, Result};

impl Workspace {
    /// Replaces (or creates) the file with `bytes` atomically: a temporary file in the same
    /// directory is written, synced and renamed over the target, so a reader sees the old
    /// content or the new, never a mix. Missing parent directories are created. A replaced
    /// file keeps its permissions. [`Workspace::stage`] and
    /// [`Workspace::land`] are its two halves, for a caller with work to do in between.
    pub fn replace(&self, path: &RootPath, bytes: &[u8]) -> Result<Replaced> {
        let staged = self.stage(path, bytes, true)?;
        self.land(staged)
    }

    /// The first half of [`Workspace::replace`]: writes `bytes` into a temporary file beside
    /// `path`, without touching `path` itself. Missing parent directories are created only with `create_parents` (a caller
    /// that stages before it holds the claim must leave nothing behind when refused). The
    /// temporary file is removed when the [`Staged`] is dropped without landing.
    pub fn stage(&self, path: &RootPath, bytes: &[u8], create_parents: bool) -> Result<Staged> {
        self.guard_reserved(path)?;
        let parent_dir = match self.open_parent(path, create_parents) {
            Ok(dir) => dir,
            // A lookup says why better (a link out of the root, a file on the way).
            Err(e) => {
                self.stat(path)?;
                return Err(e);
            }
        };
        // A hidden name, locked while it lives: listings never show it, and a start sweeps
        // the ones whose process died between creating and renaming them (see `temps`).
        let (mut tmp, tmp_name) = temps::create(&parent_dir, path)?;
        if let Err(e) = tmp.write_all(bytes) {
            let _ = parent_dir.remove_file(&tmp_name);
            return Err(map_io(e, "write", path));
        }
        Ok(Staged { dir: parent_dir, tmp_name, path: path.clone(), tmp, landed: false })
    }

    /// The second half of [`Workspace::replace`]: gives the staged file the permissions of
    /// the file it replaces (if any), syncs it when durable, and renames it into place.
    pub fn land(&self, mut staged: Staged) -> Result<Replaced> {
        let (path, tmp, parent_dir) = (&staged.path, &staged.tmp, &staged.dir);
        let (_, name) = path.split();
        // The file being replaced, held for its permissions (one lookup instead of two).
        let replaced = hold(parent_dir, name);
        // A regular file held tells its permissions; anything else (nothing there, a link,
        // a directory, a name that could not be held) is looked up by path.
        let permissions = match replaced.as_ref().and_then(held_permissions) {
            Some(permissions) => Some(permissions),
            None => match self.stat(path)? {
                Some(info) => {
                    require_file(path, &info)?;
                    Some(parent_dir.metadata(name).map_err(|e| map_io(e, "inspect", path))?.permissions())
                }
                None => None,
            },
        };
        let existed = permissions.is_some();
        let written = (|| {
            if let Some(perms) = permissions {
                tmp.set_permissions(perms).map_err(|e| map_io(e, "set permissions of", path))?;
            }
            if self.durable {
                tmp.sync_all().map_err(|e| map_io(e, "sync", path))?;
            }
            parent_dir
                .rename(&staged.tmp_name, parent_dir, name)
                .map_err(|e| map_io(e, "rename into place", path))
        })();
        // On an error the temporary file goes when `staged` is dropped.
        written?;
        staged.landed = true;
        // Its blocks are freed as the last reference goes.
        drop(replaced);
        // The temporary file is now the file at `path`: its handle tells its version without
        // a lookup. Nothing is written to it after this.
        let now = tmp.metadata().ok().map(|m| FileInfo::from_metadata(&m));
        // The file is in place: a failed directory sync must not report "nothing written".
        if let Err(e) = self.sync_dir(parent_dir, path) {
            tracing::warn!("{e}");
        }
        Ok(Replaced { created: !existed, now })
    }

    /// Whether the directory `staged` was written in is still the parent of its path: the
    /// caller may have waited for the store between the two halves, and a directory renamed
    /// or replaced meanwhile would take the file somewhere else. False when the parent is
    /// gone or cannot be compared.
    pub fn still_beside(&self, staged: &Staged) -> bool {
        // A file of the root was staged through a second handle on the root itself, which
        // no rename can take elsewhere.
        if staged.path.in_root() {
            return true;
        }
        let identity = |dir: &Dir| rustix::fs::fstat(dir).ok().map(|s| (s.st_dev, s.st_ino));
        match self.open_parent(&staged.path, false) {
            Ok(now) => identity(&now).is_some_and(|now| Some(now) == identity(&staged.dir)),
            Err(_) => false,
        }
    }

    /// Writes `bytes` as the regular file `path` with the permission bits `mode` (`0o777` of
    /// it; set-user-ID and the like are dropped), atomically: staged beside it, then renamed
    /// into place; missing parents are created. An existing file is replaced only with
    /// `overwrite` (never a directory); without it the rename itself refuses (Linux:
    /// `RENAME_NOREPLACE`), so a file that appears meanwhile is not lost.
    pub fn put(&self, path: &RootPath, bytes: &[u8], mode: u32, overwrite: bool) -> Result<Replaced> {
        let existed = match self.stat(path)? {
            Some(info) => {
                require_file(path, &info)?;
                if !overwrite {
                    return Err(Error::AlreadyExists { path: path.display() });
                }
                true
            }
            None => false,
        };
        let mut staged = self.stage(path, bytes, true)?;
        let permissions = std::os::unix::fs::PermissionsExt::from_mode(mode & 0o777);
        staged
            .tmp
            .set_permissions(cap_std::fs::Permissions::from_std(permissions))
            .map_err(|e| map_io(e, "set permissions of", path))?;
        if self.durable {
            staged.tmp.sync_all().map_err(|e| map_io(e, "sync", path))?;
        }
        let (_, name) = path.split();
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{RenameFlags, renameat_with};
            let flags = if overwrite { RenameFlags::empty() } else { RenameFlags::NOREPLACE };
            renameat_with(&staged.dir, staged.tmp_name.as_str(), &staged.dir, name, flags).map_err(|e| {
                match e {
                    rustix::io::Errno::EXIST => Error::AlreadyExists { path: path.display() },
                    e => map_io(io::Error::from(e), "rename into place", path),
                }
            })?;
        }
        #[cfg(not(target_os = "linux"))]
        {
            staged
                .dir
                .rename(&staged.tmp_name, &staged.dir, name)
                .map_err(|e| map_io(e, "rename into place", path))?;
        }
        staged.landed = true;
        let now = staged.tmp.metadata().ok().map(|m| FileInfo::from_metadata(&m));
        if let Err(e) = self.sync_dir(&staged.dir, path) {
            tracing::warn!("{e}");
        }
        Ok(Replaced { created: !existed, now })
    }
}

/// A handle on the inode of `name` in `dir` that does not open it for reading or writing
/// (`O_PATH`, so a FIFO or device put there meanwhile is not opened either). None when it
/// cannot be had: the replace then looks the old file's permissions up by name.
#[cfg(target_os = "linux")]
fn hold(dir: &Dir, name: &std::ffi::OsStr) -> Option<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags, openat};
    if !crate::platform::linux_calls() {
        return None;
    }
    openat(dir, name, OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty()).ok()
}

#[cfg(not(target_os = "linux"))]
fn hold(_dir: &Dir, _name: &std::ffi::OsStr) -> Option<()> {
    None
}

/// The permissions of a regular file held by [`hold`] (None for anything else: the caller
/// then looks them up by name).
#[cfg(target_os = "linux")]
fn held_permissions(held: &std::os::fd::OwnedFd) -> Option<cap_std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    let stat = rustix::fs::fstat(held).ok()?;
    let file_type = rustix::fs::FileType::from_raw_mode(stat.st_mode);
    (file_type == rustix::fs::FileType::RegularFile)
        .then(|| cap_std::fs::Permissions::from_std(std::fs::Permissions::from_mode(stat.st_mode & 0o7777)))
}

#[cfg(not(target_os = "linux"))]
fn held_permissions(_held: &()) -> Option<cap_std::fs::Permissions> {
    None
}

/// New content written beside its file by [`Workspace::stage`], for [`Workspace::land`] to
/// put in place. Dropped without landing, it removes its temporary file.
pub struct Staged {
    dir: Dir,
    tmp_name: String,
    path: RootPath,
    /// The temporary file, open for writing.
    tmp: File,
    /// Renamed into place: nothing is left to remove.
    landed: bool,
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.landed {
            let _ = self.dir.remove_file(&self.tmp_name);
        }
    }
}

/// What [`Workspace::replace`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replaced {
    /// The file did not exist before.
    pub created: bool,
    /// The new file's version, read from its handle (None when that failed).
    pub now: Option<FileInfo>,
}

#[cfg(test)]
mod tests {
    use crate::workspace::temp_workspace as ws;

    #[test]
    fn a_replace_leaves_no_temporary_file() {
        let (t, ws) = ws();
        let path = ws.resolve("a/b.txt").unwrap();
        ws.replace(&path, b"one").unwrap();
        ws.replace(&path, b"two").unwrap();
        let names: Vec<_> =
            std::fs::read_dir(t.path().join("a")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["b.txt"]);
    }

    #[test]
    fn a_replace_keeps_the_replaced_files_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let (t, ws) = ws();
        let path = ws.resolve("a/b.txt").unwrap();
        assert!(ws.replace(&path, b"one").unwrap().created);
        std::fs::set_permissions(t.path().join("a/b.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
        let replaced = ws.replace(&path, b"two, longer").unwrap();
        assert!(!replaced.created);
        let meta = std::fs::metadata(t.path().join("a/b.txt")).unwrap();
        assert_eq!(std::fs::read(t.path().join("a/b.txt")).unwrap(), b"two, longer");
        assert_eq!(meta.permissions().mode() & 0o777, 0o640, "the replaced file's permissions are kept");
        assert_eq!(replaced.now.map(|n| n.size), Some(11));
    }

    #[test]
    fn replace_creates_parents_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let (t, ws) = ws();
        let p = ws.resolve("deep/er/f.sh").unwrap();
        assert!(ws.replace(&p, b"one").unwrap().created);
        let host = t.path().join("deep/er/f.sh");
        std::fs::set_permissions(&host, std::fs::Permissions::from_mode(0o751)).unwrap();
        assert!(!ws.replace(&p, b"two").unwrap().created);
        assert_eq!(std::fs::read(&host).unwrap(), b"two");
        assert_eq!(std::fs::metadata(&host).unwrap().permissions().mode() & 0o777, 0o751);
    }

    /// The names in the root's top directory, hidden temporary files included.
    fn names(t: &tempfile::TempDir) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(t.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_staged_file_changes_nothing_until_it_lands() {
        let (t, ws) = ws();
        let p = ws.resolve("f.txt").unwrap();
        ws.replace(&p, b"old").unwrap();
        let staged = ws.stage(&p, b"new", false).unwrap();
        assert_eq!(std::fs::read(t.path().join("f.txt")).unwrap(), b"old");
        let replaced = ws.land(staged).unwrap();
        assert!(!replaced.created);
        assert_eq!(std::fs::read(t.path().join("f.txt")).unwrap(), b"new");
        assert_eq!(names(&t), ["f.txt"], "the temporary file became f.txt");
    }

    #[test]
    fn a_staged_file_dropped_or_refused_leaves_nothing_behind() {
        let (t, ws) = ws();
        let p = ws.resolve("f.txt").unwrap();
        ws.replace(&p, b"old").unwrap();
        let staged = ws.stage(&p, b"new", false).unwrap();
        assert_eq!(names(&t).len(), 2, "the staged file sits beside f.txt: {:?}", names(&t));
        drop(staged);
        assert_eq!(names(&t), ["f.txt"]);
        // The target turned into a directory before the rename: the landing fails whole.
        let staged = ws.stage(&p, b"new", false).unwrap();
        std::fs::remove_file(t.path().join("f.txt")).unwrap();
        std::fs::create_dir(t.path().join("f.txt")).unwrap();
        assert!(ws.land(staged).is_err());
        assert_eq!(names(&t), ["f.txt"]);
        assert!(t.path().join("f.txt").is_dir());
    }

    #[test]
    fn a_staged_file_knows_when_its_directory_moved() {
        let (t, ws) = ws();
        std::fs::create_dir(t.path().join("d")).unwrap();
        let p = ws.resolve("d/f.txt").unwrap();
        let staged = ws.stage(&p, b"x", false).unwrap();
        assert!(ws.still_beside(&staged));
        std::fs::rename(t.path().join("d"), t.path().join("moved")).unwrap();
        assert!(!ws.still_beside(&staged), "d is gone");
        std::fs::create_dir(t.path().join("d")).unwrap();
        assert!(!ws.still_beside(&staged), "d is another directory now");
    }

    #[test]
    fn staging_creates_no_parent_unless_asked() {
        let (t, ws) = ws();
        let p = ws.resolve("a/b/f.txt").unwrap();
        assert!(ws.stage(&p, b"x", false).is_err());
        assert!(!t.path().join("a").exists());
        let staged = ws.stage(&p, b"x", true).unwrap();
        assert!(ws.land(staged).unwrap().created);
        assert_eq!(std::fs::read(t.path().join("a/b/f.txt")).unwrap(), b"x");
    }

    #[test]
    fn replace_reports_the_version_a_lookup_then_sees() {
        let (_t, ws) = ws();
        let p = ws.resolve("v.txt").unwrap();
        for content in [&b"one"[..], b"second text", b""] {
            let replaced = ws.replace(&p, content).unwrap();
            assert_eq!(replaced.now, ws.stat(&p).unwrap());
            assert_eq!(replaced.now.unwrap().size, content.len() as u64);
        }
    }

    #[test]
    fn new_files_are_writable_by_their_owner() {
        use std::os::unix::fs::PermissionsExt;
        let (t, ws) = ws();
        ws.replace(&ws.resolve("n.txt").unwrap(), b"x").unwrap();
        let mode = std::fs::metadata(t.path().join("n.txt")).unwrap().permissions().mode();
        assert_eq!(mode & 0o600, 0o600, "mode {mode:o}");
    }
}
