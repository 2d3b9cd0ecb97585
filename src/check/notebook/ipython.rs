//! IPython's own syntax in a code cell, masked so that Python's parser reads the rest.
//!
//! A notebook's Python kernel is IPython, which accepts more than Python: line magics
//! (`%matplotlib inline`), cell magics (`%%bash` on the first line), shell escapes (`!pip
//! install x`, `files = !ls`), help (`obj?`, `??obj`) and autocall (`/f a`). None of it is
//! an error. Each such line is replaced by Python of the same meaning for the check (`pass`,
//! or `None` as an assigned value), keeping its line and its indentation, so a problem found
//! in the rest is at the line the cell shows. A cell whose magic runs another language
//! (`%%bash`, `%%html`, `%%writefile`) is not Python at all.

use std::ops::Range;

use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{Expr, IpyEscapeKind, PySourceType, Stmt};
use ruff_python_parser::parse_unchecked_source;
use ruff_text_size::Ranged;

/// Cell magics whose body is Python, run by the kernel: the body is checked.
const PYTHON_BODIED: &[&str] = &["time", "timeit", "capture", "prun", "debug", "python", "python3", "pypy"];

/// Line magics that run the Python statement after them in the notebook's namespace.
const RUNS_A_STATEMENT: &[&str] = &["time", "timeit", "prun", "debug"];

/// A code cell's source as Python, or None when the cell is in another language (a cell
/// magic that is not Python-bodied).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Masked {
    /// The source with IPython's syntax masked: as many lines as the source.
    pub(crate) text: String,
    /// The magics used, by name (`run`, `load_ext`, `store`...), for the names check,
    /// which cannot see what some of them define.
    pub(crate) magics: Vec<String>,
}

/// The cell `source` as Python; None when a cell magic makes it another language.
///
/// What is IPython's is decided by Ruff's parser in its IPython mode (the one Ruff lints
/// notebooks with): an escape is only recognised where a logical line starts, so `% (a, b)`
/// continuing a bracketed expression, or a `?` in a string, stays Python.
pub(crate) fn mask(source: &str) -> Option<Masked> {
    if let Some(first) = source.lines().map(str::trim_start).find(|l| !l.is_empty())
        && let Some(magic) = first.strip_prefix("%%")
        && !PYTHON_BODIED.contains(&word(magic))
    {
        return None;
    }
    let parsed = parse_unchecked_source(source, PySourceType::Ipynb);
    let mut escapes = Escapes { source, found: Vec::new(), magics: Vec::new() };
    escapes.visit_body(&parsed.syntax().body);
    escapes.found.sort_by_key(|(range, _)| range.start);
    let mut text = String::with_capacity(source.len());
    let mut at = 0;
    for (range, replacement) in escapes.found {
        if range.start < at {
            continue;
        }
        text.push_str(&source[at..range.start]);
        text.push_str(&replacement);
        // Lines continued with `\` stay lines, so what follows keeps its line number.
        text.extend(source[range.clone()].matches('\n').map(|_| '\n'));
        at = range.end;
    }
    text.push_str(&source[at..]);
    Some(Masked { text, magics: escapes.magics })
}

/// The IPython escapes of a cell, each with the Python it is replaced by.
struct Escapes<'s> {
    source: &'s str,
    found: Vec<(Range<usize>, String)>,
    magics: Vec<String>,
}

impl Escapes<'_> {
    fn escape(&mut self, range: Range<usize>, kind: IpyEscapeKind, value: &str, statement: bool) {
        let original = &self.source[range.clone()];
        let mut replacement = if statement { "pass".to_owned() } else { "None".to_owned() };
        if matches!(kind, IpyEscapeKind::Magic | IpyEscapeKind::Magic2) {
            let name = word(value.trim_start_matches('%'));
            self.magics.push(name.to_owned());
            // `%time x = f()`: the statement runs, and its names are bound.
            let rest = value.trim_start_matches('%')[name.len()..].trim_start();
            if statement
                && kind == IpyEscapeKind::Magic
                && RUNS_A_STATEMENT.contains(&name)
                && !rest.is_empty()
                && !rest.starts_with('-')
                && !original.contains('\n')
                && original.ends_with(rest)
            {
                let at = original.len() - rest.len();
                replacement = format!("pass;{}{rest}", " ".repeat(at.saturating_sub(5).max(1)));
            }
        }
        self.found.push((range, replacement));
    }
}

impl<'a> Visitor<'a> for Escapes<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::IpyEscapeCommand(command) => {
                self.escape(command.range().into(), command.kind, &command.value, true)
            }
            _ => walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::IpyEscapeCommand(command) => {
                self.escape(command.range().into(), command.kind, &command.value, false)
            }
            _ => walk_expr(self, expr),
        }
    }
}

/// The leading name of `text`: letters, digits, `_`.
fn word(text: &str) -> &str {
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len());
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(source: &str) -> String {
        mask(source).expect("python").text
    }

    #[test]
    fn magics_shell_and_help_lines_become_pass_keeping_lines_and_indentation() {
        let source = "%matplotlib inline\n!pip install x\nif x:\n    %time f()\n    obj?\n??len\nx.y??\n";
        assert_eq!(masked(source), "pass\npass\nif x:\n    pass; f()\n    pass\npass\npass\n");
    }

    #[test]
    fn assignments_from_the_shell_or_a_magic_keep_their_names() {
        assert_eq!(
            masked("files = !ls -la\na, b = %sx echo 1\nx == !y\n"),
            "files = None\na, b = None\nx == !y\n"
        );
    }

    #[test]
    fn a_cell_magic_in_another_language_is_no_python_and_a_python_one_keeps_its_body() {
        assert_eq!(mask("%%bash\nls -la (\n"), None);
        assert_eq!(mask("\n%%html\n<b>\n"), None);
        assert_eq!(masked("%%time\nx = 1\n"), "pass\nx = 1\n");
        assert_eq!(masked("%%capture out\nprint(1)\n").lines().count(), 2);
    }

    #[test]
    fn a_continued_magic_line_is_masked_whole_and_python_is_left_alone() {
        assert_eq!(masked("!echo a \\\n  b\nx = 1\n"), "pass\n\nx = 1\n");
        let python = "x = a % b\ns = '?'\n# why?\nd = {'a': 1}\n";
        assert_eq!(masked(python), python);
    }

    #[test]
    fn a_percent_or_question_mark_inside_python_is_python() {
        let python = "x = ('%s'\n     % (1,))\ny = [a,\n     !b]\ns = f(\n    ?\n)\n";
        assert_eq!(masked(python), python);
        assert_eq!(
            masked("def f():\n    files = !ls\n    return files\n"),
            "def f():\n    files = None\n    return files\n"
        );
    }

    #[test]
    fn the_magics_used_are_listed() {
        let m = mask("%load_ext autoreload\n%run other.py\nx = 1\n").unwrap();
        assert_eq!(m.magics, vec!["load_ext", "run"]);
    }
}
