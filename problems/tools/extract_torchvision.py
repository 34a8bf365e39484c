#!/usr/bin/env python3
"""Extracts the convolution layers of torchvision models into gconv problem CSVs.

Each model is built with weights=None (random init, nothing downloaded), put in
eval mode and run once on CPU under torch.no_grad() with batch 1; forward hooks
on every nn.Conv1d / nn.Conv2d / nn.Conv3d record the input shape the layer
actually sees and its kernel / stride / padding / dilation / groups. Layer
shapes do not depend on the batch, so each unique shape is then written once per
batch size: 2D at N = 1, 8, 32, 128 and 3D at N = 1, 4, 8. A shape used by
several models is one row whose source column lists them joined by ';'.
Rows whose tensors would exceed gconv's 2^31-1 element index limit are dropped
(and counted in the output).

Inputs: 224x224 for classification (inception_v3: 299x299), 3x16x112x112
clips for video (s3d: 3x16x224x224, the smallest its final 7x7 pooling accepts),
512x512 for segmentation and detection. The detection models are built with
min_size = max_size = 512 so that their transform keeps 512x512; their RPN /
RetinaNet heads run on every FPN level and are captured too.

Padding: torch convolutions pad symmetrically (an int or tuple per dim). The
strings 'valid' (0) and 'same' are converted; torch's 'same' puts the odd
element of an odd total on the high side, which is recorded as an asymmetric
pad (lo, hi). A non-zero padding_mode (reflect, replicate, circular) is
recorded as zero padding of the same size, with the mode noted in the source.
A model that pads explicitly with F.pad before a convolution shows up as a
convolution of the larger input with pad 0 (the layer's own view).

Usage (needs torch + torchvision, CPU wheels are enough):
  python3 problems/tools/extract_torchvision.py [--out-dir problems] [--models a,b]
Writes torchvision_2d.csv and torchvision_3d.csv (as .csv.gz when over 1 MB)
and prints per-model counts to stderr.
"""

import argparse
import os
import sys
import time

import torch
import torch.nn as nn
import torchvision.models as tvm
import torchvision.models.detection as tvd
import torchvision.models.segmentation as tvs
import torchvision.models.video as tvv

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from convrow import Conv, write_csv  # noqa: E402

BATCHES = {1: [1, 8, 32, 128], 2: [1, 8, 32, 128], 3: [1, 4, 8]}

CLASSIFICATION = [
    "resnet18", "resnet50", "resnet101", "resnext50_32x4d", "resnext101_32x8d", "wide_resnet50_2",
    "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large",
    "efficientnet_b0", "efficientnet_b1", "efficientnet_b2", "efficientnet_b3", "efficientnet_b4",
    "efficientnet_v2_s",
    "regnet_x_400mf", "regnet_x_1_6gf", "regnet_x_8gf", "regnet_y_400mf", "regnet_y_1_6gf", "regnet_y_8gf",
    "convnext_tiny", "convnext_small", "shufflenet_v2_x1_0", "squeezenet1_0", "densenet121", "googlenet",
    "inception_v3", "mnasnet1_0", "vgg16",
]
VIDEO = ["r3d_18", "mc3_18", "r2plus1d_18", "s3d"]
DENSE = ["deeplabv3_resnet50", "fcn_resnet50", "lraspp_mobilenet_v3_large",
         "fasterrcnn_resnet50_fpn", "retinanet_resnet50_fpn"]


def build(name):
    """(model, example input) for one model name."""
    if name in CLASSIFICATION:
        kwargs = {"weights": None}
        if name in ("googlenet", "inception_v3"):
            kwargs["init_weights"] = True  # silences the init warning; shapes do not care
        size = 299 if name == "inception_v3" else 224
        return getattr(tvm, name)(**kwargs), torch.randn(1, 3, size, size)
    if name in VIDEO:
        size = 224 if name == "s3d" else 112
        return getattr(tvv, name)(weights=None), torch.randn(1, 3, 16, size, size)
    if name in ("deeplabv3_resnet50", "fcn_resnet50", "lraspp_mobilenet_v3_large"):
        m = getattr(tvs, name)(weights=None, weights_backbone=None)
        return m, torch.randn(1, 3, 512, 512)
    if name in ("fasterrcnn_resnet50_fpn", "retinanet_resnet50_fpn"):
        m = getattr(tvd, name)(weights=None, weights_backbone=None, min_size=512, max_size=512)
        return m, [torch.rand(3, 512, 512)]
    raise KeyError(name)


