//! Line anchors: a line number plus a short hash of that line's text (`12#kq7`), shown by
//! `read_file {anchors: true}` and accepted by `edit_file`'s line edits.
//!
//! The number says where the line is; the hash proves the caller still knows what is there.
//! An edit whose hash no longer matches its line is refused, so an agent that read the file
//! before someone else changed it cannot overwrite the wrong lines. The hash depends on the
//! line's text alone (without its line ending), so it is stable across calls, processes and
//! versions of filewright, and equal lines have equal hashes (the number tells them apart).

use std::fmt;

/// Characters of the hash: no `0/o`, `1/l`, so that a model copying it cannot confuse them.
const ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";

/// Length of a line hash in characters (32^3 = 32,768 values).
pub const HASH_CHARS: usize = 3;

/// The anchor hash of one line's text (without its line ending or a BOM): FNV-1a, 64-bit, folded into
/// [`HASH_CHARS`] characters of `ALPHABET`. FNV is written out here so that the hash can
/// never change under a dependency update.
pub fn line_hash(line: &str) -> String {
    // A BOM is not part of the first line's text: read_file shows it, edit_file matches after it.
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in line.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // Fold the high bits in: FNV's low bits alone mix poorly for short inputs.
    hash ^= hash >> 32;
    (0..HASH_CHARS).map(|i| ALPHABET[((hash >> (5 * i)) & 31) as usize] as char).collect()
}

/// A parsed anchor: `<line>#<hash>`, or the line number alone where the tool allows it
/// (`after: "0"` inserts at the top).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    /// 1-based line number (0 only for "before the first line").
    pub line: usize,
    /// The hash the caller saw; None for `0`.
    pub hash: Option<String>,
    /// In a notebook, the cell (0-based index) whose source the line is in: `3:12#kq7`, as
    /// read_file shows a notebook's lines with anchors. None in any other file.
    pub cell: Option<usize>,
}

impl Anchor {
    /// Parses `12#kq7` (or `0`). Whitespace around it and a trailing tab or text (as copied
    /// from a read result, `12#kq7\tlet x`) are ignored.
    pub fn parse(raw: &str) -> Option<Anchor> {
        let raw = raw.trim();
        let raw = raw.split('\t').next().unwrap_or(raw).trim();
        let (cell, raw) = match raw.split_once(':') {
            Some((cell, rest)) => (Some(cell.trim().parse::<usize>().ok()?), rest.trim()),
            None => (None, raw),
        };
        match raw.split_once('#') {
            Some((line, hash)) => {
                let line: usize = line.trim().parse().ok()?;
                let hash = hash.trim();
                let valid =
                    line > 0 && hash.len() == HASH_CHARS && hash.bytes().all(|b| ALPHABET.contains(&b));
                valid.then(|| Anchor { line, hash: Some(hash.to_owned()), cell })
            }
            None if raw == "0" => Some(Anchor { line: 0, hash: None, cell }),
            None => None,
        }
    }
}

impl fmt::Display for Anchor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(cell) = self.cell {
            write!(f, "{cell}:")?;
        }
        match &self.hash {
            Some(hash) => write!(f, "{}#{hash}", self.line),
            None => write!(f, "{}", self.line),
        }
    }
}

/// The anchor of line `n` whose text is `line`, as a read result shows it.
pub fn anchor_of(n: usize, line: &str) -> String {
    format!("{n}#{}", line_hash(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_short_stable_and_ignores_the_line_ending() {
        let h = line_hash("fn main() {");
        assert_eq!(h.len(), HASH_CHARS);
        assert_eq!(h, line_hash("fn main() {\r"));
        assert_eq!(h, line_hash("\u{feff}fn main() {"));
        assert_eq!(h, line_hash("fn main() {"));
        assert_ne!(h, line_hash("fn main() { "));
        // Pinned: a change of the hash function would break every anchor an agent holds, and
        // the README's example shows this anchor for this line.
        assert_eq!(line_hash("hello"), "pk3");
        assert_eq!(line_hash("app.get('/x', (req, res) => res.send(ok));"), "etq");
    }

    #[test]
    fn anchors_parse_as_copied_from_a_read_result() {
        let h = line_hash("x");
        assert_eq!(
            Anchor::parse(&format!("12#{h}")),
            Some(Anchor { line: 12, hash: Some(h.clone()), cell: None })
        );
        assert_eq!(
            Anchor::parse(&format!(" 12#{h}\tlet x = 1;")),
            Some(Anchor { line: 12, hash: Some(h.clone()), cell: None })
        );
        assert_eq!(Anchor::parse("0"), Some(Anchor { line: 0, hash: None, cell: None }));
        // A notebook's lines: the cell, then the line in its source.
        let in_cell = Anchor::parse(&format!("3:12#{h}\tx = 1"));
        assert_eq!(in_cell, Some(Anchor { line: 12, hash: Some(h.clone()), cell: Some(3) }));
        assert_eq!(in_cell.map(|a| a.to_string()), Some(format!("3:12#{h}")));
        assert_eq!(Anchor::parse("2:0").map(|a| a.cell), Some(Some(2)));
        assert_eq!(Anchor::parse(&format!("x:12#{h}")), None);
        assert_eq!(Anchor::parse("12"), None);
        assert_eq!(Anchor::parse("0#abc"), None);
        assert_eq!(Anchor::parse("12#ABCD"), None);
        assert_eq!(Anchor::parse("x#abc"), None);
    }

    #[test]
    fn nearby_distinct_lines_rarely_share_a_hash() {
        let hashes: std::collections::HashSet<String> =
            (0..200).map(|i| line_hash(&format!("    handler_{i}(request);"))).collect();
        assert!(hashes.len() > 190, "{} distinct of 200", hashes.len());
    }
}
