// Packed wgmma weight gradients (src/kernels/wgmma/packed.hpp, docs/packed.md
// "wgmma"): the pool entry's expansion, names, the rules with their reasons,
// the plan of a ResNeXt-like layer (the group blocks' problem, the diagonal
// blocks' extents in the parameters, the workspace of the unpacked kernel),
// no output map, and an NVRTC build of every split mode without spills.
// The device side (every packed kernel against the reference on
// packed_problems, grids capped, sanitizers) is tests/gpu.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "../pool/pool_test_util.hpp"
#include "compile_test_util.hpp"
#include "kernels/family.hpp"
#include "kernels/igemm/igemm_plan.hpp"
#include "kernels/wgmma/packed.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"

namespace gconv {
namespace {

using testing::sm90;

KernelTraits packed_kernel(int tile_n, SplitKMode mode, int split_k, int gpb, int ndim = 2) {
  KernelTraits k;
  k.family = Family::wgmma;
  k.direction = Direction::bwd_weight;
  k.dtype = DType::bf16;
  k.ndim = ndim;
  k.tile_m = 64;
  k.tile_n = tile_n;
  k.tile_k = 64;
  k.warps_m = 1;
  k.warps_n = 1;
  k.stages = 4;
  k.vec = 8;
  k.tma = true;
  k.split_mode = mode;
  k.split_k = split_k;
  k.groups_per_block = gpb;
  k.packed = true;
  return k;
}

Problem spec(const char* s) {
  auto p = Problem::parse_spec(s);
  EXPECT_TRUE(p.ok()) << s;
  return *p;
}

// configs/pools/wgmma_bwd_weight.json's packed entry: 64-row tiles on one
// consumer, 64 / 128 / 192 columns, unsplit, serial 2..16 and cluster 4,
// groups_per_block 2, 4, 8; TMA, 4 stages, vec 8; both 16-bit dtypes.
TEST(WgmmaPacked, PoolEntryExpandsToTheseKernels) {
  std::set<std::tuple<int, int, int, int>> want;
  for (int tn : {64, 128, 192})
    for (int sk : {1, 2, 4, 8, 16, 4 + 1000})  // 1004: cluster 4
      for (int gpb : {2, 4, 8}) want.insert({tn, sk, gpb, 0});
  for (DType dt : {DType::bf16, DType::fp16}) {
    auto pool = load_pool(sm90(), Direction::bwd_weight, dt, testing::source_configs());
    ASSERT_TRUE(pool.ok()) << pool.status().to_string();
    for (int nd = 1; nd <= 3; ++nd) {
      std::set<std::tuple<int, int, int, int>> got;
      for (const KernelTraits& t : *pool) {
        if (t.ndim != nd || !t.packed || t.family != Family::wgmma) continue;
        EXPECT_TRUE(t.tma && t.stages == 4 && t.vec == 8 && t.tile_m == 64 && t.warps_m == 1) << kernel_name(t);
        const int sk = t.split_mode == SplitKMode::cluster ? t.split_k + 1000 : t.split_k;
        if (t.split_k > 1)
          EXPECT_TRUE(t.split_mode == SplitKMode::serial || t.split_mode == SplitKMode::cluster) << kernel_name(t);
        EXPECT_TRUE(got.insert({t.tile_n, sk, t.groups_per_block, 0}).second) << kernel_name(t);
      }
      EXPECT_EQ(got, want) << to_string(dt) << " " << nd << "d";
    }
  }
}

TEST(WgmmaPacked, NamesRoundTrip) {
  const KernelTraits t = packed_kernel(192, SplitKMode::serial, 4, 4);
  EXPECT_EQ(kernel_name(t), "wgmma_bwd_weight_bf16_2d_m64n192k64_c1_s4_sk4s_v8_tma_pk4");
  auto back = parse_kernel_name(kernel_name(t));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_TRUE(*back == t);
  size_t n = 0;
  for (const KernelTraits& k : testing::all_pool_kernels()) {
    if (k.family != Family::wgmma || !k.packed) continue;
    auto r = parse_kernel_name(kernel_name(k));
    ASSERT_TRUE(r.ok()) << kernel_name(k) << ": " << r.status().to_string();
    EXPECT_TRUE(*r == k) << kernel_name(k);
    ++n;
  }
  EXPECT_EQ(n, 2u * 3 * 54);  // bf16 and fp16, three ndims
}

// Traits the packed kernel refuses, each with its reason.
TEST(WgmmaPacked, TraitRulesNameTheirReason) {
  std::string why;
  KernelTraits fwd = packed_kernel(128, SplitKMode::none, 1, 4);
  fwd.direction = Direction::fwd;
  EXPECT_FALSE(wgmma::traits_ok(fwd, &why));
  EXPECT_NE(why.find("bwd_weight only"), std::string::npos) << why;
  EXPECT_FALSE(wgmma::traits_ok(packed_kernel(128, SplitKMode::parallel, 4, 4), &why));
  EXPECT_NE(why.find("parallel"), std::string::npos) << why;
  EXPECT_FALSE(wgmma::traits_ok(packed_kernel(128, SplitKMode::none, 1, 3), &why));
  EXPECT_NE(why.find("2, 4 or 8"), std::string::npos) << why;
  KernelTraits unpacked = packed_kernel(128, SplitKMode::none, 1, 4);
  unpacked.packed = false;
  EXPECT_FALSE(wgmma::traits_ok(unpacked, &why));
  EXPECT_NE(why.find("not packed"), std::string::npos) << why;
  testing::expect_illegal(unpacked, "canonical");
  EXPECT_TRUE(is_legal(sm90(), packed_kernel(192, SplitKMode::cluster, 4, 8), &why)) << why;
}

// Problem rules: C/G a multiple of 8, K of 8, the block's rows within the
// tile, at most half of a block's groups empty, and the base kernel's own on
// the planned problem.
TEST(WgmmaPacked, ProblemRulesNameTheirReason) {
  const KernelTraits t = packed_kernel(192, SplitKMode::serial, 4, 4);
  std::string why;
  EXPECT_TRUE(wgmma::can_implement(t, spec("bwd_weight_bf16_n32c512k512g32_h14w14_y3x3_s1_p1_dil1"), &why)) << why;
  EXPECT_FALSE(wgmma::can_implement(t, spec("bwd_weight_bf16_n2c128k128g32_h8w8_y3x3_s1_p1_dil1"), &why));
  EXPECT_NE(why.find("C/G (4)"), std::string::npos) << why;
  EXPECT_FALSE(wgmma::can_implement(t, spec("bwd_weight_bf16_n2c64k128g4_h8w8_y3x3_s1_p1_dil1"), &why));
  EXPECT_NE(why.find("exceeds tile_m"), std::string::npos) << why;
  EXPECT_FALSE(wgmma::can_implement(packed_kernel(192, SplitKMode::serial, 4, 8),
                                    spec("bwd_weight_bf16_n2c32k32g4_h8w8_y3x3_s1_p1_dil1"), &why));
  EXPECT_NE(why.find("more than half"), std::string::npos) << why;
  EXPECT_FALSE(wgmma::can_implement(t, spec("fwd_bf16_n32c512k512g32_h14w14_y3x3_s1_p1_dil1"), &why));
  // A last block partly empty (G = 6 of 4 a block), taps padded (C/G = 8:
  // 32 channels a block, one 64-channel box a tap), 3D and 1D.
  for (const char* s : {"bwd_weight_bf16_n2c96k96g6_h8w8_y3x3_s1_p1_dil1", "bwd_weight_bf16_n2c64k64g8_h8w8_y3x3_s1_p1_dil1",
                        "bwd_weight_bf16_n1c48k48g6_d3h5w6_z3y3x3_s1_p1_dil1", "bwd_weight_bf16_n2c72k72g9_w33_x3_s2_p1_dil1"}) {
    const Problem p = spec(s);
    KernelTraits k = t;
    k.ndim = p.ndim;
    EXPECT_TRUE(wgmma::can_implement(k, p, &why)) << s << ": " << why;
  }
}

// RegNet's C/G = 8 at G = 13 on gpb 4: four group blocks (the last of one
// group), 32 channels a block padded to one 64-column box a tap; the kernel
// reads the tensors' own 104 channels.
TEST(WgmmaPacked, PlanPadsTapsAndLeavesTheLastBlockPartlyEmpty) {
  const KernelTraits t = packed_kernel(128, SplitKMode::none, 1, 4);
  const Problem p = spec("bwd_weight_bf16_n16c104k104g13_h28w28_y3x3_s2_p1_dil1");
  std::string why;
  ASSERT_TRUE(wgmma::can_implement(t, p, &why)) << why;
  EXPECT_EQ(wgmma::packed_tap_width(t, p), 64);
  const Problem q = wgmma::packed_problem(t, p);
  EXPECT_EQ(q.g, 4);
  EXPECT_EQ(q.c, 4 * 64);
  EXPECT_EQ(q.k, 4 * 32);
  auto plan = wgmma::make_plan(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const igemm::IgemmParams& a = plan->params;
  EXPECT_EQ(a.C, 104);
  EXPECT_EQ(a.K, 104);
  EXPECT_EQ(a.G, 4);
  EXPECT_EQ(a.Cg, 32);
  EXPECT_EQ(a.Kg, 32);
  EXPECT_EQ(a.pk_tw, 64);
  EXPECT_EQ(a.pk_cg, 8);
  EXPECT_EQ(a.pk_kg, 8);
  EXPECT_EQ(a.gemm_n, 9 * 64);
  EXPECT_EQ(a.n_tiles, 5);  // 576 columns in tiles of 128
  EXPECT_EQ(a.g_blocks, 4);
  EXPECT_EQ(plan->grid, 20u);
  // Pointwise layers load x flat: no padding (columns past the block's
  // channels are past the GEMM).
  const Problem pw = spec("bwd_weight_bf16_n2c40k40g5_h7w7_y1x1_s1_p0_dil1");
  ASSERT_TRUE(wgmma::can_implement(t, pw, &why)) << why;
  EXPECT_EQ(wgmma::packed_tap_width(t, pw), 32);
  auto pplan = wgmma::make_plan(t, pw);
  ASSERT_TRUE(pplan.ok()) << pplan.status().to_string();
  EXPECT_EQ(pplan->params.pk_tw, 0);
  EXPECT_EQ(pplan->params.gemm_n, 32);
  EXPECT_EQ(pplan->params.g_blocks, 2);
}

// ResNeXt-50's c512 g32 3x3 layer at 14 x 14, batch 32: 8 blocks of 4
// groups, each a 64 x 576 GEMM (three 192-wide tiles) over 6,272 pixels.
TEST(WgmmaPacked, PlanRunsTheGroupBlocksProblem) {
  const KernelTraits t = packed_kernel(192, SplitKMode::serial, 4, 4);
  const Problem p = spec("bwd_weight_bf16_n32c512k512g32_h14w14_y3x3_s1_p1_dil1");
  const Problem q = wgmma::packed_problem(t, p);
  EXPECT_EQ(q.g, 8);
  EXPECT_EQ(q.c, 512);
  EXPECT_EQ(q.k, 512);
  auto plan = wgmma::make_plan(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const igemm::IgemmParams& a = plan->params;
  EXPECT_EQ(a.G, 8);
  EXPECT_EQ(a.Cg, 64);
  EXPECT_EQ(a.Kg, 64);
  EXPECT_EQ(a.pk_cg, 16);
  EXPECT_EQ(a.pk_kg, 16);
  EXPECT_EQ(a.gemm_m, 64);
  EXPECT_EQ(a.gemm_n, 576);
  EXPECT_EQ(a.gemm_k, 32 * 14 * 14);
  EXPECT_EQ(a.n_tiles, 3);
  EXPECT_EQ(a.g_blocks, 8);
  EXPECT_EQ(a.m_tiles, 1);
  EXPECT_EQ(plan->grid, 3u * 8 * 4);
  EXPECT_EQ(a.fixup, 1);
  EXPECT_FALSE(plan->reduce);
  // The unpacked kernel's workspace on the blocks' problem: one fp32 slice of
  // K x 9 x 64 (four times dw; the diagonal blocks use their part) + words.
  const size_t ws = wgmma::workspace_bytes(t, p);
  EXPECT_EQ(ws, igemm::workspace_bytes(wgmma::packed_base(t), q));
  EXPECT_GE(ws, size_t(512) * 9 * 64 * 4);
  EXPECT_EQ(wgmma::workspace_bytes(t, igemm::check_problem(p)), ws);
  // No output map: its rows are not an affine map of dw's.
  EXPECT_FALSE(wgmma::tma_store(t));
  KernelTraits unsplit = packed_kernel(192, SplitKMode::none, 1, 4);
  EXPECT_FALSE(wgmma::tma_store(unsplit));
  const std::string src = wgmma_family().instance_source(unsplit);
  EXPECT_EQ(src.find("TensorMap tc"), std::string::npos) << src;
  EXPECT_NE(src.find(", 4> Cfg;"), std::string::npos) << src;
}

// One kernel of each split mode and groups_per_block, built by NVRTC for
// sm_90a: no spills, no serialized wgmma.
TEST(WgmmaPacked, EverySplitModeCompilesForSm90aWithoutSpills) {
  const std::vector<KernelTraits> ts = {packed_kernel(192, SplitKMode::none, 1, 4),
                                        packed_kernel(128, SplitKMode::serial, 8, 2, 3),
                                        packed_kernel(64, SplitKMode::cluster, 4, 8, 1)};
  std::vector<std::string> sources, names;
  for (const KernelTraits& t : ts) {
    std::string why;
    ASSERT_TRUE(is_legal(sm90(), t, &why)) << kernel_name(t) << ": " << why;
    sources.push_back(wgmma_family().instance_source(t));
    names.push_back(kernel_name(t));
  }
  Status setup;
  const auto results = testing::compile_sm90a(sources, names, true, &setup);
  ASSERT_TRUE(setup.ok()) << setup.to_string();
  for (size_t k = 0; k < sources.size(); ++k) {
    testing::expect_built_without_spills(results[k], names[k], wgmma_family().entry_points(ts[k]));
    if (results[k].ok())
      EXPECT_EQ(results[k]->log.find("serialized"), std::string::npos) << names[k] << ":\n" << results[k]->log;
  }
}

}  // namespace
}  // namespace gconv
