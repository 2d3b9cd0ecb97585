//! read_file and read_multiple_files on a notebook: its cells, never its escaped JSON or its
//! base64, a page of whole cells within the result's budget; the JSON itself with `raw: true`,
//! and a broken notebook shown as its lines with the reason.

use serde::Serialize;
use serde_json::{Value, json};

use crate::util::{Reply, Root, Server};

const TEXT_CHARS: usize = 50_000;
const RESULT_CHARS: usize = 120_000;

/// A notebook as nbformat writes it (one space of indent, a final newline).
fn notebook(cells: Vec<Value>) -> String {
    let nb = json!({
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5
    });
    let mut out = Vec::new();
    let mut ser =
        serde_json::Serializer::with_formatter(&mut out, serde_json::ser::PrettyFormatter::with_indent(b" "));
    nb.serialize(&mut ser).unwrap();
    String::from_utf8(out).unwrap() + "\n"
}

/// nbformat's multiline string: the lines, each with its newline but the last.
fn lines(source: &str) -> Value {
    json!(source.split_inclusive('\n').collect::<Vec<_>>())
}

fn code(id: &str, source: &str, count: u64, outputs: Value) -> Value {
    json!({"cell_type": "code", "execution_count": count, "id": id, "metadata": {}, "outputs": outputs,
        "source": lines(source)})
}

fn markdown(id: &str, source: &str) -> Value {
    json!({"cell_type": "markdown", "id": id, "metadata": {}, "source": lines(source)})
}

/// `bytes` characters of base64-looking data, the same every time.
fn base64(bytes: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut state: u32 = 12345;
    (0..bytes)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            ALPHABET[(state >> 16) as usize % 64] as char
        })
        .collect()
}

fn image_output(png: &str) -> Value {
    json!([{"output_type": "display_data", "metadata": {},
        "data": {"image/png": png, "text/plain": ["<Figure size 640x480 with 1 Axes>"]}}])
}

/// A small notebook: a heading, a cell that printed, a cell with a plot.
fn small() -> String {
    notebook(vec![
        markdown("intro", "# Sales\nQuarterly totals."),
        code(
            "load",
            "import pandas as pd\ndf = pd.read_csv(\"sales.csv\")\nprint(len(df))",
            1,
            json!([{"name": "stdout", "output_type": "stream", "text": ["120\n"]}]),
        ),
        code("plot", "df.plot()", 2, image_output(&base64(4000))),
    ])
}

/// The characters of a result's text, and of its text and `structuredContent`.
fn sizes(reply: &Reply) -> (usize, usize) {
    let text: usize =
        reply.0.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.chars().count()).sum();
    let structured =
        reply.0.structured_content.as_ref().map_or(0, |v| serde_json::to_string(v).unwrap().chars().count());
    (text, text + structured)
}

#[tokio::test]
async fn read_file_shows_a_notebook_as_cells_with_numbered_source_and_output_summaries() {
    let root = Root::new();
    let server = Server::spawn(&root).await;
    server.call("write_file", json!({"path": "sales.ipynb", "content": small()})).await.ok();
    let reply = server.call("read_file", json!({"path": "sales.ipynb"})).await.ok();
    let text = reply.text();
    assert!(
        text.starts_with("notebook: python, nbformat 4.5, 3 cells; cells 0-2 shown."),
        "the header names the language, version and cells: {text}"
    );
    for expected in [
        "cell 0 [markdown] id=intro\n1\t# Sales\n2\tQuarterly totals.",
        "cell 1 [code] id=load execution_count=1\n1\timport pandas as pd\n2\tdf = pd.read_csv(\"sales.csv\")\n\
         3\tprint(len(df))\noutputs: stream (stdout, 1 line, 4 B)",
        "cell 2 [code] id=plot execution_count=2\n1\tdf.plot()\n\
         outputs: display_data (image/png 3.9 KB, text/plain 1 line, 33 B)",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in {text}");
    }
    assert!(
        !text.contains(&base64(4000)[..40]) && !text.contains("\\n\""),
        "no base64, no escaped JSON: {text}"
    );
    assert!(text.contains("raw: true"), "says how to see the JSON: {text}");
    assert!(text.contains("[sales.ipynb: cells 0-2 of 3;") && text.contains("last cell]"), "{text}");
    let j = reply.json();
    assert_eq!(j["notebook"]["as_cells"], true);
    assert_eq!(j["notebook"]["language"], "python");
    assert_eq!(j["notebook"]["nbformat"], "4.5");
    assert_eq!(j["notebook"]["total_cells"], 3);
    assert_eq!(
        (j["notebook"]["first_cell"].as_u64(), j["notebook"]["last_cell"].as_u64()),
        (Some(0), Some(2))
    );
    assert_eq!((j["start_line"].as_u64(), j["end_line"].as_u64()), (Some(0), Some(2)));
    assert_eq!(j["more"], false);
    assert!(j.get("next_offset").is_none());
    let file = root.read("sales.ipynb");
    assert_eq!(j["total_bytes"], file.len(), "the file's own facts");
    assert_eq!(j["total_lines"], String::from_utf8(file).unwrap().lines().count());
    server.stop().await;
}

