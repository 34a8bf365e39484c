"""The per-call path (gconv._runtime and gconv.conv's eager branch) without a
GPU: on CPU tensors, with plan creation, the C run entry (gconv_plan_run)
and the stream query replaced, check what it hands the library (the plan,
channels-last 16-byte aligned operands, an output of the right shape and
strides, a workspace of the plan's size), that a repeated signature is
served from its cache, that backward entries are made only for the
gradients needed, and that the bias is added once."""
import ctypes

import pytest
import torch

import gconv
from gconv import _runtime as rt, functional, ops


class FakePlan:
    made = []

    def __init__(self, key, ws=0):
        self.key, self.ws, self.address = key, ws, 0x1000 + 16 * len(FakePlan.made)
        FakePlan.made.append(key)
        self.solution = type("S", (), {"kernel": "fake_kernel"})()
        self.problem = type("P", (), {"spec": "fake_" + key[11]})()


@pytest.fixture
def lib(monkeypatch):
    """Records every gconv_plan_run; each run zero-fills its output (the
    fake kernel computes 0), so what the Python side adds is visible."""
    seen = {"runs": [], "entries": [], "plans": {}, "ws": 0, "status": 0}
    make_entry = rt.make_entry

    def counting_make_entry(direction, *args):
        seen["entries"].append(direction)
        return make_entry(direction, *args)

    def fake_plan(device, key):
        return seen["plans"].setdefault(key, FakePlan(key, seen["ws"]))

    def plan_run(plan, a, b, out, ws, ws_bytes, stream):
        seen["runs"].append(dict(plan=plan, a=a, b=b, out=out, ws=ws, ws_bytes=ws_bytes, stream=stream))
        key = next(k for k, p in seen["plans"].items() if p.address == plan)
        if seen["status"] == 0 and key[11] == "fwd":  # y: N * K * out volume fp32 elements
            ctypes.memset(out, 0, key[1] * key[3] * seen["out_volume"] * 4)
        return seen["status"]

    monkeypatch.setattr(rt, "_entries", {})
    monkeypatch.setattr(functional, "_entries", {})
    monkeypatch.setattr(rt, "make_entry", counting_make_entry)
    monkeypatch.setattr(rt, "plan", fake_plan)
    monkeypatch.setattr(rt, "_plan_run", plan_run)
    monkeypatch.setattr(rt, "_raw_stream", lambda index: 77)
    monkeypatch.setattr(rt, "_check_operands", lambda op, *t, **k: ops._DTYPES[t[0].dtype])
    # CPU tensors stand in for CUDA ones on gconv.conv's eager branch.
    monkeypatch.setattr(ops, "eager_path_ok", lambda x, w, bias=None: True)
    return seen


def cl(*shape):
    return torch.randn(*shape).to(memory_format=torch.channels_last)


def test_fwd_converts_once_and_caches(lib):
    x = torch.randn(2, 8, 9, 7)  # contiguous NCHW: must be copied to channels-last
    w = cl(12, 4, 3, 3)
    lib["out_volume"] = 5 * 4
    for _ in range(3):
        y = rt.run_conv("fwd", x, w, None, [2, 2], [1, 1], [1, 1], [1, 1], 2)
    assert lib["entries"] == ["fwd"] and len(lib["runs"]) == 3
    (key, plan), = lib["plans"].items()
    assert key == (2, 2, 8, 12, 2, (1, 9, 7), (1, 3, 3), (1, 2, 2), (0, 1, 1), (0, 1, 1), (1, 1, 1), "fwd", "fp32")
    run = lib["runs"][-1]
    assert run["plan"] == plan.address and run["stream"] == 77 and run["ws"] is None and run["ws_bytes"] == 0
    assert run["a"] != x.data_ptr() and run["a"] % 16 == 0  # the channels-last copy
    assert run["b"] == w.data_ptr()  # already channels-last and aligned: used in place
    assert run["out"] == y.data_ptr()
    assert y.shape == (2, 12, 5, 4) and rt.is_channels_last(y)
    assert y.stride() == ops.empty_channels_last(x, [2, 12, 5, 4]).stride()


