// gconv select: which kernel the registry chooses for a problem (or every
// problem of a file), with its predicted time and the reason. Works without a
// GPU for the analytic and heuristic policies. --bench N reports the latency
// of select() itself.
#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/problem_flags.hpp"
#include "gconv/problem_file.hpp"
#include "gconv/problem_sets.hpp"
#include "gconv/registry.hpp"
#include "heuristic/model.hpp"
#include "heuristic/train.hpp"
#include "perf/device_info.hpp"

namespace gconv::cli {
namespace {

struct SelectOptions {
  ProblemFlags problem;
  std::string problems, policy = "heuristic", filter, tuning_cache, arch, model;
  int top = 0;
  int bench = 0;
  int candidates = RegistryOptions{}.model_candidates;
  bool json = false, explain = false;
};

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "gconv select: %s\n", message.c_str());
  throw CLI::RuntimeError(1);
}

nlohmann::json solution_json(const Solution& s) {
  return {{"kernel", s.kernel},
          {"predicted_ms", s.predicted_ms},
          {"measured_ms", s.measured_ms},
          {"workspace_bytes", s.workspace_bytes},
          {"reason", s.reason},
          {"from_tuning_cache", s.from_tuning_cache},
          {"kernels_measured", s.kernels_measured},
          {"tuning_seconds", s.tuning_seconds}};
}

std::vector<ProblemEntry> load_problems(const SelectOptions& o, bool default_to_examples) {
  if (!o.problems.empty() || (default_to_examples && !o.problem.any())) {
    std::string path = o.problems;
    if (path.empty()) {
      const std::string dir = default_problem_dir();
      if (dir.empty()) fail("--bench needs --problems FILE (no bundled problems/ directory found)");
      path = dir + "/example.csv";
    }
    if (o.problem.any()) fail("give either a spec (or size flags) or --problems, not both");
    auto resolved = resolve_problem_set(path);  // a set name (as bench takes) or a file
    if (!resolved.ok()) fail(resolved.status().to_string());
    auto entries = read_problem_file(*resolved);
    if (!entries.ok()) fail(entries.status().to_string());
    return std::move(entries).value();
  }
  if (!o.problem.any()) fail("give a problem spec, size flags or --problems FILE");
  auto p = problem_from_flags(o.problem);
  if (!p.ok()) fail(p.status().to_string());
  return {ProblemEntry{*p, "", 0}};
}

std::unique_ptr<Registry> make_registry(const SelectOptions& o, bool memoize) {
  // An explicit --model that is not a model is an error here; the registry
  // would only warn and rank by the analytic estimate.
  if (!o.model.empty() && o.model != "off")
    if (auto kind = heuristic::model_folder_kind(o.model); !kind.ok()) fail("--model: " + kind.status().message());
  RegistryOptions ro;
  ro.kernel_filter = o.filter;
  ro.tuning_cache_path = o.tuning_cache;
  ro.arch = o.arch;
  ro.memoize = memoize;
  ro.model_dir = o.model;
  ro.model_candidates = o.candidates;
  auto reg = Registry::create(ro);
  if (!reg.ok()) fail(reg.status().to_string());
  return std::move(reg).value();
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5));
  return v[i];
}

