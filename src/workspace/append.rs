//! Appends through the sandbox: a handle opened once, guarded against hard links, whose
//! writes are all or nothing.

use std::io::{self, Read, Seek, SeekFrom, Write};

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{File, OpenOptions};

use super::errors::{map_io, require_file};
use super::{FileInfo, RootPath, Workspace};
use crate::error::{Error, Result};

impl Workspace {
    /// Opens the file for appending, creating it (and its parents) when missing. Refuses
    /// non-regular files and files with more than one hard link (checked on the opened handle,
    /// so a swap between check and use cannot slip through).
    pub fn open_append(&self, path: &RootPath) -> Result<AppendHandle> {
        self.guard_reserved(path)?;
        if let Some(info) = self.stat(path)? {
            require_file(path, &info)?;
        }
        let parent_dir = self.open_parent(path, true)?;
        let (_, name) = path.split();
        let existed = parent_dir.symlink_metadata(name).is_ok();
        let mut options = OpenOptions::new();
        options.read(true).append(true).create(true).follow(FollowSymlinks::No);
        let file = parent_dir.open_with(name, &options).map_err(|e| map_io(e, "open", path))?;
        let meta = file.metadata().map_err(|e| map_io(e, "inspect", path))?;
        let info = FileInfo::from_metadata(&meta);
        require_file(path, &info)?;
        if info.links > 1 {
            return Err(Error::HardLinked { path: path.display(), links: info.links });
        }
        if !existed && let Err(e) = self.sync_dir(&parent_dir, path) {
            tracing::warn!("{e}");
        }
        Ok(AppendHandle { file, path: path.clone(), durable: self.durable })
    }
}

/// An open file positioned for appends, with the checks of [`Workspace::open_append`] done.
#[derive(Debug)]
pub struct AppendHandle {
    file: File,
    path: RootPath,
    /// Sync each append before it is reported (`--durable`).
    durable: bool,
}

impl AppendHandle {
    /// Current size in bytes, from the open handle.
    pub fn size(&self) -> Result<u64> {
        Ok(self.file.metadata().map_err(|e| map_io(e, "inspect", &self.path))?.len())
    }

    /// The last `n` bytes of the file (fewer when the file is shorter).
    pub fn tail(&mut self, n: u64) -> Result<Vec<u8>> {
        let size = self.size()?;
        let start = size.saturating_sub(n);
        self.read_from(start)
    }

    /// The whole file.
    pub fn read_all(&mut self) -> Result<Vec<u8>> {
        self.read_from(0)
    }

    /// The bytes from offset `start` to the end.
    pub fn read_from(&mut self, start: u64) -> Result<Vec<u8>> {
        let path = &self.path;
        self.file.seek(SeekFrom::Start(start)).map_err(|e| map_io(e, "read", path))?;
        let mut bytes = Vec::new();
        self.file.read_to_end(&mut bytes).map_err(|e| map_io(e, "read", path))?;
        Ok(bytes)
    }

    /// Appends `bytes` at the end (O_APPEND, so concurrent appenders never overwrite each other)
    /// and, when durable, syncs them.
    ///
    /// All or nothing: when a write fails part way (a full disk, a file-size limit), the
    /// file is cut back to `size_before` (its size before the call, which the caller has
    /// just read under the store's lock), so the error's "nothing was changed" is true; if
    /// even that fails, the error says how many bytes landed.
    pub fn append(&mut self, bytes: &[u8], size_before: u64) -> Result<()> {
        let mut written = 0;
        while written < bytes.len() {
            let failure = match self.file.write(&bytes[written..]) {
                Ok(0) => io::Error::new(io::ErrorKind::WriteZero, "the file accepted no more bytes"),
                Ok(n) => {
                    written += n;
                    continue;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => e,
            };
            if written == 0 || self.file.set_len(size_before).is_ok() {
                return Err(map_io(failure, "append to", &self.path));
            }
            return Err(Error::PartialAppend {
                path: self.path.display(),
                appended: written,
                total: bytes.len(),
                source: failure,
            });
        }
        // The bytes are in the file now; a failed sync must not be reported as "nothing
        // appended", or the caller would append them again.
        if self.durable
            && let Err(e) = self.file.sync_data()
        {
            tracing::warn!("appended to {} but could not sync it: {e}", self.path);
        }
        Ok(())
    }

    /// Cuts the file back to `size` bytes and syncs it.
    pub fn truncate(&mut self, size: u64) -> Result<()> {
        self.file.set_len(size).map_err(|e| map_io(e, "cut back", &self.path))?;
        self.file.sync_data().map_err(|e| map_io(e, "sync", &self.path))
    }

    /// Facts about the open file.
    pub fn info(&self) -> Result<FileInfo> {
        let meta = self.file.metadata().map_err(|e| map_io(e, "inspect", &self.path))?;
        Ok(FileInfo::from_metadata(&meta))
    }
}

#[cfg(test)]
mod tests {
    use crate::error::Error;
    use crate::workspace::temp_workspace as ws;

    #[test]
    fn append_refuses_hard_linked_file() {
        let (t, ws) = ws();
        std::fs::write(t.path().join("a"), b"x").unwrap();
        std::fs::hard_link(t.path().join("a"), t.path().join("b")).unwrap();
        let err = ws.open_append(&ws.resolve("b").unwrap()).unwrap_err();
        assert!(matches!(err, Error::HardLinked { links: 2, .. }));
    }
}
