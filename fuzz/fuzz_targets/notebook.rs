//! Notebooks: any text read as a notebook never panics, and every cell edit of one that parses
//! leaves a notebook that parses, with the cells meant and every other cell's bytes kept.
#![no_main]

use filewright::notebook::{CellEdit, EditAction, apply, edit_in_cells, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (notebook, source) = text.split_once('\u{0}').unwrap_or((&text, "x = 1\n"));
    let Ok(nb) = parse(notebook) else { return };
    let n = nb.cells.len();
    let before: Vec<String> = nb.cells.iter().map(|c| notebook[c.span.clone()].to_owned()).collect();
    let mut ids = 0;
    let mut fresh = || {
        ids += 1;
        format!("f{ids}")
    };
    for (action, index) in [(EditAction::Insert, 0), (EditAction::Insert, n), (EditAction::Replace, 0), (EditAction::Delete, n / 2)] {
        let source = (action != EditAction::Delete).then(|| source.to_owned());
        let edit = CellEdit { action, cell_id: None, index: Some(index), cell_type: None, source };
        let Ok(applied) = apply(notebook, &[edit], &mut fresh) else { continue };
        let after = parse(&applied.text).expect("an edited notebook parses");
        let kept: Vec<&str> = after.cells.iter().map(|c| &applied.text[c.span.clone()]).collect();
        match action {
            EditAction::Insert => assert_eq!(kept.len(), n + 1),
            EditAction::Delete => assert_eq!(kept.len(), n - 1),
            EditAction::Replace => assert_eq!(&kept[1..], &before[1..]),
        }
    }
    let replace = filewright::files::Edit::Replace { old: source.to_owned(), new: "y".into(), replace_all: true };
    if let Ok(edited) = edit_in_cells("f.ipynb", notebook, &[replace], true) {
        parse(&edited.text).expect("an edit in cells leaves a notebook that parses");
    }
});
