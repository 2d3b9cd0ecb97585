//! The finish check, claims and the journal, as the model reads them.

use super::*;

/// One file's entry in the finish check: its verdict and facts, then its stubs, unresolved
/// references or problems, one per line.
fn check_entry(file: &FileCheck) -> String {
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
    let mut text = format!("{}: {} ({facts})", file.path, file.status.label());
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
                    text.push_str(&format!("\n  {}:{} {}\n      {}", p.line, p.column, p.message, p.source));
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
    text
}

impl Rendered for CheckOutcome {
    /// The files that need work first, then the others, each in path order, while they fit;
    /// the verdict counts every file all the same.
    fn fit(&mut self, room: &mut Room) {
        let files = std::mem::take(&mut self.files);
        spend_rest(self, room);
        let needs_work = |f: &FileCheck| !matches!(f.status, FileStatus::Complete | FileStatus::NotChecked);
        let mut keep = vec![false; files.len()];
        for first in [true, false] {
            for (i, f) in files.iter().enumerate().filter(|(_, f)| needs_work(f) == first) {
                keep[i] = room.take(check_entry(f).chars().count() + 1, json_size(f) + 1);
            }
        }
        self.not_listed = keep.iter().filter(|k| !**k).count();
        self.files = files.into_iter().zip(keep).filter_map(|(f, keep)| keep.then_some(f)).collect();
    }

