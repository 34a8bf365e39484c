#!/usr/bin/env python3
"""Kernel pairs to re-measure after kernels changed under stored sweeps (issue 19).

  retime_pairs.py --select SELECT.jsonl --sweep SWEEP.csv[.zst] [--sweep ...] [--changed s13|episep|s15|s15b|s16|s16b|s16c|s16d|s17|s20|all] \
      [--measured FRESH.csv[.zst] ...] \
      [--top 48] [--anchors 3] [--limit N] [--seed S] --pairs OUT_PAIRS.csv --problems OUT_PROBLEMS.csv

SELECT: `gconv select --policy analytic --top 1000 --json` over the problems
(every applicable kernel in analytic order). For each problem the kernels the
learned model would score (heuristic/candidates.hpp: the analytic top --top
plus the first kernel of every class the top lacks) are kept when their
measured time changed since the stored sweeps (`changed` below); beside them
the --anchors fastest kernels of the stored sweeps that did NOT change, so
that the new rows can be compared with (and, measured on another GPU or on
another day, scaled to) the stored rows of the same problem
(bench/retime_merge.py). --limit keeps a seeded random subset of problems,
balanced over directions; the problems are written in a seeded random order.

Standard library only (zstd for .zst through the zstd command).
"""
import argparse
import csv
import json
import random
import re
import sys
from collections import defaultdict

from sweep_io import read_rows

TILE = re.compile(r"_m(\d+)n(\d+)k\d+_")
SPLIT = re.compile(r"_sk(\d+)([psc]?)_")
VEC = re.compile(r"_v(\d+)(?:_|$)")
WINDOW = re.compile(r"_w\d+s\d+$")


def vec_index(v):
    return {1: 0, 2: 1, 4: 2, 8: 3}.get(v, 4)


def kernel_class(name):
    """heuristic/candidates.cpp's kernel_class, from the kernel's name."""
    fam = name.split("_", 1)[0]
    if fam == "direct":
        if WINDOW.search(name):
            v = VEC.search(name)
            vi = vec_index(int(v.group(1)) if v else 0)
            return 72 if vi == 3 else 74 + vi
        return 73 if name.endswith("_det") else 0
    if fam == "tinyc":
        return 71
    m = TILE.search(name)
    large = 1 if m and int(m.group(1)) * int(m.group(2)) >= 128 * 128 else 0
    v = VEC.search(name)
    vi = vec_index(int(v.group(1)) if v else 0)
    s = SPLIT.search(name)
    mode = s.group(2) if s and int(s.group(1)) > 1 else ""
    if mode == "c":
        return 61 + large * 5 + vi
    split = {"": 0, "p": 1, "s": 2}[mode]
    first = 31 if fam == "wgmma" else 1
    return first + (split * 2 + large) * 5 + vi


def changed(name, spec=""):
    """Kernels whose times moved since the stored training sweeps: every wgmma
    kernel (persistent grid, separate epilogue staging, one-launch serial
    split-K, deep splits), igemm serial split-K (one launch), the direct
    family's atomic bwd_weight tile kernels (one launch, 512-block target)
    and its register-window kernels (bwd rows were never swept)."""
    fam = name.split("_", 1)[0]
    if fam == "wgmma":
        return True
    if fam == "igemm":
        s = SPLIT.search(name)
        return bool(s and s.group(2) == "s" and int(s.group(1)) > 1)
    if fam == "direct":
        if WINDOW.search(name):
            return True
        return name.startswith("direct_bwd_weight_") and not name.endswith("_det")
    return False


def changed_episep(name, spec=""):
    """Kernels whose times moved in the fourteenth session: the wgmma kernels
    with a staging area of their own (unsplit tiles of at least 128 x 128
    outputs: m128n256 / m256n128 with 4 stages and m128n128 with 6 now stage
    in passes and run persistent, and all of them store through TMA)."""
    if not name.startswith("wgmma_") or SPLIT.search(name).group(1) != "1":
        return False
    t = TILE.search(name)
    return int(t.group(1)) * int(t.group(2)) >= 128 * 128


def pointwise(spec):
    """Every filter extent 1, stride 1, no padding (wgmma/tma.hpp flat_ok)."""
    return bool(re.search(r"_(?:z1)?y1x1_s1_p0_|_x1_s1_p0_", spec))


def changed_s15(name, spec=""):
    """Kernels whose times moved in the fifteenth session: wgmma kernels of
    tile_n 256 (one m64n256 instruction per K step) and the TMA producers on
    pointwise problems (the im2col operand loaded through the tiled mode)."""
    if not name.startswith("wgmma_"):
        return False
    t = TILE.search(name)
    return int(t.group(2)) == 256 or (name.endswith("_tma") and pointwise(spec))


