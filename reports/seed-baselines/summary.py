#!/usr/bin/env python3
"""One table of every learner of one or more seed-baseline runs, from their results.json files.

Usage: summary.py RESULTS_JSON...

Per run and learner, at the last round: the held-out block error (mean over folds, and the
lowest and highest fold) and, where the report scheme names main-text classes, the main-text F1
(`main_text_f1`: per held-out page, F1 of the words of blocks predicted main text against the
words of gold main-text blocks, averaged over pages, then over folds). Markdown on stdout.
"""
import json
import sys


def main():
    runs = [(path, json.load(open(path))) for path in sys.argv[1:]]
    if not runs:
        sys.exit(__doc__)
    for path, r in runs:
        folds = r["folds"]
        learners = sorted(folds[0]["errors"])
        print(f"### {r['config']['name']} ({path})\n")
        print(f"{r['labelled_pages']} pages, {r['labelled_sites']} sites, {r['labelled_blocks']} blocks; "
              f"{len(folds)} folds by {r['config']['evaluation'].get('split', 'page')}; pool {r['pool_pages']} pages\n")
        has_f1 = any(f.get("main_text_f1") for f in folds)
        print("| learner | block error (last round) | lowest – highest fold |" + (" main-text F1 |" if has_f1 else ""))
        print("|---|---:|---:|" + ("---:|" if has_f1 else ""))
        for name in learners:
            errs = [f["errors"][name][-1] for f in folds]
            row = f"| {name} | {100 * sum(errs) / len(errs):.1f}% | {100 * min(errs):.1f} – {100 * max(errs):.1f}% |"
            if has_f1:
                f1 = [f["main_text_f1"][name][-1] for f in folds if f.get("main_text_f1", {}).get(name) and f["main_text_f1"][name][-1] is not None]
                row += f" {sum(f1) / len(f1):.3f} |" if f1 else " – |"
            print(row)
        print()


if __name__ == "__main__":
    main()
