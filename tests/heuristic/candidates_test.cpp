// The model's candidate subset: the analytic top K plus the analytic best of
// each kernel class, in analytic order, without duplicates.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <set>

#include "heuristic/candidates.hpp"

namespace gconv::heuristic {
namespace {

KernelTraits igemm(int tm, int tn, SplitKMode split, int vec) {
  KernelTraits t;
  t.tile_m = tm;
  t.tile_n = tn;
  t.split_mode = split;
  t.split_k = split == SplitKMode::none ? 1 : 4;
  t.vec = vec;
  return t;
}

TEST(Candidates, ClassesSeparateSplitModeTileAreaVectorAndFamily) {
  KernelTraits direct;
  direct.family = Family::direct;
  std::set<int> ids;
  for (SplitKMode s : {SplitKMode::none, SplitKMode::parallel, SplitKMode::serial})
    for (int tile : {64, 128})
      for (int vec : {1, 2, 4, 8}) ids.insert(kernel_class(igemm(tile, 128, s, vec)));
  ids.insert(kernel_class(direct));
  // The direct family's deterministic and register-window kernels are classes
  // of their own (the estimate misjudged the window ones as a group).
  KernelTraits det = direct, window = direct;
  det.deterministic = true;
  window.win_fx = 7;
  window.win_sx = 1;
  ids.insert(kernel_class(det));
  ids.insert(kernel_class(window));
  EXPECT_EQ(ids.size(), 3u * 2u * 4u + 3u);
  EXPECT_NE(kernel_class(det), kernel_class(direct));
  EXPECT_NE(kernel_class(window), kernel_class(direct));
  EXPECT_NE(kernel_class(window), kernel_class(det));
  // Packed igemm kernels: a class per vector width, apart from every other.
  KernelTraits pk8 = igemm(128, 32, SplitKMode::none, 8), pk4 = igemm(128, 32, SplitKMode::none, 4);
  pk8.groups_per_block = pk4.groups_per_block = 4;
  const int plain8 = kernel_class(pk8);
  pk8.packed = pk4.packed = true;
  EXPECT_NE(kernel_class(pk8), plain8);
  EXPECT_NE(kernel_class(pk8), kernel_class(pk4));
  EXPECT_EQ(ids.count(kernel_class(pk8)) + ids.count(kernel_class(pk4)), 0u);
  // Same class: only stages, warps or tile_k differ.
  KernelTraits a = igemm(128, 128, SplitKMode::none, 8), b = a;
  b.stages = 4;
  b.warps_m = 4;
  b.tile_k = 64;
  EXPECT_EQ(kernel_class(a), kernel_class(b));
}

// The rule stated plainly, on the sorted list: the positions of the first
// top_k, then of the first kernel of every class not yet represented.
std::vector<uint32_t> sorted_reference(const std::vector<const KernelTraits*>& analytic_order, int top_k) {
  const size_t n = analytic_order.size();
  std::vector<uint32_t> keep;
  std::set<int> seen;
  for (size_t i = 0; i < n; ++i) {
    const int c = kernel_class(*analytic_order[i]);
    if (top_k <= 0 || n <= size_t(top_k) || i < size_t(top_k) || !seen.count(c)) keep.push_back(uint32_t(i));
    seen.insert(c);
  }
  return keep;
}

// model_candidates_unsorted on kernels whose analytic order is their
// position (handed over in reverse): the ids it keeps.
std::vector<uint32_t> kept_ids(const std::vector<KernelTraits>& ts, int top_k) {
  std::vector<std::pair<double, uint32_t>> order, kept;
  std::vector<uint8_t> cls;
  for (size_t i = ts.size(); i-- > 0;) order.emplace_back(double(i), uint32_t(i));
  for (const KernelTraits& t : ts) cls.push_back(uint8_t(kernel_class(t)));
  model_candidates_unsorted(order, cls.data(), top_k, kept);
  std::vector<uint32_t> ids;
  for (const auto& [ms, id] : kept) ids.push_back(id);
  return ids;
}

TEST(Candidates, TopKPlusTheFirstOfEachMissingClass) {
  // Analytic order: four unsplit large-tile kernels, then a parallel split-K
  // one, another unsplit one, a direct one, a second split-K one.
  std::vector<KernelTraits> ts = {igemm(128, 128, SplitKMode::none, 8), igemm(128, 256, SplitKMode::none, 8),
                                  igemm(256, 128, SplitKMode::none, 8), igemm(128, 128, SplitKMode::none, 8),
                                  igemm(64, 64, SplitKMode::parallel, 8), igemm(128, 128, SplitKMode::none, 8),
                                  KernelTraits{},                         igemm(64, 64, SplitKMode::parallel, 8)};
  ts[6].family = Family::direct;
  EXPECT_EQ(kept_ids(ts, 2), (std::vector<uint32_t>{0, 1, 4, 6}));
  EXPECT_EQ(kept_ids(ts, 5), (std::vector<uint32_t>{0, 1, 2, 3, 4, 6}));
  // K >= n or K <= 0: everything.
  EXPECT_EQ(kept_ids(ts, 8).size(), 8u);
  EXPECT_EQ(kept_ids(ts, 0).size(), 8u);
}

// Without a full sort, the same kernels in the same order as the rule
// applied to the sorted list, ties included.
TEST(Candidates, UnsortedSelectionEqualsTheSortedOne) {
  std::mt19937 rng(7);
  std::vector<KernelTraits> kinds;
  for (SplitKMode s : {SplitKMode::none, SplitKMode::parallel, SplitKMode::serial})
    for (int tile : {64, 128})
      for (int vec : {1, 2, 4, 8, 16}) kinds.push_back(igemm(tile, 128, s, vec));
  kinds.push_back(KernelTraits{});
  kinds.back().family = Family::direct;
  std::vector<std::pair<double, uint32_t>> order, kept, sorted;
  std::vector<uint8_t> cls;
  std::vector<const KernelTraits*> ks;
  for (int trial = 0; trial < 500; ++trial) {
    const size_t n = rng() % 200;
    order.clear();
    cls.clear();
    std::vector<const KernelTraits*> by_id;
    for (size_t i = 0; i < n; ++i) {
      // Few distinct estimates, so that ties (broken by id) are common.
      order.emplace_back(double(rng() % 40), uint32_t(i));
      by_id.push_back(&kinds[rng() % (trial % 3 == 0 ? 4 : kinds.size())]);
      cls.push_back(uint8_t(kernel_class(*by_id.back())));
    }
    std::shuffle(order.begin(), order.end(), rng);
    sorted = order;
    std::sort(sorted.begin(), sorted.end());
    ks.clear();
    for (const auto& [ms, id] : sorted) ks.push_back(by_id[id]);
    const int top_k = int(rng() % 40) - 2;
    const std::vector<uint32_t> keep = sorted_reference(ks, top_k);
    model_candidates_unsorted(order, cls.data(), top_k, kept);
    ASSERT_EQ(kept.size(), keep.size()) << "trial " << trial << " n " << n << " K " << top_k;
    for (size_t i = 0; i < keep.size(); ++i) ASSERT_EQ(kept[i], sorted[keep[i]]) << "trial " << trial << " at " << i;
  }
}

// The coverage figures of a candidate subset: the oracle outside it, and how
// close its best candidate comes.
TEST(Candidates, CoverageCountsTheOracleOutsideAndTheCeiling) {
  Dataset d;
  // Problem 0: the oracle (1.0 ms) is a candidate. Problem 1: it is not; the
  // best candidate takes 2.0 ms (ceiling 0.5). Problem 2: no candidate at all.
  const float times[] = {1.0f, 3.0f, 1.0f, 2.0f, 4.0f, 5.0f, 6.0f};
  const bool cand[] = {true, true, false, true, true, false, false};
  d.begin = {0, 2, 5, 7};
  for (float t : times) {
    d.time_ms.push_back(t);
    d.kernels.push_back(KernelTraits{});
    d.kernel_names.push_back("k");
  }
  d.problems.resize(3);
  d.specs = {"a", "b", "c"};
  d.sources = {"", "", ""};
  const std::vector<bool> rows(std::begin(cand), std::end(cand));
  const CandidateCoverage c = candidate_coverage(d, rows);
  EXPECT_EQ(c.problems, 2u);
  EXPECT_DOUBLE_EQ(c.mean_candidates, 2.0);
  EXPECT_DOUBLE_EQ(c.oracle_outside, 0.5);
  EXPECT_DOUBLE_EQ(c.mean_ceiling, 0.75);
  EXPECT_DOUBLE_EQ(c.min_ceiling, 0.5);
}

}  // namespace
}  // namespace gconv::heuristic
