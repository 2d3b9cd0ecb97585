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

/// Each tool's file in `schemas/`, by tool name.
macro_rules! schema_files {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../schemas/", $name, ".json")))),*]
    };
}

const FILES: &[(&str, &str)] = schema_files!(
    "append_file",
    "check_files",
    "claim_files",
    "delete_file",
    "edit_file",
    "find_files",
    "list_artifacts",
    "list_claims",
    "list_directory",
    "move_file",
    "outline",
    "read_file",
    "release_files",
    "search_files",
    "undo",
    "write_file",
);

/// A tool's input and output schema.
type Pair = (Arc<JsonObject>, Arc<JsonObject>);

/// The input and output schema of each tool, parsed once from [`FILES`].
static SCHEMAS: LazyLock<HashMap<&'static str, Pair>> = LazyLock::new(|| {
    FILES
        .iter()
        .map(|(name, json)| {
            let tool: serde_json::Value = serde_json::from_str(json).expect("schemas/ holds JSON");
            let object = |key: &str| match &tool[key] {
                serde_json::Value::Object(map) => Arc::new(map.clone()),
                _ => panic!("schemas/{name}.json has no {key}"),
            };
            (*name, (object("inputSchema"), object("outputSchema")))
        })
        .collect()
});

/// The input schema of `tool`, as `schemas/` holds it.
pub fn input(tool: &str) -> Arc<JsonObject> {
    SCHEMAS.get(tool).map(|(input, _)| input.clone()).unwrap_or_else(|| panic!("no schemas/{tool}.json"))
}

/// The output schema of `tool`, as `schemas/` holds it.
pub fn output(tool: &str) -> Arc<JsonObject> {
    SCHEMAS.get(tool).map(|(_, output)| output.clone()).unwrap_or_else(|| panic!("no schemas/{tool}.json"))
}

/// Each tool's input and output schema generated from its types: what `schemas/` must hold.
pub fn generated() -> Vec<(&'static str, Arc<JsonObject>, Arc<JsonObject>)> {
    vec![
        ("write_file", input_of::<tools::WriteArgs>(), schema_for_output::<WriteOutcome>()),
        ("append_file", input_of::<tools::AppendArgs>(), schema_for_output::<AppendOutcome>()),
        ("read_file", input_of::<tools::ReadArgs>(), schema_for_output::<ReadOutcome>()),
        ("find_files", input_of::<tools::FindArgs>(), schema_for_output::<FindOutcome>()),
        ("search_files", input_of::<tools::SearchArgs>(), schema_for_output::<SearchOutcome>()),
        ("move_file", input_of::<tools::MoveArgs>(), schema_for_output::<MoveOutcome>()),
        ("delete_file", input_of::<tools::DeleteArgs>(), schema_for_output::<DeleteOutcome>()),
        ("undo", input_of::<tools::UndoArgs>(), schema_for_output::<UndoOutcome>()),
        ("outline", input_of::<tools::OutlineArgs>(), schema_for_output::<OutlineOutcome>()),
        ("check_files", input_of::<tools::CheckArgs>(), schema_for_output::<CheckOutcome>()),
        ("claim_files", input_of::<tools::ClaimArgs>(), schema_for_output::<ClaimsOutcome>()),
        ("release_files", input_of::<tools::ReleaseArgs>(), schema_for_output::<ClaimsOutcome>()),
        ("list_claims", input_of::<tools::NoArgs>(), schema_for_output::<ClaimsOutcome>()),
        ("list_artifacts", input_of::<tools::ArtifactsArgs>(), schema_for_output::<ArtifactsOutcome>()),
        ("edit_file", input_of::<tools::EditArgs>(), schema_for_output::<EditOutcome>()),
        ("list_directory", input_of::<tools::ListArgs>(), schema_for_output::<ListOutcome>()),
    ]
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
        let mut files: Vec<&str> = FILES.iter().map(|(name, _)| *name).collect();
        files.sort_unstable();
        assert_eq!(names, files, "a tool without a file in schemas/, or a file without a tool");
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
