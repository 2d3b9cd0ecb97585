//! The sandbox: every file operation of the server goes through the cap-std [`Dir`] of the root.
//!
//! cap-std resolves each path beneath the root in one `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`
//! call (or a checked component walk), so `..`, absolute symlinks, `/proc` magic links and a parent
//! swapped for a symlink mid-call cannot lead out of it. What cap-std does not cover, this module adds:
//! a hard-link guard for in-place writes (a link inside the root may share its inode with a file
//! outside), a refusal of FIFOs and devices (a read could block forever), and root-relative names in
//! every message. Paths are taken literally: never URL-decoded, tilde-expanded or Unicode-normalised.
//!
//! [`Workspace::open_root`] and [`Workspace::reserve`] are the only functions here that touch a host
//! path (ambient authority).
//!
//! Here: the root, the state directory kept out of reach, lookups and the opening of parents.
//! Beside it, one file per kind of operation: `path` (path arguments checked into
//! [`RootPath`]), `info` (what a file is), `read`, `replace` (atomic replaces), `append`,
//! `entries` (remove, rename, make directories, list), `temps` (the temporary files of
//! replaces, locked by their writer, and their sweep) and `errors` (I/O errors named by root
//! path).

mod append;
mod entries;
mod errors;
mod info;
mod path;
mod read;
mod replace;
mod spelling;
mod temps;

pub use append::AppendHandle;
pub use entries::WalkHandles;
pub(crate) use errors::require_file;
pub use info::{DirEntry, FileInfo, FileKind};
pub use path::RootPath;
pub(crate) use read::read_options;
pub use replace::{Replaced, Staged};
pub use temps::is_temp_name;

use std::io;
use std::path::{Component, Path, PathBuf};

use cap_fs_ext::MetadataExt;
use cap_std::ambient_authority;
use cap_std::fs::Dir;

use crate::error::{Error, Result};
use errors::{map_io, map_parent_error};

/// The sandbox root, opened once; every other operation is relative to it.
#[derive(Debug)]
pub struct Workspace {
    dir: Dir,
    /// The root as given on the command line, made absolute, and its canonical form: an absolute
    /// path argument is accepted when it lies under either.
    given_root: PathBuf,
    canonical_root: PathBuf,
    /// filewright's state directory when it lies inside the root: no tool may touch it.
    reserved: Option<Reserved>,
    /// `--durable`: every change is synced to disk, with its directory, before it is reported.
    durable: bool,
}

/// The state directory inside the root, by relative path (for a clear early refusal) and by
/// identity (device, inode), which also catches a symlink that leads into it.
#[derive(Debug)]
struct Reserved {
    relative: PathBuf,
    dev: u64,
    ino: u64,
}

impl Workspace {
    /// Opens `root` as the sandbox.
    ///
    /// # Ambient authority
    /// This is the one place the sandbox opens a host path (the state store opens its own, see
    /// `Store::open`); everything after goes through the returned handle. A missing root or
    /// one that is not a directory is an error for the caller to report at startup.
    pub fn open_root(root: &Path) -> anyhow::Result<Self> {
        use anyhow::Context;
        let given_root = std::path::absolute(root)
            .with_context(|| format!("cannot make the root {} absolute", root.display()))?;
        let meta = std::fs::metadata(&given_root)
            .with_context(|| format!("the root {} does not exist or cannot be read", root.display()))?;
        anyhow::ensure!(meta.is_dir(), "the root {} is not a directory", root.display());
        let canonical_root = std::fs::canonicalize(&given_root)
            .with_context(|| format!("cannot resolve the root {}", root.display()))?;
        let dir = Dir::open_ambient_dir(&canonical_root, ambient_authority())
            .with_context(|| format!("cannot open the root {}", root.display()))?;
        Ok(Workspace { dir, given_root, canonical_root, reserved: None, durable: false })
    }

    /// A second handle on the same root (for the temp sweep, which runs on its own thread).
    pub fn try_clone(&self) -> Result<Workspace> {
        let dir = self.dir.try_clone().map_err(|e| Error::Io { op: "open", path: ".".into(), source: e })?;
        let reserved =
            self.reserved.as_ref().map(|r| Reserved { relative: r.relative.clone(), dev: r.dev, ino: r.ino });
        Ok(Workspace {
            dir,
            given_root: self.given_root.clone(),
            canonical_root: self.canonical_root.clone(),
            reserved,
            durable: self.durable,
        })
    }

