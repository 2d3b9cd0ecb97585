//! How a replacement lands where a tolerant match was found ([`Tolerant::adapt`]): lines the
//! model quoted unchanged stay as the file has them, and every other line is the model's own
//! text, re-indented in the file's style and ended as the file's lines are.
//!
//! Apart from locating because it answers a different question: not "where", but "what
//! should the file read". The rule it keeps: tolerance decides where a quote is and how its
//! lines are indented, never what the model wrote. A hyphen the model typed in a new or changed
//! line stays a hyphen even where the file writes dashes elsewhere; a straight quote stays
//! straight; trailing blanks the model typed stay. Guessing the file's "style" from the look-alikes
//! of the copy rewrote code the model meant, in strings, comments and identifiers alike.

use super::canonical::{canonical_line, is_indent};
use super::indentation::{columns, indent_of};
use super::{Tolerant, split_lines};

impl Tolerant {
    /// `new` as it should replace this region of `text`, for the quoted text `needle`.
    ///
    /// A line of `new` that equals a line of the quote at the match's tolerance (the model
    /// kept it, moved it or repeated it) is the file's line: as it stands where the model kept
    /// the quote's indentation, else the file's text of it at the model's new indentation
    /// (shifted as below). Any other line is the model's, character for character but for its
    /// leading indentation: that is shifted by the match's shift, in the file's indentation
    /// style (a blank line stays empty). Line endings are the file's.
    pub fn adapt(&self, text: &str, needle: &str, new: &str) -> String {
        let file_lines = split_lines(&text[self.region.start..self.region.end]);
        let needle_lines = split_lines(needle);
        let new_lines = split_lines(new);
        // Each line ends as the file's line it stands for, a new line as the one before it.
        let endings: Vec<&str> = text[self.region.start..self.region.end]
            .split_inclusive('\n')
            .map(|l| if l.ends_with("\r\n") { "\r\n" } else { "\n" })
            .collect();
        let mut eol = endings.first().copied().unwrap_or(if uses_crlf(text) { "\r\n" } else { "\n" });
        let canon = |l: &(&str, bool)| canonical_line(l.0, self.tolerance);
        let old_keys: Vec<String> = needle_lines.iter().map(canon).collect();
        let new_keys: Vec<String> = new_lines.iter().map(canon).collect();
        // Which line of the quote each line of `new` repeats (`same`), or changes (`paired`:
        // the k-th line of a replaced run for the k-th line it replaces).
        let mut same: Vec<Option<usize>> = vec![None; new_lines.len()];
        let mut paired: Vec<Option<usize>> = vec![None; new_lines.len()];
        for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old_keys, &new_keys) {
            match op {
                similar::DiffOp::Equal { old_index, new_index, len } => {
                    for k in 0..len {
                        same[new_index + k] = Some(old_index + k);
                    }
                }
                similar::DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                    for k in 0..old_len.min(new_len) {
                        paired[new_index + k] = Some(old_index + k);
                    }
                }
                _ => {}
            }
        }
        // A line the diff did not pair but that equals a quoted line (moved, or repeated) is a
        // quoted line too: the model copied it from the file as the quote shows it.
        for (j, key) in new_keys.iter().enumerate() {
            if same[j].is_none() && !key.trim().is_empty() {
                same[j] = old_keys.iter().position(|k| k == key);
            }
        }
        let mut out = String::with_capacity(new.len() + 16);
        // The quoted line a new line's indentation is told against: the last one with text
        // that the replacement kept or changed, else the first of the quote.
        let mut reference =
            needle_lines.iter().position(|l| !l.0.trim().is_empty()).filter(|&i| i < file_lines.len());
        for (j, &(line, ended)) in new_lines.iter().enumerate() {
            if let Some(&ending) = same[j].or(paired[j]).and_then(|i| endings.get(i)) {
                eol = ending;
            }
            let mapped = same[j].or(paired[j]).filter(|&i| i < file_lines.len());
            if let Some(i) = mapped.filter(|&i| !needle_lines[i].0.trim().is_empty()) {
                reference = Some(i);
            }
            let at = |i: usize| (file_lines[i].0, needle_lines[i].0);
            match same[j].filter(|&i| i < file_lines.len()) {
                // Quoted as the quote has it: the file's line as it stands.
                Some(i) if needle_lines[i].0 == line => out.push_str(file_lines[i].0),
                // Quoted at another indentation: the file's text, indented where the model put it.
                Some(i) => {
                    let file_text = file_lines[i].0.trim_start_matches(is_indent);
                    if indent_of(line) == indent_of(needle_lines[i].0) {
                        out.push_str(indent_of(file_lines[i].0));
                    } else {
                        let moved = self.reindent(j, line, Some(at(i)));
                        out.push_str(indent_of(&moved));
                    }
                    out.push_str(file_text);
                }
                // New or changed: the model's own text, re-indented.
                None => out.push_str(&self.reindent(j, line, mapped.or(reference).map(at))),
            }
            if ended {
                out.push_str(eol);
            }
        }
        out
    }

    /// Line `j` of a replacement with the match's shift applied. Where its indentation goes on
    /// from that of the quoted line `reference` (the file's line, the quote's line), it goes on
    /// from the file's line's own indentation, so that an alignment the file makes with tabs and
    /// spaces is kept; otherwise it is measured in columns.
    fn reindent(&self, j: usize, line: &str, reference: Option<(&str, &str)>) -> String {
        let Some(shift) = &self.shift else { return line.to_owned() };
        if j == 0 && !self.starts_line {
            return line.to_owned();
        }
        let rest = line.trim_start_matches(is_indent);
        if rest.trim().is_empty() {
            return String::new();
        }
        let own = &line[..line.len() - rest.len()];
        let width = columns(own);
        if let (Some(kept), 0, 0) = (&shift.first_line_indent, j, width) {
            return format!("{kept}{rest}");
        }
        // The quote's first line lost its indentation: it tells nothing to go on from.
        let usable = |(file, quoted): (&str, &str)| -> Option<String> {
            let (file_indent, quoted_indent) = (indent_of(file), indent_of(quoted));
            if shift.first_line_indent.is_some() && quoted_indent.is_empty() {
                return None;
            }
            let more = own.strip_prefix(quoted_indent)?;
            let scaled = (columns(more) * shift.num + shift.den / 2) / shift.den;
            Some(format!("{file_indent}{}", shift.style.indent(scaled)))
        };
        let indent = reference.and_then(usable).unwrap_or_else(|| shift.style.indent(shift.apply(width)));
        format!("{indent}{rest}")
    }
}

