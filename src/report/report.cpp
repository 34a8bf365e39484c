// Sweep report arithmetic (see report.hpp).
#include "report/report.hpp"
#include "report/run_script.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "gconv/problem_file.hpp"
#include "perf/sweep_csv.hpp"
#include "problem/read_text.hpp"

namespace gconv::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::vector<std::string> kDirections = {"fwd", "bwd_data", "bwd_weight"};

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// RFC 4180 fields of one line (a quoted field may not span lines: the sweep
// writer never puts a newline in a field).
double parse_double(const std::string& s) {
  if (s.empty()) return kNaN;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() ? v : kNaN;
}

int64_t parse_int(const std::string& s) {
  if (s.empty()) return 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  return end == s.c_str() + s.size() ? int64_t(v) : 0;
}

bool is_baseline_row(const std::string& kernel, const std::string& provider) {
  return (!provider.empty() && provider != "gconv") || kernel.rfind("cudnn_", 0) == 0;
}

std::string variant_of(const std::string& kernel) { return kernel.substr(0, kernel.find(':')); }

}  // namespace

const char* to_string(Family f) {
  switch (f) {
    case Family::dense: return "dense";
    case Family::grouped: return "grouped";
    case Family::depthwise: return "depthwise";
    default: return "unknown";
  }
}

Family family_of(int64_t c, int64_t g) {
  if (g < 1 || c < 1) return Family::unknown;
  if (g == 1) return Family::dense;
  return c / g == 1 ? Family::depthwise : Family::grouped;
}

std::string canonical_spec(const std::string& spec) {
  auto p = Problem::parse_spec(spec);
  return p.ok() ? p->to_spec() : spec;
}

std::vector<std::string> split_sources(const std::string& source) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= source.size()) {
    size_t e = source.find(';', i);
    if (e == std::string::npos) e = source.size();
    std::string s = trim(source.substr(i, e - i));
    if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    i = e + 1;
  }
  if (out.empty()) out.push_back("(none)");
  return out;
}

Result<Sweep> parse_sweep_csv(const std::string& text, const std::string& name, bool strict) {
  // The sweep module's reader splits the lines and checks the field counts;
  // this function only interprets the columns.
  auto table = bench::parse_sweep_csv(text, name);
  if (!table.ok()) return table.status();
  if (table->header.empty()) return parse_error(name + ": no header line");
  Sweep sweep;
  std::unordered_map<std::string, int> col;  // lower-case name -> index
  std::unordered_map<std::string, int> by_spec;  // spec as written -> problem
  std::unordered_map<std::string, int> by_canonical;
  auto cell = [&](const std::vector<std::string>& f, const char* c) -> std::string {
    auto it = col.find(c);
    return it == col.end() ? std::string() : trim(f[size_t(it->second)]);
  };
  for (size_t i = 0; i < table->header.size(); ++i) col.emplace(lower(trim(table->header[i])), int(i));
  for (const char* req : {"kernel", "spec", "status", "latency_ms"})
    if (!col.count(req)) return parse_error(name + ": missing required column '" + req + "'");
  std::unordered_map<std::string, std::string> invalid_spec;  // spec -> the rule it breaks
  for (size_t i = 0; i < table->rows.size(); ++i) {
    const std::vector<std::string>& f = table->rows[i];
    SweepRow row;
    row.kernel = cell(f, "kernel");
    row.status = cell(f, "status");
    row.provider = cell(f, "provider");
    row.latency_ms = parse_double(cell(f, "latency_ms"));
    row.baseline = is_baseline_row(row.kernel, row.provider);
    if (row.status == "ok" && !(std::isfinite(row.latency_ms) && row.latency_ms > 0))
      return parse_error(table->where(i) + ": latency_ms '" + cell(f, "latency_ms") +
                         "' is not a finite positive number");
    const std::string spec = cell(f, "spec");
    auto it = by_spec.find(spec);
    if (it == by_spec.end()) {
      auto bad = invalid_spec.find(spec);
      if (bad == invalid_spec.end()) {
        auto p = Problem::parse_spec(spec);
        if (p.ok() && !p->validate().ok()) bad = invalid_spec.emplace(spec, p->validate().message()).first;
      }
      if (bad != invalid_spec.end()) {
        const std::string why = table->where(i) + ": " + spec + ": " + bad->second;
        if (strict) return invalid_argument(why + " (--strict: invalid rows are errors)");
        if (sweep.invalid_rows++ == 0) sweep.first_invalid = why;
        continue;
      }
    }
    if (it == by_spec.end()) {
      // A new spelling: canonicalize once, then meet other spellings of it.
      ProblemInfo info;
      auto p = Problem::parse_spec(spec);
      info.spec = p.ok() ? p->to_spec() : spec;
      auto jt = by_canonical.find(info.spec);
      int idx;
      if (jt != by_canonical.end()) {
        idx = jt->second;
      } else {
        if (p.ok()) {
          info.direction = to_string(p->direction);
          info.dtype = to_string(p->dtype);
          info.ndim = p->ndim;
          info.n = p->n, info.c = p->c, info.k = p->k, info.g = p->g;
        } else {  // columns stand in for an unparsable spec
          if (!cell(f, "direction").empty()) info.direction = cell(f, "direction");
          if (!cell(f, "dtype").empty()) info.dtype = cell(f, "dtype");
          info.ndim = int(parse_int(cell(f, "ndim")));
          info.n = parse_int(cell(f, "n")), info.c = parse_int(cell(f, "c"));
          info.k = parse_int(cell(f, "k")), info.g = parse_int(cell(f, "g"));
        }
        info.family = family_of(info.c, info.g);
        idx = int(sweep.problems.size());
        sweep.problems.push_back(info);
        by_canonical.emplace(info.spec, idx);
      }
      it = by_spec.emplace(spec, idx).first;
    }
    row.problem = it->second;
    ProblemInfo& info = sweep.problems[size_t(row.problem)];
    if (info.source.empty()) info.source = cell(f, "source");
    sweep.rows.push_back(std::move(row));
  }
  return sweep;
}

