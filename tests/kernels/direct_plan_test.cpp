// Host tests of the direct family's planning: what can_implement accepts, the
// exact workspace sizes, and the channel-span bound the kernels rely on.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kernels/direct/direct_plan.hpp"
#include "kernels/family.hpp"

namespace gconv {
namespace {

// A 2D depthwise 3x3 problem, stride 1, pad 1.
Problem depthwise(Direction dir, DType dt, int64_t c = 64, int64_t n = 2, int64_t h = 16, int64_t w = 16) {
  Problem p;
  p.ndim = 2;
  p.direction = dir;
  p.dtype = dt;
  p.n = n;
  p.c = p.k = p.g = c;
  p.in = {1, h, w};
  p.filter = {1, 3, 3};
  p.pad_lo = p.pad_hi = {0, 1, 1};
  return p;
}

KernelTraits traits(const Problem& p, int bh = 8, int bw = 16, int r = 4, int vec = 8, bool det = false) {
  KernelTraits t;
  t.family = Family::direct;
  t.direction = p.direction;
  t.dtype = p.dtype;
  t.ndim = p.ndim;
  t.block_h = bh;
  t.block_w = bw;
  t.per_thread = r;
  t.vec = vec;
  t.deterministic = det;
  return t;
}

std::string why_not(const KernelTraits& t, const Problem& p) {
  std::string why;
  EXPECT_FALSE(direct_family().can_implement(t, p, &why));
  return why;
}

TEST(DirectPlan, AcceptsDepthwiseInEveryDirectionAndDtype) {
  for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight})
    for (DType dt : {DType::bf16, DType::fp16, DType::fp32}) {
      Problem p = depthwise(d, dt);
      std::string why;
      EXPECT_TRUE(direct_family().can_implement(traits(p, 8, 16, 4, dt == DType::fp32 ? 4 : 8), p, &why)) << why;
    }
}

TEST(DirectPlan, VecMustDivideChannelCountsAndFit16Bytes) {
  Problem p = depthwise(Direction::fwd, DType::bf16, 12);
  EXPECT_NE(why_not(traits(p, 8, 16, 4, 8), p).find("divisible by vec"), std::string::npos);
  EXPECT_TRUE(direct_family().can_implement(traits(p, 8, 16, 4, 4), p, nullptr));
  // K alone not divisible: C = 16, K = 20 with G = 4 (Cg = 4, Kg = 5).
  Problem q = depthwise(Direction::fwd, DType::bf16, 16);
  q.k = 20;
  q.g = 4;
  EXPECT_NE(why_not(traits(q, 8, 16, 4, 8), q).find("K (20)"), std::string::npos);
  EXPECT_TRUE(direct_family().can_implement(traits(q, 8, 16, 4, 4), q, nullptr));
  // fp32 vec 8 would be 32 bytes.
  Problem f = depthwise(Direction::fwd, DType::fp32);
  EXPECT_NE(why_not(traits(f, 8, 16, 4, 8), f).find("16 bytes"), std::string::npos);
  EXPECT_FALSE(direct_family().can_implement(traits(p, 8, 16, 4, 3), p, nullptr));
}

TEST(DirectPlan, GroupChannelsAtMostEight) {
  Problem p = depthwise(Direction::bwd_data, DType::fp16, 64);
  p.g = 8;  // Cg = Kg = 8: the largest near-depthwise group
  EXPECT_TRUE(direct_family().can_implement(traits(p), p, nullptr));
  p.c = 72;  // Cg = 9
  p.k = 64;
  EXPECT_NE(why_not(traits(p), p).find("C/G (9)"), std::string::npos);
  p.c = 64;
  p.k = 72;  // Kg = 9
  EXPECT_NE(why_not(traits(p), p).find("K/G (9)"), std::string::npos);
}

TEST(DirectPlan, TraitsMustMatchTheProblem) {
  Problem p = depthwise(Direction::fwd, DType::bf16);
  KernelTraits t = traits(p);
  t.direction = Direction::bwd_data;
  EXPECT_NE(why_not(t, p).find("bwd_data"), std::string::npos);
  t = traits(p);
  t.dtype = DType::fp16;
  EXPECT_FALSE(direct_family().can_implement(t, p, nullptr));
  t = traits(p);
  t.ndim = 3;
  EXPECT_FALSE(direct_family().can_implement(t, p, nullptr));
  t = traits(p);
  t.family = Family::igemm;
  EXPECT_FALSE(direct_family().can_implement(t, p, nullptr));
  Problem bad = p;
  bad.c = 63;  // not divisible by G: invalid
  EXPECT_FALSE(direct_family().can_implement(traits(bad), bad, nullptr));
}

