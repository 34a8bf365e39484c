#!/usr/bin/env python3
"""Writes problems/grid_2d.csv, grid_3d.csv, grid_1d.csv: synthetic problems
that cover what real networks leave sparse.

The full cartesian product of the ranges below would be millions of problems,
so each set is a deterministic stratified random sample instead:

  strata   every combination of filter shape x stride x group kind (and, in
           2D, dilation); each stratum gets an equal share of the set (the
           remainder goes to the first strata), so rare combinations such as a
           7x7 depthwise stride-2 dilation-4 layer are as present as 3x3 dense.
  inside   N, C, K, G, spatial sizes and padding are drawn at random from the
           ranges below (log-uniform, favouring powers of two and the sizes
           networks use, with some odd and misaligned values mixed in); a draw
           is kept only when the problem is valid, every tensor has at most
           2^31-1 elements (gconv::kMaxTensorElements) and its FLOPs
           (2*N*K*out_volume*(C/G)*filter_volume) lie in [1e6, 1e12]; a
           problem drawn twice is kept once.

  grid_2d  3000 problems, seed 2024, 60 strata: N 1..128, C and K 16..2048,
           H, W 7..224 (square 80%), square filters 1, 3, 5, 7, strides 1, 2,
           dilation 1, 2, 4 (strata: filter x stride x group kind x dilation).
  grid_3d  600 problems, seed 3034, 54 strata: N 1..32, C and K 16..1024,
           D 4..64, H = W 7..112, filters 1x1x1, 3x3x3, 1x3x3, 3x1x1, 5x5x5,
           3x7x7, strides 1, 2, 1x2x2 (strata: filter x stride x group kind);
           dilation 2 on a dim with filter > 1 in 15% of the draws.
  grid_1d  600 problems, seed 1014, 42 strata: N 1..128, C and K 16..2048,
           W 16..16384, filters 1, 2, 3, 5, 7, 15, 31, strides 1, 2 (strata:
           filter x stride x group kind); dilation 2..16 in half the draws
           with filter > 1.

  group kinds: dense (G = 1); grouped (G in 2, 4, 8, 16, 32, 64, C/G and K/G
  >= 1 each); depthwise (G = C, K = C x 1, 2 or 4: channel multiplier).
  padding: 'same' (dilation*(f-1)/2 per side; when f-1 is odd, e.g. f=2, the
  extra element goes on the high side) for 75%, none for 15%, and 10%
  asymmetric: TF-style SAME for the stride in 2D/3D (lo = total/2, hi = the
  rest), causal (lo = dilation*(f-1), hi = 0) in 1D. 2D inputs are square 80%
  of the time; dilation > 1 is only drawn for filters > 1.

Every row is forward bf16; other directions and dtypes are a harness option.

Usage: python3 problems/tools/make_grids.py [--out-dir problems]
"""

import argparse
import itertools
import math
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from convrow import Conv, write_csv  # noqa: E402

MIN_FLOPS, MAX_FLOPS = 1e6, 1e12
GROUPS = [2, 4, 8, 16, 32, 64]
COMMON_HW = [7, 14, 28, 56, 112, 224]


def log_int(rng, lo, hi):
    return max(lo, min(hi, int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))))


def pow2(rng, lo, hi):
    return 2 ** rng.randint(int(math.log2(lo)), int(math.log2(hi)))


def batch(rng, hi):
    return pow2(rng, 1, hi) if rng.random() < 0.7 else log_int(rng, 1, hi)


def channels(rng, lo, hi):
    """Powers of two 60%, multiples of 8 30%, any integer 10%."""
    r = rng.random()
    if r < 0.6:
        return pow2(rng, lo, hi)
    if r < 0.9:
        return max(lo, 8 * round(log_int(rng, lo, hi) / 8))
    return log_int(rng, lo, hi)


def group_channels(rng, kind, lo, hi):
    """(G, C, K) for a group kind, or None when the draw does not fit [lo, hi]."""
    if kind == "dense":
        return 1, channels(rng, lo, hi), channels(rng, lo, hi)
    if kind == "depthwise":
        c = channels(rng, lo, hi)
        k = c * rng.choice([1, 1, 1, 2, 4])
        return (c, c, k) if k <= hi else None
    g = rng.choice(GROUPS)
    cg = max(1, round(channels(rng, lo, hi) / g))
    kg = max(1, round(channels(rng, lo, hi) / g))
    c, k = g * cg, g * kg
    if not (lo <= c <= hi and lo <= k <= hi):
        return None
    return g, c, k


