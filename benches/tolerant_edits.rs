//! How `edit_file`'s tolerant matching does on edits whose `old_string` drifts from the file
//! the ways models' copies drift, on published files nobody in this project wrote.
//!
//! Corpus, read where it is (nothing is copied into the repository): Python from the python3
//! standard library (test directories skipped), Rust and C from cargo's registry sources (which
//! hold tab-indented crates as well as space-indented ones). Files over 200 KB or with a line
//! over 500 characters are skipped.
//!
//! Each case is an exact edit of a few lines (a line changed, inserted, deleted, or a nested
//! line added), made on a region that occurs once in the file. Two families of drift:
//! - **the copy drifts**: `old_string` and `new_string` are drifted the same way, as a model
//!   that sees the file through that drift would send both: trailing blanks added, one
//!   indentation level more or fewer, tabs as spaces or spaces as tabs, straight quotes typed
//!   curly, a space typed as a non-breaking one;
//! - **the file drifts**: the file's lines of the region show what the model types as ASCII
//!   (dashes for its hyphens, curly quotes for its straight ones, non-breaking spaces, trailing
//!   blanks; once more in a CRLF file), the model quotes them in ASCII and writes lines of its
//!   own with hyphens and straight quotes in them.
//!
//! (A first line that lost its indentation alone is not a drift: the quote then occurs exactly,
//! from the line's first character.) A drifted quote that occurs exactly elsewhere in the file
//! is not a case either: matching it exactly is the rule, and the control row measures exact
//! edits.
//!
//! The intended result is the rule tolerance keeps: the lines the model kept from its quote
//! are the file's lines as they stand, and every line the model changed or added is its own
//! text exactly as it sent it, only indented as the exact edit indents it (so with the copy's
//! curly quotes, trailing blanks or non-breaking space where the copy drifts those, and with
//! its hyphens and straight quotes in a file of dashes and curly quotes). The drifted edit is
//! applied in memory with the same code `edit_file` runs (`files::apply_edits` with tolerance
//! on) and sorted into: applied as intended (byte for byte), applied wrongly (anything else
//! that changed the file), refused as ambiguous (the error lists candidates), or refused as not
//! found. An undrifted control row checks that exact edits behave as before.
//!
//! Run: `cargo bench --bench tolerant_edits -- [--seed N] [--cases N]` (cases per drift; default 400).
//! Prints a Markdown table for BENCHMARKS.md and the first few wrong results in full.
#[path = "common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{pct, walk};
use filewright::files::{Edit, apply_edits};

const MAX_FILE_BYTES: usize = 200 * 1024;
const MAX_LINE_CHARS: usize = 500;
/// Wrong results printed in full.
const SHOWN: usize = 3;

/// A seeded generator (splitmix64): runs with one seed choose the same cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The ways a model's copy of the file drifts.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Drift {
    None,
    TrailingBlanks,
    Deeper,
    Shallower,
    TabsAsSpaces,
    SpacesAsTabs,
    CurlyQuotes,
    NonBreakingSpace,
    FileDashes,
    FileCurlyQuotes,
    FileNonBreakingSpace,
    FileTrailingBlanks,
    FileDashesCrlf,
}

impl Drift {
    const ALL: [Drift; 13] = [
        Drift::None,
        Drift::TrailingBlanks,
        Drift::Deeper,
        Drift::Shallower,
        Drift::TabsAsSpaces,
        Drift::SpacesAsTabs,
        Drift::CurlyQuotes,
        Drift::NonBreakingSpace,
        Drift::FileDashes,
        Drift::FileCurlyQuotes,
        Drift::FileNonBreakingSpace,
        Drift::FileTrailingBlanks,
        Drift::FileDashesCrlf,
    ];

