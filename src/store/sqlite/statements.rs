//! The statements of `Tx` on a SQLite connection, and the history budget's running total
//! that the newest version row carries.
//!
//! Apart from opening the database because they are the store's rules put into SQL, one
//! method per statement, and change with the schema rather than with how the database is
//! opened, shared and checkpointed.

use rusqlite::{Connection, OptionalExtension, params};

use super::db_error;
use crate::error::Result;
use crate::store::tx::{Fence, NewRow, NewVersion, Tx};
use crate::store::{Action, Artifact, Before, Claim, JournalEntry, UndoStep};
use crate::timestamp::Timestamp;

impl rusqlite::types::FromSql for Action {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        Action::from_name(value.as_str()?).map_err(|e| rusqlite::types::FromSqlError::Other(e.into()))
    }
}

/// The statements, on a connection inside the caller's transaction (or none, for reads), and
/// the history budget's running state once this transaction has read or set it: nothing else
/// writes the versions while the transaction holds the database's write lock.
pub(super) struct SqliteTx<'c>(pub(super) &'c Connection, pub(super) Option<(i64, i64)>);

fn row_to_claim(row: &rusqlite::Row<'_>) -> rusqlite::Result<Claim> {
    Ok(Claim {
        path: row.get(0)?,
        agent: row.get(1)?,
        since: Timestamp::from_millis(row.get(2)?),
        expires: None,
        touched: Timestamp::from_millis(row.get(3)?),
        token: row.get::<_, i64>(4)?.max(0) as u64,
    })
}

const CLAIM_COLUMNS: &str = "c.path, c.agent, c.since, c.touched, COALESCE(f.token, 0)
    FROM claims c LEFT JOIN fences f ON f.path = c.path";

impl SqliteTx<'_> {
    /// The history budget's running state, as the newest version row carries it: the bytes of
    /// content kept, and the journal id below which none is. Counted over every version when
    /// there is no such row yet or an older filewright wrote it (its columns are NULL).
    fn running(&mut self) -> Result<(i64, i64)> {
        if let Some(running) = self.1 {
            return Ok(running);
        }
        let running = self.read_running()?;
        self.1 = Some(running);
        Ok(running)
    }

    /// [`SqliteTx::running`] as the database has it.
    fn read_running(&self) -> Result<(i64, i64)> {
        let newest: Option<(Option<i64>, Option<i64>)> = self
            .0
            .prepare_cached("SELECT kept_total, kept_from FROM versions ORDER BY journal_id DESC LIMIT 1")
            .and_then(|mut s| s.query_row([], |r| Ok((r.get(0)?, r.get(1)?))).optional())
            .map_err(db_error)?;
        match newest {
            None => Ok((0, 0)),
            Some((Some(total), Some(from))) => Ok((total, from)),
            Some(_) => self
                .0
                .query_row(
                    "SELECT COALESCE(SUM(LENGTH(content)), 0),
                            COALESCE((SELECT MIN(journal_id) FROM versions WHERE content IS NOT NULL), 0)
                     FROM versions",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .map_err(db_error),
        }
    }
}

