#include "bench/cudnn_provider.hpp"

#include <algorithm>
#include <memory>

#include "bench/cudnn_graph.hpp"
#include "bench/device_memory.hpp"
#include "bench/cudnn_loader.hpp"
#include "core/cuda_check.hpp"

namespace gconv::bench {

std::vector<int64_t> channels_last_strides(const std::vector<int64_t>& d) {
  std::vector<int64_t> s(d.size(), 1);
  if (d.size() < 2) return s;
  // Memory order N, spatial..., C: C is innermost, then the last spatial dim.
  int64_t run = d[1];  // elements of one position
  s[1] = 1;
  for (size_t i = d.size() - 1; i >= 2; --i) {
    s[i] = run;
    run *= d[i];
  }
  s[0] = run;
  return s;
}

Result<CudnnShape> cudnn_shape(const Problem& p) {
  static const char* kSlot[3] = {"D", "H", "W"};
  CudnnShape s;
  // 1D runs as 2D: slot 1 (H) of a 1D problem already holds size 1, filter 1,
  // stride 1, pad 0, dilation 1 (problem.hpp), so taking slots 1..2 is exact.
  s.spatial = std::max(p.ndim, 2);
  const int first = 3 - s.spatial;
  for (int i = first; i < 3; ++i) {
    if (p.pad_lo[i] != p.pad_hi[i])
      return not_supported("cuDNN's legacy API has one pad per dimension; " + std::string(kSlot[i]) + " has pad_lo " +
                           std::to_string(p.pad_lo[i]) + " != pad_hi " + std::to_string(p.pad_hi[i]));
  }
  std::vector<int64_t> x{p.n, p.c}, y{p.n, p.k};
  s.w_dims = {int(p.k), int(p.c_per_group())};
  for (int i = first; i < 3; ++i) {
    x.push_back(p.in[i]);
    y.push_back(p.out(i));
    s.w_dims.push_back(int(p.filter[i]));
    s.pad.push_back(int(p.pad_lo[i]));
    s.stride.push_back(int(p.stride[i]));
    s.dilation.push_back(int(p.dilation[i]));
  }
  // Sizes fit in int: validate() bounds every tensor below 2^31 elements.
  auto to_int = [](const std::vector<int64_t>& v) { return std::vector<int>(v.begin(), v.end()); };
  s.x_dims = to_int(x);
  s.y_dims = to_int(y);
  s.x_strides = to_int(channels_last_strides(x));
  s.y_strides = to_int(channels_last_strides(y));
  s.groups = int(p.g);
  return s;
}

std::string cudnn_algo_name(Direction d, int algo) {
  static const std::vector<std::string> fwd = {"implicit_gemm", "implicit_precomp_gemm", "gemm", "direct",
                                               "fft", "fft_tiling", "winograd", "winograd_nonfused"};
  static const std::vector<std::string> bwd_data = {"algo_0", "algo_1", "fft", "fft_tiling", "winograd",
                                                    "winograd_nonfused"};
  static const std::vector<std::string> bwd_filter = {"algo_0", "algo_1", "fft", "algo_3", "winograd",
                                                      "winograd_nonfused", "fft_tiling"};
  const auto& names = d == Direction::fwd ? fwd : d == Direction::bwd_data ? bwd_data : bwd_filter;
  return algo >= 0 && size_t(algo) < names.size() ? names[size_t(algo)] : "algo" + std::to_string(algo);
}

namespace {

// One algorithm with the math type and workspace it runs with.
struct Choice {
  int algo = -1;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t workspace = 0;
};

cudnnDataType_t data_type(DType t) {
  switch (t) {
    case DType::bf16: return CUDNN_DATA_BFLOAT16;
    case DType::fp16: return CUDNN_DATA_HALF;
    case DType::fp32: return CUDNN_DATA_FLOAT;
  }
  return CUDNN_DATA_FLOAT;
}

// Handle and descriptors of one problem; destroys what it created.
class CudnnConv {
 public:
  CudnnConv(const CudnnApi& api, const Problem& p, const DeviceBuffers& bufs) : api_(api), p_(p), bufs_(bufs) {}
  ~CudnnConv() {
    if (conv_) api_.cudnnDestroyConvolutionDescriptor(conv_);
    if (w_) api_.cudnnDestroyFilterDescriptor(w_);
    if (y_) api_.cudnnDestroyTensorDescriptor(y_);
    if (x_) api_.cudnnDestroyTensorDescriptor(x_);
    if (h_) api_.cudnnDestroy(h_);
  }
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  // The handle alone: its failure (no device, no driver) is fatal to a sweep.
  Status create_handle() {
    const cudnnStatus_t s = api_.cudnnCreate(&h_);
    if (s == CUDNN_STATUS_SUCCESS) return Status::Ok();
    h_ = nullptr;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
      cudaGetLastError();
      return Status(StatusCode::no_device, cudnn_status(api_, s, "cudnnCreate").message() + "; no CUDA device");
    }
    return cudnn_status(api_, s, "cudnnCreate");
  }

