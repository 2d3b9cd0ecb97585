//! The stdio framing in front of rmcp's transport: every request line gets an answer.
//!
//! rmcp's stdio reader drops a line over its length limit, and ignores a line that is not
//! valid JSON, without replying; a client then waits for ever. Three cases reach us that way:
//! a request over the limit (a whole file in one call), a string with a lone UTF-16 surrogate
//! (a client that cut a string in the middle of an emoji), and `arguments` that are not an
//! object. This layer reads each line first and answers those itself, with the request's id
//! (or `"id": null` when none can be read), and passes every other line through unchanged. It
//! also writes every outgoing line, so an error reply rmcp makes without an id gets
//! `"id": null`, as JSON-RPC asks.
//!
//! The limit follows `--max-file-bytes`, with room for JSON escaping, so that any file the
//! server accepts also fits in one request. A line over it is never held in memory: it is
//! scanned as it streams by, for its id.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// JSON-RPC "Invalid Request": used for a request over the line limit.
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC "Invalid params": used for a lone surrogate and for non-object `arguments`.
const INVALID_PARAMS: i64 = -32602;

/// The longest request line accepted for a server whose files may hold `max_file_bytes`:
/// room for the worst JSON escaping of content (`\u001f` is six bytes for one), plus 1 MiB
/// for everything around it, and never less than rmcp's own 16 MiB.
pub fn line_limit(max_file_bytes: u64) -> usize {
    let escaped = max_file_bytes.saturating_mul(6).saturating_add(1 << 20);
    usize::try_from(escaped).unwrap_or(usize::MAX).max(rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH)
}

/// The ends of the framing that rmcp's transport reads and writes, and the task that writes
/// to the real output.
pub struct Guarded {
    /// What rmcp reads: the request lines that passed.
    pub input: DuplexStream,
    /// What rmcp writes: its messages, forwarded to the real output.
    pub output: DuplexStream,
    /// Ends once rmcp's output is closed and every reply has been written; await it before
    /// the process exits, or the last replies may be lost.
    pub flushed: tokio::task::JoinHandle<()>,
}

/// Wraps `input` and `output` (stdin and stdout) for rmcp. Two tasks do the work: the reader
/// ends with the input, the writer once rmcp closes its output.
pub fn guard<R, W>(input: R, output: W, limit: usize) -> Guarded
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    const PIPE: usize = 1 << 16;
    let (to_rmcp, rmcp_reads) = tokio::io::duplex(PIPE);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(PIPE);
    let (replies, own_replies) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        if let Err(e) = read_requests(input, to_rmcp, replies, limit).await {
            tracing::error!("reading requests stopped: {e}");
        }
    });
    let flushed = tokio::spawn(async move {
        if let Err(e) = write_replies(from_rmcp, own_replies, output).await {
            tracing::error!("writing replies stopped: {e}");
        }
    });
    Guarded { input: rmcp_reads, output: rmcp_writes, flushed }
}

/// Reads request lines; passes the good ones to rmcp and answers the others.
async fn read_requests<R: AsyncRead + Unpin>(
    input: R,
    mut to_rmcp: DuplexStream,
    replies: mpsc::UnboundedSender<Vec<u8>>,
    limit: usize,
) -> std::io::Result<()> {
    let mut input = BufReader::with_capacity(1 << 16, input);
    let mut line: Vec<u8> = Vec::new();
    // Set once the line is over the limit: from then on it is only scanned, never kept.
    let mut oversized: Option<(Scan, usize)> = None;
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            break;
        }
        let (piece, ends) = match memchr::memchr(b'\n', buffer) {
            Some(i) => (&buffer[..=i], true),
            None => (buffer, false),
        };
        let taken = piece.len();
        match &mut oversized {
            Some((scan, total)) => {
                scan.feed(piece);
                *total += taken;
            }
            None if line.len() + taken > limit + 1 => {
                let mut scan = Scan::default();
                scan.feed(&line);
                scan.feed(piece);
                oversized = Some((scan, line.len() + taken));
                line = Vec::new();
            }
            None => line.extend_from_slice(piece),
        }
        input.consume(taken);
        if !ends {
            continue;
        }
        if let Some((scan, total)) = oversized.take() {
            let message = format!(
                "this request is {total} bytes, over the server's limit of {limit} bytes for one message; \
                 it was not read. Send large files in parts: write_file with the first part (at most ~8,000 \
                 characters), then append_file with each next part."
            );
            send(&replies, scan.id(), INVALID_REQUEST, &message);
            continue;
        }
        match judge(&line) {
            Verdict::Pass => to_rmcp.write_all(&line).await?,
            Verdict::Skip => {}
            Verdict::Answer { id, code, message } => send(&replies, id, code, &message),
        }
        line.clear();
    }
    to_rmcp.shutdown().await
}

