//! How well `find_all_stubs` tells placeholders from finished code, on real published files.
//!
//! Three measurements, per language and overall:
//! 1. **Complete files**: published source files, each checked as it is. Every finding
//!    is a false positive. Target: at most 1% of files flagged.
//! 2. **One placeholder injected**: each complete file gets one copy in which the body of a
//!    function (or a run of top-level statements, rules or elements) is replaced by one
//!    placeholder line, the way models abbreviate (`// ... rest of the code`, `pass  # TODO`,
//!    `todo!()`, ...). A copy counts as found when a stub is reported on the placeholder's
//!    line or the line next to it. Copies that no longer parse with the language's own
//!    tools (`python3` compile, `node --check`, `rustfmt`, oxc for TypeScript) are skipped,
//!    so this measures stub detection, not syntax. Target: at least 95% found.
//! 3. **No code**: synthetic files made only of comments and whitespace. Target: all
//!    flagged, except an empty `__init__.py`, which is idiomatic and must not be.
//!
//! The corpus is found or fetched at run time into a temporary directory, nothing is
//! committed: the Python standard library of `python3` (no test directories), the `.rs`
//! files of the crates in this project's `Cargo.lock` from cargo's registry cache,
//! JavaScript, TypeScript and CSS from a few npm packages of pinned versions (`npm
//! install`), and HTML/CSS from the Rust toolchain's books and Debian's `/usr/share/doc`.
//! Minified files (a line over 500 characters), files over 200 KB and exact duplicates are
//! skipped. Files are drawn with a seeded shuffle, round-robin over packages.
//!
//! Run: `cargo bench --bench stub_corpus -- [--seed N] [--per-lang N] [--lang py,rs,js,ts,html,css] [--dump DIR [--dump-all]]`.
//! Prints Markdown tables for BENCHMARKS.md. `--dump DIR` writes every false positive
//! and every missed placeholder (the text and what was found) for study; `--dump-all`
//! adds every injected copy, to audit the injector. Without
//! `--bench` (as `cargo test` runs benches) it does nothing.
//!
//! Only "any stub" and "a stub at this line" are read from the results: the kinds of
//! stub are printed, never matched on, so the detector can add kinds freely.

#[path = "common/mod.rs"]
mod common;

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{pct, walk};
use filewright::check::stubs::{Stub, StubKind, find_all_stubs, may_hold};

const DEFAULT_SEED: u64 = 1;
/// Six languages of 60 files: ~360 complete files when every source is there.
const DEFAULT_PER_LANG: usize = 60;
const MAX_FILE_BYTES: u64 = 200 * 1024;
const MAX_LINE_CHARS: usize = 500;
/// Sites tried per file before an injection is given up as breaking the syntax.
const MAX_TRIES: usize = 8;
/// npm packages with readable sources, at pinned versions so re-runs see the same files
/// (express brings ~70 small CommonJS dependencies with it).
const NPM_PACKAGES: &[&str] = &[
    "express@5.3.0",
    "acorn@8.19.0",
    "lodash-es@4.18.1",
    "rxjs@7.8.2",
    "zod@4.6.7",
    "highlight.js@11.12.0",
    "bootstrap@5.3.9",
    "normalize.css@8.0.1",
];

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if !argv.iter().any(|a| a == "--bench") {
        println!("stub_corpus: not run outside `cargo bench --bench stub_corpus`");
        return;
    }
    let args = match Args::parse(&argv) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("stub_corpus: {e}");
            std::process::exit(2);
        }
    };
    let started = Instant::now();
    let work = tempfile::tempdir().expect("a temporary directory");
    let corpus = gather(&args, work.path());
    let gathered = started.elapsed();

    let check_dir = work.path().join("check");
    std::fs::create_dir_all(&check_dir).expect("a directory for syntax checks");
    let checkers = Checkers::detect(check_dir);

    let complete = measure_complete(&corpus.files);
    let injected = measure_injected(&corpus.files, &args, &checkers);
    let no_code = measure_no_code();

    let mut out = String::new();
    report(&mut out, &args, &corpus, &checkers, &complete, &injected, &no_code);
    let _ = writeln!(
        out,
        "\nRun time: {:.1} s in all ({:.1} s gathering the corpus); the detector itself took {:.0} ms \
         over the complete files (slowest file {:.1} ms).",
        started.elapsed().as_secs_f64(),
        gathered.as_secs_f64(),
        complete.total_time.as_secs_f64() * 1e3,
        complete.slowest.as_secs_f64() * 1e3
    );
    let (texts, skipped, unsound) = PREFILTER.lock().unwrap().clone();
    let _ = writeln!(
        out,
        "Parse skipped by the write-time prefilter (no placeholder possible) on {skipped} of {texts} texts; \
         texts where it skipped a parse that finds a placeholder or stub body (must be 0): {}{}",
        unsound.len(),
        unsound.first().map(|l| format!(" (first: {l})")).unwrap_or_default()
    );
    print!("{out}");

    if let Some(dir) = &args.dump {
        match dump(dir, args.dump_all, &corpus.files, &complete, &injected, &no_code) {
            Ok(n) => eprintln!("stub_corpus: wrote {n} files under {}", dir.display()),
            Err(e) => eprintln!("stub_corpus: --dump failed: {e}"),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Arguments, languages, randomness.

struct Args {
    seed: u64,
    per_lang: usize,
    langs: Vec<Lang>,
    dump: Option<PathBuf>,
    /// With `--dump`, also every injected copy, to audit the injector.
    dump_all: bool,
    /// Whether `--lang` was given (for the printed command).
    lang_filter: Option<String>,
}

impl Args {
    fn parse(argv: &[String]) -> Result<Args, String> {
        let mut args = Args {
            seed: DEFAULT_SEED,
            per_lang: DEFAULT_PER_LANG,
            langs: Lang::ALL.to_vec(),
            dump: None,
            dump_all: false,
            lang_filter: None,
        };
        let mut i = 0;
        while i < argv.len() {
            let (key, inline) = match argv[i].split_once('=') {
                Some((k, v)) if k.starts_with("--") => (k, Some(v.to_string())),
                _ => (argv[i].as_str(), None),
            };
            let takes_value = matches!(key, "--seed" | "--per-lang" | "--lang" | "--dump");
            let value = if !takes_value {
                String::new()
            } else if let Some(v) = inline {
                v
            } else {
                i += 1;
                argv.get(i).cloned().ok_or_else(|| format!("{key} needs a value"))?
            };
            match key {
                "--seed" => args.seed = value.parse().map_err(|_| "--seed takes a number")?,
                "--per-lang" => {
                    args.per_lang = value.parse().map_err(|_| "--per-lang takes a number")?;
                }
                "--lang" => {
                    args.langs = value
                        .split(',')
                        .map(|s| Lang::parse(s.trim()).ok_or_else(|| format!("unknown language {s:?}")))
                        .collect::<Result<_, _>>()?;
                    args.lang_filter = Some(value);
                }
                "--dump" => args.dump = Some(PathBuf::from(value)),
                "--dump-all" => args.dump_all = true,
                // cargo's own flags (`--bench`) and anything else are not ours.
                _ => {}
            }
            i += 1;
        }
        Ok(args)
    }

    fn command(&self) -> String {
        let mut cmd =
            format!("cargo bench --bench stub_corpus -- --seed {} --per-lang {}", self.seed, self.per_lang);
        if let Some(langs) = &self.lang_filter {
            let _ = write!(cmd, " --lang {langs}");
        }
        cmd
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
enum Lang {
    Python,
    Rust,
    JavaScript,
    TypeScript,
    Html,
    Css,
}

impl Lang {
    const ALL: [Lang; 6] =
        [Lang::Python, Lang::Rust, Lang::JavaScript, Lang::TypeScript, Lang::Html, Lang::Css];

    fn name(self) -> &'static str {
        match self {
            Lang::Python => "Python",
            Lang::Rust => "Rust",
            Lang::JavaScript => "JavaScript",
            Lang::TypeScript => "TypeScript",
            Lang::Html => "HTML",
            Lang::Css => "CSS",
        }
    }

    fn parse(s: &str) -> Option<Lang> {
        Some(match s.to_ascii_lowercase().as_str() {
            "python" | "py" => Lang::Python,
            "rust" | "rs" => Lang::Rust,
            "javascript" | "js" => Lang::JavaScript,
            "typescript" | "ts" => Lang::TypeScript,
            "html" => Lang::Html,
            "css" => Lang::Css,
            _ => return None,
        })
    }

    /// The language of a published file, by its name; None for what is not measured
    /// (minified bundles, TypeScript declarations).
    fn of_file(name: &str) -> Option<Lang> {
        let lower = name.to_ascii_lowercase();
        if lower.contains(".min.") || [".d.ts", ".d.mts", ".d.cts"].iter().any(|d| lower.ends_with(d)) {
            return None;
        }
        let ext = lower.rsplit_once('.')?.1;
        Some(match ext {
            "py" => Lang::Python,
            "rs" => Lang::Rust,
            "js" | "mjs" | "cjs" => Lang::JavaScript,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "html" | "htm" => Lang::Html,
            "css" => Lang::Css,
            _ => return None,
        })
    }
}

/// splitmix64: small, seeded, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// FNV-1a: a stable hash for seeds and duplicate detection.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

// ---------------------------------------------------------------------------------------
// The corpus.

struct CorpusFile {
    lang: Lang,
    /// Where it came from, relative to its source (`stdlib/json/decoder.py`); also the
    /// path handed to the detector, which reads its extension and name.
    label: String,
    text: String,
}

struct Corpus {
    files: Vec<CorpusFile>,
    /// One line per source, for the report.
    sources: Vec<String>,
}

struct Candidate {
    lang: Lang,
    /// Files are drawn round-robin over groups (packages, crates, top-level modules).
    group: String,
    label: String,
    path: PathBuf,
}

fn gather(args: &Args, work: &Path) -> Corpus {
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut sources = Vec::new();
    let wanted = |lang: Lang| args.langs.contains(&lang);
    let any = |langs: &[Lang]| langs.iter().any(|&l| wanted(l));

    if any(&[Lang::Python, Lang::Html]) {
        match python_stdlib() {
            Some((dir, version)) => {
                let n = add_tree(&mut candidates, &dir, "stdlib", &wanted, |name| {
                    matches!(name, "test" | "tests" | "idle_test" | "__pycache__" | "site-packages")
                });
                sources.push(format!(
                    "Python {version} standard library without its test directories ({n} files)"
                ));
            }
            None => sources.push("python3 not found: no Python files".into()),
        }
    }
    if wanted(Lang::Rust) {
        let crates = locked_crate_dirs();
        let mut n = 0;
        for (name, dir) in &crates {
            let before = candidates.len();
            add_tree(&mut candidates, dir, &format!("crates/{name}"), &|l| l == Lang::Rust, |d| {
                d == "target"
            });
            for c in &mut candidates[before..] {
                c.group.clone_from(name);
            }
            n += candidates.len() - before;
        }
        sources.push(format!(
            "Rust: the {} crates of this project's Cargo.lock found in cargo's registry cache ({n} files)",
            crates.len()
        ));
    }
    if any(&[Lang::JavaScript, Lang::TypeScript, Lang::Css]) {
        match npm_install(work) {
            Ok(modules) => {
                let before = candidates.len();
                add_tree(&mut candidates, &modules, "npm", &wanted, |d| d == ".bin");
                for c in &mut candidates[before..] {
                    c.group = npm_package_of(&c.label);
                }
                let packages: HashSet<&str> = candidates[before..].iter().map(|c| c.group.as_str()).collect();
                sources.push(format!(
                    "npm: {} and their dependencies ({} packages with files, {} files)",
                    NPM_PACKAGES.join(", "),
                    packages.len(),
                    candidates.len() - before
                ));
            }
            Err(e) => sources.push(format!("npm install failed, no JavaScript/TypeScript/CSS from npm: {e}")),
        }
    }
    if any(&[Lang::Html, Lang::Css]) {
        let books = rust_books();
        let mut n = 0;
        for (name, dir) in &books {
            let before = candidates.len();
            add_tree(
                &mut candidates,
                dir,
                &format!("rust-docs/{name}"),
                &|l| matches!(l, Lang::Html | Lang::Css) && wanted(l),
                |_| false,
            );
            // print.html is the whole book on one page.
            let added = candidates.split_off(before);
            candidates.extend(added.into_iter().filter(|c| !c.label.ends_with("/print.html")));
            for c in &mut candidates[before..] {
                c.group = format!("rust-docs/{name}");
            }
            n += candidates.len() - before;
        }
        sources.push(format!("the Rust toolchain's {} books (mdBook HTML and CSS, {n} files)", books.len()));
        let doc = debian_doc_dir().unwrap_or_default();
        let n = add_tree(
            &mut candidates,
            &doc,
            "share-doc",
            &|l| matches!(l, Lang::Html | Lang::Css) && wanted(l),
            |_| false,
        );
        sources.push(format!("Debian's documentation directory ({n} HTML and CSS files)"));
    }

    let mut by_lang: BTreeMap<Lang, Vec<Candidate>> = BTreeMap::new();
    for c in candidates {
        by_lang.entry(c.lang).or_default().push(c);
    }
    let mut seen = HashSet::new();
    let mut files = Vec::new();
    for (lang, cands) in by_lang {
        let mut rng = Rng::new(args.seed ^ fnv(lang.name().as_bytes()));
        let mut picked = select(cands, args.per_lang, &mut rng, &mut seen);
        picked.sort_by(|a, b| a.label.cmp(&b.label));
        files.extend(picked);
    }
    Corpus { files, sources }
}

/// Adds every file under `dir` whose language is wanted; `skip` names directories not
/// to enter. The group is the first path component under `dir`. Returns how many.
fn add_tree(
    out: &mut Vec<Candidate>,
    dir: &Path,
    prefix: &str,
    wanted: &dyn Fn(Lang) -> bool,
    skip: impl Fn(&str) -> bool,
) -> usize {
    let mut paths = Vec::new();
    walk(dir, &skip, &mut paths);
    let before = out.len();
    for path in paths {
        let Ok(rel) = path.strip_prefix(dir) else { continue };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let name = rel.rsplit('/').next().unwrap_or(&rel);
        let Some(lang) = Lang::of_file(name).filter(|&l| wanted(l)) else { continue };
        let group = format!("{prefix}/{}", rel.split('/').next().unwrap_or_default());
        out.push(Candidate { lang, group, label: format!("{prefix}/{rel}"), path });
    }
    out.len() - before
}

/// Up to `n` usable files, drawn round-robin over the shuffled groups, each group's
/// files shuffled too, so no one package fills a language.
fn select(cands: Vec<Candidate>, n: usize, rng: &mut Rng, seen: &mut HashSet<u64>) -> Vec<CorpusFile> {
    let mut groups: BTreeMap<String, Vec<Candidate>> = BTreeMap::new();
    for c in cands {
        groups.entry(c.group.clone()).or_default().push(c);
    }
    let mut groups: Vec<Vec<Candidate>> = groups.into_values().collect();
    for g in &mut groups {
        rng.shuffle(g);
    }
    rng.shuffle(&mut groups);
    let mut picked = Vec::new();
    while picked.len() < n && !groups.is_empty() {
        let mut g = 0;
        while g < groups.len() && picked.len() < n {
            let Some(c) = groups[g].pop() else {
                groups.remove(g);
                continue;
            };
            if let Some(text) = usable(&c.path, c.lang)
                && seen.insert(fnv(text.as_bytes()))
            {
                picked.push(CorpusFile { lang: c.lang, label: c.label, text });
            }
            g += 1;
        }
    }
    picked
}

/// The file's text when it is UTF-8, at most 200 KB, not minified (no line over 500
/// characters) and has Unix line ends; HTML redirect stubs (`http-equiv="refresh"`,
/// a dozen lines with nothing to abbreviate) are left out too.
fn usable(path: &Path, lang: Lang) -> Option<String> {
    if std::fs::metadata(path).ok()?.len() > MAX_FILE_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let minified = text.lines().any(|l| l.len() > MAX_LINE_CHARS && l.chars().count() > MAX_LINE_CHARS);
    let redirect = lang == Lang::Html && text.to_ascii_lowercase().contains("http-equiv=\"refresh\"");
    (!minified && !redirect && !text.contains('\r') && !text.contains('\0')).then_some(text)
}

/// Debian's documentation directory (HTML and CSS of installed packages): the parent of
/// the one dpkg lists for its own documentation.
fn debian_doc_dir() -> Option<PathBuf> {
    let out = Command::new("dpkg").args(["-L", "dpkg"]).stderr(Stdio::null()).output().ok()?;
    let listing = String::from_utf8_lossy(&out.stdout);
    let own = listing.lines().find(|l| l.ends_with("/doc/dpkg"))?;
    Some(Path::new(own).parent()?.to_path_buf()).filter(|d| d.is_dir())
}

fn python_stdlib() -> Option<(PathBuf, String)> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, sysconfig; print(sysconfig.get_paths()['stdlib']); print(sys.version.split()[0])",
        ])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let stdout = String::from_utf8(out.stdout).ok()?;
    let mut lines = stdout.lines();
    let dir = PathBuf::from(lines.next()?);
    Some((dir, lines.next()?.to_string())).filter(|(d, _)| out.status.success() && d.is_dir())
}

