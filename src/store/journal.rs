//! The journal: one row per successful write, append or edit, so that an agent or a person
//! can see which artifacts exist, who wrote them, and verify them (sha256).

use rusqlite::{Connection, OptionalExtension, params};
use schemars::JsonSchema;
use serde::Serialize;

use super::{Before, UndoStep, WriteFacts, db_error};
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
}

impl Action {
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
        }
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl rusqlite::types::FromSql for Action {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        match value.as_str()? {
            "write" => Ok(Action::Write),
            "append" => Ok(Action::Append),
            "edit" => Ok(Action::Edit),
            "undo" => Ok(Action::Undo),
            "hook" => Ok(Action::Hook),
            "move" => Ok(Action::Move),
            "delete" => Ok(Action::Delete),
            other => {
                Err(rusqlite::types::FromSqlError::Other(format!("unknown journal action {other:?}").into()))
            }
        }
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
    conn: &Connection,
    now: Timestamp,
    agent: &str,
    action: Action,
    path: &str,
    f: &WriteFacts,
    history_bytes: u64,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO journal (time, agent, action, path, size, added, sha256) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )
    .and_then(|mut s| {
        s.execute(params![now.as_millis(), agent, action.as_str(), path, f.size as i64, f.added as i64, f.sha256])
    })
    .map_err(db_error)?;
    let Some(before) = &f.before else { return Ok(()) };
    let id = conn.last_insert_rowid();
    let (kind, size, content): (&str, u64, Option<&[u8]>) = match before {
        Before::Absent => ("absent", 0, None),
        Before::Content(bytes) => ("content", bytes.len() as u64, Some(bytes)),
        Before::Prefix(size) => ("prefix", *size, None),
    };
    conn.prepare_cached("INSERT INTO versions (journal_id, kind, size, content) VALUES (?1, ?2, ?3, ?4)")
        .and_then(|mut s| s.execute(params![id, kind, size as i64, content]))
        .map_err(db_error)?;
    if content.is_some() { keep_within(conn, history_bytes) } else { Ok(()) }
}

/// Drops the oldest kept contents until the rest fit in `budget` bytes. The total comes from
/// the `kept` row the schema's triggers keep current, and the oldest from the `versions_kept`
/// index: no write scans the versions.
fn keep_within(conn: &Connection, budget: u64) -> Result<()> {
    let total: i64 = conn
        .prepare_cached("SELECT bytes FROM kept WHERE id = 1")
        .and_then(|mut s| s.query_row([], |r| r.get(0)))
        .map_err(db_error)?;
    let mut over = total - budget.min(i64::MAX as u64) as i64;
    while over > 0 {
        let oldest: Option<(i64, i64)> = conn
            .prepare_cached(
                "SELECT journal_id, LENGTH(content) FROM versions WHERE content IS NOT NULL ORDER BY journal_id LIMIT 1",
            )
            .and_then(|mut s| s.query_row([], |r| Ok((r.get(0)?, r.get(1)?))).optional())
            .map_err(db_error)?;
        let Some((id, len)) = oldest else { break };
        conn.prepare_cached("UPDATE versions SET content = NULL WHERE journal_id = ?1")
            .and_then(|mut s| s.execute([id]))
            .map_err(db_error)?;
        over -= len;
    }
    Ok(())
}

/// The last `steps` changes of `path`, newest first (fewer when the journal has fewer).
pub(super) fn undo_steps(conn: &Connection, path: &str, steps: usize) -> Result<Vec<UndoStep>> {
    let mut stmt = conn
        .prepare(
            "SELECT j.action, j.agent, j.time, j.sha256, v.kind, v.size, v.content
             FROM journal j LEFT JOIN versions v ON v.journal_id = j.id
             WHERE j.path = ?1 ORDER BY j.id DESC LIMIT ?2",
        )
        .map_err(db_error)?;
    let rows = stmt
        .query_map(params![path, steps as i64], |r| {
            let kind: Option<String> = r.get(4)?;
            let size: Option<i64> = r.get(5)?;
            let content: Option<Vec<u8>> = r.get(6)?;
            let before = match (kind.as_deref(), content) {
                (Some("absent"), _) => Some(Before::Absent),
                (Some("content"), Some(bytes)) => Some(Before::Content(bytes)),
                (Some("prefix"), _) => size.map(|s| Before::Prefix(s.max(0) as u64)),
                _ => None,
            };
            Ok(UndoStep {
                action: r.get(0)?,
                agent: r.get(1)?,
                time: Timestamp::from_millis(r.get(2)?),
                sha256_after: r.get(3)?,
                before,
            })
        })
        .map_err(db_error)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)
}

