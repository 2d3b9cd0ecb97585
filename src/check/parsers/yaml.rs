//! YAML by saphyr's parser, a YAML 1.2 implementation that passes the YAML test
//! suite: a stream that opens with a comment and then `---` is valid, as the
//! specification's own examples show.

use saphyr_parser::Parser;

use super::{Failure, Parsed, hash_comments_end};

/// The first syntax error of `text`, None when it parses.
pub(crate) fn parse(text: &str) -> Parsed {
    Parsed::whole(first_failure(text))
}

/// The first problem of `text`, None when it parses.
fn first_failure(text: &str) -> Option<Failure> {
    let mut parser = Parser::new_from_str(text);
    let error = loop {
        match parser.next_event() {
            None => return None,
            Some(Ok(_)) => {}
            Some(Err(error)) => break error,
        }
    };
    let marker = error.marker();
    let at = text.char_indices().nth(marker.index()).map_or(text.len(), |(i, _)| i);
    let trimmed = hash_comments_end(text);
    let info = error.info();
    // saphyr reports a document cut inside a flow collection or a quoted scalar at
    // the end of the stream.
    let at_end = at >= trimmed || info.contains("unexpected end of stream") || info.contains("end of stream");
    Some(Failure::new(at, at_end, info.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specification_stream_with_a_comment_before_the_marker_parses() {
        assert_eq!(first_failure("# Ranking of 1998 home runs\n---\n- Mark McGwire\n- Sammy Sosa\n"), None);
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
