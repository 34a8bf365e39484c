#include "heuristic/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "perf/analytic.hpp"

namespace gconv::heuristic {

std::vector<GroupResult> evaluate_scores(const Dataset& d, const std::vector<float>& scores) {
  std::vector<GroupResult> out;
  out.reserve(d.groups());
  std::vector<size_t> idx;
  for (size_t g = 0; g < d.groups(); ++g) {
    const size_t b = d.begin[g], e = d.begin[g + 1];
    idx.resize(e - b);
    std::iota(idx.begin(), idx.end(), b);
    // Best score first; ties go to the earlier row (pool order), never to
    // the faster one, so a tie cannot profit from the measured times.
    std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return scores[x] > scores[y]; });
    const float best = d.best_ms(g);
    GroupResult r;
    r.group = g;
    r.picked_row = idx[0];
    r.efficiency = double(best) / double(d.time_ms[idx[0]]);
    r.top1 = d.time_ms[idx[0]] <= best * 1.005f;
    for (size_t i = 0; i < idx.size() && i < 5; ++i)
      if (d.time_ms[idx[i]] == best) r.oracle_in_top5 = true;
    out.push_back(r);
  }
  return out;
}

Summary summarize(const std::vector<GroupResult>& r) {
  Summary s;
  s.problems = r.size();
  if (r.empty()) return s;
  std::vector<double> e;
  for (const auto& x : r) {
    e.push_back(x.efficiency);
    s.top1 += x.top1;
    s.top5 += x.oracle_in_top5;
  }
  std::sort(e.begin(), e.end());
  s.mean = std::accumulate(e.begin(), e.end(), 0.0) / double(e.size());
  s.median = e.size() % 2 ? e[e.size() / 2] : 0.5 * (e[e.size() / 2 - 1] + e[e.size() / 2]);
  s.p10 = e[size_t(std::floor(0.1 * double(e.size() - 1)))];  // lower 10th percentile (nearest rank below)
  s.min = e.front();
  s.top1 /= double(r.size());
  s.top5 /= double(r.size());
  return s;
}

std::vector<std::pair<std::string, Summary>> summarize_slices(const Dataset& d, const std::vector<GroupResult>& r) {
  const std::vector<std::string> names = {"all",   "fwd", "bwd_data", "bwd_weight", "dense", "grouped",
                                          "depthwise", "1d", "2d",   "3d",         "small", "large"};
  std::map<std::string, std::vector<GroupResult>> parts;
  for (const auto& x : r) {
    const Problem& p = d.problems[x.group];
    parts["all"].push_back(x);
    parts[to_string(p.direction)].push_back(x);
    parts[kind_of(p)].push_back(x);
    parts[std::to_string(p.ndim) + "d"].push_back(x);
    parts[p.flops() < kSmallFlops ? "small" : "large"].push_back(x);
    parts[to_string(p.dtype)].push_back(x);
  }
  std::vector<std::pair<std::string, Summary>> out;
  for (const auto& n : names) out.push_back({n, summarize(parts[n])});
  // Data types: listed only for data of several (one-dtype reports unchanged).
  std::vector<std::string> dtypes;
  for (const char* t : {"bf16", "fp16", "fp32"})
    if (!parts[t].empty()) dtypes.push_back(t);
  if (dtypes.size() > 1)
    for (const auto& t : dtypes) out.push_back({t, summarize(parts[t])});
  return out;
}

std::vector<float> single_best_scores(const Dataset& d, const std::vector<bool>& train_groups) {
  std::map<std::string, std::pair<double, int>> eff;  // kernel -> (sum, count)
  for (size_t g = 0; g < d.groups(); ++g) {
    if (!train_groups[g]) continue;
    const float best = d.best_ms(g);
    for (size_t r = d.begin[g]; r < d.begin[g + 1]; ++r) {
      auto& e = eff[d.kernel_names[r]];
      e.first += double(best) / double(d.time_ms[r]);
      e.second += 1;
    }
  }
  std::vector<float> s(d.rows(), -1.0f);  // unseen kernels rank last
  for (size_t r = 0; r < d.rows(); ++r) {
    auto it = eff.find(d.kernel_names[r]);
    if (it != eff.end()) s[r] = float(it->second.first / it->second.second);
  }
  return s;
}

