#include "heuristic/model.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/json_depth.hpp"
#include "heuristic/forest_compact.hpp"
#include "pool/arch_rules.hpp"
#include "problem/csv_text.hpp"
#include "problem/read_text.hpp"

namespace gconv::heuristic {

namespace {
// An integer field in [lo, hi]: a float, or an integer beyond int, is an
// error naming the key (nlohmann's get<int> converts 1e48 with undefined
// behaviour; found by tests/fuzz fuzz_manifest).
Status int_field(const nlohmann::json& v, const std::string& key, int lo, int hi, int* out) {
  if (!v.is_number_integer())
    return parse_error("manifest.json: '" + key + "' must be an integer, got " + v.dump());
  const bool fits = v.is_number_unsigned() ? v.get<uint64_t>() <= static_cast<uint64_t>(hi)
                                           : v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
  if (!fits)
    return parse_error("manifest.json: '" + key + "' = " + v.dump() + " is outside [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "]");
  *out = static_cast<int>(v.get<int64_t>());
  return Status::Ok();
}
}  // namespace

Result<Manifest> parse_manifest(const std::string& text) {
  nlohmann::json j;
  GCONV_RETURN_IF_ERROR(check_json_depth(text, "manifest.json"));
  // Manifests are written indented (dump(2)): no line of theirs is long.
  GCONV_RETURN_IF_ERROR(problem_io::check_line_lengths(text, "manifest.json"));
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    return parse_error(std::string("manifest.json: not JSON: ") + e.what());
  }
  Manifest m;
  try {
    for (const char* key : {"format", "feature_schema", "num_features", "objective", "gpu"})
      if (!j.contains(key)) return parse_error(std::string("manifest.json: missing key '") + key + "'");
    m.format = j.at("format").get<std::string>();
    if (m.format != kModelFormat)
      return parse_error("manifest.json: format '" + m.format + "', this build reads '" + kModelFormat + "'");
    m.feature_schema = j.at("feature_schema").get<std::string>();
    GCONV_RETURN_IF_ERROR(int_field(j.at("num_features"), "num_features", INT_MIN, INT_MAX, &m.num_features));
    m.objective = j.at("objective").get<std::string>();
    if (m.objective != "reg" && m.objective != "reg_rel" && m.objective.rfind("rank:", 0) != 0)
      return parse_error("manifest.json: unknown objective '" + m.objective + "'");
    if (j.contains("prefilter")) {
      m.prefilter = j.at("prefilter").at("dir").get<std::string>();
      GCONV_RETURN_IF_ERROR(int_field(j.at("prefilter").at("keep"), "prefilter.keep", INT_MIN, INT_MAX,
                                      &m.prefilter_keep));
      if (m.prefilter.empty() || m.prefilter_keep < 1)
        return parse_error("manifest.json: prefilter needs a dir and keep >= 1");
      // A subfolder of the model's own folder, by name: "." or ".." (or a
      // path) could point back at the model and recurse without end.
      if (m.prefilter == "." || m.prefilter == ".." || m.prefilter.find('/') != std::string::npos ||
          m.prefilter.find('\\') != std::string::npos)
        return parse_error("manifest.json: prefilter.dir must name a subfolder of the model folder, got '" +
                           m.prefilter + "'");
    }
    if (j.contains("compact")) {
      const auto& c = j.at("compact");
      m.compact_file = c.at("file").get<std::string>();
      m.compact_checksum = c.at("checksum").get<std::string>();
      m.compact_source = c.at("source").get<std::string>();
      m.compact_source_checksum = c.at("source_checksum").get<std::string>();
      for (const std::string* name : {&m.compact_file, &m.compact_source})
        if (name->empty() || *name == "." || *name == ".." || name->find('/') != std::string::npos ||
            name->find('\\') != std::string::npos)
          return parse_error("manifest.json: compact: '" + *name + "' must name a file of the model folder");
      for (const std::string* sum : {&m.compact_checksum, &m.compact_source_checksum})
        if (sum->size() != 16 || sum->find_first_not_of("0123456789abcdef") != std::string::npos)
          return parse_error("manifest.json: compact: checksum '" + *sum + "' is not 16 hex digits");
    }
    if (j.contains("dtypes"))
      for (const auto& name : j.at("dtypes")) {
        auto t = parse_dtype(name.get<std::string>());
        if (!t.ok()) return parse_error("manifest.json: dtypes: " + t.status().message());
        m.dtypes.push_back(*t);
      }
  } catch (const std::exception& e) {
    return parse_error(std::string("manifest.json: ") + e.what());
  }
  auto g = gpu_props_from_json(j.at("gpu").dump());
  if (!g.ok()) return parse_error("manifest.json: gpu: " + g.status().message());
  m.gpu = *g;
  m.json_text = text;
  return m;
}

