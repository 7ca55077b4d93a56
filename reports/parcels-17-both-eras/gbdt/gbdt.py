#!/usr/bin/env python3
"""Diagnostic: gradient-boosted trees (LightGBM) on the columns parcels' two views see.

Not part of parcels: a yardstick for its learner. It trains LightGBM's multi-class trees on each
block's stylistic and lexical columns, exactly as `parcels features --config` prints them for the
config's learners, and (with --arm ctx) on the numeric columns of the block before, the block
after, and the means of the five blocks before and the five after. There are no views, no
co-training and no context stage: one supervised learner, trained on every labelled page outside
the fold, scored on the fold's held-out pages. The folds are those of a `parcels cross-extract`
record (its `fold` field), so the pages held out are the same as the record's.

    python3 gbdt.py --print-pages reports/parcels-17-both-eras/828-pages/train-732.txt > pages.txt
    parcels features --config configs/parcels-17-both-eras.toml --view stylistic --format json PAGES... > st.jsonl
    parcels features --config configs/parcels-17-both-eras.toml --view lexical --format json PAGES... > lx.jsonl
    python3 gbdt.py --sheet SHEET.tsv --folds-from RECORD.jsonl[.gz] --stylistic st.jsonl --lexical lx.jsonl \
        --arm ctx --folds 0,1 --out gbdt.jsonl

The output is a record `score.py` reads (one line per held-out page: path, fold, blocks with id,
label, confidence). LightGBM is MIT-licensed and needed only here (pip install lightgbm numpy scipy).
Each era's share of the training weight is pulled halfway to equal, as `[boosting]
corpus_balance = 0.5` does. Token columns are those non-zero in at least 50 blocks (of all pages:
a count without labels).
"""
import argparse
import collections
import gzip
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from score import load_gold  # noqa: E402


def stem(path):
    return path.rsplit("/", 1)[-1].split(".")[0]


