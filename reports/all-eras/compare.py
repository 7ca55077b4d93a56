#!/usr/bin/env python3
"""Scores extraction runs per corpus and compares them page by page with a baseline run.

    python3 reports/all-eras/compare.py --baseline NAME NAME=FILE.jsonl... [--venv DIR]

Each FILE is `parcels extract` or `parcels cross-extract` JSON Lines that may mix corpora; its
records are split by the corpus directory in their path (`/l3s-gn1/`, `/dragnet/`,
`/wcxb-dev/`) and scored with the peer benchmark's code (benches/peers/extract_peers.py): L3S-GN1
and Dragnet with the article-extraction benchmark's metric (F1 of the mean precision and mean
recall), WCXB with its own (word F1 per page, averaged; title F1, author and date found). A page
of the corpus with no record in a file counts as a failure (empty extraction), as the peer
benchmark counts it.

The paired comparison uses each page's own F1 (for L3S-GN1 and Dragnet 2PR/(P+R) of the page,
0 where the page has no precision or recall): the mean difference against the baseline, a 95%
bootstrap interval of it (10,000 resamples of pages, seed 2026), the Wilcoxon signed-rank test
(normal approximation, ties and zeros handled as Pratt does not: zero differences are dropped)
and the spread of the mean difference over the folds of the compared run (its records' `fold`).
"""

import argparse
import json
import math
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benches" / "peers"))
import extract_peers as peers  # noqa: E402

CORPUS_DIRS = {"l3s": "/l3s-gn1/", "dragnet": "/dragnet/", "wcxb": "/wcxb-dev/"}


def split_records(path):
    """{corpus: {stem: record}} of one JSON Lines file (split on "\\n" only, as
    extract_peers.parse_records explains)."""
    out = {c: {} for c in CORPUS_DIRS}
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if not line.strip():
                continue
            record = json.loads(line)
            record.pop("blocks", None)
            for corpus, d in CORPUS_DIRS.items():
                if d in record.get("path", ""):
                    out[corpus][Path(record["path"]).name.split(".")[0]] = record
                    break
    return out


def page_f1(entry, wcxb):
    if wcxb:
        return entry["f1"]
    p, r = entry.get("p"), entry.get("r")
    if not p or not r:
        return 0.0
    return 2 * p * r / (p + r)


def wilcoxon(diffs):
    """Two-sided p of the Wilcoxon signed-rank test, normal approximation, zeros dropped."""
    d = [x for x in diffs if abs(x) > 1e-12]
    n = len(d)
    if n == 0:
        return 1.0
    order = sorted(range(n), key=lambda i: abs(d[i]))
    ranks = [0.0] * n
    i, tie_term = 0, 0.0
    while i < n:
        j = i
        while j + 1 < n and abs(abs(d[order[j + 1]]) - abs(d[order[i]])) < 1e-12:
            j += 1
        rank = (i + j) / 2 + 1
        for k in range(i, j + 1):
            ranks[order[k]] = rank
        t = j - i + 1
        tie_term += t ** 3 - t
        i = j + 1
    w_plus = sum(r for r, x in zip(ranks, d) if x > 0)
    mean = n * (n + 1) / 4
    var = n * (n + 1) * (2 * n + 1) / 24 - tie_term / 48
    if var <= 0:
        return 1.0
    z = (w_plus - mean) / math.sqrt(var)
    return math.erfc(abs(z) / math.sqrt(2))


def bootstrap(diffs, seed=2026, n=10_000):
    rng = random.Random(seed)
    k = len(diffs)
    means = sorted(sum(diffs[rng.randrange(k)] for _ in range(k)) / k for _ in range(n))
    return means[int(0.025 * n)], means[int(0.975 * n) - 1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="NAME=FILE.jsonl")
    parser.add_argument("--baseline", required=True, help="the NAME the others are compared with")
    parser.add_argument("--corpus", choices=list(CORPUS_DIRS), action="append")
    parser.add_argument("--venv", type=Path, default=peers.DEFAULT_VENV)
    parser.add_argument("--corpora", type=Path, default=peers.DEFAULT_CORPORA)
    args = parser.parse_args()
    peers.reexec_in_venv(args.venv, __file__)
    runs = []
    for spec in args.runs:
        name, sep, path = spec.partition("=")
        if not sep:
            parser.error(f"a run is NAME=FILE.jsonl, not {spec}")
        runs.append((name, split_records(path)))
    names = [n for n, _ in runs]
    if args.baseline not in names:
        parser.error(f"--baseline {args.baseline} is none of {', '.join(names)}")
    for corpus in args.corpus or list(CORPUS_DIRS):
        wcxb = corpus == "wcxb"
        pages, _ = peers.CORPUS_PAGES[corpus](args.corpora, 0)
        results = {}
        for name, records in runs:
            outs = peers.parcels_outputs(records[corpus], pages)
            results[name] = (peers.evaluate(outs, pages, True), outs)
        print(f"\n### {corpus} ({len(pages)} pages)\n")
        if wcxb:
            types = sorted(next(iter(results.values()))[0]["per_type"])
            print("| run | records | P | R | F1 | title F1 | author found | date found | "
                  + " | ".join(types) + " |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(types))
        else:
            print("| run | records | P | R | F1 | title F1 |\n|---|---:|---:|---:|---:|---:|")
        for name, records in runs:
            r = results[name][0]
            row = (f"| {name} | {len(records[corpus])} | {peers.fmt(r['precision'])} | "
                   f"{peers.fmt(r['recall'])} | {peers.fmt(r['f1'])} | {peers.fmt(r['title_f1'])} |")
            if wcxb:
                row += (f" {peers.fmt(r['author_found'])} | {peers.fmt(r['date_found'])} | "
                        + " | ".join(peers.fmt(r["per_type"][t]["f1"]) for t in types) + " |")
            print(row)
        base = results[args.baseline][0]["per_page"]
        print(f"\nPaired with `{args.baseline}`, per-page F1, all {len(pages)} pages:\n")
        print("| run | mean difference | 95% bootstrap | pages better / worse | Wilcoxon p "
              "| per-fold mean difference (min … max) |\n|---|---:|---|---|---:|---|")
        for name, _ in runs:
            if name == args.baseline:
                continue
            r, outs = results[name]
            keys = [p["key"] for p in pages]
            diffs = [page_f1(r["per_page"][k], wcxb) - page_f1(base[k], wcxb) for k in keys]
            lo, hi = bootstrap(diffs)
            folds = {}
            for k, dd in zip(keys, diffs):
                f = outs[k].get("fold")
                if f is not None:
                    folds.setdefault(f, []).append(dd)
            spread = (f"{min(statistics.mean(v) for v in folds.values()):+.3f} … "
                      f"{max(statistics.mean(v) for v in folds.values()):+.3f} ({len(folds)} folds)"
                      if folds else "–")
            better = sum(d > 1e-12 for d in diffs)
            worse = sum(d < -1e-12 for d in diffs)
            print(f"| {name} | {statistics.mean(diffs):+.4f} | {lo:+.4f} … {hi:+.4f} | "
                  f"{better} / {worse} | {wilcoxon(diffs):.2g} | {spread} |")


if __name__ == "__main__":
    main()
