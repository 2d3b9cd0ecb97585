//! Many agents on one server over Streamable HTTP, on loopback: the release binary started with
//! `--http` and a token file, driven by rmcp's HTTP client.
//!
//! - `SESSIONS` sessions (default 50), each its own principal, append `APPENDS` chunks (default
//!   200) to a file of its own, all at once;
//! - meanwhile `RACERS` sessions (default 10), each its own principal, append to the same few
//!   files: the first to write a file claims it, so every other append must be a clean refusal
//!   (an `isError` result that names the owner), never a transport error and never a torn or
//!   duplicated chunk;
//! - then the bytes are checked: every own file holds exactly its chunks in order; every shared
//!   file holds exactly the chunks whose appends succeeded, each once;
//! - last, the median of a small call (read_file of a 6-byte file) over HTTP and over stdio,
//!   one after the other in the same run.
//!
//! Run: `cargo bench --bench http_load` (`-- --sessions N --appends N --racers N --small-calls N`). Without
//! `--bench` (as `cargo test --benches` runs it) it makes a small run. Prints a Markdown table
//! for BENCHMARKS.md and fails when a byte is lost, torn or duplicated.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

/// Files the racers fight over.
const SHARED_FILES: usize = 3;

type Client = RunningService<RoleClient, ()>;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let full = std::env::args().any(|a| a == "--bench");
    let arg = |name: &str, full_value: usize, quick: usize| -> usize {
        let args: Vec<String> = std::env::args().collect();
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(if full { full_value } else { quick })
    };
    let sessions = arg("--sessions", 50, 4);
    let appends = arg("--appends", 200, 5);
    let racers = arg("--racers", 10, 3);
    let small_calls = arg("--small-calls", 300, 300);

    let root = tempfile::tempdir()?;
    let state = tempfile::tempdir()?;
    let token_dir = tempfile::tempdir()?;
    let token_file = token_dir.path().join("tokens");
    let token = |who: &str| format!("bench-token-{who}-0123456789abcdef");
    let principals: Vec<String> = (0..sessions)
        .map(|i| format!("writer-{i:02}"))
        .chain((0..racers).map(|i| format!("racer-{i:02}")))
        .chain(["prober".to_string()])
        .collect();
    let lines: String = principals.iter().map(|p| format!("{} {p} full\n", token(p))).collect();
    std::fs::write(&token_file, lines)?;
    #[cfg(unix)]
    std::fs::set_permissions(&token_file, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
    std::fs::create_dir_all(root.path().join("own"))?;
    std::fs::create_dir_all(root.path().join("shared"))?;

    let mut server = HttpServer::start(root.path(), state.path(), &token_file)?;
    let url = server.url.clone();
    let connect = |who: &str| {
        let config = StreamableHttpClientTransportConfig::with_uri(url.clone()).auth_header(token(who));
        ().serve(StreamableHttpClientTransport::from_config(config))
    };

    // The writers and the racers, all at once.
    let started = Instant::now();
    let mut writers = Vec::new();
    for i in 0..sessions {
        let client = connect(&format!("writer-{i:02}")).await?;
        writers.push(tokio::spawn(write_own(client, i, appends)));
    }
    let mut race = Vec::new();
    for r in 0..racers {
        let client = connect(&format!("racer-{r:02}")).await?;
        race.push(tokio::spawn(race_shared(client, r, appends)));
    }
    let mut append_times = Vec::new();
    for writer in writers {
        append_times.extend(writer.await??);
    }
    let mut landed: Vec<Vec<String>> = vec![Vec::new(); SHARED_FILES];
    let mut refusals = 0;
    let mut race_calls = 0;
    for racer in race {
        let outcome = racer.await??;
        race_calls += outcome.calls;
        refusals += outcome.refused;
        for (file, chunk) in outcome.landed {
            landed[file].push(chunk);
        }
    }
    let load_time = started.elapsed();

    // Every byte exactly once.
    for i in 0..sessions {
        let got = std::fs::read_to_string(root.path().join(format!("own/{i:02}.txt")))?;
        let want: String = (0..appends).map(|k| chunk(&format!("writer-{i:02}"), k)).collect();
        ensure!(got == want, "own/{i:02}.txt does not hold exactly its {appends} chunks in order");
    }
    for (file, chunks) in landed.iter().enumerate() {
        let path = root.path().join(format!("shared/{file}.txt"));
        let got = std::fs::read_to_string(&path).unwrap_or_default();
        let mut have: Vec<&str> = got.split_inclusive('\n').collect();
        let mut want: Vec<&str> = chunks.iter().map(String::as_str).collect();
        have.sort_unstable();
        want.sort_unstable();
        ensure!(have == want, "shared/{file}.txt does not hold exactly the chunks whose appends succeeded");
    }

    // A small call, over HTTP and then over stdio.
    let prober = connect("prober").await?;
    call(&prober, "write_file", json!({"path": "small.txt", "content": "hello\n"})).await?;
    let http_p50 = median_small_call(&prober, small_calls).await?;
    prober.cancel().await?;
    server.stop();
    let stdio = stdio_client(root.path(), state.path()).await?;
    let stdio_p50 = median_small_call(&stdio, small_calls).await?;
    stdio.cancel().await?;

    append_times.sort();
    let pct = |p: f64| append_times[((append_times.len() - 1) as f64 * p) as usize];
    println!("| {sessions} sessions × {appends} appends, {racers} racing for {SHARED_FILES} files | |");
    println!("|---|---|");
    println!("| wall time | {:.1} s |", load_time.as_secs_f64());
    println!(
        "| appends to own files | {} landed exactly once; p50 {:.1} ms, p95 {:.1} ms |",
        append_times.len(),
        ms(pct(0.5)),
        ms(pct(0.95))
    );
    println!(
        "| racing appends | {race_calls}: {} landed once each, {refusals} cleanly refused |",
        race_calls - refusals
    );
    println!(
        "| read_file, 6 bytes, p50 | HTTP {:.2} ms, stdio {:.2} ms: {:.1}x |",
        ms(http_p50),
        ms(stdio_p50),
        http_p50.as_secs_f64() / stdio_p50.as_secs_f64()
    );
    Ok(())
}

