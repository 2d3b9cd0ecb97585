//! `read_multiple_files` over stdio: each file as read_file shows it, in the order asked, each
//! failure its own, and one bound on the whole result.

use serde_json::json;

use crate::util::{Root, Server};

#[tokio::test]
async fn each_file_is_shown_as_read_file_shows_it_in_the_order_asked() {
    let root = Root::new().file("b.py", "x = 1\ny = 2\n").file("a.txt", "alpha\n");
    let server = Server::spawn(&root).await;
    let alone = server.call("read_file", json!({"path": "b.py"})).await.ok();
    let reply = server.call("read_multiple_files", json!({"paths": ["b.py", "a.txt"]})).await.ok();
    let text = reply.text();
    let expected = format!("== b.py ==\n{}\n\n== a.txt ==\n1\talpha\n\n", alone.text());
    assert!(text.starts_with(&expected), "{text}");
    assert!(text.ends_with("(2 files of 2 read; 22 characters of lines)"), "{text}");
    let j = reply.json();
    assert_eq!(j["files"][0]["file"], *alone.json(), "the same structured read as read_file's");
    assert_eq!(j["files"][1]["file"]["sha256"], sha256(b"alpha\n"));
    assert_eq!((j["read"].as_u64(), j["failed"].as_u64(), j["chars"].as_u64()), (Some(2), Some(0), Some(22)));
    assert_eq!(j["not_shown"], json!([]));
    server.stop().await;
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn a_path_that_cannot_be_read_gets_its_own_error_inside_a_success() {
    let root = Root::new().file("ok.txt", "fine\n").file("d/x", "x").file("bin.dat", [0u8, 1, 2]);
    std::fs::write(root.outside().join("secret.txt"), "secret\n").unwrap();
    let outside = root.outside();
    let root = root.symlink("out", &outside);
    let server = Server::spawn(&root).await;
    let paths = ["missing.txt", "d", "bin.dat", "../outside/secret.txt", "out/secret.txt", "ok.txt"];
    let reply = server.call("read_multiple_files", json!({"paths": paths})).await.ok();
    let j = reply.json();
    assert_eq!((j["read"].as_u64(), j["failed"].as_u64()), (Some(1), Some(5)));
    let files = j["files"].as_array().unwrap();
    let shown: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(shown, paths, "one entry per path, in the order asked");
    for (file, why) in files.iter().zip([
        "missing.txt does not exist",
        "d is a directory",
        "bin.dat is not a text file",
        "outside the sandbox root",
        "outside the sandbox root",
    ]) {
        assert!(file["error"].as_str().unwrap().contains(why), "{file}");
        assert!(file.get("file").is_none(), "{file}");
    }
    assert_eq!(files[5]["file"]["content"], "1\tfine");
    let text = reply.text();
    assert!(text.contains("== missing.txt ==\nerror: missing.txt does not exist"), "{text}");
    assert!(text.contains("(1 file of 6 read, 5 could not be;"), "{text}");
    assert!(!text.contains("secret\n") && !text.contains("1\tsecret"), "nothing outside was read: {text}");
    server.stop().await;
}

#[tokio::test]
async fn the_call_fails_only_when_nothing_could_be_read() {
    let root = Root::new().file("d/x", "x");
    let server = Server::spawn(&root).await;
    let text =
        server.call("read_multiple_files", json!({"paths": ["nope.txt", "d", "/etc/passwd"]})).await.err();
    assert!(
        text.starts_with("none of the 3 files could be read:\n- nope.txt: nope.txt does not exist"),
        "{text}"
    );
    assert!(
        text.contains("\n- d: d is a directory")
            && text.contains("\n- /etc/passwd: \"/etc/passwd\" is outside"),
        "{text}"
    );
    assert!(text.ends_with("call again."), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn more_than_100_paths_or_none_is_an_error_that_says_so() {
    let root = Root::new().file("a.txt", "a\n");
    let server = Server::spawn(&root).await;
    let paths: Vec<String> = (0..101).map(|_| "a.txt".to_string()).collect();
    let text = server.call("read_multiple_files", json!({"paths": paths})).await.err();
    assert!(
        text.contains("101 paths were given, and one call reads at most 100; nothing was read"),
        "{text}"
    );
    let text = server.call("read_multiple_files", json!({"paths": []})).await.err();
    assert!(text.contains("name at least one file"), "{text}");
    let text = server.call("read_multiple_files", json!({})).await.err();
    assert!(text.contains("without `paths`"), "{text}");
    let reply = server.call("read_multiple_files", json!({"paths": &paths[..100]})).await.ok();
    assert_eq!(reply.json()["read"], 100, "100 paths are allowed");
    server.stop().await;
}

#[tokio::test]
async fn offset_and_limit_apply_to_each_file() {
    let text: String = (1..=10).map(|i| format!("row {i}\n")).collect();
    let root = Root::new().file("a.txt", &text).file("b.txt", &text).file("short.txt", "one\n");
    let server = Server::spawn(&root).await;
    let reply = server
        .call(
            "read_multiple_files",
            json!({"paths": ["a.txt", "b.txt", "short.txt"], "offset": -3, "limit": 2}),
        )
        .await
        .ok();
    let j = reply.json();
    for i in 0..2 {
        assert_eq!(j["files"][i]["file"]["content"], "8\trow 8\n9\trow 9");
        assert_eq!(j["files"][i]["file"]["next_offset"], 10);
    }
    assert_eq!(
        j["files"][2]["file"]["content"], "1\tone",
        "a negative offset past the start begins at line 1"
    );
    let reply =
        server.call("read_multiple_files", json!({"paths": ["a.txt", "short.txt"], "offset": 5})).await.ok();
    assert_eq!(reply.json()["files"][0]["file"]["start_line"], 5);
    assert!(reply.json()["files"][1]["error"].as_str().unwrap().contains("only 1 lines"), "{}", reply.text());
    server.stop().await;
}

/// 30 files of 200 lines of 99 characters (about 20,000 characters each numbered): the result
/// stops near 50,000, cuts the file at the bound at a line, says where to read on, and names
/// the files it did not read.
#[tokio::test]
async fn the_output_is_bounded_and_says_what_was_left_out_and_how_to_get_it() {
    let line = "y".repeat(99);
    let text: String = (0..200).map(|_| format!("{line}\n")).collect();
    let mut root = Root::new();
    let names: Vec<String> = (0..30).map(|i| format!("f{i:02}.txt")).collect();
    for name in &names {
        root = root.file(name, &text);
    }
    let server = Server::spawn(&root).await;
    let reply = server.call("read_multiple_files", json!({"paths": names})).await.ok();
    let j = reply.json();
    let chars = j["chars"].as_u64().unwrap();
    assert!((44_000..=50_000).contains(&chars), "{chars}");
    let files = j["files"].as_array().unwrap();
    assert_eq!(files.len(), 3, "two whole files and the one cut");
    assert!(files[..2].iter().all(|f| f["cut"] == false && f["file"]["more"] == false));
    let cut = &files[2];
    assert_eq!(cut["cut"], true);
    let end = cut["file"]["end_line"].as_u64().unwrap();
    assert_eq!(cut["file"]["next_offset"].as_u64(), Some(end + 1));
    assert!(cut["file"]["content"].as_str().unwrap().ends_with(&format!("{end}\t{line}")));
    let not_shown: Vec<&str> =
        j["not_shown"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert_eq!(not_shown, &names[3..]);
    let text = reply.text();
    assert!(text.len() <= 50_000, "{}", text.len());
    assert!(text.contains(&format!("more follows: read_file with offset {}]\n(cut here to keep this result within 50,000 characters)", end + 1)), "{}", &text[text.len() - 800..]);
    assert!(text.ends_with(&format!("(not read, to keep this result within 50,000 characters: {}. Read them with read_multiple_files {{paths: [those]}})", names[3..].join(", "))), "{}", &text[text.len() - 600..]);
    server.stop().await;
}
