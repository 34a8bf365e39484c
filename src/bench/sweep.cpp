#include "bench/sweep.hpp"

#include <cuda_runtime_api.h>

#include <cstring>
#include <map>

#include "check/compare.hpp"
#include "core/cuda_check.hpp"
#include "gconv/numeric.hpp"
#include "gconv/reference.hpp"
#include "kernels/naive/naive.hpp"
#include "runtime/instance.hpp"

namespace gconv::bench {
namespace {

struct DevMem {
  void* p = nullptr;
  size_t n = 0;
  ~DevMem() {
    if (p) cudaFree(p);
  }
  Status ensure(size_t bytes) {
    if (p && n >= bytes) return Status::Ok();
    if (p) cudaFree(p);
    p = nullptr;
    n = 0;
    GCONV_CUDA_RETURN_IF_ERROR(cudaMalloc(&p, bytes ? bytes : 1));
    n = bytes;
    return Status::Ok();
  }
};

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c == '\n' ? ' ' : c;
  }
  return o + "\"";
}

}  // namespace

std::string device_name() {
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    cudaGetLastError();
    return "none";
  }
  return prop.name;
}

std::string sweep_csv_header() {
  return "kernel,spec,source,gpu,gconv_version,status,latency_ms,min_ms,tflops,gbps,check";
}

std::string sweep_csv_row(const SweepRow& r, const std::string& gpu) {
  char nums[160];
  std::snprintf(nums, sizeof nums, "%.6f,%.6f,%.3f,%.1f", r.median_ms, r.min_ms, r.tflops, r.gbps);
  return r.kernel + "," + csv_escape(r.spec) + "," + csv_escape(r.source) + "," + csv_escape(gpu) + "," + GCONV_VERSION + "," +
         r.status + "," + nums + "," + csv_escape(r.check);
}

Status run_sweep(const std::vector<ProblemEntry>& problems, const std::vector<KernelTraits>& kernels,
                 const SweepOptions& o, const std::function<void(const SweepRow&)>& on_row) {
  cudaStream_t stream = nullptr;
  GCONV_CUDA_RETURN_IF_ERROR(cudaStreamCreate(&stream));
  auto timer_r = Timer::create(stream);
  if (!timer_r.ok()) return timer_r.status();
  std::unique_ptr<Timer> timer = std::move(timer_r).value();

  // Build every kernel first (parallel, through the disk cache).
  std::vector<Status> built = prebuild(kernels, o.jobs);
  std::map<std::string, bool> checked_once;
  DevMem a, b, out, ref, ws;
  for (const ProblemEntry& e : problems) {
    const Problem& p = e.problem;
    const ReferenceOperands ops = reference_operands(p);
    const int es = dtype_bytes(p.dtype);
    std::vector<unsigned char> ha(size_t(ops.a) * es), hb(size_t(ops.b) * es);
    fill_random(p.dtype, ha.data(), ops.a, 11);
    fill_random(p.dtype, hb.data(), ops.b, 12);
    GCONV_RETURN_IF_ERROR(a.ensure(ha.size()));
    GCONV_RETURN_IF_ERROR(b.ensure(hb.size()));
    GCONV_RETURN_IF_ERROR(out.ensure(size_t(ops.out) * es));
    GCONV_RETURN_IF_ERROR(ref.ensure(size_t(ops.out) * es));
    GCONV_CUDA_RETURN_IF_ERROR(cudaMemcpy(a.p, ha.data(), ha.size(), cudaMemcpyHostToDevice));
    GCONV_CUDA_RETURN_IF_ERROR(cudaMemcpy(b.p, hb.data(), hb.size(), cudaMemcpyHostToDevice));
    bool have_ref = false;
    std::vector<unsigned char> href;
    for (size_t i = 0; i < kernels.size(); ++i) {
      const KernelTraits& t = kernels[i];
      if (t.direction != p.direction || t.dtype != p.dtype || t.ndim != p.ndim) continue;
      if (!family_of(t).can_implement(t, p, nullptr)) continue;
      SweepRow row;
      row.kernel = kernel_name(t);
      row.spec = p.to_spec();
      row.source = e.source;
      if (!built[i].ok()) {
        row.status = "compile_error";
        on_row(row);
        continue;
      }
      auto inst = load_instance(t);
      if (!inst.ok()) {
        row.status = inst.status().code() == StatusCode::compile_error ? "compile_error" : "launch_error";
        row.check = inst.status().message().substr(0, 200);
        on_row(row);
        continue;
      }
      const size_t wsb = (*inst)->family->workspace_bytes(t, p);
      GCONV_RETURN_IF_ERROR(ws.ensure(wsb));
      ConvArgs args{a.p, b.p, out.p, wsb ? ws.p : nullptr, wsb};
      const bool do_check = o.check == CheckMode::all || (o.check == CheckMode::first && !checked_once[row.kernel]);
      if (do_check) {
        checked_once[row.kernel] = true;
        if (!have_ref) {
          const KernelTraits nt = naive_traits(p);
          auto naive = load_instance(nt, naive_family(), naive_kernel_name(nt));
          if (!naive.ok()) return naive.status();
          GCONV_RETURN_IF_ERROR(launch_instance(**naive, p, ConvArgs{a.p, b.p, ref.p, nullptr, 0}, stream));
          href.resize(size_t(ops.out) * es);
          GCONV_CUDA_RETURN_IF_ERROR(cudaMemcpy(href.data(), ref.p, href.size(), cudaMemcpyDeviceToHost));
          have_ref = true;
        }
        GCONV_CUDA_RETURN_IF_ERROR(cudaMemset(out.p, kPoisonByte, href.size()));
        Status s = launch_instance(**inst, p, args, stream);
        if (s.ok()) s = cuda_status(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        if (!s.ok()) {
          row.status = "launch_error";
          row.check = s.message().substr(0, 200);
          on_row(row);
          if (s.code() == StatusCode::cuda_error) return s;  // a sticky fault poisons the context
          continue;
        }
        std::vector<unsigned char> hout(href.size());
        GCONV_CUDA_RETURN_IF_ERROR(cudaMemcpy(hout.data(), out.p, hout.size(), cudaMemcpyDeviceToHost));
        CompareResult cr = compare_outputs(p.dtype, hout.data(), href.data(), ops.out, tolerance_for(p));
        row.check = cr.summary();
        if (!cr.ok) {
          row.status = "wrong_result";
          on_row(row);
          continue;
        }
      }
      auto timing = timer->time([&](cudaStream_t s) { return launch_instance(**inst, p, args, s); }, o.timing);
      if (!timing.ok()) {
        row.status = "launch_error";
        row.check = timing.status().message().substr(0, 200);
        on_row(row);
        if (timing.status().code() == StatusCode::cuda_error) return timing.status();
        continue;
      }
      row.status = "ok";
      row.median_ms = timing->median_ms;
      row.min_ms = timing->min_ms;
      row.tflops = p.flops() / (row.median_ms * 1e-3) / 1e12;
      row.gbps = double(p.min_bytes()) / (row.median_ms * 1e-3) / 1e9;
      on_row(row);
    }
  }
  cudaStreamDestroy(stream);
  return Status::Ok();
}

}  // namespace gconv::bench
