#!/usr/bin/env bash
# Issue 48's notebook scenarios (scripts/notebook-scenarios.py) against a filewright binary,
# over stdio, with the official MCP Python SDK and nbformat as the judge:
#
#   bash scripts/notebook-scenarios.sh [SERVER_BINARY] [ARGS...]   (default: a release build, made if missing)
#
# ARGS go to the Python script (--only a,b, --seed N, --keep, -v). The clients live in
# $FILEWRIGHT_CLIENTS (default ~/.cache/filewright-clients, shared with http-clients.sh): a
# Python venv with mcp==2.3.0 and nbformat==5.11.1, installed on first use. Exit 0 only when
# every check passed.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/filewright}
shift || true
if [ ! -x "$BIN" ]; then
    echo "== building $BIN"
    cargo build --release --locked || exit 1
fi
CLIENTS=${FILEWRIGHT_CLIENTS:-$HOME/.cache/filewright-clients}
VENV=$CLIENTS/venv
if ! "$VENV/bin/python" -c 'import importlib.metadata as m; assert m.version("mcp") == "2.3.0" and m.version("nbformat") == "5.11.1"' 2>/dev/null; then
    echo "== installing mcp==2.3.0 and nbformat==5.11.1 into $VENV"
    mkdir -p "$CLIENTS"
    { [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"; } && "$VENV/bin/pip" install -q mcp==2.3.0 nbformat==5.11.1 \
        || { echo "cannot install the Python SDK and nbformat"; exit 1; }
fi
exec "$VENV/bin/python" scripts/notebook-scenarios.py "$BIN" "$@"
