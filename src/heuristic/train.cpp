#include "heuristic/train.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <thread>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "heuristic/candidates.hpp"
#include "heuristic/model.hpp"
#include "jit/hash.hpp"
#include "jit/thread_pool.hpp"
#include "problem/read_text.hpp"

namespace gconv::heuristic {
namespace {

using json = nlohmann::ordered_json;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string xgb_objective(const std::string& o) { return xgboost_objective(o); }

json slices_json(const std::vector<std::pair<std::string, Summary>>& s) {
  json j = json::object();
  for (const auto& [name, x] : s)
    j[name] = {{"problems", x.problems}, {"mean", x.mean},   {"median", x.median}, {"p10", x.p10},
               {"min", x.min},           {"top1", x.top1},   {"top5", x.top5}};
  return j;
}

Status write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    if (!f) return io_error(path + ": cannot write");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return io_error(path + ": " + ec.message());
  return Status::Ok();
}

// Continues a model as it was trained: its objective, its parameters (those
// not given explicitly) and its prefilter; what was kept goes to `notes`.
Status apply_warm_start(const Selector& warm, TrainOptions* o, std::vector<std::string>* notes) {
  const Manifest& m = warm.manifest();
  if (o->objective.empty()) {
    o->objective = m.objective;
    notes->push_back("warm start: objective " + m.objective + " (the model's)");
  } else if (o->objective != m.objective) {
    return invalid_argument("--warm-start " + o->warm_start + " was trained with objective " + m.objective +
                            "; boosting it on with " + o->objective + " would mix two targets in one model");
  }
  const json j = json::parse(m.json_text, nullptr, /*allow_exceptions=*/false);
  const json* params = j.is_object() && j.contains("params") && j["params"].is_object() ? &j["params"] : nullptr;
  if (params == nullptr) {
    notes->push_back("warm start: the model records no parameters; the given ones are used");
  } else {
    std::string kept;
    auto take = [&](const char* key, const char* field, auto* dst) {
      if (o->params_given.count(field) || !params->contains(key) || !(*params)[key].is_number()) return;
      *dst = (*params)[key].get<std::remove_pointer_t<decltype(dst)>>();
      kept += fmt::format("{}{}={}", kept.empty() ? "" : " ", field, *dst);
    };
    take("max_depth", "max_depth", &o->params.max_depth);
    take("eta", "eta", &o->params.eta);
    take("subsample", "subsample", &o->params.subsample);
    take("colsample_bytree", "colsample", &o->params.colsample);
    take("min_child_weight", "min_child_weight", &o->params.min_child_weight);
    take("lambda", "lambda", &o->params.lambda);
    take("seed", "seed", &o->params.seed);
    if (!kept.empty()) notes->push_back("warm start: the model's parameters kept: " + kept);
  }
  if (!m.prefilter.empty()) {
    if (o->prefilter.empty()) {
      o->prefilter = (std::filesystem::path(warm.dir()) / m.prefilter).string();
      if (o->prefilter_keep < 1) o->prefilter_keep = m.prefilter_keep;
      notes->push_back(fmt::format("warm start: the cascade's prefilter kept ({}, keep {})", o->prefilter,
                                   o->prefilter_keep));
    } else {
      notes->push_back("warm start: the cascade's prefilter replaced by --prefilter " + o->prefilter);
    }
  }
  return Status::Ok();
}

std::string file_hash(const std::string& path) {
  auto t = problem_io::read_text_file(path);
  if (!t.ok()) return "unreadable";
  return jit::hash_bytes(t->data(), t->size()).hex();
}

}  // namespace

std::vector<float> feature_matrix(const Dataset& d, const GpuProps& g, int threads) {
  const size_t nf = size_t(num_features());
  std::vector<float> x(d.rows() * nf);
  const DeviceInfo dev = device_info_for(g);
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  // Parallel over groups: a group's rows share the problem.
  jit::parallel_for(d.groups(), threads, [&](size_t g2) {
    for (size_t r = d.begin[g2]; r < d.begin[g2 + 1]; ++r)
      compute_features(d.problems[g2], d.kernels[r], g, dev, x.data() + r * nf);
  });
  return x;
}

