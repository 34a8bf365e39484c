// gconv summary: counts and FLOP statistics of a problem set.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "gconv/problem_file.hpp"
#include "gconv/problem_sets.hpp"

namespace gconv::cli {
namespace {

using json = nlohmann::ordered_json;

const char* kind_of(const Problem& p) {
  if (p.is_depthwise()) return "depthwise";
  if (p.is_grouped()) return "grouped";
  return "dense";
}

struct Summary {
  std::string path;
  size_t count = 0;
  std::map<std::string, size_t> by_direction, by_kind, by_ndim, by_source;
  double total_flops = 0, min_flops = 0, median_flops = 0, max_flops = 0;
  std::string min_spec, max_spec;
};

Summary summarize(const std::string& path, const std::vector<ProblemEntry>& entries) {
  Summary s;
  s.path = path;
  s.count = entries.size();
  // Every category is listed, even at zero, so outputs of two sets line up.
  for (const char* d : {"fwd", "bwd_data", "bwd_weight"}) s.by_direction[d] = 0;
  for (const char* k : {"dense", "grouped", "depthwise"}) s.by_kind[k] = 0;
  for (const char* n : {"1D", "2D", "3D"}) s.by_ndim[n] = 0;
  std::vector<std::pair<double, const Problem*>> flops;
  for (const auto& e : entries) {
    const Problem& p = e.problem;
    s.by_direction[to_string(p.direction)]++;
    s.by_kind[kind_of(p)]++;
    s.by_ndim[std::to_string(p.ndim) + "D"]++;
    s.by_source[e.source.empty() ? "(none)" : e.source]++;
    flops.emplace_back(p.flops(), &p);
    s.total_flops += p.flops();
  }
  if (!flops.empty()) {
    std::sort(flops.begin(), flops.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const size_t m = flops.size();
    s.min_flops = flops.front().first;
    s.max_flops = flops.back().first;
    s.median_flops = m % 2 ? flops[m / 2].first : 0.5 * (flops[m / 2 - 1].first + flops[m / 2].first);
    s.min_spec = flops.front().second->to_spec();
    s.max_spec = flops.back().second->to_spec();
  }
  return s;
}

std::string counts(const std::map<std::string, size_t>& m, const std::vector<std::string>& order) {
  std::string out;
  for (const auto& key : order) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", key, m.at(key));
  return out;
}

void print_table(const Summary& s) {
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"file", s.path},
      {"problems", std::to_string(s.count)},
      {"by direction", counts(s.by_direction, {"fwd", "bwd_data", "bwd_weight"})},
      {"by kind", counts(s.by_kind, {"dense", "grouped", "depthwise"})},
      {"by ndim", counts(s.by_ndim, {"1D", "2D", "3D"})},
      {"sources", std::to_string(s.by_source.size())},
      {"total GFLOP", fmt::format("{:.3f}", s.total_flops / 1e9)},
      {"min GFLOP", fmt::format("{:.4f}  {}", s.min_flops / 1e9, s.min_spec)},
      {"median GFLOP", fmt::format("{:.4f}", s.median_flops / 1e9)},
      {"max GFLOP", fmt::format("{:.4f}  {}", s.max_flops / 1e9, s.max_spec)},
  };
  for (const auto& [k, v] : rows) fmt::print("{:<13} {}\n", k, v);
}

json to_json(const Summary& s) {
  return {{"file", s.path},
          {"problems", s.count},
          {"by_direction", s.by_direction},
          {"by_kind", s.by_kind},
          {"by_ndim", s.by_ndim},
          {"by_source", s.by_source},
          {"total_flops", s.total_flops},
          {"min_flops", s.min_flops},
          {"median_flops", s.median_flops},
          {"max_flops", s.max_flops},
          {"min_spec", s.min_spec},
          {"max_spec", s.max_spec}};
}

}  // namespace

void register_summary_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("summary", "Summarise a problem set (counts by direction, kind, ndim; FLOPs)");
  auto path = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  cmd->add_option("--problems", *path,
                  "Problem set name (problems/README.md) or file (.csv, .jsonl, .txt; .gz/.zst ok); default: the bundled example");
  cmd->add_flag("--json", *as_json, "Print one JSON object instead of a table");
  cmd->callback([path, as_json] {
    std::string file = *path;
    if (file.empty()) {
      const std::string dir = default_problem_dir();
      if (dir.empty()) {
        std::fprintf(stderr, "gconv summary: no --problems given and no bundled problem directory found "
                             "(set GCONV_PROBLEMS_DIR)\n");
        throw CLI::RuntimeError(1);
      }
      file = dir + "/example.csv";
    }
    auto resolved = resolve_problem_set(file);  // a set name, as bench and select take, or a file
    if (!resolved.ok()) {
      std::fprintf(stderr, "gconv summary: %s\n", resolved.status().to_string().c_str());
      throw CLI::RuntimeError(1);
    }
    file = *resolved;
    auto entries = read_problem_file(file);
    if (!entries.ok()) {
      std::fprintf(stderr, "gconv summary: %s\n", entries.status().to_string().c_str());
      throw CLI::RuntimeError(1);
    }
    const Summary s = summarize(file, *entries);
    if (*as_json) {
      std::printf("%s\n", to_json(s).dump(2).c_str());
    } else {
      print_table(s);
    }
  });
}

}  // namespace gconv::cli
