//! Reading files through the sandbox: whole, bounded, or their first bytes.

use std::io::Read;

use cap_std::fs::{File, OpenOptions, OpenOptionsExt};

use super::errors::{map_io, require_file};
use super::{FileInfo, RootPath, Workspace};
use crate::error::{Error, Result};

impl Workspace {
    /// Reads a whole regular file, refusing anything larger than `limit` bytes.
    pub fn read(&self, path: &RootPath, limit: u64) -> Result<Vec<u8>> {
        let (mut file, info) =
            self.open_to_read(path)?.ok_or_else(|| Error::NotFound { path: path.display() })?;
        read_held(&mut file, &info, path, limit)
    }

    /// The file at `path` (None when nothing is there) and its content, from one open: a write
    /// or an edit needs both. The content's own failure (too large, unreadable) comes apart,
    /// so that a file too large to keep a copy of can still be replaced.
    pub fn read_if_exists(&self, path: &RootPath, limit: u64) -> Result<Option<(FileInfo, Result<Vec<u8>>)>> {
        Ok(self.open_to_read(path)?.map(|(mut file, info)| {
            let bytes = read_held(&mut file, &info, path, limit);
            (info, bytes)
        }))
    }

    /// The first `n` bytes of the regular file at `path` (all of it when it is shorter); None
    /// when nothing is there. Enough to see a byte order mark without reading a large file.
    pub fn read_head(&self, path: &RootPath, n: u64) -> Result<Option<Vec<u8>>> {
        let Some((mut file, _)) = self.open_to_read(path)? else { return Ok(None) };
        let mut head = Vec::new();
        Read::by_ref(&mut file).take(n).read_to_end(&mut head).map_err(|e| map_io(e, "read", path))?;
        Ok(Some(head))
    }

    /// Opens the regular file at `path` for reading, with its metadata from the handle; None
    /// when nothing is there.
    fn open_to_read(&self, path: &RootPath) -> Result<Option<(File, FileInfo)>> {
        self.guard_reserved(path)?;
        if self.reserved.is_some() {
            // Catches a symlink into the state directory (the lexical check in `resolve`
            // cannot see through links).
            self.open_parent(path, false)?;
        }
        // Opened first and inspected through the handle (one lookup instead of two): what is
        // not a regular file is refused before a byte is read (see `read_options`).
        let file = match self.dir.open_with(path.as_path(), &read_options()) {
            Ok(file) => file,
            Err(e) => {
                // The error of a lookup says why better (missing, a dangling link, not a file).
                let Some(info) = self.stat(path)? else { return Ok(None) };
                require_file(path, &info)?;
                return Err(map_io(e, "open", path));
            }
        };
        let meta = file.metadata().map_err(|e| map_io(e, "inspect", path))?;
        let info = FileInfo::from_metadata(&meta);
        require_file(path, &info)?;
        Ok(Some((file, info)))
    }
}

/// Reads the whole of `file` (of metadata `info`), refusing more than `limit` bytes; it may
/// have grown since it was inspected.
fn read_held(file: &mut File, info: &FileInfo, path: &RootPath, limit: u64) -> Result<Vec<u8>> {
    if info.size > limit {
        return Err(Error::TooLargeToRead { path: path.display(), size: info.size, limit });
    }
    let mut bytes = Vec::with_capacity(info.size.min(limit) as usize);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| map_io(e, "read", path))?;
    if bytes.len() as u64 > limit {
        return Err(Error::TooLargeToRead { path: path.display(), size: bytes.len() as u64, limit });
    }
    Ok(bytes)
}

/// How a file is opened to be read: O_NONBLOCK, so that opening a FIFO does not wait for a
/// writer; O_NOCTTY, so that a terminal never becomes ours.
pub(crate) fn read_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options
        .read(true)
        .custom_flags((rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32);
    options
}