/// What to do with one complete line (or, over HTTP, one request body).
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Hand it to rmcp.
    Pass,
    /// Nothing to do (a blank line).
    Skip,
    /// Answer it here with an error.
    #[allow(missing_docs)] // The reply's JSON-RPC id, error code and message.
    Answer { id: Value, code: i64, message: String },
}

/// Judges one message: a lone surrogate or non-object `arguments` get an answer; the HTTP
/// transport makes the same checks on each body ([`super::http`]).
pub fn judge(line: &[u8]) -> Verdict {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let body = body.strip_suffix(b"\r").unwrap_or(body);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    // Both checks need the scan; most lines need neither.
    let escapes = memchr::memmem::find(body, b"\\u").is_some();
    let call = memchr::memmem::find(body, b"tools/call").is_some();
    if !escapes && !call {
        return Verdict::Pass;
    }
    let mut scan = Scan::default();
    scan.feed(body);
    if let Some(at) = scan.lone_surrogate {
        return Verdict::Answer {
            id: scan.id(),
            code: INVALID_PARAMS,
            message: format!(
                "a string in this request holds a lone UTF-16 surrogate escape (near byte {at}): a character was \
                 cut in half, so nothing was done. Send the text again with whole characters."
            ),
        };
    }
    if scan.method.as_deref() == Some("tools/call")
        && let Some(kind) = scan.arguments.filter(|&k| k != b'{')
    {
        let what = match kind {
            b'[' => "an array",
            b'"' => "a string",
            b'n' => "null",
            b't' | b'f' => "a boolean",
            _ => "a number",
        };
        return Verdict::Answer {
            id: scan.id(),
            code: INVALID_PARAMS,
            message: format!(
                "`arguments` must be an object of the tool's parameters, such as {{\"path\": \"a.txt\"}}; this \
                 request sent {what}."
            ),
        };
    }
    Verdict::Pass
}

fn send(replies: &mpsc::UnboundedSender<Vec<u8>>, id: Value, code: i64, message: &str) {
    tracing::warn!(%id, "answered a request rmcp could not: {message}");
    let reply = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut bytes = serde_json::to_vec(&reply).unwrap_or_default();
    bytes.push(b'\n');
    let _ = replies.send(bytes);
}

/// Writes rmcp's lines and our own replies to `output`, a whole line at a time.
async fn write_replies<W: AsyncWrite + Unpin>(
    from_rmcp: DuplexStream,
    mut own: mpsc::UnboundedReceiver<Vec<u8>>,
    mut output: W,
) -> std::io::Result<()> {
    let mut from_rmcp = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    // Until the first line is out: see `write_line`.
    let mut first = true;
    // False once the reader has ended: rmcp's last lines still come.
    let mut own_open = true;
    loop {
        tokio::select! {
            // rmcp's lines first when both are ready.
            biased;
            // Cancel-safe: a line read in part stays in `line`, and the next call goes on.
            read = from_rmcp.read_until(b'\n', &mut line) => {
                if read? == 0 {
                    // rmcp is done: write our replies and stop.
                    while let Some(bytes) = own.recv().await {
                        output.write_all(&bytes).await?;
                    }
                    output.flush().await?;
                    return Ok(());
                }
                with_null_id(&mut line);
                write_line(&mut output, &line, &mut first).await?;
                line.clear();
            }
            reply = own.recv(), if own_open => {
                if let Some(bytes) = reply {
                    write_line(&mut output, &bytes, &mut first).await?;
                } else {
                    own_open = false;
                }
            }
        }
    }
}

/// Writes one whole line and flushes it. The first line out (the `initialize` reply) lets
/// the work a start put off go on ([`super::startup`]).
async fn write_line<W: AsyncWrite + Unpin>(
    output: &mut W,
    bytes: &[u8],
    first: &mut bool,
) -> std::io::Result<()> {
    output.write_all(bytes).await?;
    output.flush().await?;
    if std::mem::take(first) {
        super::startup::GATE.proceed();
    }
    Ok(())
}