def pads(rng, sizes, filt, stride, dil, causal):
    """Per-dim (lo, hi) pads: same 75%, none 15%, asymmetric 10%."""
    r = rng.random()
    out = []
    for n, f, s, d in zip(sizes, filt, stride, dil):
        eff = d * (f - 1) + 1
        if r < 0.75:
            out.append(((eff - 1) // 2, eff - 1 - (eff - 1) // 2))
        elif r < 0.9:
            out.append((0, 0))
        elif causal:
            out.append((eff - 1, 0))
        else:  # TF SAME: output ceil(n / s)
            total = max((-(-n // s) - 1) * s + eff - n, 0)
            out.append((total // 2, total - total // 2))
    return out


def accept(conv):
    return conv.problem_error() is None and MIN_FLOPS <= conv.flops() <= MAX_FLOPS


def sample_set(strata, target, seed, draw):
    """Equal share per stratum; draw(rng, stratum) returns a Conv or None."""
    rng = random.Random(seed)
    chosen, seen = [], set()
    for i, stratum in enumerate(strata):
        quota = target // len(strata) + (1 if i < target % len(strata) else 0)
        got = 0
        for _ in range(20000):
            if got == quota:
                break
            conv = draw(rng, stratum)
            if conv is None or not accept(conv) or conv.key() in seen:
                continue
            seen.add(conv.key())
            chosen.append((conv, "grid " + label(stratum)))
            got += 1
        if got < quota:
            raise RuntimeError("stratum %s: only %d of %d problems found" % (label(stratum), got, quota))
    return chosen


def label(stratum):
    parts = []
    for key, v in stratum.items():
        v = "x".join(map(str, v)) if isinstance(v, tuple) else str(v)
        parts.append(v if key == "g" else key + v)
    return " ".join(parts)


def draw_2d(rng, st):
    gc = group_channels(rng, st["g"], 16, 2048)
    if gc is None:
        return None
    g, c, k = gc
    h = rng.choice(COMMON_HW) if rng.random() < 0.5 else log_int(rng, 7, 224)
    w = h if rng.random() < 0.8 else log_int(rng, 7, 224)
    f, s, d = st["f"], st["s"], st["dil"]
    p = pads(rng, [h, w], [f, f], [s, s], [d, d], causal=False)
    return Conv(2, batch(rng, 128), c, k, g, [h, w], [f, f], [s, s], p, [d, d])


def draw_3d(rng, st):
    gc = group_channels(rng, st["g"], 16, 1024)
    if gc is None:
        return None
    g, c, k = gc
    dd = rng.choice([4, 8, 16, 32]) if rng.random() < 0.6 else log_int(rng, 4, 64)
    hw = rng.choice([7, 14, 28, 56, 112]) if rng.random() < 0.6 else log_int(rng, 7, 112)
    filt, stride = list(st["f"]), list(st["s"])
    dil = [2 if (rng.random() < 0.15 and f > 1) else 1 for f in filt]
    p = pads(rng, [dd, hw, hw], filt, stride, dil, causal=False)
    return Conv(3, batch(rng, 32), c, k, g, [dd, hw, hw], filt, stride, p, dil)


def draw_1d(rng, st):
    gc = group_channels(rng, st["g"], 16, 2048)
    if gc is None:
        return None
    g, c, k = gc
    t = log_int(rng, 16, 16384)
    f, s = st["f"], st["s"]
    d = 1 if f == 1 or rng.random() < 0.5 else rng.choice([2, 4, 8, 16])
    p = pads(rng, [t], [f], [s], [d], causal=True)
    return Conv(1, batch(rng, 128), c, k, g, [t], [f], [s], p, [d])


KINDS = ["dense", "grouped", "depthwise"]


def strata_2d():
    out = []
    for f, s, g in itertools.product([1, 3, 5, 7], [1, 2], KINDS):
        for d in ([1] if f == 1 else [1, 2, 4]):
            out.append({"f": f, "s": s, "g": g, "dil": d})
    return out


def strata_3d():
    filters = [(1, 1, 1), (3, 3, 3), (1, 3, 3), (3, 1, 1), (5, 5, 5), (3, 7, 7)]
    strides = [(1, 1, 1), (2, 2, 2), (1, 2, 2)]
    return [{"f": f, "s": s, "g": g} for f, s, g in itertools.product(filters, strides, KINDS)]


def strata_1d():
    return [{"f": f, "s": s, "g": g} for f, s, g in itertools.product([1, 2, 3, 5, 7, 15, 31], [1, 2], KINDS)]


SETS = [
    ("grid_2d.csv", strata_2d, 3000, 2024, draw_2d),
    ("grid_3d.csv", strata_3d, 600, 3034, draw_3d),
    ("grid_1d.csv", strata_1d, 600, 1014, draw_1d),
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", default=os.path.normpath(os.path.join(here, "..")))
    args = ap.parse_args()
    for fname, strata, target, seed, draw in SETS:
        st = strata()
        rows = sample_set(st, target, seed, draw)
        comments = [
            "synthetic grid made by problems/tools/make_grids.py (seed %d): %d problems, %d strata" % (
                seed, len(rows), len(st)),
            "stratified random sample; valid, tensors <= 2^31-1 elements, FLOPs in [1e6, 1e12]",
            "source = 'grid' + the stratum (filter, stride, group kind[, dilation])",
        ]
        path = write_csv(os.path.join(args.out_dir, fname), rows, comments)
        print("wrote %s: %d rows, %d strata" % (path, len(rows), len(st)), file=sys.stderr)


if __name__ == "__main__":
    main()
