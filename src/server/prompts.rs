//! MCP prompts: ready-made instructions a client can offer its user, built on the tools.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{PromptMessage, Role};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, prompt, prompt_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::FilewrightServer;
use super::render::Rendered;
use crate::error::ADVISED_CHUNK_CHARS;

/// Arguments of `build_large_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BuildArgs {
    /// The file to build, relative to the root (for example "web/app.js").
    pub path: String,
    /// What the file must contain.
    pub description: String,
}

// The prompt macros generate undocumented `*_prompt_attr` helpers next to each prompt.
#[allow(missing_docs)]
#[prompt_router(vis = "pub(crate)")]
impl FilewrightServer {
    /// How to build one large file in parts with filewright's tools, checked at every step.
    #[prompt(name = "build_large_file")]
    async fn build_large_file(&self, Parameters(args): Parameters<BuildArgs>) -> Vec<PromptMessage> {
        let text = format!(
            "Create `{path}`: {description}\n\n\
             Your output per tool call is limited, so build the file in parts of at most \
             ~{ADVISED_CHUNK_CHARS} characters each:\n\
             1. Plan the file's sections first. read_multiple_files reads the files it must fit with in \
             one call, read_media_file shows a mockup or screenshot you were given, and get_file_info \
             tells whether \"{path}\" already exists (its size and lines) without reading it.\n\
             2. Call write_file with path \"{path}\" and the FIRST part only.\n\
             3. Call append_file with each next part, in order, passing expected_size = the `size` of \
             the previous result. Split between top-level definitions where you can.\n\
             4. After every call read the syntax line: \"incomplete so far\" is expected until the last \
             part; an error before the end means the file is broken: fix it with edit_file before going on.\n\
             5. If a call fails or you lose track, read_file with offset -20 to see where the file ends, \
             and continue from exactly there; never start over with write_file.\n\
             6. When the last part is written, call check_files with paths [\"{path}\"] and fix anything \
             it reports. Never leave placeholders like \"... rest of the code\".",
            path = args.path,
            description = args.description,
        );
        vec![PromptMessage::new_text(Role::User, text)]
    }

    /// Lists what check_files flags and asks to finish those files without rewriting what is
    /// already complete.
    #[prompt(name = "finish_incomplete_files")]
    async fn finish_incomplete_files(&self, context: RequestContext<RoleServer>) -> Vec<PromptMessage> {
        self.slot.on_request(&context).await;
        let report = match self.slot.wait().await {
            Ok(session) => match tokio::task::spawn_blocking(move || {
                session.check_files(None, &mut |_| std::ops::ControlFlow::Continue(()))
            })
            .await
            {
                Ok(Ok(outcome)) => outcome.text(),
                Ok(Err(e)) => format!("(check_files failed: {e})"),
                Err(e) => format!("(check_files stopped: {e})"),
            },
            Err(no_root) => format!("({no_root})"),
        };
        let text = format!(
            "check_files reports:\n\n{report}\n\n\
             Finish every file above that is not complete. Do NOT rewrite files or parts that are \
             already complete. For each file: read_file with offset -40 to see where it stops, then add \
             what is missing with append_file (at most ~{ADVISED_CHUNK_CHARS} characters per call, \
             expected_size = its current size), or fix a broken spot with edit_file. Replace any \
             placeholder or stub with the real code, and make each unresolved reference name what \
             exists (fix the path, name or id where it is used, or write what it names). Finally run \
             check_files again until every file is complete."
        );
        vec![PromptMessage::new_text(Role::User, text)]
    }
}