    fn name(self) -> &'static str {
        match self {
            Drift::None => "none (exact control)",
            Drift::TrailingBlanks => "trailing blanks added",
            Drift::Deeper => "one level deeper",
            Drift::Shallower => "one level shallower",
            Drift::TabsAsSpaces => "tabs sent as 4 spaces",
            Drift::SpacesAsTabs => "4 spaces sent as a tab",
            Drift::CurlyQuotes => "straight quotes typed curly",
            Drift::NonBreakingSpace => "a space typed as U+00A0",
            Drift::FileDashes => "file's dashes typed as hyphens",
            Drift::FileCurlyQuotes => "file's curly quotes typed straight",
            Drift::FileNonBreakingSpace => "file's U+00A0 typed as a space",
            Drift::FileTrailingBlanks => "file's trailing blanks left out",
            Drift::FileDashesCrlf => "same as dashes, CRLF file",
        }
    }

    /// Whether the drift is the file's (its lines show look-alikes of what the model types),
    /// not the copy's.
    fn in_file(self) -> bool {
        matches!(
            self,
            Drift::FileDashes
                | Drift::FileCurlyQuotes
                | Drift::FileNonBreakingSpace
                | Drift::FileTrailingBlanks
                | Drift::FileDashesCrlf
        )
    }

    /// A line body of the file's region as the file shows it, for a drift of the file.
    fn in_the_file(self, body: &str) -> String {
        match self {
            Drift::FileDashes | Drift::FileDashesCrlf => {
                // Alternately an em and an en dash, as prose mixes them.
                let mut em = true;
                body.chars()
                    .map(|c| match c {
                        '-' => {
                            em = !em;
                            if em { '\u{2013}' } else { '\u{2014}' }
                        }
                        c => c,
                    })
                    .collect()
            }
            Drift::FileCurlyQuotes => curly(body),
            Drift::FileNonBreakingSpace => Drift::NonBreakingSpace.apply(body, ""),
            Drift::FileTrailingBlanks if !body.trim().is_empty() => format!("{body}  "),
            _ => body.to_owned(),
        }
    }

    /// Whether the drift changes anything in `lines` (else the case is not one of its kind).
    fn applies(self, lines: &[&str], unit: &str) -> bool {
        match self {
            Drift::None | Drift::TrailingBlanks | Drift::Deeper => true,
            Drift::Shallower => lines.iter().all(|l| l.trim().is_empty() || l.starts_with(unit)),
            Drift::TabsAsSpaces => lines.iter().any(|l| l.starts_with('\t')),
            Drift::SpacesAsTabs => unit == "    " && lines.iter().any(|l| l.starts_with("    ")),
            Drift::CurlyQuotes => lines.iter().any(|l| l.contains('"') || l.contains('\'')),
            Drift::NonBreakingSpace | Drift::FileNonBreakingSpace => {
                lines.iter().any(|l| l.trim().contains(' '))
            }
            Drift::FileDashes | Drift::FileDashesCrlf => lines.iter().any(|l| l.contains('-')),
            Drift::FileCurlyQuotes => lines.iter().any(|l| l.contains('"') || l.contains('\'')),
            Drift::FileTrailingBlanks => true,
        }
    }

    /// `text` (whole lines) as the drifted copy shows it.
    fn apply(self, text: &str, unit: &str) -> String {
        let mut out = String::new();
        for line in text.split_inclusive('\n') {
            let (body, end) = match (line.strip_suffix("\r\n"), line.strip_suffix('\n')) {
                (Some(b), _) => (b, "\r\n"),
                (None, Some(b)) => (b, "\n"),
                (None, None) => (line, ""),
            };
            let blank = body.trim().is_empty();
            let drifted = match self {
                Drift::None => body.to_owned(),
                Drift::TrailingBlanks if !blank => format!("{body}  "),
                Drift::Deeper if !blank => format!("{unit}{body}"),
                Drift::Shallower if !blank => body.strip_prefix(unit).unwrap_or(body).to_owned(),
                Drift::TabsAsSpaces => {
                    let rest = body.trim_start_matches('\t');
                    format!("{}{rest}", "    ".repeat(body.len() - rest.len()))
                }
                Drift::SpacesAsTabs => {
                    let rest = body.trim_start_matches(' ');
                    let n = body.len() - rest.len();
                    format!("{}{}{rest}", "\t".repeat(n / 4), " ".repeat(n % 4))
                }
                Drift::CurlyQuotes => curly(body),
                Drift::NonBreakingSpace => {
                    let rest = body.trim_start();
                    let indent = &body[..body.len() - rest.len()];
                    format!("{indent}{}", rest.replacen(' ', "\u{a0}", 1))
                }
                _ => body.to_owned(),
            };
            out.push_str(&drifted);
            out.push_str(end);
        }
        out
    }
}