TEST(DirectPlan, BlockWidthMustBeAMultipleOfPerThread) {
  Problem p = depthwise(Direction::fwd, DType::bf16);
  EXPECT_NE(why_not(traits(p, 8, 16, 3), p).find("per_thread"), std::string::npos);
  EXPECT_FALSE(direct_family().can_implement(traits(p, 8, 16, 0), p, nullptr));
  // 32 x 32 / 1 pixel threads x 8 lanes = 8192 threads.
  EXPECT_NE(why_not(traits(p, 32, 32, 1), p).find("threads"), std::string::npos);
}

TEST(DirectPlan, OneDimensionalTilesIgnoreBlockH) {
  Problem p = depthwise(Direction::fwd, DType::bf16);
  p.ndim = 1;
  p.in = {1, 1, 100};
  p.filter = {1, 1, 5};
  p.pad_lo = p.pad_hi = {0, 0, 2};
  KernelTraits t = traits(p, 4, 32, 4);  // 4 x 8 x 8 = 256 threads: 32 lanes for one row
  Result<DirectPlan> plan = plan_direct(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->params.tile_rows, 1);
  EXPECT_EQ(plan->params.tiles[1], 1);
  EXPECT_EQ(plan->params.slabs, 1);  // 32 lanes x vec 8 = 256 >= 64 channels
  EXPECT_NE(direct_family().instance_source(t).find("Config<0, 1, 1, 32, 4, 8, 256, false>"), std::string::npos);
}

TEST(DirectPlan, SharedMemoryLimit) {
  Problem p = depthwise(Direction::fwd, DType::fp32, 64, 1, 200, 200);
  p.filter = {1, 11, 11};
  p.dilation = {1, 8, 8};
  p.pad_lo = p.pad_hi = {0, 40, 40};
  // Tile (7 + 80 + 1) x (15 + 80 + 1) pixels x 32 channels x 4 bytes > 227 KB.
  EXPECT_NE(why_not(traits(p, 8, 16, 4, 4), p).find("shared memory"), std::string::npos);
  p.dilation = {1, 1, 1};
  p.pad_lo = p.pad_hi = {0, 5, 5};
  EXPECT_TRUE(direct_family().can_implement(traits(p, 8, 16, 4, 4), p, nullptr));
}

TEST(DirectPlan, GatherGridAndTiles) {
  Problem p = depthwise(Direction::fwd, DType::bf16, 96, 3, 19, 21);
  p.stride = {1, 2, 2};
  Result<DirectPlan> plan = plan_direct(traits(p), p);
  ASSERT_TRUE(plan.ok());
  // Output 10 x 11; slab = 8 lanes x 8 = 64 channels -> 2 slabs.
  EXPECT_EQ(plan->params.slabs, 2);
  EXPECT_EQ(plan->params.tiles[1], 2);
  EXPECT_EQ(plan->params.tiles[2], 1);
  EXPECT_EQ(plan->blocks, 2 * 2 * 1 * 3);
  EXPECT_EQ(plan->threads, 256);
  EXPECT_EQ(plan->params.tile_rows, 7 * 2 + 2 + 1);
  EXPECT_EQ(plan->params.tile_cols, 15 * 2 + 2 + 1);
  EXPECT_EQ(plan->params.src_cstride, 64);
  EXPECT_EQ(plan->smem, size_t(17 * 33 * 64 * 2 + 9 * 64 * 4));
  // bwd_data tiles the input and stages dy rows ((8-1) + 2) / 2 + 1.
  p.direction = Direction::bwd_data;
  plan = plan_direct(traits(p), p);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->params.tiles[1], 3);
  EXPECT_EQ(plan->params.tile_rows, 5);
  EXPECT_EQ(plan->params.tap_step[1], 2);
  EXPECT_EQ(plan->params.tap_delta[1], 1);
}

