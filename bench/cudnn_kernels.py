#!/usr/bin/env python3
"""Which kernels cuDNN runs for given problems, and how long each takes, on the GPU machine.

For each gconv spec (e.g. bwd_data_bf16_n32c256k256g1_h56w56_y1x1_s1_p0_dil1; symmetric
padding), runs the convolution through PyTorch with cudnn.benchmark=True (channels-last,
as bench/cudnn_torch.py), then records REPS more calls under torch.profiler and prints one
line per GPU kernel: spec, kernel name, calls, mean microseconds. With --nvtx, under Nsight
Compute, it gives the counters of cuDNN's kernels beside gconv's (bench/device_call.sh cudnnk).

    python3 bench/cudnn_kernels.py SPEC [SPEC ...] [--reps 10]
"""
import argparse
import re
import sys

import torch
import torch.nn.functional as F

SPEC = re.compile(
    r"^(fwd|bwd_data|bwd_weight)_(bf16|fp16|fp32)_n(\d+)c(\d+)k(\d+)g(\d+)_"
    r"(?:d(\d+))?(?:h(\d+))?w(\d+)_(?:z(\d+))?(?:y(\d+))?x(\d+)_s([\d,]+)_p([\d,]+)_dil([\d,]+)$")


def parse(spec):
    m = SPEC.match(spec)
    if not m:
        raise SystemExit(f"cudnn_kernels: cannot parse spec '{spec}' (symmetric padding only)")
    direction, dtype, n, c, k, g, d, h, w, z, y, x, s, p, dil = m.groups()
    spatial = [int(v) for v in (d, h, w) if v is not None]
    filt = [int(v) for v in (z, y, x) if v is not None]
    nd = len(spatial)
    if len(filt) != nd:
        raise SystemExit(f"cudnn_kernels: '{spec}': {nd} spatial sizes but {len(filt)} filter sizes")

    def per_dim(text):
        vals = [int(v) for v in text.split(",")]
        return vals * nd if len(vals) == 1 else vals

    dt = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype]
    return direction, dt, int(n), int(c), int(k), int(g), spatial, filt, per_dim(s), per_dim(p), per_dim(dil)


def runner(spec):
    direction, dt, n, c, k, g, spatial, filt, stride, pad, dil = parse(spec)
    nd = len(spatial)
    fmt = {1: torch.contiguous_format, 2: torch.channels_last, 3: torch.channels_last_3d}[nd]
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[nd]
    x = torch.randn(n, c, *spatial, device="cuda", dtype=dt).to(memory_format=fmt)
    w = torch.randn(k, c // g, *filt, device="cuda", dtype=dt).to(memory_format=fmt)
    kw = dict(stride=stride, padding=pad, dilation=dil, groups=g)
    dy = torch.randn_like(conv(x, w, **kw))
    if direction == "fwd":
        return lambda: conv(x, w, **kw)
    mask = [direction == "bwd_data", direction == "bwd_weight", False]
    return lambda: torch.ops.aten.convolution_backward(dy, x, w, None, stride, pad, dil, False, [0] * nd, g, mask)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--nvtx", action="store_true",
                    help="no profiler: the REPS calls inside an NVTX range 'measure' (ncu --nvtx-include measure/)")
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    for spec in args.specs:
        fn = runner(spec)
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
        if args.nvtx:
            torch.cuda.nvtx.range_push("measure")
            for _ in range(args.reps):
                fn()
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
            continue
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(args.reps):
                fn()
            torch.cuda.synchronize()
        for e in prof.key_averages():
            if e.device_type == torch.autograd.DeviceType.CUDA and e.count:
                us = e.device_time_total / e.count
                print(f"{spec}\t{e.key[:160]}\t{e.count}\t{us:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
