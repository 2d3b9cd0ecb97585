//! I/O errors turned into the core's [`Error`], with root-relative names.

use std::io;

use super::{FileInfo, FileKind, RootPath};
use crate::error::{Error, Result};

pub(crate) fn require_file(path: &RootPath, info: &FileInfo) -> Result<()> {
    match info.kind {
        FileKind::File => Ok(()),
        FileKind::Directory => Err(Error::IsDirectory { path: path.display() }),
        FileKind::Other | FileKind::Symlink => Err(Error::NotRegularFile { path: path.display() }),
    }
}

/// True for cap-std's "a path led outside of the filesystem" (a synthesised PermissionDenied
/// without an OS error code) and the kernel's refusals under RESOLVE_BENEATH (EXDEV, ELOOP on a
/// magic link).
pub(super) fn is_escape(e: &io::Error) -> bool {
    (e.kind() == io::ErrorKind::PermissionDenied && e.raw_os_error().is_none())
        || e.raw_os_error() == Some(rustix::io::Errno::XDEV.raw_os_error())
}

pub(super) fn map_io(e: io::Error, op: &'static str, path: &RootPath) -> Error {
    if is_escape(&e) {
        return Error::OutsideRoot { path: path.display() };
    }
    match e.kind() {
        io::ErrorKind::NotFound => Error::NotFound { path: path.display() },
        io::ErrorKind::IsADirectory => Error::IsDirectory { path: path.display() },
        io::ErrorKind::NotADirectory => Error::ParentNotDirectory { path: path.display() },
        _ if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => Error::InvalidPath {
            path: path.display(),
            reason: "it is a symbolic link (or leads through one) that changed during the call or loops"
                .into(),
        },
        _ => Error::Io { op, path: path.display(), source: e },
    }
}

pub(super) fn map_parent_error(e: io::Error, path: &RootPath) -> Error {
    match e.kind() {
        io::ErrorKind::AlreadyExists | io::ErrorKind::NotADirectory => {
            Error::ParentNotDirectory { path: path.display() }
        }
        _ => map_io(e, "create the parent directory of", path),
    }
}