    fn text(&self) -> String {
        let mut text = String::new();
        for file in &self.files {
            text.push_str(&check_entry(file));
            text.push('\n');
        }
        if self.not_listed > 0 {
            use FileStatus::*;
            let listed = |s: &[FileStatus]| self.files.iter().filter(|f| s.contains(&f.status)).count();
            let unlisted: Vec<String> = [
                (self.complete, &[Complete][..], "complete"),
                (self.incomplete, &[Incomplete][..], "incomplete"),
                (self.errors, &[Errors][..], "with errors"),
                (self.with_stubs, &[Stubs][..], "with stubs"),
                (self.unresolved, &[Unresolved][..], "with unresolved references"),
                (self.missing, &[Missing, Unreadable][..], "missing or unreadable"),
                (self.not_checked, &[NotChecked][..], "not checked"),
            ]
            .into_iter()
            .filter_map(|(all, statuses, label)| {
                let n = all - listed(statuses).min(all);
                (n > 0).then(|| format!("{n} {label}"))
            })
            .collect();
            text.push_str(&format!(
                "({} not listed, to keep this result within {} characters: {}; check_files with fewer \
                 `paths` lists them)\n",
                plural(self.not_listed, "more file"),
                thousands(TEXT_CHARS),
                unlisted.join(", ")
            ));
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

/// `Not released: p is owned by agent "b", not "a"`, as one line.
fn not_released_line(n: &crate::store::NotReleased, agent: &str) -> String {
    match &n.owner {
        Some(owner) => format!("Not released: {} is owned by agent {owner:?}, not {agent:?}", n.path),
        None => format!("Not released: {} was not claimed", n.path),
    }
}

/// One live claim: `\n  path  agent "a" since ..., fencing token 7`.
fn claim_line(c: &crate::store::Claim) -> String {
    let mut line =
        format!("\n  {}  agent {:?} since {}, fencing token {}", c.path, c.agent, c.since, c.token);
    if let Some(expires) = &c.expires {
        line.push_str(&format!(" (expires {expires})"));
    }
    line
}

impl Rendered for ClaimsOutcome {
    /// What could not be released first, then the paths claimed or released (the caller named
    /// them), then the live claims, each list while it fits.
    fn fit(&mut self, room: &mut Room) {
        let claimed = std::mem::take(&mut self.claimed);
        let released = std::mem::take(&mut self.released);
        let not_released = std::mem::take(&mut self.not_released);
        let claims = std::mem::take(&mut self.claims);
        spend_rest(self, room);
        let agent = self.agent.clone();
        self.not_released = not_released;
        self.more_not_released += keep_shown(&mut self.not_released, room, |n| not_released_line(n, &agent));
        let named = |p: &String| (p.chars().count() + 2, json_chars(p) + 3);
        self.claimed = claimed;
        self.more_claimed += keep_fitting(&mut self.claimed, room, named);
        self.released = released;
        self.more_released += keep_fitting(&mut self.released, room, named);
        self.claims = claims;
        self.not_listed += keep_shown(&mut self.claims, room, claim_line);
    }

    fn text(&self) -> String {
        let mut text = String::new();
        for (verb, paths, more) in
            [("Claimed", &self.claimed, self.more_claimed), ("Released", &self.released, self.more_released)]
        {
            if !paths.is_empty() || more > 0 {
                text.push_str(&format!(
                    "{verb} {} for agent {:?}: {}{}\n",
                    plural(paths.len() + more, "file"),
                    self.agent,
                    paths.join(", "),
                    and_more(more)
                ));
            }
        }
        for n in &self.not_released {
            text.push_str(&not_released_line(n, &self.agent));
            text.push('\n');
        }
        if self.more_not_released > 0 {
            text.push_str(&format!(
                "({} more paths not released, not listed to keep this result within {} characters)\n",
                self.more_not_released,
                thousands(TEXT_CHARS)
            ));
        }
        let total = self.claims.len() + self.not_listed;
        if total == 0 {
            text.push_str("No file is claimed on this root.");
        } else {
            text.push_str(&format!("{total} claim(s) on this root:"));
            for c in &self.claims {
                text.push_str(&claim_line(c));
            }
            if self.not_listed > 0 {
                text.push_str(&format!(
                    "\n  ({} more claims not listed, to keep this result within {} characters; they hold all the same)",
                    self.not_listed,
                    thousands(TEXT_CHARS)
                ));
            }
        }
        text
    }
}

/// One artifact's line: `\n  path  12 bytes, last write by "a" at ..., on disk: matches`.
fn artifact_line(v: &crate::session::ArtifactView) -> String {
    let a = &v.artifact;
    format!(
        "\n  {}  {} bytes, last {} by {:?} at {}, {} write(s), sha256 {}..., on disk: {}",
        a.path,
        a.size,
        a.action,
        a.agent,
        a.time,
        a.writes,
        &a.sha256[..a.sha256.len().min(12)],
        v.on_disk.as_str()
    )
}

/// One recorded write under its artifact, with the undo steps that restore it.
fn history_line(h: &crate::store::JournalEntry) -> String {
    let restore = match h.restore_with_steps {
        Some(0) => " (current)".to_string(),
        Some(steps) => format!(" (undo steps: {steps} restores it)"),
        None => " (no longer restorable)".to_string(),
    };
    format!("\n      {} {} by {:?}: +{} -> {} bytes{restore}", h.time, h.action, h.agent, h.added, h.size)
}

impl Rendered for ArtifactsOutcome {
    /// Files by path while they fit; of the file that reaches the bound, its newest writes.
    fn fit(&mut self, room: &mut Room) {
        let artifacts = std::mem::take(&mut self.artifacts);
        spend_rest(self, room);
        let mut full = false;
        for mut v in artifacts {
            let mut history = std::mem::take(&mut v.artifact.history);
            full = full || !room.take(artifact_line(&v).chars().count() + 1, json_size(&v) + 1);
            if full {
                self.not_listed += 1;
                continue;
            }
            history.reverse();
            v.history_not_listed = keep_shown(&mut history, room, history_line);
            history.reverse();
            full = v.history_not_listed > 0;
            v.artifact.history = history;
            self.artifacts.push(v);
        }
    }

    fn text(&self) -> String {
        if self.artifacts.is_empty() && self.not_listed == 0 {
            return "No artifacts recorded (nothing written through filewright on this root yet, or none matches the filter).".into();
        }
        let mut text = format!("{} artifact(s):", self.artifacts.len() + self.not_listed);
        for v in &self.artifacts {
            text.push_str(&artifact_line(v));
            if v.history_not_listed > 0 {
                text.push_str(&format!(
                    "\n      ({} older writes not listed, to keep this result within {} characters)",
                    v.history_not_listed,
                    thousands(TEXT_CHARS)
                ));
            }
            for h in &v.artifact.history {
                text.push_str(&history_line(h));
            }
        }
        if self.not_listed > 0 {
            text.push_str(&format!(
                "\n({} more files not listed, to keep this result within {} characters: list_artifacts with \
                 `path` (one file) or `agent` lists fewer)",
                self.not_listed,
                thousands(TEXT_CHARS)
            ));
        }
        text
    }
}