/// An error reply without an id (rmcp's answer to a request it could not match) gets
/// `"id": null`, which JSON-RPC requires.
fn with_null_id(line: &mut Vec<u8>) {
    if memchr::memmem::find(line, b"\"error\"").is_none() || line.len() > 4096 {
        return;
    }
    let Ok(Value::Object(mut reply)) = serde_json::from_slice::<Value>(line) else { return };
    if reply.contains_key("error") && !reply.contains_key("id") && !reply.contains_key("method") {
        reply.insert("id".into(), Value::Null);
        if let Ok(mut bytes) = serde_json::to_vec(&reply) {
            bytes.push(b'\n');
            *line = bytes;
        }
    }
}

/// A streaming look at one JSON-RPC message: its top-level `id` and `method`, the first byte
/// of `params.arguments`, and the first lone UTF-16 surrogate escape in any string. Fed in
/// pieces, it never holds the message; malformed input yields what was seen, never a panic.
#[derive(Debug, Default, Clone)]
pub struct Scan {
    /// Bytes fed so far.
    offset: usize,
    /// Open objects (true) and arrays (false).
    stack: Vec<Frame>,
    string: Option<StringState>,
    /// The raw bytes of the top-level `id` value, while and after it is read.
    id_raw: Option<Vec<u8>>,
    /// Reading the `id` value now (a number or literal ends at a delimiter).
    in_id: bool,
    /// The top-level `method`, when it is a plain string.
    pub method: Option<String>,
    /// The first byte of `params.arguments`' value.
    pub arguments: Option<u8>,
    /// Byte offset of the first lone surrogate escape.
    pub lone_surrogate: Option<usize>,
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    object: bool,
    /// In an object: the next string is a key.
    expect_key: bool,
    /// The key whose value comes next (in an object).
    key: Key,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Key {
    Other,
    Id,
    Method,
    Params,
    Arguments,
}

#[derive(Debug, Clone, Default)]
struct StringState {
    /// This string is an object key.
    is_key: bool,
    /// Its bytes, kept only for keys and `method` (short).
    text: Option<Vec<u8>>,
    escape: Escape,
    /// The last escape was a high surrogate: a low one must follow at once.
    high_pending: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
enum Escape {
    #[default]
    None,
    Backslash,
    Unicode {
        digits: u8,
        value: u16,
    },
}

/// Keys and method names longer than this are not ours: not kept.
const MAX_KEPT: usize = 64;

impl Scan {
    /// Looks at the next bytes of the message.
    pub fn feed(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            if self.string.is_some() {
                i += self.feed_string(&bytes[i..]);
                continue;
            }
            let b = bytes[i];
            if self.in_id {
                if matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace() {
                    self.in_id = false;
                } else {
                    self.keep_id(&[b]);
                    self.offset += 1;
                    i += 1;
                    continue;
                }
            }
            match b {
                b'"' => {
                    let is_key = self.stack.last().is_some_and(|f| f.object && f.expect_key);
                    let keep = is_key || (self.depth() == 1 && self.current_key() == Key::Method);
                    if self.depth() == 1 && self.current_key() == Key::Id && !is_key {
                        self.id_raw = Some(vec![b'"']);
                    }
                    self.string =
                        Some(StringState { is_key, text: keep.then(Vec::new), ..Default::default() });
                }
                b'{' | b'[' => {
                    self.note_value_start(b);
                    self.stack.push(Frame { object: b == b'{', expect_key: b == b'{', key: Key::Other });
                }
                b'}' | b']' => {
                    self.stack.pop();
                }
                b',' => {
                    if let Some(frame) = self.stack.last_mut()
                        && frame.object
                    {
                        frame.expect_key = true;
                        frame.key = Key::Other;
                    }
                }
                b':' => {}
                b if b.is_ascii_whitespace() => {}
                _ => {
                    self.note_value_start(b);
                    if self.depth() == 1 && self.current_key() == Key::Id && self.id_raw.is_none() {
                        self.id_raw = Some(vec![b]);
                        self.in_id = true;
                    }
                }
            }
            self.offset += 1;
            i += 1;
        }
    }

