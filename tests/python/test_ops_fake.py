"""The custom ops' schemas and fake implementations, without a GPU: output
shapes equal PyTorch's own conv for a grid of 1D/2D/3D shapes (strides,
padding incl. 'same' and 'valid', dilation, groups), outputs are
channels-last, and autograd reaches both backward ops (on meta tensors)."""
import itertools

import pytest
import torch
import torch.nn.functional as F
from torch._subclasses.fake_tensor import FakeTensorMode

import gconv

TORCH_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def channels_last_strides(shape):
    """Element strides of a dense (N, *spatial, C) tensor, in (N, C, *spatial) order."""
    n, c, *sp = shape
    stored = [n, *sp, c]
    st, acc = [0] * len(stored), 1
    for i in reversed(range(len(stored))):
        st[i] = acc
        acc *= stored[i]
    return (st[0], st[-1], *st[1:-1])


def grid():
    cases = []
    for nd, (stride, padding, dilation, groups) in itertools.product(
            (1, 2, 3), [(1, 0, 1, 1), (2, 1, 1, 4), (1, "same", 2, 2), (3, "valid", 1, 8), (2, 2, 2, 8),
                        (1, "same", 1, 1)]):
        for kernel in (1, 3, 4):
            if nd == 3 and kernel == 4:
                continue
            size = (5, 7, 9)[:nd] if nd > 1 else (11,)
            cases.append((nd, stride, padding, dilation, groups, kernel, size))
    return cases


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel")  # torch's own, for its reference
@pytest.mark.parametrize("nd,stride,padding,dilation,groups,kernel,size", grid())
def test_fake_shapes_match_torch(nd, stride, padding, dilation, groups, kernel, size):
    c, k = 16, 24
    x = torch.empty(3, c, *size, device="meta")
    w = torch.empty(k, c // groups, *([kernel] * nd), device="meta")
    want = TORCH_CONV[nd](x, w, None, stride, padding, dilation, groups)
    got = gconv.conv(x, w, None, stride, padding, dilation, groups)
    assert got.shape == want.shape
    assert got.stride() == channels_last_strides(got.shape)
    # The same on fake CUDA tensors (what torch.compile traces with; no GPU needed).
    with FakeTensorMode():
        fx, fw = torch.empty(3, c, *size, device="cuda"), torch.empty(w.shape, device="cuda")
        fy = gconv.conv(fx, fw, None, stride, padding, dilation, groups)
    assert fy.device.type == "cuda"
    assert fy.shape == want.shape and fy.stride() == got.stride()


def test_schemas():
    fwd = torch.ops.gconv.conv_fwd.default._schema
    assert str(fwd).startswith("gconv::conv_fwd(Tensor x, Tensor w, Tensor? bias, SymInt[] stride")
    assert str(fwd).endswith("-> Tensor")
    assert "x_size" in str(torch.ops.gconv.conv_bwd_data.default._schema)
    assert "w_size" in str(torch.ops.gconv.conv_bwd_weight.default._schema)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_backward_reaches_both_ops_on_meta(nd):
    x = torch.empty(2, 8, *([6] * nd), device="meta", requires_grad=True)
    w = torch.empty(12, 4, *([3] * nd), device="meta", requires_grad=True)
    b = torch.empty(12, device="meta", requires_grad=True)
    y = gconv.conv(x, w, b, stride=2, padding=1, groups=2)
    assert y.grad_fn is not None and "conv_fwd" in y.grad_fn.name()
    # autograd.grad returns what the backward ops made (.grad of a leaf would
    # be restrided to the leaf's own layout by AccumulateGrad).
    dx, dw, db = torch.autograd.grad(y.sum(), (x, w, b))
    assert dx.shape == x.shape and dx.stride() == channels_last_strides(x.shape)
    assert dw.shape == w.shape and dw.stride() == channels_last_strides(w.shape)
    assert db.shape == b.shape


def test_traced_graph_holds_gconv_ops():
    # make_fx in fake mode is what AOTAutograd does under torch.compile: the
    # forward and both backward ops appear as single nodes, nothing decomposed.
    from torch.fx.experimental.proxy_tensor import make_fx

    def step(x, w):
        y = gconv.conv(x, w, padding="same", groups=4)
        (gx, gw) = torch.autograd.grad(y.float().square().sum(), (x, w))
        return y, gx, gw

    g = make_fx(step, tracing_mode="fake")(torch.empty(2, 8, 9, 9, device="meta", requires_grad=True),
                                           torch.empty(8, 2, 3, 3, device="meta", requires_grad=True))
    targets = [str(n.target) for n in g.graph.nodes if n.op == "call_function"]
    assert targets.count("gconv.conv_fwd.default") == 1
    assert targets.count("gconv.conv_bwd_data.default") == 1
    assert targets.count("gconv.conv_bwd_weight.default") == 1


def test_dynamo_traces_without_graph_breaks():
    def f(x, w):
        return torch.relu(gconv.conv(x, w, stride=2, padding=1)) * 2

    x = torch.empty(2, 8, 10, 10, device="meta")
    w = torch.empty(8, 8, 3, 3, device="meta")
    explanation = torch._dynamo.explain(f)(x, w)
    assert explanation.graph_break_count == 0
    assert explanation.graph_count == 1


def test_eager_path_only_for_plain_cuda_tensors():
    # Parameters (a module's weight) take the direct path; fake and meta tensors,
    # and anything under a dispatch mode, go through the registered op.
    from gconv.ops import eager_path_ok
    meta = torch.empty(2, device="meta")
    assert not eager_path_ok(meta, meta)
    with FakeTensorMode():
        fake = torch.empty(2, device="cuda")
        assert not eager_path_ok(fake, fake)
    if torch.cuda.is_available():
        cuda = torch.empty(2, device="cuda")
        assert eager_path_ok(cuda, torch.nn.Parameter(torch.empty(2, device="cuda")), None)
        assert not eager_path_ok(cuda, cuda, meta)  # the bias is checked too