std::vector<float> analytic_scores(const Dataset& d, const DeviceInfo& dev) {
  std::vector<float> s(d.rows());
  for (size_t g = 0; g < d.groups(); ++g)
    for (size_t r = d.begin[g]; r < d.begin[g + 1]; ++r) {
      AnalyticBreakdown b;
      analytic_ms(d.kernels[r], d.problems[g], dev, &b);
      s[r] = -float(b.order_key());  // the registry's order (AnalyticBreakdown::order_key)
    }
  return s;
}

std::string format_slices(const std::vector<std::pair<std::string, Summary>>& s) {
  std::string out = fmt::format("{:<11} {:>8} {:>7} {:>7} {:>7} {:>7} {:>6} {:>6}\n", "slice", "problems", "mean",
                                "median", "p10", "min", "top1", "top5");
  for (const auto& [name, x] : s) {
    if (x.problems == 0) continue;
    out += fmt::format("{:<11} {:>8} {:>7.4f} {:>7.4f} {:>7.4f} {:>7.4f} {:>6.3f} {:>6.3f}\n", name, x.problems, x.mean,
                       x.median, x.p10, x.min, x.top1, x.top5);
  }
  return out;
}

Agreement compare_picks(const std::vector<GroupResult>& a, const std::vector<GroupResult>& b) {
  Agreement g;
  if (a.size() != b.size()) return g;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].group != b[i].group) return g;
  g.problems = a.size();
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].picked_row == b[i].picked_row) {
      ++g.same_kernel;
    } else if (a[i].efficiency > b[i].efficiency * 1.005) {
      ++g.a_faster;
    } else if (b[i].efficiency > a[i].efficiency * 1.005) {
      ++g.b_faster;
    } else {
      ++g.tied;
    }
  }
  return g;
}

std::string format_comparison(const std::vector<std::pair<std::string, Summary>>& a,
                              const std::vector<std::pair<std::string, Summary>>& b, const std::string& name_a,
                              const std::string& name_b) {
  std::string out = fmt::format("a = {}\nb = {}\n", name_a, name_b);
  out += fmt::format("{:<11} {:>8}  {:>7} {:>7} {:>7}  {:>7} {:>7} {:>7}  {:>7} {:>7} {:>7}  {:>6} {:>6}\n", "slice",
                     "problems", "mean a", "mean b", "delta", "p10 a", "p10 b", "delta", "min a", "min b", "delta",
                     "top1 a", "top1 b");
  std::map<std::string, Summary> bs(b.begin(), b.end());
  for (const auto& [name, x] : a) {
    const Summary y = bs.count(name) ? bs[name] : Summary{};
    if (x.problems == 0 && y.problems == 0) continue;
    out += fmt::format("{:<11} {:>8}  {:>7.4f} {:>7.4f} {:>+7.4f}  {:>7.4f} {:>7.4f} {:>+7.4f}  {:>7.4f} {:>7.4f} {:>+7.4f}  "
                       "{:>6.3f} {:>6.3f}\n",
                       name, x.problems, x.mean, y.mean, y.mean - x.mean, x.p10, y.p10, y.p10 - x.p10, x.min, y.min,
                       y.min - x.min, x.top1, y.top1);
  }
  return out;
}

std::string format_agreement(const Agreement& g, const std::string& name_a, const std::string& name_b) {
  if (g.problems == 0) return "agreement: no common problems\n";
  auto pct = [&](size_t n) { return 100.0 * double(n) / double(g.problems); };
  return fmt::format(
      "agreement over {} problems: same kernel {:.1f}%, other kernel within 0.5% {:.1f}%, {} faster {:.1f}%, "
      "{} faster {:.1f}%\n",
      g.problems, pct(g.same_kernel), pct(g.tied), name_a, pct(g.a_faster), name_b, pct(g.b_faster));
}

}  // namespace gconv::heuristic
