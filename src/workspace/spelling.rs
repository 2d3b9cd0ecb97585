//! How a path argument is read before it meets the file system: the spellings models send that
//! are not the literal name they look like, each taken as the person meant or refused with the
//! reason. Pure string work, unit-tested here; [`Workspace::resolve`](super::Workspace::resolve)
//! applies it, then the file system's rules (`..`, links, Unicode forms of existing names).
//!
//! - A `file://` URI (as filewright's own results carry in their resource links) is its
//!   percent-decoded path; another scheme (`https://`) is refused: it is not a file here.
//! - `\` is a separator (a model that writes `src\app.js` means `src/app.js`); a drive letter
//!   (`C:\`, `C:/`) is refused: this server runs on Unix and has no drives.
//! - Control characters anywhere, invisible characters (zero-width, bidirectional controls,
//!   byte order mark), whitespace at either end and a leading `~` are refused: each makes a
//!   name that is not what it looks like, and `~` is not expanded (the server does not know the
//!   person's home, and `~/x` would otherwise become a directory named `~`).
//! - A trailing `/` says the path names a directory.
//!
//! Decoding happens once, before any check, so a `%2e%2e` in a URI is checked as the `..` it
//! decodes to; a plain path is never percent-decoded (`%2e%2e` there is a literal name).

/// A path argument read: `/`-separated, and whether it ended with `/` (naming a directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Spelled {
    /// The path, with `/` separators, its trailing `/` removed (absolute or relative).
    pub path: String,
    /// The argument ended with `/` (or `/.`): it names a directory.
    pub names_dir: bool,
}

/// Reads `raw` as a person means it, or says why it cannot be taken.
pub(super) fn read(raw: &str) -> Result<Spelled, String> {
    if raw.is_empty() {
        return Err("the path is empty".into());
    }
    // Checked on the text as sent, before anything reads it: a URI parser would drop a tab
    // or a line break silently.
    refuse_hidden(raw)?;
    if has_drive_letter(raw) {
        return Err("it is a Windows path with a drive letter; this server runs on Unix and has no \
                    drives: give the path relative to the root, like \"src/app.js\""
            .into());
    }
    let slashed = raw.replace('\\', "/");
    let mut path = match uri_scheme(&slashed) {
        // A URI is written with `/`: one with a `\` (`file://\x`) could be read two ways.
        Some(_) if raw.contains('\\') => {
            return Err("it is a URI written with a backslash; a URI separates with `/`: send the URI \
                        with `/`, or the path itself"
                .into());
        }
        Some(scheme) if scheme.eq_ignore_ascii_case("file") => {
            let decoded = file_uri_path(&slashed)?;
            // What the URI's escapes spelled is checked as if sent plainly.
            refuse_hidden(&decoded)?;
            decoded.replace('\\', "/")
        }
        Some(scheme) => {
            return Err(format!(
                "it is a {scheme}: URL, not a path; filewright works on the files under its root: give \
                 a path relative to the root, like \"src/app.js\""
            ));
        }
        None => slashed,
    };
    if path.starts_with('~') {
        return Err("it begins with `~`, which is not expanded here (the server does not know your home \
                    directory); give the path relative to the root, like \"notes.txt\", or an absolute \
                    path inside the root (an existing file whose name begins with `~` is \"./~name\")"
            .into());
    }
    let mut names_dir = false;
    loop {
        if path.len() > 1 && path.ends_with('/') {
            path.pop();
        } else if path.ends_with("/.") {
            path.truncate(path.len() - 2);
        } else {
            break;
        }
        names_dir = true;
        if path.is_empty() {
            path.push('/');
            break;
        }
    }
    Ok(Spelled { path, names_dir })
}

/// Refuses hidden characters anywhere and whitespace at either end.
fn refuse_hidden(text: &str) -> Result<(), String> {
    refuse_hidden_characters(text)?;
    let edge = |c: char, end: &str| {
        format!(
            "it {end} with whitespace ({}); paths are taken exactly as written, so this would name a \
             different file than it shows: send it without the whitespace",
            describe(c)
        )
    };
    if let Some(c) = text.chars().next().filter(|c| c.is_whitespace()) {
        return Err(edge(c, "begins"));
    }
    if let Some(c) = text.chars().last().filter(|c| c.is_whitespace()) {
        return Err(edge(c, "ends"));
    }
    Ok(())
}

