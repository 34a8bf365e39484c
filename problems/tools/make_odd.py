#!/usr/bin/env python3
"""Writes problems/train_odd.csv and problems/holdout_odd.csv: the odd shapes
users run and the torchvision-like sets leave out.

Both files are drawn by the same generator from different seeds: train_odd
(seed 1919, 396 rows) is training data; holdout_odd (seed 2929, 150 rows) is
for validation only and is NEVER trained on. A holdout draw is rejected when
its layer shape (batch excluded) is in any training set: train_odd, the
grids, train_real; so the holdout measures shapes the model has not seen, not
batch sizes of shapes it has.

Strata (each gets an equal share of a set; the remainder goes to the first):

  dilated        2D filters 3/5/7 with dilation 2, 3 or 4 (sometimes a
                 different one per dim), 'same' padding; 1D and 3D dilated
                 convs in a quarter of the draws
  asym_pad       2D/1D with lo != hi padding: TF-style SAME for stride 2
                 (total split lo = total/2, hi = rest), or lo:hi in 0..3
  same_even      even filters (2, 4, 6) with 'same' padding: the extra element
                 goes on the high side (PyTorch padding='same'), 1D and 2D
  large_filter   square 9..31 (depthwise in 70%: RepLKNet / SLaK style) and
                 dense 7..11 stems with stride 2 or 4
  rect_filter    1xN and Nx1, N in 3, 5, 7, 9, 15 (Inception-style), dense
                 or grouped, 'same' padding per dim
  long_1d        1D sequences of 16k..256k samples (audio, 1..512 channels;
                 filters 1..251; strides 1..5: sinc / SEANet front ends)
  video_3d       D 8..32, H = W 56..224; 3x3x3, 1x3x3, 3x1x1, 1x7x7, 5x7x7;
                 strides 1, 1x2x2, 2x2x2
  medical_3d     cubes 24..160, 1..64 channels; 3x3x3, 1x1x1, 5x5x5 and 2x2x2
                 stride-2 downsampling; N 1..4
  depth_mult     depthwise with a channel multiplier: G = C, K/G = 2..6,
                 C/G = 1; 1D, 2D and 3D
  tiny_channels  C = 1..8 in (a stem on RGB, a mask, mono audio), K 1..64
  big_batch      N 128..256 on small spatial sizes (7..32)

Every stratum draws N itself: 30% N = 1, else a power of two up to 256 or any
integer in 1..256 (log-uniform), so N = 1 and batch 1..256 run through all of
them. A draw is kept only when the problem is valid, every tensor holds at
most 2^31-1 elements, its FLOPs lie in [1e5, 1e11] (a sweep of the whole set
at --sample 28 stays in minutes on one GPU) and its spec is new.

Every row is forward bf16; directions and dtypes are a harness option.

Usage: python3 problems/tools/make_odd.py [--out-dir problems]
"""

import argparse
import math
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from convrow import Conv, find_set, read_csv, write_csv  # noqa: E402

MIN_FLOPS, MAX_FLOPS = 1e5, 1e11
TRAIN = ("train_odd.csv", 1919, 396)
HOLDOUT = ("holdout_odd.csv", 2929, 150)
# Training sets a holdout shape must not be in (besides train_odd itself).
TRAINING_SETS = ["train_real", "grid_1d", "grid_2d", "grid_3d"]


def log_int(rng, lo, hi):
    return max(lo, min(hi, int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))))


def batch(rng, hi=256):
    r = rng.random()
    if r < 0.3:
        return 1
    if r < 0.75:
        return 2 ** rng.randint(1, int(math.log2(hi)))
    return log_int(rng, 1, hi)


def chans(rng, lo, hi):
    """Powers of two 60%, multiples of 8 25%, any integer 15%."""
    r = rng.random()
    if r < 0.6:
        return 2 ** rng.randint(max(0, math.ceil(math.log2(lo))), int(math.log2(hi)))
    if r < 0.85:
        return max(lo, min(hi, 8 * max(1, round(log_int(rng, lo, hi) / 8))))
    return log_int(rng, lo, hi)


def groups(rng, c, k, kind):
    """G for a group kind given C and K (None when it does not divide)."""
    if kind == "dense":
        return 1
    if kind == "depthwise":
        return c if k % c == 0 else None
    cands = [g for g in (2, 4, 8, 16, 32, 64) if c % g == 0 and k % g == 0 and g < c]
    return rng.choice(cands) if cands else None


def kind(rng, p_dense=0.5, p_group=0.25):
    r = rng.random()
    return "dense" if r < p_dense else "grouped" if r < p_dense + p_group else "depthwise"


