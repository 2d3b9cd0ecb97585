//! Every escape attempt fails with "outside the sandbox root" (or an equally safe refusal) and
//! creates or changes nothing outside the root.

use serde_json::json;

use crate::util::{Root, Server};

async fn assert_refused_everywhere(server: &Server, path: &str) {
    for (tool, args) in [
        ("write_file", json!({"path": path, "content": "pwned\n"})),
        ("append_file", json!({"path": path, "content": "pwned\n"})),
        ("read_file", json!({"path": path})),
        ("read_multiple_files", json!({"paths": [path]})),
        ("get_file_info", json!({"path": path})),
        ("read_media_file", json!({"path": path})),
        ("create_directory", json!({"path": path})),
        ("copy_file", json!({"from": path, "to": "stolen.txt"})),
        ("copy_file", json!({"from": "in.txt", "to": path, "overwrite": true})),
    ] {
        let reply = server.call(tool, args.clone()).await;
        assert!(reply.is_error(), "{tool} {args} succeeded: {}", reply.text());
    }
}

#[tokio::test]
async fn escapes_fail_and_change_nothing_outside() {
    let root = Root::new().file("in.txt", "inside\n");
    std::fs::write(root.outside().join("secret.txt"), "secret\n").unwrap();
    let outside = root.outside();
    let root = root
        .symlink("out_dir", &outside)
        .symlink("out_file", outside.join("secret.txt"))
        .symlink("dangling", outside.join("created-by-escape.txt"))
        .symlink("rel_up", "../outside");
    let before = Root::snapshot(&root.outside());
    let server = Server::spawn(&root).await;
    let abs_outside = outside.join("secret.txt");
    let sibling_prefix = format!("{}-evil/x.txt", root.path().display());
    let cases = [
        "../outside/secret.txt".to_string(),
        "a/../../outside/x.txt".to_string(),
        abs_outside.display().to_string(),
        "/etc/passwd".to_string(),
        "//etc/passwd".to_string(),
        sibling_prefix,
        "out_dir/secret.txt".to_string(),
        "out_dir/new.txt".to_string(),
        "out_file".to_string(),
        "dangling".to_string(),
        "rel_up/secret.txt".to_string(),
        "/proc/self/root/etc/passwd".to_string(),
        "/proc/self/cwd/x.txt".to_string(),
    ];
    for case in &cases {
        assert_refused_everywhere(&server, case).await;
    }
    let text = server.call("read_file", json!({"path": "../outside/secret.txt"})).await.err();
    assert!(text.contains("outside the sandbox root"), "{text}");
    let text = server.call("read_file", json!({"path": "out_dir/secret.txt"})).await.err();
    assert!(text.contains("outside the sandbox root"), "{text}");
    assert_eq!(Root::snapshot(&root.outside()), before, "something changed outside the root");
    assert!(!root.exists("stolen.txt"), "nothing was copied in from outside");
    assert!(
        !root
            .path()
            .parent()
            .unwrap()
            .join(format!("{}-evil", root.path().file_name().unwrap().to_string_lossy()))
            .exists()
    );
    server.stop().await;
}