CKG = re.compile(r"_n\d+c(\d+)k(\d+)g(\d+)_")


def changed_s15b(name, spec=""):
    """TMA producers that load several 64-channel blocks in one box since the
    fifteenth session's retime (wgmma/tma.hpp dy_blocks_ok, x_blocks_ok,
    w_blocks_ok): bwd_weight when tile_m > 64 divides K/G or, pointwise,
    tile_n > 64 divides C/G; bwd_data when tile_n > 64 divides C/G."""
    if not name.startswith("wgmma_") or not name.endswith("_tma"):
        return False
    m, ckg = TILE.search(name), CKG.search(spec)
    if not ckg:
        return False
    tm, tn = int(m.group(1)), int(m.group(2))
    c, k, g = (int(x) for x in ckg.groups())
    if name.startswith("wgmma_bwd_weight_"):
        return (tm > 64 and (k // g) % tm == 0) or (pointwise(spec) and tn > 64 and (c // g) % tn == 0)
    if name.startswith("wgmma_bwd_data_"):
        return tn > 64 and (c // g) % tn == 0
    return False


def changed_s16(name, spec=""):
    """TMA producers on the pointwise problems they first served in the
    sixteenth session (wgmma/tma.hpp tma_ok): fwd with one group and C not a
    multiple of 64, bwd_data with one group and K not a multiple of 64,
    bwd_weight with C/G not a multiple of 64. These pairs have no stored rows:
    they are new, not re-timed."""
    if not name.startswith("wgmma_") or not name.endswith("_tma") or not pointwise(spec):
        return False
    ckg = CKG.search(spec)
    if not ckg:
        return False
    c, k, g = (int(x) for x in ckg.groups())
    if name.startswith("wgmma_fwd_"):
        return g == 1 and c % 64 != 0
    if name.startswith("wgmma_bwd_data_"):
        return g == 1 and k % 64 != 0
    return (c // g) % 64 != 0


STRIDED_POINTWISE = re.compile(r"_(?:z1)?y1x1_s[\d,]+_p0_|_x1_s\d+_p0_")


def changed_s16b(name, spec=""):
    """bwd_data TMA producers on strided 1x1 problems without padding, first
    served in the sixteenth session (phase 0 reads dy flat; wgmma/tma.hpp
    flat_ok): new pairs, not re-timed."""
    if not name.startswith("wgmma_bwd_data_") or not name.endswith("_tma"):
        return False
    return bool(STRIDED_POINTWISE.search(spec)) and not pointwise(spec)


ODD_SPLIT = re.compile(r"^igemm_bwd_data_.*_m64n(?:32|64)k32_w2x2_s3_sk[48]p_v[124]_g1$")


def changed_s16c(name, spec=""):
    """The igemm bwd_data odd-channel kernels with parallel split-K that the
    sixteenth session added to the pool (configs/pools/igemm_bwd_data.json):
    new kernels, no stored rows."""
    return bool(ODD_SPLIT.match(name))


def changed_s16d(name, spec=""):
    """Register-window kernels of vector widths other than 8, candidates since
    the sixteenth session (a class per width: heuristic/candidates.cpp). Their
    times did not change; the model had rarely seen them (window rows are
    learned from the re-measured file only)."""
    if not name.startswith("direct_") or not WINDOW.search(name):
        return False
    v = VEC.search(name)
    return bool(v) and int(v.group(1)) != 8


M64_TMA = re.compile(r"^wgmma_(?:fwd|bwd_data)_.*_m64n\d+k64_c1_s\d+_sk\d+c?_v8_tma$")


def changed_s17(name, spec=""):
    """The 64-row TMA kernels of fwd and bwd_data (one consumer warpgroup,
    with and without cluster split-K) that the seventeenth session added to
    the pools (configs/pools/wgmma_{fwd,bwd_data}.json): new kernels, no
    stored rows."""
    return bool(M64_TMA.match(name))


TWO_BLOCK = re.compile(r"^wgmma_.*_m64n64k128_c1_s\d+_sk\d+[sc]?_v8_tma$")


def changed_s20(name, spec=""):
    """The 64x64 TMA kernels with two-block stages (tile_k 128) that the
    twentieth session added to the pools of every direction
    (configs/pools/wgmma_*.json, docs/wgmma.md): new kernels, no stored
    rows."""
    return bool(TWO_BLOCK.match(name))


def changed_all(name, spec=""):
    """Every kernel: a full re-measurement of the candidates (the twentieth
    session found the unchanged families' own rows stale too: the anchors
    would not scale). No anchors are kept with it."""
    return True


# Every list is f(name, spec=""): by the name alone where spec is not given
# (anchors: unchanged below), per problem where a list depends on it.
CHANGED = {"s13": changed, "episep": changed_episep, "s15": changed_s15, "s15b": changed_s15b, "s16": changed_s16,
           "s16b": changed_s16b, "s16c": changed_s16c, "s16d": changed_s16d, "s17": changed_s17,
           "s20": changed_s20, "all": changed_all}


def unchanged(name):
    """An anchor candidate: a kernel no list of CHANGED names (`all` aside:
    it names every kernel, and keeps no anchors)."""
    return not any(f(name) for key, f in CHANGED.items() if key != "all")


def candidates(ranked, top):
    """The first `top` kernels, then the first of every class not yet seen."""
    keep = list(ranked[:top])
    seen = {kernel_class(k) for k in keep}
    for k in ranked[top:]:
        c = kernel_class(k)
        if c not in seen:
            keep.append(k)
            seen.add(c)
    return keep


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--select", required=True, action="append")
    ap.add_argument("--sweep", required=True, action="append")
    ap.add_argument("--top", type=int, default=48)
    ap.add_argument("--anchors", type=int, default=3)
    ap.add_argument("--limit", type=int, default=0, help="problems kept (0: all), balanced over directions")
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--problems", required=True)
    ap.add_argument("--problem-csv", action="append", default=[], help="problem CSVs the specs come from")
    ap.add_argument("--changed", choices=sorted(CHANGED), default="s13",
                    help="which kernels changed: s13 (the thirteenth session's list), episep (the "
                         "fourteenth's), s15 / s15b (the fifteenth's), s16 / s16b / s16c / s16d (new "
                         "pairs of the sixteenth), s17 (the seventeenth's 64-row TMA kernels) or s20 (the twentieth's "
                         "two-block stages), or all (every candidate, no anchors); anchors "
                         "are never among them")
    ap.add_argument("--measured", action="append", default=[],
                    help="sweeps of (kernel, spec) pairs already re-measured with today's kernels: with "
                         "--changed s15 a wgmma candidate is timed when it changed or is not in them")
    a = ap.parse_args(argv)
    measured = set()
    for path in a.measured:
        for r in read_rows(path):
            if r["status"] == "ok" and r.get("provider", "gconv") == "gconv":
                measured.add((r["kernel"], r["spec"]))
    if a.changed == "s15":
        def is_changed(k, s):
            return changed_s15(k, s) or (k.startswith("wgmma_") and (k, s) not in measured)
    else:
        is_changed = CHANGED[a.changed]

    ranked = {}
    for path in a.select:
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                j = json.loads(line)
                names = [r["kernel"] for r in j.get("ranked", []) if not r["kernel"].startswith("naive_")]
                if names:
                    ranked[j["spec"]] = names
    stored = defaultdict(dict)
    for path in a.sweep:
        for r in read_rows(path):
            if r["spec"] not in ranked or r["status"] != "ok" or r.get("provider", "gconv") != "gconv":
                continue
            t = float(r["latency_ms"])
            k = r["kernel"]
            if k not in stored[r["spec"]] or t < stored[r["spec"]][k]:
                stored[r["spec"]][k] = t

    specs = sorted(s for s in ranked if s in stored)
    if a.limit and a.limit < len(specs):
        by_dir = defaultdict(list)
        for s in specs:
            by_dir[s.split("_bf16_")[0].split("_fp16_")[0].split("_fp32_")[0]].append(s)
        rng = random.Random(a.seed)
        per = a.limit // max(1, len(by_dir))
        specs = sorted(x for d in sorted(by_dir) for x in rng.sample(by_dir[d], min(per, len(by_dir[d]))))

    rows = []
    n_changed = n_anchor = 0
    for s in specs:
        cand = [k for k in candidates(ranked[s], a.top) if is_changed(k, s)]
        anchors = [] if a.changed == "all" else sorted((t, k) for k, t in stored[s].items() if unchanged(k))[: a.anchors]
        rows += [(k, s) for k in cand] + [(k, s) for _, k in anchors]
        n_changed += len(cand)
        n_anchor += len(anchors)
    with open(a.pairs, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["kernel", "spec"])
        w.writerows(rows)
    keep = set(specs)
    header = None
    out = []
    for path in a.problem_csv:
        with open(path, newline="") as f:
            rd = csv.reader(l for l in f if not l.startswith("#"))
            h = next(rd)
            header = header or h
            si = h.index("spec")
            out += [r for r in rd if r[si] in keep]
    with open(a.problems, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        if header:
            w.writerow(header)
        seen = set()
        # Seeded random order: a sweep cut by its time limit measured a random
        # subset of the problems, not the first rows of one network.
        random.Random(a.seed).shuffle(out)
        for r in out:
            if r[header.index("spec")] not in seen:
                seen.add(r[header.index("spec")])
                w.writerow(r)
    print(f"retime_pairs: {len(specs)} problems, {n_changed} changed pairs, {n_anchor} anchors", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
