//! A small model of the rules, written apart from the implementation: what each spelling of a
//! path means (known by construction, not by parsing it), where a root-relative path leads
//! through the fixture's links, and what each tool should do there.
//!
//! The rules modelled (README, "What a path means"): a spelling either means a root-relative
//! path (and whether it names a directory) or is refused; reads, writes, appends and edits go
//! through links to their target and keep the link; delete and move act on the entry itself;
//! nothing outside the root is read or changed.

use std::collections::VecDeque;
use std::path::Path;

use super::fixture::{Node, Places, Tree};

/// One way a model writes a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    Rel,
    Dot,
    AbsGiven,
    AbsCanon,
    Uri,
    UriLocalhost,
    Backslash,
    TrailingSlash,
    SlashDot,
    Nfd,
    LeadingSpace,
    TrailingSpace,
    Tilde,
    ControlBell,
    ControlNewline,
    Invisible,
    Drive,
    DotDotInside,
    DotDotAfterLink,
    DotDotOut,
    DoubleSlash,
    /// The `file://` URI of the same name in the directory beside the root.
    UriOutside,
    /// A `file://` URI under the root whose percent-encoded `..` climbs out of it.
    UriEscape,
    /// An absolute path under a sibling whose name starts with the root's (`root-evil`).
    AbsSibling,
}

pub const SPELLINGS: &[Spelling] = &[
    Spelling::Rel,
    Spelling::Dot,
    Spelling::AbsGiven,
    Spelling::AbsCanon,
    Spelling::Uri,
    Spelling::UriLocalhost,
    Spelling::Backslash,
    Spelling::TrailingSlash,
    Spelling::SlashDot,
    Spelling::Nfd,
    Spelling::LeadingSpace,
    Spelling::TrailingSpace,
    Spelling::Tilde,
    Spelling::ControlBell,
    Spelling::ControlNewline,
    Spelling::Invisible,
    Spelling::Drive,
    Spelling::DotDotInside,
    Spelling::DotDotAfterLink,
    Spelling::DotDotOut,
    Spelling::DoubleSlash,
    Spelling::UriOutside,
    Spelling::UriEscape,
    Spelling::AbsSibling,
];

/// What a spelling means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Meaning {
    /// The root-relative path, and whether the spelling names a directory (`x/`).
    Path { rel: String, dir: bool },
    /// Refused, and the refusal says this word.
    Refused(&'static str),
}

/// The NFD spelling of the fixture's only composed character.
pub fn nfd(s: &str) -> String {
    s.replace('\u{e9}', "e\u{301}")
}

impl Spelling {
    pub fn name(self) -> String {
        format!("{self:?}")
    }

    /// The raw argument for the root-relative `rel`, or None when this spelling says nothing
    /// new for it (NFD of an ASCII name).
    pub fn raw(self, rel: &str, p: &Places) -> Option<String> {
        let uri = |root: &Path| url::Url::from_file_path(root.join(rel)).unwrap().to_string();
        Some(match self {
            Spelling::Rel => rel.to_string(),
            Spelling::Dot => format!("./{rel}"),
            Spelling::AbsGiven => format!("{}/{rel}", p.given.display()),
            Spelling::AbsCanon => format!("{}/{rel}", p.canon.display()),
            Spelling::Uri => uri(&p.canon),
            Spelling::UriLocalhost => uri(&p.given).replacen("file://", "file://localhost", 1),
            Spelling::Backslash => format!(".\\{}", rel.replace('/', "\\")),
            Spelling::TrailingSlash => format!("{rel}/"),
            Spelling::SlashDot => format!("{rel}/."),
            Spelling::Nfd if rel.is_ascii() => return None,
            Spelling::Nfd => nfd(rel),
            Spelling::LeadingSpace => format!(" {rel}"),
            Spelling::TrailingSpace => format!("{rel} "),
            Spelling::Tilde => format!("~/{rel}"),
            Spelling::ControlBell => {
                let mut s = rel.to_string();
                s.insert(1, '\u{7}');
                s
            }
            Spelling::ControlNewline => format!("{rel}\n"),
            Spelling::Invisible => format!("{rel}\u{200b}"),
            Spelling::Drive => format!("C:\\{}", rel.replace('/', "\\")),
            Spelling::DotDotInside => format!("dir/sub/../../{rel}"),
            Spelling::DotDotAfterLink => format!("rel_dir/../{rel}"),
            Spelling::DotDotOut => format!("../root/{rel}"),
            Spelling::DoubleSlash => format!(".//{}", rel.replace('/', "//")),
            Spelling::UriOutside => uri(&p.outside),
            Spelling::UriEscape => {
                format!("{}/%2e%2e/outside/{rel}", url::Url::from_file_path(&p.canon).unwrap())
            }
            Spelling::AbsSibling => format!("{}-evil/{rel}", p.canon.display()),
        })
    }

