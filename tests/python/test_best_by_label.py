"""bench/best_by_label.py (per-problem best of labelled sweeps against a
baseline) on tiny synthetic sweeps: which rows each label keeps (gconv rows,
a kernel prefix, the cuDNN provider; failed and non-finite rows never), and
the geometric means it prints, checked exactly. Standard library only."""
import csv
import math

from bench_script import run_main  # bench/ on sys.path
import best_by_label as bbl  # noqa: E402

FWD = "fwd_bf16_n2c64k64g16_h8w8_y3x3_s1_p1_dil1"
BWD = "bwd_data_bf16_n2c64k64g16_h8w8_y3x3_s1_p1_dil1"


def _write(tmp_path, name, rows):
    path = tmp_path / name
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["kernel", "spec", "provider", "status", "latency_ms"])
        w.writeheader()
        for kernel, spec, provider, status, ms in rows:
            w.writerow(dict(kernel=kernel, spec=spec, provider=provider, status=status, latency_ms=ms))
    return str(path)


def _run(args):
    return run_main(bbl.main, "best_by_label.py", args)


def test_labels_keep_their_rows_and_the_ratios_are_exact(tmp_path):
    a = _write(tmp_path, "a.csv", [
        ("direct_fwd_x", FWD, "gconv", "ok", "0.200"),
        ("igemm_fwd_y", FWD, "gconv", "ok", "0.100"),
        ("direct_fwd_z", FWD, "gconv", "failed", "0.010"),  # failed rows never count
        ("direct_bwd_x", BWD, "gconv", "ok", "inf"),  # nor non-finite times
        ("direct_bwd_y", BWD, "gconv", "ok", "0.400"),
        ("cudnn_best:a", FWD, "cudnn", "ok", "0.050"),
        ("cudnn_heuristic:a", FWD, "cudnn", "ok", "0.080"),
        ("cudnn_best:a", BWD, "cudnn", "ok", "0.100"),
    ])
    best = bbl.best_times(a, bbl.selector("direct_"))
    assert best == {FWD: (0.2, "direct_fwd_x"), BWD: (0.4, "direct_bwd_y")}
    assert bbl.best_times(a, bbl.selector(""))[FWD] == (0.1, "igemm_fwd_y")
    assert bbl.best_times(a, bbl.selector("cudnn")) == {FWD: (0.05, "cudnn_best:a"), BWD: (0.1, "cudnn_best:a")}

    per = tmp_path / "per.csv"
    text = _run(["--baseline", "cudnn", f"direct={a}:direct_", f"all={a}", f"cudnn={a}:cudnn",
                 "--per-problem", str(per)])
    lines = {l.split()[0]: l.split() for l in text.splitlines()[1:]}
    # direct: fwd 0.05 / 0.2, bwd_data 0.1 / 0.4 -> geomean 0.25 both.
    assert lines["direct"][1:5] == ["2", "0.250", "0.250", "0.250"]
    assert lines["direct"][5] == "-"
    # all gconv rows: fwd 0.05 / 0.1 = 0.5, bwd 0.25 -> all sqrt(0.125).
    assert lines["all"][2] == f"{math.sqrt(0.5 * 0.25):.3f}"
    rows = list(csv.DictReader(open(per)))
    assert [r["spec"] for r in rows] == sorted([FWD, BWD])
    fwd = next(r for r in rows if r["spec"] == FWD)
    assert fwd["direct_kernel"] == "direct_fwd_x" and float(fwd["cudnn_ms"]) == 0.05


def test_a_problem_missing_from_the_baseline_is_left_out(tmp_path):
    a = _write(tmp_path, "a.csv", [("direct_fwd_x", FWD, "gconv", "ok", "0.2"),
                                   ("direct_bwd_x", BWD, "gconv", "ok", "0.4"),
                                   ("cudnn_best:a", FWD, "cudnn", "ok", "0.1")])
    text = _run(["--baseline", "cudnn", f"d={a}", f"cudnn={a}:cudnn"])
    d = next(l.split() for l in text.splitlines() if l.startswith("d "))
    assert d[1:3] == ["1", "0.500"]
