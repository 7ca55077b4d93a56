#!/usr/bin/env python3
"""The seed papers' own measures from an experiment's results.json reported in the binary scheme.

Usage: page_measures.py RESULTS_JSON LABELS_DIR BLOCKS_JSONL
       page_measures.py RESULTS_JSON BLOCKS_TSV [CONTENT_CLASSES]

BLOCKS_JSONL is `parcels divide --format json` over the labelled pages, in the order of the
label files (sorted), so each held-out block's words and characters are known (every block of
a page must be labelled). BLOCKS_TSV is `cargo run --release --example labelled_blocks CONFIG`:
the labelled blocks themselves (page, words, characters), for corpora where some blocks carry no
label. CONTENT_CLASSES: report classes counted as content, comma-separated (default `content`;
`headline,full-text` for the L3S-GN1 scheme, its mapping to binary). Prints, per
learner (last round), on held-out blocks pooled over folds:
- block precision / recall of content (Gibson et al. 2007, Table 1);
- word- and character-weighted precision / recall / F1 of content (Pasternack & Roth 2009 score
  words, Viveros-Jimenez et al. 2018 characters; here the words and characters of the blocks
  kept, not of an extracted text);
- document accuracy, precision and recall (Gibson et al.: pages with every block right, with no
  false content block, with no missed content block).
"""
import json
import os
import sys


def main():
    results_path = sys.argv[1]
    results = json.load(open(results_path))
    classes = results["report_classes"]
    if sys.argv[2].endswith(".tsv"):
        wanted = (sys.argv[3] if len(sys.argv) > 3 else "content").split(",")
        page_blocks = {}
        for line in list(open(sys.argv[2]))[1:]:
            page, words, chars = line.rstrip("\n").split("\t")
            page_blocks.setdefault(page, []).append({"words": int(words), "text": "x" * int(chars)})
    else:
        labels_dir, blocks_path = sys.argv[2:4]
        wanted = ["content"]
        names = sorted(f[:-5] for f in os.listdir(labels_dir) if f.endswith(".json"))
        divided = [json.loads(line) for line in open(blocks_path)]
        if len(divided) != len(names):
            sys.exit(f"{blocks_path}: {len(divided)} pages, {labels_dir}: {len(names)} label files")
        page_blocks = {n: d["blocks"] for n, d in zip(names, divided)}
    missing = [c for c in wanted if c not in classes]
    if missing:
        sys.exit(f"{results_path}: no report class {', '.join(missing)} (classes: {', '.join(classes)})")
    content = {classes.index(c) for c in wanted}
    learners = sorted(results["folds"][0]["predictions"])
    rows = []
    for learner in learners:
        tp = fp = fn = 0
        wt = {"words": [0, 0, 0], "chars": [0, 0, 0]}
        docs = doc_ok = doc_prec = doc_rec = 0
        for fold in results["folds"]:
            gold = fold["gold"]
            pred = fold["predictions"][learner][-1]
            i = 0
            for page in fold["test_pages"]:
                blocks = page_blocks[page]
                g, p = gold[i : i + len(blocks)], pred[i : i + len(blocks)]
                i += len(blocks)
                page_fp = page_fn = page_err = 0
                for b, gc, pc in zip(blocks, g, p):
                    gi, pi = gc in content, pc in content
                    sizes = {"words": b["words"], "chars": len(b["text"])}
                    if gi and pi:
                        tp += 1
                        for k in wt:
                            wt[k][0] += sizes[k]
                    elif pi:
                        fp += 1
                        page_fp += 1
                        for k in wt:
                            wt[k][1] += sizes[k]
                    elif gi:
                        fn += 1
                        page_fn += 1
                        for k in wt:
                            wt[k][2] += sizes[k]
                    page_err += gi != pi
                docs += 1
                doc_ok += page_err == 0
                doc_prec += page_fp == 0
                doc_rec += page_fn == 0
            if i != len(gold):
                sys.exit(f"fold {fold['fold']}: {i} blocks on its pages, {len(gold)} in results")

        def prf(t, f_p, f_n):
            p = t / (t + f_p) if t + f_p else 0.0
            r = t / (t + f_n) if t + f_n else 0.0
            return p, r, (2 * p * r / (p + r) if p + r else 0.0)

        bp, br, _ = prf(tp, fp, fn)
        wp, wr, wf = prf(*wt["words"])
        cp, cr, cf = prf(*wt["chars"])
        rows.append((learner, bp, br, wp, wr, wf, cp, cr, cf, doc_ok / docs, doc_prec / docs, doc_rec / docs))
    print("| learner | block P | block R | word P | word R | word F1 | char P | char R | char F1 | doc acc | doc P | doc R |")
    print("|---|" + "---:|" * 11)
    for r in rows:
        print(f"| {r[0]} | " + " | ".join(f"{100 * v:.1f}%" for v in r[1:]) + " |")


if __name__ == "__main__":
    main()
