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

The one-page-per-domain draw over those candidates ends at 263 pages. Later stages continue it,
each over the pages the rules before it left out, in its own fixed order (seed + stage), with the
same other rules (article, import ok, one page per domain not yet taken, no pool domain):
  2. (2026-11-27) articles of 201-300 text blocks with a gold date in 2020 or later: the longer
     ones the first rule left out for reading's sake (pages 264-385);
  3. (2026-11-27) articles of 20-300 text blocks with no gold publish date (WCXB crawled them in
     2023-2026, so they are of this era though undated);
  4. (2026-11-27) articles of 301-400 text blocks with a gold date in 2020 or later;
  5. (2026-11-27) articles of 20-300 text blocks with a gold date before 2020 (older articles still
     served in 2023-2026, in today's markup);
  6. (2026-11-28) articles of 301-500 text blocks the stages before left out, whatever their date
     (undated or older articles of 301-400 blocks, and every article of 401-500 blocks);
  7. (2026-11-28) every longer article (501 text blocks or more, whatever its date): the longest
     pages, mostly mega-menus, comparison tables and reviews.
After stage 7 every article domain outside the pool is taken. One more stage takes pages *from*
the pool:
  8. (2026-11-28) the WCXB article pages of the unlabelled pool (--pool, as drawn by
     select_pools.py; all passed that script's rules), in a fixed order (seed + 7). A page taken
     here is labelled, and experiments leave a labelled page out of their pool
     (src/dataset.rs, `load_pool`), so it is never both.
So a larger --count keeps every page of a smaller one.

  python3 corpora/tools/select_modern.py [--corpora ../shared/corpora] [--count 120]

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
args = ap.parse_args()

base = Path(args.corpora) / "wcxb-dev"
meta = json.loads((base / "metadata.json").read_text(encoding="utf-8"))["files"]
rows = list(csv.DictReader(open(ROOT / "corpora" / "wcxb-dev" / "alignment.tsv", encoding="utf-8"), delimiter="\t"))
# (first text blocks, last text blocks, gold publish date: "2020+", "none", "before 2020" or "any")
STAGES = [(20, 200, "2020+"), (201, 300, "2020+"), (20, 300, "none"), (301, 400, "2020+"), (20, 300, "before 2020"),
          (301, 500, "any"), (501, 100000, "any")]
stages = [[] for _ in STAGES]
for r in rows:
    if r["page_type"] != "article" or r["status"] != "ok" or not r["text_blocks"]:
        continue
    gt = json.loads((base / "ground-truth" / f"{r['page']}.json").read_text(encoding="utf-8"))["ground_truth"]
    date = gt.get("publish_date") or ""
    blocks = int(r["text_blocks"])
    era = "none" if not date else "2020+" if date[:4] >= "2020" else "before 2020"
    for i, (lo, hi, dated) in enumerate(STAGES):
        if lo <= blocks <= hi and dated in (era, "any"):
            stages[i].append((r["page"], meta[r["page"]]["domain"]))
            break
pool_domains = {line.split("\t")[1].strip() for line in open(args.pool, encoding="utf-8") if line.strip() and not line.startswith("#")}
for i, stage in enumerate(stages):
    stage.sort()
    random.Random(SEED + i).shuffle(stage)
chosen, domains = [], set()
for page, domain in (p for stage in stages for p in stage):
    if len(chosen) == args.count:
        break
    if domain in domains or (len(chosen) >= FIRST_DRAW and domain in pool_domains):
        continue
    domains.add(domain)
    chosen.append((page, domain))
pool_pages = sorted((line.split("\t")[0].strip().removeprefix("wcxb-dev/html/").removesuffix(".html.gz"), line.split("\t")[1].strip())
                    for line in open(args.pool, encoding="utf-8")
                    if line.strip() and not line.startswith("#") and line.startswith("wcxb-dev/"))
random.Random(SEED + len(STAGES)).shuffle(pool_pages)
for page, domain in pool_pages:
    if len(chosen) == args.count:
        break
    if domain not in domains:
        domains.add(domain)
        chosen.append((page, domain))

def write(path, header, items):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(header + "".join(f"html/{p}.html.gz\t{d}\n" for p, d in items), encoding="utf-8")
    os.replace(tmp, path)

out = ROOT / "corpora" / "parcels-17-modern"
stage_lines = "".join(
    f"# stage {i + 1}: {lo}-{hi} text blocks, gold date {dated}, seed {SEED + i}, {len(stage)} candidates\n"
    for i, ((lo, hi, dated), stage) in enumerate(zip(STAGES, stages))) + (
    f"# stage {len(STAGES) + 1}: pages of the unlabelled pool, seed {SEED + len(STAGES)}, {len(pool_pages)} candidates\n")
write(out / "pages.tsv", "# PARCELS-17 modern set: WCXB dev article pages, one per domain (corpora/tools/select_modern.py)\n" + stage_lines, chosen)
write(out / "agreement" / "pages.tsv", "# Blind second labelling: the first pages of the draw\n", chosen[:args.agreement])
print(f"{' + '.join(str(len(s)) for s in stages)} + {len(pool_pages)} (pool) candidates, {len(chosen)} chosen from {len(domains)} domains")
