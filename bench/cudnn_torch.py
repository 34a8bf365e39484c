#!/usr/bin/env python3
"""Time cuDNN through PyTorch on a problem set, on the GPU machine.

Stand-in for the native cuDNN provider of the benchmark-harness issue: for each
(problem, direction) of a JSON-lines file in the format of
problems/cudnn_public_h200.jsonl, times cuDNN's heuristic choice
(torch.backends.cudnn.benchmark=False) and the best of its benchmarked
candidates (benchmark=True), bf16 channels-last, with triton's do_bench
(median, L2 flushed between repetitions), and writes one JSON line per
measurement to --out.

    python3 bench/cudnn_torch.py --problems problems/cudnn_public_h200.jsonl --out cudnn.jsonl
"""
import argparse
import json
import math
import sys

import torch
import torch.nn.functional as F
from triton.testing import do_bench


def conv_fn(nd):
    return {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[nd]


def make(rec, dtype):
    nd, N, C, K, G = rec["nd"], rec["N"], rec["C"], rec["K"], rec["G"]
    sp, ks = rec["spatial"], rec["kernel"]
    fmt = {1: torch.contiguous_format, 2: torch.channels_last, 3: torch.channels_last_3d}[nd]
    x = torch.randn(N, C, *sp, device="cuda", dtype=dtype).to(memory_format=fmt)
    w = torch.randn(K, C // G, *ks, device="cuda", dtype=dtype).to(memory_format=fmt)
    return x, w


def time_one(rec, direction, dtype):
    nd = rec["nd"]
    x, w = make(rec, dtype)
    kw = dict(stride=rec["stride"], padding=rec["pad"], dilation=rec["dil"], groups=rec["G"])
    f = conv_fn(nd)
    y = f(x, w, **kw)
    dy = torch.randn_like(y)
    if direction == "fwd":
        fn = lambda: f(x, w, **kw)
    else:
        mask = [direction == "bwd_data", direction == "bwd_weight", False]
        fn = lambda: torch.ops.aten.convolution_backward(
            dy, x, w, None, kw["stride"], kw["padding"], kw["dilation"], False, [0] * nd, kw["groups"], mask)
    return do_bench(fn, warmup=10, rep=40, return_mode="median")


def gemm_shape(rec):
    """(M, N, K) of the direction's implicit GEMM for one group (see igemm/operands.cuh)."""
    nd, N, C, K, G = rec["nd"], rec["N"], rec["C"], rec["K"], rec["G"]
    out = [(s + p[0] + p[1] if isinstance(p, list) else s + 2 * p) for s, p in zip(rec["spatial"], rec["pad"])]
    out = [(o - d * (k - 1) - 1) // st + 1 for o, d, k, st in zip(out, rec["dil"], rec["kernel"], rec["stride"])]
    out_vol, in_vol, filt = math.prod(out), math.prod(rec["spatial"]), math.prod(rec["kernel"])
    cg, kg = C // G, K // G
    return {"fwd": (N * out_vol, kg, cg * filt),
            "bwd_data": (N * in_vol, cg, kg * filt),
            "bwd_weight": (kg, cg * filt, N * out_vol)}[rec["direction"]]


def time_gemm(rec, dtype):
    """cuBLAS (torch.matmul) on the equivalent dense GEMM: the speed a conv
    kernel could reach if gathering its operands were free."""
    m, n, k = gemm_shape(rec)
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    return do_bench(lambda: a @ b, warmup=10, rep=40, return_mode="median")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problems", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtype", default="bf16", choices=["bf16", "fp16", "fp32"])
    ap.add_argument("--directions", default="fwd,bwd_data,bwd_weight")
    ap.add_argument("--modes", default="heur,exh",
                    help="cuDNN modes to time: heur (its heuristic pick), exh (best of its benchmarked candidates)")
    ap.add_argument("--gemm-gflop", type=float, default=None,
                    help="also time torch.matmul on the equivalent GEMM (gemm_ms) of dense problems of at least "
                         "this many GFLOP")
    args = ap.parse_args()
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[args.dtype]
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    dirs = set(args.directions.split(","))
    recs = [json.loads(l) for l in open(args.problems) if l.strip()]
    recs = [r for r in recs if "about" not in r and r["direction"] in dirs]
    # warm the GPU before the first measurement
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    for _ in range(20):
        a @ a
    torch.cuda.synchronize()
    with open(args.out, "w") as out:
        for i, r in enumerate(recs):
            res = dict(r)
            for mode, bench in (("heur_ms", False), ("exh_ms", True)):
                if mode.split("_")[0] not in args.modes.split(","):
                    continue
                torch.backends.cudnn.benchmark = bench
                try:
                    res["torch_" + mode] = time_one(r, r["direction"], dtype)
                except Exception as e:  # report, never drop a row
                    res["torch_" + mode] = None
                    res["error"] = str(e)[:200]
            if args.gemm_gflop is not None and r["G"] == 1 and r.get("gflop", 0) >= args.gemm_gflop:
                try:
                    res["gemm_ms"] = time_gemm(r, dtype)
                except Exception as e:
                    res["gemm_ms"] = None
                    res["gemm_error"] = str(e)[:200]
            out.write(json.dumps(res) + "\n")
            if i % 50 == 0:
                print(f"cudnn_torch: {i}/{len(recs)}", file=sys.stderr, flush=True)
    print(f"cudnn_torch: wrote {len(recs)} rows to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
