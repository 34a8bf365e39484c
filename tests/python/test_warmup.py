"""gconv.warmup without a GPU: it finds every gconv convolution of a model
(forward and both backward directions, through a fake forward) and selects
their kernels; a progress bar goes to stderr."""
import torch

import gconv
from gconv._warmup import collect


def model():
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, stride=2, padding=1), torch.nn.ReLU(),
                            torch.nn.Conv2d(16, 16, 3, padding=1, groups=16),
                            torch.nn.Conv2d(16, 16, 3, padding=1, groups=16),  # same problem: counted once
                            torch.nn.Conv2d(16, 32, 1, padding_mode="circular"))
    gconv.convert(m)
    return m


def test_collect_finds_each_problem_once():
    keys = collect(model(), torch.randn(4, 3, 32, 32), dtype=torch.bfloat16)
    assert len(keys) == 3 * 3  # three distinct convs x (fwd, bwd_data, bwd_weight)
    first = keys[0]
    # (ndim, n, c, k, g, in, filter, stride, pad_lo, pad_hi, dilation, direction, dtype)
    assert first == (2, 4, 3, 16, 1, (1, 32, 32), (1, 3, 3), (1, 2, 2), (0, 1, 1), (0, 1, 1), (1, 1, 1), "fwd", "bf16")
    assert {k[11] for k in keys} == {"fwd", "bwd_data", "bwd_weight"}
    assert keys[3][:5] == (2, 4, 16, 16, 16)  # the depthwise conv on the 16x16 map
    assert keys[3][5] == (1, 16, 16)


def test_collect_forward_only_and_input_dtype():
    keys = collect(model(), (torch.randn(2, 3, 16, 16),), backward=False)
    assert [k[11] for k in keys] == ["fwd"] * 3
    assert {k[12] for k in keys} == {"fp32"}


def test_warmup_selects_without_gpu(capsys):
    done = gconv.warmup(model(), torch.randn(2, 3, 16, 16), dtype=torch.bfloat16)
    assert len(done) == 9
    assert all(d["kernel"] and "_bf16_" in d["spec"] for d in done)
    assert done[0]["spec"] == "fwd_bf16_n2c3k16g1_h16w16_y3x3_s2_p1_dil1"
    err = capsys.readouterr().err
    assert "gconv warmup [" in err and "9/9" in err


def test_compile_step_passes_each_direction_its_operands(monkeypatch):
    # warmup's GPU step runs every problem once on scratch tensors; on meta
    # tensors, with the launch replaced, check it hands the library the
    # operands of gconv.h convention 10 in the problem's shapes.
    from gconv import _warmup as wu, ops

    seen = []
    monkeypatch.setattr(ops, "_launch", lambda key, a, b, out: seen.append((key[11], a, b, out)))
    for key in collect(model(), torch.randn(2, 3, 16, 16), dtype=torch.float16)[:3]:
        wu._compile(key, torch.device("meta"), torch.float16)
    x_shape, w_shape, y_shape = (2, 3, 16, 16), (16, 3, 3, 3), (2, 16, 8, 8)
    want = {"fwd": (x_shape, w_shape, y_shape), "bwd_data": (y_shape, w_shape, x_shape),
            "bwd_weight": (x_shape, y_shape, w_shape)}
    assert [d for d, *_ in seen] == ["fwd", "bwd_data", "bwd_weight"]
    for direction, a, b, out in seen:
        assert (tuple(a.shape), tuple(b.shape), tuple(out.shape)) == want[direction], direction
        assert all(ops.is_channels_last(t) and t.dtype == torch.float16 for t in (a, b, out))
