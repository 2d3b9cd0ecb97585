//! Path arguments checked once, at the edge: [`RootPath`] is a path lexically inside the root,
//! and [`Workspace::resolve`] is the only way to make one from what a model sent.

use std::io;
use std::path::{Component, Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;

use super::Workspace;
use crate::error::{Error, Result};

/// A path checked to lie lexically inside the root: relative, non-empty, made only of normal
/// components. It is still resolved by cap-std on every use, so symlinks are checked there.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RootPath(pub(super) PathBuf);

impl RootPath {
    /// `self/name`: a child path (the name must be a single normal component).
    pub fn child(&self, name: &str) -> RootPath {
        RootPath(self.0.join(name))
    }

    /// A relative path made only of normal components; None otherwise.
    pub fn from_path(path: &Path) -> Option<RootPath> {
        let normal = path.components().all(|c| matches!(c, Component::Normal(_)));
        (normal && !path.as_os_str().is_empty()).then(|| RootPath(path.to_path_buf()))
    }

    /// A path of one component; None unless `name` is a single normal component.
    pub fn from_name(name: &str) -> Option<RootPath> {
        let mut comps = Path::new(name).components();
        match (comps.next(), comps.next()) {
            (Some(Component::Normal(_)), None) => Some(RootPath(PathBuf::from(name))),
            _ => None,
        }
    }

    /// The path relative to the root, as the model should write it (`/`-separated).
    pub fn display(&self) -> String {
        self.0.to_string_lossy().into_owned()
    }

    /// The relative path, for cap-std calls.
    pub fn as_path(&self) -> &Path {
        &self.0
    }

    pub(super) fn split(&self) -> (&Path, &std::ffi::OsStr) {
        let parent = self.0.parent().unwrap_or(Path::new(""));
        // A RootPath is never empty and never ends in `..` (see Workspace::resolve), so it has a name.
        let name = self.0.file_name().unwrap_or_default();
        (parent, name)
    }

    /// Whether the file is in the root itself (its parent is the root).
    pub(super) fn in_root(&self) -> bool {
        self.split().0.as_os_str().is_empty()
    }
}

impl Serialize for RootPath {
    /// As the model writes it: [`RootPath::display`].
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.display())
    }
}

impl JsonSchema for RootPath {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        String::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }

    fn inline_schema() -> bool {
        true
    }
}

impl std::fmt::Display for RootPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.display())
    }
}

