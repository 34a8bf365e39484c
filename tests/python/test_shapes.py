"""PyTorch conv arguments -> gconv problem fields (pure Python, no torch)."""
import pytest

from gconv._shapes import conv_params, problem_key


def test_padding_forms():
    assert conv_params(2, (3, 3), padding=1).pad_lo == (1, 1)
    p = conv_params(2, (3, 3), padding=((0, 1), (2, 3)))  # explicit (lo, hi) pairs
    assert (p.pad_lo, p.pad_hi) == ((0, 2), (1, 3))
    p = conv_params(3, (2, 3, 4), padding="same", dilation=(1, 1, 3))
    # total = dilation * (kernel - 1): 1, 2, 9 -> lo = total // 2, the odd extra at the end
    assert (p.pad_lo, p.pad_hi) == ((0, 1, 4), (1, 1, 5))
    assert conv_params(1, (5,), padding="valid").pad_hi == (0,)


def test_out_size_is_torch_formula():
    p = conv_params(2, (3, 5), stride=(2, 3), padding=(1, 2), dilation=(1, 2))
    # (in + 2p - d(k-1) - 1) // s + 1
    assert p.out_size((13, 20), (3, 5)) == [(13 + 2 - 2 - 1) // 2 + 1, (20 + 4 - 8 - 1) // 3 + 1]


def test_problem_key_right_aligns_slots():
    p = conv_params(1, (3,), stride=2, padding=1)
    key = problem_key("bwd_weight", "fp16", (4, 8, 50), (16, 2, 3), conv_params(1, (3,), 2, 1, 1, 4))
    assert key == (1, 4, 8, 16, 4, (1, 1, 50), (1, 1, 3), (1, 1, 2), (0, 0, 1), (0, 0, 1), (1, 1, 1),
                   "bwd_weight", "fp16")
    assert p.groups == 1


def test_bad_arguments():
    with pytest.raises(ValueError, match="3 entries for a 2D"):
        conv_params(2, (3, 3), stride=(1, 1, 1))
    with pytest.raises(ValueError, match="one \\(lo, hi\\) per spatial dim"):
        conv_params(2, (3, 3), padding=((1, 1),))
    with pytest.raises(ValueError, match="'reflect'"):
        conv_params(2, (3, 3), padding="reflect")
    with pytest.raises(ValueError, match="4D"):
        conv_params(4, (3, 3, 3, 3))
    with pytest.raises(ValueError, match="groups"):
        conv_params(2, (3, 3), groups=0)
