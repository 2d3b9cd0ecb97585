//! Text in any encoding over stdio: files in UTF-16 (with a BOM) and in legacy encodings
//! detected from their content are read, edited, appended to, written and searched in their
//! own encoding, byte for byte; a character the encoding cannot hold changes nothing.
//!
//! The fixtures are real text in each encoding, made with the browsers' encoder
//! (`encoding_rs`); each assertion is on the exact bytes on disk.

use serde_json::{Value, json};

use crate::util::{Root, Server};

const JAPANESE: &str = "吾輩は猫である。名前はまだ無い。\r\nどこで生れたかとんと見当がつかぬ。\
    何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。\n";
const CHINESE: &str = "中华人民共和国是工人阶级领导的、以工农联盟为基础的人民民主专政的社会主义国家。\n\
    社会主义制度是中华人民共和国的根本制度。禁止任何组织或者个人破坏社会主义制度。\n";
const TRADITIONAL: &str = "中華民國基於三民主義，為民有民治民享之民主共和國。\n\
    中華民國之主權屬於國民全體。具有中華民國國籍者為中華民國國民。\n";
const KOREAN: &str = "대한민국은 민주공화국이다. 대한민국의 주권은 국민에게 있고, \
    모든 권력은 국민으로부터 나온다.\n대한민국의 국민이 되는 요건은 법률로 정한다.\n";
const RUSSIAN: &str = "Все люди рождаются свободными и равными в своем достоинстве и правах.\n\
    Они наделены разумом и совестью и должны поступать в отношении друг друга в духе братства.\n";
const FRENCH: &str = "Les élèves ont étudié la leçon à l'école; ça a été très intéressant.\r\n\
    Le professeur était fâché, mais la fenêtre du château restait ouverte.\r\n";
const GERMAN: &str = "Größere Änderungen müssen über die Straße geführt werden.\n\
    Die Brücke über den Fluss ist schön, und die Bäume blühen früh.\n";
const MIXED: &str = "Grüße aus Köln!\r\nこんにちは、世界。\r\nВсё хорошо 🎉\r\n";

/// One file of the fixtures: its name, the label it is encoded with, the name read_file
/// reports, its text, and an edit, a chunk to append and a new text in the same language.
struct Case {
    file: &'static str,
    label: &'static str,
    name: &'static str,
    text: &'static str,
    old: &'static str,
    new: &'static str,
    chunk: &'static str,
}

const CASES: &[Case] = &[
    Case {
        file: "ja_sjis.txt",
        label: "shift_jis",
        name: "Shift_JIS",
        text: JAPANESE,
        old: "猫",
        new: "犬",
        chunk: "吾輩はここで始めて人間というものを見た。\n",
    },
    Case {
        file: "ja_eucjp.txt",
        label: "euc-jp",
        name: "EUC-JP",
        text: JAPANESE,
        old: "名前",
        new: "名字",
        chunk: "しかもあとで聞くとそれは書生という人間中で一番獰悪な種族であったそうだ。\n",
    },
    Case {
        file: "zh_gbk.txt",
        label: "gbk",
        name: "GBK",
        text: CHINESE,
        old: "工人阶级",
        new: "农民阶级",
        chunk: "国家保障自然资源的合理利用，保护珍贵的动物和植物。\n",
    },
    Case {
        file: "zh_gb18030.txt",
        label: "gb18030",
        name: "gb18030",
        text: "中华人民共和国是工人阶级领导的、以工农联盟为基础的人民民主专政的社会主义国家。\n表情符号：😀。\n",
        old: "😀",
        new: "😎",
        chunk: "社会主义制度是中华人民共和国的根本制度。🎉\n",
    },
    Case {
        file: "zh_big5.txt",
        label: "big5",
        name: "Big5",
        text: TRADITIONAL,
        old: "國民全體",
        new: "全體國民",
        chunk: "中華民國領土，依其固有之疆域，非經國民大會之決議，不得變更之。\n",
    },
    Case {
        file: "ko.txt",
        label: "euc-kr",
        name: "EUC-KR",
        text: KOREAN,
        old: "민주공화국",
        new: "공화국",
        chunk: "국가는 법률이 정하는 바에 의하여 재외국민을 보호할 의무를 진다.\n",
    },
    Case {
        file: "ru.txt",
        label: "koi8-r",
        // chardetng names KOI8-R text by its superset, which encodes Russian alike.
        name: "KOI8-U",
        text: RUSSIAN,
        old: "свободными",
        new: "независимыми",
        chunk: "Каждый человек должен обладать всеми правами и всеми свободами.\n",
    },
    Case {
        file: "fr.txt",
        label: "windows-1252",
        name: "windows-1252",
        text: FRENCH,
        old: "château",
        new: "forêt enchantée",
        chunk: "Où est la bibliothèque? À côté du musée, près de l'hôpital.\r\n",
    },
    Case {
        file: "de.txt",
        label: "latin1",
        name: "windows-1252",
        text: GERMAN,
        old: "Brücke",
        new: "Fähre",
        chunk: "Übermorgen fahren wir nach Österreich, über die Grenze.\n",
    },
    Case {
        file: "le.txt",
        label: "utf-16le",
        name: "UTF-16LE",
        text: MIXED,
        old: "Köln",
        new: "München",
        chunk: "Ünïcödé 追加 🚀\r\n",
    },
    Case {
        file: "be.txt",
        label: "utf-16be",
        name: "UTF-16BE",
        text: MIXED,
        old: "世界",
        new: "皆さん",
        chunk: "Ещё строка ✓\r\n",
    },
];

