// The analytic cost model: a transparent estimate of one kernel's time on one
// problem, from the kernel's traits, the problem's shape and DeviceInfo. It
// ranks candidates (policies analytic, heuristic until a learned model exists,
// and the pre-selection of topk); the formula is written out at the top of
// analytic.cpp. Pure functions, thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "gconv/problem.hpp"
#include "kernels/direct/direct_plan.hpp"
#include "kernels/traits.hpp"
#include "perf/device_info.hpp"

namespace gconv {

// What AnalyticBreakdown::summary() says: small enough for the registry to
// keep one per candidate (selection latency copies candidates around).
struct AnalyticBrief {
  int64_t waves = 0;
  double tile_efficiency = 1;
  bool memory_bound = false;
  // "3 waves, 85% tile efficiency, memory-bound"
  std::string summary() const;
};

// The terms of one estimate, for reasons and tests.
struct AnalyticBreakdown {
  double compute_ms = 0, memory_ms = 0, overhead_ms = 0, total_ms = 0;
  int64_t blocks = 0;
  int blocks_per_sm = 0;
  int64_t waves = 0;
  double tile_efficiency = 1;  // useful MACs / MACs of the padded tiles (-1: not modeled)
  double wave_efficiency = 1;  // blocks / (waves x SMs x blocks per SM)
  bool memory_bound = false;
  AnalyticBrief brief() const { return {waves, tile_efficiency, memory_bound}; }
  std::string summary() const { return brief().summary(); }
  // The key kernels are ranked by (lower = better): the estimate plus a
  // small share of the term the max() hides. Memory-bound estimates of one
  // problem tie exactly across kernels that move the same bytes (a 1x1 layer
  // whose operands are read once: every tile), and ties fell to pool order,
  // igemm before wgmma, so the wgmma TMA kernels that measure fastest there
  // never reached the model (bwd_data 1x1 C=256 K=64: rank 95 of 287).
  // Kernels overlap compute and memory only in part, so the one faster at
  // the hidden term is the better guess; the share is too small to reorder
  // estimates that differ by more than it.
  double order_key() const { return total_ms + kHiddenTermShare * std::min(compute_ms, memory_ms); }
  static constexpr double kHiddenTermShare = 0.01;
};

// Estimated milliseconds of kernel `t` on problem `p` (which `t` must be able
// to implement; otherwise the estimate is meaningless but finite).
double analytic_ms(const KernelTraits& t, const Problem& p, const DeviceInfo& d,
                   AnalyticBreakdown* detail = nullptr);

// The problem's terms of every estimate on device d, for callers that
// estimate many kernels on one problem (ranking, features): computed once,
// they leave analytic_ms(t, ap, d) only the kernel's terms. Estimates through
// it are bit-identical to analytic_ms(t, p, d). Points at p, which must
// outlive it.
struct AnalyticProblem {
  struct Operands {
    int64_t x = 0, w = 0, y = 0;  // elements
  };
  const Problem* problem = nullptr;
  DirectProblem direct;  // plan_direct's problem terms
  int eb = 0;            // dtype bytes
  Operands ops;
  int64_t out_elements = 0;  // y, dx or dw
  int64_t filter_volume = 0, cg = 0, kg = 0;
  int64_t m_rows = 0, n_group = 0, k_len = 0, phases = 1;  // the GEMM igemm tiles (bwd_data: phase 0)
  double flops = 0;
  double mma_sm = 0, core_sm = 0;  // flop/ms per SM, tensor and CUDA cores
};
AnalyticProblem analytic_problem(const Problem& p, const DeviceInfo& d);

// The kernel's own terms of every estimate on device d: computed once per
// pool kernel (the registry keeps them beside its pool), they leave an
// estimate only the terms that need both kernel and problem. Estimates
// through them are bit-identical.
struct AnalyticKernel {
  int regs = 128;          // registers per thread, in allocation units (no arch rules: 128)
  int blocks_per_sm = 1;   // igemm, wgmma: occupancy (its threads and shared memory are the traits')
  double smem_elems_per_kstep = 0;  // igemm, wgmma: elements one k-step moves into and out of shared memory
  // Terms of problems of the kernel's own dtype (every problem it
  // implements), the same expressions as the estimate's, so the same bits:
  DType dtype = DType::bf16;     // t.dtype
  double vec_penalty = 1;        // of t.vec on dtype
  double flops_per_kstep = 0;    // igemm, wgmma: 2 x tile_m x tile_n x tile_k
  double smem_sm = 0;            // igemm, wgmma: the shared-memory bound on the per-SM flop rate
};
AnalyticKernel analytic_kernel(const KernelTraits& t, const DeviceInfo& d);

// analytic_ms through the problem's terms. `plan`, for a direct kernel, is
// its plan_direct on the problem when the caller has it (null: planned here).
double analytic_ms(const KernelTraits& t, const AnalyticProblem& ap, const DeviceInfo& d,
                   AnalyticBreakdown* detail = nullptr, const DirectPlan* plan = nullptr);
// The same through the kernel's terms too (ak = analytic_kernel(t, d)).
double analytic_ms(const KernelTraits& t, const AnalyticKernel& ak, const AnalyticProblem& ap, const DeviceInfo& d,
                   AnalyticBreakdown* detail = nullptr, const DirectPlan* plan = nullptr);

// Estimate of the naive fallback kernel (CUDA cores, no reuse).
double naive_ms(const Problem& p, const DeviceInfo& d);

}  // namespace gconv
