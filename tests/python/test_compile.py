"""torch.compile and the op registrations without a GPU, on meta tensors
(whose kernels are the ops' fake implementations): torch.library.opcheck of
all three ops, and a full torch.compile (Dynamo + AOTAutograd, the graphs
captured by a recording backend) of a small two-conv function with bias:
no graph break, gconv's ops as single nodes in the forward and backward
graphs, and no recompilation for another batch size under dynamic shapes."""
import pytest
import torch

import gconv
from gconv import ops

CASES = [  # (x shape, w shape, with bias, stride, pad, dilation, groups)
    ((2, 8, 11), (12, 2, 3), True, [2], [1], [1], 4),
    ((2, 8, 9, 7), (8, 1, 3, 3), False, [1, 1], [1, 1], [2, 2], 8),
    ((1, 4, 5, 6, 7), (8, 4, 1, 3, 3), True, [1, 2, 1], [0, 1, 1], [1, 1, 1], 1),
]


def channels_last(shape):
    nd = len(shape) - 2
    stored = torch.empty(shape[0], *shape[2:], shape[1], device="meta")
    return stored.permute(0, nd + 1, *range(1, nd + 1))


@pytest.mark.parametrize("xs,ws,bias,stride,pad,dil,groups", CASES)
def test_opcheck_all_ops(xs, ws, bias, stride, pad, dil, groups):
    # Schema, autograd registration, fake tensors and AOT dispatch (static and
    # dynamic shapes): opcheck's own tests, each against the registration.
    x = channels_last(xs).requires_grad_()
    w = channels_last(ws).requires_grad_()
    b = torch.empty(ws[0], device="meta", requires_grad=True) if bias else None
    conv = (stride, pad, pad, dil, groups)
    y = torch.ops.gconv.conv_fwd(x, w, b, *conv)
    results = [
        torch.library.opcheck(torch.ops.gconv.conv_fwd.default, (x, w, b, *conv)),
        torch.library.opcheck(torch.ops.gconv.conv_bwd_data.default, (y.detach(), w.detach(), list(xs), *conv)),
        torch.library.opcheck(torch.ops.gconv.conv_bwd_weight.default, (x.detach(), y.detach(), list(ws), *conv)),
    ]
    for r in results:
        assert set(r) >= {"test_schema", "test_faketensor", "test_aot_dispatch_dynamic"}
        assert all(v == "SUCCESS" for v in r.values()), r


def test_compile_fullgraph_keeps_gconv_ops_forward_and_backward():
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    graphs = {"fw": [], "bw": []}

    def recorder(kind):
        def compiler(gm, example_inputs):
            graphs[kind].append([str(n.target) for n in gm.graph.nodes if n.op == "call_function"])
            return make_boxed_func(gm.forward)
        return compiler

    def f(x, w1, b1, w2):
        return gconv.conv(torch.relu(gconv.conv(x, w1, b1, padding=1, groups=4)), w2, stride=2)

    torch._dynamo.reset()
    g = torch.compile(f, fullgraph=True, dynamic=True,  # fullgraph: a graph break would raise
                      backend=aot_autograd(fw_compiler=recorder("fw"), bw_compiler=recorder("bw")))
    w1 = torch.empty(16, 2, 3, 3, device="meta", requires_grad=True)
    b1 = torch.empty(16, device="meta", requires_grad=True)
    w2 = torch.empty(24, 16, 1, 1, device="meta", requires_grad=True)
    for batch in (5, 7):
        x = channels_last((batch, 8, 10, 10)).requires_grad_()
        y = g(x, w1, b1, w2)
        assert y.shape == (batch, 24, 5, 5) and y.stride() == (600, 1, 120, 24)
        y.sum().backward()
        assert x.grad.shape == x.shape and b1.grad.shape == b1.shape
    assert len(graphs["fw"]) == 1 and len(graphs["bw"]) == 1  # the second batch size reused the graphs
    fw, bw = graphs["fw"][0], graphs["bw"][0]
    assert fw.count("gconv.conv_fwd.default") == 2
    # The bias is added beside the op (so a compiler can fuse it with the
    # ReLU after it), not inside it: one broadcast add, its gradient a sum.
    assert fw.count("aten.add.Tensor") == 1 and "aten.sum.dim_IntList" in bw
    assert bw.count("gconv.conv_bwd_data.default") == 2 and bw.count("gconv.conv_bwd_weight.default") == 2
    assert not any("convolution" in t for t in fw + bw)  # nothing fell back to aten's conv


def test_dynamo_folds_the_eager_path_compile_check():
    # eager_path_ok's first test (ops._is_compiling, torch.compiler.is_compiling
    # held in a module global) must read True while Dynamo traces: otherwise
    # a traced gconv.conv on CUDA tensors would take the direct path and
    # break the graph at data_ptr (tested end to end on the GPU).
    def f(x):
        return x + 1 if ops._is_compiling() else x - 1

    torch._dynamo.reset()
    x = torch.zeros(2)
    assert torch.equal(f(x), x - 1)
    assert torch.equal(torch.compile(f, backend="eager", fullgraph=True)(x), x + 1)
