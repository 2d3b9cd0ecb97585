//! `read_multiple_files`: several files in one call, each as `read_file` shows it, within one
//! bound on the whole result.
//!
//! An agent studying a project reads a dozen files before it writes one; one call instead of
//! a dozen saves the round trips. Each path stands alone: one that cannot be read gets its own
//! error and the others are still read. The bound keeps a call from flooding the model's
//! context: files are shown in the order asked while they fit in one result's budget
//! ([`crate::budget`], whatever `limit` says), the file that reaches it is cut at a line (its
//! `next_offset` says where to read on) and the ones after it are not read at all, but named,
//! so that the next call can ask for them.

use schemars::JsonSchema;
use serde::Serialize;

use super::read::page_room;
use super::{ReadAs, ReadOutcome, Session, required};
use crate::budget::{Room, json_chars, json_size};
use crate::error::{Error, Result};

/// The most paths one call may name.
pub const MAX_PATHS: usize = 100;

/// What naming one path takes, in text and JSON: its `== path ==` header (or its place in
/// `not_shown`) and the fields of its entry besides the page.
const PER_PATH: (usize, usize) = (16, 48);

/// Room a page needs to be worth reading: a short line with its number.
const MIN_LINE_ROOM: usize = 100;

/// What the closing summary takes, in text and JSON: the counts and the note on what was not
/// read (whose paths [`PER_PATH`] already counts).
const SUMMARY: (usize, usize) = (300, 100);

/// Result of `read_multiple_files`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReadManyOutcome {
    /// One entry per path shown, in the order asked: the file as read_file shows it, or why it
    /// could not be read.
    pub files: Vec<FileRead>,
    /// Files read (in whole or in part).
    pub read: usize,
    /// Paths that could not be read.
    pub failed: usize,
    /// Paths not read because the result reached its bound (50,000 characters of text): read
    /// them with another read_multiple_files call.
    pub not_shown: Vec<String>,
    /// Characters of numbered lines in this result.
    pub chars: usize,
}

/// One path of a `read_multiple_files` call.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileRead {
    /// The path as given.
    pub path: String,
    /// The file as read_file shows it; absent when it could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ReadOutcome")]
    pub file: Option<ReadOutcome>,
    /// Why the file could not be read, and what to do; absent when it was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub error: Option<String>,
    /// The file was cut short to keep the result within its bound: `file.next_offset` is the
    /// line (for a notebook shown as cells, the cell) to read on from.
    pub cut: bool,
}

impl Session {
    /// `read_multiple_files`: each of `paths` as [`Session::read_file`] shows it (the same
    /// `offset` and `limit` for each: cells for a notebook), within one result's budget;
    /// `raw_json` shows notebooks as their JSON lines. Fails only when no path could be read.
    pub fn read_multiple_files(
        &self,
        paths: Option<&[String]>,
        offset: Option<i64>,
        limit: Option<usize>,
        raw_json: bool,
    ) -> Result<ReadManyOutcome> {
        let paths = required(paths, "read_multiple_files", "paths")?;
        if paths.is_empty() {
            return Err(Error::InvalidArgument { name: "paths", reason: "name at least one file".into() });
        }
        if paths.len() > MAX_PATHS {
            return Err(Error::InvalidArgument {
                name: "paths",
                reason: format!(
                    "{} paths were given, and one call reads at most {MAX_PATHS}; nothing was read. Split \
                     them into calls of {MAX_PATHS} or fewer",
                    paths.len()
                ),
            });
        }
        let mut outcome =
            ReadManyOutcome { files: Vec::new(), read: 0, failed: 0, not_shown: Vec::new(), chars: 0 };
        let mut room = Room::result();
        // Every path is named once, whatever becomes of it: as its section's header or in
        // `not_shown`.
        for path in paths {
            room.spend(PER_PATH.0 + path.chars().count(), PER_PATH.1 + json_chars(path));
        }
        room.spend(SUMMARY.0, SUMMARY.1);
        for (i, raw) in paths.iter().enumerate() {
            // No room for a line: this file and the rest wait for the next call.
            let page = page_room(room, raw);
            if page.text_left() < MIN_LINE_ROOM || page.whole_left() < 2 * MIN_LINE_ROOM {
                outcome.not_shown.extend(paths[i..].iter().cloned());
                break;
            }
            match self.read_page(Some(raw), offset, limit, ReadAs { anchors: false, raw: raw_json }, room) {
                Ok((file, cut)) => {
                    let chars = file.content.chars().count();
                    // A page always shows its first line: when even that does not fit, the
                    // file waits for the next call with the rest.
                    if !room.take(chars + page_text_facts(&file), json_size(&file)) {
                        outcome.not_shown.extend(paths[i..].iter().cloned());
                        break;
                    }
                    outcome.chars += chars;
                    outcome.read += 1;
                    outcome.files.push(FileRead { path: raw.clone(), file: Some(file), error: None, cut });
                }
                Err(e) => {
                    let error = e.to_string();
                    room.spend(error.chars().count(), json_chars(&error));
                    outcome.failed += 1;
                    outcome.files.push(FileRead {
                        path: raw.clone(),
                        file: None,
                        error: Some(error),
                        cut: false,
                    });
                }
            }
        }
        if outcome.read == 0 && outcome.not_shown.is_empty() {
            let failures = outcome.files.into_iter().map(|f| (f.path, f.error.unwrap_or_default())).collect();
            return Err(Error::NoneRead { failures });
        }
        Ok(outcome)
    }
}

