"""The machinery under gconv's ops: layouts, per-problem plans (selected
once per GPU and problem), and run_conv, the per-call path with a cache of
everything derived from the operands' shapes, strides, dtype and device, so
a repeated call costs a dict lookup, an allocation and one ctypes call."""
from __future__ import annotations

import os
import threading

import torch

from . import _lib
from ._shapes import ConvParams, problem_key

_DTYPES = {torch.bfloat16: "bf16", torch.float16: "fp16", torch.float32: "fp32"}
# The policy the ops select with; "heuristic" needs no GPU time, "topk:K" /
# "exhaustive" time candidates once per problem (and keep them in the tuning cache).
POLICY = os.environ.get("GCONV_TORCH_POLICY", "heuristic")


# ---- layout -----------------------------------------------------------------

def _perm(ndim: int) -> tuple:
    """(N, C, *spatial) -> (N, *spatial, C)."""
    return (0, *range(2, ndim + 2), 1)


def _inverse(ndim: int) -> tuple:
    return (0, ndim + 1, *range(1, ndim + 1))


def is_channels_last(t: torch.Tensor) -> bool:
    return t.permute(_perm(t.dim() - 2)).is_contiguous()


def to_channels_last(t: torch.Tensor) -> torch.Tensor:
    """t itself when it is channels-last, dense and 16-byte aligned, else a
    channels-last copy in a fresh allocation (one copy, documented in
    docs/python.md; .contiguous() would not move a misaligned dense view)."""
    if is_channels_last(t) and (t.device.type == "meta" or t.data_ptr() % 16 == 0):
        return t
    return empty_channels_last(t, t.shape).copy_(t)


def empty_channels_last(like: torch.Tensor, shape) -> torch.Tensor:
    """An uninitialized tensor of logical shape (N, C, *spatial) stored
    channels-last; the real and the fake implementations both allocate with
    this, so their strides agree."""
    nd = len(shape) - 2
    stored = [shape[0], *shape[2:], shape[1]]
    return like.new_empty(stored).permute(_inverse(nd))


# ---- running --------------------------------------------------------------

class _Plan:
    """A problem's C handles, selected once per (device, problem)."""
    __slots__ = ("reg", "problem", "solution", "ws")

    def __init__(self, reg, problem, solution):
        self.reg, self.problem, self.solution = reg, problem, solution
        self.ws = solution.workspace_bytes


_plans: dict = {}
_plans_lock = threading.Lock()
_device_registries: dict = {}


def _registry_for(device: torch.device) -> _lib.Registry:
    """One registry per GPU, created while that GPU is current (arch "" =
    the current device: its arch and its SM count, clocks, memory)."""
    reg = _device_registries.get(device.index)
    if reg is None:
        with torch.cuda.device(device):
            reg = _device_registries[device.index] = _lib.Registry()
    return reg


def plan(device: torch.device, key: tuple) -> _Plan:
    p = _plans.get((device.index, key))
    if p is None:
        with _plans_lock:
            p = _plans.get((device.index, key))
            if p is None:
                reg = _registry_for(device)
                prob = _lib.Problem.from_fields(*key)
                p = _plans[(device.index, key)] = _Plan(reg, prob, reg.select(prob, POLICY))
    return p


def _stream(device: torch.device) -> int:
    return torch._C._cuda_getCurrentRawStream(device.index)