TrainData make_train_data(const Dataset& d, const std::vector<float>& x, const std::vector<bool>& mask,
                          const std::string& objective) {
  const size_t nf = size_t(num_features());
  TrainData t;
  t.cols = int(nf);
  for (size_t g = 0; g < d.groups(); ++g) {
    if (!mask[g]) continue;
    const float best = d.best_ms(g);
    t.group_sizes.push_back(unsigned(d.begin[g + 1] - d.begin[g]));
    for (size_t r = d.begin[g]; r < d.begin[g + 1]; ++r) {
      t.x.insert(t.x.end(), x.begin() + long(r * nf), x.begin() + long((r + 1) * nf));
      const float eff = best / d.time_ms[r];
      float label;
      if (objective == "reg") label = std::log(d.time_ms[r]);
      else if (objective == "reg_rel") label = std::log(d.time_ms[r] / best);
      else if (objective == "rank:ndcg") label = std::floor(31.0f * eff * eff);
      else label = eff;
      t.label.push_back(label);
    }
  }
  t.rows = int(t.label.size());
  if (objective == "reg" || objective == "reg_rel") t.group_sizes.clear();
  return t;
}

std::string TrainReport::text() const {
  std::string s = fmt::format("data: {}\n{} rows, {} problems, {} shapes; out-of-fold (GroupKFold by shape)\n",
                              load.summary(), rows, problems, shapes);
  if (rows_read != rows)
    s += fmt::format("(rows restricted to the model's candidates: {} of {} read; efficiency against the full oracle)\n",
                     rows, rows_read);
  for (const auto& n : notes) s += n + "\n";
  for (const auto& c : cv) {
    s += fmt::format("\n== {}{} ({:.1f} s)\n", c.name, c.name == chosen ? "  [chosen]" : "", c.seconds);
    s += format_slices(c.slices);
  }
  if (!importance.empty()) {
    s += "\nfeature importance of the model (total gain; all features in importance.csv)\n";
    for (size_t i = 0; i < importance.size() && i < 10; ++i)
      s += fmt::format("  {:>2}. {:<32} {:>6.2f}%  {} splits\n", i + 1, importance[i].name,
                       100.0 * importance[i].gain_share, importance[i].splits);
  }
  return s;
}

std::vector<FeatureImportance> feature_importance(const Forest& f) {
  const auto& table = feature_table();
  const auto& gain = f.feature_gain();
  const auto& splits = f.feature_splits();
  std::vector<FeatureImportance> v;
  double total = 0;
  for (size_t i = 0; i < gain.size(); ++i) total += gain[i];
  for (size_t i = 0; i < gain.size() && i < splits.size(); ++i)
    v.push_back({i < table.size() ? table[i].name : "f" + std::to_string(i), gain[i],
                 total > 0 ? gain[i] / total : 0.0, splits[i]});
  std::stable_sort(v.begin(), v.end(), [](const FeatureImportance& a, const FeatureImportance& b) {
    return a.gain > b.gain || (a.gain == b.gain && a.splits > b.splits);
  });
  return v;
}

std::string importance_csv(const std::vector<FeatureImportance>& v) {
  std::string out = "rank,feature,gain,gain_share,splits\n";
  for (size_t i = 0; i < v.size(); ++i)
    out += fmt::format("{},{},{:.6g},{:.6f},{}\n", i + 1, v[i].name, v[i].gain, v[i].gain_share, v[i].splits);
  return out;
}

Result<ModelFolderKind> model_folder_kind(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return not_found("no such folder: " + dir);
  if (fs::exists(fs::path(dir) / "manifest.json", ec)) return ModelFolderKind::model;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec) && fs::exists(it->path() / "manifest.json", ec)) return ModelFolderKind::folder_of_models;
  return invalid_argument(dir +
                          " is not a model folder (no manifest.json) nor a folder of models (no subfolder has one)");
}

