//! Unit tests of the session: each tool method driven directly, without the MCP layer.

use super::*;

/// A session on a fresh root, `<temp>/root`, with its store in `<temp>/state`.
pub(super) fn session() -> (tempfile::TempDir, Session) {
    session_with(1 << 20)
}

/// [`session`] with files of at most `max_file_bytes`.
pub(super) fn session_with(max_file_bytes: u64) -> (tempfile::TempDir, Session) {
    let tmp = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(tmp.path().join("root")).expect("root");
    let ws = Workspace::open_root(&tmp.path().join("root")).expect("open root");
    let store = Store::open(&tmp.path().join("state"), None).expect("store");
    (tmp, Session::new(ws, Config { agent: "tester".into(), max_file_bytes, after_write: None }, store))
}

/// Past `KEEP_TEXT_MIN` the text an append leaves is kept for the next one, which is then not
/// read back: every report must still be what a fresh look at the file says, also after the
/// file was changed behind the session's back.
#[test]
fn appends_to_a_large_file_report_what_a_fresh_look_at_it_says() {
    use std::io::Write;
    let (t, s) = session();
    let disk = t.path().join("root/big.js");
    let mut expected = "function f(a) {\n  return a + 1;\n}\n".repeat(9_000);
    assert!(expected.len() > crate::check::cache::KEEP_TEXT_MIN);
    s.write_file(Some("big.js"), Some(&expected), None, None).unwrap();
    let parts = ["function a() {\n", "  return 1;\n", "}\n", "export const b = 2;\n", "let c = [", "1];"];
    for (i, part) in parts.iter().enumerate() {
        if i == 3 {
            let extra = "// added by an editor\n";
            std::fs::OpenOptions::new()
                .append(true)
                .open(&disk)
                .unwrap()
                .write_all(extra.as_bytes())
                .unwrap();
            expected.push_str(extra);
        }
        let out = s.append_file(Some("big.js"), Some(part), crate::files::Expected::default(), None).unwrap();
        expected.push_str(part);
        assert_eq!(std::fs::read_to_string(&disk).unwrap(), expected, "step {i}");
        assert_eq!(out.size, expected.len() as u64, "step {i}");
        let lines = crate::lines::count_lines_before_and_all(expected.as_bytes(), 0).1;
        assert_eq!(out.lines, lines, "step {i}");
        assert_eq!(out.after.sha256, crate::files::sha256_hex(expected.as_bytes()), "step {i}");
        assert_eq!(out.after.syntax, crate::check::check("big.js", &expected), "step {i}");
    }
}

#[test]
fn replacing_an_unread_file_warns_but_writes() {
    let (t, s) = session();
    std::fs::write(t.path().join("root/a.txt"), "old").unwrap();
    let out = s.write_file(Some("a.txt"), Some("new"), None, None).unwrap();
    assert!(out.after.warnings.iter().any(|w| w.contains("had not read")));
    assert_eq!(std::fs::read_to_string(t.path().join("root/a.txt")).unwrap(), "new");
}

#[test]
fn replacing_a_read_file_does_not_warn() {
    let (t, s) = session();
    std::fs::write(t.path().join("root/a.txt"), "old\n").unwrap();
    s.read_file(Some("a.txt"), None, None, super::ReadAs::default()).unwrap();
    let out = s.write_file(Some("a.txt"), Some("new"), None, None).unwrap();
    assert!(out.after.warnings.is_empty(), "{:?}", out.after.warnings);
}

#[test]
fn missing_content_is_reported_as_truncated() {
    let (t, s) = session();
    let err = s.write_file(Some("a.txt"), None, None, None).unwrap_err();
    assert!(matches!(err, Error::Truncated { field: "content", .. }));
    assert!(!t.path().join("root/a.txt").exists());
}

#[test]
fn over_escaped_python_is_unescaped_when_it_parses_better() {
    let (t, s) = session();
    let out =
        s.write_file(Some("a.py"), Some("def f():\\n    return 1\\n\\nprint(f())\\n"), None, None).unwrap();
    assert!(out.unescaped);
    assert_eq!(
        std::fs::read_to_string(t.path().join("root/a.py")).unwrap(),
        "def f():\n    return 1\n\nprint(f())\n"
    );
}

#[test]
fn one_line_python_with_newline_escapes_in_strings_is_kept() {
    let (t, s) = session();
    let line = "print(\"a\\nb\\nc\")\n";
    let out = s.write_file(Some("a.py"), Some(line), None, None).unwrap();
    assert!(!out.unescaped);
    assert_eq!(std::fs::read_to_string(t.path().join("root/a.py")).unwrap(), line);
}

mod properties {
    use proptest::prelude::*;

