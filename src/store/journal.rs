//! The journal: one row per successful write, append or edit, so that an agent or a person
//! can see which artifacts exist, who wrote them, and verify them (sha256).

use rusqlite::{Connection, params};
use schemars::JsonSchema;
use serde::Serialize;

use super::{WriteFacts, db_error};
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
}

impl Action {
    /// The name stored in the journal's `action` column, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Write => "write",
            Action::Append => "append",
            Action::Edit => "edit",
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
) -> Result<()> {
    conn.execute(
        "INSERT INTO journal (time, agent, action, path, size, added, sha256) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![now.as_millis(), agent, action.as_str(), path, f.size as i64, f.added as i64, f.sha256],
    )
    .map_err(db_error)?;
    Ok(())
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
        .prepare("SELECT time, agent, action, size, added, sha256 FROM journal WHERE path = ?1 ORDER BY id")
        .map_err(db_error)?;
    let rows = stmt
        .query_map([path], |r| {
            Ok(JournalEntry {
                time: Timestamp::from_millis(r.get(0)?),
                agent: r.get(1)?,
                action: r.get(2)?,
                size: r.get::<_, i64>(3)? as u64,
                added: r.get::<_, i64>(4)? as u64,
                sha256: r.get(5)?,
            })
        })
        .map_err(db_error)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)
}

pub(super) fn paths(conn: &Connection, since: Timestamp) -> Result<Vec<String>> {
    let mut stmt =
        conn.prepare("SELECT DISTINCT path FROM journal WHERE time >= ?1 ORDER BY path").map_err(db_error)?;
    let rows = stmt.query_map([since.as_millis()], |r| r.get(0)).map_err(db_error)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)
}
