"""bench/class_report.py (issue 17's per-class cuDNN / gconv report) on a tiny
synthetic sweep: the class of each problem, and the geometric means, wins and
roofline it prints, checked exactly; and problems/small_classes.csv against
the same class rules. Standard library only: needs no GPU and no libgconv."""
import csv
import io
import json
import math
import os
import sys
from contextlib import redirect_stdout

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))  # as the bench scripts import sweep_io
import class_report as cr  # noqa: E402

SWEEP_COLUMNS = ["kernel", "family", "direction", "dtype", "ndim", "n", "c", "k", "g", "d", "h", "w", "z", "y", "x",
                 "stride_d", "stride_h", "stride_w", "pad_d_lo", "pad_d_hi", "pad_h_lo", "pad_h_hi", "pad_w_lo",
                 "pad_w_hi", "dil_d", "dil_h", "dil_w", "spec", "source", "provider", "status", "latency_ms"]


def _row(direction, n, c, k, g, hw, f, s, p, kernel, provider, ms, status="ok"):
    spec = f"{direction}_bf16_n{n}c{c}k{k}g{g}_h{hw}w{hw}_y{f}x{f}_s{s}_p{p}_dil1"
    return dict(kernel=kernel, family=kernel.split("_")[0], direction=direction, dtype="bf16", ndim=2, n=n, c=c,
                k=k, g=g, d=1, h=hw, w=hw, z=1, y=f, x=f, stride_d=1, stride_h=s, stride_w=s, pad_d_lo=0,
                pad_d_hi=0, pad_h_lo=p, pad_h_hi=p, pad_w_lo=p, pad_w_hi=p, dil_d=1, dil_h=1, dil_w=1, spec=spec,
                source="test", provider=provider, status=status, latency_ms=ms)


def _write_sweep(tmp_path, rows):
    path = tmp_path / "sweep.csv"
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=SWEEP_COLUMNS)
        w.writeheader()
        w.writerows(rows)
    return str(path)


def test_classes_of_typical_layers():
    c = cr.classes
    # depthwise 3x3 (MobileNet): C/G = 1, and 1 * 9 < 64
    assert c(32, 144, 144, 144, 9, 56 * 56) == ("depthwise", "tiny_reduction")
    # depth multiplier 2 is depthwise, not small channels per group
    assert c(8, 32, 64, 32, 9, 28 * 28) == ("depthwise", "tiny_reduction")
    # RegNetX-200MF group width 8: C/G = 8, 8 * 9 = 72 >= 64
    assert c(8, 24, 24, 3, 9, 56 * 56) == ("small_cpg",)
    # ResNeXt 32x4d: C/G = 4, 4 * 9 = 36 < 64
    assert c(32, 128, 128, 32, 9, 56 * 56) == ("small_cpg", "tiny_reduction")
    # ShuffleNet's grouped 1x1: C/G = 48 but K/G = 12
    assert c(16, 384, 96, 8, 1, 28 * 28) == ("small_cpg", "tiny_reduction")
    # C/G = 32 and K/G = 32: not small
    assert c(16, 1024, 1024, 32, 9, 14 * 14) == ("other",)
    # C = 3 stem with a large reduction (3 * 49 = 147) is still a stem
    assert c(32, 3, 64, 1, 49, 112 * 112) == ("tiny_reduction",)
    # squeeze-excite 1x1 on the pooled map, at any batch
    assert c(64, 144, 6, 1, 1, 1) == ("tiny_spatial",)
    # N * out volume < 64 (8 * 2 * 2), and = 64 is not
    assert c(8, 256, 256, 1, 9, 4) == ("tiny_spatial",)
    assert c(16, 256, 256, 1, 9, 4) == ("other",)
    assert c(32, 64, 64, 1, 9, 56 * 56) == ("other",)