Result<Sweep> read_sweep_file(const std::string& path, bool strict) {
  auto text = problem_io::read_text_file(path);
  if (!text.ok()) return text.status();
  return parse_sweep_csv(*text, path, strict);
}

std::vector<Oracle> compute_oracles(const Sweep& sweep) {
  std::vector<Oracle> out(sweep.problems.size());
  for (size_t i = 0; i < out.size(); ++i) out[i].problem = int(i);
  for (const auto& r : sweep.rows) {
    if (r.baseline || r.status != "ok" || !(r.latency_ms > 0)) continue;
    Oracle& o = out[size_t(r.problem)];
    if (!o.found || r.latency_ms < o.ms) o = {r.problem, r.kernel, r.latency_ms, true};
  }
  return out;
}

std::vector<SourceSummary> summarize_sources(const Sweep& sweep, const std::vector<Oracle>& oracles) {
  struct Acc {
    std::set<int> problems, with_oracle;
    std::set<std::string> kernels;
    SourceSummary s;
  };
  std::map<std::string, Acc> acc;
  for (const auto& r : sweep.rows) {
    if (r.baseline) continue;
    std::vector<std::string> keys = split_sources(sweep.problems[size_t(r.problem)].source);
    keys.push_back("all");
    for (const auto& key : keys) {
      Acc& a = acc[key];
      a.problems.insert(r.problem);
      if (oracles[size_t(r.problem)].found) a.with_oracle.insert(r.problem);
      a.kernels.insert(r.kernel);
      a.s.rows++;
      (r.status == "ok" ? a.s.ok : a.s.failed)++;
      a.s.by_status[r.status]++;
    }
  }
  std::vector<SourceSummary> out;
  auto finish = [&](const std::string& key, Acc& a) {
    a.s.source = key;
    a.s.problems = a.problems.size();
    a.s.problems_with_oracle = a.with_oracle.size();
    a.s.kernels = a.kernels.size();
    out.push_back(a.s);
  };
  if (acc.count("all")) finish("all", acc["all"]);
  for (auto& [key, a] : acc)
    if (key != "all") finish(key, a);
  return out;
}

