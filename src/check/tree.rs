//! The tree a reader of a text (the stub scan, the references, the names) reads it off:
//! tree-sitter's, or oxc's for a script. Its own room, so that the readers and the survey
//! that runs them all depend on it and none on another.

use super::script_tree::Script;

/// The tree a reader reads a text off: tree-sitter's, or oxc's for a script.
pub(crate) enum Syntax<'s, 'a> {
    /// Tree-sitter's, for the languages other than scripts (Rust when it is not read off
    /// rust-analyzer's parse: see [`check_and_survey`]).
    Tree(&'s tree_sitter::Tree),
    /// oxc's, for a script (of the statements before a mistake, when it has one).
    Script(&'s Script<'s, 'a>),
}
