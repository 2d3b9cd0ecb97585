//! The sandbox: every file operation of the server goes through the cap-std [`Dir`] of the root.
//!
//! cap-std resolves each path beneath the root in one `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`
//! call (or a checked component walk), so `..`, absolute symlinks, `/proc` magic links and a parent
//! swapped for a symlink mid-call cannot lead out of it. What cap-std does not cover, this module adds:
//! a hard-link guard for in-place writes (a link inside the root may share its inode with a file
//! outside), a refusal of FIFOs and devices (a read could block forever), and root-relative names in
//! every message. Paths are taken literally: never URL-decoded, tilde-expanded or Unicode-normalised.
//!
//! [`Workspace::open_root`] and [`Workspace::reserve`] are the only functions here that touch a host
//! path (ambient authority).

use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};

use cap_fs_ext::{FollowSymlinks, MetadataExt, OpenOptionsFollowExt};
use cap_std::ambient_authority;
use cap_std::fs::{Dir, File, OpenOptions, OpenOptionsExt};
use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{Error, Result};

/// The sandbox root, opened once; every other operation is relative to it.
#[derive(Debug)]
pub struct Workspace {
    dir: Dir,
    /// The root as given on the command line, made absolute, and its canonical form: an absolute
    /// path argument is accepted when it lies under either.
    given_root: PathBuf,
    canonical_root: PathBuf,
    /// filewright's state directory when it lies inside the root: no tool may touch it.
    reserved: Option<Reserved>,
    /// `--durable`: every change is synced to disk, with its directory, before it is reported.
    durable: bool,
}

/// The state directory inside the root, by relative path (for a clear early refusal) and by
/// identity (device, inode), which also catches a symlink that leads into it.
#[derive(Debug)]
struct Reserved {
    relative: PathBuf,
    dev: u64,
    ino: u64,
}

/// A path checked to lie lexically inside the root: relative, non-empty, made only of normal
/// components. It is still resolved by cap-std on every use, so symlinks are checked there.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RootPath(PathBuf);

impl RootPath {
    /// `self/name`: a child path (the name must be a single normal component).
    pub fn child(&self, name: &str) -> RootPath {
        RootPath(self.0.join(name))
    }

    /// A relative path made only of normal components; None otherwise.
    pub fn from_path(path: &Path) -> Option<RootPath> {
        let normal = path.components().all(|c| matches!(c, Component::Normal(_)));
        (normal && !path.as_os_str().is_empty()).then(|| RootPath(path.to_path_buf()))
    }

    /// A path of one component; None unless `name` is a single normal component.
    pub fn from_name(name: &str) -> Option<RootPath> {
        let mut comps = Path::new(name).components();
        match (comps.next(), comps.next()) {
            (Some(Component::Normal(_)), None) => Some(RootPath(PathBuf::from(name))),
            _ => None,
        }
    }

    /// The path relative to the root, as the model should write it (`/`-separated).
    pub fn display(&self) -> String {
        self.0.to_string_lossy().into_owned()
    }

    /// The relative path, for cap-std calls.
    pub fn as_path(&self) -> &Path {
        &self.0
    }

    fn split(&self) -> (&Path, &std::ffi::OsStr) {
        let parent = self.0.parent().unwrap_or(Path::new(""));
        // A RootPath is never empty and never ends in `..` (see Workspace::resolve), so it has a name.
        let name = self.0.file_name().unwrap_or_default();
        (parent, name)
    }

    /// Whether the file is in the root itself (its parent is the root).
    fn in_root(&self) -> bool {
        self.split().0.as_os_str().is_empty()
    }
}

impl Serialize for RootPath {
    /// As the model writes it: [`RootPath::display`].
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.display())
    }
}

impl JsonSchema for RootPath {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        String::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }

    fn inline_schema() -> bool {
        true
    }
}

impl std::fmt::Display for RootPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.display())
    }
}

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
        FileInfo { kind, size: m.len(), links: m.nlink(), dev: m.dev(), ino: m.ino(), mtime_ns, mode }
    }
}

impl Workspace {
    /// Opens `root` as the sandbox.
    ///
    /// # Ambient authority
    /// This is the one place the sandbox opens a host path (the state store opens its own, see
    /// `Store::open`); everything after goes through the returned handle. A missing root or
    /// one that is not a directory is an error for the caller to report at startup.
    pub fn open_root(root: &Path) -> anyhow::Result<Self> {
        use anyhow::Context;
        let given_root = std::path::absolute(root)
            .with_context(|| format!("cannot make the root {} absolute", root.display()))?;
        let meta = std::fs::metadata(&given_root)
            .with_context(|| format!("the root {} does not exist or cannot be read", root.display()))?;
        anyhow::ensure!(meta.is_dir(), "the root {} is not a directory", root.display());
        let canonical_root = std::fs::canonicalize(&given_root)
            .with_context(|| format!("cannot resolve the root {}", root.display()))?;
        let dir = Dir::open_ambient_dir(&canonical_root, ambient_authority())
            .with_context(|| format!("cannot open the root {}", root.display()))?;
        Ok(Workspace { dir, given_root, canonical_root, reserved: None, durable: false })
    }

    /// A second handle on the same root (for the temp sweep, which runs on its own thread).
    pub fn try_clone(&self) -> Result<Workspace> {
        let dir = self.dir.try_clone().map_err(|e| Error::Io { op: "open", path: ".".into(), source: e })?;
        let reserved =
            self.reserved.as_ref().map(|r| Reserved { relative: r.relative.clone(), dev: r.dev, ino: r.ino });
        Ok(Workspace {
            dir,
            given_root: self.given_root.clone(),
            canonical_root: self.canonical_root.clone(),
            reserved,
            durable: self.durable,
        })
    }

    /// Removes the temporary files of atomic replaces whose process died before renaming them
    /// (a kill at the wrong moment), anywhere under the root, looking at `budget` directory
    /// entries at most. Symlinks are not followed; the state directory and `.git` are skipped.
    /// Returns how many were removed.
    pub fn sweep_temps(&self, budget: usize) -> usize {
        let mut removed = 0;
        let mut seen = 0;
        let mut stack: Vec<PathBuf> = vec![PathBuf::new()];
        while let Some(relative) = stack.pop() {
            let opened = if relative.as_os_str().is_empty() {
                self.dir.try_clone()
            } else {
                self.dir.open_dir(&relative)
            };
            let Ok(dir) = opened else { continue };
            let Ok(entries) = dir.entries() else { continue };
            for entry in entries.flatten() {
                seen += 1;
                if seen > budget {
                    return removed;
                }
                let name = entry.file_name();
                let Ok(file_type) = entry.file_type() else { continue };
                if file_type.is_dir() {
                    let is_reserved = self.reserved.as_ref().is_some_and(|r| {
                        entry.metadata().is_ok_and(|m| (m.dev(), m.ino()) == (r.dev, r.ino))
                    });
                    if name != ".git" && !is_reserved {
                        stack.push(relative.join(&name));
                    }
                } else if file_type.is_file()
                    && let Some(pid) = name.to_str().and_then(temp_owner)
                    && !process_alive(pid)
                    && dir.remove_file(&name).is_ok()
                {
                    removed += 1;
                }
            }
        }
        removed
    }

