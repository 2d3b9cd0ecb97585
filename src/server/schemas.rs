//! The tools' JSON schemas, compiled in from `schemas/`.
//!
//! `schemas/` holds each tool as `tools/list` sends it, written by `filewright schemas DIR`
//! from the argument and outcome types ([`generated`]); a test keeps the files equal to what
//! the types generate. Taking the schemas from those files instead of generating them at
//! every start saves most of what a start computes: generating the 16 tools' schemas took
//! 1.6 ms of a 4 ms start (`cargo bench --bench peers`), parsing them takes a fraction.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use rmcp::handler::server::common::{schema_for_input, schema_for_output};
use rmcp::model::JsonObject;
use schemars::JsonSchema;

use super::tools;
use crate::session::{
    AppendOutcome, ArtifactsOutcome, CheckOutcome, ClaimsOutcome, DeleteOutcome, EditOutcome, FindOutcome,
    ListOutcome, MoveOutcome, OutlineOutcome, ReadOutcome, SearchOutcome, UndoOutcome, WriteOutcome,
};

/// Every tool once: its name, its argument type and its outcome type. From this one table come
/// both the files compiled in (`FILES`) and the schemas the types generate ([`generated`]).
macro_rules! tools {
    ($($name:ident: $args:ident => $outcome:ident,)*) => {
        /// Each tool's file in `schemas/`, by tool name.
        const FILES: &[(&str, &str)] =
            &[$((stringify!($name), include_str!(concat!("../../schemas/", stringify!($name), ".json")))),*];

        /// Each tool's input and output schema generated from its types: what `schemas/` must
        /// hold.
        pub fn generated() -> Vec<(&'static str, Arc<JsonObject>, Arc<JsonObject>)> {
            vec![$((stringify!($name), input_of::<tools::$args>(), schema_for_output::<$outcome>())),*]
        }
    };
}

tools! {
    write_file: WriteArgs => WriteOutcome,
    append_file: AppendArgs => AppendOutcome,
    read_file: ReadArgs => ReadOutcome,
    find_files: FindArgs => FindOutcome,
    search_files: SearchArgs => SearchOutcome,
    move_file: MoveArgs => MoveOutcome,
    delete_file: DeleteArgs => DeleteOutcome,
    undo: UndoArgs => UndoOutcome,
    outline: OutlineArgs => OutlineOutcome,
    check_files: CheckArgs => CheckOutcome,
    claim_files: ClaimArgs => ClaimsOutcome,
    release_files: ReleaseArgs => ClaimsOutcome,
    list_claims: NoArgs => ClaimsOutcome,
    list_artifacts: ArtifactsArgs => ArtifactsOutcome,
    edit_file: EditArgs => EditOutcome,
    list_directory: ListArgs => ListOutcome,
}

/// A tool's input and output schema.
type Pair = (Arc<JsonObject>, Arc<JsonObject>);

/// The input and output schema of each tool, parsed once from [`FILES`].
static SCHEMAS: LazyLock<HashMap<&'static str, Pair>> = LazyLock::new(|| {
    FILES
        .iter()
        .map(|(name, json)| {
            let mut tool: JsonObject = serde_json::from_str(json).expect("schemas/ holds a JSON object");
            let mut take = |key: &str| match tool.remove(key) {
                Some(serde_json::Value::Object(map)) => Arc::new(map),
                _ => panic!("schemas/{name}.json has no {key}"),
            };
            (*name, (take("inputSchema"), take("outputSchema")))
        })
        .collect()
});

/// Parses the schemas on a thread of its own once the `initialize` reply is out
/// ([`super::startup`]): `tools/list` comes next and needs them. The router, which needs
/// them, waits for this thread (or parses them itself if the thread has not begun).
pub fn parse_in_background() {
    super::startup::GATE.spawn("schemas", || LazyLock::force(&SCHEMAS).len());
}

/// The input schema of `tool`, as `schemas/` holds it.
pub fn input(tool: &str) -> Arc<JsonObject> {
    SCHEMAS.get(tool).map(|(input, _)| input.clone()).unwrap_or_else(|| panic!("no schemas/{tool}.json"))
}

/// The output schema of `tool`, as `schemas/` holds it.
pub fn output(tool: &str) -> Arc<JsonObject> {
    SCHEMAS.get(tool).map(|(_, output)| output.clone()).unwrap_or_else(|| panic!("no schemas/{tool}.json"))
}

fn input_of<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    schema_for_input::<T>()
        .unwrap_or_else(|e| panic!("invalid input schema for {}: {e}", std::any::type_name::<T>()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// When this fails, a type changed: regenerate with `cargo run -- schemas schemas/`.
    #[test]
    fn the_compiled_in_schemas_are_what_the_types_generate() {
        let generated = generated();
        let mut names: Vec<&str> = generated.iter().map(|(name, _, _)| *name).collect();
        names.sort_unstable();
        let mut routed: Vec<String> =
            crate::server::FilewrightServer::tool_list().into_iter().map(|t| t.name.to_string()).collect();
        routed.sort_unstable();
        assert_eq!(
            names, routed,
            "every tool the server routes has a row in the `tools!` table, and no other"
        );
        for (name, input_schema, output_schema) in generated {
            assert_eq!(
                input_schema,
                super::input(name),
                "{name}: input schema; run `cargo run -- schemas schemas/`"
            );
            assert_eq!(
                output_schema,
                super::output(name),
                "{name}: output schema; run `cargo run -- schemas schemas/`"
            );
        }
    }
}