    use super::session;
    use crate::{check, files};

    /// Chunks an agent might send: ASCII, accents, emoji, CRLF and LF, a BOM, tabs, code
    /// punctuation; no backslash, so nothing looks over-escaped and is rewritten.
    fn chunk() -> impl Strategy<Value = String> {
        proptest::string::string_regex("(\u{feff}|\r\n|\n|[a-z ]{1,30}|é|🎉|\t|[(){}:;=\"'#]){0,30}")
            .expect("a valid pattern")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Any write followed by appends (each naming the size it expects, as a careful
        /// agent does) leaves exactly the concatenation on disk, reports that size after
        /// every call, and checks the file as a fresh check of the whole text would.
        #[test]
        fn a_write_then_appends_reproduce_the_concatenation(
            first in chunk(),
            rest in proptest::collection::vec(chunk(), 0..8),
            which in 0usize..4,
        ) {
            let (t, s) = session();
            let path = ["notes.txt", "app.py", "app.js", "site.css"][which];
            let out = s.write_file(Some(path), Some(&first), None, None).expect("write");
            let mut expected = first.clone();
            prop_assert_eq!(out.size, expected.len() as u64);
            for part in &rest {
                let out = s
                    .append_file(Some(path), Some(part), files::Expected { size: Some(expected.len() as u64), sha256: None }, None)
                    .expect("append");
                expected.push_str(part);
                prop_assert!(!out.duplicate_skipped);
                prop_assert_eq!(out.size, expected.len() as u64);
                prop_assert_eq!(&out.after.syntax, &check::check(path, &expected));
            }
            let on_disk = std::fs::read(t.path().join("root").join(path)).expect("read back");
            prop_assert_eq!(on_disk, expected.into_bytes());
        }

        /// Without `expected_size`, a chunk is left out only when the file already ends with
        /// it (a retried call), and then the file is exactly what it was: what is on disk is
        /// the concatenation of the chunks that were not skipped.
        #[test]
        fn appends_without_a_size_skip_only_what_the_file_already_ends_with(
            first in chunk(),
            rest in proptest::collection::vec(
                prop_oneof![chunk(), Just("a retried chunk, long enough to be deduplicated\n".repeat(5)), Just("\n".into())],
                0..8,
            ),
        ) {
            let (t, s) = session();
            s.write_file(Some("log.txt"), Some(&first), None, None).expect("write");
            let mut expected = first.clone();
            for part in &rest {
                let out = s.append_file(Some("log.txt"), Some(part), files::Expected::default(), None).expect("append");
                // The rule: a chunk of at least DEDUPE_MIN_BYTES that the file already ends
                // with is a retry and is skipped; anything else is appended.
                let retry = part.len() >= files::DEDUPE_MIN_BYTES && expected.ends_with(part.as_str());
                prop_assert_eq!(out.duplicate_skipped, retry, "{:?}", part);
                if !retry {
                    expected.push_str(part);
                }
                prop_assert_eq!(out.size, expected.len() as u64);
            }
            prop_assert_eq!(std::fs::read(t.path().join("root/log.txt")).expect("read back"), expected.into_bytes());
        }
    }
}

mod path_tokens {
    use std::collections::BTreeMap;
    use std::path::Path;

    use proptest::prelude::*;

    use super::*;

