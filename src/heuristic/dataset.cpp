#include "heuristic/dataset.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <set>

#include "core/fnv1a.hpp"
#include "perf/sweep_csv.hpp"
#include "pool/arch_rules.hpp"
#include "pool/filter.hpp"

namespace gconv::heuristic {

float Dataset::best_ms(size_t g) const {
  if (!oracle_ms.empty()) return oracle_ms[g];
  float best = time_ms[begin[g]];
  for (size_t r = begin[g] + 1; r < begin[g + 1]; ++r) best = std::min(best, time_ms[r]);
  return best;
}

std::string LoadStats::summary() const {
  return std::to_string(files) + " files, " + std::to_string(lines) + " rows read, " + std::to_string(used) +
         " used (" + std::to_string(not_ok) + " not ok, " + std::to_string(other_provider) + " other providers, " +
         std::to_string(duplicates) + " duplicates, " + std::to_string(small_groups) +
         " rows in groups too small to rank" +
         (invalid ? ", " + std::to_string(invalid) + " rows of invalid problems skipped, the first: " + first_invalid
                  : std::string()) +
         (stale ? ", " + std::to_string(stale) + " stale rows dropped" : std::string()) + ")";
}

const char* kind_of(const Problem& p) {
  if (p.is_depthwise()) return "depthwise";
  if (p.is_grouped()) return "grouped";
  return "dense";
}

std::string shape_key(const Problem& p) {
  Problem q = p;
  q.direction = Direction::fwd;
  return q.to_spec().substr(4);  // without "fwd_"
}

namespace {

struct Row {
  std::string spec, source, kernel;
  Problem problem;
  KernelTraits traits;
  float ms;
};

bool parse_float(const std::string& s, float* out) {
  const char* b = s.data();
  const char* e = b + s.size();
  auto r = std::from_chars(b, e, *out);
  return r.ec == std::errc() && r.ptr == e;
}

}  // namespace

Result<StaleRows> make_stale_rows(const std::string& expr, const std::vector<std::string>& fresh,
                                  const std::vector<std::string>& data) {
  StaleRows out;
  if (expr.empty()) {
    if (!fresh.empty()) return invalid_argument("--fresh needs --stale-kernels (which kernels the fresh files update)");
    return out;
  }
  auto f = Filter::parse(expr);
  if (!f.ok()) return invalid_argument("--stale-kernels: " + f.status().message());
  auto rules = load_default_arch_rules();
  if (!rules.ok()) return rules.status();
  for (const std::string& path : fresh) {
    if (std::find(data.begin(), data.end(), path) == data.end())
      return invalid_argument("--fresh " + path + " is not one of the --data files");
    out.fresh.insert(path);
  }
  auto filter = std::make_shared<const Filter>(std::move(*f));
  auto arch = std::make_shared<const ArchRules>(std::move(*rules));
  out.is_stale = [filter, arch](const KernelTraits& t) { return filter->matches(*arch, t); };
  return out;
}

Result<Dataset> load_sweeps(const std::vector<std::string>& paths, LoadStats* stats_out, size_t min_rows,
                            bool strict, const StaleRows* stale) {
  LoadStats stats;
  Dataset d;
  std::map<std::string, std::vector<Row>> by_spec;  // ordered: a stable group order
  std::set<std::pair<std::string, std::string>> seen;
  std::map<std::string, Problem> problem_of;  // spec parse cache
  std::map<std::string, std::string> invalid_spec;  // spec -> the rule it breaks
  for (const auto& path : paths) {
    auto t = bench::read_sweep_csv(path);
    if (!t.ok()) return t.status();
    ++stats.files;
    const bool drop_stale = stale != nullptr && stale->is_stale && !stale->fresh.count(path);
    for (const char* col : {"kernel", "spec", "provider", "status", "latency_ms", "gpu"})
      if (t->column(col) < 0) return parse_error(path + ": not a sweep file (no '" + std::string(col) + "' column)");
    const int c_kernel = t->column("kernel"), c_spec = t->column("spec"), c_prov = t->column("provider"),
              c_status = t->column("status"), c_lat = t->column("latency_ms"), c_gpu = t->column("gpu"),
              c_source = t->column("source");
    for (size_t i = 0; i < t->rows.size(); ++i) {
      const auto& f = t->rows[i];
      ++stats.lines;
      // The row's position for messages: its line, and its number among the
      // data rows (counted after the header).
      auto where = [&] { return t->where(i) + ": data row " + std::to_string(i + 1); };
      if (f[size_t(c_prov)] != "gconv") {
        ++stats.other_provider;
        continue;
      }
      if (f[size_t(c_status)] != "ok") {
        ++stats.not_ok;
        continue;
      }
      const std::string& gpu = f[size_t(c_gpu)];
      if (d.gpu.empty()) d.gpu = gpu;
      if (gpu != d.gpu)
        return invalid_argument(where() + ": GPU '" + gpu + "' differs from '" + d.gpu +
                                "' of earlier rows; train one model per GPU type");
      Row r;
      r.kernel = f[size_t(c_kernel)];
      r.spec = f[size_t(c_spec)];
      r.source = c_source >= 0 ? f[size_t(c_source)] : "";
      if (!parse_float(f[size_t(c_lat)], &r.ms) || !std::isfinite(r.ms) || !(r.ms > 0))
        return parse_error(where() + ": latency_ms '" + f[size_t(c_lat)] + "' is not a finite positive number");
      auto k = parse_kernel_name(r.kernel);
      if (!k.ok()) return parse_error(where() + ": " + k.status().message());
      r.traits = *k;
      if (drop_stale && stale->is_stale(r.traits)) {
        ++stats.stale;
        continue;
      }
      auto pit = problem_of.find(r.spec);
      if (pit == problem_of.end()) {
        auto bad = invalid_spec.find(r.spec);
        if (bad == invalid_spec.end()) {
          auto p = Problem::parse_spec(r.spec);
          if (!p.ok()) return parse_error(where() + ": spec: " + p.status().message());
          // The one validation boundary: no feature or estimate is computed
          // for a problem that breaks a rule (they divide by its sizes).
          const Status v = p->validate();
          if (v.ok()) {
            pit = problem_of.emplace(r.spec, *p).first;
          } else {
            bad = invalid_spec.emplace(r.spec, v.message()).first;
          }
        }
        if (bad != invalid_spec.end()) {
          if (strict)
            return invalid_argument(where() + ": " + r.spec + ": " + bad->second +
                                    " (--strict: invalid rows are errors)");
          ++stats.invalid;
          if (stats.first_invalid.empty()) stats.first_invalid = where() + ": " + r.spec + ": " + bad->second;
          continue;
        }
      }
      r.problem = pit->second;
      if (r.traits.direction != r.problem.direction || r.traits.dtype != r.problem.dtype)
        return parse_error(where() + ": kernel " + r.kernel + " does not match the problem's direction/dtype");
      if (!seen.insert({r.kernel, r.spec}).second) {
        ++stats.duplicates;  // the first measurement of a (kernel, problem) is kept
        continue;
      }
      by_spec[r.spec].push_back(std::move(r));
    }
  }
  for (auto& [spec, rows] : by_spec) {
    if (rows.size() < min_rows) {
      stats.small_groups += rows.size();
      continue;
    }
    d.begin.push_back(d.kernels.size());
    d.problems.push_back(rows.front().problem);
    d.specs.push_back(spec);
    d.sources.push_back(rows.front().source);
    for (auto& r : rows) {
      d.kernels.push_back(r.traits);
      d.kernel_names.push_back(std::move(r.kernel));
      d.time_ms.push_back(r.ms);
    }
  }
  d.begin.push_back(d.kernels.size());
  stats.used = d.rows();
  if (stats_out) *stats_out = stats;
  if (d.groups() == 0) return invalid_argument("no usable rows (" + stats.summary() + ")");
  return d;
}

Dataset keep_rows(const Dataset& d, const std::vector<bool>& keep, size_t min_rows) {
  Dataset o;
  o.gpu = d.gpu;
  for (size_t g = 0; g < d.groups(); ++g) {
    size_t n = 0;
    for (size_t r = d.begin[g]; r < d.begin[g + 1]; ++r) n += keep[r] ? 1 : 0;
    if (n < min_rows) continue;
    o.begin.push_back(o.kernels.size());
    o.problems.push_back(d.problems[g]);
    o.specs.push_back(d.specs[g]);
    o.sources.push_back(d.sources[g]);
    o.oracle_ms.push_back(d.best_ms(g));
    for (size_t r = d.begin[g]; r < d.begin[g + 1]; ++r) {
      if (!keep[r]) continue;
      o.kernels.push_back(d.kernels[r]);
      o.kernel_names.push_back(d.kernel_names[r]);
      o.time_ms.push_back(d.time_ms[r]);
    }
  }
  o.begin.push_back(o.kernels.size());
  return o;
}

std::vector<int> group_k_fold(const Dataset& d, int folds) {
  std::map<std::string, std::vector<size_t>> shapes;
  for (size_t g = 0; g < d.groups(); ++g) shapes[shape_key(d.problems[g])].push_back(g);
  struct Shape {
    size_t rows;
    uint64_t hash;
    const std::vector<size_t>* groups;
  };
  std::vector<Shape> order;
  for (const auto& [key, groups] : shapes) {
    size_t rows = 0;
    for (size_t g : groups) rows += d.begin[g + 1] - d.begin[g];
    order.push_back({rows, fnv1a(key), &groups});
  }
  std::sort(order.begin(), order.end(),
            [](const Shape& a, const Shape& b) { return a.rows != b.rows ? a.rows > b.rows : a.hash < b.hash; });
  std::vector<size_t> fold_rows(size_t(std::max(1, folds)), 0);
  std::vector<int> fold(d.groups(), 0);
  for (const auto& s : order) {
    const size_t f = size_t(std::min_element(fold_rows.begin(), fold_rows.end()) - fold_rows.begin());
    fold_rows[f] += s.rows;
    for (size_t g : *s.groups) fold[g] = int(f);
  }
  return fold;
}

}  // namespace gconv::heuristic
