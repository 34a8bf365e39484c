// The analytic cost model (one function per family; analytic_ms dispatches).
//
// Every rate below comes from DeviceInfo (configs/device/sm90.json, rescaled
// to the measured GPU): they are estimates for RANKING, not predictions to
// quote. All times in ms.
//
//   time = max(compute, memory) x vec_penalty + launches x launch_us
//
// igemm (implicit GEMM on mma.sync), per the GEMM view of problem.hpp:
//   tiles     m_tiles x n_tiles x g_blocks x split x phases blocks, where
//             n_tiles counts tile_n / groups_per_block columns per group and
//             bwd_data with stride s runs prod(s) phases of ~M/prod(s) rows
//   k_iters   ceil(ceil(K / tile_k) / split)  k-steps per block
//   tile eff  useful MACs (flops/2) / (blocks x tile_m x tile_n x tile_k x k_iters)
//   occupancy blocks_per_SM = min(regs_per_sm / (threads x register estimate),
//             smem_per_sm / (smem + 1 KB), max_threads_per_sm / threads,
//             max_blocks_per_sm)
//   waves     ceil(blocks / (SMs x blocks_per_SM)); the last wave holds the
//             remaining blocks spread over the SMs
//   per-SM rate F(b) with b blocks resident =
//             min(mma peak / SMs,
//                 smem_bytes_per_clk x clock x flops per shared-memory byte)
//             x min(1, b x warps / 8)          (8 warps keep the 4 tensor pipes busy)
//             x (stages == 2 ? 0.8 : 1)         (a 2-stage pipeline exposes load latency)
//             where one k-step of a block moves (gpb x tile_m + tile_n) x tile_k
//             elements into shared memory and warps x (warp_m + warp_n) x tile_k
//             out of it for 2 x tile_m x tile_n x tile_k flops (so thin warp
//             tiles are shared-memory bound)
//   compute   sum over waves of (b x flops_per_block / F(b) + wave_latency_us),
//             b = blocks per SM in that wave
//   memory    max(DRAM bytes / hbm_gbps, L2 bytes / l2_gbps):
//             DRAM = x + w + y (each once) + 2 x split-K workspace (written, re-read)
//             L2   = blocks x k_iters x (gpb x tile_m + tile_n) x tile_k x dtype
//                    (every A and B tile load: the re-reads across tiles)
//                    + output writes (split-K: split x fp32 slices + reduce)
//   launches  1, +1 reduce with parallel split-K (serial split-K converts in the
//             kernel: kernels/fixup.hpp; +memset +reduce with GCONV_SPLITK_FIXUP=0)
// wgmma (warp-specialized warpgroup MMA): the igemm formula with
//   mma peak  x kWgmmaOverMmaSync (1.6): the device file's mma_sync rates are
//             about half of Hopper's wgmma peak (989 / 495 TFLOP/s dense);
//             1.6 x 450 = 720 bf16 TFLOP/s is about 73% of that peak, what
//             CUTLASS-class wgmma GEMMs sustain (tf32: 320 of 495)
//   occupancy threads 128 x (consumers + 1), registers as the arch file's
//             block estimate (the producer hands its registers to the
//             consumers), shared memory wgmma::smem_bytes
//   rate      x (resident consumer warpgroups == 1 ? 0.75 : 1): one
//             consumer warpgroup can keep the tensor pipes busy (wgmma is
//             asynchronous), but alone it exposes its epilogue and barrier
//             waits; a second one, in the block or beside it, hides them
//   smem      a k-step writes (tile_m + tile_n) x tile_k elements and each
//             consumer reads its tile_m / consumers rows of A and all of B
//             (no register fragments: wgmma reads shared memory directly)
// direct (CUDA cores): memory-bound by design; the same structure with
//   L2 = blocks x (staged source tile (tile_rows x tile_cols x channel span)
//        + weights per block) + output, or for bwd_weight (x + dy) x passes + dw
//   compute = flops on the CUDA-core rate with F(b) x min(1, b x warps / 16),
//             that rate x 0.22 for grouped problems' tile kernels with a
//             grouped entry (Cg = Kg = 2, 4, 8) and x 0.10 for the others
//             with C/G or K/G > 1 (measured, see the constants)
//   launches 1, +1 finish kernel for deterministic partials (atomic
//            accumulation is zeroed and converted in the kernel; DirectPlan::launches)
//   register-window kernels: L2 = items x filter rows x window pixels (+ R
//   dy pixels for bwd_weight) x C, one launch
// vec_penalty = 1 + 0.25 x log2(16 / (vec x dtype bytes)): narrower global
// accesses issue more load instructions per byte (1.0 at 16-byte vectors).
#include "perf/analytic.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "core/int_math.hpp"
#include "kernels/direct/direct_plan.hpp"
#include "kernels/fixup.hpp"
#include "kernels/igemm/igemm_plan.hpp"
#include "kernels/pw/pw_plan.hpp"
#include "kernels/tinyc/tinyc_plan.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"