#[tokio::test]
async fn offset_and_limit_count_cells_and_a_negative_offset_counts_from_the_end() {
    let cells = (0..12).map(|i| markdown(&format!("m{i}"), &format!("note {i}"))).collect();
    let root = Root::new().file("notes.ipynb", notebook(cells));
    let server = Server::spawn(&root).await;
    let reply = server.call("read_file", json!({"path": "notes.ipynb", "offset": 5, "limit": 3})).await.ok();
    let text = reply.text();
    assert!(
        text.contains("cells 5-7 shown") && text.contains("cell 5 [markdown] id=m5\n1\tnote 5"),
        "{text}"
    );
    assert!(
        text.contains("cell 7 [markdown]") && !text.contains("cell 4 ") && !text.contains("cell 8 "),
        "{text}"
    );
    assert!(text.contains("more cells follow: read_file with offset 8"), "{text}");
    let j = reply.json();
    assert_eq!(
        (j["start_line"].as_u64(), j["end_line"].as_u64(), j["next_offset"].as_u64()),
        (Some(5), Some(7), Some(8))
    );
    let reply = server.call("read_file", json!({"path": "notes.ipynb", "offset": -2})).await.ok();
    let text = reply.text();
    assert!(text.contains("cells 10-11 shown") && text.contains("cell 11 [markdown] id=m11"), "{text}");
    assert!(!text.contains("cell 9 "), "{text}");
    let reply = server.call("read_file", json!({"path": "notes.ipynb"})).await.ok();
    assert!(reply.text().contains("cell 0 [markdown] id=m0"), "offset defaults to the first cell");
    let error = server.call("read_file", json!({"path": "notes.ipynb", "offset": 12})).await.err();
    assert!(error.contains("has 12 cells") && error.contains("from 0 to 11"), "{error}");
    server.stop().await;
}

#[tokio::test]
async fn raw_true_shows_the_notebook_json_as_numbered_lines() {
    let root = Root::new().file("sales.ipynb", small());
    let server = Server::spawn(&root).await;
    let cells = server.call("read_file", json!({"path": "sales.ipynb", "limit": 1})).await.ok();
    assert!(cells.text().starts_with("notebook: python"), "without raw: cells, {}", cells.text());
    let reply = server.call("read_file", json!({"path": "sales.ipynb", "raw": true, "limit": 4})).await.ok();
    let text = reply.text();
    assert!(text.starts_with("1\t{\n2\t \"cells\": [\n3\t  {\n4\t   \"cell_type\": \"markdown\","), "{text}");
    let j = reply.json();
    assert!(j.get("notebook").is_none(), "read as any other file: {j}");
    assert_eq!(
        (j["start_line"].as_u64(), j["end_line"].as_u64(), j["next_offset"].as_u64()),
        (Some(1), Some(4), Some(5))
    );
    server.stop().await;
}

