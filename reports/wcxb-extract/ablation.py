#!/usr/bin/env python3
"""Writes reports/wcxb-extract/ablation.md (to stdout) from the records ablation.sh made.

    python3 reports/wcxb-extract/ablation.py target/ablation > reports/wcxb-extract/ablation.md

Scores, per page then averaged over pages:
- WCXB main text: its own metric, word-level P/R/F1 over lower-cased `\\w+` tokens with multiset
  overlap (both empty: 1; one empty: 0), per page type from its metadata.json.
- Title F1: the same word F1 between the extracted and the gold title, on pages whose gold has one.
- Author / date found: share of the pages whose gold has one where the extracted reporter has
  word F1 >= 0.5 with the gold author / the extracted date writes the gold date's year, month
  (number or name) and day.
- Dragnet: the same word F1 of the main text against the gold text before its COMMENTS line.
A page the model failed on counts as an empty extraction.
"""
import collections
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CORPORA = os.path.join(ROOT, "..", "shared", "corpora")
VARIANTS = [
    ("old", "old views (2008): stylistic placement … css, lexical words, links, pos, tokens"),
    ("semantics", "old + `semantics` (stylistic)"),
    ("density", "old + `density` (stylistic)"),
    ("metadata", "old + `metadata` (lexical)"),
    ("all", "old + all three"),
]
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]


def words(text):
    return re.findall(r"\w+", (text or "").lower())


def prf(pred, gold):
    p, g = collections.Counter(words(pred)), collections.Counter(words(gold))
    np_, ng = sum(p.values()), sum(g.values())
    if np_ == 0 and ng == 0:
        return 1.0, 1.0, 1.0
    if np_ == 0 or ng == 0:
        return 0.0, 0.0, 0.0
    common = sum((p & g).values())
    if common == 0:
        return 0.0, 0.0, 0.0
    precision, recall = common / np_, common / ng
    return precision, recall, 2 * precision * recall / (precision + recall)


def date_found(pred, gold):
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})", gold or "")
    if not m or not pred:
        return False
    y, mo, d = m.group(1), int(m.group(2)), int(m.group(3))
    toks = words(pred)
    month_ok = any(t in (str(mo), f"{mo:02d}") for t in toks) or any(t.startswith(MONTHS[mo - 1][:3]) for t in toks)
    day_ok = any(re.fullmatch(rf"0?{d}(st|nd|rd|th)?", t) for t in toks)
    return y in toks and month_ok and day_ok


