//! A commit as a Codex envelope, written as a careful writer writes one: made from the two
//! versions of each file (with the `similar` crate, not from git's diff, nor with this
//! package's parser), hunks of 3 context lines without line numbers. Where a hunk's lines
//! also occur earlier (after the hunk before), it gets an `@@ <line>` header naming a line
//! before it, or, when no single line does, more context lines: Codex places a hunk at the
//! first match after the previous one, so a writer must make it unique that way.

use std::path::Path;

use similar::{ChangeTag, TextDiff};

use super::git::{Change, Kind, blob};

const CONTEXT: usize = 3;
const NO_NEWLINE: &str = "\\ No newline at end of file";

/// The envelope of `changes` (`commit` against `parent`), or why the commit cannot be one.
pub fn make(repo: &Path, parent: &str, commit: &str, changes: &[Change]) -> Result<String, String> {
    let mut out = String::from("*** Begin Patch\n");
    for change in changes {
        if let Some(special) = change.special() {
            return Err(format!("a {special} (an envelope carries text files)"));
        }
        let text = |rev: &str, path: &str| -> Result<String, String> {
            let bytes = blob(repo, rev, path).unwrap_or_default();
            if bytes.contains(&0) {
                return Err("binary file (no text diff to apply)".into());
            }
            String::from_utf8(bytes).map_err(|_| "not UTF-8 (a JSON string cannot carry it)".into())
        };
        match change.kind {
            Kind::TypeChanged => return Err("a file that became a link or back".into()),
            Kind::Added => {
                let new = text(commit, &change.new_path)?;
                out.push_str(&format!("*** Add File: {}\n", change.new_path));
                for line in new.split_inclusive('\n') {
                    push_line(&mut out, '+', line);
                }
            }
            Kind::Deleted => {
                text(parent, &change.old_path)?;
                out.push_str(&format!("*** Delete File: {}\n", change.old_path));
            }
            Kind::Renamed if blob(repo, parent, &change.old_path) == blob(repo, commit, &change.new_path) => {
                // Codex has no move without a hunk: a pure rename is a delete and an add.
                let new = text(commit, &change.new_path)?;
                out.push_str(&format!(
                    "*** Delete File: {}\n*** Add File: {}\n",
                    change.old_path, change.new_path
                ));
                for line in new.split_inclusive('\n') {
                    push_line(&mut out, '+', line);
                }
            }
            Kind::Modified | Kind::Renamed => {
                let (old, new) = (text(parent, &change.old_path)?, text(commit, &change.new_path)?);
                out.push_str(&format!("*** Update File: {}\n", change.old_path));
                if change.new_path != change.old_path {
                    out.push_str(&format!("*** Move to: {}\n", change.new_path));
                }
                hunks(&mut out, &old, &new);
            }
        }
    }
    out.push_str("*** End Patch\n");
    Ok(out)
}

/// One hunk line with its prefix; a line without a line ending gets diff's marker after it.
fn push_line(out: &mut String, prefix: char, line: &str) {
    out.push(prefix);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push('\n');
        out.push_str(NO_NEWLINE);
        out.push('\n');
    }
}

/// The hunks turning `old` into `new`, each unique where Codex looks for it.
fn hunks(out: &mut String, old: &str, new: &str) {
    let diff = TextDiff::from_lines(old, new);
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    // Where the applier looks from: the old line after the previous hunk.
    let mut cursor = 0;
    for group in diff.grouped_ops(CONTEXT) {
        let (first, last) = (&group[0], &group[group.len() - 1]);
        let (start, end) = (first.old_range().start, last.old_range().end);
        let mut lines: Vec<(char, &str)> = Vec::new();
        for op in &group {
            for change in diff.iter_changes(op) {
                let prefix = match change.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                };
                lines.push((prefix, change.value()));
            }
        }
        let at_end = end == old_lines.len() && start < end;
        let mut header: Option<&str> = None;
        let mut start = start;
        if !at_end && first_match(&old_lines, &old_lines[start..end], cursor) != Some(start) {
            if start == end {
                // Only added lines (into an empty file): they go at the end, which is where.
            } else if let Some(j) = deciding_line(&old_lines, start, end, cursor) {
                header = Some(old_lines[j]);
            } else {
                // More context, back to the previous hunk if need be: then it is unique.
                while start > cursor && first_match(&old_lines, &old_lines[start..end], cursor) != Some(start)
                {
                    start -= 1;
                    lines.insert(0, (' ', old_lines[start]));
                }
            }
        }
        match header {
            Some(line) => out.push_str(&format!("@@ {}\n", line.trim_end_matches(['\n', '\r']))),
            None => out.push_str("@@\n"),
        }
        for (prefix, line) in lines {
            push_line(out, prefix, line);
        }
        if at_end {
            out.push_str("*** End of File\n");
        }
        cursor = end;
    }
}

/// The first old line at or after `from` where `wanted` occurs whole.
fn first_match(lines: &[&str], wanted: &[&str], from: usize) -> Option<usize> {
    if wanted.is_empty() {
        return None;
    }
    (from..=lines.len().saturating_sub(wanted.len())).find(|&i| lines[i..i + wanted.len()] == *wanted)
}

/// A line between `cursor` and the hunk (`start..end`) that, found first from the cursor (as
/// the applier finds an `@@` line: trimmed), puts the hunk's first match where it is.
fn deciding_line(lines: &[&str], start: usize, end: usize, cursor: usize) -> Option<usize> {
    let key = |l: &str| l.trim().to_owned();
    (cursor..start).rev().find(|&j| {
        let wanted = key(lines[j]);
        // A blank line, or one that reads as a unified header, says nothing.
        !wanted.is_empty()
            && !wanted.starts_with('-')
            && (cursor..lines.len()).find(|&k| key(lines[k]) == wanted) == Some(j)
            && first_match(lines, &lines[start..end], j + 1) == Some(start)
    })
}
