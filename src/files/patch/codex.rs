//! The Codex envelope: `*** Begin Patch`, file sections, `*** End Patch`.
//!
//! Apart from unified diffs because the two share only hunks and paths: the envelope's
//! markers, its heredoc and fence tolerance, and its uncounted `@@ <line>` headers are its own.

use super::hunk::{Building, old_start_of, parse_range};
use super::paths::check_path;
use super::{
    BEGIN_PATCH, END_OF_FILE, END_PATCH, Entry, FilePatch, Hunk, HunkLine, MOVE_TO, PatchError,
    PatchErrorKind, blank_text, error, is_blank, is_marker, marker, show,
};

/// Codex's optional first line in the envelope: the environment the patch is for.
const ENVIRONMENT_ID: &str = "*** Environment ID:";

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Add,
    Delete,
    Update,
}

/// A file operation's header line and its path (raw); spaces around it are tolerated.
pub(super) fn file_op(line: &str) -> Option<(Op, &str)> {
    [(Op::Add, "*** Add File:"), (Op::Delete, "*** Delete File:"), (Op::Update, "*** Update File:")]
        .into_iter()
        .find_map(|(op, name)| marker(line, name).map(|path| (op, path)))
}

fn is_envelope_marker(line: &str) -> bool {
    file_op(line).is_some() || is_marker(line, END_PATCH) || is_marker(line, BEGIN_PATCH)
}

