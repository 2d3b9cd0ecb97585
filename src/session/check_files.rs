//! `check_files`: the strict check an agent runs before it says it is done. Incomplete counts
//! as a failure here, stubs are looked for in the whole file, and the files are judged
//! together: an HTML page with the scripts and stylesheets it links, and every file with the
//! files, modules, names and DOM ids it refers to (see [`crate::check::refs`]).

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Serialize;

use super::Session;
use super::project::ProjectFiles;
use crate::check::Linked;
use crate::check::refs::{self, Project, Unresolved};
use crate::check::stubs::{self, Stub, StubKind};
use crate::check::{self, LanguageName, ManifestEdition, Report, RustEdition, Status};
use crate::error::{Error, Result};
use crate::files::cores::{self, Budget};
use crate::files::encoding;
use crate::workspace::{FileKind, RootPath};

/// A file's verdict in `check_files`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    /// Parses cleanly, no stubs.
    Complete,
    /// Parses, but holds stubs or placeholders (or links empty assets).
    Stubs,
    /// Parses and holds no stub, but refers to files, modules, names or DOM ids that do not
    /// exist.
    Unresolved,
    /// Unfinished: problems only at the end, or empty.
    Incomplete,
    /// Problems before the end.
    Errors,
    /// A file type that is not checked.
    NotChecked,
    /// The file does not exist.
    Missing,
    /// The file could not be read.
    Unreadable,
}

impl FileStatus {
    /// The status as shown to people (`not checked`).
    pub fn label(self) -> &'static str {
        match self {
            FileStatus::Complete => "complete",
            FileStatus::Stubs => "stubs",
            FileStatus::Unresolved => "unresolved references",
            FileStatus::Incomplete => "incomplete",
            FileStatus::Errors => "errors",
            FileStatus::NotChecked => "not checked",
            FileStatus::Missing => "missing",
            FileStatus::Unreadable => "unreadable",
        }
    }
}

/// One file's verdict in `check_files`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileCheck {
    /// Root-relative path.
    pub path: String,
    /// The file exists.
    pub exists: bool,
    /// Size in bytes (0 when missing).
    pub size: u64,
    /// Lines (0 when missing).
    pub lines: usize,
    /// Language checked as; absent when not checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LanguageName")]
    pub language: Option<LanguageName>,
    /// The verdict.
    pub status: FileStatus,
    /// The first problem or the reason, in a few words; absent when complete.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub note: Option<String>,
    /// Stubs and placeholders found (at most 10), including missing or nearly empty scripts
    /// and stylesheets an HTML page links.
    pub stubs: Vec<Stub>,
    /// How many more stubs were found but not listed.
    pub more_stubs: usize,
    /// References to files, modules, names and DOM ids that do not resolve (at most 10).
    pub unresolved: Vec<Unresolved>,
    /// How many more unresolved references were found but not listed.
    pub more_unresolved: usize,
    /// The full syntax report; absent when the file could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Report")]
    pub syntax: Option<Report>,
}

impl FileCheck {
    pub(super) fn failed(path: String, status: FileStatus, note: String) -> Self {
        FileCheck {
            path,
            exists: false,
            size: 0,
            lines: 0,
            language: None,
            status,
            note: Some(note),
            stubs: Vec::new(),
            more_stubs: 0,
            unresolved: Vec::new(),
            more_unresolved: 0,
            syntax: None,
        }
    }
}

/// Result of `check_files`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckOutcome {
    /// One entry per file, in path order.
    pub files: Vec<FileCheck>,
    /// Files that parse cleanly.
    pub complete: usize,
    /// Files that are unfinished (problems only at the end) or empty.
    pub incomplete: usize,
    /// Files with problems before the end.
    pub errors: usize,
    /// Files that are missing or could not be read.
    pub missing: usize,
    /// Files that parse but hold stubs or placeholders (or link empty assets).
    pub with_stubs: usize,
    /// Files that parse, hold no stubs, but refer to something that does not exist.
    pub unresolved: usize,
    /// Files of a type that is not checked.
    pub not_checked: usize,
    /// Every file is complete (or of a type that is not checked), with no stubs.
    pub all_complete: bool,
    /// One line for humans, e.g. "3 files complete, 1 incomplete (src/app.js: ...)".
    pub verdict: String,
    /// How many files (complete ones first; the counts above include them) were left out of this result to keep it within its budget (50,000
    /// characters of text): check_files with fewer `paths` lists them.
    pub not_listed: usize,
}

