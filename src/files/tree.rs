//! The sandboxed handles a parallel walk works through: each of its threads opens one
//! directory at a time, by its path beneath the root, and what it holds by name in that
//! directory.
//!
//! Every directory below the walked one is opened with cap-std beneath the root and without
//! following a symlink at its end (`O_NOFOLLOW`); every file by its single name in that
//! handle, again without following a symlink. So a walk reaches only what lies in the root,
//! even when a directory is swapped for a symlink while it runs, and never enters a symlink.
//! Jobs hold paths, not handles: a thread holds one directory and one file open at a time, so
//! a walk on N threads keeps at most 2N descriptors open, however large the tree.

use std::ffi::OsStr;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::Dir;
use cap_std::fs::OpenOptionsExt;

use crate::error::{Error, Result};
use crate::workspace::{self, FileInfo, FileKind, RootPath, WalkHandles, Workspace, is_temp_name};

/// The tree below one directory, as a walk opens it.
#[derive(Debug)]
pub struct Tree {
    handles: WalkHandles,
    /// The walked directory (the root when None).
    start: Option<RootPath>,
}

/// One entry of a directory: its name and what it is (a symlink is a symlink, never followed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The name, lossily decoded when it is not UTF-8.
    pub name: String,
    /// What it is.
    pub kind: FileKind,
}

/// One directory of the tree, open.
#[derive(Debug)]
pub struct TreeDir<'a> {
    tree: &'a Tree,
    /// None for the walked directory itself, which the tree holds open.
    own: Option<Dir>,
}

impl Tree {
    /// The tree below `dir` (the root when None), checked and opened as `list_directory`
    /// opens it.
    pub fn open(ws: &Workspace, dir: Option<&RootPath>) -> Result<Tree> {
        Ok(Tree { handles: ws.walk_handles(dir)?, start: dir.cloned() })
    }

    /// The walked directory.
    pub fn start(&self) -> Option<&RootPath> {
        self.start.as_ref()
    }

    /// The directory at `path`: the walked one, or one below it, which must be a directory
    /// and not a symlink.
    pub fn dir(&self, path: Option<&RootPath>) -> io::Result<TreeDir<'_>> {
        if path == self.start.as_ref() {
            return Ok(TreeDir { tree: self, own: None });
        }
        let Some(path) = path else { return Err(io::ErrorKind::NotFound.into()) };
        // Opened to be read (cap-std would open a plain O_PATH handle), so that listing it
        // needs no second open.
        let mut options = cap_std::fs::OpenOptions::new();
        options
            .read(true)
            .custom_flags(rustix::fs::OFlags::DIRECTORY.bits() as i32)
            .follow(FollowSymlinks::No);
        let opened = self.handles.root.open_with(path.as_path(), &options)?;
        Ok(TreeDir { tree: self, own: Some(Dir::from_std_file(opened.into_std())) })
    }
}

