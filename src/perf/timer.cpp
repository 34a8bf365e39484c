#include "perf/timer.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "core/cuda_check.hpp"

namespace gconv::bench {

// A gate (kRepsPerGate repetitions'): the stream's host function spins until `open`, or
// until kGateLimit has passed (a launch that synchronizes internally would
// otherwise deadlock against its own gate; it is then timed with its host
// time and counted in Timing::gate_timeouts).
struct Timer::Gate {
  std::atomic<bool> open{false};
  std::atomic<bool> timed_out{false};
};

namespace {

constexpr auto kGateLimit = std::chrono::milliseconds(200);
// Repetitions behind one gate. A gate per repetition cost each one a host
// function round trip (the GPU idles while the driver's callback thread wakes
// and returns: ~10-30 us, 5 a sweep item) for no better guarantee. The cap
// keeps the operations queued behind a closed gate (4 a repetition) far from
// the stream's queue depth, where the host would block against its own gate.
constexpr int kRepsPerGate = 32;

void CUDART_CB wait_at_gate(void* arg) {
  auto* g = static_cast<Timer::Gate*>(arg);
  const auto deadline = std::chrono::steady_clock::now() + kGateLimit;
  while (!g->open.load(std::memory_order_acquire)) {
    if (std::chrono::steady_clock::now() > deadline) {
      g->timed_out.store(true, std::memory_order_relaxed);
      return;
    }
    std::this_thread::yield();
  }
}

}  // namespace

Result<std::unique_ptr<Timer>> Timer::create(cudaStream_t stream) {
  int dev = 0;
  GCONV_CUDA_RETURN_IF_ERROR(cudaGetDevice(&dev));
  int l2 = 0;
  GCONV_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  std::unique_ptr<Timer> t(new Timer());
  t->stream_ = stream;
  t->flush_bytes_ = std::max<size_t>(size_t(2) * size_t(l2), size_t(64) << 20);
  Status s = cuda_status(cudaMalloc(&t->flush_, t->flush_bytes_), "cudaMalloc(l2 flush)");
  if (!s.ok()) return s;
  return t;
}

Timer::~Timer() {
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
  if (flush_) cudaFree(flush_);
}

Result<Timing> Timer::time(const std::function<Status(cudaStream_t)>& launch, const TimingOptions& o) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const int reps = std::max(1, o.repeats);
  const int n_gates = (reps + kRepsPerGate - 1) / kRepsPerGate;
  while (events_.size() < size_t(2 * reps)) {
    cudaEvent_t e;
    GCONV_CUDA_RETURN_IF_ERROR(cudaEventCreate(&e));
    events_.push_back(e);
  }
  while (gates_.size() < size_t(n_gates)) gates_.push_back(std::make_unique<Gate>());
  for (int g = 0; g < n_gates; ++g) {
    gates_[size_t(g)]->open.store(false);
    gates_[size_t(g)]->timed_out.store(false);
  }
  // Every gate enqueued must be opened before returning, also on an error
  // path, or the stream's host function would spin until its limit.
  int enqueued_gates = 0;
  auto open_all = [&] {
    for (int g = 0; g < enqueued_gates; ++g) gates_[size_t(g)]->open.store(true, std::memory_order_release);
  };
  auto enqueue_all = [&]() -> Status {
    for (int i = 0; i < o.warmup; ++i) GCONV_RETURN_IF_ERROR(launch(stream_));
    for (int i = 0; i < reps; ++i) {
      // The gate before the first flush of its repetitions, so the flush and
      // the launch run back to back once it opens, as they did behind a gate
      // of their own.
      if (o.gate && i % kRepsPerGate == 0) {
        GCONV_CUDA_RETURN_IF_ERROR(cudaLaunchHostFunc(stream_, wait_at_gate, gates_[size_t(i / kRepsPerGate)].get()));
        ++enqueued_gates;
      }
      if (o.flush_l2) GCONV_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(flush_, i & 0xff, flush_bytes_, stream_));
      GCONV_CUDA_RETURN_IF_ERROR(cudaEventRecord(events_[2 * i], stream_));
      GCONV_RETURN_IF_ERROR(launch(stream_));
      GCONV_CUDA_RETURN_IF_ERROR(cudaEventRecord(events_[2 * i + 1], stream_));
      if (o.gate && (i % kRepsPerGate == kRepsPerGate - 1 || i == reps - 1))
        gates_[size_t(i / kRepsPerGate)]->open.store(true, std::memory_order_release);
    }
    return Status::Ok();
  };
  Status enq = enqueue_all();
  open_all();
  GCONV_RETURN_IF_ERROR(enq);
  const auto t1 = clock::now();
  GCONV_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  Timing t;
  for (int i = 0; i < reps; ++i) t.gate_timeouts += gates_[size_t(i / kRepsPerGate)]->timed_out.load() ? 1 : 0;
  for (int i = 0; i < reps; ++i) {
    float ms = 0;
    GCONV_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, events_[2 * i], events_[2 * i + 1]));
    t.samples_ms.push_back(ms);
  }
  std::vector<float> s = t.samples_ms;
  std::sort(s.begin(), s.end());
  t.min_ms = s.front();
  t.median_ms = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
  t.enqueue_s = std::chrono::duration<double>(t1 - t0).count();
  t.wait_s = std::chrono::duration<double>(clock::now() - t1).count();
  return t;
}

}  // namespace gconv::bench