    /// What the spelling of `rel` means, by construction.
    pub fn meaning(self, rel: &str) -> Meaning {
        let path = |dir| Meaning::Path { rel: rel.to_string(), dir };
        match self {
            Spelling::Rel if rel.starts_with('~') => Meaning::Refused("~"),
            Spelling::Rel
            | Spelling::Dot
            | Spelling::AbsGiven
            | Spelling::AbsCanon
            | Spelling::Uri
            | Spelling::UriLocalhost
            | Spelling::Backslash
            | Spelling::Nfd
            | Spelling::DotDotInside
            | Spelling::DoubleSlash => path(false),
            Spelling::TrailingSlash | Spelling::SlashDot => path(true),
            Spelling::LeadingSpace | Spelling::TrailingSpace => Meaning::Refused("whitespace"),
            Spelling::Tilde => Meaning::Refused("~"),
            Spelling::ControlBell | Spelling::ControlNewline => Meaning::Refused("control character"),
            Spelling::Invisible => Meaning::Refused("invisible"),
            Spelling::Drive => Meaning::Refused("drive letter"),
            Spelling::DotDotAfterLink => Meaning::Refused("symbolic link"),
            Spelling::DotDotOut | Spelling::UriOutside | Spelling::UriEscape | Spelling::AbsSibling => {
                Meaning::Refused("outside")
            }
        }
    }
}

/// Where a root-relative path leads in the model tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A root-relative path with no link on the way (it may not exist).
    Inside(String),
    Outside,
    Loop,
}

pub fn node<'a>(tree: &'a Tree, rel: &str) -> Option<&'a Node> {
    tree.get(&format!("root/{rel}"))
}

/// Follows `rel` through the links on its way, as the system does: a relative link from its
/// directory, an absolute one from `/` (inside only when under the root as given or as
/// canonical). The last component is followed only with `last`.
pub fn walk(tree: &Tree, p: &Places, rel: &str, last: bool) -> Place {
    let parts = |s: &str| s.split('/').filter(|c| !c.is_empty()).map(str::to_string).collect::<Vec<_>>();
    let mut pending: VecDeque<String> = parts(rel).into();
    let mut at: Vec<String> = Vec::new();
    let mut hops = 0;
    while let Some(name) = pending.pop_front() {
        match name.as_str() {
            "." => continue,
            ".." => {
                if at.pop().is_none() {
                    return Place::Outside;
                }
                continue;
            }
            _ => at.push(name),
        }
        let Some(Node::Link(text)) = node(tree, &at.join("/")) else { continue };
        if pending.is_empty() && !last {
            break;
        }
        hops += 1;
        if hops > 40 {
            return Place::Loop;
        }
        at.pop();
        let text = text.to_str().unwrap();
        let next = if text.starts_with('/') {
            let under = |root: &Path| {
                Path::new(text).strip_prefix(root).ok().map(|r| r.to_str().unwrap().to_string())
            };
            match under(&p.canon).or_else(|| under(&p.given)) {
                Some(r) => {
                    at.clear();
                    parts(&r)
                }
                None => return Place::Outside,
            }
        } else {
            parts(text)
        };
        for part in next.into_iter().rev() {
            pending.push_front(part);
        }
    }
    Place::Inside(at.join("/"))
}

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