impl Workspace {
    /// Checks a path argument and turns it into a [`RootPath`].
    ///
    /// Relative paths are taken relative to the root; `.` is dropped and `..` is applied lexically
    /// but may never climb above the root. An absolute path is accepted only when it lies under
    /// the root (compared component by component, so `/root-evil` is not under `/root`).
    pub fn resolve(&self, raw: &str) -> Result<RootPath> {
        if raw.is_empty() {
            return Err(invalid(raw, "the path is empty"));
        }
        if raw.contains('\0') {
            return Err(invalid(raw, "the path contains a NUL byte"));
        }
        let path = Path::new(raw);
        let relative = if path.is_absolute() {
            path.strip_prefix(&self.canonical_root)
                .or_else(|_| path.strip_prefix(&self.given_root))
                .map_err(|_| Error::OutsideRoot { path: raw.to_string() })?
        } else {
            path
        };
        let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
        for component in relative.components() {
            match component {
                Component::Normal(name) => parts.push(name),
                Component::CurDir => {}
                Component::ParentDir => {
                    // The system resolves `link/..` from the link's target; a lexical `..` would
                    // name a different file than the one the path names. Refuse it.
                    if let Some(link) = self.symlink_in(&parts) {
                        return Err(invalid(
                            raw,
                            &format!(
                                "`..` comes after the symbolic link {link}, so the system would resolve it from \
                                 the link's target, not from {link}'s directory; give the path without `..`"
                            ),
                        ));
                    }
                    if parts.pop().is_none() {
                        return Err(Error::OutsideRoot { path: raw.to_string() });
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(Error::OutsideRoot { path: raw.to_string() });
                }
            }
        }
        if parts.is_empty() {
            return Err(invalid(raw, "it names the root directory itself, not a file in it"));
        }
        let path: PathBuf = parts.iter().collect();
        if let Some(reserved) = &self.reserved
            && path.starts_with(&reserved.relative)
        {
            return Err(Error::Reserved { path: raw.to_string() });
        }
        Ok(RootPath(path))
    }

    /// The first of the paths `parts[..1]`, `parts[..2]`, ... that is a symbolic link (or
    /// cannot be inspected because it leads through one out of the root).
    fn symlink_in(&self, parts: &[&std::ffi::OsStr]) -> Option<String> {
        let mut prefix = PathBuf::new();
        for part in parts {
            prefix.push(part);
            match self.dir.symlink_metadata(&prefix) {
                Ok(m) if m.file_type().is_symlink() => return Some(prefix.display().to_string()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
                Err(_) => return Some(prefix.display().to_string()),
            }
        }
        None
    }
}

fn invalid(raw: &str, reason: &str) -> Error {
    Error::InvalidPath { path: raw.to_string(), reason: reason.to_string() }
}

#[cfg(test)]
mod tests {
    use crate::error::Error;
    use crate::workspace::temp_workspace as ws;

    #[test]
    fn resolve_normalises_dot_and_inner_dotdot() {
        let (_t, ws) = ws();
        assert_eq!(ws.resolve("./a/b/../c.txt").unwrap().display(), "a/c.txt");
    }

    #[test]
    fn dotdot_after_a_symlink_is_refused_because_the_system_resolves_it_from_the_target() {
        let (t, ws) = ws();
        std::fs::create_dir_all(t.path().join("src/deep")).unwrap();
        std::fs::create_dir_all(t.path().join("real")).unwrap();
        std::os::unix::fs::symlink("src/deep", t.path().join("inlink")).unwrap();
        for raw in ["inlink/../x.txt", "inlink/y/../../x.txt", "real/../inlink/../x.txt"] {
            let err = ws.resolve(raw).unwrap_err().to_string();
            assert!(err.contains("symbolic link inlink"), "{raw}: {err}");
        }
        // `..` after real directories, or after names that do not exist yet, stays lexical.
        assert_eq!(ws.resolve("real/../x.txt").unwrap().display(), "x.txt");
        assert_eq!(ws.resolve("new/dir/../x.txt").unwrap().display(), "new/x.txt");
        assert_eq!(ws.resolve("inlink/x.txt").unwrap().display(), "inlink/x.txt");
    }

    #[test]
    fn resolve_refuses_dotdot_above_the_root() {
        let (_t, ws) = ws();
        assert!(matches!(ws.resolve("../x"), Err(Error::OutsideRoot { .. })));
        assert!(matches!(ws.resolve("a/../../x"), Err(Error::OutsideRoot { .. })));
    }

    #[test]
    fn resolve_accepts_absolute_inside_and_refuses_sibling_prefix() {
        let (t, ws) = ws();
        let inside = ws.host_root().join("d/f.txt");
        assert_eq!(ws.resolve(inside.to_str().unwrap()).unwrap().display(), "d/f.txt");
        let evil = format!("{}-evil/f.txt", ws.host_root().display());
        assert!(matches!(ws.resolve(&evil), Err(Error::OutsideRoot { .. })));
        assert!(matches!(ws.resolve("/etc/passwd"), Err(Error::OutsideRoot { .. })));
        drop(t);
    }

    #[test]
    fn resolve_refuses_empty_nul_and_root_itself() {
        let (_t, ws) = ws();
        assert!(matches!(ws.resolve(""), Err(Error::InvalidPath { .. })));
        assert!(matches!(ws.resolve("a\0b"), Err(Error::InvalidPath { .. })));
        assert!(matches!(ws.resolve("."), Err(Error::InvalidPath { .. })));
    }

    #[test]
    fn resolve_keeps_names_literal() {
        let (_t, ws) = ws();
        for name in ["%2e%2e/x", "~/x", "\u{ff0e}\u{ff0e}/x"] {
            assert_eq!(ws.resolve(name).unwrap().display(), name);
        }
    }
}
