//! The `filewright` binary: parse the command line, set up logging on stderr (stdout carries the
//! protocol), open the root and serve MCP over stdio; or write the tool schemas to a directory.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use filewright::server::{FilewrightServer, Profile, SessionSlot, framing, http, startup};
use filewright::session::{Session, Settings};
use rmcp::ServiceExt;

/// The log filter without `FILEWRIGHT_LOG`: our own info, but rmcp's only from warnings up (at
/// info it dumps the client's whole initialize request).
const DEFAULT_LOG: &str = "info,rmcp=warn";

/// An MCP server (stdio, or Streamable HTTP with --http) with file tools built for writing large files in pieces.
#[derive(Debug, Parser)]
#[command(
    version,
    about,
    long_about = None,
    after_help = "It speaks MCP on stdin/stdout and waits for a client: start it from an MCP client's \
configuration, not by hand. Without --root it serves the client's first root, else the current \
directory; / and the home directory are refused unless named with --root. With --http it serves \
Streamable HTTP instead, for many clients at once. Logs go to stderr; FILEWRIGHT_LOG sets their filter (default: info,rmcp=warn), e.g. FILEWRIGHT_LOG=debug."
)]
struct Cli {
    /// The sandbox root: every path is relative to it and nothing outside can be reached.
    /// Without it: the client's first root (MCP roots), else the current directory.
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// The name of the writer, shown in results.
    #[arg(long, value_name = "NAME", env = "FILEWRIGHT_AGENT", default_value = "default")]
    agent: String,
    /// The largest file the server will hold in memory, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 16 * 1024 * 1024)]
    max_file_bytes: u64,
    /// Where claims and the journal are kept (SQLite). Default: the platform's state
    /// directory, keyed by the root, so every process on the same root shares it.
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Where claims, the journal and undo versions are kept: `sqlite` (the default, a
    /// database in --state-dir for the processes of one machine) or postgres://USER@HOST/DB, a
    /// PostgreSQL shared by processes on several hosts over one workspace.
    #[arg(
        long,
        value_name = "URL",
        env = "FILEWRIGHT_STORE",
        default_value = "sqlite",
        hide_env_values = true
    )]
    store: filewright::store::StoreUrl,
    /// The root's name in a shared --store: every host serving this workspace must give the
    /// same one. Default: the root's canonical path, which is enough when every host mounts
    /// the workspace at the same path.
    #[arg(long, value_name = "NAME", env = "FILEWRIGHT_ROOT_ID")]
    root_id: Option<String>,
    /// PEM certificates to trust, besides the system's, for a --store URL with
    /// sslmode=require (a private certificate authority).
    #[arg(long, value_name = "FILE", env = "FILEWRIGHT_STORE_CA")]
    store_ca: Option<PathBuf>,
    /// Which tools to list: full (all), coding (write/append/edit/move/delete/undo/read/outline/
    /// find/list/check) or readonly (read/outline/find/list/check).
    #[arg(long, value_name = "PROFILE", default_value = "full")]
    profile: Profile,
    /// Claims expire this many seconds after their owner's last write (default: never).
    #[arg(long, value_name = "SECONDS")]
    claim_ttl: Option<u64>,
    /// A command run after each successful write, append or edit, with the root-relative
    /// path as its last argument and the root as working directory (e.g. "prettier --write").
    #[arg(long, value_name = "CMD")]
    after_write: Option<String>,
    /// Seconds the --after-write command may run before it is killed.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    hook_timeout: u64,
    /// Bytes of old file versions kept per root for `undo`; the oldest are dropped first.
    #[arg(long, value_name = "BYTES", default_value_t = filewright::store::DEFAULT_HISTORY_BYTES)]
    history_bytes: u64,
    /// Sync every change to disk, with its directory, before reporting it, so that it survives
    /// a power loss. Without it a change survives any kill (it is atomic) but the last seconds
    /// of changes may be lost in a power loss.
    #[arg(long)]
    durable: bool,
    #[command(flatten)]
    http: HttpArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