/// The scheme of `raw` when it is written as a URI (`scheme://`, or `file:` with one slash):
/// letters, digits, `+`, `-` and `.`, at least two characters (so `C:/` is a drive, not a
/// scheme).
fn uri_scheme(raw: &str) -> Option<&str> {
    let colon = raw.find(':')?;
    let scheme = &raw[..colon];
    let rest = &raw[colon + 1..];
    let well_formed = scheme.len() >= 2
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    let uri_like = rest.starts_with("//") || (scheme.eq_ignore_ascii_case("file") && rest.starts_with('/'));
    (well_formed && uri_like).then_some(scheme)
}

/// The local path a `file:` URI names: its host must be empty or `localhost`, and it may carry
/// neither a query nor a fragment (a `#L10` is not part of any file's name).
fn file_uri_path(raw: &str) -> Result<String, String> {
    // The URI parser folds `.` and `..` (and `%2e%2e`) away before the sandbox sees them, which
    // would skip its rule for `..` after a link: refused here, with the plain path as the way.
    let dot_segment = raw.split(['/', '?', '#']).skip(1).any(|segment| {
        let decoded: Vec<u8> = percent_encoding::percent_decode_str(segment).collect();
        decoded == b"." || decoded == b".."
    });
    if dot_segment {
        return Err("it is a file:// URI with a `.` or `..` segment: send the path itself (relative to \
                    the root, or absolute), which the sandbox reads step by step"
            .into());
    }
    let url = url::Url::parse(raw).map_err(|e| format!("it is not a valid file:// URI ({e})"))?;
    if url.query().is_some() || url.fragment().is_some() {
        return Err("it is a file:// URI with a query or fragment (`?` or `#`), which name no file: \
                    send the path alone (a `#` in a name is written %23)"
            .into());
    }
    match url.host_str() {
        None | Some("") => {}
        Some(host) if host.eq_ignore_ascii_case("localhost") => {}
        Some(host) => {
            return Err(format!(
                "it is a file:// URI on the host {host:?}; only files of this machine (an empty host or \
                 localhost) under the root can be reached"
            ));
        }
    }
    // Decoded here, not by `Url::to_file_path`, which adds a `/` after a last name that ends
    // in `:` (a Windows drive's spelling) and so would make a file name a directory.
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(url.path()).collect();
    String::from_utf8(bytes).map_err(|_| "its percent-encoded path does not decode to UTF-8 text".into())
}

/// Refuses control characters (C0, DEL, C1) anywhere, and characters that draw nothing but
/// change what a name is: zero-width spaces and joiners, bidirectional controls, the byte
/// order mark.
fn refuse_hidden_characters(text: &str) -> Result<(), String> {
    for (i, c) in text.chars().enumerate() {
        if c == '\0' {
            return Err("the path contains a NUL byte".into());
        }
        if c.is_control() {
            return Err(format!(
                "the path contains a control character ({}) at character {}; a name with one is almost \
                 never meant: send the path without it",
                describe(c),
                i + 1
            ));
        }
        if is_invisible(c) {
            return Err(format!(
                "the path contains an invisible character ({}) at character {}, which would make a name \
                 that looks like another: send the path without it",
                describe(c),
                i + 1
            ));
        }
    }
    Ok(())
}

/// Characters that are drawn as nothing: zero-width space, non-joiner and joiner, word
/// joiner, the byte order mark (zero-width no-break space), and the bidirectional embedding,
/// override and isolate controls.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// `C:`, `C:\...` or `C:/...`.
fn has_drive_letter(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() >= 2
        && b[0].is_ascii_alphabetic()
        && b[1] == b':'
        && (b.len() == 2 || matches!(b[2], b'\\' | b'/'))
}

/// `U+000A` with a name for the characters a person would recognise.
fn describe(c: char) -> String {
    let name = match c {
        '\n' => " line feed",
        '\r' => " carriage return",
        '\t' => " tab",
        ' ' => " space",
        '\u{A0}' => " no-break space",
        '\u{FEFF}' => " byte order mark",
        '\u{200B}' => " zero-width space",
        _ => "",
    };
    format!("U+{:04X}{name}", u32::from(c))
}

/// Whether `name`, a name new to its directory, may be created: one that begins or ends with
/// whitespace, or is drawn like another, is refused with the reason. (Hidden characters were
/// refused in the whole path already; this catches whitespace around a separator, `src /x`.)
pub(super) fn check_new_name(name: &str) -> Result<(), String> {
    check_new_edges(name)
}

