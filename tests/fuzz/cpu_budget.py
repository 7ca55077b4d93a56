#!/usr/bin/env python3
"""Runs one fuzz target until it has used a budget of CPU seconds, not of wall time.

On a shared machine `-max_total_time` measures wall time, and a fuzzer given a sixth of a core
for an hour has had ten minutes of fuzzing. This runs `cargo +nightly fuzz run TARGET` with the
options of `reports/robustness/fuzz.md`, samples the CPU time of its process tree every 30 s
(utime + stime + cutime + cstime of every live process under it, from /proc; a fork-mode
worker's time moves into its parent's cutime when it is waited for, so nothing is counted twice)
and sends SIGINT to the fuzzer once the tree has used the budget; libFuzzer then prints its
final figures and exits. Build the targets first (`cargo +nightly fuzz build --fuzz-dir
tests/fuzz -a -s none`), or the build's CPU counts against the budget.

    python3 tests/fuzz/cpu_budget.py page_divide --cpu 3630 --log /tmp/page_divide.log

Writes libFuzzer's output to --log and one "epoch cpu_seconds" line per sample to --log.cpu;
prints the wall and CPU seconds at the end. Linux only (/proc). Run from the repository root.
"""
import argparse
import os
import signal
import subprocess
import sys
import time

OPTIONS = [
    "-max_total_time=86400", "-rss_limit_mb=4096", "-timeout=10", "-max_len=16384",
    "-dict=tests/fuzz/html.dict", "-fork=1", "-ignore_crashes=1", "-ignore_timeouts=1", "-ignore_ooms=1",
]


def processes():
    """pid -> (ppid, utime + stime + cutime + cstime in clock ticks) of every process."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                s = f.read()
        except OSError:
            continue
        rest = s[s.rindex(")") + 2:].split()
        out[int(d)] = (int(rest[1]), sum(int(x) for x in rest[11:15]))
    return out


def tree(root, procs):
    """`root` and every live process under it."""
    found, grew = {root}, True
    while grew:
        grew = False
        for pid, (ppid, _) in procs.items():
            if ppid in found and pid not in found:
                found.add(pid)
                grew = True
    return found


def tree_cpu(root):
    """CPU seconds used so far by `root` and every live process under it."""
    procs = processes()
    return sum(procs[p][1] for p in tree(root, procs) if p in procs) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("target")
    ap.add_argument("--cpu", type=float, default=3630.0, help="CPU seconds to spend (default: an hour and 30 s of sampling slack)")
    ap.add_argument("--log", required=True, help="libFuzzer's output; samples go to LOG.cpu")
    args = ap.parse_args()
    cmd = ["cargo", "+nightly", "fuzz", "run", args.target, "--fuzz-dir", "tests/fuzz", "-a", "-s", "none", "--", *OPTIONS]
    start = time.time()
    with open(args.log, "w") as log, open(args.log + ".cpu", "w") as samples:
        fuzz = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        cpu = 0.0
        while fuzz.poll() is None:
            cpu = tree_cpu(fuzz.pid)
            samples.write(f"{time.time():.0f} {cpu:.1f}\n")
            samples.flush()
            if cpu >= args.cpu:
                # SIGINT to the fuzzer and its workers (not cargo): the libFuzzer parent prints
                # its last figures and exits, and cargo with it.
                for pid in tree(fuzz.pid, processes()) - {fuzz.pid}:
                    try:
                        os.kill(pid, signal.SIGINT)
                    except ProcessLookupError:
                        pass
                break
            time.sleep(30)
        fuzz.wait()
    print(f"{args.target}: {time.time() - start:.0f} s wall, {cpu:.0f} s CPU; libFuzzer output in {args.log}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