/// `name-version` and its unpacked source directory, for each registry package of this
/// project's Cargo.lock that cargo has unpacked.
fn locked_crate_dirs() -> Vec<(String, PathBuf)> {
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock");
    let Ok(lock) = std::fs::read_to_string(lock) else { return Vec::new() };
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|h| h.join(".cargo")))
        .unwrap_or_default();
    let mut indexes = Vec::new();
    walk_dirs(&cargo_home.join("registry").join("src"), &mut indexes);
    let mut crates = Vec::new();
    for block in lock.split("[[package]]") {
        let field = |key: &str| {
            block.lines().find_map(|l| l.strip_prefix(key)?.trim().strip_prefix("= \"")?.strip_suffix('"'))
        };
        let (Some(name), Some(version), Some(source)) = (field("name "), field("version "), field("source "))
        else {
            continue;
        };
        if !source.starts_with("registry+") {
            continue;
        }
        let id = format!("{name}-{version}");
        if let Some(dir) = indexes.iter().map(|i| i.join(&id)).find(|d| d.is_dir()) {
            crates.push((id, dir));
        }
    }
    crates
}

fn walk_dirs(dir: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
        dirs.sort();
        out.extend(dirs);
    }
}

fn npm_install(work: &Path) -> Result<PathBuf, String> {
    let prefix = work.join("npm");
    std::fs::create_dir_all(&prefix).map_err(|e| e.to_string())?;
    let out = Command::new("npm")
        .arg("install")
        .arg("--prefix")
        .arg(&prefix)
        .args(["--no-save", "--no-package-lock", "--ignore-scripts", "--no-audit", "--no-fund"])
        .args(["--loglevel=error"])
        .args(NPM_PACKAGES)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("npm: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(err.lines().last().unwrap_or("npm install failed").to_string());
    }
    Ok(prefix.join("node_modules"))
}

/// `npm/@scope/name/lib/x.js` -> `@scope/name`; the last `node_modules` counts.
fn npm_package_of(label: &str) -> String {
    let rel = label.strip_prefix("npm/").unwrap_or(label);
    let rel = rel.rsplit_once("/node_modules/").map_or(rel, |(_, r)| r);
    let mut parts = rel.split('/');
    match parts.next() {
        Some(scope) if scope.starts_with('@') => format!("{scope}/{}", parts.next().unwrap_or_default()),
        Some(name) => name.to_string(),
        None => String::new(),
    }
}