std::vector<Baseline> baselines_from_sweep(const Sweep& sweep, const std::string& provider) {
  std::map<std::string, Baseline> by_variant;
  for (const auto& r : sweep.rows) {
    if (!r.baseline || r.status != "ok" || !(r.latency_ms > 0)) continue;
    if (r.provider != provider && r.kernel.rfind(provider + "_", 0) != 0) continue;
    const std::string v = variant_of(r.kernel);
    Baseline& b = by_variant[v];
    b.name = v;
    const std::string& spec = sweep.problems[size_t(r.problem)].spec;
    auto it = b.ms.find(spec);
    if (it == b.ms.end() || r.latency_ms < it->second) b.ms[spec] = r.latency_ms;
  }
  for (auto& [v, b] : by_variant) b.rows = v + ":* rows";
  const std::string lb = provider + "_best", lh = provider + "_heuristic";
  const std::string gb = provider + "_graph_best", gh = provider + "_graph_heuristic";
  std::vector<Baseline> out;
  if (!by_variant.count(gb) && !by_variant.count(gh)) {
    for (auto& [v, b] : by_variant) out.push_back(std::move(b));
    return out;
  }
  // Both APIs present: the combined baselines first (see the header).
  Baseline best{lb, by_variant.count(lb) ? by_variant[lb].ms : std::map<std::string, double>{},
                "per problem the faster of " + lb + ":* and " + gb + ":* rows"};
  if (by_variant.count(gb))
    for (const auto& [spec, ms] : by_variant[gb].ms) {
      auto it = best.ms.find(spec);
      if (it == best.ms.end() || ms < it->second) best.ms[spec] = ms;
    }
  Baseline heur{lh, by_variant.count(lh) ? by_variant[lh].ms : std::map<std::string, double>{},
                gh + ":* rows, else " + lh + ":* rows"};
  if (by_variant.count(gh))
    for (const auto& [spec, ms] : by_variant[gh].ms) heur.ms[spec] = ms;
  out.push_back(std::move(best));
  out.push_back(std::move(heur));
  for (const auto& [v, name] : {std::pair{lb, provider + "_legacy_best"}, std::pair{lh, provider + "_legacy_heuristic"}})
    if (by_variant.count(v)) {
      Baseline b = std::move(by_variant[v]);
      b.name = name;
      b.rows = v + ":* rows (legacy API)";
      out.push_back(std::move(b));
    }
  for (auto& [v, b] : by_variant)
    if (v != lb && v != lh && v != gb && v != gh) out.push_back(std::move(b));
  return out;
}

Result<Baseline> baseline_from_jsonl_text(const std::string& text, const std::string& name,
                                          const std::string& field) {
  // read_problem_file's parser builds the problems (and validates them); the
  // time field it does not keep is read from the same line here.
  auto entries = parse_problem_text(text, name);
  if (!entries.ok()) return entries.status();
  // Line starts as parse_problem_text counts them (after a byte order mark).
  std::vector<size_t> starts{text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? size_t(3) : size_t(0)};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  Baseline b;
  b.name = "jsonl:" + field;
  b.rows = "'" + field + "' of " + name;
  for (const auto& e : *entries) {
    if (e.line < 1 || size_t(e.line) > starts.size()) return internal_error(name + ": line out of range");
    const size_t a = starts[size_t(e.line - 1)];
    const size_t z = text.find('\n', a);
    auto j = nlohmann::json::parse(text.substr(a, z == std::string::npos ? std::string::npos : z - a), nullptr,
                                   /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object())
      return parse_error(name + ":" + std::to_string(e.line) + ": not a JSON object");
    auto it = j.find(field);
    if (it == j.end() || !it->is_number()) continue;
    const double ms = it->get<double>();
    if (!std::isfinite(ms) || !(ms > 0))
      return parse_error(name + ":" + std::to_string(e.line) + ": '" + field + "' " + it->dump() +
                         " is not a finite positive time");
    const std::string spec = e.problem.to_spec();
    auto jt = b.ms.find(spec);
    if (jt == b.ms.end() || ms < jt->second) b.ms[spec] = ms;
  }
  return b;
}

Result<Baseline> baseline_from_jsonl(const std::string& path, const std::string& field) {
  auto text = problem_io::read_text_file(path);
  if (!text.ok()) return text.status();
  return baseline_from_jsonl_text(*text, problem_io::strip_compression_suffix(path), field);
}