impl CheckOutcome {
    fn summarise(files: Vec<FileCheck>) -> Self {
        use FileStatus::*;
        let count = |s: FileStatus| files.iter().filter(|f| f.status == s).count();
        let (complete, incomplete, errors, not_checked, with_stubs, unresolved) = (
            count(Complete),
            count(Incomplete),
            count(Errors),
            count(NotChecked),
            count(Stubs),
            count(Unresolved),
        );
        let missing = count(Missing) + count(Unreadable);
        let examples = |s: &[FileStatus]| {
            let named: Vec<String> = files
                .iter()
                .filter(|f| s.contains(&f.status))
                .take(3)
                .map(|f| match &f.note {
                    // A stub or reference note starts with its line: `web/app.js:12 ...`; a
                    // notebook's names its cell.
                    Some(note)
                        if matches!(f.status, Stubs | Unresolved)
                            && note.starts_with(|c: char| c.is_ascii_digit()) =>
                    {
                        format!("{}:{note}", f.path)
                    }
                    Some(note) => format!("{}: {note}", f.path),
                    None => f.path.clone(),
                })
                .collect();
            if named.is_empty() { String::new() } else { format!(" ({})", named.join("; ")) }
        };
        let mut parts = vec![format!("{complete} file{} complete", if complete == 1 { "" } else { "s" })];
        if incomplete > 0 {
            parts.push(format!("{incomplete} incomplete{}", examples(&[Incomplete])));
        }
        if errors > 0 {
            parts.push(format!("{errors} with errors{}", examples(&[Errors])));
        }
        if with_stubs > 0 {
            parts.push(format!("{with_stubs} with stubs{}", examples(&[Stubs])));
        }
        if unresolved > 0 {
            parts.push(format!("{unresolved} with unresolved references{}", examples(&[Unresolved])));
        }
        if missing > 0 {
            parts.push(format!("{missing} missing or unreadable{}", examples(&[Missing, Unreadable])));
        }
        if not_checked > 0 {
            parts.push(format!("{not_checked} not checked"));
        }
        let verdict = if files.is_empty() {
            "no files to check: name them in `paths` (nothing was written on this root since this server started)"
                .to_string()
        } else {
            parts.join(", ")
        };
        CheckOutcome {
            all_complete: !files.is_empty() && incomplete + errors + missing + with_stubs + unresolved == 0,
            with_stubs,
            unresolved,
            files,
            complete,
            incomplete,
            errors,
            missing,
            not_checked,
            verdict,
            not_listed: 0,
        }
    }
}

/// Bytes of source checked at once, at most, by all threads together (a file larger than this
/// is checked alone): a parse holds many times its text in memory (a tree-sitter tree about
/// 24 times), and the finish check of a large project must stay within a small server's
/// memory.
const BYTES_IN_FLIGHT: usize = 2 << 20;

/// What the checks of one `check_files` call share, on every thread.
pub(super) struct Run<'p> {
    /// The project the references resolve in: each directory listed and each other file
    /// read at most once in this check.
    project: Project<'p>,
    /// The bound on the bytes checked at once.
    pub(super) budget: Budget,
    /// What each directory's `Cargo.toml` says of the edition, by directory.
    manifests: Mutex<HashMap<PathBuf, Option<ManifestEdition>>>,
    /// When the call started, in nanoseconds since the epoch (see
    /// [`settled`](super::check_cache::settled)).
    pub(super) started_ns: i128,
    /// The Python classes and script classes of each project (see [`Project::package_of`]),
    /// indexed the first time a stub body of it asks whether it is overridden (see
    /// [`stubs::ClassIndex`]).
    classes: Mutex<HashMap<(String, bool), SharedIndex>>,
}

/// One project's class index, shared by the threads that check its files.
type SharedIndex = Arc<Mutex<stubs::ClassIndex>>;

impl Run<'_> {
    /// Whether the project of `path` clears its `stub`: a subclass overrides it, or its class
    /// is abstract.
    fn clears(&self, path: &str, stub: &stubs::Overridable) -> bool {
        let project = &self.project;
        let package = project.package_of(path);
        let index = lock(&self.classes)
            .entry((package.clone(), stub.script))
            .or_insert_with(|| {
                let files = project.files_under(&package).unwrap_or_default();
                let index =
                    stubs::class_index(files.iter().map(String::as_str), |p| project.read(p), stub.script);
                Arc::new(Mutex::new(index))
            })
            .clone();
        lock(&index).clears(stub)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// How far `check_files` has got: called after each file.
#[derive(Debug, Clone, Copy)]
pub struct Checked<'a> {
    /// Files checked so far.
    pub done: usize,
    /// Files to check in all.
    pub total: usize,
    /// The file just checked.
    pub path: &'a str,
}

