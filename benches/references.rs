//! Whether `check_files`' unresolved references are right on real projects nobody here
//! wrote: no complaint on a project that works, and a complaint on a copy with one reference
//! broken.
//!
//! The check is the one a user sees: the release server, spoken to over stdio, started on a
//! copy of each project (in a temporary directory, nothing is committed) and asked
//! `check_files` with the project's code files (`.js`, `.ts`, `.py`, `.rs`, `.css`, `.html`
//! and their kin; not under `node_modules`, `test` or `tests`, at most `--max-files` of
//! them, drawn by the seed).
//!
//! Projects, found at run time: each package of python3's standard library (in a directory
//! of its own, as a project holds its package) and the packages of its `site-packages`;
//! crates of cargo's unpacked registry; npm as node installs it and the packages in its
//! `node_modules`; and every directory given as an argument (`--each DIR`: each directory
//! in DIR), such as web apps fetched for the measurement.
//!
//! 1. **Working projects**: every unresolved reference reported is a false alarm, and each is
//!    printed. Target: none.
//! 2. **One reference broken**: copies with one reference broken, of eight kinds. The bench
//!    finds references with its own reading of the texts (not the checker's), resolves them
//!    against the files on disk, and picks only breaks that are real:
//!    - *misspelled import path*: a relative JavaScript/TypeScript import or a Python import
//!      of a project module whose last segment gets two letters swapped (or one dropped),
//!      when no file in the directory has the new name under any extension or case;
//!    - *deleted module or linked file*: the file an import, `src`, `href`, `@import` or
//!      `url()` resolves to is deleted, when no other file of the same stem is beside it (a
//!      build could make one from the other) and it is not a package's `__init__.py`;
//!    - *export renamed in its own file*: a name a file imports from a project module (`import
//!      { a }`, `from .m import a`) is renamed throughout the module's own text, when the
//!      module declares it (`function a`, `const a`, `def a`, `class a`, `a =`) and has no
//!      `export *`, star import or module `__getattr__` that could still provide it;
//!    - *id renamed in the page*: an id a page's script looks up (`getElementById`,
//!      `querySelector('#id')`) is renamed in the one page that defines it, when no other
//!      file of the project (a template, a script creating it) mentions the id;
//!    - *deleted `mod` file*: the file of a top-level `mod x;` without attributes is deleted;
//!    - *deleted cfg `mod` file*: the same under one `#[cfg(...)]` line (not `cfg(test)`),
//!      when no `build.rs` of the project mentions the module;
//!    - *deleted linked document*: what a page's `<a href>` or `<iframe src>` names that is
//!      not a page (`../pdfs/brief.pdf`) is deleted, as for a deleted linked file;
//!    - *base-template id renamed*: an id a child template's inline script looks up, defined
//!      in the template it `{% extends %}` (resolved under the nearest directory above it)
//!      and not in the child, is renamed there, with the rule of a renamed id.
//!
//!    A break counts as reported when `check_files` on the file that makes the reference
//!    lists an unresolved reference naming the missing path or name. Target: 95% per kind.
//! 3. **One name broken**: a definition never written, renamed in one place only, an import
//!    dropped, a page that lost a script: see `references/names.rs` for the rules that make
//!    each a real break. Counted like the references: the name reported in the file that uses
//!    it.
//!
//! Run: `cargo bench --bench references -- [--seed N] [--per-kind N] [--max-files N]
//! [--crates N] [--npm N] [--python N] [--dump] [--each DIR]... [DIR]...`. Without `--bench` (as `cargo
//! test --benches` runs it) it makes a tiny run: one standard-library package, one case per
//! kind.

#[path = "common/mod.rs"]
mod common;
#[path = "references/names.rs"]
mod names;
#[path = "common/stdio.rs"]
mod stdio;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::pct;
use serde_json::{Value, json};

/// Extensions of the files `check_files` is asked about.
const CODE: &[&str] =
    &["js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "py", "rs", "css", "html", "htm"];
/// Extensions a relative script import may leave out, as Node and bundlers try them.
const SCRIPT_EXTS: &[&str] = &["js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts", "json"];
const SCRIPTS: &[&str] = &["js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts"];
const KINDS: &[&str] = &[
    "misspelled path",
    "deleted file",
    "renamed export",
    "renamed id",
    "deleted mod file",
    "deleted cfg mod file",
    "deleted linked document",
    "base-template id renamed",
    names::NEVER_WRITTEN,
    names::RENAMED,
    names::IMPORT_DROPPED,
    names::LOST_SCRIPT,
];

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let full = argv.iter().any(|a| a == "--bench");
    let args = Args::parse(&argv, full);
    let started = Instant::now();
    let work = tempfile::tempdir().expect("a temporary directory");
    let projects = gather(&args);
    println!(
        "references: {} projects, seed {}, up to {} cases per kind per project, {}",
        projects.len(),
        args.seed,
        args.per_kind,
        if full { "full run" } else { "quick run (without --bench)" }
    );
    let mut totals = Totals::default();
    for (i, project) in projects.iter().enumerate() {
        let copy = work.path().join(format!("p{i}"));
        copy_tree(&project.dir, &copy.join(&project.inside));
        let root = copy.clone();
        measure(project, &root, &args, &mut totals);
        let _ = std::fs::remove_dir_all(&copy);
    }
    report(&totals, &args, started);
}

/// Command-line options.
struct Args {
    seed: u64,
    per_kind: usize,
    max_files: usize,
    crates: usize,
    npm: usize,
    /// At most this many Python packages (standard library and site-packages each).
    python: usize,
    dump: bool,
    full: bool,
    dirs: Vec<(String, PathBuf)>,
}

impl Args {
    fn parse(argv: &[String], full: bool) -> Args {
        let mut args = Args {
            seed: 1,
            per_kind: if full { 4 } else { 1 },
            max_files: 300,
            crates: if full { 40 } else { 0 },
            python: usize::MAX,
            npm: if full { 40 } else { 0 },
            dump: false,
            full,
            dirs: Vec::new(),
        };
        let mut it = argv.iter();
        let number = |v: Option<&String>, name: &str| -> u64 {
            v.and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{name} needs a number"))
        };
        while let Some(a) = it.next() {
            match a.as_str() {
                "--bench" => {}
                "--seed" => args.seed = number(it.next(), a),
                "--per-kind" => args.per_kind = number(it.next(), a) as usize,
                "--max-files" => args.max_files = number(it.next(), a) as usize,
                "--crates" => args.crates = number(it.next(), a) as usize,
                "--python" => args.python = number(it.next(), a) as usize,
                "--npm" => args.npm = number(it.next(), a) as usize,
                "--dump" => args.dump = true,
                "--each" => {
                    let dir = PathBuf::from(it.next().expect("--each needs a directory"));
                    let mut subs: Vec<PathBuf> = std::fs::read_dir(&dir)
                        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                        .flatten()
                        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                        .map(|e| e.path())
                        .collect();
                    subs.sort();
                    let group = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
                    args.dirs.extend(subs.into_iter().map(|s| (group.clone(), s)));
                }
                other if !other.starts_with('-') => {
                    let dir = PathBuf::from(other);
                    let group = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
                    args.dirs.push((group, dir));
                }
                // `cargo test --benches` passes harness options; they mean nothing here.
                _ => {}
            }
        }
        args
    }
}