def same(f, d=1):
    """PyTorch padding='same': total dilation*(f-1), the odd element high."""
    t = d * (f - 1)
    return (t // 2, t - t // 2)


def tf_same(n, f, s, d=1):
    eff = d * (f - 1) + 1
    t = max((-(-n // s) - 1) * s + eff - n, 0)
    return (t // 2, t - t // 2)


def pad_for(rng, n, f, s, d, p_same=0.8):
    return same(f, d) if rng.random() < p_same else (0, 0)


def conv_kind(rng, c_lo, c_hi, ratio=(0.5, 2.0), p_dense=0.5, p_group=0.25):
    """(C, K, G) of a random group kind; K near C (ratio) or equal for depthwise."""
    kd = kind(rng, p_dense, p_group)
    c = chans(rng, c_lo, c_hi)
    k = c if kd == "depthwise" else max(1, int(c * rng.uniform(*ratio)))
    if kd != "depthwise" and rng.random() < 0.6:
        k = chans(rng, c_lo, c_hi)
    g = groups(rng, c, k, kd)
    return (c, k, g) if g else None


def hw(rng, lo, hi, common=(7, 14, 28, 56, 112, 224)):
    opts = [x for x in common if lo <= x <= hi]
    return rng.choice(opts) if opts and rng.random() < 0.5 else log_int(rng, lo, hi)


# --- strata: each returns a Conv (or None to redraw) ---

def dilated(rng):
    ckg = conv_kind(rng, 16, 512)
    if not ckg:
        return None
    c, k, g = ckg
    r = rng.random()
    f = rng.choice([3, 3, 5, 7])
    if r < 0.75:
        h = hw(rng, 14, 128)
        w = h if rng.random() < 0.8 else hw(rng, 14, 128)
        d = [rng.choice([2, 3, 4])] * 2
        if rng.random() < 0.2:
            d[1] = rng.choice([2, 3, 4])
        return Conv(2, batch(rng), c, k, g, [h, w], [f, f], [1, 1], [same(f, d[0]), same(f, d[1])], d)
    if r < 0.9:
        t, d = log_int(rng, 256, 16384), rng.choice([2, 3, 4])
        return Conv(1, batch(rng), c, k, g, [t], [f], [1], [same(f, d)], [d])
    n3, d = hw(rng, 8, 32, (8, 16, 32)), rng.choice([2, 3])
    return Conv(3, batch(rng, 8), c, k, g, [n3, n3, n3], [3, 3, 3], [1, 1, 1], [same(3, d)] * 3, [d, d, d])


def asym_pad(rng):
    ckg = conv_kind(rng, 8, 512)
    if not ckg:
        return None
    c, k, g = ckg
    f = rng.choice([1, 2, 3, 3, 4, 5, 7])
    if rng.random() < 0.75:
        h = rng.choice([14, 28, 56, 64, 96, 112, 128, 224]) if rng.random() < 0.6 else log_int(rng, 8, 160)
        w = h if rng.random() < 0.7 else log_int(rng, 8, 160)
        s = rng.choice([1, 2, 2])
        if rng.random() < 0.6:
            p = [tf_same(h, f, s), tf_same(w, f, s)]
        else:
            p = [(rng.randint(0, 3), rng.randint(0, 3)) for _ in range(2)]
        if all(lo == hi for lo, hi in p):
            p[0] = (p[0][0], p[0][1] + 1)
        return Conv(2, batch(rng), c, k, g, [h, w], [f, f], [s, s], p)
    t, s = log_int(rng, 64, 8192), rng.choice([1, 2])
    lo = rng.randint(0, 4)
    hi = rng.choice([v for v in range(0, 5) if v != lo])
    return Conv(1, batch(rng), c, k, g, [t], [f], [s], [(lo, hi)])


def same_even(rng):
    ckg = conv_kind(rng, 8, 512)
    if not ckg:
        return None
    c, k, g = ckg
    f = rng.choice([2, 2, 4, 6])
    if rng.random() < 0.7:
        h = hw(rng, 8, 128)
        w = h if rng.random() < 0.8 else hw(rng, 8, 128)
        fx = f if rng.random() < 0.8 else rng.choice([2, 4, 6])
        return Conv(2, batch(rng), c, k, g, [h, w], [f, fx], [1, 1], [same(f), same(fx)])
    t = log_int(rng, 64, 16384)
    return Conv(1, batch(rng), c, k, g, [t], [f], [1], [same(f)])


def large_filter(rng):
    if rng.random() < 0.7:  # large-kernel depthwise
        c = chans(rng, 32, 1024)
        f = rng.choice([9, 11, 13, 15, 17, 21, 27, 31])
        h = rng.choice([7, 14, 28, 56]) if rng.random() < 0.7 else log_int(rng, 7, 64)
        return Conv(2, batch(rng), c, c, c, [h, h], [f, f], [1, 1], [same(f)] * 2)
    f, s = rng.choice([(7, 2), (9, 2), (11, 4), (7, 4), (8, 4)])
    c, k = rng.choice([1, 3, 3, 4]), chans(rng, 16, 128)
    h = rng.choice([112, 128, 160, 192, 224, 256])
    pad = (f - s) // 2 if rng.random() < 0.7 else 0
    return Conv(2, batch(rng, 64), c, k, 1, [h, h], [f, f], [s, s], [pad, pad])


def rect_filter(rng):
    ckg = conv_kind(rng, 16, 768, p_dense=0.7, p_group=0.15)
    if not ckg:
        return None
    c, k, g = ckg
    n = rng.choice([3, 5, 7, 7, 9, 15])
    fy, fx = (1, n) if rng.random() < 0.5 else (n, 1)
    h = hw(rng, 7, 96, (7, 8, 12, 17, 35, 73))
    w = h if rng.random() < 0.7 else hw(rng, 7, 96)
    s = 1 if rng.random() < 0.85 else 2
    p = [same(fy), same(fx)] if rng.random() < 0.85 else [0, 0]
    return Conv(2, batch(rng), c, k, g, [h, w], [fy, fx], [s, s], p)


def long_1d(rng):
    t = log_int(rng, 16000, 262144)
    r = rng.random()
    if r < 0.3:  # front end on the raw signal
        c, k = rng.choice([1, 1, 2]), chans(rng, 16, 512)
        f, s = rng.choice([(251, 1), (129, 1), (10, 5), (7, 1), (80, 4), (400, 160), (1024, 256)])
        return Conv(1, batch(rng, 32), c, k, 1, [t], [f], [s], [(f - 1) // 2 if s == 1 else 0])
    ckg = conv_kind(rng, 8, 256)
    if not ckg:
        return None
    c, k, g = ckg
    f = rng.choice([1, 2, 3, 5, 7, 15, 31])
    s = rng.choice([1, 1, 1, 2, 4, 5])
    d = 1 if f == 1 or rng.random() < 0.6 else rng.choice([2, 3, 4])
    p = (d * (f - 1), 0) if rng.random() < 0.4 else same(f, d)
    return Conv(1, batch(rng, 32), c, k, g, [t], [f], [s], [p], [d])


def video_3d(rng):
    ckg = conv_kind(rng, 3, 512, p_dense=0.55, p_group=0.15)
    if not ckg:
        return None
    c, k, g = ckg
    d = rng.choice([8, 16, 16, 32]) if rng.random() < 0.7 else log_int(rng, 4, 32)
    h = rng.choice([56, 112, 160, 224]) if rng.random() < 0.6 else log_int(rng, 7, 224)
    f = rng.choice([(3, 3, 3), (1, 3, 3), (3, 1, 1), (1, 7, 7), (5, 7, 7), (1, 1, 1)])
    s = rng.choice([(1, 1, 1), (1, 1, 1), (1, 2, 2), (2, 2, 2)])
    p = [same(x) for x in f]
    return Conv(3, batch(rng, 16), c, k, g, [d, h, h], list(f), list(s), p)


def medical_3d(rng):
    c = rng.choice([1, 1, 2, 4]) if rng.random() < 0.3 else chans(rng, 8, 64)
    k = chans(rng, 4, 128)
    n3 = rng.choice([32, 48, 64, 96, 128, 160]) if rng.random() < 0.7 else log_int(rng, 24, 160)
    dims = [n3, n3, n3] if rng.random() < 0.7 else [log_int(rng, 16, 96), n3, n3]
    f, s = rng.choice([((3, 3, 3), 1), ((3, 3, 3), 1), ((1, 1, 1), 1), ((5, 5, 5), 1), ((2, 2, 2), 2),
                       ((3, 3, 3), 2)])
    p = [same(x) if s == 1 else (0, 0) if x == 2 else (1, 1) for x in f]
    return Conv(3, rng.choice([1, 1, 2, 4]), c, k, 1, dims, list(f), [s] * 3, p)


def depth_mult(rng):
    c = chans(rng, 8, 512)
    m = rng.randint(2, 6)
    f = rng.choice([3, 3, 5, 7])
    s = rng.choice([1, 1, 2])
    r = rng.random()
    if r < 0.6:
        h = hw(rng, 7, 112)
        return Conv(2, batch(rng), c, c * m, c, [h, h], [f, f], [s, s], [same(f)] * 2)
    if r < 0.85:
        t = log_int(rng, 128, 16384)
        return Conv(1, batch(rng), c, c * m, c, [t], [f], [s], [same(f)])
    d, h = rng.choice([4, 8, 16]), rng.choice([14, 28, 56])
    return Conv(3, batch(rng, 16), c, c * m, c, [d, h, h], [3, 3, 3], [1, s, s], [same(3)] * 3)


def tiny_channels(rng):
    c = rng.randint(1, 8)
    k = rng.randint(1, 16) if rng.random() < 0.4 else chans(rng, 8, 64)
    r = rng.random()
    if r < 0.6:
        h = hw(rng, 16, 256, (28, 32, 64, 128, 224, 256))
        f = rng.choice([1, 3, 3, 5, 7])
        s = rng.choice([1, 1, 2])
        return Conv(2, batch(rng), c, k, 1, [h, h], [f, f], [s, s], [same(f)] * 2)
    if r < 0.85:
        t, f = log_int(rng, 256, 65536), rng.choice([3, 5, 7, 15])
        return Conv(1, batch(rng, 64), c, k, 1, [t], [f], [1], [same(f)])
    n3 = rng.choice([16, 32, 64])
    return Conv(3, batch(rng, 8), c, k, 1, [n3, n3, n3], [3, 3, 3], [1, 1, 1], [1, 1, 1])


def big_batch(rng):
    ckg = conv_kind(rng, 16, 512)
    if not ckg:
        return None
    c, k, g = ckg
    h = rng.choice([7, 8, 14, 16, 28, 32]) if rng.random() < 0.7 else log_int(rng, 4, 32)
    f = rng.choice([1, 3, 3, 5])
    n = rng.choice([128, 192, 256]) if rng.random() < 0.6 else log_int(rng, 128, 256)
    return Conv(2, n, c, k, g, [h, h], [f, f], [1, 1], [same(f)] * 2)


STRATA = [("dilated", dilated), ("asym_pad", asym_pad), ("same_even", same_even),
          ("large_filter", large_filter), ("rect_filter", rect_filter), ("long_1d", long_1d),
          ("video_3d", video_3d), ("medical_3d", medical_3d), ("depth_mult", depth_mult),
          ("tiny_channels", tiny_channels), ("big_batch", big_batch)]


def accept(conv):
    return conv.problem_error() is None and MIN_FLOPS <= conv.flops() <= MAX_FLOPS


def sample(target, seed, banned_shapes):
    rng = random.Random(seed)
    rows, seen = [], set()
    for i, (name, draw) in enumerate(STRATA):
        quota = target // len(STRATA) + (1 if i < target % len(STRATA) else 0)
        got = 0
        for _ in range(50000):
            if got == quota:
                break
            conv = draw(rng)
            if conv is None or not accept(conv) or conv.key() in seen or conv.shape_key() in banned_shapes:
                continue
            seen.add(conv.key())
            rows.append((conv, "odd " + name))
            got += 1
        if got < quota:
            raise RuntimeError("stratum %s: only %d of %d problems found" % (name, got, quota))
    return rows


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", default=os.path.normpath(os.path.join(here, "..")))
    args = ap.parse_args()

    name, seed, target = TRAIN
    train = sample(target, seed, set())
    comments = ["%s: odd shapes for training, made by problems/tools/make_odd.py (seed %d): %d problems, %d strata"
                % (name, seed, len(train), len(STRATA)),
                "source = 'odd' + the stratum; FLOPs in [1e5, 1e11]; holdout_odd.csv (another seed) is never trained on"]
    path = write_csv(os.path.join(args.out_dir, name), train, comments)
    print("wrote %s: %d rows" % (path, len(train)), file=sys.stderr)

    banned = {c.shape_key() for c, _ in train}
    for s in TRAINING_SETS:
        banned |= {c.shape_key() for c, _ in read_csv(find_set(args.out_dir, s))}
    name, seed, target = HOLDOUT
    held = sample(target, seed, banned)
    comments = ["%s: odd shapes held out, made by problems/tools/make_odd.py (seed %d): %d problems, %d strata"
                % (name, seed, len(held), len(STRATA)),
                "no layer shape (batch excluded) of train_odd, train_real or the grids; holdout_odd is NEVER trained on"]
    path = write_csv(os.path.join(args.out_dir, name), held, comments)
    print("wrote %s: %d rows" % (path, len(held)), file=sys.stderr)


if __name__ == "__main__":
    main()
