//! How well the syntax check agrees with each language's real compiler, on published files
//! nobody in this project wrote (see the project's notes on judging a syntax check).
//!
//! Corpus, found or fetched at run time into a temporary directory (nothing is copied into
//! the repository): Python from the python3 standard library (test directories skipped, as
//! they hold files that are broken on purpose); Rust from cargo's registry sources; JavaScript
//! and TypeScript from a few npm packages installed with `npm install` at pinned versions
//! ([`NPM_PACKAGES`]); JSON, TOML and YAML from whatever those trees hold. Files over 200 KB,
//! with a line over 500 characters (minified or generated) or under 5 lines are skipped, and
//! so are packages that only ship compiled output.
//!
//! Three kinds of case per file: the whole file (must be `ok`); prefixes cut at line
//! boundaries and at random characters (never `errors`); joins that drop 3 to 12 lines from
//! the middle, checked whole and as a write of the part before the gap plus an append of the
//! rest through [`CheckCache`]. A join the judge rejects before its end must be `errors` with
//! the first problem within 3 lines of the judge's; one the judge accepts, or rejects only at
//! the end of the input, must not be `errors`.
//!
//! Judges, batched: one python3 process (`ast.parse`, `json`, `tomllib`) and one node process
//! (`vm.compileFunction` with the CommonJS wrapper, `vm.SourceTextModule` for ES modules,
//! TypeScript's own parser, the `yaml` package) read a list of case files; `rustfmt --check
//! --edition 2021` runs once per Rust case on standard input (so `mod x;` is not followed). A
//! judge's message is classified as mid-file or end-of-input, and where a compiler reports an
//! end-of-input error that can hide an earlier one (Python's "was never closed", rustc's
//! unclosed delimiters, both of which win over an earlier parse error), the judge appends the
//! closers and asks the compiler again. Where a compiler points before the token its parser
//! stopped on (V8's "missing ) after argument list", rustc's "expected item after
//! attributes", CPython's "Perhaps you forgot a comma?"), the judge's line is that token's.
//! Not counted: V8's early errors, TOML's duplicate keys (the grammar allows them), and the
//! prefixes and joins of a file the judge rejects whole. The node judge is compared with
//! `node --check` on a few cases each run.
//!
//! Known limits of the judges: TypeScript's is its parser's diagnostics, without the grammar
//! checks `tsc` makes later (a `return` outside a function, statements in a `.d.ts`); YAML has
//! one judge (the `yaml` package, YAML 1.2); Rust is judged as edition 2021, so a file using
//! 2024-only syntax counts as rejected. The judge's verdict on prefixes is printed but not
//! scored: a prefix cut inside its last token looks broken to a compiler.
//!
//! Run: `cargo bench --bench truth -- [--seed N] [--per-lang N] [--joins N] [--prefixes N]
//! [--lang python,rust,javascript,typescript,json,toml,yaml] [--dump DIR]`. Prints a Markdown
//! table for BENCHMARKS.md, then the first few disagreements of each kind; `--dump DIR` writes
//! every disagreement there (the case text and what the check and the judge said). Needs
//! python3, node with npm, and rustfmt; a language whose judge is missing is skipped.
//! `cargo bench --bench truth -- --check FILE...` prints the check's verdict on each file.

#[path = "common/mod.rs"]
mod common;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{pct, walk};
use filewright::check::cache::{CheckCache, DEFAULT_BUDGET_BYTES};
use filewright::check::{Report, Status, check};

/// npm packages fetched for the JavaScript, TypeScript and YAML corpus and judges, pinned so
/// that two runs see the same files (their dependencies are whatever npm resolves).
const NPM_PACKAGES: &[&str] =
    &["acorn@8.19.0", "express@5.3.0", "lodash-es@4.18.1", "rxjs@7.8.2", "yaml@2.9.1", "typescript@5.9.3"];
/// Packages whose `.js` is compiled output, not hand-written source.
const COMPILED_JS: &[&str] = &["rxjs", "typescript", "yaml"];
const MAX_FILE_BYTES: usize = 200 * 1024;
const MAX_LINE_CHARS: usize = 500;
const MIN_LINES: usize = 5;
/// A check's problem line counts as right when it is this close to the judge's.
const LINE_SLACK: usize = 3;
/// Lines a join drops: at least 3, at most this many.
const MAX_GAP: usize = 12;
/// Disagreements of each language and kind printed to stdout.
const SHOWN: usize = 3;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
enum Lang {
    Python,
    Rust,
    JavaScript,
    TypeScript,
    Json,
    Toml,
    Yaml,
}

const LANGS: [Lang; 7] =
    [Lang::Python, Lang::Rust, Lang::JavaScript, Lang::TypeScript, Lang::Json, Lang::Toml, Lang::Yaml];

/// Which process judges a language.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Judge {
    Python,
    Node,
    Rustfmt,
}

impl Lang {
    fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Rust => "rust",
            Lang::JavaScript => "javascript",
            Lang::TypeScript => "typescript",
            Lang::Json => "json",
            Lang::Toml => "toml",
            Lang::Yaml => "yaml",
        }
    }

    fn judge(self) -> Judge {
        match self {
            Lang::Python | Lang::Json | Lang::Toml => Judge::Python,
            Lang::JavaScript | Lang::TypeScript | Lang::Yaml => Judge::Node,
            Lang::Rust => Judge::Rustfmt,
        }
    }

    /// The language of a file name, as this benchmark collects them.
    fn of(name: &str) -> Option<Lang> {
        let lower = name.to_ascii_lowercase();
        let ext = lower.rsplit('.').next()?;
        Some(match ext {
            "py" => Lang::Python,
            "rs" => Lang::Rust,
            "js" | "mjs" | "cjs" => Lang::JavaScript,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "json" => Lang::Json,
            "toml" => Lang::Toml,
            "yml" | "yaml" => Lang::Yaml,
            _ => return None,
        })
    }
}

struct Options {
    seed: u64,
    per_lang: usize,
    joins: usize,
    prefixes: usize,
    langs: Vec<Lang>,
    dump: Option<PathBuf>,
}

impl Options {
    fn parse() -> Options {
        let mut o =
            Options { seed: 1, per_lang: 60, joins: 12, prefixes: 4, langs: LANGS.to_vec(), dump: None };
        let args: Vec<String> = std::env::args().skip(1).collect();
        let mut i = 0;
        while i < args.len() {
            let value = args.get(i + 1).cloned().unwrap_or_default();
            let number = || value.parse::<usize>().unwrap_or_else(|_| panic!("{} takes a number", args[i]));
            match args[i].as_str() {
                "--seed" => o.seed = number() as u64,
                "--per-lang" => o.per_lang = number(),
                "--joins" => o.joins = number(),
                "--prefixes" => o.prefixes = number(),
                "--dump" => o.dump = Some(PathBuf::from(&value)),
                "--lang" => {
                    o.langs = value
                        .split(',')
                        .map(|n| {
                            *LANGS
                                .iter()
                                .find(|l| l.name() == n)
                                .unwrap_or_else(|| panic!("unknown language {n}"))
                        })
                        .collect()
                }
                _ => {
                    i += 1;
                    continue;
                }
            }
            i += 2;
        }
        o
    }

    fn command(&self) -> String {
        let langs: Vec<&str> = self.langs.iter().map(|l| l.name()).collect();
        format!(
            "cargo bench --bench truth -- --seed {} --per-lang {} --joins {} --prefixes {} --lang {}",
            self.seed,
            self.per_lang,
            self.joins,
            self.prefixes,
            langs.join(",")
        )
    }
}

/// splitmix64: small, seeded, the same on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, stream: u64) -> Rng {
        Rng(seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }
}

/// One published file in the corpus.
struct Source {
    lang: Lang,
    /// Where it came from, for humans.
    shown: String,
    text: String,
    /// The path handed to `check` (only its extension matters): `case.py`, `case.d.ts`...
    check_path: String,
    /// JavaScript only: "module", "commonjs" or "auto" (node decides by the syntax).
    hint: &'static str,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Kind {
    Whole,
    Prefix,
    Join,
}

