"""Kernel selection from Python: gconv.select / gconv.rank / gconv.is_supported.

Works without a GPU and without torch: the "heuristic" (learned model) and
"analytic" policies need neither; "exhaustive" and "topk:K" time kernels on
the GPU (or answer from the tuning cache).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

from . import _lib
from ._shapes import conv_params, problem_key

_registries: dict = {}
_registries_lock = threading.Lock()


def registry(arch: str | None = None) -> _lib.Registry:
    """The process's shared registry for arch (None = the current CUDA device,
    sm_90a without a GPU). Options come from the environment the library
    reads: GCONV_MODELS_DIR, GCONV_CACHE_DIR, GCONV_TUNING_CACHE."""
    key = arch or ""
    reg = _registries.get(key)
    if reg is None:
        with _registries_lock:
            reg = _registries.get(key)
            if reg is None:
                reg = _registries[key] = _lib.Registry(arch=arch)
    return reg


@dataclass(frozen=True)
class Selection:
    spec: str               # the problem, as a gconv spec
    kernel: str             # kernel name (naive_* = the general fallback)
    predicted_ms: float     # the model's (or analytic) estimate
    measured_ms: float      # -1 unless a measuring policy timed it
    workspace_bytes: int
    reason: str             # why it was chosen, one line

    @property
    def is_fallback(self) -> bool:
        return self.kernel.startswith("naive_")


def _dtype_name(dtype) -> str:
    if isinstance(dtype, str):
        if dtype not in _lib.DTYPES:
            raise ValueError(f"gconv: dtype {dtype!r} (bf16, fp16 or fp32)")
        return dtype
    names = {"torch.bfloat16": "bf16", "torch.float16": "fp16", "torch.float32": "fp32"}
    if str(dtype) not in names:
        raise TypeError(f"gconv: dtype {dtype} is not supported (bfloat16, float16, float32)")
    return names[str(dtype)]


def problem(input_shape=None, weight_shape=None, *, stride=1, padding=0, dilation=1, groups=1, dtype="bf16",
            direction="fwd", spec: str | None = None) -> _lib.Problem:
    """A validated gconv problem from PyTorch conv arguments (input
    (N, C, *spatial), weight (K, C/groups, *kernel)) or from a spec string."""
    if spec is not None:
        p = _lib.Problem.from_spec(spec)
    else:
        if input_shape is None or weight_shape is None:
            raise ValueError("gconv: give input_shape and weight_shape, or spec")
        if direction not in _lib.DIRECTIONS:
            raise ValueError(f"gconv: direction {direction!r} (fwd, bwd_data or bwd_weight)")
        ndim = len(input_shape) - 2
        params = conv_params(ndim, tuple(weight_shape[2:]), stride, padding, dilation, groups)
        p = _lib.Problem.from_fields(*problem_key(direction, _dtype_name(dtype), input_shape, weight_shape,
                                                  params))
    p.validate()
    return p


def _selection(p: _lib.Problem, s: _lib.Solution) -> Selection:
    return Selection(p.spec, s.kernel, s.predicted_ms, s.measured_ms, s.workspace_bytes, s.reason)


def select(input_shape=None, weight_shape=None, *, policy: str = "heuristic", arch: str | None = None,
           **conv) -> Selection:
    """The kernel gconv would run for this convolution.

        gconv.select((32, 256, 56, 56), (256, 8, 3, 3), padding=1, groups=32)
        gconv.select(spec="bwd_data_bf16_n32c256k256g32_h56w56_y3x3_s1_p1")

    conv: stride, padding (incl. 'same' / 'valid'), dilation, groups, dtype
    ('bf16', 'fp16', 'fp32' or a torch dtype), direction ('fwd', 'bwd_data',
    'bwd_weight'), spec. arch: e.g. 'sm_90a' (None = the current GPU)."""
    p = problem(input_shape, weight_shape, **conv)
    return _selection(p, registry(arch).select(p, policy))


def rank(input_shape=None, weight_shape=None, *, policy: str = "heuristic", limit: int = 8,
         arch: str | None = None, **conv) -> list:
    """The best `limit` candidates by the policy's estimate, best first (never
    measures; the analytic order breaks near-ties by the term the estimate's
    max() hides, so a predicted_ms may exceed the next one's by up to 1%)."""
    p = problem(input_shape, weight_shape, **conv)
    return [_selection(p, s) for s in registry(arch).rank(p, policy, limit)]


def is_supported(input_shape=None, weight_shape=None, *, arch: str | None = None, **conv) -> bool:
    """True when a pool kernel implements the problem; False when only the
    general fallback kernel does (it runs, slowly). An invalid problem raises
    GconvError."""
    return registry(arch).is_supported(problem(input_shape, weight_shape, **conv))
