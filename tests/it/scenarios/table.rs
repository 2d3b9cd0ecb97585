//! The table: which tool meets which fixture entry under which spelling, and the call (or
//! calls) each scenario makes.

use serde_json::{Value, json};

use super::expect::{ADDED, APPENDED, Form, Op, Tool, WRITTEN};
use super::fixture::{Places, Tree};
use super::model::{self, Meaning, SPELLINGS, Spelling};

/// The fixture entries a path can name: a label and the root-relative path.
pub const ENTRIES: &[(&str, &str)] = &[
    ("file", "a.txt"),
    ("nested_file", "dir/sub/b.txt"),
    ("dir", "dir"),
    ("nested_dir", "dir/sub"),
    ("empty_dir", "empty"),
    ("rel_file_link", "rel_file"),
    ("rel_dir_link", "rel_dir"),
    ("rel_empty_link", "rel_empty"),
    ("abs_file_link", "abs_file"),
    ("abs_dir_link", "abs_dir"),
    ("via_rel_dir_link", "rel_dir/c.txt"),
    ("via_abs_dir_link", "abs_dir/c.txt"),
    ("out_rel_link", "out_rel"),
    ("out_abs_link", "out_abs"),
    ("out_dir_link", "out_dir"),
    ("via_out_dir_link", "out_dir/inner.txt"),
    ("dangling_in_link", "dangling_in"),
    ("dangling_out_link", "dangling_out"),
    ("loop_link", "loop_a"),
    ("link_to_link", "chain"),
    ("nfc_file", "caf\u{e9}.md"),
    ("nfc_dir", "caf\u{e9}"),
    ("in_nfc_dir", "caf\u{e9}/menu.txt"),
    ("space", "my file.txt"),
    ("tilde", "~backup"),
    ("fifo", "fifo"),
    ("new", "new.txt"),
    ("new_nested", "newdir/deeper/new.txt"),
    ("new_in_nfc_dir", "caf\u{e9}/new.txt"),
    ("new_via_rel_dir_link", "rel_dir/new.txt"),
    ("new_via_abs_dir_link", "abs_dir/new.txt"),
    ("new_via_file", "a.txt/new.txt"),
];

/// The entries the image reader is tried on.
const MEDIA_ENTRIES: &[&str] = &["file", "dir", "out_rel_link", "dangling_in_link", "new"];

/// Entries an undo scenario first writes (by their plain path), then undoes by a spelling.
const UNDO_WRITE_ENTRIES: &[&str] = &[
    "file",
    "nested_file",
    "rel_file_link",
    "abs_file_link",
    "via_abs_dir_link",
    "nfc_file",
    "in_nfc_dir",
    "space",
    "tilde",
    "new",
];

/// Entries an undo scenario first deletes, then brings back by a spelling.
const UNDO_DELETE_ENTRIES: &[&str] = &[
    "file",
    "nested_file",
    "rel_file_link",
    "rel_dir_link",
    "abs_file_link",
    "abs_dir_link",
    "via_rel_dir_link",
    "dangling_in_link",
    "out_rel_link",
    "nfc_file",
    "space",
    "tilde",
];

/// One scenario: a tool, a fixture entry and a spelling of its path.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub tool: Tool,
    pub entry: &'static str,
    pub rel: &'static str,
    pub spelling: Spelling,
    pub raw: String,
    pub meaning: Meaning,
}

impl Scenario {
    pub fn label(&self) -> String {
        format!(
            "{} | {} ({}) | {} {:?}",
            self.tool.name(),
            self.entry,
            self.rel,
            self.spelling.name(),
            self.raw
        )
    }

    pub fn entry_is_link(&self) -> bool {
        self.entry.ends_with("_link") && !self.entry.starts_with("via_") && !self.entry.starts_with("new_")
    }
}