impl Session {
    /// `check_files`: the strict check an agent runs before it says it is done. Incomplete
    /// counts as a failure here. Without `paths`: every file the journal recorded a write for
    /// on this root since this session started, by any agent.
    ///
    /// `progress` is told after each file; when it breaks (the request was cancelled), the
    /// check stops there with [`Error::Cancelled`].
    pub fn check_files(
        &self,
        paths: Option<&[String]>,
        progress: &mut dyn FnMut(Checked) -> ControlFlow<()>,
    ) -> Result<CheckOutcome> {
        let targets: Vec<Result<RootPath>> = match paths {
            Some(list) if !list.is_empty() => list.iter().map(|p| self.ws.resolve(p)).collect(),
            _ => self
                .store
                .journal_paths(self.started)?
                .iter()
                .map(|p| self.ws.recorded(p))
                // A directory the journal names (create_directory made it) is no file to check.
                .filter(|p| !p.as_ref().is_ok_and(|p| self.is_directory(p)))
                .collect(),
        };
        let total = targets.len();
        let mut files = Vec::with_capacity(total);
        // Taken before anything is read: a file changed after it is never kept.
        let started_ns = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        self.remembered.begin_call(&self.store);
        let project_files = ProjectFiles { ws: &self.ws, surveys: &self.remembered.surveys, started_ns };
        let run = Run {
            project: Project::new(&project_files),
            budget: Budget::new(BYTES_IN_FLIGHT),
            manifests: Mutex::new(HashMap::new()),
            started_ns,
            classes: Default::default(),
        };
        let items: Vec<(usize, Result<RootPath>)> = targets.into_iter().enumerate().collect();
        let mut cancelled = None;
        // Files are checked on every core; their verdicts come back in the order of `paths`,
        // and progress is told in that order.
        let _ = cores::in_order(
            &items,
            || (),
            |_, (i, target)| match target {
                Ok(path) => self.check_one(path, &run),
                Err(e) => FileCheck::failed(
                    paths.and_then(|p| p.get(*i)).cloned().unwrap_or_default(),
                    FileStatus::Unreadable,
                    e.to_string(),
                ),
            },
            |i, file| {
                let checked = Checked { done: i + 1, total, path: &file.path };
                let flow = progress(checked);
                if flow.is_break() && i + 1 < total {
                    cancelled = Some(i + 1);
                }
                files.push(file);
                flow
            },
        );
        tracing::debug!(
            files = self.remembered.told.len(),
            estimated_bytes = self.remembered.told.used_bytes(),
            surveys = self.remembered.surveys.len(),
            "what check_files keeps for the next call"
        );
        if let Some(done) = cancelled {
            return Err(Error::Cancelled { done, total });
        }
        Ok(CheckOutcome::summarise(files))
    }

    fn is_directory(&self, path: &RootPath) -> bool {
        self.ws.stat(path).ok().flatten().is_some_and(|info| info.kind == FileKind::Directory)
    }

    fn check_one(&self, path: &RootPath, run: &Run) -> FileCheck {
        let name = path.display();
        let path = &match self.ws.follow(path) {
            Ok(p) => p,
            Err(e) => return FileCheck::failed(name, FileStatus::Unreadable, e.to_string()),
        };
        self.settle(path);
        let edition = match check::language_for(&name).map(|l| l.name()) {
            Some(LanguageName::Rust) => self.rust_edition(path, run),
            _ => RustEdition::default(),
        };
        let told = match self.told(&name, path, edition, run) {
            Ok(told) => told,
            Err(failed) => return *failed,
        };
        let syntax = told.report.clone();
        let mut found = told.survey.stubs.clone();
        // A method that only declares what subclasses implement, by what the project says.
        if found.iter().any(|s| s.overridable.is_some()) {
            found.retain(|s| !s.overridable.as_ref().is_some_and(|o| run.clears(&name, o)));
        }
        if !told.links.is_empty() {
            found.extend(self.linked_asset_problems(path, &told.links));
            found.sort_by_key(|s| s.line);
        }
        // References are judged in a file that parses: in a broken one they may be the
        // parse's confusion. They are resolved anew in every call: the files they name may
        // have come or gone since.
        let mut unresolved = match syntax.status {
            Status::Ok if !told.refs.is_empty() => {
                run.project.prime(&name, told.refs.clone());
                run.project.unresolved(&name, &told.refs)
            }
            _ => Vec::new(),
        };
        let first_problem = |report: &Report| {
            report.problems.first().map(|p| match p.cell {
                // A notebook cell's problem names its cell and line in its message.
                Some(_) => p.message.clone(),
                None => format!("{}:{} {}", p.line, p.column, p.message),
            })
        };
        // An empty file in a language with stub rules is a stub ("no code"), or
        // complete where empty is idiomatic (`__init__.py`); elsewhere it is unfinished.
        let (status, note) = if told.empty_unjudged {
            (FileStatus::Incomplete, Some("the file is empty".to_string()))
        } else {
            match syntax.status {
                Status::Errors => (FileStatus::Errors, first_problem(&syntax)),
                Status::Incomplete => (FileStatus::Incomplete, first_problem(&syntax)),
                _ if !found.is_empty() => (
                    FileStatus::Stubs,
                    found.first().map(|s| match s.cell {
                        Some(_) => s.message.clone(),
                        None => format!("{} {}", s.line, s.message),
                    }),
                ),
                Status::Ok if !unresolved.is_empty() => {
                    (FileStatus::Unresolved, unresolved.first().map(Unresolved::summary))
                }
                Status::Ok => (FileStatus::Complete, None),
                Status::NotChecked => (FileStatus::NotChecked, syntax.reason.map(|r| r.as_str().to_owned())),
            }
        };
        let more_stubs = found.len().saturating_sub(stubs::MAX_STUBS);
        found.truncate(stubs::MAX_STUBS);
        let more_unresolved = unresolved.len().saturating_sub(refs::MAX_UNRESOLVED);
        unresolved.truncate(refs::MAX_UNRESOLVED);
        FileCheck {
            path: name,
            exists: true,
            size: told.size,
            lines: told.lines,
            language: syntax.language,
            status,
            note,
            stubs: found,
            more_stubs,
            unresolved,
            more_unresolved,
            syntax: Some(syntax),
        }
    }

