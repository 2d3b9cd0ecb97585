//! filewright: an MCP server that lets AI agents write large files in pieces, safely, and know
//! after every step whether the file is whole.
//!
//! # Layout
//! One module per concern; each floor uses only the ones listed before it.
//! - [`error`]: the core error type; every message ends with what the model should do next.
//! - [`unescape`]: detect and undo over-escaped content (pure).
//! - [`check`]: syntax check of a text by file extension, truthful about "incomplete" versus "broken".
//! - [`workspace`]: the sandbox (cap-std `Dir` of the root); the only door to host paths.
//! - [`files`]: write (atomic), append (guarded against stale and retried calls), numbered read,
//!   exact edits, bounded directory listings.
//! - [`store`]: claims and the artifact journal in SQLite, shared by every process on a root.
//! - [`hooks`]: the `--after-write` command (formatter or linter), with a time limit.
//! - [`session`]: per-process state and one method per tool, composing the above.
//! - [`server`]: the MCP glue (rmcp): tool definitions, rendering of results and errors.
#![warn(missing_docs)]

pub mod check;
pub mod error;
pub mod files;
pub mod hooks;
pub mod lines;
pub mod server;
pub mod session;
pub mod store;
pub mod timestamp;
pub mod unescape;
pub mod workspace;
