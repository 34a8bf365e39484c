#!/usr/bin/env python3
"""Host cost of gconv's Python path per call, measured WITHOUT a GPU: the
per-call code of gconv.conv runs on CPU tensors with the library's run entry
(gconv_plan_run) replaced by a C function that returns at once (compiled
here with cc), so what is timed is everything the package adds between the
call and the C library: checks, cache lookups, the output allocation and the
ctypes call. Replaced besides: plan creation (a fake plan), the CUDA stream
query (returns 0) and the tensors' is_cuda test (CPU tensors pass).

Layers, host microseconds per call (median of 7 loops of --calls calls):
  ctypes      the stub through the same ctypes function object, alone
  empty       torch.empty_strided of the output, alone (every path pays it)
  add_small   the bias add (y.add_(bias.view(1, -1, 1, 1))) on a 2x2 output:
              its host cost nearly without the arithmetic (conv_bias below
              adds 64x14x14 elements on the CPU, which a GPU does not)
  run         gconv._runtime.run_conv: what the registered ops run
  op          torch.ops.gconv.conv_fwd: dispatcher + run (torch.compile's graphs call this)
  op_bias     the same with a bias
  op_bwd      torch.ops.gconv.conv_bwd_data (compiled backward graphs call it)
  conv        gconv.conv, no grad: the eager entry of modules and users
  conv_bias   the same with a bias (one in-place add, computed on the CPU here)
  conv_grad   gconv.conv with requires_grad operands (the autograd node)

On a GPU the allocation is the caching allocator's, and the library adds its
launch (bench/torch_overhead.py measures the whole of it).

  python bench/torch_overhead_host.py [--calls 20000] [--profile] [--only conv,op]
"""
import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import gconv  # noqa: E402
from gconv import _lib, _runtime as rt, ops  # noqa: E402

_STUB_C = """
#include <stddef.h>
int gconv_plan_run(const void* p, const void* a, const void* b, void* o, void* w, size_t wb, void* st) {
  (void)p; (void)a; (void)b; (void)o; (void)w; (void)wb; (void)st;
  return 0;
}
"""


def stub_plan_run():
    d = tempfile.mkdtemp(prefix="gconv-stub-")
    src, so = os.path.join(d, "stub.c"), os.path.join(d, "libstub.so")
    with open(src, "w") as f:
        f.write(_STUB_C)
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", so, src], check=True)
    if hasattr(_lib, "bind_plan_run"):  # bound as the runtime binds the real one
        return _lib.bind_plan_run(so)
    fn = ctypes.CDLL(so).gconv_plan_run
    fn.restype, fn.argtypes = ctypes.c_int, _lib.PLAN_RUN_ARGTYPES
    return fn


def install_stubs(plan_run) -> None:
    fake = types.SimpleNamespace(address=0x1000, ws=0, solution=types.SimpleNamespace(kernel="stub"),
                                 problem=types.SimpleNamespace(spec="stub"))
    rt.plan = lambda device, key: fake
    rt._plan_run = plan_run
    rt._raw_stream = lambda index: 0
    rt._check_operands = lambda op, *t, **k: ops._DTYPES[t[0].dtype]
    # The eager path's test with is_cpu for is_cuda (the same number of calls).
    ops.eager_path_ok = _without_device_test()


def _without_device_test():
    PLAIN, depth, ft, comp = ops._PLAIN, ops._dispatch_depth, ops._functorch_active, ops._is_compiling

    def eager_path_ok(x, w, bias=None):
        if comp():
            return False
        if type(x) not in PLAIN or type(w) not in PLAIN or not x.is_cpu or not w.is_cpu:
            return False
        if depth() or ft():
            return False
        return bias is None or (type(bias) in PLAIN and bias.is_cpu)
    return eager_path_ok


def per_call_us(fn, calls: int, repeats: int = 7) -> float:
    for _ in range(min(calls, 2000)):
        fn()
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            fn()
        runs.append((time.perf_counter_ns() - t0) / calls / 1e3)
    return statistics.median(runs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--profile", action="store_true", help="cProfile the no-grad conv loop too")
    ap.add_argument("--only", help="comma list of the layers to time (default: all)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    plan_run = stub_plan_run()
    install_stubs(plan_run)
    dt = torch.bfloat16
    x = torch.randn(1, 64, 14, 14, dtype=dt).to(memory_format=torch.channels_last)
    w = torch.randn(64, 1, 3, 3, dtype=dt).to(memory_format=torch.channels_last)
    b = torch.randn(64, dtype=dt)
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    y = torch.empty_strided((1, 64, 14, 14), (12544, 1, 896, 64), dtype=dt)
    dy = y.clone()
    ys = torch.empty_strided((1, 64, 2, 2), (256, 1, 128, 64), dtype=dt)
    xp, wp, yp = x.data_ptr(), w.data_ptr(), y.data_ptr()
    conv = ([1, 1], [1, 1], [1, 1], [1, 1], 64)
    fns = {
        "ctypes": lambda: plan_run(0x1000, xp, wp, yp, None, 0, 0),
        "empty": lambda: torch.empty_strided((1, 64, 14, 14), (12544, 1, 896, 64), dtype=dt, device=x.device),
        "add_small": lambda: ys.add_(b.view(1, -1, 1, 1)),
        "run": lambda: rt.run_conv("fwd", x, w, None, *conv),
        "op": lambda: torch.ops.gconv.conv_fwd(x, w, None, *conv),
        "op_bias": lambda: torch.ops.gconv.conv_fwd(x, w, b, *conv),
        "op_bwd": lambda: torch.ops.gconv.conv_bwd_data(dy, w, [1, 64, 14, 14], *conv),
        "conv": lambda: gconv.conv(x, w, None, 1, 1, 1, 64),
        "conv_bias": lambda: gconv.conv(x, w, b, 1, 1, 1, 64),
        "conv_grad": lambda: gconv.conv(xg, wg, None, 1, 1, 1, 64),
    }
    only = args.only.split(",") if args.only else list(fns)
    rows = {}
    with torch.no_grad():
        for name in fns:
            if name in only and name != "conv_grad":
                rows[name] = per_call_us(fns[name], args.calls)
    if "conv_grad" in only:
        rows["conv_grad"] = per_call_us(fns["conv_grad"], args.calls // 2)
    for name, us in rows.items():
        print(f"{name},{us:.2f}")
    print(f"# host only, library calls stubbed: torch {torch.__version__}, python {sys.version.split()[0]}",
          file=sys.stderr)
    if args.profile:
        import cProfile
        import pstats
        with torch.no_grad():
            cProfile.runctx("for _ in range(20000): f()", {"f": fns["conv"]}, {}, "/tmp/gconv_conv.prof")
        pstats.Stats("/tmp/gconv_conv.prof").sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