    /// Makes every change survive a power loss once it is reported (`--durable`): files are
    /// synced, and so is the directory whose entries a change created, replaced or removed.
    /// Without it, a change survives a kill of the process (it is atomic), but the last ones
    /// before a power loss may be lost: the kernel writes them out within seconds.
    pub fn set_durable(&mut self, durable: bool) {
        self.durable = durable;
    }

    /// Syncs `dir` when durable: its entries (a rename, a new or removed file) reach the disk.
    fn sync_dir(&self, dir: &Dir, path: &RootPath) -> Result<()> {
        if !self.durable {
            return Ok(());
        }
        // cap-std holds directories as O_PATH handles, which fsync refuses (EBADF): open the
        // directory itself for reading, through the handle, and sync that.
        use rustix::fs::{Mode, OFlags, fsync, openat};
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        openat(dir, ".", flags, Mode::empty())
            .and_then(|opened| fsync(&opened))
            .map_err(|e| map_io(io::Error::from(e), "sync the directory of", path))
    }

    /// Keeps `state_dir` (a host path, which must exist) out of every tool's reach when it
    /// lies inside the root. A state directory outside the root is unreachable anyway.
    ///
    /// # Ambient authority
    /// Canonicalizes the host path `state_dir` (to compare it with the root); it opens nothing.
    pub fn reserve(&mut self, state_dir: &Path) -> anyhow::Result<()> {
        let canonical = std::fs::canonicalize(state_dir)?;
        if let Ok(relative) = canonical.strip_prefix(&self.canonical_root) {
            let meta = self.dir.metadata(relative)?;
            self.reserved =
                Some(Reserved { relative: relative.to_path_buf(), dev: meta.dev(), ino: meta.ino() });
        }
        Ok(())
    }

    /// The canonical host path of the root (for logs, startup messages and the `file://` links
    /// in results; never opened through).
    pub fn host_root(&self) -> &Path {
        &self.canonical_root
    }

    /// Checks a path argument and turns it into a [`RootPath`].
    ///
    /// Relative paths are taken relative to the root; `.` is dropped and `..` is applied lexically
    /// but may never climb above the root. An absolute path is accepted only when it lies under
    /// the root (compared component by component, so `/root-evil` is not under `/root`).
    pub fn resolve(&self, raw: &str) -> Result<RootPath> {
        if raw.is_empty() {
            return Err(invalid(raw, "the path is empty"));
        }
        if raw.contains('\0') {
            return Err(invalid(raw, "the path contains a NUL byte"));
        }
        let path = Path::new(raw);
        let relative = if path.is_absolute() {
            path.strip_prefix(&self.canonical_root)
                .or_else(|_| path.strip_prefix(&self.given_root))
                .map_err(|_| Error::OutsideRoot { path: raw.to_string() })?
        } else {
            path
        };
        let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
        for component in relative.components() {
            match component {
                Component::Normal(name) => parts.push(name),
                Component::CurDir => {}
                Component::ParentDir => {
                    // The system resolves `link/..` from the link's target; a lexical `..` would
                    // name a different file than the one the path names. Refuse it.
                    if let Some(link) = self.symlink_in(&parts) {
                        return Err(invalid(
                            raw,
                            &format!(
                                "`..` comes after the symbolic link {link}, so the system would resolve it from \
                                 the link's target, not from {link}'s directory; give the path without `..`"
                            ),
                        ));
                    }
                    if parts.pop().is_none() {
                        return Err(Error::OutsideRoot { path: raw.to_string() });
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(Error::OutsideRoot { path: raw.to_string() });
                }
            }
        }
        if parts.is_empty() {
            return Err(invalid(raw, "it names the root directory itself, not a file in it"));
        }
        let path: PathBuf = parts.iter().collect();
        if let Some(reserved) = &self.reserved
            && path.starts_with(&reserved.relative)
        {
            return Err(Error::Reserved { path: raw.to_string() });
        }
        Ok(RootPath(path))
    }

    /// The first of the paths `parts[..1]`, `parts[..2]`, ... that is a symbolic link (or
    /// cannot be inspected because it leads through one out of the root).
    fn symlink_in(&self, parts: &[&std::ffi::OsStr]) -> Option<String> {
        let mut prefix = PathBuf::new();
        for part in parts {
            prefix.push(part);
            match self.dir.symlink_metadata(&prefix) {
                Ok(m) if m.file_type().is_symlink() => return Some(prefix.display().to_string()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
                Err(_) => return Some(prefix.display().to_string()),
            }
        }
        None
    }

    /// Facts about the file at `path` (following symlinks that stay inside the root), or `None`
    /// when nothing is there.
    pub fn stat(&self, path: &RootPath) -> Result<Option<FileInfo>> {
        match self.dir.metadata(path.as_path()) {
            Ok(m) => Ok(Some(FileInfo::from_metadata(&m))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // A dangling symlink is "nothing there" for reads but must not be written through.
                match self.dir.symlink_metadata(path.as_path()) {
                    Ok(_) => Err(Error::InvalidPath {
                        path: path.display(),
                        reason: "it is a symbolic link whose target does not exist".into(),
                    }),
                    Err(_) => Ok(None),
                }
            }
            Err(e) => Err(map_io(e, "inspect", path)),
        }
    }

    /// When `path` is a symlink (to somewhere inside the root), the path of its target; otherwise
    /// `path` itself. Writes go to the target, so a link is never replaced by a regular file.
    pub fn follow(&self, path: &RootPath) -> Result<RootPath> {
        match self.dir.symlink_metadata(path.as_path()) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = self.dir.canonicalize(path.as_path()).map_err(|e| match e.kind() {
                    io::ErrorKind::NotFound => Error::InvalidPath {
                        path: path.display(),
                        reason: "it is a symbolic link whose target does not exist".into(),
                    },
                    _ => map_io(e, "resolve", path),
                })?;
                self.resolve(&target.to_string_lossy())
            }
            _ => Ok(path.clone()),
        }
    }

    /// Reads a whole regular file, refusing anything larger than `limit` bytes.
    pub fn read(&self, path: &RootPath, limit: u64) -> Result<Vec<u8>> {
        let (mut file, info) =
            self.open_to_read(path)?.ok_or_else(|| Error::NotFound { path: path.display() })?;
        read_held(&mut file, &info, path, limit)
    }

    /// The file at `path` (None when nothing is there) and its content, from one open: a write
    /// or an edit needs both. The content's own failure (too large, unreadable) comes apart,
    /// so that a file too large to keep a copy of can still be replaced.
    pub fn read_if_exists(&self, path: &RootPath, limit: u64) -> Result<Option<(FileInfo, Result<Vec<u8>>)>> {
        Ok(self.open_to_read(path)?.map(|(mut file, info)| {
            let bytes = read_held(&mut file, &info, path, limit);
            (info, bytes)
        }))
    }

