//! What a backend must provide: the statements of one transaction, each a plain question or
//! change of the claims, fences, journal and versions of this root.
//!
//! The rules built on them (who wins a claim, when a token is superseded, which versions the
//! history budget drops, which entry `undo` reaches) are written once, in `claims.rs` and
//! `journal.rs`, so that SQLite and PostgreSQL cannot drift apart. Every statement is scoped
//! to the store's root by the backend.

use super::{Artifact, Claim, JournalEntry, UndoStep};
use crate::error::Result;
use crate::timestamp::Timestamp;

/// The latest fencing token issued for a path, and to whom. It outlives the claim: a claim
/// released or taken over leaves it, so a writer holding an older token learns it was
/// superseded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Fence {
    pub token: u64,
    pub agent: String,
}

/// One journal row to add.
#[derive(Debug, Clone, Copy)]
pub(super) struct NewRow<'a> {
    pub time: Timestamp,
    pub agent: &'a str,
    pub action: super::Action,
    pub path: &'a str,
    pub size: u64,
    pub added: u64,
    pub sha256: &'a str,
}

/// A version row to add: what the file was before the change of `journal_id`.
#[derive(Debug, Clone, Copy)]
pub(super) struct NewVersion<'a> {
    pub journal_id: i64,
    /// `absent`, `content`, `prefix` or `splice`.
    pub kind: &'static str,
    pub size: u64,
    pub content: Option<&'a [u8]>,
    /// Where a splice's stretch begins.
    pub at: Option<u64>,
}

/// The statements of one transaction on one root.
pub(super) trait Tx {
    /// The time claims are judged by: the database's clock where several hosts share it, so
    /// that a claim's time to live does not depend on whose clock is ahead.
    fn now(&mut self) -> Result<Timestamp>;

    /// The claim on `path`, live or expired, with its token.
    fn claim(&mut self, path: &str) -> Result<Option<Claim>>;
    /// The latest token issued for `path`.
    fn fence(&mut self, path: &str) -> Result<Option<Fence>>;
    /// The owner wrote again: the claim's time to live restarts.
    fn touch_claim(&mut self, path: &str, now: Timestamp) -> Result<()>;
    /// Gives `path` to `agent` from `now`, replacing any claim.
    fn put_claim(&mut self, path: &str, agent: &str, now: Timestamp) -> Result<()>;
    /// Takes the next token of the sequence for `agent`'s claim on `path` and makes it the
    /// path's fence; returns it.
    fn new_token(&mut self, path: &str, agent: &str) -> Result<u64>;
    /// Drops the claim on `path` (its fence stays).
    fn drop_claim(&mut self, path: &str) -> Result<()>;
    /// The paths `agent` holds claims on, sorted.
    fn claimed_by(&mut self, agent: &str) -> Result<Vec<String>>;
    /// Every claim, live or expired, oldest first.
    fn all_claims(&mut self) -> Result<Vec<Claim>>;

    /// Adds a journal row; returns its id.
    fn add_row(&mut self, row: NewRow<'_>) -> Result<i64>;
    /// Adds the version a row's change replaced.
    fn add_version(&mut self, version: NewVersion<'_>) -> Result<()>;
    /// Bytes of version content kept for the root.
    fn kept_bytes(&mut self) -> Result<i64>;
    /// The oldest version whose content is kept: its journal id and length.
    fn oldest_kept(&mut self) -> Result<Option<(i64, i64)>>;
    /// Forgets the content of the version of `journal_id` (`len` bytes).
    fn drop_kept(&mut self, journal_id: i64, len: i64) -> Result<()>;

    /// The last `steps` changes of `path`, newest first.
    fn last_changes(&mut self, path: &str, steps: usize) -> Result<Vec<UndoStep>>;
    /// The latest row of each path (filtered by who wrote it at least once, and by path),
    /// sorted by path, without history.
    fn latest(&mut self, agent: Option<&str>, path: Option<&str>) -> Result<Vec<Artifact>>;
    /// Every row of `path`, oldest first, each with whether its change can be undone (a
    /// version is kept for it). `restore_with_steps` is left for the caller.
    fn history(&mut self, path: &str) -> Result<Vec<(JournalEntry, bool)>>;
    /// The paths with a row at or after `since`, sorted.
    fn paths_since(&mut self, since: Timestamp) -> Result<Vec<String>>;
}

/// What a write transaction must serialise with.
#[derive(Debug, Clone, Copy)]
pub(super) enum Lock<'a> {
    /// Writers of these paths (and of their parent directories, for a backend that locks
    /// finer than the whole root).
    Paths(&'a [&'a str]),
    /// Every writer of the root.
    Root,
}
