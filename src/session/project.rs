//! The project's files as `check_files` resolves references against them
//! ([`crate::check::refs::Files`]), read through the sandbox.

use std::path::Path;

use crate::check::refs::{Entry, Files};
use crate::files::{self, encoding};
use crate::workspace::{FileKind, RootPath, Workspace};

/// Files larger than this are not read for what they export or define: no hand-written
/// module is this large, and a generated one is not what a reference is checked against.
const MAX_READ_BYTES: u64 = 4 << 20;

/// The root's files, for one check.
pub(super) struct ProjectFiles<'a> {
    pub(super) ws: &'a Workspace,
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
}
