#include "bench/sweep.hpp"

#include <algorithm>

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <unordered_map>

#include "bench/device_memory.hpp"
#include "check/compare.hpp"
#include "core/cuda_check.hpp"
#include "gconv/numeric.hpp"
#include "gconv/reference.hpp"
#include "kernels/naive/naive.hpp"
#include "problem/fold.hpp"
#include "runtime/instance.hpp"

namespace gconv::bench {

std::string device_name() {
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    cudaGetLastError();
    return "none";
  }
  return prop.name;
}

SweepRow make_row(const KernelTraits& t, const ProblemEntry& e, const std::string& status, const std::string& check) {
  SweepRow row;
  row.kernel = kernel_name(t);
  row.traits = t;
  row.problem = e.problem;
  row.spec = e.problem.to_spec();
  row.source = e.source;
  row.status = status;
  row.check = check;
  return row;
}

struct SweepWorker::Impl {
  SweepOptions o;
  cudaStream_t stream = nullptr;
  std::unique_ptr<Timer> timer;
  DevMem a, b, out, ref, ws;
  std::string filled_spec;  // problem whose inputs are in a and b
  std::vector<unsigned char> href;
  bool have_ref = false;
  std::map<std::string, bool> checked_once;
  // Kernels loaded so far, by name. The JIT's own table keeps the module too,
  // but reaching it costs the instance's source text, its hash and a file
  // stat per item; a compile error is kept so that a kernel that fails is not
  // handed to NVRTC again for each of its problems (seconds each).
  std::unordered_map<std::string, Result<std::shared_ptr<const Instance>>> instances;
  // The random block of each (dtype, seed), on the device: a new problem's
  // inputs are then device copies only, where each problem used to generate
  // up to kFillPeriod values on the host and copy them over (bf16: 63 ms for
  // a whole block on the development machine, so ~2 ms an item of a sweep
  // with ~30 kernels a problem; issue 19).
  std::map<std::pair<DType, uint64_t>, std::unique_ptr<DevMem>> fill_blocks;

  Result<std::shared_ptr<const Instance>> instance(const KernelTraits& t, const std::string& name) {
    if (auto it = instances.find(name); it != instances.end()) return it->second;
    auto inst = load_instance(t);
    // Only a compile error is final; a failed load (out of memory, a fault)
    // is tried again by the next item.
    if (inst.ok() || inst.status().code() == StatusCode::compile_error) instances.emplace(name, inst);
    return inst;
  }

  Status fill(const Problem& p) {
    const std::string spec = p.to_spec();
    if (spec == filled_spec) return Status::Ok();
    filled_spec.clear();
    have_ref = false;
    const ReferenceOperands ops = reference_operands(p);
    const size_t es = size_t(dtype_bytes(p.dtype));
    GCONV_RETURN_IF_ERROR(a.ensure(size_t(ops.a) * es));
    GCONV_RETURN_IF_ERROR(b.ensure(size_t(ops.b) * es));
    GCONV_RETURN_IF_ERROR(out.ensure(size_t(ops.out) * es));
    GCONV_RETURN_IF_ERROR(fill_device(a.p, p.dtype, ops.a, 11));
    GCONV_RETURN_IF_ERROR(fill_device(b.p, p.dtype, ops.b, 12));
    filled_spec = spec;
    return Status::Ok();
  }

