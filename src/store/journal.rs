//! The journal: one row per successful write, append or edit, so that an agent or a person
//! can see which artifacts exist, who wrote them, and verify them (sha256).

use schemars::JsonSchema;
use serde::Serialize;

use super::tx::{NewRow, NewVersion, Tx};
use super::{Before, WriteFacts};
use crate::error::Result;
use crate::timestamp::Timestamp;

/// What a journal row records: which tool changed the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// write_file.
    Write,
    /// append_file.
    Append,
    /// edit_file.
    Edit,
    /// undo.
    Undo,
    /// The `--after-write` command rewrote the file after one of the above (a formatter).
    Hook,
    /// move_file (a row for each of the two paths).
    Move,
    /// delete_file.
    Delete,
    /// copy_file (a row for the copy's path).
    Copy,
    /// create_directory (a row for the directory asked for, when it was created).
    Mkdir,
}

impl Action {
    /// Every action, in the order of the enum.
    pub const ALL: [Action; 9] = [
        Action::Write,
        Action::Append,
        Action::Edit,
        Action::Undo,
        Action::Hook,
        Action::Move,
        Action::Delete,
        Action::Copy,
        Action::Mkdir,
    ];

    /// The action stored under `name`.
    pub fn from_name(name: &str) -> std::result::Result<Action, String> {
        Action::ALL
            .into_iter()
            .find(|a| a.as_str() == name)
            .ok_or_else(|| format!("unknown journal action {name:?}"))
    }

    /// The name stored in the journal's `action` column, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Write => "write",
            Action::Append => "append",
            Action::Edit => "edit",
            Action::Undo => "undo",
            Action::Hook => "hook",
            Action::Move => "move",
            Action::Delete => "delete",
            Action::Copy => "copy",
            Action::Mkdir => "mkdir",
        }
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One journal row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct JournalEntry {
    /// When.
    pub time: Timestamp,
    /// Who.
    pub agent: String,
    /// Which tool.
    pub action: Action,
    /// Size of the file after, in bytes.
    pub size: u64,
    /// Bytes added by this action.
    pub added: u64,
    /// sha256 of the whole file after (hex).
    pub sha256: String,
    /// `undo` with this many `steps` puts the file back as it was right after this change
    /// (0: it is the latest); absent when a change since has no kept version to undo.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub restore_with_steps: Option<u64>,
}

/// The latest recorded state of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Artifact {
    /// Root-relative path.
    pub path: String,
    /// Agent of the latest write.
    pub agent: String,
    /// Action of the latest write.
    pub action: Action,
    /// When it was last written.
    pub time: Timestamp,
    /// Size after the latest write.
    pub size: u64,
    /// sha256 after the latest write (hex).
    pub sha256: String,
    /// Number of recorded writes.
    pub writes: u64,
    /// Every recorded write, oldest first (only when history was asked for).
    pub history: Vec<JournalEntry>,
}

pub(super) fn record(
    tx: &mut dyn Tx,
    now: Timestamp,
    agent: &str,
    action: Action,
    path: &str,
    f: &WriteFacts,
    history_bytes: u64,
) -> Result<()> {
    let row = NewRow { time: now, agent, action, path, size: f.size, added: f.added, sha256: &f.sha256 };
    let journal_id = tx.add_row(row)?;
    let Some(before) = &f.before else { return Ok(()) };
    let (kind, size, content, at): (&str, u64, Option<&[u8]>, Option<u64>) = match before {
        Before::Absent => ("absent", 0, None, None),
        Before::Content(bytes) => ("content", bytes.len() as u64, Some(bytes), None),
        Before::Prefix(size) => ("prefix", *size, None, None),
        Before::Link(text) => ("link", text.len() as u64, Some(text), None),
        Before::Splice { at, old, size } => ("splice", *size, Some(old), Some(*at)),
    };
    tx.add_version(NewVersion { journal_id, kind, size, content, at })?;
    if content.is_some() { keep_within(tx, history_bytes) } else { Ok(()) }
}

/// Drops the oldest kept contents until the rest fit in `budget` bytes. The backend keeps
/// the total current as versions come and go, and finds the oldest without scanning the
/// versions (SQLite: from the newest version row, where the budget stopped; PostgreSQL: a
/// table and an index).
fn keep_within(tx: &mut dyn Tx, budget: u64) -> Result<()> {
    let mut over = tx.kept_bytes()? - budget.min(i64::MAX as u64) as i64;
    while over > 0 {
        let Some((journal_id, len)) = tx.oldest_kept()? else { break };
        tx.drop_kept(journal_id, len)?;
        over -= len;
    }
    Ok(())
}

/// The latest state of each file (filtered), with every recorded change when `history`.
pub(super) fn artifacts(
    tx: &mut dyn Tx,
    agent: Option<&str>,
    path: Option<&str>,
    history: bool,
) -> Result<Vec<Artifact>> {
    let mut out = tx.latest(agent, path)?;
    if history {
        for artifact in &mut out {
            artifact.history = entries(tx, &artifact.path)?;
        }
    }
    Ok(out)
}

fn entries(tx: &mut dyn Tx, path: &str) -> Result<Vec<JournalEntry>> {
    let rows = tx.history(path)?;
    // Entry k is restored by undoing every later change, each of which needs its kept version.
    let mut out: Vec<JournalEntry> = Vec::with_capacity(rows.len());
    let mut reachable = true;
    for (steps, (mut entry, undoable)) in rows.into_iter().rev().enumerate() {
        entry.restore_with_steps = (reachable && steps <= super::MAX_UNDO_STEPS).then_some(steps as u64);
        reachable &= undoable;
        out.push(entry);
    }
    out.reverse();
    Ok(out)
}

impl Before {
    /// The version stored as `kind`, `size`, `content` and `at`; None when none was stored
    /// or the budget dropped its content.
    pub(super) fn from_row(
        kind: Option<&str>,
        size: Option<i64>,
        content: Option<Vec<u8>>,
        at: Option<i64>,
    ) -> Option<Before> {
        let size = size.map(|s| s.max(0) as u64);
        match (kind, content) {
            (Some("absent"), _) => Some(Before::Absent),
            (Some("content"), Some(bytes)) => Some(Before::Content(bytes)),
            (Some("prefix"), _) => size.map(Before::Prefix),
            (Some("link"), Some(text)) => Some(Before::Link(text)),
            (Some("splice"), Some(old)) => Some(Before::Splice { at: at?.max(0) as u64, old, size: size? }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_are_stored_and_shown_by_their_wire_names() {
        for action in Action::ALL {
            assert_eq!(serde_json::to_value(action).ok(), Some(serde_json::json!(action.as_str())));
            assert_eq!(Action::from_name(action.as_str()), Ok(action));
        }
        assert!(Action::from_name("rename").is_err());
    }
}