/// The spellings each (tool, entry) meets: every spelling for the tools at the heart of the
/// issue, and for the others the spellings a model sends most plus a rotating share of the
/// rest, so that across the table every tool meets every spelling.
fn spellings_for(tool: Tool, tool_index: usize, entry_index: usize) -> Vec<Spelling> {
    let full =
        matches!(tool, Tool::Write | Tool::Delete | Tool::MoveFrom | Tool::Patch(Form::Codex, Op::Update));
    if full {
        return SPELLINGS.to_vec();
    }
    let common = [
        Spelling::Rel,
        Spelling::AbsCanon,
        Spelling::Uri,
        Spelling::Backslash,
        Spelling::TrailingSlash,
        Spelling::Nfd,
    ];
    let rest: Vec<Spelling> = SPELLINGS.iter().copied().filter(|s| !common.contains(s)).collect();
    let mut out = common.to_vec();
    for k in 0..2 {
        out.push(rest[(tool_index * 5 + entry_index * 2 + k) % rest.len()]);
    }
    out
}

pub fn tools() -> Vec<Tool> {
    let mut tools = vec![
        Tool::Read,
        Tool::ReadMany,
        Tool::Info,
        Tool::Media,
        Tool::Outline,
        Tool::List,
        Tool::Find,
        Tool::Search,
        Tool::Check,
        Tool::Artifacts,
        Tool::Claim,
        Tool::Write,
        Tool::Append,
        Tool::Edit,
        Tool::Mkdir,
        Tool::CopyFrom,
        Tool::CopyTo,
        Tool::CopyOver,
        Tool::MoveFrom,
        Tool::MoveTo,
        Tool::MoveOver,
        Tool::Delete,
        Tool::UndoWrite,
        Tool::UndoDelete,
    ];
    for form in [Form::Codex, Form::Unified] {
        for op in [Op::Add, Op::Update, Op::Delete, Op::Move, Op::MoveTo] {
            tools.push(Tool::Patch(form, op));
        }
    }
    tools
}

/// Every scenario of the table.
pub fn scenarios(p: &Places) -> Vec<Scenario> {
    let mut out = Vec::new();
    for (ti, tool) in tools().into_iter().enumerate() {
        for (ei, &(entry, rel)) in ENTRIES.iter().enumerate() {
            let wanted = match tool {
                Tool::Media => MEDIA_ENTRIES.contains(&entry) || entry == "file",
                Tool::UndoWrite => UNDO_WRITE_ENTRIES.contains(&entry),
                Tool::UndoDelete => UNDO_DELETE_ENTRIES.contains(&entry),
                _ => true,
            };
            if !wanted {
                continue;
            }
            for spelling in spellings_for(tool, ti, ei) {
                // A line break inside a patch is a new patch line, not part of the name.
                if matches!(tool, Tool::Patch(..)) && spelling == Spelling::ControlNewline {
                    continue;
                }
                let Some(raw) = spelling.raw(rel, p) else { continue };
                out.push(Scenario { tool, entry, rel, spelling, raw, meaning: spelling.meaning(rel) });
            }
        }
    }
    // The image itself, and a link to it, in every spelling.
    for spelling in SPELLINGS {
        for (entry, rel) in [("image", "pic.png"), ("image_link", "rel_pic")] {
            if let Some(raw) = spelling.raw(rel, p) {
                out.push(Scenario {
                    tool: Tool::Media,
                    entry,
                    rel,
                    spelling: *spelling,
                    raw,
                    meaning: spelling.meaning(rel),
                });
            }
        }
    }
    out
}

/// The path a scenario's setup uses: the plain one.
pub fn plain(rel: &str) -> String {
    format!("./{rel}")
}

