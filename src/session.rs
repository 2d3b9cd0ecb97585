//! Per-process state and one method per tool, composing the core: sandbox, file operations,
//! unescaping and the syntax check. Plain Rust in and out: the MCP layer only parses arguments
//! and renders what these methods return.

use std::collections::HashSet;
use std::sync::Mutex;

use schemars::JsonSchema;
use serde::Serialize;

use crate::check::cache::{CheckCache, DEFAULT_BUDGET_BYTES, Fingerprint};
use crate::check::stubs::{self, Stub, StubKind};
use crate::check::{self, Report, Status};
use crate::error::{ADVISED_CHUNK_CHARS, Error, Result};
use crate::files;
use crate::hooks::{Hook, HookReport};
use crate::store::{Action, Artifact, Claim, ClaimOutcome, ReleaseOutcome, Store, WriteFacts, sha256_hex};
use crate::unescape;
use crate::workspace::{FileInfo, RootPath, Workspace};

/// Settings fixed for the life of the process (from the command line).
#[derive(Debug, Clone)]
pub struct Config {
    /// The writer named in results (`--agent`).
    pub agent: String,
    /// Largest file the server will hold in memory (`--max-file-bytes`).
    pub max_file_bytes: u64,
    /// Command run after each successful write, append or edit (`--after-write`).
    pub after_write: Option<Hook>,
}

/// Everything needed to open a session on a root, fixed at startup (the command line).
#[derive(Debug, Clone)]
pub struct Settings {
    /// `--agent`.
    pub agent: String,
    /// `--max-file-bytes`.
    pub max_file_bytes: u64,
    /// `--state-dir`; None for the default state directory of the root.
    pub state_dir: Option<std::path::PathBuf>,
    /// `--claim-ttl`.
    pub claim_ttl: Option<std::time::Duration>,
    /// `--after-write`.
    pub after_write: Option<String>,
    /// `--hook-timeout`.
    pub hook_timeout: std::time::Duration,
}

/// The state of one server process: the sandbox, the settings, and which files this session
/// has seen (read or written), for the "you had not read this file" warning.
#[derive(Debug)]
pub struct Session {
    ws: Workspace,
    config: Config,
    /// Claims and the journal, shared with every other process on this root.
    store: Store,
    /// A `std` mutex, not a Tokio one: it is held only inside blocking tasks, never across an
    /// await. It also serialises this process's writes, so two calls cannot interleave.
    seen: Mutex<HashSet<RootPath>>,
    /// When this session started (unix ms): `check_files` without paths checks what the
    /// journal recorded since then.
    started_ms: i64,
    /// What the last check of each file this session wrote left, for incremental checks
    /// after appends.
    trees: Mutex<CheckCache>,
}

/// Result of `write_file`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WriteOutcome {
    /// Always `"write"`.
    pub action: String,
    /// Root-relative path written.
    pub path: String,
    /// Agent that wrote it.
    pub agent: String,
    /// The file did not exist before.
    pub created: bool,
    /// Size of the file in bytes.
    pub size: u64,
    /// Characters of content written.
    pub chars: usize,
    /// Lines in the file.
    pub lines: usize,
    /// The content arrived over-escaped (literal `\n`) and was unescaped before writing.
    pub unescaped: bool,
    /// Things the caller should know although the write succeeded.
    pub warnings: Vec<String>,
    /// Syntax check of the file as written.
    pub syntax: Report,
    /// What the --after-write hook did; absent when none is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "HookReport")]
    pub hook: Option<HookReport>,
}

/// Result of `append_file`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AppendOutcome {
    /// Always `"append"`.
    pub action: String,
    /// Root-relative path appended to.
    pub path: String,
    /// Agent that appended.
    pub agent: String,
    /// The file did not exist before this call.
    pub created: bool,
    /// Size of the file after the call, in bytes.
    pub size: u64,
    /// Bytes appended by this call (0 when the chunk was a retried duplicate).
    pub appended: u64,
    /// Characters in the chunk.
    pub chars: usize,
    /// Lines in the file after the call.
    pub lines: usize,
    /// The file already ended with this chunk, so nothing was appended (a retried call).
    pub duplicate_skipped: bool,
    /// The chunk arrived over-escaped (literal `\n`) and was unescaped before appending.
    pub unescaped: bool,
    /// Things the caller should know although the append succeeded.
    pub warnings: Vec<String>,
    /// Syntax check of the whole file after the append.
    pub syntax: Report,
    /// What the --after-write hook did; absent when none is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "HookReport")]
    pub hook: Option<HookReport>,
}

/// Result of `read_file`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReadOutcome {
    /// Root-relative path read.
    pub path: String,
    /// Numbered lines, `<n>\t<text>` each.
    pub content: String,
    /// First line shown (1-based; 0 for an empty file).
    pub start_line: usize,
    /// Last line shown (0 for an empty file).
    pub end_line: usize,
    /// Lines in the whole file.
    pub total_lines: usize,
    /// Bytes in the whole file (use it as `expected_size` for the next append).
    pub total_bytes: u64,
    /// More lines follow the ones shown.
    pub more: bool,
    /// The offset to read on from; absent at the end of the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub next_offset: Option<usize>,
    /// Lines shown cut at 2000 characters.
    pub cut_lines: usize,
    /// `"lf"`, `"crlf"` or `"none"` (a single line).
    pub line_endings: String,
    /// The file ends with a newline.
    pub ends_with_newline: bool,
}