def test_backward_directions_take_the_given_size(lib):
    dy, w, x = cl(2, 12, 5, 4), cl(12, 4, 3, 3), cl(2, 8, 9, 7)
    dx = rt.run_conv("bwd_data", dy, w, [2, 8, 9, 7], [2, 2], [1, 1], [1, 1], [1, 1], 2)
    dw = rt.run_conv("bwd_weight", x, dy, [12, 4, 3, 3], [2, 2], [1, 1], [1, 1], [1, 1], 2)
    assert dx.shape == x.shape and rt.is_channels_last(dx)
    assert dw.shape == w.shape and rt.is_channels_last(dw)
    keys = list(lib["plans"])
    assert keys[0][5:7] == ((1, 9, 7), (1, 3, 3)) and keys[0][11] == "bwd_data"
    assert keys[1][5:7] == ((1, 9, 7), (1, 3, 3)) and keys[1][11] == "bwd_weight"
    assert [r["a"] for r in lib["runs"]] == [dy.data_ptr(), x.data_ptr()]


def test_misaligned_view_is_copied(lib):
    w = cl(8, 8, 1, 1)
    big = torch.randn(1 + 2 * 8 * 4 * 4)
    x = big[1:].view(2, 4, 4, 8).permute(0, 3, 1, 2)  # channels-last strides, 4 bytes past alignment
    assert rt.is_channels_last(x) and x.data_ptr() % 16 != 0
    lib["out_volume"] = 4 * 4
    rt.run_conv("fwd", x, w, None, [1, 1], [0, 0], [0, 0], [1, 1], 1)
    a = lib["runs"][0]["a"]
    assert a % 16 == 0 and a != x.data_ptr()


def test_workspace_of_the_plan_size_is_passed(lib):
    lib["ws"], lib["out_volume"] = 4096, 4 * 4
    x, w = cl(1, 8, 4, 4), cl(8, 8, 1, 1)
    rt.run_conv("fwd", x, w, None, [1, 1], [0, 0], [0, 0], [1, 1], 1)
    run = lib["runs"][0]
    assert run["ws"] is not None and run["ws"] % 16 == 0 and run["ws_bytes"] == 4096


def test_failed_run_raises_with_kernel_and_problem(lib):
    lib["status"] = 6  # cuda_error
    with pytest.raises(gconv.GconvError, match="running fake_kernel on fake_fwd") as e:
        rt.run_conv("fwd", cl(1, 8, 4, 4), cl(8, 8, 1, 1), None, [1, 1], [0, 0], [0, 0], [1, 1], 1)
    assert e.value.status == "cuda_error"


def test_empty_batch_gives_zeros_without_launch(lib):
    x = torch.randn(0, 8, 5, 5)
    dy = torch.randn(0, 8, 5, 5)
    dw = rt.run_conv("bwd_weight", x, dy, [8, 8, 1, 1], [1, 1], [0, 0], [0, 0], [1, 1], 1)
    assert lib["runs"] == [] and lib["plans"] == {}
    assert dw.shape == (8, 8, 1, 1) and torch.count_nonzero(dw) == 0


def test_conv_caches_per_signature(lib):
    x, w = cl(2, 8, 6, 6), cl(8, 2, 3, 3)
    lib["out_volume"] = 6 * 6
    for _ in range(3):
        gconv.conv(x, w, padding=1, groups=4)
    assert lib["entries"] == ["fwd"] and len(functional._entries) == 1
    gconv.conv(x.contiguous(), w, padding=1, groups=4)  # another layout: another entry, same plan
    assert lib["entries"] == ["fwd", "fwd"] and len(lib["plans"]) == 1
    gconv.conv(x, w, padding=[1, 1], groups=4)  # a list does not hash: served by the runtime's cache
    assert len(functional._entries) == 2 and lib["entries"] == ["fwd", "fwd"]


