//! Writing a planned patch: every new content staged, then landed, the removed files removed,
//! and everything put back should a step fail; and the journal rows that make each path
//! undoable.
//!
//! Apart from planning (`patch.rs`) because it is the part that touches the disk, in an order
//! that matters: a file that gives way to a directory of its name (or the other way round) is
//! removed before anything is staged under it.

use std::path::Path;

use super::Session;
use super::patch::{PatchedAs, Planned, is_inside};
use crate::error::{Error, Result};
use crate::files::sha256_hex;
use crate::store::{Action, Before, WriteFacts, link_sha256};
use crate::workspace::{FileKind, RootPath, Staged};

impl Session {
    /// Writes every planned change: all new contents staged first, then renamed into place and
    /// the deleted files removed; should one of those fail, the ones done are put back.
    ///
    /// A file that gives way to a directory of the same name (or a directory to a file) is
    /// the exception: the paths in the way are removed first (their content is in memory for
    /// putting back), then what goes there is staged.
    pub(super) fn write_planned(&self, planned: &[Planned]) -> Result<()> {
        for p in planned {
            let size = p.after.as_ref().map_or(0, |bytes| bytes.len() as u64);
            if size > self.config.max_file_bytes {
                return Err(Error::TooLarge {
                    path: p.destination().display(),
                    size,
                    limit: self.config.max_file_bytes,
                });
            }
        }
        // Whether a removed path and a written one are file and directory of one name.
        let in_the_way =
            |gone: &RootPath, written: &RootPath| is_inside(written, gone) || is_inside(gone, written);
        fn writes(p: &Planned) -> Option<&RootPath> {
            p.after.as_ref().map(|_| p.writes_at())
        }
        let early: Vec<bool> = planned
            .iter()
            .map(|p| {
                p.removes().is_some_and(|gone| planned.iter().filter_map(writes).any(|w| in_the_way(gone, w)))
            })
            .collect();
        let late = |p: &Planned| {
            writes(p)
                .is_some_and(|w| planned.iter().filter_map(Planned::removes).any(|gone| in_the_way(gone, w)))
        };
        let mut staged: Vec<Option<Staged>> = Vec::with_capacity(planned.len());
        for p in planned {
            staged.push(match &p.after {
                Some(bytes) if !late(p) => Some(self.ws.stage(p.writes_at(), bytes, true)?),
                _ => None,
            });
        }
        let mut done: Vec<usize> = Vec::new();
        let undo_all = |done: &[usize], staged: Vec<Option<Staged>>| {
            // Temporary files first: a directory to remove must be empty.
            drop(staged);
            for &k in done.iter().rev() {
                self.put_back(&planned[k]);
            }
        };
        // The paths in the way go first; then what was waiting for them is staged.
        for (k, p) in planned.iter().enumerate().filter(|(k, _)| early[*k]) {
            done.push(k);
            if let Err(e) = self.remove_taken(p) {
                undo_all(&done, staged);
                return Err(e);
            }
        }
        for (k, p) in planned.iter().enumerate() {
            if let (Some(bytes), true) = (&p.after, late(p)) {
                let gone: Vec<&RootPath> = planned.iter().filter_map(Planned::removes).collect();
                match self
                    .clear_directory(p.writes_at(), &gone)
                    .and_then(|()| self.ws.stage(p.writes_at(), bytes, true))
                {
                    Ok(s) => staged[k] = Some(s),
                    Err(e) => {
                        undo_all(&done, staged);
                        return Err(e);
                    }
                }
            }
        }
        for (k, p) in planned.iter().enumerate() {
            let step = |staged: Option<Staged>| -> Result<()> {
                if let Some(staged) = staged {
                    self.ws.land(staged)?;
                }
                if !early[k] && p.removes().is_some() {
                    self.remove_taken(p)?;
                }
                Ok(())
            };
            let this = staged[k].take();
            if !done.contains(&k) {
                done.push(k);
            }
            if let Err(e) = step(this) {
                undo_all(&done, staged);
                return Err(e);
            }
        }
        Ok(())
    }

    /// Removes the file a change takes away (a deleted file, a move's source); a link is
    /// removed itself.
    fn remove_taken(&self, p: &Planned) -> Result<()> {
        match (&p.through, &p.moved_to) {
            // A moved link: the link itself goes to the destination (its file was written).
            (Some(_), Some(to)) => self.ws.rename(&p.path, to, true),
            _ => self.ws.remove_file(&p.path),
        }
    }

