//! `get_file_info`: what a file is, without reading it into the model's context: its kind, size,
//! times and permissions, what its bytes are (lines, line endings, encoding, an image's type,
//! the sha256), its syntax status, and what the journal and the claims say of it.
//!
//! It is meant to be cheap, so it computes only what it can afford and says what it left out:
//! the content facts need the whole file read (not past `--max-file-bytes`), and the syntax
//! status a parse (not past [`INFO_CHECK_BYTES`]: `check_files` checks a larger file).

use schemars::JsonSchema;
use serde::Serialize;

use super::{LineEndings, OnDisk, Session, required};
use crate::check::{self, LanguageName, Report};
use crate::error::{Error, Result};
use crate::files::encoding;
use crate::files::media::{self, ImageKind};
use crate::files::sha256_hex;
use crate::lines::count_lines;
use crate::store::{Action, Claim};
use crate::timestamp::Timestamp;
use crate::workspace::{FileInfo, FileKind, RootPath};

/// Files up to this size get a syntax status; a larger one is left to `check_files`.
pub const INFO_CHECK_BYTES: u64 = 1024 * 1024;

/// Result of `get_file_info`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct InfoOutcome {
    /// Root-relative path asked about ("." for the root).
    pub path: String,
    /// When `path` is a symbolic link (to somewhere inside the root): the path it leads to,
    /// which the facts below describe.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub link_to: Option<String>,
    /// `file`, `dir`, or `other` (a FIFO, socket or device).
    pub kind: FileKind,
    /// Size in bytes (for a directory, what the system reports for the directory itself).
    pub size: u64,
    /// Last modification.
    pub modified: Timestamp,
    /// Permission bits in octal, like "0644".
    pub permissions: String,
    /// Entries in a directory (hidden ones included); absent for a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub entries: Option<usize>,
    /// The file holds binary data (a NUL byte), not text; absent when not looked at.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub binary: Option<bool>,
    /// Lines of a text file.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub lines: Option<usize>,
    /// A text file's line endings: `lf`, `crlf`, or `none` (a single line).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LineEndings")]
    pub line_endings: Option<LineEndings>,
    /// A text file ends with a newline.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub ends_with_newline: Option<bool>,
    /// A text file's encoding, by its WHATWG name ("UTF-8", "UTF-16LE", "Shift_JIS"...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub encoding: Option<String>,
    /// A text file starts with a byte order mark.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub bom: Option<bool>,
    /// A binary file that is an image read_media_file shows: its MIME type, from its bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ImageKind")]
    pub image: Option<ImageKind>,
    /// An image's width in pixels, from its header.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub width: Option<u32>,
    /// An image's height in pixels, from its header.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub height: Option<u32>,
    /// Hex sha256 of the file (what `expected_sha256` guards compare with).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub sha256: Option<String>,
    /// The language the file is checked as, by its extension; absent for a type not checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LanguageName")]
    pub language: Option<LanguageName>,
    /// The syntax check of a file in a checked language, as write_file reports it; absent
    /// when not computed (`not_computed` says why).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Report")]
    pub syntax: Option<Report>,
    /// What the journal recorded last of this path; absent when filewright never changed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LastChange")]
    pub last_change: Option<LastChange>,
    /// The live claim on this path; absent when nobody holds one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Claim")]
    pub claim: Option<Claim>,
    /// Facts left out and why (a file too large to read or to parse, a store that cannot be
    /// reached).
    pub not_computed: Vec<String>,
}

/// The journal's last row for a path.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LastChange {
    /// Which tool changed it.
    pub action: Action,
    /// The agent that changed it.
    pub agent: String,
    /// When.
    pub time: Timestamp,
    /// Changes recorded in all.
    pub changes: u64,
    /// How what is there now compares with what that change left.
    pub on_disk: OnDisk,
}

