//! Path arguments checked once, at the edge: [`RootPath`] is a path lexically inside the root,
//! and [`Workspace::resolve`] is the only way to make one from what a model sent.

use std::io;
use std::path::{Component, Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;

use super::{Workspace, spelling};
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
    /// Checks a path argument that names a file or an entry, and turns it into a [`RootPath`].
    ///
    /// The argument is first read as a person means it ([`spelling`]: a `file://` URI is its
    /// path, `\` is a separator, `~`, stray whitespace and control characters are refused).
    /// Relative paths are then taken relative to the root; `.` is dropped and `..` is applied
    /// lexically but may never climb above the root. An absolute path is accepted only when it
    /// lies under the root (compared component by component, so `/root-evil` is not under
    /// `/root`). On the file system: a name that differs from an existing entry only by its
    /// Unicode form is that entry; a new name may not begin or end with whitespace; a symbolic
    /// link on the way whose absolute text points inside the root is taken as that place; a
    /// trailing `/` must name an existing directory (see [`Workspace::resolve_dir`] for one
    /// that may not exist yet). The last component is not followed: [`Workspace::follow`]
    /// does that, for the tools that read or write through a link.
    pub fn resolve(&self, raw: &str) -> Result<RootPath> {
        self.resolve_entry(raw, true)
    }

    /// An entry of the root (not the root itself), a trailing `/` holding it to a directory;
    /// with `check_new`, a name missing now is held to the rules for new names.
    fn resolve_entry(&self, raw: &str, check_new: bool) -> Result<RootPath> {
        let (path, names_dir) = self.resolve_spelled(raw, check_new)?;
        let path = path.ok_or_else(|| root_itself(raw))?;
        if names_dir { self.directory_named(raw, &path) } else { Ok(path) }
    }

    /// `path`, which `raw` spelled with a trailing `/`: the directory it names, links followed
    /// (`link/` is the directory the link leads to, as the system resolves it), or a refusal
    /// when there is none.
    fn directory_named(&self, raw: &str, path: &RootPath) -> Result<RootPath> {
        let path = self.follow(path)?;
        match self.stat(&path) {
            Ok(Some(info)) if info.kind == super::FileKind::Directory => Ok(path),
            Ok(Some(_)) => Err(invalid(
                raw,
                &format!(
                    "it ends with `/`, which names a directory, but {path} is not a directory: send the \
                     path without the final `/`"
                ),
            )),
            Ok(None) | Err(_) => Err(invalid(
                raw,
                &format!(
                    "it ends with `/`, which names a directory, and there is no directory {path}: to write a \
                     file send the path without the final `/`; to make a directory use create_directory"
                ),
            )),
        }
    }

    /// The path of a name this server recorded itself (a journal or claim key: a
    /// [`RootPath::display`]), taken literally: the spelling rules are for what a model sends,
    /// and a recorded name is already what it is (`~backup.txt`, made as `./~backup.txt`).
    pub fn recorded(&self, key: &str) -> Result<RootPath> {
        let path = RootPath::from_path(Path::new(key))
            .ok_or_else(|| invalid(key, "it is not a root-relative path"))?;
        if let Some(reserved) = &self.reserved
            && path.as_path().starts_with(&reserved.relative)
        {
            return Err(Error::Reserved { path: key.to_string() });
        }
        Ok(path)
    }

    /// [`Workspace::resolve`] for `undo`, which only puts back what the journal recorded: a
    /// name missing now is not a new name (the rules for new names are about what may be
    /// created; `undo` of a deleted `./~backup` must reach it).
    pub fn resolve_to_restore(&self, raw: &str) -> Result<RootPath> {
        self.resolve_entry(raw, false)
    }

    /// [`Workspace::resolve`] for an argument that names a directory, which may not exist yet
    /// (`create_directory`): a trailing `/` is welcome.
    pub fn resolve_dir(&self, raw: &str) -> Result<RootPath> {
        self.resolve_spelled(raw, true)?.0.ok_or_else(|| root_itself(raw))
    }

    /// A directory argument of a tool that looks at a place (list, find, search, info): None
    /// for the root itself, however it is spelled (`.`, its absolute path, its `file://`
    /// URI), else the place with in-root links followed.
    pub fn resolve_place(&self, raw: &str) -> Result<Option<RootPath>> {
        match self.resolve_spelled(raw, true)? {
            (None, _) => Ok(None),
            (Some(path), true) => self.directory_named(raw, &path).map(Some),
            (Some(path), false) => self.follow(&path).map(Some),
        }
    }

    /// The path `raw` names (None: the root itself), and whether it ended with `/`.
    fn resolve_spelled(&self, raw: &str, check_new: bool) -> Result<(Option<RootPath>, bool)> {
        let spelled = spelling::read(raw).map_err(|reason| invalid(raw, &reason))?;
        let path = Path::new(&spelled.path);
        let relative = if path.is_absolute() {
            self.strip_root(path).ok_or_else(|| Error::OutsideRoot { path: raw.to_string() })?
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
            return Ok((None, spelled.names_dir));
        }
        Ok((Some(self.settled(&parts, raw, check_new)?), spelled.names_dir))
    }

    /// The root-relative path `parts` names once its names are settled (see
    /// [`Workspace::settle_names`]), refused when it leads into the state directory; `raw` is
    /// what errors name.
    pub(super) fn settled(&self, parts: &[&std::ffi::OsStr], raw: &str, check_new: bool) -> Result<RootPath> {
        let path = self.settle_names(parts, check_new).map_err(|reason| invalid(raw, &reason))?;
        if let Some(reserved) = &self.reserved
            && path.starts_with(&reserved.relative)
        {
            return Err(Error::Reserved { path: raw.to_string() });
        }
        Ok(RootPath(path))
    }

    /// `path` (absolute) relative to the root, when it lies under the root as given or as
    /// canonical.
    pub(super) fn strip_root<'a>(&self, path: &'a Path) -> Option<&'a Path> {
        path.strip_prefix(&self.canonical_root).or_else(|_| path.strip_prefix(&self.given_root)).ok()
    }

    /// The path `parts` names on the file system, component by component from the root: a
    /// name missing from its directory is that directory's entry of the same Unicode form
    /// when there is one (never a visually identical twin), and is otherwise checked as a new
    /// name; a symbolic link before the last component whose absolute text points inside the
    /// root is replaced by that place (cap-std refuses absolute links, which here are inside).
    fn settle_names(
        &self,
        parts: &[&std::ffi::OsStr],
        check_new: bool,
    ) -> std::result::Result<PathBuf, String> {
        let mut pending: std::collections::VecDeque<std::ffi::OsString> =
            parts.iter().map(|p| p.to_os_string()).collect();
        let mut out = PathBuf::new();
        let mut exists = true;
        let mut hops = 0;
        while let Some(name) = pending.pop_front() {
            if !exists {
                if check_new {
                    spelling::check_new_name(&name.to_string_lossy())?;
                }
                out.push(name);
                continue;
            }
            let here = out.join(&name);
            match self.dir.symlink_metadata(&here) {
                Ok(meta) if meta.file_type().is_symlink() && !pending.is_empty() => {
                    match self.link_inside(&here) {
                        Some(target) => {
                            hops += 1;
                            if hops > MAX_LINK_HOPS {
                                return Err(format!("the symbolic links from {} loop", here.display()));
                            }
                            for part in target.iter().rev() {
                                pending.push_front(part.to_os_string());
                            }
                            out = PathBuf::new();
                        }
                        None => out = here,
                    }
                }
                Ok(_) => out = here,
                Err(e) if e.kind() == io::ErrorKind::NotFound => match self.same_name_in(&out, &name)? {
                    Some(existing) => out.push(existing),
                    None => {
                        match (check_new, out.as_os_str().is_empty()) {
                            (false, _) => {}
                            (true, true) => spelling::check_new_top_name(&name.to_string_lossy())?,
                            (true, false) => spelling::check_new_name(&name.to_string_lossy())?,
                        }
                        out = here;
                        exists = false;
                    }
                },
                // A parent that is a file, a link out of the root: the operation on the path
                // says so, naming it; the name is still held to the rules for new names.
                Err(_) => {
                    if check_new {
                        spelling::check_new_name(&name.to_string_lossy())?;
                    }
                    out = here;
                    exists = false;
                }
            }
        }
        Ok(out)
    }

    /// The root-relative place an absolute symbolic link at `link` points to, when its text
    /// lies under the root; None for a relative link (cap-std follows those beneath the root)
    /// or one that points elsewhere (cap-std refuses it).
    pub(super) fn link_inside(&self, link: &Path) -> Option<PathBuf> {
        let text = self.dir.read_link_contents(link).ok()?;
        if !text.is_absolute() {
            return None;
        }
        let relative = self.strip_root(&text)?;
        let normal = relative.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        normal.then(|| relative.components().collect())
    }

    /// The entry of directory `dir` whose name is `name` in another Unicode normalization form
    /// (NFC and NFD `café`), when there is exactly one; two such entries is a refusal naming
    /// them. Only a name with a character outside ASCII is looked for: an ASCII name has one
    /// form.
    fn same_name_in(
        &self,
        dir: &Path,
        name: &std::ffi::OsStr,
    ) -> std::result::Result<Option<std::ffi::OsString>, String> {
        use unicode_normalization::UnicodeNormalization;
        let Some(wanted) = name.to_str().filter(|n| !n.is_ascii()) else { return Ok(None) };
        let wanted: String = wanted.nfc().collect();
        let entries = if dir.as_os_str().is_empty() { self.dir.entries() } else { self.dir.read_dir(dir) };
        let Ok(entries) = entries else { return Ok(None) };
        let mut found: Vec<std::ffi::OsString> = entries
            .filter_map(|entry| entry.ok().map(|e| e.file_name()))
            .filter(|entry| entry.to_str().is_some_and(|e| !e.is_ascii() && e.nfc().eq(wanted.chars())))
            .collect();
        match found.len() {
            0 => Ok(None),
            1 => Ok(found.pop()),
            _ => {
                found.sort();
                let names: Vec<String> = found.iter().map(|f| format!("{:?}", f.to_string_lossy())).collect();
                Err(format!(
                    "{} entries of {} differ from it only in their Unicode form ({}); rename one so that \
                     each name is distinct, then name it",
                    found.len(),
                    if dir.as_os_str().is_empty() {
                        "the root".to_string()
                    } else {
                        dir.display().to_string()
                    },
                    names.join(", ")
                ))
            }
        }
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

/// Symbolic links with absolute text followed while resolving one path, at most (the system's
/// own limit is 40).
pub(super) const MAX_LINK_HOPS: usize = 40;

fn root_itself(raw: &str) -> Error {
    invalid(raw, "it names the root directory itself, not a file in it")
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
        for name in ["%2e%2e/x", "a/~x", "\u{ff0e}\u{ff0e}/x"] {
            assert_eq!(ws.resolve(name).unwrap().display(), name);
        }
    }

    #[test]
    fn a_file_uri_and_an_absolute_path_inside_the_root_are_the_relative_path() {
        let (_t, ws) = ws();
        let uri = url::Url::from_file_path(ws.host_root().join("my dir/a.txt")).unwrap().to_string();
        assert_eq!(ws.resolve(&uri).unwrap().display(), "my dir/a.txt");
        let localhost = uri.replacen("file://", "file://localhost", 1);
        assert_eq!(ws.resolve(&localhost).unwrap().display(), "my dir/a.txt");
        assert!(matches!(ws.resolve("file:///etc/passwd"), Err(Error::OutsideRoot { .. })));
        let escape = format!("{}/%2e%2e/x", url::Url::from_file_path(ws.host_root()).unwrap());
        let err = ws.resolve(&escape).unwrap_err().to_string();
        assert!(err.contains("`..`"), "a `..` the URI parser would fold away is refused: {err}");
    }

    #[test]
    fn a_trailing_slash_must_name_a_directory_except_for_one_to_be_made() {
        let (t, ws) = ws();
        std::fs::create_dir(t.path().join("d")).unwrap();
        std::fs::write(t.path().join("f"), "x").unwrap();
        std::os::unix::fs::symlink("d", t.path().join("dl")).unwrap();
        assert_eq!(ws.resolve("d/").unwrap().display(), "d");
        assert_eq!(ws.resolve("dl/").unwrap().display(), "d", "`link/` is the directory it leads to");
        assert!(ws.resolve("f/").unwrap_err().to_string().contains("not a directory"));
        assert!(ws.resolve("new/").unwrap_err().to_string().contains("names a directory"));
        assert_eq!(ws.resolve_dir("new/").unwrap().display(), "new");
    }

    #[test]
    fn a_name_in_another_unicode_form_resolves_to_the_existing_entry() {
        let (t, ws) = ws();
        std::fs::create_dir(t.path().join("caf\u{e9}")).unwrap();
        assert_eq!(ws.resolve("cafe\u{301}/menu.txt").unwrap().display(), "caf\u{e9}/menu.txt");
        assert_eq!(ws.resolve("new/cafe\u{301}").unwrap().display(), "new/cafe\u{301}", "nothing to match");
        // Both forms exist: each resolves to itself; a third spelling of the same name is refused.
        std::fs::create_dir(t.path().join("x")).unwrap();
        std::fs::write(t.path().join("x/\u{c5}"), "a").unwrap();
        std::fs::write(t.path().join("x/A\u{30a}"), "b").unwrap();
        assert_eq!(ws.resolve("x/\u{c5}").unwrap().display(), "x/\u{c5}");
        let err = ws.resolve("x/\u{212b}").unwrap_err().to_string();
        assert!(err.contains("Unicode form"), "{err}");
    }

    #[test]
    fn a_new_name_may_not_begin_or_end_with_whitespace_but_an_existing_one_is_reached() {
        let (t, ws) = ws();
        assert!(ws.resolve("dir /x.txt").unwrap_err().to_string().contains("whitespace"));
        // Below a file, or past a link out of the root, too (found by the path fuzz target).
        std::fs::write(t.path().join("f"), "x").unwrap();
        std::os::unix::fs::symlink("..", t.path().join("up")).unwrap();
        assert!(ws.resolve("f/ x").unwrap_err().to_string().contains("whitespace"));
        assert!(ws.resolve("up/ x").unwrap_err().to_string().contains("whitespace"));
        std::fs::create_dir(t.path().join("old ")).unwrap();
        assert_eq!(ws.resolve("old /x.txt").unwrap().display(), "old /x.txt");
    }

    #[test]
    fn an_absolute_link_inside_the_root_is_followed_as_inside() {
        let (t, ws) = ws();
        std::fs::create_dir_all(t.path().join("src/deep")).unwrap();
        std::fs::write(t.path().join("src/deep/a.txt"), "a").unwrap();
        let root = ws.host_root().to_path_buf();
        std::os::unix::fs::symlink(root.join("src"), t.path().join("abs")).unwrap();
        std::os::unix::fs::symlink(root.join("src/deep/a.txt"), t.path().join("absfile")).unwrap();
        std::os::unix::fs::symlink(root.join("abs/deep"), t.path().join("chain")).unwrap();
        assert_eq!(ws.resolve("abs/deep/a.txt").unwrap().display(), "src/deep/a.txt");
        assert_eq!(ws.resolve("chain/a.txt").unwrap().display(), "src/deep/a.txt");
        let link = ws.resolve("absfile").unwrap();
        assert_eq!(link.display(), "absfile", "the last component is not followed by resolve");
        assert_eq!(ws.follow(&link).unwrap().display(), "src/deep/a.txt");
        std::os::unix::fs::symlink(root.join("loop"), t.path().join("loop")).unwrap();
        assert!(ws.resolve("loop/x").is_err(), "a loop of absolute links ends");
    }
}
