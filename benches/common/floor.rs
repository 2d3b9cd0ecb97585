//! The floor of the `peers` benchmark: the least an MCP file server can do for its write, edit
//! and read calls. Timed beside filewright and the peers, it shows in every run how much of a
//! call's time is the protocol's and the file system's, which no server avoids, and so how
//! much is left for a server's own work: filewright's syntax check, claim and journal, or the
//! reference server's Node.js.
//!
//! The benchmark starts its own binary as this server (`peers --floor-server ROOT`). One line
//! in, one line out, on one thread: the line is parsed with serde_json, the call made, the
//! reply written. A write or an edit replaces the file the way filewright does and the
//! reference server does for a file that exists, atomically: a new temporary file beside it,
//! written whole, renamed over it. The replaced file is held open until the reply is out and
//! closed on another thread, as filewright does, since ext4 frees its blocks at that close.
//! Nothing else: no check, no claim, no journal, no sandbox (the paths are the benchmark's
//! own), no fsync, no tools in `tools/list`.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, Write};
use std::path::Path;

use serde_json::{Value, json};

/// Serves `root` on stdin and stdout until stdin closes.
pub fn serve(root: &Path) {
    let (closer, to_close) = std::sync::mpsc::channel::<File>();
    let closing = std::thread::Builder::new().name("close".into());
    closing.spawn(move || to_close.into_iter().for_each(drop)).unwrap();
    let mut out = std::io::stdout().lock();
    let mut temporaries = 0_u64;
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        // Notifications get no reply.
        let Some(id) = message.get("id").cloned() else { continue };
        let mut replaced = None;
        let result = match message["method"].as_str() {
            Some("initialize") => json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "floor", "version": "0"},
            }),
            Some("tools/list") => json!({"tools": []}),
            Some("tools/call") => call(root, &message["params"], &mut temporaries, &mut replaced),
            _ => json!({}),
        };
        let mut reply = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": result})).unwrap();
        reply.push(b'\n');
        if out.write_all(&reply).and_then(|()| out.flush()).is_err() {
            break;
        }
        if let Some(file) = replaced {
            let _ = closer.send(file);
        }
    }
}

/// One tool call: `write_file`, `edit_file` (one `old_string` replaced once) or `read_file`,
/// with filewright's argument names and root-relative paths. The replaced file, if any, is
/// left in `replaced` for the caller to close after its reply.
fn call(root: &Path, params: &Value, temporaries: &mut u64, replaced: &mut Option<File>) -> Value {
    let args = &params["arguments"];
    let path = root.join(args["path"].as_str().unwrap_or_default());
    let text = |key: &str| args[key].as_str().unwrap_or_default().to_owned();
    let done = match params["name"].as_str() {
        Some("write_file") => replace(&path, &text("content"), temporaries, replaced),
        Some("edit_file") => std::fs::read_to_string(&path).and_then(|old| {
            let edit = &args["edits"][0];
            let (from, to) = (edit["old_string"].as_str().unwrap_or_default(), edit["new_string"].as_str());
            match (old.contains(from) && !from.is_empty(), to) {
                (true, Some(to)) => replace(&path, &old.replacen(from, to, 1), temporaries, replaced),
                _ => Err(std::io::Error::other("old_string not found")),
            }
        }),
        Some("read_file") => std::fs::read_to_string(&path),
        _ => Err(std::io::Error::other("unknown tool")),
    };
    match done {
        Ok(text) => json!({"content": [{"type": "text", "text": text}], "isError": false}),
        Err(e) => json!({"content": [{"type": "text", "text": e.to_string()}], "isError": true}),
    }
}

/// Replaces `path` with `content` through a temporary file renamed over it; says how many
/// bytes it wrote.
fn replace(
    path: &Path,
    content: &str,
    temporaries: &mut u64,
    replaced: &mut Option<File>,
) -> std::io::Result<String> {
    *temporaries += 1;
    let temporary = path.with_file_name(format!(".floor-{}-{temporaries}.tmp", std::process::id()));
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temporary)
        .and_then(|mut file| file.write_all(content.as_bytes()));
    *replaced = File::open(path).ok();
    match written.and_then(|()| std::fs::rename(&temporary, path)) {
        Ok(()) => Ok(format!("wrote {} bytes", content.len())),
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            Err(e)
        }
    }
}
