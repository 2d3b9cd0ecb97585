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

use super::args;
use crate::session::{
    AppendOutcome, ArtifactsOutcome, CheckOutcome, ClaimsOutcome, CopyOutcome, DeleteOutcome, EditOutcome,
    FindOutcome, InfoOutcome, ListOutcome, MediaOutcome, MkdirOutcome, MoveOutcome, NotebookEditOutcome,
    OutlineOutcome, PatchOutcome, ReadManyOutcome, ReadOutcome, SearchOutcome, UndoOutcome, WriteOutcome,
};

/// Every tool once: its name, its argument type and its outcome type. From this one table come
/// both the files compiled in (`FILES`) and the schemas the types generate ([`generated`]).
macro_rules! tools {
    ($($name:ident: $args:ident => $outcome:ident,)*) => {
        /// Each tool's file in `schemas/`, by tool name, on one line (`build.rs` removes the
        /// whitespace between tokens).
        const FILES: &[(&str, &str)] = &[$((
            stringify!($name),
            include_str!(concat!(env!("OUT_DIR"), "/schemas/", stringify!($name), ".json")),
        )),*];

        /// Each tool's input and output schema generated from its types: what `schemas/` must
        /// hold.
        pub fn generated() -> Vec<(&'static str, Arc<JsonObject>, Arc<JsonObject>)> {
            vec![$((stringify!($name), input_of::<args::$args>(), schema_for_output::<$outcome>())),*]
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
    edit_notebook: EditNotebookArgs => NotebookEditOutcome,
    apply_patch: PatchArgs => PatchOutcome,
    list_directory: ListArgs => ListOutcome,
    read_multiple_files: ReadManyArgs => ReadManyOutcome,
    get_file_info: InfoArgs => InfoOutcome,
    create_directory: MkdirArgs => MkdirOutcome,
    copy_file: CopyArgs => CopyOutcome,
    read_media_file: MediaArgs => MediaOutcome,
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

/// Parses the schemas now, if no thread has yet. rmcp's tool router needs them (every
/// `tools/list` and tool call). The router waits for a parse under way (or
/// parses them itself if none has begun), so a start parses them ahead, on a thread that
/// has nothing more urgent to do: the one that opened `--root`, once the root is served,
/// or [`parse_in_background`].
pub fn parse() {
    LazyLock::force(&SCHEMAS);
}

/// [`parse`] on a thread of its own once the `initialize` reply is out
/// ([`super::startup`]), for a start without `--root` (no thread opens one at once).
pub fn parse_in_background() {
    super::startup::GATE.spawn("schemas", parse);
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

    /// `build.rs` compiles in each file of `schemas/` on one line, with the same value.
    #[test]
    fn each_compiled_in_schema_is_its_file_on_one_line() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
        for (name, compact) in FILES {
            assert!(!compact.contains('\n'), "{name}: one line");
            let file = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
            assert!(compact.len() < file.len(), "{name}: the whitespace between tokens is gone");
            let parsed: serde_json::Value = serde_json::from_str(compact).unwrap();
            assert_eq!(parsed, serde_json::from_str::<serde_json::Value>(&file).unwrap(), "{name}");
        }
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), FILES.len(), "one file per tool in schemas/");
    }

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
