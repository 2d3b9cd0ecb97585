//! What the words of a comment or an error message say: that code is missing here
//! ("rest of the code", "omitted for brevity", "not implemented"), or that doing
//! nothing is the point ("no-op", "hook for subclasses").
//!
//! Pure text rules; where a comment sits and what it is attached to is decided on the
//! syntax tree by the callers.

/// Words of which at least one must appear: each says "code was here" or "code goes here".
pub(super) const TRIGGERS: &[&str] = &[
    "rest",
    "existing",
    "remaining",
    "remainder",
    "implement",
    "implemented",
    "unimplemented",
    "omitted",
    "omit",
    "brevity",
    "unchanged",
    "untouched",
    "unmodified",
    "elided",
    "snip",
    "snipped",
    "truncated",
    "your",
    "previous",
    "previously",
    "before",
    "earlier",
];

/// The other words a placeholder comment may use. Nouns are only the generic ones
/// ("code", "method"): "rest of the items" describes real code below it, "rest of the
/// code" replaces it.
const FILLERS: &[&str] = &[
    "a",
    "above",
    "add",
    "all",
    "an",
    "and",
    "are",
    "as",
    "be",
    "below",
    "body",
    "class",
    "classes",
    "code",
    "component",
    "components",
    "content",
    "css",
    "else",
    "etc",
    "everything",
    "file",
    "fill",
    "fixme",
    "for",
    "function",
    "functionality",
    "functions",
    "go",
    "goes",
    "helper",
    "helpers",
    "here",
    "html",
    "implementation",
    "in",
    "is",
    "it",
    "keep",
    "kept",
    "like",
    "logic",
    "markup",
    "method",
    "methods",
    "module",
    "more",
    "not",
    "of",
    "or",
    "original",
    "other",
    "others",
    "page",
    "pages",
    "program",
    "put",
    "remain",
    "remains",
    "same",
    "script",
    "section",
    "sections",
    "similar",
    "stay",
    "stays",
    "still",
    "styles",
    "template",
    "that",
    "the",
    "this",
    "to",
    "todo",
    "xxx",
    "yet",
];

/// Words that, next to an ellipsis, make a comment a placeholder: `// ... other methods ...`.
const ELLIPSIS_WORDS: &[&str] = &["code", "etc", "more", "other", "others", "same", "similar"];

/// Whether a comment (markers included) is only a stand-in for code.
pub(super) fn stands_in(body: &str) -> bool {
    let ellipsis = has_ellipsis(body);
    let words = words(body);
    if words.is_empty() {
        // `/* ....... */` is a separator and `// '...'` a quote, not an ellipsis.
        let bare = body.chars().all(|c| c.is_whitespace() || "./*#<!->…".contains(c));
        return ellipsis && bare && body.matches('.').count() <= 4;
    }
    // "// unchanged" or "// Truncated" next to code describes it.
    if words.len() > 12 || words.len() == 1 && !ellipsis {
        return false;
    }
    if strong_placeholder(body) {
        return true;
    }
    if words.len() > 8 && !ellipsis {
        return false;
    }
    let known = |w: &String| TRIGGERS.contains(&w.as_str()) || FILLERS.contains(&w.as_str());
    let has_trigger = words.iter().any(|w| TRIGGERS.contains(&w.as_str()));
    let ellipsis_word = ellipsis && words.iter().any(|w| ELLIPSIS_WORDS.contains(&w.as_str()));
    words.iter().all(known) && (has_trigger || ellipsis_word)
}

/// Phrases that are placeholders whatever other words come with them: "validation
/// omitted for brevity", "add more routes here", "your API calls here".
pub(super) fn strong_placeholder(body: &str) -> bool {
    let words = words(body);
    if words.is_empty() || words.len() > 12 {
        return false;
    }
    let at = |i: usize| words.get(i).map_or("", String::as_str);
    let left_out =
        ["omitted", "omit", "removed", "skipped", "elided", "left", "shortened", "abbreviated", "truncated"];
    let brevity = words.windows(2).any(|w| w[0] == "for" && w[1] == "brevity")
        && words.iter().any(|w| left_out.contains(&w.as_str()));
    let add_more_here = words
        .windows(2)
        .position(|w| w[0] == "add" && w[1] == "more")
        .is_some_and(|i| words.iter().skip(i + 2).take(5).any(|w| w == "here"));
    let short = words.len() <= 6;
    let goes_here = short && words.windows(2).any(|w| (w[0] == "goes" || w[0] == "go") && w[1] == "here");
    let your_here = short && at(0) == "your" && at(words.len() - 1) == "here";
    brevity || add_more_here || goes_here || your_here
}

pub(super) fn has_ellipsis(body: &str) -> bool {
    body.contains("...") || body.contains('…')
}

