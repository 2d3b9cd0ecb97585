//! The descriptors a server keeps open stay under the bound the README states, however many
//! directories its calls touch: nothing is cached per directory or per file.

use serde_json::json;

use crate::util::{RawServer, Root};

/// The README's bound ("Descriptors"): what a server keeps open between calls.
const BOUND: usize = 32;

/// Descriptors open in process `pid` now.
fn open_descriptors(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map(|entries| entries.count()).unwrap_or(0)
}

#[test]
fn the_descriptors_kept_open_stay_under_the_bound_over_many_directories() {
    let root = Root::new();
    let mut server = RawServer::start(&root);
    let ok = |reply: &serde_json::Value| assert_eq!(reply["isError"], json!(false), "{reply}");
    for d in 0..300 {
        let path = format!("d{d}/sub/f.js");
        ok(&server.call("write_file", json!({"path": path, "content": "let a = 1;\n"})));
        ok(&server.call("append_file", json!({"path": path, "content": "let b = 2;\n"})));
        ok(&server.call("edit_file", json!({"path": path, "old_string": "a = 1", "new_string": "a = 3"})));
        ok(&server.call("read_file", json!({"path": path})));
        ok(&server.call("list_directory", json!({"path": format!("d{d}"), "depth": 2})));
        if d % 50 == 0 {
            ok(&server.call("find_files", json!({"pattern": "*.js"})));
            ok(&server.call("search_files", json!({"pattern": "let b"})));
            ok(&server.call("check_files", json!({})));
        }
    }
    ok(&server.call("move_file", json!({"from": "d0/sub/f.js", "to": "moved/f.js"})));
    ok(&server.call("copy_file", json!({"from": "d1/sub/f.js", "to": "copied/f.js"})));
    let open = open_descriptors(server.pid());
    assert!(open > 3, "the count could not be read: {open}");
    assert!(
        open <= BOUND,
        "{open} descriptors open after calls in 300 directories, over the bound of {BOUND}"
    );
    server.kill();
}