std::string xgboost_objective(const std::string& o) { return o == "reg" || o == "reg_rel" ? "reg:squarederror" : o; }

Result<std::string> source_model_path(const std::string& dir) {
  // As training writes it (model.json, or model.ubj with --model-format
  // ubj), or zstd-compressed as models/ ships it.
  std::error_code ec;
  for (const char* name : {"model.json", "model.ubj", "model.json.zst", "model.ubj.zst"})
    if (std::filesystem::exists(dir + "/" + name, ec)) return dir + "/" + name;
  return not_found(dir + ": no model file (model.json, model.ubj, or either .zst)");
}

namespace {

// The folder's forest and the file it came from: the compact file when the
// manifest names one that exists, else the training output. Either must
// carry the checksum the manifest recorded.
Result<std::pair<Forest, std::string>> load_forest(const std::string& dir, const Manifest& m) {
  std::error_code ec;
  if (!m.compact_file.empty() && std::filesystem::exists(dir + "/" + m.compact_file, ec)) {
    const std::string path = dir + "/" + m.compact_file;
    auto f = Forest::load_compact(path, num_features());
    if (!f.ok()) return f.status();
    if (checksum_hex(f->compact_checksum()) != m.compact_checksum)
      return parse_error(path + ": checksum " + checksum_hex(f->compact_checksum()) + ", but " + dir +
                         "/manifest.json compact.checksum is " + m.compact_checksum +
                         " (the file of another model? run gconv model compact " + dir + ")");
    return std::make_pair(std::move(*f), path);
  }
  auto path = source_model_path(dir);
  if (!path.ok()) return path.status();
  uint64_t sum = 0;
  auto f = Forest::load_file(*path, num_features(), &sum);
  if (!f.ok()) return Status(f.status().code(), *path + ": " + f.status().message());
  // The manifest ties the training output to itself once a compact form was made of it.
  if (!m.compact_source.empty() && dir + "/" + m.compact_source == *path && checksum_hex(sum) != m.compact_source_checksum)
    return parse_error(*path + ": checksum " + checksum_hex(sum) + ", but " + dir +
                       "/manifest.json compact.source_checksum is " + m.compact_source_checksum +
                       " (the file of another model?)");
  return std::make_pair(std::move(*f), *path);
}

}  // namespace

namespace {
Status write_compact_stage(const std::string& dir, bool as_prefilter, std::vector<std::string>* written);
}  // namespace

Status write_compact_model(const std::string& dir, std::vector<std::string>* written) {
  return write_compact_stage(dir, false, written);
}