/// True when the text's first line ending is CRLF.
fn uses_crlf(text: &str) -> bool {
    memchr::memchr(b'\n', text.as_bytes()).is_some_and(|i| i > 0 && text.as_bytes()[i - 1] == b'\r')
}

#[cfg(test)]
mod tests {
    use super::super::{Located, locate};
    use crate::lines::LineIndex;

    /// The text after replacing `old` by `new` in `text`, tolerantly.
    fn replace(text: &str, old: &str, new: &str) -> String {
        match locate(text, old, true) {
            Located::Tolerant(t) => {
                let mut out = text.to_owned();
                out.replace_range(t.region.start..t.region.end, &t.adapt(text, old, new));
                out
            }
            other => panic!("expected a tolerant match, got {other:?}"),
        }
    }

    #[test]
    fn a_hyphen_the_model_writes_in_a_new_line_stays_a_hyphen_in_a_file_of_dashes() {
        // The file writes em and en dashes; the model's copy has hyphens for them.
        let text = "# Setup — step 1\nrange = \"1–5\"\nrun()\n";
        let old = "# Setup - step 1\nrange = \"1-5\"\nrun()\n";
        let new = "# Setup - step 1\nrange = \"1-5\"\n# retry - once\nrun(retries=1, mode=\"a-b\")\n";
        assert_eq!(
            replace(text, old, new),
            "# Setup — step 1\nrange = \"1–5\"\n# retry - once\nrun(retries=1, mode=\"a-b\")\n"
        );
        // A changed line keeps the hyphens the model wrote, even those it kept from its copy.
        let new = "# Setup - step 2\nrange = \"1-5\"\nrun()\n";
        assert_eq!(replace(text, old, new), "# Setup - step 2\nrange = \"1–5\"\nrun()\n");
        // And a dash the model typed in an ASCII file stays a dash.
        let text = "a = 1  \nb = 2\n";
        assert_eq!(replace(text, "a = 1\nb = 2\n", "a = 1\n# a — b\nb = 2\n"), "a = 1  \n# a — b\nb = 2\n");
    }

