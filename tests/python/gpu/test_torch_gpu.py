"""gconv's PyTorch ops on a GPU (H100/H200). Run by bench/device_torch.sh:
    PYTHONPATH=python GCONV_LIBRARY=.device/lib/libgconv.so python3 tests/python/gpu/test_torch_gpu.py
(or under pytest, where it is installed; the GPU machine may have none, so
this file needs no pytest and runs its own test_* functions when executed).

Outputs and both gradients against torch.nn.functional.convNd computed in
float64 on odd shapes; opcheck of the op registrations; torch.compile with
gconv ops in the graph; CUDA graph capture and replay; two streams at once."""
import os
import sys
import time
import traceback

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import gconv  # noqa: E402

try:
    import pytest
    pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
except ImportError:
    pass

TORCH_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
# Largest |error| / largest |reference| accepted: gconv's fp32 kernels run the
# tensor cores in TF32 (10-bit mantissa, fp32 accumulation); bf16 rounds the
# inputs and the output.
TOL = {torch.float32: 5e-3, torch.bfloat16: 2.5e-2, torch.float16: 5e-3}

# (ndim, N, C, K, groups, spatial, kernel, stride, padding, dilation): odd sizes,
# grouped, depthwise, strided, dilated, 'same' with an even kernel.
CASES = [
    (2, 3, 24, 40, 4, (13, 11), (3, 3), 2, 1, 1),
    (2, 2, 32, 32, 32, (15, 17), (5, 5), 1, 2, 1),        # depthwise
    (2, 1, 12, 18, 3, (9, 10), (4, 4), 1, "same", 1),     # asymmetric padding
    (2, 2, 16, 16, 1, (7, 9), (3, 3), 1, 2, 2),            # dense, dilated
    (1, 3, 20, 30, 5, (37,), (5,), 3, 2, 1),
    (3, 2, 8, 16, 2, (5, 7, 6), (3, 3, 3), (1, 2, 2), 1, 1),
    (3, 1, 16, 16, 16, (4, 9, 9), (3, 1, 3), 1, (1, 0, 1), 1),
]


