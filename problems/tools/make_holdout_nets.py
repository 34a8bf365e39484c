#!/usr/bin/env python3
"""Writes problems/holdout_nets.csv: conv layer shapes of networks that no
training set holds, at batch 16, for validating the selector on what a user
brings. holdout_nets is NEVER trained on.

The layers are written here from the published architectures (no framework
needed; each layer chained on the previous one's output size), for models
outside torchvision's set (problems/README.md):

  convnextv2_atto / convnextv2_nano  224x224: 4x4/4 stem, 7x7 depthwise,
                                     2x2/2 downsampling (the MLPs are Linear)
  efficientnetv2_b0  224x224, timm's tf_ variant: TF-style SAME padding (the
                     stride-2 convs pad 0:1), FusedMBConv / MBConv with
                     squeeze-excite 1x1 convs on the pooled 1x1 map
  convmixer_768_32 / convmixer_1024_20 / convmixer_1536_20  patch 7/14/7,
                     depthwise kernel 7/9/9, pointwise C->C
  cspdarknet_s       YOLOv5s backbone at 640x640 (6x6/2 stem, C3 blocks, SPPF)
  mobilevit_s        256x256: MV2 blocks, MobileViT local 3x3 + 1x1 and the
                     3x3 fusion of 2C->C (the transformer is Linear)
  hrnet_w18_pose     256x192 (non-square): stem, bottlenecks, four branches
                     18/36/72/144 of basic blocks and their fuse convs
  encodec_24k        1D SEANet encoder on 1 s of 24 kHz audio: k7 convs,
                     residual k3/k1 units, k=2s downsampling with the
                     encoder's asymmetric split of an odd pad total (lo >= hi)
  x3d_s              3D video 13x160x160: 1x3x3/(1,2,2) stem, 5x1x1 depthwise,
                     1x1x1 / 3x3x3 depthwise bottlenecks, 1x1x1 squeeze-excite

A layer shape (batch excluded) that a training set already holds (train_real,
train_odd, the grids) is dropped, so every row is a shape the model has not
seen; a shape that several of these models share is one row whose source
names them all (';'-joined), as in the torchvision sets.

Usage: python3 problems/tools/make_holdout_nets.py [--dir problems]
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from convrow import Conv, find_set, read_csv, write_csv  # noqa: E402

BATCH = 16
TRAINING_SETS = ["train_real", "train_odd", "grid_1d", "grid_2d", "grid_3d"]


def tf_same(n, f, s):
    t = max((-(-n // s) - 1) * s + f - n, 0)
    return (t // 2, t - t // 2)


class Net:
    """Collects one model's conv layers; conv*() return the output size."""

    def __init__(self, name):
        self.name, self.layers = name, []

    def conv2(self, c, k, hw, f, s=1, g=1, pad=None, tf=False):
        h, w = hw if isinstance(hw, tuple) else (hw, hw)
        fy, fx = f if isinstance(f, tuple) else (f, f)
        if tf:
            p = [tf_same(h, fy, s), tf_same(w, fx, s)]
        else:
            p = [fy // 2, fx // 2] if pad is None else [pad, pad]
        conv = Conv(2, BATCH, c, k, g, [h, w], [fy, fx], [s, s], p)
        self.layers.append(conv)
        out = (conv.out(1), conv.out(2))
        return out if isinstance(hw, tuple) else out[0]

    def conv1(self, c, k, t, f, s=1, pad=None, dil=1):
        p = [dil * (f - 1) // 2] if pad is None else [pad]
        conv = Conv(1, BATCH, c, k, 1, [t], [f], [s], p, [dil])
        self.layers.append(conv)
        return conv.out(2)

    def conv3(self, c, k, dhw, f, s=(1, 1, 1), g=1):
        conv = Conv(3, BATCH, c, k, g, list(dhw), list(f), list(s), [x // 2 for x in f])
        self.layers.append(conv)
        return (conv.out(0), conv.out(1), conv.out(2))


def convnextv2(name, dims, depths):
    n = Net(name)
    hw = n.conv2(3, dims[0], 224, 4, s=4, pad=0)
    for i, d in enumerate(dims):
        if i:
            hw = n.conv2(dims[i - 1], d, hw, 2, s=2, pad=0)
        for _ in range(depths[i]):
            n.conv2(d, d, hw, 7, g=d)
    return n


def efficientnetv2_b0():
    n = Net("efficientnetv2_b0")
    hw = n.conv2(3, 32, 224, 3, s=2, tf=True)
    hw = n.conv2(32, 16, hw, 3, tf=True)  # FusedMBConv e1 (a plain 3x3)
    c = 16
    for out, reps, s in [(32, 2, 2), (48, 2, 2)]:  # FusedMBConv e4
        for r in range(reps):
            mid = c * 4
            hw2 = n.conv2(c, mid, hw, 3, s=s if r == 0 else 1, tf=True)
            n.conv2(mid, out, hw2, 1)
            hw, c = hw2, out
    for out, reps, s, e in [(96, 3, 2, 4), (112, 5, 1, 6), (192, 8, 2, 6)]:  # MBConv + SE
        for r in range(reps):
            mid = c * e
            n.conv2(c, mid, hw, 1)
            hw2 = n.conv2(mid, mid, hw, 3, s=s if r == 0 else 1, g=mid, tf=True)
            se = max(1, int(c * 0.25))
            n.conv2(mid, se, 1, 1)
            n.conv2(se, mid, 1, 1)
            n.conv2(mid, out, hw2, 1)
            hw, c = hw2, out
    n.conv2(c, 1280, hw, 1)
    return n


def convmixer(name, dim, depth_unused, patch, kernel):
    n = Net(name)
    hw = n.conv2(3, dim, 224, patch, s=patch, pad=0)
    n.conv2(dim, dim, hw, kernel, g=dim)  # padding 'same' (odd kernels: symmetric)
    n.conv2(dim, dim, hw, 1)
    return n


def cspdarknet_s():
    n = Net("cspdarknet_s")
    hw = n.conv2(3, 32, 640, 6, s=2, pad=2)

    def c3(c, hw, reps):
        h = c // 2
        n.conv2(c, h, hw, 1)
        n.conv2(c, h, hw, 1)
        for _ in range(reps):
            n.conv2(h, h, hw, 1)
            n.conv2(h, h, hw, 3)
        n.conv2(2 * h, c, hw, 1)

    c = 32
    for out, reps in [(64, 1), (128, 2), (256, 3), (512, 1)]:
        hw = n.conv2(c, out, hw, 3, s=2)
        c3(out, hw, reps)
        c = out
    n.conv2(512, 256, hw, 1)  # SPPF
    n.conv2(1024, 512, hw, 1)
    return n


def mobilevit_s():
    n = Net("mobilevit_s")
    hw = n.conv2(3, 16, 256, 3, s=2)

    def mv2(c, out, hw, s, e=4):
        mid = c * e
        n.conv2(c, mid, hw, 1)
        hw = n.conv2(mid, mid, hw, 3, s=s, g=mid)
        n.conv2(mid, out, hw, 1)
        return hw

    def mvit(c, d, hw):
        n.conv2(c, c, hw, 3)
        n.conv2(c, d, hw, 1)
        n.conv2(d, c, hw, 1)
        n.conv2(2 * c, c, hw, 3)

    hw = mv2(16, 32, hw, 1)
    hw = mv2(32, 64, hw, 2)
    hw = mv2(64, 64, hw, 1)
    hw = mv2(64, 96, hw, 2)
    mvit(96, 144, hw)
    hw = mv2(96, 128, hw, 2)
    mvit(128, 192, hw)
    hw = mv2(128, 160, hw, 2)
    mvit(160, 240, hw)
    n.conv2(160, 640, hw, 1)
    return n


def hrnet_w18_pose():
    n = Net("hrnet_w18_pose")
    hw = n.conv2(3, 64, (256, 192), 3, s=2)
    hw = n.conv2(64, 64, hw, 3, s=2)
    for i in range(4):  # stage 1: bottlenecks 256
        cin = 64 if i == 0 else 256
        n.conv2(cin, 64, hw, 1)
        n.conv2(64, 64, hw, 3)
        n.conv2(64, 256, hw, 1)
    n.conv2(64, 256, hw, 1)  # the first block's downsample
    widths = [18, 36, 72, 144]
    sizes = [hw]
    for i in range(1, 4):
        sizes.append(((sizes[-1][0] + 1) // 2, (sizes[-1][1] + 1) // 2))
    # transitions: stage 1 -> 2 from 256 channels, later from the last branch
    n.conv2(256, 18, sizes[0], 3)
    n.conv2(256, 36, sizes[0], 3, s=2)
    for nb in (2, 3, 4):
        if nb > 2:
            n.conv2(widths[nb - 2], widths[nb - 1], sizes[nb - 2], 3, s=2)
        for b in range(nb):  # basic blocks (two 3x3 convs; the same shape)
            n.conv2(widths[b], widths[b], sizes[b], 3)
        for i in range(nb):  # fuse into branch i
            for j in range(nb):
                if j > i:  # 1x1 at branch j's size, then upsampled
                    n.conv2(widths[j], widths[i], sizes[j], 1)
                elif j < i:  # a chain of stride-2 3x3 convs from branch j
                    for step in range(i - j):
                        last = step == i - j - 1
                        n.conv2(widths[j], widths[i] if last else widths[j], sizes[j + step], 3, s=2)
    n.conv2(18, 17, sizes[0], 1)  # heatmaps
    return n


def encodec_24k():
    n = Net("encodec_24k")
    t = n.conv1(1, 32, 24000, 7)
    c = 32
    for s in (2, 4, 5, 8):
        n.conv1(c, c // 2, t, 3)
        n.conv1(c // 2, c, t, 1)
        total = 2 * s - s  # kernel - stride, split lo = total - total // 2
        t = n.conv1(c, 2 * c, t, 2 * s, s=s, pad=(total - total // 2, total // 2))
        c *= 2
    n.conv1(c, 128, t, 7)
    return n


def x3d_s():
    n = Net("x3d_s")
    dhw = n.conv3(3, 24, (13, 160, 160), (1, 3, 3), (1, 2, 2))
    n.conv3(24, 24, dhw, (5, 1, 1), g=24)
    c = 24
    for out, reps in [(24, 3), (48, 5), (96, 11), (192, 7)]:
        mid = int(out * 2.25)
        for r in range(reps):
            n.conv3(c, mid, dhw, (1, 1, 1))
            dhw2 = n.conv3(mid, mid, dhw, (3, 3, 3), (1, 2, 2) if r == 0 else (1, 1, 1), g=mid)
            if r % 2 == 0:  # squeeze-excite on every other block
                se = max(8, ((mid // 16) + 7) // 8 * 8)
                n.conv3(mid, se, (1, 1, 1), (1, 1, 1))
                n.conv3(se, mid, (1, 1, 1), (1, 1, 1))
            n.conv3(mid, out, dhw2, (1, 1, 1))
            if r == 0:
                n.conv3(c, out, dhw, (1, 1, 1), (1, 2, 2))  # the shortcut's projection
            dhw, c = dhw2, out
    n.conv3(192, 432, dhw, (1, 1, 1))
    return n


def models():
    return [convnextv2("convnextv2_atto", [40, 80, 160, 320], [2, 2, 6, 2]),
            convnextv2("convnextv2_nano", [80, 160, 320, 640], [2, 2, 8, 2]),
            efficientnetv2_b0(),
            convmixer("convmixer_768_32", 768, 32, 7, 7),
            convmixer("convmixer_1024_20", 1024, 20, 14, 9),
            convmixer("convmixer_1536_20", 1536, 20, 7, 9),
            cspdarknet_s(), mobilevit_s(), hrnet_w18_pose(), encodec_24k(), x3d_s()]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=os.path.normpath(os.path.join(here, "..")))
    args = ap.parse_args()
    trained = set()
    for s in TRAINING_SETS:
        trained |= {c.shape_key() for c, _ in read_csv(find_set(args.dir, s))}
    order, sources = [], {}
    total = dropped = 0
    per_model = []
    for net in models():
        own = 0
        for conv in net.layers:
            err = conv.problem_error()
            assert err is None, (net.name, conv.spec(), err)
            total += 1
            if conv.shape_key() in trained:
                dropped += 1
                continue
            if conv.key() not in sources:
                order.append(conv)
                sources[conv.key()] = []
            if net.name not in sources[conv.key()]:
                sources[conv.key()].append(net.name)
                own += 1
        per_model.append("%s %d" % (net.name, own))
    rows = [(c, ";".join(sources[c.key()])) for c in order]
    comments = [
        "holdout_nets.csv: conv layers of networks no training set holds, batch %d, made by "
        "problems/tools/make_holdout_nets.py" % BATCH,
        "%d layers, %d unique shapes kept; %d layers dropped (their shape is in a training set)" % (
            total, len(rows), dropped),
        "held-out models: " + " ".join(m.name for m in models()),
        "unique shapes per model: " + ", ".join(per_model),
        "holdout_nets is NEVER trained on",
    ]
    path = write_csv(os.path.join(args.dir, "holdout_nets.csv"), rows, comments)
    print("wrote %s: %d rows (%d layers, %d dropped)" % (path, len(rows), total, dropped), file=sys.stderr)


if __name__ == "__main__":
    main()
