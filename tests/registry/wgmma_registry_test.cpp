// The wgmma family in the registry and the analytic model: its kernels are
// candidates where they implement the problem, the workspace limit applies
// to their split-K, and the model credits wgmma with its higher tensor rate.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "kernels/family.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"
#include "perf/analytic.hpp"
#include "pool/pool.hpp"
#include "registry_test_util.hpp"

namespace gconv {
namespace {

using testing::make_registry;
using testing::spec;
using testing::test_device;

// The best analytic estimate among the pool kernels of `family` that implement p.
double best_of_family(const Problem& p, Family family, std::string* name = nullptr) {
  return testing::best_of_pool(p, [family](const KernelTraits& t) { return t.family == family; }, name);
}

KernelTraits gemm_kernel(Family f, const Problem& p, int tm, int tn, int wm, int wn) {
  KernelTraits t;
  t.family = f;
  t.direction = p.direction, t.dtype = p.dtype, t.ndim = p.ndim;
  t.tile_m = tm, t.tile_n = tn, t.tile_k = 64;
  t.warps_m = wm, t.warps_n = wn;
  t.stages = 4;
  t.vec = 8;
  return t;
}

TEST(WgmmaAnalytic, CreditsTheWarpgroupMmaRate) {
  const DeviceInfo& d = test_device();
  ASSERT_NE(d.rules, nullptr);
  const Problem p = spec("fwd_bf16_n32c256k256_h56w56_y3x3_p1");  // large
  // The same CTA tile: igemm on 2x2 warps, wgmma on 2 consumer warpgroups.
  const KernelTraits ig = gemm_kernel(Family::igemm, p, 128, 128, 2, 2);
  const KernelTraits wg = gemm_kernel(Family::wgmma, p, 128, 128, 2, 1);
  ASSERT_TRUE(is_legal(*d.rules, ig));
  ASSERT_TRUE(is_legal(*d.rules, wg));
  AnalyticBreakdown bi, bw;
  analytic_ms(ig, p, d, &bi);
  analytic_ms(wg, p, d, &bw);
  EXPECT_EQ(bi.blocks, bw.blocks);  // the same tiling
  EXPECT_LT(bw.compute_ms, bi.compute_ms / 1.3) << "wgmma " << bw.compute_ms << " ms, igemm " << bi.compute_ms;
  // And over the pools: the best wgmma kernel beats the best igemm kernel.
  std::string wg_name, ig_name;
  EXPECT_LT(best_of_family(p, Family::wgmma, &wg_name), best_of_family(p, Family::igemm, &ig_name))
      << wg_name << " vs " << ig_name;
}

TEST(WgmmaAnalytic, OccupancyFollowsSharedMemoryAndRegisters) {
  const DeviceInfo& d = test_device();
  ASSERT_NE(d.rules, nullptr);
  const Problem p = spec("fwd_bf16_n32c256k256_h56w56_y3x3_p1");
  // 64x64, 4 stages: 64 KB of shared memory and few registers: 3 blocks fit.
  const KernelTraits small = gemm_kernel(Family::wgmma, p, 64, 64, 1, 1);
  EXPECT_EQ(analytic_kernel(small, d).blocks_per_sm,
            int(d.smem_per_sm_bytes / (int64_t(wgmma::smem_bytes(small)) + 1024)));
  // 256x128 on 2 consumers, 4 stages (192 KB): one block.
  EXPECT_EQ(analytic_kernel(gemm_kernel(Family::wgmma, p, 256, 128, 2, 1), d).blocks_per_sm, 1);
}

TEST(WgmmaRegistry, KernelsAreCandidatesAndWinLargeProblems) {
  auto reg = make_registry();
  const Problem p = spec("fwd_bf16_n32c256k256_h56w56_y3x3_p1");
  auto s = reg->select(p, Policy::analytic());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->kernel.rfind("wgmma_fwd_bf16_2d_", 0), 0u) << s->kernel;
  auto r = reg->rank(p, Policy::analytic(), 100000);
  ASSERT_TRUE(r.ok());
  bool igemm = false, wgmma = false;
  for (const Solution& c : *r) {
    igemm |= c.kernel.rfind("igemm_", 0) == 0;
    wgmma |= c.kernel.rfind("wgmma_", 0) == 0;
  }
  EXPECT_TRUE(igemm && wgmma);
}

TEST(WgmmaRegistry, FilterCountsAndTf32DirectionsFollowThePools) {
  auto only = make_registry("family==wgmma");
  EXPECT_EQ(only->kernel_count(Direction::fwd, DType::bf16), 3u * 160u);
  EXPECT_EQ(only->kernel_count(Direction::fwd, DType::fp32), 3u * 40u);
  EXPECT_EQ(only->kernel_count(Direction::bwd_weight, DType::fp16), 3u * 558u);
  EXPECT_EQ(only->kernel_count(Direction::bwd_data, DType::fp32), 0u);
  // A problem no wgmma kernel implements goes to the fallback.
  auto s = only->select(spec("bwd_data_fp32_n8c64k64_h28w28_y3x3_p1"), Policy::analytic());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kernel.rfind("naive_", 0), 0u) << s->kernel;
}

TEST(WgmmaRegistry, SplitKWorkspaceRespectsTheLimit) {
  const Problem p = spec("bwd_weight_bf16_n32c256k64_h56w56");  // long reduction
  RegistryOptions o;
  o.model_dir = "off";
  o.tuning_cache_path = "off";
  o.kernel_filter = "family==wgmma && split_mode==parallel";
  auto unlimited = Registry::create(o);
  ASSERT_TRUE(unlimited.ok());
  auto all = (*unlimited)->rank(p, Policy::analytic(), 100000);
  ASSERT_TRUE(all.ok());
  ASSERT_GT(all->size(), 1u);
  size_t largest = 0;
  for (const Solution& c : *all) largest = std::max(largest, c.workspace_bytes);
  ASSERT_GT(largest, 0u);
  o.workspace_limit = largest - 1;
  auto limited = Registry::create(o);
  ASSERT_TRUE(limited.ok());
  auto some = (*limited)->rank(p, Policy::analytic(), 100000);
  ASSERT_TRUE(some.ok());
  EXPECT_LT(some->size(), all->size());
  for (const Solution& c : *some) EXPECT_LE(c.workspace_bytes, o.workspace_limit) << c.kernel;
}

}  // namespace
}  // namespace gconv