// Latency of select(analytic) per call: "ranked" recomputes the ranking
// every call (memoize off), "memoized" is the repeat call of an application
// that selects per layer and iteration. Pools are loaded before timing; the
// first call of each (direction, dtype) is reported apart.
void run_bench(const SelectOptions& o) {
  if (o.bench < 1) fail("--bench N needs N >= 1");
  auto pol = Policy::parse(o.policy);
  if (!pol.ok()) fail(pol.status().to_string());
  if (pol->kind != Policy::Kind::analytic && pol->kind != Policy::Kind::heuristic)
    fail("--bench times the estimating policies only (heuristic, analytic)");
  const Policy policy = *pol;
  const std::vector<ProblemEntry> problems = load_problems(o, true);
  if (problems.empty()) fail("no problems to select for");
  using clock = std::chrono::steady_clock;
  auto us_since = [](clock::time_point t0) {
    return std::chrono::duration<double, std::micro>(clock::now() - t0).count();
  };

  auto ranked = make_registry(o, false);
  const auto t_first = clock::now();
  for (const ProblemEntry& e : problems) {
    auto s = ranked->select(e.problem, policy);
    if (!s.ok()) fail(e.problem.to_spec() + ": " + s.status().to_string());
  }
  const double first_pass_us = us_since(t_first);

  auto memo = make_registry(o, true);
  for (const ProblemEntry& e : problems) (void)memo->select(e.problem, policy);

  std::vector<double> cold, warm;
  for (int r = 0; r < o.bench; ++r) {
    for (const ProblemEntry& e : problems) {
      auto t0 = clock::now();
      auto s = ranked->select(e.problem, policy);
      cold.push_back(us_since(t0));
      t0 = clock::now();
      auto m = memo->select(e.problem, policy);
      warm.push_back(us_since(t0));
      if (!s.ok() || !m.ok() || s->kernel != m->kernel) fail("select disagreed with itself on " + e.problem.to_spec());
    }
  }
  if (o.json) {
    nlohmann::json j = {{"policy", policy.to_string()},
                        {"problems", problems.size()},
                        {"rounds", o.bench},
                        {"first_pass_us", first_pass_us},
                        {"ranked_p50_us", percentile(cold, 0.5)},
                        {"ranked_p99_us", percentile(cold, 0.99)},
                        {"memoized_p50_us", percentile(warm, 0.5)},
                        {"memoized_p99_us", percentile(warm, 0.99)}};
    std::printf("%s\n", j.dump().c_str());
    return;
  }
  std::printf("%s", fmt::format("select latency, policy {}, {} problems x {} rounds, device {}\n"
                                "  first pass (loads pools)  {:.1f} ms total\n"
                                "  ranked   (memoize off)    p50 {:.1f} us   p99 {:.1f} us\n"
                                "  memoized (repeat call)    p50 {:.2f} us   p99 {:.2f} us\n",
                                policy.to_string(), problems.size(), o.bench, ranked->device_name(), first_pass_us / 1000.0,
                                percentile(cold, 0.5), percentile(cold, 0.99), percentile(warm, 0.5),
                                percentile(warm, 0.99))
                        .c_str());
}

// --explain: the features that moved the model's prediction for the chosen
// kernel most (path contributions of the trees: the prediction is the bias
// plus their sum), with their values.
void explain(const SelectOptions& o, const Problem& p, const Solution& s) {
  auto dev = query_device(o.arch);
  if (!dev.ok()) fail(dev.status().to_string());
  const heuristic::GpuProps current = heuristic::gpu_props_of(*dev);
  auto sel = heuristic::find_model(o.model.empty() ? heuristic::models_dir() : o.model, current, nullptr);
  if (!sel.ok()) {
    std::printf("    explain: no learned model (%s)\n", sel.status().message().c_str());
    return;
  }
  auto t = parse_kernel_name(s.kernel);
  if (!t.ok()) {
    std::printf("    explain: %s is not a pool kernel (%s)\n", s.kernel.c_str(), s.reason.c_str());
    return;
  }
  const heuristic::GpuProps props = dev->has_gpu ? current : (*sel)->manifest().gpu;
  const DeviceInfo fdev = heuristic::device_info_for(props, dev->rules);
  const int nf = heuristic::num_features();
  std::vector<float> x(static_cast<size_t>(nf)), c(static_cast<size_t>(nf) + 1);
  heuristic::compute_features(p, *t, props, fdev, x.data());
  (*sel)->forest().contributions(x.data(), c.data());
  std::vector<int> idx(static_cast<size_t>(nf));
  for (int i = 0; i < nf; ++i) idx[size_t(i)] = i;
  std::sort(idx.begin(), idx.end(), [&](int a, int b) { return std::fabs(c[size_t(a)]) > std::fabs(c[size_t(b)]); });
  const bool reg = (*sel)->manifest().objective == "reg";
  std::printf("    explain (%s): bias %+.3f%s; features that weighed most for %s:\n", (*sel)->dir().c_str(),
              c[size_t(nf)], reg ? " (log ms; + = slower)" : "", s.kernel.c_str());
  const auto& table = heuristic::feature_table();
  for (int i = 0; i < 8 && i < nf; ++i) {
    const int f = idx[size_t(i)];
    std::printf("      %+.3f  %-28s = %g\n", c[size_t(f)], table[size_t(f)].name.c_str(), x[size_t(f)]);
  }
}