#[tokio::test]
async fn a_broken_notebook_is_shown_as_its_lines_with_the_reason() {
    let whole = small();
    let cut = &whole[..whole.len() / 3];
    let cut = &cut[..cut.rfind('\n').unwrap() + 1];
    let root = Root::new().file("cut.ipynb", cut).file("other.ipynb", "{\"not\": \"a notebook\"}\n");
    let server = Server::spawn(&root).await;
    let reply = server.call("read_file", json!({"path": "cut.ipynb"})).await.ok();
    let text = reply.text();
    assert!(
        text.starts_with(
            "(cut.ipynb: a broken notebook, not shown as cells: its JSON ends before it is complete"
        ),
        "{text}"
    );
    assert!(text.contains("\n1\t{\n2\t \"cells\": ["), "its lines follow: {text}");
    let j = reply.json();
    assert_eq!(j["notebook"]["as_cells"], false);
    assert!(j["notebook"]["broken"].as_str().unwrap().contains("cut off"), "{j}");
    assert_eq!(j["total_lines"], cut.lines().count());
    let reply = server.call("read_file", json!({"path": "other.ipynb"})).await.ok();
    let text = reply.text();
    assert!(text.contains("not shown as cells") && text.contains("`cells`"), "{text}");
    assert!(text.contains("1\t{\"not\": \"a notebook\"}"), "{text}");
    server.stop().await;
}

/// 200 code cells, each with a ~50 KB PNG and its text/plain: a 10 MB file whose pages each
/// fit a result, show whole cells, never base64, and together show every cell once.
#[tokio::test]
async fn a_notebook_of_200_cells_with_images_reads_within_the_result_budget() {
    let png = base64(50_000);
    let cells = (0..200)
        .map(|i| {
            code(
                &format!("c{i:03}"),
                &format!("fig, ax = plt.subplots()\nax.plot(x, x ** {i})\nfig"),
                i + 1,
                image_output(&png),
            )
        })
        .collect();
    let text = notebook(cells);
    assert!(text.len() > 10_000_000);
    let root = Root::new().file("plots.ipynb", &text);
    let server = Server::spawn(&root).await;
    let mut offset = 0;
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let reply = server.call("read_file", json!({"path": "plots.ipynb", "offset": offset})).await.ok();
        let (chars, whole) = sizes(&reply);
        assert!(
            chars <= TEXT_CHARS && whole <= RESULT_CHARS,
            "page at {offset}: {chars} of text, {whole} in all"
        );
        let page = reply.text();
        assert!(!page.contains(&png[..40]), "no base64 on the page at {offset}");
        for cell in page.split("\n\n").filter(|b| b.starts_with("cell ")) {
            let index: usize = cell[5..].split(' ').next().unwrap().parse().unwrap();
            assert!(cell.contains("outputs: display_data (image/png 48.8 KB, text/plain 1 line"), "{cell}");
            seen.push(index);
        }
        pages += 1;
        let j = reply.json();
        let Some(next) = j["next_offset"].as_u64() else { break };
        assert_eq!(next, j["end_line"].as_u64().unwrap() + 1, "a page ends at a cell");
        assert!(page.contains(&format!("read_file with offset {next}")), "{}", &page[page.len() - 300..]);
        offset = next;
    }
    assert_eq!(seen, (0..200).collect::<Vec<_>>(), "every cell once, in order");
    assert_eq!(pages, 1, "200 small cells without their images fit one page");
    server.stop().await;
}

/// Cells with more source than a page holds: each page is whole cells within the budget,
/// and says where to read on.
#[tokio::test]
async fn a_notebook_longer_than_a_page_reads_in_pages_of_whole_cells() {
    let png = base64(50_000);
    let source: String =
        (0..60).map(|l| format!("result_{l} = compute(data, step={l})  # a line of some length\n")).collect();
    let cells = (0..200).map(|i| code(&format!("c{i:03}"), &source, i + 1, image_output(&png))).collect();
    let root = Root::new().file("long.ipynb", notebook(cells));
    let server = Server::spawn(&root).await;
    let mut offset = 0;
    let mut seen = Vec::new();
    loop {
        let reply = server.call("read_file", json!({"path": "long.ipynb", "offset": offset})).await.ok();
        let (chars, whole) = sizes(&reply);
        assert!(
            chars <= TEXT_CHARS && whole <= RESULT_CHARS,
            "page at {offset}: {chars} of text, {whole} in all"
        );
        let page = reply.text();
        let cells: Vec<&str> = page.split("\n\n").filter(|b| b.starts_with("cell ")).collect();
        for cell in &cells {
            assert!(
                cell.contains("\n60\tresult_59") && cell.contains("\noutputs: display_data"),
                "whole cells only"
            );
            seen.push(cell[5..].split(' ').next().unwrap().parse::<usize>().unwrap());
        }
        let Some(next) = reply.json()["next_offset"].as_u64() else { break };
        assert!(chars > TEXT_CHARS / 2, "a page is well filled: {chars}");
        offset = next;
    }
    assert_eq!(seen, (0..200).collect::<Vec<_>>());
    server.stop().await;
}