    /// Makes every change survive a power loss once it is reported (`--durable`): files are
    /// synced, and so is the directory whose entries a change created, replaced or removed.
    /// Without it, a change survives a kill of the process (it is atomic), but the last ones
    /// before a power loss may be lost: the kernel writes them out within seconds.
    pub fn set_durable(&mut self, durable: bool) {
        self.durable = durable;
    }

    /// Syncs `dir` when durable: its entries (a rename, a new or removed file) reach the disk.
    fn sync_dir(&self, dir: &Dir, path: &RootPath) -> Result<()> {
        if !self.durable {
            return Ok(());
        }
        // cap-std holds directories as O_PATH handles, which fsync refuses (EBADF): open the
        // directory itself for reading, through the handle, and sync that.
        use rustix::fs::{Mode, OFlags, fsync, openat};
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        openat(dir, ".", flags, Mode::empty())
            .and_then(|opened| fsync(&opened))
            .map_err(|e| map_io(io::Error::from(e), "sync the directory of", path))
    }

    /// Keeps `state_dir` (a host path, which must exist) out of every tool's reach when it
    /// lies inside the root. A state directory outside the root is unreachable anyway.
    ///
    /// # Ambient authority
    /// Canonicalizes the host path `state_dir` (to compare it with the root); it opens nothing.
    pub fn reserve(&mut self, state_dir: &Path) -> anyhow::Result<()> {
        let canonical = std::fs::canonicalize(state_dir)?;
        if let Ok(relative) = canonical.strip_prefix(&self.canonical_root) {
            let meta = self.dir.metadata(relative)?;
            self.reserved =
                Some(Reserved { relative: relative.to_path_buf(), dev: meta.dev(), ino: meta.ino() });
        }
        Ok(())
    }

    /// The canonical host path of the root (for logs, startup messages and the `file://` links
    /// in results; never opened through).
    pub fn host_root(&self) -> &Path {
        &self.canonical_root
    }

    /// Facts about the file at `path` (following symlinks that stay inside the root), or `None`
    /// when nothing is there.
    pub fn stat(&self, path: &RootPath) -> Result<Option<FileInfo>> {
        match self.dir.metadata(path.as_path()) {
            Ok(m) => Ok(Some(FileInfo::from_metadata(&m))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // A dangling symlink is "nothing there" for reads but must not be written through.
                match self.dir.symlink_metadata(path.as_path()) {
                    Ok(_) => Err(dangling(path)),
                    Err(_) => Ok(None),
                }
            }
            Err(e) => Err(map_io(e, "inspect", path)),
        }
    }

