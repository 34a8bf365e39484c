#include "bench/plan.hpp"

#include "perf/sweep_csv.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "gconv/problem_sets.hpp"
#include "kernels/family.hpp"
#include "pool/arch_rules.hpp"
#include "pool/filter.hpp"
#include "pool/pool.hpp"
#include "pool/select.hpp"
#include "problem/fold.hpp"

namespace gconv::bench {

std::vector<std::string> split_list(const std::string& s) { return split_comma_list(s); }

Result<Plan> build_plan(const PlanOptions& o) {
  Plan plan;
  auto path = resolve_problem_set(o.problems);
  if (!path.ok()) return path.status();
  auto problems = read_problem_file(*path);
  if (!problems.ok()) return problems.status();
  plan.problems = std::move(*problems);
  if (!o.directions.empty()) {
    std::vector<Direction> dirs;
    for (const auto& name : split_list(o.directions == "all" ? "fwd,bwd_data,bwd_weight" : o.directions)) {
      auto d = parse_direction(name);
      if (!d.ok()) return d.status();
      dirs.push_back(*d);
    }
    std::vector<ProblemEntry> expanded;
    for (const auto& e : plan.problems)
      for (Direction d : dirs) {
        ProblemEntry x = e;
        x.problem.direction = d;
        expanded.push_back(x);
      }
    plan.problems = std::move(expanded);
  }
  {
    // A problem listed twice is planned once (rows are keyed by kernel, spec
    // and provider): tile_engine's sweep files, for one, hold each problem
    // once per kernel measured.
    std::set<std::string> seen;
    std::vector<ProblemEntry> unique;
    for (auto& e : plan.problems)
      if (seen.insert(e.problem.to_spec()).second) unique.push_back(std::move(e));
    plan.duplicates = plan.problems.size() - unique.size();
    plan.problems = std::move(unique);
  }
  auto rules = load_default_arch_rules();
  if (!rules.ok()) return rules.status();
  if (!o.filter.empty()) {  // a bad filter is an error even when no problem needs a pool
    auto f = Filter::parse(o.filter);
    if (!f.ok()) return f.status();
  }
  // The pools of the (direction, dtype) pairs the problems need, in pair order.
  std::set<std::pair<Direction, DType>> needed;
  for (const auto& e : plan.problems) needed.insert({e.problem.direction, e.problem.dtype});
  for (auto [d, t] : needed) {
    PoolSelection sel;
    sel.directions = {d};
    sel.dtypes = {t};
    sel.filter = o.filter;
    auto kernels = select_pool(*rules, sel);
    if (!kernels.ok()) return kernels.status();
    plan.kernels.insert(plan.kernels.end(), kernels->begin(), kernels->end());
  }
  for (const auto& k : plan.kernels) plan.kernel_names.push_back(kernel_name(k));
  for (const auto& e : plan.problems) plan.specs.push_back(e.problem.to_spec());
  if (o.sample < 0) return invalid_argument("--sample must be >= 0 (0 = every kernel)");
  plan.sample = o.sample;
  if (!o.pairs.empty()) {
    auto t = read_sweep_csv(o.pairs);
    if (!t.ok()) return t.status();
    if (t->column("kernel") < 0 || t->column("spec") < 0)
      return invalid_argument("--pairs " + o.pairs + ": needs the columns kernel and spec");
    for (size_t i = 0; i < t->rows.size(); ++i) plan.pairs.insert(t->get(i, "kernel") + "|" + t->get(i, "spec"));
    if (plan.pairs.empty()) return invalid_argument("--pairs " + o.pairs + ": holds no (kernel, spec) pair");
  }
  return plan;
}

Result<Shard> parse_shard(const std::string& s) {
  const size_t slash = s.find('/');
  Shard sh;
  try {
    if (slash == std::string::npos) throw 0;
    size_t used = 0;
    sh.index = std::stoi(s.substr(0, slash), &used);
    if (used != slash) throw 0;
    sh.count = std::stoi(s.substr(slash + 1), &used);
    if (used != s.size() - slash - 1) throw 0;
  } catch (...) {
    return invalid_argument("--shard '" + s + "': expected i/n, e.g. 3/16");
  }
  if (sh.count < 1 || sh.index < 0 || sh.index >= sh.count)
    return invalid_argument("--shard '" + s + "': need 0 <= i < n");
  return sh;
}

bool in_shard(const Shard& s, const std::string& kernel, const std::string& spec) {
  return s.count <= 1 || fnv1a(kernel + "|" + spec) % uint64_t(s.count) == uint64_t(s.index);
}

std::vector<WorkItem> candidate_items(const Plan& plan, std::vector<bool>* applicable) {
  std::vector<WorkItem> items;
  if (applicable) applicable->clear();
  std::vector<std::pair<uint64_t, int>> sampled;  // (hash, kernel) of one problem
  for (size_t pi = 0; pi < plan.problems.size(); ++pi) {
    const Problem& p = plan.problems[pi].problem;
    const Problem run = fold_patches(p);  // the form launch_instance runs
    sampled.clear();
    for (size_t ki = 0; ki < plan.kernels.size(); ++ki) {
      const KernelTraits& t = plan.kernels[ki];
      if (t.direction != p.direction || t.dtype != p.dtype || t.ndim != p.ndim) continue;
      if (!plan.pairs.empty() && !plan.pairs.count(plan.kernel_names[ki] + "|" + plan.specs[pi])) continue;
      const bool ok = family_of(t).can_implement(t, run, nullptr);
      if (plan.sample > 0) {
        if (ok) sampled.push_back({fnv1a(plan.kernel_names[ki] + "|" + plan.specs[pi] + "|sample"), int(ki)});
        continue;
      }
      items.push_back(WorkItem{int(pi), int(ki), 0});
      if (applicable) applicable->push_back(ok);
    }
    if (plan.sample > 0) {
      const size_t keep = std::min(sampled.size(), size_t(plan.sample));
      std::partial_sort(sampled.begin(), sampled.begin() + long(keep), sampled.end());
      sampled.resize(keep);
      // Pool order within the problem, as without sampling.
      std::sort(sampled.begin(), sampled.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
      for (const auto& [h, ki] : sampled) {
        items.push_back(WorkItem{int(pi), ki, 0});
        if (applicable) applicable->push_back(true);
      }
    }
  }
  return items;
}

WorkList order_work(const Plan& plan, const std::vector<WorkItem>& cands, const std::vector<bool>& applicable,
                    const std::vector<std::string>& provider_names, const std::vector<int>& providers,
                    const Shard& shard, const DoneFn& done) {
  WorkList w;
  int gconv = -1;
  std::vector<int> others;
  for (int p : providers) {
    if (provider_names[size_t(p)] == "gconv") gconv = p;
    else others.push_back(p);
  }
  size_t c = 0;  // cands are problem-major (candidate_items): one pass
  for (size_t pi = 0; pi < plan.problems.size(); ++pi) {
    const std::string& spec = plan.specs[pi];
    for (int p : others) {
      const std::string& name = provider_names[size_t(p)];
      if (!in_shard(shard, name, spec)) continue;
      if (done(name, spec, name)) {
        ++w.skipped;
        continue;
      }
      w.items.push_back(WorkItem{int(pi), -1, p});
    }
    for (; c < cands.size() && cands[c].problem == int(pi); ++c) {
      if (gconv < 0) continue;
      const std::string& kn = plan.kernel_names[size_t(cands[c].kernel)];
      if (!in_shard(shard, kn, spec)) continue;
      if (done(kn, spec, "gconv")) {
        ++w.skipped;
        continue;
      }
      (applicable[c] ? w.items : w.unsupported).push_back(WorkItem{int(pi), cands[c].kernel, gconv});
    }
  }
  return w;
}

void keep_picks(const std::vector<std::vector<int>>& picks, std::vector<WorkItem>* cands,
                std::vector<bool>* applicable) {
  size_t out = 0;
  for (size_t i = 0; i < cands->size(); ++i) {
    const WorkItem& it = (*cands)[i];
    const auto& mine = size_t(it.problem) < picks.size() ? picks[size_t(it.problem)] : std::vector<int>{};
    if (std::find(mine.begin(), mine.end(), it.kernel) == mine.end()) continue;
    (*cands)[out] = it;
    (*applicable)[out] = (*applicable)[i];
    ++out;
  }
  cands->resize(out);
  applicable->resize(out);
}

}  // namespace gconv::bench
