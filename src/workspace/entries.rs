//! Changes to directory entries (remove, rename, make directories) and the listing of a
//! directory, all through the sandbox.

use std::io;
use std::path::PathBuf;

use cap_fs_ext::MetadataExt;
use cap_std::fs::Dir;

use super::errors::{map_io, require_file};
use super::temps::is_temp_name;
use super::{DirEntry, FileInfo, FileKind, RootPath, Workspace};
use crate::error::{Error, Result};

impl Workspace {
    /// Removes the regular file or the symbolic link at `path` (a link itself, as `rm` does,
    /// never what it points to; not a directory); a missing file is not an error.
    pub fn remove_file(&self, path: &RootPath) -> Result<()> {
        self.guard_reserved(path)?;
        if self.link_text(path)?.is_none() {
            match self.stat(path)? {
                Some(info) => require_file(path, &info)?,
                None => return Ok(()),
            }
        }
        let parent_dir = self.open_parent(path, false)?;
        let (_, name) = path.split();
        parent_dir.remove_file(name).map_err(|e| map_io(e, "remove", path))?;
        if let Err(e) = self.sync_dir(&parent_dir, path) {
            tracing::warn!("{e}");
        }
        Ok(())
    }

    /// Removes the empty directory at `path`; one with entries is [`Error::DirectoryNotEmpty`].
    pub fn remove_empty_dir(&self, path: &RootPath) -> Result<()> {
        self.guard_reserved(path)?;
        let entries = self.list(Some(path))?.len();
        if entries > 0 {
            return Err(Error::DirectoryNotEmpty { path: path.display(), entries });
        }
        self.dir.remove_dir(path.as_path()).map_err(|e| map_io(e, "remove", path))
    }

    /// Moves the regular file or symbolic link `from` to `to` in one rename, creating `to`'s
    /// missing parents; a link is moved itself with its text, as `mv` does. An existing `to`
    /// (a file, or a link, which is replaced, not written through) is replaced only with
    /// `overwrite`; without it the rename itself refuses (Linux: `RENAME_NOREPLACE`), so no
    /// file that appears meanwhile is lost.
    pub fn rename(&self, from: &RootPath, to: &RootPath, overwrite: bool) -> Result<()> {
        self.guard_reserved(from)?;
        self.guard_reserved(to)?;
        if self.link_text(from)?.is_none() {
            match self.stat(from)? {
                Some(info) => require_file(from, &info)?,
                None => return Err(Error::NotFound { path: from.display() }),
            }
        }
        let to_exists = match self.link_text(to)? {
            Some(_) => true,
            None => match self.stat(to)? {
                Some(info) => require_file(to, &info).map(|()| true)?,
                None => false,
            },
        };
        if to_exists && !overwrite {
            return Err(Error::AlreadyExists { path: to.display() });
        }
        let from_dir = self.open_parent(from, false)?;
        let to_dir = self.open_parent(to, true)?;
        let ((_, from_name), (_, to_name)) = (from.split(), to.split());
        let moved = !overwrite && rename_without_replacing(&from_dir, from_name, &to_dir, to_name, from, to)?;
        if !moved {
            // Without `overwrite`, the portable path: `to` is checked again right before the
            // rename, which would replace a file created in between (the window Linux's flag
            // closes).
            if !overwrite && to_dir.symlink_metadata(to_name).is_ok() {
                return Err(Error::AlreadyExists { path: to.display() });
            }
            from_dir.rename(from_name, &to_dir, to_name).map_err(|e| map_io(e, "move", from))?;
        }
        for (dir, path) in [(&to_dir, to), (&from_dir, from)] {
            if let Err(e) = self.sync_dir(dir, path) {
                tracing::warn!("{e}");
            }
        }
        Ok(())
    }

