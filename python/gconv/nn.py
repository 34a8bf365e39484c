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


def _base_of(cls):
    """The torch conv class that cls is or derives from."""
    return next(c for c in _SWAP if issubclass(cls, c))


def _keeps_torch_forward(cls) -> bool:
    """A subclass whose forward and _conv_forward are torch's own (e.g.
    torchvision's Conv3DSimple, which only adds a static helper): gconv's
    _conv_forward computes exactly what it would."""
    base = _base_of(cls)
    return cls.forward is base.forward and cls._conv_forward is base._conv_forward


def _unpickle_swapped(cls):
    """pickle / copy.deepcopy of a swapped subclass instance: a new object of
    its gconv class (state set by nn.Module.__setstate__ after this)."""
    return object.__new__(_swapped_class(cls))


def _reduce_swapped(self, protocol):
    return _unpickle_swapped, (self._gconv_user_class,), self.__getstate__()


_SUBCLASSES = {}


def _swapped_class(cls):
    """gconv's class for a subclass cls of a torch conv class: (_GconvConv,
    cls), so isinstance(m, cls) still holds and cls's own methods stay.
    Made once per cls; such objects pickle through cls (importable), not
    through this class (made at run time)."""
    if cls not in _SUBCLASSES:
        # Same name as cls: the module's repr does not change (as for the
        # three gconv classes); __module__ tells them apart.
        _SUBCLASSES[cls] = type(cls.__name__, (_GconvConv, cls), {
            "__module__": __name__,
            "_gconv_user_class": cls,
            "__reduce_ex__": _reduce_swapped,
        })
    return _SUBCLASSES[cls]


@dataclass
class ConvertReport:
    swapped: list = field(default_factory=list)  # (module name, "Conv2d(64, 64, ...)")
    skipped: list = field(default_factory=list)  # (module name, reason)

    def __str__(self):
        lines = [f"gconv.convert: swapped {len(self.swapped)} conv(s), skipped {len(self.skipped)}"]
        lines += [f"  skipped {name or '<model>'}: {why}" for name, why in self.skipped]
        return "\n".join(lines)


def _skip_reason(m: torch.nn.Module):
    cls = type(m)
    if cls not in _SWAP and not _keeps_torch_forward(cls):
        return f"{cls.__name__} is a subclass of {_base_of(cls).__name__} that overrides forward or " \
               "_conv_forward; only torch.nn.Conv1d/2d/3d and subclasses with their forward are swapped"
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
    channels-last. Subclasses that keep torch's forward and _conv_forward
    are swapped too (their class becomes a gconv subclass of theirs, so
    isinstance and their other methods hold). Returns what was swapped and
    what was skipped, and why (subclasses that override forward, complex or
    float64 weights, transposed convs); verbose=True prints the report to
    stderr."""
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
        cls = type(m)
        m.__class__ = _SWAP[cls] if cls in _SWAP else _swapped_class(cls)
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