/// One project: where it is, and the directory its files go under in the copy's root (a
/// Python package is copied into a root of its own as `root/<package>`).
struct Project {
    group: String,
    name: String,
    dir: PathBuf,
    inside: String,
}

fn gather(args: &Args) -> Vec<Project> {
    let mut out = Vec::new();
    let python = |code: &str| -> Option<String> {
        let o = Command::new("python3").args(["-c", code]).output().ok()?;
        o.status.success().then(|| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    let packages_in = |dir: &Path| -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> =
            std::fs::read_dir(dir).map(|r| r.flatten().map(|e| e.path()).collect()).unwrap_or_default();
        found.retain(|p| p.join("__init__.py").is_file());
        found.sort();
        found
    };
    if let Some(stdlib) = python("import sysconfig; print(sysconfig.get_paths()['stdlib'])") {
        let mut packages = packages_in(Path::new(&stdlib));
        packages.retain(|p| !matches!(file_name(p).as_str(), "test" | "tests" | "idlelib" | "turtledemo"));
        if !args.full {
            packages.retain(|p| file_name(p) == "json");
        }
        shuffle(&mut packages, args.seed);
        packages.truncate(args.python);
        packages.sort();
        for p in packages {
            let name = file_name(&p);
            out.push(Project { group: "python stdlib".into(), name: name.clone(), dir: p, inside: name });
        }
    }
    if args.full
        && let Some(site) = python("import sysconfig; print(sysconfig.get_paths()['purelib'])")
    {
        let mut site_packages = packages_in(Path::new(&site));
        shuffle(&mut site_packages, args.seed);
        site_packages.truncate(args.python);
        site_packages.sort();
        for p in site_packages {
            let name = file_name(&p);
            out.push(Project {
                group: "python site-packages".into(),
                name: name.clone(),
                dir: p,
                inside: name,
            });
        }
    }
    let cargo_home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cargo"));
    let mut crates: Vec<PathBuf> = std::fs::read_dir(cargo_home.join("registry/src"))
        .map(|r| r.flatten().flat_map(|i| std::fs::read_dir(i.path()).into_iter().flatten().flatten()))
        .into_iter()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    crates.sort();
    shuffle(&mut crates, args.seed);
    for p in crates.into_iter().take(args.crates) {
        out.push(Project { group: "rust crates".into(), name: file_name(&p), dir: p, inside: String::new() });
    }
    if args.npm > 0
        && let Ok(o) = Command::new("npm").args(["root", "-g"]).output()
    {
        let npm = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()).join("npm");
        if npm.is_dir() {
            let mut deps: Vec<PathBuf> = std::fs::read_dir(npm.join("node_modules"))
                .map(|r| r.flatten().map(|e| e.path()).collect())
                .unwrap_or_default();
            // Scoped packages (`@npmcli/fs`) are one level deeper.
            let scoped: Vec<PathBuf> = deps
                .iter()
                .filter(|p| file_name(p).starts_with('@'))
                .flat_map(|p| std::fs::read_dir(p).into_iter().flatten().flatten().map(|e| e.path()))
                .collect();
            deps.extend(scoped);
            deps.retain(|p| p.join("package.json").is_file());
            deps.sort();
            shuffle(&mut deps, args.seed);
            out.push(Project { group: "npm".into(), name: "npm".into(), dir: npm, inside: String::new() });
            for p in deps.into_iter().take(args.npm) {
                out.push(Project { group: "npm".into(), name: file_name(&p), dir: p, inside: String::new() });
            }
        }
    }
    for (group, dir) in &args.dirs {
        out.push(Project {
            group: group.clone(),
            name: file_name(dir),
            dir: dir.clone(),
            inside: String::new(),
        });
    }
    out
}

fn file_name(p: &Path) -> String {
    p.file_name().unwrap_or_default().to_string_lossy().into_owned()
}

/// A seeded Fisher-Yates shuffle (xorshift), so that a seed picks the same things again.
fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    for i in (1..items.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Copies `from` to `to`, symlinks as symlinks, `.git` left out.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("the copy's directory");
    let Ok(entries) = std::fs::read_dir(from) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name == ".git" {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_symlink() {
            if let Ok(target) = std::fs::read_link(&src) {
                let _ = std::os::unix::fs::symlink(target, &dst);
            }
        } else if kind.is_dir() {
            copy_tree(&src, &dst);
        } else if kind.is_file() {
            let _ = std::fs::copy(&src, &dst);
        }
    }
}

// --- the server ------------------------------------------------------------------------------

/// One unresolved reference as `check_files` reports it.
#[derive(Debug, Clone)]
struct Complaint {
    path: String,
    line: u64,
    kind: String,
    reference: String,
    reason: String,
}

/// `check_files` on `paths` of a server started on `root`: every unresolved reference.
fn check_files(root: &Path, paths: &[String]) -> Vec<Complaint> {
    let state = tempfile::tempdir().expect("a state directory");
    let mut command = Command::new(env!("CARGO_BIN_EXE_filewright"));
    command.arg("--root").arg(root).arg("--state-dir").arg(state.path()).env("FILEWRIGHT_LOG", "error");
    let (mut server, _) = stdio::Server::spawn(command, vec![state]);
    let reply = server.call_ok("check_files", json!({ "paths": paths }));
    let reply: Value = serde_json::from_str(&reply).expect("a JSON reply");
    let files = reply["result"]["structuredContent"]["files"].as_array().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for file in files {
        let path = file["path"].as_str().unwrap_or_default().to_owned();
        // A file whose syntax check fails has its references unjudged: no case is made in it.
        if matches!(file["status"].as_str(), Some("errors" | "incomplete")) {
            out.push(Complaint {
                path: path.clone(),
                line: 0,
                kind: "unparsed".into(),
                reference: String::new(),
                reason: String::new(),
            });
        }
        for u in file["unresolved"].as_array().into_iter().flatten() {
            out.push(Complaint {
                path: path.clone(),
                line: u["line"].as_u64().unwrap_or(0),
                kind: u["kind"].as_str().unwrap_or_default().to_owned(),
                reference: u["reference"].as_str().unwrap_or_default().to_owned(),
                reason: u["reason"].as_str().unwrap_or_default().to_owned(),
            });
        }
        let more = file["more_unresolved"].as_u64().unwrap_or(0);
        if more > 0 {
            out.push(Complaint {
                path: path.clone(),
                line: 0,
                kind: "more".into(),
                reference: format!("{more} more"),
                reason: String::new(),
            });
        }
    }
    out
}

