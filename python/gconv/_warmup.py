"""gconv.warmup: select and compile, before the first step, every kernel a
model's gconv convolutions will run, so no training step pays for NVRTC."""
from __future__ import annotations

import concurrent.futures
import os
import sys
import time

import torch

from . import _lib, nn, ops


def _fake_forward(model, inputs) -> None:
    # Shapes only: FakeTensorMode runs the forward without touching memory
    # or the GPU (parameters are faked on the fly).
    from torch._subclasses.fake_tensor import FakeTensorMode
    with torch.no_grad(), FakeTensorMode(allow_non_fake_inputs=True) as mode:
        model(*[mode.from_tensor(t) if isinstance(t, torch.Tensor) else t for t in inputs])


def collect(model: torch.nn.Module, example_inputs, dtype=None, backward: bool = True) -> list:
    """The problem keys (fwd and, with backward, bwd_data and bwd_weight) of
    every gconv.nn convolution model(*example_inputs) runs. dtype: the dtype
    the convolutions will compute in (e.g. torch.bfloat16 for a model
    trained under bf16 autocast); None = what the forward sees."""
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    rec = nn._Recorder(dtype, backward)
    nn._recorder = rec
    try:
        _fake_forward(model, example_inputs)
    finally:
        nn._recorder = None
    return list(rec.keys)


class _Progress:
    """A one-line progress bar on stderr (a line per step when not a terminal)."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.enabled, self.t0 = total, enabled, time.monotonic()
        self.tty = sys.stderr.isatty()

    def step(self, done: int, what: str) -> None:
        if not self.enabled:
            return
        width = 30
        bar = "#" * (width * done // max(self.total, 1))
        line = f"gconv warmup [{bar:<{width}}] {done}/{self.total} {time.monotonic() - self.t0:5.1f}s {what}"
        if self.tty:
            sys.stderr.write("\r" + line[:160].ljust(160) + ("\n" if done == self.total else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


def _compile(key: tuple, device: torch.device, dtype) -> None:
    """Runs the problem once on scratch tensors: the first run compiles (or
    loads from the JIT cache) its kernel."""
    ndim, n, c, k, g, in3, f3 = key[:7]
    direction = key[11]
    sp = list(in3[3 - ndim:])
    fsp = list(f3[3 - ndim:])
    p = ops._params(key[7][3 - ndim:], key[8][3 - ndim:], key[9][3 - ndim:], key[10][3 - ndim:], g)
    x = ops.empty_channels_last(torch.empty(0, dtype=dtype, device=device), [n, c, *sp]).zero_()
    w = ops.empty_channels_last(x, [k, c // g, *fsp]).zero_()
    y = ops.empty_channels_last(x, [n, k, *p.out_size(sp, fsp)]).zero_()
    a, b, out = {"fwd": (x, w, y), "bwd_data": (y, w, x), "bwd_weight": (x, y, w)}[direction]
    ops._launch(key, a, b, out)


def warmup(model: torch.nn.Module, example_inputs, dtype=None, backward: bool = True, device=None,
           progress: bool = True, jobs: int = 0) -> list:
    """Pre-selects (and, on a GPU, compiles and loads) the kernels of every
    gconv convolution that model(*example_inputs) runs, forward and (with
    backward) both backward directions, with a progress bar on stderr.
    Compiled kernels persist in the JIT cache ($GCONV_CACHE_DIR, else
    $XDG_CACHE_HOME/gconv), so a second process loads them in milliseconds.
    jobs: problems compiled at once (0 = one per CPU core; NVRTC runs with
    the GIL released). Without a GPU the kernels are selected only.
    Returns one dict per problem, in the order the forward meets them:
    spec, kernel, seconds."""
    keys = collect(model, example_inputs, dtype, backward)
    if device is None:
        device = next((p.device for p in model.parameters() if p.device.type == "cuda"), None)
        if device is None and torch.cuda.is_available():
            device = torch.device("cuda", torch.cuda.current_device())
    on_gpu = device is not None and device.type == "cuda"
    dtypes = {v: k for k, v in ops._DTYPES.items()}

    def one(key):
        t0 = time.monotonic()
        if on_gpu:
            _compile(key, device, dtypes[key[12]])
            kernel = ops.plan(device, key).solution.kernel
        else:
            from ._select import registry
            kernel = registry().select(_lib.Problem.from_fields(*key), ops.POLICY).kernel
        return {"spec": _lib.Problem.from_fields(*key).spec, "kernel": kernel, "seconds": time.monotonic() - t0}

    bar = _Progress(len(keys), progress)
    results = [None] * len(keys)
    workers = 1 if not on_gpu else (jobs or os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(one, key): i for i, key in enumerate(keys)}
        for done, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            results[futures[fut]] = fut.result()
            bar.step(done, results[futures[fut]]["spec"])
    if on_gpu:
        torch.cuda.synchronize(device)
    return results
