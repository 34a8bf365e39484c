// Patch folding: a convolution whose filter tiles W exactly (filter width ==
// W stride, no W padding or dilation, W a multiple of the stride, one group),
// such as the patch embeddings of vision transformers (16x16, stride 16, C =
// 3) and the ConvNeXt / Swin stems and downsampling layers (4x4 / 2x2,
// stride 4 / 2), is the same linear map on the same memory as the
// convolution with W' = W / sx, filter width 1, W stride 1 and C' = C * sx:
// x[n, .., w' * sx + fx, c] is x'[n, .., w', fx * C + c] (channels-last rows
// of W * C elements are rows of W' * C' elements), w[k, .., fx, c] is
// w'[k, .., 0, fx * C + c], and y / dy do not change. Every direction
// computes the same numbers either way, and the folded form reads and writes
// sx * C contiguous channels instead of C (C = 3: 2-byte vectors become 16-byte
// ones; bwd_data loses its W stride phases).
//
// gconv runs a foldable problem folded: the registry selects and runs for
// fold_patches(p), and a kernel launched on p (the bench, the C API) runs
// fold_patches(p). Folding is idempotent (a folded problem has filter width 1).
#pragma once

#include "gconv/problem.hpp"

namespace gconv {

// Whether p folds (above): G == 1, filter width == W stride > 1, W padding 0,
// W dilation 1, W a multiple of the stride, and C * stride within the
// problem's limits.
bool foldable(const Problem& p);

// p folded, or p itself when it does not fold.
Problem fold_patches(const Problem& p);

}  // namespace gconv
