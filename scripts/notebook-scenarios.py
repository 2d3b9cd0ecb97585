#!/usr/bin/env python3
"""Issue 48's "Done when", measured from outside: filewright over stdio, driven by the
official MCP Python SDK, with nbformat (Jupyter's own reader, validator and writer) as judge.

    notebook-scenarios.py SERVER_BINARY [--fixtures DIR] [--seed N] [--only a,b,l,c,d,e] [--keep] [-v]

Usually run through scripts/notebook-scenarios.sh, which makes the venv. The server is started
as `SERVER_BINARY --root TMP --state-dir TMP2`; nothing outside those temporary directories is
written. Parts:

  a  notebooks built from real code in small calls: a seeded pick of modules of this Python's
     standard library, cut into cells at top-level def/class boundaries with markdown cells
     from their docstrings, written with edit_notebook calls of at most 8,000 characters
     (inserts, and mid-way a replace, a type change, a delete and re-insert, an insert by
     index). After every call the file on disk validates with nbformat, equals the notebook
     intended so far, and the tool's verdict is ok. At the end the file is byte for byte what
     nbformat.writes writes for the same notebook.
  b  the Jupyter-written fixtures (tests/data/notebooks) edited: every byte outside the edited
     cell stays as it was, the result is still exactly what nbformat writes, a replaced code
     cell has no outputs and a null execution_count, undo restores the exact bytes, and a call
     with one bad edit changes nothing.
  l  the same edits on notebooks in other writers' layouts (indent 2 with \\u escapes and no
     final newline, sources as one string, CRLF, indent 4): every other byte kept, and what the
     edit adds written in the file's own layout.
  c  edit_file inside a cell (never across cells, never in the escaped JSON), append_file
     refused, write_file of an invalid notebook refused and of a valid one accepted.
  d  verdicts: a syntax error names its cell; IPython magics are never errors; a truncated
     notebook is broken and edit_notebook leaves it byte-identical.
  e  a 200-cell notebook with ~50 KB PNG outputs: read_file's first page is within the result
     budget (50,000 characters of text, 120,000 in all) and holds no base64.

Prints PASS/FAIL per check and `notebook-scenarios: P/T pass`; exits 0 only when all passed.
"""
import argparse
import ast
import base64
import copy
import hashlib
import json
import os
import random
import re
import shutil
import struct
import sys
import sysconfig
import tempfile
import warnings
import zlib

try:
    import anyio
    import nbformat
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
except ImportError as e:  # pragma: no cover
    print(f"notebook-scenarios: cannot import nbformat or the mcp SDK ({e})", file=sys.stderr)
    sys.exit(2)

ROWS = []
VERBOSE = False
CALL_CHARS = 8_000  # the most one call may carry, as the issue says (its arguments as JSON)
TEXT_CHARS = 50_000  # the result budget of "Never silently wrong": text
RESULT_CHARS = 120_000  # and text plus structuredContent as JSON
BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{120,}={0,2}")


