//! Markdown: the fenced code blocks in a checked language, each checked by its own row.
//!
//! The prose is never an error (everything is valid Markdown), so only the code counts:
//! a block whose info string names a checked language (`python`, `ts`, `sh`...; the
//! `fence_names` of the table) is cut out, freed of its container prefixes (`> `, list
//! indentation) and fence indentation, checked as that language, and its problems are
//! moved back to the line and column of the `.md` text. tree-sitter-md's block grammar
//! finds the blocks, so fences inside lists and block quotes, longer fences around
//! shorter ones and `~~~` fences follow CommonMark rather than a hand-made guess.
//!
//! # Verdict
//! - A fence still open at the end of the text is `Incomplete` (whatever its language):
//!   the file is being appended to, and its block is judged as a prefix.
//! - A closed block whose code is only unfinished (a `{` never closed) is `Errors`
//!   ("closes too early"): nothing can be appended to it any more.
//! - Blocks in other languages, and blank blocks, are ignored.

use std::time::Instant;

use tree_sitter::Node;

use super::languages::{Language, LanguageName, language_for, language_for_fence};
use super::report::{NotChecked, Problem, Report, Status};
use super::syntax::parse_until;
use crate::lines::LineIndex;

const NAME: LanguageName = LanguageName::Markdown;

/// Check the fenced code blocks of a Markdown text; past `deadline` the report is
/// NotChecked("timed out").
pub(crate) fn check_markdown(text: &str, deadline: Instant) -> Report {
    let timed_out = || Report::not_checked(Some(NAME), NotChecked::TimedOut);
    let Some(markdown) = language_for("a.md") else {
        return Report::not_checked(Some(NAME), NotChecked::NoGrammar);
    };
    let Some(tree) = parse_until(markdown, text, None, deadline) else {
        return timed_out();
    };
    let mut status = Status::Ok;
    let mut problems = Vec::new();
    let index = LineIndex::new(text);
    for block in fenced_blocks(tree.root_node(), text) {
        let unclosed = block.closing.is_none() && text.get(block.end..).unwrap_or("").trim().is_empty();
        if unclosed {
            status = status.max(Status::Incomplete);
            let message =
                format!("code block opened here is not closed yet (`{}` would close it)", block.fence);
            problems.push(Problem::at(&index, block.start, message));
        }
        let Some(lang) = block.language else {
            continue;
        };
        let code = Code::of(&block, text);
        if code.text.trim().is_empty() {
            continue;
        }
        let budget = deadline.saturating_duration_since(Instant::now());
        // The first extension stands for the language: `check_within` picks rows by path.
        let path = format!("block.{}", lang.spec().extensions.first().copied().unwrap_or_default());
        let report = super::check_within(&path, &code.text, budget);
        let (block_status, prefix) = match report.status {
            Status::Ok => continue,
            Status::NotChecked => return timed_out(),
            Status::Errors => (Status::Errors, format!("{} block: ", lang.name())),
            Status::Incomplete if unclosed => (Status::Incomplete, format!("{} block: ", lang.name())),
            Status::Incomplete => (Status::Errors, format!("{} block closes too early: ", lang.name())),
        };
        status = status.max(block_status);
        if report.problems.is_empty() {
            problems.push(Problem::at(&index, block.start, format!("{prefix}not finished")));
        }
        for p in report.problems {
            let message = format!("{prefix}{}", p.message);
            problems.push(Problem::at(&index, code.md_offset(p.line, p.column), message));
        }
    }
    if status == Status::Ok {
        return Report::ok(NAME);
    }
    problems.sort_by_key(|p| (p.line, p.column));
    Report::found(NAME, status, problems)
}

/// One fenced code block of the Markdown tree.
struct Block<'tree> {
    /// Start of the opening fence (after any container prefix).
    start: usize,
    /// End of the block: the closing fence's line, or where its container ended.
    end: usize,
    /// The opening fence's backticks or tildes, without indentation.
    fence: String,
    /// Spaces before the opening fence, which CommonMark strips from each code line.
    indent: usize,
    /// The checked language its info string names, if any.
    language: Option<Language>,
    /// The `code_fence_content` node; None for a block without lines.
    content: Option<Node<'tree>>,
    /// The closing fence; None when the fence was never closed.
    closing: Option<Node<'tree>>,
}

/// Every `fenced_code_block` under `root`, in text order.
fn fenced_blocks<'tree>(root: Node<'tree>, text: &str) -> Vec<Block<'tree>> {
    let mut blocks = Vec::new();
    // A stack, not recursion: nested lists and quotes make deep trees.
    let mut stack = vec![root];
    let mut cursor = root.walk();
    while let Some(node) = stack.pop() {
        if node.kind() == "fenced_code_block" {
            blocks.push(block(node, text));
            continue;
        }
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    blocks
}

