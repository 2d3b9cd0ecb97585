//! Edit matching: exact and tolerant replacements and anchored line edits over any text never
//! panic, and a successful exact single replacement made exactly one change, keeping the text
//! outside it.
#![no_main]

use filewright::files::anchor::{Anchor, anchor_of};
use filewright::files::{Edit, apply_edits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut parts = text.splitn(4, '\u{0}');
    let (Some(original), Some(old), Some(new)) = (parts.next(), parts.next(), parts.next()) else { return };
    let selector = parts.next().unwrap_or("");
    // A plain replacement, as models send most often.
    let replace = Edit::Replace { old: old.to_string(), new: new.to_string(), replace_all: selector.is_empty() };
    if let Ok(edited) = apply_edits("f.txt", original, std::slice::from_ref(&replace), false) {
        if !selector.is_empty() && !edited.converted_to_crlf && !old.is_empty() {
            assert_eq!(edited.replacements, vec![1]);
            assert_eq!(edited.text, original.replacen(old, new, 1));
        }
    }
    // Tolerant: whatever it finds, it never panics (the matcher's own tests check what it keeps).
    let _ = apply_edits("f.txt", original, std::slice::from_ref(&replace), true);
    // Line edits: anchors taken from the text itself (valid) and from the selector (anything).
    let lines: Vec<&str> = original.split('\n').collect();
    let n = selector.len() % (lines.len() + 1);
    let valid = |i: usize| Anchor::parse(&anchor_of(i, lines.get(i.wrapping_sub(1)).copied().unwrap_or(""))).unwrap();
    let mut edits = Vec::new();
    if n >= 1 {
        edits.push(Edit::Lines { from: valid(n), to: valid(n.max(1)), new: new.to_string() });
    }
    edits.push(Edit::Insert { after: Anchor { line: 0, hash: None, cell: None }, new: old.to_string() });
    if let Some(anchor) = Anchor::parse(selector) {
        assert_eq!(Anchor::parse(&anchor.to_string()), Some(anchor.clone()), "an anchor round-trips");
        edits.push(Edit::Insert { after: anchor.clone(), new: new.to_string() });
        edits.push(Edit::Lines { from: anchor.clone(), to: anchor, new: String::new() });
    }
    let _ = apply_edits("f.txt", original, &edits, true);
    let _ = apply_edits("f.txt", &original.replace('\n', "\r\n"), &edits, true);
});
