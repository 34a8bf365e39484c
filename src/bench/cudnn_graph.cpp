// The graph rows of the cuDNN provider (cudnn_graph.hpp): cuDNN's heuristic
// choice and the autotuned best, timed like every other row.
#include "bench/cudnn_graph.hpp"

#include "bench/device_memory.hpp"

#include <cstdlib>

#include <chrono>
#include <limits>
#include <memory>

#include "bench/cudnn_graph_conv.hpp"
#include "core/cuda_check.hpp"

namespace gconv::bench {

namespace {

// The caller's workspace when large enough, else `own` grown to `bytes`. A
// failed allocation leaves no sticky error (cleared here), so the config is
// skipped and the context stays usable.
Result<void*> graph_workspace(int64_t bytes, const DeviceBuffers& bufs, DevMem& own) {
  auto ws = workspace_for(bytes > 0 ? size_t(bytes) : 0, bufs, own);
  if (!ws.ok()) cudaGetLastError();
  return ws;
}

const char* row_status(const Status& s) { return s.code() == StatusCode::not_supported ? "unsupported" : "launch_error"; }

// A failure that is not cuDNN declining (not_supported) may have come from a
// CUDA fault: a stream that no longer synchronizes means the context is gone.
// (A usable context may still hold a non-sticky launch error: cleared, so
// it is not reported against a later call.)
Status context_check(const Status& failure, cudaStream_t stream) {
  if (failure.ok() || failure.code() == StatusCode::not_supported) return Status::Ok();
  GCONV_RETURN_IF_ERROR(cuda_status(cudaStreamSynchronize(stream), "cudaStreamSynchronize"));
  cudaGetLastError();
  return Status::Ok();
}

// Finalizes `c` and says whether it can run within `limit`; returns a non-ok
// Status only for a broken context.
Status prepare(GraphConv& conv, GraphCandidate& c, size_t limit, cudaStream_t stream, bool* usable) {
  *usable = false;
  const bool first = !c.tried;
  const Status s = conv.finalize(c);
  if (!s.ok()) return first ? context_check(s, stream) : Status::Ok();
  *usable = size_t(c.workspace) <= limit;
  return Status::Ok();
}

// "12 configs (3 duplicates, 1 excluded), 4 failed to finalize, 1 over the
// workspace limit; last error: ...": why nothing (or little) could run.
std::string summary(const GraphCandidates& cs, size_t limit) {
  size_t failed = 0, too_big = 0;
  std::string last;
  for (const GraphCandidate& c : cs.list) {
    if (!c.tried) continue;
    if (!c.plan_status.ok()) {
      ++failed;
      last = c.plan_status.message();
    } else if (size_t(c.workspace) > limit) {
      ++too_big;
    }
  }
  std::string s = std::to_string(cs.list.size()) + " configs (" + std::to_string(cs.duplicates) + " duplicates, " +
                  std::to_string(cs.excluded) + " excluded), " + std::to_string(failed) + " failed to finalize, " +
                  std::to_string(too_big) + " over the workspace limit";
  if (!last.empty()) s += "; last error: " + last;
  if (!cs.errors.empty()) s += "; " + cs.errors;
  return s;
}

}  // namespace

GraphTuneOptions GraphTuneOptions::from_env() {
  GraphTuneOptions o;
  if (const char* v = std::getenv("GCONV_CUDNN_GRAPH_CONFIGS")) o.max_configs = std::max(1, std::atoi(v));
  if (const char* v = std::getenv("GCONV_CUDNN_GRAPH_BUDGET_S")) o.budget_s = std::max(0.0, std::atof(v));
  return o;
}

Status run_cudnn_graph_rows(const CudnnApi& api, const Problem& p, const DeviceBuffers& bufs,
                            const TimingOptions& timing, Timer& timer, cudaStream_t stream,
                            const std::function<void(const SweepRow&)>& on_row, const GraphTuneOptions& opt) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  auto fail_rows = [&](const Status& why) {
    for (const SweepRow& r : graph_failure_rows(p, why)) on_row(r);
  };

  GraphConv conv(api, p, bufs);
  GCONV_RETURN_IF_ERROR(conv.create_handle());
  if (Status s = conv.build(); !s.ok()) {
    GCONV_RETURN_IF_ERROR(context_check(s, stream));
    fail_rows(s);
    return Status::Ok();
  }
  if (Status s = conv.find_candidates(); !s.ok()) {
    GCONV_RETURN_IF_ERROR(context_check(s, stream));
    fail_rows(s);
    return Status::Ok();
  }
  std::vector<GraphCandidate>& list = conv.candidates().list;
  DevMem own;

  // cuDNN's choice: the first config (mode A's, then FALLBACK's) that finalizes within the limit.
  size_t heur = list.size();
  for (size_t i = 0; i < list.size() && heur == list.size(); ++i) {
    bool usable = false;
    GCONV_RETURN_IF_ERROR(prepare(conv, list[i], opt.workspace_limit, stream, &usable));
    if (usable) heur = i;
  }
  if (heur == list.size()) {
    fail_rows(not_supported("cuDNN graph: no engine config finalizes within the workspace limit: " +
                            summary(conv.candidates(), opt.workspace_limit)));
    return Status::Ok();
  }

