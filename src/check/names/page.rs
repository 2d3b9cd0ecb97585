//! HTML pages: the names a page's inline scripts and event handlers use and define, in the one
//! global scope a page's classic scripts share.

use super::FreeName;

/// What a page says about names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PageNames {
    /// Names its inline scripts and event handlers use and do not define.
    pub(crate) free: Vec<FreeName>,
}

/// The names of the page `text` (whose tree-sitter tree's root is `root`); None when they
/// cannot be known.
pub(crate) fn read(_path: &str, _text: &str, _root: tree_sitter::Node) -> Option<PageNames> {
    None
}