/// Straight quotes as a word processor types them: opening after a blank or bracket.
fn curly(line: &str) -> String {
    let mut out = String::new();
    let mut prev = ' ';
    for c in line.chars() {
        let opening = prev.is_whitespace() || "([{=,:".contains(prev);
        out.push(match (c, opening) {
            ('"', true) => '\u{201c}',
            ('"', false) => '\u{201d}',
            ('\'', true) => '\u{2018}',
            ('\'', false) => '\u{2019}',
            _ => c,
        });
        prev = c;
    }
    out
}

/// What a drifted edit did.
#[derive(Default, Clone, Copy)]
struct Tally {
    cases: usize,
    intended: usize,
    wrong: usize,
    ambiguous: usize,
    not_found: usize,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1));
    let seed: u64 = value("--seed").and_then(|v| v.parse().ok()).unwrap_or(1);
    let per_drift: usize = value("--cases").and_then(|v| v.parse().ok()).unwrap_or(400);
    let files = corpus();
    if files.is_empty() {
        println!("no corpus found (python3's standard library, cargo's registry sources)");
        return;
    }
    let texts: Vec<(PathBuf, String)> = files
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            let usable =
                text.len() <= MAX_FILE_BYTES && text.lines().all(|l| l.chars().count() <= MAX_LINE_CHARS);
            usable.then_some((p, text))
        })
        .collect();
    println!("{} files in the corpus, seed {seed}, {per_drift} cases per drift\n", texts.len());
    println!(
        "| drift | cases | applied as intended | applied wrongly | refused: ambiguous | refused: not found |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let mut wrongs = Vec::new();
    let mut total = Tally::default();
    for drift in Drift::ALL {
        let mut rng = Rng(seed ^ (drift as u64).wrapping_mul(0x1234_5678_9abc));
        let mut tally = Tally::default();
        let mut attempts = 0;
        while tally.cases < per_drift && attempts < per_drift * 200 {
            attempts += 1;
            let (path, text) = &texts[rng.below(texts.len())];
            let Some(case) = make_case(text, &mut rng, drift) else { continue };
            tally.cases += 1;
            let edit = Edit::Replace { old: case.old.clone(), new: case.new.clone(), replace_all: false };
            match apply_edits("f", &case.text, &[edit], true) {
                Ok(edited) if edited.text == case.intended => tally.intended += 1,
                Ok(edited) => {
                    tally.wrong += 1;
                    if wrongs.len() < SHOWN * Drift::ALL.len()
                        && !wrongs.iter().any(|w: &(PathBuf, Drift, Case, String)| w.1 == drift)
                    {
                        wrongs.push((path.clone(), drift, case, edited.text));
                    }
                }
                Err(e) if e.to_string().contains("places") || e.to_string().contains("times") => {
                    tally.ambiguous += 1
                }
                Err(_) => tally.not_found += 1,
            }
        }
        println!(
            "| {} | {} | {} ({}) | {} | {} | {} |",
            drift.name(),
            tally.cases,
            tally.intended,
            pct(tally.intended, tally.cases - tally.ambiguous),
            tally.wrong,
            tally.ambiguous,
            tally.not_found
        );
        if drift != Drift::None {
            total.cases += tally.cases;
            total.intended += tally.intended;
            total.wrong += tally.wrong;
            total.ambiguous += tally.ambiguous;
            total.not_found += tally.not_found;
        }
    }
    println!(
        "| **all drifts** | {} | {} ({}) | {} | {} | {} |",
        total.cases,
        total.intended,
        pct(total.intended, total.cases - total.ambiguous),
        total.wrong,
        total.ambiguous,
        total.not_found
    );
    println!("\n(\"applied as intended\" in parentheses: of the cases that are not ambiguous)");
    for (path, drift, case, got) in wrongs {
        println!(
            "\n--- wrong: {} ({})\nold_string:\n{}\nnew_string:\n{}\nintended region:\n{}\ngot:\n{}",
            path.display(),
            drift.name(),
            case.old,
            case.new,
            case.intended_region,
            region_of(&got, &case)
        );
    }
}