def _launch(key: tuple, a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    """Runs the problem `key` on channels-last, aligned operands."""
    if a.numel() == 0 or b.numel() == 0:  # an empty batch (gconv rejects N = 0): sums over nothing
        out.zero_()
        return
    _launch_plan(plan(out.device, key), a, b, out)


_current_device = torch._C._cuda_getDevice if hasattr(torch._C, "_cuda_getDevice") else torch.cuda.current_device


def _launch_plan(pl: _Plan, a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    dev = out.device
    if _current_device() != dev.index:  # gconv checks pointers against the current device
        with torch.cuda.device(dev):
            return _launch_plan(pl, a, b, out)
    ws = torch.empty(pl.ws, dtype=torch.uint8, device=dev) if pl.ws else None  # caching allocator
    status = _lib.lib().gconv_run(pl.reg.handle, pl.solution.handle, pl.problem.handle, a.data_ptr(), b.data_ptr(),
                                  out.data_ptr(), ws.data_ptr() if ws is not None else None, pl.ws, _stream(dev))
    if status != _lib.OK:
        _lib.check(status, f"running {pl.solution.kernel} on {pl.problem.spec}")


def _check_operands(op: str, *tensors: torch.Tensor, fake: bool = False) -> str:
    """The gconv dtype name; a clear error for what gconv cannot compute (the
    fake implementations check the dtypes too, so tracing fails early)."""
    first = tensors[0]
    for t in tensors:
        if t is None:
            continue
        if t.device.type != "cuda" and not fake:
            raise RuntimeError(
                f"gconv::{op}: tensors must be on a CUDA GPU, got one on {t.device} "
                f"(torch.cuda.is_available() is {torch.cuda.is_available()}); use torch.nn.functional.conv* "
                "on the CPU, or gconv.nn modules, which run PyTorch's conv for non-CUDA tensors")
        if t.device != first.device:
            raise RuntimeError(f"gconv::{op}: operands on {first.device} and {t.device}")
        if t.dtype != first.dtype:
            raise TypeError(f"gconv::{op}: operands of dtypes {first.dtype} and {t.dtype} (cast them to one)")
    if first.dtype not in _DTYPES:
        raise TypeError(f"gconv::{op}: dtype {first.dtype} is not supported (bfloat16, float16, float32)")
    return _DTYPES[first.dtype]


def _params(stride, pad_lo, pad_hi, dilation, groups) -> ConvParams:
    return ConvParams(len(stride), tuple(stride), tuple(pad_lo), tuple(pad_hi), tuple(dilation), groups)




# ---- the per-call path --------------------------------------------------------

_OP_NAMES = {"fwd": "conv_fwd", "bwd_data": "conv_bwd_data", "bwd_weight": "conv_bwd_weight"}
_entries: dict = {}
_MAX_ENTRIES = 4096  # dynamic shapes could grow it without bound: start over past this


def _make_entry(direction, a, b, size, stride, pad_lo, pad_hi, dilation, groups):
    """What run_conv needs for one operand signature; raises for operands
    gconv cannot compute (so a cached signature needs no further checks)."""
    dtype = _check_operands(_OP_NAMES[direction], a, b)
    p = _params(stride, pad_lo, pad_hi, dilation, groups)
    if direction == "fwd":
        x_shape, w_shape = a.shape, b.shape
        out_shape = [a.shape[0], b.shape[0], *p.out_size(a.shape[2:], b.shape[2:])]
    elif direction == "bwd_data":
        x_shape, w_shape, out_shape = list(size), b.shape, list(size)
    else:
        x_shape, w_shape, out_shape = a.shape, list(size), list(size)
    key = problem_key(direction, dtype, x_shape, w_shape, p)
    empty = a.numel() == 0 or b.numel() == 0
    pl = None if empty else plan(a.device, key)
    stored = [out_shape[0], *out_shape[2:], out_shape[1]]
    return is_channels_last(a), is_channels_last(b), stored, _inverse(p.ndim), pl


def run_conv(direction: str, a: torch.Tensor, b: torch.Tensor, size, stride, pad_lo, pad_hi, dilation,
             groups: int) -> torch.Tensor:
    """One direction on CUDA tensors (operands per gconv.h convention 10;
    size = x's size for bwd_data, w's for bwd_weight, None for fwd); the
    result is a new channels-last tensor."""
    sig = (direction, a.shape, a.stride(), a.dtype, a.device, b.shape, b.stride(), b.dtype, b.device,
           None if size is None else tuple(size), tuple(stride), tuple(pad_lo), tuple(pad_hi), tuple(dilation), groups)
    e = _entries.get(sig)
    if e is None:
        e = _make_entry(direction, a, b, size, stride, pad_lo, pad_hi, dilation, groups)
        if len(_entries) >= _MAX_ENTRIES:
            _entries.clear()
        _entries[sig] = e
    a_cl, b_cl, stored, inv, pl = e
    if not a_cl or a.data_ptr() & 15:
        a = to_channels_last(a)
    if not b_cl or b.data_ptr() & 15:
        b = to_channels_last(b)
    out = a.new_empty(stored).permute(inv)
    if pl is None:
        out.zero_()
    else:
        _launch_plan(pl, a, b, out)
    return out
