#!/usr/bin/env python3
"""Block error and per-class F1 of `parcels classify` output against hand labels.

    python3 reports/cross-era-17/score_blocks.py SHEET.tsv CLASSIFIED.jsonl

SHEET.tsv is `parcels corpus sheet LABEL_DIR` (page, block, label, …); CLASSIFIED.jsonl is
`parcels classify --model M PAGES…` over the same pages (same divider, so block ids match).
Pages are matched by file stem. Blocks without a hand label are left out.
"""
import csv, json, sys, collections
csv.field_size_limit(10**9)
gold = {}
for r in csv.DictReader(open(sys.argv[1]), delimiter="\t", quoting=csv.QUOTE_NONE):
    gold[(r["page"], int(r["block"]))] = r["label"]
pairs = []
for line in open(sys.argv[2]):
    rec = json.loads(line)
    page = rec["path"].rsplit("/", 1)[-1].split(".")[0]
    for b in rec["blocks"]:
        g = gold.get((page, b["id"]))
        if g and g != "-":
            pairs.append((g, b["label"]))
n = len(pairs); err = sum(g != p for g, p in pairs) / n
print(f"blocks {n}, error {err:.3f}")
labels = sorted(set(g for g, _ in pairs) | set(p for _, p in pairs))
rows = []
for l in labels:
    tp = sum(1 for g, p in pairs if g == l and p == l); fp = sum(1 for g, p in pairs if g != l and p == l); fn = sum(1 for g, p in pairs if g == l and p != l)
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    rows.append((l, tp + fn, f1))
for l, support, f1 in sorted(rows, key=lambda r: -r[1]):
    print(f"{l:20s} {support:5d} {f1:.2f}")
