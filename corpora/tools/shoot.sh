#!/usr/bin/env bash
# Screenshots of a page's block view in slices a person (or a reading session) can look at:
#   corpora/tools/shoot.sh PAGE.html OUT_PREFIX [SLICES] [PARCELS_BINARY]
# writes OUT_PREFIX.blocks.html and OUT_PREFIX-0.png, OUT_PREFIX-1.png, … (1200×1400 each).
set -euo pipefail
page=$1; out=$2; slices=${3:-4}; parcels=${4:-target/release/parcels}
"$parcels" divide "$page" --html "$out.blocks.html" > /dev/null
for ((k = 0; k < slices; k++)); do
  sed "0,/<head[^>]*>/s//&<style>html{margin-top:-$((k * 1300))px !important}<\/style>/" "$out.blocks.html" > "$out-$k.html"
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d)" --window-size=1200,1400 --hide-scrollbars \
    --screenshot="$out-$k.png" "file://$(realpath "$out-$k.html")" 2>/dev/null || true
  rm -f "$out-$k.html"
done
