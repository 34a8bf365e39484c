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
from collections import defaultdict


def lst(v):
    return v[0] if all(x == v[0] for x in v) else ",".join(map(str, v))


def spec_of(r, dtype="bf16"):
    nd = r["nd"]
    names = {1: "w", 2: "hw", 3: "dhw"}[nd]
    fnames = {1: "x", 2: "yx", 3: "zyx"}[nd]
    sizes = "".join(f"{a}{b}" for a, b in zip(names, r["spatial"]))
    filt = "".join(f"{a}{b}" for a, b in zip(fnames, r["kernel"]))
    pads = []
    for p in r["pad"]:
        pads.append(f"{p[0]}:{p[1]}" if isinstance(p, list) and p[0] != p[1] else (p[0] if isinstance(p, list) else p))
    return (f"{r['direction']}_{dtype}_n{r['N']}c{r['C']}k{r['K']}g{r['G']}_{sizes}_{filt}"
            f"_s{lst(r['stride'])}_p{lst(pads)}_dil{lst(r['dil'])}")


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
    a = ap.parse_args()
    best = {}
    for row in csv.DictReader(open(a.sweep)):
        if row["status"] != "ok":
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
        s = spec_of(r)
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


if __name__ == "__main__":
    main()
