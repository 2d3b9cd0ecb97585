//! TOML by toml_edit, the parser behind Cargo's own manifest editing.

use std::str::FromStr;

use super::{Failure, Parsed, hash_comments_end, sentence};

/// The first syntax error of `text`, None when it parses.
///
/// Duplicate keys and tables are errors too: the TOML specification calls such a
/// document invalid, and every reader rejects it.
pub(crate) fn parse(text: &str) -> Parsed {
    Parsed::whole(first_failure(text))
}

/// The first problem of `text`, None when it parses.
fn first_failure(text: &str) -> Option<Failure> {
    let error = toml_edit::DocumentMut::from_str(text).err()?;
    let at = error.span().map_or(text.len(), |span| span.start).min(text.len());
    let message = sentence(error.message().trim().lines().next().unwrap_or("invalid TOML"));
    Some(Failure::new(at, at >= hash_comments_end(text), message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_toml_parses() {
        assert_eq!(first_failure("[package]\nname = \"a\"\n# done\n"), None);
    }

    #[test]
    fn an_open_array_or_string_at_the_end_is_unfinished() {
        for text in ["a = [1,\n2,\n", "a = \"\"\"\nline\n", "[pack", "a = "] {
            let f = first_failure(text).expect("an error");
            assert!(f.at_end, "{text:?}: {f:?}");
        }
    }

    #[test]
    fn a_bad_line_mid_file_is_broken() {
        let f = first_failure("a = 1\nb = = 2\nc = 3\n").expect("an error");
        assert!(!f.at_end, "{f:?}");
    }
}