/// The word that ends a heredoc opened on `line` (`apply_patch <<'EOF'`, `<<EOF`,
/// `git apply <<-"PATCH"`), if the line opens one.
fn heredoc_delimiter(line: &str) -> Option<&str> {
    let t = line.trim();
    let (_, after) = t.split_once("<<")?;
    let after = after.strip_prefix('-').unwrap_or(after).trim_start();
    let word = match after.chars().next()? {
        quote @ ('\'' | '"') => {
            let inner = &after[1..];
            let end = inner.find(quote)?;
            inner[end + 1..].trim().is_empty().then_some(&inner[..end])?
        }
        _ => after,
    };
    (!word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')).then_some(word)
}

/// Parses the envelope that starts at the 0-based line `begin`.
pub(super) fn parse(lines: &[&str], begin: usize) -> Result<Vec<Entry>, PatchError> {
    let delimiter = lines[..begin].iter().find_map(|l| heredoc_delimiter(l));
    // What may follow the envelope: blank lines, a closing fence, the heredoc's end.
    let trailer = |line: &str| {
        let t = line.trim();
        t.is_empty() || t.starts_with("```") || delimiter.is_some_and(|d| t == d)
    };
    let last = lines.iter().rposition(|l| !trailer(l)).unwrap_or(begin);
    let end = if last > begin && is_marker(lines[last], END_PATCH) {
        last
    } else if let Some(end) = (begin + 1..lines.len())
        .rev()
        .find(|&k| is_marker(lines[k], END_PATCH) && !lines[k].starts_with(['+', '-']))
    {
        let after = (end + 1..lines.len()).find(|&k| !trailer(lines[k])).unwrap_or(end + 1);
        return Err(error(
            after,
            PatchErrorKind::Syntax,
            format!(
                "text after `*** End Patch` (patch line {}): {}. Put every change inside one \
                 `*** Begin Patch` ... `*** End Patch` and nothing after it",
                end + 1,
                show(lines.get(after).copied().unwrap_or(""))
            ),
        ));
    } else {
        return Err(error(
            lines.len() - 1,
            PatchErrorKind::Truncated,
            format!(
                "the patch ends without `*** End Patch` (it started at patch line {}): it was \
                 most likely cut off by your output limit. Nothing was applied; send it again \
                 complete, or split the change into several smaller patches",
                begin + 1
            ),
        ));
    };

    let mut entries = Vec::new();
    let mut i = begin + 1;
    while i < end {
        let line = lines[i];
        if is_blank(line) {
            i += 1;
            continue;
        }
        match file_op(line) {
            Some((Op::Add, raw)) => {
                let path = check_path(raw, i)?;
                let (content, next) = add(lines, i + 1, end, &path)?;
                entries.push(Entry { line: i, file: FilePatch::Add { path, content } });
                i = next;
            }
            Some((Op::Delete, raw)) => {
                let path = check_path(raw, i)?;
                entries.push(Entry { line: i, file: FilePatch::Delete { path, expected: None } });
                i += 1;
            }
            Some((Op::Update, raw)) => {
                let path = check_path(raw, i)?;
                let (move_to, hunks, next) = update(lines, i, end, &path)?;
                entries.push(Entry { line: i, file: FilePatch::Update { path, move_to, hunks } });
                i = next;
            }
            None if marker(line, ENVIRONMENT_ID).is_some() => {
                // Codex's preamble naming where to apply the patch (which Codex refuses empty).
                return Err(error(
                    i,
                    PatchErrorKind::Unsupported,
                    format!(
                        "{}: apply_patch changes the files under its root and has no other \
                         environment; remove the line",
                        show(line.trim())
                    ),
                ));
            }
            None => {
                // Two envelopes one after the other: read them as one.
                let next = (i + 1..end).find(|&k| !is_blank(lines[k]));
                if is_marker(line, END_PATCH) && next.is_some_and(|k| is_marker(lines[k], BEGIN_PATCH)) {
                    i = next.unwrap_or(end) + 1;
                    continue;
                }
                return Err(unexpected_between_files(line, i, entries.last()));
            }
        }
    }
    Ok(entries)
}

fn unexpected_between_files(line: &str, index: usize, previous: Option<&Entry>) -> PatchError {
    let hint = if marker(line, MOVE_TO).is_some() {
        "`*** Move to: <path>` must come right after its `*** Update File: <path>` line".to_string()
    } else if is_marker(line, END_OF_FILE) {
        "`*** End of File` must come right after the last line of a hunk".to_string()
    } else if let Some(Entry { file: FilePatch::Delete { path, .. }, .. }) = previous {
        format!("`*** Delete File: {path}` takes no lines after it: remove them")
    } else if line.starts_with("@@") || line.starts_with([' ', '-', '+']) {
        "a hunk needs its file: put `*** Update File: <path>` before it".to_string()
    } else {
        "every section starts with `*** Add File: <path>`, `*** Update File: <path>` or \
         `*** Delete File: <path>`, and the patch ends with `*** End Patch`"
            .to_string()
    };
    error(index, PatchErrorKind::Syntax, format!("unexpected line {}: {hint}", show(line)))
}

/// An added file's `+` lines, from `start`; returns its content and where it stops.
fn add(lines: &[&str], start: usize, end: usize, path: &str) -> Result<(String, usize), PatchError> {
    let mut content = String::new();
    let mut blanks: Vec<&str> = Vec::new();
    let mut lines_added = 0;
    let mut ended = false;
    let mut i = start;
    while i < end {
        let line = lines[i];
        if line.starts_with('*') {
            break;
        }
        if let Some(text) = line.strip_prefix('+') {
            if ended {
                return Err(error(
                    i,
                    PatchErrorKind::Syntax,
                    "a line follows `\\ No newline at end of file`, which can only come after \
                     the file's last line: move the marker after the last line, or remove it"
                        .into(),
                ));
            }
            // Empty lines that lost their '+' between content lines are empty lines.
            for blank in blanks.drain(..) {
                content.push_str(blank_text(blank));
                content.push('\n');
            }
            content.push_str(text);
            content.push('\n');
            lines_added += 1;
        } else if line.starts_with('\\') && lines_added > 0 && blanks.is_empty() && !ended {
            content.pop();
            ended = true;
        } else if is_blank(line) {
            blanks.push(line);
        } else {
            return Err(error(
                i,
                PatchErrorKind::Syntax,
                format!(
                    "expected a line starting with '+' in the new file {}, found {}: every line \
                     of an added file starts with '+', empty lines too",
                    show(path),
                    show(line)
                ),
            ));
        }
        i += 1;
    }
    Ok((content, i))
}

/// An updated file from its header at `header`: the optional move, the hunks, and where
/// its section stops.
fn update(
    lines: &[&str],
    header: usize,
    end: usize,
    path: &str,
) -> Result<(Option<String>, Vec<Hunk>, usize), PatchError> {
    let mut i = header + 1;
    let mut move_to = None;
    // Blank lines before the move are only spacing (before a hunk too, below).
    let first = (i..end).find(|&k| !is_blank(lines[k])).unwrap_or(end);
    if let Some(raw) = lines[..end].get(first).and_then(|l| marker(l, MOVE_TO)) {
        let to = check_path(raw, first)?;
        move_to = (to != path).then_some(to);
        i = first + 1;
    }
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut current: Option<Building> = None;
    while i < end {
        let line = lines[i];
        if line.starts_with('*') {
            if is_marker(line, END_OF_FILE) {
                let Some(mut building) = current.take() else {
                    return Err(error(
                        i,
                        PatchErrorKind::Syntax,
                        "`*** End of File` must come right after the last line of a hunk".into(),
                    ));
                };
                building.hunk.end_of_file = true;
                hunks.push(building.finish(path, hunks.len() + 1)?);
                i += 1;
                continue;
            }
            if is_envelope_marker(line) {
                break;
            }
        }
        if line.starts_with("@@") {
            if let Some(building) = current.take() {
                hunks.push(building.finish(path, hunks.len() + 1)?);
            }
            current = Some(hunk_header(lines, &mut i, end)?);
            continue;
        }
        // `--- a/x`, `+++ b/x`, `@@ -1,2 +1,2 @@`: a unified file header pasted in.
        let starts_hunk = current.as_ref().is_none_or(|b| b.hunk.lines.is_empty());
        if starts_hunk
            && line.starts_with("--- ")
            && lines[..end].get(i + 1).is_some_and(|l| l.starts_with("+++ "))
            && lines[..end].get(i + 2).is_some_and(|l| l.starts_with("@@"))
        {
            return Err(error(
                i,
                PatchErrorKind::Syntax,
                "a unified diff's `---`/`+++` file header inside the Codex patch: remove these \
                 two lines (the file is named by `*** Update File:`) and start the hunk with `@@`"
                    .into(),
            ));
        }
        match line.as_bytes().first() {
            Some(b' ' | b'-' | b'+') => {
                let building = match &mut current {
                    Some(building) => building,
                    None if hunks.is_empty() => current.insert(Building::new(i, Vec::new(), None, None)),
                    None => {
                        return Err(error(
                            i,
                            PatchErrorKind::Syntax,
                            format!(
                                "{} follows `*** End of File`, which ends its hunk: start a new \
                                 hunk with `@@`, or move `*** End of File` after this line",
                                show(line)
                            ),
                        ));
                    }
                };
                let text = line[1..].to_string();
                let hunk_line = match line.as_bytes()[0] {
                    b' ' => HunkLine::Context(text),
                    b'-' => HunkLine::Remove(text),
                    _ => HunkLine::Add(text),
                };
                building.push(hunk_line, i)?;
            }
            Some(b'\\') if current.is_some() => {
                if let Some(building) = &mut current {
                    building.no_newline(i)?;
                }
            }
            _ if is_blank(line) => {
                if let Some(building) = &mut current {
                    building.push_blank(line);
                }
            }
            _ => {
                let hint = if marker(line, MOVE_TO).is_some() {
                    format!("`*** Move to:` must come right after `*** Update File: {path}`")
                } else if line.starts_with("***") {
                    "the markers are `*** Add File:`, `*** Update File:`, `*** Delete File:`, \
                     `*** Move to:`, `*** End of File` and `*** End Patch`; a line of the file \
                     starting with `***` needs its prefix too"
                        .to_string()
                } else {
                    "prefix context lines with a space".to_string()
                };
                return Err(error(
                    i,
                    PatchErrorKind::Syntax,
                    format!(
                        "expected a line starting with ' ', '-' or '+' inside hunk {} of {}, \
                         found {}: {hint}",
                        hunks.len() + 1,
                        show(path),
                        show(line)
                    ),
                ));
            }
        }
        i += 1;
    }
    if let Some(building) = current.take() {
        hunks.push(building.finish(path, hunks.len() + 1)?);
    }
    // Codex refuses a move without a hunk too ("Update file hunk ... is empty"): its models
    // are taught that an update changes lines.
    if hunks.is_empty() {
        let hint = match move_to {
            Some(_) => {
                "a move needs at least one hunk in a Codex patch; to rename the file unchanged, \
                 use move_file (or a git diff with `rename from`/`rename to`)"
            }
            None => {
                "give the change as `@@` followed by lines prefixed with ' ', '-' or '+', or remove the section"
            }
        };
        return Err(error(
            header,
            PatchErrorKind::NoChange,
            format!("`*** Update File: {path}` has no hunk: {hint}"),
        ));
    }
    Ok((move_to, hunks, i))
}

/// Consecutive `@@` lines starting at `*i`: one hunk's header. `@@ <line>` adds a context
/// line; a unified `@@ -l,n +l,n @@` (models mix the formats) gives a line number hint.
fn hunk_header(lines: &[&str], i: &mut usize, end: usize) -> Result<Building, PatchError> {
    let mut building = Building::new(*i, Vec::new(), None, None);
    while *i < end && lines[*i].starts_with("@@") {
        let rest = &lines[*i][2..];
        let text = rest.strip_prefix(' ').unwrap_or(rest);
        if text.trim().is_empty() {
            // A bare `@@`.
        } else if let Some(range) = parse_range(rest) {
            building.hunk.old_start = Some(old_start_of(&range, *i)?);
            building.hunk.section = range.section;
        } else {
            building.hunk.contexts.push(text.to_string());
        }
        *i += 1;
    }
    Ok(building)
}
