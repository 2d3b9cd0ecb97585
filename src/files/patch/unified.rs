//! Unified diffs: `git diff` and `diff -u`, with git's extended headers.
//!
//! Apart from the Codex envelope because its files are found by headers rather than markers,
//! and its hunks are counted: most of what can go wrong here is a count that disagrees.

use super::hunk::{Building, old_start_of, parse_range};
use super::paths::{check_path, git_header_names, header_name, is_epoch, unquote};
use super::{
    DEV_NULL, Entry, FilePatch, Hunk, HunkLine, PatchError, PatchErrorKind, blank_text, error, is_blank, show,
};

/// `--- x` followed by `+++ y`: the start of a file in any unified diff.
pub(super) fn is_file_header(lines: &[&str], i: usize) -> bool {
    lines[i].starts_with("--- ") && lines.get(i + 1).is_some_and(|next| next.starts_with("+++ "))
}

pub(super) fn is_binary(line: &str) -> bool {
    (line.starts_with("Binary files ") && line.trim_end().ends_with(" differ"))
        || line.trim_end() == "GIT binary patch"
}

fn binary(index: usize) -> PatchError {
    error(
        index,
        PatchErrorKind::Binary,
        "binary patches are not supported: apply_patch changes text files only; leave binary \
         files out of the patch"
            .into(),
    )
}

pub(super) fn parse(lines: &[&str]) -> Result<Vec<Entry>, PatchError> {
    let mut entries = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("diff --git ") {
            let (entry, next) = git_entry(lines, i)?;
            entries.push(entry);
            i = next;
        } else if is_file_header(lines, i) {
            let (entry, next) = traditional_entry(lines, i)?;
            entries.push(entry);
            i = next;
        } else if line.starts_with("@@") {
            return Err(error(
                i,
                PatchErrorKind::Syntax,
                "this hunk has no file before it: start each file with a `--- a/<path>` line and \
                 a `+++ b/<path>` line, then its hunks"
                    .into(),
            ));
        } else if is_binary(line) {
            return Err(binary(i));
        } else {
            // A commit message, `git format-patch` headers, `Index:` lines: not the patch's.
            i += 1;
        }
    }
    Ok(entries)
}

/// A `diff --git` entry: extended headers, then `---`/`+++` and hunks when it has content.
fn git_entry(lines: &[&str], start: usize) -> Result<(Entry, usize), PatchError> {
    let header = git_header_names(&lines[start]["diff --git ".len()..], start)?;
    let (mut new_file, mut deleted_file, mut mode_change) = (false, false, false);
    let (mut rename_from, mut rename_to) = (None, None);
    let (mut minus, mut plus) = (None, None);
    let mut i = start + 1;
    while i < lines.len() {
        let line = lines[i].trim_end_matches('\r');
        let name = |raw: &str| -> Result<String, PatchError> {
            if raw.starts_with('"') { Ok(unquote(raw, i)?.0) } else { Ok(raw.to_string()) }
        };
        special_mode(line, i)?;
        if let Some(raw) = line.strip_prefix("rename from ") {
            rename_from = Some(name(raw)?);
        } else if let Some(raw) = line.strip_prefix("rename to ") {
            rename_to = Some(name(raw)?);
        } else if line.starts_with("copy from ") || line.starts_with("copy to ") {
            return Err(error(
                i,
                PatchErrorKind::Unsupported,
                "copies (`copy from`/`copy to`) are not supported: add the copy as a new file \
                 with its whole content (`--- /dev/null`, `+++ b/<path>`)"
                    .into(),
            ));
        } else if line.starts_with("new file mode ") {
            new_file = true;
        } else if line.starts_with("deleted file mode ") {
            deleted_file = true;
        } else if line.starts_with("old mode ") || line.starts_with("new mode ") {
            mode_change = true;
        } else if line.starts_with("index ")
            || line.starts_with("similarity index ")
            || line.starts_with("dissimilarity index ")
        {
            // Facts about the two versions, nothing to do.
        } else if is_binary(line) {
            return Err(binary(i));
        } else if is_file_header(lines, i) {
            minus = Some(header_name(&lines[i][4..], i)?.0);
            plus = Some(header_name(&lines[i + 1][4..], i + 1)?.0);
            i += 2;
            break;
        } else {
            break;
        }
        i += 1;
    }
    // git's `a/` and `b/` prefixes, unless it ran with --no-prefix.
    let prefixed = match &header {
        Some((a, b)) => a.starts_with("a/") && b.starts_with("b/"),
        None => {
            minus.as_deref().is_none_or(|m| m == DEV_NULL || m.starts_with("a/"))
                && plus.as_deref().is_none_or(|p| p == DEV_NULL || p.starts_with("b/"))
        }
    };
    let strip = |name: String, prefix: &str| match name.strip_prefix(prefix) {
        Some(rest) if prefixed => rest.to_string(),
        _ => name,
    };
    let old_absent = new_file || minus.as_deref() == Some(DEV_NULL);
    let new_absent = deleted_file || plus.as_deref() == Some(DEV_NULL);
    let old_name = rename_from
        .or_else(|| minus.filter(|m| m != DEV_NULL).map(|m| strip(m, "a/")))
        .or_else(|| header.as_ref().map(|(a, _)| strip(a.clone(), "a/")));
    let new_name = rename_to
        .or_else(|| plus.filter(|p| p != DEV_NULL).map(|p| strip(p, "b/")))
        .or_else(|| header.as_ref().map(|(_, b)| strip(b.clone(), "b/")));
    let unnamed = || {
        error(
            start,
            PatchErrorKind::Syntax,
            "cannot tell the file's name from this `diff --git` line: add `--- a/<path>` and \
             `+++ b/<path>` lines"
                .into(),
        )
    };
    let shown = new_name.clone().or_else(|| old_name.clone()).unwrap_or_default();
    let (hunks, next) = hunks(lines, i, &shown)?;
    let file = if old_absent && new_absent {
        return Err(both_absent(start));
    } else if old_absent {
        let path = check_path(&new_name.ok_or_else(unnamed)?, start)?;
        FilePatch::Add { content: added(&hunks, &path)?, path }
    } else if new_absent {
        let path = check_path(&old_name.ok_or_else(unnamed)?, start)?;
        FilePatch::Delete { expected: Some(deleted(&hunks, &path)?), path }
    } else {
        let path = check_path(&old_name.ok_or_else(unnamed)?, start)?;
        let to = check_path(&new_name.ok_or_else(unnamed)?, start)?;
        let move_to = (to != path).then_some(to);
        if hunks.is_empty() && move_to.is_none() {
            return Err(if mode_change {
                error(
                    start,
                    PatchErrorKind::Unsupported,
                    format!(
                        "the entry for {} only changes the file's mode (`old mode`/`new mode`), \
                         which apply_patch does not do: remove this entry",
                        show(&path)
                    ),
                )
            } else {
                no_hunk(start, &path)
            });
        }
        FilePatch::Update { path, move_to, hunks }
    };
    Ok((Entry { line: start, file }, next))
}

