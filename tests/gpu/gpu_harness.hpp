// Shared pieces of the GPU tests: device buffers, and "run one kernel on one
// problem with fresh random inputs, poisoned output, and compare with the
// reference". The reference of a run is the naive GPU kernel (itself checked
// against the CPU reference on every problem, see naive_matches_cpu), so
// every run can draw new inputs without a CPU convolution per run.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "check/compare.hpp"
#include "gconv/problem.hpp"
#include "runtime/instance.hpp"

namespace gconv::gputest {

// The odd shapes every kernel is tried on (spec syntax without direction and
// dtype; see README): C=3, K=1, prime sizes, stride 2 and 3, dilation 2,
// asymmetric padding, 1x7 and 7x1, 3D, 1D, G=2, depthwise, N=1, ResNeXt-like.
std::vector<std::string> odd_problem_specs();
// Those specs as problems of one direction and dtype (all ndims).
std::vector<Problem> odd_problems(Direction d, DType t);

struct DeviceBuffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// Outcome of one checked run.
struct RunCheck {
  Status status;          // launch / CUDA errors
  CompareResult compare;  // valid when status is ok
  bool ok() const { return status.ok() && compare.ok; }
  std::string describe() const { return status.ok() ? compare.summary() : status.to_string(); }
};

class Checker {
 public:
  Checker();
  ~Checker();
  // Runs `inst` on `p` with inputs drawn from `seed`, against the naive kernel.
  RunCheck run(const Instance& inst, const Problem& p, uint64_t seed);
  // The naive GPU kernel against the CPU reference on fresh inputs.
  RunCheck naive_matches_cpu(const Problem& p, uint64_t seed);

 private:
  Status upload_inputs(const Problem& p, uint64_t seed, std::vector<unsigned char>* a,
                       std::vector<unsigned char>* b);
  Status run_naive(const Problem& p, void* out);
  cudaStream_t stream_ = nullptr;
  DeviceBuffer a_, b_, out_, ref_, ws_;
  void ensure(DeviceBuffer& buf, size_t bytes);
};

// Environment knobs: GCONV_GPU_TEST_SAMPLE=K takes K random kernels of each
// pool instead of all (the sanitizer runs use it); GCONV_GPU_TEST_JOBS sets
// the compile parallelism (default: all cores).
int sample_limit();
int compile_jobs();

}  // namespace gconv::gputest
