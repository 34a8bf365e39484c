#!/usr/bin/env python3
"""cuDNN best / gconv best per problem class of issue 17 (small channels per
group, depthwise, tiny reduction, tiny spatial; 'other' for the rest).

    python3 bench/class_report.py --sweep SWEEP.csv[.zst|.gz] [--cudnn CUDNN.jsonl] [--field torch_exh_ms]

SWEEP: `gconv bench` output. gconv best = the fastest 'ok' row of provider
gconv per problem (spec). cuDNN best = the fastest 'ok' row of any other
provider (`--provider gconv,cudnn`: legacy and graph API, heuristic and
benchmarked), or, with --cudnn, the --field time of bench/cudnn_torch.py's
JSON lines (falling back to exh_ms / heur_ms, as problems/cudnn_public_h200.jsonl
holds); with both, --cudnn-from picks (default: the JSON lines).
Ratio = cuDNN best / gconv best (> 1: gconv faster).

Printed: per class and direction the problems, the geometric mean of the
ratio, min, max and wins (ratio > 1); per class the worst 10 problems; the
same by cuDNN time (< 20 us, 20-100 us, >= 100 us); and the depthwise
roofline figure: bytes of input, filter and output once (bf16: 2 bytes, fp16
2, fp32 4) / the copy bandwidth (--copy-tbps, default 4.26 TB/s, an H200's
measured copy), divided by the kernel time, median per direction, for gconv
best and for cuDNN best.

Classes (one problem may be in several; a class is a property of the layer
shape and the batch, not of the direction):
  small_cpg       G > 1, C/G >= 2, and C/G or K/G in 2..16 (RegNet, ResNeXt, ShuffleNet)
  depthwise       G > 1, C/G == 1, any K/G (depth multiplier)
  tiny_reduction  C <= 4 with G == 1 (stems), or C/G * filter volume < 64
  tiny_spatial    1 output pixel (squeeze-excite, heads), or N * output volume < 64
  other           none of the above
problems/tools/make_small_classes.py imports classes() from here.
Standard library only (runs on the GPU machine's Python; zstd for .zst).
"""
import argparse
import csv
import json
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_io import cudnn_spec, open_text  # noqa: E402

CLASSES = ("small_cpg", "depthwise", "tiny_reduction", "tiny_spatial")
DIRECTIONS = ("fwd", "bwd_data", "bwd_weight")
DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}


def classes(n, c, k, g, filter_volume, out_volume):
    """The classes of one problem (a tuple, CLASSES order; ('other',) when none)."""
    cg, kg = c // g, k // g
    out = []
    if g > 1 and cg >= 2 and (2 <= cg <= 16 or 2 <= kg <= 16):
        out.append("small_cpg")
    if g > 1 and cg == 1:
        out.append("depthwise")
    if (g == 1 and c <= 4) or cg * filter_volume < 64:
        out.append("tiny_reduction")
    if out_volume == 1 or n * out_volume < 64:
        out.append("tiny_spatial")
    return tuple(out) or ("other",)


