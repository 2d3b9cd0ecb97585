//! What each tool should do, by the rules, on the path a spelling means ([`expected`]), written
//! apart from the implementation over the model tree: reads, writes, appends and edits go
//! through links to their target and keep the link; delete and move act on the entry itself;
//! nothing outside the root is read or changed; a refusal changes nothing.

use super::fixture::{Node, Places, Tree};
use super::model::{Meaning, Place, node, walk};

/// The tools, each with the way it is called here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Read,
    ReadMany,
    Info,
    Media,
    Outline,
    List,
    Find,
    Search,
    Check,
    Artifacts,
    /// claim_files, then list_claims, release_files and list_claims again.
    Claim,
    Write,
    Append,
    Edit,
    Mkdir,
    /// copy_file from the path to `copied.txt`.
    CopyFrom,
    /// copy_file from `mover.txt` to the path.
    CopyTo,
    CopyOver,
    /// move_file from the path to `moved.txt`.
    MoveFrom,
    /// move_file from `mover.txt` to the path.
    MoveTo,
    MoveOver,
    Delete,
    /// write_file by the plain path, then undo by the spelling.
    UndoWrite,
    /// delete_file by the plain path, then undo by the spelling.
    UndoDelete,
    Patch(Form, Op),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Codex,
    Unified,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Update,
    Delete,
    /// Update with a move from the path to `moved.txt` (a unified diff: a pure rename).
    Move,
    /// A move from `mover.txt` to the path.
    MoveTo,
}

impl Tool {
    pub fn name(self) -> String {
        match self {
            Tool::Patch(f, o) => format!("patch_{f:?}_{o:?}").to_lowercase(),
            other => format!("{other:?}").to_lowercase(),
        }
    }

    /// Whether the call is meant to change the tree.
    pub fn mutates(self) -> bool {
        !matches!(
            self,
            Tool::Read
                | Tool::ReadMany
                | Tool::Info
                | Tool::Media
                | Tool::Outline
                | Tool::List
                | Tool::Find
                | Tool::Search
                | Tool::Check
                | Tool::Artifacts
                | Tool::Claim
        )
    }

    /// Whether the call may replace a symbolic link by something else (it removes or moves
    /// links, or moves a file over one).
    pub fn may_replace_links(self) -> bool {
        matches!(
            self,
            Tool::MoveFrom
                | Tool::MoveOver
                | Tool::Delete
                | Tool::UndoDelete
                | Tool::UndoWrite
                | Tool::Patch(_, Op::Delete | Op::Move | Op::MoveTo)
        )
    }
}

