//! Resolution of a file's references against the project's files, as the tools that load
//! them resolve them: Node and bundlers for scripts, Python's import system, Cargo's module
//! files, the browser for a static page and its stylesheets.
//!
//! Files are reached through [`Files`], which the caller implements over its sandbox. A
//! [`Project`] lists each directory at most once, reads and surveys each other file at most
//! once, and walks the whole project only when a DOM id needs every page (once).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use super::ids::mentions;
use super::{ImportKind, Refs, Unresolved, extract};
use pages::Dom;

mod names;
mod pages;
mod python;
mod rust;
mod script;

/// The project's files, as the resolver needs them. Paths are root-relative with `/`
/// separators; the root itself is `""`.
pub trait Files: Sync {
    /// The entries of directory `dir`; None when it is not a directory that can be read.
    fn list(&self, dir: &str) -> Option<Vec<Entry>>;
    /// The text of a file; None when it is missing, binary or too large to look at.
    fn read(&self, path: &str) -> Option<String>;
    /// Whether a `.gitignore` leaves `path` out (a build output, generated code).
    fn ignored(&self, path: &str, is_dir: bool) -> bool;
    /// Every file of the project, `.gitignore` honoured; None when there are too many to
    /// list them all (then no id is reported: a page may have been left out).
    fn walk(&self) -> Option<Vec<String>>;
    /// Every file under the directory `dir` (`""`: the root), as [`Files::walk`] lists them.
    fn walk_under(&self, dir: &str) -> Option<Vec<String>> {
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        Some(self.walk()?.into_iter().filter(|p| p.starts_with(&prefix)).collect())
    }
    /// What `path` refers to and offers ([`extract`] of its text); None when it cannot be
    /// read. A caller that keeps surveys between checks answers from them while the file is
    /// unchanged.
    fn survey(&self, path: &str) -> Option<Arc<Refs>> {
        self.read(path).map(|text| Arc::new(extract(path, &text)))
    }
}

/// One entry of a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The file or directory name.
    pub name: String,
    /// A directory (symlinks are neither: never followed).
    pub is_dir: bool,
}

/// A directory's names, split by kind.
#[derive(Debug, Default)]
struct Listing {
    files: HashSet<String>,
    dirs: HashSet<String>,
}

/// Extensions a relative script import may leave out, in the order Node, TypeScript and the
/// bundlers try them (a superset: any of them satisfies the import).
/// What a build makes a file of each extension from: a page's `app.js` may be compiled
/// from `app.ts`, its `style.css` from `style.scss`, a site's `about.html` from `about.md`.
const BUILT_FROM: &[(&str, &[&str])] = &[
    (
        "js",
        &[
            "ts",
            "tsx",
            "mts",
            "cts",
            "jsx",
            "coffee",
            "litcoffee",
            "ls",
            "es6",
            "es",
            "vue",
            "svelte",
            "elm",
            "res",
            "civet",
            "mjs",
            "cjs",
        ],
    ),
    ("mjs", &["mts", "ts"]),
    ("cjs", &["cts", "ts"]),
    ("css", &["scss", "sass", "less", "styl", "stylus", "pcss", "postcss"]),
    (
        "html",
        &[
            "md",
            "markdown",
            "mdx",
            "pug",
            "jade",
            "hbs",
            "handlebars",
            "njk",
            "ejs",
            "haml",
            "slim",
            "rst",
            "adoc",
            "j2",
            "jinja",
            "jinja2",
            "liquid",
            "twig",
            "erb",
            "tmpl",
            "tpl",
        ],
    ),
    ("htm", &["md", "markdown", "html"]),
    ("pdf", &["tex", "md", "markdown", "rst", "typ", "adoc", "odt", "docx", "html", "svg"]),
    ("json", &["json5", "yaml", "yml", "toml"]),
    ("wasm", &["rs", "c", "cpp", "wat", "zig"]),
    ("webp", &["png", "jpg", "jpeg"]),
    ("avif", &["png", "jpg", "jpeg"]),
];

