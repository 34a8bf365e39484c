#include "bench/pick_summary.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>

namespace gconv::bench {

PickTable::PickTable(const Plan& plan) {
  results_.resize(plan.problems.size());
  for (size_t i = 0; i < plan.problems.size(); ++i) {
    results_[i].direction = to_string(plan.problems[i].problem.direction);
    results_[i].network = plan.problems[i].source;
    by_spec_[plan.specs[i]].push_back(i);
  }
}

void PickTable::add_row(const std::string& spec, const std::string& provider, const std::string& status,
                        double latency_ms) {
  if (status != "ok" || !(latency_ms > 0) || !std::isfinite(latency_ms)) return;
  auto it = by_spec_.find(spec);
  if (it == by_spec_.end()) return;
  for (size_t i : it->second) {
    double& slot = provider == "gconv" ? results_[i].gconv_ms : results_[i].provider_ms;
    if (slot == 0 || latency_ms < slot) slot = latency_ms;
  }
}

std::vector<SummarySlice> summarize_picks(const std::vector<PickResult>& results) {
  struct Acc {
    size_t problems = 0, compared = 0, wins = 0;
    double log_sum = 0;
  };
  Acc all;
  std::map<std::string, Acc> dirs, nets;
  std::vector<std::string> dir_order;
  for (const auto& r : results) {
    if (!dirs.count(r.direction)) dir_order.push_back(r.direction);
    Acc* accs[] = {&all, &dirs[r.direction], r.network.empty() ? nullptr : &nets[r.network]};
    for (Acc* a : accs) {
      if (!a) continue;
      ++a->problems;
      if (r.gconv_ms > 0 && r.provider_ms > 0) {
        ++a->compared;
        a->log_sum += std::log(r.provider_ms / r.gconv_ms);
        a->wins += r.gconv_ms < r.provider_ms;
      }
    }
  }
  auto slice = [](const std::string& name, const Acc& a) {
    return SummarySlice{name, a.problems, a.compared, a.compared ? std::exp(a.log_sum / double(a.compared)) : 0.0,
                        a.wins};
  };
  std::vector<SummarySlice> out = {slice("all", all)};
  for (const auto& d : dir_order) out.push_back(slice(d, dirs[d]));
  for (const auto& [n, a] : nets) out.push_back(slice("net " + n, a));
  return out;
}

std::string format_pick_summary(const std::vector<SummarySlice>& slices, const std::string& policy,
                                const std::string& provider) {
  std::string s = fmt::format(
      "gconv bench --policy {}: {} best time / gconv pick time, geometric mean (> 1: gconv faster)\n"
      "  {:<28} {:>8} {:>8} {:>8} {:>10}\n",
      policy, provider, "slice", "problems", "compared", "speedup", "gconv wins");
  for (const auto& x : slices)
    s += fmt::format("  {:<28} {:>8} {:>8} {:>8} {:>10}\n", x.name, x.problems, x.compared,
                     x.compared ? fmt::format("{:.3f}", x.speedup) : std::string("-"), x.gconv_wins);
  return s;
}

}  // namespace gconv::bench