#[tokio::test]
async fn nul_bytes_in_a_path_are_refused() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let text = server.call("write_file", json!({"path": "a\u{0}b.txt", "content": "x"})).await.err();
    assert!(text.contains("NUL"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn absolute_paths_inside_the_root_are_accepted_and_names_stay_literal() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    let abs = root.path().join("sub/abs.txt");
    server.call("write_file", json!({"path": abs.to_str().unwrap(), "content": "ok\n"})).await.ok();
    assert_eq!(root.read("sub/abs.txt"), b"ok\n");
    // Percent signs and fullwidth dots are literal names; `~` is refused (see paths.rs).
    for name in ["%2e%2e/x.txt", "\u{ff0e}\u{ff0e}/x.txt"] {
        let reply = server.call("write_file", json!({"path": name, "content": "literal\n"})).await.ok();
        assert_eq!(reply.json()["path"], name);
        assert_eq!(root.read(name), b"literal\n");
    }
    server.stop().await;
}

#[tokio::test]
async fn symlinks_inside_the_root_are_followed_to_their_target() {
    let root = Root::new().file("real/target.txt", "one\n").symlink("link.txt", "real/target.txt");
    let server = Server::spawn(&root).await;
    server.call("append_file", json!({"path": "link.txt", "content": "two\n"})).await.ok();
    server.call("read_file", json!({"path": "link.txt"})).await.ok();
    assert_eq!(root.read("real/target.txt"), b"one\ntwo\n");
    assert!(std::fs::symlink_metadata(root.path().join("link.txt")).unwrap().file_type().is_symlink());
    server.stop().await;
}

/// A thread keeps swapping directory `d` for a symlink to the outside directory while the server
/// writes and appends through `d/`. Nothing may ever land outside.
#[tokio::test]
async fn parent_swapped_for_a_symlink_mid_call_never_escapes() {
    let root = Root::new();
    let dir = root.path().join("d");
    let outside = root.outside();
    std::fs::create_dir(&dir).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (stop, dir, outside) = (stop.clone(), dir.clone(), outside.clone());
        let parked = dir.with_file_name("parked");
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if std::fs::rename(&dir, &parked).is_ok() {
                    let _ = std::os::unix::fs::symlink(&outside, &dir);
                    std::thread::yield_now();
                    let _ = std::fs::remove_file(&dir);
                    let _ = std::fs::rename(&parked, &dir);
                    // A moment as a directory: without it, on a loaded 2-core machine the
                    // swapper could win every race and no call would ever find `d` whole.
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
            }
        })
    };
    let server = Server::spawn(&root).await;
    let mut landed = 0;
    for i in 0..300 {
        let (tool, content) = if i % 2 == 0 { ("write_file", "w\n") } else { ("append_file", "a\n") };
        // A call may fail while `d` is a symlink (that is the sandbox working); one that
        // succeeds must have written inside.
        if !server.call(tool, json!({"path": "d/f.txt", "content": content})).await.is_error() {
            landed += 1;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    let escaped: Vec<_> = std::fs::read_dir(&outside).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(escaped.is_empty(), "files appeared outside the root: {escaped:?}");
    // A server whose writes all fail would pass the check above: most calls find `d` a
    // directory and must succeed, and once the swapping stops a write lands inside.
    assert!(landed > 0, "no write or append succeeded during the race");
    server.call("write_file", json!({"path": "d/f.txt", "content": "final\n"})).await.ok();
    assert_eq!(root.read("d/f.txt"), b"final\n");
    server.stop().await;
}

/// The other tools that take paths refuse escapes too.
#[tokio::test]
async fn edit_list_check_and_artifacts_refuse_escapes() {
    let root = Root::new();
    std::fs::write(root.outside().join("secret.txt"), "secret\n").unwrap();
    let outside = root.outside();
    let root = root.symlink("out_dir", &outside).symlink("out_file", outside.join("secret.txt"));
    let before = Root::snapshot(&root.outside());
    let server = Server::spawn(&root).await;
    for path in ["../outside/secret.txt", "out_dir/secret.txt", "out_file", "/etc/passwd"] {
        let text = server
            .call("edit_file", json!({"path": path, "old_string": "secret", "new_string": "pwned"}))
            .await
            .err();
        assert!(text.contains("outside the sandbox root"), "edit_file {path}: {text}");
        let reply = server.call("check_files", json!({"paths": [path]})).await.ok();
        assert_ne!(reply.json()["files"][0]["status"], "complete", "check_files {path}: {}", reply.text());
        assert!(!reply.text().contains("secret\n"), "{}", reply.text());
    }
    for path in ["..", "out_dir", "/etc"] {
        let text = server.call("list_directory", json!({"path": path})).await.err();
        assert!(text.contains("outside the sandbox root"), "list_directory {path}: {text}");
    }
    let text = server.call("list_artifacts", json!({"path": "../outside/secret.txt"})).await.err();
    assert!(text.contains("outside the sandbox root"), "{text}");
    assert_eq!(Root::snapshot(&root.outside()), before);
    server.stop().await;
}

#[tokio::test]
async fn dotdot_after_a_symlink_out_is_refused_and_writes_neither_file() {
    // `outlink` points to the root's sibling `outside`; the root also has its own `outside/`.
    // Lexically `outlink/../outside/secret.txt` is the root's `outside/secret.txt`; the system
    // resolves it to the sibling's. Neither may be written.
    let root = Root::new().file("outside/secret.txt", "inside copy\n");
    std::fs::write(root.outside().join("secret.txt"), "outside original\n").unwrap();
    let outside = root.outside();
    let root = root.symlink("outlink", &outside);
    let server = Server::spawn(&root).await;
    for tool in ["write_file", "append_file"] {
        let text = server
            .call(tool, json!({"path": "outlink/../outside/secret.txt", "content": "overwritten\n"}))
            .await
            .err();
        assert!(text.contains("symbolic link outlink"), "{tool}: {text}");
    }
    assert_eq!(std::fs::read_to_string(root.outside().join("secret.txt")).unwrap(), "outside original\n");
    assert_eq!(root.read("outside/secret.txt"), b"inside copy\n");
    server.stop().await;
}
