//! Path resolution: whatever a client sends as a path, a resolved path is relative, has no
//! `..`, and following its in-root symlinks never leaves the root or panics.
#![no_main]

use std::path::Component;
use std::sync::OnceLock;

use filewright::workspace::Workspace;
use libfuzzer_sys::fuzz_target;

struct Fixture {
    _dir: tempfile::TempDir,
    ws: Workspace,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        std::fs::write(root.join("src/a.txt"), "a").unwrap();
        std::os::unix::fs::symlink("src", root.join("in")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside"), root.join("out")).unwrap();
        std::os::unix::fs::symlink("..", root.join("up")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("abs")).unwrap();
        let ws = Workspace::open_root(&root).expect("open root");
        Fixture { _dir: dir, ws }
    })
}

fuzz_target!(|data: &[u8]| {
    let raw = String::from_utf8_lossy(data);
    let ws = &fixture().ws;
    if let Ok(path) = ws.resolve(&raw) {
        assert!(
            path.as_path().components().all(|c| matches!(c, Component::Normal(_))),
            "{raw:?} resolved to {path:?}"
        );
        if let Ok(target) = ws.follow(&path) {
            assert!(target.as_path().components().all(|c| matches!(c, Component::Normal(_))));
        }
        let _ = ws.stat(&path);
    }
});
