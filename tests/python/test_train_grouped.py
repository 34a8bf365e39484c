"""problems/train_grouped.csv as its generator promises: 150 problems, every
one with C = K and C/G = K/G in {2, 4, 8, 16}, and no layer shape (batch
excluded) of a holdout set or of the public side-by-side set
(cudnn_public_h200.jsonl), which problem_sets_test does not cover. Standard
library only."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "problems", "tools"))  # as the generators import convrow
import make_train_grouped as gen  # noqa: E402


def test_train_grouped_holds_small_equal_groups_and_no_reported_shape():
    rows = gen.read_csv(os.path.join(ROOT, "problems", "train_grouped.csv"))
    assert len(rows) == gen.COUNT == 150
    held = gen.held(os.path.join(ROOT, "problems"))
    # The public set was read: ResNeXt-50's C/G = 4 layer is held out, and so
    # is a small_classes shape (C = 512, G = 64).
    assert gen.shape_of(gen.Conv(2, 32, 128, 128, 32, [56, 56], [3, 3], [1, 1], [1, 1], [1, 1])) in held
    assert gen.shape_of(gen.Conv(2, 64, 512, 512, 64, [28, 28], [3, 3], [1, 1], [1, 1], [1, 1])) in held
    for conv, source in rows:
        assert conv.c == conv.k and conv.c // conv.g in (2, 4, 8, 16), conv.spec()
        assert conv.problem_error() is None, conv.spec()
        assert gen.shape_of(conv) not in held, conv.spec()
        assert source in ("grouped_1d", "grouped_2d", "grouped_3d")
