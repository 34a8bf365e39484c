#include "heuristic/candidates.hpp"

#include <algorithm>
#include <array>
#include <bitset>

namespace gconv::heuristic {
namespace {

int vec_index(int vec) {
  switch (vec) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    default: return 4;
  }
}

constexpr int kClasses = 1 + 3 * 2 * 5;  // direct + split mode x tile area x vector width

}  // namespace

static_assert(kClasses <= 256, "kernel_class fits a uint8_t");

int kernel_class(const KernelTraits& t) {
  if (t.family == Family::direct) return 0;
  const int split = t.split_mode == SplitKMode::none ? 0 : t.split_mode == SplitKMode::parallel ? 1 : 2;
  const int large = t.tile_m * t.tile_n >= 128 * 128 ? 1 : 0;
  return 1 + (split * 2 + large) * 5 + vec_index(t.vec);
}

void model_candidate_positions(const KernelTraits* const* analytic_order, size_t n, int top_k,
                               std::vector<uint32_t>& keep) {
  keep.clear();
  if (top_k <= 0 || n <= size_t(top_k)) {
    for (size_t i = 0; i < n; ++i) keep.push_back(uint32_t(i));
    return;
  }
  std::bitset<kClasses> seen;
  for (size_t i = 0; i < n; ++i) {
    const int c = kernel_class(*analytic_order[i]);
    if (i < size_t(top_k) || !seen[size_t(c)]) keep.push_back(uint32_t(i));
    seen[size_t(c)] = true;
  }
}

void model_candidates_unsorted(std::vector<std::pair<double, uint32_t>>& order, const uint8_t* cls, int top_k,
                               std::vector<std::pair<double, uint32_t>>& kept) {
  kept.clear();
  const size_t n = order.size();
  const size_t k = top_k <= 0 ? n : std::min(n, size_t(top_k));
  // The first k of the analytic order, sorted (pairs are distinct: ids are).
  std::nth_element(order.begin(), order.begin() + long(k), order.end());
  std::sort(order.begin(), order.begin() + long(k));
  kept.assign(order.begin(), order.begin() + long(k));
  if (k == n) return;
  // Then the first of every class the top k lacks: each such class's least
  // pair among the rest, in analytic order.
  std::bitset<kClasses> seen;
  for (size_t i = 0; i < k; ++i) seen[cls[order[i].second]] = true;
  std::array<size_t, kClasses> best;
  best.fill(n);
  for (size_t i = k; i < n; ++i) {
    const int c = cls[order[i].second];
    if (!seen[size_t(c)] && (best[size_t(c)] == n || order[i] < order[best[size_t(c)]])) best[size_t(c)] = i;
  }
  for (const size_t b : best)
    if (b != n) kept.push_back(order[b]);
  std::sort(kept.begin() + long(k), kept.end());
}

std::vector<bool> model_candidate_rows(const Dataset& d, const std::vector<float>& analytic, int top_k) {
  std::vector<bool> keep(d.rows(), true);
  if (top_k <= 0) return keep;
  std::vector<uint32_t> order, pos;
  std::vector<const KernelTraits*> ks;
  for (size_t g = 0; g < d.groups(); ++g) {
    const size_t b = d.begin[g], n = d.begin[g + 1] - b;
    if (n <= size_t(top_k)) continue;
    order.resize(n);
    for (size_t i = 0; i < n; ++i) order[i] = uint32_t(b + i);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return analytic[x] > analytic[y]; });
    ks.clear();
    for (const uint32_t r : order) ks.push_back(&d.kernels[r]);
    model_candidate_positions(ks.data(), n, top_k, pos);
    for (size_t i = 0; i < n; ++i) keep[b + i] = false;
    for (const uint32_t i : pos) keep[order[i]] = true;
  }
  return keep;
}

std::vector<bool> top_rows_by_score(const Dataset& d, const std::vector<float>& scores, int keep) {
  std::vector<bool> out(d.rows(), true);
  if (keep <= 0) return out;
  std::vector<uint32_t> rows;
  for (size_t g = 0; g < d.groups(); ++g) {
    const size_t n = d.begin[g + 1] - d.begin[g];
    if (n <= size_t(keep)) continue;
    rows.resize(n);
    for (size_t i = 0; i < n; ++i) rows[i] = uint32_t(d.begin[g] + i);
    std::stable_sort(rows.begin(), rows.end(), [&](uint32_t x, uint32_t y) { return scores[x] > scores[y]; });
    for (size_t i = size_t(keep); i < n; ++i) out[rows[i]] = false;
  }
  return out;
}

std::vector<float> score_rows(const Selector& s, const Dataset& d, const std::vector<bool>& rows, const GpuProps& g,
                              const DeviceInfo& dev) {
  std::vector<float> scores(d.rows(), -1e30f), part, scratch;
  std::vector<const KernelTraits*> ks;
  std::vector<size_t> rows_of;
  for (size_t gi = 0; gi < d.groups(); ++gi) {
    ks.clear();
    rows_of.clear();
    for (size_t r = d.begin[gi]; r < d.begin[gi + 1]; ++r)
      if (rows[r]) {
        ks.push_back(&d.kernels[r]);
        rows_of.push_back(r);
      }
    part.resize(ks.size());
    s.score(d.problems[gi], ks.data(), ks.size(), g, dev, part.data(), scratch);
    for (size_t i = 0; i < rows_of.size(); ++i) scores[rows_of[i]] = part[i];
  }
  return scores;
}

}  // namespace gconv::heuristic