/// `text` in the encoding `label` names, character for character (UTF-16 without a BOM).
fn encoded(label: &str, text: &str) -> Vec<u8> {
    match label {
        "utf-16le" => text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        "utf-16be" => text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
        _ => {
            let encoding = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
            let (bytes, _, unmappable) = encoding.encode(text);
            assert!(!unmappable, "{label} cannot hold {text:?}");
            bytes.into_owned()
        }
    }
}

/// The BOM a whole file in `label` starts with.
fn bom(label: &str) -> &'static [u8] {
    match label {
        "utf-16le" => b"\xFF\xFE",
        "utf-16be" => b"\xFE\xFF",
        _ => b"",
    }
}

/// The bytes of a whole file holding `text` in `label`.
fn file_bytes(label: &str, text: &str) -> Vec<u8> {
    [bom(label), &encoded(label, text)].concat()
}

fn root_with_every_case() -> Root {
    CASES.iter().fold(Root::new(), |root, case| root.file(case.file, file_bytes(case.label, case.text)))
}

fn sha256(bytes: &[u8]) -> String {
    filewright::files::sha256_hex(bytes)
}

/// The journal rows of `path`.
async fn journaled(server: &Server, path: &str) -> usize {
    let reply = server.call("list_artifacts", json!({"path": path})).await.ok();
    reply.json()["artifacts"].as_array().map_or(0, Vec::len)
}

#[test]
fn the_fixtures_are_the_bytes_their_encodings_spell() {
    // A few characters checked against the published tables, so that the fixtures do not
    // rest on the encoder alone.
    assert_eq!(encoded("shift_jis", "猫"), b"\x94\x4c");
    assert_eq!(encoded("euc-jp", "猫"), b"\xC7\xAD");
    assert_eq!(encoded("gbk", "中"), b"\xD6\xD0");
    assert_eq!(encoded("big5", "中"), b"\xA4\xA4");
    assert_eq!(encoded("euc-kr", "한"), b"\xC7\xD1");
    assert_eq!(encoded("koi8-r", "Все"), b"\xF7\xD3\xC5");
    assert_eq!(encoded("windows-1252", "é€"), b"\xE9\x80");
    assert_eq!(file_bytes("utf-16le", "é\r\n"), b"\xFF\xFE\xE9\x00\x0D\x00\x0A\x00");
    assert_eq!(file_bytes("utf-16be", "é"), b"\xFE\xFF\x00\xE9");
}

