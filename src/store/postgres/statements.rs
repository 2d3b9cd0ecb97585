//! The statements of `Tx` inside one PostgreSQL transaction, prepared once per connection.
//!
//! Apart from the connection's handling because they are the store's rules put into SQL, one
//! method per statement, and change with the schema rather than with how the server is
//! reached, locked and reconnected to.

use std::collections::HashMap;

use postgres::{Statement, Transaction};

use super::Postgres;
use crate::error::{Error, Result};
use crate::store::tx::{Fence, NewRow, NewVersion, Tx};
use crate::store::{Action, Artifact, Before, Claim, JournalEntry, UndoStep};
use crate::timestamp::Timestamp;

/// The statements, inside one transaction.
pub(super) struct PgTx<'a> {
    pub(super) store: &'a Postgres,
    pub(super) tx: Transaction<'a>,
    pub(super) statements: &'a mut HashMap<&'static str, Statement>,
    /// The database's clock, read with the locks.
    pub(super) now: Option<Timestamp>,
}

impl PgTx<'_> {
    /// The statement `sql`, prepared once per connection.
    fn statement(&mut self, sql: &'static str) -> Result<Statement> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.tx.prepare(sql).map_err(|e| self.store.error(e))?;
        self.statements.insert(sql, statement.clone());
        Ok(statement)
    }

    fn query(
        &mut self,
        sql: &'static str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<postgres::Row>> {
        let statement = self.statement(sql)?;
        self.tx.query(&statement, params).map_err(|e| self.store.error(e))
    }

    fn execute(&mut self, sql: &'static str, params: &[&(dyn postgres::types::ToSql + Sync)]) -> Result<()> {
        let statement = self.statement(sql)?;
        self.tx.execute(&statement, params).map(drop).map_err(|e| self.store.error(e))
    }

    fn get<'r, V: postgres::types::FromSql<'r>>(&self, row: &'r postgres::Row, index: usize) -> Result<V> {
        row.try_get(index).map_err(|e| self.store.error(e))
    }

    fn action(&self, row: &postgres::Row, index: usize) -> Result<Action> {
        let name: &str = self.get(row, index)?;
        Action::from_name(name).map_err(|detail| Error::Store { busy: false, detail })
    }

    fn claim_of(&self, row: &postgres::Row) -> Result<Claim> {
        Ok(Claim {
            path: self.get(row, 0)?,
            agent: self.get(row, 1)?,
            since: Timestamp::from_millis(self.get(row, 2)?),
            expires: None,
            touched: Timestamp::from_millis(self.get(row, 3)?),
            token: self.get::<i64>(row, 4)?.max(0) as u64,
        })
    }
}

fn ms(t: Timestamp) -> i64 {
    t.as_millis()
}