namespace {

Status write_compact_stage(const std::string& dir, bool as_prefilter, std::vector<std::string>* written) {
  auto text = problem_io::read_text_file(dir + "/manifest.json");
  if (!text.ok()) return text.status();
  auto m = parse_manifest(*text);
  if (!m.ok()) return Status(m.status().code(), dir + "/" + m.status().message());
  if (as_prefilter && !m->prefilter.empty())
    return parse_error(dir + ": a prefilter names a prefilter of its own (a cascade is two stages)");
  auto path = source_model_path(dir);
  if (!path.ok()) return path.status();
  uint64_t source_sum = 0;
  auto f = Forest::load_file(*path, m->num_features, &source_sum);
  if (!f.ok()) return Status(f.status().code(), *path + ": " + f.status().message());
  if (f->objective() != xgboost_objective(m->objective))
    return parse_error(dir + "/manifest.json: objective '" + m->objective + "', but " + *path +
                       " was trained with '" + f->objective() + "'");
  const std::string out = dir + "/model.gcf";
  uint64_t sum = 0;
  GCONV_RETURN_IF_ERROR(f->write_compact(out, &sum));
  // The manifest keeps its key order (ordered_json): only "compact" changes.
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(*text);
  } catch (const std::exception& e) {
    return parse_error(dir + "/manifest.json: " + e.what());
  }
  j["compact"] = {{"file", "model.gcf"},
                  {"checksum", checksum_hex(sum)},
                  {"source", std::filesystem::path(*path).filename().string()},
                  {"source_checksum", checksum_hex(source_sum)}};
  const std::string manifest = dir + "/manifest.json";
  {
    std::ofstream o(manifest + ".tmp", std::ios::binary | std::ios::trunc);
    o << j.dump(2) << "\n";
    if (!o.good()) return io_error(manifest + ".tmp: write failed");
  }
  std::error_code ec;
  std::filesystem::rename(manifest + ".tmp", manifest, ec);
  if (ec) return io_error(manifest + ": " + ec.message());
  if (written) written->push_back(out);
  if (!m->prefilter.empty()) return write_compact_stage(dir + "/" + m->prefilter, true, written);
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<const Selector>> Selector::load(const std::string& dir) { return load_stage(dir, false); }

Result<std::shared_ptr<const Selector>> Selector::load_stage(const std::string& dir, bool as_prefilter) {
  auto mt = problem_io::read_text_file(dir + "/manifest.json");
  if (!mt.ok()) return mt.status();
  auto m = parse_manifest(*mt);
  if (!m.ok()) return Status(m.status().code(), dir + "/" + m.status().message());
  if (as_prefilter && !m->prefilter.empty())
    return parse_error(dir + ": a prefilter names a prefilter of its own (a cascade is two stages)");
  if (m->feature_schema != feature_schema_id() || m->num_features != num_features())
    return not_supported(dir + ": model trained on feature schema " + m->feature_schema + " (" +
                               std::to_string(m->num_features) + " features); this build computes " +
                               feature_schema_id() + " (" + std::to_string(num_features()) + "): retrain it");
  auto f = load_forest(dir, *m);
  if (!f.ok()) return f.status();
  const std::string& path = f->second;
  if (f->first.objective() != xgboost_objective(m->objective))
    return parse_error(dir + "/manifest.json: objective '" + m->objective + "' (XGBoost '" +
                       xgboost_objective(m->objective) + "'), but " + path + " was trained with '" +
                       f->first.objective() + "'");
  auto s = std::make_shared<Selector>();
  s->manifest_ = std::move(*m);
  s->forest_ = std::move(f->first);
  s->dir_ = dir;
  s->model_path_ = path;
  if (!s->manifest_.prefilter.empty()) {
    const std::string pdir = dir + "/" + s->manifest_.prefilter;
    auto pre = load_stage(pdir, true);
    if (!pre.ok()) return Status(pre.status().code(), dir + ": prefilter: " + pre.status().message());
    if (!((*pre)->manifest().gpu == s->manifest_.gpu))
      return parse_error(dir + ": prefilter " + pdir + " was trained for another GPU than the model");
    s->prefilter_ = std::move(*pre);
  }
  return std::shared_ptr<const Selector>(std::move(s));
}

bool Selector::covers(DType t) const {
  if (manifest_.dtypes.empty()) return true;
  for (DType d : manifest_.dtypes)
    if (d == t) return true;
  return false;
}

std::string Selector::check_gpu(const GpuProps& current) const {
  const GpuProps& t = manifest_.gpu;
  if (current.name == t.name && current.sm_count == t.sm_count) return "";
  return "model " + dir_ + " was trained on " + t.name + " (" + std::to_string(t.sm_count) + " SMs); this GPU is " +
         current.name + " (" + std::to_string(current.sm_count) + " SMs): selections may be poorer";
}

void margins_to_scores(const std::string& objective, float* v, size_t n) {
  if (objective == "reg" || objective == "reg_rel")
    for (size_t i = 0; i < n; ++i) v[i] = -v[i];  // log(ms) or log(ms / best): lower is better
}

void Selector::reserve_rows(size_t n, std::vector<float>& scratch) const {
  const size_t nf = size_t(num_features());
  const size_t keep = prefilter_ ? size_t(manifest_.prefilter_keep) : n;
  // scratch: n feature rows, then (cascade) the kept rows and their scores.
  const size_t need = n * nf + (keep < n ? keep * nf + keep : 0);
  if (scratch.size() < need) scratch.resize(need);
}

void Selector::score(const Problem& p, const KernelTraits* const* kernels, size_t n, const GpuProps& g,
                     const DeviceInfo& d, float* scores, std::vector<float>& scratch) const {
  reserve_rows(n, scratch);
  compute_features(p, kernels, n, g, d, scratch.data());  // the problem's terms once for all rows
  score_rows(n, scores, scratch);
}

void Selector::score(const Problem& p, const KernelTraits* const* kernels, const KernelFeatureTerms* const* terms,
                     size_t n, const GpuProps& g, const DeviceInfo& d, float* scores,
                     std::vector<float>& scratch) const {
  reserve_rows(n, scratch);
  compute_features(p, kernels, terms, n, g, d, scratch.data());
  score_rows(n, scores, scratch);
}

void Selector::score_rows(size_t n, float* scores, std::vector<float>& scratch) const {
  const size_t nf = size_t(num_features());
  const size_t keep = prefilter_ ? size_t(manifest_.prefilter_keep) : n;
  const bool cascade = keep < n;
  float* x = scratch.data();
  if (!cascade) {
    forest_.predict(x, int(n), scores);
    margins_to_scores(manifest_.objective, scores, n);
    return;
  }
  prefilter_->forest_.predict(x, int(n), scores);
  margins_to_scores(prefilter_->manifest_.objective, scores, n);
  // The best `keep` by the prefilter, earlier kernels first among equals.
  thread_local std::vector<uint32_t> idx;
  idx.resize(n);
  for (size_t i = 0; i < n; ++i) idx[i] = uint32_t(i);
  std::partial_sort(idx.begin(), idx.begin() + long(keep), idx.end(), [&](uint32_t a, uint32_t b) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
  });
  float* xk = x + n * nf;
  float* sk = xk + keep * nf;
  for (size_t j = 0; j < keep; ++j) std::copy_n(x + size_t(idx[j]) * nf, nf, xk + j * nf);
  forest_.predict(xk, int(keep), sk);
  margins_to_scores(manifest_.objective, sk, keep);
  for (size_t i = 0; i < n; ++i) scores[i] -= kDroppedOffset;
  for (size_t j = 0; j < keep; ++j) scores[idx[j]] = sk[j];
}

