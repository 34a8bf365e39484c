#include "kernels/tinyc/tinyc_plan.hpp"

#include <algorithm>
#include <climits>

#include <fmt/format.h>

namespace gconv::tinyc {
namespace {

// Most dynamic shared memory a block of sm_90 may have.
constexpr size_t kMaxSmem = 227 * 1024;

bool fail(std::string* why, std::string msg) {
  if (why) *why = std::move(msg);
  return false;
}

// The dy offsets (in units of the stride) of the taps that reach a phase:
// pixel row i of phase py (dx row h0 + py + s * i) reads dy row h0 / s + i +
// (py + pad - f * dil) / s for the taps f whose numerator divides by s.
// [lo, hi] over every phase and tap; lo > hi when no tap reaches any phase.
void tap_range(int s, int pad, int filt, int dil, int* lo, int* hi) {
  *lo = INT_MAX;
  *hi = INT_MIN;
  for (int ph = 0; ph < s; ++ph)
    for (int f = 0; f < filt; ++f) {
      const int a = ph + pad - f * dil;
      if (a % s != 0) continue;
      *lo = std::min(*lo, a / s);
      *hi = std::max(*hi, a / s);
    }
}

// bwd_data's tile and warp rules (traits_ok).
bool bwd_data_shape_ok(const KernelTraits& t, std::string* why) {
  if (t.ndim != 2 && t.ndim != 3) return fail(why, "tinyc kernels are 2D or 3D");
  if (t.warps_m != 2 && t.warps_m != 4 && t.warps_m != 8) return fail(why, "warps_m (warps per block) must be 2, 4 or 8");
  if (t.block_h < 1 || t.block_h > 64 || t.block_w < 16 || t.block_w > 256 || t.block_w % 16 != 0)
    return fail(why, "block_h must be 1..64 and block_w a multiple of 16 up to 256");
  const int items = t.block_h * t.block_w / 16 / kTpw;
  if (items < 1 || items % t.warps_m != 0)
    return fail(why, "block_h * block_w / 32 (pairs of 16-pixel tasks) must be a multiple of warps_m");
  // Pairs of tasks per warp (their accumulators stay in registers): with the
  // instance's two-blocks launch bound ptxas builds 4 a warp (122 registers)
  // and 8 with 4 warps (204) without a spill; 8 with 8 warps would not fit
  // 128 (sm_90a, CUDA 13.0, tests/kernels/tinyc_test.cpp). Without the bound
  // ptxas capped some instances at 80 registers and spilled.
  const int ipw = items / t.warps_m;
  if (ipw != 4 && !(ipw == 8 && t.warps_m == 4))
    return fail(why, "block_h * block_w / 32 / warps_m (task pairs per warp) must be 4, or 8 with 4 warps");
  return true;
}

}  // namespace

bool traits_ok(const KernelTraits& t, std::string* why) {
  if (t.family != Family::tinyc) return fail(why, "not a tinyc kernel");
  if (t.direction == Direction::fwd) return fail(why, "tinyc kernels compute bwd_data and bwd_weight only");
  if (t.dtype != DType::bf16 && t.dtype != DType::fp16) return fail(why, "tinyc kernels are bf16 or fp16");
  // The name carries no vec (bwd_data's dy copy width follows K at run time).
  if (t.vec != 8) return fail(why, "vec must be 8 (the default; the name does not carry it)");
  if (!(t.direction == Direction::bwd_weight ? wgrad_traits_ok(t, why) : bwd_data_shape_ok(t, why))) return false;
  KernelTraits canon;
  canon.family = t.family;
  canon.direction = t.direction;
  canon.dtype = t.dtype;
  canon.ndim = t.ndim;
  canon.block_h = t.block_h;
  canon.block_w = t.block_w;
  canon.warps_m = t.warps_m;
  canon.vec = t.vec;
  if (!(canon == t)) return fail(why, "canonical: a tinyc kernel leaves every other trait at its default");
  return true;
}

bool can_implement(const KernelTraits& t, const Problem& p, std::string* why) {
  if (t.direction == Direction::bwd_weight) return wgrad_can_implement(t, p, why);
  if (!traits_ok(t, why)) return false;
  if (Status s = p.validate(); !s.ok()) return fail(why, s.message());
  if (p.direction != t.direction || p.dtype != t.dtype || p.ndim != t.ndim)
    return fail(why, "direction, dtype or ndim differ from the kernel's");
  if (p.g != 1) return fail(why, "one group only");
  if (p.c > kMaxC) return fail(why, fmt::format("C = {} > {} (dx channels of one mma N)", p.c, kMaxC));
  const int sh = int(p.stride[1]), sw = int(p.stride[2]);
  if (t.block_h % sh != 0 || t.block_w % sw != 0) return fail(why, "the tile must be a multiple of the stride");
  if ((t.block_w / sw) % 16 != 0) return fail(why, "block_w / W stride must be a multiple of 16 (whole tasks per row)");
  if ((t.block_h / sh) * (t.block_w / sw) / 16 % kTpw != 0)
    return fail(why, "the 16-pixel tasks of a stride phase must pair up");
  // Offsets into dy, w and dx are 64-bit in the kernel (the dy slice, the
  // dx row); blocks, tile pixels and halo units are 32-bit.
  if (p.n * p.in_volume() * p.c >= INT_MAX || p.n * p.out_volume() * p.k >= (1LL << 40))
    return fail(why, "tensor too large for the kernel's index ranges");
  const Plan plan = make_plan(t, p);
  if (plan.smem > kMaxSmem) return fail(why, fmt::format("shared memory {} B > {} B", plan.smem, kMaxSmem));
  if (plan.blocks > INT_MAX) return fail(why, "too many tiles for one grid");
  return true;
}

Plan make_plan(const KernelTraits& t, const Problem& p) {
  Plan plan;
  TinycParams& q = plan.params;
  set_plane(p, q);
  q.k = int(p.k);
  // Depth: slot 0, size 1 / stride 1 / pad 0 for a 2D problem.
  q.d = int(p.in[0]);
  q.od = int(p.out(0));
  q.fd = int(p.filter[0]);
  q.sd = int(p.stride[0]);
  q.pd = int(p.pad_lo[0]);
  q.dd = int(p.dilation[0]);
  q.tiles_h = int((p.in[1] + t.block_h - 1) / t.block_h);
  q.tiles_w = int((p.in[2] + t.block_w - 1) / t.block_w);
  int ylo, yhi, xlo, xhi;
  tap_range(q.sh, q.ph, q.fh, q.dh, &ylo, &yhi);
  tap_range(q.sw, q.pw, q.fw, q.dw, &xlo, &xhi);
  if (ylo > yhi) ylo = yhi = 0;  // no tap reaches any row: dx is zero, the halo is never read
  if (xlo > xhi) xlo = xhi = 0;
  q.q0y = ylo;
  q.q0x = xlo;
  q.halo_h = t.block_h / q.sh + (yhi - ylo);
  q.halo_w = t.block_w / q.sw + (xhi - xlo);
  q.kchunks = int((p.k + kKc - 1) / kKc);
  q.kvec = copy_channels(p.k, 16);  // launch() checks dy's own alignment
  // The halo and the weights, then (reusing them) the dx tile the block
  // stores from.
  plan.smem = std::max(size_t(q.halo_h) * q.halo_w * kPitch + size_t(q.fh) * q.fw * kKc * 16,
                       size_t(t.block_h) * t.block_w * q.c * 2);
  plan.blocks = p.n * p.in[0] * (long long)q.tiles_h * q.tiles_w;
  plan.threads = 32 * t.warps_m;
  return plan;
}

int copy_channels(int64_t k, uintptr_t dy_address) { return k % 8 == 0 && dy_address % 16 == 0 ? 8 : 1; }

std::string instance_source(const KernelTraits& t) {
  if (t.direction == Direction::bwd_weight) return wgrad_instance_source(t);
  return fmt::format(
      "// {name}: generated by src/kernels/tinyc/tinyc_plan.cpp\n"
      "#include \"tinyc/tinyc.cuh\"\n"
      "extern \"C\" __global__ void __launch_bounds__({threads}, 2) gconv_main(const gconv::tinyc::TinycParams p) {{\n"
      "  gconv::tinyc::bwd_data<{dt}, {th}, {tw}, {nw}, {nd}>(p);\n"
      "}}\n",
      fmt::arg("name", kernel_name(t)), fmt::arg("threads", 32 * t.warps_m), fmt::arg("dt", static_cast<int>(t.dtype)),
      fmt::arg("th", t.block_h), fmt::arg("tw", t.block_w), fmt::arg("nw", t.warps_m), fmt::arg("nd", t.ndim));
}

}  // namespace gconv::tinyc
