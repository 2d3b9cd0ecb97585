//! Notebooks over stdio: building one cell by cell with `edit_notebook`, and editing, reading
//! and describing a large one (200 code cells, each with a ~50 KB PNG, about 10 MB), against
//! what a user would otherwise run: Python's nbformat reading the notebook, changing it and
//! writing it back.
//!
//! 1. A notebook of 200 cells (code cells of ~20 lines of Python with markdown between) built
//!    from nothing in calls of at most 8,000 characters of arguments: each call's time, and the
//!    whole build's.
//! 2. On the large notebook, written directly into the root as nbformat writes it: insert a cell
//!    at the end, replace a cell's source in the middle, delete a cell (`edit_notebook`); a string
//!    replaced inside one cell (`edit_file`); the first page of cells (`read_file`);
//!    `get_file_info`. Each repeated, p50 / p95 of the calls.
//! 3. The same changes with nbformat (`nbformat.read`, the change, `nbformat.write`) on a copy of
//!    the same file, each operation in one Python process repeated as often (start-up excluded),
//!    and separately one process per operation (start-up included). The interpreter is the one
//!    `FILEWRIGHT_BENCH_PYTHON` names; without it, or without nbformat there, the comparison is
//!    skipped and the bench says so.
//!
//! `cargo bench --bench notebooks` (release build; `FILEWRIGHT_NOTEBOOK_REPEATS` sets the calls
//! per operation, 20 by default). Without `--bench` (as `cargo test --benches` runs it): a
//! 40-cell build and 3 calls per operation, to show that it runs.

#[path = "common/stdio.rs"]
mod stdio;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};
use stdio::Server;

/// The most characters of arguments one `edit_notebook` call of the build sends (the issue's
/// "each call ≤ ~8,000 characters").
const CALL_CHARS: usize = 8_000;

/// Code cells in the large notebook, each with one image.
const LARGE_CELLS: usize = 200;

/// Bytes of each image before base64 (about 50 KB after).
const IMAGE_BYTES: usize = 37_500;

/// What nbformat does for each operation, in one process: `op path repeats`, printing each
/// repetition's seconds as JSON. Start-up and `import nbformat` are outside the timings.
const NBFORMAT_SCRIPT: &str = r#"
import json, sys, time
import nbformat
op, path, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
times = []
for i in range(repeats):
    start = time.perf_counter()
    nb = nbformat.read(path, as_version=4)
    if op == "insert":
        nb.cells.append(nbformat.v4.new_code_cell("total_%d = sum(range(%d))\nprint(total_%d)\n" % (i, i, i)))
    elif op == "replace":
        cell = nb.cells[100 + i]
        cell.source = "summary_%d = frame.describe()\nsummary_%d\n" % (i, i)
        cell.outputs = []
        cell.execution_count = None
    elif op == "delete":
        del nb.cells[50]
    elif op == "edit":
        cell = nb.cells[120]
        cell.source = cell.source.replace("threshold_120 = %d\n" % i, "threshold_120 = %d\n" % (i + 1))
    if op != "read":
        nbformat.write(nb, path)
    times.append(time.perf_counter() - start)