  Status describe(const CudnnShape& s) {
    const cudnnDataType_t dt = data_type(p_.dtype);
    const int nd = s.spatial + 2;
    GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnCreateTensorDescriptor, &x_);
    GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnSetTensorNdDescriptor, x_, dt, nd, s.x_dims.data(), s.x_strides.data());
    GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnCreateTensorDescriptor, &y_);
    GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnSetTensorNdDescriptor, y_, dt, nd, s.y_dims.data(), s.y_strides.data());
    GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnCreateFilterDescriptor, &w_);
    GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnSetFilterNdDescriptor, w_, dt, CUDNN_TENSOR_NHWC, nd, s.w_dims.data());
    GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnCreateConvolutionDescriptor, &conv_);
    GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnSetConvolutionNdDescriptor, conv_, s.spatial, s.pad.data(), s.stride.data(),
                                s.dilation.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnSetConvolutionGroupCount, conv_, s.groups);
    // Default math permits TF32 for fp32 data (gconv's fp32 kernels use TF32);
    // 16-bit data wants tensor ops. The chosen result's math type is set per run.
    const cudnnMathType_t math = p_.dtype == DType::fp32 ? CUDNN_DEFAULT_MATH : CUDNN_TENSOR_OP_MATH;
    GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnSetConvolutionMathType, conv_, math);
    return Status::Ok();
  }

  // Usable results of cudnnGetConvolution*Algorithm_v7, cuDNN's order.
  Result<std::vector<Choice>> heuristics() {
    constexpr int kMax = 32;
    int n = 0;
    std::vector<Choice> out;
    auto take = [&](const auto* perf) {
      for (int i = 0; i < n; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS) out.push_back({int(perf[i].algo), perf[i].mathType, perf[i].memory});
    };
    if (p_.direction == Direction::fwd) {
      cudnnConvolutionFwdAlgoPerf_t perf[kMax];
      GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnGetConvolutionForwardAlgorithm_v7, h_, x_, w_, conv_, y_, kMax, &n, perf);
      take(perf);
    } else if (p_.direction == Direction::bwd_data) {
      cudnnConvolutionBwdDataAlgoPerf_t perf[kMax];
      GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnGetConvolutionBackwardDataAlgorithm_v7, h_, w_, y_, conv_, x_, kMax, &n,
                                  perf);
      take(perf);
    } else {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[kMax];
      GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnGetConvolutionBackwardFilterAlgorithm_v7, h_, x_, y_, conv_, w_, kMax, &n,
                                  perf);
      take(perf);
    }
    return out;
  }

  // Usable results of cudnnFindConvolution*AlgorithmEx, fastest first. Runs
  // on the given buffers (overwrites out) with `ws` as the workspace.
  Result<std::vector<Choice>> find(void* ws, size_t ws_bytes) {
    constexpr int kMax = 32;
    int n = 0;
    std::vector<Choice> out;
    auto take = [&](const auto* perf) {
      for (int i = 0; i < n; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS) out.push_back({int(perf[i].algo), perf[i].mathType, perf[i].memory});
    };
    GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnSetStream, h_, nullptr);
    const void* a = bufs_.a;
    const void* b = bufs_.b;
    if (p_.direction == Direction::fwd) {
      cudnnConvolutionFwdAlgoPerf_t perf[kMax];
      GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnFindConvolutionForwardAlgorithmEx, h_, x_, a, w_, b, conv_, y_, bufs_.out,
                                  kMax, &n, perf, ws, ws_bytes);
      take(perf);
    } else if (p_.direction == Direction::bwd_data) {
      cudnnConvolutionBwdDataAlgoPerf_t perf[kMax];
      GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnFindConvolutionBackwardDataAlgorithmEx, h_, w_, b, y_, a, conv_, x_,
                                  bufs_.out, kMax, &n, perf, ws, ws_bytes);
      take(perf);
    } else {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[kMax];
      GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnFindConvolutionBackwardFilterAlgorithmEx, h_, x_, a, y_, b, conv_, w_,
                                  bufs_.out, kMax, &n, perf, ws, ws_bytes);
      take(perf);
    }
    return out;
  }

  // Enqueues one convolution with `c` on `stream` (out = op(a, b)).
  Status launch(const Choice& c, void* ws, size_t ws_bytes, cudaStream_t stream) {
    const float alpha = 1.0f, beta = 0.0f;  // float for every data type but double
    GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnSetConvolutionMathType, conv_, c.math);
    GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnSetStream, h_, stream);
    if (p_.direction == Direction::fwd) {
      GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnConvolutionForward, h_, &alpha, x_, bufs_.a, w_, bufs_.b, conv_,
                                  cudnnConvolutionFwdAlgo_t(c.algo), ws, ws_bytes, &beta, y_, bufs_.out);
    } else if (p_.direction == Direction::bwd_data) {
      GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnConvolutionBackwardData, h_, &alpha, w_, bufs_.b, y_, bufs_.a, conv_,
                                  cudnnConvolutionBwdDataAlgo_t(c.algo), ws, ws_bytes, &beta, x_, bufs_.out);
    } else {
      GCONV_CUDNN_RETURN_IF_ERROR(api_, cudnnConvolutionBackwardFilter, h_, &alpha, x_, bufs_.a, y_, bufs_.b, conv_,
                                  cudnnConvolutionBwdFilterAlgo_t(c.algo), ws, ws_bytes, &beta, w_, bufs_.out);
    }
    return Status::Ok();
  }

 private:
  const CudnnApi& api_;
  const Problem& p_;
  DeviceBuffers bufs_;
  cudnnHandle_t h_ = nullptr;
  cudnnTensorDescriptor_t x_ = nullptr, y_ = nullptr;
  cudnnFilterDescriptor_t w_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
};