struct Case {
    source: usize,
    kind: Kind,
    text: String,
    /// How the case was made, for humans.
    what: String,
    /// Joins: bytes written before the append.
    first_len: usize,
    /// Joins: the first line after the gap (1-based); prefixes: the last line.
    seam_line: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Verdict {
    Valid,
    /// Rejected only at the end of the input.
    End(String),
    /// Rejected at this 1-based line, before the end.
    Mid(usize, String),
    /// Rejected for a reason the grammar does not cover (a duplicate key, a name declared twice).
    Semantic(String),
    Unjudged(String),
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Valid => write!(f, "valid"),
            Verdict::End(m) => write!(f, "end of input: {m}"),
            Verdict::Mid(l, m) => write!(f, "mid-file at line {l}: {m}"),
            Verdict::Semantic(m) => write!(f, "semantic only (excluded): {m}"),
            Verdict::Unjudged(m) => write!(f, "not judged: {m}"),
        }
    }
}

fn main() {
    // `cargo test` runs benches once with --bench absent: this one needs the network and
    // minutes, so it only runs when asked.
    if !std::env::args().any(|a| a == "--bench") {
        println!("truth: skipped (run `cargo bench --bench truth`)");
        return;
    }
    // `-- --check FILE...`: the check's report on each file, for trying out a reproduction.
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--check") {
        for file in args[at + 1..].iter().filter(|a| !a.starts_with("--")) {
            let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
            println!("{file}: {}", check(file, &text).summary());
        }
        return;
    }
    let started = Instant::now();
    let opts = Options::parse();
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let tools = Tools::find();
    println!("# Syntax check vs the compilers\n");
    println!("Command: `{}`\n", opts.command());
    // JSON is drawn from the npm packages too: fetch them for it, so that `--lang json` picks
    // the same files as a run of every language.
    let npm_root = if opts.langs.iter().any(|&l| l.judge() == Judge::Node || l == Lang::Json) {
        fetch_npm(tmp.path(), &tools)
    } else {
        None
    };
    let sources = gather(&opts, &tools, npm_root.as_deref());
    let cases = make_cases(&sources, &opts);
    let gathered = started.elapsed();
    let (verdicts, esm) = judge_all(&sources, &cases, tmp.path(), &tools, npm_root.as_deref());
    let judged = started.elapsed();
    if npm_root.is_some() {
        node_self_check(&sources, &cases, &verdicts, &esm, tmp.path());
    }
    let scored = score(&opts, &sources, &cases, &verdicts);
    print_table(&opts, &scored, &sources);
    println!("\n{}", tools.versions);
    print_disagreements(&scored.disagreements, &sources, &cases);
    if let Some(dir) = &opts.dump {
        dump(dir, &scored.disagreements, &sources, &cases);
    }
    let total = started.elapsed();
    println!(
        "\nRun time: {:.0} s (corpus and cases {:.0} s, judges {:.0} s, checks {:.0} s).",
        total.as_secs_f64(),
        gathered.as_secs_f64(),
        (judged - gathered).as_secs_f64(),
        (total - judged).as_secs_f64()
    );
}

// ---------------------------------------------------------------------------------------
// Tools and corpus

struct Tools {
    python: bool,
    node: bool,
    npm: bool,
    rustfmt: bool,
    versions: String,
}

impl Tools {
    fn find() -> Tools {
        let version = |cmd: &str, arg: &str| {
            Command::new(cmd)
                .arg(arg)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        };
        let python = version("python3", "--version");
        let node = version("node", "--version");
        let npm = version("npm", "--version");
        let rustfmt = version("rustfmt", "--version");
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "missing".to_owned());
        let versions = format!(
            "Judges: {} (ast.parse, json, tomllib); node {} (vm, with typescript and yaml from npm); {}.",
            show(&python),
            show(&node),
            show(&rustfmt)
        );
        Tools {
            python: python.is_some(),
            node: node.is_some(),
            npm: npm.is_some(),
            rustfmt: rustfmt.is_some(),
            versions,
        }
    }

    fn has(&self, judge: Judge) -> bool {
        match judge {
            Judge::Python => self.python,
            Judge::Node => self.node && self.npm,
            Judge::Rustfmt => self.rustfmt,
        }
    }
}

/// `npm install` of [`NPM_PACKAGES`] into `tmp`; the `node_modules` directory.
fn fetch_npm(tmp: &Path, tools: &Tools) -> Option<PathBuf> {
    if !tools.has(Judge::Node) {
        println!("node or npm missing: javascript, typescript and yaml skipped.\n");
        return None;
    }
    let prefix = tmp.join("npm");
    std::fs::create_dir_all(&prefix).ok()?;
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", "--prefix"])
        .arg(&prefix)
        .args(NPM_PACKAGES)
        .stdout(Stdio::null())
        .status();
    match status {
        Ok(s) if s.success() => Some(prefix.join("node_modules")),
        _ => {
            println!("npm install failed: javascript, typescript and yaml skipped.\n");
            None
        }
    }
}

/// A file that may join the corpus.
struct Candidate {
    lang: Lang,
    path: PathBuf,
    /// Files are drawn round-robin over groups (a package, a crate, a stdlib package), so
    /// that one large package does not make up the whole sample.
    group: String,
    shown: String,
}

fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root).unwrap_or(path).to_string_lossy().into_owned()
}

fn python_stdlib(tools: &Tools) -> Option<PathBuf> {
    if !tools.python {
        return None;
    }
    let out = Command::new("python3")
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"])
        .output()
        .ok()?;
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    dir.is_dir().then_some(dir)
}

/// `$CARGO_HOME/registry/src/*/` (cargo's default home when unset).
fn cargo_registries() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let Some(home) = home else { return Vec::new() };
    let Ok(entries) = std::fs::read_dir(home.join("registry").join("src")) else { return Vec::new() };
    let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs
}

