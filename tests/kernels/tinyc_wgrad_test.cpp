// The tinyc bwd_weight kernels (grouped convolutions with C/G = K/G of 4, 8
// or 16): names, rules with their reasons, the geometry the kernel walks
// (mirrored here: every (dy pixel, filter tap) of every image is visited
// once, at the x pixel the definition of bwd_weight names, inside the staged
// halo), plan numbers worked out by hand, and NVRTC compiles of every pool
// kernel for sm_90a without spills.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "compile_test_util.hpp"
#include "kernels/family.hpp"
#include "kernels/fixup.hpp"
#include "kernels/tinyc/tinyc_plan.hpp"
#include "kernels/traits.hpp"
#include "pool/arch_rules.hpp"
#include "pool/pool.hpp"

namespace gconv {
namespace {

KernelTraits wgrad_kernel(int bh, int bw, int warps, DType dt = DType::bf16) {
  KernelTraits t;
  t.family = Family::tinyc;
  t.direction = Direction::bwd_weight;
  t.dtype = dt;
  t.ndim = 2;
  t.block_h = bh;
  t.block_w = bw;
  t.warps_m = warps;
  return t;
}

Problem problem(const std::string& spec) {
  auto p = Problem::parse_spec(spec);
  EXPECT_TRUE(p.ok()) << spec;
  p->direction = Direction::bwd_weight;
  return *p;
}

TEST(TinycWgrad, NameRoundTripsAndRules) {
  const KernelTraits t = wgrad_kernel(8, 16, 4);
  EXPECT_EQ(kernel_name(t), "tinyc_bwd_weight_bf16_2d_t8x16_w4");
  auto back = parse_kernel_name(kernel_name(t));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_TRUE(*back == t);
  EXPECT_EQ(t.threads(), 128);
  std::string why;
  EXPECT_TRUE(tinyc::traits_ok(t, &why)) << why;
  EXPECT_FALSE(tinyc::traits_ok(wgrad_kernel(8, 16, 2), &why));  // four warps cover a slab's 64 rows
  EXPECT_NE(why.find("warps_m"), std::string::npos) << why;
  EXPECT_FALSE(tinyc::traits_ok(wgrad_kernel(8, 24, 4), &why));  // tasks are 16 pixels of a row
  KernelTraits t3 = t;
  t3.ndim = 3;
  EXPECT_FALSE(tinyc::traits_ok(t3, &why));
  EXPECT_NE(why.find("2D"), std::string::npos) << why;
  KernelTraits fwd = t;
  fwd.direction = Direction::fwd;
  EXPECT_FALSE(tinyc::traits_ok(fwd, &why));

  // ResNeXt-50's grouped 3x3 layers (C/G = 4, 8, 16; strided too), RegNet's C/G = 8
  // with C off a multiple of 64 (the last slab partial).
  for (const char* s : {"n32c128k128g32_h56w56_y3x3_p1", "n32c256k256g32_h56w56_y3x3_s2_p1",
                        "n32c512k512g32_h14w14_y3x3_p1", "n32c440k440g55_h7w7_y3x3_p1"})
    EXPECT_TRUE(tinyc::can_implement(t, problem(s), &why)) << s << ": " << why;
  EXPECT_FALSE(tinyc::can_implement(t, problem("n2c64k64_h9w9_y3x3_p1"), &why));  // one group of 64
  EXPECT_NE(why.find("grouped"), std::string::npos) << why;
  // The stems (one group, C <= 8): the stem entry, slabs over K; K a multiple
  // of 8 and W * C of 8 (both tensors' rows as tensor maps).
  for (const char* s : {"n32c3k32_h224w224_y3x3_s2_p1", "n32c3k24_h224w224_y3x3_s2_p1", "n2c8k128_h9w33_y3x3_p1"}) {
    EXPECT_TRUE(tinyc::can_implement(t, problem(s), &why)) << s << ": " << why;
    EXPECT_TRUE(tinyc::wgrad_stem(problem(s))) << s;
  }
  EXPECT_FALSE(tinyc::can_implement(t, problem("n2c3k20_h16w16_y3x3_s2_p1"), &why));  // K % 8
  EXPECT_NE(why.find("K must be"), std::string::npos) << why;
  EXPECT_FALSE(tinyc::can_implement(t, problem("n2c3k32_h15w15_y3x3_s2_p1"), &why));  // W * C = 45
  EXPECT_NE(why.find("W * C"), std::string::npos) << why;
  EXPECT_FALSE(tinyc::can_implement(t, problem("n32c3k64_h224w224_y7x7_s2_p3"), &why));  // 49 taps
  // The stem's x rectangle is rounded to whole 16-byte rows of 3 channels: 8 pixels.
  const tinyc::WgradPlan sp = tinyc::make_wgrad_plan(t, problem("n32c3k32_h224w224_y3x3_s2_p1"));
  EXPECT_EQ(sp.params.xw % 8, 0);
  EXPECT_GE(sp.params.xw, 15 * 2 + 3);
  EXPECT_EQ(sp.params.cg, 3);
  EXPECT_EQ(sp.slabs, 1);
  // Two stages, the zero pixel and the wide copy of the x rectangle (16 bytes a pixel).
  EXPECT_EQ(sp.smem, size_t(1024) + 2 * sp.params.stage_bytes + 128 + size_t(sp.params.xh) * sp.params.xw * 16);
  const TmaArgs sx = tinyc::wgrad_x_map(problem("n32c3k32_h224w224_y3x3_s2_p1"), sp);
  EXPECT_EQ(sx.rank, 3);
  EXPECT_EQ(sx.dims[0], 224u * 3);
  EXPECT_EQ(sx.box[0], uint32_t(sp.params.xw * 3));
  EXPECT_EQ(sx.box[0] * 2 % 16, 0u);
  EXPECT_FALSE(tinyc::can_implement(t, problem("n2c64k64g2_h9w9_y3x3_p1"), &why));  // C/G = 32
  EXPECT_FALSE(tinyc::can_implement(t, problem("n2c64k128g16_h9w9_y3x3_p1"), &why));  // K/G != C/G
  EXPECT_FALSE(tinyc::can_implement(t, problem("n2c64k64g64_h9w9_y3x3_p1"), &why));  // depthwise
  EXPECT_FALSE(tinyc::can_implement(t, problem("n2c36k36g9_h9w9_y3x3_p1"), &why));   // C % 8 != 0
  EXPECT_FALSE(tinyc::can_implement(t, problem("n2c64k64g16_h9w9_y5x5_p2"), &why));  // 25 taps
  EXPECT_NE(why.find("taps"), std::string::npos) << why;
  // The x halo of a wide tile at stride 4 and dilation 3 does not fit two stages.
  EXPECT_FALSE(tinyc::can_implement(wgrad_kernel(16, 16, 4), problem("n2c64k64g16_h200w200_y3x3_s4_p3_dil3"), &why));
  EXPECT_NE(why.find("shared memory"), std::string::npos) << why;
}

// The plan of ResNeXt's c128 g32 56x56 layer with 8x16 dy tiles, by hand.
TEST(TinycWgrad, PlansResNeXtsFirstGroupedLayer) {
  const KernelTraits t = wgrad_kernel(8, 16, 8);
  const Problem p = problem("n32c128k128g32_h56w56_y3x3_p1");
  const tinyc::WgradPlan plan = tinyc::make_wgrad_plan(t, p);
  const tinyc::TinycWgradParams& q = plan.params;
  EXPECT_EQ(q.cg, 4);
  EXPECT_EQ(q.taps, 9);
  EXPECT_EQ(q.tiles_h, 7);  // 56 / 8
  EXPECT_EQ(q.tiles_w, 4);  // ceil(56 / 16)
  EXPECT_EQ(q.steps, 32 * 7 * 4);
  EXPECT_EQ(q.xh, 10);  // 8 rows + 2
  EXPECT_EQ(q.xw, 18);
  // Two TMA boxes of 128-byte pixels, each at a 1024-byte boundary: 16 KB of
  // dy, 180 x 128 = 23,040 bytes of x rounded to 23,552.
  EXPECT_EQ(q.stage_bytes, 16384 + 23552);
  EXPECT_EQ(plan.smem, size_t(1024) + 2 * q.stage_bytes + 128);
  // The maps: x as (C, W, H, N) with a box of 64 channels x 18 x 10, dy as
  // (K, Wo, Ho, N) with a box of 64 x 16 x 8; byte strides of dims 1..3.
  const TmaArgs xm = tinyc::wgrad_x_map(p, plan), dm = tinyc::wgrad_dy_map(t, p);
  EXPECT_EQ(xm.rank, 4);
  EXPECT_EQ(xm.dims[0], 128u);
  EXPECT_EQ(xm.dims[1], 56u);
  EXPECT_EQ(xm.dims[2], 56u);
  EXPECT_EQ(xm.dims[3], 32u);
  EXPECT_EQ(xm.strides[0], 256u);
  EXPECT_EQ(xm.strides[1], 256u * 56);
  EXPECT_EQ(xm.strides[2], 256u * 56 * 56);
  EXPECT_EQ(xm.box[0], 64u);
  EXPECT_EQ(xm.box[1], 18u);
  EXPECT_EQ(xm.box[2], 10u);
  EXPECT_EQ(xm.box[3], 1u);
  EXPECT_EQ(dm.box[1], 16u);
  EXPECT_EQ(dm.box[2], 8u);
  EXPECT_EQ(dm.dims[1], 56u);
  EXPECT_EQ(plan.slabs, 2);
  // 132 blocks a slab (the atomics' budget, 2^21 / (2 slabs x 64 x 9 x 4) =
  // 455, does not bind).
  EXPECT_EQ(plan.blocks, tinyc::kWgradBlocks / 2);
  // At C/G = 16 and 14 x 14 (8 slabs of 32 steps) it does: 2^21 / (8 x 64 x 9 x 16) = 28.
  const tinyc::WgradPlan p16 = tinyc::make_wgrad_plan(t, problem("n32c512k512g32_h14w14_y3x3_p1"));
  EXPECT_EQ(p16.slabs, 8);
  EXPECT_EQ(p16.blocks, 28);
  EXPECT_EQ(plan.threads, 256);
  // dw in fp32 (K x taps x C/G), then three words per slab.
  EXPECT_EQ(plan.flags_offset, fixup_words_offset(128 * 9 * 4));
  EXPECT_EQ(plan.workspace, plan.flags_offset + 2 * 3 * 8);
  EXPECT_EQ(family_of(t).workspace_bytes(t, p), plan.workspace);
}

// The kernel's walk, mirrored: step s of a slab is dy tile (ty, tx) of image
// n; its nh x nw pixels inside dy are 16-pixel tasks in row-major order;
// pixel q of the tile (row q / nw, column q % nw) reads dy tile pixel (row,
// col) and, for tap (fy, fx), the x halo pixel (row * sh + fy * dh, col * sw
// + fx * dw). Every dy pixel of every image is visited once per tap, and the
// halo pixel is the x pixel (oh * sh - ph + fy * dh, ow * sw - pw + fx * dw)
// of the definition, inside the halo's xh x xw; lanes past the tile's pixels
// read the zero pixel.
void check_walk(const KernelTraits& t, const Problem& p) {
  const tinyc::WgradPlan plan = tinyc::make_wgrad_plan(t, p);
  const tinyc::TinycWgradParams& q = plan.params;
  std::vector<int> seen(size_t(q.n) * q.ho * q.wo * q.taps, 0);
  for (int s = 0; s < q.steps; ++s) {
    const int tx = s % q.tiles_w, ty = (s / q.tiles_w) % q.tiles_h, n = s / q.tiles_w / q.tiles_h;
    const int oh0 = ty * t.block_h, ow0 = tx * t.block_w;
    const int nh = std::min(t.block_h, q.ho - oh0), nw = std::min(t.block_w, q.wo - ow0);
    ASSERT_GT(nh, 0);
    ASSERT_GT(nw, 0);
    const int valid = nh * nw, tasks = (valid + 15) / 16;
    for (int tk = 0; tk < tasks; ++tk)
      for (int i = 0; i < 16; ++i) {
        const int qq = tk * 16 + i;
        if (qq >= valid) continue;  // the zero pixel
        const int row = qq / nw, col = qq % nw;
        ASSERT_LT(row * t.block_w + col, t.block_h * t.block_w);
        const int oh = oh0 + row, ow = ow0 + col;
        for (int tap = 0; tap < q.taps; ++tap) {
          const int fy = tap / q.fw, fx = tap % q.fw;
          const int hy = row * q.sh + fy * q.dh, hx = col * q.sw + fx * q.dw;
          // The kernel adds the host's tap table to the pixel's tap-0 halo index.
          ASSERT_EQ(hy * q.xw + hx, (row * q.sh) * q.xw + col * q.sw + q.toffs[tap]);
          ASSERT_LT(hy, q.xh);
          ASSERT_LT(hx, q.xw);
          // The halo's origin is (oh0 * sh - ph, ow0 * sw - pw).
          EXPECT_EQ(oh0 * q.sh - q.ph + hy, oh * q.sh - q.ph + fy * q.dh);
          EXPECT_EQ(ow0 * q.sw - q.pw + hx, ow * q.sw - q.pw + fx * q.dw);
          ++seen[((size_t(n) * q.ho + oh) * q.wo + ow) * q.taps + tap];
        }
      }
  }
  for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << kernel_name(t) << " visit " << i;
  for (int tap = q.taps; tap < tinyc::kWMaxTaps; ++tap) EXPECT_EQ(q.toffs[tap], 0);
  // The blocks of a slab split the steps into contiguous runs covering each once.
  int covered = 0;
  for (long long b = 0; b < plan.blocks; ++b) {
    const int s0 = int(int64_t(q.steps) * b / plan.blocks), s1 = int(int64_t(q.steps) * (b + 1) / plan.blocks);
    EXPECT_EQ(s0, covered);
    covered = s1;
  }
  EXPECT_EQ(covered, q.steps);
}

TEST(TinycWgrad, TheWalkVisitsEveryPixelAndTapOnceInsideTheHalo) {
  int checked = 0;
  for (const char* s : {"n2c64k64g16_h9w9_y3x3_p1", "n3c80k80g5_h9w13_y3x3_s2_p1:2,0:1_dil2",
                        "n2c16k16g4_h13w14_y3x3_s3_p1", "n2c64k64g8_h7w7_y3x3_s2_p1", "n1c32k32g2_h5w40_y1x3_p0,1",
                        "n2c3k32_h40w48_y3x3_s2_p1", "n1c4k72_h20w18_y3x3_p1:0,2:1_dil2"})
    for (const KernelTraits& t : {wgrad_kernel(4, 16, 4), wgrad_kernel(8, 32, 8), wgrad_kernel(16, 16, 4)}) {
      const Problem p = problem(s);
      std::string why;
      if (!tinyc::can_implement(t, p, &why)) {  // only a wide tile's halo at stride 2 / 3 may not fit
        EXPECT_NE(why.find("shared memory"), std::string::npos) << s << ": " << why;
        continue;
      }
      check_walk(t, p);
      ++checked;
    }
  EXPECT_EQ(checked, 15);  // of 21: six wide tiles at stride 2 or 3 need more than two stages fit
}

// Every tinyc bwd_weight kernel of the bf16 and fp16 pools.
TEST(TinycWgrad, EveryPoolKernelCompilesForSm90aWithoutSpills) {
  auto rules = load_default_arch_rules();
  ASSERT_TRUE(rules.ok()) << rules.status().to_string();
  std::vector<KernelTraits> all;
  for (DType dt : {DType::bf16, DType::fp16}) {
    auto pool = load_pool(*rules, Direction::bwd_weight, dt);
    ASSERT_TRUE(pool.ok()) << pool.status().to_string();
    for (const KernelTraits& k : *pool)
      if (k.family == Family::tinyc) all.push_back(k);
  }
  EXPECT_EQ(all.size(), 20u);
  testing::expect_kernels_build_without_spills(all);
}

}  // namespace
}  // namespace gconv
