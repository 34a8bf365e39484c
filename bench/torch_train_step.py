#!/usr/bin/env python3
"""One training step (forward, backward, SGD) of torchvision networks: stock
PyTorch (cudnn.benchmark=True) against the same model after gconv.convert,
eager and under torch.compile; bf16 autocast, channels_last.

Per (network, mode), 20 steps from the same seed on the same batches:
  steps 1-5   warm-up (torch.compile and gconv.warmup happen before/in these)
  steps 6-15  wall time per step (synchronized at both ends; also the median
              and the longest step as seen by the host)
  steps 16-20 under torch.profiler: GPU time per step (sum of kernel times)
              and the convolution kernels' share of it
and the loss of all 20 steps, compared stock vs gconv (same mode) at the end.

  python bench/torch_train_step.py --out DIR [--networks resnet50,r3d_18]
        [--modes stock_eager,gconv_eager,stock_compile,gconv_compile] [--budget-s 540]

Rows go to DIR/train_step.csv (one per network and mode) and
DIR/train_step_losses.csv; a (network, mode) not started before the budget
runs out is written as status=skipped_budget, so a later call with the rest
can complete the table.
"""
import argparse
import csv
import os
import re
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import gconv  # noqa: E402

NETWORKS = {  # name -> (constructor path in torchvision.models, input shape, classes)
    "resnet50": ("resnet50", (32, 3, 224, 224), 1000),
    "resnext50_32x4d": ("resnext50_32x4d", (32, 3, 224, 224), 1000),
    "mobilenet_v2": ("mobilenet_v2", (32, 3, 224, 224), 1000),
    "convnext_tiny": ("convnext_tiny", (32, 3, 224, 224), 1000),
    "regnet_y_400mf": ("regnet_y_400mf", (32, 3, 224, 224), 1000),
    "r3d_18": ("video.r3d_18", (4, 3, 16, 112, 112), 400),
}
MODES = ["stock_eager", "gconv_eager", "stock_compile", "gconv_compile"]
WARM, TIMED, PROFILED = 5, 10, 5
# Convolution kernels: gconv's (entry points gconv_*) and cuDNN's / CUTLASS's
# conv kernels (fprop / dgrad / wgrad / implicit-GEMM conv / depthwise names).
CONV_KERNEL = re.compile(r"^gconv_|conv|fprop|dgrad|wgrad|cudnn|implicit_gemm|depthwise", re.IGNORECASE)


def build(net: str):
    import torchvision
    path, shape, classes = NETWORKS[net]
    ctor = torchvision.models
    for part in path.split("."):
        ctor = getattr(ctor, part)
    torch.manual_seed(0)
    model = ctor(weights=None, num_classes=classes)
    fmt = torch.channels_last_3d if len(shape) == 5 else torch.channels_last
    return model.cuda().to(memory_format=fmt), shape, classes, fmt


def batches(shape, classes, fmt, count=4):
    g = torch.Generator(device="cuda").manual_seed(1)
    return [(torch.randn(shape, device="cuda", generator=g).to(memory_format=fmt),
             torch.randint(0, classes, (shape[0],), device="cuda", generator=g)) for _ in range(count)]


def make_step(fwd, data, opt, loss_fn):
    """One training step on batch i % len(data): bf16 autocast forward, backward, optimizer; its loss."""
    def step(i):
        x, y = data[i % len(data)]
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_fn(fwd(x), y)
        loss.backward()
        opt.step()
        return loss.detach()
    return step


def gpu_times_us(prof):
    """(all kernels, convolution kernels) device time in microseconds."""
    total = conv = 0.0
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:  # a kernel, memcpy or memset on the GPU
            t = e.time_range.elapsed_us()
            total += t
            if CONV_KERNEL.search(e.name):
                conv += t
    return total, conv