fn candidates(tools: &Tools, npm_root: Option<&Path>) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut add = |lang: Lang, path: PathBuf, group: String, shown: String| {
        out.push(Candidate { lang, path, group, shown });
    };
    if let Some(stdlib) = python_stdlib(tools) {
        let skip = |name: &str| {
            matches!(name, "test" | "tests" | "idle_test" | "site-packages" | "__pycache__")
                || name.contains("badsyntax")
        };
        let mut files = Vec::new();
        walk(&stdlib, &skip, &mut files);
        for path in files {
            let rel = relative(&path, &stdlib);
            let Some(lang) = Lang::of(&rel) else { continue };
            if matches!(lang, Lang::Python | Lang::Json | Lang::Toml) {
                let group = rel.split('/').next().filter(|_| rel.contains('/')).unwrap_or("(top)").to_owned();
                add(lang, path, group, format!("python-stdlib/{rel}"));
            }
        }
    }
    for registry in cargo_registries() {
        let skip = |name: &str| matches!(name, "target" | ".git");
        let mut files = Vec::new();
        walk(&registry, &skip, &mut files);
        for path in files {
            let rel = relative(&path, &registry);
            let Some(lang) = Lang::of(&rel) else { continue };
            if matches!(lang, Lang::Rust | Lang::Json | Lang::Toml | Lang::Yaml) {
                let group = rel.split('/').next().unwrap_or_default().to_owned();
                add(lang, path, group, format!("crates/{rel}"));
            }
        }
    }
    if let Some(root) = npm_root {
        let skip = |name: &str| name == ".bin";
        let mut files = Vec::new();
        walk(root, &skip, &mut files);
        for path in files {
            let rel = relative(&path, root);
            let Some(lang) = Lang::of(&rel) else { continue };
            let mut parts = rel.split('/');
            let first = parts.next().unwrap_or_default();
            let package = if first.starts_with('@') {
                format!("{first}/{}", parts.next().unwrap_or_default())
            } else {
                first.to_owned()
            };
            let keep = match lang {
                Lang::JavaScript => !COMPILED_JS.contains(&package.as_str()),
                // Hand-written TypeScript: rxjs's sources and TypeScript's own library
                // declarations (rxjs's .d.ts files are generated).
                Lang::TypeScript => {
                    rel.starts_with("rxjs/src/") || (package == "typescript" && rel.ends_with(".d.ts"))
                }
                Lang::Json | Lang::Yaml => true,
                _ => false,
            };
            if keep && !rel.contains("/node_modules/") {
                add(lang, path, package, format!("npm/{rel}"));
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The text of a candidate if it is a plain, hand-written file of a fair size.
fn load(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    if bytes.len() > MAX_FILE_BYTES || bytes.contains(&0) {
        return None;
    }
    let text = String::from_utf8(bytes).ok()?;
    if text.lines().count() < MIN_LINES
        || text.lines().any(|l| l.len() > MAX_LINE_CHARS && l.chars().count() > MAX_LINE_CHARS)
    {
        return None;
    }
    Some(text)
}

/// For a `.js` file: "module" when the nearest package.json says `"type": "module"`, else
/// "auto" (node runs it as CommonJS unless its syntax is only valid in a module).
fn js_hint(path: &Path, npm_root: Option<&Path>) -> &'static str {
    let lower = path.to_string_lossy().to_ascii_lowercase();
    if lower.ends_with(".mjs") {
        return "module";
    }
    if lower.ends_with(".cjs") {
        return "commonjs";
    }
    let mut dir = path.parent();
    while let Some(d) = dir {
        if let Ok(text) = std::fs::read_to_string(d.join("package.json")) {
            let manifest: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            return if manifest["type"] == "module" { "module" } else { "auto" };
        }
        if Some(d) == npm_root {
            break;
        }
        dir = d.parent();
    }
    "auto"
}

fn check_path(path: &Path) -> String {
    let name = path.file_name().unwrap_or_default().to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".d.ts") {
        return "case.d.ts".to_owned();
    }
    format!("case.{}", name.rsplit('.').next().unwrap_or_default())
}

/// `per_lang` files of each language, drawn with the seed, round-robin over groups.
fn gather(opts: &Options, tools: &Tools, npm_root: Option<&Path>) -> Vec<Source> {
    let all = candidates(tools, npm_root);
    let mut sources = Vec::new();
    for &lang in &opts.langs {
        if !tools.has(lang.judge()) {
            println!("{}: judge missing, skipped.\n", lang.name());
            continue;
        }
        let mut groups: BTreeMap<&str, Vec<&Candidate>> = BTreeMap::new();
        for c in all.iter().filter(|c| c.lang == lang) {
            groups.entry(&c.group).or_default().push(c);
        }
        let mut rng = Rng::new(opts.seed, lang as u64 + 1);
        let mut order: Vec<Vec<&Candidate>> = groups.into_values().collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.range(0, i));
        }
        let mut picked = 0;
        while picked < opts.per_lang && !order.is_empty() {
            let mut g = 0;
            while g < order.len() && picked < opts.per_lang {
                let group = &mut order[g];
                let c = group.swap_remove(rng.range(0, group.len() - 1));
                if let Some(text) = load(&c.path) {
                    let hint = if lang == Lang::JavaScript { js_hint(&c.path, npm_root) } else { "" };
                    let check_path = check_path(&c.path);
                    sources.push(Source { lang, shown: c.shown.clone(), text, check_path, hint });
                    picked += 1;
                }
                if order[g].is_empty() {
                    order.remove(g);
                } else {
                    g += 1;
                }
            }
        }
        if picked < opts.per_lang {
            println!("{}: only {picked} usable files found.\n", lang.name());
        }
    }
    sources
}

/// Byte offsets where each line starts.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect()
}

fn make_cases(sources: &[Source], opts: &Options) -> Vec<Case> {
    let mut cases = Vec::new();
    for (s, source) in sources.iter().enumerate() {
        let mut rng = Rng::new(opts.seed, 1000 + s as u64);
        let text = &source.text;
        let starts = line_starts(text);
        let lines = text.split_inclusive('\n').count();
        let line_of = |at: usize| starts.partition_point(|&st| st <= at);
        cases.push(Case {
            source: s,
            kind: Kind::Whole,
            text: text.clone(),
            what: "whole file".to_owned(),
            first_len: 0,
            seam_line: 0,
        });
        for p in 0..opts.prefixes {
            let end = if p % 2 == 0 {
                starts[rng.range(1, lines - 1)]
            } else {
                let mut at = rng.range(1, text.len() - 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                at
            };
            let what = if p % 2 == 0 { "prefix cut at a line start" } else { "prefix cut at a character" };
            cases.push(Case {
                source: s,
                kind: Kind::Prefix,
                text: text[..end].to_owned(),
                what: format!("{what}: {end} of {} bytes, ends in line {}", text.len(), line_of(end)),
                first_len: 0,
                seam_line: line_of(end.saturating_sub(1)),
            });
        }
        // Lines [0, i) and [j, lines): 1 <= i, j >= i + 3, j < lines.
        if lines < 5 {
            continue;
        }
        for _ in 0..opts.joins {
            let i = rng.range(1, lines - 4);
            let j = i + rng.range(3, MAX_GAP.min(lines - 1 - i));
            let first = &text[..starts[i]];
            let joined = format!("{first}{}", &text[starts[j]..]);
            cases.push(Case {
                source: s,
                kind: Kind::Join,
                text: joined,
                what: format!("join: lines {}..={} dropped", i + 1, j),
                first_len: first.len(),
                seam_line: i + 1,
            });
        }
    }
    cases
}

// ---------------------------------------------------------------------------------------
// Judges

/// Judges Python (`ast.parse`: parser errors only; compile-time checks such as `return`
/// outside a function are not syntax), JSON (`json`, no NaN) and TOML (`tomllib`).
/// Reads a manifest of `id<TAB>language<TAB>path` lines, prints one JSON verdict per line.
const PY_JUDGE: &str = r#"
import ast, io, json, re, sys, tokenize, tomllib

CLOSE = {"(": ")", "[": "]", "{": "}"}
# Tokenizer errors: CPython reports them over an earlier parser error, so a mid-file one
# is re-checked on the text before its line.
TOKENIZER = ("unterminated string literal", "unindent does not match", "invalid character",
             "invalid non-printable", "unmatched ", "closing parenthesis", "invalid decimal literal",
             "inconsistent use of tabs", "was never closed", "unterminated triple-quoted")

def starts_of(t):
    return [0] + [m.end() for m in re.finditer("\n", t)]

def offset(t, starts, line, col):
    if line < 1:
        return 0
    if line > len(starts):
        return len(t)
    return min(starts[line - 1] + max(col - 1, 0), len(t))

def py_error(t):
    try:
        ast.parse(t, "<case>")
    except SyntaxError as e:
        msg = e.msg or ""
        # Reported at the first of two juxtaposed expressions; the parser fails at the second.
        if "Perhaps you forgot a comma" in msg and e.end_lineno:
            return (msg, e.end_lineno, max((e.end_offset or 1) - 1, 1))
        # An indentation error is about the start of its line (its offset can point past it).
        if isinstance(e, IndentationError) and "expected an indented block" not in msg:
            return (msg, e.lineno or 1, 1)
        return (msg, e.lineno or 1, e.offset or 1)
    except (ValueError, RecursionError, MemoryError) as e:
        return ("!" + type(e).__name__ + ": " + str(e), 1, 1)
    return None

def judge_python(t, depth=0):
    e = py_error(t)
    if e is None:
        return {"v": "valid"}
    msg, line, col = e
    if msg.startswith("!"):
        return {"v": "unjudged", "msg": msg[1:]}
    end = len(t.rstrip())
    last = t.count("\n", 0, end) + 1
    if "was never closed" in msg or "unterminated triple-quoted" in msg or "unexpected EOF" in msg:
        return probe_python(t, end, last, msg, depth)
    starts = starts_of(t)
    at = offset(t, starts, line, col)
    # "expected an indented block" is reported at the first statement after the colon, so
    # only the position tells whether it is the end.
    if at >= end or (line >= last and "unterminated string literal" in msg):
        return {"v": "end", "msg": msg}
    return mid_python(t, starts, msg, line, depth)

def mid_python(t, starts, msg, line, depth):
    if depth < 4 and line > 1 and any(k in msg for k in TOKENIZER):
        earlier = judge_python(t[: starts[line - 1]], depth + 1)
        if earlier["v"] == "mid":
            return earlier
    return {"v": "mid", "line": line, "msg": msg}

def open_suffix(t):
    # What closes the string and brackets open at the end of t, by the tokenize module.
    stack = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(t).readline):
            if tok.type == tokenize.OP and tok.string in "([{":
                stack.append(tok.string)
            elif tok.type == tokenize.OP and tok.string in ")]}" and stack:
                stack.pop()
    except tokenize.TokenError as e:
        suffix = ""
        if "string" in str(e.args[0]):
            row, col = e.args[1]
            rest = t.split("\n")[row - 1][col:].lstrip("rRbBuUfF")
            suffix = " " + (rest[:3] if rest[:3] in ('"""', "'''") else rest[:1])
        return suffix + "".join("\n" + CLOSE[b] for b in reversed(stack))
    except (SyntaxError, ValueError):
        return ""
    return "".join("\n" + CLOSE[b] for b in reversed(stack))