/// [`check_new_name`] for a name new to the root itself: also refused is a name the path
/// rules would read differently when it is sent back as shown: one beginning with `~`, a
/// drive (`C:`), or `file:` (a `file:/x` would read as a URI).
pub(super) fn check_new_top_name(name: &str) -> Result<(), String> {
    check_new_edges(name)?;
    let b = name.as_bytes();
    let drive = b.len() == 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
    if name.starts_with('~') || drive || name.eq_ignore_ascii_case("file:") {
        return Err(format!(
            "a new name {name:?} in the root would not read back as itself (`~` is not expanded, `C:` is a \
             drive, `file:` a URI): choose another name, or put it in a directory"
        ));
    }
    Ok(())
}

fn check_new_edges(name: &str) -> Result<(), String> {
    let edge = name
        .chars()
        .next()
        .filter(|c| c.is_whitespace())
        .or(name.chars().last().filter(|c| c.is_whitespace()));
    match edge {
        Some(c) => Err(format!(
            "the new name {name:?} begins or ends with whitespace ({}), which would make a name that does \
             not look like what it is: send it without the whitespace",
            describe(c)
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(raw: &str) -> String {
        read(raw).unwrap_or_else(|e| panic!("{raw:?}: {e}")).path
    }

    fn refused(raw: &str) -> String {
        read(raw).expect_err(raw)
    }

    #[test]
    fn a_file_uri_is_its_decoded_path() {
        assert_eq!(path("file:///home/u/proj/src/a%20b.js"), "/home/u/proj/src/a b.js");
        assert_eq!(path("file://localhost/home/u/caf%C3%A9.txt"), "/home/u/café.txt");
        assert_eq!(path("FILE:///x/y"), "/x/y");
        assert_eq!(path("file:/x/y"), "/x/y");
        assert!(refused("file://server/x").contains("host"));
        assert!(refused("file:///x/a.js#L10").contains("fragment"));
        assert!(refused("file:///x/%0A").contains("control character"));
        assert!(refused("https://example.com/a.js").contains("https: URL"));
        // A last name ending in `:` stays a file name (not a drive, not a directory).
        assert_eq!(read("file:///x/e%3A").unwrap(), Spelled { path: "/x/e:".into(), names_dir: false });
    }

    #[test]
    fn a_plain_path_is_never_percent_decoded() {
        assert_eq!(path("%2e%2e/x"), "%2e%2e/x");
        assert_eq!(path("a:b"), "a:b", "a colon in a name is not a scheme");
    }

    #[test]
    fn backslashes_are_separators_and_drive_letters_are_refused() {
        assert_eq!(path("src\\app.js"), "src/app.js");
        assert_eq!(path("src\\deep\\"), "src/deep");
        for raw in ["C:\\x", "c:/x", "C:"] {
            assert!(refused(raw).contains("drive letter"), "{raw}");
        }
    }

    #[test]
    fn a_trailing_slash_names_a_directory() {
        assert_eq!(read("new/").unwrap(), Spelled { path: "new".into(), names_dir: true });
        assert_eq!(read("new/.").unwrap(), Spelled { path: "new".into(), names_dir: true });
        assert_eq!(read("a/b").unwrap(), Spelled { path: "a/b".into(), names_dir: false });
        assert_eq!(read("/").unwrap(), Spelled { path: "/".into(), names_dir: false });
    }

    #[test]
    fn tilde_whitespace_and_hidden_characters_are_refused() {
        assert!(refused("~/notes.txt").contains('~'));
        assert!(refused("~").contains('~'));
        assert_eq!(path("./~name"), "./~name");
        assert_eq!(path("a/~b"), "a/~b");
        assert!(refused(" a.txt").contains("begins with whitespace"));
        assert!(refused("a.txt\n").contains("control character"));
        assert!(
            refused("file:///x/a.t\txt").contains("control character"),
            "checked before the URI parser drops it"
        );
        assert!(refused("file:///x/a/../b").contains("`..`"));
        assert!(refused("file:///x/a/%2e%2e/b").contains("`..`"));
        assert!(refused("file:\\x").contains("backslash"), "never a directory named file:");
        assert!(refused("file://\\/x").contains("backslash"));
        assert!(refused("a.txt ").contains("ends with whitespace"));
        assert!(refused("a\u{200B}.txt").contains("invisible"));
        assert!(refused("\u{FEFF}a.txt").contains("invisible"));
        assert!(refused("a\u{85}b").contains("control"));
        assert_eq!(path("my file.txt"), "my file.txt");
    }

    #[test]
    fn new_names_with_whitespace_at_an_edge_are_refused() {
        assert!(check_new_name("src ").is_err());
        assert!(check_new_name("\u{3000}x").is_err());
        assert!(check_new_name("a b").is_ok());
    }
}