/// Characters the text of a page takes besides its lines, at most: the footer that names the
/// path and gives its facts, and the notes on cut lines and on the encoding.
fn page_text_facts(file: &ReadOutcome) -> usize {
    let broken = file.notebook.as_ref().and_then(|n| n.broken.as_ref());
    let notes = [file.encoding_problem.as_ref(), broken]
        .iter()
        .flatten()
        .map(|p| p.chars().count() + 10)
        .sum::<usize>();
    file.path.chars().count() + 320 + if file.cut_lines > 0 { 160 } else { 0 } + notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::tests::session;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("f{i}.txt")).collect()
    }

    #[test]
    fn files_are_read_in_the_order_asked_each_as_read_file_shows_it() {
        let (t, s) = session();
        std::fs::write(t.path().join("root/b.txt"), "b1\nb2\n").unwrap();
        std::fs::write(t.path().join("root/a.py"), "x = 1\n").unwrap();
        let paths = vec!["b.txt".to_string(), "missing.txt".into(), "a.py".into()];
        let out = s.read_multiple_files(Some(&paths), None, None, false).unwrap();
        let shown: Vec<&str> = out.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(shown, ["b.txt", "missing.txt", "a.py"]);
        assert_eq!((out.read, out.failed), (2, 1));
        let alone = s.read_file(Some("b.txt"), None, None, ReadAs::default()).unwrap();
        let b = out.files[0].file.as_ref().unwrap();
        assert_eq!(
            (b.content.as_str(), &b.sha256, b.total_lines),
            (alone.content.as_str(), &alone.sha256, 2)
        );
        assert!(out.files[1].error.as_deref().unwrap().contains("missing.txt does not exist"));
        assert_eq!(out.chars, "1\tb1\n2\tb2".len() + "1\tx = 1".len());
    }

    #[test]
    fn offset_and_limit_apply_to_each_file() {
        let (t, s) = session();
        for name in ["a.txt", "b.txt"] {
            std::fs::write(t.path().join("root").join(name), "1\n2\n3\n4\n5\n").unwrap();
        }
        let paths = vec!["a.txt".to_string(), "b.txt".into()];
        let out = s.read_multiple_files(Some(&paths), Some(-2), Some(1), false).unwrap();
        for f in &out.files {
            assert_eq!(f.file.as_ref().unwrap().content, "4\t4");
        }
    }

    #[test]
    fn nothing_read_is_an_error_naming_every_path() {
        let (t, s) = session();
        std::fs::create_dir(t.path().join("root/d")).unwrap();
        std::fs::write(t.path().join("root/bin"), b"\0\x01").unwrap();
        let paths = vec!["nope".to_string(), "d".into(), "bin".into(), "../up".into()];
        let text = s.read_multiple_files(Some(&paths), None, None, false).unwrap_err().to_string();
        assert!(text.starts_with("none of the 4 files could be read:"), "{text}");
        for (path, why) in [("nope", "does not exist"), ("d", "is a directory"), ("bin", "not a text file")] {
            assert!(text.contains(&format!("\n- {path}: ")) && text.contains(why), "{path}: {text}");
        }
        assert!(text.contains("\n- ../up: \"../up\" is outside the sandbox root"), "{text}");
    }

    #[test]
    fn the_number_of_paths_is_bounded() {
        let (_t, s) = session();
        let text =
            s.read_multiple_files(Some(&names(MAX_PATHS + 1)), None, None, false).unwrap_err().to_string();
        assert!(text.contains("101 paths were given") && text.contains("at most 100"), "{text}");
        let text = s.read_multiple_files(Some(&[]), None, None, false).unwrap_err().to_string();
        assert!(text.contains("at least one"), "{text}");
        let text = s.read_multiple_files(None, None, None, false).unwrap_err().to_string();
        assert!(text.contains("without `paths`"), "{text}");
    }

    /// 100 files of 7,000 bytes (7,200 characters numbered): the first ones whole, the next
    /// cut at a line, the rest named and not read, within one result's budget.
    #[test]
    fn the_result_stops_near_its_bound_and_names_what_it_left_out() {
        let (t, s) = session();
        let line = "x".repeat(99);
        let text: String = (0..70).map(|_| format!("{line}\n")).collect();
        for name in names(MAX_PATHS) {
            std::fs::write(t.path().join("root").join(name), &text).unwrap();
        }
        let out = s.read_multiple_files(Some(&names(MAX_PATHS)), None, None, false).unwrap();
        assert!(out.chars <= crate::budget::TEXT_CHARS, "{}", out.chars);
        let whole = out.files.iter().filter(|f| !f.cut).count();
        let per_file = out.files[0].file.as_ref().unwrap().content.chars().count();
        assert_eq!(per_file, 7200);
        assert_eq!(whole, out.files.len() - 1, "every file before the bound is whole");
        let last = out.files.last().unwrap();
        let cut = last.file.as_ref().unwrap();
        assert!(last.cut && cut.more, "the file at the bound is cut");
        assert_eq!(cut.next_offset, Some(cut.end_line + 1));
        assert!(cut.content.ends_with(&line), "cut after a whole line");
        assert!(cut.start_line == 1 && cut.end_line < 70 && cut.total_lines == 70);
        assert_eq!(out.read + out.not_shown.len(), MAX_PATHS);
        assert_eq!(out.not_shown.first(), Some(&format!("f{}.txt", out.read)));
        assert!(out.chars > 40_000, "most of the budget is used: {}", out.chars);
    }
}