def test_geomeans_wins_and_bests_from_the_sweep_rows(tmp_path):
    rows = [
        # depthwise fwd: gconv best 0.010 (the failed 0.001 row is ignored), cuDNN best 0.020 -> 2.0
        _row("fwd", 32, 144, 144, 144, 56, 3, 1, 1, "direct_a", "gconv", 0.010),
        _row("fwd", 32, 144, 144, 144, 56, 3, 1, 1, "direct_b", "gconv", 0.020),
        _row("fwd", 32, 144, 144, 144, 56, 3, 1, 1, "direct_c", "gconv", 0.001, status="crashed"),
        _row("fwd", 32, 144, 144, 144, 56, 3, 1, 1, "cudnn_best:algo_1", "cudnn", 0.020),
        _row("fwd", 32, 144, 144, 144, 56, 3, 1, 1, "cudnn_heuristic:algo_1", "cudnn", 0.030),
        # the same layer in bwd_data: 0.025 / 0.050 -> 0.5
        _row("bwd_data", 32, 144, 144, 144, 56, 3, 1, 1, "direct_a", "gconv", 0.050),
        _row("bwd_data", 32, 144, 144, 144, 56, 3, 1, 1, "cudnn_best:algo_0", "cudnn", 0.025),
        # dense 3x3 (other) fwd: 0.010 / 0.040 -> 0.25
        _row("fwd", 32, 64, 64, 1, 56, 3, 1, 1, "wgmma_x", "gconv", 0.040),
        _row("fwd", 32, 64, 64, 1, 56, 3, 1, 1, "cudnn_graph_best:eng0", "cudnn", 0.010),
        # gconv only: not compared
        _row("fwd", 8, 24, 24, 3, 56, 3, 1, 1, "igemm_y", "gconv", 0.010),
    ]
    gbest, cbest, shapes = cr.read_sweep(_write_sweep(tmp_path, rows))
    dw = "fwd_bf16_n32c144k144g144_h56w56_y3x3_s1_p1_dil1"
    assert gbest[dw] == (0.010, "direct_a")
    assert cbest[dw] == (0.020, "cudnn_best:algo_1")
    got = cr.compare(gbest, cbest, shapes)
    assert len(got) == 3
    groups = cr.summarize(got)
    assert groups[("depthwise", "fwd")] == [2.0]
    assert groups[("depthwise", "bwd_data")] == [0.5]
    assert math.isclose(cr.gmean(groups[("depthwise", "all")]), 1.0, rel_tol=1e-12)
    assert math.isclose(cr.gmean(groups[("tiny_reduction", "all")]), 1.0, rel_tol=1e-12)
    assert groups[("other", "fwd")] == [0.25]
    assert math.isclose(cr.gmean(groups[("all", "fwd")]), math.sqrt(0.5), rel_tol=1e-12)
    assert math.isclose(cr.gmean(groups[("all", "all")]), 0.25 ** (1 / 3), rel_tol=1e-12)
    assert ("small_cpg", "fwd") not in groups  # the gconv-only problem

    out = io.StringIO()
    with redirect_stdout(out):
        cr.main(["--sweep", str(tmp_path / "sweep.csv")])
    text = out.getvalue()
    assert "3 problems with both times; 1 with gconv only" in text
    summary = text.split("by cuDNN time")[0]  # the first table
    lines = {tuple(l.split()[:2]): l.split() for l in summary.splitlines() if len(l.split()) == 7}
    assert lines[("depthwise", "all")][2:] == ["2", "1.000", "0.500", "2.000", "1"]
    assert lines[("all", "all")][2:] == ["3", "%.3f" % 0.25 ** (1 / 3), "0.250", "2.000", "1"]

    # Depthwise roofline: (x + w + y) bf16 bytes once / 4.26 TB/s / time.
    sh = shapes[dw]
    elems = 32 * 144 * 56 * 56 * 2 + 144 * 9
    assert sh.bytes_once() == 2 * elems
    roof_fwd = 2 * elems / 4.26e12 * 1e3 / 0.010
    row = next(l.split() for l in text.splitlines() if l.startswith("fwd ") and len(l.split()) == 4)
    assert row == ["fwd", "1", "%.3f" % roof_fwd, "%.3f" % (roof_fwd / 2)]


def test_cudnn_jsonl_replaces_the_sweep_rows(tmp_path):
    rows = [_row("fwd", 32, 144, 144, 144, 56, 3, 1, 1, "direct_a", "gconv", 0.010),
            _row("fwd", 32, 144, 144, 144, 56, 3, 1, 1, "cudnn_best:algo_1", "cudnn", 0.020)]
    sweep = _write_sweep(tmp_path, rows)
    jl = tmp_path / "cudnn.jsonl"
    recs = [{"about": "header"},
            {"nd": 2, "N": 32, "C": 144, "K": 144, "G": 144, "spatial": [56, 56], "kernel": [3, 3], "stride": [1, 1],
             "pad": [1, 1], "dil": [1, 1], "direction": "fwd", "exh_ms": 0.03, "torch_exh_ms": 0.04}]
    jl.write_text("".join(json.dumps(r) + "\n" for r in recs))
    for how, want in ((None, 4.0), ("sweep", 2.0), ("min", 2.0)):
        out = io.StringIO()
        argv = ["--sweep", sweep, "--cudnn", str(jl), "--per-problem", str(tmp_path / "pp.csv")]
        with redirect_stdout(out):
            cr.main(argv + (["--cudnn-from", how] if how else []))
        pp = list(csv.DictReader(open(tmp_path / "pp.csv")))
        assert len(pp) == 1 and float(pp[0]["ratio"]) == want, (how, pp)
        assert pp[0]["classes"] == "depthwise;tiny_reduction"
    # --field falls back to exh_ms where the record lacks it
    assert cr.read_cudnn_jsonl(str(jl), "torch_heur_ms")["fwd_bf16_n32c144k144g144_h56w56_y3x3_s1_p1_dil1"][0] == 0.03


def test_small_classes_set_rows_are_in_their_classes():
    sys.path.insert(0, os.path.join(ROOT, "problems", "tools"))
    try:
        from convrow import Conv
    finally:
        sys.path.pop(0)
    path = os.path.join(ROOT, "problems", "small_classes.csv")
    rows = list(csv.DictReader(l for l in open(path) if not l.startswith("#")))
    assert 250 <= len(rows) <= 600
    seen, per_class, batches = set(), dict.fromkeys(cr.CLASSES, 0), set()
    for r in rows:
        p = Conv.from_row(r)
        assert p.spec() == r["spec"] and r["spec"] not in seen and r["source"]
        seen.add(r["spec"])
        cls = cr.classes(p.n, p.c, p.k, p.g, p.filter_volume(), p.out_volume())
        assert cls != ("other",) and r["class"] == ";".join(cls), r["spec"]
        for c in cls:
            per_class[c] += 1
        batches.add(p.n)
    assert batches == {8, 16, 64}
    assert min(per_class.values()) >= 30, per_class
