#!/usr/bin/env python3
"""Writes the Jupyter-written notebooks of tests/data/notebooks/ with nbformat's own writer.

    python3 scripts/notebook-fixtures.py [OUT_DIR]      (default: tests/data/notebooks)
    python3 scripts/notebook-fixtures.py --check [DIR]  (exit 1 when a file differs from what this writes)

Needs nbformat (5.x). The notebooks are our own data, written by `nbformat.write` exactly as
Jupyter writes a notebook it saves, so a test can check that an edit which does not touch a
cell leaves its bytes as Jupyter wrote them. Deterministic: cell ids are fixed and the image
pixels come from a seeded generator, so re-running this script rewrites the same bytes (the
committed files are its output; a test may re-run it and compare).

  analysis.ipynb     nbformat 4.5: markdown and code cells; outputs of each kind (stream on
                     stdout and stderr, execute_result with text/plain and text/html,
                     display_data with a small PNG, an error with an ANSI-coloured traceback);
                     kernelspec and language_info metadata; a cell with its own metadata
  legacy-v4.4.ipynb  nbformat 4.4: no cell ids (as notebooks written before 2021 are)
  unicode.ipynb      non-ASCII text in sources, outputs and metadata (accents, CJK, emoji,
                     a right-to-left script, math symbols)
  attachments.ipynb  a markdown cell with an image attachment, and a raw cell
  magics.ipynb       IPython magics and shell escapes: `%matplotlib inline`, `!pip install`,
                     a `%%time` cell, `x = !ls`, `%%bash`; none of them is a Python error
"""
import base64
import os
import random
import struct
import sys
import zlib

import nbformat
from nbformat.v4 import (
    new_code_cell,
    new_markdown_cell,
    new_notebook,
    new_output,
    new_raw_cell,
)

PYTHON_METADATA = {
    "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
    "language_info": {
        "codemirror_mode": {"name": "ipython", "version": 3},
        "file_extension": ".py",
        "mimetype": "text/x-python",
        "name": "python",
        "nbconvert_exporter": "python",
        "pygments_lexer": "ipython3",
        "version": "3.11.9",
    },
}