def torch_padding(mod, in_spatial):
    """Per-dim (lo, hi) pads of a torch conv module."""
    nd = len(mod.kernel_size)
    if isinstance(mod.padding, str):
        if mod.padding == "valid":
            return [(0, 0)] * nd
        assert mod.padding == "same", mod.padding
        pads = []
        for k, d in zip(mod.kernel_size, mod.dilation):
            total = d * (k - 1)
            pads.append((total // 2, total - total // 2))
        return pads
    return [(int(p), int(p)) for p in mod.padding]


def extract(name):
    """{shape_key: Conv (batch 1)} and notes for one model."""
    model, example = build(name)
    model.eval()
    found = {}
    notes = set()

    def hook(mod, inputs, _output):
        x = inputs[0]
        nd = x.dim() - 2
        spatial = list(x.shape[2:])
        pads = torch_padding(mod, spatial)
        if mod.padding_mode != "zeros":
            notes.add("padding_mode=" + mod.padding_mode)
        conv = Conv(nd, x.shape[0], mod.in_channels, mod.out_channels, mod.groups, spatial,
                    list(mod.kernel_size), list(mod.stride), pads, list(mod.dilation))
        assert x.shape[1] == mod.in_channels
        if any(lo != hi for lo, hi in pads):
            notes.add("asymmetric padding")
        found.setdefault(conv.shape_key(), conv)

    handles = [m.register_forward_hook(hook) for m in model.modules()
               if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d))]
    with torch.no_grad():
        model(example)
    for h in handles:
        h.remove()
    return found, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out-dir", default=os.path.normpath(os.path.join(here, "..")))
    ap.add_argument("--models", default="", help="comma list (default: all)")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))

    names = CLASSIFICATION + VIDEO + DENSE
    if args.models:
        names = [n for n in args.models.split(",") if n]

    shapes = {}    # shape_key -> Conv
    sources = {}   # shape_key -> [model names]
    failed = []
    log = sys.stderr
    print("%-28s %7s %6s %s" % ("model", "shapes", "secs", "notes"), file=log)
    for name in names:
        t0 = time.time()
        try:
            found, notes = extract(name)
        except Exception as e:  # report and go on: one broken model must not lose the rest
            failed.append((name, "%s: %s" % (type(e).__name__, e)))
            print("%-28s FAILED %s" % (name, failed[-1][1]), file=log)
            continue
        for key, conv in found.items():
            shapes.setdefault(key, conv)
            sources.setdefault(key, []).append(name)
        print("%-28s %7d %6.1f %s" % (name, len(found), time.time() - t0, ",".join(sorted(notes))), file=log)

    total_models = len(names) - len(failed)
    for nd, fname in ((2, "torchvision_2d.csv"), (3, "torchvision_3d.csv")):
        rows, dropped = [], 0
        keys = sorted((k for k in shapes if shapes[k].ndim == nd), key=lambda k: (sources[k][0], k))
        for key in keys:
            for n in BATCHES[nd]:
                conv = shapes[key].with_n(n)
                if conv.problem_error():
                    dropped += 1
                    continue
                rows.append((conv, ";".join(sources[key])))
        models = sorted({m for k in keys for m in sources[k]})
        comments = [
            "torchvision %dD convolution layers, made by problems/tools/extract_torchvision.py" % nd,
            "torch %s, torchvision %s; weights=None, eval, batch sizes %s" % (
                torch.__version__, __import__("torchvision").__version__, BATCHES[nd]),
            "%d unique layer shapes x batch sizes = %d rows (%d dropped over the 2^31-1 element limit)" % (
                len(keys), len(rows), dropped),
            "models: " + " ".join(models),
            "source = every model that has the shape, joined by ';'",
        ]
        path = write_csv(os.path.join(args.out_dir, fname), rows, comments)
        print("wrote %s: %d shapes, %d rows, %d dropped" % (path, len(keys), len(rows), dropped), file=log)
    print("models extracted: %d, failed: %d" % (total_models, len(failed)), file=log)
    for name, why in failed:
        print("  failed %s: %s" % (name, why), file=log)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
