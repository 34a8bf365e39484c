#!/usr/bin/env python3
"""A/B of two sweeps of the same (kernel, problem) pairs measured in one run.

    python3 bench/ab_sweeps.py --a one_tile_per_block.csv --b persistent.csv \
        --label-a tile --label-b persistent [--family wgmma] [--match '_sk[0-9]+s_'] [--kernels-file names.txt]

Prints, per direction, the geometric mean of time(A) / time(B) over the
pairs both sweeps timed (> 1: B faster), and the same for each problem's
best kernel (min over the family's pairs), with the share of problems where
B's best is faster. Rows other than status ok are ignored.
"""
import argparse
import csv
import math
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_io import open_text  # noqa: E402


def read(path, family, match="", kernels=None):
    pattern = re.compile(match) if match else None
    out = {}
    for r in csv.DictReader(open_text(path)):
        if r["status"] != "ok" or r.get("provider", "gconv") != "gconv":
            continue
        if family and r["family"] != family:
            continue
        if pattern and not pattern.search(r["kernel"]):
            continue
        if kernels is not None and r["kernel"] not in kernels:
            continue
        out[(r["kernel"], r["spec"])] = float(r["latency_ms"])
    return out


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--label-a", default="A")
    ap.add_argument("--label-b", default="B")
    ap.add_argument("--family", default="", help="only this kernel family (e.g. wgmma)")
    ap.add_argument("--match", default="", help="only kernels whose name matches this regular expression")
    ap.add_argument("--kernels-file", default="", help="only the kernels named in this file (one per line)")
    a = ap.parse_args()
    names = set(open(a.kernels_file).read().split()) if a.kernels_file else None
    A, B = read(a.a, a.family, a.match, names), read(a.b, a.family, a.match, names)
    common = sorted(set(A) & set(B))
    pair_ratio = defaultdict(list)
    best = defaultdict(lambda: [math.inf, math.inf])
    for k, s in common:
        d = s.split("_")[0] if not s.startswith("bwd") else "_".join(s.split("_")[:2])
        pair_ratio[d].append(A[(k, s)] / B[(k, s)])
        pair_ratio["all"].append(A[(k, s)] / B[(k, s)])
        best[s][0] = min(best[s][0], A[(k, s)])
        best[s][1] = min(best[s][1], B[(k, s)])
    best_ratio = defaultdict(list)
    for s, (ta, tb) in best.items():
        d = s.split("_")[0] if not s.startswith("bwd") else "_".join(s.split("_")[:2])
        for key in (d, "all"):
            best_ratio[key].append(ta / tb)
    print(f"time({a.label_a}) / time({a.label_b}), geometric mean (> 1: {a.label_b} faster); "
          f"{len(common)} pairs in both sweeps")
    print(f"{'slice':<12} {'pairs':>6} {'pair ratio':>10} {'problems':>9} {'best ratio':>10} {'B wins':>7}")
    for key in ("all", "fwd", "bwd_data", "bwd_weight"):
        pr, br = pair_ratio.get(key, []), best_ratio.get(key, [])
        wins = sum(1 for x in br if x > 1.0)
        print(f"{key:<12} {len(pr):>6} {gmean(pr):>10.3f} {len(br):>9} {gmean(br):>10.3f} {wins:>7}")
    worst = sorted((ta / tb, s, ta, tb) for s, (ta, tb) in best.items())[:8]
    print(f"problems where {a.label_b}'s best loses most (ratio, spec, {a.label_a} ms, {a.label_b} ms):")
    for r, s, ta, tb in worst:
        print(f"  {r:.3f} {s} {ta:.4f} {tb:.4f}")


if __name__ == "__main__":
    main()
