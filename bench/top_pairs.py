#!/usr/bin/env python3
"""Each problem's K fastest kernels of a sweep, as a --pairs file for gconv bench.

    python3 bench/top_pairs.py --sweep data/sweeps/h200_bf16_public_providers.csv.zst \
        --families igemm,direct --top 3 --out top.csv

Re-timing each problem's best kernels of an earlier, full sweep in a new run
gives that run an estimate of the whole pool's best at a fraction of the cost
of timing every kernel again (`gconv bench --pairs top.csv`).
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_io import open_text  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sweep", required=True)
    ap.add_argument("--families", default="igemm,direct", help="kernel families (name prefixes) to keep")
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    fams = tuple(f + "_" for f in a.families.split(","))
    times = defaultdict(list)
    for row in csv.DictReader(open_text(a.sweep)):
        if row["status"] == "ok" and row.get("provider", "gconv") == "gconv" and row["kernel"].startswith(fams):
            times[row["spec"]].append((float(row["latency_ms"]), row["kernel"]))
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "spec"])
        for spec, ts in sorted(times.items()):
            for _, k in sorted(ts)[: a.top]:
                w.writerow([k, spec])
    print(f"top_pairs: {sum(min(len(t), a.top) for t in times.values())} pairs of {len(times)} problems -> {a.out}")


if __name__ == "__main__":
    main()
