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

// Classes of the implicit-GEMM families: split mode x tile area x vector width.
constexpr int kGemmClasses = 3 * 2 * 5;
// direct, then igemm, then wgmma (appended, so that the ids of the igemm and
// direct classes are those the shipped model's candidates were chosen with).
constexpr int kIgemmFirst = 1, kWgmmaFirst = kIgemmFirst + kGemmClasses;
// Cluster split-K (wgmma only), appended after them for the same reason:
// tile area x vector width.
constexpr int kClusterFirst = kWgmmaFirst + kGemmClasses;
// tinyc: one class.
constexpr int kTinycClass = kClusterFirst + 2 * 5;
// The direct family's register-window kernels and its deterministic tile
// kernels: the analytic estimate judges them apart from the atomic tile
// kernels (class 0) and got them wrong as a group (window bwd_weight ranked
// behind every tile kernel while measuring 2-3x faster on the public
// depthwise layers), so each class keeps its own best candidate.
// The window kernels are a class per vector width: the estimate prefers
// 16-byte vectors, yet 8-byte ones measured fastest on most depthwise
// bwd_weight layers (H100, sixteenth session: on the public set's 30, every
// direct kernel timed, the window kernels' best was vec 4 on 20 and the
// picks, never offered a vec 4 window kernel, ran 1.15x the best direct
// kernel). kWindowClass holds vec 8, the classes after kDirectDetClass the
// other widths (appended, as above).
constexpr int kWindowClass = kTinycClass + 1, kDirectDetClass = kTinycClass + 2;
constexpr int kWindowVecFirst = kDirectDetClass + 1;
// The window kernels' TMA row stream (_tma), one class (appended): it wins
// where the gather loses (large planes, 7x7) and loses where it wins (small
// planes), which an estimate fitted to the gather does not see.
constexpr int kWindowStreamClass = kWindowVecFirst + 5;
// The direct tile kernels with narrow vectors (vec 8 stays class 0): on
// grouped problems (C/G = K/G = 2..8) their grouped entries with vec 2 or 4
// measured 2x faster than the vec 8 kernels the estimate ranks first (H200,
// h200_train_grouped: ResNeXt's c128 g32 56x56 fwd at batch 128, 0.245 ms
// for t8x32_r8_v4 against 0.52 for the best vec 8), and no vec 4 kernel was
// among the candidates of those problems (appended, as above).
constexpr int kDirectVecFirst = kWindowStreamClass + 1;
// Packed igemm kernels (several small groups as one block-diagonal GEMM), a
// class per vector width (appended, as above): the estimate charges them
// groups_per_block times the mma work, which on C/G = 4..16 is not what
// paces them (the one wide gather is).
constexpr int kPackedFirst = kDirectVecFirst + 5;
// Realigned igemm kernels (an odd channel count in realigned 16-byte
// vectors), one class (appended, as above): they compete with the vec 1
// kernels the estimate also ranks by bytes per copy. Realigned wgmma kernels
// (a channel count off the vector: 230, 460, 921) a class of their own: the
// estimate ranks them as vec 8 wgmma kernels, above the igemm ones.
constexpr int kRealignClass = kPackedFirst + 5;
constexpr int kWgmmaRealignClass = kRealignClass + 1;
// The pw family (pointwise streaming GEMM), one class (appended, as above):
// its estimate is a model of its own, not comparable in error to gemm_ms.
constexpr int kPwClass = kWgmmaRealignClass + 1;
// Packed wgmma weight gradients (wgmma/packed.hpp), one class (appended):
// the estimate charges them gpb times the MMA work like the packed igemm
// kernels, but they read whole TMA boxes where those gather, so the two
// compete unevenly in analytic order.
constexpr int kWgmmaPackedClass = kPwClass + 1;
constexpr int kClasses = kWgmmaPackedClass + 1;

}  // namespace

static_assert(kClasses <= 256, "kernel_class fits a uint8_t");

int kernel_class(const KernelTraits& t) {
  if (t.family == Family::direct) {
    if (t.win_fx > 0 && t.tma) return kWindowStreamClass;
    if (t.win_fx > 0) return t.vec == 8 ? kWindowClass : kWindowVecFirst + vec_index(t.vec);
    if (t.deterministic) return kDirectDetClass;
    return t.vec == 8 ? 0 : kDirectVecFirst + vec_index(t.vec);
  }
  if (t.family == Family::tinyc) return kTinycClass;
  if (t.family == Family::pw) return kPwClass;
  if (t.packed) return t.family == Family::wgmma ? kWgmmaPackedClass : kPackedFirst + vec_index(t.vec);
  if (t.realign) return t.family == Family::wgmma ? kWgmmaRealignClass : kRealignClass;
  const int large = t.tile_m * t.tile_n >= 128 * 128 ? 1 : 0;
  if (t.split_mode == SplitKMode::cluster) return kClusterFirst + large * 5 + vec_index(t.vec);
  const int split = t.split_mode == SplitKMode::none ? 0 : t.split_mode == SplitKMode::parallel ? 1 : 2;
  const int first = t.family == Family::wgmma ? kWgmmaFirst : kIgemmFirst;
  return first + (split * 2 + large) * 5 + vec_index(t.vec);
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
  std::vector<std::pair<double, uint32_t>> order, kept;
  std::vector<uint8_t> cls;
  for (size_t g = 0; g < d.groups(); ++g) {
    const size_t b = d.begin[g], n = d.begin[g + 1] - b;
    if (n <= size_t(top_k)) continue;
    // Higher analytic scores first, ties in row order: ascending (-score, row).
    order.clear();
    cls.clear();
    for (size_t i = 0; i < n; ++i) {
      order.emplace_back(-double(analytic[b + i]), uint32_t(i));
      cls.push_back(uint8_t(kernel_class(d.kernels[b + i])));
    }
    model_candidates_unsorted(order, cls.data(), top_k, kept);
    for (size_t i = 0; i < n; ++i) keep[b + i] = false;
    for (const auto& [key, i] : kept) keep[b + i] = true;
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

CandidateCoverage candidate_coverage(const Dataset& d, const std::vector<bool>& rows) {
  CandidateCoverage c;
  size_t cands = 0, outside = 0;
  double ceiling = 0;
  for (size_t g = 0; g < d.groups(); ++g) {
    float best = 0;
    size_t n = 0;
    for (size_t r = d.begin[g]; r < d.begin[g + 1]; ++r) {
      if (!rows[r]) continue;
      best = n == 0 ? d.time_ms[r] : std::min(best, d.time_ms[r]);
      ++n;
    }
    if (n == 0) continue;
    ++c.problems;
    cands += n;
    const float oracle = d.best_ms(g);
    outside += best > oracle ? 1 : 0;
    const double e = double(oracle) / double(best);
    ceiling += e;
    c.min_ceiling = std::min(c.min_ceiling, e);
  }
  if (c.problems > 0) {
    c.mean_candidates = double(cands) / double(c.problems);
    c.oracle_outside = double(outside) / double(c.problems);
    c.mean_ceiling = ceiling / double(c.problems);
  }
  return c;
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