    /// When `path` is a symlink (to somewhere inside the root), the path of its target, links
    /// followed to the end; otherwise `path` itself. Writes go to the target, so a link is never
    /// replaced by a regular file. A link whose absolute text points inside the root is inside.
    pub fn follow(&self, path: &RootPath) -> Result<RootPath> {
        let mut current = path.clone();
        for _ in 0..path::MAX_LINK_HOPS {
            match self.dir.symlink_metadata(current.as_path()) {
                Ok(m) if m.file_type().is_symlink() => {}
                _ => return Ok(current),
            }
            let text =
                self.dir.read_link_contents(current.as_path()).map_err(|e| map_io(e, "resolve", path))?;
            let (parent, _) = current.split();
            let lexical = if text.is_absolute() {
                // Outside the root: cap-std refuses it when it is opened, as outside.
                let Some(inside) = self.link_inside(current.as_path()) else { return Ok(current) };
                Some(inside)
            } else if text.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir)) {
                Some(parent.join(&text))
            } else {
                None
            };
            current = match lexical {
                Some(target) => {
                    let parts: Vec<&std::ffi::OsStr> = target.iter().collect();
                    if parts.is_empty() {
                        return Err(Error::IsDirectory { path: path.display() });
                    }
                    self.settled(&parts, &path.display())?
                }
                // `..` in the text: the system's resolution, beneath the root, settles it.
                None => {
                    let target = self.dir.canonicalize(current.as_path()).map_err(|e| match e.kind() {
                        io::ErrorKind::NotFound => dangling(path),
                        _ => map_io(e, "resolve", path),
                    })?;
                    let parts: Vec<&std::ffi::OsStr> = target.iter().collect();
                    if parts.is_empty() {
                        return Err(Error::IsDirectory { path: path.display() });
                    }
                    self.settled(&parts, &path.display())?
                }
            };
        }
        Err(Error::InvalidPath { path: path.display(), reason: "its symbolic links loop".into() })
    }

    /// Facts about the root directory itself (which no [`RootPath`] names).
    pub fn root_info(&self) -> Result<FileInfo> {
        let meta =
            self.dir.dir_metadata().map_err(|e| Error::Io { op: "inspect", path: ".".into(), source: e })?;
        Ok(FileInfo::from_metadata(&meta))
    }

    /// Refuses a path that leads into the state directory, also through symlinks inside the
    /// root: the deepest existing part of the path is resolved (cap-std, beneath the root)
    /// and compared with the state directory. Writes also compare the opened parent's
    /// identity (see `open_parent`), which no swap can slip past.
    fn guard_reserved(&self, path: &RootPath) -> Result<()> {
        let Some(reserved) = &self.reserved else { return Ok(()) };
        let real = path.as_path().ancestors().find_map(|a| self.dir.canonicalize(a).ok());
        if real.is_some_and(|r| r.starts_with(&reserved.relative)) {
            return Err(Error::Reserved { path: path.display() });
        }
        Ok(())
    }

    /// Opens the directory holding `path`, creating it first when `create` is set.
    fn open_parent(&self, path: &RootPath, create: bool) -> Result<Dir> {
        if path.in_root() {
            return self.dir.try_clone().map_err(|e| map_io(e, "open the root for", path));
        }
        let (parent, _) = path.split();
        if create {
            self.dir.create_dir_all(parent).map_err(|e| map_parent_error(e, path))?;
        }
        let dir = self.dir.open_dir(parent).map_err(|e| map_parent_error(e, path))?;
        if let Some(reserved) = &self.reserved {
            let meta = dir.dir_metadata().map_err(|e| map_io(e, "inspect the parent of", path))?;
            if (meta.dev(), meta.ino()) == (reserved.dev, reserved.ino) {
                return Err(Error::Reserved { path: path.display() });
            }
        }
        Ok(dir)
    }
}

/// The refusal of a write through `path`, a symbolic link whose target does not exist.
fn dangling(path: &RootPath) -> Error {
    Error::InvalidPath {
        path: path.display(),
        reason: "it is a symbolic link whose target does not exist".into(),
    }
}

/// A workspace on a fresh temporary directory, for the core's unit tests.
#[cfg(test)]
pub(crate) fn temp_workspace() -> (tempfile::TempDir, Workspace) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let ws = Workspace::open_root(tmp.path()).expect("open root");
    (tmp, ws)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::temp_workspace as ws;

    #[test]
    fn a_durable_directory_sync_succeeds() {
        let (_t, mut ws) = ws();
        ws.set_durable(true);
        let path = ws.resolve("a/b.txt").unwrap();
        ws.replace(&path, b"one").unwrap();
        let parent = ws.open_parent(&path, false).unwrap();
        ws.sync_dir(&parent, &path).expect("the directory is synced");
        ws.sync_dir(&ws.dir, &path).expect("the root is synced");
    }

    #[test]
    fn symlink_out_of_the_root_is_outside() {
        let (t, ws) = ws();
        std::os::unix::fs::symlink("/etc", t.path().join("out")).unwrap();
        let p = ws.resolve("out/passwd").unwrap();
        assert!(matches!(ws.read(&p, 1 << 20), Err(Error::OutsideRoot { .. })));
        assert!(matches!(ws.replace(&p, b"x"), Err(Error::OutsideRoot { .. })));
    }

    #[test]
    fn parent_that_is_a_file_is_reported() {
        let (t, ws) = ws();
        std::fs::write(t.path().join("f"), b"x").unwrap();
        let err = ws.replace(&ws.resolve("f/g.txt").unwrap(), b"x").unwrap_err();
        assert!(matches!(err, Error::ParentNotDirectory { .. }), "{err:?}");
    }
}
