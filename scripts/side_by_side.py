#!/usr/bin/env python3
"""Side by side with cuDNN, from ONE sweep run: gconv's selected kernel (the
`picked_ms` of `gconv eval --per-problem` on that sweep: the heuristic policy's
choice among the same kernels, timed in that run) against cuDNN's heuristic
choice and cuDNN's best (both the faster of legacy and graph API rows, as
`gconv report` defines its baselines), per problem of the sweep.

Prints geometric means of cuDNN time / gconv time (> 1: gconv faster) overall,
per direction and per family (dense, grouped, depthwise, 3D), wins, and
per-network sums. Usage:
  python3 scripts/side_by_side.py --sweep S.csv[.zst] --per-problem P.csv
"""
import argparse, collections, csv, io, math, subprocess, sys


def open_text(path):
    if path.endswith(".zst"):
        return io.StringIO(subprocess.run(["zstd", "-dc", path], check=True, capture_output=True, text=True).stdout)
    if path.endswith(".gz"):
        import gzip
        return gzip.open(path, "rt")
    return open(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sweep", required=True)
    ap.add_argument("--per-problem", required=True)
    a = ap.parse_args()
    cud = collections.defaultdict(dict)  # spec -> {heur, best}
    source, kind = {}, {}
    oracle = {}
    for r in csv.DictReader(l for l in open_text(a.sweep) if not l.startswith("#")):
        spec = r["spec"]
        source[spec] = r["source"]
        g, c, k, nd = int(r["g"]), int(r["c"]), int(r["k"]), int(r["ndim"])
        kind[spec] = "3d" if nd == 3 else ("depthwise" if g == c and g > 1 and k == c else ("grouped" if g > 1 else "dense"))
        if r["status"] != "ok":
            continue
        ms = float(r["latency_ms"])
        name = r["kernel"].split(":")[0]
        if r["provider"] == "gconv":
            oracle[spec] = min(oracle.get(spec, 1e30), ms)
            continue
        if name in ("cudnn_best", "cudnn_graph_best"):
            cud[spec]["best"] = min(cud[spec].get("best", 1e30), ms)
        if name == "cudnn_graph_heuristic":
            cud[spec]["heur"] = ms
        if name == "cudnn_heuristic" and "heur_legacy" not in cud[spec]:
            cud[spec]["heur_legacy"] = ms
    picked = {}
    for r in csv.DictReader(open(a.per_problem)):
        picked[r["spec"]] = float(r["picked_ms"])
    rows = []
    for spec, ms in picked.items():
        c = cud.get(spec, {})
        heur = c.get("heur", c.get("heur_legacy"))
        if "best" not in c or heur is None:
            continue
        rows.append((spec, spec.split("_bf16")[0], kind[spec], source[spec], ms, oracle[spec], heur, c["best"]))
    print(f"{len(rows)} problems with gconv's selected kernel and both cuDNN rows (of {len(picked)} selected)")
    def gm(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")
    print(f"{'slice':<22}{'n':>5}{'vs heur':>9}{'vs best':>9}{'wins/best':>10}{'oracle vs best':>15}")
    slices = [("all", lambda r: True)] + [(d, lambda r, d=d: r[1] == d) for d in ("fwd", "bwd_data", "bwd_weight")] + \
             [(k, lambda r, k=k: r[2] == k) for k in ("dense", "grouped", "depthwise", "3d")]
    for name, f in slices:
        s = [r for r in rows if f(r)]
        print(f"{name:<22}{len(s):>5}{gm([r[6] / r[4] for r in s]):>9.3f}{gm([r[7] / r[4] for r in s]):>9.3f}"
              f"{sum(r[7] > r[4] for r in s):>10}{gm([r[7] / r[5] for r in s]):>15.3f}")
    print(f"\n{'network/direction':<30}{'n':>4}{'cuDNN best ms':>15}{'gconv sel ms':>14}")
    nets = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for r in rows:
        for net in r[3].split(";"):
            e = nets[f"{net}/{r[1]}"]
            e[0] += 1; e[1] += r[7]; e[2] += r[4]
    for k in sorted(nets):
        n, b, g = nets[k]
        print(f"{k:<30}{n:>4}{b:>15.3f}{g:>14.3f}")


if __name__ == "__main__":
    main()
