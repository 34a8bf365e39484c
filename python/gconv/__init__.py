"""gconv for PyTorch: grouped convolution kernels for NVIDIA Hopper.

    import gconv
    gconv.convert(model)              # swap torch.nn.Conv1d/2d/3d for gconv's, in place
    gconv.warmup(model, (x,))         # compile the model's kernels up front
    y = gconv.conv(x, w, groups=32)   # functional, like torch.nn.functional.conv2d
    gconv.select((32, 256, 56, 56), (256, 8, 3, 3), padding=1, groups=32).kernel

`import gconv` needs neither torch nor a GPU: selection (gconv.select,
gconv.rank, gconv.is_supported) works without both. The torch parts (conv,
nn, convert, warmup, ops) are imported on first use and need torch >= 2.4.
docs/python.md has the layouts, fallbacks and environment variables.
"""
from __future__ import annotations

import importlib

from ._lib import GconvError, library_path, version
from ._select import Selection, is_supported, rank, select

__all__ = ["GconvError", "Selection", "select", "rank", "is_supported", "library_path", "version", "conv",
           "convert", "warmup", "nn", "ops", "functional"]

_LAZY = {  # name -> (module, attribute or None for the module itself)
    "conv": ("functional", "conv"),
    "convert": ("nn", "convert"),
    "warmup": ("_warmup", "warmup"),
    "nn": ("nn", None),
    "ops": ("ops", None),
    "functional": ("functional", None),
}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'gconv' has no attribute {name!r}")
    module, attr = _LAZY[name]
    mod = importlib.import_module(f".{module}", __name__)
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value
    return value