print(json.dumps(times))
"#;

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let repeats: usize = match std::env::var("FILEWRIGHT_NOTEBOOK_REPEATS") {
        Ok(n) if full => n.parse().expect("FILEWRIGHT_NOTEBOOK_REPEATS: a number"),
        _ if full => 20,
        _ => 3,
    };
    let build_cells = if full { 200 } else { 40 };
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_filewright"));
    command
        .arg("--root")
        .arg(root.path())
        .arg("--state-dir")
        .arg(state.path())
        .env("FILEWRIGHT_LOG", "error");
    let (mut server, _) = Server::spawn(command, Vec::new());

    // 1. The build.
    let build = build_notebook(&mut server, root.path(), build_cells);

    // 2. The large notebook, and a copy of it for nbformat.
    let large = large_notebook(LARGE_CELLS);
    let large_mb = large.len() as f64 / 1e6;
    std::fs::write(root.path().join("large.ipynb"), &large).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let copy = scratch.path().join("large.ipynb");
    std::fs::write(&copy, &large).unwrap();
    let (ours, page_chars) = edit_large(&mut server, repeats);
    drop(server);

    // 3. nbformat on the same bytes.
    let python = nbformat_python();
    if let Ok(python) = &python {
        let out = Command::new(python)
            .args(["-c", "import nbformat, sys; sys.stdout.write(nbformat.writes(nbformat.read(sys.argv[1], 4)) + '\\n')"])
            .arg(&copy)
            .output()
            .unwrap();
        assert!(out.stdout == large, "nbformat does not write the large notebook back byte for byte");
    }
    let theirs = python.as_ref().ok().map(|python| {
        ["insert", "replace", "delete", "edit", "read"]
            .map(|op| (op, time_nbformat(python, op, &copy, &large, repeats)))
    });

    println!("\n### Build: {build_cells} cells from nothing, calls of at most {CALL_CHARS} characters\n");
    println!("| calls | cells per call | per call p50 / p95 | first / last call | whole build |");
    println!("|---:|---:|---|---|---|");
    println!(
        "| {} | {:.1} | {} | {:.2} / {:.2} ms | {:.0} ms |",
        build.calls.len(),
        build_cells as f64 / build.calls.len() as f64,
        p50_p95(&build.calls),
        ms(build.calls[0]),
        ms(*build.calls.last().unwrap()),
        ms(build.total),
    );
    println!(
        "\n### A {large_mb:.1} MB notebook: {LARGE_CELLS} code cells, each with a ~50 KB PNG; {repeats} calls each\n"
    );
    if let Err(why) = &python {
        println!("(the nbformat comparison was skipped: {why})\n");
    }
    println!(
        "| operation | filewright p50 / p95 | nbformat read+change+write p50 / p95 | nbformat, one process each (start-up included) p50 |"
    );
    println!("|---|---|---|---|");
    for (name, op, times) in &ours {
        let (inproc, process) = match (&theirs, op) {
            (Some(theirs), Some(op)) => {
                let (_, (inproc, process)) = theirs.iter().find(|(o, _)| o == op).unwrap();
                (p50_p95(inproc), format!("{:.0} ms", ms(percentile(process, 50))))
            }
            (None, Some(_)) => ("skipped".into(), "skipped".into()),
            (_, None) => ("-".into(), "-".into()),
        };
        println!("| {name} | {} | {inproc} | {process} |", p50_p95(times));
    }
    println!("\n`read_file`'s first page: {page_chars} characters of text.");
}

/// The calls of the build, and its wall time.
struct Build {
    calls: Vec<Duration>,
    total: Duration,
}

/// Builds `build.ipynb` from nothing: `cells` cells, code and markdown in turn, sent in calls
/// whose arguments stay within [`CALL_CHARS`]. Checks the result has every cell.
fn build_notebook(server: &mut Server, root: &Path, cells: usize) -> Build {
    let mut calls = Vec::new();
    let mut batch: Vec<Value> = Vec::new();
    let args = |batch: &[Value]| json!({"path": "build.ipynb", "edits": batch});
    let started = Instant::now();
    let mut send = |server: &mut Server, batch: &mut Vec<Value>| {
        let t = Instant::now();
        server.call_ok("edit_notebook", args(batch));
        calls.push(t.elapsed());
        batch.clear();
    };
    for k in 0..cells {
        let edit = match k % 2 {
            0 => json!({"action": "insert", "cell_type": "markdown", "source": markdown_cell(k)}),
            _ => json!({"action": "insert", "source": python_cell(k)}),
        };
        batch.push(edit);
        if args(&batch).to_string().len() > CALL_CHARS {
            let last = batch.pop().unwrap();
            send(server, &mut batch);
            batch.push(last);
        }
    }
    send(server, &mut batch);
    let total = started.elapsed();
    let written: Value = serde_json::from_slice(&std::fs::read(root.join("build.ipynb")).unwrap()).unwrap();
    assert_eq!(written["cells"].as_array().unwrap().len(), cells, "the build lost cells");
    Build { calls, total }
}

/// The operations timed on `large.ipynb`, each `repeats` times.
/// Also the length of `read_file`'s reply.
fn edit_large(server: &mut Server, repeats: usize) -> (Vec<Row>, usize) {
    let path = "large.ipynb";
    let mut rows = Vec::new();
    let mut page_chars = 0;
    let mut time = |name, op, call: &mut dyn FnMut(&mut Server, usize)| {
        let times = (0..repeats)
            .map(|i| {
                let t = Instant::now();
                call(server, i);
                t.elapsed()
            })
            .collect();
        rows.push((name, op, times));
    };
    time("`edit_notebook`: insert a cell at the end", Some("insert"), &mut |s, i| {
        let source = format!("total_{i} = sum(range({i}))\nprint(total_{i})\n");
        s.call_ok("edit_notebook", json!({"path": path, "edits": [{"action": "insert", "source": source}]}));
    });
    time("`edit_notebook`: replace a cell's source in the middle", Some("replace"), &mut |s, i| {
        let source = format!("summary_{i} = frame.describe()\nsummary_{i}\n");
        let edit = json!({"action": "replace", "index": 100 + i, "source": source});
        s.call_ok("edit_notebook", json!({"path": path, "edits": [edit]}));
    });
    time("`edit_notebook`: delete a cell", Some("delete"), &mut |s, _| {
        s.call_ok("edit_notebook", json!({"path": path, "edits": [{"action": "delete", "index": 50}]}));
    });
    time("`edit_file`: a string inside one cell", Some("edit"), &mut |s, i| {
        let args = json!({"path": path, "old_string": format!("threshold_120 = {i}\n"),
            "new_string": format!("threshold_120 = {}\n", i + 1)});
        s.call_ok("edit_file", args);
    });
    time("`read_file`: first page of cells", Some("read"), &mut |s, _| {
        let reply = s.call_ok("read_file", json!({"path": path}));
        let reply: Value = serde_json::from_str(&reply).unwrap();
        let text = reply["result"]["content"][0]["text"].as_str().unwrap_or_default();
        page_chars = text.chars().count();
        assert!(text.contains("threshold_0 = 0"), "the first page does not show the first cell");
        assert!(!text.contains("iVBORw0KGgo"), "the cells view showed an image's base64");
    });
    time("`get_file_info`", None, &mut |s, _| {
        s.call_ok("get_file_info", json!({"path": path}));
    });
    (rows, page_chars)
}

