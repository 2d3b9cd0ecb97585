//! Turns a session outcome or an [`Error`] into a `CallToolResult`: a short text for the model
//! plus `structuredContent` matching the tool's `outputSchema`; every failure is `isError: true`.

use rmcp::model::{CallToolResult, ContentBlock, Resource};
use serde::Serialize;

use crate::check::{LanguageName, Report, Status};
use crate::error::Error;
use crate::session::{
    AppendOutcome, ArtifactsOutcome, CheckOutcome, ClaimsOutcome, CopyOutcome, DeleteOutcome, EditOutcome,
    FileStatus, FindOutcome, InfoOutcome, LineEndings, ListOutcome, MAX_TOTAL_CHARS, MediaOutcome,
    MkdirOutcome, MoveOutcome, OutlineOutcome, PatchOutcome, PatchedAs, ReadManyOutcome, ReadOutcome,
    SearchOutcome, UndoOutcome, WriteOutcome,
};
use crate::workspace::FileKind;

/// Something a tool can return: structured data and its human-readable text.
pub trait Rendered: Serialize {
    /// The text the model reads.
    fn text(&self) -> String;

    /// The root-relative path of the file the call wrote, for a `resource_link` in the result.
    fn written(&self) -> Option<&str> {
        None
    }

    /// An image the result shows the model (its bytes and MIME type), as image content after
    /// the text.
    fn image(&self) -> Option<(&[u8], &'static str)> {
        None
    }
}

/// Renders a tool's result or its error. `uri` turns the path of a written file into the
/// link the result carries.
pub fn rendered<T: Rendered>(
    outcome: Result<T, Error>,
    uri: &dyn Fn(&str) -> Option<String>,
) -> CallToolResult {
    match outcome {
        Ok(value) => success(&value, uri),
        Err(error) => error_result(&error.to_string()),
    }
}

/// The result of a call whose thread stopped (a panic) before it answered.
pub fn task_failed(why: &dyn std::fmt::Display) -> CallToolResult {
    tracing::error!("tool task failed: {why}");
    error_result(
        "internal error: the tool stopped unexpectedly; nothing is known to have been written. \
         Run read_file on the path to see its current state before retrying.",
    )
}

fn success<T: Rendered>(value: &T, uri: &dyn Fn(&str) -> Option<String>) -> CallToolResult {
    match serde_json::to_value(value) {
        Ok(structured) => {
            let mut content = vec![ContentBlock::text(value.text())];
            if let Some(path) = value.written()
                && let Some(uri) = uri(path)
            {
                let name = path.rsplit('/').next().unwrap_or(path);
                content.push(ContentBlock::resource_link(Resource::new(uri, name).with_title(path)));
            }
            if let Some((bytes, mime_type)) = value.image() {
                use base64::Engine;
                let data = base64::engine::general_purpose::STANDARD.encode(bytes);
                content.push(ContentBlock::image(data, mime_type));
            }
            let mut result = CallToolResult::success(content);
            result.structured_content = Some(structured);
            result
        }
        Err(e) => error_result(&format!("internal error: could not encode the result ({e})")),
    }
}

/// An `isError: true` result with `text` for the model.
pub fn error_result(text: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.to_string())])
}

fn kind_name(kind: crate::check::stubs::StubKind) -> &'static str {
    use crate::check::stubs::StubKind::*;
    match kind {
        NoCode => "no code",
        PlaceholderComment => "placeholder comment",
        StubBody => "stub body",
        EmptyHtmlBody => "empty body",
        LinkedAsset => "linked asset",
    }
}

fn ref_kind_name(kind: crate::check::refs::RefKind) -> &'static str {
    use crate::check::refs::RefKind::*;
    match kind {
        File => "file",
        Module => "module",
        Name => "name",
        Id => "id",
    }
}

/// `1 line`, `2 lines`.
fn lines(n: usize) -> String {
    plural(n, "line")
}

/// What a walk under find or search left out, for the "(...)" line after the results.
fn walk_notes(walked: &crate::files::Walked) -> Vec<String> {
    let mut notes = Vec::new();
    if walked.stopped {
        notes.push("the search stopped after 100,000 entries: search a subdirectory".to_string());
    }
    if walked.ignored > 0 {
        notes.push(format!("{} ignored by .gitignore or .ignore", plural(walked.ignored, "entry")));
    }
    notes
}