  auto time_config = [&](GraphCandidate& c) -> Result<Timing> {
    auto ws = graph_workspace(c.workspace, bufs, own);
    if (!ws.ok()) return ws.status();
    return timer.time([&](cudaStream_t s) { return conv.execute(c, *ws, s); }, timing);
  };
  // Emits the row of `c`; returns a non-ok Status only for a broken context.
  auto emit = [&](const char* prefix, const GraphCandidate& c, const Result<Timing>& t,
                  const std::string& note) -> Status {
    SweepRow r = cudnn_row(p, std::string(prefix) + ":" + c.name);
    if (!t.ok()) {
      r.status = row_status(t.status());
      r.check = t.status().message().substr(0, 200);
      on_row(r);
      return context_check(t.status(), stream);
    }
    set_cudnn_timing(r, p, *t);
    std::string check = "not checked; workspace " + std::to_string(c.workspace) + " B; " + note;
    if (t->gate_timeouts > 0) check += "; gate timeouts " + std::to_string(t->gate_timeouts);
    r.check = check.substr(0, 200);
    on_row(r);
    return Status::Ok();
  };

  GraphCandidate& hc = list[heur];
  const Result<Timing> heur_t = time_config(hc);
  GCONV_RETURN_IF_ERROR(emit(kGraphHeuristicRow, hc, heur_t,
                             std::string("mode ") + hc.mode + " config " + std::to_string(heur + 1) + " of " +
                                 std::to_string(list.size())));

  // Autotuning: the first max_configs configs (and the heuristic's), each
  // timed once; a config that fails to finalize or run is skipped.
  const size_t cap = size_t(std::max(opt.max_configs, 1));
  size_t timed = 0, run_failed = 0, skipped_budget = 0;
  size_t best = list.size();
  double best_ms = std::numeric_limits<double>::infinity();
  std::string last_run_error;
  std::vector<size_t> order;
  for (size_t i = 0; i < list.size() && i < cap; ++i) order.push_back(i);
  if (heur >= cap) order.push_back(heur);
  for (size_t i : order) {
    GraphCandidate& c = list[i];
    Result<Timing> t = heur_t;
    if (i != heur) {
      if (elapsed_s() > opt.budget_s) {
        ++skipped_budget;
        continue;
      }
      bool usable = false;
      GCONV_RETURN_IF_ERROR(prepare(conv, c, opt.workspace_limit, stream, &usable));
      if (!usable) continue;
      t = time_config(c);
    }
    if (!t.ok()) {
      if (i != heur) {
        ++run_failed;
        last_run_error = t.status().message();
        GCONV_RETURN_IF_ERROR(context_check(t.status(), stream));
      }
      continue;
    }
    ++timed;
    if (t->median_ms < best_ms) {
      best_ms = t->median_ms;
      best = i;
    }
  }
  if (best == list.size()) {
    SweepRow r = cudnn_row(p, kGraphBestRow);
    r.status = "launch_error";
    r.check = ("cuDNN graph: no config ran (" + std::to_string(run_failed) + " failed to run" +
               (last_run_error.empty() ? "" : ": " + last_run_error) + "; " +
               summary(conv.candidates(), opt.workspace_limit) + ")")
                  .substr(0, 200);
    on_row(r);
    return Status::Ok();
  }
  // The winner is timed again so that its row is one plain measurement, not
  // the minimum of noisy ones.
  GraphCandidate& bc = list[best];
  std::string note = "best of " + std::to_string(timed) + " timed of " + std::to_string(list.size()) + " configs";
  if (run_failed) note += ", " + std::to_string(run_failed) + " failed to run";
  if (skipped_budget) note += ", " + std::to_string(skipped_budget) + " skipped (time budget)";
  return emit(kGraphBestRow, bc, time_config(bc), note);
}

Status run_cudnn_graph_once(const Problem& p, const DeviceBuffers& bufs, cudaStream_t stream) {
  GCONV_RETURN_IF_ERROR(p.validate());
  auto api = cudnn_api();
  if (!api.ok()) return api.status();
  GraphConv conv(**api, p, bufs);
  GCONV_RETURN_IF_ERROR(conv.create_handle());
  GCONV_RETURN_IF_ERROR(conv.build());
  GCONV_RETURN_IF_ERROR(conv.find_candidates());
  DevMem own;
  for (GraphCandidate& c : conv.candidates().list) {
    bool usable = false;
    GCONV_RETURN_IF_ERROR(prepare(conv, c, kCudnnWorkspaceLimit, stream, &usable));
    if (!usable) continue;
    auto ws = graph_workspace(c.workspace, bufs, own);
    if (!ws.ok()) return ws.status();
    GCONV_RETURN_IF_ERROR(conv.execute(c, *ws, stream));
    return cuda_status(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
  return not_supported("cuDNN graph: no engine config finalizes within the workspace limit: " +
                       summary(conv.candidates(), kCudnnWorkspaceLimit));
}

}  // namespace gconv::bench
