// --sample keeps a deterministic, uniform subset of each problem's applicable
// kernels: at most N per problem, all applicable, the same on every call, and
// a subset of the unsampled plan.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "bench/plan.hpp"

namespace gconv::bench {
namespace {

TEST(PlanSample, KeepsAtMostNApplicableKernelsPerProblemDeterministically) {
  auto full = build_plan({"example", "fwd,bwd_weight", "", 0});
  ASSERT_TRUE(full.ok()) << full.status().to_string();
  auto sampled = build_plan({"example", "fwd,bwd_weight", "", 7});
  ASSERT_TRUE(sampled.ok()) << sampled.status().to_string();

  std::vector<bool> app_full, app_s, app_s2;
  const auto all = candidate_items(*full, &app_full);
  const auto s1 = candidate_items(*sampled, &app_s);
  const auto s2 = candidate_items(*sampled, &app_s2);
  std::set<std::pair<int, int>> applicable;
  std::map<int, int> applicable_per_problem;
  for (size_t i = 0; i < all.size(); ++i)
    if (app_full[i]) {
      applicable.insert({all[i].problem, all[i].kernel});
      ++applicable_per_problem[all[i].problem];
    }
  ASSERT_EQ(s1.size(), s2.size());
  std::map<int, int> per_problem;
  for (size_t i = 0; i < s1.size(); ++i) {
    EXPECT_EQ(s1[i].problem, s2[i].problem);
    EXPECT_EQ(s1[i].kernel, s2[i].kernel);
    EXPECT_TRUE(app_s[i]);
    EXPECT_TRUE(applicable.count({s1[i].problem, s1[i].kernel})) << "sampled an inapplicable pair";
    ++per_problem[s1[i].problem];
  }
  for (const auto& [p, n] : applicable_per_problem) EXPECT_EQ(per_problem[p], std::min(n, 7)) << "problem " << p;

  auto bad = build_plan({"example", "", "", -1});
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace gconv::bench