    /// The first `n` bytes of the regular file at `path` (all of it when it is shorter); None
    /// when nothing is there. Enough to see a byte order mark without reading a large file.
    pub fn read_head(&self, path: &RootPath, n: u64) -> Result<Option<Vec<u8>>> {
        let Some((mut file, _)) = self.open_to_read(path)? else { return Ok(None) };
        let mut head = Vec::new();
        Read::by_ref(&mut file).take(n).read_to_end(&mut head).map_err(|e| map_io(e, "read", path))?;
        Ok(Some(head))
    }

    /// Opens the regular file at `path` for reading, with its metadata from the handle; None
    /// when nothing is there.
    fn open_to_read(&self, path: &RootPath) -> Result<Option<(File, FileInfo)>> {
        self.guard_reserved(path)?;
        if self.reserved.is_some() {
            // Catches a symlink into the state directory (the lexical check in `resolve`
            // cannot see through links).
            self.open_parent(path, false)?;
        }
        // Opened first and inspected through the handle (one lookup instead of two): what is
        // not a regular file is refused before a byte is read (see `read_options`).
        let file = match self.dir.open_with(path.as_path(), &read_options()) {
            Ok(file) => file,
            Err(e) => {
                // The error of a lookup says why better (missing, a dangling link, not a file).
                let Some(info) = self.stat(path)? else { return Ok(None) };
                require_file(path, &info)?;
                return Err(map_io(e, "open", path));
            }
        };
        let meta = file.metadata().map_err(|e| map_io(e, "inspect", path))?;
        let info = FileInfo::from_metadata(&meta);
        require_file(path, &info)?;
        Ok(Some((file, info)))
    }

    /// Replaces (or creates) the file with `bytes` atomically: a temporary file in the same
    /// directory is written, synced and renamed over the target, so a reader sees the old
    /// content or the new, never a mix. Missing parent directories are created. A replaced
    /// file keeps its permissions. [`Workspace::stage`] and
    /// [`Workspace::land`] are its two halves, for a caller with work to do in between.
    pub fn replace(&self, path: &RootPath, bytes: &[u8]) -> Result<Replaced> {
        let staged = self.stage(path, bytes, true)?;
        self.land(staged)
    }

    /// The first half of [`Workspace::replace`]: writes `bytes` into a temporary file beside
    /// `path`, without touching `path` itself. Missing parent directories are created only with `create_parents` (a caller
    /// that stages before it holds the claim must leave nothing behind when refused). The
    /// temporary file is removed when the [`Staged`] is dropped without landing.
    pub fn stage(&self, path: &RootPath, bytes: &[u8], create_parents: bool) -> Result<Staged> {
        self.guard_reserved(path)?;
        let parent_dir = match self.open_parent(path, create_parents) {
            Ok(dir) => dir,
            // A lookup says why better (a link out of the root, a file on the way).
            Err(e) => {
                self.stat(path)?;
                return Err(e);
            }
        };
        // A hidden name that says whose it is: listings never show it, and a start sweeps
        // the ones whose process died between creating and renaming them (see `sweep_temps`).
        let tmp_name = temp_name();
        let mut options = OpenOptions::new();
        options.write(true).create_new(true).follow(FollowSymlinks::No);
        let mut tmp = parent_dir
            .open_with(&tmp_name, &options)
            .map_err(|e| map_io(e, "create a temporary file for", path))?;
        if let Err(e) = tmp.write_all(bytes) {
            let _ = parent_dir.remove_file(&tmp_name);
            return Err(map_io(e, "write", path));
        }
        Ok(Staged {
            dir: parent_dir,
            tmp_name,
            path: path.clone(),
            tmp,
            landed: false,
        })
    }

    /// The second half of [`Workspace::replace`]: gives the staged file the permissions of
    /// the file it replaces (if any), syncs it when durable, and renames it into place.
    pub fn land(&self, mut staged: Staged) -> Result<Replaced> {
        let (path, tmp, parent_dir) = (&staged.path, &staged.tmp, &staged.dir);
        let (_, name) = path.split();
        // The file being replaced, held for its permissions (one lookup instead of two).
        let replaced = hold(parent_dir, name);
        // A regular file held tells its permissions; anything else (nothing there, a link,
        // a directory, a name that could not be held) is looked up by path.
        let permissions = match replaced.as_ref().and_then(held_permissions) {
            Some(permissions) => Some(permissions),
            None => match self.stat(path)? {
                Some(info) => {
                    require_file(path, &info)?;
                    Some(parent_dir.metadata(name).map_err(|e| map_io(e, "inspect", path))?.permissions())
                }
                None => None,
            },
        };
        let existed = permissions.is_some();
        let written = (|| {
            if let Some(perms) = permissions {
                tmp.set_permissions(perms).map_err(|e| map_io(e, "set permissions of", path))?;
            }
            if self.durable {
                tmp.sync_all().map_err(|e| map_io(e, "sync", path))?;
            }
            parent_dir
                .rename(&staged.tmp_name, parent_dir, name)
                .map_err(|e| map_io(e, "rename into place", path))
        })();
        // On an error the temporary file goes when `staged` is dropped.
        written?;
        staged.landed = true;
        // Its blocks are freed as the last reference goes.
        drop(replaced);
        // The temporary file is now the file at `path`: its handle tells its version without
        // a lookup. Nothing is written to it after this.
        let now = tmp.metadata().ok().map(|m| FileInfo::from_metadata(&m));
        // The file is in place: a failed directory sync must not report "nothing written".
        if let Err(e) = self.sync_dir(parent_dir, path) {
            tracing::warn!("{e}");
        }
        Ok(Replaced { created: !existed, now })
    }

    /// Whether the directory `staged` was written in is still the parent of its path: the
    /// caller may have waited for the store between the two halves, and a directory renamed
    /// or replaced meanwhile would take the file somewhere else. False when the parent is
    /// gone or cannot be compared.
    pub fn still_beside(&self, staged: &Staged) -> bool {
        // A file of the root was staged through a second handle on the root itself, which
        // no rename can take elsewhere.
        if staged.path.in_root() {
            return true;
        }
        let identity = |dir: &Dir| rustix::fs::fstat(dir).ok().map(|s| (s.st_dev, s.st_ino));
        match self.open_parent(&staged.path, false) {
            Ok(now) => identity(&now).is_some_and(|now| Some(now) == identity(&staged.dir)),
            Err(_) => false,
        }
    }

    /// Removes the regular file at `path` (not a directory); a missing file is not an error.
    pub fn remove_file(&self, path: &RootPath) -> Result<()> {
        self.guard_reserved(path)?;
        match self.stat(path)? {
            Some(info) => require_file(path, &info)?,
            None => return Ok(()),
        }
        let parent_dir = self.open_parent(path, false)?;
        let (_, name) = path.split();
        parent_dir.remove_file(name).map_err(|e| map_io(e, "remove", path))?;
        if let Err(e) = self.sync_dir(&parent_dir, path) {
            tracing::warn!("{e}");
        }
        Ok(())
    }

    /// Removes the empty directory at `path`; one with entries is [`Error::DirectoryNotEmpty`].
    pub fn remove_empty_dir(&self, path: &RootPath) -> Result<()> {
        self.guard_reserved(path)?;
        let entries = self.list(Some(path))?.len();
        if entries > 0 {
            return Err(Error::DirectoryNotEmpty { path: path.display(), entries });
        }
        self.dir.remove_dir(path.as_path()).map_err(|e| map_io(e, "remove", path))
    }

