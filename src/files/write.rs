//! `write_file`: create or replace a whole file, atomically.

use crate::error::{Error, Result};
use crate::workspace::{FileInfo, RootPath, Staged, Workspace};

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

/// Stages `content` beside `path` ahead of the write (see [`Workspace::stage`]); None when it
/// cannot be (too large, a missing parent, ...): [`write`] then does it all.
pub fn stage(ws: &Workspace, path: &RootPath, content: &[u8], max_bytes: u64) -> Option<Staged> {
    if content.len() as u64 > max_bytes {
        return None;
    }
    ws.stage(path, content, false).ok()
}

/// Puts a staged write in place, or writes `content` whole when nothing was staged.
pub fn land(
    ws: &Workspace,
    path: &RootPath,
    staged: Option<Staged>,
    content: &[u8],
    max_bytes: u64,
) -> Result<Written> {
    match staged {
        Some(staged) => {
            let replaced = ws.land(staged)?;
            Ok(Written { created: replaced.created, size: content.len() as u64, now: replaced.now })
        }
        None => write(ws, path, content, max_bytes),
    }
}
