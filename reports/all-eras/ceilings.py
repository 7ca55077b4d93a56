#!/usr/bin/env python3
"""How far page-level decisions over a run's blocks could take WCXB's main-text F1: the
ceilings of choosing one region of the page, and two decision rules over the run's own labels.

    python3 reports/all-eras/ceilings.py CV.jsonl [--corpora DIR] > ceilings.md

CV.jsonl: `parcels cross-extract` records (with their blocks) of WCXB dev pages; other pages in
the file are skipped. Scored with WCXB's metric (benches/peers/extract_peers.py), per page type.
Columns:

- *run*: the run's main text as it was extracted.
- *run's full-text blocks*: the text of the blocks labelled `full-text` and nothing else (the run
  also adds runs of parallel items, `[article.parallel_items]`).
- *best region* (oracle): for each page, the element of the page whose blocks (all of them,
  whatever their label) score best against the gold; what an extractor that picks one element
  of the page as the article, as Readability and most heuristic extractors do, could reach with
  a perfect choice.
- *best region ∩ full-text* (oracle): the same, keeping only the blocks the run labelled
  `full-text`: what a perfect choice of region could add to the run's labels.
- *region rule λ*: no oracle. The region is the element that maximises (words of its
  `full-text` blocks) − λ × (words of its other blocks); the run's `full-text` blocks outside it
  are dropped.
- *confidence ≥ τ*: no oracle. The run's `full-text` blocks whose confidence is at least τ.
"""

import argparse
import collections
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benches" / "peers"))
import extract_peers as peers  # noqa: E402

LAMBDAS = [0.1, 0.3, 1.0]
TAUS = [0.6, 0.8]


def f1_of_counts(c, gold):
    """WCXB word F1 of a bag of predicted tokens against the gold bag."""
    n, ng = sum(c.values()), sum(gold.values())
    if ng == 0:
        return 1.0 if n == 0 else 0.0
    if n == 0:
        return 0.0
    overlap = sum((c & gold).values())
    return 2 * overlap / (n + ng)


def elements(locator):
    """The element paths that hold a block: `/html[1]`, `/html[1]/body[1]`, …, its own."""
    parts = locator.split("/")
    return ["/".join(parts[:d]) for d in range(2, len(parts) + 1)]


def page_figures(record, gold_text):
    gold = Counter(peers.wcxb_tokens(gold_text))
    blocks = []
    for b in record["blocks"]:
        if b["text"]:
            blocks.append((b["locator"], Counter(peers.wcxb_tokens(b["text"])),
                           b["label"] == "full-text", b["confidence"]))
    full = [b for b in blocks if b[2]]
    out = {"run": peers.wcxb_word_scores(record["main_text"], gold_text)[2],
           "run's full-text blocks": f1_of_counts(sum((b[1] for b in full), Counter()), gold)}
    under = collections.defaultdict(list)
    for i, b in enumerate(blocks):
        for e in elements(b[0]):
            under[e].append(i)
    best_all = best_full = 0.0
    words = {}
    for e, idx in under.items():
        every, labelled = Counter(), Counter()
        for i in idx:
            every.update(blocks[i][1])
            if blocks[i][2]:
                labelled.update(blocks[i][1])
        best_all = max(best_all, f1_of_counts(every, gold))
        best_full = max(best_full, f1_of_counts(labelled, gold))
        words[e] = (sum(labelled.values()), sum(every.values()) - sum(labelled.values()))
    out["best region (oracle)"] = best_all if under else out["run's full-text blocks"]
    out["best region ∩ full-text (oracle)"] = best_full if under else out["run's full-text blocks"]
    for lam in LAMBDAS:
        if not full:
            out[f"region rule λ = {lam}"] = out["run's full-text blocks"]
            continue
        region = max(words, key=lambda e: (words[e][0] - lam * words[e][1], -len(e)))
        kept = [b for b in full if b[0] == region or b[0].startswith(region + "/")]
        out[f"region rule λ = {lam}"] = f1_of_counts(sum((b[1] for b in kept), Counter()), gold)
    for tau in TAUS:
        kept = [b for b in full if b[3] >= tau]
        out[f"confidence ≥ {tau}"] = f1_of_counts(sum((b[1] for b in kept), Counter()), gold)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cv", type=Path)
    parser.add_argument("--corpora", type=Path, default=peers.DEFAULT_CORPORA)
    args = parser.parse_args()
    pages, _ = peers.CORPUS_PAGES["wcxb"](args.corpora, 0)
    gold = {p["key"]: p for p in pages}
    by_type = collections.defaultdict(lambda: collections.defaultdict(list))
    with open(args.cv, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if "/wcxb-dev/" not in line:
                continue
            record = json.loads(line)
            key = Path(record["path"]).name.split(".")[0]
            if key not in gold:
                continue
            page = gold[key]
            for name, value in page_figures(record, page["gold"]).items():
                by_type[page["page_type"]][name].append(value)
                by_type["all pages"][name].append(value)
    types = sorted(t for t in by_type if t != "all pages") + ["all pages"]
    columns = list(by_type["all pages"])
    print("| WCXB main-text F1 | " + " | ".join(f"{t} ({len(by_type[t]['run'])})" for t in types) + " |")
    print("|---|" + "---:|" * len(types))
    for c in columns:
        print(f"| {c} | " + " | ".join(f"{statistics.mean(by_type[t][c]):.3f}" for t in types) + " |")


if __name__ == "__main__":
    main()
