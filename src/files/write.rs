//! `write_file`: create or replace a whole file, atomically.

use crate::error::{Error, Result};
use crate::workspace::{FileInfo, RootPath, Workspace};

/// What a whole-file write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The file did not exist before.
    pub created: bool,
    /// Size after the write, in bytes.
    pub size: u64,
    /// The file's version right after the write (None when it could not be read from the
    /// written handle).
    pub now: Option<FileInfo>,
}

/// Writes `content` as the whole file (temp file + rename; parents created).
/// Precondition: `path` has been followed through in-root symlinks ([`Workspace::follow`]).
pub fn write(ws: &Workspace, path: &RootPath, content: &[u8], max_bytes: u64) -> Result<Written> {
    let size = content.len() as u64;
    if size > max_bytes {
        return Err(Error::TooLarge { path: path.display(), size, limit: max_bytes });
    }
    let replaced = ws.replace(path, content)?;
    Ok(Written { created: replaced.created, size, now: replaced.now })
}
