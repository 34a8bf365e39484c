"""gconv's convolutions as PyTorch custom ops (torch.library, torch >= 2.4).

  gconv::conv_fwd(x, w, bias?, stride, pad_lo, pad_hi, dilation, groups) -> y
  gconv::conv_bwd_data(dy, w, x_size, stride, pad_lo, pad_hi, dilation, groups) -> dx
  gconv::conv_bwd_weight(x, dy, w_size, stride, pad_lo, pad_hi, dilation, groups) -> dw

Each has a fake implementation (shapes and strides only), so torch.compile
traces them without graph breaks and FakeTensorMode / meta tensors work;
conv_fwd has autograd registered (backward = the two other ops, the bias
gradient a sum over dy). In eager mode gconv.conv skips the dispatcher (the
EagerConv path at the end of this file): same implementations, less overhead.

Layout: gconv computes on channels-last tensors (x N,[D,]H,W,C; w
K,[Z,]Y,X,C/G), which is what memory_format=torch.channels_last(_3d) holds.
Operands in any other layout are copied to channels-last once per call;
outputs are always channels-last (the fake implementations make the same
strides). Pointers that are not 16-byte aligned (a view at an odd offset)
are copied too.
"""
from __future__ import annotations

import os
import threading
from typing import Optional

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
    channels-last copy (one copy, documented in docs/python.md)."""
    nd = t.dim() - 2
    if is_channels_last(t) and (t.device.type == "meta" or t.data_ptr() % 16 == 0):
        return t
    return t.permute(_perm(nd)).contiguous().permute(_inverse(nd))


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
    if a.numel() == 0 or b.numel() == 0:  # an empty batch (gconv rejects N = 0): sums over nothing
        out.zero_()
        return
    dev = out.device
    if torch.cuda.current_device() != dev.index:  # gconv checks pointers against the current device
        with torch.cuda.device(dev):
            return _launch(key, a, b, out)
    pl = plan(dev, key)
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


# ---- the ops ----------------------------------------------------------------

def fwd_impl(x: torch.Tensor, w: torch.Tensor, bias: Optional[torch.Tensor], stride: list[int],
             pad_lo: list[int], pad_hi: list[int], dilation: list[int], groups: int) -> torch.Tensor:
    dtype = _check_operands("conv_fwd", x, w, bias)
    p = _params(stride, pad_lo, pad_hi, dilation, groups)
    x, w = to_channels_last(x), to_channels_last(w)
    y = empty_channels_last(x, [x.shape[0], w.shape[0], *p.out_size(x.shape[2:], w.shape[2:])])
    _launch(problem_key("fwd", dtype, x.shape, w.shape, p), x, w, y)
    if bias is not None:  # not fused: a broadcast add in place, y stays channels-last
        y.add_(bias.view(1, -1, *([1] * p.ndim)))
    return y


conv_fwd = torch.library.custom_op("gconv::conv_fwd", fwd_impl, mutates_args=())


@conv_fwd.register_fake
def _(x, w, bias, stride, pad_lo, pad_hi, dilation, groups):
    _check_operands("conv_fwd", x, w, bias, fake=True)
    p = _params(stride, pad_lo, pad_hi, dilation, groups)
    return empty_channels_last(x, [x.shape[0], w.shape[0], *p.out_size(x.shape[2:], w.shape[2:])])


def bwd_data_impl(dy: torch.Tensor, w: torch.Tensor, x_size: list[int], stride: list[int], pad_lo: list[int],
                  pad_hi: list[int], dilation: list[int], groups: int) -> torch.Tensor:
    dtype = _check_operands("conv_bwd_data", dy, w)
    p = _params(stride, pad_lo, pad_hi, dilation, groups)
    dy, w = to_channels_last(dy), to_channels_last(w)
    dx = empty_channels_last(dy, x_size)
    _launch(problem_key("bwd_data", dtype, x_size, w.shape, p), dy, w, dx)
    return dx


conv_bwd_data = torch.library.custom_op("gconv::conv_bwd_data", bwd_data_impl, mutates_args=())


@conv_bwd_data.register_fake
def _(dy, w, x_size, stride, pad_lo, pad_hi, dilation, groups):
    _check_operands("conv_bwd_data", dy, w, fake=True)
    return empty_channels_last(dy, x_size)


def bwd_weight_impl(x: torch.Tensor, dy: torch.Tensor, w_size: list[int], stride: list[int], pad_lo: list[int],
                    pad_hi: list[int], dilation: list[int], groups: int) -> torch.Tensor:
    dtype = _check_operands("conv_bwd_weight", x, dy)
    p = _params(stride, pad_lo, pad_hi, dilation, groups)
    x, dy = to_channels_last(x), to_channels_last(dy)
    dw = empty_channels_last(x, w_size)
    _launch(problem_key("bwd_weight", dtype, x.shape, w_size, p), x, dy, dw)
    return dw


conv_bwd_weight = torch.library.custom_op("gconv::conv_bwd_weight", bwd_weight_impl, mutates_args=())


@conv_bwd_weight.register_fake
def _(x, dy, w_size, stride, pad_lo, pad_hi, dilation, groups):
    _check_operands("conv_bwd_weight", x, dy, fake=True)
    return empty_channels_last(x, w_size)


# ---- autograd ---------------------------------------------------------------

def _setup_context(ctx, inputs, output):
    x, w, bias, stride, pad_lo, pad_hi, dilation, groups = inputs
    ctx.save_for_backward(x, w)
    ctx.conv = (stride, pad_lo, pad_hi, dilation, groups)
    ctx.has_bias = bias is not None


def _backward_with(ctx, dy, bwd_data, bwd_weight):
    x, w = ctx.saved_tensors
    dx = dw = db = None
    if ctx.needs_input_grad[0]:
        dx = bwd_data(dy, w, list(x.shape), *ctx.conv)
    if ctx.needs_input_grad[1]:
        dw = bwd_weight(x, dy, list(w.shape), *ctx.conv)
    if ctx.has_bias and ctx.needs_input_grad[2]:
        db = dy.sum(dim=[0, *range(2, dy.dim())])
    return dx, dw, db, None, None, None, None, None


def _backward(ctx, dy):
    return _backward_with(ctx, dy, conv_bwd_data, conv_bwd_weight)


conv_fwd.register_autograd(_backward, setup_context=_setup_context)


# ---- the eager fast path --------------------------------------------------
# A custom op costs tens of microseconds of Python dispatch per call; in eager
# mode on plain CUDA tensors gconv.conv calls the implementations directly
# (through this autograd.Function when a gradient is needed). Under
# torch.compile, FakeTensorMode or any other dispatch mode, and for tensor
# subclasses, the ops above are used, so tracing sees them.

class EagerConv(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, bias, stride, pad_lo, pad_hi, dilation, groups):
        y = fwd_impl(x, w, bias, stride, pad_lo, pad_hi, dilation, groups)
        _setup_context(ctx, (x, w, bias, stride, pad_lo, pad_hi, dilation, groups), y)
        return y

    @staticmethod
    def backward(ctx, dy):
        return _backward_with(ctx, dy, bwd_data_impl, bwd_weight_impl)


_dispatch_depth = getattr(torch._C, "_len_torch_dispatch_stack", None)


def eager_path_ok(*tensors) -> bool:
    """True when calling the implementations directly is equivalent to the ops."""
    if torch.compiler.is_compiling():  # first: dynamo folds it to True and traces nothing after it
        return False
    if _dispatch_depth is None or _dispatch_depth() != 0:
        return False
    return all(t is None or (type(t) is torch.Tensor and t.is_cuda) for t in tensors)
