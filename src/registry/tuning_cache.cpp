#include "registry/tuning_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_depth.hpp"
#include "core/log.hpp"
#include "jit/cache.hpp"
#include "jit/hash.hpp"
#include "pool/arch_rules.hpp"

namespace gconv {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kFormat = "gconv-tuning-cache";
constexpr int kFormatVersion = 1;

bool read_all(const fs::path& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

// A unique name beside `path` for the temporary file of one write.
fs::path temp_path(const fs::path& path) {
  static std::atomic<uint64_t> counter{0};
  return path.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
}

bool entry_from_json(const json& v, TuningEntry* e) {
  if (!v.is_object()) return false;
  const auto str = [&](const char* k, std::string* out) {
    if (!v.contains(k) || !v[k].is_string()) return false;
    *out = v[k].get<std::string>();
    return true;
  };
  const auto num = [&](const char* k, double* out) {
    if (!v.contains(k) || !v[k].is_number()) return false;
    *out = v[k].get<double>();
    return true;
  };
  double measured = 0;
  if (!str("kernel", &e->kernel) || !str("policy", &e->policy) || !num("measured_ms", &e->measured_ms) ||
      !num("kernels_measured", &measured) || !num("tuning_seconds", &e->tuning_seconds))
    return false;
  e->kernels_measured = int(measured);
  return !e->kernel.empty() && e->measured_ms >= 0;
}

json entry_to_json(const TuningEntry& e) {
  return json{{"kernel", e.kernel},
              {"measured_ms", e.measured_ms},
              {"policy", e.policy},
              {"kernels_measured", e.kernels_measured},
              {"tuning_seconds", e.tuning_seconds}};
}

}  // namespace

std::string tuning_entry_key(const std::string& spec, const std::string& filter) {
  return filter.empty() ? spec : spec + " | filter: " + filter;
}

bool tuning_policy_covers(const std::string& measured, const Policy& wanted) {
  auto m = Policy::parse(measured);
  if (!m.ok()) return false;
  if (m->kind == Policy::Kind::exhaustive) return true;
  return m->kind == Policy::Kind::topk && wanted.kind == Policy::Kind::topk && m->k >= wanted.k;
}

std::string resolve_tuning_cache_path(const std::string& option) {
  if (option == "off") return "";
  if (!option.empty()) return option;
  const char* env = std::getenv("GCONV_TUNING_CACHE");
  if (env != nullptr && env[0] != '\0') return std::string(env) == "off" ? "" : env;
  auto dir = jit::default_cache_dir();
  if (!dir.ok()) return "";
  return (*dir / "tuning.json").string();
}

std::string pool_version(const std::string& rules_arch) {
  jit::Hasher h;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(config_dir() + "/pools", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") files.push_back(it->path());
  std::sort(files.begin(), files.end());
  files.push_back(config_dir() + "/arch/" + rules_arch + ".json");
  for (const fs::path& f : files) {
    std::string text;
    h.add_part(f.filename().string());
    h.add_part(read_all(f, &text) ? text : std::string("<missing>"));
  }
  return h.finish().hex();
}

TuningCache::TuningCache(fs::path path, TuningKey key) : path_(std::move(path)), key_(std::move(key)) {}

std::string TuningCache::read_file(std::map<std::string, TuningEntry>* out) const {
  std::error_code ec;
  if (!fs::exists(path_, ec)) return "";
  std::string text;
  if (!read_all(path_, &text)) return "cannot be read";
  if (!check_json_depth(text, path_.string()).ok()) return "nests JSON deeper than " + std::to_string(kMaxJsonDepth) + " levels";
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) return "is not valid JSON (corrupt or truncated)";
  if (root.value("format", std::string()) != kFormat || !root.contains("format_version") ||
      !root["format_version"].is_number_integer() || root["format_version"].get<int>() != kFormatVersion)
    return "is not a gconv tuning cache of format version " + std::to_string(kFormatVersion);
  const std::string gpu = root.value("gpu", std::string()), ver = root.value("gconv_version", std::string()),
                    pool = root.value("pool_version", std::string());
  if (gpu != key_.gpu || ver != key_.gconv_version || pool != key_.pool_version)
    return "is stale (made for gpu '" + gpu + "', gconv " + ver + ", pool " + pool.substr(0, 8) + "; this is '" +
           key_.gpu + "', gconv " + key_.gconv_version + ", pool " + key_.pool_version.substr(0, 8) + ")";
  if (!root.contains("entries") || !root["entries"].is_object()) return "has no entries object (corrupt)";
  std::map<std::string, TuningEntry> entries;
  for (const auto& [k, v] : root["entries"].items()) {
    TuningEntry e;
    if (!entry_from_json(v, &e)) return "has a malformed entry '" + k + "' (corrupt)";
    entries[k] = e;
  }
  *out = std::move(entries);
  return "";
}

void TuningCache::warn_once(const std::string& why) {
  if (warnings_ > 0) return;
  ++warnings_;
  log_warn("tuning cache " + path_.string() + " " + why + "; ignoring it (it is rewritten on the next store)");
}

void TuningCache::load_locked() {
  if (loaded_ || !enabled()) return;
  loaded_ = true;
  const std::string why = read_file(&entries_);
  if (!why.empty()) warn_once(why);
}

std::optional<TuningEntry> TuningCache::lookup(const std::string& entry_key) {
  std::lock_guard<std::mutex> lock(mu_);
  load_locked();
  auto it = entries_.find(entry_key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

Status TuningCache::store(const std::string& entry_key, const TuningEntry& entry) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!enabled()) return Status::Ok();
  load_locked();
  entries_[entry_key] = entry;
  // Keep what other processes stored since we loaded (ours win on a clash).
  std::map<std::string, TuningEntry> on_disk;
  if (read_file(&on_disk).empty())
    for (auto& [k, v] : on_disk) entries_.emplace(k, v);

  json root{{"format", kFormat},
            {"format_version", kFormatVersion},
            {"gpu", key_.gpu},
            {"gconv_version", key_.gconv_version},
            {"pool_version", key_.pool_version}};
  json entries = json::object();
  for (const auto& [k, v] : entries_) entries[k] = entry_to_json(v);
  root["entries"] = std::move(entries);
  const std::string text = root.dump(1) + "\n";

  std::error_code ec;
  if (path_.has_parent_path()) fs::create_directories(path_.parent_path(), ec);
  const fs::path tmp = temp_path(path_);
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return io_error("cannot write " + tmp.string());
    f << text;
    f.flush();
    if (!f) {
      f.close();
      fs::remove(tmp, ec);
      return io_error("cannot write " + tmp.string() + " (disk full?)");
    }
  }
  fs::rename(tmp, path_, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return io_error("cannot rename " + tmp.string() + " to " + path_.string() + ": " + ec.message());
  }
  return Status::Ok();
}

int TuningCache::warnings() const {
  std::lock_guard<std::mutex> lock(mu_);
  return warnings_;
}

}  // namespace gconv
