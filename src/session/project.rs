//! The project's files as `check_files` resolves references against them
//! ([`crate::check::refs::Files`]), read through the sandbox.

use std::path::Path;
use std::sync::Arc;

use super::check_cache::{FileMemo, estimated_bytes, settled};
use crate::check::refs::{self, Entry, Files, Refs};
use crate::files::{self, encoding};
use crate::workspace::{FileInfo, FileKind, RootPath, Workspace};

/// Files larger than this are not read for what they export or define: no hand-written
/// module is this large, and a generated one is not what a reference is checked against.
const MAX_READ_BYTES: u64 = 4 << 20;

/// The root's files, for one check.
pub(super) struct ProjectFiles<'a> {
    pub(super) ws: &'a Workspace,
    /// What other files offered earlier checks, kept while each file is unchanged.
    pub(super) surveys: &'a FileMemo<FileInfo, Refs>,
    /// When this check started, in nanoseconds since the epoch: a file changed too close to
    /// it is not kept (see [`settled`]).
    pub(super) started_ns: i128,
}

impl ProjectFiles<'_> {
    fn path(raw: &str) -> Option<RootPath> {
        RootPath::from_path(Path::new(raw))
    }
}

impl Files for ProjectFiles<'_> {
    fn list(&self, dir: &str) -> Option<Vec<Entry>> {
        let path = if dir.is_empty() { None } else { Some(Self::path(dir)?) };
        let entries = self.ws.list(path.as_ref()).ok()?;
        Some(
            entries
                .iter()
                // A symlink counts as a file that is there: a resolver would follow it.
                .filter(|e| e.kind != FileKind::Other)
                .map(|e| Entry { name: e.name().to_owned(), is_dir: e.kind == FileKind::Directory })
                .collect(),
        )
    }

    fn read(&self, path: &str) -> Option<String> {
        let bytes = self.ws.read(&Self::path(path)?, MAX_READ_BYTES).ok()?;
        (!bytes.contains(&0)).then(|| encoding::lossy_text(&bytes).into_owned())
    }

    fn survey(&self, path: &str) -> Option<Arc<Refs>> {
        let root_path = Self::path(path)?;
        if let Ok(Some(info)) = self.ws.stat(&root_path)
            && let Some(known) = self.surveys.get(path, &info)
        {
            return Some(known);
        }
        // The version read is the one the open saw, before the bytes: a change during the
        // read leaves a later mtime, which the next look sees.
        let (info, bytes) = match self.ws.read_if_exists(&root_path, MAX_READ_BYTES) {
            Ok(Some((info, Ok(bytes)))) => (info, bytes),
            _ => return None,
        };
        if bytes.contains(&0) {
            return None;
        }
        let refs = Arc::new(refs::extract(path, &encoding::lossy_text(&bytes)));
        // Through a link, the version is its target's (the stat follows it), so a link
        // turned to another file is another version.
        if settled(info.mtime_ns, self.started_ns) {
            self.surveys.insert(path, info, refs.clone(), estimated_bytes(&*refs));
        }
        Some(refs)
    }

    fn ignored(&self, path: &str, is_dir: bool) -> bool {
        Self::path(path).is_some_and(|p| files::is_ignored(self.ws, &p, is_dir))
    }

    fn walk(&self) -> Option<Vec<String>> {
        let walk = files::walk_files(self.ws, None, &|_| Some(())).ok()?;
        if walk.walked.stopped {
            return None;
        }
        Some(walk.kept().map(|(path, ())| path.display()).collect())
    }

    fn walk_under(&self, dir: &str) -> Option<Vec<String>> {
        let dir = RootPath::from_path(std::path::Path::new(dir))?;
        let walk = files::walk_files(self.ws, Some(&dir), &|_| Some(())).ok()?;
        if walk.walked.stopped {
            return None;
        }
        Some(walk.kept().map(|(path, ())| path.display()).collect())
    }
}
