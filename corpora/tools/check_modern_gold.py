#!/usr/bin/env python3
"""Checks the modern PARCELS-17 labels against WCXB's gold title, author and publish date.

    target/release/parcels corpus sheet corpora/parcels-17-modern/labels > /tmp/modern-sheet.tsv
    target/peers-venv/bin/python corpora/tools/check_modern_gold.py /tmp/modern-sheet.tsv

For every page: does a block labelled `title` match the gold title (word-bag F1 ≥ 0.5), a block
labelled `reporter` (or `date`, for bylines joined to dates) the gold author, and a block
labelled `date` (or `reporter`) the gold date — with the peer benchmark's matching rules
(benches/peers/extract_peers.py: `title_f1`, `author_found`, `date_found`). Prints the counts
and every disagreement. Run in the peers' virtual environment (lxml for the imported module).
"""
import collections, csv, importlib.util, json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("ep", ROOT / "benches" / "peers" / "extract_peers.py")
ep = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ep)
csv.field_size_limit(10**9)
sheet = sys.argv[1]
corpora = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT.parent / "shared" / "corpora"
by = collections.defaultdict(lambda: collections.defaultdict(list))
with open(sheet, encoding="utf-8") as f:
    for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
        by[r["page"]][r["label"]].append(r["text"])
res, notes = collections.Counter(), []
for page, labels in sorted(by.items()):
    gt = json.loads((corpora / "wcxb-dev" / "ground-truth" / f"{page}.json").read_text(encoding="utf-8"))["ground_truth"]
    res["pages"] += 1
    if gt.get("title"):
        res["title_gold"] += 1
        ok = any(ep.title_f1(t, gt["title"]) >= 0.5 for t in labels.get("title", []))
        res["title_agree"] += ok
        if not ok:
            notes.append((page, "title", gt["title"], labels.get("title", [])[:3]))
    if gt.get("author"):
        res["author_gold"] += 1
        ok = any(ep.author_found(t, gt["author"]) or all(w in ep.wcxb_tokens(t) for w in ep.wcxb_tokens(gt["author"]))
                 for t in labels.get("reporter", []) + labels.get("date", []))
        res["author_agree"] += ok
        if not ok:
            notes.append((page, "author", gt["author"], labels.get("reporter", [])[:3]))
    if gt.get("publish_date"):
        res["date_gold"] += 1
        ok = any(ep.date_found(t, gt["publish_date"]) for t in labels.get("date", []) + labels.get("reporter", []))
        res["date_agree"] += ok
        if not ok:
            notes.append((page, "date", gt["publish_date"], labels.get("date", [])[:3]))
print(dict(res))
for n in notes:
    print("\t".join([n[0], n[1], n[2][:60], " | ".join(t[:60] for t in n[3])]))