def probe_python(t, end, last, msg, depth):
    # An end-of-input message can hide an earlier parser error: close what is open and
    # ask again, until the text parses or fails somewhere.
    probe = t + open_suffix(t)
    before = None
    for _ in range(100):
        e = py_error(probe)
        if e is None or e[0].startswith("!"):
            return {"v": "end", "msg": msg}
        if e == before:
            # Closing changed nothing: CPython's "never closed" can come from a token it
            # could not read mid-file. Broken, but where is for first_broken to say.
            return {"v": "stuck", "msg": msg}
        before = e
        m, l, c = e
        starts = starts_of(probe)
        if "was never closed" in m:
            probe += "\n" + CLOSE.get(m[1:2], ")")
        elif "unterminated triple-quoted" in m:
            at = offset(probe, starts, l, c)
            found = [i for i in (probe.find('"""', at), probe.find("'''", at)) if i >= 0]
            probe += " " + (probe[min(found):min(found) + 3] if found else '"""')
        else:
            at = offset(probe, starts, l, c)
            if at >= end or "unexpected EOF" in m:
                return {"v": "end", "msg": msg}
            return mid_python(probe, starts, m, l, depth)
    return {"v": "end", "msg": msg}

def first_broken(t, msg):
    # The first line whose prefix is broken (mid-file, or stuck as above).
    starts = starts_of(t)
    lines = len(starts)
    prefix = lambda k: t[: starts[k]] if k < lines else t
    lo, hi, found = 1, lines, None
    while lo < hi:
        mid = (lo + hi) // 2
        v = judge_python(prefix(mid), 1)
        if v["v"] in ("mid", "stuck"):
            hi, found = mid, v
        else:
            lo = mid + 1
    if found is not None and found["v"] == "mid":
        return found
    return {"v": "mid", "line": lo, "msg": msg + " (first broken line, by bisection)"}

def judge_python_file(t):
    v = judge_python(t)
    return first_broken(t, v["msg"]) if v["v"] == "stuck" else v

def judge_json(t):
    def no_constant(name):
        raise ValueError("JSON has no " + name)
    try:
        json.loads(t, parse_constant=no_constant)
    except json.JSONDecodeError as e:
        if e.msg.startswith("Unterminated string") or e.pos >= len(t.rstrip()):
            return {"v": "end", "msg": e.msg}
        return {"v": "mid", "line": e.lineno, "msg": e.msg}
    except ValueError as e:
        word = str(e).split()[-1]
        return {"v": "mid", "line": t.count("\n", 0, max(t.find(word), 0)) + 1, "msg": str(e)}
    except RecursionError as e:
        return {"v": "unjudged", "msg": "RecursionError"}
    return {"v": "valid"}

def judge_toml(t):
    try:
        tomllib.loads(t)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        if msg.startswith(("Cannot overwrite", "Cannot declare", "Cannot mutate")):
            return {"v": "semantic", "msg": msg}
        m = re.search(r"\(at line (\d+), column (\d+)\)$", msg)
        if not m:
            return {"v": "end", "msg": msg}
        line, col = int(m.group(1)), int(m.group(2))
        if offset(t, starts_of(t), line, col) >= len(t.rstrip()):
            return {"v": "end", "msg": msg}
        return {"v": "mid", "line": line, "msg": msg}
    return {"v": "valid"}

JUDGES = {"python": judge_python_file, "json": judge_json, "toml": judge_toml}
for raw in open(sys.argv[1], encoding="utf-8"):
    case_id, lang, path = raw.rstrip("\n").split("\t")
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    verdict = JUDGES[lang](text)
    verdict["id"] = int(case_id)
    print(json.dumps(verdict), flush=False)
"#;

/// Judges JavaScript as `node --check` does (CommonJS: the module wrapper's parameters;
/// ES modules: a SourceTextModule), TypeScript with TypeScript's own parser (the syntactic
/// diagnostics `tsc` reports) and YAML with the `yaml` package. Manifest lines:
/// `id<TAB>language<TAB>path<TAB>hint`; arguments: manifest, node_modules.
const NODE_JUDGE: &str = r#"
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const [manifest, modules] = process.argv.slice(2);
let decorate = null;
try { decorate = require('internal/util').decorateErrorStack; } catch (_) {}
const need = (name) => { try { return require(path.join(modules, name)); } catch (_) { return null; } };
const ts = need('typescript');
const YAML = need('yaml');
const PARAMS = ['exports', 'require', 'module', '__filename', '__dirname'];
// V8 early errors: the spec's static semantics, not its grammar.
const EARLY = /has already been declared|Duplicate export|Undefined label|Illegal break statement|Illegal continue statement|is not defined in module|must be declared in an enclosing class|Duplicate parameter name|'super' keyword unexpected here|Delete of an unqualified identifier|Illegal 'use strict' directive|A class may only have one constructor|Duplicate __proto__ fields/;
const ESM_ONLY = /Cannot use import statement outside a module|Unexpected token 'export'|Cannot use 'import\.meta' outside a module|await is only valid in async functions and the top level bodies of modules/;

function starts(t) {
  const s = [0];
  for (let i = 0; i < t.length; i++) if (t.charCodeAt(i) === 10) s.push(i + 1);
  return s;
}
function lineOf(st, at) {
  let lo = 0, hi = st.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (st[mid] <= at) lo = mid + 1; else hi = mid; }
  return lo;
}

// Where the next token starts: past whitespace and comments.
function nextToken(src, i) {
  for (;;) {
    while (i < src.length && /\s/.test(src[i])) i++;
    if (src.startsWith('//', i)) { const n = src.indexOf('\n', i); i = n < 0 ? src.length : n; }
    else if (src.startsWith('/*', i)) { const n = src.indexOf('*/', i + 2); i = n < 0 ? src.length : n + 2; }
    else return i;
  }
}

function v8Error(src, esm) {
  try {
    if (esm) new vm.SourceTextModule(src, { identifier: 'file:///case.mjs' });
    else vm.compileFunction(src, PARAMS, { filename: 'case.js' });
    return null;
  } catch (e) {
    if (!e || e.name !== 'SyntaxError') return { msg: String(e), line: 0, col: 0 };
    if (decorate) { try { decorate(e); } catch (_) {} }
    const lines = String(e.stack).split('\n');
    const m = /:(\d+)$/.exec(lines[0]);
    if (!m) return { msg: e.message, line: 0, col: 0 };
    const caret = lines[2] || '';
    const i = caret.indexOf('^');
    const width = i >= 0 ? caret.lastIndexOf('^') - i + 1 : 0;
    return { msg: e.message, line: +m[1], col: i >= 0 ? i + 1 : caret.length + 1, width };
  }
}

