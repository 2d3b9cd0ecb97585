//! The calls agents make thousands of times in a build (write, append, read and edit a file),
//! answered beside rmcp instead of through it.
//!
//! Through rmcp a call is decoded into its message types, routed, handed to a blocking thread
//! and encoded back, and its lines cross two in-memory pipes: for a 100-line read that was a
//! third of the server's time. Here the framing hands such a line to this lane, which runs
//! it with the same code as rmcp's tool methods ([`Call::run`]) and writes the reply through
//! the framing's writer. Calls on this lane run one at a time, in the order
//! they arrived (two appends sent back to back land in that order).
//!
//! Where a call runs: a line of at most [`INLINE_LINE`] bytes, when no earlier call is still
//! queued, it runs no `--after-write` command and the store is SQLite (PostgreSQL's client
//! blocks on a runtime of its own, which tokio forbids on the reading thread), runs at once on
//! the thread that read it.
//! Handing it to the lane's thread and the reply back cost two thread wake-ups, about 15 µs a
//! call on the 2-core test machine (BENCHMARKS.md); rmcp's lines wait for such a call
//! meanwhile, as they would behind any single-threaded server. A longer line (a large write
//! or append, whose call may take milliseconds) or a change the hook follows (up to its time
//! limit) goes to the lane's thread, and so does every call after it until the queue is empty
//! again, so that the order holds; rmcp keeps reading and answering everything else
//! meanwhile.
//!
//! A line is taken only when nothing about it needs rmcp: a `tools/call` of one of those
//! tools, on a session that has been initialized and whose root is open or being opened
//! from `--root`, with a plain id, arguments that parse, and no other field (`_meta`, which
//! carries progress tokens and the protocol version of sessions without `initialize`, goes
//! to rmcp). Any other line, or any doubt, is passed to rmcp unchanged, which answers it as
//! before. A call that comes while `--root` is being opened (the first read, right after
//! `tools/list`) waits for it on the lane's thread, as it would in rmcp.
//!
//! The lane also answers a session's `tools/list` (without a cursor or `_meta`, once the
//! client has said `notifications/initialized`), from the schema files as they are
//! ([`super::schemas::tools_list_result`]), made once: through rmcp the tools were copied
//! and encoded again at every `tools/list`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, OnceLock};

use rmcp::model::ProtocolVersion;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use super::tools::Call;
use super::{Profile, SessionSlot, render};
use crate::session::Session;

/// The longest request line whose call runs on the thread that read it, when nothing is
/// queued (see the module's docs): 64 KiB, the content of the parts agents write a large file
/// in, with room for escaping.
pub const INLINE_LINE: usize = 64 * 1024;

/// The lane: decides which lines it takes, and runs them or queues them for its thread.
pub struct Direct {
    slot: Arc<SessionSlot>,
    profile: Profile,
    /// Set when the client's `initialize` asked for a revision before MCP 2026-07-28, whose
    /// results this lane writes (rmcp writes both kinds). The lane then opens once rmcp has
    /// handled `notifications/initialized` ([`SessionSlot::initialized`]): a call before that
    /// is rmcp's to refuse, and the `initialize` reply is written before any of the lane's.
    legacy: AtomicBool,
    /// Set when the client's `notifications/initialized` has been read: from the next line
    /// on the lane may answer `tools/list` (rmcp may not have handled the notification yet,
    /// but it writes nothing for it).
    said_initialized: AtomicBool,
    /// The `result` of `tools/list` for this profile, made at the first.
    tools_list: OnceLock<Vec<u8>>,
    /// The queue of the lane's thread, started at the first call it is needed for (most
    /// sessions never need it); None when it could not start.
    calls: OnceLock<Option<Sender<Job>>>,
    /// Calls sent to the lane's thread and not yet answered: a call runs where it was read
    /// only when this is 0, or it could overtake them.
    queued: Arc<AtomicUsize>,
}

/// A call taken, with what its reply needs.
struct Job {
    id: Id,
    call: Call,
    /// The session; None while `--root` is still being opened (the lane's thread waits).
    session: Option<Arc<Session>>,
    slot: Arc<SessionSlot>,
    replies: UnboundedSender<Vec<u8>>,
}

/// A JSON-RPC request id as MCP allows it.
#[derive(Debug, Deserialize, Serialize)]
#[serde(untagged)]
enum Id {
    Number(i64),
    Text(String),
}

/// A request line, as this lane accepts it: nothing more than these fields.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    jsonrpc: String,
    id: Id,
    method: String,
    params: Params,
}

