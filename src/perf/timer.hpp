// GPU timing done one way everywhere: warm-up launches, then repetitions each
// preceded by an L2 flush (a memset over twice the L2 size, so the measured
// launch reads its inputs from HBM as in a real network), timed with CUDA
// events around the launch alone; median and min reported.
//
// Host time is kept out of the measurement: after the warm-up launches the
// stream waits at a gate (a host function that returns once the host has
// enqueued the repetitions behind it, end events included), so every start
// event fires only when its launch is already queued. Without the gate a
// provider whose API call costs more host time than the flush takes (cuDNN's
// legacy API rebuilds its plan on every call: ~70 us) would be timed with the
// GPU idling inside its events. One gate serves up to kRepsPerGate
// repetitions (timer.cpp): a gate per repetition gave the same guarantee but
// cost each repetition a host-function round trip with the GPU idle (issue
// 19: sweep throughput).
//
// In perf/ (below registry/ and bench/) because the registry's measuring
// policy and the benchmark time kernels the same way. The namespace stays
// gconv::bench, where the timer lived before the layering fix (issue 19):
// renaming it would touch every provider and caller for no change.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <vector>

#include "gconv/status.hpp"

namespace gconv::bench {

struct TimingOptions {
  int warmup = 3;
  int repeats = 10;
  bool flush_l2 = true;
  bool gate = true;  // hold the stream until the repetitions are enqueued (above)
};

struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  std::vector<float> samples_ms;
  int gate_timeouts = 0;  // repetitions whose enqueue outlasted the gate's limit (then timed as is)
  // Host seconds of this call (the sweep's phase accounting, bench/phases.hpp):
  // enqueueing everything, then waiting for the stream and reading the events.
  double enqueue_s = 0, wait_s = 0;
};

// Owns the flush buffer and events of one device; not thread-safe (one per
// worker thread / stream).
class Timer {
 public:
  static Result<std::unique_ptr<Timer>> create(cudaStream_t stream);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // `launch` enqueues the work on the timer's stream and returns its Status.
  Result<Timing> time(const std::function<Status(cudaStream_t)>& launch, const TimingOptions& o);

  struct Gate;  // one repetition's gate (timer.cpp)

 private:
  Timer() = default;
  cudaStream_t stream_ = nullptr;
  void* flush_ = nullptr;
  size_t flush_bytes_ = 0;
  std::vector<cudaEvent_t> events_;
  std::vector<std::unique_ptr<Gate>> gates_;
};

}  // namespace gconv::bench
