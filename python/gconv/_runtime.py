"""The machinery under gconv's ops: layouts, per-problem plans (a kernel
selected and loaded once per GPU and problem: gconv.h's gconv_plan_t), and
the per-call path: an Entry per operand signature (shapes, strides, dtypes,
devices, conv arguments) holds everything derived from it, so a repeated call
costs one dict lookup, the output allocation and one ctypes call
(gconv_plan_run, which neither selects, allocates nor locks)."""
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


# ---- plans ------------------------------------------------------------------

class _Plan:
    """A problem's C handles on one GPU: the selection (its kernel name,
    reason, predicted time) and the loaded plan that runs it."""
    __slots__ = ("reg", "problem", "solution", "handle", "address", "ws")

    def __init__(self, reg, problem, solution):
        self.reg, self.problem, self.solution = reg, problem, solution
        self.handle = _lib.Plan(reg, problem, solution)  # compiles or loads the kernel
        self.address = self.handle.address
        self.ws = self.handle.workspace_bytes


_plans: dict = {}
_plans_lock = threading.Lock()
_device_registries: dict = {}
# The C entry of every run (bound when the first plan is made: _lib.fast_plan_run,
# which keeps the GIL through the launch, as PyTorch's own launches do).
_plan_run = None
# The current CUDA stream of a device, as an int (a cudaStream_t).
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _registry_for(device: torch.device) -> _lib.Registry:
    """One registry per GPU, created while that GPU is current (arch "" =
    the current device: its arch and its SM count, clocks, memory)."""
    with _plans_lock:
        reg = _device_registries.get(device.index)
        if reg is None:
            with torch.cuda.device(device):
                reg = _device_registries[device.index] = _lib.Registry()
    return reg


def plan(device: torch.device, key: tuple) -> _Plan:
    """The plan of problem `key` (_shapes.problem_key) on `device`: selected
    with POLICY and loaded on first use. Made outside the lock, so that
    warmup's threads compile different kernels at once (two threads racing
    for one key both build; the first stored wins)."""
    global _plan_run
    p = _plans.get((device.index, key))
    if p is None:
        reg = _registry_for(device)
        prob = _lib.Problem.from_fields(*key)
        with torch.cuda.device(device):  # a plan belongs to the device current at its creation
            made = _Plan(reg, prob, reg.select(prob, POLICY))
        with _plans_lock:
            p = _plans.setdefault((device.index, key), made)
        if _plan_run is None:
            _plan_run = _lib.fast_plan_run()
    return p


def _launch(key: tuple, a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    """Runs the problem `key` on channels-last, 16-byte aligned operands
    (warmup and the benchmarks; the ops go through run_conv)."""
    if a.numel() == 0 or b.numel() == 0:  # an empty batch (gconv rejects N = 0): sums over nothing
        out.zero_()
        return
    pl = plan(out.device, key)
    ws = torch.empty(pl.ws, dtype=torch.uint8, device=out.device) if pl.ws else None
    pl.handle.run(a.data_ptr(), b.data_ptr(), out.data_ptr(), None if ws is None else ws.data_ptr(), pl.ws,
                  _raw_stream(out.device.index))


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
_MAX_ENTRIES = 4096  # dynamic shapes could grow a cache without bound: start over past this
_UINT8 = torch.uint8


def _dense_strides(stored) -> list:
    """Contiguous strides as PyTorch computes them (a size-0 dim counts as 1),
    so the output's strides equal empty_channels_last's, the fake impls'."""
    st, acc = [0] * len(stored), 1
    for i in reversed(range(len(stored))):
        st[i] = acc
        acc *= max(int(stored[i]), 1)
    return st


class Entry:
    """Everything one call needs, derived once from an operand signature:
    the plan (its address; 0 for an empty batch: zeros, no launch), the
    output's size and channels-last strides, whether each operand is already
    channels-last, the conv arguments (for the backward entries, made on
    first use per dy layout) and, for fwd, the bias view's shape."""
    __slots__ = ("plan", "ws", "size", "stride", "dtype", "device", "index", "a_ok", "b_ok", "owner", "params",
                 "bias_shape", "sum_dims", "bwd")

    def __repr__(self):
        spec = self.owner.problem.spec if self.owner else "empty batch"
        return f"<gconv entry {spec}>"


def make_entry(direction: str, a: torch.Tensor, b: torch.Tensor, bias, size, stride, pad_lo, pad_hi, dilation,
               groups: int) -> Entry:
    """The Entry of one call; raises for operands gconv cannot compute, so
    a cached entry needs no further checks."""
    dtype = _check_operands(_OP_NAMES[direction], a, b, bias)
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != b.shape[0]):
        raise ValueError(f"gconv::conv_fwd: bias of shape {tuple(bias.shape)} for {b.shape[0]} output channels")
    p = _params(stride, pad_lo, pad_hi, dilation, groups)
    if direction == "fwd":
        x_shape, w_shape = a.shape, b.shape
        out_shape = [a.shape[0], b.shape[0], *p.out_size(a.shape[2:], b.shape[2:])]
    elif direction == "bwd_data":
        x_shape, w_shape, out_shape = list(size), b.shape, list(size)
    else:
        x_shape, w_shape, out_shape = a.shape, list(size), list(size)
    e = Entry()
    e.owner = None if a.numel() == 0 or b.numel() == 0 else plan(a.device, problem_key(direction, dtype, x_shape,
                                                                                         w_shape, p))
    e.plan = e.owner.address if e.owner else 0
    e.ws = e.owner.ws if e.owner else 0
    nd = len(out_shape) - 2
    stored_strides = _dense_strides([out_shape[0], *out_shape[2:], out_shape[1]])
    e.size = tuple(int(v) for v in out_shape)
    e.stride = (stored_strides[0], stored_strides[-1], *stored_strides[1:-1])
    e.dtype, e.device, e.index = a.dtype, a.device, a.device.index
    e.a_ok, e.b_ok = is_channels_last(a), is_channels_last(b)
    e.params = (p.stride, p.pad_lo, p.pad_hi, p.dilation, groups)
    e.bias_shape = (1, -1, *([1] * nd))
    e.sum_dims = (0, *range(2, nd + 2))
    e.bwd = {}
    return e


