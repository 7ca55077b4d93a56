#!/usr/bin/env python3
"""Paired comparison of two `parcels extract` runs on WCXB dev: title, author, date and main text.

    python3 reports/wcxb-extract/fields_compare.py BEFORE.jsonl AFTER.jsonl [--corpora DIR]

Per page, with the peer benchmark's scorers (benches/peers/extract_peers.py): title F1 and
main-text F1 compared by the Wilcoxon signed-rank test of reports/all-eras/compare.py (normal
approximation, ties corrected, zero differences dropped); author and date found compared by the exact McNemar test (two-sided
sign test on the discordant pages). Also prints each field on the even- and odd-numbered pages
(the even half is where failures were read; the odd half checks). Standard library only.
"""

import argparse
import glob
import importlib.util
import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("extract_peers", ROOT / "benches" / "peers" / "extract_peers.py")
ep = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ep)
# The Wilcoxon signed-rank test of the all-eras comparison (ties corrected, zeros dropped).
spec = importlib.util.spec_from_file_location("compare", ROOT / "reports" / "all-eras" / "compare.py")
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)


def load(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            out[Path(r["path"]).name[:4]] = r
    return out


def sign_test(k, n):
    """Two-sided exact binomial p of k or fewer of n at 1/2."""
    m = min(k, n - k)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(m + 1)) / 2 ** n) if n else 1.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    args = parser.parse_args()
    a, b = load(args.before), load(args.after)
    gold = {Path(f).stem: json.load(open(f, encoding="utf-8"))["ground_truth"]
            for f in glob.glob(str(args.corpora / "wcxb-dev" / "ground-truth" / "*.json"))}
    keys = sorted(k for k in gold if k in a and k in b)
    fields = {
        "title": (lambda o, g: ep.title_f1(o.get("title") or "", g["title"]) if g.get("title") else None),
        "author": (lambda o, g: float(ep.author_found(o.get("reporter"), g["author"])) if g.get("author") else None),
        "date": (lambda o, g: float(ep.date_found(o.get("date"), g["publish_date"])) if g.get("publish_date") else None),
        "main text": (lambda o, g: ep.wcxb_word_scores(o.get("main_text") or "", g.get("main_content") or "")[2]),
    }
    print(f"{len(keys)} pages; before {args.before}, after {args.after}\n")
    print("| field | pages | before | after | even before → after | odd before → after | better / worse | p |")
    print("|---|---:|---:|---:|---|---|---|---:|")
    for name, score in fields.items():
        pairs = [(k, score(a[k], gold[k]), score(b[k], gold[k])) for k in keys]
        pairs = [(k, x, y) for k, x, y in pairs if x is not None]
        mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")
        half = lambda parity, i: mean([p[i] for p in pairs if int(p[0]) % 2 == parity])
        better = sum(y > x for _, x, y in pairs)
        worse = sum(y < x for _, x, y in pairs)
        if name in ("author", "date"):
            p, test = sign_test(worse, better + worse), "McNemar"
        else:
            p, test = compare.wilcoxon([y - x for _, x, y in pairs]), "Wilcoxon"
        print(f"| {name} | {len(pairs)} | {mean([x for _, x, _ in pairs]):.3f} | {mean([y for _, _, y in pairs]):.3f} "
              f"| {half(0, 1):.3f} → {half(0, 2):.3f} | {half(1, 1):.3f} → {half(1, 2):.3f} | {better} / {worse} | {p:.2g} ({test}) |")


if __name__ == "__main__":
    main()
