"""The per-call path (gconv._runtime.run_conv) without a GPU: on CPU
tensors, with the library calls replaced, check what it hands the library
(channels-last, 16-byte aligned operands; an output of the right shape and
strides) and that a repeated signature is served from its cache."""
import pytest
import torch

from gconv import _runtime as rt


@pytest.fixture
def launches(monkeypatch):
    seen = {"launch": [], "entries": 0}
    make_entry = rt._make_entry

    def counting_make_entry(*args):
        seen["entries"] += 1
        return make_entry(*args)

    monkeypatch.setattr(rt, "_entries", {})
    monkeypatch.setattr(rt, "_make_entry", counting_make_entry)
    monkeypatch.setattr(rt, "_check_operands", lambda op, *t, **k: "fp32")  # CPU tensors stand in for CUDA ones
    monkeypatch.setattr(rt, "plan", lambda device, key: ("plan", key))
    monkeypatch.setattr(rt, "_launch_plan", lambda pl, a, b, out: seen["launch"].append((pl[1], a, b, out)))
    return seen


def test_fwd_converts_once_and_caches(launches):
    x = torch.randn(2, 8, 9, 7)  # contiguous NCHW: must be copied to channels-last
    w = torch.randn(12, 4, 3, 3).to(memory_format=torch.channels_last)
    for _ in range(3):
        y = rt.run_conv("fwd", x, w, None, [2, 2], [1, 1], [1, 1], [1, 1], 2)
    assert launches["entries"] == 1 and len(launches["launch"]) == 3
    key, a, b, out = launches["launch"][0]
    assert key == (2, 2, 8, 12, 2, (1, 9, 7), (1, 3, 3), (1, 2, 2), (0, 1, 1), (0, 1, 1), (1, 1, 1), "fwd", "fp32")
    assert rt.is_channels_last(a) and torch.equal(a, x)
    assert b is w  # already channels-last and aligned: used in place
    assert out is not None and y.shape == (2, 12, 5, 4) and rt.is_channels_last(y)


def test_backward_directions_take_the_given_size(launches):
    dy = torch.randn(2, 12, 5, 4).to(memory_format=torch.channels_last)
    w = torch.randn(12, 4, 3, 3).to(memory_format=torch.channels_last)
    x = torch.randn(2, 8, 9, 7).to(memory_format=torch.channels_last)
    dx = rt.run_conv("bwd_data", dy, w, [2, 8, 9, 7], [2, 2], [1, 1], [1, 1], [1, 1], 2)
    dw = rt.run_conv("bwd_weight", x, dy, [12, 4, 3, 3], [2, 2], [1, 1], [1, 1], [1, 1], 2)
    assert dx.shape == x.shape and rt.is_channels_last(dx)
    assert dw.shape == w.shape and rt.is_channels_last(dw)
    keys = [k for k, *_ in launches["launch"]]
    assert keys[0][5:7] == ((1, 9, 7), (1, 3, 3)) and keys[0][11] == "bwd_data"
    assert keys[1][5:7] == ((1, 9, 7), (1, 3, 3)) and keys[1][11] == "bwd_weight"


def test_misaligned_view_is_copied(launches):
    w = torch.randn(8, 8, 1, 1).to(memory_format=torch.channels_last)
    big = torch.randn(1 + 2 * 8 * 4 * 4)
    x = big[1:].view(2, 4, 4, 8).permute(0, 3, 1, 2)  # channels-last strides, 4 bytes past alignment
    assert rt.is_channels_last(x) and x.data_ptr() % 16 != 0
    rt.run_conv("fwd", x, w, None, [1, 1], [0, 0], [0, 0], [1, 1], 1)
    _, a, _, _ = launches["launch"][0]
    assert a.data_ptr() % 16 == 0 and torch.equal(a, x)


def test_empty_batch_gives_zeros_without_launch(launches):
    x = torch.randn(0, 8, 5, 5)
    dy = torch.randn(0, 8, 5, 5)
    dw = rt.run_conv("bwd_weight", x, dy, [8, 8, 1, 1], [1, 1], [0, 0], [0, 0], [1, 1], 1)
    assert launches["launch"] == [] and dw.shape == (8, 8, 1, 1) and torch.count_nonzero(dw) == 0