def _failed(status: int, e: Entry) -> None:
    _lib.check(status, f"running {e.owner.solution.kernel} on {e.owner.problem.spec}")


def execute(e: Entry, a: torch.Tensor, b: torch.Tensor, bias=None) -> torch.Tensor:
    """Runs entry e on its operands: a new channels-last output (plus the
    bias, fwd only). Operands not channels-last, or not 16-byte aligned, are
    copied first. Every call of every path ends here: module globals are
    read at call time (the tests replace some), attributes once each."""
    ap = a.data_ptr()
    if ap & 15 or not e.a_ok:
        a = to_channels_last(a)
        ap = a.data_ptr()
    bp = b.data_ptr()
    if bp & 15 or not e.b_ok:
        b = to_channels_last(b)
        bp = b.data_ptr()
    out = torch.empty_strided(e.size, e.stride, dtype=e.dtype, device=e.device)
    pl = e.plan
    if not pl:
        out.zero_()
    else:
        ws = e.ws
        if ws:  # from PyTorch's caching allocator, stream-ordered like the output
            work = torch.empty(ws, dtype=_UINT8, device=e.device)  # alive until the launch is queued
            status = _plan_run(pl, ap, bp, out.data_ptr(), work.data_ptr(), ws, _raw_stream(e.index))
        else:
            status = _plan_run(pl, ap, bp, out.data_ptr(), None, 0, _raw_stream(e.index))
        if status:
            _failed(status, e)
    if bias is not None:  # the kernels have no bias epilogue: one broadcast add in place, out stays channels-last
        out.add_(bias.view(e.bias_shape))
    return out


# The forward with its bias: execute itself (one Python frame less per call).
fwd = execute


def backward_entry(e: Entry, slot: int, dy: torch.Tensor, x: torch.Tensor, w: torch.Tensor) -> Entry:
    """The bwd_data (slot 0) or bwd_weight (slot 1) entry of forward entry e
    for this dy's layout (x and w are the forward's, so their layouts are the
    ones e was made for); made on first use, so a direction never needed
    (frozen weights, an input without grad) is never selected or compiled."""
    sig = (dy.stride(), dy.dtype, dy.get_device())
    pair = e.bwd.get(sig)
    if pair is None:
        pair = e.bwd[sig] = [None, None]
    be = pair[slot]
    if be is None:
        if slot == 0:
            be = make_entry("bwd_data", dy, w, None, x.shape, *e.params)
        else:
            be = make_entry("bwd_weight", x, dy, None, w.shape, *e.params)
        pair[slot] = be
    return be


_entries: dict = {}


def lookup(direction: str, a: torch.Tensor, b: torch.Tensor, bias, size, stride, pad_lo, pad_hi, dilation,
           groups: int) -> Entry:
    """The cached Entry of a call of the registered ops (whose arguments
    arrive as lists)."""
    sig = (direction, a.shape, a.stride(), a.dtype, a.get_device(), b.shape, b.stride(), b.dtype, b.get_device(),
           None if bias is None else (bias.shape, bias.dtype, bias.get_device()),
           None if size is None else tuple(size), tuple(stride), tuple(pad_lo), tuple(pad_hi), tuple(dilation),
           groups)
    e = _entries.get(sig)
    if e is None:
        e = make_entry(direction, a, b, bias, size, stride, pad_lo, pad_hi, dilation, groups)
        if len(_entries) >= _MAX_ENTRIES:
            _entries.clear()
        _entries[sig] = e
    return e


def run_conv(direction: str, a: torch.Tensor, b: torch.Tensor, size, stride, pad_lo, pad_hi, dilation,
             groups: int, bias=None) -> torch.Tensor:
    """One direction on CUDA tensors (operands per gconv.h convention 10;
    size = x's size for bwd_data, w's for bwd_weight, None for fwd; bias
    only for fwd); the result is a new channels-last tensor."""
    return execute(lookup(direction, a, b, bias, size, stride, pad_lo, pad_hi, dilation, groups), a, b, bias)
