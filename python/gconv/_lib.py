"""ctypes binding of libgconv's C API (include/gconv/gconv.h).

The package talks to the library only through the C API: it is independent of
the Python and PyTorch ABI, so one libgconv.so serves every interpreter.
Nothing here imports torch.

Which library is loaded, first match wins:
  1. $GCONV_LIBRARY (a path to libgconv.so);
  2. the one installed inside the package by `pip install .` (gconv/_native);
  3. build/libgconv.so of the source checkout this file lives in (a developer
     running with PYTHONPATH=python after scripts/dev build).
"""
from __future__ import annotations

import ctypes
import glob
import os
import threading
from ctypes import POINTER, byref, c_char_p, c_double, c_int, c_int64, c_size_t, c_void_p

OK = 0
STATUS_NAMES = {
    1: "invalid_argument", 2: "invalid_problem", 3: "not_supported", 4: "parse_error", 5: "io_error",
    6: "cuda_error", 7: "compile_error", 8: "out_of_memory", 9: "internal", 10: "not_found", 11: "no_device",
}
ERR_NO_DEVICE = 11

DIRECTIONS = {"fwd": 0, "bwd_data": 1, "bwd_weight": 2}
DTYPES = {"bf16": 0, "fp16": 1, "fp32": 2}


class GconvError(RuntimeError):
    """A failed C API call: `status` is the gconv_status_t name, the message
    the library's one-line explanation (gconv_last_error)."""

    def __init__(self, status: int, message: str, call: str):
        self.status = STATUS_NAMES.get(status, f"status {status}")
        self.code = status
        super().__init__(f"gconv: {call} failed ({self.status}): {message}")


class _Options(ctypes.Structure):
    # Mirrors gconv_registry_options_t field for field (model_dir appended last).
    _fields_ = [("arch", c_char_p), ("kernel_filter", c_char_p), ("tuning_cache_path", c_char_p),
                ("workspace_limit", c_size_t), ("model_dir", c_char_p)]