/// A `diff -u` entry: `--- old` and `+++ new`, then hunks.
fn traditional_entry(lines: &[&str], start: usize) -> Result<(Entry, usize), PatchError> {
    let (old, old_stamp) = header_name(&lines[start][4..], start)?;
    let (new, new_stamp) = header_name(&lines[start + 1][4..], start + 1)?;
    let (old_null, new_null) = (old == DEV_NULL, new == DEV_NULL);
    let (old, new) = match (old.strip_prefix("a/"), new.strip_prefix("b/")) {
        (Some(o), Some(n)) => (o.to_string(), n.to_string()),
        (Some(o), None) if new_null => (o.to_string(), new),
        (None, Some(n)) if old_null => (old, n.to_string()),
        _ => (old, new),
    };
    let (hunks, next) = hunks(lines, start + 2, if old_null { &new } else { &old })?;
    let old_absent =
        old_null || (is_epoch(old_stamp) && !hunks.is_empty() && hunks.iter().all(|h| h.old_len() == 0));
    let new_absent =
        new_null || (is_epoch(new_stamp) && !hunks.is_empty() && hunks.iter().all(|h| h.new_len() == 0));
    let file = if old_absent && new_absent {
        return Err(both_absent(start));
    } else if old_absent {
        let path = check_path(&new, start + 1)?;
        FilePatch::Add { content: added(&hunks, &path)?, path }
    } else if new_absent {
        let path = check_path(&old, start)?;
        let expected = if hunks.is_empty() { None } else { Some(deleted(&hunks, &path)?) };
        FilePatch::Delete { path, expected }
    } else {
        let path = check_path(&old, start)?;
        let to = check_path(&new, start + 1)?;
        if to != path {
            return Err(error(
                start,
                PatchErrorKind::Syntax,
                format!(
                    "the file header names two files, {} (`---`) and {} (`+++`), and a plain \
                     unified diff cannot rename: give the same path on both lines, or rename \
                     with git's `diff --git` and `rename from`/`rename to` headers",
                    show(&path),
                    show(&to)
                ),
            ));
        }
        if hunks.is_empty() {
            return Err(no_hunk(start, &path));
        }
        FilePatch::Update { path, move_to: None, hunks }
    };
    Ok((Entry { line: start, file }, next))
}