// The first heuristic result whose workspace fits the limit (cuDNN's choice
// under that limit, as frameworks pick it).
Result<Choice> first_fitting(const Result<std::vector<Choice>>& h) {
  if (!h.ok()) return h.status();
  for (const Choice& c : *h)
    if (c.workspace <= kCudnnWorkspaceLimit) return c;
  return not_supported("cudnnGetConvolution*Algorithm_v7: no usable algorithm within the workspace limit");
}


}  // namespace

SweepRow cudnn_row(const Problem& p, const std::string& kernel) {
  SweepRow r;
  r.kernel = kernel;
  r.spec = p.to_spec();
  r.provider = "cudnn";
  r.family = "cudnn";
  r.problem = p;
  return r;
}

void set_cudnn_timing(SweepRow& r, const Problem& p, const Timing& t) {
  r.status = "ok";
  r.median_ms = t.median_ms;
  r.min_ms = t.min_ms;
  r.tflops = p.flops() / (r.median_ms * 1e-3) / 1e12;
  r.gbps = double(p.min_bytes()) / (r.median_ms * 1e-3) / 1e9;
}

Result<void*> workspace_for(size_t bytes, const DeviceBuffers& bufs, DevMem& own) {
  if (bytes == 0) return static_cast<void*>(nullptr);
  if (bufs.workspace && bufs.workspace_bytes >= bytes) return bufs.workspace;
  GCONV_RETURN_IF_ERROR(own.ensure(bytes));
  return own.p;
}