fn block<'tree>(node: Node<'tree>, text: &str) -> Block<'tree> {
    let mut cursor = node.walk();
    let delimiters: Vec<Node> =
        node.children(&mut cursor).filter(|c| c.kind() == "fenced_code_block_delimiter").collect();
    let opening = text.get(delimiters.first().map_or(node.byte_range(), |d| d.byte_range())).unwrap_or("");
    let fence = opening.trim_start_matches(' ');
    let language = node
        .child_by_field_name("info_string")
        .and_then(|info| info.named_children(&mut info.walk()).find(|c| c.kind() == "language"))
        .and_then(|l| text.get(l.byte_range()))
        .and_then(language_for_fence);
    let content = node.children(&mut cursor).find(|c| c.kind() == "code_fence_content");
    Block {
        start: node.start_byte() + opening.len() - fence.len(),
        end: node.end_byte(),
        fence: fence.trim_end().to_owned(),
        indent: opening.len() - fence.len(),
        language,
        content,
        closing: delimiters.get(1).copied(),
    }
}

/// A block's code as its own text, with the way back to the Markdown offsets.
struct Code {
    text: String,
    /// (offset in `text`, offset in the Markdown text) where each copied piece starts.
    pieces: Vec<(usize, usize)>,
}

impl Code {
    /// The code lines of `block`: its content minus the container prefixes the grammar
    /// marks as `block_continuation`, each line minus up to `indent` leading spaces.
    fn of(block: &Block, md: &str) -> Code {
        let mut code = Code { text: String::new(), pieces: Vec::new() };
        let Some(content) = block.content else {
            return code;
        };
        let mut kept = Vec::new();
        let mut from = content.start_byte();
        let mut cursor = content.walk();
        for prefix in content.children(&mut cursor).filter(|c| c.kind() == "block_continuation") {
            kept.push(from..prefix.start_byte());
            from = prefix.end_byte();
        }
        kept.push(from..content.end_byte());
        for range in kept {
            let Some(piece) = md.get(range.clone()) else {
                continue;
            };
            let mut at = range.start;
            for line in piece.split_inclusive('\n') {
                let body = line.trim_start_matches(' ');
                let strip = (line.len() - body.len()).min(block.indent);
                code.pieces.push((code.text.len(), at + strip));
                code.text.push_str(&line[strip..]);
                at += line.len();
            }
        }
        code
    }

