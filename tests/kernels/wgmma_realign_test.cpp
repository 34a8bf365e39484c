// Staged operands (wgmma TMA kernels with realign, name suffix _tma_ra,
// kernels/wgmma/staged.hpp, docs/realign.md "wgmma"): which problems they
// take and which they refuse with a reason, the copies and the workspace,
// their names and canonical form. Compiles: WgmmaCompile; the
// GPU check against the reference: Pools/PoolCorrectness (tests/gpu,
// realign_problems).
#include <gtest/gtest.h>

#include <string>

#include "kernels/family.hpp"
#include "kernels/wgmma/staged.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"
#include "pool/arch_rules.hpp"

namespace gconv {
namespace {

KernelTraits ra(Direction d, DType t = DType::bf16, int ndim = 3) {
  KernelTraits k;
  k.family = Family::wgmma;
  k.direction = d;
  k.dtype = t;
  k.ndim = ndim;
  k.tile_m = 128;
  k.tile_n = 128;
  k.tile_k = 64;
  k.warps_m = 1;
  k.warps_n = 1;
  k.stages = 4;
  k.split_mode = d == Direction::bwd_weight ? SplitKMode::serial : SplitKMode::none;
  k.split_k = d == Direction::bwd_weight ? 16 : 1;
  k.vec = 8;
  k.realign = true;
  return k;
}

Problem spec(const char* s, Direction d, DType t = DType::bf16) {
  Problem p = *Problem::parse_spec(s);
  p.direction = d;
  p.dtype = t;
  return p;
}

bool accepts(const KernelTraits& t, const Problem& p, std::string* why) {
  why->clear();
  return wgmma_family().can_implement(t, p, why);
}

TEST(WgmmaStaged, NamesRoundTripAndOnlyBwdTmaKernelsRealign) {
  auto rules = load_default_arch_rules();
  ASSERT_TRUE(rules.ok()) << rules.status().to_string();
  std::string why;
  KernelTraits st = ra(Direction::bwd_data);
  st.tma = true;
  EXPECT_EQ(kernel_name(st), "wgmma_bwd_data_bf16_3d_m128n128k64_c1_s4_sk1_v8_tma_ra");
  auto back = parse_kernel_name(kernel_name(st));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(*back, st);
  EXPECT_TRUE(is_legal(*rules, st, &why)) << why;
  EXPECT_TRUE(wgmma::traits_ok(st, &why)) << why;
  // No realigning cp.async producer (measured slower than the kernels there).
  const KernelTraits cp = ra(Direction::bwd_weight);
  EXPECT_FALSE(is_legal(*rules, cp, &why));
  EXPECT_NE(why.find("realign"), std::string::npos) << why;
  EXPECT_FALSE(wgmma::traits_ok(cp, &why));
  // fwd stages x and w.
  auto fwd = parse_kernel_name("wgmma_fwd_bf16_2d_m128n128k64_c1_s4_sk1_v8_tma_ra");
  ASSERT_TRUE(fwd.ok());
  EXPECT_TRUE(wgmma::traits_ok(*fwd, &why)) << why;
  // fp32 is not staged (its vectors are 4 elements).
  KernelTraits f32 = *fwd;
  f32.dtype = DType::fp32;
  f32.vec = 4;
  f32.tile_k = 32;
  EXPECT_FALSE(wgmma::traits_ok(f32, &why));
}

KernelTraits staged(Direction d, int tm, int tn, int cwg) {
  KernelTraits k = ra(d);
  k.tma = true;
  k.tile_m = tm;
  k.tile_n = tn;
  k.warps_m = cwg;
  k.split_mode = SplitKMode::none;
  k.split_k = 1;
  return k;
}

TEST(WgmmaStaged, TakesOneGroupsRowsOffTheTmaGrain) {
  std::string why;
  // r2plus1d's layers: K = 230 / 460 / 921 (rows off 16 bytes); bwd_data
  // also K = 288 / 144 (off its 64-channel blocks). C a multiple of 64 for
  // bwd_weight's TMA x.
  for (const char* s : {"n4c128k230_d8h28w28_z1y3x3_p0,1,1", "n4c64k230_d16h56w56_z1y3x3_s1,2,2_p0,1,1",
                        "n4c256k460_d4h14w14_z1y3x3_p0,1,1", "n4c512k921_d2h7w7_z1y3x3_p0,1,1"})
    for (Direction d : {Direction::bwd_data, Direction::bwd_weight}) {
      const Problem p = spec(s, d);
      EXPECT_TRUE(accepts(staged(d, 256, 128, 2), p, &why)) << s << " " << to_string(d) << ": " << why;
    }
  EXPECT_TRUE(accepts(staged(Direction::bwd_data, 256, 128, 2),
                      spec("n4c128k288_d8h28w28_z1y3x3_p0,1,1", Direction::bwd_data), &why))
      << why;
  // The copies and the padded problem: 8-element rows of dy for bwd_weight
  // (the plan keeps K), 64-element blocks for bwd_data; fwd copies x and w
  // with C padded to 64.
  const Problem w = spec("n4c128k230_d8h28w28_z1y3x3_p0,1,1", Direction::bwd_weight);
  EXPECT_EQ(wgmma::padded_count(w), 232);
  const wgmma::StagedCopies cw = wgmma::staged_copies(w);
  ASSERT_EQ(cw.n, 1);
  EXPECT_TRUE(cw.copy[0].from_b);  // ConvArgs b = dy in bwd_weight
  EXPECT_EQ(cw.copy[0].rows, 4 * 8 * 28 * 28);
  EXPECT_EQ(cw.copy[0].k, 230);
  EXPECT_EQ(cw.bytes, size_t(4 * 8 * 28 * 28) * 232 * 2);
  EXPECT_EQ(wgmma::plan_problem(w).k, 230);
  const Problem dd = spec("n4c128k230_d8h28w28_z1y3x3_p0,1,1", Direction::bwd_data);
  EXPECT_EQ(wgmma::padded_count(dd), 256);
  EXPECT_EQ(wgmma::padded_problem(dd).k, 256);
  EXPECT_EQ(wgmma::plan_problem(dd).k, 256);
  EXPECT_FALSE(wgmma::staged_copies(dd).copy[0].from_b);
  const Problem f = spec("n4c921k512_d2h7w7_z3y1x1_p1,0,0", Direction::fwd);
  EXPECT_TRUE(accepts(staged(Direction::fwd, 128, 128, 1), f, &why)) << why;
  const wgmma::StagedCopies cf = wgmma::staged_copies(f);
  ASSERT_EQ(cf.n, 2);
  EXPECT_EQ(cf.copy[0].rows, 4 * 2 * 7 * 7);  // x: every input pixel
  EXPECT_EQ(cf.copy[0].kp, 960);
  EXPECT_TRUE(cf.copy[1].from_b);
  EXPECT_EQ(cf.copy[1].rows, 512 * 3);  // w: every (k, tap)
  EXPECT_EQ(cf.copy[1].offset, cf.copy[0].bytes);
  EXPECT_EQ(cf.copy[0].bytes % 256, 0u);
  EXPECT_EQ(wgmma::plan_problem(f).c, 960);
  // The workspace holds the copy first, then the TMA kernel's own.
  KernelTraits cl = staged(Direction::bwd_weight, 128, 128, 1);
  cl.split_mode = SplitKMode::serial;
  cl.split_k = 8;
  KernelTraits base = cl;
  base.realign = false;
  EXPECT_EQ(wgmma_family().workspace_bytes(cl, w), wgmma::staged_copies(w).bytes + wgmma::workspace_bytes(base, w));
  EXPECT_GT(wgmma::workspace_bytes(base, w), 0u);
}

TEST(WgmmaStaged, RefusesWhatItDoesNotServeWithAReason) {
  std::string why;
  const KernelTraits w = staged(Direction::bwd_weight, 128, 128, 1);
  // dy already on the grain: the TMA kernels read it as it is (fwd: x).
  EXPECT_FALSE(accepts(w, spec("n4c128k288_d8h28w28_z1y3x3_p0,1,1", Direction::bwd_weight), &why));
  EXPECT_NE(why.find("multiple of 8"), std::string::npos) << why;
  EXPECT_FALSE(accepts(staged(Direction::fwd, 128, 128, 1), spec("n4c144k64_d8h28w28_z3y1x1_p1,0,0", Direction::fwd),
                       &why));
  EXPECT_NE(why.find("C (144) is a multiple of 8"), std::string::npos) << why;
  // fwd pointwise: the copies cost what the GEMM reads.
  EXPECT_FALSE(accepts(staged(Direction::fwd, 128, 128, 1), spec("n32c116k116_d1h14w14_z1y1x1", Direction::fwd), &why));
  EXPECT_NE(why.find("3+ taps"), std::string::npos) << why;
  // Groups: a group's padded rows would shift the next group's.
  EXPECT_FALSE(accepts(w, spec("n2c128k460g2_d3h9w9_z1y3x3_p0,1,1", Direction::bwd_weight), &why));
  EXPECT_NE(why.find("one group"), std::string::npos) << why;
  // The padded problem must suit the TMA kernel: bwd_weight's x needs C a multiple of 64.
  EXPECT_FALSE(accepts(w, spec("n2c32k230_d3h9w9_z1y3x3_p0,1,1", Direction::bwd_weight), &why));
  EXPECT_NE(why.find("C/G (32) is not a multiple of 64"), std::string::npos) << why;
  // bwd_data with dy on the vector: staged only for 3+ taps padded by at most 1/8.
  for (const char* s2 : {"n4c64k144_d16h56w56_z1y3x3_p0,1,1", "n32c40k240_d1h28w28_z1y1x1"}) {
    EXPECT_FALSE(accepts(staged(Direction::bwd_data, 256, 64, 2), spec(s2, Direction::bwd_data), &why)) << s2;
    EXPECT_NE(why.find("on the vector"), std::string::npos) << s2 << ": " << why;
  }
  // One block of K or less.
  EXPECT_FALSE(accepts(staged(Direction::bwd_data, 128, 64, 1), spec("n2c64k45_d3h9w9_z1y3x3_p0,1,1", Direction::bwd_data),
                       &why));
  EXPECT_NE(why.find("one block or less"), std::string::npos) << why;
}

}  // namespace
}  // namespace gconv
