#!/usr/bin/env python3
"""Writes problems/audio_1d.csv: 1D convolutions of audio and sequence models.

The layer lists are written out by hand from the published architectures
(no framework needed); each model's layers are chained so that every input
length is the previous layer's output length. Batch sizes N = 1, 8, 32.

  wav2vec2 feature extractor (base and large share it): Conv1d 1->512 k10 s5,
    then 512->512 k3 s2 x4, k2 s2 x2, no padding, on 1 s and 10 s of 16 kHz
    audio (T = 16000, 160000).
  wav2vec2 positional conv: grouped Conv1d k128 pad 64 G16 on the frame rate
    (49 / 499 frames): 768 ch (base), 1024 ch (large).
  Conformer conv module (S/M/L: d = 144/256/512): pointwise d->2d (before the
    GLU), depthwise k31 pad 15, pointwise d->d, at T = 250 and 1000 frames
    (10 s / 40 s after 4x subsampling).
  Whisper encoder stem (tiny/base/small/medium/large: d = 384/512/768/1024/1280;
    80 mel bins, large-v3 128): Conv1d mels->d k3 pad 1, then d->d k3 s2 pad 1,
    on T = 3000 mel frames (30 s).
  WaveNet (van den Oord 2016 style, 10-layer dilation cycle 1..512): causal
    dilated Conv1d k2, residual 64 -> 128 (filter + gate), pad (d, 0); 1x1
    residual 64->64 and skip 64->256; T = 16000.
  TCN (Bai et al. 2018 style): causal dilated Conv1d k3 128->128, dilation
    1..256, pad (2d, 0), T = 1024.
Causal convolutions pad only on the low side; they are written with an
asymmetric pad (lo, hi) = (dilation * (k - 1), 0), which is what a causal
framework layer computes (torch would pad symmetrically and trim the output).

Usage: python3 problems/tools/make_audio_1d.py [--out problems/audio_1d.csv]
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from convrow import Conv, write_csv  # noqa: E402

BATCHES = [1, 8, 32]


def conv1d(c, k, t, kernel, stride=1, pad=0, dil=1, g=1):
    return Conv(1, 1, c, k, g, [t], [kernel], [stride], [pad], [dil])


def wav2vec2_feature_extractor(t):
    layers = [conv1d(1, 512, t, 10, 5)]
    for kernel in (3, 3, 3, 3, 2, 2):
        t = layers[-1].out(2)
        layers.append(conv1d(512, 512, t, kernel, 2))
    return layers, layers[-1].out(2)


def models():
    """[(model name, [Conv])]."""
    out = []
    fe = []
    frames = {}
    for secs in (1, 10):
        layers, frames[secs] = wav2vec2_feature_extractor(16000 * secs)
        fe += layers
    out.append(("wav2vec2_feature_extractor", fe))
    for name, ch in (("wav2vec2_base_pos_conv", 768), ("wav2vec2_large_pos_conv", 1024)):
        out.append((name, [conv1d(ch, ch, frames[s], 128, 1, 64, 1, 16) for s in (1, 10)]))
    for name, d in (("conformer_s", 144), ("conformer_m", 256), ("conformer_l", 512)):
        layers = []
        for t in (250, 1000):
            layers += [conv1d(d, 2 * d, t, 1), conv1d(d, d, t, 31, 1, 15, 1, d), conv1d(d, d, t, 1)]
        out.append((name, layers))
    for name, mels, d in (("whisper_tiny", 80, 384), ("whisper_base", 80, 512), ("whisper_small", 80, 768),
                          ("whisper_medium", 80, 1024), ("whisper_large_v2", 80, 1280),
                          ("whisper_large_v3", 128, 1280)):
        out.append((name, [conv1d(mels, d, 3000, 3, 1, 1), conv1d(d, d, 3000, 3, 2, 1)]))
    wavenet = [conv1d(64, 128, 16000, 2, 1, (d, 0), d) for d in (2 ** i for i in range(10))]
    wavenet += [conv1d(64, 64, 16000, 1), conv1d(64, 256, 16000, 1)]
    out.append(("wavenet", wavenet))
    out.append(("tcn", [conv1d(128, 128, 1024, 3, 1, (2 * d, 0), d) for d in (2 ** i for i in range(9))]))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.normpath(os.path.join(here, "..", "audio_1d.csv")))
    args = ap.parse_args()

    shapes, sources = {}, {}
    for name, layers in models():
        seen = set()
        for conv in layers:
            key = conv.shape_key()
            if key in seen:
                continue
            seen.add(key)
            shapes.setdefault(key, conv)
            sources.setdefault(key, []).append(name)
        print("%-28s %3d shapes" % (name, len(seen)), file=sys.stderr)
    rows = [(shapes[k].with_n(n), ";".join(sources[k])) for k in shapes for n in BATCHES]
    comments = [
        "1D convolutions of audio / sequence models, made by problems/tools/make_audio_1d.py",
        "%d unique layer shapes x N in %s = %d rows; source = models with the shape, joined by ';'" % (
            len(shapes), BATCHES, len(rows)),
        "causal convs (wavenet, tcn) carry an asymmetric pad lo:hi = dilation*(k-1):0",
    ]
    path = write_csv(args.out, rows, comments)
    print("wrote %s: %d rows" % (path, len(rows)), file=sys.stderr)


if __name__ == "__main__":
    main()
