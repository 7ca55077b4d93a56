#!/usr/bin/env python3
"""Keeps of a cross-validation run what later comparisons need, gzipped.

    python3 reports/all-eras/compact.py CV.jsonl OUT.jsonl.gz

CV.jsonl: `parcels cross-extract` records (or `parcels classify` ones, which have no fold). Each
page keeps its `path` (the corpora root cut off, so the record reads the same on any machine),
its `fold` if it has one, and every block's `id`, combined
`label` and the two views' labels (`s`, `l`); the article fields, texts and confidences are
dropped. `score.py` and `folds_of.py` read the result as they read the full records, so an
adopted run is the baseline of the next comparison (`--set evaluation.folds_from=...` with
`folds_of.py` on it gives the same folds) without running it again.
"""
import gzip
import json
import os
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    src, out = sys.argv[1], sys.argv[2]
    lines = []
    with open(src, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            path = r["path"].replace("\\", "/")
            cut = path.find("/corpora/")
            rec = {"path": path[cut + len("/corpora/"):] if cut >= 0 else path}
            if "fold" in r:  # `parcels classify` records have none
                rec["fold"] = r["fold"]
            if "blocks" in r:
                rec["blocks"] = [
                    {"id": b["id"], "label": b["label"], "s": b["views"]["stylistic"]["label"], "l": b["views"]["lexical"]["label"]}
                    for b in r["blocks"]
                ]
            else:
                rec["error"] = r.get("error", "no blocks")
            lines.append(json.dumps(rec, separators=(",", ":")))
    tmp = out + ".tmp"
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=9) as g:
        g.write("\n".join(lines) + "\n")
    os.replace(tmp, out)
    print(f"{out}: {len(lines)} pages", file=sys.stderr)


if __name__ == "__main__":
    main()
