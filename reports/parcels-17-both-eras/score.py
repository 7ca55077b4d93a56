#!/usr/bin/env python3
"""Block error and per-class F1 of 17-label runs on each era, and a page-by-page comparison.

    python3 reports/parcels-17-both-eras/score.py SHEET.tsv NAME=CLASSIFIED.jsonl... [--baseline NAME]

SHEET.tsv is `parcels corpus sheet LABEL_DIR` (the people's label of every block);
CLASSIFIED.jsonl is `parcels classify` or `parcels cross-extract` output over some of the same
pages (same divider, so block ids match; pages are matched by file stem, records of other pages
are ignored; `.jsonl.gz` files too, such as `reports/all-eras/compact.py`'s records of adopted
runs). Blocks without a label are left out. Prints, per run, the block error, the number
of pages, and F1 per class (classes with at least 10 labelled blocks marked); with --baseline,
the per-page error difference against it over the pages both runs cover: mean, 95% bootstrap
interval (10,000 resamples, seed 2026), pages better / worse, Wilcoxon signed-rank p. With
--confusions N, each run's N most frequent confusions (people's label, run's label). With
--worst-pages N, how concentrated each class's errors are: per run and class, its missed and
false blocks, the share of them on the class's N worst pages, and those pages (block F1 weighs
every block alike, so a few sprawling pages can hold most of a small class's errors).

Runs made with another divider (another block list) name their own sheet:
`--sheet-for NAME=SHEET.tsv` (same label files, sheet made with `--divider`). Block error then
counts different units on each side; `--chars` weighs every block by the characters of its text
(spaces left out; a block without text weighs 1), which makes error, F1 and the page-by-page
comparison measure characters of page text, the same whatever the divider.
"""
import argparse
import collections
import csv
import gzip
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "all-eras"))
from compare import bootstrap, wilcoxon  # noqa: E402

csv.field_size_limit(10**9)


def load_gold(path, chars=False):
    """{page: {block: (label, weight)}}: weight 1, or the block's characters with `chars`."""
    gold = collections.defaultdict(dict)
    for r in csv.DictReader(open(path, encoding="utf-8"), delimiter="\t", quoting=csv.QUOTE_NONE):
        if r["label"] and r["label"] != "-":
            weight = max(1, sum(not c.isspace() for c in r["text"])) if chars else 1
            gold[r["page"]][int(r["block"])] = (r["label"], weight)
    return gold


def load_run(path, gold):
    """{page: [(gold, predicted, weight)]} for the pages of `gold`."""
    out = {}
    opener = gzip.open if str(path).endswith(".gz") else open
    for line in opener(path, "rt", encoding="utf-8").read().split("\n"):
        if not line.strip():
            continue
        rec = json.loads(line)
        page = rec.get("path", "").rsplit("/", 1)[-1].split(".")[0]
        if page not in gold or "blocks" not in rec:
            continue
        labels = gold[page]
        out[page] = [(labels[b["id"]][0], b["label"], labels[b["id"]][1]) for b in rec["blocks"] if b["id"] in labels]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sheet")
    ap.add_argument("runs", nargs="+", help="NAME=FILE.jsonl")
    ap.add_argument("--baseline")
    ap.add_argument("--confusions", type=int, default=0, metavar="N",
                    help="also print each run's N most frequent (people's label, run's label) errors")
    ap.add_argument("--sheet-for", action="append", default=[], metavar="NAME=SHEET.tsv",
                    help="the sheet of a run made with another divider (its block ids)")
    ap.add_argument("--chars", action="store_true", help="weigh blocks by their characters")
    ap.add_argument("--worst-pages", type=int, default=0, metavar="N",
                    help="also print, per class, the share of its errors on its N worst pages")
    args = ap.parse_args()
    gold = load_gold(args.sheet, args.chars)
    support = collections.Counter(label for page in gold.values() for label, _ in page.values())
    sheets = dict(spec.partition("=")[::2] for spec in args.sheet_for)
    runs = {}
    for spec in args.runs:
        name, _, path = spec.partition("=")
        runs[name] = load_run(path, load_gold(sheets[name], args.chars) if name in sheets else gold)
    classes = [c for c, _ in support.most_common()]
    print("| run | pages | blocks | error | " + " | ".join(f"{c} ({support[c]})" for c in classes) + " |")
    print("|---|---:|---:|---:|" + "---:|" * len(classes))
    for name, pages in runs.items():
        pairs = [p for v in pages.values() for p in v]
        err = sum(w for g, p, w in pairs if g != p) / sum(w for _, _, w in pairs)
        f1s = []
        for c in classes:
            tp = sum(w for g, p, w in pairs if g == c and p == c)
            fp = sum(w for g, p, w in pairs if g != c and p == c)
            fn = sum(w for g, p, w in pairs if g == c and p != c)
            f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
        print(f"| {name} | {len(pages)} | {len(pairs)} | {100 * err:.1f}% | " + " | ".join(f"{f:.2f}" for f in f1s) + " |")
    for name, pages in runs.items() if args.confusions else ():
        errors = collections.Counter()
        for g, p, w in (x for v in pages.values() for x in v if x[0] != x[1]):
            errors[g, p] += w
        total = sum(errors.values())
        print(f"\nMost frequent errors of `{name}` ({total} in all):\n")
        unit = "characters" if args.chars else "blocks"
        print(f"| people's label | run's label | {unit} | share of the errors |\n|---|---|---:|---:|")
        for (g, p), n in errors.most_common(args.confusions):
            print(f"| {g} | {p} | {n} | {100 * n / total:.1f}% |")
    for name, pages in runs.items() if args.worst_pages else ():
        by_class = collections.defaultdict(collections.Counter)
        for page, v in pages.items():
            for g, p, w in v:
                if g != p:
                    by_class[g][page] += w
                    by_class[p][page] += w
        print(f"\nWhere the errors of `{name}` are (missed and false, on the {args.worst_pages} worst pages of each class):\n")
        print("| class | errors | pages with errors | share on the worst pages | worst pages |\n|---|---:|---:|---:|---|")
        for c in classes:
            errors = by_class[c]
            total = sum(errors.values())
            if not total:
                continue
            worst = errors.most_common(args.worst_pages)
            share = 100 * sum(n for _, n in worst) / total
            print(f"| {c} | {total} | {len(errors)} | {share:.0f}% | " + ", ".join(f"{k} ({n})" for k, n in worst) + " |")
    if args.baseline:
        base = runs[args.baseline]
        print(f"\nPer-page block error against `{args.baseline}` (negative: fewer errors):\n")
        print("| run | pages | mean difference (points) | 95% bootstrap | pages better / worse | Wilcoxon p |\n|---|---:|---:|---|---|---:|")
        for name, pages in runs.items():
            if name == args.baseline:
                continue
            keys = sorted(set(pages) & set(base))
            rate = lambda v: sum(w for g, p, w in v if g != p) / max(sum(w for _, _, w in v), 1)  # noqa: E731
            diffs = [100 * (rate(pages[k]) - rate(base[k])) for k in keys]
            lo, hi = bootstrap(diffs)
            print(f"| {name} | {len(keys)} | {sum(diffs) / len(diffs):+.2f} | {lo:+.2f} … {hi:+.2f} | "
                  f"{sum(d < 0 for d in diffs)} / {sum(d > 0 for d in diffs)} | {wilcoxon(diffs):.2g} |")


if __name__ == "__main__":
    main()
