// Measuring candidates on the user's GPU (policies exhaustive and topk): the
// candidates are compiled in parallel (through the JIT's disk cache), then
// each is timed the one way of perf/timer.hpp (warm-up, L2 flush, CUDA
// events, median) on random inputs allocated here. Synchronizes its own stream.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "kernels/traits.hpp"
#include "runtime/instance.hpp"

namespace gconv {

struct Measurement {
  size_t best = 0;        // index into the candidates
  double best_ms = 0;     // its median
  int measured = 0;       // candidates timed successfully
  int failed = 0;         // candidates that did not build or launch
  double seconds = 0;     // wall time, compiles included
};

using InstanceLoader = std::function<Result<std::shared_ptr<const Instance>>(const KernelTraits&)>;

// Times every candidate that needs at most `workspace_limit` bytes of
// workspace. out_of_memory when the inputs cannot be allocated; the first
// failure's status when no candidate could be timed; a cuda_error as soon as
// one poisons the context.
Result<Measurement> measure_candidates(const Problem& p, const std::vector<KernelTraits>& candidates,
                                       const InstanceLoader& load, size_t workspace_limit);

}  // namespace gconv