    /// Moves the regular file `from` to `to` in one rename, creating `to`'s missing parents.
    /// An existing `to` is replaced only with `overwrite`; without it the rename itself refuses
    /// (Linux: `RENAME_NOREPLACE`), so no file that appears meanwhile is lost.
    pub fn rename(&self, from: &RootPath, to: &RootPath, overwrite: bool) -> Result<()> {
        self.guard_reserved(from)?;
        self.guard_reserved(to)?;
        match self.stat(from)? {
            Some(info) => require_file(from, &info)?,
            None => return Err(Error::NotFound { path: from.display() }),
        }
        if let Some(info) = self.stat(to)? {
            require_file(to, &info)?;
            if !overwrite {
                return Err(Error::AlreadyExists { path: to.display() });
            }
        }
        let from_dir = self.open_parent(from, false)?;
        let to_dir = self.open_parent(to, true)?;
        let ((_, from_name), (_, to_name)) = (from.split(), to.split());
        let moved = !overwrite && rename_without_replacing(&from_dir, from_name, &to_dir, to_name, from, to)?;
        if !moved {
            // Without `overwrite`, the portable path: `to` is checked again right before the
            // rename, which would replace a file created in between (the window Linux's flag
            // closes).
            if !overwrite && to_dir.symlink_metadata(to_name).is_ok() {
                return Err(Error::AlreadyExists { path: to.display() });
            }
            from_dir.rename(from_name, &to_dir, to_name).map_err(|e| map_io(e, "move", from))?;
        }
        for (dir, path) in [(&to_dir, to), (&from_dir, from)] {
            if let Err(e) = self.sync_dir(dir, path) {
                tracing::warn!("{e}");
            }
        }
        Ok(())
    }

    /// Facts about the root directory itself (which no [`RootPath`] names).
    pub fn root_info(&self) -> Result<FileInfo> {
        let meta =
            self.dir.dir_metadata().map_err(|e| Error::Io { op: "inspect", path: ".".into(), source: e })?;
        Ok(FileInfo::from_metadata(&meta))
    }

    /// Creates the directory `path` with its missing parents, one component at a time beneath
    /// the root (cap-std: no `..` or symlink leads out). Returns the directories created,
    /// outermost first: none when `path` already was a directory (or a symlink inside the root
    /// to one). Something other than a directory on the way is [`Error::FileInTheWay`]; a
    /// directory created by another process meanwhile is taken as it is.
    pub fn create_dirs(&self, path: &RootPath) -> Result<Vec<RootPath>> {
        self.guard_reserved(path)?;
        let mut created = Vec::new();
        let mut prefix = PathBuf::new();
        for component in path.as_path().components() {
            prefix.push(component);
            let here = RootPath(prefix.clone());
            let in_the_way = |info: &FileInfo| Error::FileInTheWay {
                path: path.display(),
                blocking: here.display(),
                what: match info.kind {
                    FileKind::File => "a file",
                    _ => "a FIFO, socket or device",
                },
            };
            match self.stat(&here)? {
                Some(info) if info.kind == FileKind::Directory => continue,
                Some(info) => return Err(in_the_way(&info)),
                None => {}
            }
            match self.dir.create_dir(&prefix) {
                Ok(()) => created.push(here),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match self.stat(&here)? {
                    Some(info) if info.kind == FileKind::Directory => {}
                    Some(info) => return Err(in_the_way(&info)),
                    None => return Err(map_io(e, "create the directory", &here)),
                },
                Err(e) => return Err(map_io(e, "create the directory", &here)),
            }
        }
        if let Some(first) = created.first() {
            // The outermost new directory's entry is what a power loss could lose.
            let synced = self.open_parent(first, false).and_then(|parent| self.sync_dir(&parent, first));
            if let Err(e) = synced {
                tracing::warn!("{e}");
            }
        }
        Ok(created)
    }

