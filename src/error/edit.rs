//! Why one edit of an `edit_file` call could not be applied, and what the model should do
//! about each reason.
//!
//! Apart from [`Error`](super::Error) because it is one tool's own vocabulary: an
//! [`Error::Edit`](super::Error::Edit) wraps it with the path and which edit failed, and its
//! reasons (a quote not found, found twice, a stale anchor) mean nothing to other tools.

use std::fmt;

/// Why one edit of an `edit_file` call could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditFailure {
    /// `old_string` does not occur; the closest lines (number, text) help correct it.
    NotFound {
        /// Up to three similar lines.
        closest: Vec<(usize, String)>,
    },
    /// `old_string` occurs several times and `replace_all` was not set.
    Ambiguous {
        /// Occurrences.
        count: usize,
        /// Lines where they start.
        lines: Vec<usize>,
    },
    /// `old_string` does not occur exactly, and matches several regions with a tolerance.
    AmbiguousTolerant {
        /// What the tolerance ignores (`indentation`).
        tolerance: &'static str,
        /// Each candidate region: `lines 40-47 (40#abc to 47#def)`.
        candidates: Vec<String>,
    },
    /// `old_string` equals `new_string`.
    NoChange,
    /// `old_string` is empty but the file is not.
    EmptyOldOnNonEmptyFile,
    /// A line anchor no longer names the line it was read from.
    StaleAnchor {
        /// The anchor as sent.
        anchor: String,
        /// What is wrong with it.
        problem: String,
        /// Where the anchored text is now, when it moved by a few lines.
        moved_to: Option<usize>,
        /// The current lines around it, with fresh anchors: (anchor, text).
        around: Vec<(String, String)>,
    },
    /// In a notebook, `old_string` occurs in the sources of several cells and `replace_all`
    /// was not set.
    InSeveralCells {
        /// 0-based indexes of the cells.
        cells: Vec<usize>,
    },
    /// An empty `old_string`, or a line edit whose anchors name no cell, on a notebook (whose
    /// lines are numbered per cell).
    NotInCells,
    /// A line range whose `to` comes before its `from`.
    BackwardRange {
        /// First line.
        from: usize,
        /// Last line.
        to: usize,
    },
    /// Two line edits touch the same lines (or insert at the same place).
    Overlap {
        /// The 1-based number of the other edit.
        other: usize,
    },
}

impl fmt::Display for EditFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditFailure::NotFound { closest } if closest.is_empty() => write!(
                f,
                "old_string was not found, exactly or ignoring whitespace and look-alike punctuation; \
                 read_file to copy the exact text."
            ),
            EditFailure::NotFound { closest } => {
                write!(
                    f,
                    "old_string was not found, exactly or ignoring whitespace and punctuation. Closest lines:"
                )?;
                for (line, text) in closest {
                    write!(f, "\n  {line}: {text}")?;
                }
                write!(f, "\nCopy the exact text (read_file with an offset near these lines) and retry.")
            }
            EditFailure::Ambiguous { count, lines } => write!(
                f,
                "old_string occurs {count} times (lines {}). Add surrounding lines to make it unique, \
                 or set replace_all to change every occurrence.",
                lines.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            ),
            EditFailure::AmbiguousTolerant { tolerance, candidates } => {
                write!(
                    f,
                    "old_string does not occur exactly, and ignoring {tolerance} it matches {} places:",
                    candidates.len()
                )?;
                for candidate in candidates {
                    write!(f, "\n  {candidate}")?;
                }
                write!(
                    f,
                    "\nNothing was guessed. Copy old_string exactly from read_file, add lines that tell \
                     the places apart, or replace the lines you mean with a line edit: \
                     edits: [{{from: \"<first anchor>\", to: \"<last anchor>\", new_string: ...}}]."
                )
            }
            EditFailure::NoChange => {
                write!(f, "old_string and new_string are identical, so there is nothing to change.")
            }
            EditFailure::StaleAnchor { anchor, problem, moved_to, around } => {
                write!(f, "anchor {anchor} is stale: {problem}.")?;
                if let Some(line) = moved_to {
                    write!(f, " Its text is now on line {line}.")?;
                }
                write!(f, " The lines there now:")?;
                for (fresh, text) in around {
                    write!(f, "\n  {fresh}\t{text}")?;
                }
                write!(f, "\nUse these fresh anchors (or read_file with anchors: true) and retry.")
            }
            EditFailure::BackwardRange { from, to } => write!(
                f,
                "the range runs backwards (from line {from} to line {to}); give `from` as the first line \
                 and `to` as the last."
            ),
            EditFailure::Overlap { other } => write!(
                f,
                "it touches the same lines as edit {other}. Line edits all refer to the file as it was \
                 before the call and may not overlap: merge them into one range."
            ),
            EditFailure::InSeveralCells { cells } => write!(
                f,
                "old_string occurs in {} cells ({}, by index as read_file shows them). Add lines that \
                 make it unique within one cell, set replace_all to change it in every cell, or use \
                 edit_notebook with the cell's id.",
                cells.len(),
                cells.iter().map(|c| format!("cell {c}")).collect::<Vec<_>>().join(", ")
            ),
            EditFailure::NotInCells => write!(
                f,
                "in a notebook, edit_file changes one cell's source: an old_string found within one \
                 cell, or lines named by anchors that carry their cell, `<cell>:<line>#<hash>` (`3:12#kq7`, \
                 as read_file with anchors: true shows a notebook's lines; `3:0` is the top of cell 3). \
                 To insert, replace or delete whole cells, or to create a notebook, use edit_notebook."
            ),
            EditFailure::EmptyOldOnNonEmptyFile => write!(
                f,
                "old_string is empty, which only creates a missing or empty file; this file has \
                 content. Give the exact text to replace, or append_file to add at the end."
            ),
        }
    }
}