/// One drifted edit and what the rule gives.
struct Case {
    /// The file it edits (the corpus file, or with the region as a drift of the file shows it).
    text: String,
    old: String,
    new: String,
    intended: String,
    intended_region: String,
    /// Byte where the region starts (the texts agree before it).
    at: usize,
}

fn region_of(got: &str, case: &Case) -> String {
    got.get(case.at..)
        .unwrap_or("")
        .lines()
        .take(case.intended_region.lines().count() + 2)
        .collect::<Vec<_>>()
        .join("\n")
}

/// An exact edit of 3 to 8 lines of `text` at a random place, drifted by `drift`; None when
/// the place does not suit (its lines are not unique, or the drift would change nothing).
fn make_case(text: &str, rng: &mut Rng, drift: Drift) -> Option<Case> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines.len() < 10 {
        return None;
    }
    let len = 3 + rng.below(6);
    let from = rng.below(lines.len() - len);
    let region = &lines[from..from + len];
    if region[0].trim().is_empty() || region.iter().any(|l| !l.ends_with('\n')) {
        return None;
    }
    let bodies: Vec<&str> = region.iter().map(|l| l.trim_end_matches('\n')).collect();
    let unit = if bodies.iter().any(|l| l.starts_with('\t')) { "\t" } else { "    " };
    if !drift.applies(&bodies, unit) {
        return None;
    }
    let old: String = region.concat();
    if text.matches(old.as_str()).count() != 1 {
        return None;
    }
    // The exact change: a line changed, inserted, deleted, or a nested line added; each line
    // of it with whether the model wrote it (true) or kept it from its quote (false). In a file
    // that drifts, the model's own lines hold hyphens and straight quotes.
    let k = 1 + rng.below(len - 2);
    let indent = |l: &str| l[..l.len() - l.trim_start().len()].to_owned();
    let mut new_lines: Vec<(String, bool)> = region.iter().map(|l| (l.to_string(), false)).collect();
    // New lines end as the file's lines do, and sit where a line of code would: after a line
    // with text, at its indentation.
    let eol = if region[k].ends_with("\r\n") { "\r\n" } else { "\n" };
    if region[k].trim().is_empty() {
        return None;
    }
    let (changed, inserted, nested) = match drift.in_file() {
        false => (" + changed", "inserted_call();", "nested_call();"),
        true => (" - f(\"a-b\", 'c')", "inserted_call(\"x - y\", 'z');", "nested_call(\"a-b\");"),
    };
    match rng.below(4) {
        0 => {
            let body = new_lines[k].0.trim_end_matches('\n').to_owned();
            if body.trim().is_empty() {
                return None;
            }
            new_lines[k] = (format!("{}{changed}{eol}", body.trim_end_matches('\r')), true);
        }
        1 => new_lines.insert(k + 1, (format!("{}{inserted}{eol}", indent(region[k])), true)),
        2 => {
            new_lines.remove(k);
        }
        _ => new_lines.insert(k + 1, (format!("{}{unit}{nested}{eol}", indent(region[k])), true)),
    }
    let start = lines[..from].iter().map(|l| l.len()).sum::<usize>();
    let (before, after) = (&text[..start], &text[start + old.len()..]);
    if drift.in_file() {
        // The file shows the region drifted; the model quotes it and writes in ASCII, with LF.
        let crlf = drift == Drift::FileDashesCrlf;
        if crlf && text.contains('\r') {
            return None;
        }
        let ending = |s: &str| if crlf { s.replace('\n', "\r\n") } else { s.to_owned() };
        let shown = |l: &str| {
            let body = l.trim_end_matches('\n').trim_end_matches('\r');
            format!("{}{}", drift.in_the_file(body), &l[body.len()..])
        };
        let file_region: String = region.iter().map(|l| shown(l)).collect();
        let file = ending(&format!("{before}{file_region}{after}"));
        // What the file reads after the edit: kept lines as the file has them, the model's own
        // as it wrote them.
        let mut kept = region.iter().map(|l| shown(l));
        let mut landed = String::new();
        let mut source = region.iter();
        for (line, own) in &new_lines {
            if *own {
                landed.push_str(line);
                continue;
            }
            // The next region line this kept line is (deleted ones are skipped).
            for r in source.by_ref() {
                let file_line = kept.next().unwrap_or_default();
                if *r == line.as_str() {
                    landed.push_str(&file_line);
                    break;
                }
            }
        }
        let new: String = new_lines.iter().map(|(l, _)| l.as_str()).collect();
        let sent_old = ending(&old);
        if file.contains(sent_old.as_str()) || (crlf && file.contains(old.as_str())) {
            return None;
        }
        let intended = ending(&format!("{before}{landed}{after}"));
        return Some(Case {
            text: file,
            old,
            new,
            intended,
            intended_region: ending(&landed),
            at: ending(before).len(),
        });
    }
    let new: String = new_lines.iter().map(|(l, _)| l.as_str()).collect();
    // Kept lines are the file's; the model's own lines are as the drifted copy sends them,
    // indented as the exact edit indents them.
    let landed: String = new_lines
        .iter()
        .map(|(l, own)| match own {
            true => format!("{}{}", indent(l), drift.apply(l, unit).trim_start_matches([' ', '\t'])),
            false => l.clone(),
        })
        .collect();
    let intended = format!("{before}{landed}{after}");
    let (old_drifted, new_drifted) = (drift.apply(&old, unit), drift.apply(&new, unit));
    // A drifted copy that occurs in the file exactly is an exact edit of another place, not a
    // drift: matching it exactly is the rule (the control row covers exact edits).
    if drift != Drift::None && (old_drifted == old || text.contains(old_drifted.as_str())) {
        return None;
    }
    Some(Case {
        text: text.to_owned(),
        old: old_drifted,
        new: new_drifted,
        intended,
        intended_region: landed,
        at: start,
    })
}

/// The corpus: python3's standard library and cargo's registry sources, in a stable order.
fn corpus() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(o) = Command::new("python3")
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"])
        .output()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
        let skip = |n: &str| matches!(n, "test" | "tests" | "idle_test" | "site-packages" | "__pycache__");
        let mut files = Vec::new();
        walk(&dir, &skip, &mut files);
        out.extend(files.into_iter().filter(|p| has_ext(p, &["py"])));
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    if let Some(Ok(entries)) = home.map(|h| std::fs::read_dir(h.join("registry").join("src"))) {
        let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        dirs.sort();
        for dir in dirs {
            let mut files = Vec::new();
            walk(&dir, &|n: &str| n == "target" || n == ".git", &mut files);
            out.extend(files.into_iter().filter(|p| has_ext(p, &["rs", "c", "h"])));
        }
    }
    out
}

fn has_ext(path: &Path, exts: &[&str]) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| exts.contains(&e))
}