/// One replacement as the model sends it (`edits` item of `edit_file`).
#[derive(Debug, Clone, serde::Deserialize, JsonSchema)]
pub struct EditSpec {
    /// Exact text to replace (must occur exactly once unless replace_all). Empty only to
    /// create a missing or empty file.
    #[schemars(required, with = "String")]
    pub old_string: Option<String>,
    /// The replacement text.
    #[schemars(required, with = "String")]
    pub new_string: Option<String>,
    /// Replace every occurrence (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub replace_all: Option<bool>,
}

/// Result of `edit_file`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EditOutcome {
    /// Always `"edit"`.
    pub action: String,
    /// Root-relative path.
    pub path: String,
    /// Agent that edited.
    pub agent: String,
    /// Nothing was written: the diff shows what would change.
    pub dry_run: bool,
    /// The file did not exist before (created by an empty old_string).
    pub created: bool,
    /// Replacements made, over all edits.
    pub replacements: usize,
    /// Size after the edit, in bytes.
    pub size: u64,
    /// Lines after the edit.
    pub lines: usize,
    /// The edit strings used LF and were converted to the file's CRLF line endings.
    pub converted_to_crlf: bool,
    /// Unified diff of the change (capped).
    pub diff: String,
    /// Syntax check of the file after the edit.
    pub syntax: Report,
    /// How many of the reported problems were not there before the edit.
    pub new_problems: usize,
    /// Where those new problems are (`line:col`, as in `syntax.problems`).
    pub new_problems_at: Vec<String>,
    /// Placeholders or stubs this edit introduced.
    pub warnings: Vec<String>,
    /// What the --after-write hook did; absent when none is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "HookReport")]
    pub hook: Option<HookReport>,
}

/// One entry of `list_directory`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListEntry {
    /// Path relative to the root.
    pub path: String,
    /// `dir`, `file`, `symlink` (never followed) or `other`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Size in bytes, for files.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub size: Option<u64>,
    /// 1 for entries of the listed directory, 2 for their children...
    pub depth: usize,
}

/// Result of `list_directory`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListOutcome {
    /// The directory listed, relative to the root (`.` for the root).
    pub path: String,
    /// Entries in tree order: directories first, then files, by name.
    pub entries: Vec<ListEntry>,
    /// Entries not shown because the listing hit its limit (500): at least this many
    /// when `stopped` is set.
    pub omitted: usize,
    /// The listing hit its limit before reading every directory within the depth, so
    /// `omitted` is a lower bound.
    pub stopped: bool,
    /// Entries left out by .gitignore.
    pub ignored: usize,
    /// Hidden entries (names starting with `.`) left out.
    pub hidden: usize,
}

fn language_is_html(path: &str) -> bool {
    check::language_for(path).is_some_and(|l| l.name() == "html")
}

/// Stub kinds a write or edit result warns about: placeholders and stub bodies (an unfinished
/// ending or an empty body is expected while a file is still being built).
const WRITE_STUB_KINDS: &[StubKind] = &[StubKind::PlaceholderComment, StubKind::StubBody];
/// Stub warnings shown in one result at most.
const MAX_STUB_WARNINGS: usize = 3;

/// The stubs of `kinds` in `text`.
fn stubs_of(path: &str, text: &str, kinds: &[StubKind]) -> Vec<Stub> {
    stubs::find_stubs(path, text).into_iter().filter(|s| kinds.contains(&s.kind)).collect()
}

/// Result warnings for `found`, whose lines are counted from line `first_line` of the file.
fn stub_warnings(found: &[Stub], first_line: usize) -> Vec<String> {
    found
        .iter()
        .take(MAX_STUB_WARNINGS)
        .map(|s| {
            format!(
                "line {}: {} (`{}`): write the real code before you finish",
                s.line + first_line - 1,
                s.message,
                s.source
            )
        })
        .collect()
}

/// Lines of diff shown in an edit result.
const MAX_DIFF_LINES: usize = 200;

/// Result of `claim_files`, `release_files` and `list_claims`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ClaimsOutcome {
    /// The agent the call acted for.
    pub agent: String,
    /// Paths claimed by this call.
    pub claimed: Vec<String>,
    /// Paths released by this call.
    pub released: Vec<String>,
    /// Paths this call could not release (owned by another agent, or by nobody).
    pub not_released: Vec<crate::store::NotReleased>,
    /// Every live claim on the root after the call.
    pub claims: Vec<Claim>,
}

/// One artifact from the journal, with how the file on disk compares.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ArtifactView {
    /// What the journal recorded.
    #[serde(flatten)]
    pub artifact: Artifact,
    /// `matches` (same sha256 as the last recorded write), `changed since`, `missing` or `unreadable`.
    pub on_disk: String,
}

/// Result of `list_artifacts`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ArtifactsOutcome {
    /// One entry per file, by path.
    pub artifacts: Vec<ArtifactView>,
}