def records(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def score_wcxb(recs):
    meta = json.load(open(os.path.join(CORPORA, "wcxb-dev", "metadata.json")))["files"]
    by_type = collections.defaultdict(list)
    scores, titles, authors, dates = [], [], [], []
    for r in recs:
        fid = os.path.basename(r["path"]).split(".")[0]
        gt = json.load(open(os.path.join(CORPORA, "wcxb-dev", "ground-truth", fid + ".json")))["ground_truth"]
        s = prf(r.get("main_text"), gt.get("main_content"))
        scores.append(s)
        by_type[meta[fid]["page_type"]].append(s[2])
        if gt.get("title"):
            titles.append(prf(r.get("title"), gt["title"])[2])
        if gt.get("author"):
            authors.append(prf(r.get("reporter"), gt["author"])[2] >= 0.5)
        if gt.get("publish_date"):
            dates.append(date_found(r.get("date"), gt["publish_date"]))
    return {
        "pages": len(scores),
        "p": mean([s[0] for s in scores]),
        "r": mean([s[1] for s in scores]),
        "f1": mean([s[2] for s in scores]),
        "types": {t: (len(v), mean(v)) for t, v in by_type.items()},
        "title": (len(titles), mean(titles)),
        "author": (len(authors), mean(authors)),
        "date": (len(dates), mean(dates)),
    }


def score_dragnet(recs):
    scores = []
    for r in recs:
        n = os.path.basename(r["path"]).rsplit(".", 1)[0]
        with open(os.path.join(CORPORA, "dragnet", "GoldStandard", n + ".txt"), encoding="utf-8", errors="replace") as f:
            gold = f.read().split("!@#$%^&*()  COMMENTS")[0]
        scores.append(prf(r.get("main_text"), gold))
    return {"pages": len(scores), "p": mean([s[0] for s in scores]), "r": mean([s[1] for s in scores]), "f1": mean([s[2] for s in scores])}


def seconds(out, name):
    p = os.path.join(out, name + ".seconds")
    return open(p).read().strip() + " s" if os.path.exists(p) else "–"


def main(out):
    wcxb = {v: records(os.path.join(out, f"wcxb-{v}.jsonl")) for v, _ in VARIANTS}
    drag = {v: records(os.path.join(out, f"dragnet-{v}.jsonl")) for v, _ in VARIANTS}
    w = {v: score_wcxb(r) for v, r in wcxb.items() if r is not None}
    d = {v: score_dragnet(r) for v, r in drag.items() if r is not None}
    f = lambda x: "–" if x != x else f"{x:.3f}"
    print("# Feature-group ablation on pages no model saw (issue 14)\n")
    print("Rebuild: `cargo build --release && sh reports/wcxb-extract/ablation.sh` (records in")
    print("`target/ablation/`, then `python3 reports/wcxb-extract/ablation.py target/ablation`).\n")
    print("Cross-validated extraction (`parcels cross-extract`), 5 folds by WCXB `domain` / Dragnet site, seed")
    print("2026, same folds for every variant. **Cheap variant** (configs/wcxb-extract.toml,")
    print("configs/dragnet-extract.toml): no co-training (r = 0), 200 boosting rounds, 32 bins, trained")
    print("in the gold-text scheme. **Fixed subsets** to fit a shared 2-core machine: WCXB dev label files")
    print("whose number is a multiple of 5, Dragnet every 5th label file in name order. Wall times are")
    print("on that machine while other jobs ran, so they compare only roughly.\n")
    print("Scoring (ablation.py): WCXB's metric, word-level P/R/F1 per page over lower-cased `\\w+`")
    print("tokens, multiset overlap, averaged over pages; title F1 the same on pages with a gold title;")
    print("author found = reporter word F1 ≥ 0.5 with the gold author; date found = the extracted date")
    print("writes the gold year, month and day; Dragnet F1 against the gold before its COMMENTS line.\n")
    print("| variant | WCXB pages | F1 all | F1 articles | P | R | title F1 | author found | date found | Dragnet pages | Dragnet F1 | wall WCXB | wall Dragnet |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for v, label in VARIANTS:
        a, b = w.get(v), d.get(v)
        cells = [label]
        if a:
            art = a["types"].get("article", (0, float("nan")))[1]
            cells += [str(a["pages"]), f(a["f1"]), f(art), f(a["p"]), f(a["r"]), f(a["title"][1]), f(a["author"][1]), f(a["date"][1])]
        else:
            cells += ["–"] * 8
        cells += [str(b["pages"]), f(b["f1"])] if b else ["–", "–"]
        cells += [seconds(out, f"wcxb-{v}"), seconds(out, f"dragnet-{v}")]
        print("| " + " | ".join(cells) + " |")
    if w:
        any_w = next(iter(w.values()))
        print(f"\nGold fields on the WCXB subset: title on {any_w['title'][0]} pages, author on {any_w['author'][0]}, date on {any_w['date'][0]}.\n")
        types = sorted({t for s in w.values() for t in s["types"]})
        print("## WCXB main-text F1 per page type\n")
        print("| variant | " + " | ".join(f"{t} ({any_w['types'].get(t, (0,))[0]})" for t in types) + " |")
        print("|---|" + "---|" * len(types))
        for v, label in VARIANTS:
            if v in w:
                print(f"| {v} | " + " | ".join(f(w[v]["types"].get(t, (0, float('nan')))[1]) for t in types) + " |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "target/ablation")