    /// Writes `bytes` as the regular file `path` with the permission bits `mode` (`0o777` of
    /// it; set-user-ID and the like are dropped), atomically: staged beside it, then renamed
    /// into place; missing parents are created. An existing file is replaced only with
    /// `overwrite` (never a directory); without it the rename itself refuses (Linux:
    /// `RENAME_NOREPLACE`), so a file that appears meanwhile is not lost.
    pub fn put(&self, path: &RootPath, bytes: &[u8], mode: u32, overwrite: bool) -> Result<Replaced> {
        let existed = match self.stat(path)? {
            Some(info) => {
                require_file(path, &info)?;
                if !overwrite {
                    return Err(Error::AlreadyExists { path: path.display() });
                }
                true
            }
            None => false,
        };
        let mut staged = self.stage(path, bytes, true)?;
        let permissions = std::os::unix::fs::PermissionsExt::from_mode(mode & 0o777);
        staged
            .tmp
            .set_permissions(cap_std::fs::Permissions::from_std(permissions))
            .map_err(|e| map_io(e, "set permissions of", path))?;
        if self.durable {
            staged.tmp.sync_all().map_err(|e| map_io(e, "sync", path))?;
        }
        let (_, name) = path.split();
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{RenameFlags, renameat_with};
            let flags = if overwrite { RenameFlags::empty() } else { RenameFlags::NOREPLACE };
            renameat_with(&staged.dir, staged.tmp_name.as_str(), &staged.dir, name, flags).map_err(|e| {
                match e {
                    rustix::io::Errno::EXIST => Error::AlreadyExists { path: path.display() },
                    e => map_io(io::Error::from(e), "rename into place", path),
                }
            })?;
        }
        #[cfg(not(target_os = "linux"))]
        {
            staged
                .dir
                .rename(&staged.tmp_name, &staged.dir, name)
                .map_err(|e| map_io(e, "rename into place", path))?;
        }
        staged.landed = true;
        let now = staged.tmp.metadata().ok().map(|m| FileInfo::from_metadata(&m));
        if let Err(e) = self.sync_dir(&staged.dir, path) {
            tracing::warn!("{e}");
        }
        Ok(Replaced { created: !existed, now })
    }

    /// Opens the file for appending, creating it (and its parents) when missing. Refuses
    /// non-regular files and files with more than one hard link (checked on the opened handle,
    /// so a swap between check and use cannot slip through).
    pub fn open_append(&self, path: &RootPath) -> Result<AppendHandle> {
        self.guard_reserved(path)?;
        if let Some(info) = self.stat(path)? {
            require_file(path, &info)?;
        }
        let parent_dir = self.open_parent(path, true)?;
        let (_, name) = path.split();
        let existed = parent_dir.symlink_metadata(name).is_ok();
        let mut options = OpenOptions::new();
        options.read(true).append(true).create(true).follow(FollowSymlinks::No);
        let file = parent_dir.open_with(name, &options).map_err(|e| map_io(e, "open", path))?;
        let meta = file.metadata().map_err(|e| map_io(e, "inspect", path))?;
        let info = FileInfo::from_metadata(&meta);
        require_file(path, &info)?;
        if info.links > 1 {
            return Err(Error::HardLinked { path: path.display(), links: info.links });
        }
        if !existed && let Err(e) = self.sync_dir(&parent_dir, path) {
            tracing::warn!("{e}");
        }
        Ok(AppendHandle { file, path: path.clone(), durable: self.durable })
    }

    /// The entries of directory `dir` (the root when None), without following symlinks:
    /// a symlink is listed as such, never entered. The state directory is left out. Each
    /// entry has depth 1; a listing that descends sets the depth of deeper ones.
    pub fn list(&self, dir: Option<&RootPath>) -> Result<Vec<DirEntry>> {
        let display = dir.map(RootPath::display).unwrap_or_else(|| ".".into());
        let io_err = |e: io::Error| match dir {
            Some(d) => map_io(e, "list", d),
            None => Error::Io { op: "list", path: display.clone(), source: e },
        };
        let opened = self.open_listed(dir)?;
        let mut items = Vec::new();
        for entry in opened.entries().map_err(io_err)? {
            let entry = entry.map_err(io_err)?;
            // Another write's temporary file: never shown, never walked into.
            if entry.file_name().to_str().is_some_and(is_temp_name) {
                continue;
            }
            let file_type = entry.file_type().map_err(io_err)?;
            let meta = entry.metadata().ok();
            if file_type.is_dir()
                && let (Some(reserved), Some(m)) = (&self.reserved, &meta)
                && (m.dev(), m.ino()) == (reserved.dev, reserved.ino)
            {
                continue;
            }
            let kind = if file_type.is_symlink() {
                FileKind::Symlink
            } else if file_type.is_dir() {
                FileKind::Directory
            } else if file_type.is_file() {
                FileKind::File
            } else {
                FileKind::Other
            };
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(path) = (match dir {
                Some(d) => Some(d.child(&name)),
                None => RootPath::from_name(&name),
            }) else {
                continue;
            };
            let size = meta.filter(|_| kind == FileKind::File).map(|m| m.len());
            items.push(DirEntry { path, kind, size, depth: 1 });
        }
        Ok(items)
    }

    /// Handles for a walk of the tree below `dir` (the root when None) that opens what lies
    /// below it itself, from several threads at once (see `files::tree`). `dir` is checked and
    /// opened as [`Workspace::list`] opens it.
    pub fn walk_handles(&self, dir: Option<&RootPath>) -> Result<WalkHandles> {
        let start = self.open_listed(dir)?;
        let root = self.dir.try_clone().map_err(|e| Error::Io { op: "open", path: ".".into(), source: e })?;
        let state_dir = self.reserved.as_ref().map(|r| (r.dev, r.ino));
        Ok(WalkHandles { root, start, state_dir })
    }

    /// The directory `dir` (the root when None), opened to be listed: not the state
    /// directory, not a file (an error that says to read it instead).
    fn open_listed(&self, dir: Option<&RootPath>) -> Result<Dir> {
        let Some(d) = dir else {
            return self.dir.try_clone().map_err(|e| Error::Io { op: "list", path: ".".into(), source: e });
        };
        self.guard_reserved(d)?;
        if let Some(info) = self.stat(d)?
            && info.kind != FileKind::Directory
        {
            return Err(Error::InvalidArgument {
                name: "path",
                reason: format!("{d} is a file, not a directory: read it with read_file"),
            });
        }
        self.dir.open_dir(d.as_path()).map_err(|e| map_io(e, "list", d))
    }

    /// Refuses a path that leads into the state directory, also through symlinks inside the
    /// root: the deepest existing part of the path is resolved (cap-std, beneath the root)
    /// and compared with the state directory. Writes also compare the opened parent's
    /// identity (see `open_parent`), which no swap can slip past.
    fn guard_reserved(&self, path: &RootPath) -> Result<()> {
        let Some(reserved) = &self.reserved else { return Ok(()) };
        let real = path.as_path().ancestors().find_map(|a| self.dir.canonicalize(a).ok());
        if real.is_some_and(|r| r.starts_with(&reserved.relative)) {
            return Err(Error::Reserved { path: path.display() });
        }
        Ok(())
    }

    /// Opens the directory holding `path`, creating it first when `create` is set.
    fn open_parent(&self, path: &RootPath, create: bool) -> Result<Dir> {
        if path.in_root() {
            return self.dir.try_clone().map_err(|e| map_io(e, "open the root for", path));
        }
        let (parent, _) = path.split();
        if create {
            self.dir.create_dir_all(parent).map_err(|e| map_parent_error(e, path))?;
        }
        let dir = self.dir.open_dir(parent).map_err(|e| map_parent_error(e, path))?;
        if let Some(reserved) = &self.reserved {
            let meta = dir.dir_metadata().map_err(|e| map_io(e, "inspect the parent of", path))?;
            if (meta.dev(), meta.ino()) == (reserved.dev, reserved.ino) {
                return Err(Error::Reserved { path: path.display() });
            }
        }
        Ok(dir)
    }
}

/// Reads the whole of `file` (of metadata `info`), refusing more than `limit` bytes; it may
/// have grown since it was inspected.
fn read_held(file: &mut File, info: &FileInfo, path: &RootPath, limit: u64) -> Result<Vec<u8>> {
    if info.size > limit {
        return Err(Error::TooLargeToRead { path: path.display(), size: info.size, limit });
    }
    let mut bytes = Vec::with_capacity(info.size.min(limit) as usize);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| map_io(e, "read", path))?;
    if bytes.len() as u64 > limit {
        return Err(Error::TooLargeToRead { path: path.display(), size: bytes.len() as u64, limit });
    }
    Ok(bytes)
}

/// How a file is opened to be read: O_NONBLOCK, so that opening a FIFO does not wait for a
/// writer; O_NOCTTY, so that a terminal never becomes ours.
pub(crate) fn read_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options
        .read(true)
        .custom_flags((rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32);
    options
}

/// Renames `from_name` in `from_dir` to `to_name` in `to_dir` unless that exists, in one
/// step (Linux's `RENAME_NOREPLACE`): true when done, false when the caller must take the
/// portable path, because the platform has no such rename ([`crate::platform::linux_calls`])
/// or the filesystem refuses the flag (`EINVAL`: some network and FUSE filesystems).
#[cfg(target_os = "linux")]
fn rename_without_replacing(
    from_dir: &Dir,
    from_name: &std::ffi::OsStr,
    to_dir: &Dir,
    to_name: &std::ffi::OsStr,
    from: &RootPath,
    to: &RootPath,
) -> Result<bool> {
    use rustix::fs::{RenameFlags, renameat_with};
    if !crate::platform::linux_calls() {
        return Ok(false);
    }
    match renameat_with(from_dir, from_name, to_dir, to_name, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::EXIST) => Err(Error::AlreadyExists { path: to.display() }),
        Err(rustix::io::Errno::INVAL) => Ok(false),
        Err(e) => Err(map_io(io::Error::from(e), "move", from)),
    }
}

