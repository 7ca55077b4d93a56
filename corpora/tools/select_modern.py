#!/usr/bin/env python3
"""Chooses the modern pages of the PARCELS-17 corpus (issue 15) from WCXB dev.

Reproducible (fixed seed) and blind to block labels: it looks only at page-level facts — WCXB's
page type, domain and gold publish date (metadata.json, ground-truth/ID.json) and our gold-text
import's status and block count (corpora/wcxb-dev/alignment.tsv).

Rules: page type `article`; import status ok; a gold publish date in 2020 or later; 20 to 200
text blocks (so that one page can be read block by block in one sitting: this leaves out the
longest tenth of articles, say so when quoting results); one page per domain; beyond the first
72 pages (the set of 2026-11-23), no domain of the unlabelled pool (corpora/pools/both-eras-pool.tsv),
so that the pages added later share no site with the pool; the pages of the blind second labelling
are the first ten of the draw. The draw is one fixed order: a larger --count keeps the pages of a
smaller one and adds the next ones (72 pages on 2026-11-23, 120 on 2026-11-25).

The one-page-per-domain draw over those candidates ends at 263 pages. A second stage
(2026-11-27) continues it with the articles of 201 to --max-blocks text blocks (the longer ones the
first rule left out for reading's sake), under the same other rules, in a second fixed order
(seed + 1): so --count above 263 keeps the 263 pages and adds longer articles of new domains.

  python3 corpora/tools/select_modern.py [--corpora ../shared/corpora] [--count 120] [--max-blocks 300]

Writes corpora/parcels-17-modern/pages.tsv and corpora/parcels-17-modern/agreement/pages.tsv.
"""
import argparse, csv, json, os, random
from pathlib import Path

SEED = 20260101
# The set as first drawn (2026-11-23), before the pool existed.
FIRST_DRAW = 72
ROOT = Path(__file__).resolve().parents[2]
ap = argparse.ArgumentParser()
ap.add_argument("--corpora", default=str(ROOT.parent / "shared" / "corpora"))
ap.add_argument("--count", type=int, default=120)
ap.add_argument("--pool", default=str(ROOT / "corpora" / "pools" / "both-eras-pool.tsv"))
ap.add_argument("--agreement", type=int, default=10)
ap.add_argument("--max-blocks", type=int, default=300, help="longest article of the second stage, in text blocks")
args = ap.parse_args()

base = Path(args.corpora) / "wcxb-dev"
meta = json.loads((base / "metadata.json").read_text(encoding="utf-8"))["files"]
rows = list(csv.DictReader(open(ROOT / "corpora" / "wcxb-dev" / "alignment.tsv", encoding="utf-8"), delimiter="\t"))
candidates, longer = [], []
for r in rows:
    if r["page_type"] != "article" or r["status"] != "ok" or not r["text_blocks"]:
        continue
    if not 20 <= int(r["text_blocks"]) <= args.max_blocks:
        continue
    gt = json.loads((base / "ground-truth" / f"{r['page']}.json").read_text(encoding="utf-8"))["ground_truth"]
    date = gt.get("publish_date") or ""
    if date[:4] < "2020":
        continue
    (candidates if int(r["text_blocks"]) <= 200 else longer).append((r["page"], meta[r["page"]]["domain"]))
pool_domains = {line.split("\t")[1].strip() for line in open(args.pool, encoding="utf-8") if line.strip() and not line.startswith("#")}
candidates.sort()
random.Random(SEED).shuffle(candidates)
longer.sort()
random.Random(SEED + 1).shuffle(longer)
chosen, domains = [], set()
for page, domain in candidates + longer:
    if len(chosen) == args.count:
        break
    if domain in domains or (len(chosen) >= FIRST_DRAW and domain in pool_domains):
        continue
    domains.add(domain)
    chosen.append((page, domain))

def write(path, header, items):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(header + "".join(f"html/{p}.html.gz\t{d}\n" for p, d in items), encoding="utf-8")
    os.replace(tmp, path)

out = ROOT / "corpora" / "parcels-17-modern"
write(out / "pages.tsv", f"# PARCELS-17 modern set: WCXB dev article pages, one per domain, gold date >= 2020,\n"
      f"# 20-200 text blocks (corpora/tools/select_modern.py, seed {SEED}); {len(candidates)} candidates;\n"
      f"# after the first 263, articles of 201-{args.max_blocks} text blocks (seed {SEED + 1}; {len(longer)} candidates)\n", chosen)
write(out / "agreement" / "pages.tsv", "# Blind second labelling: the first pages of the draw\n", chosen[:args.agreement])
print(f"{len(candidates)} + {len(longer)} candidates, {len(chosen)} chosen from {len(domains)} domains")
