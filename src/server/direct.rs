//! The calls agents make thousands of times in a build (write, append, read and edit a file),
//! answered beside rmcp instead of through it.
//!
//! Through rmcp a call is decoded into its message types, routed, handed to a blocking thread
//! and encoded back, and its lines cross two in-memory pipes: for a 100-line read that was a
//! third of the server's time. Here the framing hands such a line to one thread of our own,
//! which runs it with the same code as rmcp's tool methods ([`Call::run`]) and writes the
//! reply through the framing's writer. Calls on this lane run one at a time, in the order
//! they arrived (two appends sent back to back land in that order).
//!
//! Where a call runs: a line of at most [`INLINE_LINE`] bytes, when no earlier call is still
//! queued, runs at once on the thread that read it. Handing it to the lane's thread and the
//! reply back cost two thread wake-ups, about 15 µs a call on the 2-core test machine
//! (BENCHMARKS.md); rmcp's lines wait for such a call meanwhile, as they would behind any
//! single-threaded server. A longer line (a large write or append, whose call may take
//! milliseconds) goes to the lane's thread, and so does every call after it until the
//! queue is empty again, so that the order holds; rmcp keeps reading and answering
//! everything else meanwhile.
//!
//! A line is taken only when nothing about it needs rmcp: a `tools/call` of one of those
//! tools, on a session that has been initialized and whose root is open, with a plain id,
//! arguments that parse, and no other field (`_meta`, which carries progress tokens and the
//! protocol version of sessions without `initialize`, goes to rmcp). Any other line, or any
//! doubt, is passed to rmcp unchanged, which answers it as before.
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
    calls: Sender<Job>,
    /// Calls sent to the lane's thread and not yet answered: a call runs where it was read
    /// only when this is 0, or it could overtake them.
    queued: Arc<AtomicUsize>,
}

/// A call taken, with what its reply needs.
struct Job {
    id: Id,
    call: Call,
    session: Arc<Session>,
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
    /// The lane for the sessions of `slot` and the tools of `profile`. Its thread starts once
    /// the first reply is out ([`super::startup`]): it takes calls only once the root is
    /// open, which waits for that too. When the thread cannot start, its queue is dropped with
    /// it and every call goes to rmcp.
    pub fn start(slot: Arc<SessionSlot>, profile: Profile) -> Direct {
        let (calls, jobs) = channel::<Job>();
        let queued = Arc::new(AtomicUsize::new(0));
        let answered = queued.clone();
        super::startup::GATE.spawn("calls", move || {
            for job in jobs {
                answer(job);
                answered.fetch_sub(1, Ordering::AcqRel);
            }
        });
        Direct {
            slot,
            profile,
            legacy: AtomicBool::new(false),
            said_initialized: AtomicBool::new(false),
            tools_list: OnceLock::new(),
            calls,
            queued,
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
        let Some(session) = self.slot.ready() else { return false };
        let arguments = Value::Object(request.params.arguments.unwrap_or_default());
        let Some(Ok(call)) = Call::parse(&name, arguments) else { return false };
        tracing::trace!(tool = %name, "answered beside rmcp");
        let job = Job { id: request.id, call, session, replies: replies.clone() };
        if line.len() <= INLINE_LINE && self.queued.load(Ordering::Acquire) == 0 {
            answer(job);
            return true;
        }
        self.queued.fetch_add(1, Ordering::AcqRel);
        // A send fails only when the thread has died (the job comes back): rmcp answers instead.
        if self.calls.send(job).is_ok() {
            return true;
        }
        self.queued.fetch_sub(1, Ordering::AcqRel);
        false
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
    let Job { id, call, session, replies } = job;
    let mut result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call.run(&session)))
        .unwrap_or_else(|_| render::task_failed(&"the call panicked"));
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
