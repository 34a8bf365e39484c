// A trained selector model: a folder with
//   model.json     the XGBoost model (JSON; or model.ubj, UBJSON), read at run
//                  time by Forest; models/ ships it zstd-compressed (model.ubj.zst:
//                  a third smaller than JSON and faster to load)
//   manifest.json  format, feature schema id, objective and score sense, the
//                  GPU's properties, data files (with hashes), rows, problems,
//                  shapes, parameters, XGBoost version, source revision
//   features.json  the feature table (name, formula, why) the model was trained on
//   cv.json        out-of-fold metrics of every objective tried and the baselines
//   model.gcf      optional: the compact form of the model (Forest::write_compact),
//                  written by `gconv model compact` and named with its checksum in
//                  the manifest ("compact"); loaded in preference to model.*, by
//                  mapping it (milliseconds instead of a parse of ~0.7 s)
//   prefilter/     optional: a cheaper model folder (same layout) that ranks
//                  the candidates first; only its best `prefilter_keep` reach
//                  this model (a two-stage cascade: selection latency)
// Selector loads one and scores kernels for a problem (higher = better).
//
// Compatibility: a model whose feature schema differs from this build's is
// refused (its features would be read in the wrong order); one trained on
// another GPU type is used, with a warning (check_gpu).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gconv/problem.hpp"
#include "gconv/status.hpp"
#include "heuristic/features.hpp"
#include "heuristic/forest.hpp"
#include "kernels/traits.hpp"

namespace gconv::heuristic {

inline constexpr const char* kModelFormat = "gconv-selector/1";

struct Manifest {
  std::string format = kModelFormat;
  std::string feature_schema;  // feature_schema_id() at training
  int num_features = 0;
  // "reg" (XGBoost reg:squarederror on log(ms); score = -margin, predicted
  // ms = exp(margin)), "reg_rel" (log(ms / the problem's best ms); score =
  // -margin, no predicted time) or a rank objective ("rank:pairwise", "rank:ndcg";
  // score = margin, no predicted time).
  std::string objective;
  GpuProps gpu;
  // The data types the training data held ("dtypes"; absent = all): the
  // registry uses the model for these only, the analytic estimate otherwise.
  std::vector<DType> dtypes;
  // A cascade: the prefilter model's folder (relative to the model's) and
  // how many of its best-ranked candidates this model scores; "" / 0: none.
  std::string prefilter;
  int prefilter_keep = 0;
  // The compact form ("compact": {"file", "checksum", "source",
  // "source_checksum"}; "" when absent): its file name in the folder and its
  // header checksum, and the model file it was converted from with the
  // checksum of that file's (decompressed) bytes. A file whose checksum is
  // not the recorded one belongs to another model and is refused.
  std::string compact_file, compact_checksum, compact_source, compact_source_checksum;
  std::string json_text;  // the whole manifest as read / written
};

// Parses manifest.json text; parse_error naming the missing or bad key.
Result<Manifest> parse_manifest(const std::string& text);

// Model margins -> scores (higher = better) for a manifest objective.
void margins_to_scores(const std::string& objective, float* v, size_t n);

// The XGBoost objective a manifest objective trains with ("reg" and
// "reg_rel" fit log times by squared error; rank objectives are themselves).
std::string xgboost_objective(const std::string& manifest_objective);

// The model file training wrote in `dir`: model.{json,ubj}[.zst], the
// first that exists; not_found naming the folder when there is none.
Result<std::string> source_model_path(const std::string& dir);

// Writes dir/model.gcf from the folder's model file and records it in
// dir/manifest.json ("compact"), then the same for its prefilter folder.
// Reproducible: the same model gives the same bytes. `*written` (may be
// null) receives the paths written.
Status write_compact_model(const std::string& dir, std::vector<std::string>* written = nullptr);

class Selector {
 public:
  // Loads dir/manifest.json and the model: the compact file the manifest
  // names when it is there, else dir/model.{json,ubj}[.zst] (first found).
  // parse_error / not_found with the file named (also for a model whose
  // checksum or objective is not the manifest's); not_supported when the
  // feature schema differs.
  static Result<std::shared_ptr<const Selector>> load(const std::string& dir);

  const Manifest& manifest() const { return manifest_; }
  const Forest& forest() const { return forest_; }
  const std::string& dir() const { return dir_; }
  const std::string& model_path() const { return model_path_; }  // model.{json,ubj}[.zst]

  // Whether the model was trained on problems of this data type.
  bool covers(DType t) const;

  // "" when `current` is the GPU the model was trained on, else the warning.
  std::string check_gpu(const GpuProps& current) const;

  // Scores n kernels on p (higher = better). `scratch` is reused between
  // calls (no allocation once grown). Features use `g` / `d`.
  // With a prefilter and n > prefilter_keep, the prefilter scores all n and
  // this model only its best prefilter_keep (ties: the earlier kernel); the
  // others get the prefilter's score minus kDroppedOffset, so that they rank
  // below every kept kernel and keep the prefilter's order among themselves.
  void score(const Problem& p, const KernelTraits* const* kernels, size_t n, const GpuProps& g, const DeviceInfo& d,
             float* scores, std::vector<float>& scratch) const;
  // The same with each kernel's problem-free feature terms given
  // (terms[i] = kernel_feature_terms(*kernels[i], d)): the same scores.
  void score(const Problem& p, const KernelTraits* const* kernels, const KernelFeatureTerms* const* terms, size_t n,
             const GpuProps& g, const DeviceInfo& d, float* scores, std::vector<float>& scratch) const;

  // The model's predicted milliseconds for a score (regression models), or
  // -1 for rank models. A dropped kernel's score gives the prefilter's.
  double predicted_ms(float score) const;

  // The cascade's first stage (null: none) and how many it passes on.
  const Selector* prefilter() const { return prefilter_.get(); }
  int prefilter_keep() const { return manifest_.prefilter_keep; }
  static constexpr float kDroppedOffset = 1e4f;
  // Whether score() gave this score to a kernel the prefilter dropped.
  static bool dropped(float score) { return score < -kDroppedOffset / 2; }

 private:
  // `as_prefilter`: the stage is some model's prefilter, which must name no
  // prefilter of its own (checked before anything below it is read, so a
  // folder that points back at itself cannot recurse).
  static Result<std::shared_ptr<const Selector>> load_stage(const std::string& dir, bool as_prefilter);
  // score() from the n feature rows at scratch[0, n x num_features()).
  void score_rows(size_t n, float* scores, std::vector<float>& scratch) const;
  // scratch grown for n rows and what score_rows adds to them.
  void reserve_rows(size_t n, std::vector<float>& scratch) const;

  Manifest manifest_;
  Forest forest_;
  std::shared_ptr<const Selector> prefilter_;
  std::string dir_;
  std::string model_path_;
};

// The models folder: $GCONV_MODELS_DIR, else "models" beside config_dir()
// (the source tree's or the install's share/gconv).
std::string models_dir();

// `dir` itself when it is a model folder (holds manifest.json; used whatever
// its GPU, with the warning), else the model for this GPU among the
// subfolders of `dir`: one whose manifest
// names this GPU (gpu.name), else one of the same arch (used with a warning:
// `*warning` is set), else not_found. A subfolder whose manifest is unreadable
// is skipped and named in the not_found message; a chosen model that fails to
// load (corrupt model.json, other feature schema) is returned as that error.
Result<std::shared_ptr<const Selector>> find_model(const std::string& dir, const GpuProps& current,
                                                   std::string* warning);

}  // namespace gconv::heuristic
