#include "registry/tuning_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
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
#include "problem/csv_text.hpp"
#include "problem/read_text.hpp"

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

// The field `k` of `v` as a string / a finite number; parse_error naming the
// field when it is missing or of another type (nlohmann's get<> would throw a
// type_error that once reached Registry::select as "internal").
Status get_string(const json& v, const std::string& where, const char* k, std::string* out) {
  if (!v.contains(k)) return parse_error(where + ": field '" + k + "' is missing");
  if (!v[k].is_string()) return parse_error(where + ": field '" + k + "' is not a string (" + v[k].type_name() + ")");
  *out = v[k].get<std::string>();
  return Status::Ok();
}

Status get_number(const json& v, const std::string& where, const char* k, double* out) {
  if (!v.contains(k)) return parse_error(where + ": field '" + k + "' is missing");
  if (!v[k].is_number()) return parse_error(where + ": field '" + k + "' is not a number (" + v[k].type_name() + ")");
  *out = v[k].get<double>();
  if (!std::isfinite(*out) || *out < 0)
    return parse_error(where + ": field '" + k + "' is " + v[k].dump() + ", not a finite number >= 0");
  return Status::Ok();
}

Status entry_from_json(const json& v, const std::string& where, TuningEntry* e) {
  if (!v.is_object()) return parse_error(where + ": is not an object (" + v.type_name() + ")");
  double measured = 0;
  GCONV_RETURN_IF_ERROR(get_string(v, where, "kernel", &e->kernel));
  GCONV_RETURN_IF_ERROR(get_string(v, where, "policy", &e->policy));
  GCONV_RETURN_IF_ERROR(get_number(v, where, "measured_ms", &e->measured_ms));
  GCONV_RETURN_IF_ERROR(get_number(v, where, "kernels_measured", &measured));
  GCONV_RETURN_IF_ERROR(get_number(v, where, "tuning_seconds", &e->tuning_seconds));
  // Converting a double above INT_MAX to int is undefined behaviour.
  if (measured > double(std::numeric_limits<int>::max()))
    return parse_error(where + ": field 'kernels_measured' is " + v["kernels_measured"].dump() + ", out of range");
  e->kernels_measured = int(measured);
  if (e->kernel.empty()) return parse_error(where + ": field 'kernel' is empty");
  return Status::Ok();
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

Status parse_tuning_cache(const std::string& text, const std::string& source, const TuningKey& key,
                          std::map<std::string, TuningEntry>* out) {
  if (Status d = check_json_depth(text, source); !d.ok()) return d;
  // gconv writes the cache one entry field a line (dump(1)).
  GCONV_RETURN_IF_ERROR(problem_io::check_line_lengths(text, source));
  const json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) return parse_error(source + ": is not valid JSON (corrupt or truncated)");
  std::string format;
  double version = 0;
  if (!get_string(root, source, "format", &format).ok() || format != kFormat ||
      !get_number(root, source, "format_version", &version).ok() || !root["format_version"].is_number_integer() ||
      version != kFormatVersion)
    return parse_error(source + ": is not a gconv tuning cache of format version " + std::to_string(kFormatVersion));
  std::string gpu, ver, pool;
  GCONV_RETURN_IF_ERROR(get_string(root, source, "gpu", &gpu));
  GCONV_RETURN_IF_ERROR(get_string(root, source, "gconv_version", &ver));
  GCONV_RETURN_IF_ERROR(get_string(root, source, "pool_version", &pool));
  if (gpu != key.gpu || ver != key.gconv_version || pool != key.pool_version)
    return invalid_argument(source + ": is stale (made for gpu '" + gpu + "', gconv " + ver + ", pool " +
                            pool.substr(0, 8) + "; this is '" + key.gpu + "', gconv " + key.gconv_version + ", pool " +
                            key.pool_version.substr(0, 8) + ")");
  if (!root.contains("entries") || !root["entries"].is_object())
    return parse_error(source + ": field 'entries' is missing or not an object (corrupt)");
  std::map<std::string, TuningEntry> entries;
  for (const auto& [k, v] : root["entries"].items()) {
    TuningEntry e;
    GCONV_RETURN_IF_ERROR(entry_from_json(v, source + ": entry '" + k + "'", &e));
    entries[k] = e;
  }
  *out = std::move(entries);
  return Status::Ok();
}

Status TuningCache::read_file(std::map<std::string, TuningEntry>* out) const {
  std::error_code ec;
  if (!fs::exists(path_, ec)) return Status::Ok();
  // read_text_file opens regular files only (a FIFO at the cache's path
  // would block every select) and caps the size.
  auto text = problem_io::read_text_file(path_.string());
  if (!text.ok()) return text.status();
  return parse_tuning_cache(*text, path_.string(), key_, out);
}

void TuningCache::warn_once(const std::string& why) {
  if (warnings_ > 0) return;
  ++warnings_;
  log_warn("tuning cache " + why + "; ignoring it (it is rewritten on the next store)");
}

void TuningCache::load_locked() {
  if (loaded_ || !enabled()) return;
  loaded_ = true;
  const Status s = read_file(&entries_);
  if (!s.ok()) warn_once(s.message());
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
  if (read_file(&on_disk).ok())
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
