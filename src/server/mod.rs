//! The MCP layer: server identity, instructions, and the tool router. Thin glue over
//! [`crate::session::Session`]; no file or parsing logic lives here.

mod render;
mod tools;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig, Tool};
use rmcp::{ServerHandler, tool_handler};

use crate::session::Session;

/// What the model is told when it connects: the pattern that keeps large files whole.
pub const INSTRUCTIONS: &str = "filewright writes files in parts, inside one sandbox root. \
Your output per tool call is limited, so never send more than ~8,000 characters of content in one call. \
To create a large file: write_file with the first part, then append_file with each next part, in order. \
Every write and append result ends with a syntax check of the whole file: \"incomplete so far\" is expected \
until the last part; an error before the end means something is broken: fix it before going on. \
If a call was interrupted or you are unsure where a file ends, read_file with a negative offset \
(offset: -20 shows the last 20 lines) and continue from there, passing expected_size (the file's size in \
bytes) to append_file so a stale append is refused instead of duplicated. Paths are relative to the root.";

/// The MCP server: a session plus the generated tool router.
#[derive(Clone)]
pub struct FilewrightServer {
    session: Arc<Session>,
    tool_router: ToolRouter<Self>,
}

impl FilewrightServer {
    /// A server for `session`.
    pub fn new(session: Session) -> Self {
        FilewrightServer { session: Arc::new(session), tool_router: Self::tool_router() }
    }

    /// Every tool exactly as listed on the wire (name, schemas, annotations), for `schemas/`.
    pub fn tool_list() -> Vec<Tool> {
        Self::tool_router().list_all()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for FilewrightServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}
