//! Python imports, resolved as Python's import system finds modules under the project, and
//! the names `from m import name` takes from them.

use std::collections::HashSet;
use std::sync::Arc;

use super::{Project, ancestors, closest_of, join_name, lock, split};
use crate::check::refs::{Import, PyModule, RefKind, Refs, Unresolved};

/// Python's standard library modules: a local file of the same name does not make an
/// import of one of them local (which one Python finds depends on how it is started).
pub(super) const PYTHON_STDLIB: &[&str] = &[
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

/// Where a Python module import leads.
/// The names every module has without defining them: `from m import __file__` always
/// resolves. Other dunders (`__version__`, `__all__`) are defined like any name.
const MODULE_DUNDERS: &[&str] = &[
    "__name__",
    "__file__",
    "__doc__",
    "__spec__",
    "__loader__",
    "__package__",
    "__path__",
    "__builtins__",
    "__dict__",
    "__cached__",
    "__annotations__",
];

pub(super) enum PyTarget {
    /// A module (`file`: its `.py` or `__init__.py`; none for a namespace package), or a
    /// package (`package`: its directory). `opaque`: compiled or stubbed, names unknown.
    Module { file: Option<String>, package: Option<String>, opaque: bool },
    /// Nothing: the module's dotted name so far, and the files looked for.
    Missing { module: String, looked: String, dir: String, part: String },
}

impl Project<'_> {
    pub(super) fn python(
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
                        cell: None,
                        line: import.line,
                        kind: RefKind::Module,
                        reference: shown.clone(),
                        reason: format!("is no module ({what}no {looked}.py or {looked}/__init__.py){hint}"),
                    });
                }
                PyTarget::Module { file, package, opaque } if from && !opaque => {
                    self.python_names(path, import, level, file.as_deref(), package.as_deref(), &mut found)
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

    /// The names `from module import a, b` (in `importer`, with `level` leading dots) takes
    /// that the module neither defines nor has as submodules.
    pub(super) fn python_names(
        &self,
        importer: &str,
        import: &Import,
        level: usize,
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
        // A module importing from itself (a package's `__init__.py` importing its own
        // submodule) binds the names by that very import.
        let own = file == Some(importer);
        let by_this_import = |name: &str| {
            own && module
                .imported_only
                .get(name)
                .is_some_and(|sources| sources.iter().all(|(l, m)| *l == level && *m == import.written))
        };
        for (name, line) in &import.names {
            if MODULE_DUNDERS.contains(&name.as_str()) || module.names.contains(name) && !by_this_import(name)
            {
                continue;
            }
            if package.is_some_and(|dir| self.python_submodule(dir, name)) {
                continue;
            }
            if own && let Some(dir) = package {
                // Its own submodule, missing: unless a build makes it.
                let looked = join_name(dir, name);
                let generated = name.ends_with("_pb2") || name.ends_with("_pb2_grpc");
                if !generated && !self.may_exist_elsewhere(&format!("{looked}.py")) {
                    let dots = ".".repeat(level);
                    let module = if import.written.is_empty() {
                        format!("{dots}{name}")
                    } else {
                        format!("{dots}{}.{name}", import.written)
                    };
                    out.push(Unresolved {
                        cell: None,
                        line: *line,
                        kind: RefKind::Module,
                        reference: module,
                        reason: format!("is no module (no {looked}.py or {looked}/__init__.py)"),
                    });
                }
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
            out.push(Unresolved {
                line: *line,
                kind: RefKind::Name,
                reference: name.clone(),
                reason,
                cell: None,
            });
        }
    }

    /// Whether `dir` holds a module or package `name`.
    pub(super) fn python_submodule(&self, dir: &str, name: &str) -> bool {
        let Some(listing) = self.listing(dir) else { return false };
        listing.dirs.contains(name) || listing.files.iter().any(|f| is_python_module_file(f, name))
    }

    /// Where `parts` (a dotted module name) leads from directory `base`.
    pub(super) fn resolve_python(&self, base: &str, parts: &[&str]) -> PyTarget {
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
    pub(super) fn local_top_level(&self, root: &str, name: &str) -> bool {
        let Some(listing) = self.listing(root) else { return false };
        (listing.dirs.contains(name) && self.is_file(&join_name(&join_name(root, name), "__init__.py")))
            || listing.files.iter().any(|f| is_python_module_file(f, name))
    }

    /// The directories an absolute import of `path` may be resolved from: the one above its
    /// top package (or its own, for a script), the root, `src/`, and every directory above
    /// it with a `pyproject.toml`, `setup.py` or `setup.cfg` (and its `src/`).
    pub(super) fn import_roots(&self, path: &str) -> Arc<Vec<String>> {
        let dir = split(path).0.to_owned();
        if let Some(known) = lock(&self.import_roots).get(&dir) {
            return known.clone();
        }
        let mut roots = Vec::new();
        let mut top = dir.clone();
        while !top.is_empty() && self.is_file(&join_name(&top, "__init__.py")) {
            top = split(&top).0.to_owned();
        }
        // A script's own directory is `top` (it is no package); a module in a package has
        // no implicit relative imports, so its directory is no root.
        roots.push(top);
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
}

/// Whether `file` is a Python module named `name` other than plain source: a stub, a
/// Cython source, a compiled extension (`name.cpython-311-x86_64-linux-gnu.so`, `name.pyd`).
fn is_python_module_file(file: &str, name: &str) -> bool {
    let Some(rest) = file.strip_prefix(name).and_then(|r| r.strip_prefix('.')) else { return false };
    matches!(rest, "py" | "pyi" | "pyx" | "pxd" | "so" | "pyd")
        || rest.ends_with(".so")
        || rest.ends_with(".pyd")
}