/// Serving MCP over Streamable HTTP instead of stdio.
#[derive(Debug, clap::Args)]
struct HttpArgs {
    /// Serve MCP over Streamable HTTP at http://ADDR:PORT/mcp instead of stdio, e.g.
    /// 127.0.0.1:8080, or a port alone for loopback (port 0: a free port; the URL is printed
    /// on stderr). The root is --root, else the current directory. A non-loopback address
    /// needs --token-file or --oauth-issuer.
    #[arg(long, value_name = "ADDR:PORT", value_parser = http_address)]
    http: Option<std::net::SocketAddr>,
    /// HTTP: bearer tokens, one per line as `TOKEN AGENT [PROFILE]`; each caller is recorded
    /// as its AGENT. Re-read when it changes, so a line removed revokes its token.
    #[arg(long, value_name = "FILE", requires = "http")]
    token_file: Option<PathBuf>,
    /// HTTP: accept OAuth 2.1 access tokens (JWT) from this authorization server.
    #[arg(long, value_name = "URL", requires_all = ["http", "oauth_audience"], conflicts_with = "token_file")]
    oauth_issuer: Option<String>,
    /// HTTP: this server's URL as tokens must name it in `aud` (RFC 8707), e.g.
    /// https://files.example.com/mcp.
    #[arg(long, value_name = "URL", requires = "oauth_issuer")]
    oauth_audience: Option<String>,
    /// HTTP: the access-token claim that names the agent.
    #[arg(long, value_name = "NAME", default_value = "sub", requires = "oauth_issuer")]
    oauth_agent_claim: String,
    /// HTTP: a public host name to answer besides the loopback ones (the Host header is
    /// checked against DNS rebinding); repeat for several.
    #[arg(long, value_name = "NAME[:PORT]", requires = "http")]
    allowed_host: Vec<String>,
    /// HTTP: a browser origin allowed to call besides the loopback ones, e.g.
    /// https://app.example.com; repeat for several.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    allowed_origin: Vec<String>,
    /// HTTP: requests in flight at once per caller; more get 429 with Retry-After.
    #[arg(long, value_name = "N", default_value_t = 16, requires = "http")]
    max_concurrent: usize,
    /// HTTP: serve HTTPS with this PEM certificate chain (with --tls-key).
    #[arg(long, value_name = "FILE", requires_all = ["http", "tls_key"])]
    tls_cert: Option<PathBuf>,
    /// HTTP: the PEM private key of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write one JSON file per tool (name, description, inputSchema, outputSchema, annotations),
    /// exactly as sent on the wire, into DIR.
    Schemas {
        /// Output directory (created if missing).
        dir: PathBuf,
    },
}

fn main() -> std::process::ExitCode {
    // Before anything that asks (see `filewright::platform`).
    let portable = filewright::platform::asks_for_portable(
        std::env::var_os(filewright::platform::PORTABLE_ENV).as_deref(),
    );
    if portable {
        filewright::platform::use_portable_paths();
    }
    tune_malloc();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("FILEWRIGHT_LOG")
                .unwrap_or_else(|_| DEFAULT_LOG.into()),
        )
        .init();
    if portable {
        tracing::info!(
            "{}: the Linux-only calls are off, the portable paths on",
            filewright::platform::PORTABLE_ENV
        );
    }
    let cli = Cli::parse();
    let outcome = match cli.command {
        Some(Command::Schemas { ref dir }) => write_schemas(dir),
        None if cli.http.http.is_some() => serve_http(cli),
        None => serve(cli),
    };
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("filewright: error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Bounds glibc's malloc to two arenas. By default every thread that allocates under
/// contention gets its own arena (up to eight per core), and memory freed in one is not reused
/// by another: with calls on many blocking threads, trees dropped by the check cache stayed
/// resident, and RSS reached 102 MB after 500 files of 100 KB written 20 at a time, against
/// 33 MB with two arenas (`cargo bench --bench memory`, BENCHMARKS.md).
///
/// And fixes its thresholds: blocks of 4 MB and more (the parse of a large file) are mapped
/// and given back when freed, and the heap is trimmed once 32 MB at its top are free. By
/// default glibc raises the first to the size of each mapped block freed, so a finish check's
/// later large parses came from the heap and fragmented it: the peak of three checks of
/// 100 MB of crates was 80 MB or 105 MB from one run to the next, and is 77 to 81 MB so. A
/// threshold of 1 MB cost search a fifth more CPU (each file over it read was mapped and
/// unmapped again); at 4 MB, with the trim threshold raised to match, search's CPU is within
/// its noise. `MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_` and `MALLOC_TRIM_THRESHOLD_`, when
/// set, still decide.
fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if filewright::platform::linux_calls() {
        let unset = |name: &str| std::env::var_os(name).is_none();
        // SAFETY: mallopt only sets an allocator tunable; it is called before any other
        // thread exists, and its failure (a zero return) leaves the default in place.
        unsafe {
            if unset("MALLOC_ARENA_MAX") {
                libc::mallopt(libc::M_ARENA_MAX, 2);
            }
            // Both set together: fixing one stops glibc moving the other.
            if unset("MALLOC_MMAP_THRESHOLD_") && unset("MALLOC_TRIM_THRESHOLD_") {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
                libc::mallopt(libc::M_TRIM_THRESHOLD, 32 << 20);
            }
        }
    }
}