/// `n` and the noun, in the plural unless `n` is 1 ("1 file", "3 files", "2 entries").
fn plural(n: usize, noun: &str) -> String {
    match (n, noun.strip_suffix('y')) {
        (1, _) => format!("{n} {noun}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        _ => format!("{n} {noun}s"),
    }
}

/// The hook's line(s), when a hook ran.
fn hook_lines(hook: &Option<crate::hooks::HookReport>) -> String {
    let Some(h) = hook else { return String::new() };
    let status = match (h.timed_out, h.exit_code, h.signal) {
        (true, _, _) => "timed out".to_string(),
        (false, Some(0), _) => "ok".to_string(),
        (false, Some(code), _) => format!("exit code {code}"),
        (false, None, Some(signal)) => format!("killed by signal {signal}"),
        (false, None, None) => "did not run".to_string(),
    };
    let mut text = format!("\nhook `{}`: {status}", h.command);
    let output = h.output.trim_end();
    if !output.is_empty() {
        text.push_str(&format!("\n{output}"));
    }
    text
}

fn with_warnings(mut text: String, warnings: &[String]) -> String {
    for w in warnings {
        text.push_str("\nwarning: ");
        text.push_str(w);
    }
    text
}

/// The syntax line after an append. A clean parse of a file still being built is not proof
/// that it is finished (many prefixes parse clean), so it never says "ok" here.
fn append_syntax_line(report: &Report) -> String {
    match report.status {
        Status::Ok => "syntax: no problems so far (run check_files when the file is finished)".to_string(),
        _ => report.summary(),
    }
}

impl Rendered for WriteOutcome {
    fn written(&self) -> Option<&str> {
        Some(&self.path)
    }

    fn text(&self) -> String {
        let head = format!(
            "{} {}: {} chars, {} ({} bytes, sha256 {}{}){}",
            if self.created { "Created" } else { "Wrote" },
            self.path,
            self.chars,
            lines(self.lines),
            self.size,
            self.after.sha256,
            encoding_note(&self.encoding, false),
            if self.unescaped { ", unescaped" } else { "" }
        );
        let mut text = format!("{head}\n{}", self.after.syntax.summary());
        if self.after.syntax.status == Status::Incomplete {
            text.push_str("\nnext: append_file the next part");
        }
        text.push_str(&hook_lines(&self.after.hook));
        with_warnings(text, &self.after.warnings)
    }
}

impl Rendered for AppendOutcome {
    fn written(&self) -> Option<&str> {
        Some(&self.path)
    }

    fn text(&self) -> String {
        let head = if self.duplicate_skipped {
            format!(
                "Nothing appended to {}: it already ends with this chunk (total: {} bytes, {}, sha256 {})",
                self.path,
                self.size,
                lines(self.lines),
                self.after.sha256
            )
        } else {
            format!(
                "Appended to {}: +{} chars (total: {} bytes, {}, sha256 {}{}){}",
                self.path,
                self.chars,
                self.size,
                lines(self.lines),
                self.after.sha256,
                encoding_note(&self.encoding, false),
                if self.unescaped { ", unescaped" } else { "" }
            )
        };
        let text =
            format!("{head}\n{}{}", append_syntax_line(&self.after.syntax), hook_lines(&self.after.hook));
        with_warnings(text, &self.after.warnings)
    }
}

impl Rendered for ReadOutcome {
    fn text(&self) -> String {
        if self.total_lines == 0 {
            return format!(
                "{} is empty ({} bytes{}, sha256 {}).",
                self.path,
                self.total_bytes,
                encoding_note(&self.encoding, self.bom),
                self.sha256
            );
        }
        let mut text = self.content.clone();
        text.push_str(&format!(
            "\n\n[{}: lines {}-{} of {}, {} bytes, sha256 {}{}{}",
            self.path,
            self.start_line,
            self.end_line,
            self.total_lines,
            self.total_bytes,
            self.sha256,
            if self.line_endings == LineEndings::Crlf { ", CRLF line endings" } else { "" },
            if self.ends_with_newline { "" } else { ", no newline at end of file" },
        ));
        text.push_str(&encoding_note(&self.encoding, self.bom));
        match self.next_offset {
            Some(next) => text.push_str(&format!("; more follows: read_file with offset {next}]")),
            None => text.push_str("; end of file]"),
        }
        if self.cut_lines > 0 {
            text.push_str(&format!("\n({} long lines were cut at 2000 characters)", self.cut_lines));
        }
        if let Some(problem) = &self.encoding_problem {
            text.push_str(&format!("\n(note: {problem})"));
        }
        text
    }
}

/// `", encoding Shift_JIS"`, `", encoding UTF-16LE with a BOM"`: how a result names a file's
/// encoding when it is not plain UTF-8 (nothing when it is).
fn encoding_note(name: &str, bom: bool) -> String {
    match (name, bom) {
        ("UTF-8", false) => String::new(),
        (name, true) => format!(", encoding {name} with a BOM"),
        (name, false) => format!(", encoding {name}"),
    }
}

impl Rendered for CheckOutcome {
    fn text(&self) -> String {
        let mut text = String::new();
        for file in &self.files {
            let facts = if file.exists {
                format!(
                    "{} bytes, {}, {}",
                    file.size,
                    lines(file.lines),
                    file.language.map_or("not checked", LanguageName::as_str)
                )
            } else {
                "-".to_string()
            };
            text.push_str(&format!("{}: {} ({facts})", file.path, file.status.label()));
            for stub in &file.stubs {
                text.push_str(&format!(
                    "\n  {}: {} ({})\n      {}",
                    stub.line,
                    stub.message,
                    kind_name(stub.kind),
                    stub.source
                ));
            }
            if file.more_stubs > 0 {
                text.push_str(&format!("\n  ... and {} more stubs", file.more_stubs));
            }
            for unresolved in &file.unresolved {
                text.push_str(&format!(
                    "\n  {}: `{}` {} (unresolved {})",
                    unresolved.line,
                    unresolved.reference,
                    unresolved.reason,
                    ref_kind_name(unresolved.kind)
                ));
            }
            if file.more_unresolved > 0 {
                text.push_str(&format!("\n  ... and {} more unresolved references", file.more_unresolved));
            }
            if !matches!(file.status, FileStatus::Complete | FileStatus::Stubs | FileStatus::Unresolved) {
                match &file.syntax {
                    Some(report) if !report.problems.is_empty() => {
                        for p in &report.problems {
                            text.push_str(&format!(
                                "\n  {}:{} {}\n      {}",
                                p.line, p.column, p.message, p.source
                            ));
                        }
                        if report.more_problems > 0 {
                            text.push_str(&format!("\n  ... and {} more", report.more_problems));
                        }
                    }
                    _ => {
                        if let Some(note) = &file.note {
                            text.push_str(&format!("\n  {note}"));
                        }
                    }
                }
            }
            text.push('\n');
        }
        text.push_str(&format!("verdict: {}", self.verdict));
        if !self.all_complete && !self.files.is_empty() {
            text.push_str(
                "\nnext: finish or fix the files above (append_file adds what is missing), then check again",
            );
        }
        text
    }
}

impl Rendered for ClaimsOutcome {
    fn text(&self) -> String {
        let mut text = String::new();
        if !self.claimed.is_empty() {
            text.push_str(&format!("Claimed for agent {:?}: {}\n", self.agent, self.claimed.join(", ")));
        }
        if !self.released.is_empty() {
            text.push_str(&format!("Released by agent {:?}: {}\n", self.agent, self.released.join(", ")));
        }
        for n in &self.not_released {
            match &n.owner {
                Some(owner) => text.push_str(&format!(
                    "Not released: {} is owned by agent {owner:?}, not {:?}\n",
                    n.path, self.agent
                )),
                None => text.push_str(&format!("Not released: {} was not claimed\n", n.path)),
            }
        }
        if self.claims.is_empty() {
            text.push_str("No file is claimed on this root.");
        } else {
            text.push_str(&format!("{} claim(s) on this root:", self.claims.len()));
            for c in &self.claims {
                text.push_str(&format!(
                    "\n  {}  agent {:?} since {}, fencing token {}",
                    c.path, c.agent, c.since, c.token
                ));
                if let Some(expires) = &c.expires {
                    text.push_str(&format!(" (expires {expires})"));
                }
            }
        }
        text
    }
}

impl Rendered for ArtifactsOutcome {
    fn text(&self) -> String {
        if self.artifacts.is_empty() {
            return "No artifacts recorded (nothing written through filewright on this root yet, or none matches the filter).".into();
        }
        let mut text = format!("{} artifact(s):", self.artifacts.len());
        for v in &self.artifacts {
            let a = &v.artifact;
            text.push_str(&format!(
                "\n  {}  {} bytes, last {} by {:?} at {}, {} write(s), sha256 {}..., on disk: {}",
                a.path,
                a.size,
                a.action,
                a.agent,
                a.time,
                a.writes,
                &a.sha256[..a.sha256.len().min(12)],
                v.on_disk.as_str()
            ));
            for h in &a.history {
                let restore = match h.restore_with_steps {
                    Some(0) => " (current)".to_string(),
                    Some(steps) => format!(" (undo steps: {steps} restores it)"),
                    None => " (no longer restorable)".to_string(),
                };
                text.push_str(&format!(
                    "\n      {} {} by {:?}: +{} -> {} bytes{restore}",
                    h.time, h.action, h.agent, h.added, h.size
                ));
            }
        }
        text
    }
}

impl Rendered for EditOutcome {
    /// A dry run wrote nothing, so it links nothing.
    fn written(&self) -> Option<&str> {
        (!self.dry_run).then_some(self.path.as_str())
    }

    fn text(&self) -> String {
        let verb = match (self.dry_run, self.created) {
            (true, _) => "Dry run, nothing written:",
            (false, true) => "Created",
            (false, false) => "Edited",
        };
        let mut text = format!(
            "{verb} {}: {} replacement{}, {} ({} bytes, sha256 {}){}\n",
            self.path,
            self.replacements,
            if self.replacements == 1 { "" } else { "s" },
            lines(self.lines),
            self.size,
            self.after.sha256,
            if self.converted_to_crlf { ", LF in your strings matched as the file's CRLF" } else { "" },
        );
        for tolerated in &self.tolerated {
            text.push_str(&format!("not exact: {tolerated}; the diff shows what landed\n"));
        }
        text.push_str(self.diff.trim_end());
        text.push('\n');
        text.push_str(&self.after.syntax.summary());
        if self.new_problems > 0 {
            text.push_str(&format!(
                "\nnew since the edit (this edit introduced them): {}",
                self.new_problems_at.join(", ")
            ));
        } else if !self.after.syntax.problems.is_empty() {
            text.push_str("\n(none of these problems is new: they were there before the edit)");
        }
        text.push_str(&hook_lines(&self.after.hook));
        with_warnings(text, &self.after.warnings)
    }
}

impl Rendered for ListOutcome {
    fn text(&self) -> String {
        let listing = &self.listing;
        let mut text = format!("{}:", self.path);
        if listing.entries.is_empty() {
            text.push_str(" (empty)");
        }
        for e in &listing.entries {
            let indent = "  ".repeat(e.depth);
            let name = e.name();
            match (e.kind, e.size) {
                (FileKind::Directory, _) => text.push_str(&format!("\n{indent}{name}/")),
                (FileKind::File, Some(size)) => text.push_str(&format!("\n{indent}{name}  ({size} bytes)")),
                (FileKind::File, None) => text.push_str(&format!("\n{indent}{name}  (file)")),
                (FileKind::Symlink, _) => text.push_str(&format!("\n{indent}{name}  (symlink)")),
                (FileKind::Other, _) => text.push_str(&format!("\n{indent}{name}  (other)")),
            }
        }
        let mut left_out = Vec::new();
        if listing.omitted > 0 {
            let at_least = if listing.stopped { "at least " } else { "" };
            left_out.push(format!(
                "{at_least}{} more entries not shown (list a subdirectory or lower the depth)",
                listing.omitted
            ));
        }
        if listing.ignored > 0 {
            left_out.push(format!("{} ignored by .gitignore", listing.ignored));
        }
        if listing.hidden > 0 {
            left_out.push(format!("{} hidden", listing.hidden));
        }
        if !left_out.is_empty() {
            text.push_str(&format!("\n({})", left_out.join("; ")));
        }
        text
    }
}

impl Rendered for OutlineOutcome {
    fn text(&self) -> String {
        let outline = &self.outline;
        let mut text = format!("{} ({}):", self.path, lines(self.total_lines));
        if outline.items.is_empty() {
            text.push_str(" no definitions found");
        }
        for item in &outline.items {
            let indent = "  ".repeat(item.depth + 1);
            text.push_str(&format!(
                "\n{indent}{}-{} {} {}",
                item.start_line, item.end_line, item.kind, item.name
            ));
        }
        if outline.more > 0 {
            text.push_str(&format!(
                "\n({} more definitions not shown: read_file the part you need)",
                outline.more
            ));
        }
        if let Some(note) = &outline.note {
            text.push_str(&format!("\nnote: {note}"));
        }
        text
    }
}

impl Rendered for UndoOutcome {
    fn text(&self) -> String {
        let what = if self.undone.len() == 1 {
            "change".to_string()
        } else {
            format!("{} changes", self.undone.len())
        };
        let state = match self.removed {
            true => format!("{} no longer exists (the first change undone created it)", self.path),
            false => format!(
                "{} is back to {} ({} bytes, sha256 {})",
                self.path,
                lines(self.lines),
                self.size,
                self.after.sha256
            ),
        };
        let mut text = format!("Undid {what}: {state}.");
        for undone in &self.undone {
            text.push_str(&format!("\n  undone: {undone}"));
        }
        text.push_str(&format!("\n{}", self.after.syntax.summary()));
        text.push_str(&hook_lines(&self.after.hook));
        with_warnings(text, &self.after.warnings)
    }
}

impl Rendered for MoveOutcome {
    fn written(&self) -> Option<&str> {
        Some(&self.to)
    }

    fn text(&self) -> String {
        let mut text = format!(
            "Moved {} to {}{}: {} ({} bytes, sha256 {})\n{}",
            self.from,
            self.to,
            if self.replaced { " (replacing the file there)" } else { "" },
            lines(self.lines),
            self.size,
            self.after.sha256,
            self.after.syntax.summary()
        );
        text.push_str(&hook_lines(&self.after.hook));
        with_warnings(text, &self.after.warnings)
    }
}

impl Rendered for PatchOutcome {
    fn text(&self) -> String {
        let verb =
            if self.dry_run { "Dry run, nothing written: the patch applies" } else { "Applied the patch" };
        let mut text = format!("{verb} ({} format) to {}:", self.format, plural(self.files.len(), "file"));
        for f in &self.files {
            let name = match &f.moved_to {
                Some(to) => format!("{} -> {to}", f.path),
                None => f.path.clone(),
            };
            let counts = match f.action {
                PatchedAs::Added => format!("+{}", lines(f.added_lines)),
                PatchedAs::Deleted => format!("-{}", lines(f.removed_lines)),
                _ => format!("+{} -{}", f.added_lines, f.removed_lines),
            };
            text.push_str(&format!("\n  {} {name} ({counts}", f.action));
            if f.action != PatchedAs::Deleted {
                text.push_str(&format!(", now {}, {} bytes", lines(f.lines), f.size));
            }
            text.push(')');
            for tolerated in &f.tolerated {
                text.push_str(&format!("\n    not exact: {tolerated}"));
            }
        }
        let mut warnings = self.warnings.clone();
        for f in &self.files {
            if let Some(after) = &f.after {
                let shown = f.moved_to.as_deref().unwrap_or(&f.path);
                text.push_str(&format!("\n{shown}: {}", after.syntax.summary()));
                text.push_str(&hook_lines(&after.hook));
                warnings.extend(after.warnings.iter().map(|w| format!("{shown}: {w}")));
            }
            if let Some(diff) = &f.diff {
                text.push('\n');
                text.push_str(diff.trim_end());
            }
        }
        with_warnings(text, &warnings)
    }
}

impl Rendered for DeleteOutcome {
    fn text(&self) -> String {
        let what = match self.removed {
            FileKind::Directory => "the empty directory".to_string(),
            _ => format!("{} bytes", self.size),
        };
        let undo = if self.undoable { "; undo on this path brings it back" } else { "" };
        with_warnings(format!("Deleted {} ({what}){undo}.", self.path), &self.warnings)
    }
}

impl Rendered for FindOutcome {
    fn text(&self) -> String {
        let mut text = match self.files.len() {
            0 => format!("No file under {} matches {:?}.", self.path, self.pattern),
            n => format!(
                "{n} file{} under {} match {:?}, newest first:",
                if n == 1 { "" } else { "s" },
                self.path,
                self.pattern
            ),
        };
        for f in &self.files {
            let count = f.lines.map(|n| format!(", {}", lines(n))).unwrap_or_default();
            let file = &f.file;
            text.push_str(&format!(
                "\n  {}  ({} bytes{count}, modified {})",
                file.path, file.size, file.modified
            ));
        }
        let mut left_out = Vec::new();
        if self.more > 0 {
            left_out.push(format!(
                "{} more matches not shown (raise max_results or narrow the pattern)",
                self.more
            ));
        }
        left_out.extend(walk_notes(&self.walked));
        if !left_out.is_empty() {
            text.push_str(&format!("\n({})", left_out.join("; ")));
        }
        text
    }
}

impl Rendered for SearchOutcome {
    /// ripgrep's layout: `path:line: text` for a match, `path-line- text` for a context line,
    /// `--` between groups that are not adjacent, a blank line between files.
    fn text(&self) -> String {
        let found = &self.found;
        let mut text = match found.matches {
            0 => format!("No line under {} matches {:?}", self.path, self.pattern),
            n => format!(
                "{} in {} under {} match {:?}",
                plural(n, "line"),
                plural(found.files_matched, "file"),
                self.path,
                self.pattern
            ),
        };
        text.push_str(&format!(" ({} searched).", plural(found.searched, "file")));
        for file in &found.files {
            text.push('\n');
            let mut previous: Option<u64> = None;
            for line in &file.lines {
                if previous.is_some_and(|p| line.line > p + 1) {
                    text.push_str("\n--");
                }
                let mark = if line.context { '-' } else { ':' };
                text.push_str(&format!("\n{}{mark}{}{mark} {}", file.path, line.line, line.text));
                previous = Some(line.line);
            }
        }
        let mut left_out = Vec::new();
        if self.more > 0 {
            left_out.push(format!(
                "{} not shown (raise max_results, narrow the pattern, or pass path or glob)",
                plural(self.more, "more matching line")
            ));
        }
        if found.binary > 0 {
            left_out.push(format!("{} skipped as binary", plural(found.binary, "file")));
        }
        if found.too_large > 0 {
            left_out
                .push(format!("{} skipped as larger than --max-file-bytes", plural(found.too_large, "file")));
        }
        if found.unreadable > 0 {
            left_out.push(format!("{} could not be read", plural(found.unreadable, "file")));
        }
        left_out.extend(walk_notes(&found.walked));
        if !left_out.is_empty() {
            text.push_str(&format!("\n\n({})", left_out.join("; ")));
        }
        text
    }
}

impl Rendered for ReadManyOutcome {
    /// One section per path, in the order asked: `== path ==`, then the file as read_file
    /// shows it, or its error.
    fn text(&self) -> String {
        let mut sections = Vec::with_capacity(self.files.len() + 2);
        for f in &self.files {
            let body = match (&f.file, &f.error) {
                (Some(file), _) if f.cut => format!(
                    "{}\n(cut here to keep this result within {MAX_TOTAL_CHARS} characters of lines)",
                    file.text()
                ),
                (Some(file), _) => file.text(),
                (None, error) => format!("error: {}", error.as_deref().unwrap_or("not read")),
            };
            sections.push(format!("== {} ==\n{body}", f.path));
        }
        let mut summary =
            format!("({} of {} read", plural(self.read, "file"), self.files.len() + self.not_shown.len());
        if self.failed > 0 {
            summary.push_str(&format!(", {} could not be", self.failed));
        }
        summary.push_str(&format!("; {} characters of lines)", self.chars));
        sections.push(summary);
        if !self.not_shown.is_empty() {
            sections.push(format!(
                "(not read, to keep this result within {MAX_TOTAL_CHARS} characters of lines: {}. Read them \
                 with read_multiple_files {{paths: [those]}})",
                self.not_shown.join(", ")
            ));
        }
        sections.join("\n\n")
    }
}

/// `0750 (rwxr-x---)`: permission bits in octal and as `ls -l` shows them.
fn permissions(octal: &str) -> String {
    let Ok(mode) = u32::from_str_radix(octal, 8) else { return octal.to_string() };
    let rwx: String = (0..9)
        .map(|bit| match mode & (0o400 >> bit) != 0 {
            true => ['r', 'w', 'x'][bit % 3],
            false => '-',
        })
        .collect();
    format!("{octal} ({rwx})")
}

impl Rendered for InfoOutcome {
    fn text(&self) -> String {
        let kind = match self.kind {
            FileKind::Directory => "directory",
            FileKind::File => "file",
            FileKind::Symlink | FileKind::Other => "not a regular file (a FIFO, socket or device)",
        };
        let mut text = format!("{}: {kind}", self.path);
        if let Some(target) = &self.link_to {
            text.push_str(&format!(" (through a symbolic link to {target})"));
        }
        match self.entries {
            Some(entries) => text.push_str(&format!(", {}", plural(entries, "entry"))),
            None => text.push_str(&format!(", {} bytes", self.size)),
        }
        text.push_str(&format!(
            ", modified {}, permissions {}",
            self.modified,
            permissions(&self.permissions)
        ));
        if let (Some(lines), Some(encoding)) = (self.lines, &self.encoding) {
            let endings = match self.line_endings {
                Some(LineEndings::Crlf) => ", CRLF line endings",
                Some(LineEndings::Lf) => ", LF line endings",
                _ => "",
            };
            let end = match self.ends_with_newline {
                Some(false) if lines > 0 => ", no newline at end of file",
                _ => "",
            };
            text.push_str(&format!(
                "\ntext: {}{}{endings}{end}",
                plural(lines, "line"),
                encoding_note(encoding, self.bom.unwrap_or(false))
            ));
        }
        match (self.image, self.width.zip(self.height)) {
            (Some(kind), Some((w, h))) => text.push_str(&format!(
                "\nimage: {}, {w}x{h} pixels (read_media_file shows it)",
                kind.mime_type()
            )),
            (Some(kind), None) => {
                text.push_str(&format!("\nimage: {} (read_media_file shows it)", kind.mime_type()))
            }
            (None, _) if self.binary == Some(true) => text.push_str("\nbinary data (not text)"),
            _ => {}
        }
        if let Some(sha256) = &self.sha256 {
            text.push_str(&format!("\nsha256 {sha256}"));
        }
        match (&self.syntax, self.language) {
            (Some(report), _) => text.push_str(&format!("\n{}", report.summary())),
            (None, Some(language)) => text.push_str(&format!("\nlanguage: {}", language.as_str())),
            _ => {}
        }
        match &self.last_change {
            Some(last) => text.push_str(&format!(
                "\nlast change through filewright: {} by agent {:?} at {} ({} recorded); on disk now: {}",
                last.action,
                last.agent,
                last.time,
                plural(last.changes as usize, "change"),
                last.on_disk.as_str()
            )),
            None => text.push_str("\nno change of it recorded through filewright"),
        }
        if let Some(claim) = &self.claim {
            text.push_str(&format!(
                "\nclaimed by agent {:?} since {}, fencing token {}",
                claim.agent, claim.since, claim.token
            ));
        }
        for skipped in &self.not_computed {
            text.push_str(&format!("\nnot computed: {skipped}"));
        }
        text
    }
}

impl Rendered for MkdirOutcome {
    fn text(&self) -> String {
        let text = match self.created.split_last() {
            None => format!("{} already exists as a directory; nothing was changed.", self.path),
            Some((_, [])) => format!("Created the directory {}.", self.path),
            Some((_, parents)) => {
                format!("Created the directory {} and its parents {}.", self.path, parents.join(", "))
            }
        };
        with_warnings(text, &self.warnings)
    }
}

impl Rendered for CopyOutcome {
    fn written(&self) -> Option<&str> {
        Some(&self.to)
    }

    fn text(&self) -> String {
        let mut text = format!(
            "Copied {} to {}{}: {} ({} bytes, sha256 {}, permissions {}){}\n{}",
            self.from,
            self.to,
            if self.replaced { " (replacing the file there)" } else { "" },
            lines(self.lines),
            self.size,
            self.after.sha256,
            permissions(&self.permissions),
            if self.identical { ", read back identical" } else { "" },
            self.after.syntax.summary()
        );
        text.push_str(&hook_lines(&self.after.hook));
        with_warnings(text, &self.after.warnings)
    }
}

impl Rendered for MediaOutcome {
    fn image(&self) -> Option<(&[u8], &'static str)> {
        Some((&self.bytes, self.mime_type.mime_type()))
    }

    fn text(&self) -> String {
        let pixels = match self.width.zip(self.height) {
            Some((w, h)) => format!("{w}x{h} pixels, "),
            None => String::new(),
        };
        let text = format!(
            "{}: {}, {pixels}{} bytes, sha256 {} (the image follows)",
            self.path,
            self.mime_type.mime_type(),
            self.size,
            self.sha256
        );
        with_warnings(text, &self.warnings)
    }
}
