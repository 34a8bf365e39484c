"""bench/retime_pairs.py's lists of changed kernels and bench/retime_merge.py
with --changed episep on tiny synthetic sweeps: which kernels the fourteenth
session's list names, that anchors come from kernels no list names, and that
only the named kernels' rows are written, scaled by the anchors' median
stored / new ratio. Standard library only."""
import csv

import bench_script  # noqa: F401  (bench/ on sys.path)
import retime_merge
from retime_pairs import CHANGED, changed_episep, changed_s15, changed_s15b, changed_s16, changed_s16b, changed_s16c, changed_s16d, changed_s17, changed_s20, kernel_class, pointwise

SPEC = "fwd_bf16_n2c64k64g1_h8w8_y3x3_s1_p1_dil1"
FIELDS = ["kernel", "spec", "provider", "status", "gpu", "latency_ms", "min_ms", "tflops", "gbps"]


def test_episep_list_names_unsplit_wgmma_tiles_of_128x128_outputs_and_more():
    assert changed_episep("wgmma_fwd_bf16_2d_m128n128k64_c2_s4_sk1_v8")
    assert changed_episep("wgmma_bwd_data_bf16_3d_m128n256k64_c2_s4_sk1_v8_tma")
    assert changed_episep("wgmma_bwd_weight_bf16_2d_m256n64k64_c2_s4_sk1_v8")
    assert not changed_episep("wgmma_fwd_bf16_2d_m128n64k64_c1_s4_sk1_v8")  # 8192 outputs
    assert not changed_episep("wgmma_bwd_weight_bf16_2d_m128n128k64_c2_s4_sk8s_v8")  # split
    assert not changed_episep("igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1")
    assert set(CHANGED) == {"s13", "episep", "s15", "s15b", "s16", "s16b", "s16c", "s16d", "s17", "s20", "all"}


def _write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for kernel, ms in rows:
            w.writerow(dict(kernel=kernel, spec=SPEC, provider="gconv", status="ok", gpu="NVIDIA H100 80GB HBM3",
                            latency_ms=ms, min_ms=ms, tflops="10", gbps="100"))
    return str(path)


def test_merge_episep_scales_only_the_listed_kernels(tmp_path):
    sep = "wgmma_fwd_bf16_2d_m128n128k64_c2_s4_sk1_v8"
    small = "wgmma_fwd_bf16_2d_m64n64k64_c1_s4_sk1_v8"  # changed in s13's list: neither anchor nor written
    a1, a2 = "igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1", "direct_fwd_bf16_2d_t8x8_r4_v8"
    stored = _write(tmp_path / "stored.csv", [(a1, "0.020"), (a2, "0.030"), (sep, "0.050"), (small, "0.040")])
    # New times: anchors 2x and 3x faster than stored -> median scale 2.5.
    new = _write(tmp_path / "new.csv", [(a1, "0.010"), (a2, "0.010"), (sep, "0.008"), (small, "0.004")])
    out = tmp_path / "out.csv"
    retime_merge.main(["--changed", "episep", "--new", new, "--stored", stored, "--out", str(out),
                       "--anchors-out", str(tmp_path / "anchors.csv")])
    rows = list(csv.DictReader(open(out)))
    assert [r["kernel"] for r in rows] == [sep]
    assert abs(float(rows[0]["latency_ms"]) - 0.008 * 2.5) < 1e-9
    assert abs(float(rows[0]["tflops"]) - 10 / 2.5) < 1e-9
    assert rows[0]["gpu"] == "NVIDIA H200"
    anchors = [r["kernel"] for r in csv.DictReader(open(tmp_path / "anchors.csv"))]
    assert sorted(anchors) == sorted([a1, a2])


