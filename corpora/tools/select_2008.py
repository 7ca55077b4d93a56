#!/usr/bin/env python3
"""Draws more 2008 pages for PARCELS-17 (stage 3, 2026-11-27): L3S-GN1 pages of sites that are
neither in the labelled set nor in the unlabelled pool.

The first 41 pages (corpora/parcels-17/pages.tsv, stages 1 and 2) and the L3S pool
(corpora/pools/l3s-pool.tsv) were drawn by select_pages.py and stay as they are; this script reads
them as written and draws after them, with its own seed, so that it changes neither. Same rules as
stage 1, blind to any block label: no L3S *comments* label on the page, at least 98% of the L3S
annotators' characters aligned, no pre-parse repair, 60-150 blocks; one page per site; sites in a
fixed random order, a page chosen at random within its site. A larger --count keeps the pages of
a smaller one.

  python3 corpora/tools/select_2008.py [--corpora ../shared/corpora] [--parcels target/release/parcels] [--count 48]

Appends the drawn pages after the first 41 in corpora/parcels-17/pages.tsv (rewriting the stage 3
part only).
"""
import argparse, json, os, random, subprocess
from collections import defaultdict

SEED = 20041115  # select_pages.py's seed + 3
STAGE_HEADER = "# stage 3 (2026-11-27, select_2008.py"
ap = argparse.ArgumentParser()
ap.add_argument("--corpora", default="../shared/corpora")
ap.add_argument("--parcels", default="target/release/parcels")
ap.add_argument("--count", type=int, default=48)
args = ap.parse_args()

manifest = "corpora/parcels-17/pages.tsv"
lines = open(manifest, encoding="utf-8").read().split("\n")
if any(l.startswith(STAGE_HEADER) for l in lines):
    lines = lines[:next(i for i, l in enumerate(lines) if l.startswith(STAGE_HEADER))]
kept = [l for l in lines if l.strip()]
taken_sites = {l.split("\t")[1].strip() for l in kept if not l.startswith("#")}
pool_sites = {l.split("\t")[1].strip() for l in open("corpora/pools/l3s-pool.tsv", encoding="utf-8")
              if l.strip() and not l.startswith("#")}

l3s = os.path.join(args.corpora, "l3s-gn1")
labels_dir = "corpora/l3s-gn1/labels"
uuids = sorted(f[:-5] for f in os.listdir(os.path.join(l3s, "original")))
site_of, facts = {}, {}
for u in uuids:
    lf = json.load(open(os.path.join(labels_dir, u + ".json"), encoding="utf-8"))
    site_of[u] = lf.get("site", "")
    a = lf.get("alignment") or {}
    facts[u] = (a.get("aligned_chars", 0) / max(1, a.get("labelled_chars", 1)),
                any(s["label"] == "comments" for s in lf["spans"]))
fresh = [u for u in uuids if site_of[u] not in taken_sites | pool_sites]
paths = [os.path.join(l3s, "original", u + ".html") for u in fresh]
divided = {}
for i in range(0, len(paths), 200):
    r = subprocess.run([args.parcels, "divide", *paths[i:i + 200]], capture_output=True, text=True, check=True)
    for line in r.stdout.split("\n"):
        if line:
            d = json.loads(line)
            divided[d["path"]] = d
eligible = defaultdict(list)
for u, p in zip(fresh, paths):
    d = divided.get(p)
    share, has_comments = facts[u]
    if d is None or d.get("repairs") or has_comments or share < 0.98 or not 60 <= len(d["blocks"]) <= 150:
        continue
    eligible[site_of[u]].append(u)
rng = random.Random(SEED)
sites = sorted(eligible)
rng.shuffle(sites)
picks = [rng.choice(sorted(eligible[s])) for s in sites]
chosen = picks[:args.count]
tmp = manifest + ".tmp"
with open(tmp, "w", encoding="utf-8") as f:
    f.write("\n".join(kept) + "\n")
    f.write(f"{STAGE_HEADER}, seed {SEED}): one page per site outside the labelled set and the L3S pool,\n"
            f"# same rules as stage 1; {len(sites)} eligible sites, the first {len(chosen)} of the draw\n")
    for u in chosen:
        f.write(f"original/{u}.html\t{site_of[u]}\n")
os.replace(tmp, manifest)
print(f"{len(fresh)} pages of {len({site_of[u] for u in fresh})} fresh sites; {len(sites)} eligible sites; {len(chosen)} chosen")
