// gconv report: oracle, per-source summaries and the baseline comparison of a
// sweep CSV, as aligned tables (or one JSON object), optionally with plots.

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "report/report.hpp"
#include "report/run_script.hpp"

extern char** environ;

namespace gconv::cli {
namespace {

using json = nlohmann::ordered_json;
using namespace gconv::report;

struct Options {
  std::string sweep;
  std::string baseline = "cudnn";
  std::string baseline_jsonl;
  std::string baseline_field = "torch_exh_ms";
  std::string plots;
  bool json = false;
  bool per_problem = false;
  bool strict = false;
};

[[noreturn]] void fail(const std::string& msg) {
  std::fprintf(stderr, "gconv report: %s\n", msg.c_str());
  throw CLI::RuntimeError(1);
}

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json networks_json(const std::vector<NetworkSum>& nets, bool with_baseline) {
  json a = json::array();
  for (const auto& n : nets) {
    json o = {{"network", n.network}, {"direction", n.direction}, {"problems", n.problems},
              {"gconv_ms", n.gconv_ms}};
    if (with_baseline) o["baseline_ms"] = n.baseline_ms;
    a.push_back(o);
  }
  return a;
}

json to_json(const Options& opt, const Sweep& sweep, const std::vector<Oracle>& oracles,
             const std::vector<SourceSummary>& sums, const std::vector<Comparison>& comps) {
  json j;
  j["file"] = opt.sweep;
  j["problems"] = sweep.problems.size();
  j["rows"] = sweep.rows.size();
  json s = json::array();
  for (const auto& x : sums) {
    json st = json::object();
    for (const auto& [k, v] : x.by_status) st[k] = v;
    s.push_back({{"source", x.source}, {"problems", x.problems}, {"problems_with_oracle", x.problems_with_oracle},
                 {"kernels", x.kernels}, {"rows", x.rows}, {"ok", x.ok}, {"failed", x.failed},
                 {"by_status", st}});
  }
  j["summaries"] = s;
  json o = json::array();
  for (const auto& x : oracles) {
    const ProblemInfo& p = sweep.problems[size_t(x.problem)];
    o.push_back({{"spec", p.spec}, {"source", p.source}, {"direction", p.direction}, {"dtype", p.dtype},
                 {"ndim", p.ndim}, {"family", to_string(p.family)},
                 {"kernel", x.found ? json(x.kernel) : json(nullptr)},
                 {"ms", x.found ? json(x.ms) : json(nullptr)}});
  }
  j["oracle"] = o;
  j["oracle_networks"] = networks_json(oracle_network_sums(sweep, oracles), false);
  json c = json::array();
  for (const auto& cmp : comps) {
    json slices = json::array();
    for (const auto& r : cmp.slices)
      slices.push_back({{"slice", r.slice}, {"n", r.n}, {"geomean", num(r.geomean)}, {"min", r.min},
                        {"max", r.max}, {"wins", r.wins}});
    json pp = json::array();
    for (const auto& r : cmp.per_problem) {
      const ProblemInfo& p = sweep.problems[size_t(r.problem)];
      pp.push_back({{"spec", p.spec}, {"source", p.source}, {"direction", p.direction},
                    {"family", to_string(p.family)}, {"ndim", p.ndim}, {"gconv_ms", r.gconv_ms},
                    {"baseline_ms", r.baseline_ms}, {"ratio", r.ratio}});
    }
    c.push_back({{"baseline", cmp.baseline}, {"baseline_rows", cmp.baseline_rows},
                 {"without_baseline", cmp.without_baseline},
                 {"without_oracle", cmp.without_oracle}, {"slices", slices},
                 {"networks", networks_json(cmp.networks, true)}, {"per_problem", pp}});
  }
  j["comparisons"] = c;
  return j;
}

void print_tables(const Options& opt, const Sweep& sweep, const std::vector<Oracle>& oracles,
                  const std::vector<SourceSummary>& sums, const std::vector<Comparison>& comps) {
  fmt::print("sweep {}: {} rows, {} problems\n\n", opt.sweep, sweep.rows.size(), sweep.problems.size());
  fmt::print("{:<28} {:>8} {:>8} {:>8} {:>9} {:>9} {:>7}  {}\n", "source", "problems", "oracle", "kernels", "rows",
             "ok", "failed", "statuses");
  for (const auto& s : sums) {
    std::string st;
    for (const auto& [k, v] : s.by_status)
      if (k != "ok") st += fmt::format("{}{} {}", st.empty() ? "" : ", ", k, v);
    fmt::print("{:<28} {:>8} {:>8} {:>8} {:>9} {:>9} {:>7}  {}\n", s.source, s.problems, s.problems_with_oracle,
               s.kernels, s.rows, s.ok, s.failed, st);
  }
  if (opt.per_problem) {
    fmt::print("\n{:<60} {:>10}  {}\n", "problem (oracle)", "ms", "kernel");
    for (const auto& o : oracles)
      fmt::print("{:<60} {:>10}  {}\n", sweep.problems[size_t(o.problem)].spec,
                 o.found ? fmt::format("{:.4f}", o.ms) : "-", o.found ? o.kernel : "(no ok row)");
  }
  if (comps.empty()) {
    fmt::print("\nno baseline (no '{}' rows in the sweep and no --baseline-jsonl)\n", opt.baseline);
    fmt::print("\n{:<32} {:>8} {:>10}\n", "network/direction", "problems", "gconv ms");
    for (const auto& n : oracle_network_sums(sweep, oracles))
      fmt::print("{:<32} {:>8} {:>10.3f}\n", n.network + "/" + n.direction, n.problems, n.gconv_ms);
  }
  for (const auto& c : comps) {
    fmt::print("\nbaseline {}{}; ratio = baseline / gconv oracle (>1: gconv faster); {} problems without a baseline "
               "time, {} baseline problems without an ok gconv row\n",
               c.baseline, c.baseline_rows.empty() ? "" : " (" + c.baseline_rows + ")", c.without_baseline,
               c.without_oracle);
    fmt::print("{:<28} {:>5} {:>8} {:>7} {:>7} {:>5}\n", "slice", "n", "geomean", "min", "max", "wins");
    for (const auto& r : c.slices)
      fmt::print("{:<28} {:>5} {:>8.3f} {:>7.3f} {:>7.3f} {:>5}\n", r.slice, r.n, r.geomean, r.min, r.max, r.wins);
    fmt::print("\n{:<32} {:>8} {:>11} {:>10}\n", "network/direction", "problems", "baseline ms", "gconv ms");
    for (const auto& n : c.networks)
      fmt::print("{:<32} {:>8} {:>11.3f} {:>10.3f}\n", n.network + "/" + n.direction, n.problems, n.baseline_ms,
                 n.gconv_ms);
    if (opt.per_problem) {
      fmt::print("\n{:<60} {:>10} {:>10} {:>7}\n", "problem", "base ms", "gconv ms", "ratio");
      for (const auto& r : c.per_problem)
        fmt::print("{:<60} {:>10.4f} {:>10.4f} {:>7.3f}\n", sweep.problems[size_t(r.problem)].spec, r.baseline_ms,
                   r.gconv_ms, r.ratio);
    }
  }
}

// Writes the numbers for the plots (report.json plus one per-problem CSV per
// baseline), then runs the script; a missing matplotlib skips the plots.
void write_plots(const Options& opt, const json& j) {
  std::error_code ec;
  std::filesystem::create_directories(opt.plots, ec);
  if (ec) fail("cannot create " + opt.plots + ": " + ec.message());
  {
    std::ofstream f(opt.plots + "/report.json");
    f << j.dump(1) << "\n";
    if (!f) fail("cannot write " + opt.plots + "/report.json");
  }
  for (const auto& c : j["comparisons"]) {
    std::string name = c["baseline"].get<std::string>();
    for (char& ch : name)
      if (ch == ':' || ch == '/') ch = '_';
    std::ofstream f(opt.plots + "/per_problem_" + name + ".csv");
    f << "spec,source,direction,family,ndim,gconv_ms,baseline_ms,ratio\n";
    for (const auto& r : c["per_problem"])
      f << '"' << r["spec"].get<std::string>() << "\",\"" << r["source"].get<std::string>() << "\","
        << r["direction"].get<std::string>() << ',' << r["family"].get<std::string>() << ',' << r["ndim"] << ','
        << r["gconv_ms"] << ',' << r["baseline_ms"] << ',' << r["ratio"] << "\n";
  }
  const std::string script = plot_script_path();
  if (script.empty()) {
    std::fprintf(stderr, "gconv report: plots skipped: scripts/plot_report.py not found (set GCONV_PLOT_SCRIPT)\n");
    return;
  }
  const int rc = run_python_script(script, {opt.plots});
  if (rc < 0) {
    std::fprintf(stderr, "gconv report: plots skipped: python3 not found\n");
    return;
  }
  if (rc == kNoMatplotlib) {
    std::fprintf(stderr,
                 "gconv report: plots skipped: python3 has no matplotlib (Debian: apt-get install "
                 "python3-matplotlib); numbers written to %s\n",
                 opt.plots.c_str());
  } else if (rc != 0) {
    fail(fmt::format("{} failed (exit {})", script, rc));
  }
}

void run(const Options& opt) {
  auto sweep = read_sweep_file(opt.sweep, opt.strict);
  if (!sweep.ok()) fail(sweep.status().to_string());
  if (sweep->invalid_rows > 0)
    std::fprintf(stderr, "gconv report: %zu rows of invalid problems skipped, the first: %s\n", sweep->invalid_rows,
                 sweep->first_invalid.c_str());
  const auto oracles = compute_oracles(*sweep);
  const auto sums = summarize_sources(*sweep, oracles);
  std::vector<Baseline> baselines = baselines_from_sweep(*sweep, opt.baseline);
  if (!opt.baseline_jsonl.empty()) {
    auto b = baseline_from_jsonl(opt.baseline_jsonl, opt.baseline_field);
    if (!b.ok()) fail(b.status().to_string());
    if (b->ms.empty()) fail(opt.baseline_jsonl + ": no record has a numeric '" + opt.baseline_field + "'");
    baselines.push_back(std::move(*b));
  }
  std::vector<Comparison> comps;
  for (const auto& b : baselines) comps.push_back(compare(*sweep, oracles, b));
  const json j = opt.json || !opt.plots.empty() ? to_json(opt, *sweep, oracles, sums, comps) : json();
  if (opt.json)
    fmt::print("{}\n", j.dump(1));
  else
    print_tables(opt, *sweep, oracles, sums, comps);
  if (!opt.plots.empty()) write_plots(opt, j);
}

}  // namespace

void register_report_command(CLI::App& app) {
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("report", "Summarize a sweep CSV: fastest kernel per problem, comparison with a baseline");
  cmd->add_option("sweep", opt->sweep, "sweep CSV from `gconv bench` (.gz / .zst are decompressed)")->required();
  cmd->add_option("--baseline", opt->baseline,
                  "baseline provider among the sweep's rows (provider column, or kernels named <provider>_*); "
                  "with cuDNN graph-API rows: <p>_best = faster of legacy and graph best, <p>_heuristic = graph "
                  "heuristic (else legacy), plus <p>_legacy_best / <p>_legacy_heuristic")
      ->capture_default_str();
  cmd->add_option("--baseline-jsonl", opt->baseline_jsonl,
                  "also compare with the times of a JSON-lines problem file (e.g. bench/cudnn_torch.py output)");
  cmd->add_option("--baseline-field", opt->baseline_field, "time field (ms) of --baseline-jsonl records")
      ->capture_default_str();
  cmd->add_option("--plots", opt->plots, "write the numbers and PNG plots (python3 + matplotlib) into this folder");
  cmd->add_flag("--json", opt->json, "print one JSON object instead of tables");
  cmd->add_flag("--per-problem", opt->per_problem, "also list every problem's oracle and ratio");
  cmd->add_flag("--strict", opt->strict, "a sweep row of an invalid problem is an error (default: skipped and counted)");
  cmd->callback([opt] { run(*opt); });
}

}  // namespace gconv::cli
