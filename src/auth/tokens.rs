//! `--token-file FILE`: static bearer tokens, one a line, `TOKEN AGENT [PROFILE]`.
//!
//! The file is the only place the tokens live: the server keeps their SHA-256 digests, never
//! logs or echoes a token (not in `Debug` either), and compares a presented token against
//! every entry in constant time. It re-reads the file when it changes, so deleting a line
//! revokes that token without a restart.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use sha2::{Digest, Sha256};
use subtle::{ConditionallySelectable, ConstantTimeEq};

use super::{Denial, Principal};
use crate::profile::Profile;

/// The shortest token accepted: 16 characters, so that a guessable word is refused at start
/// rather than trusted. (A random token of 32 or more is what the README tells people to use.)
pub const MIN_TOKEN_LEN: usize = 16;

/// How often, at most, a request checks whether the file changed: a `stat` per request is
/// cheap, but a burst of requests needs only one; a revoked token stops working within this.
const RECHECK_EVERY: Duration = Duration::from_millis(200);

/// How recent a modification must be for the file to be re-read even though its stamp did not
/// change: file times tick coarsely (a few milliseconds), so two writes within one tick that
/// keep the size and inode look alike. Until the file is this old, it is read on every check
/// (as git does with "racily clean" index entries); it is small, so that costs little.
const RACY_WINDOW: Duration = Duration::from_secs(2);

/// The parsed token file, re-read when it changes.
pub struct TokenFile {
    path: PathBuf,
    server_profile: Profile,
    recheck_every: Duration,
    state: Mutex<State>,
}

/// What the last read of the file found. A `std::sync::Mutex`, not Tokio's: nothing awaits
/// while holding it (the check is a `stat` and, when changed, one read of a small file).
struct State {
    checked: Instant,
    stamp: Option<Stamp>,
    /// The tokens, or why the file as it is now cannot be used.
    entries: Result<Vec<Entry>, String>,
}

/// One line of the file. `Debug` is written by hand so that no digest reaches a log either.
struct Entry {
    digest: [u8; 32],
    agent: String,
    profile: Profile,
    line: usize,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("agent", &self.agent)
            .field("profile", &self.profile)
            .field("line", &self.line)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for TokenFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `try_lock`: formatting must not wait for (or deadlock on) a check in progress.
        let tokens = match self.state.try_lock() {
            Ok(state) => match &state.entries {
                Ok(entries) => format!("{} tokens", entries.len()),
                Err(_) => "invalid".to_string(),
            },
            Err(_) => "busy".to_string(),
        };
        f.debug_struct("TokenFile")
            .field("path", &self.path)
            .field("server_profile", &self.server_profile)
            .field("tokens", &tokens)
            .finish()
    }
}

/// What says the file changed: any write changes the modification or change time or the
/// size, and an editor's save-by-rename changes the inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    size: u64,
    #[cfg(unix)]
    unix: (u64, u64, i64, i64),
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Stamp {
            modified: meta.modified().ok(),
            size: meta.len(),
            #[cfg(unix)]
            unix: (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Whether the file was modified so recently that a later write in the same tick of the
    /// file clock could leave the stamp as it is (see [`RACY_WINDOW`]).
    fn is_racy(&self) -> bool {
        self.modified.is_none_or(|at| at.elapsed().map_or(true, |age| age < RACY_WINDOW))
    }
}

impl TokenFile {
    /// Reads and checks the file. An error names the line and what to fix; the server should
    /// not start with it.
    pub fn open(path: &Path, server_profile: Profile) -> Result<TokenFile, String> {
        let (stamp, entries) = read(path, server_profile);
        let entries = entries?;
        warn_if_shared(path);
        tracing::info!(file = %path.display(), tokens = entries.len(), "token file read");
        Ok(TokenFile {
            path: path.to_path_buf(),
            server_profile,
            recheck_every: RECHECK_EVERY,
            state: Mutex::new(State { checked: Instant::now(), stamp, entries: Ok(entries) }),
        })
    }

    /// The principal a bearer token names, the file re-read first if it changed.
    pub fn authenticate(&self, token: &str) -> Result<Principal, Denial> {
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        self.refresh(&mut state);
        let entries = match &state.entries {
            Ok(entries) => entries,
            Err(_) => {
                return Err(Denial::Invalid(
                    "the server's token file is invalid, so every token is refused until its administrator fixes it"
                        .into(),
                ));
            }
        };
        let presented: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        match find(entries, &presented) {
            Some(entry) => Ok(Principal {
                agent: entry.agent.clone(),
                profile: entry.profile,
                via: format!("token file line {}", entry.line),
            }),
            None => Err(Denial::Invalid(
                "the token is not in the server's token file (unknown or revoked)".into(),
            )),
        }
    }

    /// Re-reads the file when its stamp changed (or may have changed unseen), at most once per
    /// `recheck_every`. A file that no longer parses, or cannot be read, fails closed: every
    /// token is refused. Keeping the old tokens instead would keep a token the administrator
    /// just removed working, for as long as the typo in the same edit lasts.
    fn refresh(&self, state: &mut State) {
        if state.checked.elapsed() < self.recheck_every {
            return;
        }
        state.checked = Instant::now();
        let now = std::fs::metadata(&self.path).map(|meta| Stamp::of(&meta));
        let unchanged = match (&now, &state.stamp) {
            (Ok(now), Some(before)) => now == before && !now.is_racy(),
            _ => false,
        };
        if unchanged {
            return;
        }
        let (stamp, entries) = read(&self.path, self.server_profile);
        match &entries {
            Ok(list) if state.entries.is_err() || state.stamp != stamp => {
                tracing::info!(file = %self.path.display(), tokens = list.len(), "token file re-read");
                warn_if_shared(&self.path);
            }
            Ok(_) => {}
            Err(error) => {
                tracing::error!(
                    file = %self.path.display(),
                    "token file is invalid, every token is refused until it is fixed: {error}"
                );
            }
        }
        state.stamp = stamp;
        state.entries = entries;
    }
}

/// The entry whose digest equals `presented`, found in constant time: every entry is compared
/// whatever the earlier ones gave, and the comparison and the choice of index are `subtle`'s,
/// so the time taken says nothing about which entry matched or how much of one did. (Digests
/// rather than the tokens themselves also make the comparison's length independent of them.)
fn find<'a>(entries: &'a [Entry], presented: &[u8; 32]) -> Option<&'a Entry> {
    find_by(entries, |entry| entry.digest[..].ct_eq(&presented[..]))
}

