#include "heuristic/train.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <thread>

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
  for (const auto& c : cv) {
    s += fmt::format("\n== {}{} ({:.1f} s)\n", c.name, c.name == chosen ? "  [chosen]" : "", c.seconds);
    s += format_slices(c.slices);
  }
  return s;
}

Result<TrainReport> train_selector(const TrainOptions& o) {
  // Before the data is read: a bad parameter fails in a moment, not after
  // minutes of loading.
  GCONV_RETURN_IF_ERROR(validate_params(o.params));
  TrainReport rep;
  auto d = load_sweeps(o.data, &rep.load, 2, o.strict);
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

  std::optional<Booster> warm;
  if (!o.warm_start.empty()) {
    auto m = Selector::load(o.warm_start);  // checks the schema
    if (!m.ok()) return Status(m.status().code(), "--warm-start: " + m.status().message());
    const std::string path = (*m)->model_path();
    auto text = problem_io::read_text_file(path);  // shipped models are .zst
    if (!text.ok()) return text.status();
    auto b = Booster::load_buffer(*text);
    if (!b.ok()) return Status(b.status().code(), path + ": " + b.status().message());
    warm.emplace(std::move(*b));
  }

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
  if (pre) {
    // The prefilter travels with the model: a copy of its folder.
    const std::filesystem::path dst = std::filesystem::path(o.out) / "prefilter";
    std::filesystem::remove_all(dst, ec);
    std::filesystem::copy(o.prefilter, dst, std::filesystem::copy_options::recursive, ec);
    if (ec) return io_error("copying the prefilter " + o.prefilter + " to " + dst.string() + ": " + ec.message());
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
