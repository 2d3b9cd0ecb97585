#!/usr/bin/env bash
# Runs every fuzz target (or those named) for a bounded time each, one after the other.
#   bash fuzz/run.sh                 # every target, 600 s each
#   SECONDS_EACH=60 bash fuzz/run.sh edit_apply stubs
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`); not part of CI.
# Crashes are saved under fuzz/artifacts/<target>/; the corpus grows in fuzz/corpus/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
each="${SECONDS_EACH:-600}"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(resolve_path edit_apply unescape_cleanup syntax_report stubs framing)
fi
status=0
for target in "${targets[@]}"; do
  echo "== $target: ${each}s"
  if ! cargo +nightly fuzz run "$target" -- -max_total_time="$each" -rss_limit_mb=4096 -timeout=20 2>&1 \
      | grep -E "^(#[0-9]+.*DONE|==[0-9]+==|SUMMARY|Done|artifact_prefix|Test unit written)" ; then
    :
  fi
  if [ "${PIPESTATUS[0]}" -ne 0 ]; then
    echo "== $target: FAILED (see fuzz/artifacts/$target/)"
    status=1
  fi
done
exit $status