/// The session settings the command line gives.
fn settings(cli: &Cli) -> Settings {
    Settings {
        agent: cli.agent.clone(),
        max_file_bytes: cli.max_file_bytes,
        state_dir: cli.state_dir.clone(),
        claim_ttl: cli.claim_ttl.map(Duration::from_secs),
        store: cli.store.clone(),
        root_id: cli.root_id.clone(),
        store_ca: cli.store_ca.clone(),
        after_write: cli.after_write.clone(),
        hook_timeout: Duration::from_secs(cli.hook_timeout),
        history_bytes: cli.history_bytes,
        durable: cli.durable,
    }
}

/// `--http`'s value: an IP address and port, `localhost:PORT`, or a port alone, which binds
/// loopback (the safe default: only this machine can connect).
fn http_address(text: &str) -> Result<std::net::SocketAddr, String> {
    let loopback =
        |port: &str| port.parse::<u16>().ok().map(|p| std::net::SocketAddr::from(([127, 0, 0, 1], p)));
    if let Some(addr) = loopback(text).or_else(|| text.strip_prefix("localhost:").and_then(loopback)) {
        return Ok(addr);
    }
    text.parse()
        .map_err(|_| format!("{text:?} is not ADDR:PORT: write e.g. 127.0.0.1:8080, [::1]:8080 or 8080"))
}

/// Serves MCP over HTTP (`--http`): the root opens before the port does (many clients share
/// it, and none offers roots over HTTP), so a root that cannot be served stops the start.
fn serve_http(cli: Cli) -> anyhow::Result<()> {
    let settings = settings(&cli);
    let root = match &cli.root {
        Some(root) => root.clone(),
        None => {
            let cwd = std::env::current_dir().context("cannot read the current directory; pass --root")?;
            filewright::server::refuse_too_broad(&cwd).map_err(anyhow::Error::msg)?;
            cwd
        }
    };
    // Nothing waits for a first reply over HTTP.
    startup::GATE.proceed();
    // Before the runtime starts: a PostgreSQL store runs a runtime of its own to open.
    let session =
        Session::open(&root, &settings).with_context(|| format!("cannot serve {}", root.display()))?;
    let slot = Arc::new(SessionSlot::opening(settings));
    slot.serve(session);
    let args = cli.http;
    let identity = identity(&args, cli.profile)?.with_tls(args.tls_cert.is_some());
    let config = http::Config {
        addr: args.http.context("--http is required")?,
        allowed_hosts: args.allowed_host,
        allowed_origins: args.allowed_origin,
        max_concurrent: args.max_concurrent,
        body_limit: framing::line_limit(cli.max_file_bytes),
        tls: args.tls_cert.zip(args.tls_key),
        identity,
    };
    // One thread for the protocol, as over stdio: tool calls run on blocking threads, and what
    // is left (HTTP, JSON, rmcp's routing between tasks) was mostly wake-ups between workers.
    // A 6-byte read_file went from 2.2-3.1x stdio's p50 to 2.1-2.3x, three runs each
    // (`cargo bench --bench http_load -- --sessions 1 --appends 2 --racers 1`).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let outcome = runtime.block_on(http::serve(config, FilewrightServer::new(slot, cli.profile)));
    runtime.shutdown_timeout(Duration::from_secs(5));
    outcome
}

