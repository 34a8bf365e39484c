#include "registry/measure.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "core/cuda_check.hpp"
#include "core/log.hpp"
#include "gconv/numeric.hpp"
#include "gconv/reference.hpp"
#include "perf/timer.hpp"

namespace gconv {
namespace {

// A few repetitions: enough to separate kernels that differ by more than the
// noise, cheap enough to time hundreds of candidates.
constexpr int kWarmup = 2;
constexpr int kRepeats = 5;

// Device buffers and the stream of one measurement, released on every path.
struct Scratch {
  cudaStream_t stream = nullptr;
  void* bufs[4] = {nullptr, nullptr, nullptr, nullptr};  // a, b, out, workspace
  ~Scratch() {
    for (void* p : bufs)
      if (p) cudaFree(p);
    if (stream) cudaStreamDestroy(stream);
  }
};

Status upload_random(DType t, void* dst, int64_t n, uint64_t seed) {
  std::vector<unsigned char> host(size_t(n) * dtype_bytes(t));
  fill_random(t, host.data(), n, seed);
  return cuda_status(cudaMemcpy(dst, host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy(inputs)");
}

}  // namespace

Result<Measurement> measure_candidates(const Problem& p, const std::vector<KernelTraits>& candidates,
                                       const InstanceLoader& load, size_t workspace_limit) {
  const auto t0 = std::chrono::steady_clock::now();
  Measurement m;
  std::vector<size_t> usable;
  size_t ws_bytes = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const size_t ws = family_of(candidates[i]).workspace_bytes(candidates[i], p);
    if (ws > workspace_limit) continue;
    usable.push_back(i);
    ws_bytes = std::max(ws_bytes, ws);
  }
  if (usable.empty())
    return not_supported("no candidate of " + p.to_spec() + " fits the workspace limit of " +
                         std::to_string(workspace_limit) + " bytes");

  Scratch s;
  GCONV_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  const ReferenceOperands ops = reference_operands(p);
  const size_t eb = size_t(dtype_bytes(p.dtype));
  const size_t sizes[4] = {size_t(ops.a) * eb, size_t(ops.b) * eb, size_t(ops.out) * eb, ws_bytes};
  for (int i = 0; i < 4; ++i) {
    if (sizes[i] == 0) continue;
    const cudaError_t err = cudaMalloc(&s.bufs[i], sizes[i]);
    if (err != cudaSuccess) {
      cudaGetLastError();
      return Status(StatusCode::out_of_memory,
                    fmt::format("cannot allocate {} bytes of measurement buffers for {} ({})",
                                sizes[0] + sizes[1] + sizes[2] + sizes[3], p.to_spec(), cudaGetErrorString(err)));
    }
  }
  GCONV_RETURN_IF_ERROR(upload_random(p.dtype, s.bufs[0], ops.a, 1));
  GCONV_RETURN_IF_ERROR(upload_random(p.dtype, s.bufs[1], ops.b, 2));
  auto timer = bench::Timer::create(s.stream);
  if (!timer.ok()) return timer.status();

  // Compile everything first, in parallel (a cached kernel costs a file read).
  std::vector<KernelTraits> to_build;
  for (size_t i : usable) to_build.push_back(candidates[i]);
  const int jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<Status> built = prebuild(to_build, jobs);

  Status first_failure;
  double best = -1;
  bench::TimingOptions opts;
  opts.warmup = kWarmup;
  opts.repeats = kRepeats;
  for (size_t j = 0; j < usable.size(); ++j) {
    const KernelTraits& t = candidates[usable[j]];
    auto fail = [&](const Status& st) {
      ++m.failed;
      log_info("measure " + kernel_name(t) + " on " + p.to_spec() + ": " + st.to_string());
      if (first_failure.ok()) first_failure = st;
    };
    if (!built[j].ok()) {
      fail(built[j]);
      continue;
    }
    auto inst = load(t);
    if (!inst.ok()) {
      fail(inst.status());
      continue;
    }
    const size_t ws = (*inst)->family->workspace_bytes(t, p);
    const ConvArgs args{s.bufs[0], s.bufs[1], s.bufs[2], ws ? s.bufs[3] : nullptr, ws};
    auto timing = (*timer)->time([&](cudaStream_t st) { return launch_instance(**inst, p, args, st); }, opts);
    if (!timing.ok()) {
      fail(timing.status());
      if (timing.status().code() == StatusCode::cuda_error) return timing.status();  // the context is poisoned
      continue;
    }
    ++m.measured;
    if (best < 0 || timing->median_ms < best) {
      best = timing->median_ms;
      m.best = usable[j];
    }
  }
  if (m.measured == 0) return first_failure;
  m.best_ms = best;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

}  // namespace gconv
