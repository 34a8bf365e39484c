// Problem sets by name: <problems dir>/<name>.<ext>, see include/gconv/problem_sets.hpp.
#include "gconv/problem_sets.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <set>

#include "gconv/problem_file.hpp"

namespace gconv {
namespace {

namespace fs = std::filesystem;

// Lookup order of a name's extensions; CSV first because the bundled sets are
// CSV and a set may exist both plain and compressed while being regenerated.
constexpr std::array<const char*, 4> kExtensions = {".csv", ".csv.gz", ".csv.zst", ".jsonl"};

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The set name of a file name, or "" when the name has none of kExtensions.
std::string set_name(const std::string& file) {
  for (const char* ext : kExtensions) {
    const std::string e = ext;
    if (file.size() > e.size() && file.compare(file.size() - e.size(), e.size(), e) == 0)
      return file.substr(0, file.size() - e.size());
  }
  return "";
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "(none)" : s;
}

}  // namespace

std::vector<std::string> list_problem_sets() {
  const std::string dir = default_problem_dir();
  if (dir.empty()) return {};
  std::set<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!is_file(it->path())) continue;
    const std::string name = set_name(it->path().filename().string());
    if (!name.empty()) names.insert(name);
  }
  return {names.begin(), names.end()};
}

Result<std::string> resolve_problem_set(const std::string& name_or_path) {
  if (name_or_path.empty()) return invalid_argument("problem set: empty name");
  if (is_file(name_or_path)) return name_or_path;
  const std::string dir = default_problem_dir();
  // A name never holds a directory part; anything else was meant as a path.
  const bool is_name = name_or_path.find('/') == std::string::npos;
  if (is_name && !dir.empty()) {
    if (const fs::path p = fs::path(dir) / name_or_path; !set_name(name_or_path).empty() && is_file(p))
      return p.string();  // a bundled file named with its extension: "grid_2d.csv"
    for (const char* ext : kExtensions) {
      const fs::path p = fs::path(dir) / (name_or_path + ext);
      if (is_file(p)) return p.string();
    }
  }
  std::string where = dir.empty() ? "no problems directory (set GCONV_PROBLEMS_DIR)" : "in " + dir;
  return Status(StatusCode::not_found, "unknown problem set '" + name_or_path + "' (not a file, nor a set " +
                                           where + "); available: " + joined(list_problem_sets()));
}

}  // namespace gconv
