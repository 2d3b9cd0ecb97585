//! Resolution of a file's references against the project's files, as the tools that load
//! them resolve them: Node and bundlers for scripts, Python's import system, Cargo's module
//! files, the browser for a static page and its stylesheets.
//!
//! Files are reached through [`Files`], which the caller implements over its sandbox. A
//! [`Project`] lists each directory at most once, reads and surveys each other file at most
//! once, and walks the whole project only when a DOM id needs every page (once).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use super::ids::{IdSet, mentions};
use super::{Exports, Import, ImportKind, PyModule, RefKind, Refs, Unresolved, extract};

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
const SCRIPT_EXTENSIONS: &[&str] =
    &["js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "d.ts", "json", "node", "vue", "svelte"];

/// Extensions whose files this module reads exports from.
const SCRIPTS: &[&str] = &["js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts"];

/// Stylesheets: an id they mention is styled, not defined.
const STYLES: &[&str] = &["css", "scss", "sass", "less", "styl"];

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
const PYTHON_STDLIB: &[&str] = &[
    "abc",
    "aifc",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "bdb",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cgi",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "crypt",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "distutils",
    "doctest",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "idlelib",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
    "__future__",
    "__main__",
];

/// Files read for ids a server renders (templates, server code), at most this large each.
const MAX_OTHER_TEXT: usize = 1 << 20;

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
}

/// What every page of the project defines, and which scripts run on one.
struct Dom {
    /// Ids on any page, or created by any script.
    ids: IdSet,
    /// Scripts a page loads, directly or through imports.
    page_scripts: HashSet<String>,
    /// Every other text file (templates, server code): an id it mentions may be rendered.
    others: Vec<String>,
    /// The texts of `others`, read the first time an id is not found elsewhere.
    other_texts: OnceLock<Vec<String>>,
}

/// Where a relative script import leads.
enum Script {
    /// The files that satisfy it (one or more: `x.js` beside `x.d.ts`).
    Found(Vec<String>),
    /// Something satisfies it whose exports are not read (a package directory).
    Opaque,
    /// Nothing does: the path looked for.
    Missing(String),
    /// Not checked (a bare package name, an alias, a computed path, a file that may be built).
    Skip,
}

