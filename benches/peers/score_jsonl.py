#!/usr/bin/env python3
"""Scores `parcels extract` / `parcels cross-extract` JSON Lines with extract_peers.py's metric.

    python3 benches/peers/score_jsonl.py {l3s|dragnet|wcxb} FILE.jsonl... [--unseen-by-parcels-17]
        [--venv DIR]

WCXB is scored with its own metric (word-level P/R/F1 per page, averaged; per page type; title
F1, author and date found), the others with the article-extraction-benchmark's (see
extract_peers.py).

For comparing models on the same pages without the peers. `--unseen-by-parcels-17` keeps the
L3S-GN1 pages whose site is neither among the PARCELS-17 labelled pages nor in the L3S pool
(corpora/pools/l3s-pool.tsv): pages that no model trained from corpora/parcels-17 has seen,
labelled or not, so the 17-label model and a cross-validated L3S model can be compared fairly.
Runs in the virtual environment extract_peers.py creates (for lxml).
"""

import argparse
import importlib.util
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
spec = importlib.util.spec_from_file_location("extract_peers", HERE / "extract_peers.py")
peers = importlib.util.module_from_spec(spec)
spec.loader.exec_module(peers)


def unseen_by_parcels_17():
    sites = set()
    for f in (ROOT / "corpora" / "parcels-17" / "labels").glob("*.json"):
        sites.add(json.loads(f.read_text(encoding="utf-8"))["site"])
    for line in (ROOT / "corpora" / "pools" / "l3s-pool.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            sites.add(line.split("\t")[1].strip())
    keep = set()
    for f in (ROOT / "corpora" / "l3s-gn1" / "labels").glob("*.json"):
        label = json.loads(f.read_text(encoding="utf-8"))
        if label.get("site") not in sites:
            keep.add(Path(label["page"]).stem)
    return keep


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", choices=peers.CORPUS_NAMES)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--unseen-by-parcels-17", action="store_true")
    parser.add_argument("--venv", type=Path, default=peers.DEFAULT_VENV)
    parser.add_argument("--corpora", type=Path, default=peers.DEFAULT_CORPORA)
    args = parser.parse_args()
    venv = args.venv.resolve()
    if Path(sys.prefix).resolve() != venv:
        python = peers.ensure_venv(venv)
        os.execv(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]])
    pages, _ = peers.CORPUS_PAGES[args.corpus](args.corpora, 0)
    if args.unseen_by_parcels_17:
        if args.corpus != "l3s":
            parser.error("--unseen-by-parcels-17 is for l3s")
        keep = unseen_by_parcels_17()
        pages = [p for p in pages if p["key"] in keep]
    if args.corpus == "wcxb":
        tools = {}
        for path in args.files:
            with open(path, encoding="utf-8") as f:
                records = peers.parse_records(f)
            r = peers.evaluate(peers.parcels_outputs(records, pages), pages, True)
            tools[str(path)] = dict(label=str(path), has_title=True, has_meta=True, **r)
        print(peers.wcxb_tables(dict(pages=len(pages), tools=tools)))
        return
    print("| file | pages | main-text P | R | F1 | title F1 |\n|---|---:|---:|---:|---:|---:|")
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            records = peers.parse_records(f)
        r = peers.evaluate(peers.parcels_outputs(records, pages), pages, args.corpus == "l3s")
        print(f"| {path} | {len(pages)} | {peers.fmt(r['precision'])} | {peers.fmt(r['recall'])} "
              f"| {peers.fmt(r['f1'])} | {peers.fmt(r['title_f1'])} |")


if __name__ == "__main__":
    main()
