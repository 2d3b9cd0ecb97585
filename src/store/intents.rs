//! Append intents: what an append is about to add, recorded in the state directory before
//! the first byte is written and removed once it has all landed.
//!
//! A kill in between (even mid-`write`) leaves the intent behind. Whoever next holds the
//! store's write lock for that path (the next call that touches it, in any process, or the next
//! start) finds it and cuts the file back to its size before the append, once it has checked
//! that what follows is a prefix of the recorded chunk in the same file. The file is then as it
//! was before the call, whose caller never got an answer; a retry appends the chunk once.
//!
//! Under the store's write lock no append can be running, so an intent found there is always
//! a leftover. Outside the lock (a read), it is one when the process that recorded it is dead.
//!
//! One file per path, `intents/<hash of the path>.intent`: a JSON header line, then the chunk.

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// An append that had not finished when it was recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppendIntent<'a> {
    /// The root-relative path appended to.
    pub path: String,
    /// The file's size before the append.
    pub size_before: u64,
    /// The file's device and inode: a replaced file is not the one appended to.
    pub dev: u64,
    /// See `dev`.
    pub ino: u64,
    /// The process appending.
    pub pid: u32,
    /// The append creates the file: taking it back removes the file.
    #[serde(default)]
    pub created: bool,
    /// The chunk being appended: borrowed from the call when recorded, owned when read back.
    #[serde(skip)]
    pub chunk: Cow<'a, [u8]>,
    /// The chunk's length, to tell a torn intent file (whose append never began) from a whole one.
    pub len: u64,
}

/// Where the intents of one state directory live.
#[derive(Debug, Clone)]
pub(super) struct Intents {
    dir: PathBuf,
}

impl Intents {
    pub(super) fn new(state_dir: &Path) -> Intents {
        Intents { dir: state_dir.join("intents") }
    }

    /// The directory the intents are kept in.
    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }

    fn file(&self, path: &str) -> PathBuf {
        let key = crate::files::sha256_hex(path.as_bytes());
        self.dir.join(format!("{}.intent", &key[..32]))
    }

    /// Records `intent` before its bytes are written.
    pub(super) fn record(&self, intent: &AppendIntent) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let mut header = serde_json::to_vec(intent).map_err(std::io::Error::other)?;
        header.push(b'\n');
        // The chunk is written as it is, never copied: it may be megabytes.
        let mut file = std::fs::File::create(self.file(&intent.path))?;
        file.write_all(&header)?;
        file.write_all(&intent.chunk)
    }

    /// Removes the intent of `path` (its append has landed, or has been undone).
    pub(super) fn clear(&self, path: &str) {
        match std::fs::remove_file(self.file(path)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!("could not remove the append intent of {path}: {e}"),
        }
    }

    /// The intent left for `path`, if any. A torn intent file (killed while it was written, so
    /// before the append began) is removed and reads as none.
    pub(super) fn get(&self, path: &str) -> Option<AppendIntent<'static>> {
        let file = self.file(path);
        let bytes = std::fs::read(&file).ok()?;
        match parse(&bytes) {
            Some(intent) if intent.path == path => Some(intent),
            _ => {
                let _ = std::fs::remove_file(&file);
                None
            }
        }
    }

    /// Every intent left in the directory.
    pub(super) fn all(&self) -> Vec<AppendIntent<'static>> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        entries.flatten().filter_map(|e| std::fs::read(e.path()).ok().and_then(|b| parse(&b))).collect()
    }
}

fn parse(bytes: &[u8]) -> Option<AppendIntent<'static>> {
    let newline = bytes.iter().position(|&b| b == b'\n')?;
    let mut intent: AppendIntent = serde_json::from_slice(&bytes[..newline]).ok()?;
    let chunk = &bytes[newline + 1..];
    (chunk.len() as u64 == intent.len).then(|| {
        intent.chunk = Cow::Owned(chunk.to_vec());
        intent
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn intent<'a>(path: &str, chunk: &'a [u8]) -> AppendIntent<'a> {
        AppendIntent {
            path: path.into(),
            size_before: 10,
            dev: 1,
            ino: 2,
            pid: std::process::id(),
            created: false,
            len: chunk.len() as u64,
            chunk: Cow::Borrowed(chunk),
        }
    }

    #[test]
    fn an_intent_is_kept_until_cleared_and_a_torn_one_reads_as_none() {
        let t = tempfile::tempdir().unwrap();
        let intents = Intents::new(t.path());
        assert_eq!(intents.get("a.js"), None);
        let a = intent("a.js", b"line one\nline \xff two\n");
        intents.record(&a).unwrap();
        intents.record(&intent("b.js", b"x")).unwrap();
        assert_eq!(intents.get("a.js"), Some(a.clone()));
        assert_eq!(intents.all().len(), 2);
        intents.clear("a.js");
        assert_eq!(intents.get("a.js"), None);
        // Torn while being written: the header promises more bytes than follow.
        let file = intents.file("b.js");
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() - 1]).unwrap();
        assert_eq!(intents.get("b.js"), None);
        assert!(!file.exists(), "a torn intent is removed");
    }
}