    /// The text of the symbolic link at `path` (not followed), as bytes (what the journal keeps
    /// and [`Workspace::create_link`] takes back), or None when `path` is not a link (or does
    /// not exist).
    pub fn link_text(&self, path: &RootPath) -> Result<Option<Vec<u8>>> {
        match self.dir.symlink_metadata(path.as_path()) {
            Ok(m) if m.file_type().is_symlink() => self
                .dir
                .read_link_contents(path.as_path())
                .map(|text| Some(text.into_os_string().into_encoded_bytes()))
                .map_err(|e| map_io(e, "read the link", path)),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(map_io(e, "inspect", path)),
        }
    }

    /// Creates a symbolic link at `path` whose text is `text` (what `undo` puts back after a
    /// link was deleted or moved), creating missing parents; nothing may be at `path`. The
    /// text is data: whatever it points to, every later use of the link is resolved beneath
    /// the root.
    pub fn create_link(&self, path: &RootPath, text: &[u8]) -> Result<()> {
        use std::os::unix::ffi::OsStrExt;
        let text = std::path::Path::new(std::ffi::OsStr::from_bytes(text));
        self.guard_reserved(path)?;
        let parent_dir = self.open_parent(path, true)?;
        let (_, name) = path.split();
        parent_dir.symlink_contents(text, name).map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => Error::AlreadyExists { path: path.display() },
            _ => map_io(e, "create the link", path),
        })?;
        if let Err(e) = self.sync_dir(&parent_dir, path) {
            tracing::warn!("{e}");
        }
        Ok(())
    }

    /// Creates the directory `path` with its missing parents, one component at a time beneath
    /// the root (cap-std: no `..` or symlink leads out). Returns the directories created,
    /// outermost first: none when `path` already was a directory (or a symlink inside the root
    /// to one). Something other than a directory on the way is [`Error::FileInTheWay`]; a
    /// directory created by another process meanwhile is taken as it is.
    pub fn create_dirs(&self, path: &RootPath) -> Result<Vec<RootPath>> {
        self.guard_reserved(path)?;
        let mut created = Vec::new();
        let mut prefix = PathBuf::new();
        for component in path.as_path().components() {
            prefix.push(component);
            let here = RootPath(prefix.clone());
            let in_the_way = |info: &FileInfo| Error::FileInTheWay {
                path: path.display(),
                blocking: here.display(),
                what: match info.kind {
                    FileKind::File => "a file",
                    _ => "a FIFO, socket or device",
                },
            };
            match self.stat(&here)? {
                Some(info) if info.kind == FileKind::Directory => continue,
                Some(info) => return Err(in_the_way(&info)),
                None => {}
            }
            match self.dir.create_dir(&prefix) {
                Ok(()) => created.push(here),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match self.stat(&here)? {
                    Some(info) if info.kind == FileKind::Directory => {}
                    Some(info) => return Err(in_the_way(&info)),
                    None => return Err(map_io(e, "create the directory", &here)),
                },
                Err(e) => return Err(map_io(e, "create the directory", &here)),
            }
        }
        if let Some(first) = created.first() {
            // The outermost new directory's entry is what a power loss could lose.
            let synced = self.open_parent(first, false).and_then(|parent| self.sync_dir(&parent, first));
            if let Err(e) = synced {
                tracing::warn!("{e}");
            }
        }
        Ok(created)
    }

    /// The entries of directory `dir` (the root when None), without following symlinks:
    /// a symlink is listed as such, never entered. The state directory is left out. Each
    /// entry has depth 1; a listing that descends sets the depth of deeper ones.
    pub fn list(&self, dir: Option<&RootPath>) -> Result<Vec<DirEntry>> {
        let display = dir.map(RootPath::display).unwrap_or_else(|| ".".into());
        let io_err = |e: io::Error| match dir {
            Some(d) => map_io(e, "list", d),
            None => Error::Io { op: "list", path: display.clone(), source: e },
        };
        let opened = self.open_listed(dir)?;
        let mut items = Vec::new();
        for entry in opened.entries().map_err(io_err)? {
            let entry = entry.map_err(io_err)?;
            // Another write's temporary file: never shown, never walked into.
            if entry.file_name().to_str().is_some_and(is_temp_name) {
                continue;
            }
            let file_type = entry.file_type().map_err(io_err)?;
            let meta = entry.metadata().ok();
            if file_type.is_dir()
                && let (Some(reserved), Some(m)) = (&self.reserved, &meta)
                && (m.dev(), m.ino()) == (reserved.dev, reserved.ino)
            {
                continue;
            }
            let kind = FileKind::of(file_type);
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(path) = (match dir {
                Some(d) => Some(d.child(&name)),
                None => RootPath::from_name(&name),
            }) else {
                continue;
            };
            let size = meta.filter(|_| kind == FileKind::File).map(|m| m.len());
            items.push(DirEntry { path, kind, size, depth: 1 });
        }
        Ok(items)
    }

    /// Handles for a walk of the tree below `dir` (the root when None) that opens what lies
    /// below it itself, from several threads at once (see `files::tree`). `dir` is checked and
    /// opened as [`Workspace::list`] opens it.
    pub fn walk_handles(&self, dir: Option<&RootPath>) -> Result<WalkHandles> {
        let start = self.open_listed(dir)?;
        let root = self.dir.try_clone().map_err(|e| Error::Io { op: "open", path: ".".into(), source: e })?;
        let state_dir = self.reserved.as_ref().map(|r| (r.dev, r.ino));
        Ok(WalkHandles { root, start, state_dir })
    }

    /// The directory `dir` (the root when None), opened to be listed: not the state
    /// directory, not a file (an error that says to read it instead).
    fn open_listed(&self, dir: Option<&RootPath>) -> Result<Dir> {
        let Some(d) = dir else {
            return self.dir.try_clone().map_err(|e| Error::Io { op: "list", path: ".".into(), source: e });
        };
        self.guard_reserved(d)?;
        if let Some(info) = self.stat(d)?
            && info.kind != FileKind::Directory
        {
            return Err(Error::InvalidArgument {
                name: "path",
                reason: format!("{d} is a file, not a directory: read it with read_file"),
            });
        }
        self.dir.open_dir(d.as_path()).map_err(|e| map_io(e, "list", d))
    }
}

