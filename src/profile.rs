//! Which tools a caller may use: the server's `--profile`, and over HTTP each principal's
//! (a token file's PROFILE column, or the scopes of an OAuth access token), never more than
//! the server's. Plain data, so that the auth layer and the MCP layer decide it the same way.

/// Which tools a server lists (`--profile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// Every tool.
    #[default]
    Full,
    /// Writing, reading, listing and checking; no claim or journal tools.
    Coding,
    /// Reading, listing and checking only.
    Readonly,
}

/// The tools every profile has: reading, listing and checking (`readonly`).
const READING: &[&str] = &[
    "read_file",
    "read_multiple_files",
    "read_media_file",
    "get_file_info",
    "outline",
    "find_files",
    "search_files",
    "list_directory",
    "check_files",
];

/// The tools that change files, which `coding` adds to [`READING`]. `full` adds the claim and
/// journal tools besides.
const WRITING: &[&str] = &[
    "write_file",
    "append_file",
    "edit_file",
    "edit_notebook",
    "apply_patch",
    "move_file",
    "copy_file",
    "create_directory",
    "delete_file",
    "undo",
];

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Profile::Full => "full",
            Profile::Coding => "coding",
            Profile::Readonly => "readonly",
        })
    }
}

impl std::str::FromStr for Profile {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "full" => Ok(Profile::Full),
            "coding" => Ok(Profile::Coding),
            "readonly" => Ok(Profile::Readonly),
            other => Err(format!("unknown profile {other:?}: use full, coding or readonly")),
        }
    }
}

impl Profile {
    /// Whether this profile lets a caller use `tool`.
    pub fn allows(self, tool: &str) -> bool {
        match self {
            Profile::Full => true,
            Profile::Coding => READING.contains(&tool) || WRITING.contains(&tool),
            Profile::Readonly => READING.contains(&tool),
        }
    }

    /// The narrower of two profiles: a principal never gets more than the server lists.
    pub fn within(self, server: Profile) -> Profile {
        use Profile::*;
        match (self, server) {
            (Readonly, _) | (_, Readonly) => Readonly,
            (Coding, _) | (_, Coding) => Coding,
            (Full, Full) => Full,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Profile;

    #[test]
    fn a_principal_never_gets_more_than_the_server_lists() {
        assert_eq!(Profile::Full.within(Profile::Coding), Profile::Coding);
        assert_eq!(Profile::Readonly.within(Profile::Full), Profile::Readonly);
        assert_eq!(Profile::Full.within(Profile::Full), Profile::Full);
        assert!(!Profile::Readonly.allows("write_file"));
        assert!(Profile::Readonly.allows("read_file"));
        assert!(!Profile::Coding.allows("claim_files"));
        assert!(Profile::Full.allows("claim_files"));
    }
}