/// The `k`th chunk an agent appends: about 200 bytes, naming its author and place.
fn chunk(who: &str, k: usize) -> String {
    format!("{who} chunk {k:04} {}\n", "x".repeat(170))
}

/// One writer: its first chunk by write_file, the rest by append_file; the time of each call.
async fn write_own(client: Client, i: usize, appends: usize) -> anyhow::Result<Vec<Duration>> {
    let who = format!("writer-{i:02}");
    let path = format!("own/{i:02}.txt");
    let mut times = Vec::with_capacity(appends);
    for k in 0..appends {
        let tool = if k == 0 { "write_file" } else { "append_file" };
        let started = Instant::now();
        let result = call(&client, tool, json!({"path": path, "content": chunk(&who, k)})).await?;
        times.push(started.elapsed());
        ensure!(!result.0, "{who}: {tool} #{k} failed: {}", result.1);
    }
    client.cancel().await?;
    Ok(times)
}

struct Race {
    calls: usize,
    refused: usize,
    /// (shared file, chunk) for every append that succeeded.
    landed: Vec<(usize, String)>,
}

/// One racer: appends to the shared files in turn; a refusal must say who owns the file.
async fn race_shared(client: Client, r: usize, appends: usize) -> anyhow::Result<Race> {
    let who = format!("racer-{r:02}");
    let mut race = Race { calls: 0, refused: 0, landed: Vec::new() };
    for k in 0..appends {
        let file = (k + r) % SHARED_FILES;
        let text = chunk(&who, k);
        let (is_error, message) =
            call(&client, "append_file", json!({"path": format!("shared/{file}.txt"), "content": text}))
                .await?;
        race.calls += 1;
        if is_error {
            ensure!(message.contains("racer-"), "{who}: a refusal that names no owner: {message}");
            race.refused += 1;
        } else {
            race.landed.push((file, text));
        }
    }
    client.cancel().await?;
    Ok(race)
}

/// Calls `tool`; (isError, text). A transport or protocol failure is an error of the bench.
async fn call(client: &Client, tool: &'static str, args: Value) -> anyhow::Result<(bool, String)> {
    let Value::Object(map) = args else { bail!("arguments must be an object") };
    let result = client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(map))
        .await
        .with_context(|| format!("{tool}: the call itself failed"))?;
    let text = result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
    Ok((result.is_error == Some(true), text))
}

async fn median_small_call(client: &Client, calls: usize) -> anyhow::Result<Duration> {
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let started = Instant::now();
        let (is_error, text) = call(client, "read_file", json!({"path": "small.txt"})).await?;
        times.push(started.elapsed());
        ensure!(!is_error, "read_file failed: {text}");
    }
    times.sort();
    Ok(times[times.len() / 2])
}

async fn stdio_client(root: &Path, state: &Path) -> anyhow::Result<Client> {
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_filewright")).configure(|c| {
        c.arg("--root").arg(root).arg("--state-dir").arg(state).env("FILEWRIGHT_LOG", "warn");
    });
    Ok(().serve(TokioChildProcess::new(command)?).await?)
}

/// The server under load, stopped when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    /// Starts `filewright --http 127.0.0.1:0` and reads the URL it prints on stderr.
    fn start(root: &Path, state: &Path, tokens: &Path) -> anyhow::Result<HttpServer> {
        let mut child = Command::new(env!("CARGO_BIN_EXE_filewright"))
            .arg("--http")
            .arg("127.0.0.1:0")
            .arg("--root")
            .arg(root)
            .arg("--state-dir")
            .arg(state)
            .arg("--token-file")
            .arg(tokens)
            .env("FILEWRIGHT_LOG", "warn")
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        let stderr = child.stderr.take().context("no stderr")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("http://")
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send(line[at..].split_whitespace().next().unwrap_or_default().to_string());
                }
                if tx.is_some() {
                    eprintln!("{line}");
                }
            }
        });
        let url = rx.recv_timeout(Duration::from_secs(30)).context("the server printed no URL")?;
        Ok(HttpServer { child, url })
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
