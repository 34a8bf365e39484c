// Realigned igemm bwd_weight with an odd C/G (x, the B operand, read in
// 16-byte vectors from any offset; config.cuh OddCgConfig): the rules that
// admit it and refuse the rest with a reason, the padded GEMM columns of the
// launch plan and workspace, the column map the epilogue and the split-K
// fixup write through (params.cuh OddCgCols), and NVRTC compiles of the
// instances for sm_90a without spills. The GPU check against the reference
// is Pools/PoolCorrectness (tests/gpu, realign_problems).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "compile_test_util.hpp"
#include "kernels/family.hpp"
#include "kernels/fixup.hpp"
#include "kernels/igemm/igemm_plan.hpp"

namespace gconv {
namespace {

KernelTraits wgrad(DType t, int ndim, int tm, int tn, SplitKMode mode, int split) {
  KernelTraits k;
  k.family = Family::igemm;
  k.direction = Direction::bwd_weight;
  k.dtype = t;
  k.ndim = ndim;
  k.tile_m = tm;
  k.tile_n = tn;
  k.tile_k = 32;
  k.warps_m = 2;
  k.warps_n = 2;
  k.stages = 4;
  k.split_mode = mode;
  k.split_k = split;
  k.vec = t == DType::fp32 ? 4 : 8;
  k.groups_per_block = 1;
  k.realign = true;
  return k;
}

Problem spec(const char* s, DType t) {
  Problem p = *Problem::parse_spec(s);
  p.direction = Direction::bwd_weight;
  p.dtype = t;
  return p;
}

bool accepts(const KernelTraits& t, const Problem& p, std::string* why) {
  why->clear();
  return igemm_family().can_implement(t, p, why);
}

TEST(IgemmRealignWgrad, AdmitsOddCgAboveOneVectorWithKgOnTheVector) {
  std::string why;
  // r2plus1d's layers (C = 921 and 45, K on the vector), 1D / 2D / 3D, G = 2.
  for (const char* s : {"n4c921k512_d2h7w7_z3y1x1_p1,0,0", "n4c921k512_d4h7w7_z3y1x1_s2,1,1_p1,0,0",
                        "n2c45k64_d4h9w9_z3y1x1_p1,0,0", "n2c45k64_h9w9_y3x3_p1", "n2c21k24_w40_x3_p1",
                        "n2c90k48g2_h8w8_y3x3_p1"})
    for (DType t : {DType::bf16, DType::fp16}) {
      const Problem p = spec(s, t);
      EXPECT_TRUE(accepts(wgrad(t, p.ndim, 64, 128, SplitKMode::serial, 4), p, &why)) << s << ": " << why;
    }
  // fp32: 16-byte vectors are 4 elements, so C/G = 45 is off them too.
  const Problem f32 = spec("n2c45k64_h9w9_y3x3_p1", DType::fp32);
  EXPECT_TRUE(accepts(wgrad(DType::fp32, 2, 64, 64, SplitKMode::none, 1), f32, &why)) << why;
  // The odd K/G kernels' problems still fit (C/G on the vector).
  const Problem odd_k = spec("n2c64k45_h9w9_y3x3_p1", DType::bf16);
  EXPECT_TRUE(accepts(wgrad(DType::bf16, 2, 64, 128, SplitKMode::none, 1), odd_k, &why)) << why;
}

TEST(IgemmRealignWgrad, RefusesWhatItDoesNotServeWithAReason) {
  const KernelTraits t = wgrad(DType::bf16, 2, 64, 64, SplitKMode::serial, 8);
  std::string why;
  // One vector or less of odd channels: the rounding would waste the tile.
  for (const char* s : {"n2c7k64_h9w9_y3x3_p1", "n2c3k64_h9w9_y3x3_p1", "n2c1k64_h9w9_y3x3_p1"}) {
    EXPECT_FALSE(accepts(t, spec(s, DType::bf16), &why)) << s;
    EXPECT_NE(why.find("more than one vector"), std::string::npos) << s << ": " << why;
    EXPECT_NE(why.find("C/G"), std::string::npos) << s << ": " << why;
  }
  // Even C/G off the vector: the vec 2 / 4 kernels serve it.
  EXPECT_FALSE(accepts(t, spec("n2c46k64_h9w9_y3x3_p1", DType::bf16), &why));
  EXPECT_NE(why.find("odd C/G"), std::string::npos) << why;
  // Both counts off the vector: no body for that (igemm.cuh igemm_main).
  EXPECT_FALSE(accepts(t, spec("n2c45k23_h9w9_y3x3_p1", DType::bf16), &why));
  EXPECT_NE(why.find("both"), std::string::npos) << why;
  EXPECT_NE(why.find("K/G (23)"), std::string::npos) << why;
  // Both on the vector: the aligned kernels.
  EXPECT_FALSE(accepts(t, spec("n2c48k64_h9w9_y3x3_p1", DType::bf16), &why));
  EXPECT_NE(why.find("both are multiples of vec"), std::string::npos) << why;
  // An odd C/G with K/G even but off the vector.
  EXPECT_FALSE(accepts(t, spec("n2c45k46_h9w9_y3x3_p1", DType::bf16), &why));
  EXPECT_NE(why.find("both"), std::string::npos) << why;
  // Traits: one group per block, not packed, 16-byte vectors.
  KernelTraits bad = t;
  bad.groups_per_block = 2;
  EXPECT_FALSE(igemm::traits_ok(bad, &why));
  EXPECT_NE(why.find("one group per block"), std::string::npos) << why;
  bad.packed = true;
  EXPECT_FALSE(igemm::traits_ok(bad, &why));
  bad = t;
  bad.vec = 4;
  EXPECT_FALSE(igemm::traits_ok(bad, &why));
  EXPECT_NE(why.find("16-byte"), std::string::npos) << why;
  // Bwd_data keeps refusing an odd C/G (its output, dx, runs along it).
  KernelTraits bd = t;
  bd.direction = Direction::bwd_data;
  Problem p = spec("n2c45k64_h9w9_y3x3_p1", DType::bf16);
  p.direction = Direction::bwd_data;
  EXPECT_FALSE(accepts(bd, p, &why));
  EXPECT_NE(why.find("C/G"), std::string::npos) << why;
}

// The plan's GEMM columns: F taps x C/G rounded up to vec; grid and serial
// split-K workspace (fixup words per output tile) follow them, the output
// (dw, one fp32 slice) does not.
TEST(IgemmRealignWgrad, PlanPadsTheColumnsPerTap) {
  const Problem p = spec("n4c921k512_d2h7w7_z3y1x1_p1,0,0", DType::bf16);  // F = 3, C/G = 921 -> 928
  KernelTraits t = wgrad(DType::bf16, 3, 64, 128, SplitKMode::serial, 4);
  auto plan = igemm::make_plan(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const igemm::IgemmParams& q = plan->params;
  EXPECT_EQ(q.gemm_n, 3 * 928);
  EXPECT_EQ(q.gemm_m, 512);
  EXPECT_EQ(q.n_tiles, (3 * 928 + 127) / 128);  // 22 (unpadded 2763 would also give 22)
  EXPECT_EQ(q.m_tiles, 512 / 64);
  EXPECT_EQ(q.out_elems, 512 * 3 * 921);
  EXPECT_EQ(plan->grid, unsigned(q.n_tiles * q.m_tiles * 4));
  const int64_t tiles = int64_t(q.n_tiles) * q.m_tiles;
  EXPECT_EQ(plan->workspace, fixup_words_offset(q.out_elems) + fixup_words_bytes(tiles));
  EXPECT_EQ(igemm::workspace_bytes(t, p), plan->workspace);

  // Where the padding adds a tile: 5 taps x C/G 25 -> 5 x 32 = 160 columns,
  // three 64-wide tiles (the unpadded 125 would take two).
  const Problem p5 = spec("n2c25k64_w40_x5_p2", DType::bf16);
  t = wgrad(DType::bf16, 1, 64, 64, SplitKMode::parallel, 64);
  auto plan5 = igemm::make_plan(t, p5);
  ASSERT_TRUE(plan5.ok()) << plan5.status().to_string();
  EXPECT_EQ(plan5->params.gemm_n, 5 * 32);
  EXPECT_EQ(plan5->params.n_tiles, 3);
  EXPECT_EQ(plan5->grid, 3u * 1u * 64u);
  EXPECT_EQ(plan5->workspace, size_t(64) * 64 * 5 * 25 * sizeof(float));  // slices of dw, unpadded

  // C/G on the vector (the odd K/G body): columns unchanged.
  const Problem odd_k = spec("n2c64k45_h9w9_y3x3_p1", DType::bf16);
  t = wgrad(DType::bf16, 2, 64, 128, SplitKMode::none, 1);
  auto plank = igemm::make_plan(t, odd_k);
  ASSERT_TRUE(plank.ok());
  EXPECT_EQ(plank->params.gemm_n, 9 * 64);
  // Not realigned: columns unchanged too.
  KernelTraits v1 = t;
  v1.realign = false;
  v1.vec = 1;
  auto plan1 = igemm::make_plan(v1, spec("n2c45k64_h9w9_y3x3_p1", DType::bf16));
  ASSERT_TRUE(plan1.ok());
  EXPECT_EQ(plan1->params.gemm_n, 9 * 45);
}

// The column map on odd shapes: the existing columns (c < C/G) land on every
// element of a filter row exactly once, at tap * C/G + c; a run of columns
// from a multiple of 4 (the fixup's vectors; the epilogue's 8- and 2-column
// runs start on multiples of 8 and 2) is contiguous up to its tap's end, and
// `avail` counts exactly its existing columns.
TEST(IgemmRealignWgrad, ColumnMapCoversEachFilterRowElementOnce) {
  struct Case {
    int cg, taps, vec;
  };
  for (const Case c : {Case{45, 3, 8}, Case{921, 3, 8}, Case{9, 27, 8}, Case{21, 9, 8}, Case{13, 5, 4},
                       Case{45, 3, 4}, Case{17, 1, 8}}) {
    igemm::IgemmParams q{};
    q.Cg = c.cg;
    const int cpk = (c.cg + c.vec - 1) / c.vec * c.vec;
    q.gemm_n = c.taps * cpk;
    const igemm::OddCgCols cols(q, c.vec);
    std::set<int> seen;
    for (int nn = 0; nn < q.gemm_n + 16; ++nn) {
      int avail = 0;
      const int off = cols.map(nn, avail);
      const int tap = nn / cpk, ch = nn % cpk;
      const bool exists = nn < q.gemm_n && ch < c.cg;
      ASSERT_EQ(avail >= 1, exists) << c.cg << " " << nn;
      if (!exists) continue;
      EXPECT_EQ(off, tap * c.cg + ch);
      EXPECT_EQ(avail, c.cg - ch);
      EXPECT_TRUE(seen.insert(off).second) << "offset " << off << " twice";
      if (nn % 4 == 0) {
        // The run nn .. nn + 3: whole and contiguous when its last column exists.
        int last_avail = 0;
        const int last = cols.map(nn + 3, last_avail);
        if (last_avail >= 1) EXPECT_EQ(last, off + 3);
        EXPECT_EQ(last_avail >= 1, avail >= 4);
      }
    }
    EXPECT_EQ(seen.size(), size_t(c.cg) * c.taps);
    EXPECT_EQ(*seen.rbegin(), c.cg * c.taps - 1);
  }
}

// The instances that take these problems (the pool's realign bwd_weight
// shapes: 64x128 / 128x64 / 64x64 / 32x64, serial, parallel and no split),
// each with both bodies (odd K/G, odd C/G), compile for sm_90a without
// spilling.
TEST(IgemmRealignWgrad, InstancesCompileForSm90aWithoutSpills) {
  std::vector<KernelTraits> all = {
      wgrad(DType::bf16, 3, 64, 128, SplitKMode::serial, 4),   wgrad(DType::bf16, 1, 64, 64, SplitKMode::parallel, 64),
      wgrad(DType::fp16, 2, 32, 64, SplitKMode::serial, 32),   wgrad(DType::fp16, 3, 128, 64, SplitKMode::none, 1),
      wgrad(DType::bf16, 2, 64, 64, SplitKMode::serial, 32),   wgrad(DType::fp32, 2, 64, 64, SplitKMode::none, 1)};
  // fp32 as the pool has it: tile_k 16, 3 stages (tile_k 32 holds twice the
  // x vectors per thread, 16 x 16 bytes, and spills under the 168-register
  // cap of its 32x32 warp tile).
  all.back().tile_k = 16;
  all.back().stages = 3;
  std::vector<std::string> sources, names;
  for (const KernelTraits& t : all) {
    std::string why;
    ASSERT_TRUE(igemm::traits_ok(t, &why)) << kernel_name(t) << ": " << why;
    sources.push_back(igemm_family().instance_source(t));
    names.push_back(kernel_name(t));
    EXPECT_EQ(names.back().substr(names.back().size() - 3), "_ra");
  }
  Status setup;
  const auto results = testing::compile_sm90a(sources, names, true, &setup);
  ASSERT_TRUE(setup.ok()) << setup.to_string();
  for (size_t i = 0; i < all.size(); ++i)
    testing::expect_built_without_spills(results[i], names[i], igemm_family().entry_points(all[i]));
}

}  // namespace
}  // namespace gconv
