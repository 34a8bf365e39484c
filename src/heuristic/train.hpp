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

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gconv/status.hpp"
#include "heuristic/dataset.hpp"
#include "heuristic/features.hpp"
#include "heuristic/forest.hpp"
#include "heuristic/metrics.hpp"
#include "heuristic/xgb.hpp"

namespace gconv::heuristic {

class Selector;

struct TrainOptions {
  std::vector<std::string> data;  // sweep CSVs
  bool strict = false;            // a row of an invalid problem is an error, not skipped (--strict)
  // Kernels (filter expression) whose rows are read only from the `fresh`
  // files (dataset.hpp StaleRows); "" = every row of every file.
  std::string stale_kernels;
  std::vector<std::string> fresh;
  std::string out;                // model folder ("" = evaluate only)
  GpuProps gpu;                   // the GPU that measured the data
  std::vector<std::string> objectives = {"reg", "rank:pairwise", "rank:ndcg"};
  std::string objective;          // "" = choose by CV; else train this one (CV still reported)
  int folds = 5;
  TrainParams params;             // objective is set per run
  // Model folder to continue boosting from ("" = none). The new trees use
  // its objective (another --objective is refused) and, for every parameter
  // not in `params_given`, its parameters (manifest "params"); a cascade
  // keeps its prefilter and keep count unless `prefilter` names another.
  std::string warm_start;
  // Names of the TrainParams fields set explicitly ("max_depth", "eta",
  // "subsample", "colsample", "min_child_weight", "lambda", "seed"):
  // those override a warm start's.
  std::set<std::string> params_given;
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

// One feature's weight in a trained forest: XGBoost's "total_gain" (the sum
// of the loss reductions of its splits), its share of all gain, and its
// number of splits.
struct FeatureImportance {
  std::string name;
  double gain = 0, gain_share = 0;
  int splits = 0;
};

// Every feature of the forest (names from feature_table()), most gain first;
// features never split on come last (gain 0), in table order.
std::vector<FeatureImportance> feature_importance(const Forest& f);

// The table as CSV ("rank,feature,gain,gain_share,splits"), written as
// importance.csv beside every trained model.
std::string importance_csv(const std::vector<FeatureImportance>& v);

struct TrainReport {
  LoadStats load;
  size_t rows = 0, problems = 0, shapes = 0;
  size_t rows_read = 0;  // before the candidate restriction (== rows without one)
  std::vector<CvResult> cv;  // objectives, then baselines
  std::string chosen;
  std::vector<FeatureImportance> importance;  // of the written model (empty: none written)
  std::vector<std::string> notes;             // what a warm start kept, and the like
  std::string text() const;  // a readable report
};

// The feature matrix of every row of d (rows x num_features(), row-major),
// with the features of `g` (threads: 0 = all cores).
std::vector<float> feature_matrix(const Dataset& d, const GpuProps& g, int threads = 0);

// Training rows of the groups with mask[g]: labels for `objective`.
TrainData make_train_data(const Dataset& d, const std::vector<float>& x, const std::vector<bool>& mask,
                          const std::string& objective);

Result<TrainReport> train_selector(const TrainOptions& o);

// What a --model argument names: one model folder (it holds manifest.json)
// or a folder of models (a subfolder holds one), as the registry takes
// (find_model). not_found when `dir` is not a folder; invalid_argument
// "<dir> is not a model folder (no manifest.json) nor a folder of models"
// otherwise. Commands check an explicit --model with it instead of falling
// back to the analytic estimate without a word.
enum class ModelFolderKind { model, folder_of_models };
Result<ModelFolderKind> model_folder_kind(const std::string& dir);

// The model a --model argument names for data measured on `gpu_name`: the
// folder itself when it is a model, else the subfolder model trained on
// that GPU, else the only model of the folder. invalid_argument listing the
// models when none fits; `*chosen` (may be null) gets the folder loaded.
Result<std::shared_ptr<const Selector>> load_model_for_data(const std::string& dir, const std::string& gpu_name,
                                                            std::string* chosen = nullptr);

}  // namespace gconv::heuristic
