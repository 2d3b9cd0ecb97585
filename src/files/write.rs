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

/// Puts a staged write in place, or writes `content` whole when nothing was staged or the
/// staged file's directory is no longer `path`'s parent (it is then removed).
pub fn land(
    ws: &Workspace,
    path: &RootPath,
    staged: Option<Staged>,
    content: &[u8],
    max_bytes: u64,
) -> Result<Written> {
    match staged {
        Some(staged) if ws.still_beside(&staged) => {
            let replaced = ws.land(staged)?;
            Ok(Written { created: replaced.created, size: content.len() as u64, now: replaced.now })
        }
        _ => write(ws, path, content, max_bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_staged_write_whose_directory_moved_is_written_whole_where_it_was_asked() {
        let (t, ws) = crate::workspace::temp_workspace();
        std::fs::create_dir(t.path().join("d")).unwrap();
        let p = ws.resolve("d/f.txt").unwrap();
        let staged = stage(&ws, &p, b"new", 1 << 20);
        assert!(staged.is_some());
        std::fs::rename(t.path().join("d"), t.path().join("moved")).unwrap();
        let written = land(&ws, &p, staged, b"new", 1 << 20).unwrap();
        assert!(written.created);
        assert_eq!(std::fs::read(t.path().join("d/f.txt")).unwrap(), b"new");
        let left: Vec<_> = std::fs::read_dir(t.path().join("moved")).unwrap().collect();
        assert!(left.is_empty(), "the staged file is removed from the moved directory: {left:?}");
    }

    #[test]
    fn content_over_the_limit_is_not_staged_and_is_refused_when_landed() {
        let (_t, ws) = crate::workspace::temp_workspace();
        let p = ws.resolve("f.txt").unwrap();
        assert!(stage(&ws, &p, b"12345", 4).is_none());
        assert!(matches!(land(&ws, &p, None, b"12345", 4), Err(Error::TooLarge { .. })));
    }
}
