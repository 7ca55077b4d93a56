"""CPU cost of extraction apart from the machine's load: CPU seconds of one process running
``parcels.extract_warc`` over every ``*.warc.gz`` shard of a directory (README, "Web archives at
scale")::

    python tests/python/bench_cpu.py SHARDS_DIR
"""

import glob
import sys
import time

import parcels


def main() -> None:
    files = sorted(glob.glob(sys.argv[1] + "/*.warc.gz"))
    parcels.Model.default()
    c0, w0 = time.process_time(), time.perf_counter()
    n = 0
    for f in files:
        for _ in parcels.extract_warc(f):
            n += 1
    c1, w1 = time.process_time(), time.perf_counter()
    load = open("/proc/loadavg").read().split()[0]
    print(f"{n} pages: {c1 - c0:.2f} s CPU, {w1 - w0:.2f} s wall, {n / (c1 - c0):.1f} pages per CPU-second, load {load}")


if __name__ == "__main__":
    main()
