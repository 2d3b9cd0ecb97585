//! The tools' arguments as rmcp decodes them; their doc comments are the parameter
//! descriptions in the schemas (`schemas/`).

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::Error;
use crate::session::{CellEditSpec, EditSpec};

// `path` and `content` are `Option` so that a call cut off by the model's output limit (which
// arrives without them) reaches the session and gets an error that explains what happened,
// instead of a bare "missing field". The schema still marks them required.

/// Arguments of `write_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteArgs {
    /// File path relative to the root (for example "src/app.js"); missing parent directories are created.
    #[schemars(required, with = "String")]
    pub path: Option<String>,
    /// The whole content, or the FIRST PART of a large file (at most ~8,000 characters per call;
    /// add the rest with append_file).
    #[schemars(required, with = "String")]
    pub content: Option<String>,
    /// Optional guard: the file's sha256 as your last read or write reported it. When the file
    /// has changed since (another agent wrote it), nothing is changed and the error says who
    /// changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub expected_sha256: Option<String>,
    /// Optional: the agent writing, when one connection serves several sub-agents (default:
    /// the server's --agent). The file is claimed for this agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
    /// Optional: the encoding to write the file in, as a WHATWG label ("utf-8", "utf-16le",
    /// "utf-16be", "shift_jis", "euc-jp", "gbk", "gb18030", "big5", "euc-kr", "koi8-r",
    /// "windows-1252" or "latin1"...; UTF-16 gets a BOM). Default: a replaced file keeps its
    /// own encoding and BOM, a new file is UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub encoding: Option<String>,
}

/// Arguments of `append_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AppendArgs {
    /// File path relative to the root; the file (and its parents) is created when missing.
    #[schemars(required, with = "String")]
    pub path: Option<String>,
    /// The next part, added exactly as sent at the end of the file (at most ~8,000 characters;
    /// include the newline that ends the previous line if the file lacks one).
    #[schemars(required, with = "String")]
    pub content: Option<String>,
    /// Optional guard: the file's current size in bytes (the `size` of your last result). When it
    /// differs, nothing is appended and the error tells the real size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub expected_size: Option<u64>,
    /// Optional guard: the file's sha256 as your last read or write reported it. When the file
    /// has changed since (another agent wrote it), nothing is changed and the error says who
    /// changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub expected_sha256: Option<String>,
    /// Optional: the agent writing (default: the server's --agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
}

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadArgs {
    /// File path relative to the root.
    #[schemars(required, with = "String")]
    pub path: Option<String>,
    /// First line to show, 1-based; negative counts from the end (-20 shows the last 20 lines).
    /// For a notebook shown as cells: the first cell, 0-based (-3 shows the last 3 cells).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    pub offset: Option<i64>,
    /// Maximum lines to show (default 2000). For a notebook shown as cells: maximum cells
    /// (default as many as fit in 50,000 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), with = "usize")]
    pub limit: Option<usize>,
    /// Show each line as `<n>#<hash>\t<text>`: the anchor `<n>#<hash>` names the line in
    /// edit_file's line edits (default false). In a notebook shown as cells, each source line
    /// as `<cell>:<n>#<hash>\t<text>`, its cell's index first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub anchors: Option<bool>,
    /// Show a notebook (`.ipynb`) as its JSON lines, like any other file, instead of its
    /// cells (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub raw: Option<bool>,
}

/// Arguments of `check_files`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CheckArgs {
    /// Files to check, relative to the root. Omit to check every file written on this root
    /// since this server started (by any agent: the journal records them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<String>")]
    pub paths: Option<Vec<String>>,
}

/// Arguments of `edit_file`: one edit inline, or several in `edits`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditArgs {
    /// File path relative to the root.
    #[schemars(required, with = "String")]
    pub path: Option<String>,
    /// Exact text to replace; it must occur exactly once unless replace_all. Empty only to
    /// create a missing or empty file. Use this, or `edits` for several changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub old_string: Option<String>,
    /// The replacement for old_string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub new_string: Option<String>,
    /// Replace every occurrence of old_string (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub replace_all: Option<bool>,
    /// Several edits, applied in order, each to the result of the previous; all or nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<EditSpec>")]
    pub edits: Option<Vec<EditSpec>>,
    /// Only show the diff; write nothing (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub dry_run: Option<bool>,
    /// When old_string does not occur exactly, look for it ignoring trailing whitespace, then
    /// a uniform shift of indentation (levels, tabs against spaces), then Unicode look-alike
    /// punctuation (curly quotes, dashes, ellipsis, non-breaking spaces); used only when
    /// exactly one place matches, and the result says what was ignored (default true). Set
    /// false to require the exact text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub tolerant: Option<bool>,
    /// Optional guard: the file's sha256 as your last read or write reported it. When the file
    /// has changed since (another agent wrote it), nothing is changed and the error says who
    /// changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub expected_sha256: Option<String>,

    /// Optional: the agent editing (default: the server's --agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
}

