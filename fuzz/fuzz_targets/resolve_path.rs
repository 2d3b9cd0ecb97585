//! The path rules, for any string a client may send as a path, against a tree with links of every
//! kind: `Workspace::resolve` and `Workspace::follow` never panic, never lead outside the root, and
//! never yield a name the rules forbid. The rules are checked from their statement (issue 45 and
//! the README), not from the implementation:
//! - a resolved path is relative, non-empty and made only of normal components;
//! - no component holds `\` (a backslash is a separator, or the path is refused), a control
//!   character (U+0000-U+001F, U+007F-U+009F), or begins or ends with whitespace; the first does
//!   not begin with `~`;
//! - a path with backslashes resolves as the same path with slashes does, or is refused;
//! - a drive-letter path (`C:\x`, `C:/x`) is refused;
//! - a `file://` URI with no host or `localhost` resolves as its percent-decoded path does, or is
//!   refused; one naming another host is refused;
//! - a name that differs from an existing entry only by Unicode normalization resolves to that
//!   entry's spelling, or is refused: never to a new, identical-looking twin;
//! - a resolved path, sent back as filewright shows it (its text, or its `file://` link), resolves
//!   to itself;
//! - a resolved path whose real location (links followed) lies outside the root is refused when
//!   used, and `follow` yields the real target of a link, which lies inside the root.
//!
//! The fuzzer cannot know the fixture's absolute root, so three tokens in the input stand for it:
//! `@R` the canonical root, `@G` the root as it was given (through a link), `@E` the canonical root
//! percent-encoded as in a `file://` URI. The root's own name needs encoding (a space, an `é`).
//! Seeds are in fuzz/seeds/resolve_path, tokens in fuzz/dicts/resolve_path.dict.
#![no_main]

use std::path::{Component, PathBuf};
use std::sync::OnceLock;

use filewright::workspace::{RootPath, Workspace};
use libfuzzer_sys::fuzz_target;
use unicode_normalization::UnicodeNormalization;

struct Fixture {
    _dir: tempfile::TempDir,
    ws: Workspace,
    /// The canonical root, and the absolute paths the tokens stand for.
    root: PathBuf,
    given: String,
    encoded: String,
}

/// The tree: a root (opened through a link to it) holding a directory, a file, an entry named
/// `café` in NFC (a file in the root, a directory below), and links: relative and absolute ones to
/// a file and to a directory inside the root, ones out of the root (absolute, relative, to a file),
/// one to `..`, one to `/etc`, a dangling one, a loop and a chain of two.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let root = base.join("my root \u{e9}");
        let outside = base.join("outside");
        std::fs::create_dir_all(root.join("src/deep/caf\u{e9}")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("src/a.txt"), "a").unwrap();
        std::fs::write(root.join("caf\u{e9}"), "NFC").unwrap();
        std::fs::write(outside.join("secret.txt"), "s").unwrap();
        std::fs::write(outside.join("caf\u{e9}"), "s").unwrap();
        let links: [(&str, PathBuf); 13] = [
            ("in", "src".into()),
            ("a_link", "src/a.txt".into()),
            ("abs_dir", root.join("src")),
            ("abs_file", root.join("src/a.txt")),
            ("out", outside.clone()),
            ("out_rel", "../outside".into()),
            ("out_file", "../outside/secret.txt".into()),
            ("up", "..".into()),
            ("etc", "/etc".into()),
            ("dangling", "missing.txt".into()),
            ("loop_a", "loop_b".into()),
            ("loop_b", "loop_a".into()),
            ("src/deep/back", "../../in".into()),
        ];
        for (name, target) in links {
            std::os::unix::fs::symlink(target, root.join(name)).unwrap();
        }
        let given = base.join("given");
        std::os::unix::fs::symlink(&root, &given).unwrap();
        let ws = Workspace::open_root(&given).expect("open root");
        let encoded = encode(root.to_str().unwrap());
        Fixture { _dir: dir, ws, given: given.to_str().unwrap().to_string(), encoded, root }
    })
}