/// Files whose text may name a file the build makes (`write_to = "src/pkg/_version.py"`,
/// webpack's `output.filename`): a reference to a file one of them names is not reported.
const BUILD_FILES: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "hatch.toml",
    "meson.build",
    "CMakeLists.txt",
    "Makefile",
    "package.json",
    "webpack.config.js",
    "webpack.config.ts",
    "vite.config.js",
    "vite.config.ts",
    "rollup.config.js",
    "rollup.config.mjs",
    "gulpfile.js",
    "Gruntfile.js",
    "build.rs",
    "Cargo.toml",
];

/// Python's standard library modules: a local file of the same name does not make an
/// import of one of them local (which one Python finds depends on how it is started).
/// The files of one project as one check sees them: what was listed, read and surveyed is
/// kept for the rest of the check.
pub struct Project<'f> {
    files: &'f dyn Files,
    listings: Mutex<HashMap<String, Option<Arc<Listing>>>>,
    surveyed: Mutex<HashMap<String, Option<Arc<Refs>>>>,
    build_texts: Mutex<HashMap<String, Arc<Vec<String>>>>,
    /// Python's import roots, by the importing file's directory.
    import_roots: Mutex<HashMap<String, Arc<Vec<String>>>>,
    dom: OnceLock<Option<Dom>>,
    /// Which pages load which scripts, for names: walked once, when a name needs it.
    scopes: OnceLock<Option<names::script::Scopes>>,
    walked: OnceLock<Option<Arc<Vec<String>>>>,
}

impl<'f> Project<'f> {
    /// A project read through `files`.
    pub fn new(files: &'f dyn Files) -> Self {
        Project {
            files,
            listings: Mutex::new(HashMap::new()),
            surveyed: Mutex::new(HashMap::new()),
            build_texts: Mutex::new(HashMap::new()),
            import_roots: Mutex::new(HashMap::new()),
            dom: OnceLock::new(),
            scopes: OnceLock::new(),
            walked: OnceLock::new(),
        }
    }

    /// Every file of the project ([`Files::walk`]), walked at most once per check.
    pub fn every_file(&self) -> Option<Arc<Vec<String>>> {
        self.walked.get_or_init(|| self.files.walk().map(Arc::new)).clone()
    }

    /// The text of a file of the project, as [`Files::read`] gives it (not kept).
    pub fn read(&self, path: &str) -> Option<String> {
        self.files.read(path)
    }

    /// The project `path` belongs to: the outermost directory above it with a package
    /// manifest (`package.json`, `pyproject.toml`, `setup.py`, `setup.cfg`) or a `.git`, the
    /// root when there is none. A root that holds many projects (a registry's sources) is not
    /// walked whole for one of them.
    pub fn package_of(&self, path: &str) -> String {
        const MARKS: &[&str] = &["package.json", "pyproject.toml", "setup.py", "setup.cfg"];
        let marked = |dir: &str| {
            MARKS.iter().any(|m| self.is_file(&join_name(dir, m)))
                || self.listing(dir).is_some_and(|l| l.dirs.contains(".git"))
        };
        ancestors(split(path).0).filter(|dir| marked(dir)).last().unwrap_or_default().to_owned()
    }

    /// Every file under `dir`, as [`Files::walk_under`] lists them.
    pub fn files_under(&self, dir: &str) -> Option<Vec<String>> {
        if dir.is_empty() {
            return self.every_file().map(|files| files.to_vec());
        }
        self.files.walk_under(dir)
    }

    /// Records what the caller already read off `path`, so that it is not read again.
    pub fn prime(&self, path: &str, refs: Arc<Refs>) {
        lock(&self.surveyed).insert(path.to_owned(), Some(refs));
    }

    /// The references of `path` (whose references are `refs`) that do not resolve, in line
    /// order.
    pub fn unresolved(&self, path: &str, refs: &Refs) -> Vec<Unresolved> {
        let mut out = Vec::new();
        for import in refs.imports.iter().filter(|i| !i.optional) {
            match &import.kind {
                ImportKind::Script { .. } => self.script(path, import, &mut out),
                ImportKind::Python { level, from } => {
                    self.python(path, import, *level, *from, refs, &mut out)
                }
                ImportKind::RustMod { inline, cfg } => self.rust_mod(path, import, inline, *cfg, &mut out),
                ImportKind::Css | ImportKind::Html(_) => self.file(path, import, &mut out),
            }
        }
        self.ids(path, refs, &mut out);
        self.names(path, refs, &mut out);
        out.sort_by_key(|u| (u.cell.as_ref().map(|c| c.index), u.line));
        out.dedup();
        out
    }