def rel_err(got, want):
    return ((got.double() - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()


def cl(t):
    nd = t.dim() - 2
    return t.permute(0, *range(2, nd + 2), 1).contiguous().permute(0, nd + 1, *range(1, nd + 1))


def check_case(case, dtype):
    nd, n, c, k, g, sp, ks, stride, padding, dil = case
    torch.manual_seed(0)
    x = cl(torch.randn(n, c, *sp, device="cuda")).to(dtype).requires_grad_()
    w = cl(torch.randn(k, c // g, *ks, device="cuda")).to(dtype).requires_grad_()
    b = torch.randn(k, device="cuda").to(dtype).requires_grad_()
    y = gconv.conv(x, w, b, stride, padding, dil, g)
    dy = torch.randn_like(y)
    y.backward(dy)

    x64, w64, b64 = (t.detach().double().requires_grad_() for t in (x, w, b))
    y64 = TORCH_CONV[nd](x64, w64, b64, stride, padding, dil, g)
    y64.backward(dy.double())
    assert y.shape == y64.shape and y.dtype == dtype
    errors = {name: rel_err(got, want) for name, got, want in
              (("y", y, y64), ("dx", x.grad, x64.grad), ("dw", w.grad, w64.grad), ("db", b.grad, b64.grad))}
    bad = {name: e for name, e in errors.items() if not e < TOL[dtype]}
    assert not bad, f"relative errors above {TOL[dtype]}: {bad}"
    assert gconv.ops.is_channels_last(y) and gconv.ops.is_channels_last(x.grad)


def test_forward_and_gradients_match_torch():
    failures = []
    for dtype in (torch.float32, torch.bfloat16):
        for case in CASES:
            try:
                check_case(case, dtype)
            except Exception as e:  # collect every failing case, then fail once
                failures.append(f"{case} {dtype}: {type(e).__name__}: {e}")
    assert not failures, "\n".join(failures)


def test_other_layouts_are_converted_and_output_is_channels_last():
    x = torch.randn(2, 16, 10, 10, device="cuda")  # contiguous NCHW
    w = torch.randn(32, 4, 3, 3, device="cuda")
    y = gconv.conv(x, w, padding=1, groups=4)
    assert y.is_contiguous(memory_format=torch.channels_last)
    assert rel_err(y, F.conv2d(x.double(), w.double(), padding=1, groups=4)) < TOL[torch.float32]
    # A view at an odd element offset (not 16-byte aligned) is copied, not misread.
    big = torch.randn(2 * 16 * 10 * 10 + 1, device="cuda")
    xv = big[1:].view(2, 10, 10, 16).permute(0, 3, 1, 2)
    assert rel_err(gconv.conv(xv, w, padding=1, groups=4), F.conv2d(xv.double(), w.double(), padding=1, groups=4)) \
        < TOL[torch.float32]


def node_name(fn):
    # The autograd node's name: name() where the node has one; a custom
    # Function's node (its ctx) refuses name() on recent PyTorch, so then the
    # node's class name (EagerConvBackward).
    try:
        return fn.name()
    except RuntimeError:
        return type(fn).__name__


def test_op_path_equals_eager_path():
    # gconv.conv in eager mode calls the implementations directly (EagerConv);
    # the registered op with its registered autograd must give the same values.
    torch.manual_seed(0)
    x = cl(torch.randn(2, 16, 11, 11, device="cuda")).requires_grad_()
    w = cl(torch.randn(24, 4, 3, 3, device="cuda")).requires_grad_()
    b = torch.randn(24, device="cuda", requires_grad=True)
    y1 = gconv.conv(x, w, b, 2, 1, 1, 4)
    y2 = torch.ops.gconv.conv_fwd(x, w, b, [2, 2], [1, 1], [1, 1], [1, 1], 4)
    dy = torch.randn_like(y1)
    g1 = torch.autograd.grad(y1, (x, w, b), dy)
    g2 = torch.autograd.grad(y2, (x, w, b), dy)
    assert "EagerConv" in node_name(y1.grad_fn) and "conv_fwd" in node_name(y2.grad_fn)
    # A module's weight is a Parameter: it takes the direct path too.
    m = gconv.nn.Conv2d(16, 24, 3, padding=1, groups=4).cuda()
    assert "EagerConv" in node_name(m(x).grad_fn), node_name(m(x).grad_fn)
    assert rel_err(y1, y2.double()) < 1e-6
    for a, c in zip(g1, g2):
        assert rel_err(a, c.double()) < 1e-5


def test_empty_batch_like_torch():
    x = torch.randn(0, 8, 9, 9, device="cuda", requires_grad=True)
    w = torch.randn(8, 2, 3, 3, device="cuda", requires_grad=True)
    y = gconv.conv(x, w, padding=1, groups=4)
    assert y.shape == (0, 8, 9, 9)
    y.sum().backward()
    assert w.grad is not None and torch.count_nonzero(w.grad) == 0


def test_opcheck():
    x = cl(torch.randn(2, 8, 9, 9, device="cuda", requires_grad=True))
    w = cl(torch.randn(8, 2, 3, 3, device="cuda", requires_grad=True))
    b = torch.randn(8, device="cuda", requires_grad=True)
    torch.library.opcheck(torch.ops.gconv.conv_fwd.default, (x, w, b, [1, 1], [1, 1], [1, 1], [1, 1], 4))


def test_autocast_bf16_like_torch():
    m = torch.nn.Conv2d(16, 16, 3, padding=1, groups=4).cuda()
    ref = torch.nn.Conv2d(16, 16, 3, padding=1, groups=4).cuda()
    ref.load_state_dict(m.state_dict())
    gconv.convert(m)
    x = cl(torch.randn(4, 16, 12, 12, device="cuda"))
    with torch.autocast("cuda", dtype=torch.bfloat16):
        y, want = m(x), ref(x)
    assert y.dtype == want.dtype == torch.bfloat16
    assert rel_err(y, want.double()) < TOL[torch.bfloat16]


class SmallNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(8, 32, 3, padding=1)
        self.c2 = torch.nn.Conv2d(32, 32, 3, stride=2, padding=1, groups=8)
        self.c3 = torch.nn.Conv2d(32, 16, 1)

    def forward(self, x):
        return self.c3(torch.relu(self.c2(torch.relu(self.c1(x))))).mean(dim=(2, 3))


def test_torch_compile_keeps_gconv_ops_in_the_graph():
    torch.manual_seed(0)
    net = SmallNet().cuda().to(memory_format=torch.channels_last)
    gconv.convert(net)
    seen = []

    def backend(gm, example_inputs):
        seen.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
        from torch._inductor.compile_fx import compile_fx
        return compile_fx(gm, example_inputs)

    compiled = torch.compile(net, backend=backend, fullgraph=True)
    x = cl(torch.randn(4, 8, 16, 16, device="cuda"))
    out = compiled(x)
    out.sum().backward()
    grads = [p.grad.clone() for p in net.parameters()]
    assert sum("gconv.conv_fwd" in s for s in seen) == 3, seen
    for p in net.parameters():
        p.grad = None
    want = net(x)
    want.sum().backward()
    assert rel_err(out, want.double()) < 1e-4
    for g_c, p in zip(grads, net.parameters()):
        assert rel_err(g_c, p.grad.double()) < 1e-4


def test_cuda_graph_capture_replays():
    torch.manual_seed(0)
    net = SmallNet().cuda().to(memory_format=torch.channels_last)
    gconv.convert(net)
    static_x = cl(torch.randn(4, 8, 16, 16, device="cuda"))
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm up: selection and NVRTC happen outside capture
        for _ in range(2):
            net(static_x).sum().backward()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph), torch.no_grad():
        static_y = net(static_x)
    for seed in (1, 2):
        torch.manual_seed(seed)
        static_x.copy_(torch.randn_like(static_x))
        graph.replay()
        torch.cuda.synchronize()
        assert rel_err(static_y, net(static_x).double()) < 1e-5


def test_two_streams_at_once():
    torch.manual_seed(0)
    xs = [cl(torch.randn(8, 64, 28, 28, device="cuda")) for _ in range(2)]
    ws = [cl(torch.randn(64, 8, 3, 3, device="cuda")), cl(torch.randn(64, 64, 1, 1, device="cuda"))]
    groups = [8, 1]
    pads = [1, 0]
    wants = [F.conv2d(x.double(), w.double(), padding=p, groups=g) for x, w, p, g in zip(xs, ws, pads, groups)]
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    outs = [None, None]
    torch.cuda.synchronize()
    for _ in range(3):
        for i, s in enumerate(streams):
            with torch.cuda.stream(s):
                outs[i] = gconv.conv(xs[i], ws[i], padding=pads[i], groups=groups[i])
    torch.cuda.synchronize()
    for got, want in zip(outs, wants):
        assert rel_err(got, want) < TOL[torch.float32]


def test_warmup_compiles_every_direction():
    net = SmallNet().cuda().to(memory_format=torch.channels_last)
    gconv.convert(net)
    done = gconv.warmup(net, torch.randn(4, 8, 16, 16, device="cuda"), dtype=torch.bfloat16, progress=False)
    assert len(done) == 9 and {d["spec"].split("_")[0] for d in done} == {"fwd", "bwd"}
    assert all(d["kernel"] for d in done)


def test_functorch_transforms_take_the_op_path():
    # Under vmap the tensors are functorch wrappers (of type torch.Tensor):
    # the direct path would read their data pointers; the op path is taken.
    x = torch.randn(2, 3, device="cuda")
    seen = []

    def f(t):
        seen.append(gconv.ops.eager_path_ok(t, t))
        return t

    torch.func.vmap(f)(x)
    assert seen == [False] and gconv.ops.eager_path_ok(x, x)


def test_plan_is_loaded_once_and_reused():
    # The per-call path runs a gconv_plan_t made once per (GPU, problem):
    # repeated calls reuse the same plan and the same Entry.
    from gconv import functional
    x = cl(torch.randn(3, 24, 13, 11, device="cuda"))
    w = cl(torch.randn(24, 3, 3, 3, device="cuda"))
    b = torch.randn(24, device="cuda")
    ys = [gconv.conv(x, w, b, 1, 1, 1, 8) for _ in range(3)]
    entries = [e for k, e in functional._entries.items() if k[0] == x.shape and k[4] == w.shape]
    assert len(entries) == 1 and entries[0].owner.handle.kernel == entries[0].owner.solution.kernel
    assert entries[0].owner.handle.device == x.device.index
    want = F.conv2d(x.double(), w.double(), b.double(), 1, 1, 1, 8)
    for y in ys:
        assert rel_err(y, want) < TOL[torch.float32]


def main() -> int:
    if not torch.cuda.is_available():
        print("test_torch_gpu: no CUDA GPU")
        return 1
    tests = [(name, fn) for name, fn in sorted(globals().items()) if name.startswith("test_") and callable(fn)]
    passed = failed = 0
    for name, fn in tests:
        t0 = time.monotonic()
        try:
            fn()
            passed += 1
            print(f"PASS {name} ({time.monotonic() - t0:.1f} s)", flush=True)
        except Exception:
            failed += 1
            print(f"FAIL {name} ({time.monotonic() - t0:.1f} s)\n{traceback.format_exc()}", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
