// The selector's feature vector (layout and conventions in features.hpp and
// docs/features.md).
//
// The list below is the single source of the layout: the X-macro generates
// both the index enum that compute_features writes through and the table that
// names, documents and hashes the layout, so the two cannot drift apart.
// compute_features zeroes the vector first, so a feature that does not apply
// to a kernel's family stays 0.
//
// The GEMM, tile and traffic terms mirror src/perf/analytic.cpp (which
// also supplies the a_ features) and src/kernels/direct/direct_plan.cpp.
#include "heuristic/features.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <numeric>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/int_math.hpp"
#include "core/json_depth.hpp"
#include "kernels/direct/direct_plan.hpp"
#include "kernels/fixup.hpp"
#include "kernels/igemm/igemm_plan.hpp"
#include "kernels/pw/pw_plan.hpp"
#include "kernels/tinyc/tinyc_plan.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"
#include "perf/analytic.hpp"

namespace gconv::heuristic {
namespace {

// X(name, formula, why). lg(x) = log2(1 + x).
#define GCONV_FEATURES(X) \
  /* problem */ \
  X(p_dir_fwd, "direction == fwd", "the direction picks the GEMM mapping and the kernels' loaders") \
  X(p_dir_bwd_data, "direction == bwd_data", "data gradient: stride phases, flipped filter gather") \
  X(p_dir_bwd_weight, "direction == bwd_weight", "weight gradient: small output, long reduction (split-K)") \
  X(p_dtype_bf16, "dtype == bf16", "element type of the operands") \
  X(p_dtype_fp16, "dtype == fp16", "element type of the operands") \
  X(p_dtype_fp32, "dtype == fp32", "fp32 runs tf32 mma at about half the 16-bit rate, and moves twice the bytes") \
  X(p_dtype_bytes, "dtype_bytes(dtype)", "bytes per element: memory traffic and vector widths scale with it") \
  X(p_ndim, "ndim", "1D/2D/3D: the gather's coordinate arithmetic and the direct tiles differ") \
  X(p_log_n, "lg(N)", "batch: GEMM M of fwd/bwd_data, GEMM K of bwd_weight") \
  X(p_log_c, "lg(C)", "total input channels: x tensor size and the channel vector alignment") \
  X(p_log_k, "lg(K)", "total output channels: y tensor size") \
  X(p_log_g, "lg(G)", "groups: independent GEMMs, the grid's group dimension") \
  X(p_log_cg, "lg(C/G)", \
    "channels per group: GEMM K (fwd) or N (bwd_data, bwd_weight); small values waste mma tiles") \
  X(p_log_kg, "lg(K/G)", "output channels per group: GEMM N (fwd), K (bwd_data), M (bwd_weight)") \
  X(p_log_in_d, "lg(in[0])", "input depth (1 below 3D): direct 3D kernels walk it in the grid") \
  X(p_log_in_h, "lg(in[1])", "input height: direct tiles cover H x W") \
  X(p_log_in_w, "lg(in[2])", "input width: direct tiles and per_thread run along W") \
  X(p_log_out_d, "lg(out(0))", "output depth") \
  X(p_log_out_h, "lg(out(1))", "output height: rows of a direct fwd/bwd_weight tile") \
  X(p_log_out_w, "lg(out(2))", "output width: columns of a direct fwd/bwd_weight tile") \
  X(p_log_in_volume, "lg(in_volume)", "spatial input size per image") \
  X(p_log_out_volume, "lg(out_volume)", "spatial output size per image") \
  X(p_filter_d, "filter[0]", "filter depth (1 below 3D)") \
  X(p_filter_h, "filter[1]", "filter height: taps of the gather, halo of a direct tile") \
  X(p_filter_w, "filter[2]", "filter width: taps of the gather, halo of a direct tile") \
  X(p_log_filter_volume, "lg(filter_volume)", "taps per output: GEMM K factor (fwd, bwd_data) or N (bwd_weight)") \
  X(p_stride_d, "stride[0]", "stride along D") \
  X(p_stride_h, "stride[1]", "stride along H: input reuse, and bwd_data phases") \
  X(p_stride_w, "stride[2]", "stride along W: input reuse, coalescing, and bwd_data phases") \
  X(p_dilation_max, "max(dilation[i])", "dilated taps gather scattered rows and widen direct source tiles") \
  X(p_pad_max, "max(pad_lo[i], pad_hi[i])", "padding: predicated (zero) loads at the borders") \
  X(p_pad_asym, "any(pad_lo[i] != pad_hi[i])", "asymmetric padding (same-padding with even filters, strided)") \
  X(p_depthwise, "is_depthwise()", "C/G = K/G = 1: no GEMM reuse at all, the direct family's home") \
  X(p_grouped, "is_grouped()", "G > 1 and not depthwise") \
  X(p_pointwise, "is_pointwise()", "1x1, stride 1, no pad: the gather is a plain GEMM load") \
  X(p_log_gemm_m, "lg(gemm().m)", "implicit-GEMM M per the table of problem.hpp (unphased)") \
  X(p_log_gemm_n, "lg(gemm().n)", "implicit-GEMM N per group") \
  X(p_log_gemm_k, "lg(gemm().k)", "implicit-GEMM K (reduction length), unphased") \
  X(p_phases, "bwd_data: prod(stride[i]); else 1", "bwd_data runs one GEMM per stride phase") \
  X(p_log_phase_m, "lg(M of the largest phase): bwd_data N*prod(ceil(in[i]/stride[i])); else gemm().m", \
    "the M the kernel tiles (as the igemm grid and the analytic model count it)") \
  X(p_log_phase_k, "lg(K of the largest phase): bwd_data K/G*prod(ceil(filter[i]/stride[i])); else gemm().k", \
    "the reduction length one block walks before split-K") \
  X(p_log_flops, "lg(flops())", "useful work") \
  X(p_log_min_bytes, "lg((x + w + y elements) * dtype_bytes)", "compulsory DRAM traffic") \
  X(p_log_intensity, "lg(flops() / min_bytes)", "arithmetic intensity of the convolution") \
  X(p_log_out_elems, "lg(elements of the output: y, dx or dw)", "epilogue writes; size of a split-K fp32 slice") \
  /* kernel */ \
  X(k_family_igemm, "family == igemm", "implicit GEMM on mma.sync tensor cores") \
  X(k_family_direct, "family == direct", "direct convolution on CUDA cores (C/G, K/G <= 8)") \
  X(k_tile_m, "igemm: tile_m", "CTA tile rows: reuse of B vs M-edge waste") \
  X(k_tile_n, "igemm: tile_n", "CTA tile columns: reuse of A vs N-edge waste") \
  X(k_tile_k, "igemm: tile_k", "k-step: loads per barrier vs K-edge waste") \
  X(k_warps_m, "igemm: warps_m", "warp grid rows: the shape of the warp tile") \
  X(k_warps_n, "igemm: warps_n", "warp grid columns") \
  X(k_warp_tile_m, "igemm: tile_m / warps_m", "rows per warp: mma per ldmatrix (thin warp tiles are smem-bound)") \
  X(k_warp_tile_n, "igemm: tile_n / warps_n", "columns per warp") \
  X(k_stages, "igemm: stages", "cp.async pipeline depth: latency hiding vs shared memory") \
  X(k_split_k, "igemm: split_k", "K slices: parallelism for short-M long-K GEMMs, at the cost of a reduction") \
  X(k_split_parallel, "igemm: split_mode == parallel", "fp32 slices, summed by the last split (small tiles) or a reduce kernel") \
  X(k_split_serial, "igemm: split_mode == serial", "fp32 atomics into one zeroed slice (memset + convert)") \
  X(k_groups_per_block, "igemm: groups_per_block", "several small groups share one block's columns") \
  X(k_tile_n_per_group, "igemm: tile_n / groups_per_block", "columns one group gets") \
  X(k_block_h, "direct: block_h", "output tile rows") \
  X(k_block_w, "direct: block_w", "output tile columns") \
  X(k_per_thread, "direct: per_thread", "outputs per thread along W: register reuse of the taps") \
  X(k_deterministic, "direct: deterministic", "bwd_weight partials + fixed-order reduce instead of atomics") \
  X(k_vec, "vec", "channels per vector access") \
  X(k_vec_bytes, "vec * dtype_bytes", "bytes per access: 16 is a full vector load") \
  X(k_warps, "threads / 32", "warps per block") \
  X(k_threads, "threads()", "threads per block") \
  X(k_regs_per_thread, "register_estimate(arch rules, t)", "register pressure: occupancy, spills") \
  X(k_log_smem, "lg(dynamic shared memory per block): igemm smem_bytes(t); direct plan_direct(t, p).smem", \
    "shared memory per block: occupancy") \
  X(k_family_wgmma, "family == wgmma", "implicit GEMM on Hopper warpgroup MMA, warp-specialized producer") \
  X(k_tma, "tma", \
    "wgmma: the producer loads through the tensor memory accelerator instead of cp.async gathers; direct " \
    "window kernels: the TMA row stream") \
  X(k_split_cluster, "wgmma: split_mode == cluster", \
    "the splits of a tile add through distributed shared memory: one launch, no workspace") \
  X(k_window_w, "direct: win_fx (0: a tile kernel)", "register-window depthwise kernel for this filter width") \
  X(k_family_tinyc, "family == tinyc", \
    "tensor-core tiny-channel kernels: bwd_data over dx tiles with a dy halo (C <= 8), bwd_weight of C/G = K/G 4-16") \
  X(k_packed, "igemm: packed", \
    "the block's groups as one block-diagonal GEMM: one wide A gather, groups_per_block times the mma work") \
  X(k_realign, "igemm: realign", \
    "an odd channel count read in 16-byte vectors realigned in registers (vec 8 in name, not a cp.async copy)") \
  /* interaction */ \
  X(x_log_m_tiles, "igemm: lg(ceil(M_phase / tile_m))", "grid extent along M") \
  X(x_log_n_tiles, "igemm: lg(ceil(N / (tile_n / groups_per_block)))", "grid extent along N (per group)") \
  X(x_log_g_blocks, "igemm: lg(ceil(G / groups_per_block))", "grid extent along groups") \
  X(x_log_k_tiles, "igemm: lg(ceil(K_phase / tile_k))", "k-steps of the whole reduction") \
  X(x_log_k_iters, "igemm: lg(ceil(ceil(K_phase / tile_k) / split_k))", \
    "k-loop iterations per block: pipeline fill amortization") \
  X(x_waste_m, "igemm: 1 - M_phase / (m_tiles * tile_m)", "fraction of tile rows past the edge of M") \
  X(x_waste_n, "igemm: 1 - N / (n_tiles * tile_n / groups_per_block)", \
    "fraction of tile columns past the edge of N") \
  X(x_waste_k, "igemm: 1 - K_phase / (k_iters * split_k * tile_k)", "fraction of k-steps past the edge of K") \
  X(x_waste_g, "igemm: 1 - G / (g_blocks * groups_per_block)", "empty group slots of the last group block") \
  X(x_direct_waste_h, "direct: 1 - rows / (tiles_h * block_h) over the written tensor's H", \
    "idle tile rows at the edge") \
  X(x_direct_waste_w, "direct: 1 - cols / (tiles_w * block_w) over the written tensor's W", \
    "idle tile columns at the edge") \
  X(x_direct_waste_c, "direct: 1 - channels / (slabs * slab), slab = 8 * vec; bwd_weight channels = K * C/G", \
    "idle channel lanes of the last slab") \
  X(x_direct_log_slabs, "direct: lg(slabs)", "channel slabs of the grid") \
  X(x_direct_halo, "direct: tile_rows * tile_cols / (block_h * block_w)", \
    "staged source pixels per output pixel (halo, stride)") \
  X(x_direct_log_span, "direct: lg(src_cstride)", "source channels staged per slab (C/G, K/G spans)") \
  X(x_direct_log_passes, "direct bwd_weight: lg(passes)", \
    "filter passes of the weight gradient: re-reads of x and dy") \
  X(x_direct_log_splits, "direct bwd_weight: lg(splits)", "splits of the reduction over positions") \
  X(x_useful_fraction, \
    "igemm: min(1, flops / (blocks * 2 tile_m tile_n tile_k k_iters)); direct: (1 - waste_h)(1 - waste_w)(1 - " \
    "waste_c)", \
    "useful share of the work the tiles do") \
  X(x_log_blocks, "lg(blocks of the main kernel)", "grid size") \
  X(x_blocks_per_sm, "analytic blocks_per_sm (regs, smem, threads, block limits)", "occupancy in blocks") \
  X(x_occupancy_warps, "min(1, blocks_per_sm * threads / max_threads_per_sm)", \
    "resident warps / the SM's maximum: latency hiding") \
  X(x_smem_fraction, "min(1, blocks_per_sm * smem / smem_per_sm_bytes)", \
    "shared memory an SM's resident blocks use") \
  X(x_regs_fraction, "min(1, blocks_per_sm * threads * regs_per_thread / regs_per_sm)", \
    "register file an SM's resident blocks use") \
  X(x_log_waves, "lg(ceil(blocks / (sm_count * blocks_per_sm)))", "waves of blocks") \
  X(x_wave_efficiency, "analytic: blocks / (waves * sm_count * blocks_per_sm)", "wave quantization") \
  X(x_last_wave_fill, "(blocks - (waves - 1) * per_wave) / per_wave, per_wave = sm_count * blocks_per_sm", \
    "fraction of the last wave in use") \
  X(x_sm_fill, "min(1, blocks / sm_count)", "fraction of SMs with any block") \
  X(x_log_blocks_per_sm_avg, "lg(blocks / sm_count)", "blocks each SM runs in total") \
  X(x_split_gain, \
    "fill(blocks) / fill(blocks / split), fill(b) = min(1, b / (sm_count * blocks_per_sm)); split = split_k (igemm)" \
    " or splits (direct bwd_weight)", \
    "how much of the machine the split actually adds (1: none, the split only costs)") \
  X(x_vec_divides_cg, "(C/G) % vec == 0", "channel alignment of the vector loads along C") \
  X(x_vec_divides_kg, "(K/G) % vec == 0", "channel alignment of the vector loads along K") \
  X(x_vec_vs_widest, \
    "vec / widest, widest = largest power of 2 <= 16 / dtype_bytes dividing the channels the kernel vectorizes " \
    "(igemm fwd: C/G; igemm bwd: gcd(C/G, K/G); direct: gcd(C, K))", \
    "1 when the kernel uses the widest vector the problem allows") \
  X(x_log_bytes_per_kstep, "igemm: lg((groups_per_block * tile_m + tile_n) * tile_k * dtype_bytes)", \
    "bytes one k-step loads into shared memory") \
  X(x_log_bytes_per_block, "igemm: lg(k_iters * bytes_per_kstep); direct: lg(l2_bytes / blocks)", \
    "operand bytes one block loads") \
  X(x_log_flops_per_block, "igemm: lg(2 tile_m tile_n tile_k k_iters); direct: lg(flops / blocks)", \
    "work per block") \
  X(x_log_l2_bytes, \
    "lg(estimated L2->SM traffic: every tile load incl. re-reads + output/split-K writes), as analytic.cpp", \
    "global traffic with re-reads") \
  X(x_log_amplification, "lg(l2_bytes / min_bytes)", "re-read factor of the tiling") \
  X(x_log_kernel_intensity, "lg(flops / l2_bytes)", "flops per byte the kernel actually moves") \
  X(x_log_workspace, "lg(workspace bytes): igemm split-K slices; direct plan workspace", \
    "extra DRAM traffic and memset") \
  X(x_launches, "kernel launches: 1 + reduce/finish + memset", "fixed launch overheads") \
  X(x_operands_vs_l2, "lg(min_bytes / l2_bytes of the GPU)", \
    "whether the operands stay L2-resident across re-reads") \
  X(x_intensity_vs_balance, \
    "lg(intensity / balance), balance = 1000 * tflops / hbm_gbps with tflops = mma (igemm) or cuda_core (direct)", \
    "compute- vs memory-bound on this GPU and family") \
  /* the analytic cost model (src/perf/analytic.cpp) */ \
  X(a_log_total_us, "lg(analytic total_ms * 1000)", "the transparent model's estimate") \
  X(a_log_compute_us, "lg(analytic compute_ms * 1000)", "its compute term (waves, per-SM rate)") \
  X(a_log_memory_us, "lg(analytic memory_ms * 1000)", "its memory term (DRAM vs L2)") \
  X(a_log_overhead_us, "lg(analytic overhead_ms * 1000)", "its launch overheads") \
  X(a_compute_vs_memory, "lg(compute_us) - lg(memory_us)", "which term dominates, and by how much") \
  X(a_memory_bound, "analytic memory_bound", "the model's verdict") \
  X(a_tile_efficiency, "analytic tile_efficiency (igemm; 0 for direct, not modeled)", "the model's tile efficiency")

enum Feature : int {
#define GCONV_FEATURE_ENUM(name, formula, why) name,
  GCONV_FEATURES(GCONV_FEATURE_ENUM)
#undef GCONV_FEATURE_ENUM
      kNumFeatures
};

struct RawInfo {
  const char* name;
  const char* formula;
  const char* why;
};
constexpr RawInfo kTable[] = {
#define GCONV_FEATURE_ROW(name, formula, why) {#name, formula, why},
    GCONV_FEATURES(GCONV_FEATURE_ROW)
#undef GCONV_FEATURE_ROW
};
static_assert(std::size(kTable) == kNumFeatures);

constexpr int kWarp = 32;

// lg(x) = log2(1 + x) for x >= 0 (negative and NaN count as 0; inf gives
// 1024, still finite). About 60 per call, so libm's log2 would be a third of
// the cost: instead the exponent bits, a 128-entry table of log2(c) at the
// mantissa's top 7 bits, and a 4-term series of ln(m / c), |m / c - 1| <
// 1/128: |error| < 1e-11, far below float resolution; exact for powers of 2.
struct Log2Table {
  double log2_c[128], inv_c[128];  // c = 1 + i / 128
};
const Log2Table kLog2 = [] {
  Log2Table t{};
  for (int i = 0; i < 128; ++i) {
    t.log2_c[i] = std::log2(1.0 + i / 128.0);
    t.inv_c[i] = 1.0 / (1.0 + i / 128.0);
  }
  return t;
}();

[[gnu::always_inline]] inline float lg(double x) {
  const double y = 1.0 + (x > 0 ? x : 0.0);
  const uint64_t bits = std::bit_cast<uint64_t>(y);
  const int e = int(bits >> 52) - 1023;  // y >= 1: the sign bit is 0
  const int i = int(bits >> 45) & 127;
  const double m = std::bit_cast<double>((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);  // [1, 2)
  const double r = m * kLog2.inv_c[i] - 1.0;
  const double ln = r * (1.0 + r * (-0.5 + r * (1.0 / 3 + r * -0.25)));
  return float(e + (kLog2.log2_c[i] + ln * 1.4426950408889634));
}

// a / b for a quantity where b == 0 means "nothing": 0.
double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }
double clamp01(double x) { return std::clamp(x, 0.0, 1.0); }

// Largest power of two dividing x, at most cap.
int64_t pow2_divisor(int64_t x, int64_t cap) {
  if (x <= 0) return 1;
  int64_t v = x & -x;
  return std::min(v, cap);
}

}  // namespace

GpuProps gpu_props_of(const DeviceInfo& d) {
  GpuProps g;
  g.name = d.name;
  g.arch = d.arch;
  g.sm_count = d.sm_count;
  g.clock_mhz = d.clock_mhz;
  g.l2_bytes = d.l2_bytes;
  g.smem_per_sm_bytes = d.smem_per_sm_bytes;
  g.regs_per_sm = d.regs_per_sm;
  g.max_threads_per_sm = d.max_threads_per_sm;
  g.max_blocks_per_sm = d.max_blocks_per_sm;
  g.hbm_gbps = d.hbm_gbps;
  g.l2_gbps = d.l2_gbps;
  g.smem_bytes_per_clk = d.smem_bytes_per_clk;
  for (int i = 0; i < 3; ++i) {
    g.mma_tflops[i] = d.mma_tflops[i];
    g.cuda_core_tflops[i] = d.cuda_core_tflops[i];
  }
  g.launch_us = d.launch_us;
  g.wave_latency_us = d.wave_latency_us;
  return g;
}

DeviceInfo device_info_for(const GpuProps& g) {
  auto rules = load_default_arch_rules();
  return device_info_for(g, rules.ok() ? std::make_shared<const ArchRules>(*rules) : nullptr);
}

DeviceInfo device_info_for(const GpuProps& g, std::shared_ptr<const ArchRules> rules) {
  DeviceInfo d;
  d.name = g.name;
  d.arch = g.arch;
  if (auto r = rules_arch_of(g.arch); r.ok()) d.rules_arch = *r;
  d.sm_count = g.sm_count;
  d.clock_mhz = g.clock_mhz;
  d.l2_bytes = g.l2_bytes;
  d.smem_per_sm_bytes = g.smem_per_sm_bytes;
  d.regs_per_sm = g.regs_per_sm;
  d.max_threads_per_sm = g.max_threads_per_sm;
  d.max_blocks_per_sm = g.max_blocks_per_sm;
  d.hbm_gbps = g.hbm_gbps;
  d.l2_gbps = g.l2_gbps;
  d.smem_bytes_per_clk = g.smem_bytes_per_clk;
  for (int i = 0; i < 3; ++i) {
    d.mma_tflops[i] = g.mma_tflops[i];
    d.cuda_core_tflops[i] = g.cuda_core_tflops[i];
  }
  d.launch_us = g.launch_us;
  d.wave_latency_us = g.wave_latency_us;
  d.rules = std::move(rules);
  return d;
}

const std::vector<FeatureInfo>& feature_table() {
  static const std::vector<FeatureInfo> table = [] {
    std::vector<FeatureInfo> t;
    t.reserve(kNumFeatures);
    for (const RawInfo& r : kTable) t.push_back({r.name, r.formula, r.why});
    return t;
  }();
  return table;
}

int num_features() { return kNumFeatures; }

std::string feature_schema_id_of(const std::vector<FeatureInfo>& table) {
  // FNV-1a 64; the separators keep ("ab","c") and ("a","bc") apart.
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](const std::string& s, unsigned char sep) {
    for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
    h = (h ^ sep) * 0x100000001b3ull;
  };
  for (const FeatureInfo& f : table) {
    mix(f.name, 0x1f);
    mix(f.formula, 0x1e);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return std::string("v1-") + hex;
}

std::string feature_schema_id() {
  static const std::string id = feature_schema_id_of(feature_table());
  return id;
}

namespace {

// What the kernel features need from the problem: computed once per problem
// (a batch shares it across its rows), together with the p_ features, which
// every row copies.
struct ProblemTerms {
  const Problem* p = nullptr;
  AnalyticProblem ap;  // the analytic model's problem terms (and plan_direct's)
  int eb = 0;
  int64_t cg = 0, kg = 0, od[3] = {0, 0, 0}, filt_vol = 0;
  double x_el = 0, w_el = 0, y_el = 0, min_bytes = 0, out_el = 0, flops = 0, intensity = 0;
  int64_t m_rows = 0, k_len = 0, phases = 1, n_group = 0;
  // Channel counts whose alignment kernels' vectors need (x_vec_vs_widest).
  int64_t widest_igemm = 1, widest_direct = 1;
  float row[kNumFeatures];  // the p_ features, 0 elsewhere
};

void problem_terms(const Problem& p, const DeviceInfo& d, ProblemTerms& pt) {
  float* out = pt.row;
  std::fill(out, out + kNumFeatures, 0.0f);
  auto set = [out](Feature f, double v) { out[f] = float(v); };
  auto flag = [out](Feature f, bool b) { out[f] = b ? 1.0f : 0.0f; };
  pt.p = &p;
  pt.ap = analytic_problem(p, d);

  // ---- problem
  const int eb = dtype_bytes(p.dtype);
  const int64_t cg = p.c_per_group(), kg = p.k_per_group();
  // Problem::out is out of line and gemm()/flops() recompute it: once here.
  const int64_t od[3] = {p.out(0), p.out(1), p.out(2)};
  const int64_t in_vol = p.in_volume(), out_vol = od[0] * od[1] * od[2], filt_vol = p.filter_volume();
  // Tensor sizes computed here: Problem::min_bytes builds TensorDescs (allocates).
  const double x_el = double(p.n) * in_vol * p.c, w_el = double(p.k) * filt_vol * cg;
  const double y_el = double(p.n) * out_vol * p.k;
  const double min_bytes = (x_el + w_el + y_el) * eb;
  const double out_el = p.direction == Direction::fwd ? y_el : p.direction == Direction::bwd_data ? x_el : w_el;
  const double flops = 2.0 * double(p.n) * double(p.k) * double(out_vol) * double(cg) * double(filt_vol);

  flag(p_dir_fwd, p.direction == Direction::fwd);
  flag(p_dir_bwd_data, p.direction == Direction::bwd_data);
  flag(p_dir_bwd_weight, p.direction == Direction::bwd_weight);
  flag(p_dtype_bf16, p.dtype == DType::bf16);
  flag(p_dtype_fp16, p.dtype == DType::fp16);
  flag(p_dtype_fp32, p.dtype == DType::fp32);
  set(p_dtype_bytes, eb);
  set(p_ndim, p.ndim);
  set(p_log_n, lg(p.n));
  set(p_log_c, lg(p.c));
  set(p_log_k, lg(p.k));
  set(p_log_g, lg(p.g));
  set(p_log_cg, lg(cg));
  set(p_log_kg, lg(kg));
  set(p_log_in_d, lg(p.in[0]));
  set(p_log_in_h, lg(p.in[1]));
  set(p_log_in_w, lg(p.in[2]));
  set(p_log_out_d, lg(od[0]));
  set(p_log_out_h, lg(od[1]));
  set(p_log_out_w, lg(od[2]));
  set(p_log_in_volume, lg(in_vol));
  set(p_log_out_volume, lg(out_vol));
  set(p_filter_d, p.filter[0]);
  set(p_filter_h, p.filter[1]);
  set(p_filter_w, p.filter[2]);
  set(p_log_filter_volume, lg(filt_vol));
  set(p_stride_d, p.stride[0]);
  set(p_stride_h, p.stride[1]);
  set(p_stride_w, p.stride[2]);
  int64_t dil_max = 1, pad_max = 0;
  bool asym = false;
  for (int i = 0; i < 3; ++i) {
    dil_max = std::max(dil_max, p.dilation[i]);
    pad_max = std::max({pad_max, p.pad_lo[i], p.pad_hi[i]});
    asym = asym || p.pad_lo[i] != p.pad_hi[i];
  }
  set(p_dilation_max, dil_max);
  set(p_pad_max, pad_max);
  flag(p_pad_asym, asym);
  flag(p_depthwise, p.is_depthwise());
  flag(p_grouped, p.is_grouped());
  flag(p_pointwise, p.is_pointwise());

  // The table of problem.hpp (Problem::gemm, without its out_volume calls).
  GemmShape gemm;
  switch (p.direction) {
    case Direction::fwd: gemm = {p.n * out_vol, kg, cg * filt_vol, p.g}; break;
    case Direction::bwd_data: gemm = {p.n * in_vol, cg, kg * filt_vol, p.g}; break;
    case Direction::bwd_weight: gemm = {kg, cg * filt_vol, p.n * out_vol, p.g}; break;
  }
  // The GEMM the kernels tile: bwd_data's largest stride phase (phase 0).
  int64_t m_rows = gemm.m, k_len = gemm.k, phases = 1;
  if (p.direction == Direction::bwd_data) {
    int64_t rows = p.n, taps = 1;
    for (int i = p.first_slot(); i < 3; ++i) {
      rows *= ceil_div(p.in[i], p.stride[i]);
      taps *= ceil_div(p.filter[i], p.stride[i]);
      phases *= p.stride[i];
    }
    m_rows = rows, k_len = kg * taps;
  }
  const int64_t n_group = gemm.n;
  set(p_log_gemm_m, lg(gemm.m));
  set(p_log_gemm_n, lg(gemm.n));
  set(p_log_gemm_k, lg(gemm.k));
  set(p_phases, phases);
  set(p_log_phase_m, lg(m_rows));
  set(p_log_phase_k, lg(k_len));
  set(p_log_flops, lg(flops));
  set(p_log_min_bytes, lg(min_bytes));
  const double intensity = ratio(flops, min_bytes);
  set(p_log_intensity, lg(intensity));
  set(p_log_out_elems, lg(out_el));

  pt.eb = eb, pt.cg = cg, pt.kg = kg, pt.filt_vol = filt_vol;
  pt.widest_igemm = p.direction == Direction::fwd ? cg : std::gcd(cg, kg);
  pt.widest_direct = std::gcd(p.c, p.k);
  std::copy(od, od + 3, pt.od);
  pt.x_el = x_el, pt.w_el = w_el, pt.y_el = y_el, pt.min_bytes = min_bytes, pt.out_el = out_el, pt.flops = flops;
  pt.intensity = intensity;
  pt.m_rows = m_rows, pt.k_len = k_len, pt.phases = phases, pt.n_group = n_group;
}

void kernel_features(const ProblemTerms& pt, const KernelTraits& t, const KernelFeatureTerms& kt, const GpuProps& g,
                     const DeviceInfo& d, float* out) {
  std::copy(pt.row, pt.row + kNumFeatures, out);
  auto set = [out](Feature f, double v) { out[f] = float(v); };
  auto flag = [out](Feature f, bool b) { out[f] = b ? 1.0f : 0.0f; };
  const Problem& p = *pt.p;
  const int eb = pt.eb;
  const int64_t cg = pt.cg, kg = pt.kg, filt_vol = pt.filt_vol;
  const int64_t* od = pt.od;
  const double x_el = pt.x_el, w_el = pt.w_el, y_el = pt.y_el, min_bytes = pt.min_bytes, out_el = pt.out_el;
  const double flops = pt.flops, intensity = pt.intensity;
  const int64_t m_rows = pt.m_rows, k_len = pt.k_len, phases = pt.phases, n_group = pt.n_group;

  // ---- kernel
  // A wgmma kernel is described by the igemm trait columns (warps_m =
  // consumer warpgroups, warps_n = 1) plus its own flags (family, TMA
  // producer, cluster split-K).
  const bool is_igemm = t.family == Family::igemm;
  const bool is_gemm = is_implicit_gemm(t.family);
  const int threads = std::max(1, t.threads());
  const int warps = std::max(1, threads / kWarp);
  const int regs = kt.regs;
  flag(k_family_igemm, is_igemm);
  flag(k_family_direct, t.family == Family::direct);
  flag(k_family_wgmma, t.family == Family::wgmma);
  flag(k_family_tinyc, t.family == Family::tinyc);
  flag(k_packed, t.packed);  // canonical traits: igemm kernels and wgmma bwd_weight kernels (wgmma/packed.hpp)
  flag(k_realign, t.realign);
  flag(k_tma, t.tma);  // canonical traits: wgmma and register-window kernels only
  flag(k_split_cluster, is_gemm && t.split_mode == SplitKMode::cluster);
  set(k_window_w, t.family == Family::direct ? t.win_fx : 0);
  set(k_vec, t.vec);
  set(k_vec_bytes, t.vec * eb);
  set(k_warps, warps);
  set(k_threads, threads);
  set(k_regs_per_thread, regs);

  // ---- interaction: family-specific tiling
  double blocks = 1, split = 1, l2_bytes = 0, workspace = 0, flops_per_block = 0, smem = 0, useful = 0;
  int launches = 1;
  // A direct kernel's plan, when planned: the analytic terms reuse it. Not
  // constructed for igemm rows (it is large: zeroing it was measurable).
  std::optional<DirectPlan> plan;
  int64_t widest_of = 1;  // channel count whose alignment the kernel's vectors need
  if (is_gemm) {
    const int gpb = std::max(1, t.groups_per_block);
    const int64_t n_per_group = std::max(1, t.tile_n / gpb);
    const int64_t tm = std::max(1, t.tile_m), tk = std::max(1, t.tile_k);
    split = std::max(1, t.split_k);
    // Packed: K (fwd / bwd_data) or M (bwd_weight) runs over the block's
    // groups' channels (igemm_plan.hpp).
    const int64_t k_block = igemm::block_k(t, p.direction, k_len);
    const int64_t m_block = igemm::block_rows(t, p.direction, m_rows);
    const int64_t m_tiles = ceil_div(m_block, tm), n_tiles = ceil_div(n_group, n_per_group), g_blocks = ceil_div(p.g, gpb);
    const int64_t k_tiles = ceil_div(k_block, tk), k_iters = ceil_div(k_tiles, int64_t(split));
    blocks = double(m_tiles) * n_tiles * g_blocks * split * phases;
    smem = kt.smem;
    set(k_tile_m, t.tile_m);
    set(k_tile_n, t.tile_n);
    set(k_tile_k, t.tile_k);
    set(k_warps_m, t.warps_m);
    set(k_warps_n, t.warps_n);
    set(k_warp_tile_m, ratio(t.tile_m, t.warps_m));
    set(k_warp_tile_n, ratio(t.tile_n, t.warps_n));
    set(k_stages, t.stages);
    set(k_split_k, split);
    flag(k_split_parallel, t.split_mode == SplitKMode::parallel);
    flag(k_split_serial, t.split_mode == SplitKMode::serial);
    set(k_groups_per_block, gpb);
    set(k_tile_n_per_group, n_per_group);

    set(x_log_m_tiles, lg(m_tiles));
    set(x_log_n_tiles, lg(n_tiles));
    set(x_log_g_blocks, lg(g_blocks));
    set(x_log_k_tiles, lg(k_tiles));
    set(x_log_k_iters, lg(k_iters));
    set(x_waste_m, 1.0 - ratio(m_block, m_tiles * tm));
    set(x_waste_n, 1.0 - ratio(n_group, n_tiles * n_per_group));
    set(x_waste_k, 1.0 - ratio(k_block, k_iters * split * tk));
    set(x_waste_g, 1.0 - ratio(p.g, g_blocks * gpb));

    const double bytes_per_kstep = double((t.packed ? 1 : gpb) * tm + t.tile_n) * tk * eb;
    flops_per_block = 2.0 * tm * t.tile_n * tk * double(k_iters);
    useful = std::min(1.0, ratio(flops, flops_per_block * blocks));
    double out_l2 = out_el * eb;
    if (t.split_mode == SplitKMode::parallel) {
      workspace = split * out_el * 4;
      out_l2 += 2 * workspace;
      if (!parallel_fixup(t.split_k, t.tile_m, t.tile_n)) launches += 1;  // reduce (see analytic.cpp)
    } else if (t.split_mode == SplitKMode::serial) {
      workspace = out_el * 4;
      out_l2 += (split + 2) * workspace;
      if (!splitk_fixup_enabled()) launches += 2;  // memset + reduce (see analytic.cpp)
    }  // cluster split-K: no workspace, one launch (partials meet in shared memory)
    l2_bytes = blocks * k_iters * bytes_per_kstep + out_l2;
    set(x_log_bytes_per_kstep, lg(bytes_per_kstep));
    set(x_log_bytes_per_block, lg(k_iters * bytes_per_kstep));
    widest_of = pt.widest_igemm;
  } else if (t.family == Family::tinyc) {
    // Tensor-core bwd_data over dx tiles with a dy halo (tinyc_plan.hpp).
    set(k_block_h, t.block_h);
    set(k_block_w, t.block_w);
    widest_of = pt.widest_igemm;
    if (t.direction == Direction::bwd_weight) {
      // bwd_weight (tinyc_wgrad.cuh): the steps' dy tiles and x halos of every
      // slab, then the blocks' atomics into the accumulator.
      if (tinyc::wgrad_can_implement(t, p, nullptr)) {
        const tinyc::WgradPlan wp = tinyc::make_wgrad_plan(t, p);
        const tinyc::TinycWgradParams& q = wp.params;
        blocks = double(std::max<long long>(1, wp.blocks * wp.slabs));
        smem = double(wp.smem);
        useful = ratio(double(q.cg), 16.0);
        flops_per_block = flops / blocks;
        const double halo = double(q.xh) * q.xw / (double(t.block_h) * t.block_w);
        l2_bytes = double(q.steps) * wp.slabs *
                       (double(t.block_h) * t.block_w * tinyc::kWSlab +
                        double(q.xh) * q.xw * (tinyc::wgrad_stem(p) ? p.c : tinyc::kWSlab)) * eb +
                   blocks * tinyc::kWSlab * q.taps * q.cg * 8.0;
        workspace = double(wp.workspace);
        set(x_direct_halo, halo);
        set(x_log_bytes_per_block, lg(l2_bytes / blocks));
      }
    } else if (tinyc::can_implement(t, p, nullptr)) {
      const tinyc::Plan tp = tinyc::make_plan(t, p);
      blocks = double(std::max<long long>(1, tp.blocks));
      smem = double(tp.smem);
      useful = ratio(double(p.c), 8.0);
      flops_per_block = flops / blocks;
      const double halo = double(tp.params.halo_h) * tp.params.halo_w /
                          (double(t.block_h) / p.stride[1] * (double(t.block_w) / p.stride[2]));
      // 3D: a dx slice restages the halo once per depth tap (about
      // filter[0] / stride[0] of them reach it).
      l2_bytes = y_el * eb * halo * p.filter[0] + blocks * double(filt_vol) / p.stride[0] * p.k * p.c * eb +
                 out_el * eb;
      set(x_direct_halo, halo);
      set(x_log_bytes_per_block, lg(l2_bytes / blocks));
    }
  } else if (t.family == Family::pw) {
    // Pointwise streaming GEMM (pw_plan.hpp): the igemm tile columns, no
    // family flag of its own (the schema predates it: a row with none of
    // the family flags set is a pw kernel), a persistent grid.
    set(k_tile_m, t.tile_m);
    set(k_tile_n, t.tile_n);
    set(k_tile_k, t.tile_k);
    set(k_warps_m, t.warps_m);
    set(k_warps_n, 1);
    set(k_warp_tile_m, ratio(t.tile_m, t.warps_m));
    set(k_warp_tile_n, t.tile_n);
    set(k_stages, t.stages);
    widest_of = pt.widest_igemm;
    if (pw::can_implement(t, p, nullptr)) {
      const pw::Plan wp = pw::make_plan(t, p);
      const pw::Gemm gm = pw::gemm_of(p);
      const double kp = double(gm.kp);
      blocks = double(std::max<long long>(1, wp.blocks_m * wp.n_tiles));
      smem = double(wp.smem);
      set(x_log_m_tiles, lg(wp.params.m_tiles));
      set(x_log_n_tiles, lg(wp.n_tiles));
      set(x_waste_m, 1.0 - ratio(double(gm.rows), double(wp.params.m_tiles) * t.tile_m));
      set(x_waste_n, 1.0 - ratio(gm.nn, double(wp.n_tiles) * t.tile_n));
      set(x_waste_k, 1.0 - ratio(gm.kd, kp));
      flops_per_block = 2.0 * double(wp.params.m_tiles) * t.tile_m * t.tile_n * kp * wp.n_tiles / blocks;
      useful = std::min(1.0, ratio(flops, flops_per_block * blocks));
      l2_bytes = (x_el + y_el + w_el) * eb + blocks * t.tile_n * kp * eb;
      set(x_log_bytes_per_block, lg(l2_bytes / blocks));
    }
  } else {
    set(k_block_h, t.block_h);
    set(k_block_w, t.block_w);
    set(k_per_thread, t.per_thread);
    flag(k_deterministic, t.deterministic);
    widest_of = pt.widest_direct;
    if (plan_direct(t, pt.ap.direct, &plan.emplace())) {
      const direct::DirectParams& q = plan->params;
      const int bh = p.ndim == 1 ? 1 : std::max(1, t.block_h), bw = std::max(1, t.block_w);
      const int pix = bh * std::max(1, bw / std::max(1, t.per_thread));
      const int64_t slab = int64_t(std::max(1, plan->threads / pix)) * t.vec;
      const bool wgrad = p.direction == Direction::bwd_weight;
      const int64_t channels = wgrad ? p.k * cg : p.direction == Direction::fwd ? p.k : p.c;
      // The spatial tensor the tiles cover: y for fwd and bwd_weight, dx for bwd_data.
      const int64_t rows = p.direction == Direction::bwd_data ? p.in[1] : od[1];
      const int64_t cols = p.direction == Direction::bwd_data ? p.in[2] : od[2];
      blocks = double(std::max<int64_t>(1, plan->total_blocks()));
      smem = double(plan->smem);
      workspace = double(plan->workspace);
      split = wgrad ? std::max(1, q.splits) : 1;
      if (t.win_fx > 0) {
        // Register window: a block is lanes x items_per_block threads, an
        // item R outputs of one row; its "halo" is the window over R.
        set(x_direct_waste_h, 0.0);
        set(x_direct_waste_w, 1.0 - ratio(cols, double(q.strips) * t.per_thread));
        set(x_direct_waste_c, 1.0 - ratio(double(p.c), double(q.slabs) * q.lanes * t.vec));
        set(x_direct_log_slabs, lg(q.slabs));
        set(x_direct_halo, ratio(double((t.per_thread - 1) * t.win_sx + t.win_fx), double(t.per_thread)));
        set(x_direct_log_span, lg(double(q.lanes) * t.vec));
        set(x_direct_log_passes, lg(wgrad ? double(p.filter[0]) : 0));  // window_wgrad: one pass per z tap
        // window_wgrad and the row stream: blocks sharing a slab's steps.
        set(x_direct_log_splits, lg(wgrad || q.wg_stream ? double(q.wg_blocks) : 0));
      } else {
        set(x_direct_waste_h, 1.0 - ratio(rows, double(q.tiles[1]) * bh));
        set(x_direct_waste_w, 1.0 - ratio(cols, double(q.tiles[2]) * bw));
        set(x_direct_waste_c, 1.0 - ratio(channels, double(q.slabs) * slab));
        set(x_direct_log_slabs, lg(q.slabs));
        set(x_direct_halo, ratio(double(q.tile_rows) * q.tile_cols, double(bh) * bw));
        set(x_direct_log_span, lg(q.src_cstride));
        set(x_direct_log_passes, lg(wgrad ? q.passes : 0));
        set(x_direct_log_splits, lg(wgrad ? q.splits : 0));
      }
      useful = (1.0 - out[x_direct_waste_h]) * (1.0 - out[x_direct_waste_w]) * (1.0 - out[x_direct_waste_c]);
      flops_per_block = flops / blocks;
      // L2 traffic as analytic.cpp's direct_ms counts it.
      if (t.win_fx > 0) {
        l2_bytes = window_l2_bytes(t, p, *plan, out_el);
      } else if (wgrad) {
        l2_bytes = (x_el + y_el) * eb * std::max(1, q.passes) + w_el * 4;
      } else {
        const int64_t slabs = std::max(1, q.slabs);
        const int64_t dst = p.direction == Direction::fwd ? p.k : p.c;
        const int64_t src_per_dst = p.direction == Direction::fwd ? cg : kg;
        const double weights_per_block = double(filt_vol) * ceil_div(dst, slabs) * src_per_dst * eb;
        l2_bytes = blocks * (double(q.tile_rows) * q.tile_cols * q.src_cstride * eb + weights_per_block) + out_el * eb;
      }
      launches += plan->launches() - 1;  // as analytic.cpp counts them
      set(x_log_bytes_per_block, lg(l2_bytes / blocks));
    } else {
      plan.reset();  // not implementable: the analytic estimate ranks it last
    }
  }
  set(k_log_smem, lg(smem));

  // ---- interaction: occupancy, waves, traffic (analytic model's view)
  AnalyticBreakdown ab;
  analytic_ms(t, kt.analytic, pt.ap, d, &ab, plan ? &*plan : nullptr);
  const int sm = std::max(1, g.sm_count);
  const int bps = std::max(1, ab.blocks_per_sm);
  const double per_wave = double(sm) * bps;
  const double waves = std::max(1.0, std::ceil(blocks / per_wave));
  set(x_useful_fraction, useful);
  set(x_log_blocks, lg(blocks));
  set(x_blocks_per_sm, bps);
  set(x_occupancy_warps, clamp01(ratio(double(bps) * threads, g.max_threads_per_sm)));
  set(x_smem_fraction, clamp01(ratio(double(bps) * smem, double(g.smem_per_sm_bytes))));
  set(x_regs_fraction, clamp01(ratio(double(bps) * threads * regs, g.regs_per_sm)));
  set(x_log_waves, lg(waves));
  set(x_wave_efficiency, clamp01(ab.wave_efficiency));
  set(x_last_wave_fill, clamp01((blocks - (waves - 1) * per_wave) / per_wave));
  set(x_sm_fill, clamp01(blocks / sm));
  set(x_log_blocks_per_sm_avg, lg(blocks / sm));
  auto fill = [per_wave](double b) { return std::min(1.0, b / per_wave); };
  set(x_split_gain, ratio(fill(blocks), fill(blocks / split)));

  const int vec = std::max(1, t.vec);
  flag(x_vec_divides_cg, cg % vec == 0);
  flag(x_vec_divides_kg, kg % vec == 0);
  set(x_vec_vs_widest, double(vec) / double(pow2_divisor(widest_of, 16 / eb)));
  set(x_log_flops_per_block, lg(flops_per_block));
  set(x_log_l2_bytes, lg(l2_bytes));
  set(x_log_amplification, lg(ratio(l2_bytes, min_bytes)));
  set(x_log_kernel_intensity, lg(ratio(flops, l2_bytes)));
  set(x_log_workspace, lg(workspace));
  set(x_launches, launches);
  set(x_operands_vs_l2, lg(ratio(min_bytes, double(g.l2_bytes))));
  const int di = static_cast<int>(p.dtype);
  const double tflops = is_gemm ? g.mma_tflops[di] : g.cuda_core_tflops[di];
  set(x_intensity_vs_balance, lg(ratio(intensity, ratio(1000.0 * tflops, g.hbm_gbps))));

  // ---- the analytic model
  const double compute_us = ab.compute_ms * 1e3, memory_us = ab.memory_ms * 1e3;
  set(a_log_total_us, lg(ab.total_ms * 1e3));
  set(a_log_compute_us, lg(compute_us));
  set(a_log_memory_us, lg(memory_us));
  set(a_log_overhead_us, lg(ab.overhead_ms * 1e3));
  set(a_compute_vs_memory, double(lg(compute_us)) - double(lg(memory_us)));
  flag(a_memory_bound, ab.memory_bound);
  set(a_tile_efficiency, std::max(0.0, ab.tile_efficiency));
}

}  // namespace

KernelFeatureTerms kernel_feature_terms(const KernelTraits& t, const DeviceInfo& d) {
  KernelFeatureTerms kt;
  kt.analytic = analytic_kernel(t, d);
  kt.regs = d.rules ? register_estimate(*d.rules, t) : 0;
  if (t.family == Family::igemm) kt.smem = double(igemm::smem_bytes(t));
  if (t.family == Family::wgmma) kt.smem = double(wgmma::smem_bytes(t));
  if (t.family == Family::pw) kt.smem = double(pw::smem_bytes(t));
  return kt;
}

void compute_features(const Problem& p, const KernelTraits& t, const GpuProps& g, const DeviceInfo& d, float* out) {
  ProblemTerms pt;
  problem_terms(p, d, pt);
  kernel_features(pt, t, kernel_feature_terms(t, d), g, d, out);
}

void compute_features(const Problem& p, const KernelTraits* const* kernels, size_t n, const GpuProps& g,
                      const DeviceInfo& d, float* out) {
  ProblemTerms pt;
  problem_terms(p, d, pt);
  const size_t nf = kNumFeatures;
  for (size_t i = 0; i < n; ++i) kernel_features(pt, *kernels[i], kernel_feature_terms(*kernels[i], d), g, d, out + i * nf);
}

void compute_features(const Problem& p, const KernelTraits* const* kernels, const KernelFeatureTerms* const* terms,
                      size_t n, const GpuProps& g, const DeviceInfo& d, float* out) {
  ProblemTerms pt;
  problem_terms(p, d, pt);
  const size_t nf = kNumFeatures;
  for (size_t i = 0; i < n; ++i) kernel_features(pt, *kernels[i], *terms[i], g, d, out + i * nf);
}

// ---- GpuProps JSON

namespace {

using nlohmann::json;

constexpr const char* kDTypeNames[3] = {"bf16", "fp16", "fp32"};

Status missing(const std::string& key) { return parse_error("GpuProps: missing key '" + key + "'"); }
Status mistyped(const std::string& key, const char* what) {
  return parse_error("GpuProps: key '" + key + "' must be " + what);
}

const json* find(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

Status read_double(const json& obj, const std::string& path, const char* key, double* v) {
  const json* j = find(obj, key);
  if (!j) return missing(path);
  if (!j->is_number()) return mistyped(path, "a number");
  *v = j->get<double>();
  return Status::Ok();
}

template <class Int>
Status read_int(const json& obj, const char* key, Int* v) {
  const json* j = find(obj, key);
  if (!j) return missing(key);
  if (!j->is_number_integer()) return mistyped(key, "an integer");
  const int64_t x = j->get<int64_t>();
  if (x < int64_t(std::numeric_limits<Int>::min()) || x > int64_t(std::numeric_limits<Int>::max()))
    return mistyped(key, "an integer in range");
  *v = Int(x);
  return Status::Ok();
}

Status read_string(const json& obj, const char* key, std::string* v) {
  const json* j = find(obj, key);
  if (!j) return missing(key);
  if (!j->is_string()) return mistyped(key, "a string");
  *v = j->get<std::string>();
  return Status::Ok();
}

Status read_rates(const json& obj, const char* key, double (&rates)[3]) {
  const json* j = find(obj, key);
  if (!j) return missing(key);
  if (!j->is_object()) return mistyped(key, "an object keyed by dtype");
  for (int i = 0; i < 3; ++i)
    GCONV_RETURN_IF_ERROR(read_double(*j, std::string(key) + "." + kDTypeNames[i], kDTypeNames[i], &rates[i]));
  return Status::Ok();
}

}  // namespace

std::string to_json(const GpuProps& g) {
  json j;
  j["name"] = g.name;
  j["arch"] = g.arch;
  j["sm_count"] = g.sm_count;
  j["clock_mhz"] = g.clock_mhz;
  j["l2_bytes"] = g.l2_bytes;
  j["smem_per_sm_bytes"] = g.smem_per_sm_bytes;
  j["regs_per_sm"] = g.regs_per_sm;
  j["max_threads_per_sm"] = g.max_threads_per_sm;
  j["max_blocks_per_sm"] = g.max_blocks_per_sm;
  j["hbm_gbps"] = g.hbm_gbps;
  j["l2_gbps"] = g.l2_gbps;
  j["smem_bytes_per_clk"] = g.smem_bytes_per_clk;
  for (int i = 0; i < 3; ++i) {
    j["mma_tflops"][kDTypeNames[i]] = g.mma_tflops[i];
    j["cuda_core_tflops"][kDTypeNames[i]] = g.cuda_core_tflops[i];
  }
  j["launch_us"] = g.launch_us;
  j["wave_latency_us"] = g.wave_latency_us;
  return j.dump(2);
}

Result<GpuProps> gpu_props_from_json(const std::string& text) {
  GCONV_RETURN_IF_ERROR(check_json_depth(text, "GpuProps"));
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return parse_error("GpuProps: malformed JSON");
  if (!j.is_object()) return parse_error("GpuProps: expected a JSON object");
  GpuProps g;
  GCONV_RETURN_IF_ERROR(read_string(j, "name", &g.name));
  GCONV_RETURN_IF_ERROR(read_string(j, "arch", &g.arch));
  GCONV_RETURN_IF_ERROR(read_int(j, "sm_count", &g.sm_count));
  GCONV_RETURN_IF_ERROR(read_double(j, "clock_mhz", "clock_mhz", &g.clock_mhz));
  GCONV_RETURN_IF_ERROR(read_int(j, "l2_bytes", &g.l2_bytes));
  GCONV_RETURN_IF_ERROR(read_int(j, "smem_per_sm_bytes", &g.smem_per_sm_bytes));
  GCONV_RETURN_IF_ERROR(read_int(j, "regs_per_sm", &g.regs_per_sm));
  GCONV_RETURN_IF_ERROR(read_int(j, "max_threads_per_sm", &g.max_threads_per_sm));
  GCONV_RETURN_IF_ERROR(read_int(j, "max_blocks_per_sm", &g.max_blocks_per_sm));
  GCONV_RETURN_IF_ERROR(read_double(j, "hbm_gbps", "hbm_gbps", &g.hbm_gbps));
  GCONV_RETURN_IF_ERROR(read_double(j, "l2_gbps", "l2_gbps", &g.l2_gbps));
  GCONV_RETURN_IF_ERROR(read_double(j, "smem_bytes_per_clk", "smem_bytes_per_clk", &g.smem_bytes_per_clk));
  GCONV_RETURN_IF_ERROR(read_rates(j, "mma_tflops", g.mma_tflops));
  GCONV_RETURN_IF_ERROR(read_rates(j, "cuda_core_tflops", g.cuda_core_tflops));
  GCONV_RETURN_IF_ERROR(read_double(j, "launch_us", "launch_us", &g.launch_us));
  GCONV_RETURN_IF_ERROR(read_double(j, "wave_latency_us", "wave_latency_us", &g.wave_latency_us));
  // The same ranges as a device config (one check for both).
  GCONV_RETURN_IF_ERROR(check_device_figures(device_info_for(g, nullptr), "GpuProps"));
  return g;
}

}  // namespace gconv::heuristic