/// [`find`]'s loop, with the comparison passed in so that a test can count that every entry
/// is compared even when the first one matches.
fn find_by(entries: &[Entry], mut equal: impl FnMut(&Entry) -> subtle::Choice) -> Option<&Entry> {
    let mut index = u64::MAX;
    for (i, entry) in entries.iter().enumerate() {
        index.conditional_assign(&(i as u64), equal(entry));
    }
    entries.get(usize::try_from(index).ok()?)
}

/// Reads and parses the file, with the stamp of what was read.
fn read(path: &Path, server_profile: Profile) -> (Option<Stamp>, Result<Vec<Entry>, String>) {
    let stamp = std::fs::metadata(path).ok().map(|meta| Stamp::of(&meta));
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            return (
                stamp,
                Err(format!(
                    "cannot read the token file {}: {e}; check the path and its permissions",
                    path.display()
                )),
            );
        }
    };
    (stamp, parse(&text, server_profile).map_err(|e| format!("token file {}: {e}", path.display())))
}

/// The entries of a token file's text. Errors name the line and what to fix, and never hold
/// the line itself: it may be a token.
fn parse(text: &str, server_profile: Profile) -> Result<Vec<Entry>, String> {
    let mut entries: Vec<Entry> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = raw.trim();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = content.split_whitespace().collect();
        let (token, agent, profile) = match fields[..] {
            [token, agent] => (token, agent, server_profile),
            [token, agent, profile] => {
                let profile: Profile = profile.parse().map_err(|e| format!("line {line}: {e}"))?;
                (token, agent, profile)
            }
            _ => {
                return Err(format!(
                    "line {line}: expected `TOKEN AGENT [PROFILE]`, found {} fields; comments go on lines of their own, starting with #",
                    fields.len()
                ));
            }
        };
        if token.chars().count() < MIN_TOKEN_LEN {
            return Err(format!(
                "line {line}: the token is shorter than {MIN_TOKEN_LEN} characters; use a long random one (e.g. 32 random bytes, base64)"
            ));
        }
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(first) = entries.iter().find(|e| e.digest == digest) {
            return Err(format!(
                "line {line}: the same token is already on line {}; give each agent a token of its own",
                first.line
            ));
        }
        entries.push(Entry {
            digest,
            agent: agent.to_string(),
            profile: profile.within(server_profile),
            line,
        });
    }
    if entries.is_empty() {
        return Err(
            "no tokens: add lines of `TOKEN AGENT [PROFILE]` (PROFILE: full, coding or readonly)".into()
        );
    }
    Ok(entries)
}

/// Logs a warning when people other than the server's user can read the tokens.
fn warn_if_shared(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path) {
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o044 != 0 {
                tracing::warn!(
                    file = %path.display(),
                    "the token file is readable by group or others (mode {mode:o}): run `chmod 600` on it"
                );
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

#[cfg(test)]
mod tests;
