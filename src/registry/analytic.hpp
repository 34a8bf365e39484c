// The analytic cost model: a transparent estimate of one kernel's time on one
// problem, from the kernel's traits, the problem's shape and DeviceInfo. It
// ranks candidates (policies analytic, heuristic until a learned model exists,
// and the pre-selection of topk); the formula is written out at the top of
// analytic.cpp. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "gconv/problem.hpp"
#include "kernels/traits.hpp"
#include "registry/device_info.hpp"

namespace gconv {

// The terms of one estimate, for reasons and tests.
struct AnalyticBreakdown {
  double compute_ms = 0, memory_ms = 0, overhead_ms = 0, total_ms = 0;
  int64_t blocks = 0;
  int blocks_per_sm = 0;
  int64_t waves = 0;
  double tile_efficiency = 1;  // useful MACs / MACs of the padded tiles (-1: not modeled)
  double wave_efficiency = 1;  // blocks / (waves x SMs x blocks per SM)
  bool memory_bound = false;
  // "3 waves, 85% tile efficiency, memory-bound"
  std::string summary() const;
};

// Estimated milliseconds of kernel `t` on problem `p` (which `t` must be able
// to implement; otherwise the estimate is meaningless but finite).
double analytic_ms(const KernelTraits& t, const Problem& p, const DeviceInfo& d,
                   AnalyticBreakdown* detail = nullptr);

// Estimate of the naive fallback kernel (CUDA cores, no reuse).
double naive_ms(const Problem& p, const DeviceInfo& d);

}  // namespace gconv
