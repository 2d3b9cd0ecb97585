//! `copy_file`: a new file with another file's bytes and permission bits, written atomically,
//! claimed and journaled at its new path, and checked there.
//!
//! One regular file per call: a directory is refused. Copying a tree would be as many writes as
//! it has files, each claimed and undoable on its own, and all-or-nothing across them; an agent
//! that needs it lists the files (`find_files`) and copies each, seeing each result. The source
//! is only read: it is not claimed, and a symlink to it is followed only inside the root.

use schemars::JsonSchema;
use serde::Serialize;

use super::after_write::{AfterWrite, Landed};
use super::{Session, required};
use crate::error::{Error, Result};
use crate::files::encoding;
use crate::files::sha256_hex;
use crate::lines::count_lines;
use crate::store::{Action, Before, WriteFacts};
use crate::workspace::FileKind;

/// Result of `copy_file`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CopyOutcome {
    /// Always `copy`.
    pub action: Action,
    /// Root-relative path copied from (unchanged).
    pub from: String,
    /// Root-relative path of the copy.
    pub to: String,
    /// Agent that copied it.
    pub agent: String,
    /// An existing file at `to` was replaced (overwrite: true).
    pub replaced: bool,
    /// Size of the copy in bytes.
    pub size: u64,
    /// Lines in the copy.
    pub lines: usize,
    /// The permission bits given to the copy, the source's, in octal ("0755").
    pub permissions: String,
    /// The copy was read back and holds exactly the source's bytes.
    pub identical: bool,
    /// Warnings, the syntax check of the copy and the hook's run.
    #[serde(flatten)]
    pub after: AfterWrite,
}

