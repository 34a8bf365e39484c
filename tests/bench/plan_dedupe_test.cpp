// A problem file that lists a problem more than once (tile_engine's sweep
// CSVs: once per kernel) is planned once per problem.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "bench/plan.hpp"

namespace gconv::bench {
namespace {

TEST(PlanDedupe, RepeatedProblemsArePlannedOnce) {
  const auto path =
      std::filesystem::temp_directory_path() / ("gconv_plan_dedupe_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path) << "kernel,problem_idx,N,C,K,G,Hi,Wi,Y,X,stride_h,stride_w,pad_h,pad_w,latency_ms\n"
                         "a,0,2,64,64,1,14,14,3,3,1,1,1,1,0.1\n"
                         "b,0,2,64,64,1,14,14,3,3,1,1,1,1,0.2\n"
                         "a,1,2,64,64,1,14,14,1,1,1,1,0,0,0.1\n"
                         "c,0,2,64,64,1,14,14,3,3,1,1,1,1,N/A\n";
  auto plan = build_plan({path.string(), "", "", 0});
  std::filesystem::remove(path);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  ASSERT_EQ(plan->problems.size(), 2u);
  EXPECT_EQ(plan->duplicates, 2u);
  EXPECT_EQ(plan->specs[0], "fwd_bf16_n2c64k64g1_h14w14_y3x3_s1_p1_dil1");
  EXPECT_EQ(plan->specs[1], "fwd_bf16_n2c64k64g1_h14w14_y1x1_s1_p0_dil1");
  EXPECT_EQ(plan->problems[1].line, 4);  // the first row of each problem is kept

  // --directions all on it: each direction of each problem once.
  std::ofstream(path) << "N,C,K,G,Hi,Wi,Y,X\n2,64,64,1,14,14,1,1\n2,64,64,1,14,14,1,1\n";
  auto all = build_plan({path.string(), "all", "", 0});
  std::filesystem::remove(path);
  ASSERT_TRUE(all.ok()) << all.status().to_string();
  EXPECT_EQ(all->problems.size(), 3u);
  EXPECT_EQ(all->duplicates, 3u);
}

}  // namespace
}  // namespace gconv::bench
