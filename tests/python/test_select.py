"""gconv.select / rank / is_supported without a GPU (analytic and heuristic
policies), and the errors for bad arguments."""
import pytest

import gconv
from gconv._shapes import conv_params


def test_select_heuristic_returns_a_pool_kernel():
    s = gconv.select((8, 64, 28, 28), (64, 64, 3, 3), padding=1, dtype="fp16", direction="bwd_data")
    assert s.spec == "bwd_data_fp16_n8c64k64g1_h28w28_y3x3_s1_p1_dil1"
    assert s.kernel and not s.is_fallback
    assert s.predicted_ms > 0 and s.measured_ms == -1
    assert s.reason


def test_select_from_spec_equals_select_from_shapes():
    a = gconv.select(spec="fwd_bf16_n4c32k32g32_h17w17_y5x5_s2_p2", policy="analytic")
    b = gconv.select((4, 32, 17, 17), (32, 1, 5, 5), stride=2, padding=2, groups=32, policy="analytic")
    assert a == b


def test_rank_is_ordered_and_led_by_select():
    ranked = gconv.rank((2, 48, 9, 9, 9), (48, 16, 3, 3, 3), groups=3, padding=1, dtype="fp32",
                        policy="analytic", limit=5)
    assert 1 <= len(ranked) <= 5
    # The analytic order key is the estimate plus at most 1% of it (AnalyticBreakdown::order_key).
    pred = [r.predicted_ms for r in ranked]
    assert all(a <= b * 1.01 for a, b in zip(pred, pred[1:])), pred
    best = gconv.select((2, 48, 9, 9, 9), (48, 16, 3, 3, 3), groups=3, padding=1, dtype="fp32", policy="analytic")
    assert ranked[0].kernel == best.kernel
    assert ranked[0].spec.startswith("fwd_fp32_n2c48k48g3_d9h9w9_z3y3x3")


def test_is_supported_and_invalid_problem():
    assert gconv.is_supported((2, 16, 8), (16, 4, 3), groups=4)  # 1D
    with pytest.raises(gconv.GconvError) as e:
        gconv.select((2, 16, 3, 3), (16, 16, 5, 5))  # the 5x5 filter does not fit a 3x3 input
    assert e.value.status == "invalid_problem"


def test_asymmetric_same_padding_reaches_the_problem():
    # An even kernel with 'same' pads (lo, hi) = (1, 2) for kernel 4: the spec says so.
    s = gconv.select((1, 8, 10), (8, 8, 4), padding="same", policy="analytic")
    assert "_p1:2" in s.spec
    assert conv_params(1, (4,), padding="same").pad_hi == (2,)


def test_bad_arguments_are_clear():
    with pytest.raises(ValueError, match="stride 1"):
        gconv.select((1, 8, 10, 10), (8, 8, 3, 3), padding="same", stride=2)
    with pytest.raises(ValueError, match="bf16, fp16 or fp32"):
        gconv.select((1, 8, 10, 10), (8, 8, 3, 3), dtype="int8")
    with pytest.raises(gconv.GconvError) as e:
        gconv.select(spec="fwd_bf16_n1c8k8_h8w8", policy="fastest")
    assert e.value.status == "parse_error"


def test_registry_options_reach_the_library():
    # The ctypes mirror of gconv_registry_options_t: model_dir (its last field)
    # "off" makes the heuristic policy rank by the analytic estimate, and a
    # kernel filter that matches nothing leaves only the fallback.
    from gconv._lib import Problem, Registry
    p = Problem.from_spec("fwd_bf16_n8c128k128g8_h28w28_y3x3_s1_p1")
    off = Registry(model_dir="off", tuning_cache_path="off")
    assert off.select(p, "heuristic").kernel == off.select(p, "analytic").kernel
    none = Registry(kernel_filter="stages>=99", tuning_cache_path="off")
    assert none.select(p, "heuristic").kernel.startswith("naive_")
    assert not none.is_supported(p)