/// A row of the large notebook's table: its name, the nbformat operation that does the same
/// (None: no counterpart), and each call's time.
type Row = (&'static str, Option<&'static str>, Vec<Duration>);

/// The interpreter `FILEWRIGHT_BENCH_PYTHON` names, when it has nbformat; otherwise why not.
fn nbformat_python() -> Result<PathBuf, String> {
    let python = std::env::var_os("FILEWRIGHT_BENCH_PYTHON")
        .ok_or("FILEWRIGHT_BENCH_PYTHON is not set (a Python with nbformat)")?;
    let out = Command::new(&python)
        .args(["-c", "import nbformat; print(nbformat.__version__)"])
        .output()
        .map_err(|e| format!("{}: {e}", Path::new(&python).display()))?;
    if !out.status.success() {
        return Err(format!("{} has no nbformat", Path::new(&python).display()));
    }
    eprintln!("nbformat {}", String::from_utf8_lossy(&out.stdout).trim());
    Ok(python.into())
}

/// nbformat doing `op` on `path` (reset to `original` first): `repeats` times in one process
/// (each repetition's time), and in fresh processes (each process's wall time).
fn time_nbformat(
    python: &Path,
    op: &str,
    path: &Path,
    original: &[u8],
    repeats: usize,
) -> (Vec<Duration>, Vec<Duration>) {
    let run = |repeats: usize| {
        let out = Command::new(python)
            .args(["-c", NBFORMAT_SCRIPT, op])
            .arg(path)
            .arg(repeats.to_string())
            .output()
            .unwrap();
        assert!(out.status.success(), "nbformat {op}: {}", String::from_utf8_lossy(&out.stderr));
        let seconds: Vec<f64> = serde_json::from_slice(&out.stdout).unwrap();
        seconds.into_iter().map(Duration::from_secs_f64).collect::<Vec<_>>()
    };
    std::fs::write(path, original).unwrap();
    let inproc = run(repeats);
    let processes = (0..repeats.min(5))
        .map(|_| {
            std::fs::write(path, original).unwrap();
            let t = Instant::now();
            run(1);
            t.elapsed()
        })
        .collect();
    std::fs::write(path, original).unwrap();
    (inproc, processes)
}

/// A notebook as nbformat writes it (keys sorted, one space of indentation, sources as lists
/// of lines, a final newline): `cells` code cells, each with an execution count and one
/// display_data output of a PNG (~50 KB of base64) and its text/plain.
fn large_notebook(cells: usize) -> Vec<u8> {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let cells: Vec<Value> = (0..cells)
        .map(|k| {
            let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
            png.extend((png.len()..IMAGE_BYTES).map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            }));
            let source = format!("{}threshold_{k} = 0\n{}", python_cell(k), plot_lines(k));
            json!({
                "cell_type": "code",
                "execution_count": k + 1,
                "id": format!("{:08x}", 0x5eed_0000_u32 + k as u32),
                "metadata": {},
                "outputs": [{
                    "data": {
                        "image/png": base64::engine::general_purpose::STANDARD.encode(&png),
                        "text/plain": ["<Figure size 640x480 with 1 Axes>"],
                    },
                    "metadata": {},
                    "output_type": "display_data",
                }],
                "source": lines(&source),
            })
        })
        .collect();
    let notebook = json!({
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"name": "python", "version": "3.11.4"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    });
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&notebook, &mut serializer).unwrap();
    out.push(b'\n');
    out
}

/// A source as nbformat stores it: its lines, each with its newline but the last.
fn lines(source: &str) -> Vec<&str> {
    source.split_inclusive('\n').collect()
}

/// The lines that draw a cell's figure.
fn plot_lines(k: usize) -> String {
    format!(
        "fig, ax = plt.subplots()\nax.plot(series_{k}.index, series_{k}.values)\nax.set_title(\"step {k}\")"
    )
}

