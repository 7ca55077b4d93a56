#!/usr/bin/env python3
"""Chooses the unlabelled pool of the both-eras PARCELS-17 model (issues 15 and 16).

The pool has the 150 L3S-GN1 pages of corpora/pools/l3s-pool.tsv (2008) and 150 WCXB dev article
pages (2020-2026), one per domain, from domains that hold no page of the modern PARCELS-17 set
(corpora/parcels-17-modern/pages.tsv and its agreement pages), so no pool page shares a site with
a labelled page. Blind to labels: it reads WCXB's page type and domain (metadata.json) and our
gold-text import's status (corpora/wcxb-dev/alignment.tsv), with the same article rules as
select_modern.py (20-200 text blocks). Reproducible: fixed seed.

  python3 corpora/tools/select_pools.py [--corpora ../shared/corpora] [--count 150]

Writes corpora/pools/both-eras-pool.tsv, whose pages are relative to the corpora root (a config
uses it with `[pool] corpus = "."`).
"""
import argparse, csv, json, os, random
from pathlib import Path

SEED = 20261123
ROOT = Path(__file__).resolve().parents[2]
ap = argparse.ArgumentParser()
ap.add_argument("--corpora", default=str(ROOT.parent / "shared" / "corpora"))
ap.add_argument("--count", type=int, default=150)
args = ap.parse_args()

base = Path(args.corpora) / "wcxb-dev"
meta = json.loads((base / "metadata.json").read_text(encoding="utf-8"))["files"]
taken = set()
for f in [ROOT / "corpora" / "parcels-17-modern" / "pages.tsv", ROOT / "corpora" / "parcels-17-modern" / "agreement" / "pages.tsv"]:
    for line in f.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            taken.add(line.split("\t")[1].strip())
rows = list(csv.DictReader(open(ROOT / "corpora" / "wcxb-dev" / "alignment.tsv", encoding="utf-8"), delimiter="\t"))
candidates = sorted((r["page"], meta[r["page"]]["domain"]) for r in rows
                    if r["page_type"] == "article" and r["status"] == "ok" and r["text_blocks"]
                    and 20 <= int(r["text_blocks"]) <= 200 and meta[r["page"]]["domain"] not in taken)
random.Random(SEED).shuffle(candidates)
chosen, domains = [], set()
for page, domain in candidates:
    if domain not in domains:
        domains.add(domain)
        chosen.append((page, domain))
    if len(chosen) == args.count:
        break

l3s = [line for line in (ROOT / "corpora" / "pools" / "l3s-pool.tsv").read_text(encoding="utf-8").splitlines()
       if line.strip() and not line.startswith("#")]
out = ROOT / "corpora" / "pools" / "both-eras-pool.tsv"
tmp = out.with_name(out.name + ".tmp")
tmp.write_text(
    "# Unlabelled pool of both eras, pages relative to the corpora root ([pool] corpus = \".\"):\n"
    f"# the {len(l3s)} L3S-GN1 pages of l3s-pool.tsv (2008) and {len(chosen)} WCXB dev article pages\n"
    f"# (2020-2026), one per domain, none from a domain of the modern PARCELS-17 set\n"
    f"# (corpora/tools/select_pools.py, seed {SEED}; {len(candidates)} candidates)\n"
    + "".join(f"l3s-gn1/{line}\n" for line in l3s)
    + "".join(f"wcxb-dev/html/{p}.html.gz\t{d}\n" for p, d in chosen),
    encoding="utf-8")
os.replace(tmp, out)
print(f"{len(l3s)} L3S-GN1 pages, {len(chosen)} WCXB pages of {len(candidates)} candidates")
