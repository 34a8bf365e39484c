// Training the selector (`gconv train`): sweeps -> features -> XGBoost, with
// every reported metric out of fold (GroupKFold by layer shape, 5 folds), the
// objectives compared, the best one (highest out-of-fold mean efficiency)
// trained on all data and written as a model folder (heuristic/model.hpp).
//
// Objectives:
//   reg            reg:squarederror on log(ms) of each (problem, kernel)
//   reg_rel        reg:squarederror on log(ms / the problem's best ms): only
//                  the relative speed within a problem is learned
//   rank:pairwise  per problem (query group), label = efficiency (oracle ms / ms)
//   rank:ndcg      per problem, label = floor(31 * efficiency^2) (ndcg's
//                  graded relevance; squaring spreads the near-best kernels)
// Baselines, scored on the same folds: "single_best" (one kernel ranking by
// mean training efficiency) and "analytic" (the registry's cost model).
#pragma once

#include <string>
#include <vector>

#include "gconv/status.hpp"
#include "heuristic/dataset.hpp"
#include "heuristic/features.hpp"
#include "heuristic/metrics.hpp"
#include "heuristic/xgb.hpp"

namespace gconv::heuristic {

struct TrainOptions {
  std::vector<std::string> data;  // sweep CSVs
  bool strict = false;            // a row of an invalid problem is an error, not skipped (--strict)
  std::string out;                // model folder ("" = evaluate only)
  GpuProps gpu;                   // the GPU that measured the data
  std::vector<std::string> objectives = {"reg", "rank:pairwise", "rank:ndcg"};
  std::string objective;          // "" = choose by CV; else train this one (CV still reported)
  int folds = 5;
  TrainParams params;             // objective is set per run
  std::string warm_start;         // model folder to continue boosting from ("" = none)
  std::string source_revision;    // recorded in the manifest
  std::string model_format = "json";  // "json" (model.json) or "ubj" (model.ubj)
  // > 0: learn only from the rows the registry lets the model score
  // (heuristic/candidates.hpp, analytic top `candidates` + class bests);
  // efficiencies stay measured against each problem's full-pool oracle.
  int candidates = 0;
  // A cascade: the model folder `prefilter` (a cheaper model) ranks the
  // candidates first and this model scores only its best `prefilter_keep`
  // (Selector::score). The written folder holds a copy of it (prefilter/);
  // out-of-fold metrics are the cascade's (the prefilter as given, usually
  // trained on all the data: in sample for it).
  std::string prefilter;
  int prefilter_keep = 0;
};

struct CvResult {
  std::string name;  // objective or baseline name
  std::vector<std::pair<std::string, Summary>> slices;
  double seconds = 0;
};

struct TrainReport {
  LoadStats load;
  size_t rows = 0, problems = 0, shapes = 0;
  size_t rows_read = 0;  // before the candidate restriction (== rows without one)
  std::vector<CvResult> cv;  // objectives, then baselines
  std::string chosen;
  std::string text() const;  // a readable report
};

// The feature matrix of every row of d (rows x num_features(), row-major),
// with the features of `g` (threads: 0 = all cores).
std::vector<float> feature_matrix(const Dataset& d, const GpuProps& g, int threads = 0);

// Training rows of the groups with mask[g]: labels for `objective`.
TrainData make_train_data(const Dataset& d, const std::vector<float>& x, const std::vector<bool>& mask,
                          const std::string& objective);

Result<TrainReport> train_selector(const TrainOptions& o);

}  // namespace gconv::heuristic
