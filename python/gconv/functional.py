"""gconv.conv: torch.nn.functional.conv1d/2d/3d's arguments, gconv's kernels."""
from __future__ import annotations

import torch

from . import _runtime, ops
from ._shapes import conv_params

_grad_enabled = torch.is_grad_enabled
_any_autocast = getattr(torch._C, "_is_any_autocast_enabled", None)
_autocast_on = torch.is_autocast_enabled


def _autocast_dtype():
    """The dtype CUDA autocast would compute a conv in, or None when it is off
    (convolutions are on autocast's lower-precision list)."""
    if torch.is_autocast_enabled("cuda"):
        return torch.get_autocast_dtype("cuda")
    return None


_CASTABLE = (torch.float32, torch.float16, torch.bfloat16)


def _cast(t, dtype):
    """Autocast's rule: floating-point tensors other than float64 are cast;
    anything else (complex, float64) is left for the dtype check to reject."""
    return t.to(dtype) if t is not None and t.dtype in _CASTABLE else t


def _conv_args(x, weight, stride, padding, dilation, groups) -> tuple:
    """The ops' (stride, pad_lo, pad_hi, dilation, groups) after the checks
    that need only shapes."""
    if x.dim() not in (3, 4, 5) or weight.dim() != x.dim():
        raise ValueError(f"gconv.conv: x of {x.dim()} dims and weight of {weight.dim()} dims "
                         "(want both 3, 4 or 5: N, C, *spatial and K, C/groups, *kernel)")
    if x.shape[1] != weight.shape[1] * groups:
        raise ValueError(f"gconv.conv: x has {x.shape[1]} channels, weight {tuple(weight.shape)} with groups={groups} "
                         f"expects {weight.shape[1] * groups}")
    if weight.shape[0] % groups != 0:
        raise ValueError(f"gconv.conv: out_channels ({weight.shape[0]}) is not divisible by groups ({groups})")
    p = conv_params(x.dim() - 2, tuple(weight.shape[2:]), stride, padding, dilation, groups)
    return list(p.stride), list(p.pad_lo), list(p.pad_hi), list(p.dilation), groups


# The eager path's cache: the call's signature (operand shapes, strides,
# dtypes, devices and the conv arguments as given) -> its runtime Entry, so a
# repeated call builds one tuple and does one lookup before it allocates and
# launches. Arguments given as lists do not hash: those calls build the
# Entry's key in the runtime instead (a few microseconds more).
_entries: dict = {}
_MAX_ENTRIES = 4096


def _new_entry(key, x, weight, bias, stride, padding, dilation, groups):
    """The Entry of a call not in _entries (stored there under key, unless
    key is None: a list argument, which the runtime's cache keys instead)."""
    e = _runtime.lookup("fwd", x, weight, bias, None, *_conv_args(x, weight, stride, padding, dilation, groups))
    if key is not None:
        if len(_entries) >= _MAX_ENTRIES:
            _entries.clear()
        _entries[key] = e
    return e


def conv(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, stride=1, padding=0, dilation=1,
         groups: int = 1) -> torch.Tensor:
    """A 1D, 2D or 3D convolution (by x.dim() = 3, 4, 5) with PyTorch's
    semantics: x (N, C, *spatial), weight (K, C/groups, *kernel), padding an
    int, a sequence, 'same' or 'valid'. bfloat16, float16 or float32 CUDA
    tensors; under torch.autocast('cuda') the operands are cast as PyTorch
    casts its own conv. Differentiable in x, weight and bias.

    The result is channels-last (memory_format=torch.channels_last for 2D);
    operands in another layout are copied to channels-last first. CPU,
    complex and other unsupported operands raise an error, never compute
    something else."""
    if ops.eager_path_ok(x, weight, bias):
        # Eager, plain CUDA tensors: everything derived from the operands'
        # signature is cached in their Entry (dtypes and devices checked
        # once). This is every eager convolution's per-call path, so the
        # lookup and the autocast test are inline, and the autocast test
        # asks first whether any autocast is on (one call without arguments).
        if (_any_autocast is None or _any_autocast()) and _autocast_on("cuda"):
            cast = torch.get_autocast_dtype("cuda")
            x, weight, bias = _cast(x, cast), _cast(weight, cast), _cast(bias, cast)
        try:
            key = (x.shape, x.stride(), x.dtype, x.get_device(), weight.shape, weight.stride(), weight.dtype,
                   weight.get_device(), None if bias is None else (bias.shape, bias.dtype, bias.get_device()),
                   stride, padding, dilation, groups)
            e = _entries.get(key)
        except TypeError:  # a list argument: the runtime's cache (a few microseconds more)
            key = e = None
        if e is None:
            e = _new_entry(key, x, weight, bias, stride, padding, dilation, groups)
        if _grad_enabled() and (x.requires_grad or weight.requires_grad or
                                (bias is not None and bias.requires_grad)):
            return ops.eager_conv(x, weight, bias, e)
        return _runtime.execute(e, x, weight, bias)

    if x.is_complex() or weight.is_complex():
        raise TypeError("gconv.conv: complex tensors are not supported (use torch.nn.functional.conv*)")
    for name, t in (("x", x), ("weight", weight), ("bias", bias)):
        if t is not None and t.device.type not in ("cuda", "meta"):
            raise RuntimeError(
                f"gconv.conv: {name} is on {t.device}; gconv runs on CUDA GPUs "
                f"(torch.cuda.is_available() is {torch.cuda.is_available()}). Use torch.nn.functional.conv{x.dim() - 2}d "
                "for CPU tensors.")
    cast = _autocast_dtype() if x.device.type == "cuda" else None
    if cast is not None:
        x, weight, bias = _cast(x, cast), _cast(weight, cast), _cast(bias, cast)
    args = _conv_args(x, weight, stride, padding, dilation, groups)
    if bias is not None and torch.compiler.is_compiling():
        # Traced: the bias add goes into the graph as a broadcast add beside
        # the op, so the compiler fuses it with what follows (a ReLU, a
        # residual add) instead of running it as a kernel of its own inside
        # the op; its gradient (a sum over dy) is the compiler's too. The op
        # is given the bias's checks.
        ops._check_operands("conv_fwd", x, weight, bias, fake=True)
        if bias.dim() != 1 or bias.shape[0] != weight.shape[0]:
            raise ValueError(f"gconv.conv: bias of shape {tuple(bias.shape)} for {weight.shape[0]} output channels")
        y = ops.conv_fwd(x, weight, None, *args)
        return y + bias.view(1, -1, *([1] * (x.dim() - 2)))
    return ops.conv_fwd(x, weight, bias, *args)
