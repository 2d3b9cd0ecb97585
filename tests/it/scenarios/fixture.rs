//! The scenario fixture: a temporary base holding the root (reached by the server through a
//! symbolic link, so the root as given and the canonical root differ), a directory beside it
//! that no tool may reach, and the server's state directory. The tree is declared once
//! ([`declared`]); it is built from that declaration, read back whole ([`Fixture::snapshot`]),
//! and rebuilt after a call that changed it.

use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// One entry of the tree as the scenarios compare it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    File(Vec<u8>),
    Dir,
    /// A symbolic link and its text.
    Link(PathBuf),
    /// A named pipe (the fixture's only one), a socket, a device.
    Other,
}

/// The whole tree under the base, keyed by `/`-joined paths relative to the base
/// (`root/a.txt`, `outside/secret.txt`, `rootlink`), the state directory left out.
pub type Tree = BTreeMap<String, Node>;

/// The marker in every file outside the root: no result may ever show it.
pub const SECRET: &str = "SECRET-OUTSIDE";

/// Where things are: the base, the root as the server is given it (a link to the root), the
/// canonical root, and the outside directory.
#[derive(Debug, Clone)]
pub struct Places {
    pub base: PathBuf,
    pub given: PathBuf,
    pub canon: PathBuf,
    pub outside: PathBuf,
}

pub struct Fixture {
    _dir: tempfile::TempDir,
    pub places: Places,
    pub initial: Tree,
}

/// The 1x1 PNG the image scenarios read.
pub fn png() -> Vec<u8> {
    let mut bytes = crate::util::png(1, 1);
    bytes.extend_from_slice(b"IDATxxxxIEND");
    bytes
}

/// The tree every scenario starts from.
pub fn declared(p: &Places) -> Tree {
    let file = |s: &str| Node::File(s.as_bytes().to_vec());
    let link = |t: &Path| Node::Link(t.to_path_buf());
    let mut t = Tree::new();
    let mut put = |k: &str, n: Node| {
        t.insert(k.to_string(), n);
    };
    put("rootlink", link(&p.canon));
    put("root", Node::Dir);
    put("outside", Node::Dir);
    put("outside/secret.txt", file(&format!("{SECRET} TOKEN\n")));
    put("outside/odir", Node::Dir);
    put("outside/odir/inner.txt", file(&format!("{SECRET} inner TOKEN\n")));
    put("root/a.txt", file("alpha TOKEN\n"));
    put("root/mover.txt", file("mover TOKEN\n"));
    put("root/dir", Node::Dir);
    put("root/dir/c.txt", file("gamma TOKEN\n"));
    put("root/dir/sub", Node::Dir);
    put("root/dir/sub/b.txt", file("beta TOKEN\n"));
    put("root/empty", Node::Dir);
    put("root/rel_file", link(Path::new("a.txt")));
    put("root/rel_dir", link(Path::new("dir")));
    put("root/rel_empty", link(Path::new("empty")));
    put("root/abs_file", link(&p.canon.join("a.txt")));
    put("root/abs_dir", link(&p.given.join("dir")));
    put("root/out_rel", link(Path::new("../outside/secret.txt")));
    put("root/out_abs", link(&p.outside.join("secret.txt")));
    put("root/out_dir", link(Path::new("../outside/odir")));
    put("root/dangling_in", link(Path::new("missing.txt")));
    put("root/dangling_out", link(Path::new("../outside/missing.txt")));
    put("root/loop_a", link(Path::new("loop_b")));
    put("root/loop_b", link(Path::new("loop_a")));
    put("root/chain", link(Path::new("rel_file")));
    put("root/caf\u{e9}.md", file("cafe md TOKEN\n"));
    put("root/caf\u{e9}", Node::Dir);
    put("root/caf\u{e9}/menu.txt", file("menu TOKEN\n"));
    put("root/my file.txt", file("space TOKEN\n"));
    put("root/~backup", file("tilde TOKEN\n"));
    put("root/pic.png", Node::File(png()));
    put("root/rel_pic", link(Path::new("pic.png")));
    put("root/fifo", Node::Other);
    t
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let base = dir.path().canonicalize().expect("canonical temp dir");
        let places = Places {
            given: base.join("rootlink"),
            canon: base.join("root"),
            outside: base.join("outside"),
            base,
        };
        let initial = declared(&places);
        let fixture = Fixture { _dir: dir, places, initial };
        fixture.build(&fixture.initial);
        assert_eq!(fixture.snapshot(), fixture.initial, "the fixture is built as declared");
        fixture
    }

    /// Makes `tree` on disk under the base (the base's own entries must not exist yet, except
    /// `root` and `outside`, which are kept: the server holds the root open).
    fn build(&self, tree: &Tree) {
        for (key, node) in tree {
            let path = self.places.base.join(key);
            if path.symlink_metadata().is_ok() {
                continue;
            }
            match node {
                Node::Dir => std::fs::create_dir(&path).expect("fixture dir"),
                Node::File(bytes) => std::fs::write(&path, bytes).expect("fixture file"),
                Node::Link(text) => std::os::unix::fs::symlink(text, &path).expect("fixture link"),
                Node::Other => {
                    let made = std::process::Command::new("mkfifo").arg(&path).status().expect("mkfifo");
                    assert!(made.success(), "mkfifo {key}");
                }
            }
        }
    }

    /// Puts the tree back as declared, when it is not: everything under the root and the
    /// outside directory is removed and made again (the two directories themselves stay).
    pub fn reset(&self, now: &Tree) {
        if *now == self.initial {
            return;
        }
        for dir in [&self.places.canon, &self.places.outside] {
            for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
                let path = entry.path();
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    std::fs::remove_dir_all(&path).expect("remove fixture dir");
                } else {
                    std::fs::remove_file(&path).expect("remove fixture entry");
                }
            }
        }
        for (key, _) in now.iter().filter(|(k, _)| !k.contains('/') && !self.initial.contains_key(*k)) {
            let _ = std::fs::remove_file(self.places.base.join(key));
            let _ = std::fs::remove_dir_all(self.places.base.join(key));
        }
        self.build(&self.initial);
        assert_eq!(self.snapshot(), self.initial, "the fixture is reset");
    }

    /// Every entry under the base but the state directory: files with their bytes, links with
    /// their text (never followed), directories.
    pub fn snapshot(&self) -> Tree {
        let mut out = Tree::new();
        let mut stack = vec![self.places.base.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("read_dir").flatten() {
                let path = entry.path();
                let rel = path.strip_prefix(&self.places.base).unwrap();
                let key = String::from_utf8_lossy(rel.as_os_str().as_bytes()).into_owned();
                if key == "state" {
                    continue;
                }
                let ft = entry.file_type().expect("file type");
                let node = if ft.is_symlink() {
                    Node::Link(std::fs::read_link(&path).expect("read_link"))
                } else if ft.is_dir() {
                    stack.push(path.clone());
                    Node::Dir
                } else if ft.is_file() {
                    Node::File(std::fs::read(&path).expect("read"))
                } else {
                    Node::Other
                };
                out.insert(key, node);
            }
        }
        out
    }
}