/// Who may call over HTTP: `--token-file`, `--oauth-issuer`, or anyone (loopback only).
fn identity(args: &HttpArgs, profile: Profile) -> anyhow::Result<http::identity::Identity> {
    use filewright::auth::{Authenticator, oauth, tokens};
    if let Some(path) = &args.token_file {
        let tokens = tokens::TokenFile::open(path, profile).map_err(anyhow::Error::msg)?;
        return Ok(http::identity::Identity::new(Authenticator::Tokens(tokens), None, None));
    }
    if let Some(issuer) = &args.oauth_issuer {
        let audience = args.oauth_audience.clone().context("--oauth-issuer needs --oauth-audience URL")?;
        // The issuer as written: tokens' `iss` must match it exactly, trailing slash and all.
        let verifier =
            oauth::Verifier::new(issuer, audience.clone(), args.oauth_agent_claim.clone(), profile)
                .map_err(|e| anyhow::anyhow!("--oauth-issuer: {e}"))?;
        return Ok(http::identity::Identity::new(
            Authenticator::OAuth(verifier),
            Some(audience),
            Some(issuer.clone()),
        ));
    }
    Ok(http::identity::Identity::default())
}

fn serve(cli: Cli) -> anyhow::Result<()> {
    let limit_bytes = cli.max_file_bytes;
    let settings = settings(&cli);
    let mut opening = None;
    let slot = match cli.root {
        // Named explicitly: served as given, even `/` or the home directory.
        Some(root) => {
            let slot = Arc::new(SessionSlot::opening(settings.clone()));
            opening = Some(open_in_background(root, settings, slot.clone()));
            slot
        }
        None => {
            let cwd = std::env::current_dir().context("cannot read the current directory; pass --root")?;
            tracing::info!(fallback = %cwd.display(), "no --root: the client's roots decide, else the current directory");
            filewright::server::schemas::parse_in_background();
            Arc::new(SessionSlot::from_client(settings, cwd))
        }
    };
    // One thread for the protocol: tool calls run on blocking threads anyway (file I/O,
    // parsing, SQLite), and reading, decoding and answering on one thread saves the wake-ups
    // between workers that were most of a small call's time (read 100 lines: 0.22 -> 0.14 ms
    // p50, `cargo bench --bench peers`).
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let outcome = runtime.block_on(async {
        // stdin and stdout as non-blocking pipes on the IO reactor when they are FIFOs (as MCP
        // clients start servers), else the blocking handles.
        widen_stdout_pipe();
        let (stdin, stdout) = rmcp::transport::io::stdio_pipes();
        // The threads put off until the first reply start after this long all the same.
        tokio::spawn(async {
            tokio::time::sleep(startup::AT_MOST).await;
            startup::GATE.proceed();
        });
        let framed = framing::guard(stdin, stdout, framing::line_limit(limit_bytes));
        // The framing enforces the line limit and answers what rmcp would drop.
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(framed.input, framed.output)
            .with_max_line_length(usize::MAX);
        let service = FilewrightServer::new(slot, cli.profile)
            .serve(transport)
            .await
            .context("MCP initialization failed")?;
        let stopped = service.waiting().await;
        // rmcp has closed its output: let the last replies reach stdout before exiting.
        let _ = tokio::time::timeout(Duration::from_secs(5), framed.flushed).await;
        stopped.context("MCP service stopped with an error")?;
        anyhow::Ok(())
    });
    // The stdin reader runs on a blocking thread that a client holding stdin open would keep
    // alive; do not wait for it when stopping.
    runtime.shutdown_background();
    // A client that left at once must still learn that the root could not be opened: the
    // opening thread exits the process with the error.
    if let Some(opening) = opening {
        opening.join();
    }
    outcome
}