impl Session {
    /// `get_file_info`: the facts of a file or directory (the root for "."), read through
    /// the sandbox; marks nothing as read.
    pub fn get_file_info(&self, path: Option<&str>) -> Result<InfoOutcome> {
        let raw = required(path, "get_file_info", "path")?;
        if self.directory(Some(raw))?.is_none() {
            let info = self.ws.root_info()?;
            let mut outcome = facts(".", &info);
            outcome.entries = Some(self.ws.list(None)?.len());
            return Ok(outcome);
        }
        let asked = self.ws.resolve(raw)?;
        let target = self.ws.follow(&asked)?;
        let info = self.ws.stat(&target)?.ok_or_else(|| Error::NotFound { path: target.display() })?;
        let mut outcome = facts(&asked.display(), &info);
        outcome.link_to = (target != asked).then(|| target.display());
        match info.kind {
            FileKind::Directory => outcome.entries = Some(self.ws.list(Some(&target))?.len()),
            FileKind::File => self.content_facts(&target, &info, &mut outcome),
            FileKind::Other | FileKind::Symlink => {}
        }
        self.recorded_facts(&target, &mut outcome);
        Ok(outcome)
    }

    /// Lines, encoding, sha256, image type and syntax of the regular file `path`, as far as
    /// the limits allow.
    fn content_facts(&self, path: &RootPath, info: &FileInfo, outcome: &mut InfoOutcome) {
        let key = path.display();
        outcome.language = check::language_for(&key).map(check::Language::name);
        self.settle(path);
        let bytes = match self.ws.read(path, self.config.max_file_bytes) {
            Ok(bytes) => bytes,
            Err(e) => {
                let why = match e {
                    Error::TooLargeToRead { limit, .. } => {
                        format!("over this server's --max-file-bytes ({limit} bytes)")
                    }
                    e => e.to_string(),
                };
                outcome.not_computed.push(format!("lines, encoding, sha256 and syntax: {why}"));
                return;
            }
        };
        outcome.size = bytes.len() as u64;
        outcome.sha256 = Some(sha256_hex(&bytes));
        let too_large_to_check = info.size > INFO_CHECK_BYTES;
        if outcome.language.is_some() && !too_large_to_check {
            outcome.syntax = Some(check::check_bytes(&key, &bytes));
        } else if outcome.language.is_some() {
            outcome.not_computed.push(format!(
                "syntax: the file is over {} MiB, more than this quick look parses; check_files checks it",
                INFO_CHECK_BYTES >> 20
            ));
        }
        // An image is told by its signature, not by a NUL byte (a small one may have none).
        if let Some(kind) = media::sniff(&bytes) {
            outcome.binary = Some(true);
            outcome.image = Some(kind);
            if let Some((width, height)) = media::pixel_size(&bytes, kind) {
                (outcome.width, outcome.height) = (Some(width), Some(height));
            }
            return;
        }
        match encoding::decode(bytes) {
            Ok(decoded) => {
                let text = &decoded.text;
                let lines = count_lines(text.as_bytes());
                outcome.binary = Some(false);
                outcome.lines = Some(lines);
                outcome.line_endings = Some(match text.contains("\r\n") {
                    true => LineEndings::Crlf,
                    false if lines > 1 => LineEndings::Lf,
                    false => LineEndings::None,
                });
                outcome.ends_with_newline = Some(text.ends_with('\n'));
                outcome.encoding = Some(decoded.encoding.name().to_owned());
                outcome.bom = Some(decoded.encoding.bom());
            }
            Err(_) => outcome.binary = Some(true),
        }
    }

