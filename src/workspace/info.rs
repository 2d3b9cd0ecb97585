//! What the tools are told about a file or a directory entry.

use cap_fs_ext::MetadataExt;
use schemars::JsonSchema;
use serde::Serialize;

use super::RootPath;

/// What a file is, as far as the tools care.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    #[serde(rename = "dir")]
    Directory,
    /// A symbolic link, shown in listings and never followed by them.
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

impl FileKind {
    /// What a file type (not following symlinks) is to the tools.
    pub fn of(file_type: cap_std::fs::FileType) -> FileKind {
        if file_type.is_symlink() {
            FileKind::Symlink
        } else if file_type.is_dir() {
            FileKind::Directory
        } else if file_type.is_file() {
            FileKind::File
        } else {
            FileKind::Other
        }
    }
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DirEntry {
    /// Path relative to the root (the name lossily decoded when not UTF-8).
    pub path: RootPath,
    /// What it is, without following symlinks.
    #[serde(rename = "type")]
    pub kind: FileKind,
    /// Size in bytes, for files.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub size: Option<u64>,
    /// 1 for entries of the listed directory, 2 for their children...
    pub depth: usize,
}

impl DirEntry {
    /// The entry's own name, the last component of its path.
    pub fn name(&self) -> &str {
        self.path.0.file_name().and_then(|n| n.to_str()).unwrap_or_default()
    }
}

/// The facts about a file that the tools use (after following in-root symlinks). Two
/// versions of a file compare equal only when every field agrees, so any change to the file
/// (even a new hard link) counts as a new version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileInfo {
    /// File, directory or other (never a symlink: links inside the root are followed).
    pub kind: FileKind,
    /// Size in bytes.
    pub size: u64,
    /// Number of hard links.
    pub links: u64,
    /// Device and inode: together they identify the file across renames.
    pub dev: u64,
    /// See `dev`.
    pub ino: u64,
    /// Modification time, nanoseconds since the epoch (0 when unknown).
    pub mtime_ns: i128,
    /// Permission bits (`0o644`), with set-user-ID, set-group-ID and sticky (`0o7777`).
    pub mode: u32,
    /// Status-change time, nanoseconds since the epoch: every write moves it, and no one can
    /// set it back (a cache of what a file said trusts it where an mtime can be forged).
    pub ctime_ns: i128,
}

impl FileInfo {
    pub(crate) fn from_metadata(m: &cap_std::fs::Metadata) -> Self {
        let kind = if m.is_file() {
            FileKind::File
        } else if m.is_dir() {
            FileKind::Directory
        } else {
            FileKind::Other
        };
        let mtime_ns = m
            .modified()
            .ok()
            .and_then(|t| t.into_std().duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_nanos() as i128)
            .unwrap_or(0);
        let mode = cap_std::fs::PermissionsExt::mode(&m.permissions()) & 0o7777;
        let ctime_ns = i128::from(cap_std::fs::MetadataExt::ctime(m)) * 1_000_000_000
            + i128::from(cap_std::fs::MetadataExt::ctime_nsec(m));
        FileInfo {
            kind,
            size: m.len(),
            links: m.nlink(),
            dev: m.dev(),
            ino: m.ino(),
            mtime_ns,
            mode,
            ctime_ns,
        }
    }
}