/// Markdown between code cells: a heading and a few sentences.
fn markdown_cell(k: usize) -> String {
    let topic = TOPICS[k / 2 % TOPICS.len()];
    format!(
        "## Step {}: {topic}\n\nHere we look at the {topic} of the measurements collected so far, \
         drop the rows the sensors flagged and compare the result with the previous step.\n\n\
         - inputs: `frame_{k}` and the calibration table\n- output: `series_{}`, used by the plots below\n",
        k / 2 + 1,
        k + 1
    )
}

const TOPICS: [&str; 8] =
    ["temperature", "pressure", "humidity", "wind speed", "rainfall", "solar output", "load", "noise"];

/// About 20 lines of Python in the style of an analysis notebook: one of a few shapes,
/// named after `k`, now and then with an IPython magic.
fn python_cell(k: usize) -> String {
    let topic = TOPICS[k / 2 % TOPICS.len()].replace(' ', "_");
    match k % 3 {
        1 => format!(
            "%matplotlib inline\nimport numpy as np\nimport pandas as pd\nimport matplotlib.pyplot as plt\n\n\n\
             def load_{topic}_{k}(path, columns=None):\n    \"\"\"Read the {topic} table and drop the rows the sensors flagged.\"\"\"\n\
             \x20   frame = pd.read_csv(path, usecols=columns, parse_dates=[\"timestamp\"])\n\
             \x20   frame = frame[~frame[\"flagged\"]].dropna(subset=[\"{topic}\"])\n\
             \x20   frame[\"{topic}\"] = frame[\"{topic}\"].astype(float)\n\
             \x20   mean, std = frame[\"{topic}\"].mean(), frame[\"{topic}\"].std()\n\
             \x20   frame[\"{topic}_z\"] = (frame[\"{topic}\"] - mean) / std\n\
             \x20   return frame.set_index(\"timestamp\").sort_index()\n\n\n\
             frame_{k} = load_{topic}_{k}(\"data/{topic}.csv\")\n\
             series_{k} = frame_{k}[\"{topic}_z\"].resample(\"1h\").mean()\n\
             print(frame_{k}.shape, series_{k}.isna().sum())\nframe_{k}.head()\n"
        ),
        2 => format!(
            "from dataclasses import dataclass\n\n\n@dataclass\nclass Window{k}:\n    start: int\n    stop: int\n\
             \x20   label: str = \"{topic}\"\n\n    def width(self) -> int:\n        return self.stop - self.start\n\n\
             \x20   def contains(self, t: int) -> bool:\n        return self.start <= t < self.stop\n\n\n\
             windows_{k} = [Window{k}(i, i + 24) for i in range(0, 24 * 7, 24)]\n\
             counts_{k} = {{w.start: sum(1 for t in range(200) if w.contains(t)) for w in windows_{k}}}\n\
             series_{k} = pd.Series(counts_{k}, dtype=float)\n\
             assert all(w.width() == 24 for w in windows_{k}), \"uneven windows\"\nseries_{k}.describe()\n"
        ),
        _ => format!(
            "!ls data | head -3\nrolling_{k} = series_{p}.rolling(window=12, min_periods=6)\n\
             summary_{k} = pd.DataFrame({{\n    \"mean\": rolling_{k}.mean(),\n    \"std\": rolling_{k}.std(),\n\
             \x20   \"max\": rolling_{k}.max(),\n}})\n\n\
             outliers_{k} = summary_{k}[summary_{k}[\"std\"] > 2 * summary_{k}[\"std\"].median()]\n\
             for when, row in outliers_{k}.iterrows():\n    if row[\"max\"] > 3:\n\
             \x20       print(f\"{{when:%Y-%m-%d %H:%M}}: {topic} peak {{row['max']:.2f}}\")\n\
             \x20   elif row[\"max\"] < -3:\n        print(f\"{{when:%Y-%m-%d %H:%M}}: {topic} dip\")\n\n\
             series_{k} = summary_{k}[\"mean\"].fillna(method=\"ffill\")\n\
             ratio_{k} = len(outliers_{k}) / max(len(summary_{k}), 1)\nprint(f\"{{ratio_{k}:.1%}} of windows are outliers\")\n",
            p = k.saturating_sub(2)
        ),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The `p`th percentile (nearest rank) of `times`.
fn percentile(times: &[Duration], p: usize) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted[((sorted.len() * p).div_ceil(100)).clamp(1, sorted.len()) - 1]
}

fn p50_p95(times: &[Duration]) -> String {
    let (p50, p95) = (ms(percentile(times, 50)), ms(percentile(times, 95)));
    if p50 < 10.0 { format!("{p50:.2} / {p95:.2} ms") } else { format!("{p50:.0} / {p95:.0} ms") }
}