    /// The journal's last change of `path` and its live claim; a store that cannot be read
    /// leaves a note instead.
    fn recorded_facts(&self, path: &RootPath, outcome: &mut InfoOutcome) {
        let key = path.display();
        match self.store.artifacts(None, Some(&key), false) {
            Ok(artifacts) => {
                outcome.last_change = artifacts.into_iter().next().map(|last| {
                    let on_disk = match (outcome.kind, &outcome.sha256) {
                        (FileKind::Directory, _) if last.action == Action::Mkdir => OnDisk::Matches,
                        (FileKind::File, Some(sha256)) if *sha256 == last.sha256 => OnDisk::Matches,
                        (FileKind::File, None) => OnDisk::Unreadable,
                        _ => OnDisk::ChangedSince,
                    };
                    LastChange {
                        action: last.action,
                        agent: last.agent,
                        time: last.time,
                        changes: last.writes,
                        on_disk,
                    }
                });
            }
            Err(e) => outcome.not_computed.push(format!("the last change: the journal cannot be read ({e})")),
        }
        match self.store.claims() {
            Ok(claims) => outcome.claim = claims.into_iter().find(|c| c.path == key),
            Err(e) => outcome.not_computed.push(format!("the claim: the claims cannot be read ({e})")),
        }
    }
}

