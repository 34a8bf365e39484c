// The --policy summary: per problem the pick's time (topk: the fastest) and
// the provider's best, and geometric means per slice, checked against
// numbers computed by hand.
#include "bench/pick_summary.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace gconv::bench {
namespace {

TEST(PickSummary, TableKeepsFastestOkRowsPerSide) {
  auto plan = build_plan({"example", "fwd,bwd_data", "", 0});
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  PickTable t(*plan);
  const std::string s0 = plan->specs[0];
  t.add_row(s0, "gconv", "ok", 2.0);
  t.add_row(s0, "gconv", "ok", 1.5);  // topk: the fastest of the K
  t.add_row(s0, "gconv", "wrong_result", 0.1);
  t.add_row(s0, "cudnn", "ok", 3.0);
  t.add_row(s0, "cudnn", "ok", 1.0);
  t.add_row(s0, "cudnn", "launch_error", 0.0);
  t.add_row(s0, "cudnn", "ok", std::nan(""));
  t.add_row("fwd_bf16_no_such_problem", "gconv", "ok", 1.0);
  const auto& r = t.results();
  ASSERT_EQ(r.size(), plan->problems.size());
  EXPECT_EQ(r[0].gconv_ms, 1.5);
  EXPECT_EQ(r[0].provider_ms, 1.0);
  EXPECT_EQ(r[0].direction, "fwd");
  size_t with_times = 0;
  for (const auto& x : r) with_times += x.gconv_ms > 0 || x.provider_ms > 0;
  EXPECT_EQ(with_times, 1u);
}

TEST(PickSummary, GeometricMeansPerDirectionAndNetwork) {
  const std::vector<PickResult> r = {
      {"fwd", "resnet", 1.0, 2.0},       // speedup 2
      {"fwd", "resnet", 2.0, 1.0},       // 0.5
      {"bwd_data", "resnet", 1.0, 4.0},  // 4
      {"bwd_data", "vit", 1.0, 0.0},     // no provider row: not compared
      {"fwd", "", 3.0, 3.0},             // 1, no network
  };
  const auto s = summarize_picks(r);
  ASSERT_EQ(s.size(), 5u);  // all, fwd, bwd_data, net resnet, net vit
  EXPECT_EQ(s[0].name, "all");
  EXPECT_EQ(s[0].problems, 5u);
  EXPECT_EQ(s[0].compared, 4u);
  EXPECT_NEAR(s[0].speedup, std::pow(2.0 * 0.5 * 4.0 * 1.0, 0.25), 1e-12);
  EXPECT_EQ(s[0].gconv_wins, 2u);
  EXPECT_EQ(s[1].name, "fwd");
  EXPECT_EQ(s[1].compared, 3u);
  EXPECT_NEAR(s[1].speedup, 1.0, 1e-12);
  EXPECT_EQ(s[2].name, "bwd_data");
  EXPECT_EQ(s[2].problems, 2u);
  EXPECT_EQ(s[2].compared, 1u);
  EXPECT_NEAR(s[2].speedup, 4.0, 1e-12);
  EXPECT_EQ(s[3].name, "net resnet");
  EXPECT_NEAR(s[3].speedup, std::cbrt(4.0), 1e-12);  // (2 x 0.5 x 4)^(1/3)
  EXPECT_EQ(s[4].name, "net vit");
  EXPECT_EQ(s[4].compared, 0u);
  EXPECT_EQ(s[4].speedup, 0.0);
  const std::string text = format_pick_summary(s, "heuristic", "cudnn");
  EXPECT_NE(text.find("net resnet"), std::string::npos);
  EXPECT_NE(text.find("4.000"), std::string::npos);  // bwd_data
}

}  // namespace
}  // namespace gconv::bench
