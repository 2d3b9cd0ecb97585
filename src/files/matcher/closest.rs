//! The lines of a file nearest to a quote that was not found, so that the model can see
//! what it got wrong.
//!
//! Apart from locating because it is the answer to "nowhere": a similarity ranking, not a
//! match, and it must stay cheap on files with megabyte lines.

/// Characters of each line compared when looking for the closest lines.
const SIMILARITY_CHARS: usize = 300;
/// Lines shown when a quoted text is not found.
const CLOSEST_LINES: usize = 3;

/// The lines of `text` most similar to the first line of `quote` that is not in it (or to its
/// first non-blank line), best first, each with its number, so that the model can correct its
/// quote (what differs shows up here).
pub fn closest_lines(text: &str, quote: &str) -> Vec<(usize, String)> {
    let mut lines = quote.lines().map(str::trim).filter(|l| !l.is_empty());
    let Some(first) = lines.clone().next() else {
        return Vec::new();
    };
    let present = |l: &str| text.lines().any(|t| t.trim() == l);
    let needle = lines.find(|l| !present(l)).unwrap_or(first);
    // Comparing characters is quadratic: cap both sides so a minified megabyte line cannot
    // stall the call.
    let cap = |s: &str| -> String { s.chars().take(SIMILARITY_CHARS).collect() };
    let needle = cap(needle);
    let mut scored: Vec<(f32, usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            (similar::TextDiff::from_chars(needle.as_str(), cap(line.trim()).as_str()).ratio(), i + 1, line)
        })
        .filter(|(score, _, _)| *score >= 0.5)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(CLOSEST_LINES)
        .map(|(_, n, line)| (n, line.trim_end_matches('\r').chars().take(200).collect()))
        .collect()
}
