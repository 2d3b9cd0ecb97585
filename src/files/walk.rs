//! The files under a directory, walked through the sandbox on every core: `.gitignore` and
//! `.ignore` honoured, `.git` skipped, symlinks never entered, at most [`MAX_VISITED`] entries.
//! Shared by `find_files` and `search_files`, so both see the same files.
//!
//! A walk has two steps. [`walk_files`] lists the directories, several at once, and keeps the
//! files a caller selects; [`Walk::visit`] then hands those files to a caller's function, on
//! several threads, and gives the results back in the walk's order. Directories and files are
//! opened through [`super::tree`], so nothing outside the root is reached.
//!
//! # What a tree holds
//! As ripgrep and fd decide, with the same `ignore` crate's matcher: the patterns of every
//! `.gitignore` and `.ignore` file from the root down to a directory apply to it, the deepest
//! file's match deciding (so a `!` rule can bring a file back); a `.ignore` file's match
//! overrides any `.gitignore`'s. `.gitignore` files apply whether or not the tree is a git
//! repository. Dot files are walked.
//!
//! # Order
//! The result never depends on how the threads were scheduled. The files a walk keeps are the
//! same set every time, and [`Walk::visit`] returns their results in one order (directories by
//! the bytes of their paths, each one's files by name). When a tree holds more than
//! [`MAX_VISITED`] entries, the walk lists it again one directory after another, in path
//! order, and keeps what the first [`MAX_VISITED`] entries in that order hold: the same
//! entries every time.
//!
//! # Threads and descriptors
//! One thread per core the process may use (at most 16), started for the call and ended with
//! it (see [`super::cores`]). Each holds one directory and one file open at a time (see
//! [`super::tree`]). Files are selected by name or path with a [`super::PathGlob`].

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use ignore::gitignore::Gitignore;
use schemars::JsonSchema;
use serde::Serialize;

use super::cores::on_threads;
use super::ignore_rules::{IGNORE_FILES, MAX_IGNORE_FILE, Rules, ignore_file_of, matcher_of, rules_above};
use super::tree::{Entry, Read, Tree, TreeDir};
use crate::error::{Error, Result};
use crate::workspace::{FileInfo, FileKind, RootPath, Workspace};

/// Directory entries looked at, at most, before a walk stops (and says so).
pub const MAX_VISITED: usize = 100_000;

/// What a walk left out. The field docs are the wire's (in `find_files` and `search_files`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema)]
pub struct Walked {
    /// The search stopped after 100,000 entries: there may be more matches.
    pub stopped: bool,
    /// Entries left out by .gitignore or .ignore (and `.git`).
    pub ignored: usize,
}

/// The files a walk kept, grouped by directory, each with what the walk's `keep` said of it.
#[derive(Debug)]
pub struct Walk<T> {
    tree: Tree,
    /// By the bytes of their directories' paths; each one's files by name.
    groups: Vec<Group<T>>,
    /// What the walk left out.
    pub walked: Walked,
}

/// The files kept in one directory.
#[derive(Debug)]
struct Group<T> {
    dir: Option<RootPath>,
    files: Vec<(RootPath, T)>,
}

/// A file of the walk: its path, and what can be done with it through its directory's
/// sandboxed handle.
pub struct FileAt<'a> {
    /// None when the directory vanished between the listing and the visit.
    dir: Option<&'a TreeDir<'a>>,
    path: &'a RootPath,
    /// The last component of `path`.
    name: &'a str,
}

impl FileAt<'_> {
    /// The file's path relative to the root.
    pub fn path(&self) -> &RootPath {
        self.path
    }

    /// The file's name, the last component of its path.
    pub fn name(&self) -> &str {
        self.name
    }

    /// Facts about the file (a symlink put in its place since it was listed is not followed).
    pub fn stat(&self) -> std::io::Result<FileInfo> {
        self.dir.ok_or(std::io::ErrorKind::NotFound)?.stat(self.name())
    }

    /// Reads the file into `bytes`, or only its start when `enough` says so; see
    /// [`TreeDir::read`].
    pub fn read(&self, limit: u64, bytes: &mut Vec<u8>, enough: &dyn Fn(&[u8]) -> bool) -> Result<Read> {
        let dir = self.dir.ok_or_else(|| Error::NotFound { path: self.path.display() })?;
        dir.read(self.name(), self.path, limit, bytes, enough)
    }
}