Status run_cudnn_once(const Problem& p, const DeviceBuffers& bufs, cudaStream_t stream) {
  GCONV_RETURN_IF_ERROR(p.validate());
  auto api = cudnn_api();
  if (!api.ok()) return api.status();
  auto shape = cudnn_shape(p);
  if (!shape.ok()) return shape.status();
  CudnnConv conv(**api, p, bufs);
  GCONV_RETURN_IF_ERROR(conv.create_handle());
  GCONV_RETURN_IF_ERROR(conv.describe(*shape));
  auto c = first_fitting(conv.heuristics());
  if (!c.ok()) return c.status();
  DevMem own;
  auto ws = workspace_for(c->workspace, bufs, own);
  if (!ws.ok()) return ws.status();
  GCONV_RETURN_IF_ERROR(conv.launch(*c, *ws, c->workspace, stream));
  return cuda_status(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

namespace {

// The two legacy rows (heuristic, best) of `p`, timed with `timer` on
// `stream`; returns a non-ok Status only for a fatal error (no device, a
// broken context).
Status legacy_rows(const CudnnApi& api, const Problem& p, const DeviceBuffers& bufs, const TimingOptions& timing,
                   Timer& timer, cudaStream_t stream, const std::function<void(const SweepRow&)>& on_row) {
  // A per-problem failure becomes both rows (nothing is dropped).
  auto both_rows = [&](const std::string& status, const std::string& why) {
    for (const char* k : {"cudnn_heuristic", "cudnn_best"}) {
      SweepRow r = cudnn_row(p, k);
      r.status = status;
      r.check = why.substr(0, 200);
      on_row(r);
    }
  };
  auto status_of = [](const Status& s) { return s.code() == StatusCode::not_supported ? "unsupported" : "launch_error"; };

  auto shape = cudnn_shape(p);
  if (!shape.ok()) {
    both_rows("unsupported", shape.status().message());
    return Status::Ok();
  }
  CudnnConv conv(api, p, bufs);
  GCONV_RETURN_IF_ERROR(conv.create_handle());
  if (Status s = conv.describe(*shape); !s.ok()) {
    both_rows(status_of(s), s.message());
    return Status::Ok();
  }
  DevMem own;

  // Times `c` and emits its row; returns a Status only for a broken context.
  auto time_row = [&](const std::string& prefix, const Result<Choice>& c) -> Status {
    if (!c.ok()) {
      SweepRow r = cudnn_row(p, prefix);
      r.status = status_of(c.status());
      r.check = c.status().message().substr(0, 200);
      on_row(r);
      return Status::Ok();
    }
    SweepRow r = cudnn_row(p, prefix + ":" + cudnn_algo_name(p.direction, c->algo));
    auto ws = workspace_for(c->workspace, bufs, own);
    Result<Timing> t = ws.ok() ? timer.time([&](cudaStream_t s) { return conv.launch(*c, *ws, c->workspace, s); },
                                             timing)
                               : Result<Timing>(ws.status());
    if (!t.ok()) {
      r.status = status_of(t.status());
      r.check = t.status().message().substr(0, 200);
      on_row(r);
      // A fault that poisons the context ends the sweep, as for gconv kernels.
      return cuda_status(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
    set_cudnn_timing(r, p, *t);
    r.check = "not checked; workspace " + std::to_string(c->workspace) + " B";
    on_row(r);
    return Status::Ok();
  };

  auto heur = conv.heuristics();
  Result<Choice> first = first_fitting(heur);
  GCONV_RETURN_IF_ERROR(time_row("cudnn_heuristic", first));

  // Exhaustive search with as much workspace as any heuristic result wants,
  // up to the limit (halved while the device cannot provide it).
  size_t want = 0;
  if (heur.ok())
    for (const Choice& c : *heur) want = std::max(want, std::min(c.workspace, kCudnnWorkspaceLimit));
  Result<void*> ws = workspace_for(want, bufs, own);
  while (!ws.ok() && ws.status().code() == StatusCode::out_of_memory && want > 0) {
    cudaGetLastError();
    want /= 2;
    ws = workspace_for(want, bufs, own);
  }
  if (!ws.ok()) return ws.status();
  auto found = conv.find(*ws, want);
  Result<Choice> best = !found.ok()      ? Result<Choice>(found.status())
                        : found->empty() ? Result<Choice>(not_supported("cudnnFind*AlgorithmEx: no algorithm ran"))
                                         : Result<Choice>(found->front());
  return time_row("cudnn_best", best);
}

}  // namespace

Status run_cudnn_rows(const Problem& p, const DeviceBuffers& bufs, const TimingOptions& timing,
                      const std::function<void(const SweepRow&)>& on_row) {
  GCONV_RETURN_IF_ERROR(p.validate());
  auto api = cudnn_api();
  if (!api.ok()) return api.status();
  // Device first: without one there are no rows at all (see the header). The
  // stream outlives both APIs' handles, whose last stream it is, and the timer.
  cudaStream_t stream = nullptr;
  GCONV_CUDA_RETURN_IF_ERROR(cudaStreamCreate(&stream));
  std::unique_ptr<cudaStream_t, void (*)(cudaStream_t*)> stream_guard(&stream, [](cudaStream_t* s) {
    cudaStreamDestroy(*s);
  });
  auto timer_r = Timer::create(stream);
  if (!timer_r.ok()) return timer_r.status();
  std::unique_ptr<Timer> timer = std::move(timer_r).value();
  GCONV_RETURN_IF_ERROR(legacy_rows(**api, p, bufs, timing, *timer, stream, on_row));
  return run_cudnn_graph_rows(**api, p, bufs, timing, *timer, stream, on_row, GraphTuneOptions::from_env());
}

}  // namespace gconv::bench