// --- measuring ------------------------------------------------------------------------------

#[derive(Default)]
struct Totals {
    /// Per group: projects, files checked, complaints.
    groups: BTreeMap<String, (usize, usize, usize)>,
    false_alarms: Vec<(String, Complaint)>,
    /// Per kind and group: cases, reported.
    cases: BTreeMap<(String, String), (usize, usize)>,
    misses: Vec<String>,
}

fn measure(project: &Project, root: &Path, args: &Args, totals: &mut Totals) {
    let mut all = Vec::new();
    common::walk(root, &|_| false, &mut all);
    let rel = |p: &Path| p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
    let mut files: Vec<String> = all.iter().map(|p| rel(p)).collect();
    files.sort();
    let mut checked: Vec<String> = files
        .iter()
        .filter(|f| has_ext(f, CODE))
        .filter(|f| {
            !f.split('/').any(|s| {
                matches!(s, "node_modules" | "bower_components" | "test" | "tests") || s.starts_with('.')
            })
        })
        .cloned()
        .collect();
    shuffle(&mut checked, args.seed);
    checked.truncate(args.max_files);
    checked.sort();
    let label = format!("{}/{}", project.group, project.name);
    let mut complaints = if checked.is_empty() { Vec::new() } else { check_files(root, &checked) };
    let unparsed: HashSet<String> =
        complaints.iter().filter(|c| c.kind == "unparsed").map(|c| c.path.clone()).collect();
    complaints.retain(|c| c.kind != "unparsed");
    let g = totals.groups.entry(project.group.clone()).or_default();
    g.0 += 1;
    g.1 += checked.len();
    g.2 += complaints.len();
    for c in &complaints {
        println!("COMPLAINT {label}: {}:{} [{}] `{}` {}", c.path, c.line, c.kind, c.reference, c.reason);
    }
    let complained: HashSet<String> = complaints.iter().map(|c| c.path.clone()).collect();
    totals.false_alarms.extend(complaints.into_iter().map(|c| (label.clone(), c)));

    // References are read only from files that are checked, parse and raised no complaint.
    let checked_set: HashSet<&String> =
        checked.iter().filter(|f| !complained.contains(*f) && !unparsed.contains(*f)).collect();
    let disk = Disk::new(root, &files);
    let sites = read_sites(&disk, &checked_set);
    let cases = make_cases(&disk, &sites, &checked_set, args);
    for case in cases {
        let reported = run_case(root, &case);
        let e = totals.cases.entry((case.kind.to_owned(), project.group.clone())).or_default();
        e.0 += 1;
        if reported.0 {
            e.1 += 1;
        } else {
            let line = format!(
                "MISS {label} [{}] {} in {}:{} ({}); reported: {}",
                case.kind,
                case.expect,
                case.user,
                case.line,
                case.what,
                if reported.1.is_empty() { "nothing".to_owned() } else { reported.1.join("; ") }
            );
            println!("{line}");
            totals.misses.push(line);
        }
        if args.dump {
            println!("CASE {label} [{}] {} in {}: {}", case.kind, case.expect, case.user, case.what);
        }
    }
}

/// The project's files on disk, by root-relative path.
struct Disk {
    root: PathBuf,
    files: BTreeSet<String>,
    dirs: BTreeSet<String>,
}

impl Disk {
    fn new(root: &Path, files: &[String]) -> Disk {
        let mut dirs = BTreeSet::new();
        for f in files {
            let mut d = f.as_str();
            while let Some((parent, _)) = d.rsplit_once('/') {
                dirs.insert(parent.to_owned());
                d = parent;
            }
        }
        Disk { root: root.to_owned(), files: files.iter().cloned().collect(), dirs }
    }