  // Random values for `n` elements at `dst`: the (dtype, seed) block of
  // kFillPeriod elements (made once on the host, kept on the device),
  // repeated by doubling device copies. Filling large problems element by
  // element on the host took seconds per problem (a training sweep of many
  // shapes spent most of its time there). The period is prime so that it
  // aligns with no power-of-two tensor stride: an indexing bug still reads
  // different values. Element i is random_value(seed, i % kFillPeriod), as
  // when each problem made its own block (fill_random is indexed by element),
  // so the inputs are the same values as before.
  static constexpr int64_t kFillPeriod = 1048573;
  Result<const void*> fill_block(DType t, uint64_t seed) {
    auto& slot = fill_blocks[{t, seed}];
    if (!slot) {
      auto m = std::make_unique<DevMem>();
      const size_t es = size_t(dtype_bytes(t));
      std::vector<unsigned char> h(size_t(kFillPeriod) * es);
      fill_random(t, h.data(), kFillPeriod, seed);
      GCONV_RETURN_IF_ERROR(m->ensure(h.size()));
      GCONV_CUDA_RETURN_IF_ERROR(cudaMemcpy(m->p, h.data(), h.size(), cudaMemcpyHostToDevice));
      slot = std::move(m);
    }
    return static_cast<const void*>(slot->p);
  }
  Status fill_device(void* dst, DType t, int64_t n, uint64_t seed) {
    const size_t es = size_t(dtype_bytes(t));
    const int64_t block = std::min(n, kFillPeriod);
    auto src = fill_block(t, seed);
    if (!src.ok()) return src.status();
    auto* d = static_cast<unsigned char*>(dst);
    GCONV_CUDA_RETURN_IF_ERROR(cudaMemcpy(d, *src, size_t(block) * es, cudaMemcpyDeviceToDevice));
    for (int64_t done = block; done < n;) {
      const int64_t chunk = std::min(done, n - done);
      GCONV_CUDA_RETURN_IF_ERROR(
          cudaMemcpy(d + size_t(done) * es, d, size_t(chunk) * es, cudaMemcpyDeviceToDevice));
      done += chunk;
    }
    return Status::Ok();
  }
};

Result<std::unique_ptr<SweepWorker>> SweepWorker::create(const SweepOptions& options) {
  std::unique_ptr<SweepWorker> w(new SweepWorker());
  w->impl_ = std::make_unique<Impl>();
  w->impl_->o = options;
  GCONV_CUDA_RETURN_IF_ERROR(cudaStreamCreate(&w->impl_->stream));
  auto timer = Timer::create(w->impl_->stream);
  if (!timer.ok()) return timer.status();
  w->impl_->timer = std::move(timer).value();
  return w;
}

SweepWorker::~SweepWorker() {
  if (impl_ && impl_->stream) {
    impl_->timer.reset();
    cudaStreamDestroy(impl_->stream);
  }
}

Result<ProblemBuffers> SweepWorker::buffers_for(const Problem& p) {
  GCONV_RETURN_IF_ERROR(impl_->fill(p));
  const ReferenceOperands ops = reference_operands(p);
  const size_t es = size_t(dtype_bytes(p.dtype));
  ProblemBuffers d;
  d.a = impl_->a.p;
  d.b = impl_->b.p;
  d.out = impl_->out.p;
  d.a_bytes = size_t(ops.a) * es;
  d.b_bytes = size_t(ops.b) * es;
  d.out_bytes = size_t(ops.out) * es;
  d.stream = impl_->stream;
  return d;
}

