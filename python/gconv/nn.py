"""gconv.nn.Conv1d / Conv2d / Conv3d and gconv.convert(model).

The modules ARE torch.nn.Conv1d/2d/3d (subclasses with the same constructor,
parameters, state_dict and repr); only the convolution runs on gconv. Their
weight is kept channels-last, so gconv reads it and writes its gradient
without a copy. Explicit fallbacks, documented in docs/python.md:
  - a non-CUDA input (CPU, meta) runs PyTorch's own convolution;
  - padding_mode 'reflect' / 'replicate' / 'circular' pads with F.pad
    (as PyTorch does), then gconv convolves without padding.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from . import functional, ops
from ._shapes import conv_params, problem_key

# Set by gconv.warmup while it records the convolutions a model runs.
_recorder = None


class _GconvConv:
    """The gconv forward of the three classes below (a mixin before torch's
    ConvNd in the MRO: its _conv_forward replaces torch's)."""

    def _gconv_input(self, input):
        if self.padding_mode != "zeros":
            return F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), 0
        return input, self.padding

    def _conv_forward(self, input, weight, bias):
        x, padding = self._gconv_input(input)
        if _recorder is not None:
            _recorder.record(x, weight, self.stride, padding, self.dilation, self.groups)
        if x.device.type != "cuda":
            return super()._conv_forward(input, weight, bias)  # the documented fallback
        return functional.conv(x, weight, bias, self.stride, padding, self.dilation, self.groups)

    def _gconv_channels_last(self):
        # In place on .data: the Parameter object (and an optimizer holding it) stays the same.
        self.weight.data = ops.to_channels_last(self.weight.data)


class Conv1d(_GconvConv, torch.nn.Conv1d):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._gconv_channels_last()


class Conv2d(_GconvConv, torch.nn.Conv2d):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._gconv_channels_last()


class Conv3d(_GconvConv, torch.nn.Conv3d):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._gconv_channels_last()


_SWAP = {torch.nn.Conv1d: Conv1d, torch.nn.Conv2d: Conv2d, torch.nn.Conv3d: Conv3d}


@dataclass
class ConvertReport:
    swapped: list = field(default_factory=list)  # (module name, "Conv2d(64, 64, ...)")
    skipped: list = field(default_factory=list)  # (module name, reason)

    def __str__(self):
        lines = [f"gconv.convert: swapped {len(self.swapped)} conv(s), skipped {len(self.skipped)}"]
        lines += [f"  skipped {name or '<model>'}: {why}" for name, why in self.skipped]
        return "\n".join(lines)


def _skip_reason(m: torch.nn.Module):
    if type(m) not in _SWAP:
        return f"{type(m).__name__} is a subclass of {next(c.__name__ for c in _SWAP if isinstance(m, c))} " \
               "(it may override forward); only exact torch.nn.Conv1d/2d/3d are swapped"
    if m.weight.is_complex():
        return "complex weights"
    if m.weight.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        return f"dtype {m.weight.dtype} (gconv computes bfloat16, float16, float32)"
    if m.in_channels % m.groups or m.out_channels % m.groups:
        return "channels not divisible by groups"
    return None


def convert(model: torch.nn.Module, verbose: bool = False) -> ConvertReport:
    """Makes every eligible torch.nn.Conv1d/2d/3d of model (model itself
    included) a gconv module in place: the object, its parameters (same
    Parameter objects, so an optimizer made before keeps working), buffers,
    hooks and state_dict keys and values stay; the weight is made
    channels-last. Returns what was swapped and what was skipped, and why
    (subclasses of the conv classes, complex or float64 weights, transposed convs);
    verbose=True prints the report to stderr."""
    report = ConvertReport()
    for name, m in model.named_modules():
        if isinstance(m, torch.nn.modules.conv._ConvTransposeNd):
            report.skipped.append((name, f"{type(m).__name__}: transposed convolutions are not swapped"))
            continue
        if not isinstance(m, tuple(_SWAP)) or isinstance(m, _GconvConv):
            continue
        why = _skip_reason(m)
        if why is not None:
            report.skipped.append((name, why))
            continue
        m.__class__ = _SWAP[type(m)]
        m._gconv_channels_last()
        report.swapped.append((name, repr(m)))
    if verbose:
        print(report, file=sys.stderr)
    return report


class _Recorder:
    """The distinct gconv problems (fwd, bwd_data, bwd_weight) a model's
    forward runs, as problem keys (gconv._shapes.problem_key)."""

    def __init__(self, dtype=None, backward: bool = True):
        self.dtype, self.backward = dtype, backward
        self.keys = {}  # ordered set

    def record(self, x, weight, stride, padding, dilation, groups):
        dtype = self.dtype
        if dtype is None:
            dtype = functional._autocast_dtype() if x.device.type == "cuda" else None
            dtype = dtype or x.dtype
        name = ops._DTYPES.get(dtype)
        if name is None:
            return  # a dtype gconv does not run: the forward would raise, not warm up
        p = conv_params(x.dim() - 2, tuple(weight.shape[2:]), stride, padding, dilation, groups)
        directions = ("fwd", "bwd_data", "bwd_weight") if self.backward else ("fwd",)
        for d in directions:
            self.keys[problem_key(d, name, x.shape, weight.shape, p)] = None
