"""gconv's convolutions as PyTorch custom ops (torch.library, torch >= 2.4).

  gconv::conv_fwd(x, w, bias?, stride, pad_lo, pad_hi, dilation, groups) -> y
  gconv::conv_bwd_data(dy, w, x_size, stride, pad_lo, pad_hi, dilation, groups) -> dx
  gconv::conv_bwd_weight(x, dy, w_size, stride, pad_lo, pad_hi, dilation, groups) -> dw

Each has a fake implementation (shapes and strides only), so torch.compile
traces them without graph breaks and FakeTensorMode / meta tensors work;
conv_fwd has an autograd kernel (backward = the two other ops, the bias
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

from typing import Optional

import torch

from . import _runtime as _rt
# Re-exported: the layout helpers and the runtime are part of gconv.ops.
from ._runtime import (_DTYPES, POLICY, _check_operands, _launch, _params, empty_channels_last,  # noqa: F401
                       is_channels_last, plan, run_conv, to_channels_last)

# ---- the ops ----------------------------------------------------------------
# Defined through torch.library.Library, not torch.library.custom_op: a
# custom_op call costs ~9 us of Python wrappers (an aliasing check of every
# output, a redispatch through its autograd wrapper) before the
# implementation runs, also inside compiled graphs, where every convolution
# of a training step goes through these ops; a Library op with a Python
# kernel costs ~2.4 us (bench/torch_overhead_host.py). The schemas are the
# ones custom_op inferred (SymInt[] lists, so dynamic shapes trace).

_LIB = torch.library.Library("gconv", "DEF")
_CONV = "SymInt[] stride, SymInt[] pad_lo, SymInt[] pad_hi, SymInt[] dilation, SymInt groups"
_LIB.define(f"conv_fwd(Tensor x, Tensor w, Tensor? bias, {_CONV}) -> Tensor")
_LIB.define(f"conv_bwd_data(Tensor dy, Tensor w, SymInt[] x_size, {_CONV}) -> Tensor")
_LIB.define(f"conv_bwd_weight(Tensor x, Tensor dy, SymInt[] w_size, {_CONV}) -> Tensor")


# The implementations are run_conv inlined (one Python frame less a call).
def fwd_impl(x: torch.Tensor, w: torch.Tensor, bias: Optional[torch.Tensor], stride: list[int],
             pad_lo: list[int], pad_hi: list[int], dilation: list[int], groups: int) -> torch.Tensor:
    return _rt.execute(_rt.lookup("fwd", x, w, bias, None, stride, pad_lo, pad_hi, dilation, groups), x, w, bias)


def bwd_data_impl(dy: torch.Tensor, w: torch.Tensor, x_size: list[int], stride: list[int], pad_lo: list[int],
                  pad_hi: list[int], dilation: list[int], groups: int) -> torch.Tensor:
    return _rt.execute(_rt.lookup("bwd_data", dy, w, None, x_size, stride, pad_lo, pad_hi, dilation, groups), dy, w)


def bwd_weight_impl(x: torch.Tensor, dy: torch.Tensor, w_size: list[int], stride: list[int], pad_lo: list[int],
                    pad_hi: list[int], dilation: list[int], groups: int) -> torch.Tensor:
    return _rt.execute(_rt.lookup("bwd_weight", x, dy, None, w_size, stride, pad_lo, pad_hi, dilation, groups), x, dy)


# Every backend (a CPU tensor reaches the runtime's checks, which say why it cannot run).
_LIB.impl("conv_fwd", fwd_impl, "CompositeExplicitAutograd")
_LIB.impl("conv_bwd_data", bwd_data_impl, "CompositeExplicitAutograd")
_LIB.impl("conv_bwd_weight", bwd_weight_impl, "CompositeExplicitAutograd")

conv_fwd = torch.ops.gconv.conv_fwd.default
conv_bwd_data = torch.ops.gconv.conv_bwd_data.default
conv_bwd_weight = torch.ops.gconv.conv_bwd_weight.default


@torch.library.register_fake("gconv::conv_fwd", lib=_LIB)
def _(x, w, bias, stride, pad_lo, pad_hi, dilation, groups):
    _check_operands("conv_fwd", x, w, bias, fake=True)
    p = _params(stride, pad_lo, pad_hi, dilation, groups)
    return empty_channels_last(x, [x.shape[0], w.shape[0], *p.out_size(x.shape[2:], w.shape[2:])])


@torch.library.register_fake("gconv::conv_bwd_data", lib=_LIB)
def _(dy, w, x_size, stride, pad_lo, pad_hi, dilation, groups):
    _check_operands("conv_bwd_data", dy, w, fake=True)
    return empty_channels_last(dy, x_size)


@torch.library.register_fake("gconv::conv_bwd_weight", lib=_LIB)
def _(x, dy, w_size, stride, pad_lo, pad_hi, dilation, groups):
    _check_operands("conv_bwd_weight", x, dy, fake=True)
    return empty_channels_last(x, w_size)


# ---- autograd ---------------------------------------------------------------
# conv_fwd's Autograd kernel: without a gradient to record (grad mode off, as
# inside compiled graphs, or no operand requiring one) it goes straight to
# the backend kernel; otherwise it records gconv_conv_fwd, whose backward is
# the two other ops (the bias gradient a sum over dy). The backward ops have
# no autograd formula (a second derivative raises).

class gconv_conv_fwd(torch.autograd.Function):  # noqa: N801 (grad_fn's name: gconv_conv_fwdBackward)
    @staticmethod
    def forward(x, w, bias, stride, pad_lo, pad_hi, dilation, groups):
        with _below_autograd():
            return conv_fwd(x, w, bias, stride, pad_lo, pad_hi, dilation, groups)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, w, bias, stride, pad_lo, pad_hi, dilation, groups = inputs
        ctx.save_for_backward(x, w)
        ctx.conv = (stride, pad_lo, pad_hi, dilation, groups)

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        dx = dw = db = None
        if ctx.needs_input_grad[0]:
            dx = conv_bwd_data(dy, w, list(x.shape), *ctx.conv)
        if ctx.needs_input_grad[1]:
            dw = conv_bwd_weight(x, dy, list(w.shape), *ctx.conv)
        if ctx.needs_input_grad[2]:  # False when there is no bias
            db = dy.sum(dim=[0, *range(2, dy.dim())])
        return dx, dw, db, None, None, None, None, None


_below_autograd = torch._C._AutoDispatchBelowAutograd
_after_autograd = torch._C._after_autograd_keyset
_grad_on = torch.is_grad_enabled
# Keys below autograd that every dense tensor carries and that have no kernel
# for these ops (the dispatcher falls through them).
_FALLTHROUGH = (torch._C.DispatchKey.ADInplaceOrView, torch._C.DispatchKey.BackendSelect)
_BACKENDS = (torch._C.DispatchKey.CUDA, torch._C.DispatchKey.CPU)  # where fwd_impl is the kernel
_direct_keysets: dict = {}  # DispatchKeySet.raw_repr() -> the redispatch would reach fwd_impl at once


def _goes_to_impl(keys) -> bool:
    """True when a redispatch below autograd with these keys would go
    straight to the backend kernel (fwd_impl): no dispatch mode, tensor
    subclass (FakeTensor), functionalization, functorch layer or lazy
    conj/neg view in between. Cached per key set: the key set test is a
    few pybind calls, its raw bits one."""
    raw = keys.raw_repr()
    direct = _direct_keysets.get(raw)
    if direct is None:
        below = keys & _after_autograd
        for k in _FALLTHROUGH:
            below = below.remove(k)
        direct = _direct_keysets[raw] = below.highestPriorityTypeId() in _BACKENDS
    return direct


def _fwd_autograd(keys, x, w, bias, stride, pad_lo, pad_hi, dilation, groups):
    if _grad_on() and (x.requires_grad or w.requires_grad or (bias is not None and bias.requires_grad)):
        return gconv_conv_fwd.apply(x, w, bias, stride, pad_lo, pad_hi, dilation, groups)
    # Nothing to record. When the next kernel is the backend's (plain CUDA
    # tensors, as in a compiled graph), it is called here: a redispatch
    # through the dispatcher into a second Python kernel costs ~5 us more
    # (bench/torch_overhead_host.py). Otherwise (fake tensors, modes, ...)
    # on to the kernel below autograd.
    if _goes_to_impl(keys):
        return fwd_impl(x, w, bias, stride, pad_lo, pad_hi, dilation, groups)
    return conv_fwd.redispatch(keys & _after_autograd, x, w, bias, stride, pad_lo, pad_hi, dilation, groups)


_LIB.impl("conv_fwd", _fwd_autograd, "Autograd", with_keyset=True)


# ---- the eager fast path --------------------------------------------------
# A custom op costs tens of microseconds of Python dispatch per call; in eager
# mode on plain CUDA tensors gconv.conv calls the runtime directly with the
# call's cached Entry (through this autograd.Function when a gradient is
# needed). Under torch.compile, FakeTensorMode or any other dispatch mode,
# functorch transforms, and for tensor subclasses, the ops above are used, so
# tracing sees them.

class EagerConv(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, bias, e):
        ctx.save_for_backward(x, w)
        ctx.entry = e
        return _rt.fwd(e, x, w, bias)

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        e = ctx.entry
        need = ctx.needs_input_grad
        dx = _rt.execute(_rt.backward_entry(e, 0, dy, x, w), dy, w) if need[0] else None
        dw = _rt.execute(_rt.backward_entry(e, 1, dy, x, w), x, dy) if need[1] else None
        db = dy.sum(e.sum_dims) if need[2] else None
        return dx, dw, db, None


def _c_apply():
    """Function.apply without its Python wrapper: the wrapper binds default
    arguments (EagerConv has no setup_context: nothing to bind) and unwraps
    dead functorch wrappers through a pytree walk (eager_path_ok sends every
    call made under a functorch transform to the ops instead), several
    microseconds per call. The C apply it ends in is this one."""
    try:
        apply = super(torch.autograd.Function, EagerConv).apply
        return apply if getattr(apply, "__self__", None) is EagerConv else EagerConv.apply
    except AttributeError:
        return EagerConv.apply


eager_conv = _c_apply()

_dispatch_depth = getattr(torch._C, "_len_torch_dispatch_stack", None)
_functorch_active = getattr(torch._C, "_are_functorch_transforms_active", None)
_is_compiling = torch.compiler.is_compiling
# Tensor types the implementations may see directly (a module's weight is a
# Parameter); any other subclass (FakeTensor, DTensor, ...) goes through the op.
_PLAIN = (torch.Tensor, torch.nn.Parameter)


def eager_path_ok(x, w, bias=None) -> bool:
    """True when calling the implementations directly is equivalent to the ops."""
    if _is_compiling():  # first: dynamo folds it to True and traces nothing after it
        return False
    if type(x) not in _PLAIN or type(w) not in _PLAIN or not x.is_cuda or not w.is_cuda:
        return False
    if _dispatch_depth() or _functorch_active():
        return False
    return bias is None or (type(bias) in _PLAIN and bias.is_cuda)


if _dispatch_depth is None or _functorch_active is None:  # an older PyTorch: no telling, always the ops
    def eager_path_ok(x, w, bias=None) -> bool:  # noqa: F811
        """Always False: this PyTorch cannot tell dispatch modes and functorch transforms."""
        return False