/// Elsewhere the caller takes the portable path.
#[cfg(not(target_os = "linux"))]
fn rename_without_replacing(
    _: &Dir,
    _: &std::ffi::OsStr,
    _: &Dir,
    _: &std::ffi::OsStr,
    _: &RootPath,
    _: &RootPath,
) -> Result<bool> {
    Ok(false)
}

/// A handle on the inode of `name` in `dir` that does not open it for reading or writing
/// (`O_PATH`, so a FIFO or device put there meanwhile is not opened either). None when it
/// cannot be had: the replace then looks the old file's permissions up by name.
#[cfg(target_os = "linux")]
fn hold(dir: &Dir, name: &std::ffi::OsStr) -> Option<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags, openat};
    if !crate::platform::linux_calls() {
        return None;
    }
    openat(dir, name, OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty()).ok()
}

#[cfg(not(target_os = "linux"))]
fn hold(_dir: &Dir, _name: &std::ffi::OsStr) -> Option<()> {
    None
}

/// The permissions of a regular file held by [`hold`] (None for anything else: the caller
/// then looks them up by name).
#[cfg(target_os = "linux")]
fn held_permissions(held: &std::os::fd::OwnedFd) -> Option<cap_std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    let stat = rustix::fs::fstat(held).ok()?;
    let file_type = rustix::fs::FileType::from_raw_mode(stat.st_mode);
    (file_type == rustix::fs::FileType::RegularFile)
        .then(|| cap_std::fs::Permissions::from_std(std::fs::Permissions::from_mode(stat.st_mode & 0o7777)))
}

#[cfg(not(target_os = "linux"))]
fn held_permissions(_held: &()) -> Option<cap_std::fs::Permissions> {
    None
}

/// What a walk of a tree opens everything through ([`Workspace::walk_handles`]).
#[derive(Debug)]
pub struct WalkHandles {
    /// A handle on the root: cap-std resolves every path the walk opens beneath it.
    pub root: Dir,
    /// The directory walked (the root, or a directory under it, reached as `list` reaches it).
    pub start: Dir,
    /// The state directory's device and inode when it lies inside the root: the walk must
    /// leave it out, as [`Workspace::list`] does.
    pub state_dir: Option<(u64, u64)>,
}

/// New content written beside its file by [`Workspace::stage`], for [`Workspace::land`] to
/// put in place. Dropped without landing, it removes its temporary file.
pub struct Staged {
    dir: Dir,
    tmp_name: String,
    path: RootPath,
    /// The temporary file, open for writing.
    tmp: File,
    /// Renamed into place: nothing is left to remove.
    landed: bool,
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.landed {
            let _ = self.dir.remove_file(&self.tmp_name);
        }
    }
}

/// What [`Workspace::replace`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replaced {
    /// The file did not exist before.
    pub created: bool,
    /// The new file's version, read from its handle (None when that failed).
    pub now: Option<FileInfo>,
}

/// An open file positioned for appends, with the checks of [`Workspace::open_append`] done.
#[derive(Debug)]
pub struct AppendHandle {
    file: File,
    path: RootPath,
    /// Sync each append before it is reported (`--durable`).
    durable: bool,
}

impl AppendHandle {
    /// Current size in bytes, from the open handle.
    pub fn size(&self) -> Result<u64> {
        Ok(self.file.metadata().map_err(|e| map_io(e, "inspect", &self.path))?.len())
    }

    /// The last `n` bytes of the file (fewer when the file is shorter).
    pub fn tail(&mut self, n: u64) -> Result<Vec<u8>> {
        let size = self.size()?;
        let start = size.saturating_sub(n);
        self.read_from(start)
    }

    /// The whole file.
    pub fn read_all(&mut self) -> Result<Vec<u8>> {
        self.read_from(0)
    }

    /// The bytes from offset `start` to the end.
    pub fn read_from(&mut self, start: u64) -> Result<Vec<u8>> {
        let path = &self.path;
        self.file.seek(SeekFrom::Start(start)).map_err(|e| map_io(e, "read", path))?;
        let mut bytes = Vec::new();
        self.file.read_to_end(&mut bytes).map_err(|e| map_io(e, "read", path))?;
        Ok(bytes)
    }

    /// Appends `bytes` at the end (O_APPEND, so concurrent appenders never overwrite each other)
    /// and, when durable, syncs them.
    ///
    /// All or nothing: when a write fails part way (a full disk, a file-size limit), the
    /// file is cut back to `size_before` (its size before the call, which the caller has
    /// just read under the store's lock), so the error's "nothing was changed" is true; if
    /// even that fails, the error says how many bytes landed.
    pub fn append(&mut self, bytes: &[u8], size_before: u64) -> Result<()> {
        let mut written = 0;
        while written < bytes.len() {
            let failure = match self.file.write(&bytes[written..]) {
                Ok(0) => io::Error::new(io::ErrorKind::WriteZero, "the file accepted no more bytes"),
                Ok(n) => {
                    written += n;
                    continue;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => e,
            };
            if written == 0 || self.file.set_len(size_before).is_ok() {
                return Err(map_io(failure, "append to", &self.path));
            }
            return Err(Error::PartialAppend {
                path: self.path.display(),
                appended: written,
                total: bytes.len(),
                source: failure,
            });
        }
        // The bytes are in the file now; a failed sync must not be reported as "nothing
        // appended", or the caller would append them again.
        if self.durable
            && let Err(e) = self.file.sync_data()
        {
            tracing::warn!("appended to {} but could not sync it: {e}", self.path);
        }
        Ok(())
    }

    /// Cuts the file back to `size` bytes and syncs it.
    pub fn truncate(&mut self, size: u64) -> Result<()> {
        self.file.set_len(size).map_err(|e| map_io(e, "cut back", &self.path))?;
        self.file.sync_data().map_err(|e| map_io(e, "sync", &self.path))
    }

    /// Facts about the open file.
    pub fn info(&self) -> Result<FileInfo> {
        let meta = self.file.metadata().map_err(|e| map_io(e, "inspect", &self.path))?;
        Ok(FileInfo::from_metadata(&meta))
    }
}

/// Temporary files of atomic replaces are named `.filewright-<pid>-<random>.tmp`.
const TEMP_PREFIX: &str = ".filewright-";
const TEMP_SUFFIX: &str = ".tmp";

/// A fresh temporary name for this process.
fn temp_name() -> String {
    use std::hash::{BuildHasher, Hasher};
    // RandomState is seeded randomly per instance: 64 random bits without a dependency.
    let random = std::collections::hash_map::RandomState::new().build_hasher().finish();
    // The process id once: each `std::process::id()` is a system call.
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    format!("{TEMP_PREFIX}{}-{random:016x}{TEMP_SUFFIX}", PID.get_or_init(std::process::id))
}

/// Whether `name` is one of filewright's temporary files (of any process).
pub fn is_temp_name(name: &str) -> bool {
    temp_owner(name).is_some()
}

/// The process that made the temporary file `name`, when `name` is one.
fn temp_owner(name: &str) -> Option<u32> {
    let middle = name.strip_prefix(TEMP_PREFIX)?.strip_suffix(TEMP_SUFFIX)?;
    let (pid, random) = middle.split_once('-')?;
    (random.len() == 16 && random.bytes().all(|b| b.is_ascii_hexdigit())).then_some(())?;
    pid.parse().ok()
}

/// Whether process `pid` is alive (signal 0 reaches it, or it exists but is not ours).
pub fn process_alive(pid: u32) -> bool {
    let Some(pid) = rustix::process::Pid::from_raw(pid as i32) else { return false };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        Err(e) => e != rustix::io::Errno::SRCH,
    }
}

