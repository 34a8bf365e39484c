// GPU timing done one way everywhere: warm-up launches, then repetitions each
// preceded by an L2 flush (a memset over twice the L2 size, so the measured
// launch reads its inputs from HBM as in a real network), timed with CUDA
// events around the launch alone; median and min reported.
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
};

struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  std::vector<float> samples_ms;
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

 private:
  Timer() = default;
  cudaStream_t stream_ = nullptr;
  void* flush_ = nullptr;
  size_t flush_bytes_ = 0;
  std::vector<cudaEvent_t> events_;
};

}  // namespace gconv::bench