impl<T: Sync> Walk<T> {
    /// The files kept and what `keep` said of each, in the walk's order.
    pub fn kept(&self) -> impl Iterator<Item = &(RootPath, T)> {
        self.groups.iter().flat_map(|g| &g.files)
    }

    /// The tree walked, to open more of it through.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Calls `visit` with every kept file, on every core, each thread with its own state from
    /// `worker`; returns the results in the walk's order. The files of a directory that
    /// vanished since it was listed are visited all the same: they cannot be read.
    pub fn visit<W, R: Send>(
        &self,
        worker: impl Fn() -> W + Sync,
        visit: impl Fn(&mut W, &FileAt, &T) -> R + Sync,
    ) -> Vec<R> {
        // Small runs of files, so that a directory of many files is shared between threads.
        const RUN: usize = 16;
        let mut runs = Vec::new();
        let mut first = 0;
        for (g, group) in self.groups.iter().enumerate() {
            for start in (0..group.files.len()).step_by(RUN) {
                runs.push((g, start, first + start));
            }
            first += group.files.len();
        }
        let next = AtomicUsize::new(0);
        let done = on_threads(runs.len(), || {
            let mut state = worker();
            let mut out = Vec::new();
            let mut open: Option<(usize, Option<TreeDir>)> = None;
            loop {
                let r = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(g, start, index)) = runs.get(r) else { break };
                let group = &self.groups[g];
                if open.as_ref().is_none_or(|(at, _)| *at != g) {
                    open = Some((g, self.tree.dir(group.dir.as_ref()).ok()));
                }
                let dir = open.as_ref().and_then(|(_, dir)| dir.as_ref());
                let end = (start + RUN).min(group.files.len());
                for (i, (path, kept)) in group.files[start..end].iter().enumerate() {
                    let name = path.as_path().file_name().and_then(|n| n.to_str()).unwrap_or_default();
                    out.push((index + i, visit(&mut state, &FileAt { dir, path, name }, kept)));
                }
            }
            out
        });
        let mut results: Vec<(usize, R)> = done.into_iter().flatten().collect();
        results.sort_unstable_by_key(|(index, _)| *index);
        results.into_iter().map(|(_, result)| result).collect()
    }
}

/// Lists the tree under `dir` (the root when None) and keeps the regular files for which
/// `keep` gives something, with it. `keep` runs on the listing threads, while the file's
/// directory is open.
pub fn walk_files<T: Send>(
    ws: &Workspace,
    dir: Option<&RootPath>,
    keep: &(dyn Fn(&FileAt) -> Option<T> + Sync),
) -> Result<Walk<T>> {
    walk_at_most(ws, dir, keep, MAX_VISITED)
}

/// [`walk_files`], stopping after `max_visited` entries.
fn walk_at_most<T: Send>(
    ws: &Workspace,
    dir: Option<&RootPath>,
    keep: &(dyn Fn(&FileAt) -> Option<T> + Sync),
    max_visited: usize,
) -> Result<Walk<T>> {
    let tree = Tree::open(ws, dir)?;
    let rules = rules_above(ws, dir);
    let lister = Lister { ws, tree: &tree, keep, max_visited };
    let listed = match lister.in_parallel(rules.clone())? {
        Some(listed) => listed,
        None => lister.in_order(rules)?,
    };
    let (mut groups, walked) = listed;
    // By the bytes of their paths: one order every time, cheaper to reach than path order.
    groups.sort_unstable_by(|a, b| path_bytes(a.dir.as_ref()).cmp(path_bytes(b.dir.as_ref())));
    Ok(Walk { tree, groups, walked })
}

fn path_bytes(path: Option<&RootPath>) -> &[u8] {
    path.map_or(b"", |p| p.as_path().as_os_str().as_encoded_bytes())
}

/// One directory to list, with the rules that apply above it.
struct Job {
    dir: Option<RootPath>,
    rules: Option<Arc<Rules>>,
}

/// A directory open for listing: its handle, its entries, the rules that apply in it.
struct Opened<'a> {
    handle: TreeDir<'a>,
    entries: Vec<Entry>,
    rules: Option<Arc<Rules>>,
}

/// What listing one directory gave.
struct Listed<T> {
    group: Group<T>,
    /// Subdirectories to list, by name.
    subdirs: Vec<Job>,
    /// Entries looked at.
    visited: usize,
    ignored: usize,
}

