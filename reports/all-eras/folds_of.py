#!/usr/bin/env python3
"""Writes the folds of a cross-validation run as an `[evaluation] folds_from` file.

    python3 reports/all-eras/folds_of.py CV.jsonl > folds.tsv

CV.jsonl: `parcels cross-extract` records (`path`, `fold`), or `compact.py`'s `.jsonl.gz`. Each page's label file is named by
its page file's stem (`html/0001.html.gz` -> `0001.json`, `original/UUID.html` -> `UUID.json`),
as the corpora under `corpora/` name them. With `--set evaluation.folds_from=folds.tsv`, a run on
a corpus that grew holds each of these pages out in the same fold.
"""
import gzip
import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    print(f"# folds of {sys.argv[1]}")
    opener = gzip.open if sys.argv[1].endswith(".gz") else open
    with opener(sys.argv[1], "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            name = r["path"].replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0]
            print(f"{name}.json\t{r['fold']}")


if __name__ == "__main__":
    main()
