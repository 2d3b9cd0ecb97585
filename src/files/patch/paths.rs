//! File names as patches write them: taken out of a unified diff's `---`/`+++` and
//! `diff --git` lines (with `diff -u`'s timestamps), unquoted from git's C-style quoting, and
//! checked to be there at all.
//!
//! Apart from the formats because a name's syntax (what an escape means, where a timestamp
//! starts) is the same wherever the name appears. What a name means (relative or absolute,
//! inside the root or not) is not decided here: the session resolves every path of a patch
//! through the sandbox, as every other tool's.

use super::{PatchError, PatchErrorKind, error, show};

/// A path as the patch gives it, without the blanks that separate it from the patch's own
/// syntax (`*** Update File: a.txt`); refused when nothing is left. Everything else (`./`,
/// absolute, `~`) is the sandbox's to read, as for every tool; two spellings of one file in
/// one patch are caught once resolved.
pub(super) fn check_path(raw: &str, index: usize) -> Result<String, PatchError> {
    let path = raw.trim();
    if path.is_empty() {
        return Err(error(
            index,
            PatchErrorKind::Path,
            "the file's path is empty: give it relative to the root, e.g. `src/main.rs`".into(),
        ));
    }
    Ok(path.to_string())
}

/// `--- <name>` / `+++ <name>` after the marker: the name (unquoted) and what follows it
/// (`diff -u`'s timestamp).
pub(super) fn header_name(raw: &str, index: usize) -> Result<(String, &str), PatchError> {
    let raw = raw.trim_start().trim_end_matches(['\r', '\n']);
    if raw.starts_with('"') {
        let (name, rest) = unquote(raw, index)?;
        return Ok((name, rest.trim()));
    }
    let (name, stamp) = match raw.split_once('\t') {
        Some((name, stamp)) => (name, stamp),
        None => match find_timestamp(raw) {
            Some(at) => (&raw[..at], &raw[at..]),
            None => (raw, ""),
        },
    };
    Ok((name.trim_end().to_string(), stamp.trim()))
}

/// Where a timestamp written after a space instead of a tab (` 2024-01-31 ...`) starts.
fn find_timestamp(raw: &str) -> Option<usize> {
    let bytes = raw.as_bytes();
    let is_date = |at: usize| {
        let d = |k: usize| bytes.get(at + k).is_some_and(u8::is_ascii_digit);
        (0..4).all(d) && bytes.get(at + 4) == Some(&b'-') && (5..7).all(d) && bytes.get(at + 7) == Some(&b'-')
    };
    (0..bytes.len()).find(|&k| bytes[k] == b' ' && is_date(k + 1))
}

/// `diff -N` names a missing file by its name and the epoch (in the local time zone).
pub(super) fn is_epoch(stamp: &str) -> bool {
    stamp.starts_with("1970-01-01") || stamp.starts_with("1969-12-31")
}

/// A C-style quoted name as git writes names with special characters
/// (`"a/caf\303\251.txt"`): the name and what follows the closing quote.
pub(super) fn unquote(raw: &str, index: usize) -> Result<(String, &str), PatchError> {
    let malformed = |what: &str| {
        error(
            index,
            PatchErrorKind::Path,
            format!("the quoted file name {} {what}: quote names as git does, or not at all", show(raw)),
        )
    };
    let bytes = raw.as_bytes();
    let mut name = Vec::new();
    let mut k = 1;
    loop {
        match bytes.get(k) {
            None => return Err(malformed("has no closing quote")),
            Some(b'"') => break,
            Some(b'\\') => {
                k += 1;
                let byte = match bytes.get(k) {
                    Some(b'a') => 7,
                    Some(b'b') => 8,
                    Some(b't') => b'\t',
                    Some(b'n') => b'\n',
                    Some(b'v') => 11,
                    Some(b'f') => 12,
                    Some(b'r') => b'\r',
                    Some(&c @ (b'"' | b'\\')) => c,
                    Some(b'0'..=b'3') => {
                        let octal =
                            bytes.get(k..k + 3).filter(|o| o.iter().all(|b| (b'0'..=b'7').contains(b)));
                        let Some(octal) = octal else { return Err(malformed("has a bad octal escape")) };
                        k += 2;
                        octal.iter().fold(0u8, |n, b| (n << 3) | (b - b'0'))
                    }
                    _ => return Err(malformed("has an unknown escape")),
                };
                name.push(byte);
            }
            Some(&b) => name.push(b),
        }
        k += 1;
    }
    let name = String::from_utf8(name).map_err(|_| malformed("is not UTF-8"))?;
    Ok((name, &raw[k + 1..]))
}

/// The two names of `diff --git <a> <b>`, when they can be told apart: quoted, or the same
/// path on both sides (git's usual case), or split before ` b/`.
pub(super) fn git_header_names(rest: &str, index: usize) -> Result<Option<(String, String)>, PatchError> {
    let rest = rest.trim_end_matches(['\r', '\n']).trim();
    if rest.starts_with('"') {
        let (a, after) = unquote(rest, index)?;
        let after = after.trim_start();
        let b = if after.starts_with('"') { unquote(after, index)?.0 } else { after.to_string() };
        return Ok(Some((a, b)));
    }
    if let Some((a, _)) = rest.split_once(" \"") {
        let (b, _) = unquote(&rest[a.len() + 1..], index)?;
        return Ok(Some((a.to_string(), b)));
    }
    // Same name on both sides after the first component: the split is in the middle.
    let middle = rest.len() / 2;
    if rest.len() % 2 == 1 && rest.is_char_boundary(middle) && rest.as_bytes()[middle] == b' ' {
        let (a, b) = (&rest[..middle], &rest[middle + 1..]);
        let tail = |s: &str| s.split_once('/').map(|(_, t)| t.to_string());
        if (tail(a).is_some() && tail(a) == tail(b)) || a == b {
            return Ok(Some((a.to_string(), b.to_string())));
        }
    }
    Ok(rest.split_once(" b/").map(|(a, b)| (a.to_string(), format!("b/{b}"))))
}
