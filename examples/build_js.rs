//! Builds a ~600-line JavaScript file through filewright the way an agent should: `write_file`
//! with the first part, `append_file` for each next part (each under ~8,000 characters, with
//! `expected_size`), then `read_file` with a negative offset to see how the file ends, and
//! `check_files` as the final check. Every result is printed, including its syntax check.
//!
//! Run: `cargo run --example build_js`. It spawns the server binary built beside it (or
//! FILEWRIGHT_BIN), else builds it with `cargo run --bin filewright` and says so. The file is
//! built in a temporary root, or in the directory given as the first argument.

use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt, service::RunningService};
use serde_json::{Value, json};

const CHUNK_CHARS: usize = 7_000;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let keep = std::env::args().nth(1).map(std::path::PathBuf::from);
    let tmp = tempfile::tempdir()?;
    let root = keep.unwrap_or_else(|| tmp.path().to_path_buf());
    std::fs::create_dir_all(&root)?;

    // `cargo run --example` builds the example into target/<profile>/examples/: the server's
    // binary, when built, sits one directory up.
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("filewright")))
        .filter(|bin| bin.is_file());
    let command = match std::env::var_os("FILEWRIGHT_BIN").map(std::path::PathBuf::from).or(beside) {
        Some(bin) => tokio::process::Command::new(bin),
        None => tokio::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .configure(|c| {
                eprintln!("building the filewright server first (a minute or two on a fresh checkout)...");
                c.args([
                    "run",
                    "--quiet",
                    "--manifest-path",
                    concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
                ]);
                c.args(["--bin", "filewright", "--"]);
            }),
    }
    .configure(|c| {
        c.arg("--root").arg(&root).arg("--agent").arg("example");
    });
    let client = ().serve(TokioChildProcess::new(command)?).await?;

    let source = generate_app(600);
    let chunks = split_at_lines(&source, CHUNK_CHARS);
    println!(
        "building app.js: {} lines, {} chars, in {} calls\n",
        source.lines().count(),
        source.len(),
        chunks.len()
    );

    let mut size = 0u64;
    for (i, chunk) in chunks.iter().enumerate() {
        let reply = if i == 0 {
            call(&client, "write_file", json!({"path": "web/app.js", "content": chunk})).await?
        } else {
            call(
                &client,
                "append_file",
                json!({"path": "web/app.js", "content": chunk, "expected_size": size}),
            )
            .await?
        };
        println!("--- call {} ({} chars)\n{}\n", i + 1, chunk.len(), reply.0);
        anyhow::ensure!(!reply.1, "the server refused a chunk");
        size = reply.2["size"].as_u64().unwrap_or(size);
    }
    let (text, _, _) = call(&client, "read_file", json!({"path": "web/app.js", "offset": -5})).await?;
    println!("--- read_file offset -5\n{text}\n");
    let (text, _, report) = call(&client, "check_files", json!({"paths": ["web/app.js"]})).await?;
    println!("--- check_files (the strict check before saying done)\n{text}\n");
    anyhow::ensure!(report["all_complete"] == true, "the final check did not pass");

    let on_disk = std::fs::read_to_string(root.join("web/app.js"))?;
    anyhow::ensure!(on_disk == source, "the file on disk differs from what was sent");
    println!(
        "web/app.js on disk equals the concatenation of the {} parts ({} bytes).",
        chunks.len(),
        on_disk.len()
    );
    client.cancel().await?;
    Ok(())
}

/// Calls a tool and returns (text, is_error, structured content).
async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &'static str,
    args: Value,
) -> anyhow::Result<(String, bool, Value)> {
    let Value::Object(map) = args else { anyhow::bail!("arguments must be an object") };
    let result = client.call_tool(CallToolRequestParams::new(tool).with_arguments(map)).await?;
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    Ok((text, result.is_error == Some(true), result.structured_content.unwrap_or(Value::Null)))
}

/// Splits at line boundaries into parts of at most `max` characters.
fn split_at_lines(text: &str, max: usize) -> Vec<String> {
    let mut parts = vec![String::new()];
    for line in text.split_inclusive('\n') {
        if parts.last().is_some_and(|p| !p.is_empty() && p.len() + line.len() > max) {
            parts.push(String::new());
        }
        if let Some(last) = parts.last_mut() {
            last.push_str(line);
        }
    }
    parts
}

/// A plausible single-page-app script of about `lines` lines: a store, components and handlers.
fn generate_app(lines: usize) -> String {
    let mut out = String::from(
        "'use strict';\n\n/** A small task board, generated to exercise chunked writes. */\nconst state = { tasks: [], filter: 'all' };\n\n",
    );
    let mut n = 0;
    while out.lines().count() + 14 < lines {
        n += 1;
        out.push_str(&format!(
            "/** Renders section {n} of the board. */\n\
             function renderSection{n}(root, tasks) {{\n\
             \x20 const list = document.createElement('ul');\n\
             \x20 for (const task of tasks.filter((t) => t.section === {n})) {{\n\
             \x20   const item = document.createElement('li');\n\
             \x20   item.textContent = `${{task.title}} (${{task.done ? 'done' : 'open'}})`;\n\
             \x20   item.addEventListener('click', () => toggle(task.id));\n\
             \x20   list.appendChild(item);\n\
             \x20 }}\n\
             \x20 root.appendChild(list);\n\
             \x20 return list.children.length;\n\
             }}\n\n"
        ));
    }
    out.push_str("function toggle(id) {\n  const task = state.tasks.find((t) => t.id === id);\n  if (task) {\n    task.done = !task.done;\n  }\n}\n\n");
    out.push_str(&format!("export const SECTIONS = {n};\n"));
    out
}