double geomean(const std::vector<double>& xs) {
  if (xs.empty()) return kNaN;
  double s = 0;
  for (double x : xs) s += std::log(x);
  return std::exp(s / double(xs.size()));
}

namespace {

RatioStats stats_of(const std::string& slice, const std::vector<double>& v) {
  RatioStats s;
  s.slice = slice;
  s.n = v.size();
  s.geomean = geomean(v);
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  s.wins = size_t(std::count_if(v.begin(), v.end(), [](double x) { return x > 1; }));
  return s;
}

void add_network(std::map<std::pair<std::string, std::string>, NetworkSum>& sums, const ProblemInfo& info,
                 double gconv_ms, double baseline_ms) {
  for (const auto& net : split_sources(info.source)) {
    NetworkSum& s = sums[{net, info.direction}];
    s.network = net;
    s.direction = info.direction;
    s.problems++;
    s.gconv_ms += gconv_ms;
    s.baseline_ms += baseline_ms;
  }
}

std::vector<NetworkSum> values(std::map<std::pair<std::string, std::string>, NetworkSum>& m) {
  std::vector<NetworkSum> out;
  for (auto& [k, v] : m) out.push_back(v);
  return out;
}

}  // namespace

Comparison compare(const Sweep& sweep, const std::vector<Oracle>& oracles, const Baseline& baseline) {
  Comparison c;
  c.baseline = baseline.name;
  c.baseline_rows = baseline.rows;
  std::set<std::string> oracle_specs;
  std::map<std::string, std::vector<double>> ratios;
  std::map<std::pair<std::string, std::string>, NetworkSum> nets;
  for (const auto& o : oracles) {
    if (!o.found) continue;
    const ProblemInfo& info = sweep.problems[size_t(o.problem)];
    oracle_specs.insert(info.spec);
    auto it = baseline.ms.find(info.spec);
    if (it == baseline.ms.end()) {
      c.without_baseline++;
      continue;
    }
    const double r = it->second / o.ms;
    c.per_problem.push_back({o.problem, o.ms, it->second, r});
    const std::string& d = info.direction;
    std::vector<std::string> keys = {"all", d};
    if (info.family != Family::unknown) {
      keys.push_back(to_string(info.family));
      keys.push_back(std::string(to_string(info.family)) + "/" + d);
    }
    if (info.ndim == 3) {
      keys.push_back("3d");
      keys.push_back("3d/" + d);
    }
    for (const auto& k : keys) ratios[k].push_back(r);
    add_network(nets, info, o.ms, it->second);
  }
  for (const auto& [spec, ms] : baseline.ms)
    if (!oracle_specs.count(spec)) c.without_oracle++;
  std::stable_sort(c.per_problem.begin(), c.per_problem.end(),
                   [](const ProblemRatio& a, const ProblemRatio& b) { return a.ratio < b.ratio; });
  // Fixed slice order: overall, per direction, per family (then by
  // direction), 3D (then by direction).
  std::vector<std::string> order = {"all"};
  for (const auto& d : kDirections) order.push_back(d);
  for (const char* f : {"dense", "grouped", "depthwise", "3d"}) {
    order.push_back(f);
    for (const auto& d : kDirections) order.push_back(std::string(f) + "/" + d);
  }
  for (const auto& [k, v] : ratios)  // directions outside the known three
    if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
  for (const auto& k : order) {
    auto it = ratios.find(k);
    if (it != ratios.end() && !it->second.empty()) c.slices.push_back(stats_of(k, it->second));
  }
  c.networks = values(nets);
  return c;
}

std::vector<NetworkSum> oracle_network_sums(const Sweep& sweep, const std::vector<Oracle>& oracles) {
  std::map<std::pair<std::string, std::string>, NetworkSum> nets;
  for (const auto& o : oracles)
    if (o.found) add_network(nets, sweep.problems[size_t(o.problem)], o.ms, 0);
  return values(nets);
}

std::string plot_script_path() {
  if (const char* env = std::getenv("GCONV_PLOT_SCRIPT"); env && *env) return env;
  return source_script("plot_report.py");
}

}  // namespace gconv::report
