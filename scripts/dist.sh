#!/usr/bin/env bash
# Builds filewright's release binary once and writes every package made from it into dist/:
#
#   filewright-<v>-py3-none-<tag>.whl      the Python wheel (pip, pipx, uvx)
#   filewright-<v>.tgz                     the npm package (`npx filewright`): a shim ...
#   filewright-<platform>-<v>.tgz          ... and the npm package that carries the binary
#   filewright-<v>-<platform>.mcpb         the MCPB bundle (Claude Desktop)
#   filewright-<v>.crate                   the crate (`cargo install filewright`)
#   server.json                            the MCP Registry entry naming all of them
#
# Run from the repository root: `bash scripts/dist.sh`. The version of every one is
# Cargo.toml's; `bash scripts/dist-test.sh` installs each as a user would and checks that.
# The packaging tools (maturin, the MCPB validator) are installed at run time into
# target/dist-tools/, from the package registries; the packages themselves are built offline.
#
# It builds for the machine it runs on: Linux x64 or arm64, or macOS (one universal binary
# for both CPUs; needs both Rust targets: `rustup target add aarch64-apple-darwin
# x86_64-apple-darwin`). The release workflow runs it once per platform.
#
# `bash scripts/dist.sh server.json` only writes server.json again, from the bundles in dist/
# (the release gathers every platform's bundle there first).
#
# FILEWRIGHT_DIST_PROFILE=dev (Linux only) packages the build the tests made instead of a
# release build, stripped of its debug information: CI does, as a release build with link-time
# optimisation takes 10 to 20 minutes on its 2 cores, and what the packages are made of is the
# same. Those packages are for testing, not for a release.
set -euo pipefail
cd "$(dirname "$0")/.."

dist=dist
tools=target/dist-tools
make() { python3 scripts/dist/make.py "$@"; }
step() { echo "== $*" >&2; }

if [ "${1:-}" = server.json ]; then
    make server-json --out "$dist"
    exit 0
fi

platform=$(make platform)
version=$(make version)
# Where cargo builds (CARGO_TARGET_DIR may move it); this script's own files stay in target/.
cargo_target=$(make target-dir)
step "filewright $version for $platform"
rm -rf "$dist"
mkdir -p "$dist" "$tools"

# The packaging tools, in throwaway prefixes of their own (kept between runs).
# uv and jsonschema are scripts/dist-test.sh's: it runs `uvx` and validates server.json.
if [ ! -x "$tools/venv/bin/maturin" ] || [ ! -x "$tools/venv/bin/uvx" ]; then
    step "installing maturin, uv and jsonschema into $tools/venv"
    python3 -m venv "$tools/venv"
    "$tools/venv/bin/pip" install --quiet --disable-pip-version-check \
        'maturin>=1.7,<2' 'uv>=0.5,<1' 'jsonschema>=4,<5'
fi
if [ ! -x "$tools/npm/node_modules/.bin/mcpb" ]; then
    step "installing the MCPB command line into $tools/npm"
    npm install --silent --no-audit --no-fund --prefix "$tools/npm" '@anthropic-ai/mcpb@2'
fi

# The binary, once: on Linux cargo builds it, its linkage picks the wheel's platform tag, and
# maturin, asking cargo for the same build, finds it done (checked below); on macOS maturin
# builds both CPUs' binaries and joins them into one, taken from the wheel for the rest.
case "$platform" in
darwin-universal)
    step "wheel (maturin, universal2: arm64 and x86_64)"
    "$tools/venv/bin/maturin" build --release --locked --quiet --target universal2-apple-darwin --out "$dist"
    wheel=$(ls "$dist"/filewright-"$version"-*.whl)
    binary=target/dist-binary/filewright
    python3 - "$wheel" "$binary" <<'EOF'
import os, sys, zipfile
wheel, binary = sys.argv[1:]
with zipfile.ZipFile(wheel) as archive:
    inside = [n for n in archive.namelist() if n.endswith(".data/scripts/filewright")]
    os.makedirs(os.path.dirname(binary), exist_ok=True)
    with open(binary, "wb") as out:
        out.write(archive.read(inside[0]))
os.chmod(binary, 0o755)
EOF
    ;;
*)
    host=$(rustc -vV | sed -n 's/^host: //p')
    case "${FILEWRIGHT_DIST_PROFILE:-release}" in
    release) profile=(--release) profile_dir=release ;;
    # maturin's --strip relinks the binary without its symbols, in the same place.
    dev) profile=(--profile dev --strip) profile_dir=debug ;;
    *) echo "FILEWRIGHT_DIST_PROFILE is release or dev, not $FILEWRIGHT_DIST_PROFILE" >&2; exit 1 ;;
    esac
    step "cargo build ${profile[0]}"
    cargo build --locked "${profile[@]:0:2}"
    binary=$cargo_target/$host/$profile_dir/filewright
    # The platform tag follows from how the binary links (see make.py's wheel_tags).
    tags=$(make wheel-tags "$binary")
    step "wheel (maturin, compatibility: ${tags:-chosen by maturin})"
    compat=()
    [ -n "$tags" ] && compat=(--compatibility $tags)
    "$tools/venv/bin/maturin" build "${profile[@]}" --locked --quiet --target "$host" "${compat[@]}" --out "$dist"
    wheel=$(make add-musl-tag "$(ls "$dist"/filewright-"$version"-*.whl)" "$binary")
    # The wheel must carry the very binary the other packages carry.
    python3 - "$wheel" "$binary" <<'EOF'
import hashlib, sys, zipfile
wheel, binary = sys.argv[1:]
with zipfile.ZipFile(wheel) as archive:
    inside = [n for n in archive.namelist() if n.endswith(".data/scripts/filewright")]
    carried = archive.read(inside[0]) if inside else b""
if hashlib.sha256(carried).digest() != hashlib.sha256(open(binary, "rb").read()).digest():
    sys.exit(f"{wheel}: its binary is not {binary} (maturin built another)")
EOF
    ;;
esac
# Where scripts/dist-test.sh finds it.
mkdir -p target/dist-binary
[ "$binary" = target/dist-binary/filewright ] || cp "$binary" target/dist-binary/filewright
"$binary" --version >&2
schemas=target/dist-schemas
rm -rf "$schemas"
"$binary" schemas "$schemas" 2>/dev/null

step "npm packages"
make npm --binary "$binary" --platform "$platform" --out "$dist"

step "MCPB bundle"
make bundle --binary "$binary" --platform "$platform" --schemas "$schemas" --out "$dist"
rm -rf target/dist-bundle
make unpack "$dist/filewright-$version-$platform.mcpb" target/dist-bundle >/dev/null
"$tools/npm/node_modules/.bin/mcpb" validate target/dist-bundle/manifest.json

step "crate (cargo package)"
cargo package --locked --quiet
cp "$cargo_target/package/filewright-$version.crate" "$dist/"

step "server.json"
make server-json --out "$dist"

step "written:"
ls -l "$dist" >&2