Result<std::shared_ptr<const Selector>> load_model_for_data(const std::string& dir, const std::string& gpu_name,
                                                            std::string* chosen) {
  namespace fs = std::filesystem;
  auto kind = model_folder_kind(dir);
  if (!kind.ok()) return kind.status();
  std::string pick = dir;
  if (*kind == ModelFolderKind::folder_of_models) {
    std::vector<std::string> models, same_gpu;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (!it->is_directory(ec) || !fs::exists(it->path() / "manifest.json", ec)) continue;
      models.push_back(it->path().string());
      auto text = problem_io::read_text_file((it->path() / "manifest.json").string());
      auto m = text.ok() ? parse_manifest(*text) : Result<Manifest>(text.status());
      if (m.ok() && m->gpu.name == gpu_name) same_gpu.push_back(models.back());
    }
    std::sort(models.begin(), models.end());
    std::sort(same_gpu.begin(), same_gpu.end());
    if (!same_gpu.empty()) {
      pick = same_gpu.front();
    } else if (models.size() == 1) {
      pick = models.front();
    } else {
      std::string names;
      for (const auto& m : models) names += (names.empty() ? "" : ", ") + m;
      return invalid_argument(dir + " is a folder of models and none was trained on " + gpu_name +
                              " (the data's GPU); give one of them: " + names);
    }
  }
  if (chosen) *chosen = pick;
  return Selector::load(pick);
}