    /// Every entry below `dir` (a file with its content, a link with its target, a directory
    /// as such), symlinks not followed.
    fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = entry.path();
                let name = p.strip_prefix(dir).unwrap_or(&p).to_string_lossy().into_owned();
                match entry.file_type() {
                    Ok(t) if t.is_dir() => {
                        out.insert(name, b"<dir>".to_vec());
                        stack.push(p);
                    }
                    Ok(t) if t.is_symlink() => {
                        let target = std::fs::read_link(&p).unwrap_or_default();
                        out.insert(name, target.as_os_str().as_encoded_bytes().to_vec());
                    }
                    _ => {
                        out.insert(name, std::fs::read(&p).unwrap_or_default());
                    }
                }
            }
        }
        out
    }

    /// Path pieces in the manner of cap-std's fuzz target: the dots, names that exist and
    /// do not, a symlink inside the root and three that lead out of it.
    fn token() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            ".",
            "..",
            "a",
            "b",
            "new",
            "secret.txt",
            "in",
            "out",
            "abs",
            "up",
            "",
            "~",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Whatever path is built from these pieces, a write or append is either refused or
        /// lands in a file inside the root: the sibling directory outside the root, which
        /// three symlinks point at, is never touched.
        #[test]
        fn every_token_path_is_refused_or_lands_inside_the_root(
            tokens in proptest::collection::vec(token(), 1..7),
            leading_slash in any::<bool>(),
            append in any::<bool>(),
        ) {
            let (t, s) = session();
            let root = t.path().join("root");
            let outside = t.path().join("outside");
            std::fs::create_dir_all(outside.join("a")).expect("outside");
            std::fs::write(outside.join("secret.txt"), "secret").expect("secret");
            std::fs::create_dir_all(root.join("a")).expect("a");
            std::fs::write(root.join("a/secret.txt"), "inside").expect("inside");
            std::os::unix::fs::symlink("a", root.join("in")).expect("in");
            std::os::unix::fs::symlink("../outside", root.join("out")).expect("out");
            std::os::unix::fs::symlink(&outside, root.join("abs")).expect("abs");
            std::os::unix::fs::symlink("..", root.join("up")).expect("up");
            // Everything outside the root: the sibling directory, and the temp directory that
            // `up` (a link to `..`) leads to. The state store lives there and changes with
            // every write, so it is left out.
            let outside_root = || {
                let mut all = snapshot(t.path());
                all.retain(|name, _| !name.starts_with("root") && !name.starts_with("state"));
                all
            };
            let before = outside_root();
            // A path plainly inside the root must work, or refusing everything would pass.
            prop_assert!(s.write_file(Some("a/plain.txt"), Some("x"), None, None).is_ok());
            let path = format!("{}{}", if leading_slash { "/" } else { "" }, tokens.join("/"));
            let content = "written by the property test\n";
            let landed = if append {
                s.append_file(Some(&path), Some(content), crate::files::Expected::default(), None).map(|o| o.path)
            } else {
                s.write_file(Some(&path), Some(content), None, None).map(|o| o.path)
            };
            prop_assert_eq!(outside_root(), before, "{} reached outside the root", path);
            if let Ok(relative) = landed {
                let file = root.join(&relative);
                prop_assert!(!relative.starts_with('/') && !relative.split('/').any(|c| c == ".." || c == "."));
                let real = std::fs::canonicalize(&file).expect("the file the result names exists");
                let real_root = std::fs::canonicalize(&root).expect("root");
                prop_assert!(real.starts_with(&real_root), "{} landed at {}", path, real.display());
                let text = std::fs::read_to_string(&real).expect("read back");
                prop_assert!(text.ends_with(content), "{} -> {}: {:?}", path, relative, text);
            }
        }
    }
}

#[test]
fn versions_over_the_history_budget_are_dropped_oldest_first_and_undo_says_so() {
    let tmp = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(tmp.path().join("root")).expect("root");
    let ws = Workspace::open_root(&tmp.path().join("root")).expect("open root");
    // Room for one kept version of 8 bytes, not two.
    let store = Store::open(&tmp.path().join("state"), None).expect("store").with_history_budget(12);
    let s = Session::new(
        ws,
        Config { agent: "tester".into(), max_file_bytes: 1 << 20, after_write: None },
        store,
    );
    for content in ["first-1\n", "second2\n", "third-3\n"] {
        s.write_file(Some("v.txt"), Some(content), None, None).expect("write");
    }
    // The version before the last write ("second2") is kept: one step works.
    s.undo(Some("v.txt"), None, false, None).expect("one step back");
    assert_eq!(std::fs::read(tmp.path().join("root/v.txt")).expect("read"), b"second2\n");
    // Two steps back would need "first-1", dropped by the budget.
    let err = s.undo(Some("v.txt"), Some(3), false, None).expect_err("dropped");
    assert!(err.to_string().contains("no copy"), "{err}");
    assert_eq!(std::fs::read(tmp.path().join("root/v.txt")).expect("read"), b"second2\n");
}