    // --- files and directories ------------------------------------------------------------

    fn listing(&self, dir: &str) -> Option<Arc<Listing>> {
        if let Some(known) = lock(&self.listings).get(dir) {
            return known.clone();
        }
        let listing = self.files.list(dir).map(|entries| {
            let mut l = Listing::default();
            for e in entries {
                if e.is_dir {
                    l.dirs.insert(e.name);
                } else {
                    l.files.insert(e.name);
                }
            }
            Arc::new(l)
        });
        lock(&self.listings).insert(dir.to_owned(), listing.clone());
        listing
    }

    fn is_file(&self, path: &str) -> bool {
        let (dir, name) = split(path);
        self.listing(dir).is_some_and(|l| l.files.contains(name))
    }

    fn is_dir(&self, path: &str) -> bool {
        let (dir, name) = split(path);
        !name.is_empty() && self.listing(dir).is_some_and(|l| l.dirs.contains(name))
    }

    /// What `path` refers to and offers, surveyed once.
    fn survey(&self, path: &str) -> Option<Arc<Refs>> {
        if let Some(known) = lock(&self.surveyed).get(path) {
            return known.clone();
        }
        let refs = self.files.survey(path);
        lock(&self.surveyed).insert(path.to_owned(), refs.clone());
        refs
    }

    /// Whether a missing `target` may still exist when the project runs: a source of the
    /// same name that a build turns into it (`app.ts` for `app.js`, `style.scss` for
    /// `style.css`), for a reference without an extension any file of its name (a resolver
    /// configured for it takes it), one that differs only in case (a case-insensitive disk),
    /// a path a `.gitignore` leaves out, or a file a build configuration names.
    fn may_exist_elsewhere(&self, target: &str) -> bool {
        let (dir, name) = split(target);
        let Some(listing) = self.listing(dir) else {
            // The whole directory is missing: a build output, when ignored or named.
            return self.ignored_or_generated(dir, true) || self.ignored_or_generated(target, false);
        };
        let lower = name.to_lowercase();
        let (stem, extension) = match lower.rsplit_once('.') {
            Some((stem, extension)) => (stem, Some(extension)),
            None => (lower.as_str(), None),
        };
        let near = listing.files.iter().chain(listing.dirs.iter()).any(|entry| {
            let entry = entry.to_lowercase();
            let (entry_stem, entry_extension) = entry.rsplit_once('.').unwrap_or((&entry, ""));
            entry == lower
                || entry_stem == stem
                    && extension.is_none_or(|built| {
                        BUILT_FROM.iter().any(|(b, from)| *b == built && from.contains(&entry_extension))
                    })
        });
        near || self.ignored_or_generated(target, false)
    }

    fn ignored_or_generated(&self, path: &str, is_dir: bool) -> bool {
        if path.is_empty() || self.files.ignored(path, is_dir) {
            return true;
        }
        // Named by a build configuration in a directory above it: by its path from there
        // (`write_to = "src/pkg/_version.py"`), or by its last two parts (`dist/bundle.js`).
        let tail =
            path.rsplitn(3, '/').take(2).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("/");
        ancestors(split(path).0).any(|dir| {
            let relative =
                if dir.is_empty() { path } else { path.strip_prefix(&format!("{dir}/")).unwrap_or(path) };
            self.build_texts(dir).iter().any(|text| mentions(text, relative) || mentions(text, &tail))
        })
    }

    /// The texts of the build configuration files in `dir`, read once.
    fn build_texts(&self, dir: &str) -> Arc<Vec<String>> {
        if let Some(known) = lock(&self.build_texts).get(dir) {
            return known.clone();
        }
        let texts: Vec<String> = match self.listing(dir) {
            Some(listing) => BUILD_FILES
                .iter()
                .filter(|n| listing.files.contains(**n))
                .filter_map(|name| self.files.read(&join_name(dir, name)))
                .collect(),
            None => Vec::new(),
        };
        let texts = Arc::new(texts);
        lock(&self.build_texts).insert(dir.to_owned(), texts.clone());
        texts
    }