    #[test]
    fn straight_double_quotes_the_model_writes_stay_straight_in_a_file_of_curly_ones() {
        let text = "title = “Draft”\nshow(title)\n";
        let old = "title = \"Draft\"\nshow(title)\n";
        let new = "title = \"Draft\"\nlabel = \"New\"\nshow(title, \"x\")\n";
        assert_eq!(replace(text, old, new), "title = “Draft”\nlabel = \"New\"\nshow(title, \"x\")\n");
        // The other way round: curly quotes typed into a straight file are the model's too.
        let text = "a = \"x\"\nb = 1\n";
        let out = replace(text, "a = “x”\nb = 1\n", "a = “x”\nc = “new”\nb = 1\n");
        assert_eq!(out, "a = \"x\"\nc = “new”\nb = 1\n");
    }

    #[test]
    fn straight_single_quotes_and_apostrophes_stay_straight_in_a_file_of_curly_ones() {
        let text = "msg = ‘it’s here’\nlog(msg)\n";
        let old = "msg = 'it's here'\nlog(msg)\n";
        let new = "msg = 'it's gone'\nlog(msg)\n";
        assert_eq!(replace(text, old, new), "msg = 'it's gone'\nlog(msg)\n");
        let text = "x = 'a'\n";
        assert_eq!(replace(text, "x = ‘a’", "x = 'b'"), "x = 'b'\n");
        assert_eq!(replace(text, "x = ‘a’", "x = ‘b’"), "x = ‘b’\n");
    }

    #[test]
    fn a_space_the_model_types_stays_a_space_beside_the_files_non_breaking_ones() {
        let text = "price = \"10\u{a0}€\"\ntotal()\n";
        let old = "price = \"10 €\"\ntotal()\n";
        let new = "price = \"10 €\"\ntax = \"2 €\"\ntotal()\n";
        assert_eq!(replace(text, old, new), "price = \"10\u{a0}€\"\ntax = \"2 €\"\ntotal()\n");
        // A non-breaking space the model typed is its own as well.
        let text = "a = 1\nb = 2\n";
        let out = replace(text, "a\u{a0}= 1\nb = 2\n", "a\u{a0}= 1\nc\u{a0}= 3\nb = 2\n");
        assert_eq!(out, "a = 1\nc\u{a0}= 3\nb = 2\n");
    }

    #[test]
    fn trailing_blanks_are_the_files_on_quoted_lines_and_the_models_on_its_own() {
        let text = "a()  \nb()\t\nc()\n";
        // The copy lost the file's blanks; the model adds a line with blanks of its own.
        let out = replace(text, "a()\nb()\nc()\n", "a()\nb()\nnew()  \nc()\n");
        assert_eq!(out, "a()  \nb()\t\nnew()  \nc()\n");
        // A changed line ends as the model ends it.
        assert_eq!(replace(text, "a()\nb()\nc()\n", "a()\nb(1)\nc()\n"), "a()  \nb(1)\nc()\n");
        // A copy that adds blanks to every line: the model's new lines carry them as it wrote them.
        let out = replace("a()\nb()\n", "a()  \nb()  \n", "a()  \nc()  \nb()  \n");
        assert_eq!(out, "a()\nc()  \nb()\n");
    }

    #[test]
    fn re_indenting_to_tabs_touches_only_the_leading_indentation() {
        let text = "fn f() {\n\tlet a = 1; // a — b\n\tg(a);\n}\n";
        let old = "fn f() {\n    let a = 1; // a - b\n    g(a);\n}\n";
        let new = "fn f() {\n    let a = 1; // a - b\n    let s = \"a  -  b\";\t// note\n        g(a);\n}\n";
        let out = replace(text, old, new);
        assert_eq!(out, "fn f() {\n\tlet a = 1; // a — b\n\tlet s = \"a  -  b\";\t// note\n\t\tg(a);\n}\n");
    }

    #[test]
    fn a_quote_indented_as_the_file_leaves_the_models_indentation_alone() {
        // Only the dash drifted: the model's four spaces are not turned into the file's tab.
        let text = "\tx();\nfn f() {\na — b\n}\n";
        let out = replace(text, "fn f() {\na - b\n}\n", "fn f() {\na - b\n    c - d\n}\n");
        assert_eq!(out, "\tx();\nfn f() {\na — b\n    c - d\n}\n");
    }

    #[test]
    fn a_crlf_file_gets_crlf_endings_and_the_models_characters() {
        let text = "x = 'a — b'\r\n\ty()\r\nz()\r\n";
        let old = "x = 'a - b'\n    y()\n";
        let new = "x = 'a - b'\n    y()\n    w('b - c')\n";
        assert_eq!(replace(text, old, new), "x = 'a — b'\r\n\ty()\r\n\tw('b - c')\r\nz()\r\n");
    }

