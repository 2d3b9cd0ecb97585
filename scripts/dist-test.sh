#!/usr/bin/env bash
# Installs each package that `bash scripts/dist.sh` wrote into dist/ as a user would, each into
# a fresh, empty prefix, and speaks MCP through what it installed (initialize, list the tools,
# write a file in two parts, check it): the wheel into a new virtual environment and through
# `uvx`, the two npm tarballs into a new npm prefix and through `npx`, the MCPB bundle unpacked
# and started as its manifest says, and the crate with `cargo install` into a temporary root.
# Every install and every start is offline: pip and uv without an index, npm --offline with an
# empty cache, cargo --offline, and, where
# the system allows (root, or unprivileged namespaces), inside a network namespace with no
# network at all. Before that: every package says Cargo.toml's version, server.json is what the
# MCP Registry accepts (against its schema when FILEWRIGHT_SERVER_SCHEMA names a copy of it),
# and the README's configuration snippets parse and start real entry points.
#
# Run from the repository root after scripts/dist.sh (CI runs both), with python3 3.11 or later
# (tomllib). It ends with a line "N passed, N failed" and fails when any check did.
#
# The crate is built as `cargo install --debug`, for the machine's target with the repository's
# flags and target directory, so that the dependencies built by the tests are reused (a release
# build with link-time optimisation takes minutes on 2 cores); FILEWRIGHT_DIST_TEST_CARGO=user
# builds it exactly as `cargo install filewright` does for a user, in its own directory.
set -uo pipefail
cd "$(dirname "$0")/.."

repo=$PWD
dist=dist
tools=target/dist-tools
if [ ! -f "$dist/server.json" ]; then
    echo "no $dist/server.json: run \`bash scripts/dist.sh\` first" >&2
    exit 1
fi
version=$(python3 scripts/dist/make.py version)
cargo_target=$(python3 scripts/dist/make.py target-dir)
binary=target/dist-binary/filewright
platform=$(python3 scripts/dist/make.py platform)
schemas=target/dist-schemas
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs a command with no network, where a network namespace can be made; otherwise as is
# (the installs below are offline by their own flags all the same).
if unshare --net --map-root-user true 2>/dev/null; then
    offline() { unshare --net --map-root-user "$@"; }
    echo "== installs and starts run without a network (a network namespace of their own)"
else
    offline() { "$@"; }
    echo "== no network namespace here: installs and starts are offline by their flags only"
fi

passed=0
failed=0
# check NAME COMMAND...: runs one check, its output indented, and counts it.
check() {
    local name=$1
    shift
    echo "== $name"
    if "$@" > "$work/out" 2>&1; then
        sed 's/^/   /' "$work/out"
        echo "ok $name"
        passed=$((passed + 1))
    else
        sed 's/^/   /' "$work/out"
        echo "FAILED $name"
        failed=$((failed + 1))
    fi
}
verify() { python3 scripts/dist/verify.py "$@"; }
session() { # session NAME COMMAND... : an MCP session through COMMAND, on a new root
    local root="$work/roots/$1"
    shift
    offline python3 scripts/dist/verify.py session --root "$root" --tools "$schemas" -- "$@"
}

check "every package says version $version" verify versions "$dist"
check "the crate holds what cargo install needs, and nothing else" verify crate "$dist" --tools "$schemas"
schema_args=()
[ -n "${FILEWRIGHT_SERVER_SCHEMA:-}" ] && schema_args=(--schema "$FILEWRIGHT_SERVER_SCHEMA")
check "server.json" "$tools/venv/bin/python" scripts/dist/verify.py server-json "$dist" "${schema_args[@]}"
check "README snippets start real entry points" verify readme "$dist" --binary "$binary" --tools "$schemas"

wheel_test() {
    python3 -m venv "$work/venv" &&
        offline "$work/venv/bin/pip" install --no-index --no-cache-dir --disable-pip-version-check --quiet \
            "$dist"/filewright-"$version"-*.whl &&
        test "$("$work/venv/bin/filewright" --version)" = "filewright $version" &&
        session wheel "$work/venv/bin/filewright" --root "$work/roots/wheel"
}
check "wheel: pip install into a new virtual environment" wheel_test

uvx_test() { # as the README's configurations start it, from dist/ instead of the index
    test "$(offline env UV_CACHE_DIR="$work/uv-cache" UV_TOOL_DIR="$work/uv-tools" UV_PYTHON_DOWNLOADS=never \
        "$tools/venv/bin/uvx" --offline --no-index --find-links "$repo/$dist" filewright --version)" \
        = "filewright $version" &&
        session uvx env UV_CACHE_DIR="$work/uv-cache" UV_TOOL_DIR="$work/uv-tools" UV_PYTHON_DOWNLOADS=never \
            "$repo/$tools/venv/bin/uvx" --offline --no-index --find-links "$repo/$dist" \
            filewright --root "$work/roots/uvx"
}
check "wheel: uvx filewright" uvx_test

npm_test() {
    mkdir -p "$work/npm" &&
        (cd "$work/npm" && offline npm install --offline --no-audit --no-fund --silent \
            --cache "$work/npm-cache" --prefix "$work/npm" \
            "$repo/$dist/filewright-$version.tgz" "$repo/$dist"/filewright-*-"$version".tgz) &&
        test "$(offline "$work/npm/node_modules/.bin/filewright" --version)" = "filewright $version" &&
        session npm "$work/npm/node_modules/.bin/filewright" --root "$work/roots/npm"
}
check "npm: the two tarballs into a new prefix" npm_test

npx_test() { # as the README's configurations start it, from the tarballs instead of the registry
    local npx=(npx --offline --yes --cache "$work/npx-cache"
        --package "$repo/$dist/filewright-$version.tgz" --package "$repo/$dist/filewright-$platform-$version.tgz")
    test "$(cd "$work" && offline "${npx[@]}" -- filewright --version)" = "filewright $version" &&
        session npx "${npx[@]}" -- filewright --root "$work/roots/npx"
}
check "npm: npx filewright" npx_test

bundle_test() {
    local bundle
    bundle=$(ls "$dist"/filewright-"$version"-*.mcpb) &&
        python3 scripts/dist/make.py unpack "$bundle" "$work/bundle" --root "$work/roots/bundle" > "$work/command" &&
        "$tools/npm/node_modules/.bin/mcpb" validate "$work/bundle/manifest.json" &&
        command=() &&
        while IFS= read -r word; do command+=("$word"); done < "$work/command" &&
        test "${#command[@]}" -gt 0 &&
        session bundle "${command[@]}"
}
check "MCPB bundle: validated, unpacked and started as its manifest says" bundle_test

crate_test() {
    mkdir -p "$work/crate" &&
        tar -xzf "$dist/filewright-$version.crate" -C "$work/crate" &&
        if [ "${FILEWRIGHT_DIST_TEST_CARGO:-}" = user ]; then
            offline cargo install --locked --offline --quiet --root "$work/cargo" \
                --target-dir "$work/cargo-target" --path "$work/crate/filewright-$version"
        else
            # `cargo install` reads no project configuration: name the repository's.
            offline cargo --config "$repo/.cargo/config.toml" install --locked --offline --quiet --debug \
                --root "$work/cargo" --target-dir "$cargo_target" --path "$work/crate/filewright-$version"
        fi &&
        test "$("$work/cargo/bin/filewright" --version)" = "filewright $version" &&
        session crate "$work/cargo/bin/filewright" --root "$work/roots/crate"
}
check "crate: cargo install of the packaged crate into a new root" crate_test

echo "dist: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
