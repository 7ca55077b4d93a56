#!/usr/bin/env python3
"""Per-round diagnostics of the cross-era sweeps, from their cells (reports/cross-era/*/cells).

For each direction, selection rule and budget, per co-training round (over replicates x folds):
the self-labels added (both views), their precision against the hidden labels of the pool (the
test corpus's pages outside the held-out fold), the share labelled content, the views' agreement
on the round's fresh pool, the combined learner's held-out block error and main-text F1.
Writes reports/cross-era/rounds.md and rounds.csv. Run from the repository root:
    python3 reports/cross-era/rounds.py
"""
import glob
import json
import os
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
rows = []
for direction in ("2008-to-modern", "modern-to-2008"):
    acc = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for path in sorted(glob.glob(os.path.join(HERE, direction, "cells", "*.json"))):
        cell = json.load(open(path))
        s = dict((k, v.strip('"')) for k, v in cell["cell"]["settings"])
        classes = cell["results"]["classes"]
        content = classes.index("content")
        key = (s["cotraining.selection"], s["evaluation.budget_pages"])
        for f in cell["results"]["folds"]:
            for d in f["diagnostics"]:
                a = acc[key][d["round"]]
                added = sum(sum(v) for v in d["added"])
                a["added"].append(added)
                a["content"].append(sum(v[content] for v in d["added"]))
                if d.get("correct") is not None:
                    a["correct"].append(sum(d["correct"]))
                if d.get("pool_agreement") is not None:
                    a["agree"].append(d["pool_agreement"])
                r = d["round"]
                e = f["errors"]["combined"]
                a["error"].append(e[min(r, len(e) - 1)])
                m = f.get("main_text_f1", {}).get("combined")
                if m and m[min(r, len(m) - 1)] is not None:
                    a["f1"].append(m[min(r, len(m) - 1)])
    for (sel, budget), rounds in sorted(acc.items(), key=lambda kv: (kv[0][0], kv[0][1] == "all", int(kv[0][1]) if kv[0][1] != "all" else 0)):
        for r in sorted(rounds):
            a = rounds[r]
            added = sum(a["added"])
            mean = lambda v: sum(v) / len(v) if v else float("nan")
            rows.append(
                dict(
                    direction=direction,
                    selection=sel,
                    budget=budget,
                    round=r,
                    units=len(a["error"]),
                    added=added,
                    precision=sum(a["correct"]) / added if added and a["correct"] else float("nan"),
                    content_share=sum(a["content"]) / added if added else float("nan"),
                    agreement=mean(a["agree"]),
                    error=mean(a["error"]),
                    f1=mean(a["f1"]),
                )
            )
cols = ["direction", "selection", "budget", "round", "units", "added", "precision", "content_share", "agreement", "error", "f1"]
with open(os.path.join(HERE, "rounds.csv"), "w") as out:
    out.write(",".join(cols) + "\n")
    for r in rows:
        out.write(",".join(f"{r[c]:.6f}" if isinstance(r[c], float) else str(r[c]) for c in cols) + "\n")
fmt = lambda v, pct=True: "—" if v != v else (f"{100 * v:.1f}%" if pct else f"{v:.3f}")
md = ["# Cross-era co-training, round by round", "", "Rebuilt by `python3 reports/cross-era/rounds.py` from the sweeps' cells. Means over replicates × folds; precision: the self-labels that carry their hidden true class; content: the share of self-labels labelled content; agreement: the share of the round's fresh pool (u blocks) both views label alike; error and F1: the combined learner on the held-out fold.", ""]
last = None
for r in rows:
    head = (r["direction"], r["selection"], r["budget"])
    if head != last:
        md += ["", f"## {r['direction']}, {r['selection']}, budget {r['budget']} pages", "", "| round | units | self-labels added | precision | content | agreement | block error | main-text F1 |", "|---:|---:|---:|---:|---:|---:|---:|---:|"]
        last = head
    md.append(f"| {r['round']} | {r['units']} | {r['added']} | {fmt(r['precision'])} | {fmt(r['content_share'])} | {fmt(r['agreement'])} | {fmt(r['error'])} | {fmt(r['f1'], False)} |")
open(os.path.join(HERE, "rounds.md"), "w").write("\n".join(md) + "\n")
print(f"{len(rows)} rows written to {HERE}/rounds.md and rounds.csv")
