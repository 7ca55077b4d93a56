#!/usr/bin/env python3
"""Writes reports/wcxb-extract/ablation.md (to stdout) from the records ablation.sh made.

    python3 reports/wcxb-extract/ablation.py target/ablation > reports/wcxb-extract/ablation.md

Scores with the peer benchmark's own code (benches/peers/extract_peers.py, as score_jsonl.py
does), restricted to the pages of the subset that ablation.sh extracted: WCXB with its metric
(word-level P/R/F1 per page over lower-cased `\\w+` tokens, multiset overlap, averaged over
pages; per page type; title F1; author and date found), Dragnet with the
article-extraction-benchmark's. A page the model failed on counts as an empty extraction.
"""
import importlib.util
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
spec = importlib.util.spec_from_file_location("extract_peers", ROOT / "benches" / "peers" / "extract_peers.py")
peers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(peers)
VARIANTS = [
    ("old", "old views (2008): stylistic placement … css, lexical words, links, pos, tokens"),
    ("semantics", "old + `semantics` (stylistic)"),
    ("density", "old + `density` (stylistic)"),
    ("metadata", "old + `metadata` (lexical)"),
    ("all", "old + all three"),
]


def score(corpus, path):
    """Figures of one record file over the pages it holds (None if it does not exist)."""
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        records = peers.parse_records(f)
    pages, _ = peers.CORPUS_PAGES[corpus](peers.DEFAULT_CORPORA, 0)
    pages = [p for p in pages if p["key"] in records]
    return peers.evaluate(peers.parcels_outputs(records, pages), pages, corpus == "wcxb")


def seconds(out, name):
    p = os.path.join(out, name + ".seconds")
    return open(p).read().strip() + " s" if os.path.exists(p) else "–"


def main(out):
    w = {v: score("wcxb", os.path.join(out, f"wcxb-{v}.jsonl")) for v, _ in VARIANTS}
    d = {v: score("dragnet", os.path.join(out, f"dragnet-{v}.jsonl")) for v, _ in VARIANTS}
    w = {v: x for v, x in w.items() if x is not None}
    d = {v: x for v, x in d.items() if x is not None}
    f = peers.fmt
    print("# Feature-group ablation on pages no model saw (issue 14)\n")
    print("Rebuild: `cargo build --release && sh reports/wcxb-extract/ablation.sh` (records in")
    print("`target/ablation/`, then `python3 reports/wcxb-extract/ablation.py target/ablation`).\n")
    print("Cross-validated extraction (`parcels cross-extract`), 5 folds by WCXB `domain` / Dragnet site,")
    print("seed 2026, the same folds for every variant. **Cheap variant** (configs/wcxb-extract.toml,")
    print("configs/dragnet-extract.toml): no co-training (r = 0), 200 boosting rounds, 32 bins, trained")
    print("in the gold-text scheme. **Fixed subsets**, to fit a shared 2-core machine: the WCXB dev label")
    print("files whose number is a multiple of 5, every 5th Dragnet label file in name order. Wall times")
    print("(whole cross-extract: load, 5 fits, extraction) are on that machine while other jobs ran, so")
    print("they compare only roughly.\n")
    print("Scored with the peer benchmark's code (benches/peers/extract_peers.py, restricted to the")
    print("subset's pages): WCXB's metric (word-level P/R/F1 per page, averaged), title F1, author and")
    print("date found; Dragnet with the article-extraction-benchmark's metric.\n")
    print("| variant | WCXB pages | F1 all | F1 articles | P | R | title F1 | author found | date found | Dragnet pages | Dragnet F1 | wall WCXB | wall Dragnet |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for v, label in VARIANTS:
        a, b = w.get(v), d.get(v)
        cells = [label]
        if a:
            art = (a["per_type"].get("article") or {}).get("f1")
            pages = len(a["per_page"])
            cells += [str(pages), f(a["f1"]), f(art), f(a["precision"]), f(a["recall"]), f(a["title_f1"]), f(a["author_found"]), f(a["date_found"])]
        else:
            cells += ["–"] * 8
        cells += [str(len(b["per_page"])), f(b["f1"])] if b else ["–", "–"]
        cells += [seconds(out, f"wcxb-{v}"), seconds(out, f"dragnet-{v}")]
        print("| " + " | ".join(cells) + " |")
    if d:
        # The peers' Dragnet run (reports/extraction/peers.json, per page) on the same pages.
        peers_json = ROOT / "reports" / "extraction" / "peers.json"
        keys = set(next(iter(d.values()))["per_page"])
        if peers_json.is_file():
            tools = json.loads(peers_json.read_text(encoding="utf-8"))["corpora"]["dragnet"]["tools"]
            refs = []
            for name in ("trafilatura", "parcels (default)"):
                per_page = (tools.get(name) or {}).get("per_page") or {}
                rows = [(e.get("p"), e.get("r")) for k, e in per_page.items() if k in keys]
                if rows:
                    refs.append(f"{name} {f(peers.corpus_scores(rows)['f1'])} ({len(rows)} pages)")
            if refs:
                print("\nFor reference, Dragnet F1 on the same pages from `reports/extraction/peers.json` (the peers'")
                print("run; parcels' shipped default model, trained on 2008 pages, not cross-validated here): " + "; ".join(refs) + ".")
    if w:
        any_w = next(iter(w.values()))
        print(f"\nGold fields on the WCXB subset: title on {any_w['title_pages']} pages, author on {any_w['author_pages']}, date on {any_w['date_pages']}.\n")
        types = sorted({t for s in w.values() for t in s["per_type"]})
        print("## WCXB main-text F1 per page type\n")
        print("| variant | " + " | ".join(f"{t} ({any_w['per_type'].get(t, {}).get('pages', 0)})" for t in types) + " |")
        print("|---|" + "---|" * len(types))
        for v, _ in VARIANTS:
            if v in w:
                print(f"| {v} | " + " | ".join(f((w[v]["per_type"].get(t) or {}).get("f1")) for t in types) + " |")


    reading = HERE / "ablation-reading.md"
    if reading.is_file():
        print("\n" + reading.read_text(encoding="utf-8").rstrip())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "target/ablation")
