// A timed sweep: kernels x problems, each applicable pair checked (optionally)
// and timed the one way of bench/timer.hpp, one CSV row per pair.
//
// This is the in-process core; crash isolation, resume and sharding build on
// it (benchmark-harness issue). Rows of kernels that fail to build, launch or
// check are written too, with their status: nothing is dropped.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/timer.hpp"
#include "gconv/problem_file.hpp"
#include "kernels/traits.hpp"

namespace gconv::bench {

enum class CheckMode { none, first, all };  // first: each kernel's first problem

struct SweepOptions {
  TimingOptions timing;
  CheckMode check = CheckMode::first;
  int jobs = 0;  // compile parallelism; 0 = all cores
};

struct SweepRow {
  std::string kernel, spec, source, status, check;
  double median_ms = 0, min_ms = 0, tflops = 0, gbps = 0;
};

// CSV header and row formatting (one function each, used by every writer).
std::string sweep_csv_header();
std::string sweep_csv_row(const SweepRow& r, const std::string& gpu);

// For every problem, every kernel of `kernels` with the problem's direction,
// dtype and ndim that can implement it. `on_row` receives each row as it is
// measured (the caller writes and flushes it). Returns the first fatal error
// (e.g. no device); per-pair failures are rows, not errors.
Status run_sweep(const std::vector<ProblemEntry>& problems, const std::vector<KernelTraits>& kernels,
                 const SweepOptions& options, const std::function<void(const SweepRow&)>& on_row);

// The CUDA device's name (for the gpu column), or "none".
std::string device_name();

}  // namespace gconv::bench
