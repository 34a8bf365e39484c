// --sample keeps a deterministic, uniform subset of each problem's applicable
// kernels: at most N per problem, all applicable, the same on every call, and
// a subset of the unsampled plan.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>

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

// --pairs keeps exactly the listed (kernel, spec) pairs, whatever else the
// file holds (a sweep's extra columns, pairs of problems not in the set).
TEST(PlanPairs, KeepsExactlyTheListedPairs) {
  auto full = build_plan({"example", "fwd", "", 0});
  ASSERT_TRUE(full.ok()) << full.status().to_string();
  const auto all = candidate_items(*full, nullptr);
  ASSERT_GT(all.size(), 10u);
  std::set<std::pair<int, int>> want;
  const std::string path = testing::TempDir() + "plan_pairs.csv";
  {
    std::ofstream f(path);
    f << "status,spec,kernel\n";
    for (size_t i = 0; i < all.size(); i += all.size() / 5) {
      want.insert({all[i].problem, all[i].kernel});
      f << "ok," << full->specs[all[i].problem] << "," << full->kernel_names[all[i].kernel] << "\n";
    }
    f << "ok,fwd_bf16_n1c8k8_w9,igemm_fwd_bf16_1d_m64n64k32_w2x2_s3_sk1_v8_g1\n";  // not in the set
  }
  PlanOptions o{"example", "fwd", "", 0, path};
  auto picked = build_plan(o);
  ASSERT_TRUE(picked.ok()) << picked.status().to_string();
  std::set<std::pair<int, int>> got;
  for (const auto& it : candidate_items(*picked, nullptr)) got.insert({it.problem, it.kernel});
  EXPECT_EQ(got, want);

  {
    std::ofstream f(path);
    f << "spec,latency_ms\nfwd_bf16_n1c8k8_w9,1\n";
  }
  auto bad = build_plan(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("kernel"), std::string::npos) << bad.status().to_string();
  std::remove(path.c_str());
}

}  // namespace
}  // namespace gconv::bench
