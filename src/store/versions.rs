//! What a change replaced, kept so that `undo` can put it back: a file's [`Before`] (absent,
//! whole, a prefix, or one stretch spliced back), and the [`UndoStep`]s undo reads.
//!
//! Apart from the claim rules because it is pure: how a version is told against the file
//! that replaced it, and rebuilt from it, is byte arithmetic with no database in it.

use super::Action;
use crate::timestamp::Timestamp;

/// The most changes one `undo` takes back.
pub const MAX_UNDO_STEPS: usize = 100;

/// Bytes of old versions kept per root by default (`--history-bytes`).
pub const DEFAULT_HISTORY_BYTES: u64 = 64 * 1024 * 1024;

/// What a file was before a change: kept so that `undo` can restore it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Before {
    /// There was no file.
    Absent,
    /// The whole old content (a write or an edit replaced it).
    Content(Vec<u8>),
    /// The first this many bytes of the file after the change (an append added the rest): no
    /// copy is needed.
    Prefix(u64),
    /// A symbolic link with this text (a delete or move of the link itself, which `undo`
    /// puts back as a link).
    Link(Vec<u8>),
    /// The file after the change with one stretch put back (an edit changed only that): from
    /// byte `at`, the bytes `old` instead of what the change left there, up to where the file
    /// before (`size` bytes) and after end alike. An edit of a large file keeps only the
    /// text it replaced, so its version costs the history budget what the edit changed.
    Splice {
        /// Where the stretch begins, in both files.
        at: u64,
        /// The bytes the stretch held before.
        old: Vec<u8>,
        /// The size of the file before.
        size: u64,
    },
}

/// The sha256 the journal records for a symbolic link with text `text`: its text's, marked
/// so that it equals no file's (a file holding these bytes would start with a NUL).
pub fn link_sha256(text: &[u8]) -> String {
    let mut marked = b"\0symlink\0".to_vec();
    marked.extend_from_slice(text);
    crate::files::sha256_hex(&marked)
}

impl Before {
    /// What `before` was, told against `after` (the content that replaced it): the stretch
    /// between their common start and common end.
    pub fn splice(before: &[u8], after: &[u8]) -> Before {
        let head = common_start(before, after);
        let room = before.len().min(after.len()) - head;
        let tail = common_end(&before[head..], &after[head..]).min(room);
        Before::Splice {
            at: head as u64,
            old: before[head..before.len() - tail].to_vec(),
            size: before.len() as u64,
        }
    }

    /// The file before a [`Before::Splice`] change, from `after`, the file it left; None when
    /// `after` cannot be what the change left (too short for the stretch kept around it).
    pub fn unsplice(at: u64, old: &[u8], size: u64, after: &[u8]) -> Option<Vec<u8>> {
        let head = usize::try_from(at).ok()?;
        let tail = usize::try_from(size).ok()?.checked_sub(head)?.checked_sub(old.len())?;
        if head.checked_add(tail)? > after.len() {
            return None;
        }
        let mut before = Vec::with_capacity(head + old.len() + tail);
        before.extend_from_slice(&after[..head]);
        before.extend_from_slice(old);
        before.extend_from_slice(&after[after.len() - tail..]);
        Some(before)
    }
}

/// How many bytes `a` and `b` share at their start. Block by block first: a byte at a time
/// took a 20 KB edit 20 µs.
fn common_start(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let len = a.len().min(b.len());
    let mut at = 0;
    while at + BLOCK <= len && a[at..at + BLOCK] == b[at..at + BLOCK] {
        at += BLOCK;
    }
    at + a[at..len].iter().zip(&b[at..len]).take_while(|(x, y)| x == y).count()
}

/// How many bytes `a` and `b` share at their end.
fn common_end(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let len = a.len().min(b.len());
    let (a, b) = (&a[a.len() - len..], &b[b.len() - len..]);
    let mut from = len;
    while from >= BLOCK && a[from - BLOCK..from] == b[from - BLOCK..from] {
        from -= BLOCK;
    }
    len - from + a[..from].iter().rev().zip(b[..from].iter().rev()).take_while(|(x, y)| x == y).count()
}

/// One change `undo` may take back, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoStep {
    /// What the change was.
    pub action: Action,
    /// Who made it.
    pub agent: String,
    /// When.
    pub time: Timestamp,
    /// The file's sha256 right after the change.
    pub sha256_after: String,
    /// What the file was before the change; None when no copy was kept (the history budget
    /// dropped it, or the change predates undo).
    pub before: Option<Before>,
}
