//! `--after-write CMD`: a command (a formatter or linter) run after each successful write,
//! append or edit, with the root-relative path as its argument and the root as its working
//! directory. Its exit code and output ride along in the tool result.
//!
//! # Ambient authority
//! The command runs as the server's user with no sandbox: it is configured by whoever starts
//! the server, never by the model.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;
use wait_timeout::ChildExt;

/// How long to wait for a finished hook's output to be drained.
const OUTPUT_GRACE: Duration = Duration::from_secs(1);

/// Characters of hook output kept in a result.
pub const MAX_OUTPUT_CHARS: usize = 2_000;

/// Bytes of each of the hook's pipes held in memory; the rest is read and dropped, so a
/// chatty hook can neither block on a full pipe nor fill the server's memory.
const MAX_PIPE_BYTES: u64 = 64 * 1024;

/// A configured hook.
#[derive(Debug, Clone)]
pub struct Hook {
    command: String,
    cwd: PathBuf,
    timeout: Duration,
}

/// What a hook run did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct HookReport {
    /// The command line run (the path appended as its last argument).
    pub command: String,
    /// Exit code; absent when it was killed or could not start.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i32")]
    pub exit_code: Option<i32>,
    /// It ran past its time limit and was killed.
    pub timed_out: bool,
    /// The signal that ended it, when a signal did (not our time limit's kill).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i32")]
    pub signal: Option<i32>,
    /// stdout then stderr, cut to 2000 characters.
    pub output: String,
}

impl Hook {
    /// A hook running `command` (a shell command line) in `cwd`, killed after `timeout`.
    pub fn new(command: String, cwd: &Path, timeout: Duration) -> Self {
        Hook { command, cwd: cwd.to_path_buf(), timeout }
    }

    /// Runs the hook for `path` (root-relative) and reports what happened. Never fails: a hook
    /// that cannot start is reported, not raised, because the write itself succeeded.
    ///
    /// # Ambient authority
    /// Spawns a shell as the server's user, in the root's host directory, outside the
    /// sandbox: the command may touch any path that user can. Only the command line that
    /// started the server names it; no tool argument reaches it except `path`, which the
    /// sandbox has already resolved inside the root.
    pub fn run(&self, path: &str) -> HookReport {
        use std::os::unix::process::CommandExt;
        let shown = format!("{} {path}", self.command);
        let report = |exit_code, timed_out, signal, output: String| HookReport {
            command: shown.clone(),
            exit_code,
            timed_out,
            signal,
            output: output.chars().take(MAX_OUTPUT_CHARS).collect(),
        };
        // `sh -c 'CMD "$@"' filewright PATH`: CMD may use shell syntax, and the path is passed
        // as one argument, never re-parsed by the shell.
        let spawned = Command::new("sh")
            .arg("-c")
            .arg(format!("{} \"$@\"", self.command))
            .arg("filewright-hook")
            .arg(path)
            .current_dir(&self.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => return report(None, false, None, format!("could not start the hook: {e}")),
        };
        let readers = [child.stdout.take().map(read_all), child.stderr.take().map(read_all)];
        let (exit_code, timed_out, signal) = match child.wait_timeout(self.timeout) {
            Ok(Some(status)) => {
                (status.code(), false, std::os::unix::process::ExitStatusExt::signal(&status))
            }
            Ok(None) | Err(_) => {
                // Kill the whole group: a formatter may have started children holding the pipes.
                if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
                    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
                }
                let _ = child.kill();
                let _ = child.wait();
                (None, true, None)
            }
        };
        // A grandchild that left the process group may still hold the pipes open: wait for
        // the output only briefly, then go on without it.
        let mut output = String::new();
        for reader in readers.into_iter().flatten() {
            match reader.recv_timeout(OUTPUT_GRACE) {
                Ok(text) => output.push_str(&text),
                Err(_) => {
                    output.push_str("(output not collected: a process the hook started still holds it)\n")
                }
            }
        }
        if timed_out {
            output.push_str(&format!("\n(killed after {} s)", self.timeout.as_secs_f32()));
        }
        report(exit_code, timed_out, signal, output)
    }
}

/// Reads a pipe to its end on a thread, keeping its first [`MAX_PIPE_BYTES`]; the text
/// arrives on the returned channel.
fn read_all(mut pipe: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = (&mut pipe).take(MAX_PIPE_BYTES).read_to_end(&mut bytes);
        let _ = std::io::copy(&mut pipe, &mut std::io::sink());
        let _ = send.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    receive
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_killed_by_a_signal_says_which() {
        let dir = tempfile::tempdir().unwrap();
        let hook = Hook::new("kill -TERM $$; true".into(), dir.path(), Duration::from_secs(5));
        let r = hook.run("a.txt");
        assert_eq!((r.exit_code, r.timed_out, r.signal), (None, false, Some(15)), "{r:?}");
    }

    #[test]
    fn a_pipe_is_drained_to_its_end_but_only_its_start_is_kept_in_memory() {
        let flood = std::io::repeat(b'x').take(5_000_000);
        let kept = read_all(flood).recv_timeout(Duration::from_secs(20)).expect("the reader finishes");
        assert_eq!(kept.len() as u64, MAX_PIPE_BYTES);
    }

    #[test]
    fn the_path_is_passed_as_one_argument_in_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let hook = Hook::new("printf '%s|'".into(), dir.path(), Duration::from_secs(5));
        let r = hook.run("dir with space/a;b.js");
        assert_eq!(r.output, "dir with space/a;b.js|");
        assert_eq!(r.exit_code, Some(0));
    }

    #[test]
    fn a_failing_hook_reports_its_exit_code_and_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let r = Hook::new("echo bad >&2; exit 3; true".into(), dir.path(), Duration::from_secs(5)).run("x");
        assert_eq!(r.exit_code, Some(3));
        assert!(r.output.contains("bad"));
    }

    #[test]
    fn a_slow_hook_is_killed_at_its_time_limit() {
        let dir = tempfile::tempdir().unwrap();
        let started = std::time::Instant::now();
        let r = Hook::new("sleep 30; echo".into(), dir.path(), Duration::from_millis(300)).run("x");
        assert!(r.timed_out);
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
