//! The MCP layer: server identity, instructions, and the tool router. Thin glue over
//! [`crate::session::Session`]; no file or parsing logic lives here.

mod args;
pub mod framing;
pub mod http;
mod prompts;
mod render;
mod roots;
pub mod schemas;
pub mod startup;
mod tools;

pub use roots::{SessionSlot, file_uri_to_path, refuse_too_broad};

use std::sync::{Arc, OnceLock};

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, prompt_handler, tool_handler};

use crate::auth::Principal;
pub use crate::profile::Profile;
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

/// The MCP server: the session slot plus the generated tool and prompt routers.
#[derive(Clone)]
pub struct FilewrightServer {
    slot: Arc<SessionSlot>,
    profile: Profile,
    /// Built when first needed (`tools/list` or a call), not before `initialize` is answered:
    /// it needs every tool's schemas, which a start parses on another thread once that reply
    /// is out ([`schemas::parse_in_background`]).
    tool_router: Arc<OnceLock<ToolRouter<Self>>>,
    prompt_router: PromptRouter<Self>,
}

impl FilewrightServer {
    /// A server for the sessions of `slot` listing the tools of `profile`. A tool outside the profile is
    /// removed from the router, so it is neither listed nor callable (a call gets a tool error
    /// that names the profile).
    pub fn new(slot: Arc<SessionSlot>, profile: Profile) -> Self {
        let mut prompt_router = Self::prompt_router();
        if profile == Profile::Readonly {
            // Both prompts ask the model to write files, which this profile cannot.
            for prompt in prompt_router.list_all() {
                prompt_router.remove_route(&prompt.name);
            }
        }
        FilewrightServer { slot, profile, tool_router: Arc::default(), prompt_router }
    }

    /// The tools of this server's profile.
    fn tools(&self) -> &ToolRouter<Self> {
        self.tool_router.get_or_init(|| {
            let mut tool_router = Self::tool_router();
            let names: Vec<String> = tool_router.list_all().into_iter().map(|t| t.name.to_string()).collect();
            for name in names.iter().filter(|n| !self.profile.allows(n)) {
                tool_router.remove_route(name);
            }
            tool_router
        })
    }

    /// Runs one tool call on the current session, on a blocking thread (file I/O, parsing,
    /// SQLite), once a root is decided, and renders its outcome; without a root, the reason is
    /// the result.
    async fn run<T, F>(&self, call: F) -> rmcp::model::CallToolResult
    where
        T: render::Rendered + Send + 'static,
        F: FnOnce(&Session) -> crate::error::Result<T> + Send + 'static,
    {
        let session = match self.slot.wait().await {
            Ok(session) => session,
            Err(no_root) => return render::error_result(&no_root.to_string()),
        };
        let answer = move || render::rendered(call(&session), &|path| session.file_uri(path));
        match tokio::task::spawn_blocking(answer).await {
            Ok(result) => result,
            Err(failed) => render::task_failed(&failed),
        }
    }

    /// Makes a call of an authenticated caller (over HTTP) its own: refused when its profile
    /// leaves the tool out; its `agent` argument, where that names who acts, becomes the
    /// principal's (refused when it names another), so that claims, the journal and undo
    /// record the principal.
    fn as_principal(
        &self,
        principal: &Principal,
        request: &mut CallToolRequestParams,
    ) -> Result<(), crate::error::Error> {
        crate::acting::allowed(&request.name, principal.profile, crate::auth::scope_for(&request.name))?;
        let has_agent = self
            .tools()
            .get(&request.name)
            .is_some_and(|tool| tool.input_schema.get("properties").and_then(|p| p.get("agent")).is_some());
        if !has_agent || !crate::acting::agent_names_actor(&request.name) {
            return Ok(());
        }
        let arguments = request.arguments.get_or_insert_default();
        let given = match arguments.get("agent") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(given)) => Some(given.as_str()),
            Some(other) => Some(other.as_str().unwrap_or("(not a string)")),
        };
        let agent = crate::acting::acting_agent(&principal.agent, given)?;
        arguments.insert("agent".into(), agent.into());
        Ok(())
    }

    /// Every tool exactly as listed on the wire (name, schemas, annotations), for `schemas/`.
    pub fn tool_list() -> Vec<Tool> {
        Self::tool_router().list_all()
    }
}

/// The principal the HTTP layer authenticated for this request (`server::http::identity`);
/// None over stdio and on an HTTP server without an auth mode.
fn principal_of(context: &RequestContext<RoleServer>) -> Option<&Principal> {
    context.extensions.get::<::http::request::Parts>()?.extensions.get::<Principal>()
}

#[tool_handler(router = self.tools())]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for FilewrightServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_prompts().build())
            .with_server_info(Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    /// Routes a tool call, after letting the first request of an MCP 2026-07-28 session choose
    /// the root. A tool that exists but is outside `--profile` gets a tool error that says so;
    /// a name filewright does not have stays a protocol error, as MCP asks.
    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.slot.on_request(&context).await;
        if !self.tools().has_route(&request.name) && Self::tool_router().has_route(&request.name) {
            let text = format!(
                "{} is not available: this server runs with --profile {}, which leaves it out. Use the \
                 tools it lists, or ask the user to start filewright with --profile full.",
                request.name, self.profile
            );
            return Ok(render::error_result(&text).into());
        }
        if let Some(principal) = principal_of(&context)
            && let Err(refused) = self.as_principal(principal, &mut request)
        {
            return Ok(render::error_result(&refused.to_string()).into());
        }
        self.tools().call(ToolCallContext::new(self, request, context)).await
    }

    /// The tools of `--profile`, and of an authenticated caller's own profile within it.
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = self.tools().list_all();
        let principal = principal_of(&context);
        if let Some(principal) = principal {
            tools.retain(|tool| principal.profile.allows(&tool.name));
        }
        let mut result = ListToolsResult::with_all_items(tools);
        // As rmcp's generated `list_tools` says on 2026-07-28; a list that depends on the
        // caller may be cached by that caller only.
        if context.protocol_version().is_some_and(|v| v >= rmcp::model::ProtocolVersion::V_2026_07_28) {
            result.ttl_ms = Some(0);
            result.cache_scope = Some(if principal.is_some() {
                rmcp::model::CacheScope::Private
            } else {
                rmcp::model::CacheScope::Public
            });
        }
        Ok(result)
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<rmcp::RoleServer>) {
        self.slot.on_initialized(&context.peer).await;
    }

    async fn on_roots_list_changed(&self, context: rmcp::service::NotificationContext<rmcp::RoleServer>) {
        self.slot.on_roots_changed(&context.peer).await;
    }
}
