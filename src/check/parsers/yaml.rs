//! YAML by saphyr's parser, a YAML 1.2 implementation that passes the YAML test
//! suite: a stream that opens with a comment and then `---` is valid, as the
//! specification's own examples show.

use saphyr_parser::Parser;

use super::{Failure, Parsed, hash_comments_end};

/// The first syntax error of `text`, None when it parses.
pub(crate) fn parse(text: &str) -> Parsed {
    Parsed::whole(first_failure(text))
}

/// Re-parses allowed for flow closers at their parent's indentation (see
/// [`first_failure`]); each costs a parse.
const MAX_CLOSER_FIXES: usize = 8;

/// The first problem of `text`, None when it parses.
///
/// saphyr refuses a flow collection's closing `]` or `}` on a line of its own at the
/// indentation of the key that opens it (`a: [` newline `]`), which the YAML readers in
/// use (PyYAML, the `yaml` package) accept and published files rely on. So when that
/// is the error, the closer is indented by one more space and the text parsed again,
/// with offsets mapped back.
fn first_failure(text: &str) -> Option<Failure> {
    let mut now = text.to_owned();
    // Offsets in `now` of the spaces inserted so far, ascending.
    let mut inserted: Vec<usize> = Vec::new();
    for _ in 0..=MAX_CLOSER_FIXES {
        let (at, info) = saphyr_error(&now)?;
        let line_start = now[..at].rfind('\n').map_or(0, |i| i + 1);
        let lone_closer = now[at..].starts_with([']', '}']) && now[line_start..at].bytes().all(|b| b == b' ');
        if info == "invalid indentation" && lone_closer && inserted.len() < MAX_CLOSER_FIXES {
            for i in inserted.iter_mut().filter(|i| **i >= at) {
                *i += 1;
            }
            inserted.push(at);
            inserted.sort_unstable();
            now.insert(at, ' ');
            continue;
        }
        let at = at - inserted.iter().filter(|&&i| i < at).count();
        let trimmed = hash_comments_end(text);
        // saphyr reports a document cut inside a flow collection or a quoted scalar
        // at the end of the stream.
        let at_end = at >= trimmed || info.contains("end of stream");
        return Some(Failure::new(at.min(text.len()), at_end, info));
    }
    None
}

/// saphyr's first error in `text`: its byte offset and message.
fn saphyr_error(text: &str) -> Option<(usize, String)> {
    let mut parser = Parser::new_from_str(text);
    let error = loop {
        match parser.next_event() {
            None => return None,
            Some(Ok(_)) => {}
            Some(Err(error)) => break error,
        }
    };
    let at = text.char_indices().nth(error.marker().index()).map_or(text.len(), |(i, _)| i);
    Some((at, error.info().to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::LineIndex;

    #[test]
    fn the_specification_stream_with_a_comment_before_the_marker_parses() {
        assert_eq!(first_failure("# Ranking of 1998 home runs\n---\n- Mark McGwire\n- Sammy Sosa\n"), None);
    }

    #[test]
    fn a_flow_closer_at_the_keys_indentation_parses_as_other_readers_accept_it() {
        assert_eq!(first_failure("a: [\n]\n"), None);
        assert_eq!(first_failure("k:\n  a: [\n  ]\n  b: {\n  }\n"), None);
        let f = first_failure("k:\n  a: [\n  ]\n  b: 1\n c: 2\n").expect("the bad indentation after it");
        assert_eq!(LineIndex::new("k:\n  a: [\n  ]\n  b: 1\n c: 2\n").line_of(f.at), 5, "{f:?}");
    }

    #[test]
    fn an_open_flow_sequence_at_the_end_is_unfinished() {
        let f = first_failure("name: ci\nsteps: [a, b,\n").expect("an error");
        assert!(f.at_end, "{f:?}");
    }

    #[test]
    fn an_open_flow_sequence_mid_file_is_broken() {
        let f =
            first_failure("name: ci\nsteps:\n  - run: [a, b\n  - run: c\nafter: done\n").expect("an error");
        assert!(!f.at_end, "{f:?}");
    }

    #[test]
    fn a_bad_indentation_is_broken() {
        let f = first_failure("a:\n  b: 1\n c: 2\nd: 3\n").expect("an error");
        assert!(!f.at_end, "{f:?}");
    }
}