function judgeJs(src, hint) {
  if (src.startsWith('#!')) src = '//' + src.slice(2);
  let esm = hint === 'module';
  let e = v8Error(src, esm);
  if (e && !esm && hint === 'auto' && ESM_ONLY.test(e.msg)) { esm = true; e = v8Error(src, true); }
  const d = esm ? 'esm' : 'cjs';
  if (!e) return { v: 'valid', d };
  if (!e.line) return { v: 'unjudged', msg: e.msg, d };
  const st = starts(src), end = src.trimEnd().length;
  const lineStart = e.line - 1 < st.length ? st[e.line - 1] : src.length;
  const at = Math.min(lineStart + e.col - 1, src.length);
  const last = lineOf(st, Math.max(end - 1, 0));
  if (/Unexpected end of input|Unterminated template literal/.test(e.msg) || at >= end) return { v: 'end', msg: e.msg, d };
  // "missing ) after argument list", "Missing catch or finally after try": V8 marks the
  // last token it took; the parser stopped at the next one (or ran out of input).
  if (/missing \) after argument list|Missing catch or finally after try/.test(e.msg)) {
    const next = nextToken(src, at + Math.max(e.width, 1));
    if (next >= end) return { v: 'end', msg: e.msg, d };
    if (!EARLY.test(e.msg)) return { v: 'mid', line: lineOf(st, next), msg: e.msg, d };
  }
  if (e.msg === 'Invalid or unexpected token') {
    // An unclosed /* is reported at its opener; an unclosed string on the last line is a cut.
    let lineEnd = src.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = src.length;
    const open = src.indexOf('/*', lineStart);
    if (open >= 0 && open < lineEnd && src.indexOf('*/', open + 2) < 0) return { v: 'end', msg: e.msg, d };
    if (e.line >= last) return { v: 'end', msg: e.msg, d };
  }
  if (EARLY.test(e.msg)) return { v: 'semantic', msg: e.msg, d };
  return { v: 'mid', line: e.line, msg: e.msg, d };
}

function judgeTs(src, name) {
  if (!ts) return { v: 'unjudged', msg: 'typescript did not load' };
  const sf = ts.createSourceFile(name, src, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const ds = sf.parseDiagnostics || [];
  if (!ds.length) return { v: 'valid' };
  let d = ds[0];
  for (const x of ds) if (x.start < d.start) d = x;
  const msg = ts.flattenDiagnosticMessageText(d.messageText, ' ');
  const line = sf.getLineAndCharacterOfPosition(d.start).line + 1;
  const end = src.trimEnd().length;
  const last = lineOf(starts(src), Math.max(end - 1, 0));
  if (d.start >= end || /Unterminated template literal|'\*\/' expected/.test(msg)
      || (/Unterminated string literal|Unterminated regular expression/.test(msg) && line >= last)) {
    return { v: 'end', msg };
  }
  return { v: 'mid', line, msg };
}

function judgeYaml(src) {
  if (!YAML) return { v: 'unjudged', msg: 'yaml did not load' };
  let docs;
  try { docs = YAML.parseAllDocuments(src, { uniqueKeys: false }); } catch (e) { return { v: 'unjudged', msg: String(e) }; }
  const errs = [];
  for (const doc of docs) {
    for (const e of doc.errors || []) errs.push(e);
    // An alias with no anchor before it: no continuation can fix it (PyYAML rejects it too).
    YAML.visit(doc, { Alias(_, node) {
      if (node.resolve(doc) === undefined) {
        errs.push({ code: 'UNDEFINED_ALIAS', pos: node.range, message: `alias *${node.source} has no anchor before it` });
      }
    } });
  }
  if (!errs.length) return { v: 'valid' };
  errs.sort((a, b) => a.pos[0] - b.pos[0]);
  const e = errs[0];
  const msg = `${e.code}: ${e.message.split('\n')[0]}`;
  if (['DUPLICATE_KEY', 'TAG_RESOLVE_FAILED'].includes(e.code)) return { v: 'semantic', msg };
  const st = starts(src), end = src.trimEnd().length;
  // A multi-line implicit key fails where its `:` comes, not where it starts; and the parser
  // stops at content, not at the comment lines the error's range may begin with.
  let p = Math.min(e.code === 'MULTILINE_IMPLICIT_KEY' ? e.pos[1] : e.pos[0], src.length);
  for (;;) {
    const from = st[lineOf(st, p) - 1];
    let to = src.indexOf('\n', from);
    if (to < 0) to = src.length;
    const text = src.slice(from, to).trim();
    if ((text === '' || text.startsWith('#')) && to < src.length) p = to + 1; else break;
  }
  const line = lineOf(st, p);
  if (p >= end || (e.code === 'MISSING_CHAR' && line >= lineOf(st, Math.max(end - 1, 0)))) return { v: 'end', msg };
  return { v: 'mid', line, msg };
}

const out = [];
for (const raw of fs.readFileSync(manifest, 'utf8').split('\n')) {
  if (!raw) continue;
  const [id, lang, file, hint] = raw.split('\t');
  const src = fs.readFileSync(file, 'utf8');
  let v;
  if (lang === 'javascript') v = judgeJs(src, hint);
  else if (lang === 'typescript') v = judgeTs(src, path.basename(file));
  else v = judgeYaml(src);
  v.id = +id;
  out.push(JSON.stringify(v));
}
fs.writeFileSync(1, out.join('\n') + '\n');
"#;

/// The case's file in the judges' directory.
fn case_file(dir: &Path, id: usize, source: &Source) -> PathBuf {
    dir.join(format!("{id}.{}", source.check_path.trim_start_matches("case.")))
}

fn judge_all(
    sources: &[Source],
    cases: &[Case],
    tmp: &Path,
    tools: &Tools,
    npm_root: Option<&Path>,
) -> (Vec<Verdict>, Vec<bool>) {
    let dir = tmp.join("cases");
    std::fs::create_dir_all(&dir).expect("a cases directory");
    let mut py_manifest = String::new();
    let mut node_manifest = String::new();
    let mut rust_ids = Vec::new();
    for (id, case) in cases.iter().enumerate() {
        let source = &sources[case.source];
        let file = case_file(&dir, id, source);
        std::fs::write(&file, &case.text).expect("a case file");
        let (lang, file) = (source.lang.name(), file.display());
        match source.lang.judge() {
            Judge::Python => {
                let _ = writeln!(py_manifest, "{id}\t{lang}\t{file}");
            }
            Judge::Node => {
                let _ = writeln!(node_manifest, "{id}\t{lang}\t{file}\t{}", source.hint);
            }
            Judge::Rustfmt => rust_ids.push(id),
        }
    }
    let spawn = |program: &str, args: &[&str], script: &str, name: &str, manifest: &str| {
        if manifest.is_empty() {
            return None;
        }
        let script_path = tmp.join(name);
        let manifest_path = tmp.join(format!("{name}.manifest"));
        let out_path = tmp.join(format!("{name}.out"));
        std::fs::write(&script_path, script).ok()?;
        std::fs::write(&manifest_path, manifest).ok()?;
        let out = std::fs::File::create(&out_path).ok()?;
        let mut cmd = Command::new(program);
        cmd.args(args).arg(&script_path).arg(&manifest_path);
        if let Some(root) = npm_root.filter(|_| program == "node") {
            cmd.arg(root);
        }
        let child = cmd.stdout(out).spawn().ok()?;
        Some((child, out_path))
    };
    let python = spawn("python3", &[], PY_JUDGE, "judge.py", &py_manifest);
    let node = spawn(
        "node",
        &["--expose-internals", "--experimental-vm-modules", "--no-warnings", "--stack-size=8000"],
        NODE_JUDGE,
        "judge.js",
        &node_manifest,
    );
    let mut verdicts = vec![Verdict::Unjudged("the judge gave no verdict".to_owned()); cases.len()];
    let mut esm = vec![false; cases.len()];
    // rustfmt once per case, on both cores, while the other judges run.
    if tools.rustfmt && !rust_ids.is_empty() {
        let next = AtomicUsize::new(0);
        let results: Vec<(usize, Verdict)> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..2)
                .map(|_| {
                    scope.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let k = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&id) = rust_ids.get(k) else { break };
                            done.push((id, judge_rust(&cases[id].text, 0)));
                        }
                        done
                    })
                })
                .collect();
            workers.into_iter().flat_map(|w| w.join().expect("a rustfmt worker")).collect()
        });
        for (id, v) in results {
            verdicts[id] = v;
        }
    }
    for (child, out_path) in [python, node].into_iter().flatten() {
        let mut child = child;
        let status = child.wait().expect("a judge process");
        if !status.success() {
            println!("warning: a judge exited with {status}");
        }
        let out = std::fs::read_to_string(&out_path).unwrap_or_default();
        for line in out.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else { continue };
            let Some(id) = v["id"].as_u64().map(|i| i as usize) else { continue };
            let msg = v["msg"].as_str().unwrap_or_default().to_owned();
            let verdict = match v["v"].as_str().unwrap_or_default() {
                "valid" => Verdict::Valid,
                "end" => Verdict::End(msg),
                "mid" => Verdict::Mid(v["line"].as_u64().unwrap_or(0) as usize, msg),
                "semantic" => Verdict::Semantic(msg),
                _ => Verdict::Unjudged(msg),
            };
            if id < verdicts.len() {
                verdicts[id] = verdict;
                esm[id] = v["d"] == "esm";
            }
        }
    }
    (verdicts, esm)
}

