"""gconv.conv: torch.nn.functional.conv1d/2d/3d's arguments, gconv's kernels."""
from __future__ import annotations

import torch

from . import ops
from ._shapes import conv_params


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


_args_cache: dict = {}


def _conv_args(x, weight, stride, padding, dilation, groups) -> tuple:
    """The ops' (stride, pad_lo, pad_hi, dilation, groups) after the checks
    that need only shapes; remembered per (shapes, arguments) when those hash."""
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
        # Eager, plain CUDA tensors: the checks that depend only on shapes and
        # arguments are cached; dtypes are checked by the op's own cache.
        cast = _autocast_dtype()
        if cast is not None:
            x, weight, bias = _cast(x, cast), _cast(weight, cast), _cast(bias, cast)
        try:
            args = _args_cache[(x.shape, weight.shape, stride, padding, dilation, groups)]
        except (KeyError, TypeError):  # TypeError: a list argument, not hashable
            args = _conv_args(x, weight, stride, padding, dilation, groups)
            try:
                _args_cache[(x.shape, weight.shape, stride, padding, dilation, groups)] = args
            except TypeError:
                pass
        if torch.is_grad_enabled() and (x.requires_grad or weight.requires_grad or
                                        (bias is not None and bias.requires_grad)):
            return ops.EagerConv.apply(x, weight, bias, *args)
        return ops.fwd_impl(x, weight, bias, *args)

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
    return ops.conv_fwd(x, weight, bias, *_conv_args(x, weight, stride, padding, dilation, groups))
