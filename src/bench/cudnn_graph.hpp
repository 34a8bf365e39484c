// cuDNN's graph (backend) API as the second half of `gconv bench --provider
// cudnn`: the path frameworks take (PyTorch through cudnn-frontend), whose
// engines are often much faster than the legacy API's algorithms on small
// and depthwise convolutions. Same problems, buffers and bench::Timer as the
// legacy rows (cudnn_provider.hpp), so every cuDNN row compares like for like.
//
// Per problem two rows, after the legacy ones:
//   cudnn_graph_heuristic:<engine>  cuDNN's own choice: the first engine config
//       of the heuristics (mode A, then FALLBACK) that finalizes into an
//       execution plan within kCudnnWorkspaceLimit of workspace;
//   cudnn_graph_best:<engine>       autotuning as PyTorch benchmark=True does:
//       the configs of mode A then FALLBACK, deduplicated by engine + knobs,
//       up to GraphTuneOptions::max_configs of them and within its time budget,
//       each finalized and timed; the fastest median wins and is timed again
//       for the row (so its time is not the minimum of noisy selections).
// The time budget keeps a problem's four cuDNN rows inside `gconv bench`'s
// per-item limit (--timeout-s, default 10 s; a timed-out item loses all its
// rows): finalizing a runtime-compiled engine can take a second or more.
// <engine> (graph_engine_name): "eng<global index>", then its notes and knobs,
// e.g. "eng3_tc_rtc_tile7_stages4" (one token, no ',' or ':').
//
// Which engines may run (graph_engine_excluded), PyTorch's rule with TF32
// allowed (its default for convolutions): every engine but those with
// CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS (they convert fp32 inputs to fp16
// first, beyond fp32 tolerances). Tensor-core engines run fp32 data as TF32,
// as gconv's fp32 kernels and the legacy rows do; FFT, Winograd and
// nondeterministic engines are allowed.
//
// Descriptors (attribute sequence in cudnn_graph_conv.cpp): tensors x (uid 1),
// w (2), y (3) in cuDNN's logical order N, C, spatial... (w: K, C/G,
// spatial...) with channels-last strides; groups are implied by x's C over
// w's C (the backend convolution has no group count). Cross-correlation,
// float compute, alpha 1 and beta 0 as floats, explicit pre and post paddings
// (so asymmetric padding works here, unlike the legacy API). A 1D problem runs
// as 2D with H = 1. The byte alignment declared for each tensor is that of its
// pointer (up to 16), as PyTorch computes it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench/cudnn_loader.hpp"
#include "bench/cudnn_provider.hpp"
#include "bench/sweep.hpp"
#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "perf/timer.hpp"

namespace gconv::bench {

inline constexpr const char* kGraphHeuristicRow = "cudnn_graph_heuristic";
inline constexpr const char* kGraphBestRow = "cudnn_graph_best";

struct GraphTuneOptions {
  int max_configs = 24;      // configs tried by cudnn_graph_best (the heuristic's is always among them)
  double budget_s = 4.0;     // no further config is tried once the graph rows took this long
  size_t workspace_limit = kCudnnWorkspaceLimit;

  // The defaults, overridden by $GCONV_CUDNN_GRAPH_CONFIGS and
  // $GCONV_CUDNN_GRAPH_BUDGET_S when set (a sweep over many problems trades
  // autotuning depth for time: each finalize of a runtime-compiled engine can
  // take a second).
  static GraphTuneOptions from_env();
};

// Emits the two graph rows of `p` (see above) through on_row, timing with the
// caller's timer on its stream. A per-problem failure (cuDNN rejects the
// problem, nothing finalizes) becomes both rows with status "unsupported" or
// "launch_error" and the reason in `check`. Errors (returned): a CUDA fault
// that leaves the context unusable, no device. `out` is overwritten.
Status run_cudnn_graph_rows(const CudnnApi& api, const Problem& p, const DeviceBuffers& bufs,
                            const TimingOptions& timing, Timer& timer, cudaStream_t stream,
                            const std::function<void(const SweepRow&)>& on_row, const GraphTuneOptions& opt = {});

// Runs the graph heuristic's plan once on `bufs` (on `stream`, then
// synchronizes), e.g. to check its output. not_supported where no engine
// config finalizes; not_found without cuDNN.
Status run_cudnn_graph_once(const Problem& p, const DeviceBuffers& bufs, cudaStream_t stream);

// ---- Pure logic (no cuDNN calls; unit-tested) ----

// The backend view of a problem: dims in cuDNN's logical order, channels-last
// strides, per-dimension pre/post paddings. `spatial` is 2 or 3.
struct GraphShape {
  int spatial = 2;
  std::vector<int64_t> x_dims, x_strides;  // x (dx for bwd_data)
  std::vector<int64_t> w_dims, w_strides;  // w (dw for bwd_weight): K, C/G, spatial...
  std::vector<int64_t> y_dims, y_strides;  // y (dy for the backward directions)
  std::vector<int64_t> pre_pad, post_pad, stride, dilation;
};
GraphShape cudnn_graph_shape(const Problem& p);

// What the heuristics say about one engine config.
struct GraphEngineInfo {
  int64_t engine = -1;                          // CUDNN_ATTR_ENGINE_GLOBAL_INDEX
  std::vector<std::pair<int, int64_t>> knobs;   // (cudnnBackendKnobType_t, value), sorted by type
  std::vector<int> numerical_notes;             // cudnnBackendNumericalNote_t values
  std::vector<int> behavior_notes;              // cudnnBackendBehaviorNote_t values
  bool knobs_known = true;                      // false: reading the knobs failed
};

// "eng<index>" + "_<note>" per note (tc, dci, rpr, fft, nd, wino, w4x4, w6x6,
// w13x13, nan, rtc, cublaslt, graph, ...; unknown ones "n<v>"/"b<v>") +
// "_<knob><value>" per knob (tile, stages, splitk, ...; unknown ones "k<t>=").
std::string graph_engine_name(const GraphEngineInfo& info);
// The short name of a knob type ("tile" for CUDNN_KNOB_TYPE_TILE_SIZE), "k<t>" if unknown.
std::string graph_knob_name(int knob_type);
// Dedupe key: engine index and knobs ("12|2=3|14=4"); a config whose knobs
// could not be read keys on `position` too, so it is never merged.
std::string graph_config_key(const GraphEngineInfo& info, size_t position);
// Indices of the first config of each key, in order.
std::vector<size_t> dedupe_graph_configs(const std::vector<GraphEngineInfo>& infos);
// "" when the engine may run (rule above), else why not.
std::string graph_engine_excluded(const GraphEngineInfo& info);
// Largest power of two up to 16 dividing the address (16 for nullptr).
int64_t graph_byte_alignment(const void* p);
// The two rows (heuristic, best) of a problem the graph path cannot run:
// status "unsupported" for not_supported, else "launch_error"; check = the
// message (200 characters at most).
std::vector<SweepRow> graph_failure_rows(const Problem& p, const Status& why);

}  // namespace gconv::bench
