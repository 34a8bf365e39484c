#!/usr/bin/env python3
"""Writes problems/small_classes.csv: the conv layers of issue 17's four
classes (small channels per group, depthwise / depth multiplier, tiny
reduction, tiny spatial: definitions in bench/class_report.py, classes())
from networks that no other problem set holds, at batch 8, 16 and 64, for
`gconv bench` against cuDNN and bench/class_report.py.

The layers are written here from the published architectures (no framework
needed; each layer chained on the previous one's output size). Networks, at
224x224 unless said:

  regnetx_200mf, regnety_200mf, regnetx_800mf, regnety_800mf
        Radosavovic et al. 2020 (pycls configs; timm regnetx_002 / 008,
        regnety_002 / 008): widths from the quantized linear rule (w0, wa,
        wm, depth) with group width 8 / 16, bottleneck ratio 1, stride in the
        3x3, Y: squeeze-excite of round(0.25 * block input width)
  resnext101_64x4d   Xie et al. 2017 (timm / torchvision v1.5 layout): 3x3
        convs of width 256..2048 in 64 groups (C/G 4, 8, 16, 32)
  shufflenet_v1_g8   Zhang et al. 2018, 1x, g = 8: grouped 1x1 convs around a
        depthwise 3x3 (stage outputs 384 / 768 / 1536, bottleneck out/4, the
        stride-2 unit's conv gives out - in channels, the first 1x1 of stage 2
        ungrouped)
  mobilenetv3_large_075, mobilenetv3_small_075, mobilenetv3_small_050
        Howard et al. 2019, timm's arch_def and channel rounding
        (make_divisible(c * multiplier, 8)), SE of make_divisible(mid / 4, 8),
        conv_head on the pooled 1x1 map (1280 / 1024 features)
  mixnet_s   Tan & Le 2019 (timm mixnet_s arch_def): mixed depthwise 3x3..11x11
        (channels split equally, the first split takes the rest), grouped
        expansion / projection (a1.1 / p1.1: two 1x1 convs on half the
        channels), SE of round(in * se_ratio)
  ghostnet_100, ghostnet_050   Han et al. 2020: ghost modules (1x1 primary
        conv to ceil(out/2), depthwise 3x3 cheap op), SE of
        make_divisible(mid / 4, 4), conv_head 1280 on 1x1
  tinynet_a, tinynet_c, tinynet_e   Han et al. 2020 (timm _gen_tinynet):
        EfficientNet-B0 arch_def at (resolution, width, depth) =
        (192, 1.0, 1.2), (184, 0.54, 0.85), (106, 0.51, 0.6); stem 32 fixed
  mobileone_s0   Vasu et al. 2023 (inference form: dw 3x3 + 1x1, widths
        48/128/256/1024)
  vit_tiny/small/base/large_patch16_224, vit_base_patch32_224,
  vit_base_patch16_384, swin_base_patch4   Dosovitskiy et al. 2021, Liu et al.
        2021: patchify convs (C = 3, kernel = stride)
  pvt_v2_b0   Wang et al. 2022: 7x7/4 overlapping patch stem, depthwise 3x3
        in the MLP (hidden 8x / 4x the stage width)
  quartznet_5x5   Kriman et al. 2020 (NeMo config): 64 mel features, 16 s
        (1600 frames), depthwise 1D k33 (s2), 33, 39, 51, 63, 75, 87 (dil 2)
  citrinet_256    Majumdar et al. 2021: 80 mel features, 16 s, depthwise 1D
        k11..k41 on 256 channels, stride 2 at blocks 1, 7 and 14
  convtasnet      Luo & Mesgarani 2019 (N=512, L=16, B=128, H=512, P=3,
        X=8): 4 s at 8 kHz, encoder 1->512 k16 s8, depthwise k3 with
        dilation 1..128 on 3999 frames
  mobilenetv2_3d   Kopuklu et al. 2019 (Efficient-3DCNNs, width 1.0):
        16x112x112 clips, 3x3x3 depthwise, strides (2,2,2)
  ir_csn_101      Tran et al. 2019 (pytorchvideo create_csn): 8x224x224
        clips, 3x7x7 stem, 3x3x3 depthwise bottlenecks

In the set: regnetx_200mf regnetx_800mf resnext101_64x4d shufflenet_v1_g8
mobilenetv3_large_075 mixnet_s ghostnet_100, the seven patchify stems,
pvt_v2_b0 quartznet_5x5 convtasnet mobilenetv2_3d (492 rows). The others
(regnety_*, mobilenetv3_small_*, ghostnet_050, tinynet_*, mobileone_s0,
citrinet_256, ir_csn_101) are written but left out to keep the set near 500
rows; --with-optional adds them (1,100 rows). RepVGG-A0's 3->48 stem and the
Swin-T / ConvNeXt 4x4 stem are not here: torchvision_2d holds their shapes.

Only layers in at least one class are kept; a layer shape (batch excluded,
direction and dtype ignored) that any other problem set holds (every
problems/*.csv and *.jsonl) is dropped; a shape that several networks share
is one row whose source names them all (';'-joined, as the other sets). The
extra column `class` lists the row's classes (';'-joined; the reader ignores
unknown columns). Rows are fwd / bf16 (the harness chooses the direction:
`gconv bench --directions all`), ordered shape by shape (batch 8, 16, 64), so
a prefix of the file covers every network. Deterministic: no randomness.

Usage: python3 problems/tools/make_small_classes.py [--dir problems]
"""

