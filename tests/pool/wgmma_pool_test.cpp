// The wgmma family's host plumbing: its name grammar and round trip, the
// arch file's wgmma section and is_legal's wgmma rules, the three wgmma pool
// files (exact counts, every kernel legal and accepted by the kernel's own
// traits_ok), and the filter language's name for the family.
#include <map>
#include <set>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "kernels/traits.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"
#include "pool/arch_rules.hpp"
#include "pool/filter.hpp"
#include "pool/pool.hpp"
#include "pool_test_util.hpp"

namespace gconv {
namespace {

using testing::sm90;

KernelTraits wgmma(int tm, int tn, int consumers, int stages, int vec = 8) {
  KernelTraits t;
  t.family = Family::wgmma;
  t.tile_m = tm, t.tile_n = tn, t.tile_k = 64;
  t.warps_m = consumers, t.warps_n = 1;
  t.groups_per_block = 1;
  t.stages = stages;
  t.vec = vec;
  return t;
}

// The wgmma kernels of one pool file, with the expansion counts.
std::vector<KernelTraits> wgmma_file(const std::string& file, ExpandStats* st, ExpandOptions opt = {}) {
  auto c = load_pool_config(testing::source_configs() + "/pools/" + file);
  EXPECT_TRUE(c.ok()) << c.status().to_string();
  if (!c.ok()) return {};
  EXPECT_EQ(c->family, Family::wgmma);
  auto k = expand_pool(sm90(), *c, opt, st);
  EXPECT_TRUE(k.ok()) << k.status().to_string();
  return k.ok() ? *k : std::vector<KernelTraits>{};
}

TEST(WgmmaName, MatchesTheGrammar) {
  KernelTraits t = wgmma(128, 128, 1, 4);
  EXPECT_EQ(kernel_name(t), "wgmma_fwd_bf16_2d_m128n128k64_c1_s4_sk1_v8");
  t = wgmma(256, 64, 2, 3, 4);
  t.direction = Direction::bwd_weight;
  t.dtype = DType::fp16;
  t.ndim = 3;
  t.split_mode = SplitKMode::parallel;
  t.split_k = 16;
  EXPECT_EQ(kernel_name(t), "wgmma_bwd_weight_fp16_3d_m256n64k64_c2_s3_sk16p_v4");
  EXPECT_STREQ(to_string(Family::wgmma), "wgmma");
  // One producer warpgroup plus the consumers.
  EXPECT_EQ(wgmma(128, 128, 1, 4).threads(), 256);
  EXPECT_EQ(wgmma(128, 128, 2, 4).threads(), 384);
}

TEST(WgmmaName, ParseSetsTheFieldsTheNameLeavesOut) {
  auto t = parse_kernel_name("wgmma_bwd_data_fp16_1d_m64n256k64_c1_s5_sk4s_v2");
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(t->family, Family::wgmma);
  EXPECT_EQ(t->direction, Direction::bwd_data);
  EXPECT_EQ(t->dtype, DType::fp16);
  EXPECT_EQ(t->ndim, 1);
  EXPECT_EQ(t->tile_m, 64);
  EXPECT_EQ(t->tile_n, 256);
  EXPECT_EQ(t->tile_k, 64);
  EXPECT_EQ(t->warps_m, 1);
  EXPECT_EQ(t->warps_n, 1);  // not the KernelTraits default (2)
  EXPECT_EQ(t->groups_per_block, 1);
  EXPECT_EQ(t->stages, 5);
  EXPECT_EQ(t->split_mode, SplitKMode::serial);
  EXPECT_EQ(t->split_k, 4);
  EXPECT_EQ(t->vec, 2);
  EXPECT_EQ(t->block_h, KernelTraits{}.block_h);
  EXPECT_FALSE(t->deterministic);
}

TEST(WgmmaName, RoundTripsEveryWgmmaPoolKernel) {
  size_t n = 0;
  for (const KernelTraits& t : testing::all_pool_kernels()) {
    if (t.family != Family::wgmma) continue;
    const std::string name = kernel_name(t);
    EXPECT_EQ(name.rfind("wgmma_", 0), 0u) << name;
    auto back = parse_kernel_name(name);
    ASSERT_TRUE(back.ok()) << name << ": " << back.status().to_string();
    EXPECT_TRUE(*back == t) << name;
    ++n;
  }
  EXPECT_EQ(n, 2u * 3 * (160 + 134 + 558) + 3 * 40);  // the counts of WgmmaPools.ExactCounts
}

TEST(WgmmaName, MalformedNamesNameThePosition) {
  testing::expect_name_error_at("wgmm_fwd_bf16_2d_m128n128k64_c1_s4_sk1_v8", 1, "wgmma_");
  testing::expect_name_error_at("wgmma_fwd_bf16_2d_m128n128_c1_s4_sk1_v8", 27, "'k'");
  // The igemm warp grid is no part of a wgmma name.
  testing::expect_name_error_at("wgmma_fwd_bf16_2d_m128n128k64_w1x1_s4_sk1_v8", 30, "'_c'");
  testing::expect_name_error_at("wgmma_fwd_bf16_2d_m128n128k64_c0_s4_sk1_v8", 32, "consumer warpgroups");
  testing::expect_name_error_at("wgmma_fwd_bf16_2d_m128n128k64_c1_s4_v8", 36, "'_sk'");
  testing::expect_name_error_at("wgmma_fwd_bf16_2d_m128n128k64_c1_s4_sk2_v8", 40, "'p', 's' or 'c'");
  testing::expect_name_error_at("wgmma_fwd_bf16_2d_m128n128k64_c1_s4_sk1p_v8", 40, "no p/s suffix");
  testing::expect_name_error_at("wgmma_fwd_bf16_2d_m128n128k64_c1_s4_sk1_v", 42, "vec");
  // No groups_per_block suffix either.
  testing::expect_name_error_at("wgmma_fwd_bf16_2d_m128n128k64_c1_s4_sk1_v8_g1", 43, "the end of the name");
}

TEST(WgmmaRules, ReadsTheArchSection) {
  const ArchRules::Wgmma& w = sm90().wgmma;
  EXPECT_EQ(w.tile_m, (std::vector<int>{64, 128, 256}));
  EXPECT_EQ(w.tile_n, (std::vector<int>{16, 32, 64, 96, 128, 144, 192, 256}));
  EXPECT_EQ(w.tile_k[int(DType::bf16)], (std::vector<int>{16, 32, 64, 128}));
  EXPECT_EQ(w.tile_k[int(DType::fp32)], (std::vector<int>{8, 16, 32}));
  EXPECT_EQ(w.consumer_warpgroups, (std::vector<int>{1, 2}));
  EXPECT_EQ(w.directions[int(DType::fp32)], (std::vector<Direction>{Direction::fwd}));
  EXPECT_EQ(w.directions[int(DType::bf16)].size(), 3u);
  EXPECT_EQ(w.stages_min, 2);
  EXPECT_EQ(w.stages_max, 8);
  EXPECT_EQ(w.groups_per_block, (std::vector<int>{1, 2, 4, 8}));  // above 1: packed bwd_weight (packed.hpp)
  EXPECT_EQ(w.accumulators_max, 128);
}

TEST(WgmmaRules, LegalExamplesAndTheirResources) {
  for (const KernelTraits& t : {wgmma(64, 256, 1, 4), wgmma(128, 128, 1, 4), wgmma(128, 256, 2, 4),
                                wgmma(256, 128, 2, 4), wgmma(128, 32, 1, 6)}) {
    std::string why;
    EXPECT_TRUE(is_legal(sm90(), t, &why)) << kernel_name(t) << ": " << why;
    EXPECT_EQ(smem_bytes(sm90(), t), int64_t(wgmma::smem_bytes(t)));
  }
  // 128 rows x 128 columns per consumer: 128 accumulators + the overhead.
  const KernelTraits big = wgmma(256, 128, 2, 4);
  EXPECT_EQ(register_estimate(sm90(), big), 128 + sm90().wgmma.consumer_overhead);
  // The producer's registers go to the consumers: the block's total is not
  // 384 x the consumer's estimate.
  EXPECT_EQ(block_register_estimate(sm90(), big),
            128 * (sm90().wgmma.producer_regs + 2 * int64_t(register_estimate(sm90(), big))));
  EXPECT_EQ(block_register_estimate(sm90(), wgmma(128, 64, 1, 4)),
            128 * (sm90().wgmma.producer_regs + 64 + sm90().wgmma.consumer_overhead));
}

TEST(WgmmaRules, RejectsWithTheReason) {
  testing::expect_illegal(wgmma(128, 128, 3, 4), "warps", "warps_m must be in {1,2}");
  testing::expect_illegal(wgmma(128, 512, 1, 4), "tile", "tile_n 512");
  KernelTraits t = wgmma(128, 128, 1, 4, 4);
  t.dtype = DType::fp32;
  t.tile_k = 32;
  EXPECT_TRUE(is_legal(sm90(), t));  // tf32 fwd
  t.direction = Direction::bwd_data;
  testing::expect_illegal(t, "dtype", "no bwd_data kernels for fp32");
  t.direction = Direction::bwd_weight;
  testing::expect_illegal(t, "dtype", "no bwd_weight kernels for fp32");
  // 128 rows x 256 columns on one consumer: 256 accumulators per thread.
  testing::expect_illegal(wgmma(128, 256, 1, 4), "accumulators", "256 fp32 per thread > 128");
  // 2 x 64 rows x 256 columns fit the accumulators, but 5 stages of
  // (128 + 256) x 64 bf16 are 240 KB.
  testing::expect_illegal(wgmma(128, 256, 2, 5), "smem", "smem_per_block_bytes");
  testing::expect_illegal(wgmma(64, 128, 2, 4), "warps", "rows per consumer");   // 32 rows per consumer
  testing::expect_illegal(wgmma(256, 32, 1, 4), "warps", "rows per consumer");   // 256 rows on one consumer
  testing::expect_illegal(wgmma(128, 128, 1, 9), "stages");
  KernelTraits w = wgmma(128, 128, 1, 4);
  w.warps_n = 2;
  testing::expect_illegal(w, "warps", "warps_n 1");
  w = wgmma(128, 128, 1, 4);
  w.groups_per_block = 2;  // several groups a block only packed
  testing::expect_illegal(w, "canonical", "packed");
  w.groups_per_block = 16;
  w.packed = true;
  w.direction = Direction::bwd_weight;
  testing::expect_illegal(w, "groups_per_block", "not in");
  w = wgmma(128, 128, 1, 4);
  w.block_h = 4;  // a direct field
  testing::expect_illegal(w, "canonical", "wgmma family");
  w = wgmma(128, 128, 1, 4);
  w.split_mode = SplitKMode::parallel;
  w.split_k = 256;
  testing::expect_illegal(w, "split");
  // A tile_n the arch file allows but the kernel does not (wgmma::traits_ok).
  std::string why;
  if (!wgmma::traits_ok(wgmma(128, 16, 1, 4), &why)) testing::expect_illegal(wgmma(128, 16, 1, 4), "kernel", why);
}

// tile_k 128: a stage of two 64-wide K blocks, for 16-bit TMA kernels only;
// the ring is twice a tile_k 64 kernel's at the same stage count (each block
// laid out as a whole stage of one block).
TEST(WgmmaRules, TwoBlockStagesAreForSixteenBitTmaKernels) {
  KernelTraits t = wgmma(64, 64, 1, 3);
  t.tile_k = 128;
  std::string why;
  EXPECT_FALSE(wgmma::traits_ok(t, &why));  // the cp.async producer
  EXPECT_NE(why.find("256 for a 16-bit TMA kernel"), std::string::npos) << why;
  t.tma = true;
  EXPECT_TRUE(is_legal(sm90(), t, &why)) << why;
  EXPECT_EQ(wgmma::block_k(t), 64);
  KernelTraits one = t;
  one.tile_k = 64;
  one.stages = 6;
  EXPECT_EQ(wgmma::block_k(one), 64);
  // Three stages of two blocks hold the bytes of six stages of one: the
  // barriers (16 bytes a stage) are all that differ.
  EXPECT_EQ(wgmma::smem_bytes(t) + 3 * 16, wgmma::smem_bytes(one));
  t.dtype = DType::fp32;
  t.tile_k = 64;  // 256 bytes of tf32
  EXPECT_FALSE(wgmma::traits_ok(t, &why));
  EXPECT_NE(why.find("16-bit TMA kernels"), std::string::npos) << why;
}

TEST(WgmmaRules, DegenerateTraitsAreRejected) {
  int KernelTraits::*fields[] = {&KernelTraits::tile_m,  &KernelTraits::tile_n,  &KernelTraits::tile_k,
                                 &KernelTraits::warps_m, &KernelTraits::warps_n, &KernelTraits::stages,
                                 &KernelTraits::split_k, &KernelTraits::vec,     &KernelTraits::groups_per_block};
  for (auto f : fields) {
    for (int v : {0, -1}) {
      KernelTraits t = wgmma(128, 128, 1, 4);
      t.*f = v;
      std::string why;
      EXPECT_FALSE(is_legal(sm90(), t, &why)) << kernel_name(t);
      EXPECT_FALSE(why.empty());
      (void)register_estimate(sm90(), t);
      (void)block_register_estimate(sm90(), t);
    }
  }
}

// Exact expansion counts of the three pool files per dtype (every ndim).
// A change of the lists, the exclude rules or the rules (arch file or
// wgmma::traits_ok) shows here first.
TEST(WgmmaPools, ExactCounts) {
  struct Expect {
    const char* file;
    DType dtype;
    size_t per_ndim;
  };
  const Expect expects[] = {
      {"wgmma_fwd.json", DType::bf16, 160},       {"wgmma_fwd.json", DType::fp16, 160},
      {"wgmma_fwd.json", DType::fp32, 40},        {"wgmma_bwd_data.json", DType::bf16, 134},
      {"wgmma_bwd_data.json", DType::fp16, 134},  {"wgmma_bwd_data.json", DType::fp32, 0},
      {"wgmma_bwd_weight.json", DType::bf16, 558}, {"wgmma_bwd_weight.json", DType::fp16, 558},
      {"wgmma_bwd_weight.json", DType::fp32, 0},
  };
  for (const Expect& e : expects) {
    for (int nd = 1; nd <= 3; ++nd) {
      ExpandStats st;
      ExpandOptions opt;
      opt.dtype = e.dtype;
      opt.ndim = nd;
      const auto kernels = wgmma_file(e.file, &st, opt);
      EXPECT_EQ(kernels.size(), e.per_ndim) << e.file << " " << to_string(e.dtype) << " " << nd << "d";
      EXPECT_EQ(st.kept, int64_t(e.per_ndim));
      EXPECT_EQ(st.duplicates, 0) << e.file;
      // Only the arch file's rules reject: the kernel's own traits_ok never
      // has to (the pools ask for nothing the arch section allows and the
      // kernel refuses).
      EXPECT_EQ(st.illegal_by_rule.count("kernel"), 0u) << e.file;
    }
  }
}

TEST(WgmmaPools, EveryKernelIsLegalAndAcceptedByTheKernel) {
  std::map<std::tuple<Direction, DType, int>, int> per;
  bool split = false, odd_vec = false, two_consumers = false;
  for (const KernelTraits& t : testing::all_pool_kernels()) {
    if (t.family != Family::wgmma) continue;
    std::string why;
    EXPECT_TRUE(is_legal(sm90(), t, &why)) << kernel_name(t) << ": " << why;
    EXPECT_TRUE(wgmma::traits_ok(t, &why)) << kernel_name(t) << ": " << why;
    EXPECT_LE((t.tile_m / t.warps_m) * t.tile_n / 128, 128) << kernel_name(t);
    EXPECT_GE(t.tile_n, 32) << kernel_name(t);
    if (t.dtype == DType::fp32) EXPECT_EQ(t.direction, Direction::fwd) << kernel_name(t);
    ++per[{t.direction, t.dtype, t.ndim}];
    split |= t.split_mode == SplitKMode::parallel;
    odd_vec |= t.vec < 8 && t.dtype != DType::fp32;
    two_consumers |= t.warps_m == 2;
  }
  // fwd x 3 dtypes, bwd_data and bwd_weight x 2 (no tf32), each ndim.
  EXPECT_EQ(per.size(), (3u + 2u + 2u) * 3u);
  EXPECT_TRUE(split && odd_vec && two_consumers);
}

TEST(WgmmaFilter, KnowsTheFamilyAndItsGemmFields) {
  auto f = Filter::parse("family == wgmma && warps_m == 2 && tile_n >= 128");
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  EXPECT_TRUE(f->matches(sm90(), wgmma(256, 128, 2, 4)));
  EXPECT_FALSE(f->matches(sm90(), wgmma(128, 128, 1, 4)));
  KernelTraits ig = wgmma(128, 128, 2, 4);
  ig.family = Family::igemm;
  EXPECT_FALSE(f->matches(sm90(), ig));
  auto rows = Filter::parse("warp_tile_m == 128 && threads == 384 && smem_bytes > 0 && registers > 128");
  ASSERT_TRUE(rows.ok()) << rows.status().to_string();
  EXPECT_TRUE(rows->matches(sm90(), wgmma(256, 128, 2, 4)));
}

}  // namespace
}  // namespace gconv