namespace gconv {
namespace {

constexpr int kWarp = 32;
constexpr int64_t kSmemReservedPerBlock = 1024;  // the driver's per-block reservation on sm_80+
constexpr double kTensorWarpsToSaturate = 8;      // 2 per SM sub-partition
constexpr double kCudaCoreWarpsToSaturate = 16;   // FMA latency needs more warps than mma
constexpr double kTwoStagePenalty = 0.8;
constexpr double kVecPenaltyPerHalving = 0.25;
// wgmma's sustained tensor rate over mma.sync's, and the share of it one
// lone consumer warpgroup reaches (see the wgmma paragraph above).
constexpr double kWgmmaOverMmaSync = 1.6;
constexpr double kWgmmaLoneConsumerRate = 0.75;
constexpr int kWarpgroup = 4 * kWarp;
// Direct tile kernels on grouped problems (C/G or K/G > 1) reach a fraction
// of the CUDA-core rate the depthwise path does: per FMA they read the
// staged source and fp32 weights from shared memory and re-stage both per
// block. Measured on one H200 (2026-11-26, notes/device-runs.md, the
// public set's C/G = 4 and 8 layers): the grouped entries (Cg = Kg = 2, 4,
// 8) took 4-5x this model's compute time, the general entry 9.5-11x.
constexpr double kDirectGroupedComputeRate = 0.22;
constexpr double kDirectGeneralComputeRate = 0.10;
// The pw kernels' flop rate as a share of the tensor peak: their per-warp
// chain of copies, ldmatrix and mma.sync with ~11 warps an SM is latency-
// bound (docs/pw.md). Fitted on one H200 (2026-11-28, thirtieth session
// call 3, the best pw kernel on each of the 135 public pointwise problems):
// time ~ 8 us + 0.11 us/MB + 12.7 us/GFLOP, i.e. ~79 TFLOP/s, a tenth of
// the bf16 peak; at half the peak the estimate ranked pw first on layers
// of 256 channels where it ran 5x slower than the implicit GEMMs.
constexpr double kPwMmaShare = 0.10;


using Operands = AnalyticProblem::Operands;

Operands operand_elements(const Problem& p) {
  Operands o;
  o.x = p.n * p.in_volume() * p.c;
  o.w = p.k * p.filter_volume() * p.c_per_group();
  o.y = p.n * p.out_volume() * p.k;
  return o;
}

int64_t output_elements(const Problem& p, const Operands& o) {
  switch (p.direction) {
    case Direction::fwd: return o.y;
    case Direction::bwd_data: return o.x;
    case Direction::bwd_weight: return o.w;
  }
  return o.y;
}

int allocated_regs(const KernelTraits& t, const DeviceInfo& d) {
  const int regs = d.rules ? register_estimate(*d.rules, t) : 128;
  return int(ceil_div(std::max(regs, 1), 8) * 8);  // allocated per thread in units of 8
}

int blocks_per_sm(int regs, const DeviceInfo& d, int threads, int64_t smem) {
  const int64_t by_regs = d.regs_per_sm / std::max<int64_t>(1, int64_t(threads) * regs);
  const int64_t by_smem = d.smem_per_sm_bytes / std::max<int64_t>(1, smem + kSmemReservedPerBlock);
  const int64_t by_threads = d.max_threads_per_sm / std::max(threads, 1);
  const int64_t b = std::min({by_regs, by_smem, by_threads, int64_t(d.max_blocks_per_sm)});
  return int(std::max<int64_t>(b, 1));
}

// Compute time of `blocks` blocks of `flops_per_block` each, when an SM runs
// up to `bps` at once and rate(b) is the SM's flop rate (flop/ms) with b resident.
template <class Rate>
double waves_ms(int64_t blocks, int bps, double flops_per_block, const DeviceInfo& d, const Rate& rate,
                int64_t* waves) {
  const int64_t per_wave = int64_t(d.sm_count) * bps;
  *waves = std::max<int64_t>(1, ceil_div(blocks, per_wave));
  const double wave_latency_ms = d.wave_latency_us * 1e-3;
  double ms = double(*waves - 1) * (bps * flops_per_block / rate(bps) + wave_latency_ms);
  const int64_t rest = blocks - (*waves - 1) * per_wave;
  const int last = int(std::max<int64_t>(1, ceil_div(rest, d.sm_count)));
  ms += last * flops_per_block / rate(last) + wave_latency_ms;
  return ms;
}

double vec_penalty(int vec, DType t) {
  const double bytes = double(vec) * dtype_bytes(t);
  return 1.0 + kVecPenaltyPerHalving * std::max(0.0, std::log2(16.0 / bytes));
}

// vec_penalty tabulated once per process for the vector widths kernels use
// (a log2 per estimate otherwise); the same expression, so the same bits.
double vec_penalty(const AnalyticProblem& ap, int vec) {
  constexpr int kVecs = 17;  // vec 0..16
  static const auto table = [] {
    std::array<std::array<double, kVecs>, 3> t{};
    for (int dt = 0; dt < 3; ++dt)
      for (int v = 0; v < kVecs; ++v) t[dt][v] = vec_penalty(v, DType(dt));
    return t;
  }();
  const int dt = static_cast<int>(ap.problem->dtype);
  return vec >= 0 && vec < kVecs && dt >= 0 && dt < 3 ? table[dt][vec] : vec_penalty(vec, ap.problem->dtype);
}

void finish(double compute_ms, double memory_ms, double penalty, int launches, const DeviceInfo& d,
            AnalyticBreakdown* b) {
  b->compute_ms = compute_ms * penalty;
  b->memory_ms = memory_ms * penalty;
  b->overhead_ms = launches * d.launch_us * 1e-3;
  b->memory_bound = b->memory_ms > b->compute_ms;
  b->total_ms = std::max(b->compute_ms, b->memory_ms) + b->overhead_ms;
}

// An implicit-GEMM kernel's per-SM flop rate as shared memory bounds it,
// for elements of eb bytes.
double smem_flop_rate(const KernelTraits& t, const AnalyticKernel& ak, int eb, const DeviceInfo& d) {
  const double smem_bytes_per_kstep = ak.smem_elems_per_kstep * eb;
  return d.smem_bytes_per_clk * d.clock_mhz * 1e3 * (2.0 * t.tile_m * t.tile_n * t.tile_k / smem_bytes_per_kstep);
}

// igemm and wgmma: the same implicit GEMM tiling; they differ in the
// tensor rate and in how many warps it takes to reach it.
double gemm_ms(const KernelTraits& t, const AnalyticKernel& ak, const AnalyticProblem& ap, const DeviceInfo& d,
               AnalyticBreakdown* b) {
  const int eb = ap.eb;
  const int64_t phases = ap.phases;
  const int gpb = t.groups_per_block;
  // Packed: the block's groups are one block-diagonal GEMM (igemm_plan.hpp
  // block_rows, block_k, n_tiles_of): the zero blocks cost mma work
  // (tile_efficiency sees them).
  const Direction dir = ap.problem->direction;
  const int64_t m_tiles = ceil_div(igemm::block_rows(t, dir, ap.m_rows), t.tile_m);
  const int64_t n_tiles = igemm::n_tiles_of(t, ap.n_group);
  const int64_t g_blocks = ceil_div(ap.problem->g, gpb);
  const int64_t k_iters = ceil_div(ceil_div(igemm::block_k(t, dir, ap.k_len), t.tile_k), t.split_k);
  const int a_tiles = t.packed ? 1 : gpb;
  b->blocks = m_tiles * n_tiles * g_blocks * t.split_k * phases;

  const bool own_dtype = ap.problem->dtype == ak.dtype;
  const double flops_per_block = (own_dtype ? ak.flops_per_kstep : 2.0 * t.tile_m * t.tile_n * t.tile_k) * double(k_iters);
  b->tile_efficiency = std::min(1.0, ap.flops / (flops_per_block * double(b->blocks)));

  const bool wg = t.family == Family::wgmma;
  const int warps = t.warps_m * t.warps_n;
  b->blocks_per_sm = ak.blocks_per_sm;

  // Per-SM flop rate (flop/ms): tensor pipes vs shared-memory traffic.
  const double mma_sm = wg ? ap.mma_sm * kWgmmaOverMmaSync : ap.mma_sm;
  const double smem_sm = own_dtype ? ak.smem_sm : smem_flop_rate(t, ak, eb, d);
  const double stage_factor = t.stages <= 2 ? kTwoStagePenalty : 1.0;
  auto rate = [&](int resident) {
    const double busy = wg ? (resident * t.warps_m > 1 ? 1.0 : kWgmmaLoneConsumerRate)
                           : std::min(1.0, resident * warps / kTensorWarpsToSaturate);
    return std::min(mma_sm, smem_sm) * busy * stage_factor;
  };
  const double compute = waves_ms(b->blocks, b->blocks_per_sm, flops_per_block, d, rate, &b->waves);
  b->wave_efficiency = double(b->blocks) / double(b->waves * d.sm_count * b->blocks_per_sm);

  const int64_t out = ap.out_elements;
  double ws_bytes = 0, out_l2 = double(out) * eb;
  int launches = 1;
  // The one-launch fixup (kernels/fixup.hpp) zeroes, sums and converts
  // inside the kernel; without it (parallel: also past parallel_fixup's
  // limit) a reduce kernel (and, serial, a memset) runs beside it.
  if (t.split_mode == SplitKMode::parallel) {
    ws_bytes = double(t.split_k) * out * 4;
    out_l2 += 2 * ws_bytes;  // slices written, then read by the last split (or the reduce)
    if (!parallel_fixup(t.split_k, t.tile_m, t.tile_n)) launches += 1;
  } else if (t.split_mode == SplitKMode::serial) {
    ws_bytes = double(out) * 4;
    out_l2 += (t.split_k + 2) * ws_bytes;  // zeroing, split_k atomic adds, the convert's read
    if (!splitk_fixup_enabled()) launches += 2;
  }
  // SplitKMode::cluster: the partial tiles meet in distributed shared memory,
  // neither L2 nor a second launch.
  const double dram = double(ap.ops.x + ap.ops.w + ap.ops.y) * eb + 2 * ws_bytes;
  const double l2 = double(b->blocks) * k_iters * (a_tiles * t.tile_m + t.tile_n) * t.tile_k * eb + out_l2;
  const double memory = std::max(dram / (d.hbm_gbps * 1e6), l2 / (d.l2_gbps * 1e6));
  finish(compute, memory, own_dtype ? ak.vec_penalty : vec_penalty(ap, t.vec), launches, d, b);
  return b->total_ms;
}

// `plan` is t's plan on the problem, null when t cannot implement it.
double direct_ms(const KernelTraits& t, const AnalyticKernel& ak, const AnalyticProblem& ap, const DirectPlan* plan_or,
                 const DeviceInfo& d, AnalyticBreakdown* b) {
  const Problem& p = *ap.problem;
  const int eb = ap.eb;
  const Operands& ops = ap.ops;
  if (!plan_or) {  // not implementable: rank last
    b->total_ms = 1e30;
    return b->total_ms;
  }
  const DirectPlan& plan = *plan_or;
  const direct::DirectParams& q = plan.params;
  b->blocks = std::max<int64_t>(1, plan.total_blocks());
  b->tile_efficiency = -1;  // not modeled: a direct tile wastes only its edge
  b->blocks_per_sm = blocks_per_sm(ak.regs, d, plan.threads, int64_t(plan.smem));
  const int warps = std::max(1, plan.threads / kWarp);
  double core_sm = ap.core_sm;
  if (t.win_fx == 0 && !q.depthwise)
    core_sm *= plan.grouped > 0 ? kDirectGroupedComputeRate : kDirectGeneralComputeRate;
  auto rate = [&](int resident) { return core_sm * std::min(1.0, resident * warps / kCudaCoreWarpsToSaturate); };
  const double compute = waves_ms(b->blocks, b->blocks_per_sm, ap.flops / double(b->blocks), d, rate, &b->waves);
  b->wave_efficiency = double(b->blocks) / double(b->waves * d.sm_count * b->blocks_per_sm);

  double l2 = 0;
  if (t.win_fx > 0) {
    l2 = window_l2_bytes(t, p, plan, double(ap.out_elements));
  } else if (p.direction == Direction::bwd_weight) {
    l2 = double(ops.x + ops.y) * eb * std::max(1, q.passes) + double(ops.w) * 4;
  } else {
    const int64_t slabs = std::max(1, q.slabs);
    const int64_t dst = p.direction == Direction::fwd ? p.k : p.c;
    const int64_t src_per_dst = p.direction == Direction::fwd ? ap.cg : ap.kg;
    const double weights_per_block = double(ap.filter_volume) * ceil_div(dst, slabs) * src_per_dst * eb;
    l2 = double(b->blocks) * (double(q.tile_rows) * q.tile_cols * q.src_cstride * eb + weights_per_block) +
         double(ap.out_elements) * eb;
  }
  const double dram = double(ops.x + ops.w + ops.y) * eb + 2.0 * plan.workspace;
  const double memory = std::max(dram / (d.hbm_gbps * 1e6), l2 / (d.l2_gbps * 1e6));
  // memset + kernel + finish for atomic accumulation without the one-launch
  // fixup (kernels/fixup.hpp), the finish alone for per-split partials.
  const int launches = plan.launches();
  finish(compute, memory, p.dtype == ak.dtype ? ak.vec_penalty : vec_penalty(ap, t.vec), launches, d, b);
  return b->total_ms;
}

}  // namespace

std::string AnalyticBrief::summary() const {
  std::string s = fmt::format("{} wave{}, ", waves, waves == 1 ? "" : "s");
  if (tile_efficiency >= 0) s += fmt::format("{:.0f}% tile efficiency, ", 100.0 * tile_efficiency);
  return s + (memory_bound ? "memory-bound" : "compute-bound");
}

AnalyticProblem analytic_problem(const Problem& p, const DeviceInfo& d) {
  AnalyticProblem ap;
  ap.problem = &p;
  ap.direct = direct_problem(p);
  ap.eb = dtype_bytes(p.dtype);
  ap.ops = operand_elements(p);
  ap.out_elements = output_elements(p, ap.ops);
  ap.filter_volume = p.filter_volume();
  ap.cg = p.c_per_group(), ap.kg = p.k_per_group();
  ap.flops = p.flops();
  const int64_t F = ap.filter_volume, cg = ap.cg, kg = ap.kg;
  switch (p.direction) {
    case Direction::fwd:
      ap.m_rows = p.n * p.out_volume(), ap.n_group = kg, ap.k_len = cg * F;
      break;
    case Direction::bwd_data: {
      // Phase 0 is the largest: ceil(in / s) rows and ceil(filter / s) taps per dim.
      int64_t rows = p.n, taps = 1;
      for (int i = p.first_slot(); i < 3; ++i) {
        rows *= ceil_div(p.in[i], p.stride[i]);
        taps *= ceil_div(p.filter[i], p.stride[i]);
        ap.phases *= p.stride[i];
      }
      ap.m_rows = rows, ap.n_group = cg, ap.k_len = kg * taps;
      break;
    }
    case Direction::bwd_weight:
      ap.m_rows = kg, ap.n_group = F * cg, ap.k_len = p.n * p.out_volume();
      break;
  }
  ap.mma_sm = d.mma_tflops_for(p.dtype) * 1e9 / d.sm_count;
  ap.core_sm = d.cuda_core_tflops_for(p.dtype) * 1e9 / d.sm_count;
  return ap;
}

// tinyc (bwd_data, dx of at most 8 channels): mma.m16n8k16 over 16-pixel
// tasks, 8 columns of which C are useful; A from the shared-memory halo
// (one ldmatrix.x4 per mma, half a B ldmatrix), the halo read once per block.
double tinyc_ms(const KernelTraits& t, const AnalyticProblem& ap, const DeviceInfo& d, AnalyticBreakdown* b) {
  const Problem& p = *ap.problem;
  const tinyc::Plan plan = tinyc::make_plan(t, p);
  const int eb = ap.eb;
  const int64_t smem_bps = std::max<int64_t>(1, d.smem_per_sm_bytes / int64_t(plan.smem + 1024));
  const int bps = int(std::max<int64_t>(1, std::min<int64_t>(smem_bps, d.max_threads_per_sm / std::max(1, plan.threads))));
  const double taps = double(p.filter[1]) * p.filter[2] / (double(p.stride[1]) * p.stride[2]);
  // 3D: a dx slice walks about filter[0] / stride[0] depth taps, each a
  // restage of its halo and weights (1 in 2D).
  const double depth_taps = std::max(1.0, double(p.filter[0]) / double(p.stride[0]));
  const double mmas =
      double(t.block_h) * t.block_w / 16 * std::max(1.0, taps) * depth_taps * double(ceil_div(p.k, 16));
  // flop/ms of one SM at b resident blocks: mma.sync at half the warpgroup
  // rate, or the shared-memory reads of its operands (640 bytes per mma).
  const double mma_rate = ap.mma_sm * 0.5;
  const double smem_rate = d.smem_bytes_per_clk * d.clock_mhz * 1e3 / 640.0 * 4096.0 * 2.0;
  auto rate = [&](int) { return std::min(mma_rate, smem_rate); };
  b->blocks = plan.blocks;
  b->blocks_per_sm = bps;
  const double compute = waves_ms(plan.blocks, bps, mmas * 4096.0 * 2.0, d, rate, &b->waves);
  b->wave_efficiency = double(b->blocks) / double(b->waves * d.sm_count * bps);
  b->tile_efficiency = double(p.c) / 8.0;
  const double halo = double(plan.params.halo_h) * plan.params.halo_w /
                      (double(t.block_h) / p.stride[1] * (double(t.block_w) / p.stride[2]));
  const double dram = double(ap.ops.y) * eb + double(ap.ops.x) * eb + double(ap.ops.w) * eb;
  const double l2 = double(ap.ops.y) * eb * halo * p.filter[0] +
                    double(plan.blocks) * depth_taps * p.filter[1] * p.filter[2] * p.k * p.c * eb;
  const double memory = std::max(dram / (d.hbm_gbps * 1e6), l2 / (d.l2_gbps * 1e6));
  finish(compute, memory, 1.0, 1, d, b);
  return b->total_ms;
}

// pw (pointwise fwd / bwd_data as a streaming GEMM, kernels/pw): a
// persistent grid of blocks_per_sm blocks per SM; compute is mma.m16n8k16
// over the padded tile (tile_n columns of N tiles, the reduction in 16s) at
// kPwMmaShare of the tensor peak or the shared-memory reads (an A x4
// ldmatrix per m16 tile and k-step, a B x4 per mma pair); memory is every
// operand once from DRAM plus each block's B tile from L2.
double pw_ms(const KernelTraits& t, const AnalyticProblem& ap, const DeviceInfo& d, AnalyticBreakdown* b) {
  const Problem& p = *ap.problem;
  const pw::Plan plan = pw::make_plan(t, p);
  const pw::Gemm g = pw::gemm_of(p);
  const int eb = ap.eb;
  const double kp = double(g.kp);
  const double cols = double(std::min<int64_t>(t.tile_n, (g.nn + 15) / 16 * 16));
  const double rows = double(plan.params.m_tiles) * t.tile_m;
  const double flops = 2.0 * rows * cols * kp * double(plan.n_tiles);
  const double mmas = flops / (4096.0 * 2.0);
  const double smem_bytes = mmas * 256.0 + rows / 16.0 * (kp / 16.0) * 512.0 * double(plan.n_tiles);
  const double mma_rate = ap.mma_sm * kPwMmaShare;  // flop/ms of one SM
  const double smem_rate = d.smem_bytes_per_clk * d.clock_mhz * 1e3;  // bytes/ms of one SM
  const double per_sm = std::max(flops / mma_rate, smem_bytes / smem_rate) / d.sm_count;
  const int64_t blocks = plan.blocks_m * plan.n_tiles;
  b->blocks = blocks;
  b->blocks_per_sm = pw::blocks_per_sm(t);
  b->waves = 1;
  b->wave_efficiency = std::min(1.0, double(blocks) / (double(d.sm_count) * b->blocks_per_sm));
  b->tile_efficiency = double(g.nn) / (cols * double(plan.n_tiles)) * (double(g.kd) / kp);
  const double compute = per_sm / std::max(0.25, b->wave_efficiency) + d.wave_latency_us * 1e-3;
  const double dram = double(ap.ops.x + ap.ops.y + ap.ops.w) * eb;
  const double l2 = dram + double(blocks) * double(t.tile_n) * kp * eb;
  const double memory = std::max(dram / (d.hbm_gbps * 1e6), l2 / (d.l2_gbps * 1e6));
  finish(compute, memory, 1.0, 1, d, b);
  return b->total_ms;
}

// tinyc bwd_weight (grouped, C/G = K/G of 4, 8 or 16): per step of a slab,
// 16-pixel tasks x 4 row blocks x taps x 2 mma.m16n8k16 (a 16 x 16 block of
// which C/G of every 16 columns are one group's), one x4 ldmatrix of B per
// mma pair; the step's dy tile and x halo come from L2 once; the slabs'
// blocks add their sums with atomics (the accumulator's size per block).
double tinyc_wgrad_ms(const KernelTraits& t, const AnalyticProblem& ap, const DeviceInfo& d, AnalyticBreakdown* b) {
  const Problem& p = *ap.problem;
  const tinyc::WgradPlan plan = tinyc::make_wgrad_plan(t, p);
  const tinyc::TinycWgradParams& q = plan.params;
  const int eb = ap.eb;
  const int64_t smem_bps = std::max<int64_t>(1, d.smem_per_sm_bytes / int64_t(plan.smem + 1024));
  const int bps = int(std::max<int64_t>(1, std::min<int64_t>(smem_bps, d.max_threads_per_sm / std::max(1, plan.threads))));
  const int64_t blocks = plan.blocks * plan.slabs;
  const double steps_per_block = double(q.steps) / double(plan.blocks);
  const double mmas = steps_per_block * (double(t.block_h) * t.block_w / 16) * 4 * q.taps * (tinyc::wgrad_stem(p) ? 1 : 2);
  const double mma_rate = ap.mma_sm * 0.5;
  const double smem_rate = d.smem_bytes_per_clk * d.clock_mhz * 1e3 / 320.0 * 4096.0;  // 512 B of B per mma pair
  auto rate = [&](int) { return std::min(mma_rate, smem_rate); };
  b->blocks = blocks;
  b->blocks_per_sm = bps;
  const double compute = waves_ms(blocks, bps, mmas * 4096.0, d, rate, &b->waves);
  b->wave_efficiency = double(b->blocks) / double(b->waves * d.sm_count * bps);
  b->tile_efficiency = double(q.cg) / 16.0;
  // A step: the dy tile's 64 channels and the x rectangle's (the stems': C).
  const double stage_bytes = (double(t.block_h) * t.block_w * tinyc::kWSlab +
                              double(q.xh) * q.xw * (tinyc::wgrad_stem(p) ? p.c : tinyc::kWSlab)) * eb;
  const double l2 = double(q.steps) * plan.slabs * stage_bytes +
                    double(blocks) * tinyc::kWSlab * q.taps * q.cg * 4.0 * 2.0;
  const double dram = double(ap.ops.y) * eb + double(ap.ops.x) * eb + double(ap.ops.w) * eb;
  const double memory = std::max(dram / (d.hbm_gbps * 1e6), l2 / (d.l2_gbps * 1e6));
  finish(compute, memory, 1.0, 1, d, b);
  return b->total_ms;
}

AnalyticKernel analytic_kernel(const KernelTraits& t, const DeviceInfo& d) {
  AnalyticKernel ak;
  ak.regs = allocated_regs(t, d);
  if (t.family == Family::igemm) {
    const int warps = t.warps_m * t.warps_n;
    ak.blocks_per_sm = blocks_per_sm(ak.regs, d, kWarp * warps, int64_t(igemm::smem_bytes(t)));
    // Per k-step: A and B tiles into shared memory, each warp's fragments out of it.
    ak.smem_elems_per_kstep =
        double(((t.packed ? 1 : t.groups_per_block) * t.tile_m + t.tile_n) +
               warps * (t.tile_m / t.warps_m + t.tile_n / t.warps_n)) *
        t.tile_k;
  } else if (t.family == Family::wgmma) {
    const int threads = kWarpgroup * (t.warps_m + 1);
    // The block's registers, as whole 8-register units per thread on average.
    const int64_t block_regs = d.rules ? block_register_estimate(*d.rules, t) : int64_t{ak.regs} * threads;
    const int per_thread = int(ceil_div(std::max<int64_t>(block_regs, 1), int64_t{8} * threads) * 8);
    ak.blocks_per_sm = blocks_per_sm(per_thread, d, threads, int64_t(wgmma::smem_bytes(t)));
    // Per k-step: A and B tiles into shared memory; each consumer's wgmma
    // reads its rows of A and all of B.
    ak.smem_elems_per_kstep = double(2 * t.tile_m + (t.warps_m + 1) * t.tile_n) * t.tile_k;
  }
  ak.dtype = t.dtype;
  ak.vec_penalty = vec_penalty(t.vec, t.dtype);
  if (is_implicit_gemm(t.family)) {
    ak.flops_per_kstep = 2.0 * t.tile_m * t.tile_n * t.tile_k;
    ak.smem_sm = smem_flop_rate(t, ak, dtype_bytes(t.dtype), d);
  }
  return ak;
}

double analytic_ms(const KernelTraits& t, const AnalyticKernel& ak, const AnalyticProblem& ap, const DeviceInfo& d,
                   AnalyticBreakdown* detail, const DirectPlan* plan) {
  AnalyticBreakdown local;
  AnalyticBreakdown* b = detail ? detail : &local;
  *b = AnalyticBreakdown{};
  if (is_implicit_gemm(t.family)) return gemm_ms(t, ak, ap, d, b);
  if (t.family == Family::tinyc)
    return t.direction == Direction::bwd_weight ? tinyc_wgrad_ms(t, ap, d, b) : tinyc_ms(t, ap, d, b);
  if (t.family == Family::pw) return pw_ms(t, ap, d, b);
  DirectPlan own;
  if (!plan && plan_direct(t, ap.direct, &own)) plan = &own;
  return direct_ms(t, ak, ap, plan, d, b);
}

double analytic_ms(const KernelTraits& t, const AnalyticProblem& ap, const DeviceInfo& d, AnalyticBreakdown* detail,
                   const DirectPlan* plan) {
  return analytic_ms(t, analytic_kernel(t, d), ap, d, detail, plan);
}

double analytic_ms(const KernelTraits& t, const Problem& p, const DeviceInfo& d, AnalyticBreakdown* detail) {
  return analytic_ms(t, analytic_problem(p, d), d, detail);
}

double naive_ms(const Problem& p, const DeviceInfo& d) {
  const double rate = d.cuda_core_tflops_for(p.dtype) * 1e9 * d.naive_efficiency;  // flop/ms
  return p.flops() / rate + d.launch_us * 1e-3;
}

}  // namespace gconv
