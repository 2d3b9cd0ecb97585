//! Two things models send by mistake, undone before a write or append: `read_file`'s line
//! prefixes copied into content, and a Markdown fence around a whole file. Pure.
//!
//! Each applies only when the mistake is certain: every line carries a prefix and the
//! numbers count up by one; the fence wraps the whole content and nothing inside it looks
//! like another fence. The caller says in its result what was removed.

use std::path::Path;

/// What [`clean`] removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cleaned {
    /// `<n>\t` or `<n>#<hash>\t` prefixes, numbered from `first`.
    LinePrefixes {
        /// The first line's number.
        first: usize,
    },
    /// A Markdown fence around the whole content.
    Fence,
}

impl Cleaned {
    /// What was removed, for a warning.
    pub fn describe(self) -> String {
        match self {
            Cleaned::LinePrefixes { first } => format!(
                "every line began with read_file's line prefix (`{first}\\t`, counting up), so the prefixes \
                 were removed before writing; send the file's text without them"
            ),
            Cleaned::Fence => {
                "the content was wrapped whole in a Markdown code fence (```), so the fence was \
                               removed before writing; send the file's text without it"
                    .to_string()
            }
        }
    }
}

/// `content` without the mistakes above, and what was removed; None when there is nothing to
/// remove. `path` decides what the file may legitimately hold: a Markdown file may be a fence,
/// tab-separated data may start with counting numbers.
pub fn clean(path: &str, content: &str) -> Option<(String, Vec<Cleaned>)> {
    let ext = Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let mut text = content.to_string();
    let mut done = Vec::new();
    if !matches!(ext.as_str(), "md" | "markdown" | "mdx")
        && let Some(inner) = unfence(&text)
    {
        text = inner;
        done.push(Cleaned::Fence);
    }
    if !matches!(ext.as_str(), "tsv" | "tab")
        && let Some((first, inner)) = unprefix(&text)
    {
        text = inner;
        done.push(Cleaned::LinePrefixes { first });
    }
    (!done.is_empty()).then_some((text, done))
}

/// `content` as it should be written: cleaned when [`clean`] finds a mistake, else as sent;
/// and what was removed.
pub fn cleaned<'a>(path: &str, content: &'a str) -> (std::borrow::Cow<'a, str>, Vec<Cleaned>) {
    match clean(path, content) {
        Some((text, done)) => (std::borrow::Cow::Owned(text), done),
        None => (std::borrow::Cow::Borrowed(content), Vec::new()),
    }
}

/// The content of a fence that wraps all of `text`: an opening line of three or more
/// backticks (or tildes) with an optional info string, a closing line of the same marker at
/// least as long, and no line inside that could open or close a fence of that marker.
fn unfence(text: &str) -> Option<String> {
    let trimmed = text.trim_matches(|c| c == '\n' || c == '\r' || c == ' ');
    let (open, rest) = trimmed.split_once('\n')?;
    let open = open.trim_end_matches('\r');
    let marker = open.chars().next().filter(|&c| c == '`' || c == '~')?;
    let ticks = open.chars().take_while(|&c| c == marker).count();
    let info = &open[ticks..];
    if ticks < 3 || info.contains(marker) || info.trim().contains(' ') {
        return None;
    }
    let (body, close) = rest.rsplit_once('\n').unwrap_or(("", rest));
    let close = close.trim_end_matches('\r').trim_end();
    if close.len() < ticks || !close.chars().all(|c| c == marker) {
        return None;
    }
    let fence = marker.to_string().repeat(3);
    if body.lines().any(|l| l.trim_start().starts_with(&fence)) {
        return None;
    }
    let line_ending = if open.len() + 1 < trimmed.len() && trimmed[open.len()..].starts_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    // The last content line's `\r` (CRLF) stays in `body` when split at `\n`.
    let body = body.strip_suffix('\r').unwrap_or(body);
    Some(format!("{body}{line_ending}"))
}

/// `text` without `<n>\t` or `<n>#<hash>\t` prefixes, when every line has one and the numbers
/// count up by one; also the first number. One line alone is not proof enough unless it has
/// an anchor hash.
fn unprefix(text: &str) -> Option<(usize, String)> {
    let mut first = None;
    let mut anchored = true;
    let mut out = String::with_capacity(text.len());
    let mut count = 0;
    for line in text.split_inclusive('\n') {
        let (number, rest) = line.split_once('\t')?;
        let (digits, hash) = match number.split_once('#') {
            Some((d, h)) => (d, Some(h)),
            None => (number, None),
        };
        if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if let Some(h) = hash
            && (h.len() != crate::files::anchor::HASH_CHARS || !h.bytes().all(|b| b.is_ascii_alphanumeric()))
        {
            return None;
        }
        anchored &= hash.is_some();
        let n: usize = digits.parse().ok()?;
        let start = *first.get_or_insert(n);
        if n != start + count || n == 0 {
            return None;
        }
        count += 1;
        out.push_str(rest);
    }
    (count >= 2 || (count == 1 && anchored)).then(|| (first.unwrap_or(1), out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_lines_lose_their_prefixes() {
        let (text, done) = clean("a.py", "12\tdef f():\n13\t    return 1\n").unwrap();
        assert_eq!(text, "def f():\n    return 1\n");
        assert_eq!(done, [Cleaned::LinePrefixes { first: 12 }]);
        let (text, _) = clean("a.py", "1#abc\tx = 1\n").unwrap();
        assert_eq!(text, "x = 1\n");
    }

    #[test]
    fn prefixes_that_do_not_count_up_or_miss_a_line_are_kept() {
        assert!(clean("a.py", "1\tx\n3\ty\n").is_none());
        assert!(clean("a.py", "1\tx\ny\n").is_none());
        assert!(clean("a.py", "1\tx\n").is_none(), "one plain line is not proof");
        assert!(clean("data.tsv", "1\tx\n2\ty\n").is_none(), "tab-separated data");
    }

    #[test]
    fn a_fence_around_the_whole_file_is_removed_but_not_in_markdown() {
        let sent = "```js\nconst a = 1;\nconsole.log(a);\n```\n";
        let (text, done) = clean("app.js", sent).unwrap();
        assert_eq!(text, "const a = 1;\nconsole.log(a);\n");
        assert_eq!(done, [Cleaned::Fence]);
        assert!(clean("README.md", sent).is_none());
    }

    #[test]
    fn a_crlf_fence_gives_crlf_lines() {
        let (text, _) = clean("a.js", "```js\r\na\r\nb\r\n```\r\n").unwrap();
        assert_eq!(text, "a\r\nb\r\n");
    }

    #[test]
    fn fences_that_are_not_the_whole_content_are_kept() {
        assert!(clean("a.js", "```js\na\n```\nmore\n").is_none());
        assert!(clean("a.py", "x = '''\n```\ny\n```\n'''\n").is_none());
        assert!(clean("a.js", "```js\na\n```\n```js\nb\n```\n").is_none(), "two fences");
    }
}