/// The facts every kind of entry has, from its metadata.
fn facts(path: &str, info: &FileInfo) -> InfoOutcome {
    InfoOutcome {
        path: path.to_owned(),
        link_to: None,
        kind: info.kind,
        size: info.size,
        modified: Timestamp::from_millis((info.mtime_ns / 1_000_000) as i64),
        permissions: format!("{:04o}", info.mode),
        entries: None,
        binary: None,
        lines: None,
        line_endings: None,
        ends_with_newline: None,
        encoding: None,
        bom: None,
        image: None,
        width: None,
        height: None,
        sha256: None,
        language: None,
        syntax: None,
        last_change: None,
        claim: None,
        not_computed: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Status;
    use crate::session::tests::session;

    #[test]
    fn a_text_file_gets_every_fact_and_its_syntax_status() {
        use std::os::unix::fs::PermissionsExt;
        let (t, s) = session();
        let disk = t.path().join("root/app.py");
        std::fs::write(&disk, "def f(:\r\n    pass\r\n").unwrap();
        std::fs::set_permissions(&disk, std::fs::Permissions::from_mode(0o750)).unwrap();
        let info = s.get_file_info(Some("app.py")).unwrap();
        assert_eq!((info.kind, info.size, info.permissions.as_str()), (FileKind::File, 19, "0750"));
        assert_eq!(
            (info.lines, info.line_endings, info.ends_with_newline),
            (Some(2), Some(LineEndings::Crlf), Some(true))
        );
        assert_eq!(
            (info.encoding.as_deref(), info.bom, info.binary),
            (Some("UTF-8"), Some(false), Some(false))
        );
        assert_eq!(info.sha256.as_deref(), Some(sha256_hex(b"def f(:\r\n    pass\r\n").as_str()));
        assert_eq!(info.language, Some(LanguageName::Python));
        assert_eq!(info.syntax.as_ref().map(|r| r.status), Some(Status::Errors));
        let modified = std::fs::metadata(&disk).unwrap().modified().unwrap();
        let ms = modified.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
        assert_eq!(info.modified, Timestamp::from_millis(ms));
        assert!(info.last_change.is_none() && info.claim.is_none() && info.not_computed.is_empty());
        assert!(!s.lock_seen().contains(&s.ws.resolve("app.py").unwrap()), "nothing was read to the model");
    }

    #[test]
    fn the_journal_and_the_claim_are_told_and_compared_with_the_disk() {
        let (t, s) = session();
        s.write_file(Some("a.js"), Some("let a = 1;\n"), None, Some("alice")).unwrap();
        let info = s.get_file_info(Some("a.js")).unwrap();
        let last = info.last_change.unwrap();
        assert_eq!(
            (last.action, last.agent.as_str(), last.changes, last.on_disk),
            (Action::Write, "alice", 1, OnDisk::Matches)
        );
        assert_eq!(info.claim.map(|c| c.agent), Some("alice".to_string()));
        std::fs::write(t.path().join("root/a.js"), "let a = 2;\n").unwrap();
        let info = s.get_file_info(Some("a.js")).unwrap();
        assert_eq!(info.last_change.unwrap().on_disk, OnDisk::ChangedSince);
    }

    #[test]
    fn a_directory_counts_its_entries_and_the_root_is_dot() {
        let (t, s) = session();
        std::fs::create_dir_all(t.path().join("root/d/e")).unwrap();
        std::fs::write(t.path().join("root/d/.hidden"), "h").unwrap();
        std::fs::write(t.path().join("root/d/f.txt"), "f").unwrap();
        let info = s.get_file_info(Some("d")).unwrap();
        assert_eq!(
            (info.kind, info.entries, info.lines, info.sha256),
            (FileKind::Directory, Some(3), None, None)
        );
        let root = s.get_file_info(Some(".")).unwrap();
        assert_eq!((root.path.as_str(), root.kind, root.entries), (".", FileKind::Directory, Some(1)));
    }

    #[test]
    fn an_image_is_named_by_its_bytes_and_sized() {
        let (t, s) = session();
        std::fs::write(t.path().join("root/shot.jpg"), media::samples::png(32, 16)).unwrap();
        let info = s.get_file_info(Some("shot.jpg")).unwrap();
        assert_eq!(
            (info.binary, info.image, info.width, info.height),
            (Some(true), Some(ImageKind::Png), Some(32), Some(16))
        );
        assert_eq!((info.lines, info.encoding, info.language), (None, None, None));
    }

    #[test]
    fn a_symlink_inside_the_root_describes_its_target() {
        let (t, s) = session();
        std::fs::write(t.path().join("root/real.txt"), "one\n").unwrap();
        std::os::unix::fs::symlink("real.txt", t.path().join("root/link.txt")).unwrap();
        let info = s.get_file_info(Some("link.txt")).unwrap();
        assert_eq!(
            (info.path.as_str(), info.link_to.as_deref(), info.lines),
            ("link.txt", Some("real.txt"), Some(1))
        );
    }

    #[test]
    fn what_is_too_large_is_said_not_guessed() {
        let (t, s) = session();
        // Over the session's 1 MiB --max-file-bytes: no content facts at all.
        std::fs::write(t.path().join("root/big.txt"), vec![b'a'; (1 << 20) + 1]).unwrap();
        let info = s.get_file_info(Some("big.txt")).unwrap();
        assert_eq!((info.size, info.lines, info.sha256), ((1 << 20) + 1, None, None));
        assert_eq!(info.not_computed.len(), 1);
        assert!(info.not_computed[0].contains("--max-file-bytes (1048576 bytes)"), "{:?}", info.not_computed);
        // Readable, but over what a quick look parses: no syntax status, and a note.
        let (t, s) = crate::session::tests::session_with(4 << 20);
        let text = "x = 1\n".repeat(INFO_CHECK_BYTES as usize / 6 + 1);
        std::fs::write(t.path().join("root/big.py"), &text[..INFO_CHECK_BYTES as usize + 2]).unwrap();
        let info = s.get_file_info(Some("big.py")).unwrap();
        assert!(info.sha256.is_some() && info.lines.is_some() && info.syntax.is_none());
        assert_eq!(info.language, Some(LanguageName::Python));
        assert!(
            info.not_computed[0].starts_with("syntax: the file is over 1 MiB"),
            "{:?}",
            info.not_computed
        );
    }

    #[test]
    fn a_missing_path_or_an_escape_is_an_error() {
        let (_t, s) = session();
        assert!(matches!(s.get_file_info(Some("nope")), Err(Error::NotFound { .. })));
        assert!(matches!(s.get_file_info(Some("../x")), Err(Error::OutsideRoot { .. })));
        assert!(matches!(s.get_file_info(None), Err(Error::Missing { .. })));
    }
}
