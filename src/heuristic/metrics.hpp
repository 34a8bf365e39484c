// How well a selection does against the measured oracle of each problem.
//
// For one group (problem) of a Dataset, a scorer gives every measured kernel
// a score (higher = picked first). The pick is the top-scored row; its
// efficiency is oracle time / picked time (1 = the fastest kernel measured).
// Summaries: mean, median, P10 and min efficiency, top-1 accuracy (the pick
// is the oracle, or within 0.5% of it: repeated timings of one kernel differ
// by about that much) and "oracle in top 5", sliced by direction,
// dense/grouped/depthwise, 1D/2D/3D and small/large.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "heuristic/dataset.hpp"
#include "perf/device_info.hpp"

namespace gconv::heuristic {

struct GroupResult {
  size_t group = 0;
  size_t picked_row = 0;
  double efficiency = 0;  // oracle ms / picked ms
  bool top1 = false;
  bool oracle_in_top5 = false;
};

// scores: one per row of d (higher = better).
std::vector<GroupResult> evaluate_scores(const Dataset& d, const std::vector<float>& scores);

struct Summary {
  size_t problems = 0;
  double mean = 0, median = 0, p10 = 0, min = 0, top1 = 0, top5 = 0;
};
Summary summarize(const std::vector<GroupResult>& r);

// Slices, in a fixed order: "all", "fwd", "bwd_data", "bwd_weight", "dense",
// "grouped", "depthwise", "1d", "2d", "3d", "small", "large" (small: under
// kSmallFlops FLOPs). Empty slices are kept (problems = 0).
inline constexpr double kSmallFlops = 1e9;
std::vector<std::pair<std::string, Summary>> summarize_slices(const Dataset& d, const std::vector<GroupResult>& r);

// Baselines with the same scoring interface. single_best: one global ranking
// of kernels by their mean efficiency over `train_groups` (a kernel not
// measured on a group counts there as missing, not as zero), used for every
// problem: the "one kernel best on average" baseline.
std::vector<float> single_best_scores(const Dataset& d, const std::vector<bool>& train_groups);
// The analytic policy: -AnalyticBreakdown::order_key of each row on the
// device `dev` (the order the registry ranks and picks candidates by).
std::vector<float> analytic_scores(const Dataset& d, const DeviceInfo& dev);

// A table of the slices ("slice problems mean median p10 min top1 top5").
std::string format_slices(const std::vector<std::pair<std::string, Summary>>& s);

// Two selections of the same problems (gconv eval --compare): how often they
// pick the same kernel, and, where they differ, which pick is faster by more
// than the 0.5% two timings of one kernel differ by (else "tied").
// `a` and `b` are evaluate_scores() results of one Dataset (same groups, same
// order); a mismatch counts nothing and sets `problems` to 0.
struct Agreement {
  size_t problems = 0;
  size_t same_kernel = 0;      // both picked the same row
  size_t tied = 0;             // different kernels within 0.5% of each other
  size_t a_faster = 0, b_faster = 0;
};
Agreement compare_picks(const std::vector<GroupResult>& a, const std::vector<GroupResult>& b);

// The slices of two selections side by side, with b - a per metric:
// "slice problems mean(a b delta) p10(a b delta) min(a b delta) top1(a b)";
// a slice empty in both is left out.
std::string format_comparison(const std::vector<std::pair<std::string, Summary>>& a,
                              const std::vector<std::pair<std::string, Summary>>& b, const std::string& name_a,
                              const std::string& name_b);
std::string format_agreement(const Agreement& g, const std::string& name_a, const std::string& name_b);

}  // namespace gconv::heuristic
