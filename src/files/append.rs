//! `append_file`: add a chunk at the end, guarded against stale callers and retried calls.

use super::sha256_hex;
use crate::error::{Error, Result};
use crate::workspace::{FileInfo, RootPath, Workspace};

/// A chunk at least this long that the file already ends with is taken for a retry of a call
/// whose answer was lost, and is not appended again. Shorter chunks (a `}` or a blank line) are
/// legitimately repeated, so they are always appended.
pub const DEDUPE_MIN_BYTES: usize = 200;

/// What an append did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// The file did not exist before.
    pub created: bool,
    /// Size before the call, in bytes.
    pub size_before: u64,
    /// Size after the call, in bytes.
    pub size: u64,
    /// Bytes actually added (0 when the chunk was a duplicate).
    pub added: u64,
    /// The file already ended with this chunk, so nothing was appended.
    pub duplicate_skipped: bool,
    /// The whole file after the call, read back for the syntax check; None when the caller
    /// said it knows the file as it was before (`known`): it is then that, plus the chunk
    /// unless `duplicate_skipped`.
    pub contents: Option<Vec<u8>>,
    /// The file as it was just before the append (identity, size, mtime).
    pub before: FileInfo,
    /// The file just after the append.
    pub after: FileInfo,
}

/// What the caller believes the file holds before the call; a call whose belief is wrong
/// changes nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expected {
    /// The file's size in bytes.
    pub size: Option<u64>,
    /// The file's hex sha256.
    pub sha256: Option<String>,
}

impl Expected {
    /// Checks `current`, the file's bytes (None when it does not exist), against the expected
    /// sha256; the size is checked where the file is opened.
    pub fn check_content(&self, path: &RootPath, current: Option<&[u8]>) -> Result<()> {
        let Some(expected) = &self.sha256 else { return Ok(()) };
        let actual = current.map(sha256_hex);
        match actual.as_deref() == Some(expected.as_str()) {
            true => Ok(()),
            false => Err(content_changed(path, expected, actual)),
        }
    }
}

fn content_changed(path: &RootPath, expected: &str, actual: Option<String>) -> Error {
    Error::ContentChanged { path: path.display(), expected: expected.to_string(), actual, last_write: None }
}

/// The append [`append`] is about to make, told to the caller before the first byte is
/// written so that it can record it (and repair a kill part way with [`roll_back`]).
#[derive(Debug, Clone, Copy)]
pub struct Pending<'a> {
    /// The file before the append (size and identity).
    pub before: &'a FileInfo,
    /// The append creates the file.
    pub creates: bool,
    /// The bytes about to be appended.
    pub chunk: &'a [u8],
}

/// Appends `chunk` to the file, creating it and its parents when missing.
///
/// Nothing is written when `guard` says the file is not what the caller expects, when the
/// result would exceed `max_bytes`, or when the file already ends with `chunk` (see
/// [`DEDUPE_MIN_BYTES`]). Otherwise `intent` is told what is about to be appended, and an
/// error from it means nothing is. `known`: a version of the file whose content the caller
/// holds; when the file is still at it, the file is not read back (reading a large file back
/// after each of many small appends made the later ones slower than the first). Precondition:
/// `path` has been followed through in-root symlinks.
pub fn append(
    ws: &Workspace,
    path: &RootPath,
    chunk: &[u8],
    guard: &Expected,
    max_bytes: u64,
    intent: &mut dyn FnMut(Pending) -> Result<()>,
    known: Option<&FileInfo>,
) -> Result<Appended> {
    let Expected { size: expected_size, sha256: expected_sha256 } = guard;
    let expected_size = *expected_size;
    let existed = ws.stat(path)?.is_some();
    if !existed && let Some(expected) = expected_size.filter(|&e| e != 0) {
        return Err(Error::SizeMismatch { path: path.display(), expected, actual: 0 });
    }
    if !existed && let Some(expected) = expected_sha256 {
        return Err(content_changed(path, expected, None));
    }
    // A missing file is created when it is opened: refuse a chunk too large for it first, so
    // that "nothing was written" stays true.
    if !existed && chunk.len() as u64 > max_bytes {
        return Err(Error::TooLarge { path: path.display(), size: chunk.len() as u64, limit: max_bytes });
    }
    let mut handle = ws.open_append(path)?;
    let before = handle.info()?;
    let size_before = before.size;
    if let Some(expected) = expected_size
        && expected != size_before
    {
        return Err(Error::SizeMismatch { path: path.display(), expected, actual: size_before });
    }
    if let Some(expected) = expected_sha256 {
        let actual = sha256_hex(&handle.read_all()?);
        if actual != *expected {
            return Err(content_changed(path, expected, Some(actual)));
        }
    }
    let size_after = size_before + chunk.len() as u64;
    if size_after > max_bytes {
        return Err(Error::TooLarge { path: path.display(), size: size_after, limit: max_bytes });
    }
    // An explicit, matching expected_size or sha256 says the caller knows what the file
    // holds: a deliberate repeat, not a retry.
    let duplicate = expected_size.is_none()
        && expected_sha256.is_none()
        && chunk.len() >= DEDUPE_MIN_BYTES
        && size_before >= chunk.len() as u64
        && handle.tail(chunk.len() as u64)? == chunk;
    if !duplicate && !chunk.is_empty() {
        intent(Pending { before: &before, creates: !existed, chunk })?;
        handle.append(chunk, size_before)?;
    }
    let size_after = if duplicate { size_before } else { size_after };
    // The chunk has landed: from here on nothing may turn this into an error (the caller
    // would retry and duplicate it). Reading back cannot reasonably fail; if it does, report
    // what we know.
    let contents = (known != Some(&before)).then(|| {
        handle.read_all().unwrap_or_else(|e| {
            tracing::warn!("could not read {} back after appending: {e}", path.display());
            Vec::new()
        })
    });
    let after = handle.info().unwrap_or(FileInfo { size: size_after, ..before });
    Ok(Appended {
        before,
        after,
        created: !existed,
        size_before,
        size: match &contents {
            Some(read) if !read.is_empty() => read.len() as u64,
            _ => size_after,
        },
        added: if duplicate { 0 } else { chunk.len() as u64 },
        duplicate_skipped: duplicate,
        contents,
    })
}

