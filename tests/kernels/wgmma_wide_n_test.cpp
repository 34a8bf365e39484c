// wgmma fwd tiles of 96, 144 and 192 columns (one m64n96 / n144 / n192
// instruction per m64 block and K step; docs/wgmma.md "Tiles of 96, 144 and
// 192 columns"): the pool entry's exact expansion, the shared memory and
// plan of two of them, the epilogue they get (a staging area of their own,
// TMA stores only for whole 128-byte rows), the bwd directions' 192-wide
// tiles (three MN-major 64-column blocks; 96 and 144 refused), name round
// trips, and an NVRTC build of one kernel of every new shape without spills
// or serialized wgmma.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "../pool/pool_test_util.hpp"
#include "compile_test_util.hpp"
#include "kernels/family.hpp"
#include "kernels/wgmma/tma.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"

namespace gconv {
namespace {

using testing::sm90;

bool wide(int tile_n) { return tile_n == 96 || tile_n == 144 || tile_n == 192; }

KernelTraits fwd(DType dt, int ndim, int tm, int tn, int consumers, int stages, bool tma = false) {
  KernelTraits k;
  k.family = Family::wgmma;
  k.direction = Direction::fwd;
  k.dtype = dt;
  k.ndim = ndim;
  k.tile_m = tm;
  k.tile_n = tn;
  k.tile_k = dt == DType::fp32 ? 32 : 64;
  k.warps_m = consumers;
  k.warps_n = 1;
  k.stages = stages;
  k.vec = dt == DType::fp32 ? 4 : 8;
  k.groups_per_block = 1;
  k.tma = tma;
  return k;
}

Problem spec(const char* s) {
  auto p = Problem::parse_spec(s);
  EXPECT_TRUE(p.ok()) << s;
  return *p;
}

// (tile_m, consumers, tile_n, stages, tma) of one dtype and ndim's new kernels.
using Shape = std::tuple<int, int, int, int, bool>;

std::set<Shape> wide_shapes(Direction d, DType dt, int ndim) {
  auto pool = load_pool(sm90(), d, dt, testing::source_configs());
  EXPECT_TRUE(pool.ok()) << pool.status().to_string();
  std::set<Shape> out;
  if (!pool.ok()) return out;
  for (const KernelTraits& t : *pool) {
    if (t.family != Family::wgmma || t.ndim != ndim || !wide(t.tile_n)) continue;
    if (d == Direction::bwd_weight) continue;  // split variants: WeightGradientsOf192Columns
    EXPECT_EQ(t.split_mode, SplitKMode::none) << kernel_name(t);
    EXPECT_EQ(t.vec, dt == DType::fp32 ? 4 : 8) << kernel_name(t);
    EXPECT_TRUE(out.insert({t.tile_m, t.warps_m, t.tile_n, t.stages, t.tma}).second) << kernel_name(t);
  }
  return out;
}

// The entries of configs/pools/wgmma_fwd.json: the (tile_m, consumers) pairs
// whose accumulators fit 128 a thread, 64-row tiles at 4 and 6 stages, the
// larger at 4 and 5, both producers; tf32 at 128 rows, 3 and 4 stages.
TEST(WgmmaWideN, PoolEntriesExpandToTheseKernels) {
  std::set<Shape> expect16, expect32;
  for (bool tma : {false, true}) {
    for (int tn : {96, 144, 192})
      for (int s : {4, 6}) expect16.insert({64, 1, tn, s, tma});
    for (int s : {4, 5}) {
      expect16.insert({128, 1, 96, s, tma});
      for (int tn : {96, 144, 192}) expect16.insert({128, 2, tn, s, tma});
      expect16.insert({256, 2, 96, s, tma});
    }
    for (int s : {3, 4}) {
      expect32.insert({128, 1, 96, s, tma});
      for (int tn : {96, 144, 192}) expect32.insert({128, 2, tn, s, tma});
    }
  }
  ASSERT_EQ(expect16.size(), 32u);
  ASSERT_EQ(expect32.size(), 16u);
  for (int nd = 1; nd <= 3; ++nd) {
    EXPECT_EQ(wide_shapes(Direction::fwd, DType::bf16, nd), expect16) << nd << "d";
    EXPECT_EQ(wide_shapes(Direction::fwd, DType::fp16, nd), expect16) << nd << "d";
    EXPECT_EQ(wide_shapes(Direction::fwd, DType::fp32, nd), expect32) << nd << "d";
    // bwd_data: 192 only (whole MN-major blocks), (64, 1) and (128, 2) at
    // 4 and 5 stages, both producers.
    std::set<Shape> bwd;
    for (bool tma : {false, true})
      for (int s : {4, 5}) bwd.insert({64, 1, 192, s, tma}), bwd.insert({128, 2, 192, s, tma});
    for (DType dt : {DType::bf16, DType::fp16}) EXPECT_EQ(wide_shapes(Direction::bwd_data, dt, nd), bwd) << nd << "d";
  }
}

// 128 x 192 on two consumers: 96 accumulators a thread; a stage is 16 KB of
// A and 24 KB of B. At 4 stages the whole tile fits a staging area beside
// the ring (128 rows of 384 + 16 bytes and an int each), at 5 only 64
// columns at a time; both store through TMA (384-byte rows: three boxes).
TEST(WgmmaWideN, SharedMemoryAndPlanOf128x192) {
  KernelTraits t = fwd(DType::bf16, 3, 128, 192, 2, 4, true);
  std::string why;
  ASSERT_TRUE(is_legal(sm90(), t, &why)) << why;
  EXPECT_EQ(register_estimate(sm90(), t), 96 + sm90().wgmma.consumer_overhead);
  EXPECT_EQ(wgmma::epilogue_columns(t), 192);
  EXPECT_TRUE(wgmma::epilogue_separate(t));
  EXPECT_TRUE(wgmma::tma_store(t));
  const size_t ring4 = 4 * (16384 + 24576 + 16);
  EXPECT_EQ(wgmma::smem_bytes(t), ring4 + 128 * (192 * 2 + 16) + 128 * 4 + 1024);
  EXPECT_EQ(smem_bytes(sm90(), t), int64_t(wgmma::smem_bytes(t)));

  t.stages = 5;
  ASSERT_TRUE(is_legal(sm90(), t, &why)) << why;
  EXPECT_EQ(wgmma::epilogue_columns(t), 64);
  EXPECT_EQ(wgmma::smem_bytes(t), 5 * (16384 + 24576 + 16) + 128 * (64 * 2 + 16) + 128 * 4 + 1024);
  t.stages = 6;  // 240 KB of ring
  testing::expect_illegal(t, "smem");

  // fwd n4 c128 k384 3D 1x3x3 (R(2+1)D's spatial convolution at 384
  // channels): two whole 192-wide N tiles.
  t.stages = 4;
  const Problem p = spec("fwd_bf16_n4c128k384g1_d8h28w28_z1y3x3_s1_p0,1,1_dil1");
  ASSERT_TRUE(wgmma::can_implement(t, p, &why)) << why;
  auto plan = wgmma::make_plan(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->threads, 384);
  EXPECT_EQ(plan->smem, wgmma::smem_bytes(t));
  EXPECT_EQ(plan->params.n_tiles, 2);
  EXPECT_EQ(plan->params.m_tiles, 4 * 8 * 28 * 28 / 128);
  EXPECT_EQ(plan->grid, 2u * 196);
  EXPECT_EQ(wgmma::workspace_bytes(t, p), 0u);
  ASSERT_TRUE(wgmma::out_map_ok(t, p, &why)) << why;
  const TmaArgs b = wgmma::b_args(t, p);
  EXPECT_EQ(b.box[0], 64u);   // tile_k
  EXPECT_EQ(b.box[1], 192u);  // tile_n rows of w
  EXPECT_EQ(wgmma::out_args(t, p).box[1], 64u);  // one consumer's rows
}

// 64 x 96 on one consumer: 48 accumulators, two blocks an SM; too small for
// a staging area of its own (6,144 outputs), so the ring stages its last
// tile. fwd n4 c128 k288 (the 0.6-of-cuDNN layer on 128 x 256): three whole
// 96-wide N tiles instead of a full and a 32-wide one of 256.
TEST(WgmmaWideN, SharedMemoryAndPlanOf64x96) {
  const KernelTraits t = fwd(DType::bf16, 3, 64, 96, 1, 4);
  std::string why;
  ASSERT_TRUE(is_legal(sm90(), t, &why)) << why;
  EXPECT_EQ(register_estimate(sm90(), t), 48 + sm90().wgmma.consumer_overhead);
  EXPECT_FALSE(wgmma::epilogue_separate(t));
  EXPECT_FALSE(wgmma::tma_store(t));
  EXPECT_EQ(wgmma::smem_bytes(t), 4 * (8192 + 12288 + 16) + 1024u);
  const Problem p = spec("fwd_bf16_n4c128k288g1_d8h28w28_z1y3x3_s1_p0,1,1_dil1");
  ASSERT_TRUE(wgmma::can_implement(t, p, &why)) << why;
  auto plan = wgmma::make_plan(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->threads, 256);
  EXPECT_EQ(plan->params.n_tiles, 3);
  EXPECT_EQ(plan->params.m_tiles, 4 * 8 * 28 * 28 / 64);
  EXPECT_EQ(plan->grid, 3u * 392);
  EXPECT_FALSE(wgmma::out_map_ok(t, p, &why));
  // Grouped: K/G = 96 per group, one N tile a group.
  const Problem g = spec("fwd_bf16_n4c64k192g2_h28w28_y3x3_s1_p1_dil1");
  KernelTraits t2 = t;
  t2.ndim = 2;
  ASSERT_TRUE(wgmma::can_implement(t2, g, &why)) << why;
  auto gp = wgmma::make_plan(t2, g);
  ASSERT_TRUE(gp.ok()) << gp.status().to_string();
  EXPECT_EQ(gp->params.n_tiles, 1);
  EXPECT_EQ(gp->params.g_blocks, 2);
}

// 96- and 144-wide 16-bit rows (192 and 288 bytes) are no whole number of
// 128-byte TMA store boxes: large tiles of those widths get a staging area
// of their own but store from it with their threads, take no output map
// parameter, and out_map_ok says why. 192 (and tf32 192: 768-byte rows)
// store through TMA; tf32 144 (576-byte rows) does not.
TEST(WgmmaWideN, TmaStoresOnlyForWhole128ByteRows) {
  const Problem p = spec("fwd_bf16_n4c128k288g1_h28w28_y3x3_s1_p1_dil1");
  KernelTraits t = fwd(DType::bf16, 2, 128, 144, 2, 4);
  ASSERT_TRUE(wgmma::epilogue_separate(t));  // 18,432 outputs, the whole tile beside 4 stages
  EXPECT_EQ(wgmma::epilogue_columns(t), 144);
  EXPECT_FALSE(wgmma::tma_store(t));
  std::string why;
  EXPECT_FALSE(wgmma::out_map_ok(t, p, &why));
  EXPECT_NE(why.find("128-byte"), std::string::npos) << why;
  std::string src = wgmma_family().instance_source(t);
  EXPECT_EQ(src.find("TensorMap tc"), std::string::npos) << src;
  t.stages = 6;  // no room for the area: one tile per block, the ring stages
  EXPECT_TRUE(is_legal(sm90(), t, &why)) << why;
  EXPECT_FALSE(wgmma::epilogue_separate(t));

  KernelTraits n96 = fwd(DType::bf16, 2, 256, 96, 2, 4);
  EXPECT_FALSE(wgmma::epilogue_separate(n96));  // 53 KB of area beside 176 KB of ring
  n96.stages = 3;
  EXPECT_TRUE(wgmma::epilogue_separate(n96));
  EXPECT_FALSE(wgmma::tma_store(n96));

  KernelTraits n192 = fwd(DType::bf16, 2, 128, 192, 2, 4, true);
  src = wgmma_family().instance_source(n192);
  EXPECT_NE(src.find("TensorMap tc"), std::string::npos) << src;

  KernelTraits f144 = fwd(DType::fp32, 2, 128, 144, 2, 3);  // 576-byte rows: 4.5 boxes
  ASSERT_TRUE(wgmma::epilogue_separate(f144));
  EXPECT_FALSE(wgmma::tma_store(f144));
  KernelTraits f192 = fwd(DType::fp32, 2, 128, 192, 2, 3);
  ASSERT_TRUE(wgmma::epilogue_separate(f192));
  EXPECT_TRUE(wgmma::tma_store(f192));

  // The kernels of the earlier widths are unchanged: every one with a
  // staging area of its own stores through TMA, as before.
  for (const KernelTraits& k : testing::all_pool_kernels())
    if (k.family == Family::wgmma && !wide(k.tile_n))
      EXPECT_EQ(wgmma::tma_store(k), wgmma::epilogue_separate(k)) << kernel_name(k);
}

// bwd_data and bwd_weight read B MN-major in 64-column blocks of 128 bytes:
// they take 192 (three blocks) and refuse 96 and 144 with the reason.
TEST(WgmmaWideN, BwdDirectionsRefuseWidthsOffWholeBlocks) {
  for (Direction d : {Direction::bwd_data, Direction::bwd_weight}) {
    KernelTraits t192 = fwd(DType::bf16, 2, 128, 192, 2, 4, true);
    t192.direction = d;
    std::string why192;
    EXPECT_TRUE(wgmma::traits_ok(t192, &why192)) << kernel_name(t192) << ": " << why192;
  }
  for (Direction d : {Direction::bwd_data, Direction::bwd_weight})
    for (int tn : {96, 144})
      for (bool tma : {false, true}) {
        KernelTraits t = fwd(DType::bf16, 2, 64, tn, 1, 4, tma);
        t.direction = d;
        std::string why;
        EXPECT_FALSE(wgmma::traits_ok(t, &why)) << kernel_name(t);
        EXPECT_NE(why.find("fwd only"), std::string::npos) << why;
        testing::expect_illegal(t, "kernel", "fwd only");
        t.direction = Direction::fwd;
        EXPECT_TRUE(wgmma::traits_ok(t, &why)) << kernel_name(t) << ": " << why;
      }
  // Widths without an instruction stay illegal for fwd too.
  std::string why;
  EXPECT_FALSE(wgmma::traits_ok(fwd(DType::bf16, 2, 64, 160, 1, 4), &why));
  EXPECT_NE(why.find("tile_n must be"), std::string::npos) << why;
  // The accumulator rule: 128 rows x 144 or 192 columns on one consumer.
  testing::expect_illegal(fwd(DType::bf16, 2, 128, 144, 1, 4), "accumulators", "144 fp32 per thread");
  testing::expect_illegal(fwd(DType::bf16, 2, 256, 192, 2, 3), "accumulators", "192 fp32 per thread");
}

TEST(WgmmaWideN, NamesRoundTrip) {
  KernelTraits t = fwd(DType::bf16, 2, 128, 144, 2, 5, true);
  EXPECT_EQ(kernel_name(t), "wgmma_fwd_bf16_2d_m128n144k64_c2_s5_sk1_v8_tma");
  auto back = parse_kernel_name("wgmma_fwd_fp32_3d_m128n96k32_c1_s3_sk1_v4");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_TRUE(*back == fwd(DType::fp32, 3, 128, 96, 1, 3));
  size_t n = 0;
  for (const KernelTraits& k : testing::all_pool_kernels()) {
    if (k.family != Family::wgmma || !wide(k.tile_n) || k.packed) continue;  // packed: wgmma_packed_test.cpp
    auto r = parse_kernel_name(kernel_name(k));
    ASSERT_TRUE(r.ok()) << kernel_name(k) << ": " << r.status().to_string();
    EXPECT_TRUE(*r == k) << kernel_name(k);
    ++n;
  }
  // fwd bf16 / fp16 / fp32, bwd_data bf16 / fp16 (8 a dimension), bwd_weight
  // bf16 / fp16 (2 tiles x 12 splits plain, x 5 staged: 34 a dimension).
  EXPECT_EQ(n, 3u * (32 + 32 + 16 + 2 * 8 + 2 * 34));
}

// bwd_weight's 192-wide tiles: the pool entries' exact expansion (64 x 192
// on one consumer and 128 x 192 on two, 4 stages, TMA, twelve split counts,
// five of them also over staged dy), and the plan of r2plus1d's K = 230 1x3x3 layer at
// 16 x 28 x 28 outputs: N = 64 x 9 = 576 is three whole tiles, M = 230 two,
// so 22 serial splits make 132 blocks, one full wave of an H100 / H200.
TEST(WgmmaWideN, WeightGradientsOf192Columns) {
  std::set<std::tuple<int, int, int, bool>> got, want;
  for (int tm : {64, 128})
    for (int sk : {1, 2, 3, 4, 5, 6, 8, 11, 14, 16, 22, 32})
      for (bool ra : {false, true})
        if (!ra || sk == 1 || sk == 2 || sk == 5 || sk == 11 || sk == 22) want.insert({tm, tm / 64, sk, ra});
  auto pool = load_pool(sm90(), Direction::bwd_weight, DType::bf16, testing::source_configs());
  ASSERT_TRUE(pool.ok()) << pool.status().to_string();
  for (const KernelTraits& t : *pool) {
    if (t.family != Family::wgmma || t.ndim != 3 || t.tile_n != 192 || t.packed) continue;
    EXPECT_TRUE(t.tma && t.stages == 4 && t.vec == 8) << kernel_name(t);
    EXPECT_EQ(t.split_mode, t.split_k == 1 ? SplitKMode::none : SplitKMode::serial) << kernel_name(t);
    EXPECT_TRUE(got.insert({t.tile_m, t.warps_m, t.split_k, t.realign}).second) << kernel_name(t);
  }
  EXPECT_EQ(got, want);

  KernelTraits t = fwd(DType::bf16, 3, 128, 192, 2, 4, true);
  t.direction = Direction::bwd_weight;
  t.split_mode = SplitKMode::serial;
  t.split_k = 22;
  std::string why;
  ASSERT_TRUE(is_legal(sm90(), t, &why)) << why;
  EXPECT_EQ(kernel_name(t), "wgmma_bwd_weight_bf16_3d_m128n192k64_c2_s4_sk22s_v8_tma");
  const Problem p = spec("bwd_weight_bf16_n4c64k232g1_d16h56w56_z1y3x3_s1,2,2_p0,1,1_dil1");
  ASSERT_TRUE(wgmma::can_implement(t, p, &why)) << why;
  auto plan = wgmma::make_plan(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->params.n_tiles, 3);
  EXPECT_EQ(plan->params.m_tiles, 2);
  EXPECT_EQ(plan->params.splits, 22);
  EXPECT_EQ(plan->grid, 132u);
  // 64 x 9 columns: the B blocks of a tile are taps 3j..3j+2 of 64 channels.
  EXPECT_EQ(plan->params.gemm_n, 576);
}

// One kernel of every new (tile_m, consumers, tile_n) shape, dtypes,
// dimensions and producers rotated, built by NVRTC for sm_90a: no spills, no
// serialized wgmma; and the 192-wide tile with GCONV_WGMMA_INSTR_N=128's
// MAX_N (it still issues one n192: only 256 is split).
TEST(WgmmaWideN, EveryNewShapeCompilesForSm90aWithoutSpills) {
  struct S {
    int tm, cons, tn, stages;
  };
  const S shapes[] = {{64, 1, 96, 6},  {64, 1, 144, 4}, {64, 1, 192, 6},  {128, 1, 96, 5},
                      {128, 2, 96, 4}, {128, 2, 144, 4}, {128, 2, 192, 5}, {256, 2, 96, 5}};
  std::vector<KernelTraits> ts;
  int i = 0;
  for (const S& s : shapes) {
    ts.push_back(fwd(i % 3 == 1 ? DType::fp16 : DType::bf16, 1 + i % 3, s.tm, s.tn, s.cons, s.stages, i % 2 == 0));
    ++i;
  }
  ts.push_back(fwd(DType::fp32, 2, 128, 96, 1, 4, true));
  ts.push_back(fwd(DType::fp32, 3, 128, 144, 2, 3));
  ts.push_back(fwd(DType::fp32, 1, 128, 192, 2, 4, true));
  // The bwd directions' 192-wide tiles: bwd_data with both producers,
  // bwd_weight with a serial split off the powers of two.
  KernelTraits d1 = fwd(DType::bf16, 2, 64, 192, 1, 5), d2 = fwd(DType::fp16, 3, 128, 192, 2, 4, true);
  KernelTraits w1 = fwd(DType::bf16, 3, 128, 192, 2, 4, true), w2 = fwd(DType::bf16, 2, 64, 192, 1, 4, true);
  d1.direction = d2.direction = Direction::bwd_data;
  w1.direction = w2.direction = Direction::bwd_weight;
  w1.split_mode = SplitKMode::serial, w1.split_k = 22;
  for (const KernelTraits& k : {d1, d2, w1, w2}) ts.push_back(k);
  std::vector<std::string> sources, names;
  for (const KernelTraits& t : ts) {
    std::string why;
    ASSERT_TRUE(is_legal(sm90(), t, &why)) << kernel_name(t) << ": " << why;
    sources.push_back(wgmma_family().instance_source(t));
    names.push_back(kernel_name(t));
  }
  // MAX_N (the config's 13th argument) 128 instead of 256.
  static const std::regex max_n(R"(, 256, ([12])> Cfg;)");
  const std::string narrow = std::regex_replace(sources[6], max_n, ", 128, $1> Cfg;");
  ASSERT_NE(narrow, sources[6]);
  sources.push_back(narrow);
  names.push_back(names[6] + " MAX_N 128");
  ts.push_back(ts[6]);
  Status setup;
  const auto results = testing::compile_sm90a(sources, names, true, &setup);
  ASSERT_TRUE(setup.ok()) << setup.to_string();
  for (size_t k = 0; k < sources.size(); ++k) {
    testing::expect_built_without_spills(results[k], names[k], wgmma_family().entry_points(ts[k]));
    if (!results[k].ok()) continue;
    EXPECT_EQ(results[k]->log.find("serialized"), std::string::npos) << names[k] << ":\n" << results[k]->log;
    EXPECT_EQ(sources[k].find("TensorMap tc") != std::string::npos, wgmma::tma_store(ts[k])) << names[k];
  }
}

}  // namespace
}  // namespace gconv