/// rustfmt's first error on `text`: (message, line, column); Err when rustfmt failed
/// without a located error.
fn rustfmt_error(text: &str) -> Option<Result<(String, usize, usize), String>> {
    let child = Command::new("rustfmt")
        .args(["--check", "--edition", "2021"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Some(Err(format!("rustfmt did not start: {e}"))),
    };
    let mut stdin = child.stdin.take().expect("stdin");
    let input = text.to_owned();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut lines = stderr.lines();
    while let Some(line) = lines.next() {
        let message = if let Some(rest) = line.strip_prefix("error: ") {
            rest
        } else if line.starts_with("error[E") {
            line.split_once("]: ").map_or(line, |(_, m)| m)
        } else {
            continue;
        };
        for next in lines.by_ref() {
            if let Some(at) = next.trim_start().strip_prefix("--> <stdin>:") {
                let mut parts = at.split(':').map(|n| n.parse::<usize>().unwrap_or(1));
                let (line, col) = (parts.next().unwrap_or(1), parts.next().unwrap_or(1));
                return Some(Ok((message.to_owned(), line, col)));
            }
            if next.is_empty() {
                break;
            }
        }
        return Some(Err(format!("rustfmt: {message} (no location)")));
    }
    None
}

/// Byte offset of a 1-based line and 1-based character column.
fn offset_of(text: &str, line: usize, col: usize) -> usize {
    let starts = line_starts(text);
    let Some(&start) = starts.get(line.saturating_sub(1)) else { return text.len() };
    let rest = &text[start..];
    start + rest.char_indices().nth(col.saturating_sub(1)).map_or(rest.len(), |(i, _)| i)
}

fn line_at(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

const RUST_EOF: &[&str] = &[
    "this file contains an unclosed delimiter",
    "unterminated double quote",
    "unterminated block comment",
    "unterminated raw string",
    "found `<eof>`",
];

/// rustc lexes the whole file into token trees before it parses, so an unclosed or
/// mismatched delimiter, or any other lexer error, is reported even when a parse error comes
/// earlier. For delimiters still open at the end the judge closes them and asks again, and
/// for another bad token it cuts before it and asks again; a closing delimiter that does not
/// match is judged where rustc reports it.
fn judge_rust(text: &str, depth: usize) -> Verdict {
    let (msg, line, col) = match rustfmt_error(text) {
        None => return Verdict::Valid,
        Some(Err(m)) => return Verdict::Unjudged(m),
        Some(Ok(e)) => e,
    };
    let at = rust_failure(text, &msg, line, col);
    if RUST_EOF.iter().any(|m| msg.contains(m)) || at >= text.trim_end().len() {
        return probe_rust(text, msg, depth);
    }
    mid_rust(text, msg, line_at(text, at), depth)
}

/// Where rustc's parser stopped for an error at `line`:`col`. For an attribute or doc comment
/// with nothing to attach to, rustc points at the attribute; the parser stopped at the token
/// after it (which may be past the end).
fn rust_failure(text: &str, msg: &str, line: usize, col: usize) -> usize {
    let at = offset_of(text, line, col);
    let after_attribute =
        ["expected item after attributes", "expected item after doc comment", "doesn't document anything"]
            .iter()
            .any(|m| msg.contains(m));
    if !after_attribute {
        return at;
    }
    let b = text.as_bytes();
    let mut i = at;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if let Some(comment) = rest.strip_prefix("/*") {
            i += comment.find("*/").map_or(rest.len(), |n| n + 4);
        } else if rest.starts_with('#') {
            // `#[...]` or `#![...]`: to the bracket that closes the first one.
            let Some(open) = rest.find('[') else { return i };
            let mut depth = 0;
            let mut end = rest.len();
            for (k, c) in rest[open..].char_indices() {
                match c {
                    '[' => depth += 1,
                    ']' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + k + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            i += end;
        } else {
            return i;
        }
    }
}

/// Lexer errors other than delimiters and unterminated literals.
const RUST_LEXER: &[&str] = &[
    "unknown start of token",
    "prefix `",
    "unknown character escape",
    "character literal",
    "invalid suffix",
];

/// An end-of-input error, verified: the text plus what closes every open string, comment and
/// bracket; then with a `;` after each closer (a macro call `m!(..)` among items wants one);
/// then plus an item (an attribute at the end wants one). End of input when one of them
/// parses or fails only past the original end; else the probe that fails latest says where
/// the text is broken.
fn probe_rust(text: &str, msg: String, depth: usize) -> Verdict {
    let Scan::Open(lexical, stack) = scan_rust(text) else { return Verdict::End(msg) };
    if depth >= 3 {
        return Verdict::End(msg);
    }
    let end = text.trim_end().len();
    let mut latest: Option<(usize, String, String, usize)> = None;
    let suffixes = [
        format!("{lexical}{}", closers(&stack, "")),
        format!("{lexical}{}", closers(&stack, ";")),
        format!("{lexical}{}\nfn probe_item() {{}}", closers(&stack, "")),
    ];
    for suffix in &suffixes {
        if suffix.is_empty() {
            continue;
        }
        let probe = format!("{text}{suffix}");
        match rustfmt_error(&probe) {
            None | Some(Err(_)) => return Verdict::End(msg),
            Some(Ok((m, l, c))) => {
                let at = rust_failure(&probe, &m, l, c);
                // A delimiter error here means the rough lexer misread the text.
                if at >= end || m.contains("delimiter") {
                    return Verdict::End(msg);
                }
                if latest.as_ref().is_none_or(|&(a, ..)| at > a) {
                    latest = Some((at, probe.clone(), m, line_at(&probe, at)));
                }
            }
        }
    }
    match latest {
        Some((_, probe, m, l)) => mid_rust(&probe, m, l, depth + 1),
        None => Verdict::End(msg),
    }
}

fn mid_rust(text: &str, msg: String, line: usize, depth: usize) -> Verdict {
    if depth >= 3 {
        return Verdict::Mid(line, msg);
    }
    // A closing delimiter that closes nothing, or the wrong kind, is what rustc reports, and
    // where: at the delimiter, or for a mismatch where the delimiter it should have closed
    // opens. The check's target is the compiler's line, so that report is the judge's.
    if msg.contains("closing delimiter") {
        return Verdict::Mid(line, msg);
    }
    if line > 1
        && RUST_LEXER.iter().any(|m| msg.contains(m))
        && let Verdict::Mid(l, m) = judge_rust(&text[..offset_of(text, line, 1)], depth + 1)
    {
        return Verdict::Mid(l, m);
    }
    Verdict::Mid(line, msg)
}

/// What a rough Rust lexer sees at the end of a text: a closing bracket that matches
/// nothing, or what is still open: the text that closes the string or comment the text ends
/// in, and the brackets open, innermost last.
enum Scan {
    BadCloser,
    Open(String, Vec<u8>),
}

/// Closers for `stack`, innermost first, each on its own line and followed by `after`.
fn closers(stack: &[u8], after: &str) -> String {
    let mut s = String::new();
    for &open in stack.iter().rev() {
        s.push('\n');
        s.push(match open {
            b'(' => ')',
            b'[' => ']',
            _ => '}',
        });
        s.push_str(after);
    }
    s
}

fn scan_rust(text: &str) -> Scan {
    let b = text.as_bytes();
    let ident = |i: usize| i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_');
    let close_all = |first: &str, stack: &[u8]| Scan::Open(first.to_owned(), stack.to_vec());
    let mut stack: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => match text[i..].find('\n') {
                Some(n) => i += n,
                None => return close_all("\n", &stack),
            },
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 1;
                i += 2;
                while depth > 0 {
                    if i >= b.len() {
                        return close_all(&" */".repeat(depth), &stack);
                    }
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                    } else {
                        i += 1;
                    }
                }
            }
            b'"' => {
                i += 1;
                loop {
                    match b.get(i) {
                        None => return close_all("\"", &stack),
                        Some(b'\\') => i += 2,
                        Some(b'"') => {
                            i += 1;
                            break;
                        }
                        _ => i += 1,
                    }
                }
            }
            b'r' if (i == 0
                || !ident(i - 1)
                || (matches!(b[i - 1], b'b' | b'c') && (i < 2 || !ident(i - 2))))
                && matches!(b.get(i + 1), Some(b'#' | b'"')) =>
            {
                let mut j = i + 1;
                while b.get(j) == Some(&b'#') {
                    j += 1;
                }
                if b.get(j) != Some(&b'"') {
                    i = j; // a raw identifier
                    continue;
                }
                let closer = format!("\"{}", "#".repeat(j - i - 1));
                match text[j + 1..].find(&closer) {
                    Some(n) => i = j + 1 + n + closer.len(),
                    None => return close_all(&closer, &stack),
                }
            }
            b'\'' => {
                if b.get(i + 1) == Some(&b'\\') {
                    i = text.get(i + 3..).and_then(|r| r.find('\'')).map_or(b.len(), |n| i + 3 + n + 1);
                } else {
                    let width = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                    i += if b.get(i + 1 + width) == Some(&b'\'') { width + 2 } else { 1 };
                }
            }
            open @ (b'(' | b'[' | b'{') => {
                stack.push(open);
                i += 1;
            }
            close @ (b')' | b']' | b'}') => {
                let want = match close {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if stack.pop() != Some(want) {
                    return Scan::BadCloser;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    close_all("", &stack)
}

/// Runs `node --check` on a few JavaScript cases the batch judge rejected and a few it
/// accepted, and prints how often the two agree (verdict and line).
fn node_self_check(sources: &[Source], cases: &[Case], verdicts: &[Verdict], esm: &[bool], tmp: &Path) {
    let dir = tmp.join("node-check");
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let js: Vec<usize> =
        (0..cases.len()).filter(|&i| sources[cases[i].source].lang == Lang::JavaScript).collect();
    let rejected = js.iter().filter(|&&i| matches!(verdicts[i], Verdict::Mid(..) | Verdict::End(_))).take(10);
    let accepted = js.iter().filter(|&&i| verdicts[i] == Verdict::Valid).take(5);
    let mut asked = 0;
    let mut agreed = 0;
    let mut differ = Vec::new();
    for &id in rejected.chain(accepted) {
        // As the dialect the batch judge used: `.mjs` is always a module, `.cjs` never.
        let file = dir.join(format!("{id}.{}", if esm[id] { "mjs" } else { "cjs" }));
        if std::fs::write(&file, &cases[id].text).is_err() {
            continue;
        }
        let Ok(out) = Command::new("node").arg("--check").arg(&file).output() else { continue };
        asked += 1;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let line = stderr
            .lines()
            .next()
            .and_then(|l| l.rsplit(':').next())
            .and_then(|n| n.trim().parse::<usize>().ok());
        let same = match (&verdicts[id], out.status.success()) {
            (Verdict::Valid, true) => true,
            (Verdict::Mid(l, _), false) => line == Some(*l),
            (Verdict::End(_), false) => true,
            _ => false,
        };
        if same {
            agreed += 1;
        } else {
            differ.push(format!("case {id}: batch judge {}, node --check line {line:?}", verdicts[id]));
        }
    }
    println!("node --check agreed with the batch JavaScript judge on {agreed} of {asked} cases.");
    for d in differ {
        println!("  {d}");
    }
    println!();
}

// ---------------------------------------------------------------------------------------
// Scoring

#[derive(Default)]
struct Score {
    files: usize,
    whole_rejected: usize,
    whole_errors: usize,
    whole_not_ok: usize,
    prefixes: usize,
    prefix_errors: usize,
    /// Prefixes the judge called mid-file: a gap in the judge's end-of-input rules.
    prefix_judge_mid: usize,
    joins: usize,
    joins_mid: usize,
    missed: usize,
    detected: usize,
    line_near: usize,
    joins_fine: usize,
    false_errors: usize,
    swapped: usize,
    append_differs: usize,
    excluded: usize,
    /// Why joins were excluded: the judge's message, names blanked, and how often.
    excluded_why: BTreeMap<String, usize>,
    /// Whole files the judge rejected, and what it said.
    rejected: Vec<String>,
    bytes: usize,
    check_time: Duration,
}

struct Disagreement {
    lang: Lang,
    kind: &'static str,
    case: usize,
    report: Report,
    /// The write + append path's report, for joins.
    appended: Option<Report>,
    verdict: Verdict,
}

struct Scored {
    scores: BTreeMap<Lang, Score>,
    disagreements: Vec<Disagreement>,
}

fn first_line(report: &Report) -> Option<usize> {
    report.problems.first().map(|p| p.line)
}

fn score(opts: &Options, sources: &[Source], cases: &[Case], verdicts: &[Verdict]) -> Scored {
    let mut scores: BTreeMap<Lang, Score> = BTreeMap::new();
    let mut disagreements = Vec::new();
    for &lang in &opts.langs {
        if sources.iter().any(|s| s.lang == lang) {
            scores.insert(lang, Score::default());
        }
    }
    // A prefix or join of a file the judge rejects says nothing: it was broken already.
    let rejected: Vec<usize> = cases
        .iter()
        .enumerate()
        .filter(|(id, c)| c.kind == Kind::Whole && verdicts[*id] != Verdict::Valid)
        .map(|(_, c)| c.source)
        .collect();
    for (id, case) in cases.iter().enumerate() {
        let source = &sources[case.source];
        if case.kind != Kind::Whole && rejected.contains(&case.source) {
            continue;
        }
        let path = source.check_path.as_str();
        let score = scores.get_mut(&source.lang).expect("a scored language");
        let verdict = &verdicts[id];
        let mut disagree = |kind: &'static str, report: &Report, appended: Option<Report>| {
            disagreements.push(Disagreement {
                lang: source.lang,
                kind,
                case: id,
                report: report.clone(),
                appended,
                verdict: verdict.clone(),
            });
        };
        match case.kind {
            Kind::Whole => {
                let start = Instant::now();
                let report = check(path, &case.text);
                score.check_time += start.elapsed();
                score.bytes += case.text.len();
                score.files += 1;
                if *verdict != Verdict::Valid {
                    // Its prefixes and joins are not scored either.
                    score.whole_rejected += 1;
                    score.rejected.push(format!("{} ({verdict})", source.shown));
                    continue;
                }
                if report.status == Status::Errors {
                    score.whole_errors += 1;
                }
                if report.status != Status::Ok {
                    score.whole_not_ok += 1;
                    disagree("whole file not ok", &report, None);
                }
            }
            Kind::Prefix => {
                let report = check(path, &case.text);
                score.prefixes += 1;
                if matches!(verdict, Verdict::Mid(..)) {
                    score.prefix_judge_mid += 1;
                    disagree("prefix the judge calls mid-file (a gap in the judge's rules)", &report, None);
                }
                if report.status == Status::Errors {
                    score.prefix_errors += 1;
                    disagree("prefix called errors", &report, None);
                }
            }
            Kind::Join => {
                let report = check(path, &case.text);
                let first = &case.text[..case.first_len];
                // The file as the server sees it: version 0 after the first part, 1 after the append.
                let cache = CheckCache::new(DEFAULT_BUDGET_BYTES);
                cache.check_written(path, first, Some(0u8));
                let appended = cache.check_appended(path, case.text.as_bytes(), 0, 1);
                score.joins += 1;
                if appended.status != report.status {
                    score.append_differs += 1;
                    disagree("append path differs from whole check", &report, Some(appended.clone()));
                }
                match verdict {
                    Verdict::Mid(line, _) => {
                        score.joins_mid += 1;
                        if report.status == Status::Errors {
                            score.detected += 1;
                            if first_line(&report).is_some_and(|l| l.abs_diff(*line) <= LINE_SLACK) {
                                score.line_near += 1;
                            } else {
                                disagree("mid-file join: wrong line", &report, Some(appended));
                            }
                        } else {
                            score.missed += 1;
                            disagree("mid-file join missed", &report, Some(appended));
                        }
                    }
                    Verdict::Valid | Verdict::End(_) => {
                        score.joins_fine += 1;
                        let right = if *verdict == Verdict::Valid { Status::Ok } else { Status::Incomplete };
                        if report.status == Status::Errors {
                            score.false_errors += 1;
                            disagree("valid/EOF join called errors", &report, Some(appended));
                        } else if report.status != right {
                            score.swapped += 1;
                            disagree("join: ok and incomplete swapped", &report, Some(appended));
                        }
                    }
                    Verdict::Semantic(m) | Verdict::Unjudged(m) => {
                        score.excluded += 1;
                        *score.excluded_why.entry(reason(m)).or_default() += 1;
                    }
                }
            }
        }
    }
    Scored { scores, disagreements }
}

/// A judge's message with names and places blanked, so that alike messages count together.
fn reason(message: &str) -> String {
    let mut out = String::new();
    let mut quote = None;
    for c in message.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, '\'' | '`' | '"') => {
                quote = Some(c);
                out.push('_');
            }
            None if c == '(' => break,
            None => out.push(c),
        }
    }
    out.trim().chars().take(60).collect()
}