    /// The request's id as JSON: a number or string when one was read whole, else null.
    pub fn id(&self) -> Value {
        let Some(raw) = &self.id_raw else { return Value::Null };
        match serde_json::from_slice::<Value>(raw) {
            Ok(id @ (Value::Number(_) | Value::String(_))) => id,
            _ => Value::Null,
        }
    }

    fn depth(&self) -> usize {
        self.stack.len()
    }

    fn current_key(&self) -> Key {
        self.stack.last().map_or(Key::Other, |f| f.key)
    }

    /// A value starts with `b` where the innermost frame expects one.
    fn note_value_start(&mut self, b: u8) {
        if self.depth() == 2 && self.current_key() == Key::Arguments && self.arguments.is_none() {
            let in_params = self.stack.first().is_some_and(|f| f.key == Key::Params);
            if in_params {
                self.arguments = Some(b);
            }
        }
    }

    fn keep_id(&mut self, bytes: &[u8]) {
        if let Some(raw) = &mut self.id_raw
            && raw.len() + bytes.len() <= 1024
        {
            raw.extend_from_slice(bytes);
        }
    }

    /// Feeds bytes inside a string; returns how many were used.
    fn feed_string(&mut self, bytes: &[u8]) -> usize {
        let reading_id = self.depth() == 1
            && self.current_key() == Key::Id
            && self.id_raw.as_ref().is_some_and(|r| r.first() == Some(&b'"') && r.len() < 1024);
        let mut used = 0;
        while used < bytes.len() {
            let state = self.string.as_mut().expect("in a string");
            // Fast path: plain bytes up to the next quote or backslash.
            if state.escape == Escape::None && !state.high_pending {
                let run = memchr::memchr2(b'"', b'\\', &bytes[used..]).unwrap_or(bytes.len() - used);
                if run > 0 {
                    let plain = &bytes[used..used + run];
                    if let Some(text) = &mut state.text
                        && text.len() + plain.len() <= MAX_KEPT
                    {
                        text.extend_from_slice(plain);
                    }
                    if reading_id {
                        self.keep_id(plain);
                    }
                    used += run;
                    self.offset += run;
                    continue;
                }
            }
            let b = bytes[used];
            used += 1;
            self.offset += 1;
            if reading_id {
                self.keep_id(&[b]);
            }
            let state = self.string.as_mut().expect("in a string");
            match state.escape {
                Escape::None => {
                    if state.high_pending && b != b'\\' {
                        self.lone_surrogate.get_or_insert(self.offset - 1);
                        state.high_pending = false;
                    }
                    match b {
                        b'"' => {
                            self.end_string();
                            return used;
                        }
                        b'\\' => state.escape = Escape::Backslash,
                        _ => {
                            if let Some(text) = &mut state.text
                                && text.len() < MAX_KEPT
                            {
                                text.push(b);
                            }
                        }
                    }
                }
                Escape::Backslash => {
                    if b == b'u' {
                        state.escape = Escape::Unicode { digits: 0, value: 0 };
                    } else {
                        if state.high_pending {
                            self.lone_surrogate.get_or_insert(self.offset - 2);
                            state.high_pending = false;
                        }
                        state.escape = Escape::None;
                    }
                }
                Escape::Unicode { digits, value } => {
                    let Some(digit) = (b as char).to_digit(16) else {
                        state.escape = Escape::None;
                        continue;
                    };
                    let value = value << 4 | digit as u16;
                    if digits < 3 {
                        state.escape = Escape::Unicode { digits: digits + 1, value };
                        continue;
                    }
                    state.escape = Escape::None;
                    let at = self.offset.saturating_sub(6);
                    match value {
                        0xD800..=0xDBFF => {
                            if state.high_pending {
                                self.lone_surrogate.get_or_insert(at);
                            }
                            state.high_pending = true;
                        }
                        0xDC00..=0xDFFF => {
                            if !state.high_pending {
                                self.lone_surrogate.get_or_insert(at);
                            }
                            state.high_pending = false;
                        }
                        _ => {
                            if state.high_pending {
                                self.lone_surrogate.get_or_insert(at);
                            }
                            state.high_pending = false;
                        }
                    }
                }
            }
        }
        used
    }