/// The mdBook books of the Rust toolchain's documentation (a directory with a
/// `print.html`), by name. The API reference next to them is generated, one-line HTML.
fn rust_books() -> Vec<(String, PathBuf)> {
    let Ok(out) = Command::new("rustc").args(["--print", "sysroot"]).output() else { return Vec::new() };
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let mut dirs = Vec::new();
    walk_dirs(&sysroot.join("share").join("doc").join("rust").join("html"), &mut dirs);
    dirs.into_iter()
        .filter(|d| d.join("print.html").is_file())
        .map(|d| (d.file_name().unwrap_or_default().to_string_lossy().into_owned(), d))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Measurement 1: complete files.

struct Complete {
    /// Per file (same order as the corpus), what the detector found.
    stubs: Vec<Vec<Stub>>,
    total_time: Duration,
    slowest: Duration,
}

/// The kinds the write-time warnings look for, whose parse the prefilter may skip.
const WRITE_KINDS: &[StubKind] = &[StubKind::PlaceholderComment, StubKind::StubBody];

/// Texts seen, parses the prefilter skipped, and the texts where skipping was wrong.
static PREFILTER: std::sync::Mutex<(usize, usize, Vec<String>)> = std::sync::Mutex::new((0, 0, Vec::new()));

/// Checks on a real text that the write-time prefilter (`may_hold`, which lets a write skip
/// the parse) never rules out a text in which the parse finds a placeholder or stub body.
fn prefilter_agrees(label: &str, text: &str, found: &[Stub]) {
    let skipped = !may_hold(label, text, WRITE_KINDS);
    let parsed = found.iter().any(|s| WRITE_KINDS.contains(&s.kind));
    let mut counts = PREFILTER.lock().unwrap();
    counts.0 += 1;
    counts.1 += usize::from(skipped);
    if skipped && parsed {
        counts.2.push(label.to_owned());
    }
}

fn measure_complete(files: &[CorpusFile]) -> Complete {
    let mut total_time = Duration::ZERO;
    let mut slowest = Duration::ZERO;
    let stubs = files
        .iter()
        .map(|f| {
            let t = Instant::now();
            let found = find_all_stubs(&f.label, &f.text);
            let took = t.elapsed();
            prefilter_agrees(&f.label, &f.text, &found);
            total_time += took;
            slowest = slowest.max(took);
            found
        })
        .collect();
    Complete { stubs, total_time, slowest }
}

// ---------------------------------------------------------------------------------------
// Measurement 2: one placeholder injected.

/// A placeholder line as models write it. `statement`: code that stands for a body
/// (`pass  # TODO`, `todo!()`), which can replace a whole body; otherwise a comment.
struct Placeholder {
    text: &'static str,
    statement: bool,
}

const fn comment(text: &'static str) -> Placeholder {
    Placeholder { text, statement: false }
}

const fn statement(text: &'static str) -> Placeholder {
    Placeholder { text, statement: true }
}

const PYTHON_PLACEHOLDERS: &[Placeholder] = &[
    comment("# ... rest of the code"),
    comment("# existing code here"),
    comment("# implementation omitted for brevity"),
    comment("# Add your logic here"),
    comment("# TODO: implement"),
    comment("# ... existing code ..."),
    statement("pass  # TODO"),
    statement("..."),
    statement("raise NotImplementedError"),
];
const SCRIPT_PLACEHOLDERS: &[Placeholder] = &[
    comment("// ... rest of the code"),
    comment("// existing code here"),
    comment("/* implementation omitted for brevity */"),
    comment("// Add your logic here"),
    comment("// TODO: implement"),
    comment("// ... existing code ..."),
    statement("throw new Error(\"Not implemented\");"),
];
const RUST_PLACEHOLDERS: &[Placeholder] = &[
    comment("// ... rest of the code"),
    comment("// existing code here"),
    comment("/* implementation omitted for brevity */"),
    comment("// Add your logic here"),
    comment("// TODO: implement"),
    comment("// ... existing code ..."),
    statement("todo!()"),
    statement("unimplemented!()"),
];
const HTML_PLACEHOLDERS: &[Placeholder] = &[
    comment("<!-- ... rest of the page -->"),
    comment("<!-- existing code here -->"),
    comment("<!-- content omitted for brevity -->"),
    comment("<!-- Add your content here -->"),
    comment("<!-- TODO: implement -->"),
];
const CSS_PLACEHOLDERS: &[Placeholder] = &[
    comment("/* ... rest of the styles */"),
    comment("/* existing code here */"),
    comment("/* styles omitted for brevity */"),
    comment("/* Add your styles here */"),
    comment("/* TODO: implement */"),
];

fn placeholders(lang: Lang) -> &'static [Placeholder] {
    match lang {
        Lang::Python => PYTHON_PLACEHOLDERS,
        Lang::JavaScript | Lang::TypeScript => SCRIPT_PLACEHOLDERS,
        Lang::Rust => RUST_PLACEHOLDERS,
        Lang::Html => HTML_PLACEHOLDERS,
        Lang::Css => CSS_PLACEHOLDERS,
    }
}

/// Where a placeholder goes: lines `first..=last` (0-based) become one line.
#[derive(Clone)]
struct Site {
    position: &'static str,
    first: usize,
    last: usize,
    indent: String,
}

const BODY: &str = "function body";
const BODY_AFTER_DOC: &str = "function body after its docstring";
const BODY_HEAD: &str = "function body, last statement kept";
const DEFINITIONS: &str = "run of definitions";
const TOP_LEVEL: &str = "run of top-level statements";
const RULE_BODY: &str = "rule body";
const RULES: &str = "run of rules";
const REST_OF_FILE: &str = "rest of the file";
const REST_OF_PAGE: &str = "rest of the page";
const ELEMENTS: &str = "run of elements";

struct Injected {
    placeholder: &'static str,
    position: &'static str,
    /// 1-based line of the placeholder.
    line: usize,
    text: String,
    /// Whether a parser confirmed the copy still parses (HTML and CSS are not checked).
    checked: bool,
    /// Sites tried before this one whose copy no longer parsed.
    rejected: usize,
    stubs: Vec<Stub>,
}

enum Outcome {
    Injected(Injected),
    /// No function, rule or element block the heuristics were sure of.
    NoSite,
    /// Every site tried made the copy fail to parse.
    Broken,
}

impl Injected {
    fn found_at_line(&self) -> bool {
        self.stubs.iter().any(|s| s.line.abs_diff(self.line) <= 1)
    }
}

fn measure_injected(files: &[CorpusFile], args: &Args, checkers: &Checkers) -> Vec<Outcome> {
    // Each language rotates through its catalogue from a seeded offset, so every
    // placeholder gets about the same number of files.
    let mut index_in_lang = Vec::with_capacity(files.len());
    let mut counts: BTreeMap<Lang, usize> = BTreeMap::new();
    for f in files {
        let n = counts.entry(f.lang).or_default();
        index_in_lang.push(*n);
        *n += 1;
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new((0..files.len()).map(|_| None).collect());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(4);
    std::thread::scope(|s| {
        for worker in 0..workers {
            let (next, results, index_in_lang) = (&next, &results, &index_in_lang);
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(file) = files.get(i) else { break };
                    let mut rng = Rng::new(args.seed ^ fnv(file.label.as_bytes()));
                    let offset = Rng::new(args.seed ^ fnv(file.lang.name().as_bytes())).below(64);
                    let outcome = inject(file, index_in_lang[i] + offset, &mut rng, checkers, worker);
                    results.lock().unwrap()[i] = Some(outcome);
                }
            });
        }
    });
    results.into_inner().unwrap().into_iter().map(|o| o.unwrap_or(Outcome::NoSite)).collect()
}

/// One copy of `file` with one placeholder, starting from catalogue entry `rotation`
/// and moving to the next entry when a placeholder has no site in this file.
fn inject(file: &CorpusFile, rotation: usize, rng: &mut Rng, checkers: &Checkers, worker: usize) -> Outcome {
    let catalogue = placeholders(file.lang);
    let text = file.text.as_str();
    let mut tries = 0;
    let mut broke = false;
    for k in 0..catalogue.len() {
        let placeholder = &catalogue[(rotation + k) % catalogue.len()];
        let mut sites = sites(file.lang, text, placeholder.statement);
        while !sites.is_empty() && tries < MAX_TRIES {
            tries += 1;
            // A position first, then a site of it, so rare positions are not drowned.
            let mut positions: Vec<&str> = sites.iter().map(|s| s.position).collect();
            positions.dedup();
            let position = positions[rng.below(positions.len())];
            let of_position: Vec<usize> =
                (0..sites.len()).filter(|&i| sites[i].position == position).collect();
            let site = sites.remove(of_position[rng.below(of_position.len())]);
            let injected = apply(text, &site, placeholder.text);
            let checked = match checkers.parses(file.lang, &injected, worker) {
                Some(false) => {
                    broke = true;
                    continue;
                }
                Some(true) => true,
                None => false,
            };
            let stubs = find_all_stubs(&file.label, &injected);
            prefilter_agrees(&file.label, &injected, &stubs);
            return Outcome::Injected(Injected {
                placeholder: placeholder.text,
                position: site.position,
                line: site.first + 1,
                text: injected,
                checked,
                rejected: tries - 1,
                stubs,
            });
        }
    }
    if broke { Outcome::Broken } else { Outcome::NoSite }
}

/// `text` with lines `site.first..=site.last` replaced by the placeholder line.
fn apply(text: &str, site: &Site, placeholder: &str) -> String {
    let spans = line_spans(text);
    let start = spans[site.first].0;
    let end = spans[site.last].1;
    format!("{}{}{placeholder}{}", &text[..start], site.indent, &text[end..])
}

/// Every place this language's placeholder of this sort could go, sorted by position.
fn sites(lang: Lang, text: &str, statement: bool) -> Vec<Site> {
    let (mut sites, scan) = match lang {
        Lang::Python => python_sites(text, statement),
        Lang::Rust | Lang::JavaScript | Lang::TypeScript => brace_sites(lang, text, statement),
        Lang::Css => css_sites(text),
        Lang::Html => html_sites(text),
    };
    if let Some(scan) = scan {
        let code_lines: Vec<usize> = (0..scan.len()).filter(|&i| !scan.code(i).trim().is_empty()).collect();
        sites.retain(|s| {
            // Never cut a comment or a string in two, and leave some code: a placeholder
            // standing for the whole file is the no-code case, measured apart.
            !scan.starts_inside(s.first)
                && (s.last + 1 >= scan.len() || !scan.starts_inside(s.last + 1))
                && code_lines.iter().any(|&i| i < s.first || i > s.last)
        });
    }
    sites.sort_by_key(|s| s.position);
    sites
}