    /// The name in `dir` closest to `name` (by edit distance, ignoring case, `-` and `_`),
    /// among those `keep` accepts, or with `lone`, the only file `keep` accepts there (code a
    /// page or module needs, not an image): the likely intended one, for a "did you mean".
    fn closest(&self, dir: &str, name: &str, lone: bool, keep: impl Fn(&str) -> bool) -> Option<String> {
        let listing = self.listing(dir)?;
        let mut names: Vec<&String> =
            listing.files.iter().chain(listing.dirs.iter()).filter(|n| keep(n)).collect();
        names.sort();
        // Else the one file of its kind there (`js/main.js` for a missing `js/app.js`).
        closest_of(name, names.iter().map(|n| n.as_str())).or_else(|| match names[..] {
            [only] if lone && only.contains('.') => Some(only.clone()),
            _ => None,
        })
    }
}

/// `(dir, name)` of a path: `("web/js", "app.js")`, `("", "a.py")`.
fn split(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

/// `dir/name`, or `name` in the root.
fn join_name(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_owned() } else { format!("{dir}/{name}") }
}

/// `rel` (with `.` and `..` segments) resolved against `dir`; None when it leaves the root.
fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for seg in rel.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// `dir`'s parent directories, nearest first, ending with the root (`""`).
fn ancestors(dir: &str) -> impl Iterator<Item = &str> {
    let mut next = Some(dir);
    std::iter::from_fn(move || {
        let current = next?;
        next = if current.is_empty() { None } else { Some(split(current).0) };
        Some(current)
    })
}

/// `written` with its last segment `old` replaced by `new`, keeping its style: an import
/// written without an extension keeps none.
fn respell(written: &str, old: &str, new: &str) -> String {
    let new = if !old.contains('.') { new.split('.').next().unwrap_or(new) } else { new };
    match written.rsplit_once('/') {
        Some((dir, _)) => format!("{dir}/{new}"),
        None => new.to_owned(),
    }
}

/// The candidate closest to `name`, when it is close enough to be a likely slip: an edit
/// distance of at most a third of the name (at least 1, at most 3) once case, `-` and `_`
/// are ignored.
fn closest_of<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<String> {
    let fold = |s: &str| {
        s.chars().filter(|c| *c != '-' && *c != '_').flat_map(char::to_lowercase).collect::<String>()
    };
    let wanted = fold(name);
    let limit = (wanted.chars().count() / 3).clamp(1, 3);
    let candidates: Vec<&str> = candidates.filter(|c| *c != name).collect();
    let near = candidates
        .iter()
        .map(|c| (distance(&wanted, &fold(c)), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.to_owned());
    // Else the one name that holds it (`Timer` in `PomodoroTimer`).
    near.or_else(|| {
        let mut holding = candidates.iter().filter(|c| wanted.len() >= 4 && fold(c).contains(&wanted));
        match (holding.next(), holding.next()) {
            (Some(only), None) => Some((*only).to_owned()),
            _ => None,
        }
    })
}

/// Levenshtein distance, by characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(row[j + 1] + 1);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// A cache is valid whatever call panicked while holding it.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_and_never_leave_the_root() {
        assert_eq!(join("web/js", "../css/a.css").as_deref(), Some("web/css/a.css"));
        assert_eq!(join("", "./a.js").as_deref(), Some("a.js"));
        assert_eq!(join("a", "../../b"), None);
        assert_eq!(ancestors("a/b").collect::<Vec<_>>(), ["a/b", "a", ""]);
    }

    #[test]
    fn a_close_name_is_suggested_and_a_far_one_is_not() {
        assert_eq!(closest_of("start-btn", ["startBtn", "stop"].into_iter()).as_deref(), Some("startBtn"));
        assert_eq!(
            closest_of("Timer", ["PomodoroTimer", "start"].into_iter()).as_deref(),
            Some("PomodoroTimer")
        );
        assert_eq!(closest_of("Timer", ["PomodoroTimer", "EggTimer"].into_iter()), None);
        assert_eq!(closest_of("render", ["save", "load"].into_iter()), None);
        assert_eq!(closest_of("saveTasks", ["saveTask", "load"].into_iter()).as_deref(), Some("saveTask"));
        assert_eq!(respell("./utils/fromat", "fromat", "format.js"), "./utils/format");
        assert_eq!(respell("js/app.js", "app.js", "main.js"), "js/main.js");
    }
}
