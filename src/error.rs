//! The core error type: every variant carries the facts a model needs (root-relative path, sizes,
//! limits) and its message ends with what to do next, because the model sees only the text.
//!
//! Every variant and its message live here, side by side; only the reasons one `edit_file`
//! edit fails ([`EditFailure`]) have a file of their own, `error/edit.rs`.

use std::fmt;
use std::io;

use crate::timestamp::Timestamp;

mod edit;

pub use edit::EditFailure;

/// Maximum characters of content we advise per tool call (the model's output limit is ~16-20 KB).
pub const ADVISED_CHUNK_CHARS: usize = 8_000;

/// A failed tool call, described for the model that made it.
#[derive(Debug)]
pub enum Error {
    /// A required argument is absent: the shape of a call cut off by the model's output limit.
    Truncated {
        /// The tool that was called.
        tool: &'static str,
        /// The missing argument.
        field: &'static str,
    },
    /// A required argument is absent from a call that carries no content, so it was not cut off:
    /// the argument was simply left out.
    Missing {
        /// The tool that was called.
        tool: &'static str,
        /// The missing argument.
        field: &'static str,
    },
    /// The path resolves outside the root, directly or through a symlink.
    OutsideRoot {
        /// The path as the caller sent it.
        path: String,
    },
    /// The path is malformed (empty, NUL byte, names the root itself...).
    InvalidPath {
        /// The path as the caller sent it.
        path: String,
        /// Why it is refused.
        reason: String,
    },
    /// The file does not exist.
    NotFound {
        /// Root-relative path.
        path: String,
    },
    /// The path names a directory where a file was expected.
    IsDirectory {
        /// Root-relative path.
        path: String,
    },
    /// The path names a FIFO, device, socket or other non-regular file.
    NotRegularFile {
        /// Root-relative path.
        path: String,
    },
    /// A parent component of the path is an existing file, not a directory.
    ParentNotDirectory {
        /// Root-relative path.
        path: String,
    },
    /// In-place writes refuse files with several hard links: one of them may live outside the root.
    HardLinked {
        /// Root-relative path.
        path: String,
        /// Number of links the file has.
        links: u64,
    },
    /// `expected_size` did not match: the file changed since the caller last looked.
    SizeMismatch {
        /// Root-relative path.
        path: String,
        /// What the caller expected.
        expected: u64,
        /// What the file really holds.
        actual: u64,
    },
    /// The file would exceed the server's `--max-file-bytes`.
    TooLarge {
        /// Root-relative path.
        path: String,
        /// The size the file has or would have.
        size: u64,
        /// The configured limit.
        limit: u64,
    },
    /// The file is larger than the server will read (`--max-file-bytes`).
    TooLargeToRead {
        /// Root-relative path.
        path: String,
        /// Its size.
        size: u64,
        /// The configured limit.
        limit: u64,
    },
    /// The file holds NUL bytes: it is not text in any encoding.
    Binary {
        /// Root-relative path.
        path: String,
        /// `"NUL byte at offset N"`: where it was found.
        detail: String,
    },
    /// The new text holds a character the file's encoding cannot hold; nothing was written.
    Unrepresentable {
        /// Root-relative path.
        path: String,
        /// The first such character.
        character: char,
        /// Its 1-based line in the file as it would have been.
        line: usize,
        /// The encoding's name (`"Shift_JIS"`).
        encoding: &'static str,
    },
    /// The file's bytes do not come back unchanged from a decode and an encode in its
    /// encoding (malformed bytes, or a character with two encodings), so changing it could
    /// change bytes the call did not touch; nothing was written.
    Inexact {
        /// Root-relative path.
        path: String,
        /// The encoding's name.
        encoding: &'static str,
        /// The first byte that does not come back unchanged.
        offset: usize,
    },
    /// An append failed part way and the file could not be cut back: some bytes landed.
    PartialAppend {
        /// Root-relative path.
        path: String,
        /// Bytes that landed.
        appended: usize,
        /// Bytes the call tried to append.
        total: usize,
        /// The error that stopped the append.
        source: io::Error,
    },
    /// `apply_patch` changed nothing: the patch cannot be read, reaches outside the root, or a
    /// hunk of one of its files does not apply.
    PatchRefused {
        /// What is wrong, naming the file and hunk, and what to do.
        reason: String,
    },
    /// An argument has a value the tool cannot use.
    InvalidArgument {
        /// The argument's name.
        name: &'static str,
        /// What is wrong and what is accepted.
        reason: String,
    },
    /// A notebook change was refused: the notebook is broken, or a cell edit cannot apply.
    Notebook {
        /// Root-relative path.
        path: String,
        /// What is wrong and what to do.
        reason: String,
    },
    /// Another agent holds a live claim on the path.
    Conflict {
        /// Root-relative path.
        path: String,
        /// The owning agent.
        owner: String,
        /// When the owner claimed it.
        since: Timestamp,
    },
    /// The caller's claim on the path was taken over: it lapsed and another agent was given
    /// the path under a newer fencing token. Its view of the file may be stale.
    Superseded {
        /// Root-relative path.
        path: String,
        /// The token the caller held.
        token: u64,
        /// The agent given the path since.
        by: String,
        /// The token it was given.
        by_token: u64,
    },
    /// An edit of `edit_file` failed; no edit was applied.
    Edit {
        /// Root-relative path.
        path: String,
        /// 0-based index of the failing edit.
        index: usize,
        /// Number of edits in the call.
        total: usize,
        /// What went wrong.
        failure: Box<EditFailure>,
    },
    /// `claim_files` claimed nothing because other agents hold some of the paths.
    ClaimsRefused {
        /// (path, owner, since) for each blocking claim.
        conflicts: Vec<(String, String, Timestamp)>,
    },
    /// `expected_sha256` did not match the file: someone changed it since the caller read it.
    ContentChanged {
        /// Root-relative path.
        path: String,
        /// The sha256 the caller expected.
        expected: String,
        /// The file's sha256 now; None when the file does not exist.
        actual: Option<String>,
        /// The last write the journal recorded: (agent, action, when).
        last_write: Option<Box<(String, String, Timestamp)>>,
    },
    /// `undo` cannot put the file back; nothing was changed.
    UndoRefused {
        /// Root-relative path.
        path: String,
        /// Why, and what to do.
        reason: String,
    },
    /// A move or a copy would replace an existing file and `overwrite` was not set.
    AlreadyExists {
        /// Root-relative path of the existing file.
        path: String,
    },
    /// A directory cannot be created because something that is not a directory holds its
    /// name, or the name of one of its parents.
    FileInTheWay {
        /// Root-relative path of the directory asked for.
        path: String,
        /// Root-relative path of what is in the way (`path` itself or a parent).
        blocking: String,
        /// What it is: `"a file"`, `"a FIFO, socket or device"`.
        what: &'static str,
    },
    /// `read_multiple_files` could read none of the files it was given.
    NoneRead {
        /// Each path as given, with why it could not be read.
        failures: Vec<(String, String)>,
    },
    /// `read_media_file` was given a file that is not an image it can show.
    NotAnImage {
        /// Root-relative path.
        path: String,
        /// What the file is instead, and the tool that reads it.
        instead: String,
    },
    /// `read_media_file` was given an image larger than a model is sent at once.
    ImageTooLarge {
        /// Root-relative path.
        path: String,
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// `delete_file` was asked to remove a directory that has entries.
    DirectoryNotEmpty {
        /// Root-relative path.
        path: String,
        /// Entries in it.
        entries: usize,
    },
    /// An authenticated caller (over HTTP) named another agent in `agent`.
    NotYourAgent {
        /// The agent the credentials name.
        authenticated: String,
        /// The agent the call named.
        given: String,
    },
    /// An authenticated caller's profile (token file or OAuth scopes) leaves the tool out.
    NotInScope {
        /// The tool called.
        tool: String,
        /// The scope it needs.
        scope: &'static str,
        /// The caller's profile.
        profile: crate::profile::Profile,
    },
    /// No sandbox root has been chosen yet: the server waits for the client's roots.
    NoRoot,
    /// No sandbox root will be served: without `--root`, the current directory is `/` or home,
    /// or the chosen root could not be opened.
    RootRefused {
        /// Why, and what to pass.
        reason: String,
    },
    /// The client cancelled a long call part way; nothing was changed.
    Cancelled {
        /// Items done before it stopped.
        done: usize,
        /// Items in all.
        total: usize,
    },
    /// The path lies in filewright's own state directory.
    Reserved {
        /// The path as the caller sent it.
        path: String,
    },
    /// The shared state database failed.
    Store {
        /// Another process held the database for longer than the busy timeout.
        busy: bool,
        /// SQLite's message.
        detail: String,
    },
    /// The shared store (PostgreSQL) cannot be reached: nothing was written.
    StoreDown {
        /// Which server, database and root.
        store: String,
        /// The client's message.
        detail: String,
    },
    /// The state directory cannot be written: nothing was changed, and retrying will not help.
    StateDir {
        /// What failed, with the directory.
        reason: String,
    },
    /// Any other I/O failure.
    Io {
        /// What we were doing, e.g. "write", "append", "read".
        op: &'static str,
        /// Root-relative path.
        path: String,
        /// The underlying error.
        source: io::Error,
    },
}

/// Result alias for the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Missing { tool, field } => write!(
                f,
                "{tool} was called without `{field}`, which it needs; nothing was changed. Call it again \
                 with `{field}`."
            ),
            Error::Truncated { tool, field } => write!(
                f,
                "{tool} was called without `{field}`: this is what a call cut off by the model's output \
                 limit looks like, and nothing was written. Send at most ~{ADVISED_CHUNK_CHARS} characters \
                 of content per call: write_file with the first part, then append_file for each next \
                 part. If you were continuing a file, read_file with offset -20 shows where it ends now."
            ),
            Error::OutsideRoot { path } => write!(
                f,
                "{path:?} is outside the sandbox root; nothing was read or written. Use a path relative to \
                 the root (for example \"src/app.js\"), without `..` above the root and not through a \
                 symlink that leads out of it."
            ),
            Error::InvalidPath { path, reason } => {
                let example = "\"src/app.js\"";
                write!(f, "invalid path {path:?}: {reason}. Use a path relative to the root, like {example}.")
            }
            Error::NotFound { path } => write!(
                f,
                "{path} does not exist. Check the name, or create it with write_file (or append_file)."
            ),
            Error::IsDirectory { path } => {
                write!(
                    f,
                    "{path} is a directory, not a file. Name a file inside it, like \"{path}/name.ext\"."
                )
            }
            Error::NotRegularFile { path } => write!(
                f,
                "{path} is not a regular file (a FIFO, device or socket); filewright only reads and writes \
                 regular files. Choose another path."
            ),
            Error::ParentNotDirectory { path } => write!(
                f,
                "cannot create {path}: a part of its parent path is an existing file, not a directory. \
                 Choose another path."
            ),
            Error::HardLinked { path, links } => write!(
                f,
                "{path} has {links} hard links, and writing in place would change every copy (some may be \
                 outside the root); nothing was written. Replace it whole with write_file instead, which \
                 gives it its own copy."
            ),
            Error::SizeMismatch { path, expected, actual } => write!(
                f,
                "nothing was appended: {path} is {actual} bytes, not the expected_size {expected}. It changed \
                 since you last looked (or an earlier append did land). Run read_file with offset -20 to see \
                 how it ends, then append only what is missing, with expected_size {actual}."
            ),
            Error::TooLarge { path, size, limit } => write!(
                f,
                "{path} would be {size} bytes, over this server's limit of {limit} bytes (--max-file-bytes); \
                 nothing was written. Split the content into several smaller files."
            ),
            Error::TooLargeToRead { path, size, limit } => write!(
                f,
                "{path} is {size} bytes, over this server's limit of {limit} bytes (--max-file-bytes), so it \
                 was not read. It was not changed."
            ),
            Error::Binary { path, detail } => write!(
                f,
                "{path} is not a text file ({detail}); filewright reads and edits text files only. It was not \
                 changed."
            ),
            Error::Unrepresentable { path, character, line, encoding } => {
                let code = u32::from(*character);
                write!(
                    f,
                    "nothing was written: '{}' (U+{code:04X}) on line {line} cannot be written in {encoding}, \
                     the encoding of {path}. Write it with an escape the language allows instead (\\u{code:04X} \
                     in a JavaScript, JSON or Python string, \\u{{{code:X}}} in Rust, &#x{code:X}; in HTML), or \
                     leave it out; or convert the whole file to UTF-8 with write_file {{encoding: \"utf-8\"}}.",
                    character.escape_debug(),
                )
            }
            Error::Inexact { path, encoding, offset } => write!(
                f,
                "{path} looks like {encoding} text, but its bytes from offset {offset} do not convert to text and \
                 back unchanged (they are malformed, or a character there has two encodings), so changing it \
                 could change bytes you did not touch; nothing was written. read_file shows it. To change it, \
                 replace it whole with write_file naming the encoding to write it in (encoding: \"{}\" keeps \
                 {encoding}; \"utf-8\" converts it).",
                encoding.to_ascii_lowercase()
            ),
            Error::Conflict { path, owner, since } => write!(
                f,
                "CONFLICT: {path} is owned by agent {owner:?} since {since}; write a different file or ask that \
                 agent to release it (release_files). Nothing was written."
            ),
            Error::Superseded { path, token, by, by_token } => write!(
                f,
                "SUPERSEDED: your claim on {path} (fencing token {token}) lapsed, and agent {by:?} was given \
                 the path since (token {by_token}); it may have changed the file. Nothing was written. Read \
                 {path} again, then claim_files it to take it back before writing."
            ),
            Error::Edit { path, index, total, failure } => {
                let which =
                    if *total > 1 { format!("edit {} of {total}", index + 1) } else { "the edit".into() };
                write!(f, "{path} was not changed ({which} failed; edits are all or nothing): {failure}")
            }
            Error::ClaimsRefused { conflicts } => {
                write!(f, "CONFLICT: nothing was claimed (all or nothing):")?;
                for (path, owner, since) in conflicts {
                    write!(f, " {path} is owned by agent {owner:?} since {since};")?;
                }
                write!(f, " claim other files, or ask those agents to release them.")
            }
            Error::ContentChanged { path, expected, actual, last_write } => {
                let short = |h: &str| h.chars().take(12).collect::<String>();
                match actual {
                    Some(actual) => write!(
                        f,
                        "{path} has changed since you read it: its sha256 is now {}..., not the {}... you \
                         expected.",
                        short(actual),
                        short(expected)
                    )?,
                    None => write!(
                        f,
                        "{path} does not exist, so it cannot have the sha256 {}... you expected.",
                        short(expected)
                    )?,
                }
                match last_write.as_deref() {
                    Some((agent, action, when)) => write!(
                        f,
                        " Its last change through filewright: {action} by agent {agent:?} at {when}."
                    )?,
                    None => write!(
                        f,
                        " filewright has recorded no write of it: it was changed outside filewright."
                    )?,
                }
                write!(
                    f,
                    " Nothing was changed. Read the file again (read_file; its result gives the new sha256) and \
                     redo your change on what it holds now."
                )
            }
            Error::UndoRefused { path, reason } => {
                write!(f, "{path} was not changed: undo refused because {reason}.")
            }
            Error::AlreadyExists { path } => write!(
                f,
                "{path} already exists, so nothing was changed: pass overwrite: true to replace it, or \
                 choose another name."
            ),
            Error::FileInTheWay { path, blocking, what } if path == blocking => write!(
                f,
                "cannot create the directory {path}: it is {what}, not a directory; nothing was created. \
                 Choose another name, or delete_file it first."
            ),
            Error::FileInTheWay { path, blocking, what } => write!(
                f,
                "cannot create the directory {path}: its parent {blocking} is {what}, not a directory; \
                 nothing was created. Choose another path."
            ),
            Error::NoneRead { failures } => {
                write!(f, "none of the {} files could be read:", failures.len())?;
                for (path, why) in failures {
                    write!(f, "\n- {path}: {why}")?;
                }
                write!(
                    f,
                    "\nCheck the paths (find_files or list_directory shows what exists) and call again."
                )
            }
            Error::NotAnImage { path, instead } => write!(
                f,
                "{path} is not an image read_media_file can show (PNG, JPEG, GIF or WebP, told from its \
                 bytes): {instead}"
            ),
            Error::ImageTooLarge { path, size, limit } => write!(
                f,
                "{path} is {size} bytes, over the {limit} bytes ({} MiB) an image may have to be sent to the \
                 model, so it was not read. Ask the user for a smaller version (scaled down or compressed), \
                 or use get_file_info for its size and type.",
                limit >> 20
            ),
            Error::DirectoryNotEmpty { path, entries } => write!(
                f,
                "{path} is a directory with {entries} entries, so nothing was deleted: delete_file removes \
                 files and empty directories; delete its files first (list_directory shows them)."
            ),
            Error::NotYourAgent { authenticated, given } => write!(
                f,
                "nothing was done: this call names agent {given:?}, but you are authenticated as {authenticated:?}, \
                 and over HTTP every change is recorded under the authenticated agent. Omit `agent` (or pass \
                 {authenticated:?}) and call again."
            ),
            Error::NotInScope { tool, scope, profile } => write!(
                f,
                "{tool} is not available to you: your credentials give the {profile} profile, and {tool} needs the \
                 {scope} scope. Use the tools you are listed, or ask for credentials with {scope}."
            ),
            Error::NoRoot => write!(
                f,
                "no sandbox root yet: the server is waiting for the client's roots. Retry in a moment; if \
                 this persists, start filewright with --root /path/to/project."
            ),
            Error::RootRefused { reason } => f.write_str(reason),
            Error::Cancelled { done, total } => write!(
                f,
                "cancelled by the client after {done} of {total} files; nothing was changed. Call it again \
                 to finish."
            ),
            Error::Reserved { path } => write!(
                f,
                "{path:?} is inside filewright's state directory, which no tool may read or write. Choose \
                 another path."
            ),
            Error::Store { busy: true, detail } => write!(
                f,
                "the shared claims database stayed locked by another process for over 5 s ({detail}); \
                 nothing was written. Retry in a moment."
            ),
            Error::Store { busy: false, detail } => write!(
                f,
                "the shared claims database failed ({detail}). Retry; if it keeps failing, the server's \
                 operator should check its --state-dir or --store."
            ),
            Error::StoreDown { store, detail } => write!(
                f,
                "the shared store ({store}) cannot be reached ({detail}); nothing was written. Files can \
                 still be read. Retry this call once the database is back; if it stays down, the server's \
                 operator should check --store."
            ),
            Error::StateDir { reason } => write!(
                f,
                "{reason}; nothing was changed. Retrying will not help: the state directory must be \
                 writable (ask the user to fix its permissions or pass another --state-dir)."
            ),
            Error::PartialAppend { path, appended, total, source } => write!(
                f,
                "could not append to {path}: {source}. Only the first {appended} of {total} bytes landed \
                 and could not be taken back, so {path} now ends part way through your chunk: read its end \
                 (read_file with offset -20) and append only what is missing."
            ),
            Error::InvalidArgument { name, reason } => write!(f, "invalid `{name}`: {reason}"),
            Error::Notebook { path, reason } => write!(f, "{path} was not changed: {reason}"),
            Error::PatchRefused { reason } => write!(
                f,
                "the patch was not applied, and no file was changed (a patch is all or nothing): {reason}"
            ),
            Error::Io { op, path, source } => write!(
                f,
                "could not {op} {path}: {source}. The file's content was not changed by this call (a missing \
                 file or parent directories it created may remain, empty); check the path and try again."
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } | Error::PartialAppend { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_without_a_path_is_told_to_name_the_file_not_to_write_in_parts() {
        let text = Error::Missing { tool: "read_file", field: "path" }.to_string();
        assert!(text.contains("without `path`") && !text.contains("append_file"), "{text}");
    }

    #[test]
    fn truncated_message_names_the_limit_and_the_next_step() {
        let text = Error::Truncated { tool: "write_file", field: "content" }.to_string();
        assert!(text.contains("without `content`"));
        assert!(text.contains("8000"));
        assert!(text.contains("append_file"));
    }

    #[test]
    fn size_mismatch_message_gives_the_real_size() {
        let text = Error::SizeMismatch { path: "a.js".into(), expected: 10, actual: 12 }.to_string();
        assert!(text.contains("is 12 bytes"));
        assert!(text.contains("expected_size 12"));
    }
}