/// A file's verdict in `check_files`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    /// Parses cleanly, no stubs.
    Complete,
    /// Parses, but holds stubs or placeholders (or links missing assets).
    Stubs,
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
    #[schemars(with = "String")]
    pub language: Option<String>,
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
    /// The full syntax report; absent when the file could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Report")]
    pub syntax: Option<Report>,
}

impl FileCheck {
    fn failed(path: String, status: FileStatus, note: String) -> Self {
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
    /// Files that parse but hold stubs or placeholders (or link missing assets).
    pub with_stubs: usize,
    /// Files of a type that is not checked.
    pub not_checked: usize,
    /// Every file is complete (or of a type that is not checked), with no stubs.
    pub all_complete: bool,
    /// One line for humans, e.g. "3 files complete, 1 incomplete (src/app.js: ...)".
    pub verdict: String,
}

impl CheckOutcome {
    fn summarise(files: Vec<FileCheck>) -> Self {
        use FileStatus::*;
        let count = |s: FileStatus| files.iter().filter(|f| f.status == s).count();
        let (complete, incomplete, errors, not_checked, with_stubs) =
            (count(Complete), count(Incomplete), count(Errors), count(NotChecked), count(Stubs));
        let missing = count(Missing) + count(Unreadable);
        let examples = |s: &[FileStatus]| {
            let named: Vec<String> = files
                .iter()
                .filter(|f| s.contains(&f.status))
                .take(3)
                .map(|f| match &f.note {
                    // A stub note starts with its line: `web/app.js:12 placeholder comment ...`.
                    Some(note) if f.status == Stubs => format!("{}:{note}", f.path),
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
            all_complete: !files.is_empty() && incomplete + errors + missing + with_stubs == 0,
            with_stubs,
            files,
            complete,
            incomplete,
            errors,
            missing,
            not_checked,
            verdict,
        }
    }
}

impl Session {
    /// Opens the root, its shared store (in the state directory) and the hook: a session
    /// ready to serve. Errors are for startup messages.
    pub fn open(root: &std::path::Path, settings: &Settings) -> anyhow::Result<Session> {
        use anyhow::Context;
        let mut ws = Workspace::open_root(root)?;
        let state_dir = match &settings.state_dir {
            Some(dir) => dir.clone(),
            None => crate::store::default_state_dir(ws.host_root())
                .context("no state directory is known for this platform: pass --state-dir")?,
        };
        let store = Store::open(&state_dir, settings.claim_ttl)?;
        ws.reserve(&state_dir).context("cannot keep the state directory out of the tools' reach")?;
        let after_write =
            settings.after_write.clone().map(|cmd| Hook::new(cmd, ws.host_root(), settings.hook_timeout));
        tracing::info!(
            root = %ws.host_root().display(),
            agent = %settings.agent,
            state = %store.path().display(),
            "serving this root"
        );
        let config =
            Config { agent: settings.agent.clone(), max_file_bytes: settings.max_file_bytes, after_write };
        Ok(Session::new(ws, config, store))
    }

    /// A session over an opened root.
    pub fn new(ws: Workspace, config: Config, store: Store) -> Self {
        Session {
            ws,
            config,
            store,
            seen: Mutex::new(HashSet::new()),
            started_ms: crate::store::now_ms(),
            trees: Mutex::new(CheckCache::new(DEFAULT_BUDGET_BYTES)),
        }
    }

    /// `write_file`: create or replace the whole file.
    pub fn write_file(
        &self,
        path: Option<&str>,
        content: Option<&str>,
        agent: Option<&str>,
    ) -> Result<WriteOutcome> {
        let raw_path = path.ok_or(Error::Truncated { tool: "write_file", field: "path" })?;
        let content = content.ok_or(Error::Truncated { tool: "write_file", field: "content" })?;
        let agent = self.agent(agent)?;
        let path = self.ws.follow(&self.ws.resolve(raw_path)?)?;
        let mut seen = self.lock_seen();
        let (text, unescaped) = choose_form(&path, "", content);
        let ((existing, written), unrecorded) =
            self.store.write_claimed(&path.display(), &agent, Action::Write, || {
                let existing = self.ws.stat(&path)?;
                let written = files::write(&self.ws, &path, text.as_bytes(), self.config.max_file_bytes)?;
                let facts = WriteFacts {
                    size: written.size,
                    added: written.size,
                    sha256: sha256_hex(text.as_bytes()),
                };
                Ok(((existing, written), Some(facts)))
            })?;
        let mut warnings: Vec<String> = unrecorded.into_iter().collect();
        if let Some(info) = existing
            && !seen.contains(&path)
        {
            warnings.push(format!(
                "you had not read {path} in this session before replacing it (it held {} bytes); if \
                 that was not intended, its old content is gone: rebuild it from what you know",
                info.size
            ));
        }
        if content.is_empty() {
            warnings.push(format!(
                "content was empty, so {path} is now an empty file. If your call was cut off, send the \
                 content in parts of at most ~{ADVISED_CHUNK_CHARS} characters (write_file, then append_file)"
            ));
        }
        warnings.extend(common_warnings(content, &text, unescaped));
        warnings.extend(stub_warnings(&stubs_of(&path.display(), &text, WRITE_STUB_KINDS), 1));
        seen.insert(path.clone());
        drop(seen);
        // The write is done: nothing below may turn it into an error.
        let after = self.ws.stat(&path).ok().flatten();
        let (hook, rewritten) = self.run_hook(&path, after);
        let syntax = match &rewritten {
            Some(now) => self.check_and_keep(&path, now, None, self.ws.stat(&path).ok().flatten()),
            None => self.check_and_keep(&path, &text, None, after),
        };
        Ok(WriteOutcome {
            action: "write".into(),
            path: path.display(),
            agent,
            created: written.created,
            size: written.size,
            chars: text.chars().count(),
            lines: files::count_lines(text.as_bytes()),
            unescaped,
            warnings,
            syntax,
            hook,
        })
    }

    /// `append_file`: add a chunk at the end of the file.
    pub fn append_file(
        &self,
        path: Option<&str>,
        content: Option<&str>,
        expected_size: Option<u64>,
        agent: Option<&str>,
    ) -> Result<AppendOutcome> {
        let raw_path = path.ok_or(Error::Truncated { tool: "append_file", field: "path" })?;
        let content = content.ok_or(Error::Truncated { tool: "append_file", field: "content" })?;
        let agent = self.agent(agent)?;
        let path = self.ws.follow(&self.ws.resolve(raw_path)?)?;
        let mut seen = self.lock_seen();
        let (text, unescaped) = if unescape::looks_over_escaped(content) {
            let before = match self.ws.stat(&path)? {
                Some(_) => {
                    String::from_utf8_lossy(&self.ws.read(&path, self.config.max_file_bytes)?).into_owned()
                }
                None => String::new(),
            };
            choose_form(&path, &before, content)
        } else {
            (content.to_string(), false)
        };
        let (out, unrecorded) = self.store.write_claimed(&path.display(), &agent, Action::Append, || {
            let out =
                files::append(&self.ws, &path, text.as_bytes(), expected_size, self.config.max_file_bytes)?;
            let facts = (out.added > 0 || out.created).then(|| WriteFacts {
                size: out.size,
                added: out.added,
                sha256: sha256_hex(&out.contents),
            });
            Ok((out, facts))
        })?;
        let mut warnings: Vec<String> = unrecorded.into_iter().collect();
        if out.duplicate_skipped {
            warnings.push(format!(
                "{path} already ended with exactly this chunk ({} bytes), so it was not appended again \
                 (a retried call?). If you really meant to repeat it, append it again with expected_size {}",
                text.len(),
                out.size
            ));
        }
        if content.is_empty() {
            warnings.push("content was empty: nothing was appended".into());
        }
        let first_new_line =
            files::count_lines(out.contents.get(..out.size_before as usize).unwrap_or_default()) + 1;
        // Only the chunk is scanned, for placeholders: stub bodies need the whole definition.
        let chunk_stubs = stubs_of(&path.display(), &text, &[StubKind::PlaceholderComment]);
        warnings.extend(stub_warnings(&chunk_stubs, first_new_line));
        warnings.extend(common_warnings(content, &text, unescaped));
        seen.insert(path.clone());
        drop(seen);
        let (hook, rewritten) = self.run_hook(&path, Some(out.after));
        let syntax = match std::str::from_utf8(&out.contents) {
            _ if rewritten.is_some() => {
                let now = rewritten.as_deref().unwrap_or_default();
                self.check_and_keep(&path, now, None, self.ws.stat(&path).ok().flatten())
            }
            Ok(full) => {
                let old = self.lock_trees().take_for_append(&path.display(), fingerprint(&out.before), full);
                self.check_and_keep(&path, full, old, Some(out.after))
            }
            Err(_) => {
                self.lock_trees().invalidate(&path.display());
                check::check_bytes(&path.display(), &out.contents)
            }
        };
        Ok(AppendOutcome {
            action: "append".into(),
            path: path.display(),
            agent,
            created: out.created,
            size: out.size,
            appended: out.added,
            chars: text.chars().count(),
            lines: files::count_lines(&out.contents),
            duplicate_skipped: out.duplicate_skipped,
            unescaped,
            warnings,
            syntax,
            hook,
        })
    }

    /// `read_file`: numbered lines of a text file.
    pub fn read_file(
        &self,
        path: Option<&str>,
        offset: Option<i64>,
        limit: Option<usize>,
    ) -> Result<ReadOutcome> {
        let raw_path = path.ok_or(Error::Truncated { tool: "read_file", field: "path" })?;
        let path = self.ws.follow(&self.ws.resolve(raw_path)?)?;
        let view = files::read(
            &self.ws,
            &path,
            offset.unwrap_or(1),
            limit.unwrap_or(files::DEFAULT_READ_LIMIT),
            self.config.max_file_bytes,
        )?;
        self.lock_seen().insert(path.clone());
        let more = view.more_after();
        Ok(ReadOutcome {
            path: path.display(),
            content: view.numbered,
            start_line: view.start_line,
            end_line: view.end_line,
            total_lines: view.total_lines,
            total_bytes: view.total_bytes,
            more,
            next_offset: more.then_some(view.end_line + 1),
            cut_lines: view.cut_lines,
            line_endings: if view.crlf {
                "crlf".into()
            } else if view.total_lines > 1 {
                "lf".into()
            } else {
                "none".into()
            },
            ends_with_newline: view.ends_with_newline,
        })
    }

    /// `check_files`: the strict check an agent runs before it says it is done. Incomplete
    /// counts as a failure here. Without `paths`: every file the journal recorded a write for
    /// on this root since this session started, by any agent.
    pub fn check_files(&self, paths: Option<&[String]>) -> Result<CheckOutcome> {
        let targets: Vec<Result<RootPath>> = match paths {
            Some(list) if !list.is_empty() => list.iter().map(|p| self.ws.resolve(p)).collect(),
            _ => self.store.journal_paths(self.started_ms)?.iter().map(|p| self.ws.resolve(p)).collect(),
        };
        let mut files = Vec::new();
        for (i, target) in targets.into_iter().enumerate() {
            files.push(match target {
                Ok(path) => self.check_one(&path),
                Err(e) => FileCheck::failed(
                    paths.and_then(|p| p.get(i)).cloned().unwrap_or_default(),
                    FileStatus::Unreadable,
                    e.to_string(),
                ),
            });
        }
        Ok(CheckOutcome::summarise(files))
    }

    fn check_one(&self, path: &RootPath) -> FileCheck {
        let name = path.display();
        let path = &match self.ws.follow(path) {
            Ok(p) => p,
            Err(e) => return FileCheck::failed(name, FileStatus::Unreadable, e.to_string()),
        };
        let bytes = match self.ws.read(path, self.config.max_file_bytes) {
            Ok(bytes) => bytes,
            Err(Error::NotFound { .. }) => {
                return FileCheck::failed(
                    name,
                    FileStatus::Missing,
                    "the file does not exist: write it".into(),
                );
            }
            Err(e) => return FileCheck::failed(name, FileStatus::Unreadable, e.to_string()),
        };
        let syntax = check::check_bytes(&name, &bytes);
        let text = String::from_utf8_lossy(&bytes);
        let mut found = stubs::find_all_stubs(&name, &text);
        if language_is_html(&name) {
            found.extend(self.linked_asset_problems(path, &text));
            found.sort_by_key(|s| s.line);
        }
        let first_problem = |report: &Report| {
            report.problems.first().map(|p| format!("{}:{} {}", p.line, p.column, p.message))
        };
        // An empty file in a language with stub rules is a stub ("no code"), or
        // complete where empty is idiomatic (`__init__.py`); elsewhere it is unfinished.
        let empty_unjudged =
            bytes.iter().all(u8::is_ascii_whitespace) && stubs::holds_code(&name, &text).is_none();
        let (status, note) = if empty_unjudged {
            (FileStatus::Incomplete, Some("the file is empty".to_string()))
        } else {
            match syntax.status {
                Status::Errors => (FileStatus::Errors, first_problem(&syntax)),
                Status::Incomplete => (FileStatus::Incomplete, first_problem(&syntax)),
                _ if !found.is_empty() => {
                    (FileStatus::Stubs, found.first().map(|s| format!("{} {}", s.line, s.message)))
                }
                Status::Ok => (FileStatus::Complete, None),
                Status::NotChecked => (FileStatus::NotChecked, syntax.reason.clone()),
            }
        };
        let more_stubs = found.len().saturating_sub(stubs::MAX_STUBS);
        found.truncate(stubs::MAX_STUBS);
        FileCheck {
            path: name,
            exists: true,
            size: bytes.len() as u64,
            lines: files::count_lines(&bytes),
            language: syntax.language.clone(),
            status,
            note,
            stubs: found,
            more_stubs,
            syntax: Some(syntax),
        }
    }

    /// Scripts and stylesheets an HTML page links that are missing or nearly empty: the
    /// build that started this project shipped an `index.html` whose `app.js` was a stub.
    fn linked_asset_problems(&self, page: &RootPath, html: &str) -> Vec<Stub> {
        let dir = page.as_path().parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        stubs::linked_assets(html)
            .into_iter()
            .filter_map(|link| {
                let target = match link.target.strip_prefix('/') {
                    Some(absolute) => absolute.to_string(),
                    None if dir.is_empty() => link.target.clone(),
                    None => format!("{dir}/{}", link.target),
                };
                let problem =
                    match self.ws.resolve(&target).and_then(|p| self.ws.read(&p, self.config.max_file_bytes))
                    {
                        Ok(bytes) => {
                            let text = String::from_utf8_lossy(&bytes);
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
                        Err(Error::NotFound { .. }) => {
                            format!("links {} ({}), which does not exist", link.target, target)
                        }
                        Err(e) => format!("links {}, which cannot be read: {e}", link.target),
                    };
                let source = html
                    .lines()
                    .nth(link.line.saturating_sub(1))
                    .unwrap_or("")
                    .trim()
                    .chars()
                    .take(120)
                    .collect();
                Some(Stub { line: link.line, kind: StubKind::LinkedAsset, message: problem, source })
            })
            .collect()
    }

    /// `edit_file`: exact replacements, all or nothing, written atomically once.
    pub fn edit_file(
        &self,
        path: Option<&str>,
        edits: Vec<EditSpec>,
        dry_run: bool,
        agent: Option<&str>,
    ) -> Result<EditOutcome> {
        let raw_path = path.ok_or(Error::Truncated { tool: "edit_file", field: "path" })?;
        let agent = self.agent(agent)?;
        let edits = edits
            .into_iter()
            .map(|e| {
                Ok(files::Edit {
                    old: e.old_string.ok_or(Error::Truncated { tool: "edit_file", field: "old_string" })?,
                    new: e.new_string.ok_or(Error::Truncated { tool: "edit_file", field: "new_string" })?,
                    replace_all: e.replace_all.unwrap_or(false),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let path = self.ws.follow(&self.ws.resolve(raw_path)?)?;
        let key = path.display();
        let mut seen = self.lock_seen();
        // Read, apply and write in one go: in the store's transaction (which serialises every
        // filewright process on this root) unless it is a dry run, so no append from another
        // process can land between the read and the rename and be lost.
        let read_and_apply = || -> Result<(bool, String, files::Edited)> {
            let existed = self.ws.stat(&path)?.is_some();
            let before_bytes =
                if existed { self.ws.read(&path, self.config.max_file_bytes)? } else { Vec::new() };
            let before = String::from_utf8(before_bytes).map_err(|e| Error::Binary {
                path: key.clone(),
                detail: format!(
                    "invalid UTF-8 at byte {}; edit_file changes text files only",
                    e.utf8_error().valid_up_to()
                ),
            })?;
            if !existed && edits.first().is_none_or(|e| !e.old.is_empty()) {
                return Err(Error::NotFound { path: key.clone() });
            }
            let edited = files::apply_edits(&key, &before, &edits)?;
            Ok((existed, before, edited))
        };
        let mut hook = None;
        let mut after_write_warning = None;
        let (existed, before, edited, syntax) = if dry_run {
            let (existed, before, edited) = read_and_apply()?;
            let syntax = check::check(&key, &edited.text);
            (existed, before, edited, syntax)
        } else {
            let ((existed, before, edited), unrecorded) =
                self.store.write_claimed(&key, &agent, Action::Edit, || {
                    let (existed, before, edited) = read_and_apply()?;
                    let text = edited.text.as_bytes();
                    let written = files::write(&self.ws, &path, text, self.config.max_file_bytes)?;
                    let facts = WriteFacts {
                        size: written.size,
                        added: written.size.saturating_sub(before.len() as u64),
                        sha256: sha256_hex(text),
                    };
                    Ok(((existed, before, edited), Some(facts)))
                })?;
            after_write_warning = unrecorded;
            seen.insert(path.clone());
            drop(seen);
            let after = self.ws.stat(&path).ok().flatten();
            let (ran, rewritten) = self.run_hook(&path, after);
            hook = ran;
            let syntax = match &rewritten {
                Some(now) => self.check_and_keep(&path, now, None, self.ws.stat(&path).ok().flatten()),
                None => self.check_and_keep(&path, &edited.text, None, after),
            };
            (existed, before, edited, syntax)
        };
        let diff = files::unified_diff(&key, &before, &edited.text, MAX_DIFF_LINES);
        // What the edit introduced. The text before the edit is checked and scanned only when
        // the result has problems or stubs to compare: most edits leave a clean file, and a
        // second parse of a large file is the costliest part of the call.
        let mut added_stubs = stubs_of(&key, &edited.text, WRITE_STUB_KINDS);
        if !added_stubs.is_empty() {
            let before_stubs = stubs_of(&key, &before, WRITE_STUB_KINDS);
            added_stubs.retain(|a| !before_stubs.iter().any(|b| b.source == a.source));
        }
        let mut warnings: Vec<String> = after_write_warning.into_iter().collect();
        warnings.extend(stub_warnings(&added_stubs, 1));
        let new_problems_at: Vec<String> = if syntax.problems.is_empty() {
            Vec::new()
        } else {
            let before_report = check::check(&key, &before);
            syntax
                .problems
                .iter()
                .filter(|p| {
                    !before_report.problems.iter().any(|b| b.message == p.message && b.source == p.source)
                })
                .map(|p| format!("{}:{}", p.line, p.column))
                .collect()
        };
        let new_problems = new_problems_at.len();
        Ok(EditOutcome {
            action: "edit".into(),
            path: key,
            agent,
            dry_run,
            created: !existed,
            replacements: edited.replacements.iter().sum(),
            size: edited.text.len() as u64,
            lines: files::count_lines(edited.text.as_bytes()),
            converted_to_crlf: edited.converted_to_crlf,
            diff,
            syntax,
            new_problems,
            new_problems_at,
            warnings,
            hook,
        })
    }

    /// `list_directory`: a bounded listing of a directory (the root when `path` is None).
    pub fn list_directory(
        &self,
        path: Option<&str>,
        depth: Option<usize>,
        include_hidden: bool,
        gitignore: bool,
    ) -> Result<ListOutcome> {
        let dir = match path.map(str::trim) {
            None | Some("") | Some(".") | Some("./") => None,
            Some(p) => Some(self.ws.resolve(p)?),
        };
        let depth = depth.unwrap_or(1);
        if !(1..=20).contains(&depth) {
            return Err(Error::InvalidArgument {
                name: "depth",
                reason: "use 1 (this directory) to 20".into(),
            });
        }
        let listing =
            files::list(&self.ws, dir.as_ref(), files::ListOptions { depth, include_hidden, gitignore })?;
        let kind = |k: crate::workspace::ItemKind| {
            use crate::workspace::ItemKind::*;
            match k {
                File => "file",
                Directory => "dir",
                Symlink => "symlink",
                Other => "other",
            }
        };
        Ok(ListOutcome {
            path: dir.map(|d| d.display()).unwrap_or_else(|| ".".into()),
            entries: listing
                .entries
                .into_iter()
                .map(|e| ListEntry { path: e.path, kind: kind(e.kind).into(), size: e.size, depth: e.depth })
                .collect(),
            omitted: listing.omitted,
            stopped: listing.stopped,
            ignored: listing.ignored,
            hidden: listing.hidden,
        })
    }

    /// `claim_files`: claim every path for the agent, or none.
    pub fn claim_files(&self, paths: Option<&[String]>, agent: Option<&str>) -> Result<ClaimsOutcome> {
        let agent = self.agent(agent)?;
        let paths =
            self.resolve_all(paths.ok_or(Error::Truncated { tool: "claim_files", field: "paths" })?)?;
        if paths.is_empty() {
            return Err(Error::InvalidArgument { name: "paths", reason: "name at least one file".into() });
        }
        let ClaimOutcome { claimed, conflicts } = self.store.claim(&paths, &agent)?;
        if !conflicts.is_empty() {
            return Err(Error::ClaimsRefused {
                conflicts: conflicts.into_iter().map(|c| (c.path, c.agent, c.since)).collect(),
            });
        }
        Ok(ClaimsOutcome {
            agent,
            claimed,
            released: Vec::new(),
            not_released: Vec::new(),
            claims: self.store.claims()?,
        })
    }

    /// `release_files`: give up the agent's claims on `paths`, or all of them.
    pub fn release_files(&self, paths: Option<&[String]>, agent: Option<&str>) -> Result<ClaimsOutcome> {
        let agent = self.agent(agent)?;
        let paths = paths.map(|p| self.resolve_all(p)).transpose()?;
        let ReleaseOutcome { released, not_released } = self.store.release(paths.as_deref(), &agent)?;
        Ok(ClaimsOutcome { agent, claimed: Vec::new(), released, not_released, claims: self.store.claims()? })
    }

    /// `list_claims`: every live claim on this root.
    pub fn list_claims(&self) -> Result<ClaimsOutcome> {
        Ok(ClaimsOutcome {
            agent: self.config.agent.clone(),
            claimed: Vec::new(),
            released: Vec::new(),
            not_released: Vec::new(),
            claims: self.store.claims()?,
        })
    }

    /// `list_artifacts`: what the journal says was written, and whether the file on disk
    /// still matches it.
    pub fn list_artifacts(
        &self,
        agent: Option<&str>,
        path: Option<&str>,
        history: bool,
    ) -> Result<ArtifactsOutcome> {
        let path = path.map(|p| self.ws.resolve(p)).transpose()?.map(|p| p.display());
        let artifacts = self
            .store
            .artifacts(agent, path.as_deref(), history)?
            .into_iter()
            .map(|artifact| {
                let on_disk = match self
                    .ws
                    .resolve(&artifact.path)
                    .and_then(|p| self.ws.read(&p, self.config.max_file_bytes))
                {
                    Ok(bytes) if sha256_hex(&bytes) == artifact.sha256 => "matches",
                    Ok(_) => "changed since",
                    Err(Error::NotFound { .. }) => "missing",
                    Err(_) => "unreadable",
                };
                ArtifactView { artifact, on_disk: on_disk.into() }
            })
            .collect();
        Ok(ArtifactsOutcome { artifacts })
    }

    /// The agent for a call: the argument when given, else the process's `--agent`.
    fn agent(&self, given: Option<&str>) -> Result<String> {
        match given.map(str::trim) {
            None => Ok(self.config.agent.clone()),
            Some("") => Err(Error::InvalidArgument {
                name: "agent",
                reason: "must not be empty; omit it to use the server's agent".into(),
            }),
            Some(name) => Ok(name.to_string()),
        }
    }

    fn resolve_all(&self, paths: &[String]) -> Result<Vec<String>> {
        paths.iter().map(|p| Ok(self.ws.follow(&self.ws.resolve(p)?)?.display())).collect()
    }

    /// Runs the `--after-write` hook on `path`, if one is configured. When the hook changed
    /// the file (a formatter), also returns its new text, so that the syntax check describes
    /// what is on disk now.
    fn run_hook(&self, path: &RootPath, written: Option<FileInfo>) -> (Option<HookReport>, Option<String>) {
        let Some(hook) = &self.config.after_write else {
            return (None, None);
        };
        let report = hook.run(&path.display());
        let now = self.ws.stat(path).ok().flatten();
        let changed = now.map(|n| Some(fingerprint(&n))) != Some(written.map(|w| fingerprint(&w)));
        let text = changed
            .then(|| self.ws.read(path, self.config.max_file_bytes).ok())
            .flatten()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
        (Some(report), text)
    }

    /// Checks `text` (reusing `old`, what the check before an append left, when given)
    /// and keeps what this check leaves for the next append, keyed to the file's
    /// fingerprint `on_disk`.
    fn check_and_keep(
        &self,
        path: &RootPath,
        text: &str,
        old: Option<check::Prior>,
        on_disk: Option<FileInfo>,
    ) -> Report {
        let key = path.display();
        let (report, prior) = check::check_incremental(&key, text, old);
        let mut trees = self.lock_trees();
        match (prior, on_disk) {
            (Some(prior), Some(info)) => trees.insert(&key, prior, text, fingerprint(&info)),
            _ => trees.invalidate(&key),
        }
        report
    }

    fn lock_trees(&self) -> std::sync::MutexGuard<'_, CheckCache> {
        // As for `seen`: a cache is valid whatever call panicked while holding it.
        self.trees.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_seen(&self) -> std::sync::MutexGuard<'_, HashSet<RootPath>> {
        // A poisoned lock only means another call panicked mid-way; the set itself is still valid.
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn fingerprint(info: &FileInfo) -> Fingerprint {
    Fingerprint { size: info.size, mtime_ns: info.mtime_ns, dev: info.dev, ino: info.ino }
}

/// Decides whether to write `content` as sent or unescaped. For a language we can check, the
/// unescaped form is chosen only when `before + unescaped` parses better than `before + raw`;
/// for other files the over-escaping heuristic alone decides.
fn choose_form(path: &RootPath, before: &str, content: &str) -> (String, bool) {
    let Some(unescaped) = unescape::unescape_if_over_escaped(content) else {
        return (content.to_string(), false);
    };
    let name = path.display();
    if check::language_for(&name).is_none() {
        return (unescaped, true);
    }
    let raw_report = check::check(&name, &format!("{before}{content}"));
    let new_report = check::check(&name, &format!("{before}{unescaped}"));
    if rank(&new_report) < rank(&raw_report) { (unescaped, true) } else { (content.to_string(), false) }
}

/// Lower is healthier: status first, then the number of problems.
fn rank(report: &Report) -> (u8, usize) {
    let status = match report.status {
        Status::Ok => 0,
        Status::Incomplete => 1,
        Status::Errors => 2,
        Status::NotChecked => 3,
    };
    (status, report.problems.len() + report.more_problems)
}

fn common_warnings(sent: &str, written: &str, unescaped: bool) -> Vec<String> {
    let mut warnings = Vec::new();
    if unescaped {
        warnings.push(format!(
            "the content arrived over-escaped (one line with {} literal \\n sequences) and was unescaped \
             before writing; send real newlines in `content`",
            unescape::count_escaped_newlines(sent)
        ));
    } else if unescape::looks_over_escaped(sent) {
        warnings.push(format!(
            "the content looked over-escaped (one line with {} literal \\n sequences) but parses better as \
             sent, so it was written unchanged; if you meant line breaks, send real newlines",
            unescape::count_escaped_newlines(sent)
        ));
    }
    let chars = written.chars().count();
    if chars > 2 * ADVISED_CHUNK_CHARS {
        warnings.push(format!(
            "this call carried {chars} characters; calls over ~{ADVISED_CHUNK_CHARS} risk being cut off by \
             your output limit: send smaller parts with append_file"
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> (tempfile::TempDir, Session) {
        let tmp = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(tmp.path().join("root")).expect("root");
        let ws = Workspace::open_root(&tmp.path().join("root")).expect("open root");
        let store = Store::open(&tmp.path().join("state"), None).expect("store");
        (
            tmp,
            Session::new(
                ws,
                Config { agent: "tester".into(), max_file_bytes: 1 << 20, after_write: None },
                store,
            ),
        )
    }

    #[test]
    fn replacing_an_unread_file_warns_but_writes() {
        let (t, s) = session();
        std::fs::write(t.path().join("root/a.txt"), "old").unwrap();
        let out = s.write_file(Some("a.txt"), Some("new"), None).unwrap();
        assert!(out.warnings.iter().any(|w| w.contains("had not read")));
        assert_eq!(std::fs::read_to_string(t.path().join("root/a.txt")).unwrap(), "new");
    }

    #[test]
    fn replacing_a_read_file_does_not_warn() {
        let (t, s) = session();
        std::fs::write(t.path().join("root/a.txt"), "old\n").unwrap();
        s.read_file(Some("a.txt"), None, None).unwrap();
        let out = s.write_file(Some("a.txt"), Some("new"), None).unwrap();
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    }

    #[test]
    fn missing_content_is_reported_as_truncated() {
        let (t, s) = session();
        let err = s.write_file(Some("a.txt"), None, None).unwrap_err();
        assert!(matches!(err, Error::Truncated { field: "content", .. }));
        assert!(!t.path().join("root/a.txt").exists());
    }

    #[test]
    fn over_escaped_python_is_unescaped_when_it_parses_better() {
        let (t, s) = session();
        let out =
            s.write_file(Some("a.py"), Some("def f():\\n    return 1\\n\\nprint(f())\\n"), None).unwrap();
        assert!(out.unescaped);
        assert_eq!(
            std::fs::read_to_string(t.path().join("root/a.py")).unwrap(),
            "def f():\n    return 1\n\nprint(f())\n"
        );
    }

    #[test]
    fn one_line_python_with_newline_escapes_in_strings_is_kept() {
        let (t, s) = session();
        let line = "print(\"a\\nb\\nc\")\n";
        let out = s.write_file(Some("a.py"), Some(line), None).unwrap();
        assert!(!out.unescaped);
        assert_eq!(std::fs::read_to_string(t.path().join("root/a.py")).unwrap(), line);
    }
}