#[test]
fn check_files_reports_each_file_and_stops_when_told() {
    use std::ops::ControlFlow;
    let (t, s) = session();
    let names: Vec<String> = (0..5).map(|i| format!("f{i}.py")).collect();
    for name in &names {
        std::fs::write(t.path().join("root").join(name), "x = 1\n").unwrap();
    }
    let mut seen = Vec::new();
    let out = s
        .check_files(Some(&names), &mut |c| {
            seen.push((c.done, c.total, c.path.to_string()));
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(out.complete, 5);
    assert_eq!(
        seen.iter().map(|(d, t, _)| (*d, *t)).collect::<Vec<_>>(),
        [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]
    );
    assert_eq!(seen[2].2, "f2.py");
    let mut calls = 0;
    let err = s
        .check_files(Some(&names), &mut |_| {
            calls += 1;
            if calls == 2 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        })
        .unwrap_err();
    assert!(matches!(err, Error::Cancelled { done: 2, total: 5 }), "{err}");
    assert_eq!(calls, 2, "no file is checked after the cancel");
}

/// A session whose database opens later serves a read before it opens; a write waits for it.
#[test]
fn check_files_on_every_core_reports_what_a_serial_check_does() {
    use std::ops::ControlFlow;
    let (t, s) = session();
    let root = t.path().join("root");
    std::fs::create_dir_all(root.join("web")).unwrap();
    let files: [(&str, &str); 10] = [
        (
            "web/index.html",
            "<html><body><div id=\"go\"></div><script src=\"app.js\"></script></body></html>\n",
        ),
        ("web/app.js", "import { save } from './store.js';\ndocument.getElementById('gone');\nsave();\n"),
        ("web/store.js", "export function load() {}\n"),
        ("web/half.ts", "export function f(a: number) {\n  return a +\n"),
        ("web/broken.js", "const x = );\nconst y = 1;\n"),
        ("lib.rs", "mod missing;\npub fn f() { todo!() }\n"),
        ("main.py", "from lib import thing\n\ndef f():\n    pass\n"),
        ("empty.js", ""),
        ("notes.txt", "hello\n"),
        ("style.css", "body { color: red; }\n"),
    ];
    for (name, text) in files {
        std::fs::write(root.join(name), text).unwrap();
    }
    let mut names: Vec<String> = files.iter().map(|(n, _)| n.to_string()).collect();
    names.push("nowhere.js".into());
    // Many copies, so that the threads share the work and finish out of order.
    let names: Vec<String> = (0..20).flat_map(|_| names.clone()).collect();
    let check = |s: &Session| {
        let mut order = Vec::new();
        let out = s
            .check_files(Some(&names), &mut |c| {
                order.push(c.path.to_string());
                ControlFlow::Continue(())
            })
            .unwrap();
        (serde_json::to_string(&out).unwrap(), order)
    };
    let parallel = check(&s);
    let serial = crate::files::cores::on_one_thread(|| check(&s));
    assert_eq!(parallel, serial);
    assert_eq!(parallel.1, names, "progress in the order of `paths`");
    for status in ["\"stubs\"", "\"unresolved\"", "\"errors\"", "\"incomplete\"", "\"missing\""] {
        assert!(parallel.0.contains(status), "{status} in {}", parallel.0);
    }
}

#[test]
fn a_read_needs_no_database_and_a_write_waits_for_it() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).expect("root");
    std::fs::write(root.join("a.txt"), "first\n").expect("file");
    let settings = Settings::for_tests(&tmp.path().join("state"));
    let (session, database) = Session::open_database_later(&root, &settings).expect("open");
    let mut database = Some(database.expect("SQLite opens later"));
    std::thread::scope(|scope| {
        let reading = scope.spawn(|| session.read_file(Some("a.txt"), None, None, super::ReadAs::default()));
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !reading.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let read_alone = reading.is_finished();
        if !read_alone {
            // Let the stuck read end, so that the scope can, before failing.
            database.take().unwrap().finish().expect("the database opens");
        }
        assert!(read_alone, "the read waited for the database");
        let read = reading.join().unwrap().expect("read");
        assert!(serde_json::to_string(&read).unwrap().contains("first"));
        let writing = scope.spawn(|| session.write_file(Some("b.txt"), Some("second\n"), None, None));
        std::thread::sleep(std::time::Duration::from_millis(50));
        let waited = !writing.is_finished();
        database.take().unwrap().finish().expect("the database opens");
        assert!(waited, "the write, which journals, went on without the database");
        assert!(writing.join().unwrap().is_ok());
    });
    assert_eq!(std::fs::read(root.join("b.txt")).unwrap(), b"second\n");
}

/// The directory argument of list, find, search and info is read as every other path is: a
/// space or a line break at its edge is refused with the reason, never trimmed away silently.
#[test]
fn a_directory_argument_with_whitespace_or_a_control_character_at_an_edge_is_refused_not_trimmed() {
    let (t, s) = session();
    std::fs::create_dir(t.path().join("root/src")).unwrap();
    std::fs::write(t.path().join("root/src/a.txt"), "a\n").unwrap();
    for raw in [" src", "src ", "src\n", "\tsrc"] {
        let err = s.list_directory(Some(raw), None, false, true).unwrap_err().to_string();
        assert!(err.contains("whitespace") || err.contains("control character"), "{raw:?}: {err}");
        assert!(s.find_files(Some("*"), Some(raw), None).is_err(), "{raw:?}");
        assert!(s.get_file_info(Some(raw)).is_err(), "{raw:?}");
    }
    assert!(s.list_directory(Some("src"), None, false, true).is_ok());
    assert!(s.list_directory(Some("."), None, false, true).is_ok());
}