def test_s15_list_names_tile_n_256_and_tma_kernels_of_pointwise_problems():
    pw2, pw3, pw1 = ("fwd_bf16_n32c256k64g1_h56w56_y1x1_s1_p0_dil1", "bwd_data_bf16_n4c64k128g1_d16h56w56_z1y1x1_s1_p0_dil1",
                     "bwd_weight_bf16_n2c64k64g1_w50_x1_s1_p0_dil1")
    assert pointwise(pw2) and pointwise(pw3) and pointwise(pw1)
    assert not pointwise("fwd_bf16_n32c256k512g1_h56w56_y1x1_s2_p0_dil1")  # strided
    assert not pointwise("fwd_bf16_n32c64k64g1_h56w56_y3x3_s1_p1_dil1")
    assert not pointwise("fwd_bf16_n4c64k64g1_d16h56w56_z3y1x1_s1_p1,0,0_dil1")
    tma = "wgmma_fwd_bf16_2d_m128n128k64_c2_s4_sk1_v8_tma"
    assert changed_s15(tma, pw2) and not changed_s15(tma, "fwd_bf16_n32c64k64g1_h56w56_y3x3_s1_p1_dil1")
    assert not changed_s15("wgmma_fwd_bf16_2d_m128n128k64_c2_s4_sk1_v8", pw2)  # cp.async producer
    assert changed_s15("wgmma_bwd_weight_bf16_2d_m64n256k64_c1_s4_sk8s_v8")  # m64n256 instructions
    assert not changed_s15("igemm_fwd_bf16_2d_m128n256k32_w2x4_s4_sk1_v8_g1")


def test_merge_s15_writes_every_wgmma_row(tmp_path):
    tn128 = "wgmma_fwd_bf16_2d_m64n64k64_c1_s4_sk1_v8"  # re-measured as a new candidate
    a1, a2 = "igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1", "direct_fwd_bf16_2d_t8x8_r4_v8"
    stored = _write(tmp_path / "stored.csv", [(a1, "0.020"), (a2, "0.020")])
    new = _write(tmp_path / "new.csv", [(a1, "0.010"), (a2, "0.010"), (tn128, "0.004")])
    out = tmp_path / "out.csv"
    retime_merge.main(["--changed", "s15", "--new", new, "--stored", stored, "--out", str(out)])
    rows = list(csv.DictReader(open(out)))
    assert [r["kernel"] for r in rows] == [tn128]
    assert abs(float(rows[0]["latency_ms"]) - 0.008) < 1e-9


def test_s15b_list_names_tma_kernels_whose_tiles_load_several_channel_blocks_in_one_box():
    bw = "wgmma_bwd_weight_bf16_2d_m128n128k64_c2_s4_sk2c_v8_tma"
    assert changed_s15b(bw, "bwd_weight_bf16_n32c256k256g1_h14w14_y3x3_s1_p1_dil1")  # K/G = 256: dy
    assert not changed_s15b(bw, "bwd_weight_bf16_n32c64k64g1_h56w56_y3x3_s1_p1_dil1")  # 64 < tile_m, 3x3
    assert changed_s15b(bw, "bwd_weight_bf16_n32c256k64g1_h56w56_y1x1_s1_p0_dil1")  # pointwise x, C/G = 256
    assert not changed_s15b(bw[:-4], "bwd_weight_bf16_n32c256k256g1_h14w14_y3x3_s1_p1_dil1")  # cp.async
    bd = "wgmma_bwd_data_bf16_2d_m128n256k64_c2_s4_sk1_v8_tma"
    assert changed_s15b(bd, "bwd_data_bf16_n32c512k128g1_h28w28_y3x3_s1_p1_dil1")
    assert not changed_s15b(bd, "bwd_data_bf16_n32c384k128g1_h28w28_y3x3_s1_p1_dil1")  # 256 does not divide 384
    assert not changed_s15b("wgmma_fwd_bf16_2d_m128n256k64_c2_s4_sk1_v8_tma", "fwd_bf16_n32c512k512g1_h28w28_y1x1_s1_p0_dil1")


def test_s16_list_names_tma_kernels_on_pointwise_problems_with_channels_off_multiples_of_64():
    f = "wgmma_fwd_bf16_2d_m128n128k64_c2_s4_sk1_v8_tma"
    assert changed_s16(f, "fwd_bf16_n32c40k240g1_h28w28_y1x1_s1_p0_dil1")  # C = 40: the K tail reads zeros
    assert not changed_s16(f, "fwd_bf16_n32c256k40g1_h28w28_y1x1_s1_p0_dil1")  # C a multiple of 64: served before
    assert not changed_s16(f, "fwd_bf16_n32c40k240g1_h28w28_y3x3_s1_p1_dil1")  # a window
    assert not changed_s16(f[:-4], "fwd_bf16_n32c40k240g1_h28w28_y1x1_s1_p0_dil1")  # cp.async
    bd = "wgmma_bwd_data_bf16_2d_m128n128k64_c2_s4_sk1_v8_tma"
    assert changed_s16(bd, "bwd_data_bf16_n32c672k112g1_h14w14_y1x1_s1_p0_dil1")  # K = 112
    assert not changed_s16(bd, "bwd_data_bf16_n32c224k112g2_h14w14_y1x1_s1_p0_dil1")  # grouped
    bw = "wgmma_bwd_weight_bf16_2d_m128n128k64_c2_s4_sk1_v8_tma"
    assert changed_s16(bw, "bwd_weight_bf16_n32c80k48g2_h14w14_y1x1_s1_p0_dil1")  # C/G = 40, grouped too
    assert not changed_s16(bw, "bwd_weight_bf16_n32c128k48g2_h14w14_y1x1_s1_p0_dil1")  # C/G = 64
    assert not changed_s16(bw)  # by name alone (anchors) nothing is new