    /// The edition of the crate `path` belongs to, from the nearest `Cargo.toml` above it
    /// (through `edition.workspace = true` to its workspace's); 2021, the check's default,
    /// when there is none or it cannot be read.
    fn rust_edition(&self, path: &RootPath, run: &Run) -> RustEdition {
        let mut from_workspace = false;
        let mut dir = path.as_path().parent();
        while let Some(d) = dir {
            match (self.manifest_edition(d, run), from_workspace) {
                (None, _) => {}
                (Some(ManifestEdition::Package(edition)), false) => return edition,
                (Some(ManifestEdition::FromWorkspace), false) => from_workspace = true,
                (Some(ManifestEdition::Workspace(Some(edition))), true) => return edition,
                (Some(ManifestEdition::Package(_) | ManifestEdition::FromWorkspace), true) => {}
                _ => return RustEdition::default(),
            }
            dir = d.parent();
        }
        RustEdition::default()
    }

    /// What the `Cargo.toml` of `dir` says of the edition (None: there is none, or it cannot
    /// be read), read once per check: the files of a crate share their manifests.
    fn manifest_edition(&self, dir: &Path, run: &Run) -> Option<ManifestEdition> {
        if let Some(known) = lock(&run.manifests).get(dir) {
            return *known;
        }
        let manifest = dir.join("Cargo.toml");
        let edition = RootPath::from_path(&manifest)
            .and_then(|m| self.ws.read(&m, 1 << 20).ok())
            .map(|bytes| check::rust_edition_of_manifest(&String::from_utf8_lossy(&bytes)));
        lock(&run.manifests).insert(dir.to_owned(), edition);
        edition
    }

    /// Scripts and stylesheets an HTML page links that are empty or hold no code: the build
    /// that started this project shipped an `index.html` whose `app.js` was a stub. One that
    /// does not exist is an unresolved reference (see [`crate::check::refs`]), not a stub.
    fn linked_asset_problems(&self, page: &RootPath, links: &[(Linked, String)]) -> Vec<Stub> {
        let dir = page.as_path().parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        links
            .iter()
            .filter_map(|(link, source)| {
                let target = match link.target.strip_prefix('/') {
                    Some(absolute) => absolute.to_string(),
                    None if dir.is_empty() => link.target.clone(),
                    None => format!("{dir}/{}", link.target),
                };
                let problem =
                    match self.ws.resolve(&target).and_then(|p| self.ws.read(&p, self.config.max_file_bytes))
                    {
                        Ok(bytes) => {
                            let text = encoding::lossy_text(&bytes);
                            let empty = text.trim().is_empty();
                            match stubs::holds_code(&target, &text) {
                                _ if empty => format!("links {} ({target}), which is empty", link.target),
                                Some(false) => format!(
                                    "links {} ({target}), which has no code, only comments",
                                    link.target
                                ),
                                _ => return None,
                            }
                        }
                        Err(Error::NotFound { .. }) => return None,
                        Err(e) => format!("links {}, which cannot be read: {e}", link.target),
                    };
                Some(Stub {
                    line: link.line,
                    kind: StubKind::LinkedAsset,
                    message: problem,
                    source: source.clone(),
                    overridable: None,
                    cell: None,
                })
            })
            .collect()
    }
}