/// Refuses an entry whose git mode (`new file mode`, `index ... <mode>`, ...) says it is a
/// symbolic link or a submodule: its "content" is a link's target or a commit, and writing it
/// as a regular file would be silently wrong.
fn special_mode(line: &str, index: usize) -> Result<(), PatchError> {
    let is_mode_line = ["new file mode ", "deleted file mode ", "old mode ", "new mode ", "index "]
        .iter()
        .any(|head| line.starts_with(head));
    let what = match line.rsplit(' ').next() {
        Some("120000") if is_mode_line => "a symbolic link",
        Some("160000") if is_mode_line => "a submodule",
        _ => return Ok(()),
    };
    Err(error(
        index,
        PatchErrorKind::Unsupported,
        format!(
            "this entry is {what} (git mode {}), which apply_patch does not create or change: \
             leave it out of the patch and change it with a shell",
            line.rsplit(' ').next().unwrap_or_default()
        ),
    ))
}

fn both_absent(index: usize) -> PatchError {
    error(
        index,
        PatchErrorKind::Syntax,
        "both sides of this file are /dev/null: name the file on the `+++` line to add it, or \
         on the `---` line to delete it"
            .into(),
    )
}

fn no_hunk(index: usize, path: &str) -> PatchError {
    error(
        index,
        PatchErrorKind::NoChange,
        format!(
            "the entry for {} has no hunk: give its changes as `@@ -l,n +l,n @@` hunks, or \
             remove the entry",
            show(path)
        ),
    )
}

/// A new file's content: its hunks may only add lines.
fn added(hunks: &[Hunk], path: &str) -> Result<String, PatchError> {
    only(hunks, path, |l| matches!(l, HunkLine::Add(_)), "a new file's lines all start with '+'")?;
    Ok(hunks.iter().map(Hunk::new_text).collect())
}

/// A deleted file's expected content: its hunks may only remove lines.
fn deleted(hunks: &[Hunk], path: &str) -> Result<String, PatchError> {
    only(hunks, path, |l| matches!(l, HunkLine::Remove(_)), "a deleted file's lines all start with '-'")?;
    Ok(hunks.iter().map(Hunk::old_text).collect())
}

fn only(hunks: &[Hunk], path: &str, fits: fn(&HunkLine) -> bool, rule: &str) -> Result<(), PatchError> {
    for (k, hunk) in hunks.iter().enumerate() {
        if let Some(line) = hunk.lines.iter().find(|l| !fits(l)) {
            return Err(error(
                hunk.patch_line - 1,
                PatchErrorKind::Syntax,
                format!("hunk {} of {} has the line {}, but {rule}", k + 1, show(path), show(line.text())),
            ));
        }
    }
    Ok(())
}

/// A file's hunks from `start`, until the next file or the end; `path` is for messages.
fn hunks(lines: &[&str], start: usize, path: &str) -> Result<(Vec<Hunk>, usize), PatchError> {
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut last_counted = false;
    let mut i = start;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("@@") {
            let (hunk, next, counted) = hunk(lines, i, path, hunks.len() + 1)?;
            hunks.push(hunk);
            last_counted = counted;
            i = next;
            continue;
        }
        if line.starts_with("diff --git ") || is_file_header(lines, i) {
            break;
        }
        if is_binary(line) {
            return Err(binary(i));
        }
        // `-- ` opens `git format-patch`'s signature.
        let signature = line.trim_end_matches('\r') == "-- " || line.trim_end_matches('\r') == "--";
        if !is_blank(line) && !signature && line.starts_with([' ', '-', '+']) {
            return Err(match hunks.last() {
                None => error(
                    i,
                    PatchErrorKind::Syntax,
                    format!(
                        "expected a hunk header `@@ -l,n +l,n @@` after the file header of {}, \
                         found {}",
                        show(path),
                        show(line)
                    ),
                ),
                Some(hunk) if last_counted => error(
                    i,
                    PatchErrorKind::LineCount,
                    format!(
                        "hunk {} of {} (patch line {}) already has the {} old and {} new lines \
                         its header announces, but {} continues it: recount the lines (a \
                         context line counts on both sides), or send a Codex patch \
                         (`*** Begin Patch`), which needs no counts",
                        hunks.len(),
                        show(path),
                        hunk.patch_line,
                        hunk.old_len(),
                        hunk.new_len(),
                        show(line)
                    ),
                ),
                Some(hunk) => error(
                    i,
                    PatchErrorKind::Syntax,
                    format!(
                        "{} is outside any hunk: hunk {} of {} (patch line {}) ended at a line \
                         that does not start with ' ', '-' or '+'; prefix context lines with a \
                         space",
                        show(line),
                        hunks.len(),
                        show(path),
                        hunk.patch_line
                    ),
                ),
            });
        }
        i += 1;
    }
    Ok((hunks, i))
}

