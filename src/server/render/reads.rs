//! Files, listings and searches, as the model reads them.

use super::*;

impl Rendered for ReadOutcome {
    fn text(&self) -> String {
        match &self.notebook {
            Some(nb) if nb.as_cells => return notebook_text(self),
            Some(nb) => {
                let why = nb.broken.as_deref().unwrap_or("not shown as cells");
                return format!("({}: {why})\n{}", self.path, file_text(self));
            }
            None => {}
        }
        file_text(self)
    }
}

/// A notebook's page of cells, and its footer: the cells shown, the file's facts, where to
/// read on.
fn notebook_text(page: &ReadOutcome) -> String {
    let mut text = page.content.clone();
    let total = page.notebook.as_ref().map_or(0, |nb| nb.total_cells);
    let cells = match (total, page.start_line == page.end_line) {
        (0, _) => "no cells".to_string(),
        (_, true) => format!("cell {} of {total}", page.start_line),
        (_, false) => format!("cells {}-{} of {total}", page.start_line, page.end_line),
    };
    text.push_str(&format!(
        "\n\n[{}: {cells}; the file has {} lines, {} bytes, sha256 {}{}",
        page.path,
        page.total_lines,
        page.total_bytes,
        page.sha256,
        encoding_note(&page.encoding, page.bom)
    ));
    match page.next_offset {
        Some(next) => text.push_str(&format!("; more cells follow: read_file with offset {next}]")),
        None => text.push_str("; last cell]"),
    }
    if page.cut_lines > 0 {
        text.push_str(&format!(
            "\n({} cut at 2000 characters: read_file with raw: true shows the file's JSON)",
            match page.cut_lines {
                1 => "1 long line was".to_string(),
                n => format!("{n} long lines were"),
            }
        ));
    }
    if let Some(problem) = &page.encoding_problem {
        text.push_str(&format!("\n(note: {problem})"));
    }
    text
}

/// A file's page of numbered lines, and its footer.
fn file_text(page: &ReadOutcome) -> String {
    if page.total_lines == 0 {
        return format!(
            "{} is empty ({} bytes{}, sha256 {}).",
            page.path,
            page.total_bytes,
            encoding_note(&page.encoding, page.bom),
            page.sha256
        );
    }
    let mut text = page.content.clone();
    text.push_str(&format!(
        "\n\n[{}: lines {}-{} of {}, {} bytes, sha256 {}{}{}",
        page.path,
        page.start_line,
        page.end_line,
        page.total_lines,
        page.total_bytes,
        page.sha256,
        if page.line_endings == LineEndings::Crlf { ", CRLF line endings" } else { "" },
        if page.ends_with_newline { "" } else { ", no newline at end of file" },
    ));
    text.push_str(&encoding_note(&page.encoding, page.bom));
    match page.next_offset {
        Some(next) => text.push_str(&format!("; more follows: read_file with offset {next}]")),
        None => text.push_str("; end of file]"),
    }
    if page.cut_lines > 0 {
        let cut = match page.cut_lines {
            1 => "1 long line was".to_string(),
            n => format!("{n} long lines were"),
        };
        text.push_str(&format!(
            "\n({cut} cut at 2000 characters: the rest of such a line cannot be read, as read_file \
             has no offset within a line)"
        ));
    }
    if let Some(problem) = &page.encoding_problem {
        text.push_str(&format!("\n(note: {problem})"));
    }
    text
}

impl Rendered for ReadManyOutcome {
    /// One section per path, in the order asked: `== path ==`, then the file as read_file
    /// shows it, or its error.
    fn text(&self) -> String {
        let mut sections = Vec::with_capacity(self.files.len() + 2);
        for f in &self.files {
            let body = match (&f.file, &f.error) {
                (Some(file), _) if f.cut => format!(
                    "{}\n(cut here to keep this result within {} characters)",
                    file.text(),
                    thousands(TEXT_CHARS)
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
                "(not read, to keep this result within {} characters: {}. Read them with \
                 read_multiple_files {{paths: [those]}})",
                thousands(TEXT_CHARS),
                self.not_shown.join(", ")
            ));
        }
        sections.join("\n\n")
    }
}

/// One definition as the outline shows it: `\n  12-48 class Timer`, indented by nesting.
fn outline_line(item: &crate::check::outline::Item) -> String {
    let indent = "  ".repeat(item.depth + 1);
    format!("\n{indent}{}-{} {} {}", item.start_line, item.end_line, item.kind, item.name)
}

