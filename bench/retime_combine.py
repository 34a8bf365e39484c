#!/usr/bin/env python3
"""One re-measured training file from the previous one and newer re-timed rows
(bench/retime_merge.py outputs), for `gconv train --fresh` (issue 19).

  retime_combine.py --base OLD.csv[.zst] --rows NEW.csv[.zst] [--rows ...] \
      [--drop-stale s15b ...] --out OUT.csv

Every row of --rows is written; a row of --base is written unless a --rows
file holds the same (kernel, spec) pair (the newer time replaces it) or its
kernel is on a --drop-stale list of retime_pairs.CHANGED for its problem and
was not re-timed (its time predates the change: a stale row would teach the
model the old kernel). The output keeps --base's columns; rows of another
column set are refused. Prints what was kept, replaced, dropped and added.

Standard library only (zstd for .zst through the zstd command).
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from retime_pairs import CHANGED  # noqa: E402
from sweep_io import read_rows  # noqa: E402


def combine(base, newer, stale_lists):
    """(rows, counts): the combined rows in base order, then the newer ones."""
    fresh = {}
    for rows in newer:
        for r in rows:
            fresh[(r["kernel"], r["spec"])] = r
    out, replaced, dropped = [], 0, 0
    for r in base:
        key = (r["kernel"], r["spec"])
        if key in fresh:
            replaced += 1
        elif any(CHANGED[name](r["kernel"], r["spec"]) for name in stale_lists):
            dropped += 1
        else:
            out.append(r)
    kept = len(out)
    out += list(fresh.values())
    return out, {"kept": kept, "replaced": replaced, "dropped": dropped, "added": len(fresh)}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True)
    ap.add_argument("--rows", action="append", required=True)
    ap.add_argument("--drop-stale", action="append", default=[], choices=sorted(CHANGED),
                    help="a retime_pairs.CHANGED list whose base rows that were not re-timed are dropped")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    base = read_rows(a.base)
    if not base:
        sys.exit(f"retime_combine: {a.base} has no rows")
    fields = list(base[0].keys())
    newer = []
    for path in a.rows:
        rows = read_rows(path)
        if rows and list(rows[0].keys()) != fields:
            sys.exit(f"retime_combine: {path} has other columns than {a.base}")
        newer.append(rows)
    out, n = combine(base, newer, a.drop_stale)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(out)
    print(f"retime_combine: {n['kept']} base rows kept, {n['replaced']} replaced, {n['dropped']} stale dropped, "
          f"{n['added']} newer rows; {len(out)} rows", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
