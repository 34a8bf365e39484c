#!/usr/bin/env python3
"""Writes train_sweep.csv: every training shape (train_real and the three
grids) in one shuffled order, for the training sweeps of the learned selector.

A sweep over it can stop at any point (a device call has a time limit, and
`gconv bench` resumes): the order is a seeded interleave that keeps any prefix
a representative sample, with real-network rows and grid rows in proportion
(every fifth row from the grids until they run out) and each source shuffled.
validation_holdout is never read here; the script checks that no holdout spec
slipped in through the inputs.

Usage: python3 problems/tools/make_train_sweep.py [--dir problems] [--seed 7]
"""

import argparse
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from convrow import find_set, read_csv, write_csv  # noqa: E402

GRIDS = ["grid_2d", "grid_3d", "grid_1d"]
GRID_EVERY = 5  # one grid row per GRID_EVERY rows of the prefix


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    real = read_csv(find_set(a.dir, "train_real"))
    grids = []
    for g in GRIDS:
        grids += read_csv(find_set(a.dir, g))
    holdout = {r[0].spec() for r in read_csv(find_set(a.dir, "validation_holdout"))}
    rng.shuffle(real)
    rng.shuffle(grids)
    out, seen = [], set()
    ri = gi = 0
    while ri < len(real) or gi < len(grids):
        take_grid = gi < len(grids) and (ri >= len(real) or len(out) % GRID_EVERY == GRID_EVERY - 1)
        row = grids[gi] if take_grid else real[ri]
        if take_grid:
            gi += 1
        else:
            ri += 1
        spec = row[0].spec()
        if spec in holdout:
            sys.exit(f"make_train_sweep: holdout problem {spec} in a training input")
        if spec in seen:
            continue
        seen.add(spec)
        out.append(row)
    header = [
        f"train_sweep.csv: train_real + {' + '.join(GRIDS)} ({len(out)} unique shapes), seeded interleave (seed {a.seed})",
        "made by problems/tools/make_train_sweep.py; any prefix is a representative sample (1 in "
        f"{GRID_EVERY} rows from the grids); never contains validation_holdout",
    ]
    write_csv(os.path.join(a.dir, "train_sweep.csv"), out, header)
    print(f"train_sweep.csv: {len(out)} rows")


if __name__ == "__main__":
    main()
