// cuDNN as a timing provider of `gconv bench --provider cudnn`: the same
// problems, buffers and timing (bench::Timer, L2 flush) as gconv's kernels,
// so the two columns compare like for like.
//
// Per problem four rows, through both of cuDNN 9's convolution APIs:
//   cudnn_heuristic:<algo>        legacy API, cuDNN's own choice (first usable
//                                 result of cudnnGetConvolution*Algorithm_v7),
//   cudnn_best:<algo>             legacy API, the fastest of
//                                 cudnnFindConvolution*AlgorithmEx (exhaustive
//                                 search) with up to kCudnnWorkspaceLimit of
//                                 workspace,
//   cudnn_graph_heuristic:<eng>   graph (backend) API, the heuristics' choice,
//   cudnn_graph_best:<eng>        graph API, autotuned over the heuristics'
//                                 engine configs (cudnn_graph.hpp).
// The graph rows are what frameworks get (PyTorch uses the graph API through
// cudnn-frontend); the legacy API is far slower on depthwise and small 1x1
// convolutions, so it alone would be an unfair baseline.
// Legacy API: channels-last tensors and filter, cross-correlation, fp32
// accumulation, TF32 allowed for fp32 data (as gconv uses TF32), tensor-op
// math for bf16/fp16. A 1D problem runs as 2D with H = 1. Asymmetric padding
// cannot be expressed there: such problems give legacy rows with status
// "unsupported" and the reason in `check` (the graph API handles them).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/device_memory.hpp"
#include "bench/sweep.hpp"
#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "perf/timer.hpp"

namespace gconv::bench {

// a/b/out as in kernels/family.hpp ConvArgs (fwd: x,w->y; bwd_data: dy,w->dx;
// bwd_weight: x,dy->dw). `workspace` is used when it is large enough for the
// algorithm; otherwise the provider allocates its own (up to the limit).
struct DeviceBuffers { const void* a; const void* b; void* out; void* workspace; size_t workspace_bytes; };

inline constexpr size_t kCudnnWorkspaceLimit = size_t(1) << 30;

// The caller's workspace (bufs.workspace) when it holds `bytes`, else `own`
// grown to `bytes`; null for 0 bytes. Shared by the legacy and graph rows.
Result<void*> workspace_for(size_t bytes, const DeviceBuffers& bufs, DevMem& own);

// Calls on_row four times for `p`, in the order above. Rows carry kernel,
// spec, provider and family "cudnn", problem, status ("ok", "unsupported",
// "launch_error"), times, tflops/gbps (computed as for gconv rows) and check =
// "not checked; workspace <bytes> B[; ...]" (or the reason for a non-ok
// status); `source` is left empty for the caller to fill.
// Errors (returned): cuDNN not loadable (not_found) or no device (no rows:
// both are known before the first row), a CUDA fault that leaves the context
// unusable (the rows so far stay emitted). `out` is overwritten.
Status run_cudnn_rows(const Problem& p, const DeviceBuffers& bufs, const TimingOptions& timing,
                      const std::function<void(const SweepRow&)>& on_row);

// Runs cuDNN's legacy heuristic algorithm once on `bufs` (on `stream`, then
// synchronizes), e.g. to check its output. not_supported where cuDNN cannot.
// (The graph API's counterpart: run_cudnn_graph_once, cudnn_graph.hpp.)
Status run_cudnn_once(const Problem& p, const DeviceBuffers& bufs, cudaStream_t stream);

// A cuDNN row of `p` with only the key fields set (kernel, spec, provider and
// family "cudnn", problem).
SweepRow cudnn_row(const Problem& p, const std::string& kernel);
// Status "ok", the times of `t`, and tflops/gbps computed from the median.
void set_cudnn_timing(SweepRow& r, const Problem& p, const Timing& t);

// ---- Pure descriptor math (no cuDNN calls; unit-tested) ----

// The cuDNN view of a problem. Dims are in cuDNN's logical order, N, C,
// spatial... (filter: K, C/G, spatial...); strides make the memory
// channels-last. `spatial` is 2 or 3.
struct CudnnShape {
  int spatial = 2;
  std::vector<int> x_dims, x_strides;  // input x (dx for bwd_data)
  std::vector<int> y_dims, y_strides;  // output y (dy for the backward directions)
  std::vector<int> w_dims;             // filter, set with CUDNN_TENSOR_NHWC
  std::vector<int> pad, stride, dilation;
  int groups = 1;
};

// Element strides of a tensor with logical dims {N, C, s0, s1, ...} stored
// channels-last (N, s0, s1, ..., C): stride(C) = 1, stride(last s) = C, ...
std::vector<int64_t> channels_last_strides(const std::vector<int64_t>& dims_nc);

// not_supported for asymmetric padding (the message names the dimension).
Result<CudnnShape> cudnn_shape(const Problem& p);

// "implicit_precomp_gemm", "algo_1", "winograd_nonfused", ... for a
// cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t value of p's direction.
std::string cudnn_algo_name(Direction d, int algo);

}  // namespace gconv::bench
