#include "kernels/pw/pw_plan.hpp"

#include <algorithm>
#include <climits>

#include <fmt/format.h>

namespace gconv::pw {
namespace {

// Most dynamic shared memory a block of sm_90 may have, and an SM's.
constexpr size_t kMaxSmem = 227 * 1024;
constexpr size_t kSmSmem = 228 * 1024;
constexpr int kSmRegs = 65536;

bool fail(std::string* why, std::string msg) {
  if (why) *why = std::move(msg);
  return false;
}

bool one_of(int v, std::initializer_list<int> set) { return std::find(set.begin(), set.end(), v) != set.end(); }

}  // namespace

bool traits_ok(const KernelTraits& t, std::string* why) {
  if (t.family != Family::pw) return fail(why, "not a pw kernel");
  if (t.direction == Direction::bwd_weight) return fail(why, "pw kernels compute fwd and bwd_data only");
  if (t.dtype != DType::bf16 && t.dtype != DType::fp16) return fail(why, "pw kernels are bf16 or fp16");
  if (t.ndim < 1 || t.ndim > 3) return fail(why, "ndim must be 1, 2 or 3");
  if (!one_of(t.tile_m, {64, 128})) return fail(why, "tile_m must be 64 or 128");
  if (!one_of(t.tile_n, {32, 64, 128, 256})) return fail(why, "tile_n must be 32, 64, 128 or 256");
  if (!one_of(t.tile_k, {32, 64, 128, 256})) return fail(why, "tile_k must be 32, 64, 128 or 256");
  if (!one_of(t.warps_m, {4, 8})) return fail(why, "warps_m (warps per block) must be 4 or 8");
  const int wm = t.tile_m / t.warps_m;
  if (wm != 16 && wm != 32) return fail(why, "tile_m / warps_m (rows per warp) must be 16 or 32");
  // The accumulators a thread keeps: wm / 16 x tile_n / 8 mma tiles of 4.
  if (wm / 16 * t.tile_n / 8 * 4 > 128)
    return fail(why, "tile_m / warps_m * tile_n / 32 (accumulators per thread) must be at most 128");
  if (t.stages < 2 || t.stages > 4) return fail(why, "stages must be 2, 3 or 4");
  if (smem_bytes(t) > kMaxSmem) return fail(why, fmt::format("shared memory {} B > {} B", smem_bytes(t), kMaxSmem));
  KernelTraits canon;
  canon.family = t.family;
  canon.direction = t.direction;
  canon.dtype = t.dtype;
  canon.ndim = t.ndim;
  canon.tile_m = t.tile_m;
  canon.tile_n = t.tile_n;
  canon.tile_k = t.tile_k;
  canon.warps_m = t.warps_m;
  canon.stages = t.stages;
  // What the name does not carry: one warp column, no split, vec 8.
  canon.warps_n = 1;
  if (!(canon == t)) return fail(why, "canonical: a pw kernel leaves every other trait at its default (warps_n 1)");
  return true;
}

bool problem_ok(const Problem& p, std::string* why) {
  if (Status s = p.validate(); !s.ok()) return fail(why, s.message());
  if (p.direction == Direction::bwd_weight) return fail(why, "pw kernels compute fwd and bwd_data only");
  if (p.dtype != DType::bf16 && p.dtype != DType::fp16) return fail(why, "pw kernels are bf16 or fp16");
  if (p.g != 1) return fail(why, "one group only");
  for (int i = 0; i < 3; ++i) {
    if (p.filter[i] != 1) return fail(why, "a 1x1 filter only");
    if (p.stride[i] != 1) return fail(why, "stride 1 only");
    if (p.pad_lo[i] != 0 || p.pad_hi[i] != 0) return fail(why, "no padding only");
  }
  return true;
}

Gemm gemm_of(const Problem& p) {
  Gemm m;
  m.rows = (long long)(p.n * p.in_volume());
  m.kd = int(p.direction == Direction::fwd ? p.c : p.k);
  m.nn = int(p.direction == Direction::fwd ? p.k : p.c);
  m.kp = (m.kd + 15) / 16 * 16;
  return m;
}

bool can_implement(const KernelTraits& t, const Problem& p, std::string* why) {
  return traits_ok(t, why) && problem_ok(p, why) && instance_ok(t, p, why);
}

bool instance_ok(const KernelTraits& t, const Problem& p, std::string* why) {
  if (p.direction != t.direction || p.dtype != t.dtype || p.ndim != t.ndim)
    return fail(why, "direction, dtype or ndim differ from the kernel's");
  const Gemm m = gemm_of(p);
  if (m.kd > t.tile_k || (t.tile_k > 32 && m.kd <= t.tile_k / 2))
    return fail(why, fmt::format("the reduction ({} channels) is not in this instance's ({}, {}]", m.kd,
                                 t.tile_k > 32 ? t.tile_k / 2 : 0, t.tile_k));
  if (t.tile_n > 32 && m.nn <= t.tile_n / 2) return fail(why, fmt::format("{} output channels fill at most half of tile_n {}", m.nn, t.tile_n));
  if (m.nn > t.tile_n && m.nn % 8 != 0)
    return fail(why, fmt::format("{} output channels (not a multiple of 8) need one N tile: tile_n >= {}", m.nn, m.nn));
  // 64-bit element offsets; the tiles and chunk counts of a block are 32-bit.
  if (m.rows / t.tile_m + 1 >= INT_MAX) return fail(why, "too many rows for the kernel's tile index");
  return true;
}

size_t smem_bytes(const KernelTraits& t) {
  // pw.cuh Layout: B in either orientation (fwd n-major, bwd_data k-major).
  const size_t b = std::max(size_t(t.tile_n) * (t.tile_k + 8), size_t(t.tile_k) * (t.tile_n + 8)) * 2;
  const size_t a = size_t(t.stages) * t.tile_m * (t.tile_k + 8) * 2;
  const size_t o = size_t(t.tile_m) * (t.tile_n + 8) * 2;
  return b + a + o;
}

int register_estimate(const KernelTraits& t) {
  const int wm = t.tile_m / std::max(1, t.warps_m);
  return std::min(255, wm / 16 * t.tile_n / 8 * 4 + wm / 16 * 4 + 56);
}

namespace {

size_t round128(size_t b) { return (b + 127) / 128 * 128; }

// Blocks an SM holds at `smem` bytes a block (and the register estimate).
int blocks_at(const KernelTraits& t, size_t smem) {
  const int threads = 32 * t.warps_m;
  const int by_smem = int(kSmSmem / (smem + 1024));
  // Registers are allocated per warp in units of 256 (8 per thread).
  const int regs = (register_estimate(t) + 7) / 8 * 8;
  const int by_regs = kSmRegs / (regs * threads);
  return std::max(1, std::min({kBlocksPerSm, by_smem, by_regs}));
}

}  // namespace

int blocks_per_sm(const KernelTraits& t) { return blocks_at(t, smem_bytes(t)); }

Plan make_plan(const KernelTraits& t, const Problem& p) {
  Plan plan;
  const Gemm m = gemm_of(p);
  PwParams& q = plan.params;
  q.rows = m.rows;
  q.kd = m.kd;
  q.nn = m.nn;
  q.ldw = int(p.c);
  q.b_trans = p.direction == Direction::bwd_data ? 1 : 0;
  q.m_tiles = int((m.rows + t.tile_m - 1) / t.tile_m);
  q.a_rows8 = m.kd % 8 == 0 ? 1 : 0;
  q.o_rows8 = m.nn % 8 == 0 ? 1 : 0;
  // Shared memory for this problem's kd and nn, not the instance's tile_k
  // and tile_n: a smaller reduction leaves room for more blocks an SM.
  q.b_stride = q.b_trans ? t.tile_n + 8 : t.tile_k + 8;
  const size_t b_bytes = round128(size_t(q.b_trans ? m.kp : t.tile_n) * q.b_stride * 2);
  const size_t a_row = q.a_rows8 ? size_t((m.kd / 8) | 1) * 16 : 0;
  const size_t a_stage = round128(q.a_rows8 ? t.tile_m * a_row : (size_t(t.tile_m) * m.kd * 2 + 15) / 16 * 16);
  const int ocols = std::min(m.nn, t.tile_n);
  const size_t o_bytes = round128(size_t(t.tile_m) * (q.o_rows8 ? ((ocols / 8) | 1) * 8 : m.nn) * 2);
  q.a_off = int(b_bytes);
  q.a_stage = int(a_stage);
  q.o_off = int(b_bytes + t.stages * a_stage);
  plan.smem = b_bytes + t.stages * a_stage + o_bytes;
  plan.n_tiles = (m.nn + t.tile_n - 1) / t.tile_n;
  const long long target = (long long)kPlanSms * blocks_at(t, plan.smem);
  plan.blocks_m = std::max(1LL, std::min<long long>(q.m_tiles, target / plan.n_tiles));
  plan.threads = 32 * t.warps_m;
  return plan;
}

std::string instance_source(const KernelTraits& t) {
  return fmt::format(
      "// {name}: generated by src/kernels/pw/pw_plan.cpp\n"
      "#include \"pw/pw.cuh\"\n"
      "extern \"C\" __global__ void __launch_bounds__({threads}) gconv_main(const __grid_constant__ gconv::pw::PwParams p) {{\n"
      "  gconv::pw::pointwise<{dt}, {tm}, {tn}, {tk}, {nw}, {st}>(p);\n"
      "}}\n",
      fmt::arg("name", kernel_name(t)), fmt::arg("threads", 32 * t.warps_m), fmt::arg("dt", static_cast<int>(t.dtype)),
      fmt::arg("tm", t.tile_m), fmt::arg("tn", t.tile_n), fmt::arg("tk", t.tile_k), fmt::arg("nw", t.warps_m),
      fmt::arg("st", t.stages));
}

}  // namespace gconv::pw