double Selector::predicted_ms(float score) const {
  if (dropped(score)) return prefilter_ ? prefilter_->predicted_ms(score + kDroppedOffset) : -1.0;
  return manifest_.objective == "reg" ? std::exp(-double(score)) : -1.0;
}

std::string models_dir() {
  if (const char* v = std::getenv("GCONV_MODELS_DIR"); v && *v) return v;
  return (std::filesystem::path(config_dir()).parent_path() / "models").string();
}

Result<std::shared_ptr<const Selector>> find_model(const std::string& dir, const GpuProps& current,
                                                   std::string* warning) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return not_found("no models folder " + dir);
  // A model folder itself (as gconv eval --model takes): that model, for any
  // GPU (with the warning). Scanning it would have found its prefilter/
  // subfolder and used the first stage alone.
  if (fs::exists(dir + "/manifest.json", ec)) {
    auto s = Selector::load(dir);
    if (!s.ok()) return s.status();
    if (warning) *warning = (*s)->check_gpu(current);
    return s;
  }
  std::vector<std::string> subdirs;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory()) subdirs.push_back(e.path().string());
  std::sort(subdirs.begin(), subdirs.end());  // a stable choice between equals
  std::string same_gpu, same_arch, skipped;
  bool any_manifest = false;
  for (const auto& sub : subdirs) {
    any_manifest |= fs::exists(sub + "/manifest.json", ec);
    auto text = problem_io::read_text_file(sub + "/manifest.json");
    auto m = text.ok() ? parse_manifest(*text) : Result<Manifest>(text.status());
    if (!m.ok()) {
      skipped += " " + sub + " (" + m.status().message() + ")";
      continue;
    }
    if (same_gpu.empty() && m->gpu.name == current.name) same_gpu = sub;
    if (same_arch.empty() && m->gpu.arch == current.arch) same_arch = sub;
  }
  const std::string chosen = !same_gpu.empty() ? same_gpu : same_arch;
  if (!any_manifest)
    return not_found(dir + " is neither a model folder (no manifest.json) nor a folder of models (no subfolder has one)");
  if (chosen.empty())
    return not_found("no model in " + dir + " for " + current.name + " (" + current.arch + ")" +
                     (skipped.empty() ? "" : "; skipped:" + skipped));
  auto s = Selector::load(chosen);
  if (!s.ok()) return s.status();
  if (warning) *warning = (*s)->check_gpu(current);
  return s;
}

}  // namespace gconv::heuristic