pub(super) fn artifacts(
    conn: &Connection,
    agent: Option<&str>,
    path: Option<&str>,
    history: bool,
) -> Result<Vec<Artifact>> {
    let mut stmt = conn
        .prepare(
            "SELECT j.path, j.agent, j.action, j.time, j.size, j.sha256,
                    (SELECT COUNT(*) FROM journal c WHERE c.path = j.path)
             FROM journal j
             WHERE j.id = (SELECT MAX(id) FROM journal m WHERE m.path = j.path)
               AND (?1 IS NULL OR EXISTS (SELECT 1 FROM journal a WHERE a.path = j.path AND a.agent = ?1))
               AND (?2 IS NULL OR j.path = ?2)
             ORDER BY j.path",
        )
        .map_err(db_error)?;
    let rows = stmt
        .query_map(params![agent, path], |r| {
            Ok(Artifact {
                path: r.get(0)?,
                agent: r.get(1)?,
                action: r.get(2)?,
                time: Timestamp::from_millis(r.get(3)?),
                size: r.get::<_, i64>(4)? as u64,
                sha256: r.get(5)?,
                writes: r.get::<_, i64>(6)? as u64,
                history: Vec::new(),
            })
        })
        .map_err(db_error)?;
    let mut out = Vec::new();
    for artifact in rows {
        let mut artifact = artifact.map_err(db_error)?;
        if history {
            artifact.history = entries(conn, &artifact.path)?;
        }
        out.push(artifact);
    }
    Ok(out)
}

fn entries(conn: &Connection, path: &str) -> Result<Vec<JournalEntry>> {
    let mut stmt = conn
        .prepare(
            "SELECT j.time, j.agent, j.action, j.size, j.added, j.sha256,
                    v.kind IS NOT NULL AND (v.kind <> 'content' OR v.content IS NOT NULL)
             FROM journal j LEFT JOIN versions v ON v.journal_id = j.id
             WHERE j.path = ?1 ORDER BY j.id",
        )
        .map_err(db_error)?;
    let rows = stmt
        .query_map([path], |r| {
            let entry = JournalEntry {
                time: Timestamp::from_millis(r.get(0)?),
                agent: r.get(1)?,
                action: r.get(2)?,
                size: r.get::<_, i64>(3)? as u64,
                added: r.get::<_, i64>(4)? as u64,
                sha256: r.get(5)?,
                restore_with_steps: None,
            };
            Ok((entry, r.get::<_, bool>(6)?))
        })
        .map_err(db_error)?;
    let rows = rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)?;
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

pub(super) fn paths(conn: &Connection, since: Timestamp) -> Result<Vec<String>> {
    let mut stmt =
        conn.prepare("SELECT DISTINCT path FROM journal WHERE time >= ?1 ORDER BY path").map_err(db_error)?;
    let rows = stmt.query_map([since.as_millis()], |r| r.get(0)).map_err(db_error)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_are_stored_and_shown_by_their_wire_names() {
        for action in [
            Action::Write,
            Action::Append,
            Action::Edit,
            Action::Undo,
            Action::Hook,
            Action::Move,
            Action::Delete,
        ] {
            assert_eq!(serde_json::to_value(action).ok(), Some(serde_json::json!(action.as_str())));
            let stored = rusqlite::types::ValueRef::Text(action.as_str().as_bytes());
            assert_eq!(<Action as rusqlite::types::FromSql>::column_result(stored).ok(), Some(action));
        }
    }
}
