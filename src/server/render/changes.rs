//! What a writing tool did, as the model reads it.

use super::*;

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

impl Rendered for EditOutcome {
    /// A dry run wrote nothing, so it links nothing.
    fn written(&self) -> Option<&str> {
        (!self.dry_run).then_some(self.path.as_str())
    }

    /// The diff's whole lines while they fit, then a line that says how much is left out.
    fn fit(&mut self, room: &mut Room) {
        let diff = std::mem::take(&mut self.diff);
        spend_rest(self, room);
        let (kept, left_out) = crate::budget::fit_lines(&diff, room);
        self.diff = match left_out {
            0 => diff,
            n => format!(
                "{kept}... diff cut: {} more characters, to keep this result within {} characters (read_file \
                 shows the result)\n",
                thousands(n),
                thousands(TEXT_CHARS)
            ),
        };
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

/// A patched file's line in the list: `\n  updated p (+2 -1, now 40 lines, 812 bytes)` and
/// what a tolerant match ignored.
fn patched_line(f: &PatchedFile) -> String {
    let mut name = match &f.moved_to {
        Some(to) => format!("{} -> {to}", f.path),
        None => f.path.clone(),
    };
    if f.replaced {
        name.push_str(" (replacing the file there)");
    }
    let counts = match f.action {
        PatchedAs::Added => format!("+{}", lines(f.added_lines)),
        PatchedAs::Deleted => format!("-{}", lines(f.removed_lines)),
        _ => format!("+{} -{}", f.added_lines, f.removed_lines),
    };
    let mut text = format!("\n  {} {name} ({counts}", f.action);
    if f.action != PatchedAs::Deleted {
        text.push_str(&format!(", now {}, {} bytes", lines(f.lines), f.size));
    }
    text.push(')');
    for tolerated in &f.tolerated {
        text.push_str(&format!("\n    not exact: {tolerated}"));
    }
    text
}

/// A patched file's check after the list: its syntax line and its hook's, and its warnings
/// (shown at the end of the result, each naming the file).
fn patched_check(f: &PatchedFile) -> (String, Vec<String>) {
    let Some(after) = &f.after else { return (String::new(), Vec::new()) };
    let shown = f.moved_to.as_deref().unwrap_or(&f.path);
    let text = format!("\n{shown}: {}{}", after.syntax.summary(), hook_lines(&after.hook));
    (text, after.warnings.iter().map(|w| format!("{shown}: {w}")).collect())
}

impl Rendered for PatchOutcome {
    /// Every file's line and check while they fit, in the patch's order; then the diffs
    /// while they fit.
    fn fit(&mut self, room: &mut Room) {
        let mut files = std::mem::take(&mut self.files);
        spend_rest(self, room);
        let diffs: Vec<Option<String>> = files.iter_mut().map(|f| f.diff.take()).collect();
        self.files = files;
        self.not_listed += keep_fitting(&mut self.files, room, |f| {
            let (check, warnings) = patched_check(f);
            let warned: usize = warnings.iter().map(|w| w.chars().count() + 10).sum();
            (patched_line(f).chars().count() + check.chars().count() + warned, json_size(f) + 1)
        });
        for (f, diff) in self.files.iter_mut().zip(diffs) {
            let Some(diff) = diff else { continue };
            match room.take(diff.chars().count() + 1, json_chars(&diff) + 10) {
                true => f.diff = Some(diff),
                false => self.diffs_not_shown += 1,
            }
        }
    }

    fn text(&self) -> String {
        let verb =
            if self.dry_run { "Dry run, nothing written: the patch applies" } else { "Applied the patch" };
        let total = self.files.len() + self.not_listed;
        let mut text = format!("{verb} ({} format) to {}:", self.format, plural(total, "file"));
        for f in &self.files {
            text.push_str(&patched_line(f));
        }
        if self.not_listed > 0 {
            let fate =
                if self.dry_run { "they apply all the same" } else { "they were patched all the same" };
            text.push_str(&format!(
                "\n  ({} more files, the last in the patch, not listed to keep this result within {} characters: \
                 {fate}; check_files checks them)",
                self.not_listed,
                thousands(TEXT_CHARS)
            ));
        }
        let mut warnings = self.warnings.clone();
        for f in &self.files {
            let (check, warned) = patched_check(f);
            text.push_str(&check);
            warnings.extend(warned);
            if let Some(diff) = &f.diff {
                text.push('\n');
                text.push_str(diff.trim_end());
            }
        }
        if self.diffs_not_shown > 0 {
            text.push_str(&format!(
                "\n(diff not shown for {}, to keep this result within {} characters: read_file shows the \
                 files once applied, or a dry run of fewer files shows their diffs)",
                plural(self.diffs_not_shown, "file"),
                thousands(TEXT_CHARS)
            ));
        }
        with_warnings(text, &warnings)
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

impl Rendered for NotebookEditOutcome {
    fn written(&self) -> Option<&str> {
        Some(&self.edit.path)
    }

    fn text(&self) -> String {
        let edit = &self.edit;
        let mut text = format!(
            "{} {}: {} cell{} ({} bytes, sha256 {})\n",
            if edit.created { "Created" } else { "Edited" },
            edit.path,
            self.cells,
            if self.cells == 1 { "" } else { "s" },
            edit.size,
            edit.after.sha256,
        );
        for done in &self.done {
            text.push_str(&format!("- {done}\n"));
        }
        text.push_str(&edit.after.syntax.summary());
        if edit.new_problems > 0 {
            text.push_str(&format!(
                "\nnew since the edit (this edit introduced them): {}",
                edit.new_problems_at.join(", ")
            ));
        }
        text.push_str(&hook_lines(&edit.after.hook));
        with_warnings(text, &edit.after.warnings)
    }
}
