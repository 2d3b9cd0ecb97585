#!/usr/bin/env python3
"""Does filewright's notebook verdict agree with nbformat's on what is a valid notebook?

    PYTHON_WITH_NBFORMAT notebook-schema-truth.py FILEWRIGHT_BINARY [--seed N] [--count N]

Generates a seeded corpus: valid nbformat 4.0-4.5 notebooks (code, markdown and raw cells,
every output type, attachments, metadata) and mutations of them (missing keys, wrong types,
bad and duplicate ids, an id in a 4.4 notebook, unknown keys, bad outputs and mime bundles,
a later minor version). Each is written into a fresh root, and the binary, driven over MCP
stdio by the official Python SDK, is asked `get_file_info`: its `syntax` verdict says
whether the schema holds (cells hold plain Python, so only the schema can fail).

The truth is nbformat's, strict: `nbformat.validate` with its warnings as errors (it repairs
a missing or duplicate cell id in memory with a warning; the file on disk stays invalid), which
is also what `nbformat.validator.isvalid` says. Prints each disagreement, then
`agreement: A/T (valid V/V', invalid I/I')`; exits 0 only when all agree.
"""
import argparse
import copy
import json
import os
import random
import sys
import tempfile
import warnings

try:
    import anyio
    import nbformat
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
except ImportError as e:  # pragma: no cover
    print(f"needs nbformat and the mcp SDK ({e})", file=sys.stderr)
    sys.exit(2)