/// Each line's byte range, without its `\n`.
fn line_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            spans.push((start, i));
            start = i + 1;
        }
    }
    if start < text.len() {
        spans.push((start, text.len()));
    }
    spans
}

fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// Indentation width, a tab counting to the next multiple of 8.
fn indent_width(line: &str) -> usize {
    let mut w = 0;
    for c in line.chars() {
        match c {
            ' ' => w += 1,
            '\t' => w = (w / 8 + 1) * 8,
            '\x0c' => w = 0,
            _ => break,
        }
    }
    w
}

const CODE: u8 = 0;
const COMMENT: u8 = 1;
const STRING: u8 = 2;

/// What a lexer saw in a text, line by line.
struct Scan<'t> {
    text: &'t str,
    spans: Vec<(usize, usize)>,
    /// Per byte: CODE, COMMENT or STRING.
    mask: Vec<u8>,
}

impl<'t> Scan<'t> {
    fn new(text: &'t str, mask: Vec<u8>) -> Self {
        Scan { text, spans: line_spans(text), mask }
    }

    fn len(&self) -> usize {
        self.spans.len()
    }

    fn line(&self, i: usize) -> &'t str {
        &self.text[self.spans[i].0..self.spans[i].1]
    }

    /// The line with comments and strings blanked.
    fn code(&self, i: usize) -> String {
        let (s, e) = self.spans[i];
        self.text[s..e].char_indices().map(|(o, c)| if self.mask[s + o] == CODE { c } else { ' ' }).collect()
    }

    fn blank(&self, i: usize) -> bool {
        self.line(i).trim().is_empty()
    }

    /// Whether line `i` begins inside a string or comment that began on an earlier line.
    fn starts_inside(&self, i: usize) -> bool {
        let s = self.spans[i].0;
        s > 0 && self.mask[s - 1] != CODE
    }

    /// Only comment (no code, no string) on the line, and not blank.
    fn comment_only(&self, i: usize) -> bool {
        let (s, e) = self.spans[i];
        let mut any = false;
        for (o, c) in self.text[s..e].char_indices() {
            if !c.is_whitespace() {
                if self.mask[s + o] != COMMENT {
                    return false;
                }
                any = true;
            }
        }
        any
    }

    /// The class of the line's first non-blank byte.
    fn first_class(&self, i: usize) -> Option<u8> {
        let (s, e) = self.spans[i];
        let line = &self.text[s..e];
        let at = line.len() - line.trim_start().len();
        (at < line.len()).then(|| self.mask[s + at])
    }

    fn line_of(&self, at: usize) -> usize {
        self.spans.partition_point(|&(s, _)| s <= at).saturating_sub(1)
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

fn line_end(b: &[u8], from: usize) -> usize {
    b[from..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| from + p)
}

// --- Python -----------------------------------------------------------------------------

fn python_mask(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut mask = vec![CODE; b.len()];
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' => {
                let end = line_end(b, i);
                mask[i..end].fill(COMMENT);
                i = end;
            }
            q @ (b'\'' | b'"') => {
                let triple = b[i..].starts_with(&[q, q, q]);
                let mut j = i + if triple { 3 } else { 1 };
                while j < b.len() {
                    if b[j] == b'\\' {
                        j += 2;
                    } else if triple && b[j..].starts_with(&[q, q, q]) {
                        j += 3;
                        break;
                    } else if !triple && b[j] == q {
                        j += 1;
                        break;
                    } else if !triple && b[j] == b'\n' {
                        break;
                    } else {
                        j += 1;
                    }
                }
                let j = j.min(b.len());
                mask[i..j].fill(STRING);
                i = j;
            }
            _ => i += 1,
        }
    }
    mask
}

struct Python<'t> {
    scan: Scan<'t>,
    /// Bracket depth at each line's start.
    depth: Vec<i32>,
    /// The line continues the previous one after a backslash.
    continued: Vec<bool>,
    /// A logical line (statement) starts here.
    stmt: Vec<bool>,
    indent: Vec<usize>,
}

impl<'t> Python<'t> {
    fn new(text: &'t str) -> Self {
        let scan = Scan::new(text, python_mask(text));
        let b = text.as_bytes();
        let n = scan.len();
        let mut depth = Vec::with_capacity(n);
        let mut continued = Vec::with_capacity(n);
        let mut d = 0i32;
        let mut cont = false;
        for &(s, e) in &scan.spans {
            depth.push(d);
            continued.push(cont);
            for (&c, &class) in b[s..e].iter().zip(&scan.mask[s..e]) {
                if class == CODE {
                    match c {
                        b'(' | b'[' | b'{' => d += 1,
                        b')' | b']' | b'}' => d = (d - 1).max(0),
                        _ => {}
                    }
                }
            }
            cont = e > s && b[e - 1] == b'\\' && scan.mask[e - 1] == CODE;
        }
        let stmt = (0..n)
            .map(|i| {
                !scan.starts_inside(i)
                    && depth[i] == 0
                    && !continued[i]
                    && scan.first_class(i).is_some_and(|c| c != COMMENT)
            })
            .collect();
        let indent = (0..n).map(|i| indent_width(scan.line(i))).collect();
        Python { scan, depth, continued, stmt, indent }
    }

    /// The last line of the logical line starting at `i`.
    fn logical_end(&self, i: usize) -> usize {
        let mut e = i;
        while e + 1 < self.scan.len()
            && (self.depth[e + 1] > 0 || self.continued[e + 1] || self.scan.starts_inside(e + 1))
        {
            e += 1;
        }
        e
    }

    fn code_starts(&self, i: usize, word: &str) -> bool {
        let code = self.scan.code(i);
        let t = code.trim_start();
        t.strip_prefix(word).is_some_and(|r| r.starts_with([' ', '\t', '(', ':']))
    }

    /// A logical line made of string literals only: a docstring.
    fn is_string_statement(&self, i: usize) -> bool {
        let end = self.logical_end(i);
        let (s, e) = (self.scan.spans[i].0, self.scan.spans[end].1);
        let b = self.scan.text.as_bytes();
        let mut any_string = false;
        for (&c, &class) in b[s..e].iter().zip(&self.scan.mask[s..e]) {
            match class {
                STRING => any_string = true,
                CODE if !c.is_ascii_whitespace() && !b"rRbBuUfF".contains(&c) => return false,
                _ => {}
            }
        }
        any_string
    }
}

struct PyDef {
    /// The first decorator, or the `def`/`class` line.
    start: usize,
    line: usize,
    indent: usize,
    is_class: bool,
    body_start: usize,
    body_end: usize,
    body_indent: usize,
    doc_end: Option<usize>,
    /// `@abstractmethod`, `@overload` or a method of a `Protocol`: left alone.
    abstractish: bool,
}

fn python_defs(py: &Python) -> Vec<PyDef> {
    let n = py.scan.len();
    let mut defs = Vec::new();
    for line in 0..n {
        if !py.stmt[line] {
            continue;
        }
        let is_class = py.code_starts(line, "class");
        let is_def = py.code_starts(line, "def")
            || (py.code_starts(line, "async")
                && py.scan.code(line).trim_start()[5..].trim_start().starts_with("def "));
        if !is_class && !is_def {
            continue;
        }
        let header_end = py.logical_end(line);
        if !py.scan.code(header_end).trim_end().ends_with(':') {
            continue; // one-line definition
        }
        let indent = py.indent[line];
        let mut body_end =
            (header_end + 1..n).find(|&t| py.stmt[t] && py.indent[t] <= indent).unwrap_or(n) - 1;
        while body_end > header_end && (py.scan.blank(body_end) || py.scan.comment_only(body_end)) {
            body_end -= 1;
        }
        let body_start = header_end + 1;
        let Some(first) = (body_start..=body_end).find(|&t| py.stmt[t]) else { continue };
        if body_end <= header_end || py.indent[first] <= indent {
            continue;
        }
        let doc_end = py.is_string_statement(first).then(|| py.logical_end(first));
        // Decorators: statement lines at the same indentation just above, and the lines
        // inside their brackets.
        let mut start = line;
        let mut j = line;
        while j > 0 {
            j -= 1;
            if py.stmt[j] && py.indent[j] == indent && py.scan.code(j).trim_start().starts_with('@') {
                start = j;
            } else if py.stmt[j] || py.depth[j] == 0 {
                break;
            }
        }
        let decorators: String = (start..line).map(|i| py.scan.line(i)).collect();
        let mut abstractish =
            ["abstractmethod", "abstractproperty", "overload"].iter().any(|w| decorators.contains(w));
        // The enclosing class, if any: a Protocol's methods are declarations.
        if let Some(outer) = (0..start).rev().find(|&t| py.stmt[t] && py.indent[t] < indent) {
            abstractish |= py.code_starts(outer, "class") && py.scan.line(outer).contains("Protocol");
        }
        defs.push(PyDef {
            start,
            line,
            indent,
            is_class,
            body_start,
            body_end,
            body_indent: py.indent[first],
            doc_end,
            abstractish,
        });
    }
    defs
}