    /// The Markdown byte offset of a 1-based line and character column of the code.
    fn md_offset(&self, line: usize, column: usize) -> usize {
        let line_start = match line {
            0 | 1 => 0,
            n => self.text.match_indices('\n').nth(n - 2).map_or(self.text.len(), |(i, _)| i + 1),
        };
        let rest = &self.text[line_start..];
        let in_line = rest.char_indices().nth(column.saturating_sub(1)).map_or(rest.len(), |(i, _)| i);
        let at = line_start + in_line;
        match self.pieces.iter().rev().find(|&&(start, _)| start <= at) {
            Some(&(start, md_start)) => md_start + (at - start),
            None => self.pieces.first().map_or(0, |&(_, md_start)| md_start),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check;
    use crate::check::tests::line_prefixes;

    /// A README-like file: checked blocks in several languages, an indented fence in a
    /// list, a block quote, a `~~~` fence, a longer fence around a shorter one, and
    /// blocks in languages that are not checked.
    const SAMPLE_MD: &str = include_str!("testdata/sample.md");

    fn first_problem(report: &Report) -> (usize, usize) {
        let p = report.problems.first().expect("a problem is listed");
        (p.line, p.column)
    }

    #[test]
    fn valid_markdown_with_checked_blocks_is_ok() {
        let report = check("README.md", SAMPLE_MD);
        assert_eq!(report.status, Status::Ok, "{}", report.summary());
        assert_eq!(report.language.map(LanguageName::as_str), Some("markdown"));
    }

    #[test]
    fn markdown_without_checked_blocks_is_ok() {
        let text = "# Title\n\nSome *prose* (unbalanced.\n\n```\nno language (\n```\n\n    indented code (\n";
        assert_eq!(check("notes.markdown", text).status, Status::Ok);
        assert_eq!(check("empty.md", "").status, Status::Ok);
    }

    #[test]
    fn blocks_in_unknown_languages_are_ignored() {
        let text = "Intro\n\n```text\nfoo(a))\n```\n\n```console\n$ foo(a))\n```\n\n```ruby\ndef (\n```\n";
        let report = check("a.md", text);
        assert_eq!(report.status, Status::Ok, "{}", report.summary());
    }

    #[test]
    fn block_error_is_reported_at_the_markdown_line_and_column() {
        let text = "# Demo\n\nRun this:\n\n```python\nx = 1\nfoo(a, b))\ny = 2\n```\n";
        let report = check("a.md", text);
        assert_eq!(report.status, Status::Errors, "{}", report.summary());
        assert_eq!(first_problem(&report), (7, 10));
        assert_eq!(report.problems[0].message, "python block: `)` has no matching `(`");
        assert_eq!(report.problems[0].source, "foo(a, b))");
    }

    #[test]
    fn error_in_an_indented_fence_inside_a_list_keeps_its_markdown_column() {
        let text = "1. Install:\n\n   ```js\n   const a = f(1));\n   const b = 2;\n   ```\n2. Done\n";
        let report = check("a.md", text);
        assert_eq!(report.status, Status::Errors, "{}", report.summary());
        assert_eq!(first_problem(&report), (4, 18));
    }

    #[test]
    fn error_in_a_block_quote_is_reported_past_the_quote_marker() {
        let text = "> Example:\n>\n> ```rust\n> fn f() {}\n> fn g( {}\n> fn h() {}\n> ```\n";
        let report = check("a.md", text);
        assert_eq!(report.status, Status::Errors, "{}", report.summary());
        assert_eq!(first_problem(&report).0, 5, "{}", report.summary());
    }

    #[test]
    fn each_block_is_checked_by_its_own_language() {
        // Valid YAML but broken JSON, and the reverse: each must be judged by its tag.
        let text = "```yaml\na: [1, 2]\nb: c\n```\n\n```json\n{\"a\": 1,}\n```\n";
        let report = check("a.md", text);
        assert_eq!(report.status, Status::Errors, "{}", report.summary());
        assert_eq!(first_problem(&report).0, 7);
        assert!(report.problems[0].message.starts_with("json block: "), "{}", report.summary());
    }

    #[test]
    fn unclosed_fence_at_the_end_is_incomplete() {
        let text = "# Demo\n\n```python\ndef f(a):\n    return a\n";
        let report = check("a.md", text);
        assert_eq!(report.status, Status::Incomplete, "{}", report.summary());
        assert_eq!(first_problem(&report), (3, 1));
        assert!(report.problems[0].message.contains("(`\u{60}\u{60}\u{60}` would close it)"));
        // Also when the open block is in a language that is not checked.
        assert_eq!(check("a.md", "Text\n\n~~~~text\nanything (\n").status, Status::Incomplete);
    }

    #[test]
    fn unclosed_fence_cut_inside_a_statement_is_incomplete_not_errors() {
        let text = "Intro\n\n```ts\nconst a = f(\n  1,\n";
        assert_eq!(check("a.md", text).status, Status::Incomplete);
    }

    #[test]
    fn closed_block_with_unfinished_code_is_errors() {
        let text = "```python\nprint(f(1),\n      f(2)\n```\n\nMore text.\n";
        let report = check("a.md", text);
        assert_eq!(report.status, Status::Errors, "{}", report.summary());
        assert!(report.problems[0].message.starts_with("python block closes too early: "));
    }

    #[test]
    fn longer_fence_holds_a_shorter_one_as_code() {
        let text = "````md\n```python\nfoo(a))\n```\n````\n\n```sh\necho ok\n```\n";
        assert_eq!(check("a.md", text).status, Status::Ok);
    }

    #[test]
    fn info_string_matches_case_insensitively_and_by_first_word() {
        let text = "```Python title=\"demo.py\"\nfoo(a))\nx = 1\n```\n";
        assert_eq!(check("a.md", text).status, Status::Errors);
    }

    #[test]
    fn markdown_with_crlf_endings_is_checked_the_same() {
        assert_eq!(check("a.md", &SAMPLE_MD.replace('\n', "\r\n")).status, Status::Ok);
        let text = "Run:\r\n\r\n```python\r\nx = 1\r\nfoo(a))\r\ny = 2\r\n```\r\n";
        let report = check("a.md", text);
        assert_eq!(report.status, Status::Errors, "{}", report.summary());
        assert_eq!(first_problem(&report), (5, 7));
    }

    #[test]
    fn no_line_prefix_of_valid_markdown_is_errors() {
        for prefix in line_prefixes(SAMPLE_MD) {
            let report = check("a.md", prefix);
            assert_ne!(report.status, Status::Errors, "{prefix}\n---\n{}", report.summary());
        }
    }
}