def test_combine_replaces_re_timed_pairs_drops_stale_rows_and_adds_new_ones():
    from retime_combine import combine

    def row(k, s, t):
        return {"kernel": k, "spec": s, "latency_ms": t}

    pw = "bwd_weight_bf16_n32c256k64g1_h56w56_y1x1_s1_p0_dil1"  # pointwise, C/G = 256
    blocks = "wgmma_bwd_weight_bf16_2d_m128n256k64_c2_s4_sk1_v8_tma"  # on s15b's list for pw
    other = "igemm_bwd_weight_bf16_2d_m64n64k32_w2x2_s4_sk1_v8_g1"
    base = [row(other, pw, "1.0"), row(blocks, pw, "2.0"), row(blocks[:-4], pw, "3.0"),
            row(blocks, pw.replace("n32", "n16"), "4.0")]
    newer = [[row(blocks, pw, "1.5")], [row("wgmma_new_tma", pw, "0.5")]]
    out, n = combine(base, newer, ["s15b"])
    got = {(r["kernel"], r["spec"]): r["latency_ms"] for r in out}
    assert got[(other, pw)] == "1.0" and got[(blocks[:-4], pw)] == "3.0"  # kept
    assert got[(blocks, pw)] == "1.5"  # replaced by the re-timed row
    assert (blocks, pw.replace("n32", "n16")) not in got  # stale: on the list, not re-timed
    assert got[("wgmma_new_tma", pw)] == "0.5"
    assert n == {"kept": 2, "replaced": 1, "dropped": 1, "added": 2}
    out, n = combine(base, newer, [])
    assert n["dropped"] == 0 and len(out) == 5


def test_s16b_list_names_bwd_data_tma_kernels_on_strided_pointwise_problems():
    bd = "wgmma_bwd_data_bf16_2d_m128n128k64_c2_s4_sk1_v8_tma"
    assert changed_s16b(bd, "bwd_data_bf16_n32c1024k2048g1_h14w14_y1x1_s2_p0_dil1")
    assert changed_s16b(bd, "bwd_data_bf16_n4c64k64g1_d8h14w14_z1y1x1_s1,2,2_p0_dil1")
    assert not changed_s16b(bd, "bwd_data_bf16_n32c1024k2048g1_h14w14_y1x1_s1_p0_dil1")  # stride 1: s15's list
    assert not changed_s16b(bd, "bwd_data_bf16_n32c1024k2048g1_h14w14_y3x3_s2_p1_dil1")  # a window
    assert not changed_s16b(bd[:-4], "bwd_data_bf16_n32c1024k2048g1_h14w14_y1x1_s2_p0_dil1")  # cp.async
    assert not changed_s16b(bd.replace("bwd_data", "fwd"), "fwd_bf16_n32c1024k2048g1_h14w14_y1x1_s2_p0_dil1")


def test_s16c_list_names_the_new_odd_channel_split_kernels_of_bwd_data():
    assert changed_s16c("igemm_bwd_data_bf16_3d_m64n32k32_w2x2_s3_sk8p_v1_g1")
    assert changed_s16c("igemm_bwd_data_fp16_2d_m64n64k32_w2x2_s3_sk4p_v4_g1")
    assert not changed_s16c("igemm_bwd_data_bf16_2d_m64n64k64_w2x2_s4_sk4p_v8_g1")  # the vec-8 split list
    assert not changed_s16c("igemm_bwd_data_bf16_2d_m64n32k32_w2x2_s3_sk1_v1_g1")  # unsplit
    assert not changed_s16c("igemm_bwd_weight_bf16_2d_m64n32k32_w2x2_s3_sk4p_v1_g1")