fn python_sites(text: &str, statement: bool) -> (Vec<Site>, Option<Scan<'_>>) {
    let py = Python::new(text);
    let defs = python_defs(&py);
    let indent_at = |i: usize| indent_of(py.scan.line(i)).to_string();
    let code_lines = |a: usize, b: usize| (a..=b).filter(|&i| py.stmt[i]).count();
    let mut sites = Vec::new();
    for d in defs.iter().filter(|d| !d.is_class && !d.abstractish) {
        let first_stmt = (d.body_start..=d.body_end).find(|&i| py.stmt[i]).unwrap_or(d.body_start);
        let indent = indent_at(first_stmt);
        if statement {
            if code_lines(d.body_start, d.body_end) >= 1 {
                sites.push(Site {
                    position: BODY,
                    first: d.body_start,
                    last: d.body_end,
                    indent: indent.clone(),
                });
            }
            if let Some(doc) = d.doc_end
                && doc < d.body_end
                && code_lines(doc + 1, d.body_end) >= 1
            {
                sites.push(Site { position: BODY_AFTER_DOC, first: doc + 1, last: d.body_end, indent });
            }
            continue;
        }
        // Comment: everything but the last statement, which must be one simple line.
        let Some(last) = (d.body_start..=d.body_end).rev().find(|&i| py.stmt[i]) else { continue };
        let from = d.doc_end.map_or(d.body_start, |e| e + 1);
        if py.indent[last] == d.body_indent
            && py.logical_end(last) == d.body_end
            && !py.scan.code(last).trim_end().ends_with(':')
            && last > from
            && code_lines(from, last - 1) >= 1
        {
            sites.push(Site { position: BODY_HEAD, first: from, last: last - 1, indent });
        }
    }
    if !statement {
        // Runs of one to three adjacent definitions in a module or class body.
        let next_stmt = |after: usize| (after + 1..py.scan.len()).find(|&i| py.stmt[i]);
        for (i, d) in defs.iter().enumerate() {
            // The comment lines just above go with the definition.
            let mut first = d.start;
            while first > 0 && py.scan.comment_only(first - 1) && py.indent[first - 1] == d.indent {
                first -= 1;
            }
            let mut end = d;
            for k in 1..=3 {
                sites.push(Site {
                    position: DEFINITIONS,
                    first,
                    last: end.body_end,
                    indent: indent_at(d.line),
                });
                if k == 3 {
                    break;
                }
                let Some(next) = next_stmt(end.body_end) else { break };
                let Some(n) = defs[i + 1..].iter().find(|e| e.start == next && e.indent == d.indent) else {
                    break;
                };
                end = n;
            }
        }
    }
    (sites, Some(py.scan))
}

// --- Brace languages -------------------------------------------------------------------

/// Comments and strings of JavaScript, TypeScript, Rust or CSS.
fn brace_mask(text: &str, lang: Lang) -> Vec<u8> {
    let b = text.as_bytes();
    let n = b.len();
    let mut mask = vec![CODE; n];
    let script = matches!(lang, Lang::JavaScript | Lang::TypeScript);
    let rust = lang == Lang::Rust;
    let mut i = 0;
    // JavaScript template literals: for each open `${`, the braces opened inside it.
    let mut templates: Vec<u32> = Vec::new();
    let mut in_template = false;
    // The last code byte that is not whitespace, for telling a regex from a division.
    let mut prev: Option<usize> = None;
    while i < n {
        if in_template {
            while i < n {
                mask[i] = STRING;
                match b[i] {
                    b'\\' => {
                        if i + 1 < n {
                            mask[i + 1] = STRING;
                        }
                        i += 2;
                    }
                    b'`' => {
                        i += 1;
                        in_template = false;
                        break;
                    }
                    b'$' if b.get(i + 1) == Some(&b'{') => {
                        mask[i + 1] = STRING;
                        i += 2;
                        templates.push(0);
                        in_template = false;
                        break;
                    }
                    _ => i += 1,
                }
            }
            prev = Some(i.saturating_sub(1));
            continue;
        }
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == b'/' && next == Some(b'/') && lang != Lang::Css {
            let end = line_end(b, i);
            mask[i..end].fill(COMMENT);
            i = end;
        } else if c == b'/' && next == Some(b'*') {
            let mut depth = 0;
            let mut j = i;
            while j < n {
                if b[j..].starts_with(b"/*") && (rust || depth == 0) {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            let j = j.min(n);
            mask[i..j].fill(COMMENT);
            i = j;
        } else if c == b'"' || (c == b'\'' && !rust) {
            let j = quoted_end(b, i, c, rust || lang == Lang::Css);
            mask[i..j].fill(STRING);
            prev = Some(j - 1);
            i = j;
        } else if script && c == b'`' {
            mask[i] = STRING;
            i += 1;
            in_template = true;
        } else if script && c == b'{' {
            if let Some(t) = templates.last_mut() {
                *t += 1;
            }
            prev = Some(i);
            i += 1;
        } else if script && c == b'}' && templates.last() == Some(&0) {
            templates.pop();
            mask[i] = STRING;
            i += 1;
            in_template = true;
        } else if script && c == b'}' {
            if let Some(t) = templates.last_mut() {
                *t -= 1;
            }
            prev = Some(i);
            i += 1;
        } else if script && c == b'/' && regex_may_start(b, &mask, prev) {
            match regex_end(b, i) {
                Some(j) => {
                    mask[i..j].fill(STRING);
                    prev = Some(j - 1);
                    i = j;
                }
                None => {
                    prev = Some(i);
                    i += 1;
                }
            }
        } else if rust && (c == b'r' || c == b'b' || c == b'c') && (i == 0 || !is_ident(b[i - 1])) {
            match raw_string_end(b, i) {
                Some(j) => {
                    mask[i..j].fill(STRING);
                    i = j;
                }
                None => {
                    let end = i + b[i..].iter().take_while(|&&x| is_ident(x)).count();
                    i = end.max(i + 1);
                }
            }
            prev = Some(i - 1);
        } else if rust && c == b'\'' {
            // 'x' and '\n' are chars; 'a without a closing quote is a lifetime.
            let j = if next == Some(b'\\') {
                b[i + 2..].iter().take(12).position(|&x| x == b'\'').map(|p| i + 3 + p)
            } else {
                let ch_len = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + ch_len) == Some(&b'\'')).then_some(i + 2 + ch_len)
            };
            match j {
                Some(j) => {
                    mask[i..j].fill(STRING);
                    i = j;
                }
                None => i += 1,
            }
            prev = Some(i - 1);
        } else {
            if !c.is_ascii_whitespace() {
                prev = Some(i);
            }
            i += 1;
        }
    }
    mask
}

/// The end (exclusive) of a string opened by `q` at `i`; `multiline` strings may span lines.
fn quoted_end(b: &[u8], i: usize, q: u8, multiline: bool) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            c if c == q => return j + 1,
            b'\n' if !multiline => return j,
            _ => j += 1,
        }
    }
    b.len()
}

fn regex_may_start(b: &[u8], mask: &[u8], prev: Option<usize>) -> bool {
    let Some(p) = prev else { return true };
    if mask[p] != CODE {
        return false;
    }
    let c = b[p];
    if b"(,=:[!&|?{};+-*%<>~^".contains(&c) {
        return true;
    }
    if !is_ident(c) {
        return false;
    }
    let start = b[..=p].iter().rposition(|&x| !is_ident(x)).map_or(0, |s| s + 1);
    matches!(
        &b[start..=p],
        b"return"
            | b"typeof"
            | b"case"
            | b"do"
            | b"else"
            | b"in"
            | b"of"
            | b"new"
            | b"delete"
            | b"void"
            | b"throw"
            | b"yield"
            | b"await"
            | b"instanceof"
    )
}

/// The end of a regex literal starting at `i`, flags included; None if the line ends first.
fn regex_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    let mut class = false;
    while j < b.len() {
        match b[j] {
            b'\n' => return None,
            b'\\' => j += 1,
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => {
                j += 1;
                return Some(j + b[j..].iter().take_while(|x| x.is_ascii_alphabetic()).count());
            }
            _ => {}
        }
        j += 1;
    }
    None
}

/// A Rust raw (or byte/C) string starting at `i`: `r"..."`, `br#"..."#`, `b"..."`.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    if b[j] == b'b' || b[j] == b'c' {
        j += 1;
        if b.get(j) == Some(&b'"') {
            return Some(quoted_end(b, j, b'"', true));
        }
    }
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = b[j..].iter().take_while(|&&x| x == b'#').count();
    j += hashes;
    if b.get(j) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let end = b[j + 1..].windows(close.len()).position(|w| w == close.as_slice())?;
    Some(j + 1 + end + close.len())
}

struct Braces<'t> {
    scan: Scan<'t>,
    /// Matched `{` and `}` byte offsets.
    pairs: Vec<(usize, usize)>,
    /// Brace depth and bracket (parenthesis or square) depth at each line's start.
    brace_depth: Vec<i32>,
    paren_depth: Vec<i32>,
}

impl<'t> Braces<'t> {
    fn new(text: &'t str, lang: Lang) -> Self {
        let scan = Scan::new(text, brace_mask(text, lang));
        let b = text.as_bytes();
        let mut pairs = Vec::new();
        let mut stack = Vec::new();
        let (mut brace_depth, mut paren_depth) = (Vec::new(), Vec::new());
        let (mut bd, mut pd) = (0i32, 0i32);
        for &(s, e) in &scan.spans {
            brace_depth.push(bd);
            paren_depth.push(pd);
            for at in (s..e).filter(|&at| scan.mask[at] == CODE) {
                match b[at] {
                    b'{' => {
                        stack.push(at);
                        bd += 1;
                    }
                    b'}' => {
                        if let Some(open) = stack.pop() {
                            pairs.push((open, at));
                        }
                        bd = (bd - 1).max(0);
                    }
                    b'(' | b'[' => pd += 1,
                    b')' | b']' => pd = (pd - 1).max(0),
                    _ => {}
                }
            }
        }
        pairs.sort_unstable();
        Braces { scan, pairs, brace_depth, paren_depth }
    }

    /// Blocks whose `{` ends its line and whose `}` starts its line, with at least one
    /// line between: (open line, close line, open offset).
    fn line_blocks(&self) -> Vec<(usize, usize, usize)> {
        let mut blocks = Vec::new();
        for &(open, close) in &self.pairs {
            let (lo, lc) = (self.scan.line_of(open), self.scan.line_of(close));
            if lc < lo + 2 {
                continue;
            }
            let open_code = self.scan.code(lo);
            let close_code = self.scan.code(lc);
            let ends_line = open_code.trim_end().len() == open - self.scan.spans[lo].0 + 1;
            let starts_line =
                close_code.len() - close_code.trim_start().len() == close - self.scan.spans[lc].0;
            if ends_line && starts_line {
                blocks.push((lo, lc, open));
            }
        }
        blocks
    }

