#!/usr/bin/env bash
# Runs every fuzz target (or those named) for a bounded time each, one after the other.
#   bash fuzz/run.sh                 # every target, 600 s each
#   SECONDS_EACH=60 bash fuzz/run.sh edit_apply stubs
#   nice -n 10 bash fuzz/run.sh      # on a shared machine
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`) and works on the stable toolchain: cargo-fuzz
# passes nightly-only flags to rustc (-Zsanitizer=address, coverage options), which stable accepts
# under RUSTC_BOOTSTRAP=1, set here unless the toolchain in use is a nightly (the default one, or
# RUSTUP_TOOLCHAIN=nightly bash fuzz/run.sh). Not part of CI.
# Every target is built once, first, by one `cargo fuzz build` (so they share the compiled crates;
# expect 20 minutes or more on 2 cores the first time): release mode with debug assertions and
# overflow checks, and AddressSanitizer (cargo-fuzz's defaults; FUZZ_BUILD_FLAGS adds others, and
# every run uses the same flags, so nothing is rebuilt). Its log is fuzz/logs/build.log.
# Crashes are saved under fuzz/artifacts/<target>/; the corpus grows in fuzz/corpus/<target>/,
# seeded from fuzz/seeds/<target>/ where it exists, with the tokens of fuzz/dicts/<target>.dict
# where it exists; each run's full log is fuzz/logs/<target>.log.
set -uo pipefail
cd "$(dirname "$0")/.."
each="${SECONDS_EACH:-600}"
read -r -a flags <<< "${FUZZ_BUILD_FLAGS:-}"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(resolve_path edit_apply unescape_cleanup syntax_report stubs survey framing patch_parse notebook)
fi
if ! rustc --version | grep -q -- -nightly; then
  export RUSTC_BOOTSTRAP=1
fi
mkdir -p fuzz/logs
echo "== build ($(rustc --version)${RUSTC_BOOTSTRAP:+, RUSTC_BOOTSTRAP=1})"
start=$SECONDS
if ! cargo fuzz build "${flags[@]}" > fuzz/logs/build.log 2>&1; then
  tail -20 fuzz/logs/build.log
  echo "== build FAILED (see fuzz/logs/build.log)"
  exit 1
fi
echo "== build: $((SECONDS - start))s"
status=0
for target in "${targets[@]}"; do
  echo "== $target: ${each}s"
  log="fuzz/logs/$target.log"
  # The corpus grows in fuzz/corpus/<target>; fuzz/seeds/<target> (committed) starts it with a
  # small valid input per case, so mutations begin from real syntax.
  corpora=("fuzz/corpus/$target")
  mkdir -p "fuzz/corpus/$target"
  if [ -d "fuzz/seeds/$target" ]; then corpora+=("fuzz/seeds/$target"); fi
  dict=()
  if [ -f "fuzz/dicts/$target.dict" ]; then dict=("-dict=fuzz/dicts/$target.dict"); fi
  cargo fuzz run "${flags[@]}" "$target" "${corpora[@]}" -- -max_total_time="$each" -rss_limit_mb=4096 \
    -timeout=20 "${dict[@]}" > "$log" 2>&1
  code=$?
  grep -E "^(#[0-9]+.*DONE|Done [0-9]+ runs|SUMMARY|Test unit written)" "$log"
  if [ $code -ne 0 ]; then
    echo "== $target: FAILED (exit $code; see $log and fuzz/artifacts/$target/)"
    status=1
  fi
done
exit $status