fn invalid(raw: &str, reason: &str) -> Error {
    Error::InvalidPath { path: raw.to_string(), reason: reason.to_string() }
}

pub(crate) fn require_file(path: &RootPath, info: &FileInfo) -> Result<()> {
    match info.kind {
        FileKind::File => Ok(()),
        FileKind::Directory => Err(Error::IsDirectory { path: path.display() }),
        FileKind::Other | FileKind::Symlink => Err(Error::NotRegularFile { path: path.display() }),
    }
}

/// True for cap-std's "a path led outside of the filesystem" (a synthesised PermissionDenied
/// without an OS error code) and the kernel's refusals under RESOLVE_BENEATH (EXDEV, ELOOP on a
/// magic link).
fn is_escape(e: &io::Error) -> bool {
    (e.kind() == io::ErrorKind::PermissionDenied && e.raw_os_error().is_none())
        || e.raw_os_error() == Some(rustix::io::Errno::XDEV.raw_os_error())
}

fn map_io(e: io::Error, op: &'static str, path: &RootPath) -> Error {
    if is_escape(&e) {
        return Error::OutsideRoot { path: path.display() };
    }
    match e.kind() {
        io::ErrorKind::NotFound => Error::NotFound { path: path.display() },
        io::ErrorKind::IsADirectory => Error::IsDirectory { path: path.display() },
        io::ErrorKind::NotADirectory => Error::ParentNotDirectory { path: path.display() },
        _ if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => Error::InvalidPath {
            path: path.display(),
            reason: "it is a symbolic link (or leads through one) that changed during the call or loops"
                .into(),
        },
        _ => Error::Io { op, path: path.display(), source: e },
    }
}

fn map_parent_error(e: io::Error, path: &RootPath) -> Error {
    match e.kind() {
        io::ErrorKind::AlreadyExists | io::ErrorKind::NotADirectory => {
            Error::ParentNotDirectory { path: path.display() }
        }
        _ => map_io(e, "create the parent directory of", path),
    }
}

