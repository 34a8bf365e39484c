#!/usr/bin/env python3
"""Per problem, the best time of each labelled sweep, and each label against a baseline.

    python3 bench/best_by_label.py --baseline cudnn \
        off=grouped_off.csv on=grouped_on.csv gemm=pairs.csv cudnn=pairs.csv:cudnn

A label takes the gconv rows of its sweep (optionally only kernels starting
with a prefix: LABEL=PATH:PREFIX, e.g. `direct_`), or with the suffix
`:cudnn` the cuDNN provider rows (heuristic and benchmarked, the best of
them). Every label is compared with the baseline on the problems both have:
geometric mean of baseline / label (above 1: the label is faster), overall
and per direction, and a per-problem table (--per-problem CSV).
"""
import argparse
import csv
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_io import open_text  # noqa: E402


def best_times(path, select):
    """spec -> (ms, kernel) of the fastest ok row that `select` keeps."""
    best = {}
    for row in csv.DictReader(open_text(path)):
        if row.get("status") != "ok" or not select(row):
            continue
        try:
            t = float(row["latency_ms"])
        except ValueError:
            continue
        if not math.isfinite(t) or t <= 0:
            continue
        if row["spec"] not in best or t < best[row["spec"]][0]:
            best[row["spec"]] = (t, row["kernel"])
    return best


def selector(arg):
    if arg == "cudnn":
        return lambda r: r.get("provider") == "cudnn"
    if arg:
        return lambda r: r.get("provider", "gconv") == "gconv" and r["kernel"].startswith(arg)
    return lambda r: r.get("provider", "gconv") == "gconv"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("labels", nargs="+", help="LABEL=PATH[:PREFIX|:cudnn]")
    ap.add_argument("--baseline", required=True, help="the label the others are divided into")
    ap.add_argument("--per-problem", help="write the per-problem table here (CSV)")
    a = ap.parse_args()
    bests = {}
    for spec in a.labels:
        label, _, rest = spec.partition("=")
        path, _, which = rest.partition(":")
        if not label or not path:
            ap.error(f"bad label {spec!r}: expected LABEL=PATH[:PREFIX|:cudnn]")
        bests[label] = best_times(path, selector(which))
    if a.baseline not in bests:
        ap.error(f"--baseline {a.baseline} is not one of the labels")
    base = bests[a.baseline]
    print(f"{'label':<12} {'problems':>8} {'all':>7} {'fwd':>7} {'bwd_data':>9} {'bwd_weight':>11}   ({a.baseline} / label)")
    for label, b in bests.items():
        if label == a.baseline:
            continue
        by_dir = defaultdict(list)
        for spec, (t, _) in b.items():
            if spec in base:
                r = base[spec][0] / t
                by_dir["all"].append(r)
                by_dir[spec.split("_bf16_")[0].split("_fp16_")[0].split("_fp32_")[0]].append(r)
        cells = [f"{geomean(by_dir[d]):.3f}" if by_dir[d] else "-" for d in ("all", "fwd", "bwd_data", "bwd_weight")]
        print(f"{label:<12} {len(by_dir['all']):>8} {cells[0]:>7} {cells[1]:>7} {cells[2]:>9} {cells[3]:>11}")
    if a.per_problem:
        specs = sorted(set().union(*[set(b) for b in bests.values()]))
        with open(a.per_problem, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["spec"] + [x for l in bests for x in (l + "_ms", l + "_kernel")])
            for s in specs:
                row = [s]
                for b in bests.values():
                    t, k = b.get(s, (None, ""))
                    row += ["" if t is None else f"{t:.5f}", k]
                w.writerow(row)


if __name__ == "__main__":
    main()
