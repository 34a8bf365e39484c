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
    if x.is_complex() or weight.is_complex():
        raise TypeError("gconv.conv: complex tensors are not supported (use torch.nn.functional.conv*)")
    if x.dim() not in (3, 4, 5) or weight.dim() != x.dim():
        raise ValueError(f"gconv.conv: x of {x.dim()} dims and weight of {weight.dim()} dims "
                         "(want both 3, 4 or 5: N, C, *spatial and K, C/groups, *kernel)")
    nd = x.dim() - 2
    if x.shape[1] != weight.shape[1] * groups:
        raise ValueError(f"gconv.conv: x has {x.shape[1]} channels, weight {tuple(weight.shape)} with groups={groups} "
                         f"expects {weight.shape[1] * groups}")
    if weight.shape[0] % groups != 0:
        raise ValueError(f"gconv.conv: out_channels ({weight.shape[0]}) is not divisible by groups ({groups})")
    for name, t in (("x", x), ("weight", weight), ("bias", bias)):
        if t is not None and t.device.type not in ("cuda", "meta"):
            raise RuntimeError(
                f"gconv.conv: {name} is on {t.device}; gconv runs on CUDA GPUs "
                f"(torch.cuda.is_available() is {torch.cuda.is_available()}). Use torch.nn.functional.conv{nd}d "
                "for CPU tensors.")
    cast = _autocast_dtype() if x.device.type == "cuda" else None
    if cast is not None:
        x, weight = x.to(cast), weight.to(cast)
        bias = bias.to(cast) if bias is not None else None
    p = conv_params(nd, tuple(weight.shape[2:]), stride, padding, dilation, groups)
    args = (x, weight, bias, list(p.stride), list(p.pad_lo), list(p.pad_hi), list(p.dilation), groups)
    if ops.eager_path_ok(x, weight, bias):
        if torch.is_grad_enabled() and (x.requires_grad or weight.requires_grad or
                                        (bias is not None and bias.requires_grad)):
            return ops.EagerConv.apply(*args)
        return ops.fwd_impl(*args)
    return ops.conv_fwd(*args)