def check(name, ok, detail=""):
    ROWS.append(bool(ok))
    print(f"{'PASS' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and (not ok or VERBOSE) else ""), flush=True)
    return bool(ok)


def short(s, n=300):
    s = str(s).replace("\n", "\\n")
    return s if len(s) <= n else s[:n] + "..."


def sha(data):
    return hashlib.sha256(data).hexdigest()


def text_of(result):
    return "".join(getattr(b, "text", "") or "" for b in result.content or [])


def sc(result):
    return result.structured_content or {}


def verdict(result):
    """The verdict's status ("ok", "errors", ...) and the whole result as text, for details."""
    syntax = sc(result).get("syntax") or {}
    return syntax.get("status"), syntax


def says_broken(result):
    """Whether a result calls the file broken (in its text, or as a verdict's status)."""
    status = (sc(result).get("syntax") or sc(result).get("notebook") or {}).get("status")
    return status == "broken" or re.search(r"\bbroken\b", text_of(result), re.I) is not None


# ---------------------------------------------------------------- the JSON's spans


def _ws(s, i):
    while i < len(s) and s[i] in " \t\r\n":
        i += 1
    return i


def spans(text):
    """The spans of a notebook's text: {"keys": {key: (start, end)} of the top-level values,
    "cells": [(start, end)] of each cell}; None when it is not a JSON object with a cell list."""
    dec = json.JSONDecoder()
    i = _ws(text, 0)
    if i >= len(text) or text[i] != "{":
        return None
    i += 1
    keys = {}
    cells = None
    while True:
        i = _ws(text, i)
        if text[i] == "}":
            break
        if text[i] == ",":
            i = _ws(text, i + 1)
        key, i = dec.raw_decode(text, i)
        i = _ws(text, i)
        assert text[i] == ":"
        i = _ws(text, i + 1)
        start = i
        if key == "cells" and text[i] == "[":
            cells = []
            j = _ws(text, i + 1)
            while text[j] != "]":
                if text[j] == ",":
                    j = _ws(text, j + 1)
                _, end = dec.raw_decode(text, j)
                cells.append((j, end))
                j = _ws(text, end)
            i = j + 1
        else:
            _, i = dec.raw_decode(text, i)
        keys[key] = (start, i)
    if cells is None:
        return None
    return {"keys": keys, "cells": cells}


def kept_outside(before, after, region):
    """Whether `after` is `before` with only bytes inside `region` (start, end of `before`)
    changed: everything before region's start and after its end is the same, byte for byte."""
    start, end = region
    prefix = os.path.commonprefix([before, after])
    suffix = os.path.commonprefix([before[::-1], after[::-1]])
    ok = len(prefix) >= start and len(suffix) >= len(before) - end
    where = "" if ok else f"first difference at byte {len(prefix)} (edit region {start}-{end}), common tail {len(suffix)}"
    return ok, where


def read_nb(data):
    """nbformat's reading of file bytes, validated; (notebook, problem or None)."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            nb = nbformat.reads(data.decode("utf-8"), as_version=nbformat.NO_CONVERT)
            nbformat.validate(nb)
        noisy = [str(w.message) for w in caught if "id" in str(w.message).lower() or "valid" in str(w.message).lower()]
        return nb, ("; ".join(noisy) if noisy else None)
    except Exception as e:  # noqa: BLE001 (any failure to read is the finding)
        return None, f"{type(e).__name__}: {short(e)}"


def jupyter_writes(nb):
    """The bytes Jupyter writes for `nb` (nbformat.write adds the final newline)."""
    return (nbformat.writes(nb) + "\n").encode("utf-8")


# ---------------------------------------------------------------- the server


class Failed:
    """A call the SDK raised on (an unknown tool, a protocol error), as an error result."""

    def __init__(self, message):
        self.is_error = True
        self.content = [type("Text", (), {"text": message})()]
        self.structured_content = None


class Server:
    def __init__(self, session, root, tools):
        self.session = session
        self.tools = tools
        self.root = root
        self.calls = 0

    async def call(self, name, args):
        self.calls += 1
        try:
            with anyio.fail_after(120):
                result = await self.session.call_tool(name, args)
        except Exception as e:  # noqa: BLE001 (a protocol error is a failed call, shown as one)
            result = Failed(f"{type(e).__name__}: {e}")
        if VERBOSE:
            print(f"   {name} {short(json.dumps(args), 160)} -> error={result.is_error} {short(text_of(result), 200)}")
        return result

    def has(self, tool):
        return tool in self.tools

    def path(self, rel):
        return os.path.join(self.root, rel)

    def disk(self, rel):
        with open(self.path(rel), "rb") as f:
            return f.read()

    def put(self, rel, data):
        os.makedirs(os.path.dirname(self.path(rel)), exist_ok=True)
        with open(self.path(rel), "wb") as f:
            f.write(data)


# ---------------------------------------------------------------- a: notebooks from real code


def stdlib_modules(seed, count):
    """A seeded pick of `count` standard-library modules of 300-1500 lines whose top-level
    pieces each fit one call."""
    lib = sysconfig.get_paths()["stdlib"]
    picks = []
    for name in sorted(os.listdir(lib)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(lib, name)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            lines = text.count("\n")
            if not 300 <= lines <= 1500:
                continue
            cells = cells_of(text, name[:-3])
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        if all(len(json.dumps({"action": "insert", "cell_type": t, "source": s})) <= CALL_CHARS - 400 for t, s in cells):
            picks.append((name[:-3], path, text))
    return random.Random(seed).sample(picks, min(count, len(picks)))


def first_paragraph(doc):
    doc = (doc or "").strip()
    return doc.split("\n\n")[0].strip() if doc else ""


def cells_of(text, module):
    """`text` cut into cells at top-level def/class boundaries (a def's decorators and the
    comment lines right above it go with it), each preceded by a markdown cell made from its
    docstring; the module's docstring makes the title cell."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    starts = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            while start > 0 and lines[start - 1].lstrip().startswith("#"):
                start -= 1
            starts.append((start, node))
    cells = []
    doc = ast.get_docstring(tree)
    title = f"# `{module}`"
    cells.append(("markdown", title + ("\n\n" + first_paragraph(doc) if doc else "")))
    bounds = [s for s, _ in starts] + [len(lines)]
    head = "".join(lines[: bounds[0]]).strip("\n")
    if head.strip():
        cells.append(("code", head))
    for (start, node), end in zip(starts, bounds[1:]):
        source = "".join(lines[start:end]).strip("\n")
        if not source.strip():
            continue
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        para = first_paragraph(ast.get_docstring(node))
        if para:
            cells.append(("markdown", f"### {kind} `{node.name}`\n\n{para}"))
        cells.append(("code", source))
    return cells


def batches(edits, path):
    """`edits` grouped into calls of at most CALL_CHARS characters of JSON arguments (with the
    path and an expected_sha256)."""
    group = []
    for edit in edits:
        if group and len(json.dumps({"path": path, "edits": group + [edit], "expected_sha256": "0" * 64})) > CALL_CHARS:
            yield group
            group = []
        group.append(edit)
    if group:
        yield group


# Sources whose spelling in JSON is easy to get wrong: line breaks other than \n (Python's
# str.splitlines, which nbformat uses, splits at each), escapes, control characters, non-ASCII.
TRICKY = [
    ("markdown", "# Odd characters\n\nLínea — “quotes” ‘single’ … 中文 😀 and e\u0301 (decomposed)\u2028after a line separator"),
    ("code", 'x = "tab\there"\r\ny = 1\r\n'),
    ("code", "a = 1\n\x0c\nb = 2"),
    ("markdown", "control \x01 \x1f and DEL \x7f, a NEL\x85and\u2029paragraph"),
    ("code", 'html = "</script><!-- -->"\npath = "C:\\\\temp\\\\new"\nq = \'"\\\'"\''),
    ("markdown", "trailing spaces   \n\n\n"),
    ("code", ""),
    ("raw", "\\begin{equation}\n  e^{i\\pi} + 1 = 0\n\\end{equation}\n"),
    ("code", "def f():\n\treturn '\\t'  # a tab for indentation\n"),
    ("markdown", "\r\nstarts with CRLF, old Mac \r line\rand a lone CR at the end\r"),
]


async def part_a(server, seed):
    modules = stdlib_modules(seed, 5)
    check("a: five standard-library modules of 300-1500 lines picked", len(modules) == 5, ", ".join(m for m, _, _ in modules))
    total_calls = 0
    plan = [(module, cells_of(text, module)) for module, _, text in modules] + [("odd-characters", TRICKY)]
    for module, intended in plan:
        rel = f"built/{module}.ipynb"
        model = []  # [cell_type, source] as the notebook should now hold them
        steps = []  # (description, edits, how the model changes)
        half = len(intended) // 2

        def inserts(cells):
            return [{"action": "insert", "cell_type": t, "source": s} for t, s in cells]

        for group in batches(inserts(intended[:half]), rel):
            steps.append(("insert", group, lambda m, g=group: m.extend([e["cell_type"], e["source"]] for e in g)))
        steps.append(("mid-way", None, None))
        for group in batches(inserts(intended[half:]), rel):
            steps.append(("insert", group, lambda m, g=group: m.extend([e["cell_type"], e["source"]] for e in g)))

        failures = {"validate": [], "intended": [], "verdict": [], "size": [], "error": [], "done": []}
        last_sha = None
        calls = 0
        previous = None  # the file's bytes before the last call

        async def run(edits, change, what):
            nonlocal last_sha, calls, previous
            previous = server.disk(rel) if os.path.exists(server.path(rel)) else None
            args = {"path": rel, "edits": edits}
            if last_sha:
                args["expected_sha256"] = last_sha
            size = len(json.dumps(args))
            if size > CALL_CHARS:
                failures["size"].append(f"{what}: {size} chars")
            result = await server.call("edit_notebook", args)
            calls += 1
            if result.is_error:
                failures["error"].append(f"{what}: {short(text_of(result))}")
                return None
            change(model)
            done = sc(result).get("done") or []
            if len(done) != len(edits) or not all(d.split()[0] in ("inserted", "replaced", "deleted") for d in done):
                failures["done"].append(f"{what}: done {short(done, 120)} for {len(edits)} edits")
            data = server.disk(rel)
            last_sha = sha(data)
            if sc(result).get("sha256") not in (None, last_sha):
                failures["error"].append(f"{what}: result sha256 is not the file's")
            nb, problem = read_nb(data)
            if nb is None or problem:
                failures["validate"].append(f"{what}: {problem}")
            elif [[c.cell_type, c.source] for c in nb.cells] != model:
                failures["intended"].append(f"{what}: cells differ from the intended ones")
            status, syntax = verdict(result)
            if status != "ok":
                failures["verdict"].append(f"{what}: status {status}: {short(json.dumps(syntax), 200)}")
            return nb

        for step, (what, group, change) in enumerate(steps):
            if what == "insert":
                await run(group, change, f"call {calls + 1} ({len(group)} inserts)")
                continue
            # Mid-way: the edits an author makes while writing.
            if not os.path.exists(server.path(rel)):
                break
            nb = nbformat.reads(server.disk(rel).decode("utf-8"), as_version=nbformat.NO_CONVERT)
            code = [i for i, c in enumerate(model) if c[0] == "code"]
            marks = [i for i, c in enumerate(model) if c[0] == "markdown"]
            ci = code[len(code) // 2]
            keep = model[ci][1]
            cid = nb.cells[ci].get("id")

            def set_source(m, i=ci, s="# to be written\npass"):
                m[i][1] = s

            await run([{"action": "replace", "cell_id": cid, "source": "# to be written\npass"}], set_source,
                      "replace a code cell by id")
            await run([{"action": "replace", "index": ci, "source": keep}],
                      lambda m, i=ci, s=keep: set_source(m, i, s), "replace it back by index")
            mi = marks[-1]
            await run([{"action": "replace", "index": mi, "cell_type": "raw"}],
                      lambda m, i=mi: m[i].__setitem__(0, "raw"), "markdown cell made raw")
            await run([{"action": "replace", "index": mi, "cell_type": "markdown"}],
                      lambda m, i=mi: m[i].__setitem__(0, "markdown"), "and markdown again")
            if mi + 1 < len(model):
                nb = nbformat.reads(server.disk(rel).decode("utf-8"), as_version=nbformat.NO_CONVERT)
                gone, next_id = model[mi], nb.cells[mi + 1].get("id")
                await run([{"action": "delete", "cell_id": nb.cells[mi].get("id")}], lambda m, i=mi: m.pop(i),
                          "delete a markdown cell")
                await run([{"action": "insert", "cell_id": next_id, "cell_type": gone[0], "source": gone[1]}],
                          lambda m, i=mi, c=gone: m.insert(i, list(c)), "re-insert it before the next cell")
            await run([{"action": "insert", "index": 0, "cell_type": "code", "source": "import this"},
                       {"action": "delete", "index": 0}], lambda m: None, "insert at index 0 and delete it, one call")

        total_calls += calls
        n = len(intended)
        for key, label in [("error", "every call accepted"), ("size", f"every call within {CALL_CHARS} characters"),
                           ("validate", "every intermediate file validates with nbformat"),
                           ("intended", "every intermediate file holds the intended cells"),
                           ("verdict", "the verdict is ok after every call"),
                           ("done", "`done` says what each edit did")]:
            bad = failures[key]
            if key in ("validate", "intended", "verdict", "done") and failures["error"]:
                bad = bad or [f"not measured on the {len(failures['error'])} calls refused"]
            check(f"a: {module} ({n} cells, {calls} calls): {label}", not bad,
                  f"{len(bad)} of {calls} calls: {bad[0]}" if bad else "")
        data = server.disk(rel) if os.path.exists(server.path(rel)) else b""
        nb, problem = read_nb(data)
        if nb is None:
            check(f"a: {module}: the result equals the intended notebook", False, problem)
            check(f"a: {module}: the file is what nbformat writes, byte for byte", False, problem)
            continue
        meta = nb.metadata
        ks = meta.get("kernelspec", {})
        ok_meta = (nb.nbformat, nb.nbformat_minor) == (4, 5) and ks.get("name") == "python3" \
            and ks.get("language") == "python" and meta.get("language_info", {}).get("name") == "python"
        ids = [c.get("id") for c in nb.cells]
        same = [[c.cell_type, c.source] for c in nb.cells] == [list(c) for c in intended]
        check(f"a: {module}: the result equals the intended notebook (cells in order, nbformat 4.5, Python kernel, unique ids)",
              same and ok_meta and None not in ids and len(set(ids)) == len(ids),
              f"cells equal: {same}; nbformat {nb.nbformat}.{nb.nbformat_minor}; metadata {short(json.dumps(meta), 160)}; ids unique: {len(set(ids)) == len(ids)}")
        expected = nbformat.v4.new_notebook(metadata=copy.deepcopy(meta))
        for (kind, source), cell_id in zip(intended, ids):
            make = {"code": nbformat.v4.new_code_cell, "markdown": nbformat.v4.new_markdown_cell,
                    "raw": nbformat.v4.new_raw_cell}[kind]
            cell = make(source)
            cell.id = cell_id
            expected.cells.append(cell)
        if previous is not None:
            undo = await server.call("undo", {"path": rel})
            check(f"a: {module}: undo of the last call restores the exact bytes before it",
                  not undo.is_error and server.disk(rel) == previous, short(text_of(undo)))
            server.put(rel, data)
        want = jupyter_writes(expected)
        prefix = os.path.commonprefix([want, data])
        check(f"a: {module}: the file is what nbformat writes, byte for byte", want == data,
              f"{len(data)} bytes against nbformat's {len(want)}; first difference at byte {len(prefix)}: "
              f"ours {data[len(prefix):len(prefix) + 60]!r} nbformat's {want[len(prefix):len(prefix) + 60]!r}")
    check(f"a: 30+ small calls in all ({total_calls})", total_calls >= 30, f"{total_calls} calls")


# ---------------------------------------------------------------- b: the Jupyter-written fixtures


def fixture_edits(name, nb):
    """Edits of fixture `name`: (label, edit, region kind, index)."""
    ided = nb.nbformat_minor >= 5
    out = []

    def ref(i):
        return {"cell_id": nb.cells[i].id} if ided else {"index": i}

    code_with_outputs = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.outputs] or \
        [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.execution_count]
    if code_with_outputs:
        i = code_with_outputs[0]
        out.append((f"replace code cell {i}'s source", dict(action="replace", source="result = 42\nresult", **ref(i)), "cell", i))
    for i, c in enumerate(nb.cells):
        if c.cell_type == "markdown":
            out.append((f"replace markdown cell {i}", dict(action="replace", source="# Retitled\n\nNew words, ünïcödé 🎈.", **ref(i)), "cell", i))
            break
    mid = len(nb.cells) // 2
    out.append((f"insert before cell {mid}", dict(action="insert", cell_type="markdown", source="A note, inserted.\n\nTwo lines.", **ref(mid)), "before", mid))
    out.append(("insert at the end", dict(action="insert", cell_type="code", source="print('the end')"), "end", None))
    out.append((f"delete cell {mid}", dict(action="delete", **ref(mid)), "delete", mid))
    out.append(("delete the last cell", dict(action="delete", index=len(nb.cells) - 1), "delete", len(nb.cells) - 1))
    if len(nb.cells) > 1:
        out.append(("cell 1 made raw", dict(action="replace", cell_type="raw", **ref(1)), "cell", 1))
    return out


def region_of(text, kind, i):
    cells = spans(text)["cells"]
    if kind == "cell":
        return cells[i]
    if kind == "before":
        return (cells[i][0], cells[i][0])
    if kind == "end":
        return (cells[-1][1], cells[-1][1])
    # delete: the cell and the separator after it (before it, for the last one)
    if i + 1 < len(cells):
        return (cells[i][0], cells[i + 1][0])
    return (cells[i - 1][1] if i else cells[i][0], cells[i][1])


async def part_b(server, fixtures):
    names = sorted(n for n in os.listdir(fixtures) if n.endswith(".ipynb"))
    check("b: Jupyter-written fixtures found", len(names) >= 4, f"{len(names)} in {fixtures}")
    for name in names:
        rel = f"fixtures/{name}"
        original = open(os.path.join(fixtures, name), "rb").read()
        server.put(rel, original)
        nb0 = nbformat.reads(original.decode("utf-8"), as_version=nbformat.NO_CONVERT)
        base_text = original.decode("utf-8")
        for label, edit, kind, i in fixture_edits(name, nb0):
            what = f"b: {name}: {label}"
            result = await server.call("edit_notebook", {"path": rel, "edits": [edit]})
            after = server.disk(rel)
            if result.is_error:
                check(f"{what}: accepted", False, short(text_of(result)))
                continue
            nb1, problem = read_nb(after)
            check(f"{what}: validates with nbformat", nb1 is not None and not problem, problem or "")
            region = region_of(base_text, kind, i)
            b0 = base_text.encode("utf-8")
            region_b = (len(base_text[: region[0]].encode("utf-8")), len(base_text[: region[1]].encode("utf-8")))
            ok, where = kept_outside(b0, after, region_b)
            check(f"{what}: every byte outside the edited cell kept (other cells, outputs, metadata)", ok, where)
            if nb1 is not None:
                check(f"{what}: still exactly what Jupyter writes", jupyter_writes(nb1) == after,
                      f"first difference at byte {len(os.path.commonprefix([jupyter_writes(nb1), after]))}")
                if edit["action"] == "replace" and nb0.cells[i].cell_type == "code" and "source" in edit:
                    c = nb1.cells[i]
                    check(f"{what}: the replaced code cell has outputs [] and execution_count null",
                          c.outputs == [] and c.execution_count is None,
                          f"{len(c.outputs)} outputs, execution_count {c.execution_count}")
            undo = await server.call("undo", {"path": rel})
            back = server.disk(rel)
            check(f"{what}: undo restores the exact bytes", not undo.is_error and sha(back) == sha(original),
                  short(text_of(undo)) if undo.is_error else f"sha256 {sha(back)[:12]} against {sha(original)[:12]}")
            if back != original:
                server.put(rel, original)
        # All or nothing: a good edit followed by one naming no cell changes nothing.
        bad = await server.call("edit_notebook", {"path": rel, "edits": [
            {"action": "insert", "cell_type": "markdown", "source": "never written"},
            {"action": "delete", "cell_id": "no-such-cell"} if nb0.nbformat_minor >= 5 else {"action": "delete", "index": 999},
        ]})
        check(f"b: {name}: a call with one bad edit is refused and changes nothing",
              bad.is_error and server.has("edit_notebook") and server.disk(rel) == original, short(text_of(bad)))
        stale = await server.call("edit_notebook", {"path": rel, "expected_sha256": "0" * 64, "edits": [
            {"action": "insert", "cell_type": "markdown", "source": "never written"}]})
        check(f"b: {name}: a stale expected_sha256 is refused and changes nothing",
              stale.is_error and server.has("edit_notebook") and server.disk(rel) == original, short(text_of(stale)))


def _joined(d):
    """A notebook dict with every source (and stream text) one string, as some tools write them."""
    d = copy.deepcopy(d)
    for cell in d["cells"]:
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
    return d


# Layouts other writers use, each a function from the notebook (as JSON data) to its text: an
# edit must keep every other byte and write what it adds in the file's own layout, so writing
# the edited notebook with the same function gives back the file exactly.
LAYOUTS = {
    "indent 2, \\u escapes, no final newline": lambda d: json.dumps(d, indent=2, sort_keys=True, ensure_ascii=True),
    "sources as one string": lambda d: json.dumps(_joined(d), indent=1, sort_keys=True, ensure_ascii=False) + "\n",
    "CRLF line endings": lambda d: (json.dumps(d, indent=1, sort_keys=True, ensure_ascii=False) + "\n").replace("\n", "\r\n"),
    "indent 4": lambda d: json.dumps(d, indent=4, sort_keys=True, ensure_ascii=False) + "\n",
}


async def part_b_layouts(server, fixtures):
    for fixture in ("analysis.ipynb", "unicode.ipynb"):
        data = json.load(open(os.path.join(fixtures, fixture), encoding="utf-8"))
        for label, write in LAYOUTS.items():
            text = write(data)
            original = text.encode("utf-8")
            rel = f"layouts/{len(label)}-{fixture}"
            server.put(rel, original)
            nb0 = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
            for what, edit, kind, i in fixture_edits(fixture, nb0)[:5]:
                name = f"l: {fixture} in {label}: {what}"
                r = await server.call("edit_notebook", {"path": rel, "edits": [edit]})
                after = server.disk(rel)
                if r.is_error:
                    check(f"{name}: accepted", False, short(text_of(r)))
                    continue
                region = region_of(text, kind, i)
                region_b = (len(text[: region[0]].encode("utf-8")), len(text[: region[1]].encode("utf-8")))
                kept, where = kept_outside(original, after, region_b)
                nb1, problem = read_nb(after)
                written = [write(json.loads(after.decode("utf-8")))] if nb1 is not None else []
                if written and "escapes" in label and text.isascii():
                    # A file with no non-ASCII text shows no choice between \u escapes and UTF-8.
                    written.append(json.dumps(json.loads(after.decode("utf-8")), indent=2, sort_keys=True, ensure_ascii=False))
                same_layout = any(w.encode("utf-8") == after for w in written)
                check(f"{name}: validates, keeps every other byte and writes in the file's layout",
                      kept and nb1 is not None and not problem and same_layout,
                      f"kept: {kept} {where}; validates: {problem or nb1 is not None}; same layout: {same_layout}")
                undo = await server.call("undo", {"path": rel})
                if undo.is_error or server.disk(rel) != original:
                    check(f"{name}: undo restores the exact bytes", False, short(text_of(undo)))
                    server.put(rel, original)


# ---------------------------------------------------------------- c: the other writing tools


async def part_c(server, fixtures):
    original = open(os.path.join(fixtures, "analysis.ipynb"), "rb").read()
    rel = "c/analysis.ipynb"
    server.put(rel, original)
    nb0 = nbformat.reads(original.decode("utf-8"), as_version=nbformat.NO_CONVERT)
    text0 = original.decode("utf-8")
    i = next(k for k, c in enumerate(nb0.cells) if c.source.startswith("def mean_rate"))
    old = "    total = sum(samples)\n    return total / len(samples)"
    new = "    if not samples:\n        return 0.0\n    return sum(samples) / len(samples)"
    r = await server.call("edit_file", {"path": rel, "old_string": old, "new_string": new})
    after = server.disk(rel)
    nb1, problem = read_nb(after)
    ok = not r.is_error and nb1 is not None and nb1.cells[i].source == nb0.cells[i].source.replace(old, new)
    check("c: edit_file matches old_string inside one cell's source", ok, short(text_of(r)))
    if ok:
        start, end = spans(text0)["cells"][i]
        kept, where = kept_outside(original, after, (len(text0[:start].encode()), len(text0[:end].encode())))
        check("c: edit_file keeps every byte outside that cell", kept, where)
        check("c: edit_file's result validates and is what Jupyter writes", not problem and jupyter_writes(nb1) == after,
              problem or "differs from nbformat's writing")
        check("c: edit_file on a code cell clears its execution_count", nb1.cells[i].execution_count is None,
              f"execution_count {nb1.cells[i].execution_count}")
    server.put(rel, original)
    r = await server.call("edit_file", {"path": rel, "old_string": "    total = sum(samples)   \n    return total / len(samples)",
                                        "new_string": "    return sum(samples) / max(len(samples), 1)"})
    nb1, problem = read_nb(server.disk(rel))
    check("c: edit_file inside a cell has the usual tolerance (trailing whitespace ignored)",
          not r.is_error and nb1 is not None and nb1.cells[i].source.endswith("    return sum(samples) / max(len(samples), 1)"),
          short(text_of(r)))
    server.put(rel, original)

    legacy = open(os.path.join(fixtures, "legacy-v4.4.ipynb"), "rb").read()
    server.put("c/legacy.ipynb", legacy)
    # Each of these occurs once in the file's JSON text, so only matching in cells refuses it.
    refusals = [
        ("across two cells", rel, nb0.cells[1].source.splitlines()[-1] + "\n" + nb0.cells[2].source.splitlines()[0]),
        ("in the escaped JSON (a key and value)", rel, '"execution_count": 5'),
        ("in the escaped JSON (a line as stored)", rel, '"import csv\\n",'),
        ("in the escaped JSON (a quote as stored)", "c/legacy.ipynb", 're.compile(r\\"[A-Za-z'),
        ("text present in several cells", rel, "mean_rate("),
    ]
    for label, path, old_string in refusals:
        before = server.disk(path)
        r = await server.call("edit_file", {"path": path, "old_string": old_string, "new_string": "X"})
        check(f"c: edit_file never matches {label}", r.is_error and server.disk(path) == before, short(text_of(r)))
    r = await server.call("edit_file", {"path": "c/legacy.ipynb", "old_string": "WORD = re.compile(r\"[A-Za-z']+\")",
                                        "new_string": "WORD = re.compile(r\"[\\w']+\")"})
    nb1, problem = read_nb(server.disk("c/legacy.ipynb"))
    check("c: edit_file matches a source with quotes as shown, not as escaped in the JSON",
          not r.is_error and nb1 is not None and "WORD = re.compile(r\"[\\w']+\")" in nb1.cells[1].source,
          short(text_of(r)))

    r = await server.call("append_file", {"path": rel, "content": '{"cell_type": "code"}'})
    check("c: append_file on a notebook is refused, saying what to use", r.is_error and "edit_notebook" in text_of(r)
          and server.disk(rel) == original, short(text_of(r)))
    for label, content in [("not JSON", '{"cells": [\n'), ("JSON but not a notebook", '{"cells": 3}\n'),
                           ("a notebook missing nbformat", '{"cells": [], "metadata": {}}\n')]:
        r = await server.call("write_file", {"path": rel, "content": content})
        check(f"c: write_file of {label} on a notebook is refused", r.is_error and server.disk(rel) == original,
              short(text_of(r)))
        r = await server.call("write_file", {"path": f"c/new-{len(label)}.ipynb", "content": content})
        check(f"c: write_file of {label} as a new notebook is refused",
              r.is_error and not os.path.exists(server.path(f"c/new-{len(label)}.ipynb")), short(text_of(r)))
    valid = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Fresh"), nbformat.v4.new_code_cell("x = 1")])
    content = nbformat.writes(valid) + "\n"
    r = await server.call("write_file", {"path": "c/fresh.ipynb", "content": content})
    check("c: write_file of a valid notebook is accepted as sent", not r.is_error
          and os.path.exists(server.path("c/fresh.ipynb")) and server.disk("c/fresh.ipynb") == content.encode(),
          short(text_of(r)))


# ---------------------------------------------------------------- d: verdicts


async def part_d(server, fixtures):
    original = open(os.path.join(fixtures, "analysis.ipynb"), "rb").read()
    nb0 = nbformat.reads(original.decode("utf-8"), as_version=nbformat.NO_CONVERT)
    rel = "d/analysis.ipynb"
    server.put(rel, original)
    i = next(k for k, c in enumerate(nb0.cells) if c.source.startswith("def mean_rate"))
    cid = nb0.cells[i].id
    r = await server.call("edit_notebook", {"path": rel, "edits": [
        {"action": "replace", "cell_id": cid, "source": "def mean_rate(samples:\n    return sum(samples)"}]})
    status, syntax = verdict(r)
    # Where the verdict is told: its problems, and the text from "syntax" on (not the `done` lines).
    told = text_of(r)
    named = json.dumps(syntax.get("problems", [])) + told[told.lower().find("syntax"):] if "syntax" in told.lower() else ""
    check("d: a syntax error injected into one cell: the verdict is errors", status == "errors",
          f"status {status}; {short(text_of(r))}")
    check("d: ... and the problem names that cell by its id", status == "errors" and cid in named, short(json.dumps(syntax)))
    check("d: ... and by its index", status == "errors" and
          re.search(rf"\bcell {i}\b|\"cell(_index)?\": ?{i}\b|\"index\": ?{i}\b", named) is not None,
          short(json.dumps(syntax)))
    # The error is on the cell's line 1 or 2 (parsers differ), not the file's JSON line (~30).
    lines = [p.get("line") for p in syntax.get("problems", []) if isinstance(p, dict) and p.get("line") is not None]
    lines += [int(n) for n in re.findall(r"\bline (\d+)", named)]
    check("d: ... and the line within the cell", status == "errors" and lines and all(n in (1, 2) for n in lines[:1]),
          f"lines {lines[:4]}; {short(json.dumps(syntax))}")
    # Only that cell: the other cells are Python too and are fine.
    others = [p for p in syntax.get("problems", []) if cid not in json.dumps(p) and f"cell {i}" not in json.dumps(p)]
    check("d: ... and no other cell is blamed", status == "errors" and not others, short(json.dumps(others)))

    magics = [
        "%matplotlib inline",
        "!pip install x",
        "%%time\nfor i in range(3):\n    pass",
        "x = !ls",
        "%load_ext autoreload\n%autoreload 2\nimport os",
        "%%bash\nif [ -d x ]; then echo yes; fi",
        "files = %sx ls\nlen(files)",
        "os.path?\nos.path.join??",
    ]
    rel = "d/magics.ipynb"
    for k, source in enumerate(magics):
        r = await server.call("edit_notebook", {"path": rel, "edits": [{"action": "insert", "source": source}]})
        status, syntax = verdict(r)
        check(f"d: magic {short(source, 40)!r} is not an error", not r.is_error and status not in ("errors", "broken"),
              f"status {status}; {short(json.dumps(syntax))}" if not r.is_error else short(text_of(r)))
    server.put("d/magics-fixture.ipynb", open(os.path.join(fixtures, "magics.ipynb"), "rb").read())
    r = await server.call("check_files", {"paths": ["d/magics-fixture.ipynb", rel]})
    files = sc(r).get("files") or []
    bad = [f for f in files if not f.get("exists") or (f.get("syntax") or {}).get("status") != "ok"]
    check("d: check_files finds the magics notebooks ok", not r.is_error and len(files) == 2 and not bad,
          short(json.dumps(bad or sc(r) or text_of(r))))

    r = await server.call("edit_notebook", {"path": "d/analysis.R.ipynb", "language": "r", "edits": [
        {"action": "insert", "source": "library(stats)\nf <- function(x) { x + 1 }\nprint(f(2))"}]})
    nb, problem = read_nb(server.disk("d/analysis.R.ipynb")) if not r.is_error else (None, short(text_of(r)))
    check("d: a notebook created with language r names the R kernel and validates",
          nb is not None and not problem and nb.metadata.get("kernelspec", {}).get("name") == "ir",
          problem or short(json.dumps(nb.metadata)))
    status, syntax = verdict(r)
    check("d: ... and its R code is not called a Python syntax error", not r.is_error and status not in ("errors", "broken"),
          f"status {status}; {short(json.dumps(syntax))}")

    cut = original[: len(original) * 3 // 5]
    rel = "d/cut-off.ipynb"
    server.put(rel, cut)
    r = await server.call("read_file", {"path": rel})
    check("d: read_file says a truncated notebook is broken", says_broken(r), short(text_of(r)))
    r = await server.call("get_file_info", {"path": rel})
    check("d: get_file_info says a truncated notebook is broken", says_broken(r), short(text_of(r)))
    r = await server.call("edit_notebook", {"path": rel, "edits": [{"action": "insert", "source": "x = 1"}]})
    check("d: edit_notebook refuses to change a truncated notebook, leaving it byte-identical",
          r.is_error and server.has("edit_notebook") and server.disk(rel) == cut, short(text_of(r)))
    r = await server.call("edit_file", {"path": rel, "old_string": "import csv", "new_string": "import json"})
    check("d: edit_file does not rewrite a truncated notebook as cells", server.disk(rel) == cut or
          server.disk(rel) == cut.replace(b"import csv", b"import json"), short(text_of(r)))
    server.put(rel, cut)
    r = await server.call("check_files", {"paths": [rel]})
    files = sc(r).get("files") or [{}]
    check("d: check_files calls a truncated notebook broken",
          (files[0].get("syntax") or {}).get("status") in ("errors", "broken") or says_broken(r), short(text_of(r)))


# ---------------------------------------------------------------- e: a big notebook read


def noise_png(width, height, seed):
    rng = random.Random(seed)
    rows = b"".join(b"\x00" + bytes(rng.randrange(256) for _ in range(width * 3)) for _ in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    raw += chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b"")
    return base64.b64encode(raw).decode("ascii")


async def part_e(server):
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    image = noise_png(128, 128, seed=200)  # ~49 KB of PNG, ~66 KB of base64
    for k in range(200):
        if k % 4 == 0:
            nb.cells.append(nbformat.v4.new_markdown_cell(f"## Figure {k // 4}\n\nThe {k // 4}th look at the data."))
            continue
        outputs = []
        if k % 4 == 1:
            outputs.append(nbformat.v4.new_output("display_data", data={"image/png": image, "text/plain": "<Figure>"}))
        elif k % 4 == 2:
            outputs.append(nbformat.v4.new_output("stream", name="stdout", text="".join(f"row {j}\n" for j in range(40))))
        nb.cells.append(nbformat.v4.new_code_cell(
            f"fig, ax = plt.subplots()\nax.plot(x, y{k})\nax.set_title('series {k}')\nplt.show()",
            execution_count=k, outputs=outputs))
    for k, cell in enumerate(nb.cells):
        cell.id = f"big-{k:03d}"
    rel = "e/big.ipynb"
    data = jupyter_writes(nb)
    server.put(rel, data)
    pngs = sum(1 for c in nb.cells if c.cell_type == "code" and c.outputs and c.outputs[0].output_type == "display_data")
    r = await server.call("read_file", {"path": rel})
    text = text_of(r)
    whole = len(text) + len(json.dumps(sc(r)))
    detail = f"{len(data) // 1024} KB file, {pngs} PNGs of {len(image) // 1024} KB base64; first page {len(text)} chars of text, {whole} in all"
    check("e: read_file on 200 cells with images answers", not r.is_error, short(text) if r.is_error else detail)
    check("e: its first page stays within 50,000 characters of text", len(text) <= TEXT_CHARS, detail)
    check("e: ... and 120,000 in all (text and structuredContent)", whole <= RESULT_CHARS, detail)
    blob = text + json.dumps(sc(r))
    run = BASE64_RUN.search(blob)
    check("e: ... and holds no base64", run is None and "iVBORw0KGgo" not in blob,
          f"a run of {len(run.group(0))} base64 characters at {run.start()}" if run else "")
    check("e: ... and shows cells as cells (the markdown and the code, not the escaped JSON)",
          "## Figure 0" in text and "ax.set_title('series 1')" in text and '"cell_type"' not in text, short(text[:400]))


# ---------------------------------------------------------------- main


async def main(args):
    root = tempfile.mkdtemp(prefix="nb-scenarios-")
    state = tempfile.mkdtemp(prefix="nb-scenarios-state-")
    log = open(os.path.join(state, "server.log"), "w")
    params = StdioServerParameters(command=args.server, args=["--root", root, "--state-dir", state])
    try:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                with anyio.fail_after(30):
                    await session.initialize()
                names = {t.name for t in (await session.list_tools()).tools}
                check("tools/list has edit_notebook", "edit_notebook" in names, f"{len(names)} tools")
                server = Server(session, root, names)
                parts = {"a": lambda: part_a(server, args.seed), "b": lambda: part_b(server, args.fixtures),
                         "l": lambda: part_b_layouts(server, args.fixtures),
                         "c": lambda: part_c(server, args.fixtures), "d": lambda: part_d(server, args.fixtures),
                         "e": lambda: part_e(server)}
                for key in args.only.split(","):
                    try:
                        await parts[key]()
                    except Exception as e:  # noqa: BLE001 (a part that crashes is a failure, the rest runs)
                        check(f"{key}: ran to the end", False, f"{type(e).__name__}: {short(e)}")
    finally:
        log.close()
        if args.keep:
            print(f"kept: root {root}, state and server log {state}")
        else:
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("server")
    p.add_argument("--fixtures", default=os.path.join(here, "..", "tests", "data", "notebooks"))
    p.add_argument("--seed", type=int, default=48)
    p.add_argument("--only", default="a,b,l,c,d,e")
    p.add_argument("--keep", action="store_true", help="keep the root and the server log")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args()
    VERBOSE = args.verbose
    anyio.run(main, args)
    passed = sum(ROWS)
    print(f"notebook-scenarios: {passed}/{len(ROWS)} pass")
    sys.exit(0 if ROWS and passed == len(ROWS) else 1)
