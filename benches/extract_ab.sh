#!/bin/sh
# Side-by-side throughput of two parcels binaries (or two models) on the same pages: runs
# `parcels extract --no-blocks --threads 1` with each in turn, alternating, RUNS times, and
# prints each run's wall and CPU seconds and the medians. Run it on an idle machine.
#
#   sh benches/extract_ab.sh "A_CMD" "B_CMD" RUNS PAGE...
#
# A_CMD and B_CMD are the command up to the pages, e.g. "target/old/parcels extract" and
# "target/release/parcels extract --model corpora/models/new.json".
set -eu
a=$1; b=$2; runs=$3; shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
    for side in A B; do
        if [ "$side" = A ]; then cmd=$a; else cmd=$b; fi
        RAYON_NUM_THREADS=1 /usr/bin/time -f "%e %U %S" -o "$tmp/t" $cmd --no-blocks --threads 1 "$@" > /dev/null 2> "$tmp/err"
        read -r wall user sys < "$tmp/t"
        echo "$side $wall $(echo "$user + $sys" | bc)" | tee -a "$tmp/all"
    done
    i=$((i + 1))
done
pages=$#
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for side in A B; do
    w=$(grep "^$side " "$tmp/all" | cut -d' ' -f2 | median)
    c=$(grep "^$side " "$tmp/all" | cut -d' ' -f3 | median)
    echo "$side: median wall $w s ($(echo "scale=1; $pages / $w" | bc) pages/s), median CPU $c s, $runs runs"
done
