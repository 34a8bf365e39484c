// The summary of `gconv bench --policy`: for each problem, the time of the
// kernel the selection policy picks (topk:K: the fastest of its K) beside
// the best time of a provider (cuDNN), and their geometric mean ratio over
// all problems, per direction and per network (a problem's `source`).
//
// Pure host code over sweep rows, so that it is tested without a GPU.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench/plan.hpp"

namespace gconv::bench {

struct PickResult {
  std::string direction;   // fwd | bwd_data | bwd_weight
  std::string network;     // the problem's source ("" = none)
  double gconv_ms = 0;     // the pick's median time; 0 = no ok row
  double provider_ms = 0;  // the provider's best median time; 0 = no ok row
};

struct SummarySlice {
  std::string name;        // "all", "fwd", ..., or "net resnet50"
  size_t problems = 0;     // problems of the slice
  size_t compared = 0;     // of them, with both times
  double speedup = 0;      // geometric mean of provider_ms / gconv_ms (> 1: gconv faster); 0 if none compared
  size_t gconv_wins = 0;   // compared problems where gconv is faster
};

// Collects sweep rows into one PickResult per plan problem (problems with
// the same spec share rows).
class PickTable {
 public:
  explicit PickTable(const Plan& plan);
  // One row: ok rows of provider "gconv" keep the fastest (topk), ok rows
  // of any other provider keep the fastest; other rows are ignored.
  void add_row(const std::string& spec, const std::string& provider, const std::string& status, double latency_ms);
  const std::vector<PickResult>& results() const { return results_; }

 private:
  std::vector<PickResult> results_;
  std::unordered_map<std::string, std::vector<size_t>> by_spec_;
};

// "all", then each direction present, then each network (sorted) when any
// problem names one.
std::vector<SummarySlice> summarize_picks(const std::vector<PickResult>& results);

// A table for stderr: one line per slice.
std::string format_pick_summary(const std::vector<SummarySlice>& slices, const std::string& policy,
                                const std::string& provider);

}  // namespace gconv::bench
