//! A small model of the path rules, written apart from the implementation: what each spelling
//! of a path means (known by construction, not by parsing it), and where a root-relative path
//! leads through the fixture's links. What each tool should do there is in `expect`.
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