def test_window_kernels_are_a_class_per_vector_width_as_in_candidates_cpp():
    assert kernel_class("direct_bwd_weight_bf16_2d_t4x32_r8_v8_w3s1") == 72
    assert kernel_class("direct_bwd_weight_bf16_2d_t4x32_r8_v4_w3s1") == 76
    assert kernel_class("direct_bwd_weight_bf16_2d_t4x32_r8_v2_w3s1") == 75
    assert kernel_class("direct_bwd_weight_bf16_2d_t8x16_r2_v8_det") == 73
    assert kernel_class("direct_bwd_weight_bf16_2d_t8x16_r2_v8") == 0
    assert changed_s16d("direct_fwd_bf16_2d_t4x32_r8_v4_w5s2")
    assert not changed_s16d("direct_fwd_bf16_2d_t4x32_r8_v8_w5s2")
    assert not changed_s16d("direct_fwd_bf16_2d_t8x16_r2_v4")  # a tile kernel


def test_s17_names_the_64_row_tma_kernels_of_fwd_and_bwd_data():
    assert changed_s17("wgmma_fwd_bf16_2d_m64n64k64_c1_s4_sk1_v8_tma")
    assert changed_s17("wgmma_bwd_data_bf16_3d_m64n128k64_c1_s4_sk2c_v8_tma")
    assert changed_s17("wgmma_fwd_fp16_1d_m64n256k64_c1_s6_sk1_v8_tma")
    assert not changed_s17("wgmma_bwd_weight_bf16_2d_m64n64k64_c1_s4_sk1_v8_tma")  # bwd_weight had them
    assert not changed_s17("wgmma_fwd_bf16_2d_m64n64k64_c1_s4_sk1_v8")  # cp.async producer
    assert not changed_s17("wgmma_fwd_bf16_2d_m128n64k64_c1_s4_sk1_v8_tma")  # 128 rows


def test_s20_names_the_two_block_stage_kernels_of_every_direction():
    assert changed_s20("wgmma_fwd_bf16_2d_m64n64k128_c1_s3_sk1_v8_tma")
    assert changed_s20("wgmma_bwd_data_fp16_3d_m64n64k128_c1_s4_sk2c_v8_tma")
    assert changed_s20("wgmma_bwd_weight_bf16_1d_m64n64k128_c1_s3_sk16s_v8_tma")
    assert not changed_s20("wgmma_fwd_bf16_2d_m64n64k64_c1_s4_sk1_v8_tma")  # one-block stages
    assert not changed_s20("wgmma_fwd_bf16_2d_m128n64k128_c1_s3_sk1_v8_tma")  # not a pool tile


def test_changed_all_times_every_candidate_and_keeps_no_anchors(tmp_path):
    import json
    import retime_pairs
    # Ranked: 3 kernels of one class (igemm fwd unsplit), then one wgmma and one direct kernel.
    ranked = ["igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1", "igemm_fwd_bf16_2d_m64n64k32_w2x2_s4_sk1_v8_g1",
              "igemm_fwd_bf16_2d_m32n32k32_w2x2_s4_sk1_v8_g1", "wgmma_fwd_bf16_2d_m128n128k64_c2_s4_sk1_v8",
              "direct_fwd_bf16_2d_t8x8_r4_v8"]
    sel = tmp_path / "sel.jsonl"
    sel.write_text(json.dumps({"spec": SPEC, "ranked": [{"kernel": k} for k in ranked]}) + "\n")
    stored = _write(tmp_path / "stored.csv", [(ranked[4], "0.030"), (ranked[0], "0.020")])
    pairs, problems = tmp_path / "pairs.csv", tmp_path / "problems.csv"
    retime_pairs.main(["--select", str(sel), "--sweep", stored, "--top", "2", "--changed", "all",
                       "--pairs", str(pairs), "--problems", str(problems)])
    got = [r["kernel"] for r in csv.DictReader(open(pairs))]
    # The top 2, then the first kernel of each class not among them; no anchor added.
    assert got[:2] == ranked[:2] and ranked[2] not in got
    assert set(got[2:]) == {ranked[3], ranked[4]}
    # `all` names every kernel, but the anchor test ignores it.
    assert retime_pairs.changed_all("direct_fwd_bf16_2d_t8x8_r4_v8")
    assert retime_pairs.unchanged("direct_fwd_bf16_2d_t8x8_r4_v8")
