#!/usr/bin/env python3
"""Re-measured rows (bench/retime_pairs.py, `device_call.sh retime`) put on the
time scale of the stored sweeps, for training and evaluation (issue 19).

  retime_merge.py --new RT.csv[.zst] [--new ...] --stored SWEEP.csv[.zst] [--stored ...] \
      --out OUT.csv [--only-specs FILE | --exclude-specs FILE] [--gpu 'NVIDIA H200'] [--min-anchors 1] \
      [--changed s13|episep|s15|s15b|s16|s16b|s16c|s16d|s17] [--anchors-out ANCHORS.csv]

Per problem, the anchors are the kernels measured in both the new rows and
the stored sweeps that did NOT change (in any of retime_pairs.CHANGED's
lists). Their median ratio stored / new is the problem's scale; every new
row of a kernel of the --changed list is written with latency_ms and min_ms multiplied by it (tflops and
gbps divided) and its gpu column set to --gpu, so that the stored rows of the
same problem and the new ones rank on one scale. It corrects for the other
GPU (new rows measured on an H100 for an H200 model: measured median scale
1.03), for run-to-run drift (the same kind of GPU: 1.04) and for harness
changes since the stored sweep; what it cannot correct is a kernel class
whose ratio between the two GPUs differs from the anchors' (the classes'
own ratios were checked to agree between an H100 and an H200 run within
~3%: notes/runs/2026-11-26-s13-retime). Problems with fewer than
--min-anchors anchors are left out. Anchor rows themselves are not written
(the stored rows stay the measurement of those kernels).

Prints per direction the number of problems and the scale quantiles.
Standard library only (zstd for .zst through the zstd command).
"""
import argparse
import csv
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from retime_pairs import CHANGED, unchanged  # noqa: E402
from sweep_io import read_rows  # noqa: E402


def spec_set(path):
    with open(path, newline="") as f:
        return {r["spec"] for r in csv.DictReader(l for l in f if not l.startswith("#"))}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--new", action="append", required=True)
    ap.add_argument("--stored", action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only-specs", help="problem CSV: keep only its problems")
    ap.add_argument("--exclude-specs", help="problem CSV: leave its problems out")
    ap.add_argument("--gpu", default="NVIDIA H200")
    ap.add_argument("--min-anchors", type=int, default=1)
    ap.add_argument("--changed", choices=sorted(CHANGED), default="s13",
                    help="the kernels whose rows are written (retime_pairs.py --changed); anchors are never among "
                         "any list's")
    ap.add_argument("--anchors-out", help="CSV of every anchor: spec, kernel, gpu, new_ms, stored_ms (with the "
                    "written rows, whose times are new_ms x the problem's scale, it keeps the raw measurements)")
    a = ap.parse_args(argv)
    # Which new rows are written: s15 re-measures every wgmma candidate not
    # already measured with today's kernels (each of its wgmma rows is
    # current); the other lists name their kernels (per problem where given).
    if a.changed == "s15":
        def is_written(k, s):
            return k.startswith("wgmma_")
    else:
        is_written = CHANGED[a.changed]

    only = spec_set(a.only_specs) if a.only_specs else None
    exclude = spec_set(a.exclude_specs) if a.exclude_specs else set()
    new = []
    fields = None
    for path in a.new:
        rows = read_rows(path)
        fields = fields or (list(rows[0].keys()) if rows else None)
        for r in rows:
            if r["status"] != "ok" or r.get("provider", "gconv") != "gconv":
                continue
            if (only is not None and r["spec"] not in only) or r["spec"] in exclude:
                continue
            new.append(r)
    specs = {r["spec"] for r in new}
    stored = defaultdict(dict)
    for path in a.stored:
        for r in read_rows(path):
            if r["spec"] in specs and r["status"] == "ok" and r.get("provider", "gconv") == "gconv":
                stored[r["spec"]].setdefault(r["kernel"], float(r["latency_ms"]))

    ratios = defaultdict(list)
    anchors = []
    for r in new:
        k, s = r["kernel"], r["spec"]
        if unchanged(k) and k in stored[s]:
            ratios[s].append(stored[s][k] / float(r["latency_ms"]))
            anchors.append((s, k, r["gpu"], r["latency_ms"], f"{stored[s][k]:.6g}"))
    if a.anchors_out:
        with open(a.anchors_out, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["spec", "kernel", "gpu", "new_ms", "stored_ms"])
            w.writerows(anchors)
    scale = {s: statistics.median(v) for s, v in ratios.items() if len(v) >= a.min_anchors}

    written = 0
    seen = set()
    by_dir = defaultdict(list)
    for s, v in scale.items():
        by_dir[s.split("_bf16_")[0].split("_fp16_")[0].split("_fp32_")[0]].append(v)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in new:
            k, s = r["kernel"], r["spec"]
            if not is_written(k, s) or s not in scale or (k, s) in seen:
                continue
            seen.add((k, s))
            m = scale[s]
            r = dict(r)
            for col in ("latency_ms", "min_ms"):
                if r.get(col):
                    r[col] = f"{float(r[col]) * m:.6g}"
            for col in ("tflops", "gbps"):
                if r.get(col):
                    r[col] = f"{float(r[col]) / m:.6g}"
            r["gpu"] = a.gpu
            w.writerow(r)
            written += 1
    dropped = len(specs) - len(scale)
    print(f"retime_merge: {written} rows of {len(scale)} problems written ({dropped} problems without anchors left out)",
          file=sys.stderr)
    for d in sorted(by_dir):
        q = statistics.quantiles(by_dir[d], n=10) if len(by_dir[d]) > 1 else by_dir[d] * 9
        print(f"  {d:11s} {len(by_dir[d]):5d} problems, scale stored/new p10 {q[0]:.3f} median "
              f"{statistics.median(by_dir[d]):.3f} p90 {q[-1]:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