TEST(DirectPlan, GroupedEntry) {
  // ResNeXt-like: C = K = 128, G = 32 (Cg = Kg = 4), 3x3, stride 1.
  Problem p = depthwise(Direction::fwd, DType::bf16, 128, 2, 16, 16);
  p.g = 32;
  Result<DirectPlan> plan = plan_direct(traits(p), p);  // t8x16 r4 v8: slab 64
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->grouped, 4);
  // A 10 x 18 x 64 bf16 source tile (a staged fp32 tile measured slower in
  // fwd, 2026-11-26) and the slab's 9 x 64 x 4 fp32 weights.
  EXPECT_EQ(plan->smem, size_t(10 * 18 * 64 * 2 + 9 * 64 * 4 * 4));
  p.dtype = DType::fp32;
  plan = plan_direct(traits(p, 8, 16, 4, 4), p);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->grouped, 4);
  p.dtype = DType::bf16;
  for (Direction d : {Direction::bwd_data, Direction::bwd_weight}) {
    p.direction = d;
    plan = plan_direct(traits(p), p);
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(plan->grouped, 4) << to_string(d);
  }
  // bwd_data with a W stride that does not divide block_w / per_thread (4):
  // the general entry, with a bf16 tile.
  p.direction = Direction::bwd_data;
  p.stride = {1, 3, 3};
  plan = plan_direct(traits(p), p);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->grouped, 0);
  p.stride = {1, 2, 2};
  plan = plan_direct(traits(p), p);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->grouped, 4);
  // No grouped entry: Cg != Kg, a width without one, depthwise.
  p = depthwise(Direction::fwd, DType::bf16, 64, 2, 16, 16);
  p.k = 128;
  p.g = 16;  // Cg 4, Kg 8
  plan = plan_direct(traits(p), p);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->grouped, 0);
  p.k = 48;
  p.c = 48;
  p.g = 16;  // Cg = Kg = 3
  plan = plan_direct(traits(p), p);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->grouped, 0);
  p.g = 48;
  plan = plan_direct(traits(p), p);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->grouped, 0);
}

TEST(DirectPlan, WorkspaceBytesAreExact) {
  // N=2, 64 channels, 16x16, 3x3: one slab, one pass, items = 2 images x 2 x 1
  // tiles = 4 -> 4 splits; dw = 64 * 9 elements. With atomics the fp32
  // accumulator (rounded up to 256 bytes) is followed by the one-launch
  // fixup's three 8-byte words per (slab, pass) region (kernels/fixup.hpp).
  const int64_t dw = 64 * 9;
  const size_t words = 3 * 8;  // one region
  Problem p = depthwise(Direction::bwd_weight, DType::bf16);
  EXPECT_EQ(direct_family().workspace_bytes(traits(p), p), size_t(dw * 4 + 255) / 256 * 256 + words);
  Result<DirectPlan> atomic = plan_direct(traits(p), p);
  ASSERT_TRUE(atomic.ok());
  EXPECT_EQ(atomic->params.fixup, 1);
  EXPECT_EQ(atomic->finish_blocks, 0);  // converted inside the launch
  EXPECT_EQ(atomic->fixup_offset, size_t(dw * 4 + 255) / 256 * 256);
  // Deterministic: one fp32 slice per split, then the region's words (4 * dw
  // * 4 bytes is a multiple of 256: no padding).
  EXPECT_EQ(direct_family().workspace_bytes(traits(p, 8, 16, 4, 8, true), p), size_t(4 * dw * 4) + words);
  Result<DirectPlan> plan = plan_direct(traits(p, 8, 16, 4, 8, true), p);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->params.splits, 4);
  EXPECT_EQ(plan->params.acc_splits, 4);
  EXPECT_EQ(plan->accum, WgradAccum::partials);
  EXPECT_EQ(plan->blocks, 4);
  Problem f = depthwise(Direction::bwd_weight, DType::fp32);
  Result<DirectPlan> f_plan = plan_direct(traits(f, 8, 16, 4, 4), f);
  ASSERT_TRUE(f_plan.ok());
  const size_t f_regions = size_t(f_plan->params.slabs) * size_t(f_plan->params.passes);  // vec 4: 2 slabs
  EXPECT_EQ(f_regions, 2u);
  EXPECT_EQ(direct_family().workspace_bytes(traits(f, 8, 16, 4, 4), f), f_regions * words);  // atomics into dw: words only
  EXPECT_EQ(plan_direct(traits(f, 8, 16, 4, 4), f)->accum, WgradAccum::atomic_out);
  EXPECT_EQ(plan_direct(traits(f, 8, 16, 4, 4), f)->finish_blocks, 0);
  EXPECT_EQ(direct_family().workspace_bytes(traits(f, 8, 16, 4, 4, true), f), size_t(4 * dw * 4) + f_regions * words);
  for (Direction d : {Direction::fwd, Direction::bwd_data}) {
    Problem q = depthwise(d, DType::bf16);
    EXPECT_EQ(direct_family().workspace_bytes(traits(q), q), 0u);
  }
  // Unsupported: 0.
  Problem big = depthwise(Direction::bwd_weight, DType::bf16, 72);
  big.g = 8;
  EXPECT_EQ(direct_family().workspace_bytes(traits(big), big), 0u);
}

