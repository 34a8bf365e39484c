"""Convolution parameters in PyTorch's terms -> gconv problem fields.

Pure Python (no torch): used by the ops, their fake implementations (where
sizes may be SymInts, so only + - * // are used on them), gconv.select and
the tests. PyTorch lists sizes per spatial dim (D, H, W); gconv stores 3
right-aligned slots (gconv.h convention 8), filled here.
"""
from __future__ import annotations

from dataclasses import dataclass


def expand(value, ndim: int, name: str) -> tuple:
    """An int or a sequence of ndim ints -> a tuple of ndim ints."""
    if isinstance(value, int):
        return (value,) * ndim
    t = tuple(value)
    if len(t) == 1:
        return t * ndim
    if len(t) != ndim:
        raise ValueError(f"gconv: {name} has {len(t)} entries for a {ndim}D convolution")
    return t


@dataclass(frozen=True)
class ConvParams:
    """Everything that fixes a convolution but the tensors: padding already
    resolved to (lo, hi) per dim, so 'same' with an even kernel is exact."""

    ndim: int
    stride: tuple
    pad_lo: tuple
    pad_hi: tuple
    dilation: tuple
    groups: int

    def out_size(self, in_size: tuple, kernel: tuple) -> list:
        """Output spatial sizes (PyTorch's formula, asymmetric padding)."""
        return [(in_size[i] + self.pad_lo[i] + self.pad_hi[i] - self.dilation[i] * (kernel[i] - 1) - 1)
                // self.stride[i] + 1 for i in range(self.ndim)]


def conv_params(ndim: int, kernel: tuple, stride=1, padding=0, dilation=1, groups: int = 1) -> ConvParams:
    """padding: an int, a sequence of ints (symmetric, as torch.nn.functional
    takes), a sequence of (lo, hi) pairs, or 'same' / 'valid' as in PyTorch
    ('same' needs stride 1 and pads the odd extra element at the end)."""
    if ndim not in (1, 2, 3):
        raise ValueError(f"gconv: {ndim}D convolution (1D, 2D and 3D are supported)")
    stride = expand(stride, ndim, "stride")
    dilation = expand(dilation, ndim, "dilation")
    if isinstance(padding, str):
        if padding == "valid":
            lo = hi = (0,) * ndim
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise ValueError("gconv: padding='same' needs stride 1 (as in PyTorch)")
            total = [dilation[i] * (kernel[i] - 1) for i in range(ndim)]
            lo = tuple(t // 2 for t in total)
            hi = tuple(t - t // 2 for t in total)
        else:
            raise ValueError(f"gconv: padding={padding!r} (an int, a sequence, 'same' or 'valid')")
    elif not isinstance(padding, int) and len(padding) and not isinstance(padding[0], int):
        pairs = tuple(tuple(p) for p in padding)
        if len(pairs) != ndim or any(len(p) != 2 for p in pairs):
            raise ValueError(f"gconv: padding pairs {padding!r} need one (lo, hi) per spatial dim")
        lo, hi = tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    else:
        lo = hi = expand(padding, ndim, "padding")
    if groups < 1:
        raise ValueError(f"gconv: groups ({groups}) must be positive")
    return ConvParams(ndim, tuple(stride), tuple(lo), tuple(hi), tuple(dilation), groups)


def slots3(values, fill: int) -> tuple:
    """Right-align ndim values into gconv's 3 slots."""
    values = tuple(int(v) for v in values)
    return (fill,) * (3 - len(values)) + values


def problem_key(direction: str, dtype: str, x_shape, w_shape, p: ConvParams) -> tuple:
    """The fields of gconv_problem_create for a conv with input x_shape
    (N, C, *spatial) and weight w_shape (K, C/G, *kernel), as a hashable key
    (the op's selection cache is keyed by it)."""
    n, c = int(x_shape[0]), int(x_shape[1])
    k = int(w_shape[0])
    return (p.ndim, n, c, k, p.groups, slots3(x_shape[2:], 1), slots3(w_shape[2:], 1), slots3(p.stride, 1),
            slots3(p.pad_lo, 0), slots3(p.pad_hi, 0), slots3(p.dilation, 1), direction, dtype)
