#!/usr/bin/env python3
"""Best kernel of a gconv sweep vs cuDNN, per problem, as geometric means.

    python3 bench/compare_cudnn.py --sweep sweep.csv --cudnn cudnn.jsonl [--field torch_exh_ms]

sweep.csv comes from `gconv bench`; cudnn.jsonl from bench/cudnn_torch.py
(fields torch_heur_ms / torch_exh_ms, timed in the same run) or the stored
problems/cudnn_public_h200.jsonl (heur_ms / exh_ms, another run: only a rough
guide). Ratio = cuDNN time / gconv best time (> 1: gconv faster). Families:
depthwise (C/G == 1, G > 1), grouped (G > 1 otherwise), dense; 3D counted
separately as well.
"""
import argparse
import csv
import json
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_io import cudnn_spec  # noqa: E402


def family(r):
    if r["G"] > 1 and r["C"] == r["G"]:
        return "depthwise"
    return "grouped" if r["G"] > 1 else "dense"


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sweep", required=True)
    ap.add_argument("--cudnn", required=True)
    ap.add_argument("--field", default="torch_exh_ms", help="cuDNN time field (torch_exh_ms, torch_heur_ms, exh_ms, heur_ms)")
    ap.add_argument("--per-problem", help="write a per-problem CSV here")
    ap.add_argument("--by-family", action="store_true",
                    help="also: per kernel family (name prefix) and for the whole pool, geomean of cuDNN / the "
                         "family's best by direction x class (dense, grouped, depthwise, 3d) x cuDNN time "
                         "(<20 us, 20-100 us, >=100 us); and cuBLAS (gemm_ms) / pool best where timed")
    a = ap.parse_args()
    if a.by_family:
        by_family(a)
    best = {}
    for row in csv.DictReader(open(a.sweep)):
        # gconv's kernels only: a sweep run with --provider also holds cuDNN's rows.
        if row["status"] != "ok" or row.get("provider", "gconv") != "gconv":
            continue
        t = float(row["latency_ms"])
        if row["spec"] not in best or t < best[row["spec"]][0]:
            best[row["spec"]] = (t, row["kernel"])
    ratios = defaultdict(list)
    per_net = defaultdict(lambda: [0.0, 0.0])
    missing = 0
    out = []
    for line in open(a.cudnn):
        r = json.loads(line)
        if "about" in r:
            continue
        s = cudnn_spec(r)
        c = r.get(a.field)
        if c is None or s not in best:
            missing += 1
            continue
        g, k = best[s]
        ratio = c / g
        keys = ["all", r["direction"], family(r) + "/" + r["direction"]]
        if r["nd"] == 3:
            keys.append("3d/" + r["direction"])
        for key in keys:
            ratios[key].append(ratio)
        per_net[(r["source"], r["direction"])][0] += c
        per_net[(r["source"], r["direction"])][1] += g
        out.append((s, r["source"], c, g, ratio, k))
    print(f"cuDNN field {a.field}; ratio = cuDNN / gconv best (>1: gconv faster); {missing} problems without both times")
    print(f"{'slice':28s} {'n':>5s} {'geomean':>8s} {'min':>7s} {'max':>7s} {'wins':>5s}")
    for key in sorted(ratios):
        v = ratios[key]
        print(f"{key:28s} {len(v):5d} {gmean(v):8.3f} {min(v):7.3f} {max(v):7.3f} {sum(x > 1 for x in v):5d}")
    print(f"\n{'network/direction':32s} {'cuDNN ms':>9s} {'gconv ms':>9s}")
    for (net, d), (c, g) in sorted(per_net.items()):
        print(f"{net + '/' + d:32s} {c:9.3f} {g:9.3f}")
    if a.per_problem:
        with open(a.per_problem, "w") as f:
            w = csv.writer(f)
            w.writerow(["spec", "source", "cudnn_ms", "gconv_best_ms", "ratio", "gconv_kernel"])
            w.writerows(out)


def bucket(ms):
    return "<20us" if ms < 0.020 else ("20-100us" if ms < 0.100 else ">=100us")


def by_family(a):
    best = defaultdict(dict)  # spec -> family -> ms
    for row in csv.DictReader(open(a.sweep)):
        if row["status"] != "ok" or row.get("provider", "gconv") != "gconv":
            continue
        t, fam = float(row["latency_ms"]), row["kernel"].split("_", 1)[0]
        for f in (fam, "pool"):
            if t < best[row["spec"]].get(f, float("inf")):
                best[row["spec"]][f] = t
    fams = sorted({f for b in best.values() for f in b})
    ratios = defaultdict(list)
    gemm = defaultdict(list)
    for line in open(a.cudnn):
        r = json.loads(line)
        if "about" in r:
            continue
        s, c = cudnn_spec(r), r.get(a.field)
        if c is None or s not in best:
            continue
        cls = "3d" if r["nd"] == 3 else family(r)
        for f, t in best[s].items():
            for key in (("all", "all", "all"), (r["direction"], "all", "all"), (r["direction"], cls, "all"),
                        (r["direction"], "all", bucket(c)), ("all", "all", bucket(c))):
                ratios[(f,) + key].append(c / t)
        if r.get("gemm_ms"):
            gemm[r["direction"]].append(r["gemm_ms"] / best[s]["pool"])
            gemm["all"].append(r["gemm_ms"] / best[s]["pool"])
    print("\nby family: geomean cuDNN best / family best (>1: gconv faster); n = problems the family ran")
    print(f"{'direction':11s} {'class':10s} {'cuDNN time':10s} " + " ".join(f"{f:>14s}" for f in fams))
    keys = sorted({k[1:] for k in ratios})
    for key in keys:
        cells = []
        for f in fams:
            v = ratios.get((f,) + key, [])
            cells.append(f"{gmean(v):7.3f} ({len(v):4d})" if v else f"{'-':>14s}")
        print(f"{key[0]:11s} {key[1]:10s} {key[2]:10s} " + " ".join(cells))
    if gemm:
        print("\ncuBLAS on the equivalent GEMM / pool best (dense problems with gemm_ms):")
        for d, v in sorted(gemm.items()):
            print(f"  {d:11s} n={len(v):4d} geomean {gmean(v):.3f} min {min(v):.3f} max {max(v):.3f}")


if __name__ == "__main__":
    main()