    fn end_string(&mut self) {
        let state = self.string.take().expect("in a string");
        if state.high_pending {
            self.lone_surrogate.get_or_insert(self.offset.saturating_sub(1));
        }
        let depth = self.depth();
        let Some(frame) = self.stack.last_mut() else { return };
        if state.is_key {
            frame.expect_key = false;
            frame.key = match (depth, state.text.as_deref()) {
                (1, Some(b"id")) => Key::Id,
                (1, Some(b"method")) => Key::Method,
                (1, Some(b"params")) => Key::Params,
                (2, Some(b"arguments")) => Key::Arguments,
                _ => Key::Other,
            };
        } else if depth == 1 && frame.key == Key::Method {
            self.method = state.text.and_then(|t| String::from_utf8(t).ok());
        } else if depth == 2 && frame.key == Key::Arguments && self.arguments.is_none() {
            // A string value of `arguments` starts with its quote.
            if self.stack.first().is_some_and(|f| f.key == Key::Params) {
                self.arguments = Some(b'"');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn scan(bytes: &[u8]) -> Scan {
        let mut scan = Scan::default();
        scan.feed(bytes);
        scan
    }

    #[test]
    fn the_id_method_and_arguments_are_read_wherever_they_stand() {
        let s = scan(br#"{"params":{"name":"x","arguments":[1],"id":5},"method":"tools/call","id":"a\"b"}"#);
        assert_eq!(s.id(), json!("a\"b"));
        assert_eq!(s.method.as_deref(), Some("tools/call"));
        assert_eq!(s.arguments, Some(b'['));
        assert_eq!(scan(br#"{"id": 12 , "method":"x"}"#).id(), json!(12));
        assert_eq!(scan(br#"{"id":null}"#).id(), Value::Null);
        assert_eq!(scan(b"[[[[").id(), Value::Null);
        // `arguments` elsewhere than in params is not the tool's.
        assert_eq!(scan(br#"{"arguments":"x","params":{"arguments":{"a":1}}}"#).arguments, Some(b'{'));
        assert_eq!(scan(br#"{"params":{"arguments":"s"}}"#).arguments, Some(b'"'));
    }

    #[test]
    fn lone_surrogates_are_found_and_pairs_and_escaped_backslashes_are_not() {
        assert!(scan(br#"{"a":"x\ud83d"}"#).lone_surrogate.is_some());
        assert!(scan(br#"{"a":"\ude00x"}"#).lone_surrogate.is_some());
        assert!(scan(br#"{"a":"\ud83d\n"}"#).lone_surrogate.is_some());
        assert!(scan(br#"{"a":"\ud83d\ude00 and \\ud83d"}"#).lone_surrogate.is_none());
    }

    #[test]
    fn blank_lines_are_skipped_and_ordinary_ones_pass() {
        assert_eq!(judge(b"  \r\n"), Verdict::Skip);
        assert_eq!(judge(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#), Verdict::Pass);
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r","arguments":{}}}"#;
        assert_eq!(judge(call), Verdict::Pass);
    }

    #[test]
    fn the_line_limit_has_room_for_escaping_and_a_floor() {
        assert_eq!(line_limit(1000), 16 << 20);
        assert!(line_limit(20_000_000) >= 2 * 20_000_000 + 4096, "newlines escape to two bytes");
        assert_eq!(line_limit(u64::MAX), usize::MAX);
    }

    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "a",
            "é",
            "\\ud83d",
            "\\ude00",
            "\\n",
            "\\\\",
            "\\u0041",
            "\\\"",
            "\\ud800\\udc00",
            " ",
        ])
    }

    proptest! {
        /// The scan agrees with serde_json on lone surrogates, and finds the id however the
        /// line is cut into pieces.
        #[test]
        fn the_scan_agrees_with_serde_json(pieces in prop::collection::vec(piece(), 0..12), cut in 0usize..400, id in 0u32..1000) {
            let content: String = pieces.concat();
            let line = format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"w","arguments":{{"content":"{content}"}}}},"id":{id}}}"#);
            let bytes = line.as_bytes();
            let cut = cut.min(bytes.len());
            let mut s = Scan::default();
            s.feed(&bytes[..cut]);
            s.feed(&bytes[cut..]);
            let parsed = serde_json::from_str::<Value>(&line);
            prop_assert_eq!(s.lone_surrogate.is_some(), parsed.is_err(), "{}", line);
            prop_assert_eq!(s.id(), json!(id));
            prop_assert_eq!(s.arguments, Some(b'{'));
        }
    }
}