/// What a call should do.
#[derive(Debug, Clone)]
pub enum Expect {
    /// An error that says why (names the path, or this rule when given), and no change
    /// anywhere.
    Refused(Option<&'static str>),
    /// Success, and the tree after the call is exactly this.
    Changed(Tree),
    /// Success, no change, and the result shows these texts.
    Shows(Vec<String>),
    /// Success and no change.
    Quiet,
    /// Any of these.
    AnyOf(Vec<Expect>),
}

/// The first line of a fixture file, as the tools show it.
pub fn line_of(tree: &Tree, rel: &str) -> Option<String> {
    match node(tree, rel)? {
        Node::File(b) => Some(String::from_utf8_lossy(b).trim_end().to_string()),
        _ => None,
    }
}

fn with(tree: &Tree, edits: &[(&str, Option<Node>)]) -> Tree {
    let mut t = tree.clone();
    for (rel, n) in edits {
        let key = format!("root/{rel}");
        match n {
            Some(n) => {
                t.insert(key, n.clone());
            }
            None => {
                let below = format!("{key}/");
                t.retain(|k, _| *k != key && !k.starts_with(&below));
            }
        }
    }
    t
}

/// `tree` with `rel` made as `n`, its missing parents made as directories; None when a parent
/// is not a directory.
fn create(tree: &Tree, rel: &str, n: Node) -> Option<Tree> {
    let mut t = tree.clone();
    let parts: Vec<&str> = rel.split('/').collect();
    for i in 1..parts.len() {
        let key = format!("root/{}", parts[..i].join("/"));
        match t.get(&key) {
            None => {
                t.insert(key, Node::Dir);
            }
            Some(Node::Dir) => {}
            Some(_) => return None,
        }
    }
    t.insert(format!("root/{rel}"), n);
    Some(t)
}

/// `tree` with the entry at `from` (and what is below it) moved to `to`.
fn moved(tree: &Tree, from: &str, to: &str) -> Tree {
    let (key, below) = (format!("root/{from}"), format!("root/{from}/"));
    let mut t = Tree::new();
    for (k, n) in tree {
        if *k == key {
            t.insert(format!("root/{to}"), n.clone());
        } else if let Some(rest) = k.strip_prefix(&below) {
            t.insert(format!("root/{to}/{rest}"), n.clone());
        } else {
            t.insert(k.clone(), n.clone());
        }
    }
    t
}

fn is_empty_dir(tree: &Tree, rel: &str) -> bool {
    let below = format!("root/{rel}/");
    !tree.keys().any(|k| k.starts_with(&below))
}

/// The content a write puts, an append adds, a patch adds.
pub const WRITTEN: &str = "written TOKEN\n";
pub const APPENDED: &str = "appended\n";
pub const ADDED: &str = "added TOKEN\n";

/// The model's verdict for `tool` on the path a spelling means.
pub fn expected(tool: Tool, tree: &Tree, p: &Places, meaning: &Meaning) -> Expect {
    use Expect::*;
    #[allow(non_upper_case_globals)]
    const Refused: Expect = Expect::Refused(None);
    let (rel, dir) = match meaning {
        Meaning::Refused(rule) => return Expect::Refused(Some(rule)),
        Meaning::Path { rel, dir } => (rel.as_str(), *dir),
    };
    let target = walk(tree, p, rel, true);
    let entry = walk(tree, p, rel, false);
    let file_at = |place: &Place| match place {
        Place::Inside(q) => match node(tree, q) {
            Some(Node::File(b)) => Some((q.clone(), b.clone())),
            _ => None,
        },
        _ => None,
    };
    let dir_at = |place: &Place| match place {
        Place::Inside(q) => matches!(node(tree, q), Some(Node::Dir)) || q.is_empty(),
        _ => false,
    };
    let entry_rel = match &entry {
        Place::Inside(e) => Some(e.clone()),
        _ => None,
    };
    let entry_node = entry_rel.as_deref().and_then(|e| node(tree, e));
    let is_link = matches!(entry_node, Some(Node::Link(_)));
    // A link whose target is an existing file or directory inside the root.
    let good_link = is_link && matches!(&target, Place::Inside(q) if node(tree, q).is_some());
    let text = |b: &[u8]| String::from_utf8_lossy(b).trim_end().to_string();
    // A directory spelled `x/` is never a file to read or write.
    if dir
        && !matches!(
            tool,
            Tool::Mkdir
                | Tool::Info
                | Tool::List
                | Tool::Find
                | Tool::Search
                | Tool::Check
                | Tool::Artifacts
                | Tool::Claim
                | Tool::Delete
                | Tool::MoveFrom
        )
    {
        return Refused;
    }
    if dir && !dir_at(&target) && tool != Tool::Mkdir {
        return Refused;
    }
    match tool {
        Tool::Read | Tool::ReadMany => match file_at(&target) {
            Some((_, b)) => Shows(vec![text(&b)]),
            None => Refused,
        },
        Tool::Outline => match file_at(&target) {
            Some(_) => Quiet,
            None => Refused,
        },
        Tool::Media => match file_at(&target) {
            Some((_, b)) if b.starts_with(b"\x89PNG") => Quiet,
            _ => Refused,
        },
        Tool::Info => match (entry_node, file_at(&target).is_some() || dir_at(&target)) {
            (_, _) if dir => Quiet,
            (Some(Node::Link(_)), _) => AnyOf(vec![Quiet, Refused]),
            (Some(_), _) => Quiet,
            (None, _) => Refused,
        },
        Tool::List => match (&target, dir_at(&target), file_at(&target)) {
            (Place::Inside(q), true, _) => {
                let first = tree
                    .keys()
                    .filter_map(|k| k.strip_prefix(&format!("root/{q}/")))
                    .find(|rest| !rest.contains('/'))
                    .map(str::to_string);
                Shows(first.into_iter().collect())
            }
            (_, _, Some(_)) => AnyOf(vec![Refused, Quiet]),
            _ => Refused,
        },
        Tool::Find => match (dir_at(&target), file_at(&target)) {
            (true, _) => Quiet,
            (_, Some(_)) => AnyOf(vec![Refused, Quiet]),
            _ => Refused,
        },
        Tool::Search => match (dir_at(&target), file_at(&target)) {
            (true, _) => Quiet,
            (_, Some((_, b))) => Shows(vec![text(&b)]),
            _ => Refused,
        },
        Tool::Check | Tool::Artifacts => AnyOf(vec![Quiet, Refused]),
        Tool::Claim => match (&target, entry_node) {
            (Place::Inside(_), Some(Node::File(_)) | None) if !is_link => Quiet,
            _ => AnyOf(vec![Quiet, Refused]),
        },
        Tool::Write | Tool::Append | Tool::Edit | Tool::Patch(_, Op::Update) => {
            let change = |old: &[u8]| -> Vec<u8> {
                match tool {
                    Tool::Write => WRITTEN.as_bytes().to_vec(),
                    Tool::Append => [old, APPENDED.as_bytes()].concat(),
                    _ => String::from_utf8_lossy(old).replace("TOKEN", "EDITED").into_bytes(),
                }
            };
            match (&target, file_at(&target)) {
                (_, Some((q, b))) => Changed(with(tree, &[(&q, Some(Node::File(change(&b))))])),
                (Place::Inside(q), None)
                    if node(tree, q).is_none() && matches!(tool, Tool::Write | Tool::Append) =>
                {
                    let content = if tool == Tool::Write { WRITTEN } else { APPENDED };
                    match create(tree, q, Node::File(content.as_bytes().to_vec())) {
                        // Through a dangling link: the system would make its target; refusing is
                        // as good.
                        Some(t) if is_link => AnyOf(vec![Refused, Changed(t)]),
                        Some(t) => Changed(t),
                        None => Refused,
                    }
                }
                _ => Refused,
            }
        }
        Tool::Patch(_, Op::Add) => match (&target, node_at(tree, &target)) {
            (Place::Inside(q), None) => match create(tree, q, Node::File(ADDED.as_bytes().to_vec())) {
                Some(t) if is_link => AnyOf(vec![Refused, Changed(t)]),
                Some(t) => Changed(t),
                None => Refused,
            },
            // Codex: an Add onto an existing file replaces it (or, for now, is refused).
            (Place::Inside(q), Some(Node::File(_))) => {
                AnyOf(vec![Refused, Changed(with(tree, &[(q, Some(Node::File(ADDED.as_bytes().to_vec())))]))])
            }
            _ => Refused,
        },
        Tool::Mkdir => match (&target, node_at(tree, &target)) {
            (Place::Inside(_), Some(Node::Dir)) => Quiet,
            (Place::Inside(q), None) => match create(tree, q, Node::Dir) {
                Some(t) if is_link => AnyOf(vec![Refused, Changed(t)]),
                Some(t) => Changed(t),
                None => Refused,
            },
            _ => Refused,
        },
        Tool::CopyFrom => match file_at(&target) {
            Some((_, b)) => Changed(with(tree, &[("copied.txt", Some(Node::File(b)))])),
            None => Refused,
        },
        Tool::CopyTo | Tool::CopyOver | Tool::MoveTo | Tool::MoveOver | Tool::Patch(_, Op::MoveTo) => {
            let mover = node(tree, "mover.txt").unwrap().clone();
            let gone = |t: Tree| {
                if matches!(tool, Tool::CopyTo | Tool::CopyOver) {
                    t
                } else {
                    with(&t, &[("mover.txt", None)])
                }
            };
            let over = matches!(tool, Tool::CopyOver | Tool::MoveOver);
            let Some(e) = entry_rel else { return Refused };
            match (entry_node, tool) {
                (None, _) => match create(tree, &e, mover) {
                    Some(t) => Changed(gone(t)),
                    None => Refused,
                },
                (Some(Node::File(_)), _) if over => Changed(gone(with(tree, &[(&e, Some(mover))]))),
                // A patch's move onto an existing file replaces it (Codex), or is refused.
                (Some(Node::File(_)), Tool::Patch(..)) => {
                    AnyOf(vec![Refused, Changed(gone(with(tree, &[(&e, Some(mover))])))])
                }
                // A copy onto a link writes its target (when it may replace it); through a
                // dangling link it makes the target, as a write does, or is refused.
                (Some(Node::Link(_)), Tool::CopyOver | Tool::CopyTo) => match (file_at(&target), &target) {
                    (Some((q, _)), _) if over => {
                        AnyOf(vec![Refused, Changed(with(tree, &[(&q, Some(mover))]))])
                    }
                    (None, Place::Inside(q)) if node(tree, q).is_none() => match create(tree, q, mover) {
                        Some(t) => AnyOf(vec![Refused, Changed(t)]),
                        None => Refused,
                    },
                    _ => Refused,
                },
                (Some(Node::Link(_)), Tool::MoveOver) => {
                    let t = gone(with(tree, &[(&e, Some(mover))]));
                    if good_link { Changed(t) } else { AnyOf(vec![Refused, Changed(t)]) }
                }
                // A patch's move onto a link replaces the link itself (`mv`; Codex replaces
                // what is at a move's destination), or is refused; its target is untouched.
                (Some(Node::Link(_)), Tool::Patch(..)) => {
                    AnyOf(vec![Refused, Changed(gone(with(tree, &[(&e, Some(mover))])))])
                }
                _ => Refused,
            }
        }
        Tool::MoveFrom | Tool::Patch(_, Op::Move) => {
            let Some(e) = entry_rel else { return Refused };
            if dir {
                return AnyOf(vec![
                    Refused,
                    Changed(moved(
                        tree,
                        match &target {
                            Place::Inside(q) => q,
                            _ => &e,
                        },
                        "moved.txt",
                    )),
                ]);
            }
            let edited = |t: Tree| -> Tree {
                // A Codex move carries an edit of the content.
                if tool != Tool::Patch(Form::Codex, Op::Move) {
                    return t;
                }
                match file_at(&target) {
                    Some((q, b)) => {
                        let q = if q == e { "moved.txt".to_string() } else { q };
                        let new = String::from_utf8_lossy(&b).replace("TOKEN", "EDITED").into_bytes();
                        with(&t, &[(&q, Some(Node::File(new)))])
                    }
                    None => t,
                }
            };
            match entry_node {
                Some(Node::File(_)) => Changed(edited(moved(tree, &e, "moved.txt"))),
                Some(Node::Link(_)) if good_link && file_at(&target).is_some() => {
                    Changed(edited(moved(tree, &e, "moved.txt")))
                }
                Some(Node::Link(_)) if matches!(tool, Tool::MoveFrom) => {
                    AnyOf(vec![Refused, Changed(moved(tree, &e, "moved.txt"))])
                }
                Some(Node::Dir) if tool == Tool::MoveFrom => {
                    AnyOf(vec![Refused, Changed(moved(tree, &e, "moved.txt"))])
                }
                _ => Refused,
            }
        }
        Tool::Delete | Tool::Patch(_, Op::Delete) => {
            if dir {
                // `x/` names the directory x leads to: removing it when empty is fair, refusing too.
                return match &target {
                    Place::Inside(q) if is_empty_dir(tree, q) && tool == Tool::Delete => {
                        AnyOf(vec![Refused, Changed(with(tree, &[(q, None)]))])
                    }
                    _ => Refused,
                };
            }
            let Some(e) = entry_rel else { return Refused };
            let removed = Changed(with(tree, &[(&e, None)]));
            match entry_node {
                Some(Node::File(_)) => removed,
                Some(Node::Link(_)) if good_link && (tool == Tool::Delete || file_at(&target).is_some()) => {
                    removed
                }
                Some(Node::Link(_)) => AnyOf(vec![Refused, removed]),
                Some(Node::Dir) if is_empty_dir(tree, &e) && tool == Tool::Delete => removed,
                _ => Refused,
            }
        }
        // The runner computes undo's outcome: the tree before the plain call, or refused.
        Tool::UndoWrite | Tool::UndoDelete => Quiet,
    }
}

fn node_at<'a>(tree: &'a Tree, place: &Place) -> Option<&'a Node> {
    match place {
        Place::Inside(q) => node(tree, q),
        _ => None,
    }
}
