//! `claim_files`, `release_files` and `list_claims`: who may write which file.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Session, required};
use crate::error::{Error, Result};
use crate::store::{Claim, ClaimOutcome, NotReleased, ReleaseOutcome};

/// Result of `claim_files`, `release_files` and `list_claims`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ClaimsOutcome {
    /// The agent the call acted for.
    pub agent: String,
    /// Paths claimed by this call.
    pub claimed: Vec<String>,
    /// Paths released by this call.
    pub released: Vec<String>,
    /// Paths this call could not release (owned by another agent, or by nobody).
    pub not_released: Vec<NotReleased>,
    /// Every live claim on the root after the call.
    pub claims: Vec<Claim>,
    /// How many paths claimed by this call were left out of this result to keep it within its budget (50,000
    /// characters of text): they are claimed all the same.
    pub more_claimed: usize,
    /// How many paths released by this call were left out of this result to keep it within its budget (50,000
    /// characters of text): they are released all the same.
    pub more_released: usize,
    /// How many paths not released were left out of this result to keep it within its budget (50,000
    /// characters of text): release_files names fewer paths at a time.
    pub more_not_released: usize,
    /// How many live claims were left out of this result to keep it within its budget (50,000
    /// characters of text): they hold all the same.
    pub not_listed: usize,
}

impl ClaimsOutcome {
    /// The live `claims`, for `agent`, with nothing claimed or released.
    fn of(agent: String, claims: Vec<Claim>) -> ClaimsOutcome {
        ClaimsOutcome {
            agent,
            claimed: Vec::new(),
            released: Vec::new(),
            not_released: Vec::new(),
            claims,
            more_claimed: 0,
            more_released: 0,
            more_not_released: 0,
            not_listed: 0,
        }
    }
}

impl Session {
    /// `claim_files`: claim every path for the agent, or none.
    pub fn claim_files(&self, paths: Option<&[String]>, agent: Option<&str>) -> Result<ClaimsOutcome> {
        let agent = self.agent(agent)?;
        let paths = self.resolve_all(required(paths, "claim_files", "paths")?)?;
        if paths.is_empty() {
            return Err(Error::InvalidArgument { name: "paths", reason: "name at least one file".into() });
        }
        let ClaimOutcome { claimed, conflicts } = self.store.claim(&paths, &agent)?;
        if !conflicts.is_empty() {
            return Err(Error::ClaimsRefused {
                conflicts: conflicts.into_iter().map(|c| (c.path, c.agent, c.since)).collect(),
            });
        }
        Ok(ClaimsOutcome { claimed, ..ClaimsOutcome::of(agent, self.store.claims()?) })
    }

    /// `release_files`: give up the agent's claims on `paths`, or all of them.
    pub fn release_files(&self, paths: Option<&[String]>, agent: Option<&str>) -> Result<ClaimsOutcome> {
        let agent = self.agent(agent)?;
        let paths = paths.map(|p| self.resolve_all(p)).transpose()?;
        let ReleaseOutcome { released, not_released } = self.store.release(paths.as_deref(), &agent)?;
        Ok(ClaimsOutcome { released, not_released, ..ClaimsOutcome::of(agent, self.store.claims()?) })
    }

    /// `list_claims`: every live claim on this root, for `agent` (default: the server's).
    pub fn list_claims(&self, agent: Option<&str>) -> Result<ClaimsOutcome> {
        Ok(ClaimsOutcome::of(self.agent(agent)?, self.store.claims()?))
    }

    /// Root-relative names of `paths`, in-root symlinks followed: the keys claims are held under.
    fn resolve_all(&self, paths: &[String]) -> Result<Vec<String>> {
        paths.iter().map(|p| Ok(self.place(p)?.display())).collect()
    }
}