/// Lists directories for [`walk_files`].
struct Lister<'a, T> {
    ws: &'a Workspace,
    tree: &'a Tree,
    keep: &'a (dyn Fn(&FileAt) -> Option<T> + Sync),
    max_visited: usize,
}

impl<T: Send> Lister<'_, T> {
    /// The directory `job` names, open, with its entries (in no order) and the rules in it.
    fn open(&self, job: &Job) -> std::io::Result<Opened<'_>> {
        let handle = self.tree.dir(job.dir.as_ref())?;
        let entries = handle.entries()?;
        let mut own = IGNORE_FILES.map(|_| None);
        for (slot, name) in own.iter_mut().zip(IGNORE_FILES) {
            if let Some(entry) = entries.iter().find(|e| e.name == name) {
                *slot = self.ignore_file(&handle, job.dir.as_ref(), name, entry.kind);
            }
        }
        let [ignore, gitignore] = own;
        Ok(Opened { handle, entries, rules: Rules::below(job.rules.clone(), ignore, gitignore) })
    }

    /// The matcher of the ignore file `name` in `dir`: read by name when it is a regular file,
    /// through the workspace (which follows a symlink inside the root) when it is a link.
    fn ignore_file(
        &self,
        handle: &TreeDir,
        dir: Option<&RootPath>,
        name: &str,
        kind: FileKind,
    ) -> Option<Gitignore> {
        match kind {
            FileKind::File => {
                let path = match dir {
                    Some(d) => d.child(name),
                    None => RootPath::from_name(name)?,
                };
                let mut bytes = Vec::new();
                handle.read(name, &path, MAX_IGNORE_FILE, &mut bytes, &|_| false).ok()?;
                matcher_of(dir, &bytes)
            }
            FileKind::Symlink => ignore_file_of(self.ws, dir, name),
            _ => None,
        }
    }

    /// What one entry of `dir` is to the walk: ignored, a directory to list, a regular file,
    /// or nothing (a symlink, a device...).
    fn sort_out(
        &self,
        dir: Option<&RootPath>,
        entry: &Entry,
        rules: Option<&Rules>,
        scratch: &mut PathBuf,
    ) -> Sorted {
        let Some(path) = (match dir {
            Some(d) => Some(d.child(&entry.name)),
            None => RootPath::from_name(&entry.name),
        }) else {
            return Sorted::Nothing;
        };
        let is_dir = entry.kind == FileKind::Directory;
        if entry.name == ".git" || rules.is_some_and(|r| r.ignore(&path, is_dir, scratch)) {
            return Sorted::Ignored;
        }
        match entry.kind {
            FileKind::Directory => Sorted::Dir(path),
            FileKind::File => Sorted::File(path),
            _ => Sorted::Nothing,
        }
    }

    /// Lists the directory of `job`, every entry of it.
    fn list(&self, job: Job) -> std::io::Result<Listed<T>> {
        let opened = self.open(&job)?;
        let mut listed = Listed {
            group: Group { dir: job.dir.clone(), files: Vec::new() },
            subdirs: Vec::new(),
            visited: opened.entries.len(),
            ignored: 0,
        };
        let mut scratch = PathBuf::new();
        for entry in &opened.entries {
            match self.sort_out(job.dir.as_ref(), entry, opened.rules.as_deref(), &mut scratch) {
                Sorted::Ignored => listed.ignored += 1,
                Sorted::Dir(path) => {
                    listed.subdirs.push(Job { dir: Some(path), rules: opened.rules.clone() })
                }
                Sorted::File(path) => {
                    let file = FileAt { dir: Some(&opened.handle), path: &path, name: &entry.name };
                    if let Some(kept) = (self.keep)(&file) {
                        listed.group.files.push((path, kept));
                    }
                }
                Sorted::Nothing => {}
            }
        }
        // By name: the order of the walk's results; and the first subdirectory by name is
        // the next one this thread lists.
        // (In one directory, the order of the paths' bytes is the order of the names.)
        listed.group.files.sort_unstable_by(|(a, _), (b, _)| path_bytes(Some(a)).cmp(path_bytes(Some(b))));
        listed.subdirs.sort_unstable_by(|a, b| path_bytes(a.dir.as_ref()).cmp(path_bytes(b.dir.as_ref())));
        Ok(listed)
    }

    /// The whole tree, listed on every core; None when it holds more than `max_visited`
    /// entries (it is then listed in order, by [`Lister::in_order`]).
    fn in_parallel(&self, rules: Option<Arc<Rules>>) -> Result<Option<(Vec<Group<T>>, Walked)>> {
        let start = self.tree.start().cloned();
        let first =
            self.list(Job { dir: start.clone(), rules }).map_err(|e| list_error(start.as_ref(), e))?;
        if first.visited > self.max_visited {
            return Ok(None);
        }
        let visited = AtomicUsize::new(first.visited);
        let over = AtomicBool::new(false);
        let queue = Mutex::new(Queue { jobs: Vec::new(), busy: 0 });
        let ready = Condvar::new();
        let mut walked = Walked { stopped: false, ignored: first.ignored };
        let mut groups = vec![first.group];
        queue.lock().unwrap_or_else(|e| e.into_inner()).jobs.extend(first.subdirs.into_iter().rev());
        let results = on_threads(usize::MAX, || {
            let mut groups = Vec::new();
            let mut ignored = 0;
            while let Some(job) = Queue::take(&queue, &ready, &over) {
                let listed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.list(job)));
                let listed = listed.unwrap_or_else(|panic| {
                    // The other threads must not wait for this one: they stop, and the panic
                    // goes on to the caller.
                    over.store(true, Ordering::Relaxed);
                    Queue::finish(&queue, &ready, Vec::new());
                    std::panic::resume_unwind(panic)
                });
                let mut subdirs = Vec::new();
                // A directory that vanished or cannot be read is skipped.
                if let Ok(listed) = listed {
                    if visited.fetch_add(listed.visited, Ordering::Relaxed) + listed.visited
                        > self.max_visited
                    {
                        over.store(true, Ordering::Relaxed);
                    }
                    ignored += listed.ignored;
                    if !listed.group.files.is_empty() {
                        groups.push(listed.group);
                    }
                    subdirs = listed.subdirs;
                }
                Queue::finish(&queue, &ready, subdirs);
            }
            (groups, ignored)
        });
        if over.load(Ordering::Relaxed) {
            return Ok(None);
        }
        for (more, ignored) in results {
            groups.extend(more);
            walked.ignored += ignored;
        }
        Ok(Some((groups, walked)))
    }

    /// The tree listed one directory after another, in path order, up to `max_visited`
    /// entries.
    fn in_order(&self, rules: Option<Arc<Rules>>) -> Result<(Vec<Group<T>>, Walked)> {
        let mut walk = InOrder { walked: Walked::default(), groups: Vec::new(), visited: 0 };
        let start = Job { dir: self.tree.start().cloned(), rules };
        let opened = self.open(&start).map_err(|e| list_error(start.dir.as_ref(), e))?;
        self.in_order_below(start.dir, opened, &mut walk);
        Ok((walk.groups, walk.walked))
    }

    fn in_order_below(&self, dir: Option<RootPath>, opened: Opened, walk: &mut InOrder<T>) {
        let Opened { handle, mut entries, rules } = opened;
        entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        let mut scratch = PathBuf::new();
        // Not held while a subdirectory is walked, so that a deep tree needs no more
        // descriptors than a shallow one; opened again for the files after it.
        let mut handle = Some(handle);
        let mut group = Group { dir: dir.clone(), files: Vec::new() };
        for entry in &entries {
            if walk.visited >= self.max_visited {
                walk.walked.stopped = true;
                break;
            }
            walk.visited += 1;
            match self.sort_out(dir.as_ref(), entry, rules.as_deref(), &mut scratch) {
                Sorted::Ignored => walk.walked.ignored += 1,
                Sorted::Dir(path) => {
                    handle = None;
                    let job = Job { dir: Some(path), rules: rules.clone() };
                    // A directory that vanished or cannot be read is skipped.
                    if let Ok(opened) = self.open(&job) {
                        self.in_order_below(job.dir, opened, walk);
                    }
                }
                Sorted::File(path) => {
                    if handle.is_none() {
                        handle = self.tree.dir(dir.as_ref()).ok();
                    }
                    let Some(dir) = &handle else { continue };
                    if let Some(kept) =
                        (self.keep)(&FileAt { dir: Some(dir), path: &path, name: &entry.name })
                    {
                        group.files.push((path, kept));
                    }
                }
                Sorted::Nothing => {}
            }
        }
        if !group.files.is_empty() {
            walk.groups.push(group);
        }
    }
}