Status SweepWorker::run(const KernelTraits& t, const ProblemEntry& e, SweepRow* row_out, ItemPhases* phases) {
  Impl& m = *impl_;
  // Each phase's host time goes to its counter (bench/phases.hpp): two clock
  // reads a phase, nothing else.
  ItemPhases local;
  ItemPhases& ph = phases ? *phases : local;
  using clock = std::chrono::steady_clock;
  auto mark = clock::now();
  auto lap = [&](Phase into) {
    const auto now = clock::now();
    ph[into] += std::chrono::duration<double>(now - mark).count();
    mark = now;
  };
  const Problem& p = e.problem;
  // The form gconv runs (problem/fold.hpp), folded once: launch_instance's
  // own fold of it is then a few comparisons per timed launch.
  const Problem folded = fold_patches(p);
  SweepRow& row = *row_out;
  row = make_row(t, e, "");
  auto fail = [&](const char* status, const Status& s) {
    row.status = status;
    row.check = s.message().substr(0, 200);
  };
  if (!family_of(t).can_implement(t, folded, nullptr)) {
    row.status = "unsupported";
    lap(Phase::setup);
    return Status::Ok();
  }
  lap(Phase::setup);
  auto inst = m.instance(t, row.kernel);
  lap(Phase::lookup);
  if (!inst.ok()) {
    fail(inst.status().code() == StatusCode::compile_error ? "compile_error" : "launch_error", inst.status());
    return Status::Ok();
  }
  Status filled = m.fill(p);
  lap(Phase::fill);
  if (!filled.ok()) {
    fail("launch_error", filled);
    return filled.code() == StatusCode::cuda_error ? filled : Status::Ok();
  }
  const ReferenceOperands ops = reference_operands(p);
  const size_t out_bytes = size_t(ops.out) * dtype_bytes(p.dtype);
  const size_t wsb = (*inst)->family->workspace_bytes(t, folded);
  if (Status s = m.ws.ensure(wsb); !s.ok()) {
    fail("launch_error", s);
    return s.code() == StatusCode::cuda_error ? s : Status::Ok();
  }
  ConvArgs args{m.a.p, m.b.p, m.out.p, wsb ? m.ws.p : nullptr, wsb};
  const bool do_check =
      m.o.check == CheckMode::all || (m.o.check == CheckMode::first && !m.checked_once[row.kernel]);
  lap(Phase::setup);
  if (do_check) {
    m.checked_once[row.kernel] = true;
    if (!m.have_ref) {
      const KernelTraits nt = naive_traits(p);
      auto naive = load_instance(nt, naive_family(), naive_kernel_name(nt));
      if (!naive.ok()) {
        fail("launch_error", naive.status());
        return Status::Ok();
      }
      // The reference buffer only where something is checked (--check none
      // sweeps never allocate it).
      Status s = m.ref.ensure(out_bytes);
      if (s.ok()) s = launch_instance(**naive, p, ConvArgs{m.a.p, m.b.p, m.ref.p, nullptr, 0}, m.stream);
      m.href.resize(out_bytes);
      if (s.ok()) s = cuda_status(cudaMemcpy(m.href.data(), m.ref.p, out_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
      if (!s.ok()) {
        fail("launch_error", s);
        return s.code() == StatusCode::cuda_error ? s : Status::Ok();
      }
      m.have_ref = true;
    }
    Status s = cuda_status(cudaMemset(m.out.p, kPoisonByte, out_bytes), "cudaMemset");
    if (s.ok()) s = launch_instance(**inst, folded, args, m.stream);
    if (s.ok()) s = cuda_status(cudaStreamSynchronize(m.stream), "cudaStreamSynchronize");
    std::vector<unsigned char> hout(out_bytes);
    if (s.ok()) s = cuda_status(cudaMemcpy(hout.data(), m.out.p, out_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    if (!s.ok()) {
      fail("launch_error", s);
      return s.code() == StatusCode::cuda_error ? s : Status::Ok();  // a sticky fault poisons the context
    }
    CompareResult cr = compare_outputs(p.dtype, hout.data(), m.href.data(), ops.out, tolerance_for(p));
    row.check = cr.summary();
    lap(Phase::check);
    if (!cr.ok) {
      row.status = "wrong_result";
      return Status::Ok();
    }
  }
  auto timing = m.timer->time([&](cudaStream_t s) { return launch_instance(**inst, folded, args, s); }, m.o.timing);
  {
    // The timer's wait for the stream is the GPU phase; the rest of the call
    // (the launches' host work, flushes, events, gates) is enqueue.
    const double wait = timing.ok() ? timing->wait_s : 0.0;
    lap(Phase::enqueue);
    ph[Phase::enqueue] -= wait;
    ph[Phase::gpu] += wait;
  }
  if (!timing.ok()) {
    fail("launch_error", timing.status());
    return timing.status().code() == StatusCode::cuda_error ? timing.status() : Status::Ok();
  }
  row.status = "ok";
  for (float ms : timing->samples_ms) ph.kernel += ms * 1e-3;
  row.median_ms = timing->median_ms;
  row.min_ms = timing->min_ms;
  row.tflops = p.flops() / (row.median_ms * 1e-3) / 1e12;
  row.gbps = double(p.min_bytes()) / (row.median_ms * 1e-3) / 1e9;
  return Status::Ok();
}

}  // namespace gconv::bench