impl TreeDir<'_> {
    fn handle(&self) -> &Dir {
        self.own.as_ref().unwrap_or(&self.tree.handles.start)
    }

    /// The directory's entries, in the order the file system gives them. Like
    /// [`Workspace::list`], it leaves out the temporary files of writes in progress and the
    /// state directory.
    pub fn entries(&self) -> io::Result<Vec<Entry>> {
        use rustix::fs::{FileType, Mode, OFlags};
        let opened;
        let readable = match &self.own {
            Some(own) => own.as_fd(),
            // cap-std holds the walked directory as an O_PATH handle, which cannot be read:
            // open the directory itself, through the handle.
            None => {
                let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
                opened = rustix::fs::openat(self.handle(), ".", flags, Mode::empty())?;
                opened.as_fd()
            }
        };
        let mut entries = Vec::new();
        each_entry(readable, &mut |bytes, file_type| {
            if bytes == b"." || bytes == b".." {
                return Ok(());
            }
            let name = String::from_utf8_lossy(bytes).into_owned();
            if is_temp_name(&name) {
                return Ok(());
            }
            let kind = match file_type {
                FileType::RegularFile => FileKind::File,
                FileType::Directory => FileKind::Directory,
                FileType::Symlink => FileKind::Symlink,
                FileType::Unknown => self.kind_of(OsStr::from_bytes(bytes))?,
                _ => FileKind::Other,
            };
            if kind == FileKind::Directory && self.is_state_dir(OsStr::from_bytes(bytes)) {
                return Ok(());
            }
            entries.push(Entry { name, kind });
            Ok(())
        })?;
        Ok(entries)
    }

    /// What `name` is, when the directory listing did not say (some file systems do not).
    fn kind_of(&self, name: &OsStr) -> io::Result<FileKind> {
        Ok(FileKind::of(self.handle().symlink_metadata(name)?.file_type()))
    }

    fn is_state_dir(&self, name: &OsStr) -> bool {
        use cap_fs_ext::MetadataExt;
        let Some(state_dir) = self.tree.handles.state_dir else { return false };
        self.handle().symlink_metadata(name).is_ok_and(|m| (m.dev(), m.ino()) == state_dir)
    }

    /// Facts about the file `name` in this directory, without following a symlink.
    pub fn stat(&self, name: &str) -> io::Result<FileInfo> {
        Ok(FileInfo::from_metadata(&self.handle().symlink_metadata(name)?))
    }

    /// Reads the regular file `name` in this directory (at `path`) into `bytes`, refusing
    /// anything larger than `limit` bytes ([`Error::TooLargeToRead`]) and anything that is not
    /// a regular file, a symlink included. Of a file larger than [`FIRST_READ`], that much is
    /// read first and shown to `enough`: when it says the start is enough, the rest is not read
    /// and the result is [`Read::Start`].
    pub fn read(
        &self,
        name: &str,
        path: &RootPath,
        limit: u64,
        bytes: &mut Vec<u8>,
        enough: &dyn Fn(&[u8]) -> bool,
    ) -> Result<Read> {
        let file = self.handle().open_with(name, &no_follow_read());
        read_opened(file, path, limit, bytes, enough)
    }
}

impl Tree {
    /// [`TreeDir::read`] for the file at `path`, which need not be in a directory open: the
    /// path is resolved beneath the root, and a symlink at its end is refused.
    pub fn read(
        &self,
        path: &RootPath,
        limit: u64,
        bytes: &mut Vec<u8>,
        enough: &dyn Fn(&[u8]) -> bool,
    ) -> Result<Read> {
        let file = self.handles.root.open_with(path.as_path(), &no_follow_read());
        read_opened(file, path, limit, bytes, enough)
    }
}

fn no_follow_read() -> cap_std::fs::OpenOptions {
    let mut options = workspace::read_options();
    options.follow(FollowSymlinks::No);
    options
}

