//! Files, listings and searches, as the model reads them.

use super::*;

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
            left_out.push(format!("{} ignored by .gitignore or .ignore", listing.ignored));
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