    #[test]
    fn a_quoted_line_the_model_moves_keeps_the_files_spelling() {
        let text = "a = “x”\nb = 1\nc = 2\n";
        let old = "a = \"x\"\nb = 1\nc = 2\n";
        let new = "b = 1\nc = 2\na = \"x\"\n";
        assert_eq!(replace(text, old, new), "b = 1\nc = 2\na = “x”\n");
        // Moved one level deeper: the file's text at the model's new depth.
        let text = "class C:\n    if a:\n        s = “x”\n        t()\n";
        let old = "if a:\n    s = \"x\"\n    t()\n";
        let new = "if a:\n    if b:\n        s = \"x\"\n    t()\n";
        let out = replace(text, old, new);
        assert_eq!(out, "class C:\n    if a:\n        if b:\n            s = “x”\n        t()\n");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]

        /// For any file and any edit whose old_string is a drifted copy of some of its lines,
        /// every line of new_string that is not a quoted line (not equal, after the match's
        /// tolerance, to a line of old_string) is in the result exactly as the model wrote it,
        /// but for its leading indentation; and a quoted line has the file's text.
        #[test]
        fn tolerance_never_rewrites_a_line_the_model_wrote(
            lines in proptest::collection::vec(
                "(\t|    |  )?(a|b - c|x — y|“q”|‘r’|p\u{a0}q|d–e|f\\(\"g\"\\)|…)( |\t)?", 1..12),
            from in 0usize..12,
            len in 1usize..5,
            drift in 0usize..6,
            own in proptest::collection::vec(
                "(\t|    |  )?(z|n - m|“o”|\"s\"|'t'|u—v|w\u{a0}x|y\\.\\.\\.|k – l)( |  |\t)?", 0..4),
            keep in proptest::collection::vec(proptest::bool::ANY, 5),
            at in 0usize..6,
            crlf in proptest::bool::ANY,
        ) {
            let eol = if crlf { "\r\n" } else { "\n" };
            let text = lines.join(eol) + eol;
            let from = from.min(lines.len() - 1);
            let to = (from + len).min(lines.len());
            let quote: Vec<String> = lines[from..to].iter().map(|l| match drift {
                0 => l.trim_end().to_owned(),
                1 => format!("  {l}"),
                2 => l.replace('\t', "    "),
                3 => l.replace(['“', '”'], "\"").replace(['—', '–'], "-"),
                4 => l.replace('\u{a0}', " ").replace(['‘', '’'], "'") + " ",
                _ => l.replace("    ", "\t").replace('…', "..."),
            }).collect();
            let needle = quote.join("\n") + "\n";
            // The new text: some quoted lines kept, the model's own lines put in among them.
            let mut new_lines: Vec<String> =
                quote.iter().zip(keep.iter().cycle()).filter(|(_, k)| **k).map(|(q, _)| q.clone()).collect();
            let at = at.min(new_lines.len());
            for (k, l) in own.iter().enumerate() {
                new_lines.insert(at + k, l.clone());
            }
            let new = new_lines.iter().map(|l| format!("{l}\n")).collect::<String>();
            let Located::Tolerant(t) = locate(&text, &needle, true) else { return Ok(()) };
            let landed = t.adapt(&text, &needle, &new);
            let out_lines: Vec<&str> =
                landed.split_inclusive('\n').map(|l| l.trim_end_matches('\n').trim_end_matches('\r')).collect();
            proptest::prop_assert_eq!(out_lines.len(), new_lines.len(), "{:?}", landed);
            let key = |l: &str| super::canonical_line(l, t.tolerance);
            let quoted: Vec<String> = quote.iter().map(|q| key(q)).collect();
            let body = |l: &str| l.trim_start_matches([' ', '\t']).to_owned();
            let starts_line = t.region.start == 0 || text.as_bytes()[t.region.start - 1] == b'\n';
            for (j, (line, got)) in new_lines.iter().zip(&out_lines).enumerate() {
                if j == 0 && !starts_line {
                    continue;
                }
                if !key(line).trim().is_empty() && quoted.contains(&key(line)) {
                    // A quoted line: one of the file's lines of the region.
                    let index = LineIndex::new(&text);
                    let file: Vec<String> = (t.region.first_line..=t.region.last_line)
                        .map(|n| body(index.line(n).trim_end_matches(['\n', '\r'])))
                        .collect();
                    proptest::prop_assert!(file.contains(&body(got)), "{:?} -> {:?}", line, got);
                } else {
                    proptest::prop_assert_eq!(body(got), body(line), "{:?} in {:?}", line, landed);
                }
            }
        }
    }
}