impl EditArgs {
    /// The edits of the call: the inline one or the `edits` list, not both.
    pub(super) fn edits(&mut self) -> Result<Vec<EditSpec>, Error> {
        let inline = self.old_string.is_some() || self.new_string.is_some();
        match (inline, self.edits.take()) {
            (true, Some(_)) => Err(Error::InvalidArgument {
                name: "edits",
                reason: "give either old_string/new_string or an `edits` list, not both".into(),
            }),
            (true, None) => Ok(vec![EditSpec {
                old_string: self.old_string.take(),
                new_string: self.new_string.take(),
                replace_all: self.replace_all,
                from: None,
                to: None,
                after: None,
            }]),
            (false, Some(list)) => Ok(list),
            (false, None) => Err(Error::Truncated { tool: "edit_file", field: "old_string" }),
        }
    }
}

/// Arguments of `apply_patch`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PatchArgs {
    /// The patch: a Codex envelope (`*** Begin Patch`, `*** Add File: p` / `*** Delete File: p` /
    /// `*** Update File: p` with optional `*** Move to: q`, hunks after `@@` or `@@ <line of
    /// context>`, lines prefixed with space, `-` or `+`, `*** End of File`, `*** End Patch`) or a
    /// unified diff as `git diff` or `diff -u` prints it (`--- a/p`, `+++ b/p`, `@@ -l,n +l,n @@`,
    /// `/dev/null` to add or delete). Paths are relative to the root.
    #[schemars(required, with = "String")]
    pub patch: Option<String>,
    /// Locate hunks ignoring trailing whitespace, a uniform shift of indentation and look-alike
    /// punctuation when their lines are not in the file exactly, as edit_file does (default
    /// true). Set false to require the exact lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub tolerant: Option<bool>,
    /// Only check that every hunk applies and show the diffs; write nothing (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub dry_run: Option<bool>,
    /// Optional guards: file path -> the sha256 your last read or write of it reported. When
    /// one of those files has changed since, nothing is changed and the error says who changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "std::collections::BTreeMap<String, String>")]
    pub expected_sha256: Option<std::collections::BTreeMap<String, String>>,
    /// Optional: the agent applying it (default: the server's --agent). Every path is claimed
    /// for this agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
}

/// Arguments of `list_directory`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {
    /// Directory relative to the root (default: the root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub path: Option<String>,
    /// Levels to show: 1 (default) lists the directory itself, 2 adds its subdirectories...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 20), with = "usize")]
    pub depth: Option<usize>,
    /// Show names starting with a dot (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub include_hidden: Option<bool>,
    /// Leave out what .gitignore and .ignore files ignore (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub gitignore: Option<bool>,
}

/// Arguments of `claim_files`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ClaimArgs {
    /// Files to claim, relative to the root (all or nothing).
    #[schemars(required, with = "Vec<String>")]
    pub paths: Option<Vec<String>>,
    /// Optional: the agent claiming (default: the server's --agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
}

/// Arguments of `release_files`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReleaseArgs {
    /// Files to release; omit to release every claim of the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<String>")]
    pub paths: Option<Vec<String>>,
    /// Optional: the agent releasing (default: the server's --agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
}

/// Arguments of `list_claims` (none).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoArgs {}

/// Arguments of `find_files`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindArgs {
    /// A glob: with a `/` it matches the path below `path` ("src/**/*.ts"); without, each
    /// file's name at any depth ("*.ts"). `*` stays within one directory, `**` crosses them.
    #[schemars(required, with = "String")]
    pub pattern: Option<String>,
    /// The directory to search, relative to the root (default: the root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub path: Option<String>,
    /// Matches listed at most (default 200, at most 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1000), with = "usize")]
    pub max_results: Option<usize>,
}

/// Arguments of `search_files`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// The text to find on one line; a regular expression when `regex` is true.
    #[schemars(required, with = "String")]
    pub pattern: Option<String>,
    /// The directory to search, or one file, relative to the root (default: the root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub path: Option<String>,
    /// Only files matching this glob: "*.ts" matches names at any depth, "src/**/*.ts" paths
    /// below `path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub glob: Option<String>,
    /// `pattern` is a regular expression (Rust regex syntax) instead of literal text (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub regex: Option<bool>,
    /// Upper and lower case differ (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub case_sensitive: Option<bool>,
    /// Lines shown before and after each match (default 0, at most 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 20), with = "usize")]
    pub context: Option<usize>,
    /// Matching lines shown at most (default 200, at most 1000); the rest are counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1000), with = "usize")]
    pub max_results: Option<usize>,
}