impl Rendered for OutlineOutcome {
    fn fit(&mut self, room: &mut Room) {
        let items = std::mem::take(&mut self.outline.items);
        spend_rest(self, room);
        self.outline.items = items;
        self.outline.more += keep_shown(&mut self.outline.items, room, outline_line);
    }

    fn text(&self) -> String {
        let outline = &self.outline;
        let mut text = format!("{} ({}):", self.path, lines(self.total_lines));
        if outline.items.is_empty() {
            text.push_str(" no definitions found");
        }
        for item in &outline.items {
            text.push_str(&outline_line(item));
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

/// One entry as a listing shows it: `\n  name  (12 bytes)`, indented by depth.
fn entry_line(e: &crate::workspace::DirEntry) -> String {
    let indent = "  ".repeat(e.depth);
    let name = e.name();
    match (e.kind, e.size) {
        (FileKind::Directory, _) => format!("\n{indent}{name}/"),
        (FileKind::File, Some(size)) => format!("\n{indent}{name}  ({size} bytes)"),
        (FileKind::File, None) => format!("\n{indent}{name}  (file)"),
        (FileKind::Symlink, _) => format!("\n{indent}{name}  (symlink)"),
        (FileKind::Other, _) => format!("\n{indent}{name}  (other)"),
    }
}

impl Rendered for ListOutcome {
    fn fit(&mut self, room: &mut Room) {
        let entries = std::mem::take(&mut self.listing.entries);
        spend_rest(self, room);
        self.listing.entries = entries;
        self.listing.omitted += keep_shown(&mut self.listing.entries, room, entry_line);
    }

    fn text(&self) -> String {
        let listing = &self.listing;
        let mut text = format!("{}:", self.path);
        if listing.entries.is_empty() {
            text.push_str(" (empty)");
        }
        for e in &listing.entries {
            text.push_str(&entry_line(e));
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

/// One file as find_files shows it: `\n  path  (12 bytes, 3 lines, modified ...)`.
fn found_line(f: &crate::session::FoundFile) -> String {
    let count = f.lines.map(|n| format!(", {}", lines(n))).unwrap_or_default();
    let file = &f.file;
    format!("\n  {}  ({} bytes{count}, modified {})", file.path, file.size, file.modified)
}

impl Rendered for FindOutcome {
    fn fit(&mut self, room: &mut Room) {
        if self.sized_by_caller {
            return;
        }
        let files = std::mem::take(&mut self.files);
        spend_rest(self, room);
        self.files = files;
        self.more += keep_shown(&mut self.files, room, found_line);
    }

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
            text.push_str(&found_line(f));
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

/// One line as search_files shows it: `\npath:12: text` for a match, `\npath-12- text` for
/// context.
fn hit_line(path: &str, line: &crate::files::HitLine) -> String {
    let mark = if line.context { '-' } else { ':' };
    format!("\n{path}{mark}{}{mark} {}", line.line, line.text)
}

impl Rendered for SearchOutcome {
    /// Files in path order, and lines in each, while they fit; a matching line left out is
    /// counted in `more` (its context lines go with it).
    fn fit(&mut self, room: &mut Room) {
        if self.sized_by_caller {
            return;
        }
        let files = std::mem::take(&mut self.found.files);
        spend_rest(self, room);
        let mut full = false;
        for mut file in files {
            let mut lines = std::mem::take(&mut file.lines);
            let total = lines.len();
            let path = file.path.display();
            // The blank line before the file's group; its path and count in JSON.
            full = full || !room.take(2, json_size(&file) + 1);
            let kept = match full {
                true => 0,
                // `--` between groups may come before a line: 3 characters more.
                false => lines
                    .iter()
                    .position(|l| !room.take(hit_line(&path, l).chars().count() + 3, json_size(l) + 1))
                    .unwrap_or(lines.len()),
            };
            let dropped = lines.drain(kept..).filter(|l| !l.context).count();
            self.more += dropped;
            self.found.shown -= dropped;
            full = full || kept < total;
            if !lines.is_empty() {
                file.lines = lines;
                self.found.files.push(file);
            }
        }
    }

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
                text.push_str(&hit_line(&file.path.display(), line));
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
