#!/usr/bin/env python3
"""Where the host time of an eager training step goes, stock vs gconv.convert.

Eager steps at batch 32 are bound by the CPU (bench/torch_train_step.py:
wall time well above the GPU time), so a slower wall time with gconv is host
work that gconv adds. For one network (same setup as torch_train_step.py:
bf16 autocast, channels_last, SGD), this prints per mode:
  - wall ms per step and the GPU work per step: kernels launched, by name
    (the names gconv's mode launches more often than stock are listed, with
    the count per step: layout copies and casts show up here);
  - with --cprofile, the Python functions with the most own time over the
    timed steps (gconv mode), so the package's per-call costs are visible.

  python bench/torch_step_profile.py --network resnet50 [--steps 10] [--cprofile]
"""
import argparse
import cProfile
import io
import os
import pstats
import sys
import time
from collections import Counter

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_train_step as tts  # noqa: E402

import gconv  # noqa: E402


def kernels_per_step(step, first, steps):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for i in range(first, first + steps):
            step(i)
        torch.cuda.synchronize()
    names = Counter()
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            names[e.name[:90]] += 1
    return {k: v / steps for k, v in names.items()}


def run(net, mode, steps, cprof):
    torch.backends.cudnn.benchmark = True
    model, shape, classes, fmt = tts.build(net)
    data = tts.batches(shape, classes, fmt)
    if mode == "gconv":
        gconv.convert(model)
        gconv.warmup(model, data[0][0], dtype=torch.bfloat16)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    step = tts.make_step(model, data, opt, torch.nn.CrossEntropyLoss())

    for i in range(5):
        step(i)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(5, 5 + steps):
        step(i)
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t0) / steps * 1e3
    prof_text = ""
    if cprof:
        pr = cProfile.Profile()
        pr.enable()
        for i in range(5, 5 + steps):
            step(i)
        torch.cuda.synchronize()
        pr.disable()
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(25)
        prof_text = s.getvalue()
    return wall, kernels_per_step(step, 5, steps), prof_text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--network", default="resnet50", choices=sorted(tts.NETWORKS))
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--cprofile", action="store_true")
    a = ap.parse_args()
    res = {m: run(a.network, m, a.steps, a.cprofile and m == "gconv") for m in ("stock", "gconv")}
    for m, (wall, k, _) in res.items():
        print(f"{a.network} {m}: wall {wall:.2f} ms/step, {sum(k.values()):.0f} GPU activities/step")
    ks, kg = res["stock"][1], res["gconv"][1]
    more = sorted(((kg[n] - ks.get(n, 0), n) for n in kg if kg[n] > ks.get(n, 0)), reverse=True)
    print("launched more often with gconv (per step, gconv - stock):")
    for d, n in more[:25]:
        print(f"  {d:6.1f}  {n}")
    if res["gconv"][2]:
        print(res["gconv"][2])


if __name__ == "__main__":
    main()