fuzz_target!(|data: &[u8]| {
    let fx = fixture();
    let raw = String::from_utf8_lossy(data)
        .replace("@R", fx.root.to_str().unwrap())
        .replace("@G", &fx.given)
        .replace("@E", &fx.encoded);
    let Ok(path) = fx.ws.resolve(&raw) else { return };
    let shown = path.display();
    check_names(&raw, &path, "resolve");
    check_no_twin(fx, &raw, &path);
    check_inside_or_refused(fx, &raw, &path);

    let same = |other: &str, rule: &str| {
        let again = fx.ws.resolve(other);
        assert!(
            matches!(&again, Ok(p) if *p == path),
            "{raw:?} resolved to {shown:?}, but {other:?} to {again:?}: {rule}"
        );
    };
    if raw.contains('\\') {
        same(&raw.replace('\\', "/"), "a backslash is a separator, or the path is refused");
    }
    let bytes = raw.as_bytes();
    let drive = bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'\\' | b'/');
    assert!(!drive, "{raw:?} (a drive letter) resolved to {shown:?}");
    match file_uri(&raw) {
        Uri::Local(decoded) => same(&decoded, "a file:// URI means its percent-decoded path, or is refused"),
        Uri::Remote => panic!("{raw:?} (a file:// URI naming another host) resolved to {shown:?}"),
        Uri::NotUri | Uri::Unclear => {}
    }
    same(&shown, "a resolved path, sent back as shown, names itself");
    let link = format!("file://{}", encode(fx.root.join(path.as_path()).to_str().unwrap()));
    same(&link, "a resolved path's file:// link names it");

    if let Ok(target) = fx.ws.follow(&path) {
        check_names(&raw, &target, "follow");
        check_inside_or_refused(fx, &raw, &target);
        if target != path {
            let real = std::fs::canonicalize(fx.root.join(target.as_path()));
            if let Ok(real) = &real {
                assert!(
                    real.starts_with(&fx.root),
                    "{raw:?}: {shown:?} was followed to {target:?}, at {real:?}"
                );
            }
            let link_real = std::fs::canonicalize(fx.root.join(path.as_path()));
            if link_real.is_ok() || real.is_ok() {
                assert_eq!(
                    real.ok(),
                    link_real.ok(),
                    "{raw:?}: {shown:?} was followed to {target:?}, which is not where the link leads"
                );
            }
        }
    }
});

/// Every component is a normal name the rules allow.
fn check_names(raw: &str, path: &RootPath, what: &str) {
    let p = path.as_path();
    assert!(!p.as_os_str().is_empty(), "{raw:?}: {what} gave an empty path");
    for (i, component) in p.components().enumerate() {
        let Component::Normal(name) = component else {
            panic!("{raw:?}: {what} gave {p:?}, whose component {component:?} is not a name");
        };
        let Some(name) = name.to_str() else { panic!("{raw:?}: {what} gave {p:?}, not UTF-8") };
        assert!(!name.contains('\\'), "{raw:?}: {what} gave {p:?}, a name with a backslash");
        assert!(
            !name.chars().any(|c| matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}')),
            "{raw:?}: {what} gave {p:?}, a name with a control character"
        );
        let first = name.chars().next().unwrap();
        let last = name.chars().next_back().unwrap();
        assert!(
            !first.is_whitespace() && !last.is_whitespace(),
            "{raw:?}: {what} gave {p:?}, a name that begins or ends with whitespace"
        );
        assert!(!(i == 0 && first == '~'), "{raw:?}: {what} gave {p:?}, which begins with `~`");
    }
}

/// No component is a new spelling, in another Unicode normalization form, of an entry that
/// exists beside it (in a directory inside the root).
fn check_no_twin(fx: &Fixture, raw: &str, path: &RootPath) {
    let mut dir = fx.root.clone();
    for component in path.as_path().components().take(8) {
        let name = component.as_os_str().to_str().unwrap();
        let inside = std::fs::canonicalize(&dir).is_ok_and(|real| real.starts_with(&fx.root));
        if inside && std::fs::symlink_metadata(dir.join(name)).is_err() {
            let nfc: String = name.nfc().collect();
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let existing = entry.file_name();
                let existing = existing.to_string_lossy();
                assert!(
                    existing.nfc().collect::<String>() != nfc,
                    "{raw:?} resolved to {:?}, a twin of the existing {existing:?} in another Unicode form",
                    path.as_path()
                );
            }
        }
        dir.push(name);
    }
}

/// A path whose real location (links followed, when it exists) lies outside the root is refused
/// by the workspace when it is used.
fn check_inside_or_refused(fx: &Fixture, raw: &str, path: &RootPath) {
    if let Ok(real) = std::fs::canonicalize(fx.root.join(path.as_path()))
        && !real.starts_with(&fx.root)
    {
        assert!(
            fx.ws.stat(path).is_err(),
            "{raw:?}: {:?} lies at {real:?}, outside the root, and the workspace inspects it",
            path.as_path()
        );
    }
}

enum Uri {
    NotUri,
    /// The percent-decoded path of a `file://` URI on this machine.
    Local(String),
    /// A `file://` URI naming another host.
    Remote,
    /// A `file://` URI whose path has no single meaning: a query or fragment, a bad escape, or
    /// bytes that are not UTF-8 once decoded.
    Unclear,
}

/// What `raw` is as a `file://` URI (RFC 8089; the scheme is case-insensitive).
fn file_uri(raw: &str) -> Uri {
    match raw.get(..7) {
        Some(scheme) if scheme.eq_ignore_ascii_case("file://") => {}
        _ => return Uri::NotUri,
    }
    let rest = &raw[7..];
    let (host, path) = rest.find('/').map_or((rest, ""), |i| rest.split_at(i));
    if rest.contains(['?', '#']) {
        return Uri::Unclear;
    }
    if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
        return Uri::Remote;
    }
    match decode(path).and_then(|bytes| String::from_utf8(bytes).ok()) {
        Some(path) => Uri::Local(path),
        None => Uri::Unclear,
    }
}

/// `%XX` escapes decoded; None for a `%` not followed by two hex digits.
fn decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

/// Percent-encodes every byte but unreserved ones and `/`, as a `file://` URI's path.
fn encode(path: &str) -> String {
    let mut out = String::new();
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