def test_bias_is_added_once_and_its_gradient_is_the_sum(lib):
    x = cl(2, 8, 5, 5).requires_grad_()
    w = cl(6, 4, 3, 3).requires_grad_()
    b = torch.randn(6, requires_grad=True)
    lib["out_volume"] = 3 * 3
    y = gconv.conv(x, w, b, groups=2)
    # The fake kernel computes 0: what remains is exactly one bias add.
    assert torch.equal(y.detach(), b.detach().view(1, 6, 1, 1).expand(2, 6, 3, 3))
    assert rt.is_channels_last(y)
    dy = cl(2, 6, 3, 3)
    gx, gw, gb = torch.autograd.grad(y, (x, w, b), dy)
    assert torch.allclose(gb, dy.sum((0, 2, 3)))
    assert gx.shape == x.shape and gw.shape == w.shape
    assert lib["entries"] == ["fwd", "bwd_data", "bwd_weight"]


def test_backward_makes_only_the_entries_it_needs(lib):
    x = cl(2, 8, 5, 5)  # an input without grad (the first layer)
    w = cl(8, 8, 1, 1).requires_grad_()
    lib["out_volume"] = 5 * 5
    for _ in range(2):
        y = gconv.conv(x, w)
        y.backward(cl(2, 8, 5, 5))
    assert lib["entries"] == ["fwd", "bwd_weight"]  # no bwd_data plan: never selected nor compiled
    assert [k[11] for k in lib["plans"]] == ["fwd", "bwd_weight"]
    assert len(lib["runs"]) == 4


def test_registered_op_runs_the_runtime_once_per_call(lib, monkeypatch):
    # Without a gradient to record, the op's autograd kernel calls the
    # implementation itself (no redispatch): one run a call, the bias added
    # once; with one, the autograd node's forward runs it once too.
    x, w, b = cl(2, 8, 5, 5), cl(6, 4, 3, 3), torch.randn(6)
    lib["out_volume"] = 3 * 3
    conv = ([1, 1], [0, 0], [0, 0], [1, 1], 2)

    def no_redispatch(*args):
        raise AssertionError("redispatched")

    with torch.no_grad(), monkeypatch.context() as m:
        m.setattr(ops, "conv_fwd", type("Op", (), {"redispatch": staticmethod(no_redispatch)})())
        y = torch.ops.gconv.conv_fwd(x, w, b, *conv)
    assert len(lib["runs"]) == 1 and rt.is_channels_last(y)
    assert torch.equal(y, b.view(1, 6, 1, 1).expand(2, 6, 3, 3))
    xg = x.clone().requires_grad_()
    y = torch.ops.gconv.conv_fwd(xg, w, b, *conv)
    assert len(lib["runs"]) == 2 and "conv_fwd" in y.grad_fn.name()
    assert torch.equal(y.detach(), b.view(1, 6, 1, 1).expand(2, 6, 3, 3))


def test_op_calls_its_implementation_only_straight_above_the_backend():
    # The autograd kernel's shortcut: plain CPU / CUDA tensors go to the
    # implementation; anything with a kernel between autograd and the
    # backend (fake tensors, meta, a dispatch mode, a negative view) is
    # redispatched as before.
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils._python_dispatch import TorchDispatchMode

    keys = torch._C._dispatch_keys
    x = torch.randn(2, 3)
    assert ops._goes_to_impl(keys(x)) and ops._goes_to_impl(keys(torch.nn.Parameter(x)))
    assert not ops._goes_to_impl(keys(x.to("meta")))
    assert not ops._goes_to_impl(keys(x._neg_view()))
    with FakeTensorMode() as mode:
        assert not ops._goes_to_impl(keys(mode.from_tensor(x)))

    seen = []

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    # Under a mode the op reaches the mode (then the implementation, which
    # rejects CPU tensors with its usual message).
    x, w = torch.randn(1, 4, 5, 5), torch.randn(4, 4, 1, 1)
    with Mode(), pytest.raises(RuntimeError, match="must be on a CUDA GPU"):
        torch.ops.gconv.conv_fwd(x, w, None, [1, 1], [0, 0], [0, 0], [1, 1], 1)
    assert seen == ["gconv.conv_fwd.default"]