// The deterministic tile kernels (_det) run in one launch: each split stores
// its fp32 slice, and the last split of each (slab, pass) region adds the
// region's slices in split order (wgrad.cuh), counted on kFixupWords words
// per region placed after the slices (rounded up to 256 bytes). A plan of
// one split stores dw directly and needs no workspace.
TEST(DirectPlan, DeterministicWgradRunsInOneLaunchWithSlicesThenRegionWordsWhileTheSumIsSmall) {
  // 3D 5x5x5 on 2 x 24 x 8 x 8 with 48 channels, vec 8, 4x16 tiles of 2 per
  // thread: 32 pixel threads, 256 threads, slabs of 64 pairs -> 1 slab;
  // 25 taps a z slice on 64 tap places -> 5 passes; items 2 * 24 * 2 * 1 = 96;
  // splits ceil(1024 / 5) = 205, clamped to the 96 items.
  Problem p = depthwise(Direction::bwd_weight, DType::bf16, 48, 2, 8, 8);
  p.ndim = 3;
  p.in = {24, 8, 8};
  p.filter = {5, 5, 5};
  p.pad_lo = p.pad_hi = {2, 2, 2};
  const KernelTraits t = traits(p, 4, 16, 2, 8, true);
  Result<DirectPlan> plan = plan_direct(t, p);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  const direct::DirectParams& q = plan->params;
  EXPECT_EQ(q.slabs, 1);
  EXPECT_EQ(q.passes, 5);
  EXPECT_EQ(q.splits, 96);
  EXPECT_EQ(q.acc_splits, 96);
  const int64_t dw = 48 * 125;
  EXPECT_EQ(q.dw_elements, dw);
  EXPECT_EQ(plan->accum, WgradAccum::partials);
  // A region's last split would sum 96 slices of 1200 floats (460 KB) alone,
  // over kernels/fixup.hpp's 16 KB: the finish kernel sums them instead.
  EXPECT_EQ(q.fixup, 0);
  EXPECT_GT(plan->finish_blocks, 0);
  EXPECT_EQ(plan->launches(), 2);
  EXPECT_EQ(plan->workspace, size_t(96 * dw * 4));
  EXPECT_EQ(direct_family().workspace_bytes(t, p), plan->workspace);

  // Slices whose bytes are not a multiple of 256: the words start at the next
  // multiple. fp32, 10 channels, 16x16, vec 2, 8x16 tiles of 2 per thread:
  // 512 threads, a slab of 16 pairs -> 1 region; items 2 * 2 * 1 = 4 -> 4
  // splits; dw = 10 * 9 = 90; 4 * 90 * 4 = 1440 bytes -> words at 1536.
  Problem r = depthwise(Direction::bwd_weight, DType::fp32, 10);
  const KernelTraits tr = traits(r, 8, 16, 2, 2, true);
  Result<DirectPlan> rp = plan_direct(tr, r);
  ASSERT_TRUE(rp.ok()) << rp.status().to_string();
  EXPECT_EQ(rp->params.slabs * rp->params.passes, 1);
  EXPECT_EQ(rp->params.splits, 4);
  EXPECT_EQ(rp->params.dw_elements, 90);
  EXPECT_EQ(rp->params.fixup, 1);
  EXPECT_EQ(rp->finish_blocks, 0);  // no gconv_finish
  EXPECT_EQ(rp->launches(), 1);
  EXPECT_EQ(rp->fixup_offset, 1536u);
  EXPECT_EQ(rp->workspace, 1536u + 3 * 8);
  EXPECT_EQ(direct_family().workspace_bytes(tr, r), rp->workspace);

  // One split (one item: N = 1, one 8x16 tile): dw stored directly, no
  // workspace at all.
  Problem one = depthwise(Direction::bwd_weight, DType::bf16, 64, 1, 8, 16);
  Result<DirectPlan> op = plan_direct(traits(one, 8, 16, 4, 8, true), one);
  ASSERT_TRUE(op.ok()) << op.status().to_string();
  EXPECT_EQ(op->params.splits, 1);
  EXPECT_EQ(op->params.fixup, 1);
  EXPECT_EQ(op->workspace, 0u);
  EXPECT_EQ(op->finish_blocks, 0);
  EXPECT_EQ(op->launches(), 1);
}

