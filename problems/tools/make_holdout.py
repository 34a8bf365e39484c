#!/usr/bin/env python3
"""Splits the real-network problem sets into train_real.csv and
validation_holdout.csv, holding out whole source models.

Real-network sets: torchvision_2d, torchvision_3d, audio_1d (each .csv or
.csv.gz). A row's models are its source column split on ';'.

Selection, per input set so that 2D, 3D and 1D are all represented: the set's
models are shuffled with a fixed seed and taken in that order while the set's
held-out share stays at most MAX_SHARE; it stops once the share reaches
TARGET_SHARE. A row goes to the holdout when ANY of its models is held out
(a shape shared between a held-out model and a training model would otherwise
leak into training), so a model's share is counted with its shared shapes.
train_real is every other row. The two files never share a problem (spec).

validation_holdout is for validating performance models only: never train on
it. The held-out models are listed in its header comment and in README.md.

Usage: python3 problems/tools/make_holdout.py [--dir problems] [--seed 15]
"""

import argparse
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from convrow import find_set, read_csv, write_csv  # noqa: E402

REAL_SETS = ["torchvision_2d", "torchvision_3d", "audio_1d"]
TARGET_SHARE, MAX_SHARE = 0.13, 0.18


def models_of(source):
    return set(s for s in source.split(";") if s)


def pick_holdout(rows, rng):
    """Held-out model names for one set's [(Conv, source)]."""
    models = sorted(set().union(*(models_of(s) for _, s in rows)))
    rng.shuffle(models)
    held = set()
    share = 0.0
    for m in models:
        if share >= TARGET_SHARE:
            break
        trial = held | {m}
        trial_share = sum(1 for _, s in rows if models_of(s) & trial) / len(rows)
        if trial_share <= MAX_SHARE:
            held, share = trial, trial_share
    return held, share


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=os.path.normpath(os.path.join(here, "..")))
    ap.add_argument("--seed", type=int, default=15)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    train, holdout, held_all = [], [], []
    for name in REAL_SETS:
        rows = read_csv(find_set(args.dir, name))
        held, share = pick_holdout(rows, rng)
        held_all += sorted(held)
        for conv, src in rows:
            (holdout if models_of(src) & held else train).append((conv, src))
        print("%-16s %5d rows, held out %4.1f%%: %s" % (name, len(rows), 100 * share, " ".join(sorted(held))),
              file=sys.stderr)
    total = len(train) + len(holdout)
    share = len(holdout) / total
    assert not {c.key() for c, _ in train} & {c.key() for c, _ in holdout}
    common = [
        "real-network shapes (%s) split by source model, seed %d: %d of %d rows (%.1f%%) held out" % (
            ", ".join(REAL_SETS), args.seed, len(holdout), total, 100 * share),
        "held-out models: " + " ".join(held_all),
        "made by problems/tools/make_holdout.py; validation_holdout is NEVER trained on",
    ]
    for fname, rows, what in (("validation_holdout.csv", holdout, "the held-out models' shapes"),
                              ("train_real.csv", train, "every real shape minus the holdout")):
        path = write_csv(os.path.join(args.dir, fname), rows, [fname + ": " + what] + common)
        print("wrote %s: %d rows" % (path, len(rows)), file=sys.stderr)


if __name__ == "__main__":
    main()