    /// What comes before the `{` at `open` back to the previous statement boundary,
    /// whitespace collapsed: `function f(a, b)`, `pub fn g(&self) -> u8`, `(x) =>`.
    fn header(&self, open: usize, comma_stops: bool) -> String {
        let b = self.scan.text.as_bytes();
        let mut depth = 0;
        let mut j = open;
        let floor = open.saturating_sub(2000);
        while j > floor {
            let at = j - 1;
            if self.scan.mask[at] == CODE {
                match b[at] {
                    b')' | b']' => depth += 1,
                    b'(' | b'[' if depth == 0 => break,
                    b'(' | b'[' => depth -= 1,
                    b';' | b'{' | b'}' if depth == 0 => break,
                    b',' if depth == 0 && comma_stops => break,
                    _ => {}
                }
            }
            j = at;
        }
        let raw: String = self.scan.text[j..open]
            .char_indices()
            .map(|(o, c)| if self.scan.mask[j + o] == CODE { c } else { ' ' })
            .collect();
        raw.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn has_code(&self, i: usize) -> bool {
        !self.scan.code(i).trim().is_empty()
    }

    /// Top-level statements (brace and bracket depth 0) as line ranges, comments just
    /// above each included.
    fn top_statements(&self) -> Vec<(usize, usize)> {
        let n = self.scan.len();
        let at_top =
            |i: usize| self.brace_depth[i] == 0 && self.paren_depth[i] == 0 && !self.scan.starts_inside(i);
        let mut out: Vec<(usize, usize)> = Vec::new();
        let mut i = 0;
        while i < n {
            if !(at_top(i) && self.has_code(i)) {
                i += 1;
                continue;
            }
            let Some(end) = (i..n).find(|&j| {
                let code = self.scan.code(j);
                let code = code.trim_end();
                (j + 1 == n || at_top(j + 1)) && (code.ends_with(';') || code.ends_with('}'))
            }) else {
                break;
            };
            let floor = out.last().map_or(0, |&(_, e)| e + 1);
            let mut start = i;
            // Comment lines above, and the whole of a block comment (blank lines in it too).
            while start > floor && (self.scan.comment_only(start - 1) || self.scan.starts_inside(start)) {
                start -= 1;
            }
            out.push((start, end));
            i = end + 1;
        }
        out
    }
}

fn has_word(h: &str, word: &str) -> bool {
    h.match_indices(word).any(|(at, _)| {
        let before = h[..at].bytes().last().is_none_or(|c| !is_ident(c));
        let after = h[at + word.len()..].bytes().next().is_none_or(|c| !is_ident(c));
        before && after
    })
}

fn is_script_function(header: &str) -> bool {
    if has_word(header, "function") || header.ends_with("=>") {
        return true;
    }
    // A method: modifiers, a name, type parameters, parameters, a return type.
    let mut rest = header.trim();
    const MODIFIERS: &[&str] = &[
        "async",
        "static",
        "get",
        "set",
        "public",
        "private",
        "protected",
        "readonly",
        "override",
        "accessor",
    ];
    while let Some(m) = MODIFIERS.iter().find(|m| {
        rest.strip_prefix(**m).is_some_and(|r| r.starts_with(' ') && !r.trim_start().starts_with('('))
    }) {
        rest = rest[m.len()..].trim_start();
    }
    rest = rest.trim_start_matches('*').trim_start();
    let name_len = rest.bytes().take_while(|&c| is_ident(c) || c == b'#').count();
    if name_len == 0 {
        return false;
    }
    let name = &rest[..name_len];
    if matches!(
        name,
        "if" | "for"
            | "while"
            | "switch"
            | "catch"
            | "with"
            | "return"
            | "do"
            | "else"
            | "try"
            | "finally"
            | "class"
            | "new"
            | "typeof"
            | "await"
            | "yield"
    ) {
        return false;
    }
    let mut after = rest[name_len..].trim_start();
    after = after.strip_prefix('?').unwrap_or(after).trim_start();
    if after.starts_with('<') {
        let Some(end) = matching_close(after, '<', '>') else { return false };
        after = after[end + 1..].trim_start();
    }
    if !after.starts_with('(') {
        return false;
    }
    let Some(close) = matching_close(after, '(', ')') else { return false };
    let tail = after[close + 1..].trim();
    tail.is_empty() || tail.starts_with(':')
}

/// Where the `open` that `text` starts with is closed, counting nesting.
fn matching_close(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0;
    text.find(|c| {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
        }
        depth == 0
    })
}

fn is_rust_function(header: &str) -> bool {
    header.match_indices("fn ").any(|(at, _)| {
        let before = header[..at].bytes().last().is_none_or(|c| !is_ident(c));
        let after = header[at + 3..].bytes().next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_');
        before && after
    })
}

/// Brackets of one line balance and never close more than they opened.
fn balanced(code: &str) -> bool {
    let mut depth = 0i32;
    for c in code.bytes() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

fn brace_sites(lang: Lang, text: &str, statement: bool) -> (Vec<Site>, Option<Scan<'_>>) {
    let br = Braces::new(text, lang);
    let scan = &br.scan;
    let mut sites = Vec::new();
    for (lo, lc, open) in br.line_blocks() {
        let header = br.header(open, lang != Lang::Rust);
        let is_fn = if lang == Lang::Rust { is_rust_function(&header) } else { is_script_function(&header) };
        let body: Vec<usize> = (lo + 1..lc).filter(|&i| !scan.blank(i)).collect();
        if !is_fn || body.is_empty() {
            continue;
        }
        let indent = indent_of(scan.line(body[0])).to_string();
        sites.push(Site { position: BODY, first: lo + 1, last: lc - 1, indent: indent.clone() });
        if statement || body.len() < 2 {
            continue;
        }
        // Keep the last statement when it is one simple line: `return x;`, or in Rust a
        // tail expression after a `;`.
        let last = body[body.len() - 1];
        let prev = body[body.len() - 2];
        let code = scan.code(last);
        let code = code.trim();
        let prev_code = scan.code(prev);
        let prev_code = prev_code.trim_end();
        let is_return = code.starts_with("return") && code.ends_with(';') && balanced(code);
        let is_tail = lang == Lang::Rust
            && !code.ends_with(';')
            && !code.contains(['{', '}'])
            && !code.starts_with(['.', '?', '|', '&', '+', '-', '*'])
            && balanced(code)
            && prev_code.ends_with(';');
        if indent_of(scan.line(last)) == indent
            && (prev_code.ends_with(';') || prev_code.ends_with('}'))
            && (is_return || is_tail)
            && body.iter().filter(|&&i| i < last).any(|&i| br.has_code(i))
        {
            sites.push(Site { position: BODY_HEAD, first: lo + 1, last: last - 1, indent: indent.clone() });
        }
    }
    if !statement {
        sites.extend(statement_runs(&br, TOP_LEVEL));
    }
    (sites, Some(br.scan))
}

/// Runs of one to three adjacent top-level statements spanning at least three lines.
fn statement_runs(br: &Braces, position: &'static str) -> Vec<Site> {
    let stmts = br.top_statements();
    let mut sites = Vec::new();
    for i in 0..stmts.len() {
        for k in 1..=3 {
            let Some(&(_, end)) = stmts.get(i + k - 1) else { break };
            let start = stmts[i].0;
            if end >= start + 2 {
                let indent = indent_of(br.scan.line(start)).to_string();
                sites.push(Site { position, first: start, last: end, indent });
            }
        }
    }
    sites
}

fn css_sites(text: &str) -> (Vec<Site>, Option<Scan<'_>>) {
    let br = Braces::new(text, Lang::Css);
    let scan = &br.scan;
    let mut sites = Vec::new();
    for (lo, lc, _) in br.line_blocks() {
        let Some(first) = (lo + 1..lc).find(|&i| !scan.blank(i)) else { continue };
        let indent = indent_of(scan.line(first)).to_string();
        sites.push(Site { position: RULE_BODY, first: lo + 1, last: lc - 1, indent });
    }
    sites.extend(statement_runs(&br, RULES));
    // The rest of the file after at least one rule, as a model that stops early writes it.
    let stmts = br.top_statements();
    if let Some(last) = (0..scan.len()).rev().find(|&i| !scan.blank(i)) {
        for &(start, _) in stmts.iter().skip(1) {
            if last >= start + 2 {
                let indent = indent_of(scan.line(start)).to_string();
                sites.push(Site { position: REST_OF_FILE, first: start, last, indent });
            }
        }
    }
    (sites, Some(br.scan))
}

/// Elements that have no closing tag.
const VOID_ELEMENTS: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track",
    "wbr",
];

/// Opening minus closing tags on one line (void and self-closed elements count zero).
fn tag_balance(line: &str) -> i32 {
    let mut balance = 0;
    let mut rest = line;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        if rest.starts_with('/') {
            balance -= 1;
            continue;
        }
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        if name.is_empty() {
            continue;
        }
        let tag_end = rest.find('>').unwrap_or(rest.len());
        let self_closed = rest[..tag_end].ends_with('/');
        if !self_closed && !VOID_ELEMENTS.contains(&name.to_ascii_lowercase().as_str()) {
            balance += 1;
        }
    }
    balance
}

/// HTML comments, and the content of `<script>` and `<style>` (not markup) as strings.
fn html_mask(text: &str) -> Vec<u8> {
    let lower = text.to_ascii_lowercase();
    let mut mask = vec![CODE; text.len()];
    let mut i = 0;
    while let Some(at) = lower[i..].find('<').map(|p| i + p) {
        if lower[at..].starts_with("<!--") {
            let end = lower[at + 4..].find("-->").map_or(text.len(), |p| at + 4 + p + 3);
            mask[at..end].fill(COMMENT);
            i = end;
        } else if let Some(tag) = ["script", "style"].iter().find(|t| {
            lower[at + 1..].starts_with(**t)
                && lower[at + 1 + t.len()..].starts_with(|c: char| c.is_ascii_whitespace() || c == '>')
        }) {
            let Some(gt) = lower[at..].find('>').map(|p| at + p + 1) else { break };
            let end = lower[gt..].find(&format!("</{tag}")).map_or(text.len(), |p| gt + p);
            mask[gt..end].fill(STRING);
            i = end.max(at + 1);
        } else {
            i = at + 1;
        }
    }
    mask
}

fn html_sites(text: &str) -> (Vec<Site>, Option<Scan<'_>>) {
    (html_line_sites(text), Some(Scan::new(text, html_mask(text))))
}