pub(super) fn words(body: &str) -> Vec<String> {
    body.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Whether a function's comments or docstring say that doing nothing is intended.
pub(super) fn explains_no_op(words: &[String]) -> bool {
    const INTENT: &[&str] = &[
        "noop",
        "nop",
        "nothing",
        "override",
        "overridden",
        "overrides",
        "dummy",
        "subclass",
        "subclasses",
        "subclassed",
        "hook",
        "hooks",
        "intentionally",
        "deliberately",
        "ignore",
        "ignored",
    ];
    words.iter().any(|w| INTENT.contains(&w.as_str()))
        || words.windows(2).any(|w| w[0] == "no" && w[1] == "op")
}

/// Names that promise to do nothing.
pub(super) fn noop_like(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.contains("noop") || lower == "nop" || lower == "_nop"
}

/// Whether a class's name says it exists to be subclassed: `BaseHandler`, `_BaseLoop`,
/// `AbstractLoop`, `HandlerBase`, `ReprMixin`, `Interface`.
pub(super) fn base_like(name: &str) -> bool {
    let name = name.trim_start_matches('_');
    name.starts_with("Base")
        || name.starts_with("Abstract")
        || name.ends_with("Base")
        || name.ends_with("Mixin")
        || name.ends_with("Interface")
}

/// Whether a class's name says it is a null object, whose methods do nothing on purpose:
/// `NullHandler`, `NoopLogger`, `NoOpTracer`, `DummyLock`, `_NullSpan`.
pub(super) fn null_like(name: &str) -> bool {
    let name = name.trim_start_matches('_');
    ["Null", "Noop", "NoOp", "Nop", "Dummy"].iter().any(|prefix| {
        name.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_uppercase))
    })
}

/// Words that, in the only comment of an otherwise empty body, say the code is still to
/// come: `// TODO: start the timer`, `# timer logic here`. A body made of a comment
/// that says what it deliberately does not do ("nothing to flush") is not one.
pub(super) const STILL_TO_COME: &[&str] = &[
    "todo",
    "fixme",
    "tbd",
    "xxx",
    "later",
    "here",
    "logic",
    "code",
    "implementation",
    "placeholder",
    "stub",
    "implement",
    "implemented",
    "unimplemented",
    "rest",
    "remaining",
    "omitted",
    "existing",
];

/// Whether the comments of a body with no statements say the code is still to come.
pub(super) fn says_code_goes_here(words: &[String]) -> bool {
    words.iter().any(|w| STILL_TO_COME.contains(&w.as_str())) && !explains_no_op(words)
}

/// Whether an error's message (or its class name) says the code is missing:
/// `new Error("Not implemented")`, `NotImplementedError`, `"TODO"`.
pub(super) fn says_not_implemented(message: &str) -> bool {
    let message = words(message).join(" ");
    ["todo", "tbd", "unimplemented", "stub", "notimplemented", "notimplementederror"]
        .iter()
        .any(|w| message.split(' ').any(|m| m == *w))
        || ["not implemented", "not yet implemented", "implement me", "implement this", "to be implemented"]
            .iter()
            .any(|p| message.contains(p))
}

/// Whether a not-implemented error's message says that another class provides the
/// code: "subclasses must implement this", "abstract".
pub(super) fn says_abstract(message: &str) -> bool {
    let words = words(message);
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "subclass" | "subclasses" | "subclassed" | "override" | "overridden" | "abstract" | "derived"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        words(s)
    }

    #[test]
    fn placeholder_phrases_stand_in_for_code() {
        for c in [
            "// ... rest of the code",
            "# existing code here",
            "/* implementation omitted for brevity */",
            "// Add your logic here",
            "// TODO: implement",
            "<!-- ... -->",
            "// ... existing code ...",
        ] {
            assert!(stands_in(c), "{c}");
        }
    }

    #[test]
    fn ordinary_comments_do_not_stand_in_for_code() {
        for c in [
            "// TODO: handle unicode",
            "# Implementation",
            "// unchanged",
            "/* ............ */",
            "// The rest of the code assumes sorted input and a trailing newline in every record",
        ] {
            assert!(!stands_in(c), "{c}");
        }
    }

    #[test]
    fn an_empty_body_comment_says_code_goes_here_unless_it_explains_a_no_op() {
        assert!(says_code_goes_here(&w("// TODO: start the timer")));
        assert!(says_code_goes_here(&w("# timer logic here")));
        assert!(!says_code_goes_here(&w("// nothing to flush: writes are unbuffered")));
        assert!(!says_code_goes_here(&w("// intentionally empty")));
        assert!(!says_code_goes_here(&w("// handled by the browser")));
    }

    #[test]
    fn not_implemented_messages() {
        assert!(says_not_implemented("Not implemented"));
        assert!(says_not_implemented("TODO"));
        assert!(says_not_implemented("NotImplementedError"));
        assert!(!says_not_implemented("todos must be a list"));
        assert!(says_abstract("Subclasses must implement read()"));
        assert!(!says_abstract("not implemented yet"));
    }
}