/// What [`roll_back`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RolledBack {
    /// The file was cut back to its size before the append; this many bytes of it were removed.
    Cut(u64),
    /// Nothing of the append had landed.
    Nothing,
    /// The file is not the one appended to, or was changed since: left alone.
    Changed,
}

/// An append that a kill may have interrupted, as recorded before it began.
#[derive(Debug, Clone, Copy)]
pub struct Interrupted<'a> {
    /// The file's size before the append.
    pub size_before: u64,
    /// The file's device and inode.
    pub dev: u64,
    /// See `dev`.
    pub ino: u64,
    /// The append created the file.
    pub created: bool,
    /// The chunk being appended.
    pub chunk: &'a [u8],
}

/// Takes back an append that was interrupted: when `path` is still the file appended to
/// (same device and inode), no larger than its size before plus the chunk, and what follows
/// that size is the start of the chunk, the file is cut back to its size before, or removed
/// when the append had created it.
pub fn roll_back(ws: &Workspace, path: &RootPath, append: Interrupted) -> Result<RolledBack> {
    let Interrupted { size_before, dev, ino, created, chunk } = append;
    if ws.stat(path)?.is_none() {
        return Ok(RolledBack::Changed);
    }
    let mut handle = ws.open_append(path)?;
    let info = handle.info()?;
    let end = size_before + chunk.len() as u64;
    if (info.dev, info.ino) != (dev, ino) || info.size < size_before || info.size > end {
        return Ok(RolledBack::Changed);
    }
    if info.size == size_before {
        if created && size_before == 0 {
            drop(handle);
            ws.remove_file(path)?;
        }
        return Ok(RolledBack::Nothing);
    }
    let landed = handle.read_from(size_before)?;
    if !chunk.starts_with(&landed) {
        return Ok(RolledBack::Changed);
    }
    handle.truncate(size_before)?;
    if created && size_before == 0 {
        drop(handle);
        ws.remove_file(path)?;
    }
    Ok(RolledBack::Cut(landed.len() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::workspace::temp_workspace as ws;

    #[test]
    fn an_intent_that_cannot_be_recorded_appends_nothing() {
        let (t, ws) = ws();
        let p = ws.resolve("f").unwrap();
        std::fs::write(t.path().join("f"), "kept").unwrap();
        let mut seen = None;
        let refuse = &mut |pending: Pending| {
            seen = Some((pending.before.size, pending.chunk.to_vec()));
            Err(Error::StateDir { reason: "read-only".into() })
        };
        assert!(append(&ws, &p, b" more", &Expected::default(), 1 << 20, refuse, None).is_err());
        assert_eq!(seen, Some((4, b" more".to_vec())), "told before writing");
        assert_eq!(std::fs::read(t.path().join("f")).unwrap(), b"kept");
    }

    #[test]
    fn roll_back_cuts_only_a_prefix_of_the_chunk_in_the_same_file() {
        let (t, ws) = ws();
        let path = ws.resolve("a.txt").unwrap();
        std::fs::write(t.path().join("a.txt"), "base\nhalf of the ch").unwrap();
        let info = ws.stat(&path).unwrap().unwrap();
        let chunk = b"half of the chunk\n";
        let at = |size_before, dev, ino| Interrupted { size_before, dev, ino, created: false, chunk };
        assert_eq!(roll_back(&ws, &path, at(5, info.dev, info.ino)).unwrap(), RolledBack::Cut(14));
        assert_eq!(std::fs::read(t.path().join("a.txt")).unwrap(), b"base\n");
        assert_eq!(roll_back(&ws, &path, at(5, info.dev, info.ino)).unwrap(), RolledBack::Nothing);
        // Bytes that are not the chunk's, a different file, or more than the chunk: left alone.
        std::fs::write(t.path().join("a.txt"), "base\nsomething else").unwrap();
        assert_eq!(roll_back(&ws, &path, at(5, info.dev, info.ino)).unwrap(), RolledBack::Changed);
        std::fs::write(t.path().join("a.txt"), "base\nhalf of the chunk\nand more").unwrap();
        assert_eq!(roll_back(&ws, &path, at(5, info.dev, info.ino)).unwrap(), RolledBack::Changed);
        std::fs::write(t.path().join("a.txt"), "base\nhalf").unwrap();
        assert_eq!(roll_back(&ws, &path, at(5, info.dev, info.ino + 1)).unwrap(), RolledBack::Changed);
        assert_eq!(std::fs::read(t.path().join("a.txt")).unwrap(), b"base\nhalf");
        // An append that created the file: taken back, the file is gone, as before the call.
        let new = ws.resolve("new.txt").unwrap();
        std::fs::write(t.path().join("new.txt"), "half").unwrap();
        let info = ws.stat(&new).unwrap().unwrap();
        let created = Interrupted { size_before: 0, dev: info.dev, ino: info.ino, created: true, chunk };
        assert_eq!(roll_back(&ws, &new, created).unwrap(), RolledBack::Cut(4));
        assert!(!t.path().join("new.txt").exists());
        std::fs::write(t.path().join("new.txt"), "").unwrap();
        let info = ws.stat(&new).unwrap().unwrap();
        let created = Interrupted { size_before: 0, dev: info.dev, ino: info.ino, created: true, chunk };
        assert_eq!(roll_back(&ws, &new, created).unwrap(), RolledBack::Nothing);
        assert!(!t.path().join("new.txt").exists(), "created empty before the kill: removed too");
    }

    #[test]
    fn append_with_a_stale_sha256_writes_nothing() {
        let (t, ws) = ws();
        let p = ws.resolve("f").unwrap();
        append(&ws, &p, b"12345", &Expected::default(), 1 << 20, &mut |_| Ok(()), None).unwrap();
        let stale = Expected { size: None, sha256: Some(sha256_hex(b"1234")) };
        let err = append(&ws, &p, b"6", &stale, 1 << 20, &mut |_| Ok(()), None).unwrap_err();
        assert!(matches!(err, Error::ContentChanged { actual: Some(_), .. }), "{err}");
        let fresh = Expected { size: None, sha256: Some(sha256_hex(b"12345")) };
        append(&ws, &p, b"6", &fresh, 1 << 20, &mut |_| Ok(()), None).unwrap();
        assert_eq!(std::fs::read(t.path().join("f")).unwrap(), b"123456");
    }

    #[test]
    fn append_creates_missing_file_and_parents() {
        let (t, ws) = ws();
        let p = ws.resolve("a/b/c.txt").unwrap();
        let out = append(&ws, &p, b"hello", &Expected::default(), 1 << 20, &mut |_| Ok(()), None).unwrap();
        assert!(out.created);
        assert_eq!(std::fs::read(t.path().join("a/b/c.txt")).unwrap(), b"hello");
    }

    #[test]
    fn append_with_stale_expected_size_writes_nothing() {
        let (t, ws) = ws();
        let p = ws.resolve("f").unwrap();
        append(&ws, &p, b"12345", &Expected::default(), 1 << 20, &mut |_| Ok(()), None).unwrap();
        let err = append(
            &ws,
            &p,
            b"more",
            &Expected { size: Some(3), sha256: None },
            1 << 20,
            &mut |_| Ok(()),
            None,
        )
        .unwrap_err();
        assert!(matches!(err, Error::SizeMismatch { expected: 3, actual: 5, .. }));
        assert_eq!(std::fs::read(t.path().join("f")).unwrap(), b"12345");
    }

    #[test]
    fn retried_long_chunk_is_not_appended_twice() {
        let (t, ws) = ws();
        let p = ws.resolve("f").unwrap();
        let chunk = "x".repeat(DEDUPE_MIN_BYTES) + "\n";
        append(&ws, &p, chunk.as_bytes(), &Expected::default(), 1 << 20, &mut |_| Ok(()), None).unwrap();
        let again =
            append(&ws, &p, chunk.as_bytes(), &Expected::default(), 1 << 20, &mut |_| Ok(()), None).unwrap();
        assert!(again.duplicate_skipped);
        assert_eq!(again.added, 0);
        assert_eq!(std::fs::read(t.path().join("f")).unwrap(), chunk.as_bytes());
    }

    #[test]
    fn a_repeat_with_matching_expected_size_is_appended() {
        let (t, ws) = ws();
        let p = ws.resolve("f").unwrap();
        let chunk = "y".repeat(DEDUPE_MIN_BYTES);
        append(&ws, &p, chunk.as_bytes(), &Expected::default(), 1 << 20, &mut |_| Ok(()), None).unwrap();
        let again = append(
            &ws,
            &p,
            chunk.as_bytes(),
            &Expected { size: Some(chunk.len() as u64), sha256: None },
            1 << 20,
            &mut |_| Ok(()),
            None,
        )
        .unwrap();
        assert!(!again.duplicate_skipped);
        assert_eq!(std::fs::read(t.path().join("f")).unwrap().len(), 2 * chunk.len());
    }

    #[test]
    fn short_repeated_chunk_is_appended() {
        let (t, ws) = ws();
        let p = ws.resolve("f").unwrap();
        append(&ws, &p, b"}\n", &Expected::default(), 1 << 20, &mut |_| Ok(()), None).unwrap();
        append(&ws, &p, b"}\n", &Expected::default(), 1 << 20, &mut |_| Ok(()), None).unwrap();
        assert_eq!(std::fs::read(t.path().join("f")).unwrap(), b"}\n}\n");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// write + appends reproduce the concatenation byte for byte (CRLF, BOM, multi-byte
        /// text included), with the retry rule as the only exception, modelled exactly.
        #[test]
        fn appends_reproduce_the_concatenation(
            chunks in proptest::collection::vec("(\u{feff}|\r\n|\n|[a-z ]{1,40}|é|🎉|\t){0,40}", 1..12)
        ) {
            let (t, ws) = ws();
            let p = ws.resolve("p.txt").unwrap();
            let mut expected: Vec<u8> = Vec::new();
            for (i, chunk) in chunks.iter().enumerate() {
                let chunk = chunk.as_bytes();
                // Odd calls pass expected_size (never skipped); even calls do not (a chunk of
                // DEDUPE_MIN_BYTES or more that the file already ends with is a retry).
                let guarded = i % 2 == 1;
                let retry = !guarded && chunk.len() >= DEDUPE_MIN_BYTES && expected.ends_with(chunk);
                let size = guarded.then_some(expected.len() as u64);
                let out = append(&ws, &p, chunk, &Expected { size, sha256: None }, 1 << 20, &mut |_| Ok(()), None).unwrap();
                proptest::prop_assert_eq!(out.duplicate_skipped, retry);
                if !retry {
                    expected.extend_from_slice(chunk);
                }
                proptest::prop_assert_eq!(out.size, expected.len() as u64);
            }
            proptest::prop_assert_eq!(std::fs::read(t.path().join("p.txt")).unwrap(), expected);
        }
    }

    #[test]
    fn append_over_the_size_limit_writes_nothing() {
        let (t, ws) = ws();
        let p = ws.resolve("f").unwrap();
        append(&ws, &p, b"1234", &Expected::default(), 6, &mut |_| Ok(()), None).unwrap();
        assert!(matches!(
            append(&ws, &p, b"567", &Expected::default(), 6, &mut |_| Ok(()), None),
            Err(Error::TooLarge { size: 7, .. })
        ));
        assert_eq!(std::fs::read(t.path().join("f")).unwrap(), b"1234");
    }

    #[test]
    fn a_known_file_is_not_read_back_and_a_changed_one_is() {
        let t = tempfile::tempdir().unwrap();
        let ws = Workspace::open_root(t.path()).unwrap();
        let p = ws.resolve("f").unwrap();
        let first = append(&ws, &p, b"abc", &Expected::default(), 1 << 20, &mut |_| Ok(()), None).unwrap();
        assert_eq!(first.contents.as_deref(), Some(&b"abc"[..]));
        let known =
            append(&ws, &p, b"def", &Expected::default(), 1 << 20, &mut |_| Ok(()), Some(&first.after))
                .unwrap();
        assert_eq!((known.contents, known.size), (None, 6), "at the version known: not read back");
        std::fs::write(t.path().join("f"), "changed").unwrap();
        let stale = append(&ws, &p, b"!", &Expected::default(), 1 << 20, &mut |_| Ok(()), Some(&known.after))
            .unwrap();
        assert_eq!(stale.contents.as_deref(), Some(&b"changed!"[..]), "changed since: read back");
    }
}
