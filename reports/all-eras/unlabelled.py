#!/usr/bin/env python3
"""Extracts the WCXB dev pages that have no label file with a fold model of a cross-validation.

    python3 reports/all-eras/unlabelled.py CV.jsonl MODELS_DIR OUT.jsonl [--parcels BIN]

`parcels cross-extract CONFIG --out CV.jsonl --save-models MODELS_DIR` extracts every labelled
page with the model of the fold that held it out. The WCXB metric averages over *all* 1,497
pages, and a page without a record counts as a failure; but a page needs no label to be
extracted, only a model that never saw its site. So each WCXB page without a label file (gold
below 50% covered, or empty gold: `corpora/wcxb-dev/alignment.tsv`) is extracted with
`fold-N.json`, N the fold that held out its site's labelled pages in any corpus, or, for a
site with no labelled page (which no fold model saw), the folds in turn. OUT.jsonl gets these
records with their `fold`; score CV.jsonl and OUT.jsonl together.
"""

import argparse
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LABELS = ["l3s-gn1", "wcxb-dev", "dragnet", "cleaneval-dev"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cv", type=Path)
    parser.add_argument("models", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--parcels", default=str(ROOT / "target" / "release" / "parcels"))
    parser.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    args = parser.parse_args()
    # (corpus directory, page path inside it) -> site, from every label file.
    site_of = {}
    for corpus in LABELS:
        for f in (ROOT / "corpora" / corpus / "labels").glob("*.json"):
            label = json.loads(f.read_text(encoding="utf-8"))
            site_of[(corpus, label["page"])] = label["site"]
    fold_of_site = {}
    with open(args.cv, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            path = Path(r["path"])
            for corpus in LABELS:
                parts = path.parts
                if corpus in parts:
                    inside = "/".join(parts[parts.index(corpus) + 1:])
                    site = site_of.get((corpus, inside))
                    if site is not None:
                        fold_of_site.setdefault(site, r["fold"])
    folds = sorted(int(p.stem.split("-")[1]) for p in args.models.glob("fold-*.json"))
    rows = (ROOT / "corpora" / "wcxb-dev" / "alignment.tsv").read_text(encoding="utf-8").splitlines()[1:]
    unlabelled = [(r.split("\t")[0], r.split("\t")[1]) for r in rows if r.split("\t")[3] != "ok"]
    by_fold = {}
    unseen = 0
    for page, site in unlabelled:
        fold = fold_of_site.get(site)
        if fold is None:
            fold = folds[unseen % len(folds)]
            unseen += 1
        by_fold.setdefault(fold, []).append(args.corpora / "wcxb-dev" / "html" / f"{page}.html.gz")
    records = []
    for fold, pages in sorted(by_fold.items()):
        model = args.models / f"fold-{fold}.json"
        done = subprocess.run([args.parcels, "extract", "--model", str(model), "--no-blocks", *map(str, pages)],
                              capture_output=True, text=True, check=False)
        for line in done.stdout.splitlines():
            r = json.loads(line)
            r["fold"] = fold
            records.append(r)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    tmp.replace(args.out)
    print(f"{len(records)} of {len(unlabelled)} unlabelled WCXB pages extracted "
          f"({len(unlabelled) - unseen} of a site some fold held out, {unseen} of a site no model saw)")


if __name__ == "__main__":
    main()