TEST(DirectPlan, WgradSplitsTapsAcrossSlotsAndPositions) {
  Problem p = depthwise(Direction::bwd_weight, DType::bf16, 64, 32, 56, 56);
  // 32 pixel threads, per_thread 4: 3x3 = 9 taps on 3 slots, 10 position groups.
  Result<DirectPlan> plan = plan_direct(traits(p), p);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->params.taps_per_pass, 9);
  EXPECT_EQ(plan->params.tap_slots, 3);
  EXPECT_EQ(plan->params.pos_groups, 10);
  EXPECT_EQ(plan->params.passes, 1);
  // 512 blocks wanted with atomics in one launch (kWgradTargetBlocksOneLaunch;
  // 32 x 7 x 4 = 896 items); the deterministic variant wants 1024 but has
  // only the 896 items.
  EXPECT_EQ(plan->params.splits, 512);
  Result<DirectPlan> det = plan_direct(traits(p, 8, 16, 4, 8, true), p);
  ASSERT_TRUE(det.ok());
  EXPECT_EQ(det->params.splits, 896);
  // 3D 7x7x7: 49 taps per z-slice fit 128 tap places -> 7 passes.
  Problem q = p;
  q.ndim = 3;
  q.in = {8, 12, 12};
  q.filter = {7, 7, 7};
  q.pad_lo = q.pad_hi = {3, 3, 3};
  plan = plan_direct(traits(q), q);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->params.taps_per_pass, 49);
  EXPECT_EQ(plan->params.tap_slots, 13);
  EXPECT_EQ(plan->params.pos_groups, 2);
  EXPECT_EQ(plan->params.chunks, 1);
  EXPECT_EQ(plan->params.passes, 7);
  // 2D 15x15 = 225 taps > 128: two chunks.
  Problem r = p;
  r.filter = {1, 15, 15};
  r.pad_lo = r.pad_hi = {0, 7, 7};
  plan = plan_direct(traits(r), r);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->params.taps_per_pass, 128);
  EXPECT_EQ(plan->params.chunks, 2);
  EXPECT_EQ(plan->params.passes, 2);
}

// The exact maximum equals a brute force over every slab.
TEST(DirectPlan, MaxSpanMatchesBruteForce) {
  auto brute = [](int64_t dst, int64_t src, int slab, int og, int sg, int vec) {
    int64_t widest = 0;
    for (int64_t lo = 0; lo < dst; lo += slab) {
      const int64_t hi = std::min(lo + slab, dst);
      const int64_t s_lo = lo / og * sg / vec * vec;
      const int64_t s_hi = std::min(src, (((hi - 1) / og + 1) * sg + vec - 1) / vec * vec);
      widest = std::max(widest, s_hi - s_lo);
    }
    return widest;
  };
  for (int og = 1; og <= 8; ++og)
    for (int sg = 1; sg <= 8; ++sg)
      for (int vec : {1, 2, 4, 8})
        for (int lanes : {1, 3, 8}) {
          const int64_t groups = 37;
          const int64_t dst = groups * og, src = groups * sg;
          if (dst % vec != 0 || src % vec != 0) continue;
          const int slab = lanes * vec;
          EXPECT_EQ(direct_max_span(dst, src, slab, og, sg, vec), brute(dst, src, slab, og, sg, vec))
              << "og " << og << " sg " << sg << " vec " << vec << " slab " << slab;
        }
  // Depthwise: a slab reads exactly its own channels.
  EXPECT_EQ(direct_max_span(96, 96, 64, 1, 1, 8), 64);
  // Cg = 3, Kg = 5, slab 8: 8 output channels touch at most 3 groups.
  EXPECT_EQ(direct_max_span(25, 15, 8, 5, 3, 1), 9);
}