#[tokio::test]
async fn read_file_shows_the_decoded_text_and_names_the_encoding_of_each_file() {
    let root = root_with_every_case();
    let server = Server::spawn(&root).await;
    for case in CASES {
        let reply = server.call("read_file", json!({"path": case.file})).await.ok();
        let (text, json) = (reply.text(), reply.json());
        let first = case.text.lines().next().unwrap().trim_end_matches('\r');
        let bom = if case.label.starts_with("utf-16") { "\u{feff}" } else { "" };
        assert!(text.starts_with(&format!("1\t{bom}{first}\n")), "{}: {text}", case.file);
        assert_eq!(json["encoding"], case.name, "{}: {json}", case.file);
        assert_eq!(json["bom"], !bom.is_empty(), "{}", case.file);
        let bytes = root.read(case.file);
        assert_eq!(json["total_bytes"], bytes.len(), "{}: sizes are the bytes on disk", case.file);
        assert_eq!(json["sha256"], sha256(&bytes), "{}", case.file);
        assert_eq!(json["total_lines"], case.text.lines().count(), "{}", case.file);
        let named = if bom.is_empty() {
            format!(", encoding {}", case.name)
        } else {
            format!(", encoding {} with a BOM", case.name)
        };
        assert!(text.contains(&named), "{}: the text names the encoding: {text}", case.file);
    }
    // Plain UTF-8 is not remarked on.
    let root = Root::new().file("u.txt", "café\n");
    let server = Server::spawn(&root).await;
    let reply = server.call("read_file", json!({"path": "u.txt"})).await.ok();
    assert_eq!(reply.json()["encoding"], "UTF-8");
    assert!(!reply.text().contains("encoding"), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn edit_file_changes_only_the_bytes_of_the_edited_text_in_each_encoding() {
    let root = root_with_every_case();
    let server = Server::spawn(&root).await;
    for case in CASES {
        let before = root.read(case.file);
        let reply = server
            .call("edit_file", json!({"path": case.file, "old_string": case.old, "new_string": case.new}))
            .await
            .ok();
        // The bytes before the edited text and after it are the file's own; only the edited
        // text is new, in the file's encoding.
        let start = bom(case.label).len()
            + encoded(case.label, &case.text[..case.text.find(case.old).unwrap()]).len();
        let end = start + encoded(case.label, case.old).len();
        let expected = [&before[..start], &encoded(case.label, case.new), &before[end..]].concat();
        let after = root.read(case.file);
        assert_eq!(after, expected, "{}", case.file);
        assert_eq!(
            after,
            file_bytes(case.label, &case.text.replacen(case.old, case.new, 1)),
            "{}",
            case.file
        );
        let json = reply.json();
        assert_eq!(json["encoding"], case.name, "{}: {json}", case.file);
        assert_eq!(json["size"], after.len(), "{}", case.file);
        assert_eq!(json["sha256"], sha256(&after), "{}", case.file);
        let line = case.text.lines().find(|l| l.contains(case.old)).unwrap().trim_end_matches('\r');
        let diff = reply.text();
        assert!(
            diff.contains(line) && diff.contains(&line.replacen(case.old, case.new, 1)),
            "{}: the diff is of the decoded text: {diff}",
            case.file
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn append_file_adds_the_chunk_in_the_files_encoding_without_a_second_bom() {
    let root = root_with_every_case();
    let server = Server::spawn(&root).await;
    for case in CASES {
        let before = root.read(case.file);
        let reply = server
            .call(
                "append_file",
                json!({"path": case.file, "content": case.chunk, "expected_size": before.len()}),
            )
            .await
            .ok();
        let after = root.read(case.file);
        assert_eq!(after, [&before[..], &encoded(case.label, case.chunk)].concat(), "{}", case.file);
        let json = reply.json();
        assert_eq!(json["encoding"], case.name, "{}: {json}", case.file);
        assert_eq!(json["size"], after.len(), "{}", case.file);
        assert_eq!(json["appended"], after.len() - before.len(), "{}", case.file);
        assert_eq!(json["sha256"], sha256(&after), "{}", case.file);
        assert_eq!(json["lines"], case.text.lines().count() + 1, "{}", case.file);
        // Read back: the chunk is the last line, decoded.
        let reply = server.call("read_file", json!({"path": case.file, "offset": -1})).await.ok();
        let last = case.chunk.trim_end_matches('\n').trim_end_matches('\r');
        assert!(reply.text().contains(&format!("\t{last}\n")), "{}: {}", case.file, reply.text());
    }
    server.stop().await;
}

#[tokio::test]
async fn a_retried_append_is_recognised_on_the_encoded_bytes() {
    // A chunk of 200+ bytes on disk (100 characters of Shift_JIS), sent twice.
    let chunk: String = std::iter::repeat_n("吾輩は猫である。", 13).collect::<String>() + "\n";
    let root = Root::new().file("a.txt", encoded("shift_jis", JAPANESE));
    let server = Server::spawn(&root).await;
    server.call("append_file", json!({"path": "a.txt", "content": chunk})).await.ok();
    let once = root.read("a.txt");
    assert_eq!(once, [encoded("shift_jis", JAPANESE), encoded("shift_jis", &chunk)].concat());
    let reply = server.call("append_file", json!({"path": "a.txt", "content": chunk})).await.ok();
    assert_eq!(reply.json()["duplicate_skipped"], true, "{}", reply.text());
    assert_eq!(root.read("a.txt"), once);
    server.stop().await;
}

#[tokio::test]
async fn write_file_replacing_a_file_keeps_its_encoding_and_bom() {
    let root = root_with_every_case();
    let server = Server::spawn(&root).await;
    for case in CASES {
        let new_text = format!("{}{}", case.chunk, case.text);
        let reply = server.call("write_file", json!({"path": case.file, "content": new_text})).await.ok();
        let after = root.read(case.file);
        assert_eq!(after, file_bytes(case.label, &new_text), "{}", case.file);
        let json = reply.json();
        assert_eq!(json["encoding"], case.name, "{}: {json}", case.file);
        assert_eq!(json["size"], after.len(), "{}", case.file);
        assert_eq!(json["sha256"], sha256(&after), "{}", case.file);
    }
    // A UTF-8 file with a BOM keeps it, as the others keep theirs.
    let root = Root::new().file("b.txt", "\u{feff}old\n");
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "b.txt", "content": "neu: äö\n"})).await.ok();
    assert_eq!(root.read("b.txt"), "\u{feff}neu: äö\n".as_bytes());
    server.stop().await;
}

#[tokio::test]
async fn write_file_writes_in_the_encoding_it_names_and_refuses_an_unknown_one() {
    let root = Root::new().file("old.txt", encoded("shift_jis", JAPANESE));
    let server = Server::spawn(&root).await;
    for (file, label, name, text) in [
        ("sjis.txt", "Shift_JIS", "Shift_JIS", JAPANESE),
        ("koi8.txt", "koi8-r", "KOI8-R", RUSSIAN),
        ("w16.txt", "utf-16le", "UTF-16LE", MIXED),
        ("b16.txt", "UTF-16BE", "UTF-16BE", MIXED),
        ("latin.txt", "latin1", "windows-1252", FRENCH),
    ] {
        let reply =
            server.call("write_file", json!({"path": file, "content": text, "encoding": label})).await.ok();
        assert_eq!(root.read(file), file_bytes(&label.to_ascii_lowercase(), text), "{file}");
        assert_eq!(reply.json()["encoding"], name, "{file}");
        assert_eq!(reply.json()["created"], true, "{file}");
    }
    // Converting a file: named, the encoding replaces the file's own.
    let reply = server
        .call("write_file", json!({"path": "old.txt", "content": JAPANESE, "encoding": "utf-8"}))
        .await
        .ok();
    assert_eq!(root.read("old.txt"), JAPANESE.as_bytes());
    assert_eq!(reply.json()["encoding"], "UTF-8");
    // An unknown label: an error that lists known ones, and nothing written.
    let text = server
        .call("write_file", json!({"path": "x.txt", "content": "x", "encoding": "klingon"}))
        .await
        .err();
    assert!(
        text.contains("\"klingon\"") && text.contains("\"shift_jis\"") && text.contains("\"utf-16le\""),
        "{text}"
    );
    assert!(!root.exists("x.txt"));
    server.stop().await;
}

#[tokio::test]
async fn an_unrepresentable_character_is_an_error_naming_it_and_its_line_and_nothing_is_written() {
    let sjis = encoded("shift_jis", JAPANESE);
    let koi8 = encoded("koi8-r", RUSSIAN);
    let root = Root::new().file("ja.txt", &sjis).file("ru.txt", &koi8);
    let server = Server::spawn(&root).await;

    // edit_file: the euro sign on line 2 of a Shift_JIS file.
    let text = server
        .call("edit_file", json!({"path": "ja.txt", "old_string": "見当", "new_string": "€"}))
        .await
        .err();
    assert!(text.contains("'€' (U+20AC) on line 2") && text.contains("Shift_JIS"), "{text}");
    assert!(
        text.contains("write_file {encoding: \"utf-8\"}") && text.contains("nothing was written"),
        "{text}"
    );
    // append_file: line 3 of the file as it would have been.
    let text =
        server.call("append_file", json!({"path": "ja.txt", "content": "値段は€5です。\n"})).await.err();
    assert!(text.contains("'€' (U+20AC) on line 3"), "{text}");
    // write_file replacing the file, without naming an encoding: it keeps Shift_JIS.
    let text = server.call("write_file", json!({"path": "ja.txt", "content": "猫\n€\n"})).await.err();
    assert!(text.contains("'€' (U+20AC) on line 2") && text.contains("Shift_JIS"), "{text}");
    assert_eq!(root.read("ja.txt"), sjis, "Shift_JIS file unchanged");

    // KOI8: Japanese in a Russian file.
    let text = server
        .call("edit_file", json!({"path": "ru.txt", "old_string": "братства", "new_string": "братства 猫"}))
        .await
        .err();
    assert!(text.contains("'猫' (U+732B) on line 2") && text.contains("KOI8-U"), "{text}");
    let text = server.call("append_file", json!({"path": "ru.txt", "content": "ok\n😀\n"})).await.err();
    assert!(text.contains("'😀' (U+1F600) on line 4"), "{text}");
    assert_eq!(root.read("ru.txt"), koi8, "KOI8 file unchanged");

    // write_file naming an encoding for a new file: not created.
    let text = server
        .call("write_file", json!({"path": "new.txt", "content": "Привет\n日本\n", "encoding": "koi8-r"}))
        .await
        .err();
    assert!(text.contains("'日' (U+65E5) on line 2") && text.contains("KOI8-R"), "{text}");
    assert!(!root.exists("new.txt"));
    for path in ["ja.txt", "ru.txt", "new.txt"] {
        assert_eq!(journaled(&server, path).await, 0, "{path}: nothing journaled");
    }
    server.stop().await;
}

#[tokio::test]
async fn search_files_finds_text_in_shift_jis_and_utf16_files() {
    let root = Root::new()
        .file("ja.txt", encoded("shift_jis", JAPANESE))
        .file("le.txt", file_bytes("utf-16le", MIXED))
        .file("be.txt", file_bytes("utf-16be", MIXED))
        .file("bin.dat", "\0\u{1} Grüße binary");
    let server = Server::spawn(&root).await;
    let reply = server.call("search_files", json!({"pattern": "見当"})).await.ok();
    let text = reply.text();
    assert!(text.contains("ja.txt:2: どこで生れたかとんと見当がつかぬ。"), "{text}");
    assert_eq!(reply.json()["matches"], 1, "{text}");
    let reply = server.call("search_files", json!({"pattern": "こんにちは", "context": 1})).await.ok();
    let text = reply.text();
    for line in [
        "be.txt-1- Grüße aus Köln!",
        "be.txt:2: こんにちは、世界。",
        "le.txt:2: こんにちは、世界。",
        "le.txt-3- Всё хорошо 🎉",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    assert_eq!(reply.json()["binary"], 1, "the file with NUL bytes and no BOM is still binary");
    // `^` matches after a BOM, on the first line's text.
    let reply = server.call("search_files", json!({"pattern": "^Grüße", "regex": true})).await.ok();
    assert_eq!(reply.json()["matches"], 2, "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn binary_files_stay_refused_with_the_same_error() {
    let root = Root::new().file("img.bin", [0x89u8, b'P', b'N', b'G', 0, 1, 2]);
    let server = Server::spawn(&root).await;
    let text = server.call("read_file", json!({"path": "img.bin"})).await.err();
    assert!(text.contains("img.bin is not a text file (NUL byte at offset 4)"), "{text}");
    let text = server
        .call("edit_file", json!({"path": "img.bin", "old_string": "PNG", "new_string": "GIF"}))
        .await
        .err();
    assert!(text.contains("not a text file (NUL byte at offset 4)"), "{text}");
    assert_eq!(root.read("img.bin"), [0x89u8, b'P', b'N', b'G', 0, 1, 2]);
    server.stop().await;
}

#[tokio::test]
async fn a_file_whose_bytes_do_not_convert_back_is_read_with_a_note_but_not_changed() {
    // Shift_JIS with a character from the NEC-selected IBM extensions: the encoder spells it
    // elsewhere, so the text does not encode back to these bytes.
    let bytes = [encoded("shift_jis", JAPANESE), b"\xED\x40\n".to_vec()].concat();
    let root = Root::new().file("odd.txt", &bytes);
    let server = Server::spawn(&root).await;
    let reply = server.call("read_file", json!({"path": "odd.txt"})).await.ok();
    assert_eq!(reply.json()["encoding"], "Shift_JIS");
    let offset = encoded("shift_jis", JAPANESE).len();
    assert!(reply.json()["encoding_problem"].as_str().unwrap().contains(&format!("offset {offset}")));
    assert!(reply.text().contains("(note: the bytes from offset"), "{}", reply.text());
    let text = server
        .call("edit_file", json!({"path": "odd.txt", "old_string": "猫", "new_string": "犬"}))
        .await
        .err();
    assert!(
        text.contains("looks like Shift_JIS text") && text.contains(&format!("offset {offset}")),
        "{text}"
    );
    let text = server.call("append_file", json!({"path": "odd.txt", "content": "犬\n"})).await.err();
    assert!(text.contains("nothing was written"), "{text}");
    let text = server.call("write_file", json!({"path": "odd.txt", "content": "犬\n"})).await.err();
    assert!(text.contains("encoding: \"shift_jis\""), "{text}");
    assert_eq!(root.read("odd.txt"), bytes);
    // Named, the encoding is written: the file is replaced whole.
    server
        .call("write_file", json!({"path": "odd.txt", "content": "犬\n", "encoding": "shift_jis"}))
        .await
        .ok();
    assert_eq!(root.read("odd.txt"), encoded("shift_jis", "犬\n"));
    server.stop().await;
}

#[tokio::test]
async fn the_syntax_check_runs_on_the_decoded_text() {
    let source = "# 日本語のコメント：猫の名前を表示する\r\ndef name():\r\n    return \"吾輩は猫である。名前はまだ無い。\"\r\n";
    let root = Root::new()
        .file("cat.py", encoded("shift_jis", source))
        .file("cat16.py", file_bytes("utf-16le", source));
    let server = Server::spawn(&root).await;
    for file in ["cat.py", "cat16.py"] {
        let reply = server
            .call("edit_file", json!({"path": file, "old_string": "def name():", "new_string": "def name(:"}))
            .await
            .ok();
        let syntax: &Value = &reply.json()["syntax"];
        assert_eq!(syntax["status"], "errors", "{file}: {syntax}");
        assert_eq!(syntax["problems"][0]["line"], 2, "{file}: {syntax}");
        server
            .call("edit_file", json!({"path": file, "old_string": "def name(:", "new_string": "def name():"}))
            .await
            .ok();
        let reply = server.call("check_files", json!({"paths": [file]})).await.ok();
        assert_eq!(reply.json()["files"][0]["status"], "complete", "{file}: {}", reply.text());
        assert_eq!(reply.json()["files"][0]["lines"], 3, "{file}: {}", reply.text());
        let reply = server.call("outline", json!({"path": file})).await.ok();
        assert!(reply.text().contains("def name"), "{file}: {}", reply.text());
    }
    server.stop().await;
}
