//! Claims: which agent owns which file. Read and written only inside the store's
//! transactions.

use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};
use schemars::JsonSchema;
use serde::Serialize;

use super::db_error;
use crate::error::{Error, Result};
use crate::timestamp::Timestamp;

/// One live claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Claim {
    /// Root-relative path.
    pub path: String,
    /// The owner.
    pub agent: String,
    /// When it was first claimed.
    pub since: Timestamp,
    /// When it expires without further writes; absent without `--claim-ttl`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Timestamp")]
    pub expires: Option<Timestamp>,
    /// The owner's last write: the time to live counts from here.
    #[serde(skip)]
    pub(super) touched: Timestamp,
}

/// Result of claiming several paths at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ClaimOutcome {
    /// Paths now claimed by the caller (empty when any conflicted: all or nothing).
    pub claimed: Vec<String>,
    /// Claims held by other agents that blocked the request.
    pub conflicts: Vec<Claim>,
}

/// Result of releasing claims.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ReleaseOutcome {
    /// Paths released.
    pub released: Vec<String>,
    /// Requested paths not released: claimed by another agent (owner named) or by nobody.
    pub not_released: Vec<NotReleased>,
}

/// A path `release_files` left alone, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct NotReleased {
    /// Root-relative path.
    pub path: String,
    /// The agent that owns it; absent when nobody does.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub owner: Option<String>,
}

pub(super) fn expired(claim: &Claim, now: Timestamp, ttl: Option<Duration>) -> bool {
    ttl.is_some_and(|ttl| claim.touched.after(ttl) <= now)
}

pub(super) fn get(conn: &Connection, path: &str) -> rusqlite::Result<Option<Claim>> {
    conn.prepare_cached("SELECT path, agent, since, touched FROM claims WHERE path = ?1")?
        .query_row([path], row_to_claim)
        .optional()
}

fn row_to_claim(row: &rusqlite::Row<'_>) -> rusqlite::Result<Claim> {
    Ok(Claim {
        path: row.get(0)?,
        agent: row.get(1)?,
        since: Timestamp::from_millis(row.get(2)?),
        expires: None,
        touched: Timestamp::from_millis(row.get(3)?),
    })
}

/// Takes or refreshes `agent`'s claim on `path`; a live claim of another agent is a
/// CONFLICT error. Runs inside the caller's transaction.
pub(super) fn take(
    conn: &Connection,
    path: &str,
    agent: &str,
    now: Timestamp,
    ttl: Option<Duration>,
) -> Result<()> {
    match get(conn, path).map_err(db_error)? {
        Some(claim) if claim.agent != agent && !expired(&claim, now, ttl) => {
            Err(Error::Conflict { path: path.to_string(), owner: claim.agent, since: claim.since })
        }
        Some(claim) if claim.agent == agent => {
            conn.prepare_cached("UPDATE claims SET touched = ?2 WHERE path = ?1")
                .and_then(|mut s| s.execute(params![path, now.as_millis()]))
                .map_err(db_error)?;
            Ok(())
        }
        _ => {
            conn.prepare_cached(
                "INSERT OR REPLACE INTO claims (path, agent, since, touched) VALUES (?1, ?2, ?3, ?3)",
            )
            .and_then(|mut s| s.execute(params![path, agent, now.as_millis()]))
            .map_err(db_error)?;
            Ok(())
        }
    }
}

pub(super) fn take_all(
    conn: &Connection,
    paths: &[String],
    agent: &str,
    now: Timestamp,
    ttl: Option<Duration>,
) -> Result<ClaimOutcome> {
    let mut conflicts = Vec::new();
    for path in paths {
        if let Some(claim) = get(conn, path).map_err(db_error)?
            && claim.agent != agent
            && !expired(&claim, now, ttl)
        {
            conflicts.push(with_expiry(claim, ttl));
        }
    }
    if !conflicts.is_empty() {
        return Ok(ClaimOutcome { claimed: Vec::new(), conflicts });
    }
    for path in paths {
        take(conn, path, agent, now, ttl)?;
    }
    let mut claimed = paths.to_vec();
    claimed.sort();
    claimed.dedup();
    Ok(ClaimOutcome { claimed, conflicts })
}

pub(super) fn release(conn: &Connection, paths: Option<&[String]>, agent: &str) -> Result<ReleaseOutcome> {
    let targets: Vec<String> = match paths {
        Some(list) => list.to_vec(),
        None => {
            let mut stmt =
                conn.prepare("SELECT path FROM claims WHERE agent = ?1 ORDER BY path").map_err(db_error)?;
            stmt.query_map([agent], |r| r.get(0))
                .map_err(db_error)?
                .collect::<rusqlite::Result<_>>()
                .map_err(db_error)?
        }
    };
    let mut released = Vec::new();
    let mut not_released = Vec::new();
    for path in targets {
        match get(conn, &path).map_err(db_error)? {
            Some(claim) if claim.agent == agent => {
                conn.execute("DELETE FROM claims WHERE path = ?1", [&path]).map_err(db_error)?;
                released.push(path);
            }
            Some(claim) => not_released.push(NotReleased { path, owner: Some(claim.agent) }),
            None => not_released.push(NotReleased { path, owner: None }),
        }
    }
    Ok(ReleaseOutcome { released, not_released })
}

pub(super) fn list(conn: &Connection, now: Timestamp, ttl: Option<Duration>) -> Result<Vec<Claim>> {
    let mut stmt = conn
        .prepare("SELECT path, agent, since, touched FROM claims ORDER BY since, path")
        .map_err(db_error)?;
    let rows = stmt.query_map([], row_to_claim).map_err(db_error)?;
    let mut out = Vec::new();
    for claim in rows {
        let claim = claim.map_err(db_error)?;
        if !expired(&claim, now, ttl) {
            out.push(with_expiry(claim, ttl));
        }
    }
    Ok(out)
}

fn with_expiry(mut claim: Claim, ttl: Option<Duration>) -> Claim {
    claim.expires = ttl.map(|ttl| claim.touched.after(ttl));
    claim
}