TEST(DirectFamily, InstanceSourceAndEntryPoints) {
  Problem p = depthwise(Direction::bwd_weight, DType::fp16);
  KernelTraits t = traits(p, 4, 8, 2, 4, true);
  const std::string src = direct_family().instance_source(t);
  EXPECT_NE(src.find("#include \"direct/direct.cuh\""), std::string::npos);
  EXPECT_NE(src.find("Config<1, 2, 4, 8, 2, 4, 128, true>"), std::string::npos);
  EXPECT_NE(src.find("__launch_bounds__(128, 1) gconv_main"), std::string::npos);
  EXPECT_NE(src.find("run_main<Cfg, 2, 0>"), std::string::npos);
  EXPECT_NE(src.find("__launch_bounds__(128) gconv_dw"), std::string::npos);
  EXPECT_NE(src.find("run_main<Cfg, 2, 1>"), std::string::npos);
  EXPECT_NE(src.find("gconv_finish"), std::string::npos);
  EXPECT_EQ(direct_family().entry_points(t), (std::vector<std::string>{"gconv_main", "gconv_dw", "gconv_finish",
                                                                       "gconv_g2", "gconv_g4", "gconv_g8"}));
  EXPECT_NE(src.find("run_main<Cfg, 2, 8>"), std::string::npos);
  t.direction = Direction::bwd_data;  // tuned bounds: ~768 threads per SM
  EXPECT_NE(direct_family().instance_source(t).find("__launch_bounds__(128, 6) gconv_dw"), std::string::npos);
  t.direction = Direction::fwd;
  EXPECT_EQ(direct_family().instance_source(t).find("gconv_finish"), std::string::npos);
  // Grouped entries for Cg = Kg = 2, 4, 8, bounded like gconv_main.
  EXPECT_EQ(direct_family().entry_points(t),
            (std::vector<std::string>{"gconv_main", "gconv_dw", "gconv_g2", "gconv_g4", "gconv_g8"}));
  const std::string fwd_src = direct_family().instance_source(t);
  EXPECT_NE(fwd_src.find("__launch_bounds__(128, 1) gconv_g4(const gconv::direct::DirectParams p) {\n"
                         "  gconv::direct::run_main<Cfg, 0, 4>(p);"),
            std::string::npos);
  EXPECT_EQ(direct_family().family(), Family::direct);
}

TEST(DirectFamily, LaunchRejectsMissingKernelsAndWorkspace) {
  Problem p = depthwise(Direction::bwd_weight, DType::bf16);
  KernelTraits t = traits(p);
  float dummy[64];
  ConvArgs args{dummy, dummy, dummy, nullptr, 0};
  LoadedKernel none;
  Status s = direct_family().launch(t, none, p, args, nullptr);
  EXPECT_EQ(s.code(), StatusCode::internal);
  LoadedKernel fake;
  fake.entries = {reinterpret_cast<CUkern_st*>(0x10), reinterpret_cast<CUkern_st*>(0x20),
                  reinterpret_cast<CUkern_st*>(0x30)};
  s = direct_family().launch(t, fake, p, args, nullptr);  // the grouped entries are missing
  EXPECT_EQ(s.code(), StatusCode::internal);
  for (uintptr_t e = 0x40; e <= 0x60; e += 0x10) fake.entries.push_back(reinterpret_cast<CUkern_st*>(e));
  s = direct_family().launch(t, fake, p, args, nullptr);  // needs dw * 4 bytes of workspace
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("workspace"), std::string::npos);
  Problem bad = p;
  bad.g = 8;
  bad.c = 72;
  EXPECT_EQ(direct_family().launch(t, fake, bad, args, nullptr).code(), StatusCode::not_supported);
}

}  // namespace
}  // namespace gconv
