#!/usr/bin/env bash
# Build and package a release.
set -euo pipefail

readonly VERSION="${1:-0.1.0}"
TARGETS=(x86_64-unknown-linux-gnu aarch64-apple-darwin)
out_dir="$(pwd)/dist"

log() {
  printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

build() {
  local target=$1
  if [[ -z "$target" ]]; then
    log "no target"
    return 1
  elif [ "$target" = "native" ]; then
    cargo build --release
  else
    cargo build --release --target "$target"
  fi
}

mkdir -p "$out_dir"
for target in "${TARGETS[@]}"; do
  log "building $target"
  build "$target" || { log "failed: $target"; exit 1; }
done

case "$(uname -s)" in
  Linux) sum=sha256sum ;;
  Darwin) sum="shasum -a 256" ;;
  *) echo "unsupported" >&2; exit 2 ;;
esac

cat > "$out_dir/README" <<EOF_README
filewright $VERSION
built on $(date -u +%Y-%m-%d)
EOF_README

count=0
while read -r file; do
  count=$((count + 1))
  $sum "$file" >> "$out_dir/SHA256SUMS"
done < <(find "$out_dir" -type f -name '*.tar.gz')

echo "packaged $count archives" | tee -a "$out_dir/log.txt"