Result<TrainReport> train_selector(const TrainOptions& given) {
  TrainReport rep;
  TrainOptions o = given;
  std::optional<Booster> warm;
  if (!o.warm_start.empty()) {
    auto m = Selector::load(o.warm_start);  // checks the schema
    if (!m.ok()) {
      auto kind = model_folder_kind(o.warm_start);
      if (kind.ok() && *kind == ModelFolderKind::folder_of_models)
        return invalid_argument("--warm-start " + o.warm_start +
                                " is a folder of models; give the one model folder to continue (a subfolder)");
      return Status(m.status().code(), "--warm-start: " + m.status().message());
    }
    GCONV_RETURN_IF_ERROR(apply_warm_start(**m, &o, &rep.notes));
    const std::string path = (*m)->model_path();
    auto text = problem_io::read_text_file(path);  // shipped models are .zst
    if (!text.ok()) return text.status();
    auto b = Booster::load_buffer(*text);
    if (!b.ok()) return Status(b.status().code(), path + ": " + b.status().message());
    warm.emplace(std::move(*b));
  }
  // Before the data is read: a bad parameter fails in a moment, not after
  // minutes of loading.
  GCONV_RETURN_IF_ERROR(validate_params(o.params));
  auto stale = make_stale_rows(o.stale_kernels, o.fresh, o.data);
  if (!stale.ok()) return stale.status();
  auto d = load_sweeps(o.data, &rep.load, 2, o.strict, &*stale);
  if (!d.ok()) return d.status();
  if (o.gpu.name != "none" && o.gpu.name != d->gpu)
    return invalid_argument("the data was measured on " + d->gpu + " but --gpu describes " + o.gpu.name);
  rep.rows_read = d->rows();
  if (o.candidates > 0) {
    const std::vector<float> an = analytic_scores(*d, device_info_for(o.gpu));
    *d = keep_rows(*d, model_candidate_rows(*d, an, o.candidates));
  }
  // A cascade: the prefilter's scores and the rows it passes on. The model
  // itself learns from every (candidate) row; out-of-fold metrics are those
  // of the cascade, as Selector::score runs it.
  std::shared_ptr<const Selector> pre;
  std::vector<float> pre_scores;
  std::vector<bool> kept;
  if (!o.prefilter.empty()) {
    if (o.prefilter_keep < 1) return invalid_argument("--prefilter needs --prefilter-keep >= 1");
    auto m = Selector::load(o.prefilter);
    if (!m.ok()) return Status(m.status().code(), "--prefilter: " + m.status().message());
    if ((*m)->prefilter()) return invalid_argument("--prefilter " + o.prefilter + " is a cascade itself");
    if (!((*m)->manifest().gpu == o.gpu))
      return invalid_argument("--prefilter " + o.prefilter + " was trained for another GPU than --gpu");
    pre = *m;
    // The prefilter's scores of every row, as selection computes them.
    pre_scores = score_rows(*pre, *d, std::vector<bool>(d->rows(), true), o.gpu, device_info_for(o.gpu));
    kept = top_rows_by_score(*d, pre_scores, o.prefilter_keep);
  }
  rep.rows = d->rows();
  rep.problems = d->groups();
  std::set<std::string> shapes;
  for (const auto& p : d->problems) shapes.insert(shape_key(p));
  rep.shapes = shapes.size();
  const int folds = std::max(2, o.folds);
  if (int(shapes.size()) < folds)
    return invalid_argument("need at least " + std::to_string(folds) + " distinct shapes for " +
                            std::to_string(folds) + "-fold cross-validation, have " + std::to_string(shapes.size()));

  const std::vector<float> x = feature_matrix(*d, o.gpu, o.params.threads);
  const std::vector<int> fold = group_k_fold(*d, folds);
  const size_t nf = size_t(num_features());

  // Out-of-fold scores of each objective.
  auto oof = [&](const std::string& objective) -> Result<std::vector<float>> {
    std::vector<float> scores(d->rows(), 0.0f);
    for (int f = 0; f < folds; ++f) {
      std::vector<bool> train(d->groups()), test(d->groups());
      for (size_t g = 0; g < d->groups(); ++g) (fold[g] == f ? test : train)[g] = true;
      TrainData td = make_train_data(*d, x, train, objective);
      TrainParams p = o.params;
      p.objective = xgb_objective(objective);
      auto b = Booster::train(td, p);
      if (!b.ok()) return b.status();
      for (size_t g = 0; g < d->groups(); ++g) {
        if (!test[g]) continue;
        const size_t r0 = d->begin[g], n = d->begin[g + 1] - r0;
        auto pr = b->predict(x.data() + r0 * nf, int(n), int(nf), true);
        if (!pr.ok()) return pr.status();
        std::copy(pr->begin(), pr->end(), scores.begin() + long(r0));
      }
    }
    margins_to_scores(objective, scores.data(), scores.size());
    if (pre)
      for (size_t r = 0; r < scores.size(); ++r)
        if (!kept[r]) scores[r] = pre_scores[r] - Selector::kDroppedOffset;
    return scores;
  };

  double best_mean = -1;
  for (const auto& objective : o.objectives) {
    const auto t0 = std::chrono::steady_clock::now();
    auto s = oof(objective);
    if (!s.ok()) return Status(s.status().code(), objective + ": " + s.status().message());
    CvResult c{objective, summarize_slices(*d, evaluate_scores(*d, *s)), seconds_since(t0)};
    const double mean = c.slices.front().second.mean;
    if (o.objective.empty() ? mean > best_mean : objective == o.objective) {
      best_mean = mean;
      rep.chosen = objective;
    }
    rep.cv.push_back(std::move(c));
  }
  if (!o.objective.empty() && rep.chosen.empty()) rep.chosen = o.objective;

  // Baselines on the same folds.
  {
    std::vector<float> sb(d->rows());
    for (int f = 0; f < folds; ++f) {
      std::vector<bool> train(d->groups());
      for (size_t g = 0; g < d->groups(); ++g) train[g] = fold[g] != f;
      const std::vector<float> s = single_best_scores(*d, train);
      for (size_t g = 0; g < d->groups(); ++g)
        if (fold[g] == f)
          for (size_t r = d->begin[g]; r < d->begin[g + 1]; ++r) sb[r] = s[r];
    }
    rep.cv.push_back({"single_best", summarize_slices(*d, evaluate_scores(*d, sb)), 0});
    const std::vector<float> an = analytic_scores(*d, device_info_for(o.gpu));
    rep.cv.push_back({"analytic", summarize_slices(*d, evaluate_scores(*d, an)), 0});
  }
  if (o.out.empty()) return rep;

  // The final model: the chosen objective on every row.
  const auto t0 = std::chrono::steady_clock::now();
  TrainData all = make_train_data(*d, x, std::vector<bool>(d->groups(), true), rep.chosen);
  TrainParams p = o.params;
  p.objective = xgb_objective(rep.chosen);
  auto b = Booster::train(all, p, warm ? &*warm : nullptr);
  if (!b.ok()) return b.status();
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  if (ec) return io_error(o.out + ": " + ec.message());
  if (o.model_format != "json" && o.model_format != "ubj")
    return invalid_argument("model format '" + o.model_format + "': json or ubj");
  GCONV_RETURN_IF_ERROR(b->save_file(o.out + "/model." + o.model_format));
  {
    // The feature-importance table travels with every model.
    auto text = b->save_json();
    if (!text.ok()) return text.status();
    auto forest = Forest::from_json(*text, num_features());
    if (!forest.ok()) return forest.status();
    rep.importance = feature_importance(*forest);
    GCONV_RETURN_IF_ERROR(write_file(o.out + "/importance.csv", importance_csv(rep.importance)));
  }

  json m;
  m["format"] = kModelFormat;
  m["feature_schema"] = feature_schema_id();
  m["num_features"] = num_features();
  m["objective"] = rep.chosen;
  m["model_file"] = "model." + o.model_format;
  {
    std::set<std::string> dtypes;
    for (const auto& p : d->problems) dtypes.insert(to_string(p.dtype));
    m["dtypes"] = dtypes;  // the registry uses the model for these only
  }
  m["gpu"] = json::parse(to_json(o.gpu));
  json files = json::array();
  for (const auto& path : o.data) files.push_back({{"path", path}, {"hash", file_hash(path)}});
  m["data"] = files;
  m["rows"] = rep.rows;
  if (o.candidates > 0) m["train_candidates"] = o.candidates;
  if (!o.stale_kernels.empty()) {
    m["stale_kernels"] = o.stale_kernels;
    m["fresh_data"] = o.fresh;
    m["stale_rows_dropped"] = rep.load.stale;
  }
  if (pre) {
    // The prefilter travels with the model: a copy of its folder.
    const std::filesystem::path dst = std::filesystem::path(o.out) / "prefilter";
    // A warm start written over its own folder keeps its prefilter in place.
    if (!std::filesystem::equivalent(o.prefilter, dst, ec)) {
      std::filesystem::remove_all(dst, ec);
      std::filesystem::copy(o.prefilter, dst, std::filesystem::copy_options::recursive, ec);
      if (ec) return io_error("copying the prefilter " + o.prefilter + " to " + dst.string() + ": " + ec.message());
    }
    ec.clear();
    m["prefilter"] = {{"dir", "prefilter"}, {"keep", o.prefilter_keep}, {"source", o.prefilter}};
  }
  m["problems"] = rep.problems;
  m["shapes"] = rep.shapes;
  m["params"] = {{"rounds", p.rounds + (warm ? warm->boosted_rounds() : 0)}, {"max_depth", p.max_depth},
                 {"eta", p.eta},     {"subsample", p.subsample}, {"colsample_bytree", p.colsample},
                 {"min_child_weight", p.min_child_weight}, {"lambda", p.lambda}, {"seed", p.seed}};
  if (!o.warm_start.empty()) m["warm_start"] = o.warm_start;
  m["xgboost"] = Booster::xgboost_version();
  m["source_revision"] = o.source_revision;
  m["train_seconds"] = seconds_since(t0);
  GCONV_RETURN_IF_ERROR(write_file(o.out + "/manifest.json", m.dump(2) + "\n"));

  json ft = json::object();
  ft["schema"] = feature_schema_id();
  json list = json::array();
  for (const auto& f : feature_table()) list.push_back({{"name", f.name}, {"formula", f.formula}, {"why", f.why}});
  ft["features"] = list;
  GCONV_RETURN_IF_ERROR(write_file(o.out + "/features.json", ft.dump(2) + "\n"));

  json cv;
  cv["folds"] = folds;
  cv["model_cross_validated"] = !o.objectives.empty();  // false: trained with --objectives none
  cv["split"] = "GroupKFold by layer shape (all directions of a shape in one fold)";
  cv["chosen"] = rep.chosen;
  cv["rows"] = rep.rows;
  cv["problems"] = rep.problems;
  cv["shapes"] = rep.shapes;
  json res = json::object();
  for (const auto& c : rep.cv) res[c.name] = slices_json(c.slices);
  cv["results"] = res;
  GCONV_RETURN_IF_ERROR(write_file(o.out + "/cv.json", cv.dump(2) + "\n"));
  return rep;
}

}  // namespace gconv::heuristic