def _candidates() -> list[str]:
    env = os.environ.get("GCONV_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    found = sorted(glob.glob(os.path.join(here, "_native", "lib*", "**", "libgconv.so*"), recursive=True))
    repo = os.path.dirname(os.path.dirname(here))
    found.append(os.path.join(repo, "build", "libgconv.so"))
    return found


# gconv_plan_run(plan, a, b, out, workspace, workspace_bytes, stream): the
# per-call entry. The plan is passed as a plain int (its address), like the
# data pointers, so a call converts no ctypes objects.
PLAN_RUN_ARGTYPES = [c_void_p, c_void_p, c_void_p, c_void_p, c_void_p, c_size_t, c_void_p]


def _declare(lib: ctypes.CDLL) -> None:
    P = c_void_p  # opaque handles
    sigs = {
        "gconv_version": (c_char_p, []),
        "gconv_last_error": (c_char_p, []),
        "gconv_status_name": (c_char_p, [c_int]),
        "gconv_problem_create": (c_int, [c_int, c_int64, c_int64, c_int64, c_int64] + [POINTER(c_int64)] * 6
                                 + [c_int, c_int, POINTER(P)]),
        "gconv_problem_create_from_spec": (c_int, [c_char_p, POINTER(P)]),
        "gconv_problem_destroy": (None, [P]),
        "gconv_problem_validate": (c_int, [P]),
        "gconv_problem_spec": (c_char_p, [P]),
        "gconv_problem_flops": (c_double, [P]),
        "gconv_registry_create": (c_int, [POINTER(_Options), POINTER(P)]),
        "gconv_registry_destroy": (None, [P]),
        "gconv_select": (c_int, [P, P, c_char_p, POINTER(P)]),
        "gconv_rank": (c_int, [P, P, c_char_p, c_size_t, POINTER(P), POINTER(c_size_t)]),
        "gconv_is_supported": (c_int, [P, P, POINTER(c_int)]),
        "gconv_solution_destroy": (None, [P]),
        "gconv_solution_kernel_name": (c_char_p, [P]),
        "gconv_solution_workspace_bytes": (c_size_t, [P]),
        "gconv_solution_predicted_ms": (c_double, [P]),
        "gconv_solution_measured_ms": (c_double, [P]),
        "gconv_solution_reason": (c_char_p, [P]),
        "gconv_run": (c_int, [P, P, P, c_void_p, c_void_p, c_void_p, c_void_p, c_size_t, c_void_p]),
        "gconv_plan_create": (c_int, [P, P, P, POINTER(P)]),
        "gconv_plan_destroy": (None, [P]),
        "gconv_plan_workspace_bytes": (c_size_t, [P]),
        "gconv_plan_kernel_name": (c_char_p, [P]),
        "gconv_plan_spec": (c_char_p, [P]),
        "gconv_plan_device": (c_int, [P]),
        "gconv_plan_run": (c_int, PLAN_RUN_ARGTYPES),
    }
    for name, (res, args) in sigs.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise ImportError(f"gconv: {lib._name} has no {name}: the library is older than this Python package; "
                              "rebuild it (scripts/dev build) or point GCONV_LIBRARY at a current one") from None
        fn.restype = res
        fn.argtypes = args


_lib = None
_lib_path = None
_load_lock = threading.Lock()


def lib() -> ctypes.CDLL:
    """The loaded library (loaded on first use, so `import gconv` never fails
    for want of it)."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _load_lock:
        if _lib is None:
            tried = []
            for path in _candidates():
                if not os.path.exists(path):
                    tried.append(f"{path} (missing)")
                    continue
                try:
                    loaded = ctypes.CDLL(path)
                except OSError as e:
                    tried.append(f"{path} ({e})")
                    continue
                _declare(loaded)
                _lib, _lib_path = loaded, path
                break
            else:
                raise ImportError("gconv: libgconv.so not found; set GCONV_LIBRARY to its path, install the package "
                                  "with `pip install .`, or build it (scripts/dev build). Tried: " + "; ".join(tried))
    return _lib


def bind_plan_run(path: str):
    """gconv_plan_run of the library at path, called with the GIL held (as
    PyTorch launches its kernels): a launch takes microseconds and never
    calls back into Python, while a CDLL call releases the GIL and must win
    it back after, which can take up to the switch interval (5 ms) when
    another Python thread (a data loader's) is waiting for it. Returns 0 or
    a gconv_status_t, as the C function does."""
    fn = ctypes.PyDLL(path).gconv_plan_run
    fn.restype = c_int
    fn.argtypes = PLAN_RUN_ARGTYPES
    return fn


def fast_plan_run():
    """The per-call entry of gconv._runtime: bind_plan_run of the loaded library."""
    lib()
    return bind_plan_run(_lib_path)


def library_path() -> str:
    lib()
    return _lib_path


def check(status: int, call: str) -> None:
    if status != OK:
        raise GconvError(status, lib().gconv_last_error().decode(errors="replace"), call)


def version() -> str:
    return lib().gconv_version().decode()


def _arr3(values) -> ctypes.Array:
    return (c_int64 * 3)(*values)


class Problem:
    """An owned gconv_problem_t. Sizes follow gconv.h convention 8: spatial
    lists of 3, outermost first, right-aligned (a 2D problem has slot 0 = 1)."""

    __slots__ = ("handle", "spec")

    def __init__(self, handle: int):
        self.handle = c_void_p(handle)
        self.spec = lib().gconv_problem_spec(self.handle).decode()

    @classmethod
    def from_fields(cls, ndim, n, c, k, g, in3, filter3, stride3, pad_lo3, pad_hi3, dil3, direction, dtype):
        h = c_void_p()
        check(lib().gconv_problem_create(ndim, n, c, k, g, _arr3(in3), _arr3(filter3), _arr3(stride3),
                                         _arr3(pad_lo3), _arr3(pad_hi3), _arr3(dil3), DIRECTIONS[direction],
                                         DTYPES[dtype], byref(h)), "gconv_problem_create")
        return cls(h.value)

    @classmethod
    def from_spec(cls, spec: str):
        h = c_void_p()
        check(lib().gconv_problem_create_from_spec(spec.encode(), byref(h)), "gconv_problem_create_from_spec")
        return cls(h.value)

    def validate(self) -> None:
        check(lib().gconv_problem_validate(self.handle), f"validating {self.spec}")

    def flops(self) -> float:
        return lib().gconv_problem_flops(self.handle)

    def __del__(self):
        if _lib is not None and self.handle:
            _lib.gconv_problem_destroy(self.handle)


class Solution:
    """An owned gconv_solution_t; its fields are copied out at creation."""

    __slots__ = ("handle", "kernel", "predicted_ms", "measured_ms", "workspace_bytes", "reason")

    def __init__(self, handle: int):
        L = lib()
        self.handle = c_void_p(handle)
        self.kernel = L.gconv_solution_kernel_name(self.handle).decode()
        self.predicted_ms = L.gconv_solution_predicted_ms(self.handle)
        self.measured_ms = L.gconv_solution_measured_ms(self.handle)
        self.workspace_bytes = L.gconv_solution_workspace_bytes(self.handle)
        self.reason = L.gconv_solution_reason(self.handle).decode()

    def __del__(self):
        if _lib is not None and self.handle:
            _lib.gconv_solution_destroy(self.handle)


class Plan:
    """An owned gconv_plan_t: a problem bound to its loaded kernel on one
    device (gconv.h convention 12). `address` is the handle as an int, what
    gconv_plan_run takes; the fields are copied out at creation."""

    __slots__ = ("handle", "address", "kernel", "spec", "workspace_bytes", "device")

    def __init__(self, registry: "Registry", problem: Problem, solution: "Solution | None" = None):
        L = lib()
        h = c_void_p()
        check(L.gconv_plan_create(registry.handle, problem.handle, solution.handle if solution else None, byref(h)),
              f"making a plan for {problem.spec}")
        self.handle = h
        self.address = h.value
        self.kernel = L.gconv_plan_kernel_name(h).decode()
        self.spec = L.gconv_plan_spec(h).decode()
        self.workspace_bytes = L.gconv_plan_workspace_bytes(h)
        self.device = L.gconv_plan_device(h)

    def run(self, a: int, b: int, out: int, workspace: int | None, workspace_bytes: int, stream: int) -> None:
        status = lib().gconv_plan_run(self.address, a, b, out, workspace, workspace_bytes, stream)
        if status != OK:
            check(status, f"running {self.kernel} on {self.spec}")

    def __del__(self):
        if _lib is not None and getattr(self, "address", None):
            _lib.gconv_plan_destroy(self.handle)


class Registry:
    """An owned gconv_registry_t for one arch ("" = the current device, or
    sm_90a without a GPU). Thread-safe, as the C API's registry is."""

    def __init__(self, arch: str | None = None, kernel_filter: str | None = None,
                 tuning_cache_path: str | None = None, workspace_limit: int = 0, model_dir: str | None = None):
        enc = lambda s: s.encode() if s else None  # noqa: E731
        opts = _Options(enc(arch), enc(kernel_filter), enc(tuning_cache_path), workspace_limit, enc(model_dir))
        h = c_void_p()
        check(lib().gconv_registry_create(byref(opts), byref(h)), "gconv_registry_create")
        self.handle = h

    def select(self, problem: Problem, policy: str = "heuristic") -> Solution:
        h = c_void_p()
        check(lib().gconv_select(self.handle, problem.handle, policy.encode(), byref(h)),
              f"selecting a kernel for {problem.spec}")
        return Solution(h.value)

    def rank(self, problem: Problem, policy: str = "heuristic", limit: int = 8) -> list[Solution]:
        out = (c_void_p * max(limit, 1))()
        count = c_size_t()
        check(lib().gconv_rank(self.handle, problem.handle, policy.encode(), limit, out, byref(count)),
              f"ranking kernels for {problem.spec}")
        return [Solution(out[i]) for i in range(count.value)]

    def is_supported(self, problem: Problem) -> bool:
        flag = c_int()
        check(lib().gconv_is_supported(self.handle, problem.handle, byref(flag)), f"is_supported({problem.spec})")
        return bool(flag.value)

    def run(self, solution: Solution, problem: Problem, a: int, b: int, out: int, workspace: int,
            workspace_bytes: int, stream: int) -> None:
        status = lib().gconv_run(self.handle, solution.handle, problem.handle, a, b, out, workspace, workspace_bytes,
                                 stream)
        if status != OK:  # the message is formatted only on failure: this is a per-call path
            check(status, f"running {solution.kernel} on {problem.spec}")

    def __del__(self):
        if _lib is not None and getattr(self, "handle", None):
            _lib.gconv_registry_destroy(self.handle)
