#!/bin/sh
# Rebuilds reports/wcxb-extract/ablation.md: the feature-group ablation of issue 14 on pages no
# model saw (folds by domain/site), same folds and seed for every variant.
#
#   sh reports/wcxb-extract/ablation.sh            # from the repository root, after cargo build --release
#
# Fixed, documented subsets keep it to minutes on a shared 2-core machine: the WCXB dev label
# files whose number is a multiple of 5 (294 pages) and every 5th Dragnet label file in name
# order (276 pages). Variants: the old (2008) views; old + semantics; old + density; old +
# metadata; old + all three. Configs: configs/wcxb-extract.toml and configs/dragnet-extract.toml
# (cheap variant: r = 0, 200 rounds, 32 bins). Records (JSON Lines) and wall times go to
# $OUT (default target/ablation, untracked); the table is written by ablation.py.
set -eu
cd "$(dirname "$0")/../.."
BIN=${PARCELS:-target/release/parcels}
OUT=${OUT:-target/ablation}
VARIANTS=${VARIANTS:-"old semantics density metadata all"}
CORPORA=${CORPORA:-"wcxb dragnet"}
mkdir -p "$OUT/wcxb-subset" "$OUT/dragnet-subset"
for f in corpora/wcxb-dev/labels/*.json; do
  n=$(basename "$f" .json | sed 's/^0*//')
  if [ $((n % 5)) -eq 0 ]; then ln -sf "$PWD/$f" "$OUT/wcxb-subset/"; fi
done
i=0
for f in $(ls corpora/dragnet/labels/*.json | sort); do
  if [ $((i % 5)) -eq 0 ]; then ln -sf "$PWD/$f" "$OUT/dragnet-subset/"; fi
  i=$((i + 1))
done
OLD_S='"placement", "layout", "layer", "table", "font", "image", "css"'
OLD_L='"words", "links", "pos", "tokens"'
for corpus in $CORPORA; do
  for v in $VARIANTS; do
    s="$OLD_S"; l="$OLD_L"
    case $v in
      semantics) s="$OLD_S, \"semantics\"" ;;
      density) s="$OLD_S, \"density\"" ;;
      metadata) l="$OLD_L, \"metadata\"" ;;
      all) s="$OLD_S, \"semantics\", \"density\""; l="$OLD_L, \"metadata\"" ;;
    esac
    start=$(date +%s)
    nice -n 5 "$BIN" cross-extract "configs/$corpus-extract.toml" \
      --set "corpus.labels=[\"$PWD/$OUT/$corpus-subset\"]" \
      --set "views.stylistic=[$s]" --set "views.lexical=[$l]" \
      --out "$OUT/$corpus-$v.jsonl" > "$OUT/$corpus-$v.log" 2>&1
    echo $(( $(date +%s) - start )) > "$OUT/$corpus-$v.seconds"
  done
done
python3 reports/wcxb-extract/ablation.py "$OUT" > reports/wcxb-extract/ablation.md
