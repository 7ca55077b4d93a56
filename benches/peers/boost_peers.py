#!/usr/bin/env python3
"""Side-by-side benchmark of the boosted-stump learner (issue 5) and its peers.

One command runs everything on identical data:

    python3 benches/peers/boost_peers.py [--reps N] [--samme-stumps N] [--report PATH]

1. `cargo bench --bench boost` fits parcels' AdaBoost.MH (and the SAMME baseline over
   Gini stumps), writes the data to target/bench-data/boost_{train,test}.svm (SVMlight)
   and its timings to target/bench-data/boost_rust.json.
2. A virtual environment under target/bench-venv gets scikit-learn and LightGBM (pip), and this
   script times, on the same SVMlight files:
   - scikit-learn AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=200),
     SAMME, on sparse CSR input;
   - LightGBM, num_leaves=2, 200 rounds, multiclass over 17 classes, one thread.
3. Prints one table (medians), and with --report writes it as Markdown.

Timings are wall-clock medians; CPU time (process user+system) is shown as well because the
machine may be shared: on a loaded machine wall time exceeds the CPU time a run needs.
"""

import argparse
import datetime
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "target" / "bench-data"
VENV = ROOT / "target" / "bench-venv"
N_CLASSES = 17
N_ROUNDS = 200
N_FEATURES = 3100


def run_rust(reps, samme_stumps):
    env = dict(os.environ, BOOST_BENCH_REPS=str(reps), BOOST_BENCH_SAMME=str(samme_stumps))
    subprocess.run(["cargo", "bench", "--bench", "boost"], cwd=ROOT, env=env, check=True)
    return json.loads((DATA / "boost_rust.json").read_text())


def ensure_venv():
    """Creates target/bench-venv with scikit-learn and lightgbm, then re-runs this script in it."""
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = subprocess.run([str(python), "-c", "import sklearn, lightgbm, scipy"],
                           capture_output=True)
    if probe.returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "--quiet",
                        "scikit-learn", "lightgbm", "scipy", "numpy"], check=True)
    return python


def timed(reps, fn):
    walls, cpus, result = [], [], None
    for _ in range(max(1, reps)):
        t0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), min(walls), statistics.median(cpus), result


def peers(reps):
    """Runs inside the venv: times scikit-learn and LightGBM, prints JSON on stdout."""
    import numpy as np
    from sklearn.datasets import load_svmlight_file
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier
    import sklearn
    import lightgbm as lgb

    x_train, y_train = load_svmlight_file(str(DATA / "boost_train.svm"), n_features=N_FEATURES,
                                          zero_based=True)
    x_test, y_test = load_svmlight_file(str(DATA / "boost_test.svm"), n_features=N_FEATURES,
                                        zero_based=True)
    x_train, x_test = x_train.tocsr(), x_test.tocsr()
    y_train, y_test = y_train.astype(int), y_test.astype(int)
    out = {"sklearn_version": sklearn.__version__, "lightgbm_version": lgb.__version__}

    def adaboost():
        kwargs = dict(n_estimators=N_ROUNDS)
        try:
            model = AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=1),
                                       algorithm="SAMME", **kwargs)
        except TypeError:
            model = AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=1), **kwargs)
        return model.fit(x_train, y_train)

    import warnings
    warnings.filterwarnings("ignore")
    wall, wall_min, cpu, model = timed(reps, adaboost)
    t0 = time.perf_counter()
    pred = model.predict(x_test)
    out["sklearn"] = dict(fit=wall, fit_min=wall_min, fit_cpu=cpu,
                          predict=time.perf_counter() - t0,
                          train_acc=float(np.mean(model.predict(x_train) == y_train)),
                          test_acc=float(np.mean(pred == y_test)))

    def gbm():
        model = lgb.LGBMClassifier(objective="multiclass", num_class=N_CLASSES, num_leaves=2,
                                   n_estimators=N_ROUNDS, num_threads=1, verbose=-1)
        return model.fit(x_train, y_train)

    wall, wall_min, cpu, model = timed(reps, gbm)
    t0 = time.perf_counter()
    pred = model.predict(x_test)
    out["lightgbm"] = dict(fit=wall, fit_min=wall_min, fit_cpu=cpu,
                           predict=time.perf_counter() - t0,
                           train_acc=float(np.mean(model.predict(x_train) == y_train)),
                           test_acc=float(np.mean(pred == y_test)))
    out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps(out))


def table(rust, py, reps):
    rows = [
        ("parcels AdaBoost.MH, 200 rounds, 1 thread", rust["mh_fit_1t"], rust["mh_fit_1t_min"],
         rust["mh_fit_1t_cpu"], rust["mh_predict"], rust["mh_peak_mib"], rust["mh_train_acc"],
         rust["mh_test_acc"]),
        ("parcels AdaBoost.MH, 200 rounds, 2 threads", rust["mh_fit_2t"], rust["mh_fit_2t_min"],
         float("nan"), rust["mh_predict"], rust["mh_peak_mib"], rust["mh_train_acc"],
         rust["mh_test_acc"]),
    ]
    if "samme_fit" in rust:
        rows.append((f"parcels SAMME over Gini stumps ({rust['samme_stumps']} stumps, 1 run)",
                     rust["samme_fit"], rust["samme_fit"], float("nan"), rust["samme_predict"],
                     rust["samme_peak_mib"], rust["samme_train_acc"], rust["samme_test_acc"]))
    for key, name in (("sklearn", f"scikit-learn {py['sklearn_version']} AdaBoost SAMME, 200 "
                                  "depth-1 trees, sparse"),
                      ("lightgbm", f"LightGBM {py['lightgbm_version']}, num_leaves=2, 200 "
                                   "rounds, 1 thread")):
        r = py[key]
        rows.append((name, r["fit"], r["fit_min"], r["fit_cpu"], r["predict"], py["peak_mib"],
                     r["train_acc"], r["test_acc"]))
    head = ("| learner | fit s (median) | fit s (min) | fit CPU s | predict s (1,000 blocks) "
            "| peak MiB | train acc | test acc |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, fit, fmin, cpu, pred, mem, tr, te in rows:
        cpu_s = "–" if cpu != cpu else f"{cpu:.2f}"
        lines.append(f"| {name} | {fit:.3f} | {fmin:.3f} | {cpu_s} | {pred:.4f} | {mem:.0f} "
                     f"| {tr:.3f} | {te:.3f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--samme-stumps", type=int, default=200)
    parser.add_argument("--report", type=Path, help="write the table as Markdown here")
    parser.add_argument("--peers-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peers_only:
        peers(args.reps)
        return
    rust = run_rust(args.reps, args.samme_stumps)
    python = ensure_venv()
    proc = subprocess.run([str(python), __file__, "--peers-only", "--reps", str(args.reps)],
                          capture_output=True, text=True, check=True)
    py = json.loads(proc.stdout.strip().splitlines()[-1])
    text = table(rust, py, args.reps)
    print(text)
    if args.report:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                capture_output=True, text=True).stdout.strip()
        load = Path("/proc/loadavg").read_text().split()[:3]
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        meta = (f"Measured {stamp}, commit `{commit}`, {args.reps} repetitions (SAMME over "
                f"Gini stumps: 1 run), load average {' '.join(load)} on a "
                f"{os.cpu_count()}-core machine.")
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(text + "\n\n" + meta + "\n")


if __name__ == "__main__":
    main()
