//! `list_artifacts`: what the journal says was written, and whether each file still matches.

use schemars::JsonSchema;
use serde::Serialize;

use super::Session;
use crate::error::{Error, Result};
use crate::files::sha256_hex;
use crate::store::{Action, Artifact};

/// One artifact from the journal, with how the file on disk compares.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ArtifactView {
    /// What the journal recorded.
    #[serde(flatten)]
    pub artifact: Artifact,
    /// How the file on disk compares with the last recorded write.
    pub on_disk: OnDisk,
    /// How many of the oldest recorded writes were left out of `history` to keep this result
    /// within its budget (50,000 characters of text): list_artifacts with `path` shows more.
    pub history_not_listed: usize,
}

/// How a file on disk compares with the journal's last record of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OnDisk {
    /// Same sha256 as the last recorded write.
    Matches,
    /// Changed since the last recorded write (by a person, a tool or another server).
    #[serde(rename = "changed since")]
    ChangedSince,
    /// The file is gone.
    Missing,
    /// The file could not be read.
    Unreadable,
}

impl OnDisk {
    /// As on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            OnDisk::Matches => "matches",
            OnDisk::ChangedSince => "changed since",
            OnDisk::Missing => "missing",
            OnDisk::Unreadable => "unreadable",
        }
    }
}

/// Result of `list_artifacts`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ArtifactsOutcome {
    /// One entry per file, by path.
    pub artifacts: Vec<ArtifactView>,
    /// How many files were left out of this result to keep it within its budget (50,000
    /// characters of text): list_artifacts with `path` (one file) or `agent` lists fewer.
    pub not_listed: usize,
}

impl Session {
    /// `list_artifacts`: what the journal says was written, and whether the file on disk
    /// still matches it.
    pub fn list_artifacts(
        &self,
        agent: Option<&str>,
        path: Option<&str>,
        history: bool,
    ) -> Result<ArtifactsOutcome> {
        let path = path.map(|p| self.ws.resolve(p)).transpose()?.map(|p| p.display());
        let artifacts = self
            .store
            .artifacts(agent, path.as_deref(), history)?
            .into_iter()
            .map(|artifact| {
                let on_disk = match self
                    .ws
                    .recorded(&artifact.path)
                    .and_then(|p| self.ws.read(&p, self.config.max_file_bytes))
                {
                    Ok(bytes) if sha256_hex(&bytes) == artifact.sha256 => OnDisk::Matches,
                    Ok(_) => OnDisk::ChangedSince,
                    Err(Error::NotFound { .. }) => OnDisk::Missing,
                    // A directory create_directory made has no content to compare.
                    Err(Error::IsDirectory { .. }) if artifact.action == Action::Mkdir => OnDisk::Matches,
                    Err(_) => OnDisk::Unreadable,
                };
                ArtifactView { artifact, on_disk, history_not_listed: 0 }
            })
            .collect();
        Ok(ArtifactsOutcome { artifacts, not_listed: 0 })
    }
}

#[cfg(test)]
mod tests {
    use super::OnDisk;

    #[test]
    fn on_disk_states_in_text_are_their_wire_names() {
        for state in [OnDisk::Matches, OnDisk::ChangedSince, OnDisk::Missing, OnDisk::Unreadable] {
            assert_eq!(serde_json::to_value(state).ok(), Some(serde_json::json!(state.as_str())));
        }
    }
}