fn print_table(opts: &Options, scored: &Scored, sources: &[Source]) {
    println!(
        "Seed {}; {} files per language; {} prefixes and {} joins per file (a join drops 3 to {MAX_GAP} \
         lines). \"line within {LINE_SLACK}\" is over the mid-file joins the check called `errors`.\n",
        opts.seed, opts.per_lang, opts.prefixes, opts.joins
    );
    println!(
        "| language | files | whole: judge rejects | whole: check `errors` (must be 0) | whole: check not `ok` \
         | prefixes | prefix: check `errors` (must be 0) | joins | mid-file joins | missed (<= 3%) \
         | line within {LINE_SLACK} (>= 95%) | valid/EOF joins | false `errors` | ok/incomplete swapped \
         | append != whole | excluded | check MB/s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (lang, s) in &scored.scores {
        let mbps = s.bytes as f64 / 1e6 / s.check_time.as_secs_f64().max(1e-9);
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} ({}/{}) | {} | {} | {} | {} | {} | {:.1} |",
            lang.name(),
            s.files,
            s.whole_rejected,
            s.whole_errors,
            s.whole_not_ok,
            s.prefixes,
            s.prefix_errors,
            s.joins,
            s.joins_mid,
            pct(s.missed, s.joins_mid),
            s.missed,
            pct(s.line_near, s.detected),
            s.line_near,
            s.detected,
            s.joins_fine,
            s.false_errors,
            s.swapped,
            s.append_differs,
            s.excluded,
            mbps,
        );
    }
    println!();
    for (lang, s) in &scored.scores {
        let mut groups: BTreeMap<&str, usize> = BTreeMap::new();
        for src in sources.iter().filter(|src| src.lang == *lang) {
            let top = src.shown.split('/').next().unwrap_or_default();
            *groups.entry(top).or_default() += 1;
        }
        let from: Vec<String> = groups.iter().map(|(g, n)| format!("{n} from {g}")).collect();
        let why: Vec<String> = s.excluded_why.iter().map(|(m, n)| format!("{n}x \"{m}\"")).collect();
        println!(
            "- {}: files {}; the judge called {} prefixes mid-file (gaps in its end-of-input rules; not \
             scored); {} joins excluded{}.",
            lang.name(),
            from.join(", "),
            s.prefix_judge_mid,
            s.excluded,
            if why.is_empty() { String::new() } else { format!(" ({})", why.join(", ")) }
        );
        for r in &s.rejected {
            println!("  - the judge rejects the whole of {r}");
        }
    }
}