def run(net: str, mode: str):
    from torch.profiler import ProfilerActivity, profile
    torch.backends.cudnn.benchmark = True
    model, shape, classes, fmt = build(net)
    data = batches(shape, classes, fmt)
    row = {"network": net, "mode": mode, "batch": shape[0], "device": torch.cuda.get_device_name(),
           "torch": torch.__version__}
    t0 = time.monotonic()
    if mode.startswith("gconv"):
        report = gconv.convert(model)
        row["convs_swapped"], row["convs_skipped"] = len(report.swapped), len(report.skipped)
        gconv.warmup(model, data[0][0], dtype=torch.bfloat16)
    row["prepare_s"] = round(time.monotonic() - t0, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    fwd = torch.compile(model) if mode.endswith("compile") else model
    step = make_step(fwd, data, opt, loss_fn)

    losses = []
    t0 = time.monotonic()
    for i in range(WARM):
        losses.append(step(i))
    torch.cuda.synchronize()
    row["warm_s"] = round(time.monotonic() - t0, 1)
    t0 = time.perf_counter()
    ends = []
    for i in range(WARM, WARM + TIMED):
        losses.append(step(i))
        ends.append(time.perf_counter())
    torch.cuda.synchronize()
    row["wall_ms"] = round((time.perf_counter() - t0) / TIMED * 1e3, 3)
    # The median step (host time from one step's return to the next's, the
    # GPU's pace when the queue is full): one slow step (a collection, a late
    # compile) moves the mean above by up to 2x between runs on the GPU machine.
    gaps = [b - a for a, b in zip([t0] + ends[:-1], ends)]
    row["wall_ms_median"] = round(statistics.median(gaps) * 1e3, 3)
    row["wall_ms_max"] = round(max(gaps) * 1e3, 3)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for i in range(WARM + TIMED, WARM + TIMED + PROFILED):
            losses.append(step(i))
        torch.cuda.synchronize()
    total, conv = gpu_times_us(prof)
    row["gpu_ms"] = round(total / PROFILED / 1e3, 3)
    row["conv_gpu_ms"] = round(conv / PROFILED / 1e3, 3)
    row["conv_share"] = round(conv / total, 3) if total else 0
    row["status"] = "ok"
    return row, [float(v) for v in losses]


COLUMNS = ["network", "mode", "status", "batch", "wall_ms", "wall_ms_median", "wall_ms_max", "gpu_ms", "conv_gpu_ms", "conv_share", "prepare_s",
           "warm_s", "convs_swapped", "convs_skipped", "loss_final_stock", "loss_final_gconv", "loss_max_rel_diff",
           "device", "torch"]


def append_row(path: str, row: dict) -> None:
    """One row at a time, so a run cut short keeps what it measured."""
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
        if new:
            wr.writeheader()
        wr.writerow(row)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--networks", default=",".join(NETWORKS))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--budget-s", type=float, default=540, help="start no (network, mode) after this many seconds")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows_path = os.path.join(args.out, "train_step.csv")
    losses_path = os.path.join(args.out, "train_step_losses.csv")
    start = time.monotonic()
    losses = {}
    for net in args.networks.split(","):
        if net not in NETWORKS:
            sys.exit(f"torch_train_step: unknown network {net!r} (one of {', '.join(NETWORKS)})")
        for mode in args.modes.split(","):
            if time.monotonic() - start > args.budget_s:
                append_row(rows_path, {"network": net, "mode": mode, "status": "skipped_budget"})
                continue
            print(f"[{time.monotonic() - start:6.0f}s] {net} {mode}", file=sys.stderr, flush=True)
            try:
                row, loss = run(net, mode)
                losses[(net, mode)] = loss
                with open(losses_path, "a", newline="") as f:
                    csv.writer(f).writerow([net, mode] + [f"{v:.6f}" for v in loss])
            except Exception as e:  # one failing network must not lose the others' rows
                row = {"network": net, "mode": mode, "status": f"error: {type(e).__name__}: {e}"[:300]}
            # Loss agreement, gconv vs stock in the same compile mode (stock runs first).
            stock = losses.get((net, mode.replace("gconv", "stock")))
            if mode.startswith("gconv") and stock and (net, mode) in losses:
                mine = losses[(net, mode)]
                row["loss_max_rel_diff"] = round(max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(mine, stock)), 5)
                row["loss_final_stock"], row["loss_final_gconv"] = round(stock[-1], 5), round(mine[-1], 5)
            append_row(rows_path, row)
            print(f"    {row}", file=sys.stderr, flush=True)
            torch.cuda.empty_cache()
    print(f"torch_train_step: rows in {rows_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