impl Tx for PgTx<'_> {
    fn now(&mut self) -> Result<Timestamp> {
        if let Some(now) = self.now {
            return Ok(now);
        }
        let rows = self.query("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint", &[])?;
        Ok(Timestamp::from_millis(self.get(&rows[0], 0)?))
    }

    fn claim(&mut self, path: &str) -> Result<Option<Claim>> {
        let root = self.store.root.as_str();
        let rows = self.query(
            "SELECT c.path, c.agent, c.since, c.touched, COALESCE(f.token, 0)
             FROM filewright_claims c
             LEFT JOIN filewright_fences f ON f.root = c.root AND f.path = c.path
             WHERE c.root = $1 AND c.path = $2",
            &[&root, &path],
        )?;
        rows.first().map(|row| self.claim_of(row)).transpose()
    }

    fn fence(&mut self, path: &str) -> Result<Option<Fence>> {
        let root = self.store.root.as_str();
        let rows = self.query(
            "SELECT token, agent FROM filewright_fences WHERE root = $1 AND path = $2",
            &[&root, &path],
        )?;
        rows.first()
            .map(|row| Ok(Fence { token: self.get::<i64>(row, 0)?.max(0) as u64, agent: self.get(row, 1)? }))
            .transpose()
    }

    fn touch_claim(&mut self, path: &str, now: Timestamp) -> Result<()> {
        let root = self.store.root.as_str();
        self.execute(
            "UPDATE filewright_claims SET touched = $3 WHERE root = $1 AND path = $2",
            &[&root, &path, &ms(now)],
        )
    }

    fn put_claim(&mut self, path: &str, agent: &str, now: Timestamp) -> Result<()> {
        let root = self.store.root.as_str();
        self.execute(
            "INSERT INTO filewright_claims (root, path, agent, since, touched) VALUES ($1, $2, $3, $4, $4)
             ON CONFLICT (root, path) DO UPDATE SET agent = $3, since = $4, touched = $4",
            &[&root, &path, &agent, &ms(now)],
        )
    }

    fn new_token(&mut self, path: &str, agent: &str) -> Result<u64> {
        let root = self.store.root.as_str();
        let rows = self.query(
            "INSERT INTO filewright_fences (root, path, token, agent)
             VALUES ($1, $2, nextval('filewright_fencing_tokens'), $3)
             ON CONFLICT (root, path) DO UPDATE SET token = EXCLUDED.token, agent = $3
             RETURNING token",
            &[&root, &path, &agent],
        )?;
        Ok(self.get::<i64>(&rows[0], 0)?.max(0) as u64)
    }

    fn drop_claim(&mut self, path: &str) -> Result<()> {
        let root = self.store.root.as_str();
        self.execute("DELETE FROM filewright_claims WHERE root = $1 AND path = $2", &[&root, &path])
    }

    fn claimed_by(&mut self, agent: &str) -> Result<Vec<String>> {
        let root = self.store.root.as_str();
        let rows = self.query(
            "SELECT path FROM filewright_claims WHERE root = $1 AND agent = $2 ORDER BY path COLLATE \"C\"",
            &[&root, &agent],
        )?;
        rows.iter().map(|row| self.get(row, 0)).collect()
    }

    fn all_claims(&mut self) -> Result<Vec<Claim>> {
        let root = self.store.root.as_str();
        let rows = self.query(
            "SELECT c.path, c.agent, c.since, c.touched, COALESCE(f.token, 0)
             FROM filewright_claims c
             LEFT JOIN filewright_fences f ON f.root = c.root AND f.path = c.path
             WHERE c.root = $1 ORDER BY c.since, c.path COLLATE \"C\"",
            &[&root],
        )?;
        rows.iter().map(|row| self.claim_of(row)).collect()
    }

    fn add_row(&mut self, row: NewRow<'_>) -> Result<i64> {
        let root = self.store.root.as_str();
        let rows = self.query(
            "INSERT INTO filewright_journal (root, time, agent, action, path, size, added, sha256)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
            &[
                &root,
                &ms(row.time),
                &row.agent,
                &row.action.as_str(),
                &row.path,
                &(row.size as i64),
                &(row.added as i64),
                &row.sha256,
            ],
        )?;
        self.get(&rows[0], 0)
    }

    fn add_version(&mut self, v: NewVersion<'_>) -> Result<()> {
        let root = self.store.root.as_str();
        self.execute(
            "INSERT INTO filewright_versions (journal_id, root, kind, size, content, splice_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[&v.journal_id, &root, &v.kind, &(v.size as i64), &v.content, &v.at.map(|at| at as i64)],
        )?;
        let Some(content) = v.content else { return Ok(()) };
        let len = content.len() as i64;
        self.execute(
            "INSERT INTO filewright_kept (root, bytes) VALUES ($1, $2)
             ON CONFLICT (root) DO UPDATE SET bytes = filewright_kept.bytes + EXCLUDED.bytes",
            &[&root, &len],
        )
    }

    fn kept_bytes(&mut self) -> Result<i64> {
        let root = self.store.root.as_str();
        let rows = self.query("SELECT bytes FROM filewright_kept WHERE root = $1", &[&root])?;
        rows.first().map_or(Ok(0), |row| self.get(row, 0))
    }

    fn oldest_kept(&mut self) -> Result<Option<(i64, i64)>> {
        let root = self.store.root.as_str();
        let rows = self.query(
            "SELECT journal_id, LENGTH(content)::bigint FROM filewright_versions
             WHERE root = $1 AND content IS NOT NULL ORDER BY journal_id LIMIT 1",
            &[&root],
        )?;
        rows.first().map(|row| Ok((self.get(row, 0)?, self.get(row, 1)?))).transpose()
    }

    fn drop_kept(&mut self, journal_id: i64, len: i64) -> Result<()> {
        let root = self.store.root.as_str();
        self.execute("UPDATE filewright_versions SET content = NULL WHERE journal_id = $1", &[&journal_id])?;
        self.execute("UPDATE filewright_kept SET bytes = bytes - $2 WHERE root = $1", &[&root, &len])
    }

    fn last_changes(&mut self, path: &str, steps: usize) -> Result<Vec<UndoStep>> {
        let root = self.store.root.as_str();
        let rows = self.query(
            "SELECT j.action, j.agent, j.time, j.sha256, v.kind, v.size, v.content, v.splice_at
             FROM filewright_journal j LEFT JOIN filewright_versions v ON v.journal_id = j.id
             WHERE j.root = $1 AND j.path = $2 ORDER BY j.id DESC LIMIT $3",
            &[&root, &path, &(steps as i64)],
        )?;
        rows.iter()
            .map(|row| {
                Ok(UndoStep {
                    action: self.action(row, 0)?,
                    agent: self.get(row, 1)?,
                    time: Timestamp::from_millis(self.get(row, 2)?),
                    sha256_after: self.get(row, 3)?,
                    before: Before::from_row(
                        self.get(row, 4)?,
                        self.get(row, 5)?,
                        self.get(row, 6)?,
                        self.get(row, 7)?,
                    ),
                })
            })
            .collect()
    }

    fn latest(&mut self, agent: Option<&str>, path: Option<&str>) -> Result<Vec<Artifact>> {
        let root = self.store.root.as_str();
        let rows = self.query(
            "SELECT DISTINCT ON (j.path COLLATE \"C\") j.path, j.agent, j.action, j.time, j.size, j.sha256,
                    COUNT(*) OVER (PARTITION BY j.path)
             FROM filewright_journal j
             WHERE j.root = $1
               AND ($3::text IS NULL OR j.path = $3)
               AND ($2::text IS NULL OR EXISTS (
                    SELECT 1 FROM filewright_journal a WHERE a.root = $1 AND a.path = j.path AND a.agent = $2))
             ORDER BY j.path COLLATE \"C\", j.id DESC",
            &[&root, &agent, &path],
        )?;
        rows.iter()
            .map(|row| {
                Ok(Artifact {
                    path: self.get(row, 0)?,
                    agent: self.get(row, 1)?,
                    action: self.action(row, 2)?,
                    time: Timestamp::from_millis(self.get(row, 3)?),
                    size: self.get::<i64>(row, 4)?.max(0) as u64,
                    sha256: self.get(row, 5)?,
                    writes: self.get::<i64>(row, 6)?.max(0) as u64,
                    history: Vec::new(),
                })
            })
            .collect()
    }

    fn history(&mut self, path: &str) -> Result<Vec<(JournalEntry, bool)>> {
        let root = self.store.root.as_str();
        let rows = self.query(
            "SELECT j.time, j.agent, j.action, j.size, j.added, j.sha256,
                    COALESCE(v.kind IS NOT NULL AND (v.kind NOT IN ('content', 'splice') OR v.content IS NOT NULL), false)
             FROM filewright_journal j LEFT JOIN filewright_versions v ON v.journal_id = j.id
             WHERE j.root = $1 AND j.path = $2 ORDER BY j.id",
            &[&root, &path],
        )?;
        rows.iter()
            .map(|row| {
                let entry = JournalEntry {
                    time: Timestamp::from_millis(self.get(row, 0)?),
                    agent: self.get(row, 1)?,
                    action: self.action(row, 2)?,
                    size: self.get::<i64>(row, 3)?.max(0) as u64,
                    added: self.get::<i64>(row, 4)?.max(0) as u64,
                    sha256: self.get(row, 5)?,
                    restore_with_steps: None,
                };
                Ok((entry, self.get(row, 6)?))
            })
            .collect()
    }

    fn paths_since(&mut self, since: Timestamp) -> Result<Vec<String>> {
        let root = self.store.root.as_str();
        let rows = self.query(
            "SELECT path FROM filewright_journal WHERE root = $1 AND time >= $2
             GROUP BY path ORDER BY path COLLATE \"C\"",
            &[&root, &ms(since)],
        )?;
        rows.iter().map(|row| self.get(row, 0)).collect()
    }
}
