//! Who a call acts as when the caller is authenticated (over HTTP): the principal, never the
//! `agent` argument. Claims, the journal, undo and `list_artifacts` record the agent a call
//! acts as, so an argument that could name anyone would make every claim a formality.

use crate::error::Error;
use crate::profile::Profile;

/// Tools whose `agent` argument chooses whose records to show rather than who acts: any
/// caller may pass any agent there.
const AGENT_FILTERS: &[&str] = &["list_artifacts"];

/// Whether `tool`'s `agent` argument, when it has one, names who acts.
pub fn agent_names_actor(tool: &str) -> bool {
    !AGENT_FILTERS.contains(&tool)
}

/// The agent a call of a caller authenticated as `authenticated` acts as: that one, whatever
/// `given` says; a `given` that names another agent is refused rather than silently replaced,
/// so that a model that meant to act for someone else learns it cannot.
pub fn acting_agent(authenticated: &str, given: Option<&str>) -> Result<String, Error> {
    match given {
        Some(given) if given != authenticated => {
            Err(Error::NotYourAgent { authenticated: authenticated.to_string(), given: given.to_string() })
        }
        _ => Ok(authenticated.to_string()),
    }
}

/// Refuses `tool` for a caller whose profile leaves it out, naming the scope it needs.
pub fn allowed(tool: &str, profile: Profile, scope: &'static str) -> Result<(), Error> {
    if profile.allows(tool) {
        return Ok(());
    }
    Err(Error::NotInScope { tool: tool.to_string(), scope, profile })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_authenticated_agent_acts_and_another_name_is_refused() {
        assert_eq!(acting_agent("alice", None).unwrap(), "alice");
        assert_eq!(acting_agent("alice", Some("alice")).unwrap(), "alice");
        let refused = acting_agent("alice", Some("bob")).unwrap_err().to_string();
        assert!(
            refused.contains("\"alice\"") && refused.contains("\"bob\"") && refused.contains("Omit `agent`"),
            "{refused}"
        );
        assert!(agent_names_actor("write_file") && agent_names_actor("undo"));
        assert!(!agent_names_actor("list_artifacts"));
    }

    #[test]
    fn a_tool_outside_the_profile_is_refused_with_its_scope() {
        assert!(allowed("read_file", Profile::Readonly, "files:read").is_ok());
        let refused = allowed("write_file", Profile::Readonly, "files:write").unwrap_err().to_string();
        assert!(refused.contains("files:write") && refused.contains("readonly"), "{refused}");
    }
}
