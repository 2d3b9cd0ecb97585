#!/usr/bin/env bash
# Bounds on a write's time: filewright built without parts of its write path, timed against
# the build as it is and the floor (`benches/common/floor.rs`), in turns of 50 calls.
#
#   bash benches/bounds/run.sh [RUNS]     (from anywhere in the repository; RUNS defaults to 3)
#
# Each bound is the commit checked out (HEAD; uncommitted changes reach only the build as it
# is) with patches of this directory applied, in a worktree under `target/bounds/`, built into
# a target directory of its own there. On the 2-core test machine the whole script took 16
# minutes with one run from a clean clone, and about 12 with three when built before (each
# bound is built again, incrementally). Only `check-first` is a server one could use: the
# others leave out what makes it safe.
# - `check-first`: the server as it is, but with the write's check handed to the helper before
#   the writeback instead of after it (a change that could ship, measured here with the rest);
# - `no-store`: no claim, no journal row, no version kept (no SQLite transaction at all);
# - `no-store-check-first`: the same, with the write's check handed to the helper before the
#   writeback instead of after it;
# - `no-store-no-check`: no store and no syntax check (the reply says "not checked").
# BENCHMARKS.md ("What 5x would take", in its latest section) has the results.
set -euo pipefail

runs=${1:-3}
top=$(git rev-parse --show-toplevel)
cd "$top"
host=$(rustc -vV | sed -n 's/^host: //p')
out=target/bounds
tree=$out/tree
mkdir -p "$out"

cargo build --release --locked

# A worktree an interrupted run left behind, registered or not.
git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
git worktree prune
git worktree add --detach --quiet "$tree" HEAD
trap 'git worktree remove --force "$tree"' EXIT

# bound NAME PATCH...: builds this commit with the patches, as `target/bounds/NAME`.
bound() {
    local name=$1
    shift
    (
        cd "$tree"
        git checkout --quiet -- .
        for patch in "$@"; do
            git apply "$top/benches/bounds/$patch.patch" || {
                echo "benches/bounds/$patch.patch no longer applies: the code it changes has moved." >&2
                echo "Run this script at the commit BENCHMARKS.md names, or remake the patch there." >&2
                exit 1
            }
        done
        CARGO_TARGET_DIR="$top/$out/target" cargo build --release --locked --quiet
    )
    cp "$out/target/$host/release/filewright" "$out/$name"
}

bound check-first check-first
bound no-store no-store
bound no-store-check-first no-store check-first
bound no-store-no-check no-store no-check

for run in $(seq "$runs"); do
    echo "run $run of $runs"
    cargo bench --locked --bench peers -- --builds "target/$host/release/filewright" "$out/check-first" \
        "$out/no-store" "$out/no-store-check-first" "$out/no-store-no-check" floor --block 50
done