impl Tx for SqliteTx<'_> {
    fn now(&mut self) -> Result<Timestamp> {
        Ok(Timestamp::now())
    }

    fn claim(&mut self, path: &str) -> Result<Option<Claim>> {
        self.0
            .prepare_cached(&format!("SELECT {CLAIM_COLUMNS} WHERE c.path = ?1"))
            .and_then(|mut s| s.query_row([path], row_to_claim).optional())
            .map_err(db_error)
    }

    fn fence(&mut self, path: &str) -> Result<Option<Fence>> {
        self.0
            .prepare_cached("SELECT token, agent FROM fences WHERE path = ?1")
            .and_then(|mut s| {
                s.query_row([path], |r| {
                    Ok(Fence { token: r.get::<_, i64>(0)?.max(0) as u64, agent: r.get(1)? })
                })
                .optional()
            })
            .map_err(db_error)
    }

    fn touch_claim(&mut self, path: &str, now: Timestamp) -> Result<()> {
        self.0
            .prepare_cached("UPDATE claims SET touched = ?2 WHERE path = ?1")
            .and_then(|mut s| s.execute(params![path, now.as_millis()]))
            .map(drop)
            .map_err(db_error)
    }

    fn put_claim(&mut self, path: &str, agent: &str, now: Timestamp) -> Result<()> {
        self.0
            .prepare_cached(
                "INSERT OR REPLACE INTO claims (path, agent, since, touched) VALUES (?1, ?2, ?3, ?3)",
            )
            .and_then(|mut s| s.execute(params![path, agent, now.as_millis()]))
            .map(drop)
            .map_err(db_error)
    }

    fn new_token(&mut self, path: &str, agent: &str) -> Result<u64> {
        let token: i64 = self
            .0
            .prepare_cached("UPDATE fencing_tokens SET last = last + 1 WHERE id = 1 RETURNING last")
            .and_then(|mut s| s.query_row([], |r| r.get(0)))
            .map_err(db_error)?;
        self.0
            .prepare_cached("INSERT OR REPLACE INTO fences (path, token, agent) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| s.execute(params![path, token, agent]))
            .map_err(db_error)?;
        Ok(token as u64)
    }

    fn drop_claim(&mut self, path: &str) -> Result<()> {
        self.0.execute("DELETE FROM claims WHERE path = ?1", [path]).map(drop).map_err(db_error)
    }

    fn claimed_by(&mut self, agent: &str) -> Result<Vec<String>> {
        let mut stmt =
            self.0.prepare("SELECT path FROM claims WHERE agent = ?1 ORDER BY path").map_err(db_error)?;
        let rows = stmt.query_map([agent], |r| r.get(0)).map_err(db_error)?;
        rows.collect::<rusqlite::Result<_>>().map_err(db_error)
    }

    fn all_claims(&mut self) -> Result<Vec<Claim>> {
        let mut stmt =
            self.0.prepare(&format!("SELECT {CLAIM_COLUMNS} ORDER BY c.since, c.path")).map_err(db_error)?;
        let rows = stmt.query_map([], row_to_claim).map_err(db_error)?;
        rows.collect::<rusqlite::Result<_>>().map_err(db_error)
    }

    fn add_row(&mut self, row: NewRow<'_>) -> Result<i64> {
        self.0
            .prepare_cached(
                "INSERT INTO journal (time, agent, action, path, size, added, sha256)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    row.time.as_millis(),
                    row.agent,
                    row.action.as_str(),
                    row.path,
                    row.size as i64,
                    row.added as i64,
                    row.sha256
                ])
            })
            .map_err(db_error)?;
        Ok(self.0.last_insert_rowid())
    }

    fn add_version(&mut self, v: NewVersion<'_>) -> Result<()> {
        // The new row is the newest: it carries the running state on, with its own content.
        let (total, from) = self.running()?;
        let total = total + v.content.map_or(0, |c| c.len() as i64);
        self.0
            .prepare_cached(
                "INSERT INTO versions (journal_id, kind, size, content, splice_at, kept_total, kept_from)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    v.journal_id,
                    v.kind,
                    v.size as i64,
                    v.content,
                    v.at.map(|at| at as i64),
                    total,
                    from
                ])
            })
            .map_err(db_error)?;
        self.1 = Some((total, from));
        Ok(())
    }

    fn kept_bytes(&mut self) -> Result<i64> {
        Ok(self.running()?.0)
    }

    fn oldest_kept(&mut self) -> Result<Option<(i64, i64)>> {
        // Walks the table from where the budget stopped, past the versions that never had
        // content to keep: each is passed once, as that point only moves on.
        let (_, from) = self.running()?;
        self.0
            .prepare_cached(
                "SELECT journal_id, LENGTH(content) FROM versions WHERE journal_id >= ?1 AND content IS NOT NULL
                 ORDER BY journal_id LIMIT 1",
            )
            .and_then(|mut s| s.query_row([from], |r| Ok((r.get(0)?, r.get(1)?))).optional())
            .map_err(db_error)
    }

    fn drop_kept(&mut self, journal_id: i64, len: i64) -> Result<()> {
        let (total, _) = self.running()?;
        self.0
            .prepare_cached("UPDATE versions SET content = NULL WHERE journal_id = ?1")
            .and_then(|mut s| s.execute([journal_id]))
            .map_err(db_error)?;
        // The newest row is on the page this change writes anyway: no page more.
        self.0
            .prepare_cached(
                "UPDATE versions SET kept_total = ?1, kept_from = ?2
                 WHERE journal_id = (SELECT MAX(journal_id) FROM versions)",
            )
            .and_then(|mut s| s.execute(params![total - len, journal_id + 1]))
            .map_err(db_error)?;
        self.1 = Some((total - len, journal_id + 1));
        Ok(())
    }

    fn last_changes(&mut self, path: &str, steps: usize) -> Result<Vec<UndoStep>> {
        let mut stmt = self
            .0
            .prepare(
                "SELECT j.action, j.agent, j.time, j.sha256, v.kind, v.size, v.content, v.splice_at
                 FROM journal j LEFT JOIN versions v ON v.journal_id = j.id
                 WHERE j.path = ?1 ORDER BY j.id DESC LIMIT ?2",
            )
            .map_err(db_error)?;
        let rows = stmt
            .query_map(params![path, steps as i64], |r| {
                Ok(UndoStep {
                    action: r.get(0)?,
                    agent: r.get(1)?,
                    time: Timestamp::from_millis(r.get(2)?),
                    sha256_after: r.get(3)?,
                    before: Before::from_row(
                        r.get::<_, Option<String>>(4)?.as_deref(),
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                    ),
                })
            })
            .map_err(db_error)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)
    }

    fn latest(&mut self, agent: Option<&str>, path: Option<&str>) -> Result<Vec<Artifact>> {
        let mut stmt = self
            .0
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
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)
    }

    fn history(&mut self, path: &str) -> Result<Vec<(JournalEntry, bool)>> {
        let mut stmt = self
            .0
            .prepare(
                "SELECT j.time, j.agent, j.action, j.size, j.added, j.sha256,
                        v.kind IS NOT NULL AND (v.kind NOT IN ('content', 'splice') OR v.content IS NOT NULL)
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
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)
    }

    fn paths_since(&mut self, since: Timestamp) -> Result<Vec<String>> {
        let mut stmt = self
            .0
            .prepare("SELECT DISTINCT path FROM journal WHERE time >= ?1 ORDER BY path")
            .map_err(db_error)?;
        let rows = stmt.query_map([since.as_millis()], |r| r.get(0)).map_err(db_error)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_are_read_back_from_their_stored_names() {
        for action in Action::ALL {
            let stored = rusqlite::types::ValueRef::Text(action.as_str().as_bytes());
            assert_eq!(<Action as rusqlite::types::FromSql>::column_result(stored).ok(), Some(action));
        }
    }
}