/// The calls a scenario makes: setup calls first, then the call judged.
pub fn calls(s: &Scenario, tree: &Tree, p: &Places) -> (Vec<(&'static str, Value)>, (&'static str, Value)) {
    let raw = s.raw.as_str();
    let mut setup = Vec::new();
    let call = match s.tool {
        Tool::Read => ("read_file", json!({"path": raw})),
        Tool::ReadMany => ("read_multiple_files", json!({"paths": [raw]})),
        Tool::Info => ("get_file_info", json!({"path": raw})),
        Tool::Media => ("read_media_file", json!({"path": raw})),
        Tool::Outline => ("outline", json!({"path": raw})),
        Tool::List => ("list_directory", json!({"path": raw})),
        Tool::Find => ("find_files", json!({"pattern": "*", "path": raw})),
        Tool::Search => ("search_files", json!({"pattern": "TOKEN", "path": raw})),
        Tool::Check => ("check_files", json!({"paths": [raw]})),
        Tool::Artifacts => ("list_artifacts", json!({"path": raw})),
        Tool::Claim => ("claim_files", json!({"paths": [raw]})),
        Tool::Write => ("write_file", json!({"path": raw, "content": WRITTEN})),
        Tool::Append => ("append_file", json!({"path": raw, "content": APPENDED})),
        Tool::Edit => ("edit_file", json!({"path": raw, "old_string": "TOKEN", "new_string": "EDITED"})),
        Tool::Mkdir => ("create_directory", json!({"path": raw})),
        Tool::CopyFrom => ("copy_file", json!({"from": raw, "to": "copied.txt"})),
        Tool::CopyTo => ("copy_file", json!({"from": "mover.txt", "to": raw})),
        Tool::CopyOver => ("copy_file", json!({"from": "mover.txt", "to": raw, "overwrite": true})),
        Tool::MoveFrom => ("move_file", json!({"from": raw, "to": "moved.txt"})),
        Tool::MoveTo => ("move_file", json!({"from": "mover.txt", "to": raw})),
        Tool::MoveOver => ("move_file", json!({"from": "mover.txt", "to": raw, "overwrite": true})),
        Tool::Delete => ("delete_file", json!({"path": raw})),
        Tool::UndoWrite => {
            // A link that was once deleted and brought back: its own path is in the journal.
            if s.entry_is_link() {
                setup.push(("delete_file", json!({"path": plain(s.rel)})));
                setup.push(("undo", json!({"path": plain(s.rel)})));
            }
            setup.push(("write_file", json!({"path": plain(s.rel), "content": "undo me TOKEN\n"})));
            ("undo", json!({"path": raw}))
        }
        Tool::UndoDelete => {
            setup.push(("delete_file", json!({"path": plain(s.rel)})));
            ("undo", json!({"path": raw}))
        }
        Tool::Patch(form, op) => ("apply_patch", json!({"patch": patch(form, op, s, tree, p)})),
    };
    (setup, call)
}

/// The patch for a scenario: its path spelled as the scenario says, its hunk made from the
/// file the path leads to (or from a line no file has, when it leads to none).
fn patch(form: Form, op: Op, s: &Scenario, tree: &Tree, p: &Places) -> String {
    let raw = s.raw.as_str();
    let old = match model::walk(tree, p, s.rel, true) {
        model::Place::Inside(q) => super::expect::line_of(tree, &q),
        _ => None,
    }
    .unwrap_or_else(|| "nothing TOKEN".into());
    let new = old.replace("TOKEN", "EDITED");
    let added = ADDED.trim_end();
    match form {
        Form::Codex => {
            let body = match op {
                Op::Add => format!("*** Add File: {raw}\n+{added}\n"),
                Op::Update => format!("*** Update File: {raw}\n@@\n-{old}\n+{new}\n"),
                Op::Delete => format!("*** Delete File: {raw}\n"),
                Op::Move => format!("*** Update File: {raw}\n*** Move to: moved.txt\n@@\n-{old}\n+{new}\n"),
                Op::MoveTo => format!("*** Update File: mover.txt\n*** Move to: {raw}\n@@\n mover TOKEN\n"),
            };
            format!("*** Begin Patch\n{body}*** End Patch\n")
        }
        Form::Unified => {
            let side = |prefix: &str| {
                if raw.starts_with('/') || raw.starts_with("file:") {
                    raw.to_string()
                } else {
                    format!("{prefix}/{raw}")
                }
            };
            let (a, b) = (side("a"), side("b"));
            match op {
                Op::Add => format!("--- /dev/null\n+++ {b}\n@@ -0,0 +1 @@\n+{added}\n"),
                Op::Update => format!("--- {a}\n+++ {b}\n@@ -1 +1 @@\n-{old}\n+{new}\n"),
                Op::Delete => format!("--- {a}\n+++ /dev/null\n@@ -1 +0,0 @@\n-{old}\n"),
                Op::Move => format!(
                    "diff --git {a} b/moved.txt\nsimilarity index 100%\nrename from {raw}\nrename to moved.txt\n"
                ),
                Op::MoveTo => format!(
                    "diff --git a/mover.txt {b}\nsimilarity index 100%\nrename from mover.txt\nrename to {raw}\n"
                ),
            }
        }
    }
}
