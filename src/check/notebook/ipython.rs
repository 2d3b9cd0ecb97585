//! IPython's own syntax in a code cell, masked so that Python's parser reads the rest.
//!
//! A notebook's Python kernel is IPython, which accepts more than Python: line magics
//! (`%matplotlib inline`), cell magics (`%%bash` on the first line), shell escapes (`!pip
//! install x`, `files = !ls`), help (`obj?`, `??obj`) and autocall (`/f a`). None of it is
//! an error. Each such line is replaced by Python of the same meaning for the check (`pass`,
//! or `None` as an assigned value), keeping its line and its indentation, so a problem found
//! in the rest is at the line the cell shows. A cell whose magic runs another language
//! (`%%bash`, `%%html`, `%%writefile`) is not Python at all.

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
pub(crate) fn mask(source: &str) -> Option<Masked> {
    let mut magics = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    let mut continued = false;
    let mut first_code = true;
    for line in source.split_inclusive('\n') {
        let (body, end) = split_end(line);
        if continued {
            // The rest of a magic or shell line continued with `\`.
            continued = body.ends_with('\\');
            lines.push(end.to_owned());
            continue;
        }
        let indent = &body[..body.len() - body.trim_start().len()];
        let code = body.trim_start();
        if first_code && !code.is_empty() {
            first_code = false;
            if let Some(magic) = code.strip_prefix("%%") {
                let name = word(magic);
                magics.push(name.to_owned());
                if !PYTHON_BODIED.contains(&name) {
                    return None;
                }
                continued = body.ends_with('\\');
                lines.push(format!("{indent}pass{end}"));
                continue;
            }
        }
        match masked_line(code, &mut magics) {
            Some(replacement) => {
                continued = body.ends_with('\\');
                lines.push(format!("{indent}{replacement}{end}"));
            }
            None => lines.push(line.to_owned()),
        }
    }
    Some(Masked { text: lines.concat(), magics })
}

/// A line's text and its line ending.
fn split_end(line: &str) -> (&str, &str) {
    let body = line.trim_end_matches(['\n', '\r']);
    (body, &line[body.len()..])
}

/// The leading name of `text`: letters, digits, `_`.
fn word(text: &str) -> &str {
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len());
    &text[..end]
}

/// What an IPython line (its indentation taken off) is replaced with; None for Python.
fn masked_line(code: &str, magics: &mut Vec<String>) -> Option<String> {
    let first = code.chars().next()?;
    match first {
        '%' => {
            let name = word(code.trim_start_matches('%'));
            magics.push(name.to_owned());
            // `%time x = f()`: the statement runs, and its names are bound.
            let rest = code.trim_start_matches('%')[name.len()..].trim_start();
            if RUNS_A_STATEMENT.contains(&name)
                && !rest.is_empty()
                && !rest.starts_with('-')
                && !is_help(code)
            {
                let at = code.len() - rest.len();
                return Some(format!("pass;{}{rest}", " ".repeat(at.saturating_sub(5).max(1))));
            }
            Some("pass".into())
        }
        '!' => Some("pass".into()),
        // Autocall (`/f a`, `,f a b`, `;f a`): never the start of a Python statement.
        '/' | ',' | ';' if code[1..].starts_with(|c: char| c.is_alphabetic() || c == '_') => {
            Some("pass".into())
        }
        '?' => Some("pass".into()),
        _ if is_help(code) => Some("pass".into()),
        _ => assigned_from_ipython(code, magics),
    }
}

/// `obj?`, `obj.attr??`, `%magic?`, `*int*?`: a dotted name (with `*` wildcards) and one or
/// two question marks, alone on the line.
fn is_help(code: &str) -> bool {
    let code = code.trim_end();
    let Some(name) = code.strip_suffix("??").or_else(|| code.strip_suffix('?')) else { return false };
    let name = name.trim_start_matches('%');
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '*'))
}

/// `files = !ls`, `a, b = %sx cmd`: the names keep their binding, the value is `None`.
fn assigned_from_ipython(code: &str, magics: &mut Vec<String>) -> Option<String> {
    let (lhs, rhs) = code.split_once('=')?;
    let rhs_trimmed = rhs.trim_start();
    let names_only = !lhs.trim().is_empty()
        && lhs.split(',').all(|n| {
            let n = n.trim();
            !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        });
    if !names_only || rhs.starts_with('=') {
        return None;
    }
    if let Some(magic) = rhs_trimmed.strip_prefix('%') {
        magics.push(word(magic.trim_start_matches('%')).to_owned());
    } else if !rhs_trimmed.starts_with('!') {
        return None;
    }
    Some(format!("{lhs}= None"))
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
    fn the_magics_used_are_listed() {
        let m = mask("%load_ext autoreload\n%run other.py\nx = 1\n").unwrap();
        assert_eq!(m.magics, vec!["load_ext", "run"]);
    }
}