import argparse
import csv
import glob
import io
import json
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _here)
sys.path.insert(0, os.path.join(_here, "..", "..", "bench"))
from convrow import COLUMNS, Conv, read_csv  # noqa: E402
from class_report import CLASSES, classes  # noqa: E402

BATCHES = (8, 16, 64)
NAME = "small_classes"


def make_divisible(v, divisor=8, min_value=None, round_limit=0.9):
    """timm's channel rounding (also GhostNet's with divisor 4)."""
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < round_limit * v else new_v


def split_channels(c, n):
    """timm's _split_channels: equal parts, the first takes the rest."""
    s = [c // n] * n
    s[0] += c - sum(s)
    return s


class Net:
    """One model's conv layers (batch 1; the batches are applied later);
    conv*() return the output size."""

    def __init__(self, name):
        self.name, self.layers = name, []

    def _add(self, conv):
        self.layers.append(conv)
        return conv

    def conv2(self, c, k, hw, f, s=1, g=1, pad=None):
        h, w = hw if isinstance(hw, tuple) else (hw, hw)
        fy, fx = f if isinstance(f, tuple) else (f, f)
        p = [((s - 1) + (fy - 1)) // 2, ((s - 1) + (fx - 1)) // 2] if pad is None else [pad, pad]
        conv = self._add(Conv(2, 1, c, k, g, [h, w], [fy, fx], [s, s], p))
        out = (conv.out(1), conv.out(2))
        return out if isinstance(hw, tuple) else out[0]

    def conv1(self, c, k, t, f, s=1, g=1, pad=None, dil=1):
        p = [dil * (f - 1) // 2] if pad is None else [pad]
        return self._add(Conv(1, 1, c, k, g, [t], [f], [s], p, [dil])).out(2)

    def conv3(self, c, k, dhw, f, s=(1, 1, 1), g=1):
        conv = self._add(Conv(3, 1, c, k, g, list(dhw), list(f), list(s), [x // 2 for x in f]))
        return (conv.out(0), conv.out(1), conv.out(2))


# --- RegNet -----------------------------------------------------------------

def regnet_widths(w0, wa, wm, depth, gw, q=8):
    """pycls generate_regnet + adjust_ws_gs_comp (bottleneck ratio 1):
    per stage (width, depth)."""
    ws = []
    for i in range(depth):
        e = round(math.log((i * wa + w0) / w0) / math.log(wm))
        ws.append(int(round(w0 * wm ** e / q)) * q)
    stages = []
    for w in ws:
        if stages and stages[-1][0] == w:
            stages[-1][1] += 1
        else:
            stages.append([w, 1])
    return [(int(round(w / min(gw, w))) * min(gw, w), d) for w, d in stages]


def regnet(name, w0, wa, wm, depth, gw, se, expect):
    n = Net(name)
    stages = regnet_widths(w0, wa, wm, depth, gw)
    assert [list(s) for s in stages] == expect, (name, stages)
    hw = n.conv2(3, 32, 224, 3, s=2)
    c = 32
    for w, d in stages:
        for i in range(d):
            s = 2 if i == 0 else 1
            n.conv2(c, w, hw, 1)
            hw2 = n.conv2(w, w, hw, 3, s=s, g=w // min(gw, w))
            if se:
                r = int(round(c * 0.25))
                n.conv2(w, r, 1, 1)
                n.conv2(r, w, 1, 1)
            n.conv2(w, w, hw2, 1)
            if c != w or s != 1:
                n.conv2(c, w, hw, 1, s=s)
            hw, c = hw2, w
    return n


def resnext101_64x4d():
    n = Net("resnext101_64x4d")
    n.conv2(3, 64, 224, 7, s=2)
    hw, c = 56, 64
    for planes, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 23, 2), (512, 3, 2)]:
        width = planes * 4  # int(planes * base_width / 64) * groups, base_width 4, groups 64
        for i in range(blocks):
            s = stride if i == 0 else 1
            n.conv2(c, width, hw, 1)
            hw2 = n.conv2(width, width, hw, 3, s=s, g=64)
            n.conv2(width, planes * 4, hw2, 1)
            if i == 0:
                n.conv2(c, planes * 4, hw, 1, s=s)
            hw, c = hw2, planes * 4
    return n


def shufflenet_v1_g8():
    n = Net("shufflenet_v1_g8")
    hw = n.conv2(3, 24, 224, 3, s=2)
    hw, c, g = (hw + 1) // 2, 24, 8  # 3x3/2 max pool: 112 -> 56
    for out, reps in [(384, 4), (768, 8), (1536, 4)]:
        mid = out // 4
        for i in range(reps):
            s = 2 if i == 0 else 1
            n.conv2(c, mid, hw, 1, g=1 if c == 24 else g)
            hw2 = n.conv2(mid, mid, hw, 3, s=s, g=mid)
            n.conv2(mid, out - c if s == 2 else out, hw2, 1, g=g)
            hw, c = hw2, out
    return n


# --- MobileNetV3 / EfficientNet-style (timm arch_def strings) ---------------

def parse_block(s):
    """One timm block string, e.g. 'ir_r2_k3.5_a1.1_p1.1_s1_e6_c80_se0.25_nsw'."""
    parts = s.split("_")
    b = {"type": parts[0], "r": 1, "k": [3], "a": [1], "p": [1], "s": 1, "e": 1.0, "se": 0.0}
    for p in parts[1:]:
        if p.startswith("se"):
            b["se"] = float(p[2:])
        elif p[0] in "kap":
            b[p[0]] = [int(x) for x in p[1:].split(".")]
        elif p[0] == "r":
            b["r"] = int(p[1:])
        elif p[0] == "s":
            b["s"] = int(p[1:])
        elif p[0] == "e":
            b["e"] = float(p[1:])
        elif p[0] == "c":
            b["c"] = int(p[1:])
    return b


def mixed(n, c, k, hw, kernels, s=1, dw=False):
    """timm MixedConv2d: one conv per kernel on a split of the channels."""
    ins, outs = split_channels(c, len(kernels)), split_channels(k, len(kernels))
    out = hw
    for ci, ko, f in zip(ins, outs, kernels):
        out = n.conv2(ci, ci if dw else ko, hw, f, s=s, g=ci if dw else 1)
    return out


def effnet_like(name, arch, res, stem, head, round_chs, se_from_exp, se_round, depth_mult=1.0, fix_stem=False):
    """timm's EfficientNet / MobileNetV3 builder on an arch_def."""
    n = Net(name)
    c = stem if fix_stem else round_chs(stem)
    hw = n.conv2(3, c, res, 3, s=2)
    for stage in arch:
        blocks = [parse_block(s) for s in stage]
        if depth_mult != 1.0:  # _scale_stage_depth, 'round' (one block string per stage here)
            total = sum(b["r"] for b in blocks)
            scaled = int(round(total * depth_mult))
            for b in reversed(blocks):
                rs = max(1, round(b["r"] / total * scaled))
                total, scaled, b["r"] = total - b["r"], scaled - rs, rs
        for b in blocks:
            out = round_chs(b["c"]) if b["type"] != "cn" else round_chs(b["c"])
            for i in range(b["r"]):
                s = b["s"] if i == 0 else 1
                if b["type"] == "cn":
                    hw = n.conv2(c, out, hw, 1)
                    c = out
                    continue
                mid = c if b["type"] == "ds" else make_divisible(c * b["e"])
                if b["type"] == "ir":
                    mixed(n, c, mid, hw, b["a"])
                hw2 = mixed(n, mid, mid, hw, b["k"], s=s, dw=True)
                if b["se"]:
                    ratio = b["se"] if se_from_exp else b["se"] / b["e"]
                    r = se_round(mid * ratio)
                    n.conv2(mid, r, 1, 1)
                    n.conv2(r, mid, 1, 1)
                mixed(n, mid, out, hw2, b["p"])
                hw, c = hw2, out
    n.conv2(c, head, 1, 1)  # conv_head on the pooled map (EfficientNet: at hw, dense, no class)
    return n


MBV3_LARGE = [["ds_r1_k3_s1_e1_c16"], ["ir_r1_k3_s2_e4_c24", "ir_r1_k3_s1_e3_c24"],
              ["ir_r3_k5_s2_e3_c40_se0.25"],
              ["ir_r1_k3_s2_e6_c80", "ir_r1_k3_s1_e2.5_c80", "ir_r2_k3_s1_e2.3_c80"],
              ["ir_r2_k3_s1_e6_c112_se0.25"], ["ir_r3_k5_s2_e6_c160_se0.25"], ["cn_r1_k1_s1_c960"]]
MBV3_SMALL = [["ds_r1_k3_s2_e1_c16_se0.25"], ["ir_r1_k3_s2_e4.5_c24", "ir_r1_k3_s1_e3.67_c24"],
              ["ir_r1_k5_s2_e4_c40_se0.25", "ir_r2_k5_s1_e6_c40_se0.25"], ["ir_r2_k5_s1_e3_c48_se0.25"],
              ["ir_r3_k5_s2_e6_c96_se0.25"], ["cn_r1_k1_s1_c576"]]
EFFNET_B0 = [["ds_r1_k3_s1_e1_c16_se0.25"], ["ir_r2_k3_s2_e6_c24_se0.25"], ["ir_r2_k5_s2_e6_c40_se0.25"],
             ["ir_r3_k3_s2_e6_c80_se0.25"], ["ir_r3_k5_s1_e6_c112_se0.25"], ["ir_r4_k5_s2_e6_c192_se0.25"],
             ["ir_r1_k3_s1_e6_c320_se0.25"]]
MIXNET_S = [["ds_r1_k3_s1_e1_c16"], ["ir_r1_k3_a1.1_p1.1_s2_e6_c24", "ir_r1_k3_a1.1_p1.1_s1_e3_c24"],
            ["ir_r1_k3.5.7_s2_e6_c40_se0.5", "ir_r3_k3.5_a1.1_p1.1_s1_e6_c40_se0.5"],
            ["ir_r1_k3.5.7_p1.1_s2_e6_c80_se0.25", "ir_r2_k3.5_p1.1_s1_e6_c80_se0.25"],
            ["ir_r1_k3.5.7_a1.1_p1.1_s1_e6_c120_se0.5", "ir_r2_k3.5.7.9_a1.1_p1.1_s1_e3_c120_se0.5"],
            ["ir_r1_k3.5.7.9.11_s2_e6_c200_se0.5", "ir_r2_k3.5.7.9_p1.1_s1_e6_c200_se0.5"]]


def mobilenetv3(name, arch, mult, head):
    rc = lambda c: make_divisible(c * mult)
    return effnet_like(name, arch, 224, 16, head, rc, se_from_exp=True, se_round=make_divisible,
                       fix_stem=mult < 0.75)


def mixnet_s():
    # The SE and exp ratios of MixNet are relative to the block input (se_from_exp False).
    return effnet_like("mixnet_s", MIXNET_S, 224, 16, 1536, lambda c: make_divisible(c), se_from_exp=False,
                       se_round=round)


def tinynet(name, res, width, depth):
    return effnet_like(name, EFFNET_B0, res, 32, max(1280, make_divisible(1280 * width)),
                       lambda c: make_divisible(c * width), se_from_exp=False, se_round=round,
                       depth_mult=depth, fix_stem=True)


def ghostnet(name, width):
    cfg = [[3, 16, 16, 0, 1], [3, 48, 24, 0, 2], [3, 72, 24, 0, 1], [5, 72, 40, 0.25, 2],
           [5, 120, 40, 0.25, 1], [3, 240, 80, 0, 2], [3, 200, 80, 0, 1], [3, 184, 80, 0, 1],
           [3, 184, 80, 0, 1], [3, 480, 112, 0.25, 1], [3, 672, 112, 0.25, 1], [5, 672, 160, 0.25, 2],
           [5, 960, 160, 0, 1], [5, 960, 160, 0.25, 1], [5, 960, 160, 0, 1], [5, 960, 160, 0.25, 1]]
    md = lambda v: make_divisible(v, 4)
    n = Net(name)
    c = md(16 * width)
    hw = n.conv2(3, c, 224, 3, s=2)

    def ghost(cin, cout, hw):
        init = math.ceil(cout / 2)
        n.conv2(cin, init, hw, 1)
        n.conv2(init, init, hw, 3, g=init)

    for k, exp, out, se, s in cfg:
        mid, out = md(exp * width), md(out * width)
        ghost(c, mid, hw)
        hw2 = n.conv2(mid, mid, hw, k, s=s, g=mid) if s > 1 else hw
        if se:
            r = md(mid * se)
            n.conv2(mid, r, 1, 1)
            n.conv2(r, mid, 1, 1)
        ghost(mid, out, hw2)
        if c != out or s > 1:
            n.conv2(c, c, hw, k, s=s, g=c)
            n.conv2(c, out, hw2, 1)
        hw, c = hw2, out
    last = md(960 * width)
    n.conv2(c, last, hw, 1)
    n.conv2(last, 1280, 1, 1)  # conv_head on the pooled map
    return n


def mobileone_s0():
    n = Net("mobileone_s0")
    hw = n.conv2(3, 48, 224, 3, s=2)
    c = 48
    for planes, blocks in [(48, 2), (128, 8), (256, 10), (1024, 1)]:
        for i in range(blocks):
            hw = n.conv2(c, c, hw, 3, s=2 if i == 0 else 1, g=c)
            n.conv2(c, planes, hw, 1)
            c = planes
    return n


def patchify(name, dim, patch, res=224):
    n = Net(name)
    n.conv2(3, dim, res, patch, s=patch, pad=0)
    return n


def pvt_v2_b0():
    n = Net("pvt_v2_b0")
    dims, ratios = [32, 64, 160, 256], [8, 8, 4, 4]
    hw = n.conv2(3, 32, 224, 7, s=4, pad=3)
    for i, (d, r) in enumerate(zip(dims, ratios)):
        if i:
            hw = n.conv2(dims[i - 1], d, hw, 3, s=2, pad=1)
        sr = [8, 4, 2, 1][i]
        if sr > 1:
            n.conv2(d, d, hw, sr, s=sr, pad=0)  # attention's spatial reduction
        n.conv2(d * r, d * r, hw, 3, g=d * r)  # DWConv of the MLP
    return n


# --- 1D ---------------------------------------------------------------------

def quartznet_5x5():
    n = Net("quartznet_5x5")
    t = n.conv1(64, 64, 1600, 33, s=2, g=64)  # C1, separable
    n.conv1(64, 256, t, 1)
    c = 256
    for k, out in [(33, 256), (39, 256), (51, 512), (63, 512), (75, 512)]:
        for _ in range(5):
            n.conv1(c, c, t, k, g=c)
            n.conv1(c, out, t, 1)
            c = out
    n.conv1(512, 512, t, 87, g=512, dil=2)  # C2
    n.conv1(512, 512, t, 1)
    n.conv1(512, 1024, t, 1)
    return n


def citrinet_256():
    n = Net("citrinet_256")
    t = n.conv1(80, 80, 1600, 5, g=80)  # prolog
    n.conv1(80, 256, t, 1)
    kernels = [11, 13, 15, 17, 19, 21, 13, 15, 17, 19, 21, 23, 25, 25, 27, 29, 31, 33, 35, 37, 39]
    for b, k in enumerate(kernels, 1):
        for r in range(5):
            t2 = n.conv1(256, 256, t, k, s=2 if r == 0 and b in (1, 7, 14) else 1, g=256)
            n.conv1(256, 256, t2, 1)
            t = t2
    n.conv1(256, 256, t, 41, g=256)  # epilog
    n.conv1(256, 640, t, 1)
    return n


def convtasnet():
    n = Net("convtasnet")
    t = n.conv1(1, 512, 32000, 16, s=8, pad=0)
    n.conv1(512, 128, t, 1)
    for x in range(8):
        d = 2 ** x
        n.conv1(128, 512, t, 1)
        n.conv1(512, 512, t, 3, g=512, dil=d)
        n.conv1(512, 128, t, 1)
    n.conv1(128, 1024, t, 1)  # masks for 2 speakers
    return n


# --- 3D ---------------------------------------------------------------------

def mobilenetv2_3d():
    n = Net("mobilenetv2_3d")
    dhw = n.conv3(3, 32, (16, 112, 112), (3, 3, 3), (1, 2, 2))
    c = 32
    for t, out, reps, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                            (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(reps):
            st = (s, s, s) if i == 0 else (1, 1, 1)
            mid = c * t
            if t != 1:
                n.conv3(c, mid, dhw, (1, 1, 1))
            dhw2 = n.conv3(mid, mid, dhw, (3, 3, 3), st, g=mid)
            n.conv3(mid, out, dhw2, (1, 1, 1))
            dhw, c = dhw2, out
    n.conv3(320, 1280, dhw, (1, 1, 1))
    return n


def ir_csn_101():
    n = Net("ir_csn_101")
    dhw = n.conv3(3, 64, (8, 224, 224), (3, 7, 7), (1, 2, 2))
    dhw = (dhw[0], (dhw[1] + 1) // 2, (dhw[2] + 1) // 2)  # (1,3,3)/(1,2,2) max pool
    c = 64
    for inner, blocks, s in [(64, 3, 1), (128, 4, 2), (256, 23, 2), (512, 3, 2)]:
        out = inner * 4
        for i in range(blocks):
            st = (s, s, s) if i == 0 else (1, 1, 1)
            n.conv3(c, inner, dhw, (1, 1, 1))
            dhw2 = n.conv3(inner, inner, dhw, (3, 3, 3), st, g=inner)
            n.conv3(inner, out, dhw2, (1, 1, 1))
            if i == 0:
                n.conv3(c, out, dhw, (1, 1, 1), st)
            dhw, c = dhw2, out
    return n


def models(optional=False):
    """The set's networks; with optional, also the ones written but left out
    to keep the set near 500 rows (--with-optional)."""
    rx = regnet
    nets = [
        rx("regnetx_200mf", 24, 36.44, 2.49, 13, 8, False, [[24, 1], [56, 1], [152, 4], [368, 7]]),
        rx("regnetx_800mf", 56, 35.73, 2.28, 16, 16, False, [[64, 1], [128, 3], [288, 7], [672, 5]]),
        resnext101_64x4d(), shufflenet_v1_g8(),
        mobilenetv3("mobilenetv3_large_075", MBV3_LARGE, 0.75, 1280),
        mixnet_s(), ghostnet("ghostnet_100", 1.0),
        patchify("vit_tiny_patch16_224", 192, 16), patchify("vit_small_patch16_224", 384, 16),
        patchify("vit_base_patch16_224", 768, 16), patchify("vit_large_patch16_224", 1024, 16),
        patchify("vit_base_patch32_224", 768, 32), patchify("vit_base_patch16_384", 768, 16, 384),
        patchify("swin_base_patch4", 128, 4), pvt_v2_b0(),
        quartznet_5x5(), convtasnet(), mobilenetv2_3d(),
    ]
    if optional:
        nets += [
            rx("regnety_200mf", 24, 36.44, 2.49, 13, 8, True, [[24, 1], [56, 1], [152, 4], [368, 7]]),
            rx("regnety_800mf", 56, 38.84, 2.4, 14, 16, True, [[64, 1], [128, 3], [320, 8], [768, 2]]),
            mobilenetv3("mobilenetv3_small_075", MBV3_SMALL, 0.75, 1024),
            mobilenetv3("mobilenetv3_small_050", MBV3_SMALL, 0.5, 1024),
            ghostnet("ghostnet_050", 0.5), tinynet("tinynet_a", 192, 1.0, 1.2),
            tinynet("tinynet_c", 184, 0.54, 0.85), tinynet("tinynet_e", 106, 0.51, 0.6),
            mobileone_s0(), citrinet_256(), ir_csn_101(),
        ]
    return nets


def normalized(conv):
    c = conv.with_n(1)
    c.direction, c.dtype = "fwd", "bf16"
    return c.shape_key()


def jsonl_convs(path):
    out = []
    for line in open(path, encoding="utf-8"):
        if not line.strip() or line.startswith("#"):
            continue
        r = json.loads(line)
        if "about" in r:
            continue
        if "nd" in r:
            pads = [tuple(p) if isinstance(p, list) else p for p in r["pad"]]
            out.append(Conv(r["nd"], r["N"], r["C"], r["K"], r["G"], r["spatial"], r["kernel"], r["stride"],
                            pads, r["dil"]))
        else:  # the CSV column names as keys
            out.append(Conv.from_row({k: str(v) for k, v in r.items()}))
    return out


def held_elsewhere(problems_dir):
    """Layer shapes of every other problem set in the folder."""
    held = set()
    for path in sorted(glob.glob(os.path.join(problems_dir, "*"))):
        base = os.path.basename(path)
        if base.startswith(NAME + "."):
            continue
        if base.endswith((".csv", ".csv.gz")):
            held |= {normalized(c) for c, _ in read_csv(path)}
        elif base.endswith(".jsonl"):
            held |= {normalized(c) for c in jsonl_convs(path)}
    return held


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=os.path.normpath(os.path.join(_here, "..")))
    ap.add_argument("--with-optional", action="store_true",
                    help="also the networks left out for size (about 1,100 rows instead of 500)")
    args = ap.parse_args()
    held = held_elsewhere(args.dir)
    order, sources = [], {}
    layers = dropped_held = dropped_class = 0
    nets = models(args.with_optional)
    for net in nets:
        for conv in net.layers:
            layers += 1
            for b in BATCHES:
                p = conv.with_n(b)
                err = p.problem_error()
                assert err is None, (net.name, p.spec(), err)
                if classes(b, p.c, p.k, p.g, p.filter_volume(), p.out_volume()) == ("other",):
                    dropped_class += 1
                    continue
                if normalized(p) in held:
                    dropped_held += 1
                    continue
                if p.key() not in sources:
                    order.append(p)
                    sources[p.key()] = []
                if net.name not in sources[p.key()]:
                    sources[p.key()].append(net.name)
    # Shape by shape, its batches in order: a prefix covers every network.
    shape_rank = {}
    for p in order:
        shape_rank.setdefault(p.shape_key(), len(shape_rank))
    order.sort(key=lambda p: (shape_rank[p.shape_key()], p.n))

    def cls_of(p):
        return classes(p.n, p.c, p.k, p.g, p.filter_volume(), p.out_volume())

    count = {c: 0 for c in CLASSES}
    per_net = {net.name: 0 for net in nets}
    for p in order:
        for c in cls_of(p):
            count[c] += 1
        for m in sources[p.key()]:
            per_net[m] += 1
    by_ndim = {d: sum(p.ndim == d for p in order) for d in (1, 2, 3)}
    comments = [
        "%s.csv: issue 17's classes from networks no other problem set holds, batch %s, made by "
        "problems/tools/make_small_classes.py" % (NAME, "/".join(map(str, BATCHES))),
        "%d layers x %d batches; %d rows kept (%d shapes); %d dropped (no class), %d dropped (shape held by "
        "another set)" % (layers, len(BATCHES), len(order), len(shape_rank), dropped_class, dropped_held),
        "rows per class (a row may be in several): " + ", ".join("%s %d" % kv for kv in count.items()),
        "rows per ndim: " + ", ".join("%dD %d" % kv for kv in by_ndim.items()),
        "models: " + " ".join(net.name for net in nets),
        "rows per model: " + ", ".join("%s %d" % kv for kv in per_net.items()),
        "class column: the row's classes (bench/class_report.py classes()); rows are fwd/bf16, bench with "
        "--directions all",
    ]
    buf = io.StringIO(newline="")
    for line in comments:
        buf.write("# " + line + "\n")
    wr = csv.writer(buf, lineterminator="\n")
    wr.writerow(COLUMNS + ["class"])
    for p in order:
        wr.writerow(p.row(";".join(sources[p.key()])) + [";".join(cls_of(p))])
    path = os.path.join(args.dir, NAME + ".csv")
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(buf.getvalue())
    print("wrote %s: %d rows, %d shapes (%s)" % (path, len(order), len(shape_rank),
                                                 ", ".join("%s %d" % kv for kv in count.items())), file=sys.stderr)
    for c in comments[3:6]:
        print("  " + c, file=sys.stderr)


if __name__ == "__main__":
    main()
