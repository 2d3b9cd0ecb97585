//! `create_directory`: make a directory and its missing parents, claimed and journaled, so
//! that an agent need not write a placeholder file to get one.
//!
//! A directory that is already there is a success that says so (nothing is claimed or
//! journaled then: nothing changed). A directory holds no content to restore, so its row in
//! the journal keeps no version: `undo` does not remove it; `delete_file` does, when empty.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Session, required};
use crate::error::Result;
use crate::files::sha256_hex;
use crate::store::{Action, WriteFacts};
use crate::workspace::FileKind;

/// Result of `create_directory`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MkdirOutcome {
    /// Always `mkdir`.
    pub action: Action,
    /// Root-relative path of the directory.
    pub path: String,
    /// Agent that created it.
    pub agent: String,
    /// The directories this call created, outermost first; empty when it already existed.
    pub created: Vec<String>,
    /// The directory was already there: nothing was changed.
    pub existed: bool,
    /// Things the caller should know although the call succeeded.
    pub warnings: Vec<String>,
}

impl Session {
    /// `create_directory`: `path` and its missing parents, inside the root.
    pub fn create_directory(&self, path: Option<&str>, agent: Option<&str>) -> Result<MkdirOutcome> {
        let raw_path = required(path, "create_directory", "path")?;
        let agent = self.agent(agent)?;
        // A symlink inside the root to a directory names that directory; a trailing `/` is
        // welcome here, where the path names a directory that may not exist yet.
        let path = self.ws.follow(&self.ws.resolve_dir(raw_path)?)?;
        let key = path.display();
        let outcome = |created: Vec<String>, warnings| MkdirOutcome {
            action: Action::Mkdir,
            existed: created.is_empty(),
            path: key.clone(),
            agent: agent.clone(),
            created,
            warnings,
        };
        // What is in the way, if anything, is told by the creation, which names it.
        if matches!(self.ws.stat(&path), Ok(Some(info)) if info.kind == FileKind::Directory) {
            return Ok(outcome(Vec::new(), Vec::new()));
        }
        let _writing = self.lock_seen();
        let (created, unrecorded) = self.store.write_claimed(&key, &agent, Action::Mkdir, || {
            let created = self.ws.create_dirs(&path)?;
            // Made by another process between the look above and the claim: nothing changed here.
            let facts = (!created.is_empty()).then(|| WriteFacts {
                size: 0,
                added: 0,
                sha256: sha256_hex(b""),
                before: None,
            });
            Ok((created, facts))
        })?;
        let created = created.iter().map(|p| p.display()).collect();
        Ok(outcome(created, unrecorded.into_iter().collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::session::tests::session;

    #[test]
    fn parents_are_created_and_listed_outermost_first() {
        let (t, s) = session();
        std::fs::create_dir(t.path().join("root/a")).unwrap();
        let out = s.create_directory(Some("a/b/c"), None).unwrap();
        assert_eq!((out.created, out.existed), (vec!["a/b".to_string(), "a/b/c".into()], false));
        assert!(t.path().join("root/a/b/c").is_dir());
        let rows = s.store.artifacts(None, Some("a/b/c"), false).unwrap();
        assert_eq!(
            rows.iter().map(|r| (r.action, r.agent.as_str())).collect::<Vec<_>>(),
            [(Action::Mkdir, "tester")]
        );
    }

    #[test]
    fn an_existing_directory_is_a_success_that_changes_nothing() {
        let (t, s) = session();
        std::fs::create_dir_all(t.path().join("root/d")).unwrap();
        let out = s.create_directory(Some("d"), None).unwrap();
        assert!(out.existed && out.created.is_empty());
        assert!(s.store.artifacts(None, Some("d"), false).unwrap().is_empty(), "no journal row");
        assert!(s.store.claims().unwrap().is_empty(), "no claim");
    }

    #[test]
    fn a_file_in_the_way_is_an_error_that_names_it() {
        let (t, s) = session();
        std::fs::write(t.path().join("root/f"), "x").unwrap();
        let err = s.create_directory(Some("f"), None).unwrap_err();
        assert!(err.to_string().starts_with("cannot create the directory f: it is a file"), "{err}");
        let err = s.create_directory(Some("f/g/h"), None).unwrap_err();
        assert!(err.to_string().contains("its parent f is a file"), "{err}");
        assert!(matches!(err, Error::FileInTheWay { .. }));
        assert!(!t.path().join("root/f/g").exists());
    }

    #[test]
    fn nothing_is_created_outside_the_root() {
        let (t, s) = session();
        std::fs::create_dir(t.path().join("outside")).unwrap();
        std::os::unix::fs::symlink(t.path().join("outside"), t.path().join("root/out")).unwrap();
        for escape in ["../escaped", "out/escaped", "out"] {
            let err = s.create_directory(Some(escape), None).unwrap_err();
            assert!(matches!(err, Error::OutsideRoot { .. }), "{escape}: {err}");
        }
        let absolute = t.path().join("outside/abs").display().to_string();
        assert!(matches!(s.create_directory(Some(&absolute), None), Err(Error::OutsideRoot { .. })));
        assert_eq!(std::fs::read_dir(t.path().join("outside")).unwrap().count(), 0);
        assert!(!t.path().join("escaped").exists());
    }
}
