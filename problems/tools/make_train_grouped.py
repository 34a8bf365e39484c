#!/usr/bin/env python3
"""Writes problems/train_grouped.csv: training shapes with small groups of
equal width (C/G = K/G = 2, 4, 8, 16: ResNeXt, RegNet, grouped 1x1 and 3D
video blocks), which the other training sets hold only 75 problems of.

Why: the direct family's grouped entries (gconv_g2/g4/g8, Cg = Kg compiled
in) changed which family is fastest on these layers (C/G = 4: direct 3-4x
ahead of the implicit GEMM), and with so few training problems the selector
could not tell where. Seeded (4141), 150 shapes, forward bf16 (directions
and dtypes are a harness option).

A draw is rejected when its layer shape (batch excluded) is in a holdout
set (validation_holdout, holdout_odd, holdout_nets, small_classes) or in the
public side-by-side set (cudnn_public_h200.jsonl): the sets reported on stay
unseen. Kept only when valid, every tensor within 2^31-1 elements, FLOPs in
[1e6, 2e11], and its spec new.

Usage: python3 problems/tools/make_train_grouped.py [--out-dir problems]
"""

import argparse
import json
import math
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from convrow import Conv, find_set, read_csv, write_csv  # noqa: E402

SEED, COUNT = 4141, 150
MIN_FLOPS, MAX_FLOPS = 1e6, 2e11
HOLDOUT_SETS = ["validation_holdout", "holdout_odd", "holdout_nets", "small_classes"]
WIDTHS = [(2, 0.15), (4, 0.35), (8, 0.35), (16, 0.15)]


def pick(rng, weighted):
    r, acc = rng.random(), 0.0
    for v, w in weighted:
        acc += w
        if r < acc:
            return v
    return weighted[-1][0]


def shape_of(conv):
    """The layer shape with the batch and direction left out (as held() stores it)."""
    return conv.with_n(1).spec()


def held(problems_dir):
    keys = set()
    for name in HOLDOUT_SETS:
        for conv, _ in read_csv(find_set(problems_dir, name)):
            keys.add(shape_of(conv))
    with open(os.path.join(problems_dir, "cudnn_public_h200.jsonl")) as f:
        for line in f:
            r = json.loads(line) if line.strip() else {}
            if "about" in r or not r:
                continue
            nd = r["nd"]
            conv = Conv(nd, r["N"], r["C"], r["K"], r.get("G", 1), r["spatial"], r["kernel"], r["stride"],
                        r["pad"], r["dil"])
            keys.add(shape_of(conv))
    return keys


def draw(rng):
    """One grouped convolution: (Conv, stratum)."""
    cg = pick(rng, WIDTHS)
    g = rng.choice([g for g in (4, 8, 13, 16, 24, 26, 32, 48, 55, 64, 96, 128) if 16 <= g * cg <= 2048])
    c = g * cg
    n = rng.choice([1, 2, 4, 8, 16, 24, 32, 48, 64, 128])
    r = rng.random()
    if r < 0.1:  # 1D
        w = rng.choice([64, 128, 256, 1024, 4096])
        f = rng.choice([3, 5, 7])
        s = rng.choice([1, 1, 2])
        return Conv(1, n, c, c, g, [w], [f], [s], [f // 2], [1]), "grouped_1d"
    if r < 0.22:  # 3D video blocks
        d = rng.choice([4, 8, 16])
        hw = rng.choice([7, 14, 28, 56])
        s = rng.choice([1, 1, 2])
        f = rng.choice([(3, 3, 3), (1, 3, 3), (3, 1, 1)])
        return Conv(3, n, c, c, g, [d, hw, hw], list(f), [1 if f[0] == 1 else s, s, s],
                    [x // 2 for x in f], [1, 1, 1]), "grouped_3d"
    hw = rng.choice([7, 14, 14, 28, 28, 56, 56, 112])
    if rng.random() < 0.6:
        hw += rng.choice([0, 0, 0, 1, 3])  # odd sizes too
    f = pick(rng, [(3, 0.75), (1, 0.1), (5, 0.1), (7, 0.05)])
    s = 2 if rng.random() < 0.3 else 1
    dil = 2 if f == 3 and rng.random() < 0.1 else 1
    return Conv(2, n, c, c, g, [hw, hw], [f, f], [s, s], [dil * (f // 2)] * 2, [dil, dil]), "grouped_2d"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", default=os.path.normpath(os.path.join(here, "..")))
    a = ap.parse_args()
    rng = random.Random(SEED)
    skip = held(a.out_dir)
    rows, seen, rejected = [], set(), 0
    while len(rows) < COUNT:
        conv, stratum = draw(rng)
        bad = (conv.problem_error() is not None or not MIN_FLOPS <= conv.flops() <= MAX_FLOPS or
               conv.spec() in seen)
        if bad or shape_of(conv) in skip:
            rejected += 1
            continue
        seen.add(conv.spec())
        rows.append((conv, stratum))
    path = write_csv(os.path.join(a.out_dir, "train_grouped.csv"), rows, comments=[
        f"train_grouped.csv: grouped shapes with C/G = K/G in 2..16 for training, made by "
        f"problems/tools/make_train_grouped.py (seed {SEED}): {COUNT} problems",
        "no layer shape of a holdout set or of cudnn_public_h200.jsonl; every row fwd bf16",
    ])
    print(f"{path}: {len(rows)} problems ({rejected} draws rejected)")


if __name__ == "__main__":
    main()