    /// Where a file is to be written over a directory whose files the patch removed (`gone`,
    /// already removed): the directories left empty below `dir`, then `dir` itself. One that
    /// still holds anything is refused by [`crate::workspace::Workspace::remove_empty_dir`].
    fn clear_directory(&self, dir: &RootPath, gone: &[&RootPath]) -> Result<()> {
        if !self.ws.stat(dir)?.is_some_and(|info| info.kind == FileKind::Directory) {
            return Ok(());
        }
        let mut below: Vec<RootPath> = Vec::new();
        for path in gone.iter().filter(|g| is_inside(g, dir)) {
            let mut parent = path.as_path().parent().map(Path::to_path_buf);
            while let Some(at) = parent.as_deref().and_then(RootPath::from_path) {
                if !is_inside(&at, dir) {
                    break;
                }
                parent = at.as_path().parent().map(Path::to_path_buf);
                if !below.contains(&at) {
                    below.push(at);
                }
            }
        }
        // Deepest first.
        below.sort_by_key(|d| std::cmp::Reverse(d.as_path().components().count()));
        for d in &below {
            if self.ws.stat(d)?.is_some() {
                self.ws.remove_empty_dir(d)?;
            }
        }
        self.ws.remove_empty_dir(dir)
    }

    /// Best effort after a failed write: `p`'s paths as they were before the patch.
    fn put_back(&self, p: &Planned) {
        if let (Some(through), Some(to)) = (&p.through, &p.moved_to) {
            if self.ws.link_text(&p.path).ok().flatten().is_none()
                && self.ws.link_text(to).ok().flatten().is_some()
            {
                let _ = self.ws.rename(to, &p.path, false);
            }
            match (&p.replaced, &p.replaced_link) {
                (_, Some(text)) => {
                    let _ = self.ws.create_link(to, text);
                }
                (Some(old), None) => {
                    let _ = self.ws.replace(to, old);
                }
                (None, None) => {}
            }
            if let Some(before) = &p.before {
                let _ = self.ws.replace(through, before);
            }
            return;
        }
        if p.after.is_some() {
            match (&p.replaced, &p.replaced_link) {
                (_, Some(text)) => {
                    let _ = self.ws.remove_file(p.destination());
                    let _ = self.ws.create_link(p.destination(), text);
                }
                (Some(old), None) => {
                    let _ = self.ws.replace(p.destination(), old);
                }
                (None, None) if p.moved_to.is_some() || p.before.is_none() => {
                    let _ = self.ws.remove_file(p.destination());
                }
                (None, None) => {}
            }
        }
        if let Some(text) = &p.source_link {
            if p.removes().is_some() && self.ws.link_text(&p.path).ok().flatten().is_none() {
                let _ = self.ws.create_link(&p.path, text);
            }
            return;
        }
        if let Some(before) = &p.before {
            // A directory made in its place (a file that gave way to one) is empty by now.
            if self.ws.stat(&p.path).ok().flatten().is_some_and(|i| i.kind == FileKind::Directory) {
                let _ = self.ws.remove_empty_dir(&p.path);
            }
            let _ = self.ws.replace(&p.path, before);
        }
    }
}

/// The journal rows of one planned change: one per path it touched, with what undo needs.
pub(super) fn journal_rows(p: &Planned) -> Vec<(String, Action, WriteFacts)> {
    let after = p.after.as_deref().unwrap_or_default();
    let facts = |bytes: &[u8], before: Option<Before>| WriteFacts {
        size: bytes.len() as u64,
        added: (bytes.len() as u64).saturating_sub(p.before.as_ref().map_or(0, |b| b.len() as u64)),
        sha256: sha256_hex(bytes),
        before,
    };
    let key = p.path.display();
    match p.action {
        PatchedAs::Added => {
            let before = p.before.clone().map_or(Before::Absent, Before::Content);
            vec![(key, Action::Write, facts(after, Some(before)))]
        }
        PatchedAs::Updated => {
            let before = p.before.as_deref().unwrap_or_default();
            vec![(key, Action::Edit, facts(after, Some(Before::splice(before, after))))]
        }
        PatchedAs::Deleted => vec![(key, Action::Delete, facts(b"", taken_before(p)))],
        PatchedAs::Moved => {
            let replaced = match (&p.replaced_link, &p.replaced) {
                (Some(text), _) => Before::Link(text.clone()),
                (None, Some(old)) => Before::Content(old.clone()),
                (None, None) => Before::Absent,
            };
            match (&p.through, &p.source_link) {
                // A moved link: the link's two paths, and its file's edit.
                (Some(through), Some(text)) => {
                    let mut rows = vec![
                        (key, Action::Move, facts(b"", taken_before(p))),
                        (
                            p.destination().display(),
                            Action::Move,
                            WriteFacts {
                                size: 0,
                                added: 0,
                                sha256: link_sha256(text),
                                before: Some(replaced),
                            },
                        ),
                    ];
                    let before = p.before.as_deref().unwrap_or_default();
                    if before != after {
                        rows.push((
                            through.display(),
                            Action::Edit,
                            facts(after, Some(Before::splice(before, after))),
                        ));
                    }
                    rows
                }
                _ => vec![
                    (key, Action::Move, facts(b"", taken_before(p))),
                    (p.destination().display(), Action::Move, facts(after, Some(replaced))),
                ],
            }
        }
    }
}

/// What the path a change took away held: the link itself, or the file's content.
fn taken_before(p: &Planned) -> Option<Before> {
    match &p.source_link {
        Some(text) => Some(Before::Link(text.clone())),
        None => p.before.clone().map(Before::Content),
    }
}
