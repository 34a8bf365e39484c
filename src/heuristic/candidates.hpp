// Which candidates the learned model scores for a problem.
//
// Scoring every applicable kernel with the shipped main model (400 trees of
// depth 10) costs ~5 us per kernel, so the model sees a subset chosen by the
// analytic estimate (and, with a cascade, only a prefilter's best of it). The
// analytic estimate's errors are correlated within
// kernel classes (it misjudges split-K, small tiles or narrow vectors as a
// whole), so a plain top K can miss a whole class: on bwd_weight the best
// kernel is often a split-K one the estimate ranks low. The subset is
// therefore the analytic top K plus the analytic best kernel of every class
// (kernel_class) not already among them.
//
// Compared on the training sweeps, model-independently (efficiency of the
// best measured kernel inside the subset, full pools, 7,162 problems): top 32
// 0.993, top 32 + classes (37 kernels on average) 0.997, top 48 0.998, top 64
// 0.999; and on validation_holdout with the previous one-stage model (so the
// holdout was seen while choosing K): top 64 0.983, top 32 + classes 0.982
// (every direction >= 0.98), top 32 0.977. Training learns from the same
// subset (model_candidate_rows; gconv train --candidates); models/README.md
// has the shipped model's numbers.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "heuristic/dataset.hpp"
#include "heuristic/model.hpp"
#include "kernels/traits.hpp"

namespace gconv::heuristic {

// A small id of the kernel's class: direct tile kernels (0), with their
// deterministic and register-window kernels as two more classes; igemm
// kernels (1..30) and wgmma kernels (31..60) each by split-K mode (none /
// parallel / serial) x tile area (>= 128x128 or smaller) x vector width. The
// analytic model judges the two GEMM families by different tensor rates, so
// each family keeps its own best candidate.
int kernel_class(const KernelTraits& t);

// The kernels the model scores for a problem: the first `top_k` of the
// analytic order (AnalyticBreakdown::order_key: the estimate, ties broken by
// the term its max() hides), then the first kernel of every class not yet represented
// (top_k <= 0 or n <= top_k: all). `order` holds (analytic estimate, id) of
// every applicable kernel in any order; ascending pairs (ties by id) are the
// analytic order. cls[id] is the kernel's kernel_class. `kept` receives the
// chosen pairs in analytic order; `order` is permuted. Found without sorting
// the whole list (selection latency: a pool is ~150 kernels, the model sees
// ~35); no allocation once `kept` has grown. The registry, training and
// evaluation all choose through it.
void model_candidates_unsorted(std::vector<std::pair<double, uint32_t>>& order, const uint8_t* cls, int top_k,
                               std::vector<std::pair<double, uint32_t>>& kept);

// Per row of d: whether the registry would let the model score it, given
// each row's analytic score (analytic_scores: higher = better; ties keep
// the rows' order, as the registry keeps pool order). top_k <= 0: every row.
// Evaluation scores only these rows; training may learn only from them.
std::vector<bool> model_candidate_rows(const Dataset& d, const std::vector<float>& analytic, int top_k);

// Per row of d: whether it is among the `keep` highest scores of its group
// (ties: the earlier row); keep <= 0: every row. The cascade's second stage
// sees these.
std::vector<bool> top_rows_by_score(const Dataset& d, const std::vector<float>& scores, int keep);

// How well a candidate subset (model_candidate_rows) can do at best: per
// problem its fastest candidate against the problem's oracle (its fastest
// row, or the dataset's oracle_ms).
struct CandidateCoverage {
  size_t problems = 0;
  double mean_candidates = 0;  // candidates per problem
  double oracle_outside = 0;   // share of problems whose oracle kernel is not a candidate
  double mean_ceiling = 0;     // mean of oracle time / fastest candidate's time
  double min_ceiling = 1;
};
CandidateCoverage candidate_coverage(const Dataset& d, const std::vector<bool>& rows);

// Selector::score of the rows with rows[row], problem by problem, as
// selection scores a candidate list; the other rows get -1e30.
std::vector<float> score_rows(const Selector& s, const Dataset& d, const std::vector<bool>& rows, const GpuProps& g,
                              const DeviceInfo& dev);

}  // namespace gconv::heuristic
