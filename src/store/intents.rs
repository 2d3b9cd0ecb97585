//! Append intents: what an append is about to add, recorded in the state directory before
//! the first byte is written and cleared once it has all landed.
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
//! A cleared intent's file is not removed but cut to one byte and renamed to [`SPARE`], and
//! the next intent, of any path, is written into the spare: every append records an intent,
//! and ext4 without a journal passes over every inode freed in the last minute when it
//! allocates one, so a file created and removed per append made every later create slower,
//! the writes' included. (Cut to nothing instead, the next write of the file would be flushed
//! to disk when it is closed: ext4 takes a file emptied and written again for a replace.) One
//! spare is enough: SQLite's lock runs a root's appends one at a time. Where they run at once
//! (PostgreSQL locks each path), an intent that finds the spare taken makes a new file, and a
//! second spare replaces the first.

use std::borrow::Cow;
use std::os::unix::fs::FileExt;
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

/// The length of a cleared intent's file: too short for a header line, and not empty.
const CLEARED: u64 = 1;

/// The name of the cleared intent file kept for the next intent.
const SPARE: &str = "spare";

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
        // Written into the spare when there is one (never emptied first: see the module's
        // note), then cut to its length. The chunk is written as it is, never copied: it may be
        // megabytes.
        let target = self.file(&intent.path);
        if let Err(e) = std::fs::rename(self.dir.join(SPARE), &target)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::debug!("the spare intent file could not be used ({e}); making a new one");
        }
        let file = std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(&target)?;
        file.write_all_at(&header, 0)?;
        file.write_all_at(&intent.chunk, header.len() as u64)?;
        file.set_len((header.len() + intent.chunk.len()) as u64)
    }

    /// Clears the intent of `path` (its append has landed, or has been undone): its file is
    /// cut to one byte, which reads as no intent, and becomes the spare for the next one.
    pub(super) fn clear(&self, path: &str) {
        let file = self.file(path);
        let cleared = std::fs::OpenOptions::new()
            .write(true)
            .open(&file)
            .and_then(|f| f.set_len(CLEARED))
            .and_then(|()| std::fs::rename(&file, self.dir.join(SPARE)));
        match cleared {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!("could not clear the append intent of {path}: {e}"),
        }
    }

    /// The intent left for `path`, if any. A torn intent file (killed while it was written, so
    /// before the append began) is cleared and reads as none.
    pub(super) fn get(&self, path: &str) -> Option<AppendIntent<'static>> {
        let bytes = std::fs::read(self.file(path)).ok()?;
        if bytes.len() as u64 <= CLEARED {
            return None;
        }
        match parse(&bytes) {
            Some(intent) if intent.path == path => Some(intent),
            _ => {
                self.clear(path);
                None
            }
        }
    }

    /// Every intent left in the directory.
    pub(super) fn all(&self) -> Vec<AppendIntent<'static>> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        entries
            .flatten()
            .filter(|e| e.file_name() != SPARE)
            .filter_map(|e| std::fs::read(e.path()).ok().and_then(|b| parse(&b)))
            .collect()
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
        assert_eq!(intents.all().len(), 1, "a cleared intent is not listed");
        // Torn while being written: the header promises more bytes than follow.
        let file = intents.file("b.js");
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() - 1]).unwrap();
        assert_eq!(intents.get("b.js"), None);
        assert!(!file.exists(), "a torn intent is cleared");
        assert!(intents.all().is_empty());
    }

    /// A cleared intent's file becomes the spare, and the next intent (of any path) is written
    /// into it: no file is created or removed per append, and the directory keeps one spare,
    /// not a file per path ever appended to.
    #[test]
    fn a_cleared_intent_becomes_the_spare_the_next_one_is_written_into() {
        use std::os::unix::fs::MetadataExt;
        let t = tempfile::tempdir().unwrap();
        let intents = Intents::new(t.path());
        intents.record(&intent("a.js", b"one")).unwrap();
        let inode = std::fs::metadata(intents.file("a.js")).unwrap().ino();
        intents.clear("a.js");
        assert!(!intents.file("a.js").exists());
        let spare = intents.dir().join(SPARE);
        assert_eq!(std::fs::metadata(&spare).unwrap().len(), CLEARED);
        assert_eq!(intents.get("a.js"), None);
        assert!(intents.all().is_empty(), "the spare is not an intent");
        let second = intent("b.js", b"two, longer");
        intents.record(&second).unwrap();
        assert!(!spare.exists());
        assert_eq!(std::fs::metadata(intents.file("b.js")).unwrap().ino(), inode);
        assert_eq!(intents.get("b.js"), Some(second));
        intents.clear("b.js");
        // A shorter one written into the spare is cut to its own length.
        let third = intent("c.js", b"3");
        intents.record(&third).unwrap();
        assert_eq!(intents.get("c.js"), Some(third.clone()));
        assert_eq!(intents.all(), vec![third]);
        intents.clear("never-recorded.js");
        assert!(!intents.file("never-recorded.js").exists(), "clearing creates no file");
        assert_eq!(std::fs::read_dir(intents.dir()).unwrap().count(), 1, "one intent, no spare");
    }
}