/// A workspace on a fresh temporary directory, for the core's unit tests.
#[cfg(test)]
pub(crate) fn temp_workspace() -> (tempfile::TempDir, Workspace) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let ws = Workspace::open_root(tmp.path()).expect("open root");
    (tmp, ws)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> (tempfile::TempDir, Workspace) {
        temp_workspace()
    }

    #[test]
    fn resolve_normalises_dot_and_inner_dotdot() {
        let (_t, ws) = ws();
        assert_eq!(ws.resolve("./a/b/../c.txt").unwrap().display(), "a/c.txt");
    }

    #[test]
    fn dotdot_after_a_symlink_is_refused_because_the_system_resolves_it_from_the_target() {
        let (t, ws) = ws();
        std::fs::create_dir_all(t.path().join("src/deep")).unwrap();
        std::fs::create_dir_all(t.path().join("real")).unwrap();
        std::os::unix::fs::symlink("src/deep", t.path().join("inlink")).unwrap();
        for raw in ["inlink/../x.txt", "inlink/y/../../x.txt", "real/../inlink/../x.txt"] {
            let err = ws.resolve(raw).unwrap_err().to_string();
            assert!(err.contains("symbolic link inlink"), "{raw}: {err}");
        }
        // `..` after real directories, or after names that do not exist yet, stays lexical.
        assert_eq!(ws.resolve("real/../x.txt").unwrap().display(), "x.txt");
        assert_eq!(ws.resolve("new/dir/../x.txt").unwrap().display(), "new/x.txt");
        assert_eq!(ws.resolve("inlink/x.txt").unwrap().display(), "inlink/x.txt");
    }

    #[test]
    fn temp_files_are_hidden_from_listings_and_swept_when_their_process_is_dead() {
        let (t, ws) = ws();
        let dead = std::process::Command::new("true").spawn().unwrap();
        let dead_pid = dead.id();
        let mut dead = dead;
        dead.wait().unwrap();
        std::fs::create_dir_all(t.path().join("src/deep")).unwrap();
        let orphan = format!(".filewright-{dead_pid}-0123456789abcdef.tmp");
        let live = format!(".filewright-{}-fedcba9876543210.tmp", std::process::id());
        for p in [format!("src/deep/{orphan}"), orphan.clone(), live.clone(), ".filewright-notes.tmp".into()]
        {
            std::fs::write(t.path().join(p), "x").unwrap();
        }
        let names: Vec<String> = ws.list(None).unwrap().iter().map(|e| e.name().to_string()).collect();
        assert!(!names.iter().any(|n| is_temp_name(n)), "{names:?}");
        assert!(names.contains(&".filewright-notes.tmp".to_string()), "only our exact pattern is hidden");
        assert_eq!(ws.sweep_temps(1000), 2, "both orphans, at the top and deep down");
        assert!(!t.path().join(&orphan).exists() && !t.path().join("src/deep").join(&orphan).exists());
        assert!(t.path().join(&live).exists(), "a live process's temp file is left alone");
        assert!(t.path().join(".filewright-notes.tmp").exists());
    }

    #[test]
    fn a_durable_directory_sync_succeeds() {
        let (_t, mut ws) = ws();
        ws.set_durable(true);
        let path = ws.resolve("a/b.txt").unwrap();
        ws.replace(&path, b"one").unwrap();
        let parent = ws.open_parent(&path, false).unwrap();
        ws.sync_dir(&parent, &path).expect("the directory is synced");
        ws.sync_dir(&ws.dir, &path).expect("the root is synced");
    }

    #[test]
    fn a_replace_leaves_no_temporary_file() {
        let (t, ws) = ws();
        let path = ws.resolve("a/b.txt").unwrap();
        ws.replace(&path, b"one").unwrap();
        ws.replace(&path, b"two").unwrap();
        let names: Vec<_> =
            std::fs::read_dir(t.path().join("a")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["b.txt"]);
    }

    #[test]
    fn a_replace_keeps_the_replaced_files_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let (t, ws) = ws();
        let path = ws.resolve("a/b.txt").unwrap();
        assert!(ws.replace(&path, b"one").unwrap().created);
        std::fs::set_permissions(t.path().join("a/b.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
        let replaced = ws.replace(&path, b"two, longer").unwrap();
        assert!(!replaced.created);
        let meta = std::fs::metadata(t.path().join("a/b.txt")).unwrap();
        assert_eq!(std::fs::read(t.path().join("a/b.txt")).unwrap(), b"two, longer");
        assert_eq!(meta.permissions().mode() & 0o777, 0o640, "the replaced file's permissions are kept");
        assert_eq!(replaced.now.map(|n| n.size), Some(11));
    }

    #[test]
    fn resolve_refuses_dotdot_above_the_root() {
        let (_t, ws) = ws();
        assert!(matches!(ws.resolve("../x"), Err(Error::OutsideRoot { .. })));
        assert!(matches!(ws.resolve("a/../../x"), Err(Error::OutsideRoot { .. })));
    }

    #[test]
    fn resolve_accepts_absolute_inside_and_refuses_sibling_prefix() {
        let (t, ws) = ws();
        let inside = ws.host_root().join("d/f.txt");
        assert_eq!(ws.resolve(inside.to_str().unwrap()).unwrap().display(), "d/f.txt");
        let evil = format!("{}-evil/f.txt", ws.host_root().display());
        assert!(matches!(ws.resolve(&evil), Err(Error::OutsideRoot { .. })));
        assert!(matches!(ws.resolve("/etc/passwd"), Err(Error::OutsideRoot { .. })));
        drop(t);
    }

    #[test]
    fn resolve_refuses_empty_nul_and_root_itself() {
        let (_t, ws) = ws();
        assert!(matches!(ws.resolve(""), Err(Error::InvalidPath { .. })));
        assert!(matches!(ws.resolve("a\0b"), Err(Error::InvalidPath { .. })));
        assert!(matches!(ws.resolve("."), Err(Error::InvalidPath { .. })));
    }

    #[test]
    fn resolve_keeps_names_literal() {
        let (_t, ws) = ws();
        for name in ["%2e%2e/x", "~/x", "\u{ff0e}\u{ff0e}/x"] {
            assert_eq!(ws.resolve(name).unwrap().display(), name);
        }
    }

    #[test]
    fn replace_creates_parents_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let (t, ws) = ws();
        let p = ws.resolve("deep/er/f.sh").unwrap();
        assert!(ws.replace(&p, b"one").unwrap().created);
        let host = t.path().join("deep/er/f.sh");
        std::fs::set_permissions(&host, std::fs::Permissions::from_mode(0o751)).unwrap();
        assert!(!ws.replace(&p, b"two").unwrap().created);
        assert_eq!(std::fs::read(&host).unwrap(), b"two");
        assert_eq!(std::fs::metadata(&host).unwrap().permissions().mode() & 0o777, 0o751);
    }

    /// The names in the root's top directory, hidden temporary files included.
    fn names(t: &tempfile::TempDir) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(t.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_staged_file_changes_nothing_until_it_lands() {
        let (t, ws) = ws();
        let p = ws.resolve("f.txt").unwrap();
        ws.replace(&p, b"old").unwrap();
        let staged = ws.stage(&p, b"new", false).unwrap();
        assert_eq!(std::fs::read(t.path().join("f.txt")).unwrap(), b"old");
        let replaced = ws.land(staged).unwrap();
        assert!(!replaced.created);
        assert_eq!(std::fs::read(t.path().join("f.txt")).unwrap(), b"new");
        assert_eq!(names(&t), ["f.txt"], "the temporary file became f.txt");
    }

    #[test]
    fn a_staged_file_dropped_or_refused_leaves_nothing_behind() {
        let (t, ws) = ws();
        let p = ws.resolve("f.txt").unwrap();
        ws.replace(&p, b"old").unwrap();
        let staged = ws.stage(&p, b"new", false).unwrap();
        assert_eq!(names(&t).len(), 2, "the staged file sits beside f.txt: {:?}", names(&t));
        drop(staged);
        assert_eq!(names(&t), ["f.txt"]);
        // The target turned into a directory before the rename: the landing fails whole.
        let staged = ws.stage(&p, b"new", false).unwrap();
        std::fs::remove_file(t.path().join("f.txt")).unwrap();
        std::fs::create_dir(t.path().join("f.txt")).unwrap();
        assert!(ws.land(staged).is_err());
        assert_eq!(names(&t), ["f.txt"]);
        assert!(t.path().join("f.txt").is_dir());
    }

    #[test]
    fn a_staged_file_knows_when_its_directory_moved() {
        let (t, ws) = ws();
        std::fs::create_dir(t.path().join("d")).unwrap();
        let p = ws.resolve("d/f.txt").unwrap();
        let staged = ws.stage(&p, b"x", false).unwrap();
        assert!(ws.still_beside(&staged));
        std::fs::rename(t.path().join("d"), t.path().join("moved")).unwrap();
        assert!(!ws.still_beside(&staged), "d is gone");
        std::fs::create_dir(t.path().join("d")).unwrap();
        assert!(!ws.still_beside(&staged), "d is another directory now");
    }

    #[test]
    fn staging_creates_no_parent_unless_asked() {
        let (t, ws) = ws();
        let p = ws.resolve("a/b/f.txt").unwrap();
        assert!(ws.stage(&p, b"x", false).is_err());
        assert!(!t.path().join("a").exists());
        let staged = ws.stage(&p, b"x", true).unwrap();
        assert!(ws.land(staged).unwrap().created);
        assert_eq!(std::fs::read(t.path().join("a/b/f.txt")).unwrap(), b"x");
    }

    #[test]
    fn replace_reports_the_version_a_lookup_then_sees() {
        let (_t, ws) = ws();
        let p = ws.resolve("v.txt").unwrap();
        for content in [&b"one"[..], b"second text", b""] {
            let replaced = ws.replace(&p, content).unwrap();
            assert_eq!(replaced.now, ws.stat(&p).unwrap());
            assert_eq!(replaced.now.unwrap().size, content.len() as u64);
        }
    }

    #[test]
    fn new_files_are_writable_by_their_owner() {
        use std::os::unix::fs::PermissionsExt;
        let (t, ws) = ws();
        ws.replace(&ws.resolve("n.txt").unwrap(), b"x").unwrap();
        let mode = std::fs::metadata(t.path().join("n.txt")).unwrap().permissions().mode();
        assert_eq!(mode & 0o600, 0o600, "mode {mode:o}");
    }

    #[test]
    fn symlink_out_of_the_root_is_outside() {
        let (t, ws) = ws();
        std::os::unix::fs::symlink("/etc", t.path().join("out")).unwrap();
        let p = ws.resolve("out/passwd").unwrap();
        assert!(matches!(ws.read(&p, 1 << 20), Err(Error::OutsideRoot { .. })));
        assert!(matches!(ws.replace(&p, b"x"), Err(Error::OutsideRoot { .. })));
    }

    #[test]
    fn append_refuses_hard_linked_file() {
        let (t, ws) = ws();
        std::fs::write(t.path().join("a"), b"x").unwrap();
        std::fs::hard_link(t.path().join("a"), t.path().join("b")).unwrap();
        let err = ws.open_append(&ws.resolve("b").unwrap()).unwrap_err();
        assert!(matches!(err, Error::HardLinked { links: 2, .. }));
    }

    #[test]
    fn parent_that_is_a_file_is_reported() {
        let (t, ws) = ws();
        std::fs::write(t.path().join("f"), b"x").unwrap();
        let err = ws.replace(&ws.resolve("f/g.txt").unwrap(), b"x").unwrap_err();
        assert!(matches!(err, Error::ParentNotDirectory { .. }), "{err:?}");
    }
}
