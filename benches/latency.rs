//! End-to-end latency of tool calls over stdio: the release binary spawned and driven by
//! rmcp's client, as an MCP client would. Medians over repeated calls.
//!
//! Run: `cargo bench --bench latency`. Prints a Markdown table for BENCHMARKS.md.

use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 2 } else { 30 };
    let root = tempfile::tempdir()?;
    let state = tempfile::tempdir()?;
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_filewright")).configure(|c| {
        c.arg("--root").arg(root.path()).arg("--state-dir").arg(state.path()).env("FILEWRIGHT_LOG", "warn");
    });
    let spawn_started = Instant::now();
    let client = ().serve(TokioChildProcess::new(command)?).await?;
    let spawn = spawn_started.elapsed();

    let line = |i: usize| format!("def f_{i}(x):\n    return x * {i}\n\n");
    let base: String = (0..30_000).map(line).collect();
    let write_big = time(&client, "write_file", json!({"path": "big.py", "content": base})).await?;

    let mut small_write = Vec::new();
    let mut small_read = Vec::new();
    let mut append_big = Vec::new();
    for k in 0..runs {
        small_write.push(
            time(&client, "write_file", json!({"path": format!("s{k}.txt"), "content": "hello\n"})).await?,
        );
        small_read.push(time(&client, "read_file", json!({"path": "s0.txt"})).await?);
        let chunk: String = (0..120).map(|i| line(100_000 + k * 1000 + i)).collect();
        append_big.push(time(&client, "append_file", json!({"path": "big.py", "content": chunk})).await?);
    }
    client.cancel().await?;

    println!("| operation | median |");
    println!("|---|---|");
    println!("| spawn + initialize | {:.1} ms |", ms(spawn));
    println!("| write_file, 6 bytes (.txt) | {:.2} ms |", ms(median(small_write)));
    println!("| read_file, 6 bytes | {:.2} ms |", ms(median(small_read)));
    println!("| append_file, ~4 KB to a ~1.1 MB .py, incremental check | {:.1} ms |", ms(median(append_big)));
    println!(
        "| write_file, ~1.1 MB .py in one call (full check + stub scan) | {:.0} ms (1 run) |",
        ms(write_big)
    );
    Ok(())
}

async fn time(
    client: &RunningService<RoleClient, ()>,
    tool: &'static str,
    args: Value,
) -> anyhow::Result<Duration> {
    let Value::Object(map) = args else { anyhow::bail!("arguments must be an object") };
    let started = Instant::now();
    let result = client.call_tool(CallToolRequestParams::new(tool).with_arguments(map)).await?;
    let elapsed = started.elapsed();
    anyhow::ensure!(result.is_error != Some(true), "{tool} failed: {:?}", result.content);
    Ok(elapsed)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