def truth(nb):
    """True when nbformat accepts `nb` strictly."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            nbformat.validate(copy.deepcopy(nb))
        return True
    except Exception:  # ValidationError, a warning raised, or nbformat's own assertion
        return False


def cell_id(rng):
    return "".join(rng.choice("abcdef0123456789-_") for _ in range(8))


def output(rng):
    kind = rng.choice(["stream", "execute_result", "display_data", "error"])
    if kind == "stream":
        return {"output_type": "stream", "name": rng.choice(["stdout", "stderr"]), "text": ["a\n", "b"]}
    if kind == "error":
        return {"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["t1", "t2"]}
    data = {"text/plain": ["x"], "image/png": "iVBORw0KGgo=", "application/json": {"a": [1, 2]}}
    out = {"output_type": kind, "data": data, "metadata": {}}
    if kind == "execute_result":
        out["execution_count"] = rng.randint(1, 9)
    return out


def valid(rng):
    minor = rng.randint(0, 5)
    cells = []
    for _ in range(rng.randint(1, 5)):
        kind = rng.choice(["code", "markdown", "raw"])
        cell = {"cell_type": kind, "metadata": {}, "source": rng.choice(["x = 1\n", ["y = 2\n", "z = y"], ""])}
        if kind == "code":
            cell["execution_count"] = rng.choice([None, 1, 7])
            cell["outputs"] = [output(rng) for _ in range(rng.randint(0, 3))]
            if rng.random() < 0.3:
                cell["metadata"] = {"collapsed": False, "scrolled": "auto", "tags": ["a", "b"]}
        else:
            cell["source"] = rng.choice(["# t\n", ["a\n", "b"], ""])
            if rng.random() < 0.3:
                cell["attachments"] = {"i.png": {"image/png": "iVBOR="}}
            if kind == "raw" and rng.random() < 0.5:
                cell["metadata"] = {"format": "text/plain", "name": "n"}
        if minor >= 5:
            cell["id"] = cell_id(rng)
        cells.append(cell)
    if minor >= 5:
        ids = [c["id"] for c in cells]
        if len(set(ids)) != len(ids):
            for i, c in enumerate(cells):
                c["id"] = f"cell-{i}"
    metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    if rng.random() < 0.5:
        metadata["language_info"] = {"name": "python", "codemirror_mode": {"name": "ipython", "version": 3}}
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": minor}


BAD_VALUES = [None, 1, -1, 1.5, "s", "", [], ["s", 1], {}, True]


def mutate(nb, rng):
    """One change to `nb`, in place; returns what it did."""
    cells = nb.get("cells")
    if not isinstance(cells, list) or not cells or not all(isinstance(c, dict) for c in cells) \
            or not isinstance(nb.get("metadata"), dict) or "kernelspec" not in nb["metadata"]:
        nb["extra"] = 1
        return "top_extra"
    code = [c for c in cells if c.get("cell_type") == "code" and isinstance(c.get("outputs"), list)]
    outputs = [o for c in code for o in c["outputs"] if isinstance(o, dict)]
    choices = ["top_extra", "top_missing", "top_type", "meta", "cell_missing", "cell_extra", "cell_type",
               "cell_value", "id", "dup_id", "minor", "kernelspec"]
    if outputs:
        choices += ["output_missing", "output_extra", "output_value", "output_type", "bundle"]
    what = rng.choice(choices)
    cell = rng.choice(cells)
    if what == "top_extra":
        nb[rng.choice(["extra", "worksheets"])] = 1
    elif what == "top_missing":
        del nb[rng.choice(["cells", "metadata", "nbformat_minor"])]
    elif what == "top_type":
        nb[rng.choice(["cells", "metadata", "nbformat_minor"])] = rng.choice(BAD_VALUES)
    elif what == "meta":
        key = rng.choice(["orig_nbformat", "title", "authors", "language_info"])
        nb["metadata"][key] = rng.choice(BAD_VALUES)
    elif what == "kernelspec":
        ks = nb["metadata"]["kernelspec"]
        if not isinstance(ks, dict):
            return "kernelspec"
        if rng.random() < 0.5:
            del ks[rng.choice(["name", "display_name"])]
        else:
            ks[rng.choice(["name", "display_name"])] = rng.choice(BAD_VALUES)
    elif what == "cell_missing":
        keys = [k for k in cell if k != "cell_type"]
        if keys:
            del cell[rng.choice(keys)]
    elif what == "cell_extra":
        cell[rng.choice(["extra", "outputs", "attachments", "execution_count", "id"])] = rng.choice([[], {}, None, "x"])
    elif what == "cell_type":
        cell["cell_type"] = rng.choice(["heading", "Code", None, 1])
    elif what == "cell_value":
        key = rng.choice(["source", "metadata", "execution_count", "outputs", "attachments"])
        if key in cell or rng.random() < 0.3 or not isinstance(cell.get("metadata"), dict):
            cell[key] = rng.choice(BAD_VALUES)
        else:
            cell["metadata"][rng.choice(["tags", "name", "collapsed", "scrolled", "jupyter", "execution", "format"])] = rng.choice(
                BAD_VALUES + [["a", "a"], ["a,b"], "auto", {"iopub.status.busy": 1}, {"k": "v"}]
            )
    elif what == "id":
        cell["id"] = rng.choice(["", "has space", "x" * 65, "x" * 64, "ok\n", "é", 5, None, "a.b", "A-_9"])
    elif what == "dup_id":
        if len(cells) > 1:
            cells[-1]["id"] = cells[0].get("id", "same")
        else:
            cells.append(copy.deepcopy(cell))
    elif what == "minor":
        nb["nbformat_minor"] = rng.choice([4, 5, 6, 9])
    else:
        o = rng.choice(outputs)
        if what == "output_missing":
            keys = [k for k in o if k != "output_type"]
            if keys:
                del o[rng.choice(keys)]
        elif what == "output_extra":
            o[rng.choice(["extra", "execution_count", "name", "data"])] = rng.choice([{}, "x", 1])
        elif what == "output_type":
            o["output_type"] = rng.choice(["pyout", "Stream", None, "future_type"])
        elif what == "output_value":
            key = rng.choice([k for k in o if k != "output_type"] or ["x"])
            o[key] = rng.choice(BAD_VALUES)
        else:
            o["data" if "data" in o else "bundle"] = rng.choice(
                [{"text/plain": 1}, {"application/vnd.x+json": [1]}, {"text/plain": ["a", 2]}, "x", {"image/png": None}]
            )
    return what


async def run(binary, corpus):
    verdicts = []
    with tempfile.TemporaryDirectory() as root:
        for i, (_, nb) in enumerate(corpus):
            with open(os.path.join(root, f"nb{i}.ipynb"), "w", encoding="utf-8") as f:
                json.dump(nb, f, indent=1)
        state = tempfile.mkdtemp()
        params = StdioServerParameters(command=binary, args=["--root", root, "--state-dir", state])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for i in range(len(corpus)):
                    result = await session.call_tool("get_file_info", {"path": f"nb{i}.ipynb"})
                    syntax = (result.structured_content or {}).get("syntax") or {}
                    verdicts.append((syntax.get("status"), syntax.get("problems", [])))
    return verdicts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--seed", type=int, default=48)
    parser.add_argument("--count", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    corpus = []
    for n in range(args.count):
        nb = valid(rng)
        what = "valid"
        if n % 4:  # three in four mutated, some twice
            what = mutate(nb, rng)
            if rng.random() < 0.2:
                what += "+" + mutate(nb, rng)
        corpus.append((what, nb))
    verdicts = anyio.run(run, args.binary, corpus)
    agree = 0
    counts = {True: [0, 0], False: [0, 0]}
    for (what, nb), (status, problems) in zip(corpus, verdicts):
        expected = truth(nb)
        ours = status == "ok"
        counts[expected][1] += 1
        if ours == expected:
            agree += 1
            counts[expected][0] += 1
        else:
            first = problems[0]["message"] if problems else status
            print(f"DISAGREE ({what}): nbformat {'valid' if expected else 'invalid'}, filewright {status}: {first}")
            print("   ", json.dumps(nb)[:400])
    total = len(corpus)
    print(
        f"agreement: {agree}/{total} (valid {counts[True][0]}/{counts[True][1]}, "
        f"invalid {counts[False][0]}/{counts[False][1]}), seed {args.seed}"
    )
    sys.exit(0 if agree == total else 1)


if __name__ == "__main__":
    main()
