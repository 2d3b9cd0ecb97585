//! The finish check, claims and the journal, as the model reads them.

use super::*;

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
