#!/usr/bin/env python3
"""Summarize the per-block phase clocks that wgmma kernels print when built
with GCONV_WGMMA_TRACE=N (src/kernels/wgmma/trace.cuh).

Reads a run's stdout; keeps each block's lines of the last launch (a block
number seen again starts a new launch); prints, in SM cycles from the
block's entry, the median and max over blocks of: barrier init done, first
TMA issue, first / last full stage seen by the first consumer, mainloop done
(consumed), stores done, cluster reduce done, block end; the spread of the
blocks' entry times (globaltimer, ns) and the blocks per SM.
"""
import re
import statistics
import sys

HEAD = re.compile(r"WGT b=(\d+) sm=(\d+) gt=(\d+) init=(\d+) consumed=(\d+) stored=(\d+) reduced=(\d+) end=(\d+)(?: tile_at=(\d+) pre_issue=(\d+))?")
ROW = re.compile(r"WGT b=(\d+) (issue|full|release|wake)((?: -?\d+)+)")


def launches(lines):
    cur, out = {}, []
    for line in lines:
        m = HEAD.search(line)
        if m:
            b = int(m.group(1))
            if b in cur and "head" in cur[b]:
                out.append(cur)
                cur = {}
            cur.setdefault(b, {})["head"] = [int(x) if x else 0 for x in m.groups()[1:]]
            continue
        m = ROW.search(line)
        if m:
            b = int(m.group(1))
            vals = [int(x) for x in m.group(3).split()]
            cur.setdefault(b, {})[m.group(2)] = [v for v in vals if v > 0]
    if cur:
        out.append(cur)
    return out


def summarize(blocks, label):
    rows = {"init": [], "tile_at": [], "pre issue": [], "first issue": [], "first full": [], "last full": [], "consumed": [], "stored": [],
            "reduced": [], "end": []}
    gts, sms = [], {}
    for b, d in blocks.items():
        if "head" not in d:
            continue
        sm, gt, init, consumed, stored, reduced, end, tile_at, pre_issue = d["head"]
        rows["tile_at"].append(tile_at)
        rows["pre issue"].append(pre_issue)
        gts.append(gt)
        sms[sm] = sms.get(sm, 0) + 1
        rows["init"].append(init)
        rows["consumed"].append(consumed)
        rows["stored"].append(stored)
        rows["reduced"].append(reduced)
        rows["end"].append(end)
        if d.get("issue"):
            rows["first issue"].append(d["issue"][0])
        if d.get("full"):
            rows["first full"].append(d["full"][0])
            rows["last full"].append(d["full"][-1])
    print(f"{label}: {len(gts)} blocks on {len(sms)} SMs (most on one SM: {max(sms.values()) if sms else 0})")
    if gts:
        print(f"  entry spread (globaltimer): {(max(gts) - min(gts)) / 1000:.2f} us")
    for k, v in rows.items():
        v = [x for x in v if x > 0]
        if v:
            print(f"  {k:12s} median {statistics.median(v):8.0f}  max {max(v):8.0f} cycles  ({len(v)} blocks)")
    full = [d["full"] for d in blocks.values() if d.get("full")]
    if full:
        n = min(len(f) for f in full)
        print("  full stage k (median cycles):", " ".join(f"{statistics.median(f[i] for f in full):.0f}" for i in range(n)))
    if full:
        # The steady pace: the median spacing of the first consumer's full
        # stages after the ring's first fill (stages 4 on), over blocks.
        gaps = [f[i + 1] - f[i] for f in full for i in range(4, len(f) - 1)]
        if gaps:
            print(f"  steady pace  median {statistics.median(gaps):8.0f} cycles a stage (stages 4-{n - 1})")
    for name, label in (("issue", "issue k"), ("release", "release k"), ("wake", "wake S+k")):
        rows_ = [d[name] for d in blocks.values() if d.get(name)]
        if rows_:
            n = min(len(f) for f in rows_)
            print(f"  {label + ' (median cycles):':29s}", " ".join(f"{statistics.median(f[i] for f in rows_):.0f}" for i in range(n)))


def main():
    label = sys.argv[1] if len(sys.argv) > 1 else "trace"
    ls = launches(sys.stdin.read().splitlines())
    if not ls:
        print(f"{label}: no trace lines")
        return 1
    summarize(ls[-1], f"{label} (last of {len(ls)} launches)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
