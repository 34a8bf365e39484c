#!/usr/bin/env python3
"""Problem lists and kernel pairs for `gconv bench` (bench/device_call.sh candrows).

  sweep_problems.py < SWEEP.csv                     the distinct problems of a sweep, as a problem CSV
  sweep_problems.py --expand-directions < P.csv     every problem of a problem CSV in fwd, bwd_data and bwd_weight
  sweep_problems.py --pairs < SELECT.jsonl          `gconv select --json --top K` output -> kernel,spec pairs
                                                    (every ranked kernel, fallbacks to the naive kernel left out)
Standard library only: it runs on the GPU machine's Python too.
"""
import csv
import json
import sys

COLUMNS = ("direction,dtype,ndim,n,c,k,g,d,h,w,z,y,x,stride_d,stride_h,stride_w,pad_d_lo,pad_d_hi,"
           "pad_h_lo,pad_h_hi,pad_w_lo,pad_w_hi,dil_d,dil_h,dil_w,spec,source").split(",")
DIRECTIONS = ("fwd", "bwd_data", "bwd_weight")


def rows(stream):
    """Dict rows of a CSV whose comment lines start with '#'."""
    return csv.DictReader(line for line in stream if not line.startswith("#"))


def respec(spec, direction):
    """The spec of the same problem in another direction (the direction is its prefix)."""
    for d in sorted(DIRECTIONS, key=len, reverse=True):
        if spec.startswith(d + "_"):
            return direction + spec[len(d):]
    raise ValueError(f"spec without a direction prefix: {spec}")


def main(argv):
    out = csv.writer(sys.stdout, lineterminator="\n")
    if "--pairs" in argv:
        out.writerow(["kernel", "spec"])
        seen = set()
        for line in sys.stdin:
            if not line.strip():
                continue
            j = json.loads(line)
            for r in j.get("ranked", []):
                key = (r["kernel"], j["spec"])
                if r["kernel"].startswith("naive_") or key in seen:
                    continue
                seen.add(key)
                out.writerow(key)
        return 0
    out.writerow(COLUMNS)
    seen = set()
    for r in rows(sys.stdin):
        directions = DIRECTIONS if "--expand-directions" in argv else (r["direction"],)
        for d in directions:
            spec = respec(r["spec"], d)
            if spec in seen:
                continue
            seen.add(spec)
            vals = dict(r, direction=d, spec=spec)
            out.writerow([vals.get(c, "") for c in COLUMNS])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