impl Session {
    /// `copy_file`: copy the regular file `from` to `to`; an existing `to` is replaced only
    /// with `overwrite`.
    pub fn copy_file(
        &self,
        from: Option<&str>,
        to: Option<&str>,
        overwrite: bool,
        agent: Option<&str>,
    ) -> Result<CopyOutcome> {
        let (raw_from, raw_to) = (required(from, "copy_file", "from")?, required(to, "copy_file", "to")?);
        let agent = self.agent(agent)?;
        let (from, to) = (self.target(raw_from)?, self.target(raw_to)?);
        let (from_key, to_key) = (from.display(), to.display());
        if from == to {
            return Err(Error::InvalidArgument {
                name: "to",
                reason: format!("it names the same file as `from` ({from_key}); give the copy another path"),
            });
        }
        if self.ws.stat(&from)?.is_some_and(|info| info.kind == FileKind::Directory) {
            return Err(Error::InvalidArgument {
                name: "from",
                reason: format!(
                    "{from_key} is a directory, and copy_file copies one file; nothing was copied. List its \
                     files (find_files with path \"{from_key}\" and pattern \"*\") and copy each, or make the \
                     directory with create_directory"
                ),
            });
        }
        let seen = self.lock_seen();
        let ((bytes, sha256, mode, replaced_size), unrecorded) = self.store.write_claimed_then_land(
            &to_key,
            &agent,
            Action::Copy,
            || {
                self.settle_locked(&from);
                self.settle_locked(&to);
                let (info, bytes) = self
                    .ws
                    .read_if_exists(&from, self.config.max_file_bytes)?
                    .ok_or_else(|| Error::NotFound { path: from_key.clone() })?;
                let bytes = bytes?;
                // The file replaced, for undo; a file too large to keep is replaced all the same,
                // and that copy cannot be undone.
                let before = match self.ws.read_if_exists(&to, self.config.max_file_bytes)? {
                    None => Some(Before::Absent),
                    Some(_) if !overwrite => return Err(Error::AlreadyExists { path: to_key.clone() }),
                    Some((_, old)) => old.ok().map(Before::Content),
                };
                // The size of the file replaced, if one was.
                let replaced_size = self.ws.stat(&to)?.map(|old| old.size);
                let size = bytes.len() as u64;
                let sha256 = sha256_hex(&bytes);
                let facts = WriteFacts { size, added: size, sha256: sha256.clone(), before };
                Ok(((bytes, sha256, info.mode & 0o777, replaced_size), Some(facts)))
            },
            |(bytes, sha256, mode, replaced_size)| {
                let put = self.ws.put(&to, &bytes, mode, overwrite)?;
                // A file that appeared after the look above was replaced too.
                let replaced_size = replaced_size.or((!put.created).then_some(0));
                Ok((bytes, sha256, mode, replaced_size))
            },
        )?;
        // The copy has landed: from here on nothing may turn this call into an error.
        let mut warnings: Vec<String> = unrecorded.into_iter().collect();
        if let Some(old_size) = replaced_size
            && !seen.contains(&to)
        {
            warnings.push(format!(
                "you had not read {to_key} in this session before copying over it (it held {old_size} \
                 bytes); if that was not intended, undo on {to_key} brings it back"
            ));
        }
        let identical = match self.ws.read(&to, self.config.max_file_bytes) {
            Ok(back) => sha256_hex(&back) == sha256,
            Err(e) => {
                warnings.push(format!("the copy could not be read back to compare it with {from_key}: {e}"));
                false
            }
        };
        if !identical && warnings.is_empty() {
            warnings.push(format!(
                "{to_key} does not hold {from_key}'s bytes when read back: something changed it meanwhile; \
                 read it before relying on it"
            ));
        }
        let text = encoding::lossy_text(&bytes);
        let after =
            self.after_write(seen, &to, &agent, Landed::whole(&text, &bytes, &sha256, None, None), warnings);
        Ok(CopyOutcome {
            action: Action::Copy,
            from: from_key,
            to: to_key,
            agent,
            replaced: replaced_size.is_some(),
            size: bytes.len() as u64,
            lines: count_lines(text.as_bytes()),
            permissions: format!("{mode:04o}"),
            identical,
            after,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::tests::session;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn bytes_and_mode_are_copied_parents_created_and_the_copy_checked() {
        let (t, s) = session();
        let source = t.path().join("root/run.sh");
        std::fs::write(&source, "#!/bin/sh\necho hi\n").unwrap();
        std::fs::set_permissions(&source, std::fs::Permissions::from_mode(0o750)).unwrap();
        let out = s.copy_file(Some("run.sh"), Some("bin/deep/run.sh"), false, None).unwrap();
        let copy = t.path().join("root/bin/deep/run.sh");
        assert_eq!(std::fs::read(&copy).unwrap(), b"#!/bin/sh\necho hi\n");
        assert_eq!(std::fs::metadata(&copy).unwrap().permissions().mode() & 0o7777, 0o750);
        assert_eq!(
            (out.permissions.as_str(), out.identical, out.replaced, out.size, out.lines),
            ("0750", true, false, 18, 2)
        );
        assert_eq!(out.after.syntax.status, crate::check::Status::Ok);
        assert_eq!(out.after.sha256, sha256_hex(b"#!/bin/sh\necho hi\n"));
        let rows = s.store.artifacts(None, Some("bin/deep/run.sh"), false).unwrap();
        assert_eq!(rows[0].action, Action::Copy);
        assert!(
            s.store.artifacts(None, Some("run.sh"), false).unwrap().is_empty(),
            "the source is only read"
        );
    }

    #[test]
    fn an_existing_copy_is_replaced_only_with_overwrite_and_undo_puts_it_back() {
        let (t, s) = session();
        std::fs::write(t.path().join("root/a.txt"), "new\n").unwrap();
        std::fs::write(t.path().join("root/b.txt"), "old\n").unwrap();
        let err = s.copy_file(Some("a.txt"), Some("b.txt"), false, None).unwrap_err();
        assert!(matches!(err, Error::AlreadyExists { .. }), "{err}");
        assert_eq!(std::fs::read(t.path().join("root/b.txt")).unwrap(), b"old\n");
        let out = s.copy_file(Some("a.txt"), Some("b.txt"), true, None).unwrap();
        assert!(out.replaced);
        assert_eq!(
            out.after.warnings,
            ["you had not read b.txt in this session before copying over it (it held 4 bytes); if that \
              was not intended, undo on b.txt brings it back"]
        );
        assert_eq!(std::fs::read(t.path().join("root/b.txt")).unwrap(), b"new\n");
        s.undo(Some("b.txt"), None, false, None).unwrap();
        assert_eq!(std::fs::read(t.path().join("root/b.txt")).unwrap(), b"old\n");
        // A new copy undone is gone again.
        s.copy_file(Some("a.txt"), Some("c.txt"), false, None).unwrap();
        let undone = s.undo(Some("c.txt"), None, false, None).unwrap();
        assert!(undone.removed && !t.path().join("root/c.txt").exists());
    }

    #[test]
    fn directories_and_the_same_path_are_refused() {
        let (t, s) = session();
        std::fs::create_dir_all(t.path().join("root/d")).unwrap();
        std::fs::write(t.path().join("root/a.txt"), "a").unwrap();
        let err = s.copy_file(Some("d"), Some("e"), false, None).unwrap_err().to_string();
        assert!(err.contains("d is a directory, and copy_file copies one file"), "{err}");
        let err = s.copy_file(Some("a.txt"), Some("./a.txt"), true, None).unwrap_err().to_string();
        assert!(err.contains("same file"), "{err}");
        let err = s.copy_file(Some("a.txt"), Some("d"), true, None).unwrap_err();
        assert!(matches!(err, Error::IsDirectory { .. }), "{err}");
        assert!(matches!(s.copy_file(Some("nope"), Some("x"), false, None), Err(Error::NotFound { .. })));
        assert!(!t.path().join("root/e").exists() && !t.path().join("root/x").exists());
    }

    #[test]
    fn nothing_is_read_or_written_outside_the_root() {
        let (t, s) = session();
        std::fs::create_dir(t.path().join("outside")).unwrap();
        std::fs::write(t.path().join("outside/secret"), "s").unwrap();
        std::fs::write(t.path().join("root/in.txt"), "i").unwrap();
        std::os::unix::fs::symlink(t.path().join("outside"), t.path().join("root/out")).unwrap();
        std::os::unix::fs::symlink(t.path().join("outside/secret"), t.path().join("root/secret")).unwrap();
        for (from, to) in [
            ("out/secret", "x"),
            ("secret", "x"),
            ("../outside/secret", "x"),
            ("in.txt", "out/planted"),
            ("in.txt", "../planted"),
        ] {
            let err = s.copy_file(Some(from), Some(to), true, None).unwrap_err();
            assert!(matches!(err, Error::OutsideRoot { .. }), "{from} -> {to}: {err}");
        }
        assert!(!t.path().join("root/x").exists());
        let outside: Vec<_> =
            std::fs::read_dir(t.path().join("outside")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(outside, ["secret"]);
    }
}