/// What a walk in order has gathered so far.
struct InOrder<T> {
    walked: Walked,
    groups: Vec<Group<T>>,
    visited: usize,
}

/// The error of a walk whose own directory cannot be listed.
fn list_error(dir: Option<&RootPath>, e: std::io::Error) -> Error {
    Error::Io { op: "list", path: dir.map_or_else(|| ".".into(), RootPath::display), source: e }
}

/// What an entry is to a walk.
enum Sorted {
    Ignored,
    Dir(RootPath),
    File(RootPath),
    Nothing,
}

/// The directories still to list, shared by the listing threads.
struct Queue {
    jobs: Vec<Job>,
    /// Threads listing a directory (which may add more).
    busy: usize,
}

impl Queue {
    /// The next directory to list; None when there is none left and none can come (or the
    /// walk is over its limit).
    fn take(queue: &Mutex<Queue>, ready: &Condvar, over: &AtomicBool) -> Option<Job> {
        let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if over.load(Ordering::Relaxed) {
                ready.notify_all();
                return None;
            }
            if let Some(job) = q.jobs.pop() {
                q.busy += 1;
                return Some(job);
            }
            if q.busy == 0 {
                ready.notify_all();
                return None;
            }
            q = ready.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A thread is done with a directory, which had `subdirs` (by name).
    fn finish(queue: &Mutex<Queue>, ready: &Condvar, subdirs: Vec<Job>) {
        let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
        q.busy -= 1;
        let wake = !subdirs.is_empty() || q.busy == 0;
        // Last in, first out, the first by name first: each thread goes depth first.
        q.jobs.extend(subdirs.into_iter().rev());
        drop(q);
        if wake {
            ready.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::workspace::temp_workspace;

    fn walked(ws: &Workspace, dir: Option<&RootPath>) -> (Vec<String>, Walked) {
        let walk = walk_files(ws, dir, &|_| Some(())).unwrap();
        let seen = walk.visit(|| (), |_, file, _| file.path().display());
        (seen, walk.walked)
    }

    fn write(root: &Path, files: &[&str]) {
        for p in files {
            std::fs::create_dir_all(root.join(p).parent().unwrap_or(root)).unwrap();
            std::fs::write(root.join(p), "x").unwrap();
        }
    }

    #[test]
    fn files_come_by_directory_in_path_order_without_ignored_ones_or_git() {
        let (t, ws) = temp_workspace();
        write(t.path(), &["b.txt", "a/z.txt", "a/b/c.txt", "target/x.txt", ".git/config", "c.log"]);
        std::fs::write(t.path().join(".gitignore"), "target/\n*.log\n").unwrap();
        std::os::unix::fs::symlink("/etc", t.path().join("etc_link")).unwrap();
        let (seen, w) = walked(&ws, None);
        assert_eq!(seen, [".gitignore", "b.txt", "a/z.txt", "a/b/c.txt"]);
        assert_eq!(w, Walked { stopped: false, ignored: 3 });
    }

    #[test]
    fn dot_ignore_files_leave_out_what_they_name_and_override_gitignore() {
        let (t, ws) = temp_workspace();
        write(t.path(), &["keep.rs", "gen/a.rs", "src/x.tmp", "src/y.log", "src/sub/z.log", "src/sub/w.tmp"]);
        std::fs::write(t.path().join(".ignore"), "gen/\n*.tmp\n").unwrap();
        std::fs::write(t.path().join(".gitignore"), "*.log\n").unwrap();
        // A deeper .gitignore cannot bring back what a .ignore leaves out; a .ignore can
        // bring back what a .gitignore does.
        std::fs::write(t.path().join("src/sub/.gitignore"), "!w.tmp\n").unwrap();
        std::fs::write(t.path().join("src/sub/.ignore"), "!z.log\n").unwrap();
        let (seen, w) = walked(&ws, None);
        assert_eq!(
            seen,
            [".gitignore", ".ignore", "keep.rs", "src/sub/.gitignore", "src/sub/.ignore", "src/sub/z.log"]
        );
        assert_eq!(w.ignored, 4, "gen/, src/x.tmp, src/y.log, src/sub/w.tmp");
        let sub = ws.resolve("src/sub").unwrap();
        let (seen, _) = walked(&ws, Some(&sub));
        assert_eq!(seen, ["src/sub/.gitignore", "src/sub/.ignore", "src/sub/z.log"], "the rules above apply");
    }

    #[test]
    fn the_order_is_the_same_on_every_run_and_every_file_is_there_once() {
        let (t, ws) = temp_workspace();
        let mut files = Vec::new();
        for d in 0..30 {
            for f in 0..(d % 7) * 5 {
                files.push(format!("d{d:02}/s{}/f{f:02}.txt", f % 3));
            }
        }
        write(t.path(), &files.iter().map(String::as_str).collect::<Vec<_>>());
        let (first, _) = walked(&ws, None);
        let mut sorted = first.clone();
        sorted.sort();
        files.sort();
        assert_eq!(sorted, files);
        for _ in 0..10 {
            assert_eq!(walked(&ws, None).0, first);
        }
    }

    #[test]
    fn a_tree_over_the_limit_is_cut_after_the_same_entries_in_path_order_every_time() {
        let (t, ws) = temp_workspace();
        let mut files = vec!["a.txt".to_string(), "z.txt".to_string()];
        for d in 0..3 {
            files.extend((0..10).map(|f| format!("d{d}/f{f}.txt")));
        }
        write(t.path(), &files.iter().map(String::as_str).collect::<Vec<_>>());
        // In path order: a.txt, d0, its 10 files, d1 and its first 4 files make 17 entries.
        let expected: Vec<String> = ["a.txt".to_string()]
            .into_iter()
            .chain((0..10).map(|f| format!("d0/f{f}.txt")))
            .chain((0..4).map(|f| format!("d1/f{f}.txt")))
            .collect();
        for _ in 0..10 {
            let walk = walk_at_most(&ws, None, &|_| Some(()), 17).unwrap();
            assert_eq!(walk.walked, Walked { stopped: true, ignored: 0 });
            assert_eq!(walk.visit(|| (), |_, file, _| file.path().display()), expected);
        }
        let walk = walk_at_most(&ws, None, &|_| Some(()), 35).unwrap();
        assert_eq!((walk.walked.stopped, walk.kept().count()), (false, 32), "35 entries fit");
    }

    #[test]
    fn keep_sees_each_file_once_through_its_directory() {
        let (t, ws) = temp_workspace();
        write(t.path(), &["a/one.txt", "a/two.rs", "b/three.rs"]);
        std::fs::write(t.path().join("b/three.rs"), "twelve bytes").unwrap();
        let walk = walk_files(&ws, None, &|file| {
            file.path().display().ends_with(".rs").then(|| file.stat().unwrap().size)
        })
        .unwrap();
        let kept: Vec<(String, u64)> = walk.kept().map(|(p, size)| (p.display(), *size)).collect();
        assert_eq!(kept, [("a/two.rs".to_string(), 1), ("b/three.rs".to_string(), 12)]);
    }

    #[test]
    fn a_panic_while_listing_or_visiting_reaches_the_caller_instead_of_a_short_answer() {
        let (t, ws) = temp_workspace();
        let files: Vec<String> = (0..40).map(|i| format!("d{}/f{i}.txt", i % 8)).collect();
        write(t.path(), &files.iter().map(String::as_str).collect::<Vec<_>>());
        let listing = std::panic::catch_unwind(|| {
            walk_files(&ws, None, &|file| {
                assert!(file.name() != "f13.txt", "keep failed");
                Some(())
            })
        });
        assert!(listing.is_err());
        let walk = walk_files(&ws, None, &|_| Some(())).unwrap();
        let visiting = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            walk.visit(|| (), |_, file, _| assert!(file.name() != "f27.txt", "visit failed"))
        }));
        assert!(visiting.is_err());
    }

    #[test]
    fn the_files_of_a_directory_gone_before_the_visit_are_visited_and_cannot_be_read() {
        let (t, ws) = temp_workspace();
        write(t.path(), &["keep/a.txt", "gone/b.txt", "gone/c.txt"]);
        let walk = walk_files(&ws, None, &|_| Some(())).unwrap();
        std::fs::remove_dir_all(t.path().join("gone")).unwrap();
        let read = walk.visit(Vec::new, |bytes, file, _| {
            (file.path().display(), file.read(100, bytes, &|_| false).is_ok())
        });
        let expected = [("gone/b.txt", false), ("gone/c.txt", false), ("keep/a.txt", true)];
        assert_eq!(read, expected.map(|(p, ok)| (p.to_string(), ok)));
    }
}