#[tokio::test]
async fn read_multiple_files_shows_a_notebook_as_cells() {
    let root = Root::new().file("sales.ipynb", small()).file("notes.txt", "plain\n");
    let server = Server::spawn(&root).await;
    let reply = server.call("read_multiple_files", json!({"paths": ["sales.ipynb", "notes.txt"]})).await.ok();
    let text = reply.text();
    assert!(text.contains("== sales.ipynb ==\nnotebook: python, nbformat 4.5, 3 cells"), "{text}");
    assert!(text.contains("cell 2 [code] id=plot execution_count=2\n1\tdf.plot()"), "{text}");
    assert!(text.contains("== notes.txt ==\n1\tplain"), "{text}");
    assert_eq!(reply.json()["files"][0]["file"]["notebook"]["total_cells"], 3);
    let reply = server
        .call("read_multiple_files", json!({"paths": ["sales.ipynb"], "raw": true, "limit": 2}))
        .await
        .ok();
    assert!(reply.text().contains("== sales.ipynb ==\n1\t{\n2\t \"cells\": ["), "{}", reply.text());
    server.stop().await;
}

#[tokio::test]
async fn an_explicit_limit_of_cells_keeps_the_result_within_its_bound() {
    let huge: String = (0..200_000).map(|k| format!("v{k} = {k}\n")).collect();
    let nb = notebook(vec![
        code("a", "a = 1\n", 1, json!([])),
        code("big", &huge, 2, json!([])),
        code("b", "b = 2\n", 3, json!([])),
    ]);
    let root = Root::new().file("huge.ipynb", nb);
    let server = Server::spawn(&root).await;
    for (offset, limit) in [(0, 2), (0, 3), (1, 1)] {
        let reply = server
            .call("read_file", json!({"path": "huge.ipynb", "offset": offset, "limit": limit}))
            .await
            .ok();
        let (text, _) = sizes(&reply);
        assert!(text <= 50_000, "offset {offset} limit {limit}: {text} characters");
        match offset {
            // The long cell does not fit after another: the page ends before it.
            0 => assert_eq!(reply.json()["next_offset"], 1, "{}", &reply.text()[..300]),
            // Alone on its page it is cut at a line, and the page says so.
            _ => assert!(reply.text().contains("cell 1 is cut here"), "{}", &reply.text()[..300]),
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn a_cell_whose_source_is_not_text_is_shown_and_never_rewritten_from_what_is_shown() {
    let nb = "{\"cells\":[{\"cell_type\":\"code\",\"execution_count\":null,\"id\":\"c0\",\"metadata\":{},\"outputs\":[],\"source\":\"x = '\\ud800' + 1\"}],\"metadata\":{},\"nbformat\":4,\"nbformat_minor\":5}";
    let root = Root::new().file("sur.ipynb", nb);
    let server = Server::spawn(&root).await;
    let read = server.call("read_file", json!({"path": "sur.ipynb"})).await.ok();
    assert!(read.text().contains("1\tx = '\u{fffd}' + 1"), "{}", read.text());
    let text = server
        .call("edit_file", json!({"path": "sur.ipynb", "old_string": "+ 1", "new_string": "+ 2"}))
        .await
        .err();
    assert!(text.contains("lone surrogate") && text.contains("edit_notebook"), "{text}");
    assert_eq!(root.read("sur.ipynb"), nb.as_bytes());
    let retyped = json!({"path": "sur.ipynb", "edits": [{"action": "replace", "cell_id": "c0", "cell_type": "markdown"}]});
    server.call("edit_notebook", retyped).await.ok();
    assert!(String::from_utf8(root.read("sur.ipynb")).unwrap().contains("\"source\":\"x = '\\ud800' + 1\""));
    server.stop().await;
}