def png(width, height, seed):
    """A small RGB PNG of seeded noise over a gradient, base64-encoded as Jupyter stores it."""
    rng = random.Random(seed)
    rows = []
    for y in range(height):
        row = bytearray([0])  # filter type: none
        for x in range(width):
            row += bytes(
                (
                    (x * 255 // max(width - 1, 1) + rng.randrange(16)) % 256,
                    (y * 255 // max(height - 1, 1) + rng.randrange(16)) % 256,
                    (128 + rng.randrange(64)) % 256,
                )
            )
        rows.append(bytes(row))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"\x89PNG\r\n\x1a\n"
    raw += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    raw += chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
    raw += chunk(b"IEND", b"")
    return base64.b64encode(raw).decode("ascii")


def ids(nb, prefix):
    """Fixed, unique cell ids (nbformat would pick random ones)."""
    for i, cell in enumerate(nb.cells):
        cell.id = f"{prefix}-{i:02d}"
    return nb


def analysis():
    nb = new_notebook(metadata=PYTHON_METADATA)
    traceback = [
        "\u001b[0;31m---------------------------------------------------------------------------\u001b[0m",
        "\u001b[0;31mZeroDivisionError\u001b[0m                         Traceback (most recent call last)",
        "Cell \u001b[0;32mIn[5], line 1\u001b[0m\n\u001b[0;32m----> 1\u001b[0m \u001b[43mmean_rate\u001b[49m\u001b[43m(\u001b[49m\u001b[43m[\u001b[49m\u001b[43m]\u001b[49m\u001b[43m)\u001b[49m\n",
        "Cell \u001b[0;32mIn[2], line 4\u001b[0m, in \u001b[0;36mmean_rate\u001b[0;34m(samples)\u001b[0m\n\u001b[1;32m      3\u001b[0m total \u001b[38;5;241m=\u001b[39m \u001b[38;5;28msum\u001b[39m(samples)\n\u001b[0;32m----> 4\u001b[0m \u001b[38;5;28;01mreturn\u001b[39;00m total \u001b[38;5;241m/\u001b[39m \u001b[38;5;28mlen\u001b[39m(samples)\n",
        "\u001b[0;31mZeroDivisionError\u001b[0m: division by zero",
    ]
    nb.cells = [
        new_markdown_cell("# Request rates\n\nA look at a week of request logs: how many per hour, and when they peak."),
        new_code_cell(
            "import csv\nimport statistics\nfrom collections import Counter\nfrom datetime import datetime",
            execution_count=1,
        ),
        new_code_cell(
            'def mean_rate(samples):\n    """Mean of `samples`, requests per hour."""\n'
            "    total = sum(samples)\n    return total / len(samples)",
            execution_count=2,
        ),
        new_code_cell(
            'rows = [\n    ("2024-03-04T09:00", 412),\n    ("2024-03-04T10:00", 530),\n'
            '    ("2024-03-04T11:00", 611),\n    ("2024-03-04T12:00", 498),\n]\n'
            'hours = Counter(datetime.fromisoformat(t).hour for t, _ in rows)\n'
            'print(f"{len(rows)} hours read")\n'
            'print("warning: 2 rows skipped", file=__import__("sys").stderr)\n'
            "mean_rate([n for _, n in rows])",
            execution_count=3,
            outputs=[
                new_output("stream", name="stdout", text="4 hours read\n"),
                new_output("stream", name="stderr", text="warning: 2 rows skipped\n"),
                new_output(
                    "execute_result",
                    execution_count=3,
                    data={
                        "text/plain": "512.75",
                        "text/html": "<b>512.75</b> requests/hour",
                    },
                ),
            ],
        ),
        new_markdown_cell("## Peak hours\n\nThe busiest hour, drawn as a tiny heat strip."),
        new_code_cell(
            "import matplotlib.pyplot as plt\n\nfig, ax = plt.subplots(figsize=(2, 1))\n"
            "ax.imshow([[412, 530, 611, 498]], cmap=\"viridis\")\nax.set_axis_off()\nplt.show()",
            execution_count=4,
            metadata={"tags": ["figure"], "collapsed": False},
            outputs=[
                new_output(
                    "display_data",
                    data={"image/png": png(16, 8, seed=48), "text/plain": "<Figure size 200x100 with 1 Axes>"},
                    metadata={"image/png": {"width": 16, "height": 8}},
                )
            ],
        ),
        new_code_cell(
            "mean_rate([])",
            execution_count=5,
            outputs=[
                new_output(
                    "error",
                    ename="ZeroDivisionError",
                    evalue="division by zero",
                    traceback=traceback,
                )
            ],
        ),
        new_code_cell(""),
    ]
    return ids(nb, "analysis")


def legacy():
    nb = new_notebook(metadata=PYTHON_METADATA)
    nb.nbformat_minor = 4
    nb.cells = [
        new_markdown_cell("# Word counts\n\nWritten by an older Jupyter: nbformat 4.4, cells without ids."),
        new_code_cell(
            "import re\n\nWORD = re.compile(r\"[A-Za-z']+\")\n\n\ndef words(text):\n"
            "    return [w.lower() for w in WORD.findall(text)]",
            execution_count=1,
        ),
        new_code_cell(
            'text = "The cat sat on the mat. The mat was flat."\nsorted(set(words(text)))',
            execution_count=2,
            outputs=[
                new_output(
                    "execute_result",
                    execution_count=2,
                    data={"text/plain": "['cat', 'flat', 'mat', 'on', 'sat', 'the', 'was']"},
                )
            ],
        ),
        new_code_cell(
            "for w in ('the', 'mat'):\n    print(w, words(text).count(w))",
            execution_count=3,
            outputs=[new_output("stream", name="stdout", text="the 3\nmat 2\n")],
        ),
    ]
    for cell in nb.cells:
        del cell["id"]
    return nb


def unicode():
    nb = new_notebook(metadata=dict(PYTHON_METADATA, title="Données météo – 天气 – ☀️"))
    nb.cells = [
        new_markdown_cell(
            "# Relevés météo à Zürich, 東京 et القاهرة\n\n"
            "Température moyenne: ∑ tᵢ / n, en °C. Ça marche ✓ — même avec des émojis 🌧️🌤️."
        ),
        new_code_cell(
            '# -*- coding: utf-8 -*-\nvilles = {"Zürich": [3.5, 4.1], "東京": [9.8, 11.2], "القاهرة": [19.0, 21.4]}\n'
            "for ville, t in villes.items():\n"
            '    print(f"{ville}: {sum(t) / len(t):.1f} °C")',
            execution_count=1,
            outputs=[
                new_output(
                    "stream",
                    name="stdout",
                    text="Zürich: 3.8 °C\n東京: 10.5 °C\nالقاهرة: 20.2 °C\n",
                )
            ],
        ),
        new_code_cell(
            'étiquette = "naïve café"  # identifiers may be non-ASCII\nétiquette.upper()',
            execution_count=2,
            outputs=[
                new_output("execute_result", execution_count=2, data={"text/plain": "'NAÏVE CAFÉ'"}),
            ],
        ),
        new_markdown_cell("Fin. 終わり。 🎉"),
    ]
    return ids(nb, "unicode")


def attachments():
    nb = new_notebook(metadata=PYTHON_METADATA)
    logo = new_markdown_cell(
        "## The logo\n\n![logo](attachment:logo.png)\n\nPasted into the cell, so it travels with the notebook.",
        attachments={"logo.png": {"image/png": png(12, 12, seed=7)}},
    )
    nb.cells = [
        logo,
        new_raw_cell(
            "% raw cell: passed through untouched by nbconvert\n\\section{Logo}",
            metadata={"raw_mimetype": "text/latex"},
        ),
        new_code_cell('print("after the attachment")', execution_count=1,
                      outputs=[new_output("stream", name="stdout", text="after the attachment\n")]),
    ]
    return ids(nb, "attach")


def magics():
    nb = new_notebook(metadata=PYTHON_METADATA)
    nb.cells = [
        new_markdown_cell("IPython magics and shell escapes: valid in a notebook, not in plain Python."),
        new_code_cell("%matplotlib inline\n%load_ext autoreload\n%autoreload 2\nimport numpy as np"),
        new_code_cell("!pip install --quiet requests\n!echo done"),
        new_code_cell("%%time\ntotal = 0\nfor i in range(1000):\n    total += i"),
        new_code_cell("files = !ls\nfiles[:3]"),
        new_code_cell("%%bash\nfor f in *.ipynb; do\n  echo \"$f\"\ndone"),
        new_code_cell("np.arange(3)?\nlen??"),
    ]
    return ids(nb, "magics")


NOTEBOOKS = {
    "analysis.ipynb": analysis,
    "legacy-v4.4.ipynb": legacy,
    "unicode.ipynb": unicode,
    "attachments.ipynb": attachments,
    "magics.ipynb": magics,
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = sys.argv[1:]
    only_check = "--check" in args
    args = [a for a in args if a != "--check"]
    out = args[0] if args else os.path.relpath(os.path.join(here, "..", "tests", "data", "notebooks"))
    os.makedirs(out, exist_ok=True)
    differ = 0
    for name, make in NOTEBOOKS.items():
        nb = make()
        nbformat.validate(nb)
        data = (nbformat.writes(nb) + "\n").encode("utf-8")  # what nbformat.write writes
        assert len(data) < 20_000, f"{name} is {len(data)} bytes; fixtures stay under 20 KB"
        path = os.path.join(out, name)
        if only_check:
            same = os.path.exists(path) and open(path, "rb").read() == data
            differ += not same
            print(f"{path}: {'as written' if same else 'DIFFERS from what this script writes'}")
            continue
        nbformat.write(nb, path)
        assert open(path, "rb").read() == data
        print(f"{path}: {len(nb.cells)} cells, {len(data)} bytes")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
