// A timed sweep: kernels x problems, each applicable pair checked (optionally)
// and timed the one way of perf/timer.hpp, one CSV row per pair.
//
// This is the in-worker core: SweepWorker measures one work item at a time
// (bench/plan.hpp builds the items, bench/supervisor.hpp runs workers in child
// processes so that a faulting kernel costs one row, not the sweep). Rows of
// kernels that fail to build, launch or check are written too, with their
// status: nothing is dropped.
//
// The CSV schema and its row formatting live in perf/sweep_csv.hpp (the
// selector's training reads the same files, below bench in the layers).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/phases.hpp"
#include "gconv/problem_file.hpp"
#include "kernels/traits.hpp"
#include "perf/sweep_csv.hpp"
#include "perf/timer.hpp"

namespace gconv::bench {

enum class CheckMode { none, first, all };  // first: each kernel's first problem (per worker process)

struct SweepOptions {
  TimingOptions timing;
  CheckMode check = CheckMode::first;
  int jobs = 0;  // compile parallelism; 0 = all cores
};

// A gconv row for (kernel, problem) with only the key fields and `status`
// filled (unsupported / crashed / timeout rows written by the parent).
SweepRow make_row(const KernelTraits& t, const ProblemEntry& e, const std::string& status,
                  const std::string& check = "");

// The device buffers of the problem being measured (random inputs filled),
// handed to other providers (cudnn_provider.hpp has its own DeviceBuffers view),
// shared by every provider's timing code.
struct ProblemBuffers {
  void* a = nullptr;    // first operand (x for fwd, dy for bwd_data, x for bwd_weight)
  void* b = nullptr;    // second operand
  void* out = nullptr;  // result
  void* workspace = nullptr;
  size_t a_bytes = 0, b_bytes = 0, out_bytes = 0, workspace_bytes = 0;
  cudaStream_t stream = nullptr;
};

// Measures items in the current process: owns one stream, timer and set of
// buffers (re-filled when the problem changes), and keeps every kernel it has
// loaded (or failed to compile) for the items after. Not thread-safe.
class SweepWorker {
 public:
  static Result<std::unique_ptr<SweepWorker>> create(const SweepOptions& options);
  ~SweepWorker();

  // One row for (t, e); per-item failures are rows. A non-ok Status means the
  // process's CUDA context is unusable (sticky error): the caller should exit
  // after writing `*row` (which then holds the launch_error row).
  // `phases` (may be null) receives the host time of this call's phases
  // (lookup, fill, setup, check, enqueue, gpu; bench/phases.hpp), added to
  // what it holds.
  Status run(const KernelTraits& t, const ProblemEntry& e, SweepRow* row, ItemPhases* phases = nullptr);
  // The buffers filled for `p` (for other providers' rows).
  Result<ProblemBuffers> buffers_for(const Problem& p);

 private:
  SweepWorker() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The CUDA device's name (for the gpu column), or "none".
std::string device_name();

}  // namespace gconv::bench