void run_select(const SelectOptions& o) {
  if (o.bench > 0) return run_bench(o);
  auto policy = Policy::parse(o.policy);
  if (!policy.ok()) fail(policy.status().to_string());
  if (o.top < 0) fail("--top must not be negative");
  const std::vector<ProblemEntry> problems = load_problems(o, false);
  auto reg = make_registry(o, true);
  int failures = 0;
  for (const ProblemEntry& e : problems) {
    const std::string spec = e.problem.to_spec();
    auto s = reg->select(e.problem, *policy);
    if (!s.ok()) {
      std::fprintf(stderr, "gconv select: %s: %s\n", spec.c_str(), s.status().to_string().c_str());
      ++failures;
      continue;
    }
    std::vector<Solution> top;
    const int ntop = o.explain ? std::max(o.top, 5) : o.top;
    if (ntop > 0) {
      auto r = reg->rank(e.problem, *policy, size_t(ntop));
      if (!r.ok()) fail(spec + ": " + r.status().to_string());
      top = std::move(r).value();
    }
    if (o.json) {
      nlohmann::json j = solution_json(*s);
      j["spec"] = spec;
      if (!e.source.empty()) j["source"] = e.source;
      j["policy"] = policy->to_string();
      if (o.top > 0) {
        j["ranked"] = nlohmann::json::array();
        for (const Solution& t : top) j["ranked"].push_back(solution_json(t));
      }
      std::printf("%s\n", j.dump().c_str());
      continue;
    }
    std::string line = fmt::format("{}  {}  predicted {:.4f} ms", spec, s->kernel, s->predicted_ms);
    if (s->measured_ms >= 0) line += fmt::format("  measured {:.4f} ms", s->measured_ms);
    if (s->workspace_bytes > 0) line += fmt::format("  workspace {} B", s->workspace_bytes);
    line += "  " + s->reason;
    if (!e.source.empty()) line += "  [" + e.source + "]";
    std::printf("%s\n", line.c_str());
    for (size_t i = 0; i < top.size(); ++i)
      std::printf("    %2zu. %s  %.4f ms  %s\n", i + 1, top[i].kernel.c_str(), top[i].predicted_ms,
                  top[i].reason.c_str());
    if (o.explain) explain(o, e.problem, *s);
  }
  if (failures > 0) fail(fmt::format("{} of {} problems failed", failures, problems.size()));
}

}  // namespace

void register_select_command(CLI::App& app) {
  auto o = std::make_shared<SelectOptions>();
  CLI::App* cmd = app.add_subcommand(
      "select", "Choose a kernel for a problem (or each problem of a file): kernel, predicted time, reason");
  add_problem_flags(cmd, &o->problem);
  cmd->add_option("--problems", o->problems, "Problem set name (problems/README.md) or file (CSV, JSONL or specs) instead of one problem");
  cmd->add_option("--policy", o->policy, "heuristic | analytic | exhaustive | topk:K (the last two measure on the GPU)")
      ->capture_default_str();
  cmd->add_option("--filter", o->filter, "Kernel filter expression, e.g. 'family==igemm && split_k==1'");
  cmd->add_option("--top", o->top, "Also list the N best candidates of the policy (heuristic: by the model)");
  cmd->add_option("--tuning-cache", o->tuning_cache,
                  "Tuning cache file ('off' disables; default $GCONV_TUNING_CACHE or <cache dir>/tuning.json)");
  cmd->add_option("--arch", o->arch, "Select for this arch (e.g. sm_90a) instead of the current GPU");
  cmd->add_flag("--json", o->json, "One JSON object per problem (JSON lines) instead of text");
  cmd->add_flag("--explain", o->explain,
                "Show the 5 best candidates with predicted times and the features that weighed most in the pick");
  cmd->add_option("--candidates", o->candidates,
                  "The model scores the K best candidates by the analytic estimate (0 = all; default: the registry's)");
  cmd->add_option("--model", o->model, "A model folder, or a folder of models (the one for this GPU is used), for the heuristic policy "
                  "('off': none; default models/)");
  cmd->add_option("--bench", o->bench,
                  "Report p50/p99 latency of select(--policy: heuristic or analytic) over N rounds of the problems "
                  "(default problems/example.csv)");
  cmd->callback([o] { run_select(*o); });
}

}  // namespace gconv::cli
