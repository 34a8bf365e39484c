// A thin RAII wrapper over XGBoost's C API, for training and saving the
// kernel selector's models (the hot path predicts with heuristic::Forest).
//
// Conventions:
//  1. Every XGBoost call is checked; a failure becomes a Status whose message
//     names the call and carries XGBGetLastError()'s text.
//  2. Built without XGBoost (no GCONV_HAVE_XGBOOST), every fallible call
//     returns not_supported "built without XGBoost".
//  3. Feature matrices are dense, row-major float; NaN means "missing".
//  4. A Booster is movable, not copyable, and not thread-safe: one thread at
//     a time per object (XGBoost returns predictions in a per-booster buffer).
//     Distinct Boosters may be used from distinct threads.
//  5. XGBoost's own log lines (warnings only, verbosity 1) go to stderr.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gconv/status.hpp"

namespace gconv::heuristic {

// Training rows. `x` holds rows * cols floats, row-major.
struct TrainData {
  int rows = 0, cols = 0;
  std::vector<float> x;
  std::vector<float> label;  // one per row
  // Rank objectives: sizes of consecutive query groups, summing to rows.
  // Empty: no groups (rank objectives then see one group).
  std::vector<unsigned> group_sizes;
  // Optional. One per row; for rank objectives XGBoost wants one per group.
  std::vector<float> weight;
};

struct TrainParams {
  std::string objective = "reg:squarederror";
  int rounds = 300;
  int max_depth = 8;
  double eta = 0.1;
  double subsample = 0.8, colsample = 0.8;  // colsample -> colsample_bytree
  double min_child_weight = 1;
  double lambda = 1;
  std::string tree_method = "hist";
  int threads = 0;  // 0: XGBoost's default (all cores)
  int seed = 0;
  // Any other XGBoost parameter, set last (so it overrides the fields above).
  std::vector<std::pair<std::string, std::string>> extra;
};

// invalid_argument naming the parameter when one is out of range or not a
// number (XGBoost accepts eta = nan and writes a model nobody can load).
Status validate_params(const TrainParams& p);

class Booster {
 public:
  Booster() = default;  // empty: every call but the static ones fails with invalid_argument
  Booster(Booster&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  Booster& operator=(Booster&& o) noexcept;
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  ~Booster();

  // Trains params.rounds rounds. With warm_start (same feature count as
  // data.cols), boosting continues from a copy of that model: the result holds
  // its trees followed by params.rounds new ones. invalid_argument for
  // inconsistent data or parameters XGBoost rejects.
  static Result<Booster> train(const TrainData& data, const TrainParams& params,
                               const Booster* warm_start = nullptr);
  // A model file in XGBoost's JSON or UBJSON format (the content decides).
  // not_found / io_error for the file, parse_error for its content.
  static Result<Booster> load_file(const std::string& path);
  static Result<Booster> load_buffer(const std::string& bytes);

  // ".json" -> JSON, ".ubj" -> UBJSON, anything else invalid_argument. The
  // file is written beside and renamed into place (readers never see half a file).
  Status save_file(const std::string& path) const;
  Result<std::string> save_json() const;
  Result<std::string> save_ubjson() const;

  // rows * cols floats (row-major) -> rows predictions. output_margin: the raw
  // sum base_margin + leaves (what Forest::predict computes), else the
  // objective's transform of it. cols must equal num_features().
  Result<std::vector<float>> predict(const float* x, int rows, int cols, bool output_margin = true) const;
  // rows * (cols + 1) per-feature contributions, the last column the bias.
  // approx: XGBoost's path-based ("Saabas") contributions (as
  // Forest::contributions), else exact TreeSHAP.
  Result<std::vector<float>> contributions(const float* x, int rows, int cols, bool approx) const;

  int num_features() const;     // 0 for an empty Booster
  int boosted_rounds() const;   // 0 for an empty Booster
  bool empty() const { return handle_ == nullptr; }

  // "1.7.4", or "" when built without XGBoost.
  static std::string xgboost_version();

 private:
  explicit Booster(void* handle) : handle_(handle) {}
  Result<std::string> save_buffer(const char* format) const;
  Result<std::vector<float>> predict_type(const float* x, int rows, int cols, int type,
                                          size_t per_row) const;
  void* handle_ = nullptr;  // BoosterHandle
};

}  // namespace gconv::heuristic