/// Where a Python module import leads.
enum PyTarget {
    /// A module (`file`: its `.py` or `__init__.py`; none for a namespace package), or a
    /// package (`package`: its directory). `opaque`: compiled or stubbed, names unknown.
    Module { file: Option<String>, package: Option<String>, opaque: bool },
    /// Nothing: the module's dotted name so far, and the files looked for.
    Missing { module: String, looked: String, dir: String, part: String },
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
        }
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
                ImportKind::RustMod { inline } => self.rust_mod(path, import, inline, &mut out),
                ImportKind::Css | ImportKind::Html(_) => self.file(path, import, &mut out),
            }
        }
        self.ids(path, refs, &mut out);
        out.sort_by_key(|u| u.line);
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
        let refs = self.files.read(path).map(|text| Arc::new(extract(path, &text)));
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

    // --- scripts --------------------------------------------------------------------------

    /// Where `spec`, imported by `importer`, leads. A TypeScript importer may name a `.ts`
    /// source by its `.js` output and take types from a `.d.ts`; a script's import is
    /// satisfied only by code that runs.
    fn resolve_script(&self, importer: &str, spec: &str) -> Script {
        let from_dir = split(importer).0;
        let typescript = [".ts", ".tsx", ".mts", ".cts"].iter().any(|e| importer.ends_with(e));
        let extensions = SCRIPT_EXTENSIONS.iter().filter(|e| typescript || **e != "d.ts");
        let relative = spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../");
        let spec = spec.split('?').next().unwrap_or_default();
        if !relative || spec.contains(['*', '!', '{', '$', '<', '#']) {
            return Script::Skip;
        }
        let Some(target) = join(from_dir, spec) else { return Script::Skip };
        let mut found = Vec::new();
        if self.is_file(&target) {
            found.push(target.clone());
        }
        // A `.js` naming the TypeScript source it is compiled from.
        for (js, sources) in [
            (".js", &[".ts", ".tsx", ".d.ts"][..]),
            (".jsx", &[".tsx"][..]),
            (".mjs", &[".mts", ".d.mts"][..]),
            (".cjs", &[".cts", ".d.cts"][..]),
        ] {
            if let Some(stem) = target.strip_suffix(js).filter(|_| typescript) {
                found.extend(sources.iter().map(|s| format!("{stem}{s}")).filter(|p| self.is_file(p)));
            }
        }
        found.extend(extensions.clone().map(|e| format!("{target}.{e}")).filter(|p| self.is_file(p)));
        if self.is_dir(&target) || target.is_empty() {
            if self.is_file(&join_name(&target, "package.json")) {
                return Script::Opaque;
            }
            let index = join_name(&target, "index");
            found.extend(extensions.map(|e| format!("{index}.{e}")).filter(|p| self.is_file(p)));
            if found.is_empty()
                && self.listing(&target).is_some_and(|l| l.files.iter().any(|f| f.starts_with("index.")))
            {
                return Script::Skip;
            }
        }
        if !found.is_empty() {
            found.dedup();
            return Script::Found(found);
        }
        if self.may_exist_elsewhere(&target) || self.ts_root_dirs(from_dir) {
            return Script::Skip;
        }
        Script::Missing(target)
    }

    /// Whether a `tsconfig.json` above `dir` merges directories (`rootDirs`), under which a
    /// relative import may name a file in another directory.
    fn ts_root_dirs(&self, dir: &str) -> bool {
        ancestors(dir).any(|d| {
            let config = join_name(d, "tsconfig.json");
            self.is_file(&config) && self.files.read(&config).is_some_and(|t| t.contains("rootDirs"))
        })
    }

    fn script(&self, path: &str, import: &Import, out: &mut Vec<Unresolved>) {
        match self.resolve_script(path, &import.written) {
            Script::Missing(target) => {
                let (dir, name) = split(&target);
                let hint = self
                    .closest(dir, name, true, |n| {
                        (dir, n) != split(path)
                            && (SCRIPT_EXTENSIONS.iter().any(|e| n.ends_with(&format!(".{e}")))
                                || !n.contains('.'))
                    })
                    .map(|n| format!("; did you mean `{}`?", respell(&import.written, name, &n)))
                    .unwrap_or_default();
                let reason = if name.contains('.') && self.listing(dir).is_some() {
                    format!("does not exist ({target}){hint}")
                } else {
                    format!(
                        "resolves to no file (no {target} with a script extension, nor {target}/index){hint}"
                    )
                };
                out.push(Unresolved {
                    line: import.line,
                    kind: RefKind::Module,
                    reference: import.written.clone(),
                    reason,
                });
            }
            Script::Found(files) if !import.names.is_empty() => self.script_names(import, &files, out),
            _ => {}
        }
    }

    /// The names `import` takes from `files` (the files its specifier resolves to) that none
    /// of them exports.
    fn script_names(&self, import: &Import, files: &[String], out: &mut Vec<Unresolved>) {
        let mut exports = Vec::new();
        for file in files {
            if !SCRIPTS.iter().any(|e| file.ends_with(&format!(".{e}"))) {
                return;
            }
            match self.survey(file) {
                Some(refs) if !refs.broken => match &refs.exports {
                    Some(e) if e.known => exports.push((file.clone(), e.clone())),
                    _ => return,
                },
                _ => return,
            }
        }
        let Some((shown, _)) = exports.first().cloned() else { return };
        for (name, line) in &import.names {
            let provided = exports.iter().any(|(file, e)| {
                // A default import of a module without ES module syntax is its
                // `module.exports`, whatever that is.
                name == "default" && !e.module || self.exports_name(file, e, name, &mut HashSet::new())
            });
            if provided {
                continue;
            }
            let all: BTreeSet<&str> =
                exports.iter().flat_map(|(_, e)| e.names.iter().map(String::as_str)).collect();
            let hint = closest_of(name, all.into_iter().filter(|n| *n != "default"))
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default();
            let reason = match name.as_str() {
                "default" => format!("is not exported by {shown}: it has no default export{hint}"),
                _ => format!("is not exported by {shown}{hint}"),
            };
            let reference = if name == "default" {
                format!("default import from {}", import.written)
            } else {
                name.clone()
            };
            out.push(Unresolved { line: *line, kind: RefKind::Name, reference, reason });
        }
    }

    /// Whether `file` (exporting `exports`) exports `name`, following `export * from`; true
    /// when a star leads somewhere whose exports are not known.
    fn exports_name(&self, file: &str, exports: &Exports, name: &str, seen: &mut HashSet<String>) -> bool {
        if exports.names.contains(name) || !seen.insert(file.to_owned()) {
            return true;
        }
        exports.stars.iter().any(|spec| match self.resolve_script(file, spec) {
            Script::Found(targets) => targets.iter().any(|t| match self.survey(t) {
                Some(refs) if !refs.broken => match &refs.exports {
                    Some(e) if e.known => self.exports_name(t, e, name, seen),
                    _ => true,
                },
                _ => true,
            }),
            _ => true,
        })
    }

    // --- python ---------------------------------------------------------------------------

    fn python(
        &self,
        path: &str,
        import: &Import,
        level: usize,
        from: bool,
        refs: &Refs,
        out: &mut Vec<Unresolved>,
    ) {
        let parts: Vec<&str> = import.written.split('.').filter(|p| !p.is_empty()).collect();
        let shown = format!("{}{}", ".".repeat(level), import.written);
        let targets: Vec<(String, PyTarget)> = if level > 0 {
            let mut base = split(path).0.to_owned();
            for _ in 1..level {
                if base.is_empty() {
                    return;
                }
                base = split(&base).0.to_owned();
            }
            vec![(base.clone(), self.resolve_python(&base, &parts))]
        } else {
            let Some(top) = parts.first() else { return };
            if PYTHON_STDLIB.contains(top) || refs.module.as_ref().is_some_and(|m| m.path_tricks) {
                return;
            }
            self.import_roots(path)
                .iter()
                .filter(|root| self.local_top_level(root, top))
                .map(|root| (root.clone(), self.resolve_python(root, &parts)))
                .collect()
        };
        // Resolved from any root: fine. Otherwise the first root's failure is reported.
        let mut first_failure: Option<Vec<Unresolved>> = None;
        for (_, target) in targets {
            let mut found = Vec::new();
            match target {
                PyTarget::Missing { module, looked, dir, part } => {
                    // `x_pb2.py` and `x_pb2_grpc.py` are made from `x.proto` by the build.
                    let generated = part.ends_with("_pb2") || part.ends_with("_pb2_grpc");
                    if generated
                        || self.may_exist_elsewhere(&format!("{looked}.py"))
                        || self.is_file(&format!("{looked}.pyi"))
                    {
                        return;
                    }
                    let hint = self
                        .closest(&dir, &part, false, |n| n.ends_with(".py") || !n.contains('.'))
                        .map(|n| format!("; did you mean `{}`?", n.trim_end_matches(".py")))
                        .unwrap_or_default();
                    let what = if module == shown.trim_start_matches('.') {
                        String::new()
                    } else {
                        format!("`{module}`: ")
                    };
                    found.push(Unresolved {
                        line: import.line,
                        kind: RefKind::Module,
                        reference: shown.clone(),
                        reason: format!("is no module ({what}no {looked}.py or {looked}/__init__.py){hint}"),
                    });
                }
                PyTarget::Module { file, package, opaque } if from && !opaque => {
                    self.python_names(import, file.as_deref(), package.as_deref(), &mut found)
                }
                PyTarget::Module { .. } => {}
            }
            if found.is_empty() {
                return;
            }
            first_failure.get_or_insert(found);
        }
        out.extend(first_failure.unwrap_or_default());
    }

    /// The names `from module import a, b` takes that the module neither defines nor has as
    /// submodules.
    fn python_names(
        &self,
        import: &Import,
        file: Option<&str>,
        package: Option<&str>,
        out: &mut Vec<Unresolved>,
    ) {
        let module: Option<PyModule> = match file {
            Some(f) => match self.survey(f) {
                Some(refs) if !refs.broken => refs.module.clone(),
                _ => return,
            },
            // A namespace package: its names are its submodules, which may live in another
            // directory on the path.
            None => return,
        };
        let Some(module) = module else { return };
        // An import hook may provide any submodule of its package.
        if module.open || module.finder && package.is_some() {
            return;
        }
        for (name, line) in &import.names {
            if name.starts_with("__") && name.ends_with("__") || module.names.contains(name) {
                continue;
            }
            if package.is_some_and(|dir| self.python_submodule(dir, name)) {
                continue;
            }
            let shown_file = file.unwrap_or_default();
            let hint = closest_of(name, module.names.iter().map(String::as_str))
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default();
            let reason = match package {
                Some(dir) => format!("is not defined in {shown_file} and is no submodule of {dir}/{hint}"),
                None => format!("is not defined in {shown_file}{hint}"),
            };
            out.push(Unresolved { line: *line, kind: RefKind::Name, reference: name.clone(), reason });
        }
    }

    /// Whether `dir` holds a module or package `name`.
    fn python_submodule(&self, dir: &str, name: &str) -> bool {
        let Some(listing) = self.listing(dir) else { return false };
        listing.dirs.contains(name) || listing.files.iter().any(|f| is_python_module_file(f, name))
    }

    /// Where `parts` (a dotted module name) leads from directory `base`.
    fn resolve_python(&self, base: &str, parts: &[&str]) -> PyTarget {
        if parts.is_empty() {
            // `from . import x`: the package itself.
            let init = join_name(base, "__init__.py");
            let file = self.is_file(&init).then_some(init);
            return PyTarget::Module { file, package: Some(base.to_owned()), opaque: false };
        }
        let mut dir = base.to_owned();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            let module = parts[..=i].join(".");
            let missing = |dir: &str| PyTarget::Missing {
                module: module.clone(),
                looked: join_name(dir, part),
                dir: dir.to_owned(),
                part: (*part).to_owned(),
            };
            let Some(listing) = self.listing(&dir) else { return missing(&dir) };
            let sub = join_name(&dir, part);
            let init = join_name(&sub, "__init__.py");
            let file = format!("{sub}.py");
            if listing.dirs.contains(*part) && self.is_file(&init) {
                let hooked = self.survey(&init).is_some_and(|r| r.module.as_ref().is_some_and(|m| m.finder));
                if hooked && !last {
                    return PyTarget::Module { file: None, package: None, opaque: true };
                }
                if last {
                    return PyTarget::Module { file: Some(init), package: Some(sub), opaque: false };
                }
                dir = sub;
            } else if listing.files.contains(&format!("{part}.py")) {
                if last {
                    return PyTarget::Module { file: Some(file), package: None, opaque: false };
                }
                // A module is not a package; unless it sets `__path__`, which is rare enough
                // to leave to the missing-module report below.
                return PyTarget::Module { file: None, package: None, opaque: true };
            } else if listing.files.iter().any(|f| is_python_module_file(f, part)) {
                return PyTarget::Module { file: None, package: None, opaque: true };
            } else if listing.dirs.contains(*part) {
                // A namespace package.
                if last {
                    return PyTarget::Module { file: None, package: Some(sub), opaque: false };
                }
                dir = sub;
            } else {
                return missing(&dir);
            }
        }
        PyTarget::Module { file: None, package: None, opaque: true }
    }

    /// Whether `name` is a regular package or a module in `root`: a namespace directory is
    /// not, since Python prefers any installed package of that name to it.
    fn local_top_level(&self, root: &str, name: &str) -> bool {
        let Some(listing) = self.listing(root) else { return false };
        (listing.dirs.contains(name) && self.is_file(&join_name(&join_name(root, name), "__init__.py")))
            || listing.files.iter().any(|f| is_python_module_file(f, name))
    }

    /// The directories an absolute import of `path` may be resolved from: the one above its
    /// top package (or its own, for a script), the root, `src/`, and every directory above
    /// it with a `pyproject.toml`, `setup.py` or `setup.cfg` (and its `src/`).
    fn import_roots(&self, path: &str) -> Arc<Vec<String>> {
        let dir = split(path).0.to_owned();
        if let Some(known) = lock(&self.import_roots).get(&dir) {
            return known.clone();
        }
        let mut roots = Vec::new();
        let mut top = dir.clone();
        while !top.is_empty() && self.is_file(&join_name(&top, "__init__.py")) {
            top = split(&top).0.to_owned();
        }
        roots.push(top);
        roots.push(dir.clone());
        for d in ancestors(&dir) {
            let project = self.listing(d).is_some_and(|l| {
                ["pyproject.toml", "setup.py", "setup.cfg"].iter().any(|f| l.files.contains(*f))
            });
            if project || d.is_empty() {
                roots.push(d.to_owned());
                roots.push(join_name(d, "src"));
            }
        }
        let mut seen = HashSet::new();
        roots.retain(|r| seen.insert(r.clone()));
        let roots = Arc::new(roots);
        lock(&self.import_roots).insert(dir, roots.clone());
        roots
    }

    // --- rust -----------------------------------------------------------------------------

    fn rust_mod(&self, path: &str, import: &Import, inline: &[String], out: &mut Vec<Unresolved>) {
        let (dir, file) = split(path);
        let stem = file.strip_suffix(".rs").unwrap_or(file);
        // A crate root or `mod.rs` keeps its modules beside it; any other file, in a directory
        // of its name. A file may be a crate root by its manifest (`[[bin]] path`), so both.
        let mut bases = Vec::new();
        if !matches!(file, "lib.rs" | "main.rs" | "mod.rs") {
            bases.push(join_name(dir, stem));
        }
        bases.push(dir.to_owned());
        let name = &import.written;
        let candidates: Vec<(String, String)> = bases
            .iter()
            .map(|b| {
                let sub = inline.iter().fold(b.clone(), |d, m| join_name(&d, m));
                (join_name(&sub, &format!("{name}.rs")), join_name(&join_name(&sub, name), "mod.rs"))
            })
            .collect();
        if candidates.iter().any(|(file, module)| self.is_file(file) || self.is_file(module)) {
            return;
        }
        // Reported in the directory that exists (a crate root's, for `tests/compare.rs`).
        let (file, module) = candidates
            .iter()
            .find(|(file, _)| self.listing(split(file).0).is_some())
            .unwrap_or(&candidates[0]);
        if self.may_exist_elsewhere(file) {
            return;
        }
        let hint = self
            .closest(split(file).0, &format!("{name}.rs"), false, |n| {
                n.ends_with(".rs") && split(path).1 != n
            })
            .map(|n| format!("; did you mean `mod {};`?", n.trim_end_matches(".rs")))
            .unwrap_or_default();
        out.push(Unresolved {
            line: import.line,
            kind: RefKind::Module,
            reference: format!("mod {name};"),
            reason: format!("has no file ({file} or {module}){hint}"),
        });
    }

    // --- stylesheets and pages ------------------------------------------------------------

    fn file(&self, path: &str, import: &Import, out: &mut Vec<Unresolved>) {
        let from_dir = split(path).0;
        let Some(target) = join(from_dir, &import.written) else { return };
        if self.is_file(&target) || self.may_exist_elsewhere(&target) {
            return;
        }
        let (dir, name) = split(&target);
        let extension = name.rsplit_once('.').map(|(_, e)| format!(".{e}")).unwrap_or_default();
        let code = matches!(import.kind, ImportKind::Html(super::Tag::Script | super::Tag::Stylesheet))
            || matches!(import.kind, ImportKind::Css) && extension == ".css";
        let hint = self
            .closest(dir, name, code, |n| n.ends_with(&extension))
            .map(|n| format!("; did you mean `{}`?", respell(&import.written, name, &n)))
            .unwrap_or_default();
        out.push(Unresolved {
            line: import.line,
            kind: RefKind::File,
            reference: import.written.clone(),
            reason: format!("does not exist ({target}){hint}"),
        });
    }

    // --- DOM ids --------------------------------------------------------------------------

    fn ids(&self, path: &str, refs: &Refs, out: &mut Vec<Unresolved>) {
        if refs.lookups.is_empty() {
            return;
        }
        let Some(dom) = self.dom() else { return };
        if refs.page.is_none() && !dom.page_scripts.contains(path) {
            // Not a script any page of the project runs: its ids are another page's.
            return;
        }
        let mut missing: Vec<&super::Lookup> =
            refs.lookups.iter().filter(|l| !dom.ids.covers(&l.id)).collect();
        if missing.is_empty() {
            return;
        }
        let texts = dom.other_texts.get_or_init(|| {
            let mut budget: usize = 64 << 20;
            dom.others
                .iter()
                .filter_map(|p| self.files.read(p))
                .filter(|t| t.len() <= MAX_OTHER_TEXT)
                .take_while(|t| {
                    budget = budget.saturating_sub(t.len());
                    budget > 0
                })
                .collect()
        });
        missing.retain(|l| !texts.iter().any(|t| mentions(t, &l.id)));
        let mut known: Vec<&str> = dom.ids.literals.iter().map(String::as_str).collect();
        known.sort();
        for lookup in missing {
            let hint = closest_of(&lookup.id, known.iter().copied())
                .map(|n| format!("; did you mean `#{n}`?"))
                .unwrap_or_default();
            out.push(Unresolved {
                line: lookup.line,
                kind: RefKind::Id,
                reference: format!("#{}", lookup.id),
                reason: format!("is on no page{hint}"),
            });
        }
    }

    fn dom(&self) -> Option<&Dom> {
        self.dom.get_or_init(|| self.build_dom()).as_ref()
    }

    /// Every page's ids and scripts, and every script's created ids: one walk of the project.
    fn build_dom(&self) -> Option<Dom> {
        let files = self.files.walk()?;
        let has_ext = |p: &str, exts: &[&str]| {
            p.rsplit_once('.').is_some_and(|(_, e)| exts.iter().any(|x| x.eq_ignore_ascii_case(e)))
        };
        let mut dom = Dom {
            ids: IdSet::default(),
            page_scripts: HashSet::new(),
            others: Vec::new(),
            other_texts: OnceLock::new(),
        };
        let mut queue: Vec<String> = Vec::new();
        for file in &files {
            if has_ext(file, &["html", "htm"]) {
                let Some(refs) = self.survey(file) else { continue };
                dom.ids.extend(&refs.ids);
                let page_dir = split(file).0;
                for src in refs.page.iter().flat_map(|p| p.scripts.iter()) {
                    queue.extend(self.page_script(page_dir, src));
                }
                for import in refs.imports.iter().filter(|i| matches!(i.kind, ImportKind::Script { .. })) {
                    if let Script::Found(found) = self.resolve_script(file, &import.written) {
                        queue.extend(found);
                    }
                }
            } else if has_ext(file, SCRIPTS) {
                if let Some(text) = self.files.read(file) {
                    dom.ids.extend(&super::ids::created_ids(&text, true));
                }
            } else if !has_ext(file, STYLES) {
                dom.others.push(file.clone());
            }
        }
        while let Some(script) = queue.pop() {
            if !dom.page_scripts.insert(script.clone()) {
                continue;
            }
            let Some(refs) = self.survey(&script) else { continue };
            for import in refs.imports.iter().filter(|i| matches!(i.kind, ImportKind::Script { .. })) {
                if let Script::Found(found) = self.resolve_script(&script, &import.written) {
                    queue.extend(found);
                }
            }
        }
        Some(dom)
    }

    /// The file a page's `<script src>` loads: beside the page, or for a site-absolute path,
    /// under the root or a directory above the page (the site's root, where it is served).
    fn page_script(&self, page_dir: &str, src: &str) -> Option<String> {
        match src.strip_prefix('/') {
            Some(absolute) => std::iter::once(page_dir)
                .chain(ancestors(page_dir))
                .filter_map(|d| join(d, absolute))
                .find(|p| self.is_file(p)),
            None => join(page_dir, src).filter(|p| self.is_file(p)),
        }
    }
}

/// Whether `file` is a Python module named `name` other than plain source: a stub, a
/// Cython source, a compiled extension (`name.cpython-311-x86_64-linux-gnu.so`, `name.pyd`).
fn is_python_module_file(file: &str, name: &str) -> bool {
    let Some(rest) = file.strip_prefix(name).and_then(|r| r.strip_prefix('.')) else { return false };
    matches!(rest, "py" | "pyi" | "pyx" | "pxd" | "so" | "pyd")
        || rest.ends_with(".so")
        || rest.ends_with(".pyd")
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
