"""What happens without a GPU: clear errors, never a wrong result."""
import ctypes

import pytest
import torch

import gconv
from gconv import _lib
from gconv._select import registry


def test_functional_on_cpu_tensors_says_so():
    x, w = torch.randn(1, 4, 8, 8), torch.randn(4, 4, 3, 3)
    with pytest.raises(RuntimeError, match=r"on cpu; gconv runs on CUDA GPUs.*conv2d"):
        gconv.conv(x, w)


def test_op_called_directly_on_cpu_says_so():
    x, w = torch.randn(1, 4, 8, 8), torch.randn(4, 4, 3, 3)
    with pytest.raises(RuntimeError, match="must be on a CUDA GPU"):
        torch.ops.gconv.conv_fwd(x, w, None, [1, 1], [0, 0], [0, 0], [1, 1], 1)


def test_unsupported_dtypes_are_rejected():
    with pytest.raises(TypeError, match="complex"):
        gconv.conv(torch.randn(1, 4, 8, 8, dtype=torch.complex64), torch.randn(4, 4, 3, 3, dtype=torch.complex64))
    # Checked by the fake implementation too, so torch.compile fails at trace time.
    x = torch.empty(1, 4, 8, 8, device="meta", dtype=torch.float64)
    with pytest.raises(TypeError, match="float64 is not supported"):
        gconv.conv(x, x.new_empty(4, 4, 3, 3))


def test_channel_mismatch_is_clear():
    with pytest.raises(ValueError, match="expects 8"):
        gconv.conv(torch.empty(1, 6, 5, 5, device="meta"), torch.empty(4, 4, 3, 3, device="meta"), groups=2)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU path")
def test_running_without_a_device_is_no_device():
    # The C library itself: selection works, running reports no_device.
    reg = registry()
    p = _lib.Problem.from_spec("fwd_bf16_n1c8k8_h8w8_y3x3_p1")
    s = reg.select(p, "heuristic")
    buf = ctypes.create_string_buffer(4096)
    ptr = ctypes.addressof(buf)
    with pytest.raises(gconv.GconvError) as e:
        reg.run(s, p, ptr, ptr, ptr, None, 0, None)
    assert e.value.status == "no_device"


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU path")
def test_plan_needs_a_device_but_checks_the_solution_first():
    # gconv_plan_create validates and checks the kernel against the problem
    # on the host, then needs a GPU to load the kernel.
    reg = registry()
    p = _lib.Problem.from_spec("fwd_bf16_n1c8k8_h8w8_y3x3_p1")
    s = reg.select(p, "heuristic")
    with pytest.raises(gconv.GconvError) as e:
        _lib.Plan(reg, p, s)
    assert e.value.status == "no_device"
    other = _lib.Problem.from_spec("bwd_weight_bf16_n1c8k8_h8w8_y3x3_p1")
    with pytest.raises(gconv.GconvError, match="cannot run") as e:
        _lib.Plan(reg, other, s)
    assert e.value.status == "invalid_argument" and s.kernel in str(e.value)
