#!/usr/bin/env bash
# Runs every fuzz target (or those named) for a bounded time each, one after the other.
#   bash fuzz/run.sh                 # every target, 600 s each
#   SECONDS_EACH=60 bash fuzz/run.sh edit_apply stubs
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`); not part of CI.
# Crashes are saved under fuzz/artifacts/<target>/; the corpus grows in fuzz/corpus/<target>/,
# seeded from fuzz/seeds/<target>/ where it exists; each run's full log is fuzz/logs/<target>.log.
set -uo pipefail
cd "$(dirname "$0")/.."
each="${SECONDS_EACH:-600}"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(resolve_path edit_apply unescape_cleanup syntax_report stubs survey framing patch_parse)
fi
mkdir -p fuzz/logs
status=0
for target in "${targets[@]}"; do
  echo "== $target: ${each}s"
  log="fuzz/logs/$target.log"
  # The corpus grows in fuzz/corpus/<target>; fuzz/seeds/<target> (committed) starts it with a
  # small valid file per language, so mutations begin from real syntax.
  corpora=("fuzz/corpus/$target")
  mkdir -p "fuzz/corpus/$target"
  if [ -d "fuzz/seeds/$target" ]; then corpora+=("fuzz/seeds/$target"); fi
  cargo +nightly fuzz run "$target" "${corpora[@]}" -- -max_total_time="$each" -rss_limit_mb=4096 -timeout=20 \
    > "$log" 2>&1
  code=$?
  grep -E "^(#[0-9]+.*DONE|Done [0-9]+ runs|SUMMARY|Test unit written)" "$log"
  if [ $code -ne 0 ]; then
    echo "== $target: FAILED (exit $code; see $log and fuzz/artifacts/$target/)"
    status=1
  fi
done
exit $status
