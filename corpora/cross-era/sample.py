#!/usr/bin/env python3
"""Draws the page samples of the cross-era experiment (configs/cross-era-*.toml), seed 16.

- wcxb-test-300.txt: 300 WCXB dev *article* pages whose gold text aligned (status ok in
  corpora/wcxb-dev/alignment.tsv): the modern test corpus and pool of 2008 -> modern.
- wcxb-labelled-60.txt: 60 other such pages (none in the test sample): the modern labelled
  corpus of modern -> 2008.
- l3s-test-200.txt: 200 L3S-GN1 pages: the 2008 test corpus and pool of modern -> 2008.

Each file lists label file names, one per line. Run from the repository root:
    python3 corpora/cross-era/sample.py
"""
import csv
import os
import random

SEED = 16
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def rows(path):
    with open(os.path.join(ROOT, path), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def write(name, header, names):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(f"# {header}\n# Drawn by corpora/cross-era/sample.py (seed {SEED}).\n")
        f.writelines(n + "\n" for n in names)


rng = random.Random(SEED)
wcxb_labels = os.path.join(ROOT, "corpora/wcxb-dev/labels")
articles = sorted(
    r["page"] + ".json"
    for r in rows("corpora/wcxb-dev/alignment.tsv")
    if r["page_type"] == "article" and r["status"] == "ok" and os.path.isfile(os.path.join(wcxb_labels, r["page"] + ".json"))
)
drawn = rng.sample(articles, 360)
write("wcxb-test-300.txt", "300 WCXB dev article pages (gold text aligned): the modern test corpus and pool", sorted(drawn[:300]))
write("wcxb-labelled-60.txt", "60 other WCXB dev article pages: the modern labelled corpus", sorted(drawn[300:]))
l3s_labels = os.path.join(ROOT, "corpora/l3s-gn1/labels")
l3s = sorted(n for n in os.listdir(l3s_labels) if n.endswith(".json"))
write("l3s-test-200.txt", "200 L3S-GN1 pages (2008): the 2008 test corpus and pool", sorted(rng.sample(l3s, 200)))