/// A few numbered lines of `text` around the lines of interest.
fn excerpt(text: &str, around: &[usize]) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut wanted: Vec<usize> = Vec::new();
    for &l in around.iter().filter(|&&l| l > 0) {
        for k in l.saturating_sub(2).max(1)..=(l + 1).min(lines.len()) {
            if !wanted.contains(&k) {
                wanted.push(k);
            }
        }
    }
    wanted.sort_unstable();
    wanted.truncate(14);
    let mut out = String::new();
    let mut last = 0;
    for k in wanted {
        if last != 0 && k > last + 1 {
            out.push_str("        ...\n");
        }
        let line: String = lines[k - 1].chars().take(120).collect();
        let _ = writeln!(out, "  {k:>5} | {line}");
        last = k;
    }
    out
}

fn describe(d: &Disagreement, sources: &[Source], cases: &[Case]) -> String {
    let case = &cases[d.case];
    let source = &sources[case.source];
    let mut out = format!("[{}] case {}: {} ({})\n", d.kind, d.case, source.shown, case.what);
    let _ = writeln!(out, "  judge: {}", d.verdict);
    let _ = writeln!(out, "  check: {}", d.report.summary().replace('\n', "\n         "));
    if let Some(a) = d.appended.as_ref().filter(|a| a.status != d.report.status) {
        let _ = writeln!(out, "  write + append: {}", a.summary().replace('\n', "\n         "));
    }
    let mut around = vec![case.seam_line];
    if let Verdict::Mid(l, _) = d.verdict {
        around.push(l);
    }
    around.extend(first_line(&d.report));
    if case.kind == Kind::Whole {
        around.retain(|&l| l > 0);
    }
    out.push_str(&excerpt(&case.text, &around));
    out
}

fn print_disagreements(all: &[Disagreement], sources: &[Source], cases: &[Case]) {
    let mut by_kind: BTreeMap<(Lang, &str), Vec<&Disagreement>> = BTreeMap::new();
    for d in all {
        by_kind.entry((d.lang, d.kind)).or_default().push(d);
    }
    if by_kind.is_empty() {
        println!("\nNo disagreements.");
        return;
    }
    println!("\n## Disagreements (first {SHOWN} of each kind)\n");
    for ((lang, kind), list) in &by_kind {
        println!("### {} / {kind}: {}\n", lang.name(), list.len());
        for d in list.iter().take(SHOWN) {
            println!("{}", describe(d, sources, cases));
        }
    }
}

fn dump(dir: &Path, all: &[Disagreement], sources: &[Source], cases: &[Case]) {
    if let Err(e) = std::fs::create_dir_all(dir) {
        println!("cannot create {}: {e}", dir.display());
        return;
    }
    let mut counts: HashMap<(Lang, &str), usize> = HashMap::new();
    for d in all {
        let n = counts.entry((d.lang, d.kind)).or_default();
        *n += 1;
        let case = &cases[d.case];
        let source = &sources[case.source];
        let slug: String = d.kind.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        let stem = format!("{}-{slug}-{n:03}", d.lang.name());
        let ext = source.check_path.trim_start_matches("case.");
        let _ = std::fs::write(dir.join(format!("{stem}.{ext}")), &case.text);
        let mut meta = describe(d, sources, cases);
        let _ = writeln!(meta, "\nreport: {:#?}", d.report);
        if let Some(a) = &d.appended {
            let _ = writeln!(meta, "write + append report: {a:#?}");
        }
        let _ = std::fs::write(dir.join(format!("{stem}.txt")), meta);
    }
    println!("\nWrote {} disagreements to {}.", all.len(), dir.display());
}