/// Renames `from_name` in `from_dir` to `to_name` in `to_dir` unless that exists, in one
/// step (Linux's `RENAME_NOREPLACE`): true when done, false when the caller must take the
/// portable path, because the platform has no such rename ([`crate::platform::linux_calls`])
/// or the filesystem refuses the flag (`EINVAL`: some network and FUSE filesystems).
#[cfg(target_os = "linux")]
fn rename_without_replacing(
    from_dir: &Dir,
    from_name: &std::ffi::OsStr,
    to_dir: &Dir,
    to_name: &std::ffi::OsStr,
    from: &RootPath,
    to: &RootPath,
) -> Result<bool> {
    use rustix::fs::{RenameFlags, renameat_with};
    if !crate::platform::linux_calls() {
        return Ok(false);
    }
    match renameat_with(from_dir, from_name, to_dir, to_name, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::EXIST) => Err(Error::AlreadyExists { path: to.display() }),
        Err(rustix::io::Errno::INVAL) => Ok(false),
        Err(e) => Err(map_io(io::Error::from(e), "move", from)),
    }
}

/// Elsewhere the caller takes the portable path.
#[cfg(not(target_os = "linux"))]
fn rename_without_replacing(
    _: &Dir,
    _: &std::ffi::OsStr,
    _: &Dir,
    _: &std::ffi::OsStr,
    _: &RootPath,
    _: &RootPath,
) -> Result<bool> {
    Ok(false)
}

/// What a walk of a tree opens everything through ([`Workspace::walk_handles`]).
#[derive(Debug)]
pub struct WalkHandles {
    /// A handle on the root: cap-std resolves every path the walk opens beneath it.
    pub root: Dir,
    /// The directory walked (the root, or a directory under it, reached as `list` reaches it).
    pub start: Dir,
    /// The state directory's device and inode when it lies inside the root: the walk must
    /// leave it out, as [`Workspace::list`] does.
    pub state_dir: Option<(u64, u64)>,
}
