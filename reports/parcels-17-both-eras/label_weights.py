#!/usr/bin/env python3
"""Chooses per-label weights for the final decision on some folds' out-of-fold probabilities,
and applies them to other folds: a block takes the label of largest weight × probability instead
of the most probable one (a decision rule parcels does not have: this measures whether it should).

    python3 reports/parcels-17-both-eras/label_weights.py SHEET.tsv FOLD=PROBS.jsonl... \
        --out OUT.jsonl [--objective macro-f1|error] [--passes 3]

PROBS.jsonl: `parcels classify --probabilities --model FOLD_MODEL` over the pages the fold model
held out (one file per fold; FOLD names it). SHEET.tsv: `parcels corpus sheet` of the same pages.
Each fold's weights are chosen on the *other* folds' pages only (cross-tuning), so the records
written to OUT.jsonl (`{"path", "fold", "blocks": [{"id", "label"}]}`, for score.py) measure
weights chosen without the pages they are scored on; `--passes 0` writes the most probable label
(the control). The weights chosen on all folds together are printed as a TOML table. Needs numpy
(`pip install numpy`).

Choice: coordinate ascent over the labels, log-weights on a grid of 0.1 from -2 to +2, best
objective first (ties: the smaller |log-weight|); `macro-f1` is the mean F1 of the labels with at
least 10 labelled blocks in the tuning pages, `error` the block error.
"""

import argparse
import collections
import csv
import json
import math
import sys

import numpy as np

csv.field_size_limit(10**9)

GRID = [x / 10 for x in range(-20, 21)]


def load(sheet, runs):
    gold = collections.defaultdict(dict)
    for r in csv.DictReader(open(sheet, encoding="utf-8"), delimiter="\t", quoting=csv.QUOTE_NONE):
        if r["label"] and r["label"] != "-":
            gold[r["page"]][int(r["block"])] = r["label"]
    folds = {}
    labels = None
    for spec in runs:
        fold, path = spec.split("=", 1)
        rows = []
        for line in open(path, encoding="utf-8"):
            rec = json.loads(line)
            if "blocks" not in rec:
                continue
            page = rec["path"].rsplit("/", 1)[-1].split(".")[0]
            for b in rec["blocks"]:
                if labels is None:
                    labels = list(b["probabilities"])
                p = [b["probabilities"][name] for name in labels]
                rows.append((rec["path"], page, b["id"], gold.get(page, {}).get(b["id"]), p))
        folds[fold] = rows
    return labels, folds


def matrix(rows, labels):
    """Log-probabilities (blocks × labels) and people's label index of the labelled rows."""
    rows = [r for r in rows if r[3] is not None]
    logp = np.log(np.maximum(np.array([r[4] for r in rows], dtype=float), 1e-300))
    gold = np.array([labels.index(r[3]) for r in rows])
    return logp, gold


def score(logp, gold, logw, objective):
    k = logp.shape[1]
    pred = np.argmax(logp + logw, axis=1)
    if objective == "error":
        return -float(np.mean(pred != gold))
    hit = pred == gold
    tp = np.bincount(gold[hit], minlength=k)
    fp = np.bincount(pred[~hit], minlength=k)
    fn = np.bincount(gold[~hit], minlength=k)
    counted = (tp + fn) >= 10
    f1 = 2 * tp / np.maximum(1, 2 * tp + fp + fn)
    return float(f1[counted].mean())


def choose(rows, labels, objective, passes):
    logp, gold = matrix(rows, labels)
    logw = np.zeros(len(labels))
    best = score(logp, gold, logw, objective)
    for _ in range(passes):
        changed = False
        for c in range(len(labels)):
            keep = logw[c]
            for v in sorted(GRID, key=abs):
                logw[c] = v
                s = score(logp, gold, logw, objective)
                if s > best + 1e-12:
                    best, keep, changed = s, v, True
            logw[c] = keep
        if not changed:
            break
    return logw, best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sheet")
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--objective", choices=["macro-f1", "error"], default="macro-f1")
    ap.add_argument("--passes", type=int, default=3)
    args = ap.parse_args()
    labels, folds = load(args.sheet, args.runs)
    with open(args.out, "w", encoding="utf-8") as out:
        for fold, rows in folds.items():
            tuning = [r for f, rs in folds.items() if f != fold for r in rs]
            logw, best = choose(tuning, labels, args.objective, args.passes)
            print(f"fold {fold}: weights chosen on the other folds ({args.objective} {best:.4f}):", file=sys.stderr)
            print("  " + ", ".join(f"{l} {math.exp(w):.3g}" for l, w in zip(labels, logw) if w), file=sys.stderr)
            pages = collections.defaultdict(list)
            for path, _, block, _, p in rows:
                c = int(np.argmax(np.log(np.maximum(np.array(p), 1e-300)) + logw))
                pages[path].append({"id": block, "label": labels[c]})
            for path, blocks in pages.items():
                out.write(json.dumps({"path": path, "fold": fold, "blocks": blocks}) + "\n")
    logw, best = choose([r for rs in folds.values() for r in rs], labels, args.objective, args.passes)
    print(f"# chosen on all folds ({args.objective} {best:.4f})")
    print("[context.label_weights]")
    for l, w in zip(labels, logw):
        if w:
            print(f'"{l}" = {math.exp(w):.3g}')


if __name__ == "__main__":
    main()
