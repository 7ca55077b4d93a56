#!/usr/bin/env python3
"""Re-extracts every page of a cross-validation run with the fold model that held it out, with the
models' `[article]` roles or decision settings changed: to measure an article-assembly or
decision rule without training again.

    python3 reports/all-eras/reextract.py CV.jsonl MODELS_DIR OUT.jsonl [--parallel-items JSON]
        [--set KEY=JSON]... [--stage-rounds N] [--parcels BIN]

CV.jsonl: `parcels cross-extract … --out CV.jsonl --save-models MODELS_DIR` records (plus
`unlabelled.py`'s, which carry their `fold` too). Each fold model is copied with its scheme's
`article.parallel_items` set to JSON (`null` removes it: the control, which must reproduce
CV.jsonl's main texts exactly), and every page of the fold is extracted again with the copy.
`--set config.context.keep_agreement=true` sets a dotted key of the model file instead (any
number of times; `null` removes the key); with `--set`, `article.parallel_items` is left as the
model has it unless `--parallel-items` is given too. A setting must only change how the trained
learners' outputs are used (such as `[context] keep_agreement`), never what was learned.
`--stage-rounds N` keeps the context stage's first N stumps: boosting is sequential and no round
depends on the budget, so that is the stage a budget of N rounds trains (the boost test
`fewer_rounds_are_the_first_stumps_of_more_rounds`); one run of many rounds measures every
smaller budget on the same folds.
The roles only assemble the article from the classified blocks; the learners are the fold's, so
the comparison with CV.jsonl is paired on the same labels. OUT.jsonl gets `parcels extract`'s
records with their `fold`; score it with compare.py.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cv", type=Path)
    parser.add_argument("models", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--parallel-items", default=None,
                        help="the value of article.parallel_items, as JSON (null: none); default "
                             '{"min_items": 3, "min_share": 0.5} unless --set is given')
    parser.add_argument("--set", action="append", default=[], metavar="KEY=JSON",
                        help="set a dotted key of each fold model (null removes it)")
    parser.add_argument("--stage-rounds", type=int, default=None, metavar="N",
                        help="keep the context stage's first N rounds (at most the rounds it has)")
    parser.add_argument("--parcels", default=str(ROOT / "target" / "release" / "parcels"))
    args = parser.parse_args()
    if args.parallel_items is None and not args.set and args.stage_rounds is None:
        args.parallel_items = '{"min_items": 3, "min_share": 0.5}'
    settings = [parse_setting(s) for s in args.set]
    by_fold = {}
    with open(args.cv, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            by_fold.setdefault(r["fold"], []).append(r["path"])
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        for fold, paths in sorted(by_fold.items()):
            model = json.loads((args.models / f"fold-{fold}.json").read_text(encoding="utf-8"))
            if args.parallel_items is not None:
                settings_here = [(["scheme", "article", "parallel_items"], json.loads(args.parallel_items))]
            else:
                settings_here = []
            for keys, value in settings_here + settings:
                node = model
                for key in keys[:-1]:
                    if not isinstance(node.get(key), dict):
                        sys.exit(f"reextract: fold {fold}: the model has no object at {'.'.join(keys[:-1])}")
                    node = node[key]
                if value is None:
                    node.pop(keys[-1], None)
                else:
                    node[keys[-1]] = value
            if args.stage_rounds is not None:
                cut_stage(model, args.stage_rounds, fold)
            patched = Path(tmp) / f"fold-{fold}.json"
            patched.write_text(json.dumps(model), encoding="utf-8")
            done = subprocess.run([args.parcels, "extract", "--model", str(patched), *paths],
                                  capture_output=True, text=True, check=False)
            if done.returncode not in (0, 2):
                sys.exit(f"reextract: fold {fold}: parcels failed: {done.stderr.strip()}")
            for line in done.stdout.splitlines():
                r = json.loads(line)
                r["fold"] = fold
                records.append(r)
    tmp_out = args.out.with_suffix(".tmp")
    tmp_out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                       encoding="utf-8")
    tmp_out.replace(args.out)
    print(f"{len(records)} pages re-extracted in {len(by_fold)} folds")


def cut_stage(model, rounds, fold):
    """Keeps the context stage's first `rounds` rounds: the stage a budget of `rounds` trains."""
    stage = model.get("context")
    if not isinstance(stage, dict):
        sys.exit(f"reextract: fold {fold}: --stage-rounds: the model has no context stage")
    have = len(stage["stumps"])
    if not 0 < rounds <= have:
        sys.exit(f"reextract: fold {fold}: --stage-rounds {rounds}: the stage has {have} rounds")
    if rounds < have:
        stage["stumps"] = stage["stumps"][:rounds]
        stage["round_z"] = stage["round_z"][:rounds]
        stage["stop_reason"] = "AllRounds"
        stage["params"]["n_rounds"] = rounds
        model["config"]["context"]["rounds"] = rounds


def parse_setting(text):
    """`a.b.c=JSON` as (["a", "b", "c"], value)."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        sys.exit(f"reextract: --set {text!r}: expected KEY=JSON")
    try:
        return key.split("."), json.loads(value)
    except json.JSONDecodeError as e:
        sys.exit(f"reextract: --set {text!r}: the value is not JSON: {e}")


if __name__ == "__main__":
    main()
