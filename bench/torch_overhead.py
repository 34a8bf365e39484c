#!/usr/bin/env python3
"""Per-call cost of gconv's Python path for a small convolution, against the
kernel's own GPU time (issue 18's target: <= 10 us above the kernel).

Layers timed, each as host microseconds per call over a loop of async calls
(the GPU is never the bottleneck for these tiny problems, so the loop's wall
time per call is the host cost):
  gconv_run   the registry's C entry through ctypes on preallocated tensors
              (validates the problem and queries every pointer per call)
  plan_run    gconv_plan_run through ctypes on preallocated tensors: the
              floor under every Python layer (checks values, launches)
  run         gconv._runtime.run_conv (what the registered ops call)
  op          torch.ops.gconv.conv_fwd (dispatcher + the ops' Python kernel + run;
              what torch.compile's graphs call)
  op_bias     the same with a bias (the add inside the op)
  op_bwd      torch.ops.gconv.conv_bwd_data (what compiled backward graphs call;
              its kernel is another problem's: not in kernel_us)
  conv        gconv.conv, no grad (the eager entry: checks, autocast, run)
  conv_bias   gconv.conv with a bias (one in-place broadcast add more)
  conv_grad   gconv.conv with requires_grad inputs (builds the autograd node)
  torch       torch.nn.functional.conv2d (cuDNN) for comparison (torch_bias: with the bias)
  kernel      GPU time of the gconv kernel (profiler, mean of the calls)

  python bench/torch_overhead.py [--out CSV] [--calls 2000]
"""
import argparse
import csv
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import gconv  # noqa: E402
from gconv import ops  # noqa: E402
from gconv._shapes import conv_params, problem_key  # noqa: E402

SHAPES = [  # (name, N, C, K, groups, H, kernel)
    ("dw3x3_c64_14", 1, 64, 64, 64, 14, 3),
    ("g8_3x3_c128_14", 2, 128, 128, 8, 14, 3),
    ("pw_c64_28", 1, 64, 64, 1, 28, 1),
]


def per_call_us(fn, calls: int) -> float:
    """Median over 5 repeats of (loop wall time / calls), synchronized."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        runs.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(runs)


def kernel_us(fn, calls: int = 200) -> float:
    """Mean GPU time of the kernels fn launches (gconv_* names), from the profiler."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    total = sum(e.time_range.elapsed_us() for e in prof.events()
                if e.device_type == torch.autograd.DeviceType.CUDA and e.name.startswith("gconv_"))
    return total / calls


def measure(name, n, c, k, g, h, ks, dtype, calls):
    x = torch.randn(n, c, h, h, device="cuda", dtype=dtype).to(memory_format=torch.channels_last)
    w = torch.randn(k, c // g, ks, ks, device="cuda", dtype=dtype).to(memory_format=torch.channels_last)
    pad = ks // 2
    p = conv_params(2, (ks, ks), 1, pad, 1, g)
    key = problem_key("fwd", ops._DTYPES[dtype], x.shape, w.shape, p)
    y = ops.empty_channels_last(x, [n, k, *p.out_size(x.shape[2:], w.shape[2:])])
    st, lo, hi, dil = list(p.stride), list(p.pad_lo), list(p.pad_hi), list(p.dilation)
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    b = torch.randn(k, device="cuda", dtype=dtype)
    pl = ops.plan(x.device, key)
    ws = torch.empty(max(pl.ws, 16), dtype=torch.uint8, device="cuda")
    wsp = ws.data_ptr() if pl.ws else None
    xp, wp, yp = x.data_ptr(), w.data_ptr(), y.data_ptr()
    stream = torch.cuda.current_stream().cuda_stream
    L = gconv._lib.lib()
    fns = {
        "gconv_run": lambda: L.gconv_run(pl.reg.handle, pl.solution.handle, pl.problem.handle, xp, wp, yp, wsp,
                                         pl.ws, stream),
        "plan_run": lambda: L.gconv_plan_run(pl.address, xp, wp, yp, wsp, pl.ws, stream),
        "run": lambda: ops.run_conv("fwd", x, w, None, st, lo, hi, dil, g),
        "op": lambda: torch.ops.gconv.conv_fwd(x, w, None, st, lo, hi, dil, g),
        "op_bias": lambda: torch.ops.gconv.conv_fwd(x, w, b, st, lo, hi, dil, g),
        "op_bwd": lambda: torch.ops.gconv.conv_bwd_data(y, w, [n, c, h, h], st, lo, hi, dil, g),
        "conv": lambda: gconv.conv(x, w, None, 1, pad, 1, g),
        "conv_bias": lambda: gconv.conv(x, w, b, 1, pad, 1, g),
        "conv_grad": lambda: gconv.conv(xg, wg, None, 1, pad, 1, g),
        "torch": lambda: F.conv2d(x, w, None, 1, pad, 1, g),
        "torch_bias": lambda: F.conv2d(x, w, b, 1, pad, 1, g),
    }
    assert fns["gconv_run"]() == 0 and fns["plan_run"]() == 0, gconv._lib.lib().gconv_last_error()
    row = {"shape": name, "dtype": str(dtype).replace("torch.", ""), "kernel": pl.solution.kernel,
           "workspace": pl.ws}
    with torch.no_grad():
        for label in ("gconv_run", "plan_run", "run", "op", "conv", "conv_bias", "torch", "torch_bias", "op_bias",
                      "op_bwd"):
            row[f"{label}_us"] = round(per_call_us(fns[label], calls), 2)
    row["conv_grad_us"] = round(per_call_us(fns["conv_grad"], calls), 2)
    row["kernel_us"] = round(kernel_us(fns["plan_run"]), 2)
    row["conv_above_kernel_us"] = round(row["conv_us"] - row["kernel_us"], 2)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="CSV file (default: stdout only)")
    ap.add_argument("--calls", type=int, default=2000)
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    rows = []
    for dtype in (torch.bfloat16,):
        for shape in SHAPES:
            rows.append(measure(*shape, dtype, args.calls))
            print(rows[-1], file=sys.stderr)
    cols = list(rows[0])
    print(",".join(cols))
    for r in rows:
        print(",".join(str(r[c]) for c in cols))
    if args.out:
        with open(args.out, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=cols)
            wr.writeheader()
            wr.writerows(rows)
    print(f"# {torch.cuda.get_device_name()} torch {torch.__version__} gconv {gconv.version()}", file=sys.stderr)


if __name__ == "__main__":
    main()
