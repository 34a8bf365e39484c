// Shared plumbing for the C++ examples: command line, CUDA buffers, timing
// and an output check. Only gconv's PUBLIC headers and the CUDA runtime are
// used, as an application would. The examples themselves show the gconv calls.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gconv/numeric.hpp"
#include "gconv/problem.hpp"
#include "gconv/status.hpp"

namespace example {

// ctest's "skipped" exit code: no GPU is not a failure of the example.
inline constexpr int kSkip = 77;

struct Args {
  std::string spec;
  std::string dtype;                  // "" = the spec's
  std::string policy = "heuristic";
  bool check = false;
  int iters = 20;
};

inline void usage(const char* prog, const char* default_spec) {
  std::fprintf(stderr,
               "usage: %s [SPEC] [--dtype bf16|fp16|fp32] [--check] [--policy P] [--iters N]\n"
               "  SPEC     problem spec (default %s); its direction is replaced by this example's\n"
               "  --check  compare the output with the CPU reference (slow for large problems)\n"
               "  --policy heuristic | analytic | exhaustive | topk:K (default heuristic)\n",
               prog, default_spec);
}

// Returns false (after printing why) on a bad command line.
inline bool parse_args(int argc, char** argv, const char* default_spec, Args* out) {
  Args a;
  a.spec = default_spec;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&](std::string* v) {
      if (i + 1 >= argc) return false;
      *v = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "--check") {
      a.check = true;
    } else if (arg == "--dtype" && next(&v)) {
      a.dtype = v;
    } else if (arg == "--policy" && next(&v)) {
      a.policy = v;
    } else if (arg == "--iters" && next(&v)) {
      a.iters = std::atoi(v.c_str());
      if (a.iters < 1) a.iters = 1;
    } else if (arg == "-h" || arg == "--help") {
      usage(argv[0], default_spec);
      return false;
    } else if (!arg.empty() && arg[0] != '-') {
      a.spec = arg;
    } else {
      std::fprintf(stderr, "%s: unknown or incomplete option '%s'\n", argv[0], arg.c_str());
      usage(argv[0], default_spec);
      return false;
    }
  }
  *out = a;
  return true;
}

// The problem from the command line, with the example's direction.
inline gconv::Result<gconv::Problem> make_problem(const Args& a, gconv::Direction d) {
  auto p = gconv::Problem::parse_spec(a.spec);
  if (!p.ok()) return p.status();
  p->direction = d;
  if (!a.dtype.empty()) {
    auto t = gconv::parse_dtype(a.dtype);
    if (!t.ok()) return t.status();
    p->dtype = *t;
  }
  GCONV_RETURN_IF_ERROR(p->validate());
  return p;
}

// True when a CUDA device can be used; otherwise says so on stderr.
inline bool have_gpu(const char* prog) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::fprintf(stderr, "%s: no CUDA device available (%s); skipping\n", prog,
                 e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return false;
  }
  return true;
}

// A device allocation freed at scope exit.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes > 0) error_ = cudaMalloc(&ptr_, bytes);
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  bool ok() const { return error_ == cudaSuccess; }
  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  cudaError_t error_ = cudaSuccess;
};

inline bool cuda_ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
  return false;
}

// Prints a failed gconv call; the exit code for it (77 when there is no GPU).
inline int report(const char* prog, const char* what, const gconv::Status& s) {
  std::fprintf(stderr, "%s: %s: %s\n", prog, what, s.to_string().c_str());
  return s.code() == gconv::StatusCode::no_device ? kSkip : 1;
}

// Average milliseconds of `iters` calls of run() on the default stream, or -1
// if a call fails (run returns false).
template <class F>
double time_ms(F&& run, int iters) {
  cudaEvent_t start, stop;
  if (!cuda_ok(cudaEventCreate(&start), "cudaEventCreate") || !cuda_ok(cudaEventCreate(&stop), "cudaEventCreate"))
    return -1;
  bool ok = cuda_ok(cudaEventRecord(start, nullptr), "cudaEventRecord");
  for (int i = 0; ok && i < iters; ++i) ok = run();
  ok = ok && cuda_ok(cudaEventRecord(stop, nullptr), "cudaEventRecord") &&
       cuda_ok(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  ok = ok && cuda_ok(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ok ? double(ms) / iters : -1;
}

// Host buffer of `n` random elements of dtype t.
inline std::vector<unsigned char> random_host(gconv::DType t, int64_t n, uint64_t seed) {
  std::vector<unsigned char> h(size_t(n) * size_t(gconv::dtype_bytes(t)));
  gconv::fill_random(t, h.data(), n, seed);
  return h;
}

// Compares a GPU output with the reference, both host buffers of dtype t:
//   |out - ref| <= rtol * |ref| + atol * rms(ref) per element, no NaN / inf,
//   and ||out - ref|| / ||ref|| <= norm_tol.
// rtol is about one ulp of the output type (both sides are rounded once);
// atol covers fp32 accumulation in a different order over the reduction.
inline bool check_output(const gconv::Problem& p, const void* out, const void* ref, int64_t n) {
  double rtol = 0, atol = 0, norm_tol = 0;
  switch (p.dtype) {
    case gconv::DType::bf16: rtol = std::ldexp(1.0, -7), atol = std::ldexp(1.0, -8), norm_tol = 1e-2; break;
    case gconv::DType::fp16: rtol = std::ldexp(1.0, -9), atol = std::ldexp(1.0, -10), norm_tol = 2e-3; break;
    case gconv::DType::fp32: rtol = std::ldexp(1.0, -10), atol = std::ldexp(1.0, -8), norm_tol = 3e-3; break;
  }
  atol += std::sqrt(double(p.gemm().k)) * std::ldexp(1.0, -20);
  double ref_sq = 0;
  for (int64_t i = 0; i < n; ++i) ref_sq += std::pow(gconv::load_element(p.dtype, ref, i), 2);
  const double rms = n > 0 ? std::sqrt(ref_sq / double(n)) : 0;
  int64_t bad = 0, first_bad = -1;
  double err_sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double o = gconv::load_element(p.dtype, out, i), r = gconv::load_element(p.dtype, ref, i);
    const double e = std::isfinite(o) ? std::fabs(o - r) : INFINITY;
    if (!(e <= rtol * std::fabs(r) + atol * rms)) {
      if (bad++ == 0) first_bad = i;
    }
    if (std::isfinite(e)) err_sq += e * e;
  }
  const double rel = ref_sq > 0 ? std::sqrt(err_sq / ref_sq) : std::sqrt(err_sq);
  const bool ok = bad == 0 && rel <= norm_tol;
  if (ok) {
    std::printf("check: ok (%lld elements, relative error %.2e)\n", (long long)n, rel);
  } else {
    std::printf("check: FAILED: %lld of %lld elements out of tolerance, relative error %.2e", (long long)bad,
                (long long)n, rel);
    if (first_bad >= 0)
      std::printf("; first at %lld: got %g, want %g", (long long)first_bad,
                  gconv::load_element(p.dtype, out, first_bad), gconv::load_element(p.dtype, ref, first_bad));
    std::printf("\n");
  }
  return ok;
}

}  // namespace example