/// The rest of [`TreeDir::read`], once `file` is open (or not).
fn read_opened(
    file: io::Result<cap_std::fs::File>,
    path: &RootPath,
    limit: u64,
    bytes: &mut Vec<u8>,
    enough: &dyn Fn(&[u8]) -> bool,
) -> Result<Read> {
    let file = file.map_err(|e| Error::Io { op: "open", path: path.display(), source: e })?;
    let meta = file.metadata().map_err(|e| Error::Io { op: "inspect", path: path.display(), source: e })?;
    let info = FileInfo::from_metadata(&meta);
    workspace::require_file(path, &info)?;
    let too_large = |size| Error::TooLargeToRead { path: path.display(), size, limit };
    let read_error = |e: rustix::io::Errno| Error::Io { op: "read", path: path.display(), source: e.into() };
    bytes.clear();
    if info.size > limit {
        return Err(too_large(info.size));
    }
    if info.size > FIRST_READ as u64 {
        bytes.reserve(FIRST_READ);
        if read_some(&file, bytes, FIRST_READ).map_err(read_error)? && enough(bytes) {
            return Ok(Read::Start);
        }
    }
    // One byte more than the size, so that the read that finds the end needs no more memory.
    bytes.reserve((info.size as usize + 1).saturating_sub(bytes.len()));
    // It may have grown since it was inspected.
    let past_limit = usize::try_from(limit).unwrap_or(usize::MAX).saturating_add(1);
    if read_some(&file, bytes, past_limit).map_err(read_error)? {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(Read::Whole)
}

/// Calls `each` with the name and type of every entry of the directory open for reading as
/// `dir`, from its start. On Linux straight from `getdents64` into a buffer on the stack,
/// without a second descriptor or an allocation per entry.
#[cfg(target_os = "linux")]
fn each_entry(
    dir: BorrowedFd,
    each: &mut dyn FnMut(&[u8], rustix::fs::FileType) -> io::Result<()>,
) -> io::Result<()> {
    let mut buffer = [MaybeUninit::<u8>::uninit(); 16 * 1024];
    let mut raw = rustix::fs::RawDir::new(dir, &mut buffer);
    while let Some(entry) = raw.next() {
        let entry = entry?;
        each(entry.file_name().to_bytes(), entry.file_type())?;
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn each_entry(
    dir: BorrowedFd,
    each: &mut dyn FnMut(&[u8], rustix::fs::FileType) -> io::Result<()>,
) -> io::Result<()> {
    let mut listing = rustix::fs::Dir::read_from(dir)?;
    while let Some(entry) = listing.read() {
        let entry = entry?;
        each(entry.file_name().to_bytes(), entry.file_type())?;
    }
    Ok(())
}

/// Bytes read at first of a larger file, for [`TreeDir::read`]'s `enough`: as much as
/// ripgrep looks at before it decides that a file is binary.
pub const FIRST_READ: usize = 64 * 1024;

/// How much of a file [`TreeDir::read`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// All of it.
    Whole,
    /// Its first [`FIRST_READ`] bytes, which were enough for the caller.
    Start,
}

/// Reads from `file` into the spare memory of `bytes` (growing it when it is full) until
/// `bytes` holds `up_to` bytes or more; false at the end of the file. The memory is not
/// cleared first: a walk reads thousands of files into one buffer.
fn read_some(file: &cap_std::fs::File, bytes: &mut Vec<u8>, up_to: usize) -> rustix::io::Result<bool> {
    while bytes.len() < up_to {
        if bytes.len() == bytes.capacity() {
            bytes.reserve(bytes.capacity().max(1 << 16));
        }
        match rustix::io::read(file, rustix::buffer::spare_capacity(bytes)) {
            Ok(0) => return Ok(false),
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::temp_workspace;

    fn names(entries: &[Entry]) -> Vec<(String, FileKind)> {
        let mut named: Vec<_> = entries.iter().map(|e| (e.name.clone(), e.kind)).collect();
        named.sort_by(|a, b| a.0.cmp(&b.0));
        named
    }

    #[test]
    fn entries_say_what_each_is_without_following_symlinks_or_showing_temporary_files() {
        let (t, ws) = temp_workspace();
        std::fs::create_dir(t.path().join("sub")).unwrap();
        std::fs::write(t.path().join("a.txt"), "a").unwrap();
        std::fs::write(t.path().join(".filewright-1-0123456789abcdef.tmp"), "x").unwrap();
        std::os::unix::fs::symlink("sub", t.path().join("link")).unwrap();
        let tree = Tree::open(&ws, None).unwrap();
        let entries = tree.dir(None).unwrap().entries().unwrap();
        assert_eq!(
            names(&entries),
            [
                ("a.txt".to_string(), FileKind::File),
                ("link".to_string(), FileKind::Symlink),
                ("sub".to_string(), FileKind::Directory)
            ]
        );
    }

    #[test]
    fn a_symlink_is_neither_entered_as_a_directory_nor_read_as_a_file() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
        let (t, ws) = temp_workspace();
        std::os::unix::fs::symlink(outside.path(), t.path().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), t.path().join("s.txt")).unwrap();
        std::fs::write(t.path().join("in.txt"), "inside").unwrap();
        let tree = Tree::open(&ws, None).unwrap();
        assert!(tree.dir(Some(&ws.resolve("out").unwrap())).is_err());
        let root = tree.dir(None).unwrap();
        let mut bytes = Vec::new();
        let whole = &|_: &[u8]| false;
        assert!(root.read("s.txt", &ws.resolve("s.txt").unwrap(), 100, &mut bytes, whole).is_err());
        root.read("in.txt", &ws.resolve("in.txt").unwrap(), 100, &mut bytes, whole).unwrap();
        assert_eq!(bytes, b"inside");
        let err = root.read("in.txt", &ws.resolve("in.txt").unwrap(), 3, &mut bytes, whole).unwrap_err();
        assert!(matches!(err, Error::TooLargeToRead { size: 6, limit: 3, .. }), "{err}");
    }

    #[test]
    fn the_state_directory_inside_the_root_is_left_out() {
        let (t, mut ws) = temp_workspace();
        std::fs::create_dir(t.path().join("state")).unwrap();
        std::fs::create_dir(t.path().join("src")).unwrap();
        ws.reserve(&t.path().join("state")).unwrap();
        let tree = Tree::open(&ws, None).unwrap();
        let entries = tree.dir(None).unwrap().entries().unwrap();
        assert_eq!(names(&entries), [("src".to_string(), FileKind::Directory)]);
    }
}
