//! filewright: an MCP server that lets AI agents write large files in pieces, safely, and know
//! after every step whether the file is whole.
//!
//! # Layout
//! One module per concern; each floor uses only the ones listed before it.
//! - [`timestamp`]: moments as the store keeps them and as results show them, formatted once.
//! - [`error`]: the core error type; every message ends with what the model should do next.
//! - [`budget`]: how much one tool result may hold (text, and text with its JSON), so that a
//!   client passes it on whole; every result that can grow is built within it.
//! - [`lines`]: line counts, line starts and line:column positions, the same for every tool.
//! - [`changed`]: where two versions of a text start and stop differing, a block at a time.
//! - [`unescape`]: detect and undo over-escaped content (pure).
//! - [`check`]: the syntax check of a text by file extension, truthful about "incomplete"
//!   versus "broken", with each language's own parser; the stub scan; and the cache that lets
//!   the check after an append parse only the new part; and the references between files
//!   that `check_files` resolves (`check::refs`), through a file access the caller provides.
//! - [`platform`]: the one switch between the Linux-only calls and the portable paths other
//!   Unix systems take (each kept beside its call), and the table of them.
//! - [`workspace`]: the sandbox (cap-std `Dir` of the root), atomic replaces through hidden
//!   temporary files (staged, then landed, so that the
//!   rename can come last), and the sweep of those a kill left.
//! - [`files`]: write (atomic), append (guarded against stale and retried calls), numbered read,
//!   exact edits, bounded directory listings, one walker under `find_files` (globs) and
//!   `search_files` (ripgrep's matcher and searcher over files read through the sandbox), and
//!   an image's type and pixel size from its first bytes (`read_media_file`, `get_file_info`).
//! - [`cleanup`]: undo what models send by mistake (read_file's line prefixes, a Markdown
//!   fence around a whole file), only when certain.
//! - [`store`]: claims (with fencing tokens), the artifact journal and undo's versions, shared
//!   by every process on a root: in SQLite for one machine, or in PostgreSQL for several hosts
//!   (`--store`); the rules are written once over both. Also the intents of appends in flight,
//!   by which a kill part way is repaired.
//! - [`hooks`]: the `--after-write` command (formatter or linter), with a time limit.
//! - [`auth`]: over HTTP, who is calling: the principal (agent and profile) behind a bearer
//!   token, from a `--token-file` or an OAuth issuer's signed access tokens; and the 401/403
//!   challenges and protected-resource metadata that tell a client what to send.
//! - [`profile`]: which tools a caller may use (`--profile`, and each HTTP principal's within
//!   it).
//! - [`acting`]: who a call acts as when its caller is authenticated (over HTTP): the
//!   principal, never the `agent` argument; and which tools its profile allows.
//! - [`session`]: per-process state and one file per tool, composing the above; plain Rust in
//!   and out.
//! - [`server`]: the MCP glue (rmcp): tool definitions, rendering of results and errors, the
//!   choice of root, the framing in front of rmcp's stdio transport that answers every
//!   request line (over the limit, lone surrogates, non-object arguments), and the start's
//!   threads, put off until the `initialize` reply is out (`server::startup`); and
//!   `server::http`, MCP over Streamable HTTP (`--http`) behind the checks a network server
//!   needs (Host, Origin, body, credentials, scopes, requests in flight, TLS).
//!
//! # One `append_file` call, from the wire to disk and back: four files
//! 1. `server/tools.rs`: rmcp decodes the request into `AppendArgs` (`content` is an
//!    `Option`, so a call cut off by the model's output limit still arrives) and calls the
//!    tool method, which runs the session's call on a blocking thread.
//! 2. `session/append.rs` (`Session::append_file`): resolves the path in the [`workspace`];
//!    inside [`store::Store::write_claimed`] (claim, write, journal row: one transaction) calls
//!    [`files::append`]; gathers warnings; then `Session::after_write` (one function, shared by
//!    every writing tool) runs the hook and the check.
//! 3. `files/append.rs` ([`files::append`]): the guards (`expected_size`, `expected_sha256`, a
//!    retried chunk), then the bytes through the sandbox's append handle.
//! 4. `server/render.rs`: the outcome becomes text plus `structuredContent` and a
//!    `resource_link` to the file, or an [`error`] becomes an `isError` result.
//!
//! # Doors to host paths (ambient authority)
//! Everything else reaches files through the sandbox. The doors, each with an "Ambient
//! authority" section: [`workspace::Workspace::open_root`] and [`workspace::Workspace::reserve`],
//! [`store::Store::open_at`] and [`store::Store::open_sqlite_later`] (the state
//! directory; a `--store` URL is a network door, not a path), [`session::Session::open`] (both), the client's roots (`server/roots.rs`) and
//! [`hooks::Hook::run`]. [`session::Session::file_uri`] names a host path (the links in
//! results) but opens nothing.
//!
//! # Where this departs from the house notes
//! The house notes propose a layout; the code keeps it except where a reason won:
//! - `check` depends on tree-sitter *and* on each language's own parser (ruff's, oxc,
//!   rust-analyzer's, toml_edit, saphyr, serde_json): a verdict must agree with the compiler,
//!   which a grammar alone does not.
//! - The check cache lives in `check` and is keyed by a caller-chosen version type, so that
//!   `check` still knows nothing of files: the session passes the file's metadata.
//! - `session` is a directory with one file per tool, as the notes suggest "when it grows".
//! - Wire outcome types derive serde and schemars where they are produced (`session`,
//!   `files::Listing`, `store::Claim`, `check::Report`), rather than being copied into the
//!   glue: one type per thing, and `schemas/` is generated from them.
//! - [`lines`], [`timestamp`] and [`budget`] are ground-floor modules the notes do not name: a line
//!   number or a time is formatted in one place, and a result's size bound decided in one.
#![warn(missing_docs)]

pub mod acting;
pub mod auth;
pub mod background;
pub mod budget;
pub mod changed;
pub mod check;
pub mod cleanup;
pub mod error;
pub mod files;
pub mod hooks;
pub mod lines;
pub mod notebook;
pub mod platform;
pub mod profile;
pub mod server;
pub mod session;
pub mod store;
pub mod timestamp;
pub mod unescape;
pub mod workspace;
