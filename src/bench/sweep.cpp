#include "bench/sweep.hpp"

#include <algorithm>

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>

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
  PhaseSeconds phases;

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
    GCONV_RETURN_IF_ERROR(ref.ensure(size_t(ops.out) * es));
    GCONV_RETURN_IF_ERROR(fill_device(a.p, p.dtype, ops.a, 11));
    GCONV_RETURN_IF_ERROR(fill_device(b.p, p.dtype, ops.b, 12));
    filled_spec = spec;
    return Status::Ok();
  }

  // Random values for `n` elements at `dst`: a host-generated block of
  // kFillPeriod elements, repeated on the device by doubling copies. Filling
  // large problems element by element on the host took seconds per problem
  // (a training sweep of many shapes spent most of its time there). The
  // period is prime so that it aligns with no power-of-two tensor stride: an
  // indexing bug still reads different values.
  static constexpr int64_t kFillPeriod = 1048573;
  Status fill_device(void* dst, DType t, int64_t n, uint64_t seed) {
    const size_t es = size_t(dtype_bytes(t));
    const int64_t block = std::min(n, kFillPeriod);
    std::vector<unsigned char> h(size_t(block) * es);
    fill_random(t, h.data(), block, seed);
    auto* d = static_cast<unsigned char*>(dst);
    GCONV_CUDA_RETURN_IF_ERROR(cudaMemcpy(d, h.data(), h.size(), cudaMemcpyHostToDevice));
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

const PhaseSeconds& SweepWorker::phase_seconds() const { return impl_->phases; }

std::string PhaseSeconds::summary() const {
  const double all = load + fill + check + timing;
  auto pct = [&](double v) { return all > 0 ? 100.0 * v / all : 0.0; };
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "%zu gconv items, %.2f s: instance load %.2f s (%.0f%%), buffer fill %.2f s (%.0f%%), check %.2f s "
                "(%.0f%%), timing %.2f s (%.0f%%; timed kernels %.2f s)",
                items, all, load, pct(load), fill, pct(fill), check, pct(check), timing, pct(timing), kernel);
  return buf;
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

Status SweepWorker::run(const KernelTraits& t, const ProblemEntry& e, SweepRow* row_out) {
  Impl& m = *impl_;
  ++m.phases.items;
  // Each phase's wall time goes to its counter (phase_seconds()).
  using clock = std::chrono::steady_clock;
  auto mark = clock::now();
  auto lap = [&](double* into) {
    const auto now = clock::now();
    *into += std::chrono::duration<double>(now - mark).count();
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
    return Status::Ok();
  }
  auto inst = load_instance(t);
  lap(&m.phases.load);
  if (!inst.ok()) {
    fail(inst.status().code() == StatusCode::compile_error ? "compile_error" : "launch_error", inst.status());
    return Status::Ok();
  }
  Status filled = m.fill(p);
  lap(&m.phases.fill);
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
  if (do_check) {
    m.checked_once[row.kernel] = true;
    if (!m.have_ref) {
      const KernelTraits nt = naive_traits(p);
      auto naive = load_instance(nt, naive_family(), naive_kernel_name(nt));
      if (!naive.ok()) {
        fail("launch_error", naive.status());
        return Status::Ok();
      }
      Status s = launch_instance(**naive, p, ConvArgs{m.a.p, m.b.p, m.ref.p, nullptr, 0}, m.stream);
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
    if (!cr.ok) {
      row.status = "wrong_result";
      return Status::Ok();
    }
  }
  lap(&m.phases.check);
  auto timing = m.timer->time([&](cudaStream_t s) { return launch_instance(**inst, folded, args, s); }, m.o.timing);
  lap(&m.phases.timing);
  if (!timing.ok()) {
    fail("launch_error", timing.status());
    return timing.status().code() == StatusCode::cuda_error ? timing.status() : Status::Ok();
  }
  row.status = "ok";
  for (float ms : timing->samples_ms) m.phases.kernel += ms * 1e-3;
  row.median_ms = timing->median_ms;
  row.min_ms = timing->min_ms;
  row.tflops = p.flops() / (row.median_ms * 1e-3) / 1e12;
  row.gbps = double(p.min_bytes()) / (row.median_ms * 1e-3) / 1e9;
  return Status::Ok();
}

}  // namespace gconv::bench
