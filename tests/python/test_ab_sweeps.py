"""bench/ab_sweeps.py (A/B of two sweeps of the same pairs) on tiny synthetic
sweeps: the pair and per-problem-best ratios it prints, checked exactly, and
the row filters (--family, --match, --kernels-file; failed rows and other
providers never count). Standard library only."""
import csv
import math

from bench_script import run_main  # bench/ on sys.path
import ab_sweeps  # noqa: E402

FWD = "fwd_bf16_n2c64k64g1_h8w8_y3x3_s1_p1_dil1"
WGT = "bwd_weight_bf16_n2c64k64g1_h8w8_y3x3_s1_p1_dil1"


def _write(tmp_path, name, rows):
    path = tmp_path / name
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["kernel", "family", "spec", "provider", "status", "latency_ms"])
        w.writeheader()
        for kernel, spec, status, ms in rows:
            w.writerow(dict(kernel=kernel, family=kernel.split("_")[0], spec=spec, provider="gconv", status=status,
                            latency_ms=ms))
        w.writerow(dict(kernel="cudnn_best:x", family="", spec=FWD, provider="cudnn", status="ok", latency_ms="0.001"))
    return str(path)


def _run(args):
    return run_main(ab_sweeps.main, "ab_sweeps.py", args)


def _row(text, key):
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] == key:
            return parts
    raise AssertionError(f"no row {key} in:\n{text}")


def _sweeps(tmp_path):
    a = _write(tmp_path, "a.csv", [
        ("wgmma_k_sk8s_v8", FWD, "ok", "0.400"),
        ("igemm_k_sk1_v8", FWD, "ok", "0.200"),
        ("wgmma_k_sk8s_v8", WGT, "ok", "0.300"),
        ("igemm_k_sk1_v8", WGT, "failed", "0.001"),  # failed rows never count
    ])
    b = _write(tmp_path, "b.csv", [
        ("wgmma_k_sk8s_v8", FWD, "ok", "0.100"),
        ("igemm_k_sk1_v8", FWD, "ok", "0.400"),
        ("wgmma_k_sk8s_v8", WGT, "ok", "0.600"),
        ("igemm_k_sk1_v8", WGT, "ok", "0.002"),
    ])
    return a, b


def test_pair_and_best_ratios_are_exact(tmp_path):
    a, b = _sweeps(tmp_path)
    text = _run(["--a", a, "--b", b])
    # Pairs in both sweeps (ok in both): fwd 0.4/0.1 = 4 and 0.2/0.4 = 0.5, bwd_weight 0.3/0.6.
    allr = _row(text, "all")
    assert allr[1] == "3"
    assert math.isclose(float(allr[2]), (4 * 0.5 * 0.5) ** (1 / 3), abs_tol=5e-4)
    # Best per problem: fwd min(0.4, 0.2) / min(0.1, 0.4) = 2; bwd_weight 0.3 / 0.6 = 0.5.
    assert allr[3] == "2" and math.isclose(float(allr[4]), 1.0, abs_tol=5e-4) and allr[5] == "1"
    fwd = _row(text, "fwd")
    assert math.isclose(float(fwd[2]), 1.414, abs_tol=5e-4) and math.isclose(float(fwd[4]), 2.0, abs_tol=5e-4)


def test_filters_keep_only_the_named_kernels(tmp_path):
    a, b = _sweeps(tmp_path)
    for args in (["--match", "_sk[0-9]+s_"], ["--family", "wgmma"]):
        allr = _row(_run(["--a", a, "--b", b] + args), "all")
        assert allr[1] == "2", args  # the serial wgmma kernel on both problems
        assert math.isclose(float(allr[2]), math.sqrt(2.0), abs_tol=5e-4), args  # 4 and 0.5
    names = tmp_path / "names.txt"
    names.write_text("igemm_k_sk1_v8\n")
    allr = _row(_run(["--a", a, "--b", b, "--kernels-file", str(names)]), "all")
    assert allr[1] == "1"  # the bwd_weight pair failed in A
    assert math.isclose(float(allr[2]), 0.5, abs_tol=5e-4)
