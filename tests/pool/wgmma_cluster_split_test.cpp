// Cluster split-K (SplitKMode::cluster): names, the rules of the arch file
// and of the kernel, the plan (one launch, no workspace, grid = tiles x
// split with the splits adjacent), and the pools that ask for it.
#include <string>

#include <gtest/gtest.h>

#include "gconv/problem.hpp"
#include "kernels/family.hpp"
#include "kernels/traits.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"
#include "pool/arch_rules.hpp"
#include "pool/filter.hpp"
#include "pool_test_util.hpp"

namespace gconv {
namespace {

using testing::sm90;

KernelTraits cluster(Direction d, int tm, int tn, int consumers, int stages, int split) {
  KernelTraits t;
  t.family = Family::wgmma;
  t.direction = d;
  t.tile_m = tm;
  t.tile_n = tn;
  t.tile_k = 64;
  t.warps_m = consumers;
  t.warps_n = 1;
  t.stages = stages;
  t.split_mode = SplitKMode::cluster;
  t.split_k = split;
  return t;
}

Problem problem(const std::string& spec) { return *Problem::parse_spec(spec); }

TEST(WgmmaClusterSplit, NameRoundTripsWithItsOwnSuffix) {
  const KernelTraits t = cluster(Direction::bwd_weight, 256, 128, 2, 4, 4);
  EXPECT_EQ(kernel_name(t), "wgmma_bwd_weight_bf16_2d_m256n128k64_c2_s4_sk4c_v8");
  auto back = parse_kernel_name(kernel_name(t));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_TRUE(*back == t);
  EXPECT_STREQ(to_string(SplitKMode::cluster), "cluster");
}

TEST(WgmmaClusterSplit, RulesBoundTheClusterAndTheStagedTile) {
  std::string why;
  EXPECT_TRUE(is_legal(sm90(), cluster(Direction::bwd_weight, 128, 256, 2, 4, 8), &why)) << why;
  // More splits than a portable cluster holds.
  EXPECT_FALSE(is_legal(sm90(), cluster(Direction::bwd_weight, 128, 128, 2, 4, 16), &why));
  EXPECT_NE(why.find("cluster"), std::string::npos) << why;
  // Not a power of two: the rows of the tile would not split evenly.
  EXPECT_FALSE(wgmma::traits_ok(cluster(Direction::fwd, 128, 128, 2, 4, 3), &why));
  EXPECT_NE(why.find("2, 4 or 8"), std::string::npos) << why;
  // 128 x 256 fp32 partials (133 KB) do not fit a 2-stage ring (96 KB).
  EXPECT_FALSE(wgmma::traits_ok(cluster(Direction::bwd_weight, 128, 256, 2, 2, 4), &why));
  EXPECT_NE(why.find("fit the ring"), std::string::npos) << why;
  // igemm has no cluster split.
  KernelTraits ig = cluster(Direction::fwd, 128, 128, 2, 3, 2);
  ig.family = Family::igemm;
  ig.warps_n = 2;
  ig.tile_k = 32;
  EXPECT_FALSE(is_legal(sm90(), ig, &why));
}

TEST(WgmmaClusterSplit, OneLaunchNoWorkspaceSplitsAdjacent) {
  const Problem p = problem("bwd_weight_bf16_n32c256k256_h14w14_y3x3_p1");
  const KernelTraits t = cluster(Direction::bwd_weight, 256, 128, 2, 4, 4);
  std::string why;
  ASSERT_TRUE(wgmma::can_implement(t, p, &why)) << why;
  EXPECT_EQ(wgmma::workspace_bytes(t, p), 0u);
  EXPECT_EQ(wgmma::entry_points(t), std::vector<std::string>{"gconv_main"});
  auto plan = wgmma::make_plan(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_FALSE(plan->reduce);
  EXPECT_FALSE(plan->zero_workspace);
  EXPECT_EQ(plan->workspace, 0u);
  // GEMM 256 x 2304: 1 x 18 tiles, 4 blocks (one cluster) each.
  EXPECT_EQ(plan->grid, 18u * 4u);
  EXPECT_EQ(plan->grid % unsigned(t.split_k), 0u);
  EXPECT_EQ(plan->params.splits, 4);
  const std::string src = wgmma::instance_source(t);
  EXPECT_NE(src.find("__cluster_dims__(4, 1, 1)"), std::string::npos) << src;
  EXPECT_EQ(src.find("gconv_reduce"), std::string::npos) << src;
}

TEST(WgmmaClusterSplit, PoolsAskForItInEveryDirectionAndTheFilterNamesIt) {
  int per_dir[3] = {0, 0, 0};
  for (const KernelTraits& t : testing::all_pool_kernels()) {
    if (t.split_mode != SplitKMode::cluster) continue;
    EXPECT_EQ(t.family, Family::wgmma) << kernel_name(t);
    std::string why;
    EXPECT_TRUE(is_legal(sm90(), t, &why)) << kernel_name(t) << ": " << why;
    ++per_dir[static_cast<int>(t.direction)];
  }
  EXPECT_GT(per_dir[0], 0);
  EXPECT_GT(per_dir[1], 0);
  EXPECT_GT(per_dir[2], 0);
  auto f = Filter::parse("split_mode == cluster && split_k == 4");
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  EXPECT_TRUE(f->matches(sm90(), cluster(Direction::bwd_weight, 256, 128, 2, 4, 4)));
  KernelTraits serial = cluster(Direction::bwd_weight, 256, 128, 2, 4, 4);
  serial.split_mode = SplitKMode::serial;
  EXPECT_FALSE(f->matches(sm90(), serial));
}

}  // namespace
}  // namespace gconv
