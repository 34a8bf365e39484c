// The pure half of the cuDNN graph provider (cudnn_graph.hpp): the backend
// shape of a problem, engine names, config dedupe, the engine filter.
#include <algorithm>
#include <set>

#include "bench/cudnn_graph.hpp"

namespace gconv::bench {

GraphShape cudnn_graph_shape(const Problem& p) {
  GraphShape s;
  // 1D runs as 2D: slot 1 (H) of a 1D problem holds size 1, filter 1, stride
  // 1, pad 0, dilation 1 (problem.hpp), so taking slots 1..2 is exact.
  s.spatial = std::max(p.ndim, 2);
  const int first = 3 - s.spatial;
  s.x_dims = {p.n, p.c};
  s.y_dims = {p.n, p.k};
  s.w_dims = {p.k, p.c_per_group()};
  for (int i = first; i < 3; ++i) {
    s.x_dims.push_back(p.in[i]);
    s.y_dims.push_back(p.out(i));
    s.w_dims.push_back(p.filter[i]);
    s.pre_pad.push_back(p.pad_lo[i]);
    s.post_pad.push_back(p.pad_hi[i]);
    s.stride.push_back(p.stride[i]);
    s.dilation.push_back(p.dilation[i]);
  }
  // The filter is channels-last too (K, spatial..., C/G in memory): the same
  // stride rule with K in N's place and C/G in C's.
  s.x_strides = channels_last_strides(s.x_dims);
  s.y_strides = channels_last_strides(s.y_dims);
  s.w_strides = channels_last_strides(s.w_dims);
  return s;
}

std::string graph_knob_name(int t) {
  // Indexed by cudnnBackendKnobType_t (cudnn_graph.h, cuDNN 9); values past
  // the table (a newer cuDNN) print as numbers.
  static const char* const kNames[] = {
      "splitk",    "swizzle",   "tile",     "tex",      "edge",    "kblock",  "ldga",      "ldgb",
      "chunkk",    "splith",    "winotile", "mult",     "splitkbuf", "tilek", "stages",    "redmode",
      "ctasplitk", "splitkslc", "idx",      "sliced",   "splitrs", "singlebuf", "ldgc",    "specfilt",
      "kcfg",      "ws",        "cga",      "cgam",     "cgan",    "block",   "occ",       "arr",
      "cperblk",   "splitcols", "tilerows", "tilecols", "load",    "ctas",    "streamk",   "splitpslc",
      "tilem",     "tilen",     "warpspec", "swapab"};
  constexpr int n = int(sizeof(kNames) / sizeof(kNames[0]));
  return t >= 0 && t < n ? kNames[t] : "k" + std::to_string(t) + "=";
}

namespace {

std::string numerical_note_name(int v) {
  static const char* const kNames[] = {"tc", "dci", "rpr", "fft", "nd", "wino", "w4x4", "w6x6", "w13x13", "nan"};
  constexpr int n = int(sizeof(kNames) / sizeof(kNames[0]));
  return v >= 0 && v < n ? kNames[v] : "n" + std::to_string(v);
}

std::string behavior_note_name(int v) {
  static const char* const kNames[] = {"rtc", "f8x32", "b8x32", "graph", "cublaslt"};
  constexpr int n = int(sizeof(kNames) / sizeof(kNames[0]));
  return v >= 0 && v < n ? kNames[v] : "b" + std::to_string(v);
}

}  // namespace

std::string graph_engine_name(const GraphEngineInfo& info) {
  std::string s = "eng" + std::to_string(info.engine);
  for (int v : info.numerical_notes) s += "_" + numerical_note_name(v);
  for (int v : info.behavior_notes) s += "_" + behavior_note_name(v);
  for (const auto& [t, v] : info.knobs) s += "_" + graph_knob_name(t) + std::to_string(v);
  return s;
}

std::string graph_config_key(const GraphEngineInfo& info, size_t position) {
  std::string k = std::to_string(info.engine);
  if (!info.knobs_known) return k + "|?" + std::to_string(position);
  std::vector<std::pair<int, int64_t>> knobs = info.knobs;
  std::sort(knobs.begin(), knobs.end());
  for (const auto& [t, v] : knobs) k += "|" + std::to_string(t) + "=" + std::to_string(v);
  return k;
}

std::vector<size_t> dedupe_graph_configs(const std::vector<GraphEngineInfo>& infos) {
  std::set<std::string> seen;
  std::vector<size_t> keep;
  for (size_t i = 0; i < infos.size(); ++i)
    if (seen.insert(graph_config_key(infos[i], i)).second) keep.push_back(i);
  return keep;
}

std::string graph_engine_excluded(const GraphEngineInfo& info) {
  for (int v : info.numerical_notes)
    if (v == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) return "down-converts its inputs (CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS)";
  return "";
}

int64_t graph_byte_alignment(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (a == 0) return 16;
  const uintptr_t low = a & (~a + 1);  // lowest set bit
  return int64_t(std::min<uintptr_t>(low, 16));
}

std::vector<SweepRow> graph_failure_rows(const Problem& p, const Status& why) {
  std::vector<SweepRow> rows;
  for (const char* k : {kGraphHeuristicRow, kGraphBestRow}) {
    SweepRow r = cudnn_row(p, k);
    r.status = why.code() == StatusCode::not_supported ? "unsupported" : "launch_error";
    r.check = why.message().substr(0, 200);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace gconv::bench