    fn read(&self, path: &str) -> Option<String> {
        let bytes = std::fs::read(self.root.join(path)).ok()?;
        (bytes.len() < 1 << 20 && !bytes.contains(&0)).then(|| String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Whether `path` is an installed dependency (`node_modules`, `bower_components`), a
    /// path a `.gitignore` above it names by one of its parts (a build output), or a file a
    /// build configuration above it names (`package.json`'s `main`, a bundler's output): a
    /// build or an install brings it back, so deleting it breaks nothing.
    fn installed_or_built(&self, path: &str) -> bool {
        let parts: Vec<&str> = path.split('/').collect();
        if parts.iter().any(|p| matches!(*p, "node_modules" | "bower_components")) {
            return true;
        }
        let name = split(path).1;
        let mut dir = split(path).0;
        loop {
            let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
            let ignore = self.read(&format!("{prefix}.gitignore")).unwrap_or_default();
            let ignored = ignore
                .lines()
                .map(|l| l.trim().trim_matches('/'))
                .any(|l| !l.is_empty() && parts.contains(&l));
            let named = [
                "package.json",
                "webpack.config.js",
                "rollup.config.js",
                "vite.config.js",
                "tsconfig.json",
                "gulpfile.js",
                "Gruntfile.js",
                "pyproject.toml",
                "setup.py",
                "Cargo.toml",
            ]
            .iter()
            .filter_map(|b| self.read(&format!("{prefix}{b}")))
            .any(|t| t.contains(name));
            if ignored || named {
                return true;
            }
            if dir.is_empty() {
                return false;
            }
            dir = split(dir).0;
        }
    }

    fn is_file(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    /// Entries of `dir` (files and directories) whose name, lowercased, has the stem `stem`
    /// (lowercased): `stem`, `stem.anything`.
    fn same_stem(&self, dir: &str, stem: &str) -> Vec<String> {
        let stem = stem.to_lowercase();
        self.files
            .iter()
            .chain(self.dirs.iter())
            .filter(|p| split(p).0 == dir)
            .filter(|p| {
                let name = split(p).1.to_lowercase();
                name == stem || name.starts_with(&format!("{stem}."))
            })
            .cloned()
            .collect()
    }
}

fn has_ext(path: &str, exts: &[&str]) -> bool {
    path.rsplit_once('.').is_some_and(|(_, e)| exts.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

fn split(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

/// `rel` resolved against `dir`; None when it leaves the root.
fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for seg in rel.split('/') {
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

// --- the bench's own reading of references ---------------------------------------------------

/// What a reference is, as the bench reads it.
#[derive(Debug, Clone, PartialEq)]
enum SiteKind {
    /// A relative script import (with the names it imports).
    Script,
    /// A Python import of a project module (with the names of a `from` import).
    Python,
    /// An HTML `src`/`href` or a CSS `@import`/`url()`.
    Linked,
    /// `mod x;`.
    RustMod,
    /// `mod x;` under a `#[cfg(...)]` (not `cfg(test)`).
    RustModCfg,
    /// A page's `<a href>` or `<iframe src>` to a local file that is not a page.
    Document,
}

/// One reference found in a text, resolved to the file it loads.
#[derive(Debug, Clone)]
struct Site {
    user: String,
    line: usize,
    kind: SiteKind,
    /// Byte range of the written path or module in the user's text.
    range: (usize, usize),
    written: String,
    target: String,
    names: Vec<String>,
    /// Python: the import's leading dots (0 for an absolute import).
    level: usize,
}

impl Site {
    /// Whether a misspelled first part is still a module the project must have: a relative
    /// import. An absolute one whose first part is misspelled names another top-level
    /// package, which may be installed (as a bare package name in a script is not checked).
    fn absolute_dots(&self) -> bool {
        self.level > 0
    }
}

/// A DOM id a page's script looks up, and the page that defines it.
#[derive(Debug, Clone)]
struct IdSite {
    user: String,
    line: usize,
    id: String,
    page: String,
}

struct Sites {
    refs: Vec<Site>,
    ids: Vec<IdSite>,
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// The quoted string starting at `at` (a quote character): its value and range.
fn quoted(text: &str, at: usize) -> Option<(String, (usize, usize))> {
    let quote = *text.as_bytes().get(at)?;
    if !matches!(quote, b'\'' | b'"' | b'`') {
        return None;
    }
    let rest = &text[at + 1..];
    let end = rest.find(quote as char)?;
    let value = &rest[..end];
    (!value.contains(['\n', '\\', '$'])).then(|| (value.to_owned(), (at + 1, at + 1 + end)))
}

fn is_comment_line(text: &str, at: usize) -> bool {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].trim_start();
    line.starts_with("//") || line.starts_with('*') || line.starts_with("/*") || line.starts_with('#')
}

fn read_sites(disk: &Disk, checked: &HashSet<&String>) -> Sites {
    let mut refs = Vec::new();
    let mut ids = Vec::new();
    let stdlib = python_stdlib();
    let mut users: Vec<&&String> = checked.iter().collect();
    users.sort();
    for user in users {
        let Some(text) = disk.read(user) else { continue };
        // A bundle's requires name the modules inside it (`{"./footer": 3}`): misspelling one
        // breaks it only if the bundle's own table is not changed too, which no reader of
        // the require alone can tell.
        let bundle =
            ["define('", "define(\"", "typeof require&&require", "&&require;", "__webpack_require__"]
                .iter()
                .any(|m| text.contains(m));
        if has_ext(user, SCRIPTS) && !bundle {
            script_sites(disk, user, &text, &mut refs);
        } else if has_ext(user, &["py"]) {
            python_sites(disk, user, &text, &stdlib, &mut refs);
        } else if has_ext(user, &["rs"]) {
            rust_sites(disk, user, &text, &mut refs);
        } else if has_ext(user, &["css"]) {
            css_sites(disk, user, &text, &mut refs);
        } else if has_ext(user, &["html", "htm"]) {
            html_sites(disk, user, &text, &mut refs);
        }
    }
    // Ids: each page, its inline text and the local scripts it links.
    for page in disk.files.iter().filter(|f| has_ext(f, &["html", "htm"])) {
        let Some(text) = disk.read(page) else { continue };
        if text.contains("{{") || text.contains("{%") {
            continue;
        }
        let defined = defined_ids(&text);
        let mut users = vec![(page.clone(), text.clone())];
        for src in attribute_values(&text, "src") {
            if has_ext(&src.0, &["js", "mjs"])
                && let Some(script) = local(&src.0).and_then(|s| join(split(page).0, &s))
                && checked.contains(&script)
                && let Some(t) = disk.read(&script)
            {
                users.push((script, t));
            }
        }
        for (user, utext) in users {
            for (id, at) in lookups(&utext) {
                if defined.contains(&id) {
                    ids.push(IdSite {
                        user: user.clone(),
                        line: line_of(&utext, at),
                        id,
                        page: page.clone(),
                    });
                }
            }
        }
    }
    Sites { refs, ids }
}

fn python_stdlib() -> HashSet<String> {
    Command::new("python3")
        .args(["-c", "import sys; print('\\n'.join(sys.stdlib_module_names))"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Where a relative script specifier leads: the first file Node or a bundler would take.
fn resolve_script(disk: &Disk, user: &str, spec: &str) -> Option<String> {
    let target = join(split(user).0, spec)?;
    if disk.is_file(&target) {
        return Some(target);
    }
    if let Some(stem) = target.strip_suffix(".js")
        && disk.is_file(&format!("{stem}.ts"))
    {
        return Some(format!("{stem}.ts"));
    }
    for e in SCRIPT_EXTS {
        if disk.is_file(&format!("{target}.{e}")) {
            return Some(format!("{target}.{e}"));
        }
    }
    for e in SCRIPT_EXTS {
        let index = format!("{target}/index.{e}");
        if disk.is_file(&index) {
            return Some(index);
        }
    }
    None
}

fn script_sites(disk: &Disk, user: &str, text: &str, out: &mut Vec<Site>) {
    for pattern in ["from ", "require(", "import(", "import "] {
        let mut from = 0;
        while let Some(i) = text[from..].find(pattern) {
            let at = from + i + pattern.len();
            from = at;
            let Some((spec, range)) = quoted(text, at) else { continue };
            if !(spec.starts_with("./") || spec.starts_with("../")) || is_comment_line(text, at) {
                continue;
            }
            let Some(target) = resolve_script(disk, user, &spec) else { continue };
            // Named imports of a static `import { a, b as c } from`.
            let mut names = Vec::new();
            if pattern == "from " {
                let head = &text[..at - pattern.len()];
                if let Some(start) = head.rfind("import") {
                    let clause = &head[start + "import".len()..];
                    if !clause.trim_start().starts_with("type")
                        && !clause.contains([';', '=', '(', ')'])
                        && let (Some(open), Some(close)) = (clause.find('{'), clause.rfind('}'))
                        && open < close
                    {
                        for part in clause[open + 1..close].split(',') {
                            let name = part.split(" as ").next().unwrap_or_default().trim();
                            if is_ident(name) && name != "default" {
                                names.push(name.to_owned());
                            }
                        }
                    }
                }
            }
            out.push(Site {
                user: user.to_owned(),
                line: line_of(text, at),
                kind: SiteKind::Script,
                range,
                written: spec,
                target,
                names,
                level: 0,
            });
        }
    }
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// Where a Python module import leads: its `.py` or `__init__.py`.
fn resolve_python(disk: &Disk, base: &str, parts: &[&str]) -> Option<String> {
    let path = parts
        .iter()
        .fold(base.to_owned(), |d, p| if d.is_empty() { (*p).to_owned() } else { format!("{d}/{p}") });
    [format!("{path}.py"), format!("{path}/__init__.py")].into_iter().find(|p| disk.is_file(p))
}

fn python_sites(disk: &Disk, user: &str, text: &str, stdlib: &HashSet<String>, out: &mut Vec<Site>) {
    let mut offset = 0;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let start = offset;
        offset += line.len();
        i += 1;
        // Top level only: an indented import may sit in a `try` or an `if`.
        let Some(rest) = line.strip_prefix("from ") else { continue };
        let Some((module, names)) = rest.split_once(" import ") else { continue };
        let module = module.trim();
        let level = module.len() - module.trim_start_matches('.').len();
        let dotted = &module[level..];
        if dotted.is_empty() || !dotted.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') {
            continue;
        }
        let parts: Vec<&str> = dotted.split('.').collect();
        let target = if level > 0 {
            let mut base = split(user).0.to_owned();
            for _ in 1..level {
                base = split(&base).0.to_owned();
            }
            resolve_python(disk, &base, &parts)
        } else if !stdlib.contains(parts[0]) {
            resolve_python(disk, "", &parts)
        } else {
            None
        };
        let Some(target) = target else { continue };
        let mut names_text = names.trim().to_owned();
        if names_text.starts_with('(') {
            while !names_text.contains(')') && i < lines.len() {
                names_text.push_str(lines[i]);
                offset += lines[i].len();
                i += 1;
            }
        }
        let names = names_text
            .trim_matches(|c: char| c == '(' || c == ')' || c.is_whitespace())
            .split(',')
            .map(|n| n.split('#').next().unwrap_or_default().split(" as ").next().unwrap_or_default().trim())
            .filter(|n| is_ident(n) && *n != "*")
            .map(str::to_owned)
            .collect();
        let at = start + "from ".len() + (line["from ".len()..].len() - rest.trim_start().len());
        let at = at + level;
        out.push(Site {
            user: user.to_owned(),
            line: line_of(text, start),
            kind: SiteKind::Python,
            range: (at, at + dotted.len()),
            written: dotted.to_owned(),
            target,
            names,
            level,
        });
    }
}

fn rust_sites(disk: &Disk, user: &str, text: &str, out: &mut Vec<Site>) {
    if text.contains("#![cfg") {
        return;
    }
    let (dir, file) = split(user);
    let stem = file.trim_end_matches(".rs");
    let mut previous = "";
    // Whether the line before `previous` ends an item: a `#[cfg]` on `previous` is alone.
    let mut before_previous_ends = true;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_end();
        let decl = trimmed
            .strip_prefix("pub mod ")
            .or_else(|| trimmed.strip_prefix("pub(crate) mod "))
            .or_else(|| trimmed.strip_prefix("mod "));
        // Attributes above it (`#[cfg(...)]`, over several lines too) may leave it out of
        // the build: only a declaration after a blank line, a `;` or a `}` is taken.
        let attributed = !(previous.is_empty() || previous.ends_with([';', '}', '{']))
            || line.starts_with(char::is_whitespace);
        // One `#[cfg(...)]` line, after a blank line, a `;` or a `}`, and not `cfg(test)`.
        let cfg = previous.starts_with("#[cfg(")
            && previous.ends_with(")]")
            && !previous.contains("test")
            && before_previous_ends;
        before_previous_ends = previous.is_empty() || previous.ends_with([';', '}', '{']);
        previous = trimmed;
        let Some(name) = decl.and_then(|d| d.strip_suffix(';')) else { continue };
        if attributed && !cfg || !is_ident(name) {
            continue;
        }
        let mut bases = Vec::new();
        if !matches!(file, "lib.rs" | "main.rs" | "mod.rs") {
            bases.push(if dir.is_empty() { stem.to_owned() } else { format!("{dir}/{stem}") });
        }
        bases.push(dir.to_owned());
        let target = bases.iter().find_map(|b| {
            let base = if b.is_empty() { String::new() } else { format!("{b}/") };
            [format!("{base}{name}.rs"), format!("{base}{name}/mod.rs")].into_iter().find(|p| disk.is_file(p))
        });
        let Some(target) = target else { continue };
        let at = start + line.find(&format!("{name};")).unwrap_or(0);
        out.push(Site {
            user: user.to_owned(),
            line: line_of(text, start),
            kind: if cfg { SiteKind::RustModCfg } else { SiteKind::RustMod },
            range: (at, at + name.len()),
            written: name.to_owned(),
            target,
            names: Vec::new(),
            level: 0,
        });
    }
}

/// A local relative path of a page or stylesheet, without its query and fragment.
fn local(value: &str) -> Option<String> {
    let v = value.split(['?', '#']).next().unwrap_or_default().trim();
    let remote = v.contains("://") || v.starts_with("//") || v.starts_with('/') || v.contains(':');
    (!v.is_empty() && !remote && !v.contains(['{', '}', '<', '>', '$', '%']) && split(v).1.contains('.'))
        .then(|| v.to_owned())
}

fn linked_site(disk: &Disk, user: &str, text: &str, value: &str, range: (usize, usize), out: &mut Vec<Site>) {
    let Some(path) = local(value) else { return };
    let Some(target) = join(split(user).0, &path) else { return };
    if disk.is_file(&target) {
        out.push(Site {
            user: user.to_owned(),
            line: line_of(text, range.0),
            kind: SiteKind::Linked,
            range,
            written: value.to_owned(),
            target,
            names: Vec::new(),
            level: 0,
        });
    }
}

fn css_sites(disk: &Disk, user: &str, text: &str, out: &mut Vec<Site>) {
    let mut from = 0;
    while let Some(i) = text[from..].find("url(") {
        let at = from + i + 4;
        from = at;
        let (value, range) = match quoted(text, at) {
            Some(q) => q,
            None => match text[at..].find(')') {
                Some(end) => (text[at..at + end].to_owned(), (at, at + end)),
                None => continue,
            },
        };
        linked_site(disk, user, text, &value, range, out);
    }
    let mut from = 0;
    while let Some(i) = text[from..].find("@import ") {
        let at = from + i + 8;
        from = at;
        if let Some((value, range)) = quoted(text, at) {
            linked_site(disk, user, text, &value, range, out);
        }
    }
}

/// Values of `attribute="..."` in a page, with their ranges.
fn attribute_values(text: &str, attribute: &str) -> Vec<(String, (usize, usize))> {
    let mut out = Vec::new();
    let pattern = format!(" {attribute}=");
    let mut from = 0;
    while let Some(i) = text[from..].find(&pattern) {
        let at = from + i + pattern.len();
        from = at;
        if let Some(q) = quoted(text, at) {
            out.push(q);
        }
    }
    out
}

fn html_sites(disk: &Disk, user: &str, text: &str, out: &mut Vec<Site>) {
    if text.contains("{{") || text.contains("{%") {
        return;
    }
    for attribute in ["src", "href"] {
        for (value, range) in attribute_values(text, attribute) {
            // `href` loads a file on a link and a stylesheet's `<link>` (not an icon's).
            let tag_start = text[..range.0].rfind('<').unwrap_or(0);
            let tag = &text[tag_start..text[range.0..].find('>').map_or(text.len(), |e| range.0 + e)];
            // `src` of what the check covers: scripts, images, frames (not `<video>` media).
            let loads = attribute == "src"
                && ["<script", "<img", "<iframe"].iter().any(|t| tag.starts_with(t))
                || tag.starts_with("<a ")
                || tag.starts_with("<link") && tag.contains("stylesheet");
            if loads {
                let before = out.len();
                linked_site(disk, user, text, &value, range, out);
                let link = tag.starts_with("<a ") || tag.starts_with("<iframe");
                if let Some(site) = out.get_mut(before)
                    && link
                    && !has_ext(&site.target, &["html", "htm"])
                {
                    site.kind = SiteKind::Document;
                }
            }
        }
    }
}

fn defined_ids(text: &str) -> HashSet<String> {
    attribute_values(text, "id").into_iter().map(|(v, _)| v).collect()
}

/// Ids a text looks up with a literal: `getElementById('x')`, `querySelector('#x')`.
fn lookups(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (pattern, hash) in [("getElementById(", false), ("querySelector(", true)] {
        let mut from = 0;
        while let Some(i) = text[from..].find(pattern) {
            let at = from + i + pattern.len();
            from = at;
            let Some((value, _)) = quoted(text, at) else { continue };
            let id = if hash {
                match value.strip_prefix('#') {
                    Some(id) => id.to_owned(),
                    None => continue,
                }
            } else {
                value
            };
            if !id.is_empty() && id.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_') {
                out.push((id, at));
            }
        }
    }
    out
}

// --- cases ------------------------------------------------------------------------------------

/// One copy with one reference broken: the files to change, and what must be reported where.
struct Case {
    kind: &'static str,
    user: String,
    line: usize,
    /// What the complaint must name (a path, a name, `#id`, `mod x;`).
    expect: String,
    what: String,
    /// Files to write (path, new text) or delete (path, None).
    changes: Vec<(String, Option<String>)>,
}

fn make_cases(disk: &Disk, sites: &Sites, checked: &HashSet<&String>, args: &Args) -> Vec<Case> {
    let mut out = Vec::new();
    let mut take = |mut cands: Vec<Case>| {
        shuffle(&mut cands, args.seed);
        // One case per user file where possible: a spread over the project.
        let mut seen = HashSet::new();
        let (first, rest): (Vec<Case>, Vec<Case>) =
            cands.into_iter().partition(|c| seen.insert(c.user.clone()));
        out.extend(first.into_iter().chain(rest).take(args.per_kind));
    };
    take(misspelled(disk, sites));
    take(deleted(disk, sites).into_iter().filter(|c| c.kind == KINDS[1]).collect());
    take(renamed_exports(disk, sites));
    take(renamed_ids(disk, sites));
    take(deleted_mods(disk, sites, SiteKind::RustMod));
    take(deleted_mods(disk, sites, SiteKind::RustModCfg));
    take(deleted(disk, sites).into_iter().filter(|c| c.kind == KINDS[6]).collect());
    take(base_template_ids(disk, checked));
    take(names::never_written(disk, checked));
    take(names::renamed(disk, checked));
    take(names::dropped_imports(disk, checked));
    take(names::lost_scripts(disk, checked));
    out
}

/// `name` with two letters swapped, or one dropped when swapping changes nothing.
fn misspell(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let n = chars.len();
    if n >= 2 {
        for i in (1..n).rev() {
            if chars[i] != chars[i - 1] && chars[i].is_alphabetic() && chars[i - 1].is_alphabetic() {
                let mut c = chars.clone();
                c.swap(i, i - 1);
                return c.into_iter().collect();
            }
        }
    }
    format!("{name}x")
}

fn misspelled(disk: &Disk, sites: &Sites) -> Vec<Case> {
    let mut out = Vec::new();
    for s in sites.refs.iter().filter(|s| matches!(s.kind, SiteKind::Script | SiteKind::Python)) {
        let Some(text) = disk.read(&s.user) else { continue };
        let (sep, _) = if s.kind == SiteKind::Script { ('/', ()) } else { ('.', ()) };
        let (head, last) = s.written.rsplit_once(sep).map_or(("", s.written.as_str()), |(h, l)| (h, l));
        if matches!(last, "" | "." | "..")
            || s.kind == SiteKind::Python && head.is_empty() && !s.absolute_dots()
        {
            continue;
        }
        let (stem, ext) = if s.kind == SiteKind::Script {
            last.split_once('.').map_or((last, String::new()), |(a, b)| (a, format!(".{b}")))
        } else {
            (last, String::new())
        };
        if stem.len() < 3 {
            continue;
        }
        let wrong = misspell(stem);
        // The directory the last segment is looked for in.
        let dir = match s.kind {
            SiteKind::Script => match join(split(&s.user).0, &s.written) {
                Some(t) => split(&t).0.to_owned(),
                None => continue,
            },
            _ => {
                let t = s.target.trim_end_matches("/__init__.py").trim_end_matches(".py");
                split(t).0.to_owned()
            }
        };
        if !disk.same_stem(&dir, &wrong).is_empty() {
            continue;
        }
        let written =
            if head.is_empty() { format!("{wrong}{ext}") } else { format!("{head}{sep}{wrong}{ext}") };
        let mut new = text.clone();
        new.replace_range(s.range.0..s.range.1, &written);
        out.push(Case {
            kind: KINDS[0],
            user: s.user.clone(),
            line: s.line,
            expect: wrong.clone(),
            what: format!("`{}` -> `{written}`", s.written),
            changes: vec![(s.user.clone(), Some(new))],
        });
    }
    out
}

fn deleted(disk: &Disk, sites: &Sites) -> Vec<Case> {
    let mut out = Vec::new();
    for s in sites.refs.iter().filter(|s| !matches!(s.kind, SiteKind::RustMod | SiteKind::RustModCfg)) {
        let (dir, name) = split(&s.target);
        if s.target == s.user || name == "__init__.py" || disk.installed_or_built(&s.target) {
            continue;
        }
        let stem = name.split('.').next().unwrap_or(name);
        // Another file of the stem could satisfy it (`x.d.ts`, `x.scss`, `x.min.js`).
        if disk.same_stem(dir, stem).len() != 1 {
            continue;
        }
        // A script's index file: the directory is what is imported.
        let expect = match s.kind {
            SiteKind::Python => s.written.rsplit('.').next().unwrap_or_default().to_owned(),
            _ => s.written.split(['?', '#']).next().unwrap_or_default().to_owned(),
        };
        out.push(Case {
            kind: if s.kind == SiteKind::Document { KINDS[6] } else { KINDS[1] },
            user: s.user.clone(),
            line: s.line,
            expect,
            what: format!("deleted {} (`{}`)", s.target, s.written),
            changes: vec![(s.target.clone(), None)],
        });
    }
    out
}

/// Every whole-word occurrence of `name` in `text` replaced by `new`.
fn rename_word(text: &str, name: &str, new: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(name) {
        let before = rest[..i].chars().next_back();
        let after = rest[i + name.len()..].chars().next();
        out.push_str(&rest[..i]);
        if before.is_some_and(word) || after.is_some_and(word) {
            out.push_str(name);
        } else {
            out.push_str(new);
        }
        rest = &rest[i + name.len()..];
    }
    out.push_str(rest);
    out
}

fn declares(text: &str, name: &str, python: bool) -> bool {
    if python {
        text.lines().any(|l| {
            l.strip_prefix("def ")
                .or_else(|| l.strip_prefix("async def "))
                .or_else(|| l.strip_prefix("class "))
                .is_some_and(|r| r.starts_with(name) && r[name.len()..].starts_with(['(', ':']))
                || l.starts_with(name)
                    && l[name.len()..].trim_start().starts_with('=')
                    && !l[name.len()..].trim_start().starts_with("==")
        })
    } else {
        [
            "function ",
            "function* ",
            "class ",
            "const ",
            "let ",
            "var ",
            "exports.",
            "interface ",
            "type ",
            "enum ",
        ]
        .iter()
        .any(|k| {
            text.match_indices(&format!("{k}{name}")).any(|(i, m)| {
                let after = text[i + m.len()..].chars().next();
                !after.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
            })
        })
    }
}

fn renamed_exports(disk: &Disk, sites: &Sites) -> Vec<Case> {
    let mut out = Vec::new();
    for s in sites.refs.iter().filter(|s| !s.names.is_empty()) {
        if s.target == s.user
            || s.target.ends_with(".d.ts")
            || !has_ext(&s.target, &["py", "js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "cts"])
        {
            continue;
        }
        let python = s.kind == SiteKind::Python;
        // `x.js` beside `x.ts` (its compiled output, or its source): renaming in one of them
        // breaks nothing.
        let (dir, name) = split(&s.target);
        if !python && disk.same_stem(dir, name.split('.').next().unwrap_or(name)).len() != 1 {
            continue;
        }
        let Some(text) = disk.read(&s.target) else { continue };
        let open = if python {
            text.contains("import *") || text.contains("__getattr__")
        } else {
            text.contains("export *") || text.contains("module.exports =")
        };
        if open {
            continue;
        }
        for name in &s.names {
            if !declares(&text, name, python) {
                continue;
            }
            // A package's submodule of that name satisfies `from pkg import name`.
            let package = split(&s.target).0;
            if python && s.target.ends_with("__init__.py") && !disk.same_stem(package, name).is_empty() {
                continue;
            }
            let new = format!("{name}Renamed");
            out.push(Case {
                kind: KINDS[2],
                user: s.user.clone(),
                line: s.line,
                expect: name.clone(),
                what: format!("`{name}` renamed `{new}` in {}", s.target),
                changes: vec![(s.target.clone(), Some(rename_word(&text, name, &new)))],
            });
        }
    }
    out
}

/// Whether `text` mentions `id` other than by looking it up.
fn mentions_besides_lookups(text: &str, id: &str) -> bool {
    let mut t = text.to_owned();
    for pattern in ["getElementById(", "querySelector(", "$("] {
        for quote in ['\'', '"', '`'] {
            for hash in ["", "#"] {
                t = t.replace(&format!("{pattern}{quote}{hash}{id}{quote}"), "");
            }
        }
    }
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    t.match_indices(id).any(|(i, _)| {
        !t[..i].chars().next_back().is_some_and(word) && !t[i + id.len()..].chars().next().is_some_and(word)
    })
}

fn renamed_ids(disk: &Disk, sites: &Sites) -> Vec<Case> {
    let mut out = Vec::new();
    let pages: Vec<&String> = disk.files.iter().filter(|f| has_ext(f, &["html", "htm"])).collect();
    let mut seen = HashSet::new();
    for s in &sites.ids {
        if !seen.insert((s.user.clone(), s.id.clone())) {
            continue;
        }
        let defining =
            pages.iter().filter(|p| disk.read(p).is_some_and(|t| defined_ids(&t).contains(&s.id))).count();
        if defining != 1 {
            continue;
        }
        let Some(page) = disk.read(&s.page) else { continue };
        let new_id = format!("{}-renamed", s.id);
        let mut renamed = page.clone();
        for q in ['"', '\''] {
            renamed = renamed.replace(&format!(" id={q}{}{q}", s.id), &format!(" id={q}{new_id}{q}"));
        }
        // Nothing else may define or create it: any other file that mentions the id, and the
        // page's own text beyond its `id` attribute.
        let elsewhere = disk
            .files
            .iter()
            .filter(|f| **f != s.page && !has_ext(f, &["css", "scss", "less", "md", "txt"]))
            .any(|f| disk.read(f).is_some_and(|t| mentions_besides_lookups(&t, &s.id)));
        if elsewhere || mentions_besides_lookups(&renamed.replace(&new_id, ""), &s.id) {
            continue;
        }
        out.push(Case {
            kind: KINDS[3],
            user: s.user.clone(),
            line: s.line,
            expect: format!("#{}", s.id),
            what: format!("id `{}` renamed `{new_id}` in {}", s.id, s.page),
            changes: vec![(s.page.clone(), Some(renamed))],
        });
    }
    out
}

/// A template's `{% extends "x" %}` name, resolved as Jinja and Django resolve it: under the
/// nearest directory above the template where it is.
fn extended(disk: &Disk, page: &str, text: &str) -> Option<String> {
    let tag =
        text.split("{%").nth(1)?.split("%}").next()?.trim_matches(|c: char| c == '-' || c.is_whitespace());
    let name = tag.strip_prefix("extends")?.trim();
    let name = name.trim_matches(|c| c == '"' || c == '\'');
    let mut dir = split(page).0;
    loop {
        if let Some(path) = join(dir, name).filter(|p| disk.is_file(p)) {
            return Some(path);
        }
        if dir.is_empty() {
            return None;
        }
        dir = split(dir).0;
    }
}

/// An id a child template's inline script looks up, defined only in the template it
/// extends, renamed there.
fn base_template_ids(disk: &Disk, checked: &HashSet<&String>) -> Vec<Case> {
    let mut out = Vec::new();
    let mut users: Vec<&&String> = checked.iter().filter(|f| has_ext(f, &["html", "htm"])).collect();
    users.sort();
    for child in users {
        let Some(text) = disk.read(child) else { continue };
        let Some(base) = extended(disk, child, &text) else { continue };
        let Some(base_text) = disk.read(&base) else { continue };
        let defined = defined_ids(&base_text);
        let mut seen = HashSet::new();
        for (id, at) in lookups(&text) {
            if !defined.contains(&id) || !seen.insert(id.clone()) || defined_ids(&text).contains(&id) {
                continue;
            }
            // Nothing else may define or create it.
            let elsewhere = disk
                .files
                .iter()
                .filter(|f| {
                    **f != base && **f != **child && !has_ext(f, &["css", "scss", "less", "md", "txt"])
                })
                .any(|f| disk.read(f).is_some_and(|t| mentions_besides_lookups(&t, &id)));
            let new_id = format!("{id}-renamed");
            let mut renamed = base_text.clone();
            for q in ['"', '\''] {
                renamed = renamed.replace(&format!(" id={q}{id}{q}"), &format!(" id={q}{new_id}{q}"));
            }
            if elsewhere
                || mentions_besides_lookups(&renamed.replace(&new_id, ""), &id)
                || mentions_besides_lookups(&text, &id)
            {
                continue;
            }
            out.push(Case {
                kind: KINDS[7],
                user: (*child).clone(),
                line: line_of(&text, at),
                expect: format!("#{id}"),
                what: format!("id `{id}` renamed `{new_id}` in {base}, which {child} extends"),
                changes: vec![(base.clone(), Some(renamed))],
            });
        }
    }
    out
}

fn deleted_mods(disk: &Disk, sites: &Sites, kind: SiteKind) -> Vec<Case> {
    sites
        .refs
        .iter()
        .filter(|s| s.kind == kind)
        // A build script may write a module it names.
        .filter(|s| {
            kind == SiteKind::RustMod
                || !disk
                    .files
                    .iter()
                    .filter(|f| split(f).1 == "build.rs")
                    .any(|b| disk.read(b).is_some_and(|t| t.contains(&s.written)))
        })
        .map(|s| Case {
            kind: if kind == SiteKind::RustMod { KINDS[4] } else { KINDS[5] },
            user: s.user.clone(),
            line: s.line,
            expect: format!("mod {};", s.written),
            what: format!("deleted {}", s.target),
            changes: vec![(s.target.clone(), None)],
        })
        .collect()
}

/// Applies `case` to the copy, checks the user's file, and puts the copy back. Returns
/// whether a complaint names what is missing, and every complaint made.
fn run_case(root: &Path, case: &Case) -> (bool, Vec<String>) {
    let saved: Vec<(String, Vec<u8>)> = case
        .changes
        .iter()
        .map(|(p, _)| (p.clone(), std::fs::read(root.join(p)).expect("the file a case changes")))
        .collect();
    for (path, change) in &case.changes {
        match change {
            Some(text) => std::fs::write(root.join(path), text).expect("a changed file"),
            None => std::fs::remove_file(root.join(path)).expect("a deleted file"),
        }
    }
    let complaints = check_files(root, std::slice::from_ref(&case.user));
    for (path, bytes) in saved {
        std::fs::write(root.join(path), bytes).expect("a restored file");
    }
    let found = complaints.iter().any(|c| {
        c.path == case.user && (c.reference.contains(&case.expect) || c.reason.contains(&case.expect))
    });
    let all =
        complaints.iter().map(|c| format!("{}:{} `{}` {}", c.path, c.line, c.reference, c.reason)).collect();
    (found, all)
}

// --- the report ------------------------------------------------------------------------------

fn report(totals: &Totals, args: &Args, started: Instant) {
    println!(
        "\n## References on working projects (seed {}, at most {} files each)\n",
        args.seed, args.max_files
    );
    println!(
        "| projects | count | files checked | complaints (target 0 unless the reference is really broken) |"
    );
    println!("|---|---:|---:|---:|");
    let (mut p, mut f, mut c) = (0, 0, 0);
    for (group, (projects, files, complaints)) in &totals.groups {
        println!("| {group} | {projects} | {files} | {complaints} |");
        p += projects;
        f += files;
        c += complaints;
    }
    println!("| **all** | {p} | {f} | {c} |");
    println!(
        "\n## One reference broken (seed {}, up to {} cases per kind per project)\n",
        args.seed, args.per_kind
    );
    let groups: BTreeSet<&String> = totals.cases.keys().map(|(_, g)| g).collect();
    print!("| kind |");
    for g in &groups {
        print!(" {g} |");
    }
    println!(" all (target >= 95%) |");
    println!("|---|{}---:|", "---:|".repeat(groups.len()));
    let (mut all_cases, mut all_found) = (0, 0);
    for kind in KINDS {
        print!("| {kind} |");
        let (mut n, mut k) = (0, 0);
        for g in &groups {
            let (cases, found) =
                totals.cases.get(&(kind.to_string(), (*g).clone())).copied().unwrap_or_default();
            n += cases;
            k += found;
            if cases == 0 { print!(" - |") } else { print!(" {found}/{cases} |") }
        }
        println!(" {} ({k}/{n}) |", pct(k, n));
        all_cases += n;
        all_found += k;
    }
    println!(
        "| **all kinds** |{}  {} ({all_found}/{all_cases}) |",
        " |".repeat(groups.len()),
        pct(all_found, all_cases)
    );
    println!("\nMisses: {}. Run time {:.0} s.", totals.misses.len(), started.elapsed().as_secs_f64());
}