fn html_line_sites(text: &str) -> Vec<Site> {
    let lines: Vec<&str> = text.lines().collect();
    let lower = text.to_ascii_lowercase();
    let line_at = |at: usize| lower[..at].bytes().filter(|&b| b == b'\n').count();
    // The body's content starts on the line after the `>` of `<body ...>` (which DocBook
    // output spreads over lines) and ends before the line of `</body`.
    let Some(open) = lower
        .match_indices("<body")
        .map(|(at, _)| at)
        .find(|&at| lower[at + 5..].starts_with(|c: char| c.is_ascii_whitespace() || c == '>'))
    else {
        return Vec::new();
    };
    let Some(gt) = lower[open..].find('>') else { return Vec::new() };
    let Some(close) = lower.rfind("</body") else { return Vec::new() };
    let (body, end) = (line_at(open + gt), line_at(close));
    let opens = |i: usize| {
        let t = lines[i].trim_start();
        t.starts_with('<') && !t.starts_with("</") && !t.starts_with("<!")
    };
    // A line starting with `>` ends a tag begun on the line before: a site must not end there.
    let ends_clean = |m: usize| !lines[m + 1].trim_start().starts_with('>');
    let mut sites = Vec::new();
    for k in body + 1..end {
        if !opens(k) {
            continue;
        }
        let indent = indent_of(lines[k]).to_string();
        if end >= k + 3 && ends_clean(end - 1) {
            sites.push(Site { position: REST_OF_PAGE, first: k, last: end - 1, indent: indent.clone() });
        }
        // The shortest run of lines from k whose tags balance, of at least two lines.
        let mut balance = 0;
        for (m, line) in lines.iter().enumerate().take(end).skip(k) {
            balance += tag_balance(line);
            if balance < 0 {
                break;
            }
            if balance == 0 {
                if m > k && ends_clean(m) {
                    sites.push(Site { position: ELEMENTS, first: k, last: m, indent });
                }
                break;
            }
        }
    }
    sites
}

// --- Syntax checks ---------------------------------------------------------------------

struct Checkers {
    dir: PathBuf,
    python: bool,
    node: bool,
    rustfmt: bool,
}

const PYTHON_COMPILE: &str = "import sys; compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec')";

impl Checkers {
    /// Each tool that is there and tells a good snippet from a broken one.
    fn detect(dir: PathBuf) -> Checkers {
        let mut c = Checkers { dir, python: true, node: true, rustfmt: true };
        let sane = |c: &Checkers, lang: Lang, good: &str, bad: &str| {
            c.parses(lang, good, 0) == Some(true) && c.parses(lang, bad, 0) == Some(false)
        };
        c.python = sane(&c, Lang::Python, "def f():\n    return 1\n", "def f(:\n    return 1\n");
        c.node =
            sane(&c, Lang::JavaScript, "function f() {\n  return 1;\n}\n", "function f() {\n  return 1;\n");
        c.rustfmt = sane(&c, Lang::Rust, "fn f() -> u8 {\n    1\n}\n", "fn f() -> u8 {\n    1\n");
        assert!(
            sane(&c, Lang::TypeScript, "let a: number = 1;\n", "let a: = 1;\n"),
            "oxc's TypeScript check"
        );
        c
    }

    fn describe(&self) -> String {
        let mut parts = vec!["TypeScript: oxc's parser".to_string()];
        let mut add = |ok: bool, what: &str, lang: &str| {
            parts.push(if ok {
                format!("{lang}: {what}")
            } else {
                format!("{lang}: not checked ({what} missing)")
            });
        };
        add(self.python, "python3 compile()", "Python");
        add(self.node, "node --check", "JavaScript");
        add(self.rustfmt, "rustfmt (editions 2021, 2018, 2024, 2015)", "Rust");
        parts.push("HTML and CSS: not checked".into());
        parts.join("; ")
    }

    /// Some(true) when `text` parses as `lang`, Some(false) when not, None when nothing
    /// here can tell.
    fn parses(&self, lang: Lang, text: &str, worker: usize) -> Option<bool> {
        match lang {
            Lang::Python if self.python => {
                let path = self.dir.join(format!("w{worker}.py"));
                std::fs::write(&path, text).ok()?;
                Some(quiet(Command::new("python3").args(["-c", PYTHON_COMPILE]).arg(&path)))
            }
            Lang::JavaScript if self.node => {
                let module = text.lines().any(|l| l.starts_with("import ") || l.starts_with("export "));
                let order = if module { ["mjs", "cjs"] } else { ["cjs", "mjs"] };
                Some(order.iter().any(|ext| {
                    let path = self.dir.join(format!("w{worker}.{ext}"));
                    std::fs::write(&path, text).is_ok()
                        && quiet(Command::new("node").arg("--check").arg(&path))
                }))
            }
            Lang::TypeScript => {
                let allocator = oxc_allocator::Allocator::default();
                let parsed = oxc_parser::Parser::new(&allocator, text, oxc_span::SourceType::ts()).parse();
                Some(!parsed.panicked && !parsed.diagnostics.has_errors())
            }
            Lang::Rust if self.rustfmt => Some(["2021", "2018", "2024", "2015"].iter().any(|edition| {
                let child = Command::new("rustfmt")
                    .args(["--edition", edition, "--emit", "stdout"])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn();
                let Ok(mut child) = child else { return false };
                if let Some(mut stdin) = child.stdin.take() {
                    use std::io::Write as _;
                    let _ = stdin.write_all(text.as_bytes());
                }
                child.wait().is_ok_and(|s| s.success())
            })),
            _ => None,
        }
    }
}

fn quiet(cmd: &mut Command) -> bool {
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

// ---------------------------------------------------------------------------------------
// Measurement 3: files with no code.

struct NoCodeCase {
    path: &'static str,
    style: &'static str,
    text: String,
    /// Flagging is the right answer (false only for the idiomatic empty `__init__.py`).
    expect_flagged: bool,
    stubs: Vec<Stub>,
}

fn measure_no_code() -> Vec<NoCodeCase> {
    // (file, line comment opener, closer) per language.
    let langs: [(&str, &str, &str); 6] = [
        ("main.py", "# ", ""),
        ("app.js", "// ", ""),
        ("main.ts", "// ", ""),
        ("main.rs", "// ", ""),
        ("index.html", "<!-- ", " -->"),
        ("style.css", "/* ", " */"),
    ];
    let mut cases = Vec::new();
    for (path, open, close) in langs {
        let line = |words: &str| format!("{open}{words}{close}\n");
        let block = |words: &str| match path {
            "main.py" => format!("# {words}\n"),
            "index.html" => format!("<!-- {words} -->\n"),
            _ => format!("/* {words} */\n"),
        };
        let mut add = |style: &'static str, text: String| {
            cases.push(NoCodeCase { path, style, text, expect_flagged: true, stubs: Vec::new() });
        };
        add("one-line TODO", line("TODO: implement the timer logic here"));
        add("one-line description", line("Main application logic"));
        add("block comment, written later", block("The rest of the application will be written later."));
        add("existing code here", line("existing code here"));
        add(
            "header comment only",
            format!(
                "{}{}{}",
                line("Countdown timer"),
                line("Starts, pauses and resets a countdown; shows the time left."),
                line("Author: the timer team")
            ),
        );
        add("blank file", String::new());
        add("whitespace only", "\n\n   \n".into());
    }
    cases.push(NoCodeCase {
        path: "index.html",
        style: "page skeleton, body only a comment",
        text: "<!DOCTYPE html>\n<html>\n<head>\n  <title>Timer</title>\n</head>\n<body>\n  <!-- content goes here -->\n</body>\n</html>\n".into(),
        expect_flagged: true,
        stubs: Vec::new(),
    });
    for (style, text) in [("empty `__init__.py`", ""), ("`__init__.py` of one newline", "\n")] {
        cases.push(NoCodeCase {
            path: "pkg/__init__.py",
            style,
            text: text.into(),
            expect_flagged: false,
            stubs: Vec::new(),
        });
    }
    for case in &mut cases {
        case.stubs = find_all_stubs(case.path, &case.text);
    }
    cases
}

// ---------------------------------------------------------------------------------------
// Report.

