// kernel_name / parse_kernel_name: the grammar of src/kernels/traits.hpp, the
// round trip over every pool kernel, and errors that name the position.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "kernels/traits.hpp"
#include "pool_test_util.hpp"

namespace gconv {
namespace {

KernelTraits igemm(int tm, int tn, int tk, int wm, int wn, int stages, SplitKMode mode, int sk, int vec, int gpb) {
  KernelTraits t;
  t.family = Family::igemm;
  t.tile_m = tm, t.tile_n = tn, t.tile_k = tk;
  t.warps_m = wm, t.warps_n = wn;
  t.stages = stages;
  t.split_mode = mode, t.split_k = sk;
  t.vec = vec;
  t.groups_per_block = gpb;
  return t;
}

KernelTraits direct(Direction d, int bh, int bw, int r, int vec, bool det) {
  KernelTraits t;
  t.family = Family::direct;
  t.direction = d;
  t.block_h = bh, t.block_w = bw;
  t.per_thread = r;
  t.vec = vec;
  t.deterministic = det;
  return t;
}

TEST(KernelName, MatchesTheGrammarExamples) {
  EXPECT_EQ(kernel_name(igemm(128, 128, 32, 2, 2, 4, SplitKMode::none, 1, 8, 1)),
            "igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1");
  KernelTraits t = igemm(64, 32, 64, 2, 1, 3, SplitKMode::parallel, 8, 4, 2);
  t.direction = Direction::bwd_weight;
  t.dtype = DType::fp16;
  t.ndim = 3;
  EXPECT_EQ(kernel_name(t), "igemm_bwd_weight_fp16_3d_m64n32k64_w2x1_s3_sk8p_v4_g2");
  t.split_mode = SplitKMode::serial;
  t.split_k = 16;
  EXPECT_EQ(kernel_name(t), "igemm_bwd_weight_fp16_3d_m64n32k64_w2x1_s3_sk16s_v4_g2");
  EXPECT_EQ(kernel_name(direct(Direction::fwd, 8, 16, 4, 8, false)), "direct_fwd_bf16_2d_t8x16_r4_v8");
  KernelTraits d = direct(Direction::bwd_weight, 1, 128, 2, 1, true);
  d.dtype = DType::fp32;
  d.ndim = 1;
  EXPECT_EQ(kernel_name(d), "direct_bwd_weight_fp32_1d_t1x128_r2_v1_det");
}

TEST(KernelName, ParseInvertsTheExamples) {
  for (const char* name : {"igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1",
                           "igemm_bwd_data_fp32_1d_m16n8k8_w1x1_s2_sk128p_v1_g16",
                           "igemm_bwd_weight_fp16_3d_m64n32k64_w2x1_s3_sk16s_v4_g2",
                           "direct_fwd_bf16_2d_t8x16_r4_v8", "direct_bwd_weight_fp32_1d_t1x128_r2_v1_det"}) {
    auto t = parse_kernel_name(name);
    ASSERT_TRUE(t.ok()) << name << ": " << t.status().to_string();
    EXPECT_EQ(kernel_name(*t), name);
  }
  auto pk = parse_kernel_name("igemm_fwd_bf16_2d_m128n16k32_w4x1_s4_sk1_v4_g4_pk");
  ASSERT_TRUE(pk.ok()) << pk.status().to_string();
  EXPECT_TRUE(pk->packed);
  EXPECT_EQ(pk->groups_per_block, 4);
  EXPECT_EQ(kernel_name(*pk), "igemm_fwd_bf16_2d_m128n16k32_w4x1_s4_sk1_v4_g4_pk");
  EXPECT_FALSE(parse_kernel_name("igemm_fwd_bf16_2d_m128n16k32_w4x1_s4_sk1_v4_g4_pkx").ok());
  auto ra = parse_kernel_name("igemm_bwd_weight_bf16_3d_m64n128k32_w2x2_s4_sk16s_v8_g1_ra");
  ASSERT_TRUE(ra.ok()) << ra.status().to_string();
  EXPECT_TRUE(ra->realign);
  EXPECT_FALSE(ra->packed);
  EXPECT_EQ(ra->split_k, 16);
  EXPECT_EQ(kernel_name(*ra), "igemm_bwd_weight_bf16_3d_m64n128k32_w2x2_s4_sk16s_v8_g1_ra");
  EXPECT_FALSE(parse_kernel_name("igemm_bwd_data_bf16_2d_m64n64k32_w2x2_s4_sk1_v8_g2_pk_ra").ok());
  auto t = parse_kernel_name("igemm_bwd_data_fp32_1d_m16n8k8_w1x1_s2_sk128p_v1_g16");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->direction, Direction::bwd_data);
  EXPECT_EQ(t->dtype, DType::fp32);
  EXPECT_EQ(t->ndim, 1);
  EXPECT_EQ(t->tile_m, 16);
  EXPECT_EQ(t->tile_n, 8);
  EXPECT_EQ(t->tile_k, 8);
  EXPECT_EQ(t->split_mode, SplitKMode::parallel);
  EXPECT_EQ(t->split_k, 128);
  EXPECT_EQ(t->vec, 1);
  EXPECT_EQ(t->groups_per_block, 16);
  EXPECT_FALSE(t->packed);
  EXPECT_FALSE(t->realign);
  // Fields the name does not carry keep their defaults.
  EXPECT_EQ(t->block_h, KernelTraits{}.block_h);
  EXPECT_FALSE(t->deterministic);
}

TEST(KernelName, RoundTripsEveryPoolKernel) {
  const auto& all = testing::all_pool_kernels();
  ASSERT_GT(all.size(), 1000u);
  std::set<std::string> names;
  for (const KernelTraits& t : all) {
    std::string name = kernel_name(t);
    auto back = parse_kernel_name(name);
    ASSERT_TRUE(back.ok()) << name << ": " << back.status().to_string();
    EXPECT_TRUE(*back == t) << name;
    EXPECT_EQ(kernel_name(*back), name);
    names.insert(name);
  }
  // Distinct traits have distinct names (pools are de-duplicated per
  // direction and dtype, which are part of the name).
  EXPECT_EQ(names.size(), all.size());
}

TEST(KernelName, ParseErrorsNameThePosition) {
  testing::expect_name_error_at("", 1, "a family");
  testing::expect_name_error_at("gemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1", 1, "a family");
  testing::expect_name_error_at("igemm_fwdx_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1", 7, "a direction");
  testing::expect_name_error_at("igemm_fwd_bf17_2d_m128n128k32_w2x2_s4_sk1_v8_g1", 11, "a dtype");
  testing::expect_name_error_at("igemm_fwd_bf16_4d_m128n128k32_w2x2_s4_sk1_v8_g1", 16, "1d_, 2d_ or 3d_");
  testing::expect_name_error_at("igemm_fwd_bf16_2d_128n128k32_w2x2_s4_sk1_v8_g1", 19, "'m'");
  testing::expect_name_error_at("igemm_fwd_bf16_2d_m0128n128k32_w2x2_s4_sk1_v8_g1", 20, "tile_m");
  testing::expect_name_error_at("igemm_fwd_bf16_2d_mn128k32_w2x2_s4_sk1_v8_g1", 20, "tile_m");
  testing::expect_name_error_at("igemm_fwd_bf16_2d_m128n128k32_w2y2_s4_sk1_v8_g1", 33, "'x'");
  testing::expect_name_error_at("igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk8_v8_g1", 42, "'p', 's' or 'c'");
  testing::expect_name_error_at("igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1p_v8_g1", 42, "no p/s suffix");
  testing::expect_name_error_at("igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk8q_v8_g1", 42, "'p', 's' or 'c'");
  testing::expect_name_error_at("igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8", 45, "'_g'");
  testing::expect_name_error_at("igemm_fwd_bf16_2d_m128n128k32_w2x2_s4_sk1_v8_g1_", 48, "the end of the name");
  testing::expect_name_error_at("direct_fwd_bf16_2d_t8x16_r4_v8_de", 31, "the end of the name");
  testing::expect_name_error_at("direct_fwd_bf16_2d_t8x16_r4", 28, "'_v'");
  testing::expect_name_error_at("direct_fwd_bf16_2d_t8x16_r-4_v8", 27, "per_thread");
  testing::expect_name_error_at("direct_fwd_bf16_2d_t8x1234567_r4_v8", 23, "block_w");
}

TEST(KernelTraits, ThreadsPerBlock) {
  EXPECT_EQ(igemm(128, 128, 32, 2, 2, 4, SplitKMode::none, 1, 8, 1).threads(), 128);
  EXPECT_EQ(igemm(128, 256, 32, 2, 4, 4, SplitKMode::none, 1, 8, 1).threads(), 256);
  // direct: block_h * (block_w / per_thread) * 8 channel lanes.
  EXPECT_EQ(direct(Direction::fwd, 8, 16, 4, 8, false).threads(), 8 * 4 * 8);
  EXPECT_EQ(direct(Direction::fwd, 1, 128, 2, 8, false).threads(), 64 * 8);
}

TEST(KernelTraits, FamilyNames) {
  EXPECT_STREQ(to_string(Family::igemm), "igemm");
  EXPECT_STREQ(to_string(Family::direct), "direct");
}

}  // namespace
}  // namespace gconv