/// Arguments of `move_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MoveArgs {
    /// The file to move, relative to the root.
    #[schemars(required, with = "String")]
    pub from: Option<String>,
    /// Its new path, relative to the root; missing directories are created.
    #[schemars(required, with = "String")]
    pub to: Option<String>,
    /// Replace an existing file at `to` (default false: the move is refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub overwrite: Option<bool>,
    /// Optional: the agent moving (default: the server's --agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
}

/// Arguments of `delete_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeleteArgs {
    /// The file (or empty directory) to delete, relative to the root.
    #[schemars(required, with = "String")]
    pub path: Option<String>,
    /// Optional: the agent deleting (default: the server's --agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
}

/// Arguments of `undo`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UndoArgs {
    /// File path relative to the root.
    #[schemars(required, with = "String")]
    pub path: Option<String>,
    /// How many of the file's last changes to take back (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100), with = "usize")]
    pub steps: Option<usize>,
    /// Undo even though the file was changed outside filewright since (that change is lost).
    /// Not for an append or an edit: they keep only what they changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub force: Option<bool>,
    /// Optional: the agent undoing (default: the server's --agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
}

/// Arguments of `outline`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OutlineArgs {
    /// File path relative to the root.
    #[schemars(required, with = "String")]
    pub path: Option<String>,
}

/// Arguments of `read_multiple_files`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadManyArgs {
    /// Files to read, relative to the root, in the order to show them (1 to 100).
    #[schemars(required, with = "Vec<String>")]
    pub paths: Option<Vec<String>>,
    /// First line to show in each file, 1-based; negative counts from the end (-20 shows the
    /// last 20 lines of each). For a notebook shown as cells: the first cell, 0-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    pub offset: Option<i64>,
    /// Maximum lines to show per file (default 2000); for a notebook shown as cells, cells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), with = "usize")]
    pub limit: Option<usize>,
    /// Show notebooks (`.ipynb`) as their JSON lines instead of their cells (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub raw: Option<bool>,
}

/// Arguments of `get_file_info`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct InfoArgs {
    /// File or directory relative to the root ("." for the root).
    #[schemars(required, with = "String")]
    pub path: Option<String>,
}

/// Arguments of `create_directory`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MkdirArgs {
    /// Directory to create, relative to the root; missing parents are created too.
    #[schemars(required, with = "String")]
    pub path: Option<String>,
    /// Optional: the agent creating it (default: the server's --agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
}

/// Arguments of `edit_notebook`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditNotebookArgs {
    /// The notebook (`.ipynb`), relative to the root; created when missing.
    #[schemars(required, with = "String")]
    pub path: Option<String>,
    /// The cell edits, applied in order, each to the notebook the one before left (indexes
    /// move as cells are inserted and deleted); all or nothing.
    #[schemars(required, with = "Vec<CellEditSpec>")]
    pub edits: Option<Vec<CellEditSpec>>,
    /// The language of a notebook this call creates, for its kernel: "python" (default),
    /// "r", "julia"... Ignored for an existing notebook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub language: Option<String>,
    /// Optional guard: the notebook's sha256 as your last read or write reported it. When the
    /// file has changed since, nothing is changed and the error says who changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub expected_sha256: Option<String>,
    /// Optional: the agent editing (default: the server's --agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
}

/// Arguments of `copy_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CopyArgs {
    /// The file to copy, relative to the root (one regular file, not a directory).
    #[schemars(required, with = "String")]
    pub from: Option<String>,
    /// The copy's path, relative to the root; missing directories are created.
    #[schemars(required, with = "String")]
    pub to: Option<String>,
    /// Replace an existing file at `to` (default false: the copy is refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub overwrite: Option<bool>,
    /// Optional: the agent copying (default: the server's --agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
}

/// Arguments of `read_media_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MediaArgs {
    /// Image file relative to the root (PNG, JPEG, GIF or WebP).
    #[schemars(required, with = "String")]
    pub path: Option<String>,
}

/// Arguments of `list_artifacts`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ArtifactsArgs {
    /// Only files this agent wrote to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub agent: Option<String>,
    /// Only this file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub path: Option<String>,
    /// Include every recorded write of each file, oldest first (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub history: Option<bool>,
}