def print_pages(listing):
    """The page files (under ../shared/corpora) of the label files a list names, one per line."""
    root = Path(__file__).resolve().parents[3]
    for name in open(listing, encoding="utf-8"):
        name = name.strip()
        if not name or name.startswith("#"):
            continue
        for labels in ("corpora/parcels-17-modern/labels", "corpora/parcels-17/labels"):
            path = root / labels / name
            if path.exists():
                rec = json.loads(path.read_text(encoding="utf-8"))
                print(root.parent / "shared" / "corpora" / rec["corpus"] / rec["page"])
                break
        else:
            sys.exit(f"{listing}: no label file {name}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--print-pages":
        return print_pages(sys.argv[2])
    import lightgbm as lgb
    import numpy as np
    import scipy.sparse as sp

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sheet", required=True, help="`parcels corpus sheet` of the labelled pages")
    ap.add_argument("--folds-from", required=True, help="a cross-extract record: its pages and folds")
    ap.add_argument("--stylistic", required=True)
    ap.add_argument("--lexical", required=True)
    ap.add_argument("--arm", choices=["own", "ctx"], default="ctx")
    ap.add_argument("--folds", default="0,1")
    ap.add_argument("--rounds", type=int, default=250)
    ap.add_argument("--learning-rate", type=float, default=0.15)
    ap.add_argument("--leaves", type=int, default=31)
    ap.add_argument("--min-token-blocks", type=int, default=50)
    ap.add_argument("--window", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2004)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    t0 = time.time()

    def log(*a):
        print(f"[{time.time() - t0:6.0f} s]", *a, file=sys.stderr, flush=True)

    gold = {page: {block: label for block, (label, _) in labels.items()} for page, labels in load_gold(args.sheet).items()}
    opener = gzip.open if args.folds_from.endswith(".gz") else open
    fold = {}
    for line in opener(args.folds_from, "rt", encoding="utf-8"):
        if line.strip():
            rec = json.loads(line)
            fold[stem(rec["path"])] = rec["fold"]

    pages, num, tok = [], {}, {}
    for path, prefix in ((args.stylistic, "s."), (args.lexical, "l.")):
        for line in open(path, encoding="utf-8"):
            rec = json.loads(line)
            page = stem(rec["path"])
            if prefix == "s.":
                pages.append(page)
            for b in rec["blocks"]:
                key = (page, b["block"])
                num.setdefault(key, {}).update({prefix + n: v for n, v in b["numeric"].items()})
                tok.setdefault(key, {}).update({prefix + n: v for n, v in b.get("tokens", {}).items()})
    log(f"{len(pages)} pages, {len(num)} blocks")

    names = sorted({n for d in num.values() for n in d})
    column = {n: i for i, n in enumerate(names)}
    blocks = collections.defaultdict(list)
    for page, i in num:
        blocks[page].append(i)
    keys = [(p, i) for p in pages for i in sorted(blocks[p])]
    n, f = len(keys), len(names)
    x = np.full((n, f), np.nan, dtype=np.float32)
    for r, k in enumerate(keys):
        for name, v in num[k].items():
            if v is not None:
                x[r, column[name]] = v
    parts = [x]
    if args.arm == "ctx":
        row = {k: r for r, k in enumerate(keys)}
        prev, nxt, before, after = (np.full_like(x, np.nan) for _ in range(4))
        w = args.window
        for page in pages:
            rs = [row[(page, i)] for i in sorted(blocks[page])]
            a = x[rs]
            prev[rs[1:]] = a[:-1]
            nxt[rs[:-1]] = a[1:]
            c = np.cumsum(np.vstack([np.zeros((1, f), np.float32), np.nan_to_num(a)]), 0)
            m = len(rs)
            for j in range(m):
                lo, hi = max(0, j - w), min(m, j + w + 1)
                if j > 0:
                    before[rs[j]] = (c[j] - c[lo]) / (j - lo)
                if j < m - 1:
                    after[rs[j]] = (c[hi] - c[j + 1]) / (hi - j - 1)
        parts += [prev, nxt, before, after]
        del prev, nxt, before, after
    counts = collections.Counter(t for d in tok.values() for t in d)
    tokens = sorted(t for t, c in counts.items() if c >= args.min_token_blocks)
    tcol = {t: i for i, t in enumerate(tokens)}
    rows, cols, vals = [], [], []
    for r, k in enumerate(keys):
        for t, v in tok[k].items():
            if t in tcol:
                rows.append(r)
                cols.append(tcol[t])
                vals.append(v)
    t = sp.csr_matrix((vals, (rows, cols)), shape=(n, len(tokens)), dtype=np.float32)
    matrix = np.hstack(parts + [t.toarray()])
    del parts, x, t, num, tok
    log(f"matrix {matrix.shape}")

    classes = sorted({label for g in gold.values() for label in g.values()})
    index = {c: i for i, c in enumerate(classes)}
    y = np.array([index.get(gold.get(p, {}).get(i), -1) for p, i in keys])
    era = np.array([era_of(p) for p, _ in keys])
    with open(args.out + ".tmp", "w", encoding="utf-8") as out:
        for k in [int(s) for s in args.folds.split(",")]:
            test = np.array([fold.get(p) == k for p, _ in keys])
            train = ~test & (y >= 0)
            weight = np.ones(n)
            sizes = {e: (train & (era == e)).sum() for e in (0, 1)}
            for e, size in sizes.items():
                share = size / sum(sizes.values())
                weight[era == e] = (0.5 * share + 0.25) / share
            params = dict(objective="multiclass", num_class=len(classes), learning_rate=args.learning_rate,
                          num_leaves=args.leaves, min_data_in_leaf=20, feature_fraction=0.5,
                          bagging_fraction=0.8, bagging_freq=1, lambda_l2=1.0, num_threads=args.threads,
                          seed=args.seed, verbose=-1, max_bin=255)
            progress = lambda env: env.iteration % 50 == 0 and log(f"fold {k}: round {env.iteration}")  # noqa: E731
            data = lgb.Dataset(matrix[train], y[train], weight=weight[train], params=params).construct()
            model = lgb.train(params, data, num_boost_round=args.rounds, callbacks=[progress])
            del data
            p = model.predict(matrix[test])
            by_page = collections.defaultdict(list)
            for (page, i), c, conf in zip([k2 for k2, s in zip(keys, test) if s], p.argmax(1), p.max(1)):
                by_page[page].append({"id": int(i), "label": classes[c], "confidence": float(conf)})
            for page, bl in by_page.items():
                out.write(json.dumps({"path": page + ".html", "fold": k, "blocks": bl}) + "\n")
            yt, pred = y[test], p.argmax(1)
            log(f"fold {k}: block error {(pred[yt >= 0] != yt[yt >= 0]).mean():.4f}")
    os.replace(args.out + ".tmp", args.out)


def era_of(page):
    """1 for the 2008 pages (L3S-GN1 file names are UUIDs), 0 for the modern (WCXB numbers)."""
    return 1 if "-" in page else 0


if __name__ == "__main__":
    main()