class Shape:
    """The fields of a problem the report needs, from a sweep row."""

    def __init__(self, row):
        nd = int(row["ndim"])
        used = range(3 - nd, 3)
        get = lambda keys: [int(row[keys[i]] or 1) for i in used]
        self.direction, self.dtype = row["direction"], row["dtype"]
        self.n, self.c, self.k, self.g = (int(row[x]) for x in ("n", "c", "k", "g"))
        self.inp = get(("d", "h", "w"))
        self.filt = get(("z", "y", "x"))
        stride = get(("stride_d", "stride_h", "stride_w"))
        dil = get(("dil_d", "dil_h", "dil_w"))
        lo = [int(row[x] or 0) for x in ("pad_d_lo", "pad_h_lo", "pad_w_lo")][3 - nd:]
        hi = [int(row[x] or 0) for x in ("pad_d_hi", "pad_h_hi", "pad_w_hi")][3 - nd:]
        self.out = [(i + a + b - d * (f - 1) - 1) // s + 1
                    for i, f, s, d, a, b in zip(self.inp, self.filt, stride, dil, lo, hi)]

    def classes(self):
        return classes(self.n, self.c, self.k, self.g, math.prod(self.filt), math.prod(self.out))

    def bytes_once(self):
        """Input, filter and output, each read or written once."""
        elems = (self.n * self.c * math.prod(self.inp) + self.k * (self.c // self.g) * math.prod(self.filt)
                 + self.n * self.k * math.prod(self.out))
        return elems * DTYPE_BYTES.get(self.dtype, 2)


def read_sweep(path):
    """(gconv best {spec: (ms, kernel)}, cuDNN best {spec: (ms, kernel)}, {spec: Shape})."""
    gbest, cbest, shapes = {}, {}, {}
    for row in csv.DictReader(l for l in open_text(path) if not l.startswith("#")):
        if row.get("status") != "ok":
            continue
        spec, t = row["spec"], float(row["latency_ms"])
        provider = row.get("provider") or "gconv"
        is_cudnn = provider != "gconv" or row["kernel"].startswith("cudnn_")
        best = cbest if is_cudnn else gbest
        if spec not in best or t < best[spec][0]:
            best[spec] = (t, row["kernel"])
        if spec not in shapes:
            shapes[spec] = Shape(row)
    return gbest, cbest, shapes


def read_cudnn_jsonl(path, field):
    out = {}
    for line in open_text(path):
        if not line.strip() or line.startswith("#"):
            continue
        r = json.loads(line)
        if "about" in r:
            continue
        t = next((r[f] for f in (field, "exh_ms", "heur_ms") if r.get(f)), None)
        if t:
            out[cudnn_spec(r)] = (float(t), "torch:" + field)
    return out


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def median(xs):
    s = sorted(xs)
    if not s:
        return float("nan")
    m = len(s) // 2
    return s[m] if len(s) % 2 else 0.5 * (s[m - 1] + s[m])


def bucket(ms):
    return "<20us" if ms < 0.020 else ("20-100us" if ms < 0.100 else ">=100us")


def compare(gbest, cbest, shapes):
    """[(spec, direction, classes, cuDNN ms, gconv ms, gconv kernel, Shape)] of problems with both times."""
    out = []
    for spec in sorted(set(gbest) & set(cbest)):
        sh = shapes[spec]
        out.append((spec, sh.direction, sh.classes(), cbest[spec][0], gbest[spec][0], gbest[spec][1], sh))
    return out


def summarize(rows):
    """{(class, direction): [ratios]} with 'all' for both keys."""
    groups = defaultdict(list)
    for _, d, cls, c, g, _, _ in rows:
        for key_c in cls + ("all",):
            for key_d in (d, "all"):
                groups[(key_c, key_d)].append(c / g)
    return groups


def report(rows, copy_tbps, worst, out=None):
    p = lambda *a: print(*a, file=out or sys.stdout)
    order_c = CLASSES + ("other", "all")
    order_d = DIRECTIONS + ("all",)
    p("ratio = cuDNN best / gconv best (> 1: gconv faster); wins = problems with ratio > 1")
    p(f"{'class':15s} {'direction':10s} {'n':>5s} {'geomean':>8s} {'min':>7s} {'max':>7s} {'wins':>5s}")
    groups = summarize(rows)
    for c in order_c:
        for d in order_d:
            v = groups.get((c, d))
            if v:
                p(f"{c:15s} {d:10s} {len(v):5d} {gmean(v):8.3f} {min(v):7.3f} {max(v):7.3f} {sum(x > 1 for x in v):5d}")
    p("\nby cuDNN time: geomean (n)")
    buckets = ("<20us", "20-100us", ">=100us")
    p(f"{'class':15s} {'direction':10s} " + " ".join(f"{b:>16s}" for b in buckets))
    byb = defaultdict(list)
    for _, d, cls, c, g, _, _ in rows:
        for key_c in cls + ("all",):
            for key_d in (d, "all"):
                byb[(key_c, key_d, bucket(c))].append(c / g)
    for c in order_c:
        for d in order_d:
            cells = [byb.get((c, d, b), []) for b in buckets]
            if any(cells):
                p(f"{c:15s} {d:10s} " + " ".join(f"{gmean(v):8.3f} ({len(v):4d})" if v else f"{'-':>16s}"
                                               for v in cells))
    p(f"\ndepthwise roofline: (input + filter + output bytes once) / {copy_tbps} TB/s / time, median")
    p(f"{'direction':10s} {'n':>5s} {'gconv best':>10s} {'cuDNN best':>10s}")
    for d in order_d:
        dw = [(sh.bytes_once() / (copy_tbps * 1e12) * 1e3, c, g) for _, dd, cls, c, g, _, sh in rows
              if "depthwise" in cls and (d == "all" or dd == d)]
        if dw:
            p(f"{d:10s} {len(dw):5d} {median([r / g for r, _, g in dw]):10.3f} {median([r / c for r, c, _ in dw]):10.3f}")
    for c in order_c[:-1]:
        mine = sorted((r for r in rows if c in r[2]), key=lambda r: r[3] / r[4])[:worst]
        if not mine:
            continue
        p(f"\nworst {len(mine)} of {c}: spec, cuDNN ms, gconv ms, ratio, gconv kernel")
        for spec, _, _, cm, gm, kern, _ in mine:
            p(f"  {spec:60s} {cm:9.4f} {gm:9.4f} {cm / gm:6.3f} {kern}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sweep", required=True, help="gconv bench CSV (.zst / .gz read too)")
    ap.add_argument("--cudnn", help="cuDNN JSON lines (bench/cudnn_torch.py output)")
    ap.add_argument("--field", default="torch_exh_ms", help="time field of --cudnn (falls back to exh_ms, heur_ms)")
    ap.add_argument("--cudnn-from", choices=("jsonl", "sweep", "min"), default=None,
                    help="with both: the JSON lines (default), the sweep's cuDNN rows, or the faster of both")
    ap.add_argument("--copy-tbps", type=float, default=4.26, help="copy bandwidth for the roofline (H200: 4.26)")
    ap.add_argument("--worst", type=int, default=10, help="problems listed per class")
    ap.add_argument("--per-problem", help="write spec,direction,classes,cudnn_ms,gconv_ms,ratio,kernel here")
    a = ap.parse_args(argv)
    gbest, cbest, shapes = read_sweep(a.sweep)
    if a.cudnn:
        jl = read_cudnn_jsonl(a.cudnn, a.field)
        how = a.cudnn_from or "jsonl"
        if how == "jsonl":
            cbest = jl
        elif how == "min":
            for s, v in jl.items():
                if s not in cbest or v[0] < cbest[s][0]:
                    cbest[s] = v
    rows = compare(gbest, cbest, shapes)
    print(f"class_report: {len(rows)} problems with both times; {len(set(gbest) - set(cbest))} with gconv only, "
          f"{len(set(cbest) - set(gbest))} with cuDNN only")
    report(rows, a.copy_tbps, a.worst)
    if a.per_problem:
        with open(a.per_problem, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["spec", "direction", "classes", "cudnn_ms", "gconv_ms", "ratio", "gconv_kernel"])
            for spec, d, cls, c, g, k, _ in rows:
                w.writerow([spec, d, ";".join(cls), c, g, round(c / g, 4), k])
    return 0


if __name__ == "__main__":
    sys.exit(main())