/// Text for a Markdown table cell, in a code span.
fn cell(s: &str) -> String {
    let s: String = s.chars().take(100).collect::<String>().replace('|', "\\|");
    if s.is_empty() {
        String::new()
    } else if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

fn describe_stubs(stubs: &[Stub]) -> String {
    if stubs.is_empty() {
        return "nothing".into();
    }
    let shown: Vec<String> =
        stubs.iter().take(3).map(|s| format!("line {} {:?}: {}", s.line, s.kind, cell(&s.source))).collect();
    let more = if stubs.len() > 3 { format!(" (+{} more)", stubs.len() - 3) } else { String::new() };
    format!("{}{more}", shown.join("; "))
}

fn summary(
    out: &mut String,
    files: &[CorpusFile],
    complete: &Complete,
    injected: &[Outcome],
    no_code: &[NoCodeCase],
) {
    let fp = complete.stubs.iter().filter(|s| !s.is_empty()).count();
    let done: Vec<&Injected> =
        injected.iter().filter_map(|o| if let Outcome::Injected(i) = o { Some(i) } else { None }).collect();
    let found = done.iter().filter(|i| i.found_at_line()).count();
    let must: Vec<&NoCodeCase> = no_code.iter().filter(|c| c.expect_flagged).collect();
    let flagged = must.iter().filter(|c| !c.stubs.is_empty()).count();
    let idiomatic: Vec<&NoCodeCase> = no_code.iter().filter(|c| !c.expect_flagged).collect();
    let quiet = idiomatic.iter().filter(|c| c.stubs.is_empty()).count();
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let verdict = |ok: bool| if ok { "met" } else { "**not met**" };
    let _ = writeln!(out, "| measure | target | result | |\n|---|---|---|---|");
    let _ = writeln!(
        out,
        "| complete files flagged | at most 1% | {} ({fp} of {}) | {} |",
        pct(fp, files.len()),
        files.len(),
        verdict(ratio(fp, files.len()) <= 0.01)
    );
    let _ = writeln!(
        out,
        "| injected placeholders found at their line (±1) | at least 95% | {} ({found} of {}) | {} |",
        pct(found, done.len()),
        done.len(),
        verdict(ratio(found, done.len()) >= 0.95)
    );
    let _ = writeln!(
        out,
        "| files with no code flagged | all | {} ({flagged} of {}) | {} |",
        pct(flagged, must.len()),
        must.len(),
        verdict(flagged == must.len())
    );
    let _ = writeln!(
        out,
        "| empty `__init__.py` not flagged | all | {quiet} of {} | {} |\n",
        idiomatic.len(),
        verdict(quiet == idiomatic.len())
    );
}

fn report(
    out: &mut String,
    args: &Args,
    corpus: &Corpus,
    checkers: &Checkers,
    complete: &Complete,
    injected: &[Outcome],
    no_code: &[NoCodeCase],
) {
    let files = &corpus.files;
    let langs: Vec<Lang> = Lang::ALL.iter().copied().filter(|l| files.iter().any(|f| f.lang == *l)).collect();
    let _ = writeln!(out, "## Stub detection on published files\n");
    let _ = writeln!(out, "`{}` (seed {}), {} complete files.\n", args.command(), args.seed, files.len());
    let _ = writeln!(out, "Corpus:");
    for s in &corpus.sources {
        let _ = writeln!(out, "- {s}");
    }
    let _ = writeln!(out, "\nSyntax checks of the injected copies: {}.\n", checkers.describe());
    summary(out, files, complete, injected, no_code);

    // 1. Complete files.
    let _ = writeln!(out, "### Complete files (target: at most 1% flagged)\n");
    let _ = writeln!(out, "| language | files | flagged | % flagged |\n|---|---|---|---|");
    let flagged = |l: Option<Lang>| {
        let idx: Vec<usize> = (0..files.len()).filter(|&i| l.is_none_or(|l| files[i].lang == l)).collect();
        let n = idx.iter().filter(|&&i| !complete.stubs[i].is_empty()).count();
        (idx.len(), n)
    };
    for &l in &langs {
        let (total, n) = flagged(Some(l));
        let _ = writeln!(out, "| {} | {total} | {n} | {} |", l.name(), pct(n, total));
    }
    let (total, n) = flagged(None);
    let _ = writeln!(out, "| **all** | {total} | {n} | **{}** |\n", pct(n, total));
    if n > 0 {
        let _ = writeln!(out, "False positives (every stub reported on a complete file):\n");
        let _ = writeln!(out, "| file | line | kind | message | source |\n|---|---|---|---|---|");
        for (f, stubs) in files.iter().zip(&complete.stubs) {
            for s in stubs {
                let _ = writeln!(
                    out,
                    "| {} | {} | {:?} | {} | {} |",
                    cell(&f.label),
                    s.line,
                    s.kind,
                    s.message.replace('|', "\\|"),
                    cell(&s.source)
                );
            }
        }
        let _ = writeln!(out);
    }

    // 2. Injected placeholders.
    let _ = writeln!(out, "### One placeholder injected (target: at least 95% found at its line ±1)\n");
    let _ = writeln!(
        out,
        "| language | injected | found at the line | % found | flagged elsewhere only | not flagged | \
         skipped: no site | skipped: syntax broke |\n|---|---|---|---|---|---|---|---|"
    );
    let row = |l: Option<Lang>| {
        let mut r = [0usize; 6];
        for (f, o) in files.iter().zip(injected) {
            if l.is_some_and(|l| f.lang != l) {
                continue;
            }
            match o {
                Outcome::Injected(inj) => {
                    r[0] += 1;
                    if inj.found_at_line() {
                        r[1] += 1;
                    } else if !inj.stubs.is_empty() {
                        r[2] += 1;
                    } else {
                        r[3] += 1;
                    }
                }
                Outcome::NoSite => r[4] += 1,
                Outcome::Broken => r[5] += 1,
            }
        }
        r
    };
    for &l in &langs {
        let r = row(Some(l));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            l.name(),
            r[0],
            r[1],
            pct(r[1], r[0]),
            r[2],
            r[3],
            r[4],
            r[5]
        );
    }
    let r = row(None);
    let _ = writeln!(
        out,
        "| **all** | {} | {} | **{}** | {} | {} | {} | {} |\n",
        r[0],
        r[1],
        pct(r[1], r[0]),
        r[2],
        r[3],
        r[4],
        r[5]
    );

    let tally = |key: &dyn Fn(&CorpusFile, &Injected) -> String| {
        let mut t: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for (f, o) in files.iter().zip(injected) {
            if let Outcome::Injected(inj) = o {
                let e = t.entry(key(f, inj)).or_default();
                e.0 += 1;
                e.1 += usize::from(inj.found_at_line());
            }
        }
        t
    };
    let _ = writeln!(out, "By placeholder:\n");
    let _ = writeln!(out, "| language | placeholder | injected | found | % found |\n|---|---|---|---|---|");
    let by_placeholder = tally(&|f, i| format!("{}\t{}", f.lang.name(), i.placeholder));
    for (key, (n, found)) in &by_placeholder {
        let (lang, placeholder) = key.split_once('\t').unwrap_or_default();
        let _ = writeln!(out, "| {lang} | {} | {n} | {found} | {} |", cell(placeholder), pct(*found, *n));
    }
    let _ = writeln!(out, "\nBy position:\n");
    let _ = writeln!(out, "| language | position | injected | found | % found |\n|---|---|---|---|---|");
    let by_position = tally(&|f, i| format!("{}\t{}", f.lang.name(), i.position));
    for (key, (n, found)) in &by_position {
        let (lang, position) = key.split_once('\t').unwrap_or_default();
        let _ = writeln!(out, "| {lang} | {position} | {n} | {found} | {} |", pct(*found, *n));
    }
    let unchecked = injected.iter().filter(|o| matches!(o, Outcome::Injected(i) if !i.checked)).count();
    let rejected: usize =
        injected.iter().map(|o| if let Outcome::Injected(i) = o { i.rejected } else { 0 }).sum();
    let _ = writeln!(
        out,
        "\n{unchecked} injected copies had no syntax check (HTML, CSS, or a missing tool); sites dropped \
         because the copy no longer parsed: {rejected}."
    );
    for (what, pick) in [("no site", 0), ("every site tried broke the syntax", 1)] {
        let skipped: Vec<String> = files
            .iter()
            .zip(injected)
            .filter(|(_, o)| match o {
                Outcome::NoSite => pick == 0,
                Outcome::Broken => pick == 1,
                Outcome::Injected(_) => false,
            })
            .map(|(f, _)| cell(&f.label))
            .collect();
        if !skipped.is_empty() {
            let _ = writeln!(out, "Skipped, {what}: {}.", skipped.join(", "));
        }
    }
    let _ = writeln!(out);

    let misses: Vec<(&CorpusFile, &Injected)> = files
        .iter()
        .zip(injected)
        .filter_map(|(f, o)| match o {
            Outcome::Injected(i) if !i.found_at_line() => Some((f, i)),
            _ => None,
        })
        .collect();
    if !misses.is_empty() {
        let _ = writeln!(out, "Missed placeholders:\n");
        let _ =
            writeln!(out, "| file | line | placeholder | position | found instead |\n|---|---|---|---|---|");
        for (f, i) in &misses {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                cell(&f.label),
                i.line,
                cell(i.placeholder),
                i.position,
                describe_stubs(&i.stubs)
            );
        }
        let _ = writeln!(out);
    }

    // 3. No code.
    let _ = writeln!(out, "### Files with no code (target: all flagged; an empty `__init__.py` never)\n");
    let _ = writeln!(out, "| file | content | expected | result | found |\n|---|---|---|---|---|");
    for c in no_code {
        let flagged = !c.stubs.is_empty();
        let verdict = if flagged == c.expect_flagged { "ok" } else { "**wrong**" };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {verdict} | {} |",
            cell(c.path),
            c.style,
            if c.expect_flagged { "flagged" } else { "not flagged" },
            describe_stubs(&c.stubs)
        );
    }
    let must = no_code.iter().filter(|c| c.expect_flagged);
    let (n, ok) = must.fold((0, 0), |(n, ok), c| (n + 1, ok + usize::from(!c.stubs.is_empty())));
    let idiomatic = no_code.iter().filter(|c| !c.expect_flagged);
    let (m, quiet) = idiomatic.fold((0, 0), |(m, q), c| (m + 1, q + usize::from(c.stubs.is_empty())));
    let _ = writeln!(
        out,
        "\nNo-code files flagged: **{ok} of {n}** ({}); idiomatic empty `__init__.py` left alone: **{quiet} of {m}**.",
        pct(ok, n)
    );
}

// ---------------------------------------------------------------------------------------
// --dump

fn dump(
    dir: &Path,
    all: bool,
    files: &[CorpusFile],
    complete: &Complete,
    injected: &[Outcome],
    no_code: &[NoCodeCase],
) -> std::io::Result<usize> {
    let mut written = 0;
    let safe = |label: &str| label.replace(['/', '\\'], "__");
    let mut write = |sub: &str, name: String, text: &str, found: String| -> std::io::Result<()> {
        let d = dir.join(sub);
        std::fs::create_dir_all(&d)?;
        std::fs::write(d.join(&name), text)?;
        std::fs::write(d.join(format!("{name}.found.txt")), found)?;
        written += 2;
        Ok(())
    };
    let list = |stubs: &[Stub]| {
        stubs
            .iter()
            .map(|s| format!("line {} {:?}: {}\n    {}\n", s.line, s.kind, s.message, s.source))
            .collect::<String>()
    };
    for (f, stubs) in files.iter().zip(&complete.stubs) {
        if !stubs.is_empty() {
            write("false-positives", safe(&f.label), &f.text, format!("{}\n{}", f.label, list(stubs)))?;
        }
    }
    for (f, o) in files.iter().zip(injected) {
        if let Outcome::Injected(i) = o {
            let head = format!(
                "{}\nplaceholder {:?} at line {} ({})\nfound:\n{}",
                f.label,
                i.placeholder,
                i.line,
                i.position,
                list(&i.stubs)
            );
            if !i.found_at_line() {
                write("missed", safe(&f.label), &i.text, head.clone())?;
            }
            if all {
                write("injected", safe(&f.label), &i.text, head)?;
            }
        }
    }
    for (k, c) in no_code.iter().enumerate() {
        if c.stubs.is_empty() == c.expect_flagged {
            let name = format!("{k:02}-{}", safe(c.path));
            write("no-code", name, &c.text, format!("{}: {}\n{}", c.path, c.style, list(&c.stubs)))?;
        }
    }
    Ok(written)
}