/// Lets stdout, when it is a pipe, hold 1 MiB instead of Linux's default 64 KiB. The
/// `tools/list` reply of the full profile is 81 KB: with the default, writing it waited for
/// the client to read the first 64 KiB, on the 2-core test machine while the root was being
/// opened beside it. Only an unread reply takes the space; when stdout is no pipe, or the
/// system's limit (`/proc/sys/fs/pipe-max-size`) is lower, it stays as it is.
fn widen_stdout_pipe() {
    #[cfg(target_os = "linux")]
    if filewright::platform::linux_calls()
        && let Err(e) = rustix::pipe::fcntl_setpipe_size(std::io::stdout(), 1 << 20)
    {
        tracing::debug!("stdout keeps its buffer size: {e}");
    }
}

/// Opens `--root` once the `initialize` reply is out (or a call needs it first; see
/// `server::startup`): `initialize` does not need it, and calls wait for it. The root and the
/// session open on the thread that writes that reply (the main thread, in about 0.06 ms): the
/// first call comes right after `tools/list`, and waiting for a new thread to be scheduled took
/// longer than the work. The rest goes to a thread of its own: the schemas rmcp's router needs
/// (about 0.6 ms), at the normal priority since the client's `tools/list` waits for them; then
/// the database (about 0.3 ms; a read does not wait for it) at the lowest, so that it leaves
/// the client a core as it reads the `tools/list` reply and sends its first call; on a machine
/// whose cores are all busy, a write in the first moments waits longer for the database. A root or database
/// that cannot be opened still stops the process with the error and a failure status, as it
/// did before the protocol started; a client sees the server exit.
///
/// A PostgreSQL store opens before the session serves, over the network: all of that runs on
/// the thread of its own, so that the protocol goes on meanwhile (and its client's own runtime
/// never starts inside ours).
fn open_in_background(
    root: PathBuf,
    settings: Settings,
    slot: Arc<SessionSlot>,
) -> startup::Deferred<'static, ()> {
    if matches!(settings.store, filewright::store::StoreUrl::Postgres(_)) {
        return startup::GATE.spawn("open-root", move || match Session::open(&root, &settings) {
            Ok(session) => {
                slot.serve(session);
                filewright::server::schemas::parse();
            }
            Err(e) => fail_to_open(&e),
        });
    }
    let open = move || match Session::open_database_later(&root, &settings) {
        Ok((session, database)) => {
            slot.serve(session);
            database
        }
        Err(e) => fail_to_open(&e),
    };
    startup::GATE.run_then_spawn("open-database", open, |database| {
        // First and at the normal priority: the client's `tools/list`, right after the
        // `initialize` reply, waits for them (see `schemas::parse`). At the lowest priority,
        // on a busy machine, that wait took several milliseconds.
        filewright::server::schemas::parse();
        filewright::background::lower_priority();
        // Calls that need the database wait for it meanwhile.
        if let Some(Err(e)) = database.map(|database| database.finish()) {
            fail_to_open(&e);
        }
    })
}

/// Stops the process: the root given cannot be served.
fn fail_to_open(e: &anyhow::Error) -> ! {
    eprintln!("filewright: error: {e:#}");
    std::process::exit(1);
}

fn write_schemas(dir: &std::path::Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // The tools as listed, with the schemas their types generate (the server itself takes them
    // from the files written here).
    let generated = filewright::server::schemas::generated();
    for mut tool in FilewrightServer::tool_list() {
        let (_, input, output) = generated
            .iter()
            .find(|(name, _, _)| *name == tool.name)
            .with_context(|| format!("no generated schema for {}", tool.name))?;
        tool.input_schema = input.clone();
        tool.output_schema = Some(output.clone());
        let path = dir.join(format!("{}.json", tool.name));
        let json = serde_json::to_string_pretty(&tool)? + "\n";
        std::fs::write(&path, json).with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
