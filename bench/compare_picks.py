#!/usr/bin/env python3
"""Two selectors' picks timed in one run beside cuDNN (issue 19: a retrained model
against the shipped one, on the same GPU, same process).

  compare_picks.py --sweep AB.csv[.zst] --picks A=PICKS_A.csv --picks B=PICKS_B.csv [--worst 10]

AB: `gconv bench --pairs UNION --provider gconv,cudnn` output, where UNION
holds every (kernel, spec) of the picks files (kernel,spec CSVs, e.g.
`gconv select --json` turned into pairs, or a policy sweep's gconv rows).
Per direction and per class (bench/class_report.py): the geometric
mean of cuDNN best / pick time for each selector, of A's time / B's time
(> 1: B faster), and how many picks differ. Standard library only (zstd for .zst through the zstd command).
"""
import argparse
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from class_report import Shape  # noqa: E402
from sweep_io import read_rows  # noqa: E402


def gmean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sweep", required=True)
    ap.add_argument("--picks", action="append", required=True, help="NAME=FILE (kernel,spec CSV); exactly two")
    ap.add_argument("--worst", type=int, default=10)
    a = ap.parse_args(argv)
    if len(a.picks) != 2:
        ap.error("--picks: give exactly two")
    names, picks = [], []
    for p in a.picks:
        n, f = p.split("=", 1)
        names.append(n)
        picks.append({r["spec"]: r["kernel"] for r in read_rows(f)})

    gconv, cudnn, row_of = {}, {}, {}
    for r in read_rows(a.sweep):
        if r["status"] != "ok":
            continue
        t = float(r["latency_ms"])
        s = r["spec"]
        if r["provider"] == "gconv":
            gconv[(r["kernel"], s)] = min(t, gconv.get((r["kernel"], s), t))
            row_of.setdefault(s, r)
        else:
            cudnn[s] = min(t, cudnn.get(s, t))

    slices = defaultdict(list)  # slice -> [(ratio_a, ratio_b, a/b, differs)]
    per = []
    missing = 0
    for s, r in row_of.items():
        ka, kb = picks[0].get(s), picks[1].get(s)
        if ka is None or kb is None or (ka, s) not in gconv or (kb, s) not in gconv or s not in cudnn:
            missing += 1
            continue
        ta, tb, tc = gconv[(ka, s)], gconv[(kb, s)], cudnn[s]
        rec = (tc / ta, tc / tb, ta / tb, ka != kb)
        direction = r["direction"]
        for key in ["all", direction] + [f"{c}/{direction}" for c in Shape(r).classes()]:
            slices[key].append(rec)
        per.append((ta / tb, s, ka, kb, ta, tb, tc))
    print(f"compare_picks: {len(per)} problems with both picks and cuDNN timed ({missing} without)")
    print(f"{'slice':28s} {'n':>4s} {'cuDNN/' + names[0]:>12s} {'cuDNN/' + names[1]:>12s} "
          f"{names[0] + '/' + names[1]:>10s} {'differ':>6s}")
    order = ["all", "fwd", "bwd_data", "bwd_weight"] + sorted(k for k in slices if "/" in k)
    for k in order:
        v = slices.get(k)
        if not v:
            continue
        print(f"{k:28s} {len(v):4d} {gmean([x[0] for x in v]):12.3f} {gmean([x[1] for x in v]):12.3f} "
              f"{gmean([x[2] for x in v]):10.3f} {sum(x[3] for x in v):6d}")
    per.sort()
    print(f"\n{names[1]} slower than {names[0]} most ({names[0]} / {names[1]} time):")
    for x in per[: a.worst]:
        print(f"  {x[0]:.3f} {x[1]}  {x[2]} {x[4]:.4f} -> {x[3]} {x[5]:.4f}  cuDNN {x[6]:.4f}")
    print(f"{names[1]} faster than {names[0]} most:")
    for x in per[::-1][: a.worst]:
        print(f"  {x[0]:.3f} {x[1]}  {x[2]} {x[4]:.4f} -> {x[3]} {x[5]:.4f}  cuDNN {x[6]:.4f}")


if __name__ == "__main__":
    main(sys.argv[1:])
