// Ranking computes a problem's terms once (igemm::ProblemFacts, for igemm
// and wgmma kernels; DirectProblem, AnalyticProblem) and then only each
// kernel's: those split calls must answer exactly what the one-shot calls
// answer, for every pool kernel, on valid and invalid problems, or selection
// would rank a kernel that run() refuses (or drop one it accepts), or
// estimate it differently.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../problem/random_problem.hpp"
#include "kernels/direct/direct_plan.hpp"
#include "kernels/family.hpp"
#include "kernels/igemm/igemm_plan.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"
#include "perf/analytic.hpp"
#include "pool/pool.hpp"
#include "registry_test_util.hpp"

namespace gconv {
namespace {

using testing::test_device;

// Every field of a breakdown, bit for bit (summary() formats these).
void expect_same(const AnalyticBreakdown& a, const AnalyticBreakdown& b, const std::string& what) {
  const double x[] = {a.compute_ms, a.memory_ms, a.overhead_ms, a.total_ms, a.tile_efficiency, a.wave_efficiency};
  const double y[] = {b.compute_ms, b.memory_ms, b.overhead_ms, b.total_ms, b.tile_efficiency, b.wave_efficiency};
  EXPECT_EQ(std::memcmp(x, y, sizeof x), 0) << what;
  EXPECT_EQ(a.blocks, b.blocks) << what;
  EXPECT_EQ(a.blocks_per_sm, b.blocks_per_sm) << what;
  EXPECT_EQ(a.waves, b.waves) << what;
  EXPECT_EQ(a.memory_bound, b.memory_bound) << what;
}

TEST(ProblemTerms, SplitCallsAgreeWithTheOneShotCallsOnEveryPoolKernel) {
  const DeviceInfo& d = test_device();
  ASSERT_NE(d.rules, nullptr);
  std::vector<KernelTraits> pools[3][3];
  for (int dir = 0; dir < 3; ++dir)
    for (int dt = 0; dt < 3; ++dt) {
      auto pool = load_pool(*d.rules, Direction(dir), DType(dt));
      ASSERT_TRUE(pool.ok()) << pool.status().to_string();
      pools[dir][dt] = std::move(pool).value();
    }
  std::mt19937_64 rng(91);
  int accepted = 0, rejected = 0, invalid = 0;
  for (int i = 0; i < 150; ++i) {
    Problem p = testing::random_valid_problem(rng);
    if (i % 4 == 0) p.g = p.c = p.k = 8 * (1 + i % 5);  // depthwise: the direct family's problems
    if (i % 10 == 0) p.k += 1;                           // K not divisible by G: invalid
    if (!p.validate().ok()) ++invalid;
    const igemm::ProblemFacts facts = igemm::check_problem(p);
    const DirectProblem dp = direct_problem(p);
    const AnalyticProblem ap = p.validate().ok() ? analytic_problem(p, d) : AnalyticProblem{};
    // Kernels of other directions too: the mismatch rules answer the same.
    const auto& same = pools[int(p.direction)][int(p.dtype)];
    const auto& other = pools[(int(p.direction) + 1) % 3][int(p.dtype)];
    for (const auto* kernels : {&same, &other})
      for (const KernelTraits& t : *kernels) {
        const std::string what = kernel_name(t) + " on " + p.to_spec();
        std::string why;
        const bool ok = family_of(t).can_implement(t, p, &why);
        EXPECT_EQ(family_of(t).can_implement(t, p, nullptr), ok) << what;
        if (t.family == Family::igemm) {
          std::string split_why;
          EXPECT_EQ(igemm::can_implement(t, facts, &split_why), ok) << what;
          EXPECT_EQ(split_why, why) << what;
          EXPECT_EQ(igemm::can_implement(t, facts, nullptr), ok) << what;
          if (facts.valid) EXPECT_EQ(igemm::workspace_bytes(t, facts), igemm::workspace_bytes(t, p)) << what;
        } else if (t.family == Family::wgmma) {
          // The registry ranks wgmma kernels through the same facts.
          std::string split_why;
          EXPECT_EQ(wgmma::can_implement(t, facts, &split_why), ok) << what;
          EXPECT_EQ(split_why, why) << what;
          EXPECT_EQ(wgmma::can_implement(t, facts, nullptr), ok) << what;
          // ... and through the traits_ok it keeps per pool kernel.
          EXPECT_EQ(wgmma::traits_ok(t, nullptr) && wgmma::problem_ok(t, facts, nullptr), ok) << what;
          if (ok) EXPECT_EQ(wgmma::workspace_bytes(t, p), family_of(t).workspace_bytes(t, p)) << what;
        } else if (t.family == Family::tinyc) {
          // tinyc has no split (facts) form: can_implement is its only rule.
        } else {
          DirectPlan plan;
          EXPECT_EQ(plan_direct(t, dp, &plan), ok) << what;
          if (ok) EXPECT_EQ(plan.workspace, family_of(t).workspace_bytes(t, p)) << what;
        }
        ok ? ++accepted : ++rejected;
        if (!ok || !p.validate().ok()) continue;
        AnalyticBreakdown one, split;
        const double ms = analytic_ms(t, p, d, &one);
        DirectPlan plan;
        const bool planned = t.family == Family::direct && plan_direct(t, dp, &plan);
        const double split_ms = analytic_ms(t, ap, d, &split, planned ? &plan : nullptr);
        EXPECT_EQ(std::memcmp(&ms, &split_ms, sizeof ms), 0) << what;
        expect_same(one, split, what);
      }
  }
  // The sample must exercise both answers and the invalid-problem path.
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(invalid, 5);
}

}  // namespace
}  // namespace gconv
