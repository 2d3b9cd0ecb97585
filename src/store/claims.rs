//! Claims: which agent owns which file, and the fencing tokens that tell a writer its claim
//! was taken over. The rules, over any backend's statements ([`Tx`]).

use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;

use super::tx::Tx;
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
    /// The fencing token: taken from the root's sequence when the claim was taken, so a
    /// later claim of the path always has a greater one. A writer whose token was superseded
    /// (the claim expired and another agent took the path) is refused.
    pub token: u64,
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

/// The longest a claim's last write may go unrecorded: a hundredth of its time to live, and
/// never more than a second. An owner writing again sooner leaves the claim's row as it is,
/// so that a burst of writes to one file does not rewrite that row (a page of the database)
/// on every call; the claim then expires at most this much earlier than it would have.
const TOUCH_EVERY_MAX: Duration = Duration::from_secs(1);

fn touch_every(ttl: Option<Duration>) -> Duration {
    ttl.map_or(TOUCH_EVERY_MAX, |ttl| (ttl / 100).min(TOUCH_EVERY_MAX))
}

/// Takes or refreshes `agent`'s claim on `path` and returns its token. A live claim of
/// another agent is a CONFLICT. `held` is the token this process last held for `agent` on
/// `path`: when another agent has been given the path under a newer token since (its claim
/// may have lapsed or been released by now), the write is refused as superseded.
pub(super) fn take(
    tx: &mut dyn Tx,
    path: &str,
    agent: &str,
    now: Timestamp,
    ttl: Option<Duration>,
    held: Option<u64>,
) -> Result<u64> {
    let claim = tx.claim(path)?;
    if let Some(claim) = &claim
        && claim.agent != agent
        && !expired(claim, now, ttl)
    {
        return Err(Error::Conflict {
            path: path.to_string(),
            owner: claim.agent.clone(),
            since: claim.since,
        });
    }
    if let Some(token) = held
        && let Some(fence) = tx.fence(path)?
        && fence.token != token
        && fence.agent != agent
    {
        return Err(Error::Superseded {
            path: path.to_string(),
            token,
            by: fence.agent,
            by_token: fence.token,
        });
    }
    match claim {
        Some(claim) if claim.agent == agent => {
            if claim.touched.after(touch_every(ttl)) <= now {
                tx.touch_claim(path, now)?;
            }
            match claim.token {
                // A claim made before fencing tokens existed gets one now, and keeps its time.
                0 => tx.new_token(path, agent),
                token => Ok(token),
            }
        }
        _ => {
            tx.put_claim(path, agent, now)?;
            tx.new_token(path, agent)
        }
    }
}

/// Claims every path for `agent` (an explicit claim: any superseded token is forgotten), or
/// none when another agent holds a live claim on any of them. Returns the tokens taken.
pub(super) fn take_all(
    tx: &mut dyn Tx,
    paths: &[String],
    agent: &str,
    now: Timestamp,
    ttl: Option<Duration>,
) -> Result<(ClaimOutcome, Vec<(String, u64)>)> {
    let mut conflicts = Vec::new();
    for path in paths {
        if let Some(claim) = tx.claim(path)?
            && claim.agent != agent
            && !expired(&claim, now, ttl)
        {
            conflicts.push(with_expiry(claim, ttl));
        }
    }
    if !conflicts.is_empty() {
        return Ok((ClaimOutcome { claimed: Vec::new(), conflicts }, Vec::new()));
    }
    let mut claimed = paths.to_vec();
    claimed.sort();
    claimed.dedup();
    let mut tokens = Vec::with_capacity(claimed.len());
    for path in &claimed {
        tokens.push((path.clone(), take(tx, path, agent, now, ttl, None)?));
    }
    Ok((ClaimOutcome { claimed, conflicts }, tokens))
}

pub(super) fn release(tx: &mut dyn Tx, paths: Option<&[String]>, agent: &str) -> Result<ReleaseOutcome> {
    let targets: Vec<String> = match paths {
        Some(list) => list.to_vec(),
        None => tx.claimed_by(agent)?,
    };
    let mut released = Vec::new();
    let mut not_released = Vec::new();
    for path in targets {
        match tx.claim(&path)? {
            Some(claim) if claim.agent == agent => {
                tx.drop_claim(&path)?;
                released.push(path);
            }
            Some(claim) => not_released.push(NotReleased { path, owner: Some(claim.agent) }),
            None => not_released.push(NotReleased { path, owner: None }),
        }
    }
    Ok(ReleaseOutcome { released, not_released })
}

/// Every live claim, oldest first.
pub(super) fn list(tx: &mut dyn Tx, ttl: Option<Duration>) -> Result<Vec<Claim>> {
    let now = tx.now()?;
    Ok(tx.all_claims()?.into_iter().filter(|c| !expired(c, now, ttl)).map(|c| with_expiry(c, ttl)).collect())
}

fn with_expiry(mut claim: Claim, ttl: Option<Duration>) -> Claim {
    claim.expires = ttl.map(|ttl| claim.touched.after(ttl));
    claim
}
