// Host side of the tinyc bwd_weight kernels (grouped convolutions with C/G =
// K/G = 4, 8 or 16; device code tinyc_wgrad.cuh): rules, geometry, grid,
// shared memory and workspace.
#include <algorithm>
#include <climits>
#include <numeric>

#include <fmt/format.h>

#include "jit/env.hpp"
#include "kernels/fixup.hpp"
#include "kernels/tinyc/tinyc_plan.hpp"

namespace gconv::tinyc {
namespace {

constexpr size_t kMaxSmem = 227 * 1024;

bool fail(std::string* why, std::string msg) {
  if (why) *why = std::move(msg);
  return false;
}

size_t align1024(size_t b) { return (b + 1023) / 1024 * 1024; }

// Shared memory of one stage: the dy box (128 bytes a pixel), then the x box
// of the rectangle it reads (x_px_bytes a pixel: 128, or the stems' C * 2),
// each at a 1024-byte boundary (the swizzle's period).
size_t stage_bytes(const KernelTraits& t, int xh, int xw, int x_px_bytes) {
  return align1024(size_t(t.block_h) * t.block_w * 128) + align1024(size_t(xh) * xw * x_px_bytes);
}

}  // namespace

bool wgrad_traits_ok(const KernelTraits& t, std::string* why) {
  if (t.ndim != 2) return fail(why, "tinyc bwd_weight kernels are 2D");
  if (t.warps_m != 4 && t.warps_m != 8)
    return fail(why, "warps_m must be 4 or 8 (four warps cover a slab's 64 K rows)");
  if (t.block_h < 1 || t.block_h > 32 || t.block_w < 16 || t.block_w > 128 || t.block_w % 16 != 0)
    return fail(why, "block_h must be 1..32 and block_w a multiple of 16 up to 128 (the dy tile of a step)");
  return true;
}

bool wgrad_can_implement(const KernelTraits& t, const Problem& p, std::string* why) {
  if (!traits_ok(t, why)) return false;
  if (Status s = p.validate(); !s.ok()) return fail(why, s.message());
  if (p.direction != t.direction || p.dtype != t.dtype || p.ndim != t.ndim)
    return fail(why, "direction, dtype or ndim differ from the kernel's");
  const int64_t cg = p.c_per_group();
  if (wgrad_stem(p)) {
    // The stems: dy's rows of K channels and x's image rows of W * C
    // elements are tensor maps (16-byte strides).
    if (p.k % 8 != 0) return fail(why, "tinyc bwd_weight (stem): K must be a multiple of 8 (dy's tensor map)");
    if (p.in[2] * p.c % 8 != 0)
      return fail(why, "tinyc bwd_weight (stem): W * C must be a multiple of 8 (x's rows as a tensor map)");
  } else {
    if (p.g < 2 || p.c != p.k || (cg != 4 && cg != 8 && cg != 16))
      return fail(why,
                  "tinyc bwd_weight: grouped with C/G = K/G of 4, 8 or 16 (a 16-row mma block holds whole groups), "
                  "or one group with C <= 8");
    if (p.c % 8 != 0) return fail(why, "C must be a multiple of 8 (16-byte copies of x and dy)");
  }
  if (p.filter[1] * p.filter[2] > kWMaxTaps)
    return fail(why, fmt::format("{} filter taps > {} (a thread's accumulators)", p.filter[1] * p.filter[2], kWMaxTaps));
  // Offsets of one image are 32-bit in the kernel; the image base 64-bit.
  if (p.in[1] * p.in[2] * p.c >= INT_MAX || p.out(1) * p.out(2) * p.k >= INT_MAX)
    return fail(why, "image too large for the kernel's index ranges");
  const WgradPlan plan = make_wgrad_plan(t, p);
  if (plan.smem > kMaxSmem) return fail(why, fmt::format("shared memory {} B > {} B", plan.smem, kMaxSmem));
  if (plan.params.xh > 256 || plan.params.xw * (wgrad_stem(p) ? p.c : 1) > 256)
    return fail(why, "the x rectangle of a tile exceeds a TMA box (256)");
  if (int64_t(plan.params.steps) != p.n * plan.params.tiles_h * plan.params.tiles_w || plan.params.steps >= INT_MAX)
    return fail(why, "too many dy tiles for one launch");
  return true;
}

WgradPlan make_wgrad_plan(const KernelTraits& t, const Problem& p) {
  WgradPlan plan;
  TinycWgradParams& q = plan.params;
  set_plane(p, q);
  q.k = int(p.k);
  const bool stem = wgrad_stem(p);
  q.cg = int(p.c_per_group());  // the stems: C
  q.taps = q.fh * q.fw;
  q.tiles_h = int((q.ho + t.block_h - 1) / t.block_h);
  q.tiles_w = int((q.wo + t.block_w - 1) / t.block_w);
  const int64_t steps = p.n * int64_t(q.tiles_h) * q.tiles_w;
  q.steps = int(std::min<int64_t>(steps, INT_MAX));
  q.xh = (t.block_h - 1) * q.sh + (q.fh - 1) * q.dh + 1;
  q.xw = (t.block_w - 1) * q.sw + (q.fw - 1) * q.dw + 1;
  q.xu = 1;
  if (stem) {
    // A box row of xw pixels of C channels must be whole 16-byte units, and
    // start on one: up to xu - 1 pixels of lead before the halo.
    q.xu = 8 / std::gcd(8, q.c);
    q.xw = (q.xw + q.xu - 1 + q.xu - 1) / q.xu * q.xu;
  }
  for (int tap = 0; tap < kWMaxTaps; ++tap)
    q.toffs[tap] = tap < q.taps ? (tap / q.fw) * q.dh * q.xw + (tap % q.fw) * q.dw : 0;
  const size_t stage = stage_bytes(t, q.xh, q.xw, stem ? q.c * 2 : 128);
  q.stage_bytes = int(std::min<size_t>(stage, INT_MAX));
  // The alignment slack, two stages and a zero pixel; the stems' wide copy
  // of the x rectangle (16 bytes a pixel).
  plan.smem = 1024 + 2 * stage + 128 + (stem ? size_t(q.xh) * q.xw * 16 : 0);
  plan.slabs = (p.k + kWSlab - 1) / kWSlab;
  // Blocks per slab: kWgradBlocks over all slabs, but each block adds its
  // whole part of dw (64 x taps x C/G values) with atomics, so at C/G = 16
  // and small images (a step or two a block) the atomics, not the MMAs,
  // would take the time: their total stays within kWgradAtomics.
  // GCONV_TINYC_WGRAD_BLOCKS / _MIN_STEPS (read once; A/B runs): another
  // target, and at least that many steps a block.
  static const int64_t target =
      jit::process_env_int("GCONV_TINYC_WGRAD_BLOCKS", 1, int64_t{1} << 20).value_or(kWgradBlocks);
  static const int64_t min_steps = jit::process_env_int("GCONV_TINYC_WGRAD_MIN_STEPS", 1, 1 << 20).value_or(1);
  const int64_t part = int64_t(kWSlab) * q.taps * q.cg;
  const int64_t by_atomics = std::max<int64_t>(1, kWgradAtomics / (plan.slabs * part));
  plan.blocks = std::max<int64_t>(1, std::min<int64_t>({steps, (target + int64_t(plan.slabs) - 1) / plan.slabs,
                                                        by_atomics, (steps + min_steps - 1) / min_steps}));
  plan.threads = 32 * t.warps_m;
  const int64_t acc_elems = p.k * q.taps * q.cg;
  plan.flags_offset = fixup_words_offset(acc_elems);
  plan.workspace = plan.flags_offset + fixup_words_bytes(plan.slabs);
  return plan;
}

bool wgrad_stem(const Problem& p) { return p.g == 1 && p.c <= kMaxC; }

TmaArgs wgrad_x_map(const Problem& p, const WgradPlan& plan) {
  const uint64_t c = uint64_t(p.c), eb = 2;
  if (wgrad_stem(p)) {
    // Image rows of W * C elements: a box of xw pixels' channels x xh rows.
    const uint64_t row = c * uint64_t(p.in[2]);
    return tiled_map({row, uint64_t(p.in[1]), uint64_t(p.n)}, {row * eb, row * eb * uint64_t(p.in[1])},
                     {uint32_t(plan.params.xw * p.c), uint32_t(plan.params.xh), 1});
  }
  return tiled_map({c, uint64_t(p.in[2]), uint64_t(p.in[1]), uint64_t(p.n)},
                   {c * eb, c * eb * uint64_t(p.in[2]), c * eb * uint64_t(p.in[2] * p.in[1])},
                   {uint32_t(kWSlab), uint32_t(plan.params.xw), uint32_t(plan.params.xh), 1});
}

TmaArgs wgrad_dy_map(const KernelTraits& t, const Problem& p) {
  const uint64_t k = uint64_t(p.k), eb = 2, wo = uint64_t(p.out(2)), ho = uint64_t(p.out(1));
  return tiled_map({k, wo, ho, uint64_t(p.n)}, {k * eb, k * eb * wo, k * eb * wo * ho},
                   {uint32_t(kWSlab), uint32_t(t.block_w), uint32_t(t.block_h), 1});
}

std::string wgrad_instance_source(const KernelTraits& t) {
  return fmt::format(
      "// {name}: generated by src/kernels/tinyc/tinyc_wgrad.cpp\n"
      "#include \"tinyc/tinyc_wgrad.cuh\"\n"
      "extern \"C\" __global__ void __launch_bounds__({threads}, {min_blocks}) gconv_main(const "
      "gconv::tinyc::TinycWgradParams p, const __grid_constant__ gconv::dev::TensorMap tx, const __grid_constant__ "
      "gconv::dev::TensorMap tdy) {{\n"
      "  gconv::tinyc::bwd_weight<{dt}, {th}, {tw}, {nw}>(p, &tx, &tdy);\n"
      "}}\n"
      "extern \"C\" __global__ void __launch_bounds__({threads}, {min_blocks}) gconv_stem(const "
      "gconv::tinyc::TinycWgradParams p, const __grid_constant__ gconv::dev::TensorMap tx, const __grid_constant__ "
      "gconv::dev::TensorMap tdy) {{\n"
      "  gconv::tinyc::bwd_weight<{dt}, {th}, {tw}, {nw}, true>(p, &tx, &tdy);\n"
      "}}\n",
      fmt::arg("name", kernel_name(t)), fmt::arg("threads", 32 * t.warps_m), fmt::arg("min_blocks", 2),
      fmt::arg("dt", static_cast<int>(t.dtype)), fmt::arg("th", t.block_h), fmt::arg("tw", t.block_w),
      fmt::arg("nw", t.warps_m));
}

}  // namespace gconv::tinyc