/// One hunk from its `@@` line at `start`; also where it ends and whether it was counted.
fn hunk(lines: &[&str], start: usize, path: &str, number: usize) -> Result<(Hunk, usize, bool), PatchError> {
    let header = lines[start];
    let Some(range) = parse_range(&header[2..]) else {
        return uncounted(lines, start, path, number);
    };
    let old_start = old_start_of(&range, start)?;
    let mut building = Building::new(start, Vec::new(), Some(old_start), range.section.clone());
    let (mut old_left, mut new_left) = (range.old_count, range.new_count);
    let shown_header = show(header.trim_end());
    let mut i = start + 1;
    while old_left > 0 || new_left > 0 {
        let short = |found: &str| {
            let (old_have, new_have) = (range.old_count - old_left, range.new_count - new_left);
            format!(
                "hunk {number} of {} (patch line {}) has {old_have} old and {new_have} new lines \
                 where its header {shown_header} announces {} and {}, and {found}: recount the \
                 lines (a context line counts on both sides), or send a Codex patch \
                 (`*** Begin Patch`), which needs no counts",
                show(path),
                start + 1,
                range.old_count,
                range.new_count,
            )
        };
        let Some(&line) = lines.get(i) else {
            return Err(error(
                lines.len() - 1,
                PatchErrorKind::LineCount,
                short(
                    "the patch ends there (if it was cut off by your output limit, send it again \
                     complete)",
                ),
            ));
        };
        let hunk_line = match line.as_bytes().first() {
            Some(b' ') => HunkLine::Context(line[1..].to_string()),
            Some(b'-') => HunkLine::Remove(line[1..].to_string()),
            Some(b'+') => HunkLine::Add(line[1..].to_string()),
            Some(b'\\') => {
                building.no_newline(i)?;
                i += 1;
                continue;
            }
            // An empty context line whose space was trimmed away.
            _ if line.trim_end_matches('\r').is_empty() => HunkLine::Context(blank_text(line).to_string()),
            _ => {
                let found = if line.starts_with("@@") {
                    "the next hunk starts".to_string()
                } else {
                    format!(
                        "the next line, {}, does not start with ' ', '-' or '+' (prefix context \
                         lines with a space)",
                        show(line)
                    )
                };
                return Err(error(i, PatchErrorKind::LineCount, short(&found)));
            }
        };
        let fits = (!hunk_line.in_old() || old_left > 0) && (!hunk_line.in_new() || new_left > 0);
        if !fits {
            let side = if old_left == 0 { "old" } else { "new" };
            return Err(error(
                i,
                PatchErrorKind::LineCount,
                short(&format!("the next line, {}, is one {side} line more", show(line))),
            ));
        }
        old_left -= usize::from(hunk_line.in_old());
        new_left -= usize::from(hunk_line.in_new());
        building.push(hunk_line, i)?;
        i += 1;
    }
    if lines.get(i).is_some_and(|l| l.starts_with('\\')) {
        building.no_newline(i)?;
        i += 1;
    }
    if building.hunk.lines.is_empty() {
        return Err(error(
            start,
            PatchErrorKind::Syntax,
            format!(
                "hunk {number} of {} announces no lines ({shown_header}): remove it, or give \
                 the lines it changes",
                show(path)
            ),
        ));
    }
    Ok((building.finish(path, number)?, i, true))
}

/// A hunk whose `@@` line has no numbers (models write bare `@@` as in Codex patches): its
/// lines run to the next `@@`, file, or line that is not a hunk line.
fn uncounted(
    lines: &[&str],
    start: usize,
    path: &str,
    number: usize,
) -> Result<(Hunk, usize, bool), PatchError> {
    let text = lines[start][2..].trim();
    let text = text.strip_suffix("@@").unwrap_or(text).trim();
    if text.starts_with('-') || text.starts_with('+') {
        return Err(error(
            start,
            PatchErrorKind::Syntax,
            format!(
                "malformed hunk header {}: expected `@@ -<old line>,<old count> +<new line>,<new \
                 count> @@`",
                show(lines[start].trim_end())
            ),
        ));
    }
    let contexts = if text.is_empty() { Vec::new() } else { vec![text.to_string()] };
    let mut building = Building::new(start, contexts, None, None);
    let mut i = start + 1;
    while let Some(&line) = lines.get(i) {
        if line.starts_with("@@") || line.starts_with("diff --git ") || is_file_header(lines, i) {
            break;
        }
        match line.as_bytes().first() {
            Some(b' ') => building.push(HunkLine::Context(line[1..].to_string()), i)?,
            Some(b'-') => building.push(HunkLine::Remove(line[1..].to_string()), i)?,
            Some(b'+') => building.push(HunkLine::Add(line[1..].to_string()), i)?,
            Some(b'\\') => building.no_newline(i)?,
            _ if is_blank(line) => building.push_blank(line),
            _ => break,
        }
        i += 1;
    }
    Ok((building.finish(path, number)?, i, false))
}