/// A `tools/list` request, as this lane accepts it: no cursor, no `_meta`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListRequest {
    jsonrpc: String,
    id: Id,
    method: String,
    /// Absent or `{}`: a cursor or `_meta` leaves the request to rmcp.
    #[serde(default, rename = "params")]
    _params: Option<NoParams>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    name: String,
    #[serde(default)]
    arguments: Option<serde_json::Map<String, Value>>,
}

impl Direct {
    /// The lane for the sessions of `slot` and the tools of `profile`. It takes calls only
    /// once the root is open; its thread starts with the first call that must be queued.
    pub fn new(slot: Arc<SessionSlot>, profile: Profile) -> Direct {
        Direct {
            slot,
            profile,
            legacy: AtomicBool::new(false),
            said_initialized: AtomicBool::new(false),
            tools_list: OnceLock::new(),
            calls: OnceLock::new(),
            queued: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Takes `line` when this lane answers it (its reply then goes to `replies`); false to
    /// pass it on to rmcp. A call taken may have run before this returns (see the module's
    /// docs).
    pub fn take(&self, line: &[u8], replies: &UnboundedSender<Vec<u8>>) -> bool {
        if !self.legacy.load(Ordering::Acquire) {
            self.watch_initialize(line);
            return false;
        }
        if !self.said_initialized.load(Ordering::Acquire) {
            self.watch_initialized(line);
            return false;
        }
        // A call whose arguments hold the text "tools/list" is still a call: it goes on below.
        if memchr::memmem::find(line, b"\"tools/list\"").is_some() && self.list_tools(line, replies) {
            return true;
        }
        if !self.slot.initialized() {
            return false;
        }
        if memchr::memmem::find(line, b"\"tools/call\"").is_none() {
            return false;
        }
        let Ok(request) = serde_json::from_slice::<Request>(line) else { return false };
        if request.jsonrpc != "2.0" || request.method != "tools/call" {
            return false;
        }
        let name = request.params.name;
        if self.profile.tools().is_some_and(|listed| !listed.contains(&name.as_str())) {
            return false;
        }
        // While `--root` opens (a call that came right after `tools/list`), the call waits for
        // it on the lane's thread, keeping its place; rmcp would wait for it too.
        let session = self.slot.ready();
        if session.is_none() && !self.slot.opening_root() {
            return false;
        }
        let arguments = Value::Object(request.params.arguments.unwrap_or_default());
        let Some(Ok(call)) = Call::parse(&name, arguments) else { return false };
        // A hook (`--after-write`) may run for seconds, and a PostgreSQL store's client may not
        // run on the reading thread at all: such calls keep off it.
        let inline = session.as_ref().is_some_and(|session| {
            session.runs_on_an_async_thread() && !(session.runs_a_hook() && call.writes())
        }) && line.len() <= INLINE_LINE;
        let job = Job { id: request.id, call, session, slot: self.slot.clone(), replies: replies.clone() };
        if inline && self.queued.load(Ordering::Acquire) == 0 {
            tracing::trace!(tool = %name, "answered beside rmcp");
            // This thread writes the reply too (`framing::write_replies`), and then runs what
            // the call put off.
            crate::background::put_off_until_replied();
            answer(job);
            return true;
        }
        let Some(calls) = self.calls.get_or_init(|| self.start_thread()) else { return false };
        tracing::trace!(tool = %name, "answered beside rmcp");
        self.queued.fetch_add(1, Ordering::AcqRel);
        // A send fails only when the thread has died (the job comes back): rmcp answers instead.
        if calls.send(job).is_ok() {
            return true;
        }
        self.queued.fetch_sub(1, Ordering::AcqRel);
        false
    }

    /// Starts the lane's thread, which answers the calls queued for it in order; None when it
    /// cannot start (rmcp then answers those calls).
    fn start_thread(&self) -> Option<Sender<Job>> {
        let (calls, jobs) = channel::<Job>();
        let queued = self.queued.clone();
        let started = std::thread::Builder::new().name("calls".into()).spawn(move || {
            for job in jobs {
                answer(job);
                queued.fetch_sub(1, Ordering::AcqRel);
            }
        });
        match started {
            Ok(_) => Some(calls),
            Err(e) => {
                tracing::error!("cannot start the thread for calls: {e}");
                None
            }
        }
    }

    /// Answers `line` when it is a `tools/list` this lane takes.
    fn list_tools(&self, line: &[u8], replies: &UnboundedSender<Vec<u8>>) -> bool {
        let Ok(request) = serde_json::from_slice::<ListRequest>(line) else { return false };
        if request.jsonrpc != "2.0" || request.method != "tools/list" {
            return false;
        }
        let Ok(id) = serde_json::to_vec(&request.id) else { return false };
        let result = self.tools_list.get_or_init(|| super::schemas::tools_list_result(self.profile.tools()));
        let mut reply = Vec::with_capacity(result.len() + id.len() + 40);
        reply.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        reply.extend_from_slice(&id);
        reply.extend_from_slice(b",\"result\":");
        reply.extend_from_slice(result);
        reply.extend_from_slice(b"}\n");
        tracing::trace!("tools/list listed beside rmcp");
        replies.send(reply).is_ok()
    }

    /// Notes whether `line` is the client's `notifications/initialized`.
    fn watch_initialized(&self, line: &[u8]) {
        #[derive(Deserialize)]
        struct Message {
            method: String,
        }
        if memchr::memmem::find(line, b"\"notifications/initialized\"").is_none() {
            return;
        }
        if serde_json::from_slice::<Message>(line).is_ok_and(|m| m.method == "notifications/initialized") {
            self.said_initialized.store(true, Ordering::Release);
        }
    }

    /// Notes whether `line`, when it is the client's `initialize`, asks for a revision
    /// before MCP 2026-07-28; a later one (no `initialize`, results with `resultType`) stays
    /// with rmcp.
    fn watch_initialize(&self, line: &[u8]) {
        #[derive(Deserialize)]
        struct Message {
            method: String,
            #[serde(default)]
            params: Option<Value>,
        }
        if memchr::memmem::find(line, b"\"initialize\"").is_none() {
            return;
        }
        let Ok(message) = serde_json::from_slice::<Message>(line) else { return };
        if message.method == "initialize" {
            let asked =
                message.params.as_ref().and_then(|p| p.get("protocolVersion")).and_then(Value::as_str);
            let legacy = asked.is_some_and(|v| v < ProtocolVersion::V_2026_07_28.as_str());
            self.legacy.store(legacy, Ordering::Release);
        }
    }
}

/// Runs one call and sends its reply line. A panic inside the call becomes the same tool
/// error rmcp's path gives for one.
fn answer(job: Job) {
    let Job { id, call, session, slot, replies } = job;
    let mut result = match session.map_or_else(|| slot.wait_blocking(), Ok) {
        Ok(session) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call.run(&session)))
            .unwrap_or_else(|_| render::task_failed(&"the call panicked")),
        Err(no_root) => render::error_result(&no_root.to_string()),
    };
    // As rmcp writes results for the revisions before 2026-07-28: without `resultType`.
    result.result_type.take_if(|kind| kind.is_complete());
    let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result});
    let mut line = match serde_json::to_vec(&reply) {
        Ok(line) => line,
        Err(e) => {
            let failed = render::error_result(&format!("internal error: could not encode the result ({e})"));
            serde_json::to_vec(&serde_json::json!({"jsonrpc": "2.0", "id": id, "result": failed}))
                .unwrap_or_default()
        }
    };
    line.push(b'\n');
    let _ = replies.send(line);
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::session::Settings;

    fn line(message: Value) -> Vec<u8> {
        let mut line = serde_json::to_vec(&message).unwrap();
        line.push(b'\n');
        line
    }

    /// The first call often comes right after `tools/list`, while `--root` is still opening:
    /// the lane takes it, and answers it once the root is open.
    #[test]
    fn a_call_while_the_root_opens_is_answered_once_it_is_open() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a.txt"), "hello from a\n").unwrap();
        let settings = Settings::for_tests(&tmp.path().join("state"));
        let slot = Arc::new(SessionSlot::opening(settings.clone()));
        slot.set_initialized_for_tests();
        let direct = Direct::new(slot.clone(), Profile::Full);
        let (replies, mut answered) = tokio::sync::mpsc::unbounded_channel();
        let initialize = line(serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
        assert!(!direct.take(&initialize, &replies), "initialize is rmcp's");
        let initialized = line(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert!(!direct.take(&initialized, &replies));
        let read = line(serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": "a.txt"}}}));
        assert!(direct.take(&read, &replies), "a call while --root opens is the lane's");
        std::thread::sleep(Duration::from_millis(50));
        assert!(answered.try_recv().is_err(), "answered before the root was open");
        slot.serve(Session::open(tmp.path(), &settings).unwrap());
        let deadline = Instant::now() + Duration::from_secs(10);
        let reply = loop {
            match answered.try_recv() {
                Ok(reply) => break String::from_utf8(reply).unwrap(),
                Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => panic!("no answer once the root was open: {e}"),
            }
        };
        assert!(reply.starts_with("{\"id\":7,"), "{reply}");
        assert!(reply.contains("hello from a"), "{reply}");
    }
}
