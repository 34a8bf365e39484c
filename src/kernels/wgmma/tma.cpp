// Tensor-map arguments and encoding for the wgmma TMA producer (tma.hpp).
// The device side that reads these maps: produce_tma in wgmma/produce.cuh.
#include "kernels/wgmma/tma.hpp"

#include "kernels/wgmma/wgmma_plan.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <mutex>
#include <string>

#include "jit/env.hpp"

namespace gconv::wgmma {
namespace {

bool fail(std::string* why, std::string msg) {
  if (why) *why = std::move(msg);
  return false;
}

int elem_bytes(DType t) { return t == DType::fp32 ? 4 : 2; }

// im2col limits by tensor rank (3D, 4D, 5D tensors: 1D, 2D, 3D convolutions),
// from the PTX ISA's im2col mode: bounding-box corners and im2col offsets.
struct Im2colLimits {
  int corner_min, corner_max, offset_max;
};
Im2colLimits limits_for(int ndim) {
  switch (ndim) {
    case 1: return {-32768, 32767, 65535};
    case 2: return {-128, 127, 255};
    default: return {-16, 15, 31};
  }
}

}  // namespace

bool flat_enabled() {
  static const bool v = jit::process_env_on("GCONV_WGMMA_TMA_FLAT");
  return v;
}

bool loads_flat(const Problem& p) { return flat_enabled() && flat_ok(p); }

int64_t tap_k(const KernelTraits& t, const Problem& p) {
  if (!t.tma || t.realign || p.direction == Direction::bwd_weight) return 0;
  const int64_t ch = p.direction == Direction::fwd ? p.c_per_group() : p.k_per_group();
  const int64_t bk = block_k(t), kstep = t.dtype == DType::fp32 ? 8 : 16;
  if (ch % bk == 0 || ch % kstep != 0 || t.tile_k != bk) return 0;
  if (loads_flat(p) && p.g == 1) return 0;  // one group's flat boxes read zeros past the channels
  return (ch + bk - 1) / bk * bk;
}

bool tma_ok(const KernelTraits& t, const Problem& p, std::string* why) {
  if (!t.tma) return true;
  const int64_t cg = p.c_per_group(), kg = p.k_per_group();
  const bool flat = loads_flat(p), padded = tap_k(t, p) != 0;
  // Built only for a refusal (can_implement runs on every selection).
  const auto padding = [&] {
    return "; a tap's channels are padded to whole blocks only where they are a multiple of the MMA's K (" +
           std::to_string(t.dtype == DType::fp32 ? 8 : 16) + ") and a stage holds one block (tile_k " +
           std::to_string(block_k(t)) + ")";
  };
  switch (p.direction) {
    case Direction::fwd:
      if (cg % block_k(t) != 0 && !(flat && p.g == 1) && !padded)
        return fail(why, "tma: C/G (" + std::to_string(cg) + ") is not a multiple of " + std::to_string(block_k(t)) +
                             ": a K block must be one filter tap's channels" + padding());
      break;
    case Direction::bwd_data:
      if (kg % 64 != 0 && !(flat && p.g == 1) && !padded)
        return fail(why, "tma: K/G (" + std::to_string(kg) + ") is not a multiple of 64: a K tile must be one tap's "
                         "output channels" + padding());
      if (!flat) {
        for (int d = p.first_slot(); d < 3; ++d)
          if (p.in[d] % p.stride[d] != 0)
            return fail(why, "tma: bwd_data with an input extent (" + std::to_string(p.in[d]) +
                                 ") not a multiple of its stride (" + std::to_string(p.stride[d]) +
                                 "): the stride phases differ in size and cannot share one map");
        if (!bwd_data_corners(p).ok) return fail(why, "tma: bwd_data without a stride phase that a filter tap reaches");
      }
      break;
    case Direction::bwd_weight:
      if (cg % 64 != 0 && !flat)
        return fail(why, "tma: C/G (" + std::to_string(cg) + ") is not a multiple of 64: a 64-column block must be "
                         "one tap's input channels");
      if (p.k % 8 != 0) return fail(why, "tma: K must be a multiple of 8 (16-byte rows of dy)");
      break;
  }
  if (flat) return true;  // no im2col map
  const Im2colLimits lim = limits_for(p.ndim);
  const PhaseCorners pc = p.direction == Direction::bwd_data ? bwd_data_corners(p) : PhaseCorners{};
  for (int d = p.first_slot(); d < 3; ++d) {
    int64_t span = p.dilation[d] * (p.filter[d] - 1);
    int64_t lower = -p.pad_lo[d], upper = p.pad_hi[d] - span;
    if (p.direction == Direction::bwd_data) {
      lower = pc.lower[d];
      upper = pc.upper[d];
      span = pc.max_offset[d];
    }
    if (lower < lim.corner_min || lower > lim.corner_max || upper < lim.corner_min || upper > lim.corner_max)
      return fail(why, "tma: padding or dilated filter extent outside the im2col bounding-box range [" +
                           std::to_string(lim.corner_min) + ", " + std::to_string(lim.corner_max) + "]");
    if (span > lim.offset_max)
      return fail(why, "tma: dilated filter extent " + std::to_string(span) + " exceeds the im2col offset range " +
                           std::to_string(lim.offset_max));
  }
  return true;
}

PhaseCorners bwd_data_corners(const Problem& p) {
  PhaseCorners pc;
  for (int d = p.first_slot(); d < 3; ++d) {
    const int64_t s = p.stride[d], f = p.filter[d], pad = p.pad_lo[d], dil = p.dilation[d];
    if (p.in[d] % s != 0) return pc;
    // The same phase geometry as igemm/geometry.cuh make_phase.
    bool any = false;
    int64_t lo = 0, q0_max = 0;
    for (int64_t ph = 0; ph < s; ++ph) {
      int64_t first = -1, second = -1, count = 0;
      for (int64_t t = 0; t < f; ++t) {
        if ((ph + pad - t * dil) % s != 0) continue;
        if (count == 0) first = t;
        else if (count == 1) second = t;
        ++count;
      }
      if (count == 0) continue;
      const int64_t q0 = (ph + pad - first * dil) / s;
      const int64_t dq = second < 0 ? 0 : (second - first) * dil / s;
      const int64_t lower_ph = q0 - (count - 1) * dq;
      lo = any ? std::min(lo, lower_ph) : lower_ph;
      q0_max = any ? std::max(q0_max, q0) : q0;
      any = true;
    }
    if (!any) return pc;
    pc.lower[d] = lo;
    pc.upper[d] = p.in[d] / s - p.out(d) + lo;
    pc.max_offset[d] = q0_max - lo;  // a phase's shift plus its last flipped tap: q0 - lower
  }
  pc.ok = true;
  return pc;
}

namespace {

// An im2col map over a channels-last tensor of `channels` channels and
// spatial sizes `sizes` (right-aligned slots, as Problem's), batch n: the
// bounding box of filter bases per spatial slot is [lower, size - 1 + upper]
// stepped by `steps`.
TmaArgs im2col_args(const Problem& p, int64_t channels, const std::array<int64_t, 3>& sizes,
                    const std::array<int64_t, 3>& lower, const std::array<int64_t, 3>& upper,
                    const std::array<int64_t, 3>& steps, int box_channels, int box_pixels) {
  TmaArgs a;
  a.im2col = true;
  a.rank = p.ndim + 2;
  const uint64_t eb = uint64_t(elem_bytes(p.dtype));
  a.dims[0] = uint64_t(channels);
  a.elem_strides[0] = 1;
  uint64_t pitch = uint64_t(channels) * eb;
  int i = 1;
  for (int d = 2; d >= p.first_slot(); --d, ++i) {
    a.dims[i] = uint64_t(sizes[d]);
    a.strides[i - 1] = pitch;
    pitch *= uint64_t(sizes[d]);
    a.elem_strides[i] = uint32_t(steps[d]);
    a.lower[i - 1] = int(lower[d]);
    a.upper[i - 1] = int(upper[d]);
  }
  a.dims[i] = uint64_t(p.n);
  a.strides[i - 1] = pitch;
  a.elem_strides[i] = 1;
  a.channels = uint32_t(box_channels);
  a.pixels = uint32_t(box_pixels);
  return a;
}

// x's im2col over the output pixels: filter bases from -pad_lo to in - 1 +
// pad_hi - dil * (F - 1), stepping by the stride (as many as outputs).
TmaArgs x_im2col(const Problem& p, int box_channels, int box_pixels) {
  std::array<int64_t, 3> lower{}, upper{};
  for (int d = 0; d < 3; ++d) {
    lower[d] = -p.pad_lo[d];
    upper[d] = p.pad_hi[d] - p.dilation[d] * (p.filter[d] - 1);
  }
  return im2col_args(p, p.c, p.in, lower, upper, p.stride, box_channels, box_pixels);
}

TmaArgs tiled(uint64_t inner, uint64_t outer, uint64_t pitch_bytes, int box_inner, int box_outer) {
  return tiled_map({inner, outer}, {pitch_bytes}, {uint32_t(box_inner), uint32_t(box_outer)});
}

}  // namespace

bool flat_ok(const Problem& p) {
  // bwd_data's stride phases: phase 0 holds the one tap, and its rows are
  // dy's rows in order; the other phases have no K tiles (zeros).
  const bool any_stride = p.direction == Direction::bwd_data;
  for (int d = p.first_slot(); d < 3; ++d)
    if (p.filter[d] != 1 || (p.stride[d] != 1 && !any_stride) || p.pad_lo[d] != 0 || p.pad_hi[d] != 0) return false;
  return true;
}

namespace {

// The im2col operand of a pointwise problem: rows of `channels` elements, one
// per pixel of the batch (`pixels`: x's input pixels, or dy's output pixels);
// a box of `box_channels` x `box_rows`.
TmaArgs flat_rows(const Problem& p, int64_t channels, int64_t pixels, int box_channels, int box_rows) {
  const uint64_t eb = uint64_t(elem_bytes(p.dtype));
  return tiled(uint64_t(channels), uint64_t(p.n * pixels), uint64_t(channels) * eb, box_channels, box_rows);
}

}  // namespace

bool dy_blocks_ok(const KernelTraits& t, const Problem& p) {
  return t.tma && p.direction == Direction::bwd_weight && t.tile_m > 64 && p.k_per_group() % t.tile_m == 0;
}

bool x_blocks_ok(const KernelTraits& t, const Problem& p, bool flat) {
  return flat && t.tma && p.direction == Direction::bwd_weight && t.tile_n > 64 && p.c_per_group() % t.tile_n == 0;
}

TmaArgs blocks_args(const KernelTraits& t, const Problem& p, int64_t channels, int blocks) {
  const uint64_t eb = uint64_t(elem_bytes(p.dtype));
  // (64 channels, bwd_weight's K: output pixels (= input pixels when flat),
  // 64-channel blocks): next pixel, next block.
  return tiled_map({64, uint64_t(p.n * p.out_volume()), uint64_t(channels / 64)},
                   {uint64_t(channels) * eb, 64 * eb}, {64, uint32_t(block_k(t)), uint32_t(blocks)});
}

bool w_blocks_ok(const KernelTraits& t, const Problem& p) {
  return t.tma && p.direction == Direction::bwd_data && t.tile_n > 64 && p.c_per_group() % t.tile_n == 0;
}

TmaArgs w_blocks_args(const KernelTraits& t, const Problem& p) {
  const uint64_t eb = uint64_t(elem_bytes(p.dtype));
  const uint64_t cg = uint64_t(p.c_per_group()), f = uint64_t(p.filter_volume());
  // (64 c, tap, k, 64-channel blocks): next tap, next k, next block.
  return tiled_map({64, f, uint64_t(p.k), cg / 64}, {cg * eb, f * cg * eb, 64 * eb},
                   {64, 1, uint32_t(block_k(t)), uint32_t(t.tile_n / 64)});
}

TmaArgs a_args(const KernelTraits& t, const Problem& p, bool flat) {
  const uint64_t eb = uint64_t(elem_bytes(p.dtype));
  if (flat && p.direction == Direction::fwd) return flat_rows(p, p.c, p.in_volume(), block_k(t), t.tile_m);
  if (flat && p.direction == Direction::bwd_data) return flat_rows(p, p.k, p.out_volume(), 64, t.tile_m);
  switch (p.direction) {
    case Direction::fwd: return x_im2col(p, block_k(t), t.tile_m);
    case Direction::bwd_data: {
      // dy at j + lower + shift + t' * dq for the flipped taps t' of each
      // phase (bwd_data_corners): in / s filter bases a slot.
      const PhaseCorners pc = bwd_data_corners(p);
      std::array<int64_t, 3> out{}, lower{}, upper{}, ones{1, 1, 1};
      for (int d = 0; d < 3; ++d) {
        out[d] = p.out(d);
        lower[d] = pc.lower[d];
        upper[d] = pc.upper[d];
      }
      return im2col_args(p, p.k, out, lower, upper, ones, 64, t.tile_m);
    }
    case Direction::bwd_weight: {
      const uint64_t pixels = uint64_t(p.n * p.out_volume());
      return tiled(uint64_t(p.k), pixels, uint64_t(p.k) * eb, 64, block_k(t));
    }
  }
  return {};
}

TmaArgs b_args(const KernelTraits& t, const Problem& p, bool flat) {
  const uint64_t eb = uint64_t(elem_bytes(p.dtype));
  if (flat && p.direction == Direction::bwd_weight) return flat_rows(p, p.c, p.in_volume(), 64, block_k(t));
  switch (p.direction) {
    case Direction::fwd: {
      // w as a matrix: rows g * Kg + k, each F * Cg contiguous elements.
      const uint64_t row = uint64_t(p.filter_volume() * p.c_per_group());
      return tiled(row, uint64_t(p.k), row * eb, block_k(t), t.tile_n);
    }
    case Direction::bwd_data: {
      // w as (c, tap, k): one box is 64 channels of one tap for 64 k.
      const uint64_t cg = uint64_t(p.c_per_group()), f = uint64_t(p.filter_volume());
      return tiled_map({cg, f, uint64_t(p.k)}, {cg * eb, f * cg * eb}, {64, 1, 64});
    }
    case Direction::bwd_weight: return x_im2col(p, 64, block_k(t));
  }
  return {};
}

TmaArgs b_multicast_args(const KernelTraits& t, const Problem& p) {
  TmaArgs a = b_args(t, p);
  a.box[1] = uint32_t(t.tile_n / 2);
  return a;
}

Status encode_tensor_map(const TmaArgs& a, DType dtype, const void* base, TensorMap* out) {
  return gconv::encode_tensor_map(a, dtype, base, TmaSwizzle::b128, out);
}

namespace {

// The output as rows of `cols` elements: fwd y (N * output pixels rows of K),
// bwd_data dx (N * input pixels rows of C), bwd_weight dw (K rows of C/G *
// filter); a group's columns start at g * group_cols within a row (0: its
// rows follow the previous group's).
struct OutRows {
  int64_t cols, rows, group_cols;
};
OutRows out_rows(const Problem& p) {
  switch (p.direction) {
    case Direction::fwd: return {p.k, p.n * p.out_volume(), p.k_per_group()};
    case Direction::bwd_data: return {p.c, p.n * p.in_volume(), p.c_per_group()};
    case Direction::bwd_weight: return {p.filter_volume() * p.c_per_group(), p.k, 0};
  }
  return {};
}

}  // namespace

bool out_map_ok(const KernelTraits& t, const Problem& p, std::string* why) {
  if (!epilogue_separate(t)) return fail(why, "out map: the kernel has no staging area of its own");
  if (!tma_store(t))
    return fail(why, "out map: tile rows of " + std::to_string(t.tile_n) +
                         " columns are no whole number of 128-byte store boxes");
  if (p.direction == Direction::bwd_data)
    for (int d = p.first_slot(); d < 3; ++d)
      if (p.stride[d] != 1) return fail(why, "out map: bwd_data with stride > 1 writes its phases' rows apart");
  const int64_t eb = elem_bytes(p.dtype);
  const OutRows o = out_rows(p);
  if (o.cols * eb % 16 != 0)
    return fail(why, "out map: output rows of " + std::to_string(o.cols * eb) + " bytes are not a multiple of 16");
  // A store box that starts off a 16-byte boundary faults
  // (cudaErrorIllegalInstruction).
  if (p.g > 1 && o.group_cols * eb % 16 != 0)
    return fail(why, "out map: groups of " + std::to_string(o.group_cols * eb) +
                         " bytes of a row do not start on 16-byte boundaries");
  return true;
}

TmaArgs out_args(const KernelTraits& t, const Problem& p) {
  const uint64_t eb = uint64_t(elem_bytes(p.dtype));
  const OutRows o = out_rows(p);
  return tiled(uint64_t(o.cols), uint64_t(o.rows), uint64_t(o.cols) * eb, int(128 / eb), t.tile_m / t.warps_m);
}

}  // namespace gconv::wgmma
