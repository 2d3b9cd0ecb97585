//! `read_multiple_files`: several files in one call, each as `read_file` shows it, within one
//! bound on the whole result.
//!
//! An agent studying a project reads a dozen files before it writes one; one call instead of
//! a dozen saves the round trips. Each path stands alone: one that cannot be read gets its own
//! error and the others are still read. The bound keeps a call from flooding the model's
//! context: files are shown in the order asked until [`MAX_TOTAL_CHARS`] of lines are shown,
//! the file that reaches it is cut at a line (its `next_offset` says where to read on) and the
//! ones after it are not read at all, but named, so that the next call can ask for them.

use schemars::JsonSchema;
use serde::Serialize;

use super::{ReadOutcome, Session, required};
use crate::error::{Error, Result};

/// The most paths one call may name.
pub const MAX_PATHS: usize = 100;

/// The most characters of numbered lines one call returns, over all its files: about what one
/// `read_file` of a typical source file returns (2000 lines of 50 characters), far below the
/// million characters that would swamp a model's context.
pub const MAX_TOTAL_CHARS: usize = 100_000;

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
    /// Paths not read because the result reached its bound (100,000 characters of lines):
    /// read them with another read_multiple_files call.
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
    /// line to read on from.
    pub cut: bool,
}

impl Session {
    /// `read_multiple_files`: each of `paths` as [`Session::read_file`] shows it (the same
    /// `offset` and `limit` for each), within [`MAX_TOTAL_CHARS`]. Fails only when no path
    /// could be read.
    pub fn read_multiple_files(
        &self,
        paths: Option<&[String]>,
        offset: Option<i64>,
        limit: Option<usize>,
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
        for (i, raw) in paths.iter().enumerate() {
            let room = MAX_TOTAL_CHARS - outcome.chars;
            // Not even one cut line would fit: this file and the rest wait for the next call.
            if room < MIN_ROOM {
                outcome.not_shown.extend(paths[i..].iter().cloned());
                break;
            }
            match self.read_file(Some(raw), offset, limit, false) {
                Ok(mut file) => {
                    let cut = fit(&mut file, room);
                    outcome.chars += file.content.chars().count();
                    outcome.read += 1;
                    outcome.files.push(FileRead { path: raw.clone(), file: Some(file), error: None, cut });
                }
                Err(e) => {
                    outcome.failed += 1;
                    outcome.files.push(FileRead {
                        path: raw.clone(),
                        file: None,
                        error: Some(e.to_string()),
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

/// Room a file needs to be shown at all: one line cut at read_file's limit, with its number
/// and marker.
const MIN_ROOM: usize = crate::files::MAX_LINE_CHARS + 100;

/// Cuts `file`'s lines to the whole lines that fit in `room` characters (at least its first
/// line), and sets where to read on. Returns whether it cut anything.
fn fit(file: &mut ReadOutcome, room: usize) -> bool {
    if file.content.chars().count() <= room {
        return false;
    }
    // The end of the last whole line within `room` characters (the first line always fits:
    // it is cut at MAX_LINE_CHARS, and `room` is at least MIN_ROOM).
    let mut kept_lines = 0;
    let mut end = 0;
    let mut chars = 0;
    for line in file.content.split_inclusive('\n') {
        let n = line.chars().count();
        if chars + n > room && kept_lines > 0 {
            break;
        }
        chars += n;
        end += line.len();
        kept_lines += 1;
    }
    file.content.truncate(end);
    if file.content.ends_with('\n') {
        file.content.pop();
    }
    file.end_line = file.start_line + kept_lines - 1;
    file.more = true;
    file.next_offset = Some(file.end_line + 1);
    true
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
        let out = s.read_multiple_files(Some(&paths), None, None).unwrap();
        let shown: Vec<&str> = out.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(shown, ["b.txt", "missing.txt", "a.py"]);
        assert_eq!((out.read, out.failed), (2, 1));
        let alone = s.read_file(Some("b.txt"), None, None, false).unwrap();
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
        let out = s.read_multiple_files(Some(&paths), Some(-2), Some(1)).unwrap();
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
        let text = s.read_multiple_files(Some(&paths), None, None).unwrap_err().to_string();
        assert!(text.starts_with("none of the 4 files could be read:"), "{text}");
        for (path, why) in [("nope", "does not exist"), ("d", "is a directory"), ("bin", "not a text file")] {
            assert!(text.contains(&format!("\n- {path}: ")) && text.contains(why), "{path}: {text}");
        }
        assert!(text.contains("\n- ../up: \"../up\" is outside the sandbox root"), "{text}");
    }

    #[test]
    fn the_number_of_paths_is_bounded() {
        let (_t, s) = session();
        let text = s.read_multiple_files(Some(&names(MAX_PATHS + 1)), None, None).unwrap_err().to_string();
        assert!(text.contains("101 paths were given") && text.contains("at most 100"), "{text}");
        let text = s.read_multiple_files(Some(&[]), None, None).unwrap_err().to_string();
        assert!(text.contains("at least one"), "{text}");
        let text = s.read_multiple_files(None, None, None).unwrap_err().to_string();
        assert!(text.contains("without `paths`"), "{text}");
    }

    /// 100 files of 7,000 bytes (7,200 characters numbered): the first 13 whole, the 14th cut
    /// at a line in the 6,400 characters left, the rest named and not read.
    #[test]
    fn the_result_stops_near_its_bound_and_names_what_it_left_out() {
        let (t, s) = session();
        let line = "x".repeat(99);
        let text: String = (0..70).map(|_| format!("{line}\n")).collect();
        for name in names(MAX_PATHS) {
            std::fs::write(t.path().join("root").join(name), &text).unwrap();
        }
        let out = s.read_multiple_files(Some(&names(MAX_PATHS)), None, None).unwrap();
        assert!(out.chars <= MAX_TOTAL_CHARS, "{}", out.chars);
        let whole = out.files.iter().filter(|f| !f.cut).count();
        let per_file = out.files[0].file.as_ref().unwrap().content.chars().count();
        assert_eq!((per_file, whole), (7200, 13), "every file before the bound is whole");
        let last = out.files.last().unwrap();
        let cut = last.file.as_ref().unwrap();
        assert!(last.cut && cut.more, "the file at the bound is cut");
        assert_eq!(cut.next_offset, Some(cut.end_line + 1));
        assert!(cut.content.ends_with(&line), "cut after a whole line");
        assert_eq!((cut.start_line, cut.end_line, cut.total_lines), (1, 62, 70));
        assert_eq!(out.read + out.not_shown.len(), MAX_PATHS);
        assert_eq!(out.not_shown.first(), Some(&format!("f{}.txt", out.read)));
        assert!(MAX_TOTAL_CHARS - out.chars < 110, "no room left for another line: {}", out.chars);
    }
}
