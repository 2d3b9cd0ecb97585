//! JavaScript and TypeScript: the names a file uses that none of its scopes binds, by eslint's
//! `no-undef`, on oxc's semantic analysis.

use super::FreeName;
use crate::check::script_tree::Script;

/// What a script says about names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ScriptNames {
    /// Names used that no scope binds and that ECMAScript does not provide, first use each.
    pub(crate) free: Vec<FreeName>,
}

/// The names of the script `text` (read as `script`); None when they cannot be known.
pub(crate) fn read(_path: &str, _text: &str, _script: &Script) -> Option<ScriptNames> {
    None
}
