// The wgmma TMA producer's tensor-map arguments, computed on the host for
// odd shapes (no driver needed): dimensions innermost first, byte strides,
// traversal strides, the im2col bounding box of filter base positions (its
// size along each dimension, stepped by the stride, is the output size), and
// the rules that keep a problem off the TMA path with a reason.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/wgmma/tma.hpp"
#include "kernels/wgmma/wgmma_plan.hpp"

namespace gconv::wgmma {
namespace {

KernelTraits tma_kernel(DType t, int ndim, int tile_m, int tile_n) {
  KernelTraits k;
  k.family = Family::wgmma;
  k.direction = Direction::fwd;
  k.dtype = t;
  k.ndim = ndim;
  k.tile_m = tile_m;
  k.tile_n = tile_n;
  k.tile_k = t == DType::fp32 ? 32 : 64;
  k.warps_m = tile_m / 128 > 1 ? 2 : 1;
  k.warps_n = 1;
  k.stages = 4;
  k.vec = t == DType::fp32 ? 4 : 8;
  k.tma = true;
  return k;
}

Problem spec(const char* s) {
  auto p = Problem::parse_spec(s);
  EXPECT_TRUE(p.ok()) << s;
  return *p;
}

TEST(WgmmaTma, Im2colArgumentsOf2dStridedAsymmetricPaddingDilation) {
  const Problem p = spec("fwd_bf16_n3c128k192g2_h17w23_y3x5_s2,1_p1:2,2:0_dil1,2");
  const KernelTraits t = tma_kernel(DType::bf16, 2, 128, 64);
  std::string why;
  ASSERT_TRUE(can_implement(t, p, &why)) << why;
  const TmaArgs a = a_args(t, p);
  EXPECT_TRUE(a.im2col);
  ASSERT_EQ(a.rank, 4);
  EXPECT_EQ(a.dims[0], 128u);  // C, all groups
  EXPECT_EQ(a.dims[1], 23u);   // W
  EXPECT_EQ(a.dims[2], 17u);   // H
  EXPECT_EQ(a.dims[3], 3u);    // N
  EXPECT_EQ(a.strides[0], 128u * 2);
  EXPECT_EQ(a.strides[1], 23u * 128 * 2);
  EXPECT_EQ(a.strides[2], 17u * 23 * 128 * 2);
  EXPECT_EQ(a.elem_strides[1], 1u);  // W stride
  EXPECT_EQ(a.elem_strides[2], 2u);  // H stride
  // Filter bases from -pad_lo to in - 1 + pad_hi - dil * (F - 1): stepping by
  // the stride they must count exactly the outputs.
  for (int d = 0; d < 2; ++d) {
    const int slot = 2 - d;
    const int64_t span = int64_t(a.dims[1 + d]) - 1 + a.upper[d] - a.lower[d];
    EXPECT_EQ(span / a.elem_strides[1 + d] + 1, p.out(slot)) << "dim " << d;
  }
  EXPECT_EQ(a.lower[0], -2);  // W pad_lo
  EXPECT_EQ(a.upper[0], 0 - 2 * 4);
  EXPECT_EQ(a.lower[1], -1);
  EXPECT_EQ(a.upper[1], 2 - 2);
  EXPECT_EQ(a.channels, 64u);
  EXPECT_EQ(a.pixels, 128u);

  const TmaArgs b = b_args(t, p);
  EXPECT_FALSE(b.im2col);
  ASSERT_EQ(b.rank, 2);
  EXPECT_EQ(b.dims[0], uint64_t(15 * 64));  // F * C/G
  EXPECT_EQ(b.dims[1], 192u);               // K, all groups
  EXPECT_EQ(b.strides[0], uint64_t(15 * 64 * 2));
  EXPECT_EQ(b.box[0], 64u);
  EXPECT_EQ(b.box[1], 64u);
}

TEST(WgmmaTma, RanksOf1dAnd3dAndFp32) {
  const Problem p1 = spec("fwd_bf16_n2c64k64_w1000_x7_s3_p3");
  const TmaArgs a1 = a_args(tma_kernel(DType::bf16, 1, 256, 128), p1);
  ASSERT_EQ(a1.rank, 3);
  EXPECT_EQ(a1.dims[1], 1000u);
  EXPECT_EQ(a1.dims[2], 2u);
  EXPECT_EQ(a1.elem_strides[1], 3u);
  EXPECT_EQ(a1.pixels, 256u);

  const Problem p3 = spec("fwd_fp32_n2c64k32_d5h6w7_z3y3x3_p1");
  const KernelTraits t3 = tma_kernel(DType::fp32, 3, 128, 64);
  std::string why;
  ASSERT_TRUE(can_implement(t3, p3, &why)) << why;
  const TmaArgs a3 = a_args(t3, p3);
  ASSERT_EQ(a3.rank, 5);
  EXPECT_EQ(a3.dims[1], 7u);
  EXPECT_EQ(a3.dims[2], 6u);
  EXPECT_EQ(a3.dims[3], 5u);
  EXPECT_EQ(a3.strides[3], uint64_t(5 * 6 * 7 * 64 * 4));
  EXPECT_EQ(a3.channels, 32u);  // 128 bytes of fp32
}

TEST(WgmmaTma, ProblemsOffTheTmaPathSayWhy) {
  const KernelTraits t = tma_kernel(DType::bf16, 2, 128, 128);
  std::string why;
  // C/G off 64 and off the MMA's K (16): a K block would span two taps,
  // and padding the taps to whole blocks would leave half a K step.
  EXPECT_FALSE(can_implement(t, spec("fwd_bf16_n2c40k64_h9w9_y3x3_p1"), &why));
  EXPECT_NE(why.find("a K block must be one filter tap's channels"), std::string::npos) << why;
  EXPECT_NE(why.find("multiple of the MMA's K (16)"), std::string::npos) << why;
  // Grouped with C/G = 8.
  EXPECT_FALSE(can_implement(t, spec("fwd_bf16_n2c64k128g8_h9w9_y3x3_p1"), &why));
  // 2D bounding-box corners are 8-bit: a dilated filter reaching 129 back.
  EXPECT_FALSE(can_implement(t, spec("fwd_bf16_n1c64k64_h300w300_y3x3_p0_dil70"), &why));
  EXPECT_NE(why.find("im2col"), std::string::npos) << why;
  // 3D corners are 5-bit signed.
  KernelTraits t3 = tma_kernel(DType::bf16, 3, 128, 128);
  EXPECT_FALSE(can_implement(t3, spec("fwd_bf16_n1c64k64_d40h9w9_z3y3x3_p17"), &why));
  EXPECT_TRUE(can_implement(t3, spec("fwd_bf16_n1c64k64_d40h9w9_z3y3x3_p1"), &why)) << why;
  // bwd_data: strided problems (phases) whose input extents are not
  // multiples of the stride stay on the cp.async producer; K/G must be a
  // multiple of 64.
  KernelTraits bd = t;
  bd.direction = Direction::bwd_data;
  EXPECT_TRUE(traits_ok(bd, &why)) << why;
  EXPECT_FALSE(can_implement(bd, spec("bwd_data_bf16_n2c64k64_h9w9_y3x3_s2_p1"), &why));
  EXPECT_NE(why.find("stride"), std::string::npos) << why;
  EXPECT_TRUE(can_implement(bd, spec("bwd_data_bf16_n2c64k64_h10w8_y3x3_s2_p1"), &why)) << why;
  EXPECT_FALSE(can_implement(bd, spec("bwd_data_bf16_n2c64k72_h9w9_y3x3_p1"), &why));
  EXPECT_TRUE(can_implement(bd, spec("bwd_data_bf16_n2c40k64_h9w9_y3x3_p1"), &why)) << why;
  // bwd_weight: C/G a multiple of 64; tiles of whole 64-element blocks.
  KernelTraits bw = t;
  bw.direction = Direction::bwd_weight;
  EXPECT_FALSE(can_implement(bw, spec("bwd_weight_bf16_n2c96k64_h9w9_y3x3_p1"), &why));
  EXPECT_TRUE(can_implement(bw, spec("bwd_weight_bf16_n2c64k40_h9w9_y3x3_s2_p1"), &why)) << why;
  bw.tile_n = 32;
  EXPECT_FALSE(traits_ok(bw, &why));
  // fp32 has no bwd wgmma kernels at all (tf32 reads K-major operands only).
  KernelTraits bf = tma_kernel(DType::fp32, 2, 128, 64);
  bf.direction = Direction::bwd_weight;
  EXPECT_FALSE(traits_ok(bf, &why));
}

// Taps padded to whole channel blocks (tap_k): fwd C/G and bwd_data K/G off
// the block but on the MMA's K take the TMA path with that count rounded up
// a tap, grouped or not; the rest keep their rules.
TEST(WgmmaTma, TapsPaddedToWholeChannelBlocks) {
  std::string why;
  const KernelTraits f = tma_kernel(DType::bf16, 2, 128, 64);
  const Problem p144 = spec("fwd_bf16_n2c144k64_h9w9_y3x3_p1");
  EXPECT_EQ(tap_k(f, p144), 192);
  EXPECT_TRUE(can_implement(f, p144, &why)) << why;
  auto plan = make_plan(f, p144);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->params.tap_k, 192);
  EXPECT_EQ(plan->params.gemm_k, 9 * 192);  // the K walk: 3 blocks a tap
  EXPECT_EQ(tap_k(f, spec("fwd_bf16_n2c128k64_h9w9_y3x3_p1")), 0);  // whole blocks
  auto whole = make_plan(f, spec("fwd_bf16_n2c128k64_h9w9_y3x3_p1"));
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->params.tap_k, 0);
  EXPECT_EQ(whole->params.gemm_k, 9 * 128);
  EXPECT_EQ(tap_k(f, spec("fwd_bf16_n2c96k96g2_h7w9_y3x3_p1")), 64);  // C/G = 48: one partial block
  EXPECT_TRUE(can_implement(f, spec("fwd_bf16_n2c96k96g2_h7w9_y3x3_p1"), &why)) << why;
  EXPECT_EQ(tap_k(f, spec("fwd_bf16_n2c40k64_h9w9_y3x3_p1")), 0);  // off 16
  // Pointwise with one group loads flat (zeros past C): no padding; grouped
  // pointwise pads.
  EXPECT_EQ(tap_k(f, spec("fwd_bf16_n2c80k64_h9w9_y1x1_p0")), 0);
  EXPECT_EQ(tap_k(f, spec("fwd_bf16_n2c160k64g2_h9w9_y1x1_p0")), 128);
  // tile_k 128 (two blocks a stage) keeps whole blocks.
  KernelTraits wide = f;
  wide.tile_k = 128;
  EXPECT_EQ(tap_k(wide, p144), 0);
  EXPECT_FALSE(can_implement(wide, p144, &why));
  // tf32: blocks of 32 channels, K steps of 8.
  const KernelTraits f32 = tma_kernel(DType::fp32, 2, 128, 64);
  EXPECT_EQ(tap_k(f32, spec("fwd_fp32_n2c40k64_h9w9_y3x3_p1")), 64);
  EXPECT_EQ(tap_k(f32, spec("fwd_fp32_n2c36k64_h9w9_y3x3_p1")), 0);
  // bwd_data pads K/G (the GEMM's K per flipped tap), strided too.
  KernelTraits bd = f;
  bd.direction = Direction::bwd_data;
  const Problem d144 = spec("bwd_data_bf16_n1c64k144_d3h5w6_z1y3x3_p0,1,1");
  bd.ndim = 3;
  EXPECT_EQ(tap_k(bd, d144), 192);
  EXPECT_TRUE(can_implement(bd, d144, &why)) << why;
  bd.ndim = 2;
  EXPECT_EQ(tap_k(bd, spec("bwd_data_bf16_n2c96k80_h10w10_y3x3_s2_p1")), 128);
  EXPECT_TRUE(can_implement(bd, spec("bwd_data_bf16_n2c96k80_h10w10_y3x3_s2_p1"), &why)) << why;
  EXPECT_EQ(tap_k(bd, spec("bwd_data_bf16_n2c144k64_h9w9_y3x3_p1")), 0);  // K on the block
  // bwd_weight never pads (its C/G rule is about x's 64-column blocks).
  KernelTraits bw = f;
  bw.direction = Direction::bwd_weight;
  EXPECT_EQ(tap_k(bw, spec("bwd_weight_bf16_n2c144k64_h9w9_y3x3_p1")), 0);
  EXPECT_FALSE(can_implement(bw, spec("bwd_weight_bf16_n2c144k64_h9w9_y3x3_p1"), &why));
}

// Pointwise problems loaded flat have one tap, so the channel rules that keep
// a K tile or a 64-column block inside one tap fall away: with one group the
// last K tile of fwd (C) and bwd_data (K) reaches past the channels into the
// maps' zeros; bwd_weight's blocks past C/G are columns that are never stored,
// grouped or not. Grouped fwd / bwd_data would read the next group's
// channels into A against B's zeros (0 * inf is NaN), so they keep the rule.
TEST(WgmmaTma, PointwiseProblemsTakeAnyChannelCount) {
  std::string why;
  const KernelTraits f = tma_kernel(DType::bf16, 2, 128, 128);
  EXPECT_TRUE(can_implement(f, spec("fwd_bf16_n2c40k72_h9w9_y1x1_p0"), &why)) << why;
  EXPECT_TRUE(can_implement(f, spec("fwd_bf16_n2c200k136_h14w14_y1x1_p0"), &why)) << why;
  EXPECT_FALSE(can_implement(f, spec("fwd_bf16_n2c80k72g2_h9w9_y1x1_p0"), &why));
  EXPECT_NE(why.find("a K block must be one filter tap's channels"), std::string::npos) << why;
  EXPECT_FALSE(can_implement(f, spec("fwd_bf16_n2c40k72_h9w9_y1x1_s2_p0"), &why));  // strided: not flat
  EXPECT_FALSE(can_implement(f, spec("fwd_bf16_n2c40k72_h9w9_y3x3_p1"), &why));     // a window
  KernelTraits f32 = tma_kernel(DType::fp32, 2, 128, 64);
  EXPECT_TRUE(can_implement(f32, spec("fwd_fp32_n2c36k20_h9w9_y1x1_p0"), &why)) << why;

  KernelTraits bd = f;
  bd.direction = Direction::bwd_data;
  EXPECT_TRUE(can_implement(bd, spec("bwd_data_bf16_n2c72k40_h9w9_y1x1_p0"), &why)) << why;
  EXPECT_TRUE(can_implement(bd, spec("bwd_data_bf16_n2c64k112_h5w7_y1x1_p0"), &why)) << why;
  EXPECT_FALSE(can_implement(bd, spec("bwd_data_bf16_n2c64k80g2_h9w9_y1x1_p0"), &why));
  EXPECT_FALSE(can_implement(bd, spec("bwd_data_bf16_n2c64k72_h9w9_y1x1_p0,1"), &why));  // padded: not flat

  KernelTraits bw = f;
  bw.direction = Direction::bwd_weight;
  EXPECT_TRUE(can_implement(bw, spec("bwd_weight_bf16_n2c40k24_h9w9_y1x1_p0"), &why)) << why;
  EXPECT_TRUE(can_implement(bw, spec("bwd_weight_bf16_n2c80k48g2_h9w9_y1x1_p0"), &why)) << why;
  EXPECT_FALSE(can_implement(bw, spec("bwd_weight_bf16_n2c40k24_h9w9_y3x3_p1"), &why));
  // bwd_data 1x1 without padding at any stride: phase 0 reads dy's rows in
  // order (N * output pixels of them), the other phases have no K tiles.
  EXPECT_TRUE(flat_ok(spec("bwd_data_bf16_n2c64k128_h9w11_y1x1_s2_p0")));
  EXPECT_FALSE(flat_ok(spec("fwd_bf16_n2c64k128_h9w11_y1x1_s2_p0")));
  EXPECT_FALSE(flat_ok(spec("bwd_data_bf16_n2c64k128_h9w11_y1x1_s2_p1")));
  EXPECT_TRUE(can_implement(bd, spec("bwd_data_bf16_n2c64k128_h9w11_y1x1_s2_p0"), &why)) << why;
  EXPECT_TRUE(can_implement(bd, spec("bwd_data_bf16_n3c72k40_h7w8_y1x1_s3_p0"), &why)) << why;
  EXPECT_TRUE(can_implement(bd, spec("bwd_data_bf16_n1c64k64_h300w300_y1x1_s2_p0"), &why)) << why;  // no im2col box
  EXPECT_FALSE(can_implement(bd, spec("bwd_data_bf16_n2c64k128_h9w11_y3x3_s2_p1"), &why));
  const TmaArgs s2 = a_args(bd, spec("bwd_data_bf16_n2c64k128_h9w11_y1x1_s2_p0"), true);
  EXPECT_FALSE(s2.im2col);
  EXPECT_EQ(s2.dims[0], 128u);           // K
  EXPECT_EQ(s2.dims[1], 2u * 5 * 6);     // N * output pixels
  // The maps end at the channels: the boxes past them are the zeros.
  const Problem p = spec("fwd_bf16_n2c40k72_h9w9_y1x1_p0");
  const TmaArgs a = a_args(f, p, true), b = b_args(f, p, true);
  EXPECT_EQ(a.dims[0], 40u);
  EXPECT_EQ(a.box[0], 64u);
  EXPECT_EQ(b.dims[0], 40u);
  EXPECT_EQ(b.dims[1], 72u);
}

TEST(WgmmaTma, Fp32HasNoBackwardTmaKernels) {
  std::string why;
  KernelTraits bf = tma_kernel(DType::fp32, 2, 128, 64);
  bf.direction = Direction::bwd_weight;
  EXPECT_FALSE(traits_ok(bf, &why));
}

TEST(WgmmaTma, BwdDataIm2colVisitsEveryDxPositionWithFlippedTaps) {
  const Problem p = spec("bwd_data_bf16_n3c48k128g1_h10w13_y3x5_p1:0,2:3_dil2,1");
  const KernelTraits t = [] {
    KernelTraits k = tma_kernel(DType::bf16, 2, 128, 64);
    k.direction = Direction::bwd_data;
    return k;
  }();
  std::string why;
  ASSERT_TRUE(can_implement(t, p, &why)) << why;
  const TmaArgs a = a_args(t, p);
  ASSERT_EQ(a.rank, 4);
  EXPECT_EQ(a.dims[0], 128u);  // dy channels
  EXPECT_EQ(a.dims[1], uint64_t(p.out(2)));
  EXPECT_EQ(a.dims[2], uint64_t(p.out(1)));
  for (int d = 0; d < 2; ++d) {
    const int slot = 2 - d;
    EXPECT_EQ(a.elem_strides[1 + d], 1u);
    // Bases from lower to out - 1 + upper: one per dx position.
    EXPECT_EQ(int64_t(a.dims[1 + d]) - 1 + a.upper[d] - a.lower[d] + 1, p.in[slot]) << "dim " << d;
    EXPECT_EQ(a.lower[d], p.pad_lo[slot] - p.dilation[slot] * (p.filter[slot] - 1));
  }
  EXPECT_EQ(a.channels, 64u);
  EXPECT_EQ(a.pixels, 128u);
  const TmaArgs b = b_args(t, p);
  ASSERT_EQ(b.rank, 3);
  EXPECT_EQ(b.dims[0], 48u);  // C/G
  EXPECT_EQ(b.dims[1], 15u);  // taps
  EXPECT_EQ(b.dims[2], 128u);
  EXPECT_EQ(b.strides[0], 48u * 2);
  EXPECT_EQ(b.strides[1], 15u * 48 * 2);
}

// Strided bwd_data: one dy map for every stride phase. Per slot, phase ph
// holds the dx positions i = ph + s * j (j < in / s) and the taps f with (i +
// pad - f * dil) % s == 0, whose dy coordinate is (i + pad - f * dil) / s.
// The producer (wgmma/produce.cuh PhaseTapWalk) reads it at j + lower +
// offset, the offset being the phase's shift plus t' * dq for the flipped
// tap t' (taps in descending f). Checked against that direct formula for
// every phase, position and tap of odd problems, with the map's bounding box
// (in / s bases a slot) and the im2col offset range.
TEST(WgmmaTma, BwdDataStridePhasesShareOneIm2colMap) {
  KernelTraits t2 = tma_kernel(DType::bf16, 2, 128, 64), t3 = tma_kernel(DType::bf16, 3, 128, 64),
               t1 = tma_kernel(DType::bf16, 1, 128, 64);
  for (KernelTraits* t : {&t1, &t2, &t3}) t->direction = Direction::bwd_data;
  const char* specs[] = {
      "bwd_data_bf16_n2c64k64_h56w56_y3x3_s2_p1",             // ResNet's strided 3x3
      "bwd_data_bf16_n2c64k128_h12w15_y3x3_s3,3_p1:2,0:1_dil2", // stride 3, asymmetric padding, dilation
      "bwd_data_bf16_n2c64k64_h8w8_y1x3_s2_p0,1",             // a phase of H without taps
      "bwd_data_bf16_n2c32k64_h12w12_y5x5_s2_p2",             // 5x5: phases of 3 and 2 taps
      "bwd_data_bf16_n2c32k64_h12w16_y4x4_s4_p0",             // patchify: one tap a phase
      "bwd_data_bf16_n1c64k64_d4h8w8_z3y3x3_s2_p1",           // 3D, 8 phases
      "bwd_data_bf16_n2c64k64_w50_x5_s2_p2",                  // 1D
  };
  for (const char* sp : specs) {
    const Problem p = spec(sp);
    const KernelTraits& t = p.ndim == 1 ? t1 : p.ndim == 2 ? t2 : t3;
    std::string why;
    ASSERT_TRUE(can_implement(t, p, &why)) << sp << ": " << why;
    const PhaseCorners pc = bwd_data_corners(p);
    ASSERT_TRUE(pc.ok) << sp;
    const TmaArgs a = a_args(t, p);
    ASSERT_TRUE(a.im2col);
    for (int d = p.first_slot(); d < 3; ++d) {
      const int64_t s = p.stride[d], f = p.filter[d], pad = p.pad_lo[d], dil = p.dilation[d], J = p.in[d] / s;
      const int i_map = 2 - d;  // the map's spatial dims run W, H, D
      EXPECT_EQ(a.lower[i_map], pc.lower[d]) << sp;
      EXPECT_EQ(a.upper[i_map], pc.upper[d]) << sp;
      EXPECT_EQ(int64_t(a.dims[1 + i_map]) - 1 + a.upper[i_map] - a.lower[i_map] + 1, J) << sp << " slot " << d;
      for (int64_t ph = 0; ph < s; ++ph) {
        std::vector<int64_t> taps;  // descending f: t' = 0, 1, ...
        for (int64_t ft = f - 1; ft >= 0; --ft)
          if ((ph + pad - ft * dil) % s == 0) taps.push_back(ft);
        if (taps.empty()) continue;
        // The phase's own lower corner and step, from its first two taps.
        const int64_t lower_ph = (ph + pad - taps[0] * dil) / s;
        const int64_t dq = taps.size() > 1 ? (taps[0] - taps[1]) * dil / s : 0;
        EXPECT_GE(lower_ph, pc.lower[d]) << sp;
        for (size_t tp = 0; tp < taps.size(); ++tp) {
          const int64_t offset = lower_ph - pc.lower[d] + int64_t(tp) * dq;
          EXPECT_GE(offset, 0) << sp;
          EXPECT_LE(offset, pc.max_offset[d]) << sp;
          for (int64_t j = 0; j < J; ++j) {
            const int64_t i = ph + s * j, num = i + pad - taps[tp] * dil;
            ASSERT_EQ(num % s, 0) << sp;
            EXPECT_EQ(j + pc.lower[d] + offset, num / s) << sp << " slot " << d << " ph " << ph << " j " << j;
          }
        }
      }
    }
  }
  // A stride that does not divide the input extent: phases of unequal size.
  std::string why;
  EXPECT_FALSE(can_implement(t2, spec("bwd_data_bf16_n2c64k64_h9w8_y3x3_s2_p1"), &why));
  EXPECT_NE(why.find("not a multiple of its stride"), std::string::npos) << why;
  EXPECT_FALSE(bwd_data_corners(spec("bwd_data_bf16_n2c64k64_h9w8_y3x3_s2_p1")).ok);
  // 3D corners are 5-bit: a phase shift past 15 leaves the TMA path.
  EXPECT_FALSE(can_implement(t3, spec("bwd_data_bf16_n1c64k64_d40h8w8_z3y3x3_s2_p1_dil20,1,1"), &why));
}

TEST(WgmmaTma, BwdWeightMapsDyAsAMatrixAndXThroughIm2col) {
  const Problem p = spec("bwd_weight_bf16_n5c128k80g2_h11w9_y3x3_s2_p1");
  KernelTraits t = tma_kernel(DType::bf16, 2, 128, 128);
  t.direction = Direction::bwd_weight;
  std::string why;
  ASSERT_TRUE(can_implement(t, p, &why)) << why;
  const TmaArgs a = a_args(t, p);
  ASSERT_EQ(a.rank, 2);
  EXPECT_EQ(a.dims[0], 80u);
  EXPECT_EQ(a.dims[1], uint64_t(5 * p.out_volume()));
  EXPECT_EQ(a.box[0], 64u);
  EXPECT_EQ(a.box[1], 64u);
  const TmaArgs b = b_args(t, p);
  EXPECT_TRUE(b.im2col);
  EXPECT_EQ(b.channels, 64u);
  EXPECT_EQ(b.pixels, 64u);  // tile_k pixels a load
  EXPECT_EQ(b.elem_strides[1], 2u);
}

// The output map of kernels with a staging area of their own: rows of K
// (fwd), C (bwd_data) or C/G * filter (bwd_weight) elements, a box of 128
// bytes x one consumer warpgroup's rows; kernels without the area, strided
// bwd_data and rows that are not a multiple of 16 bytes stay off it.
TEST(WgmmaTma, OutputMapsOfEachDirection) {
  KernelTraits t = tma_kernel(DType::bf16, 2, 128, 256);
  t.warps_m = 2;
  ASSERT_TRUE(epilogue_separate(t));
  std::string why;

  const Problem f = spec("fwd_bf16_n2c64k96g2_h9w7_y3x3_s2_p1_dil1");
  ASSERT_TRUE(out_map_ok(t, f, &why)) << why;
  TmaArgs o = out_args(t, f);
  EXPECT_FALSE(o.im2col);
  ASSERT_EQ(o.rank, 2);
  EXPECT_EQ(o.dims[0], 96u);                                     // K, all groups
  EXPECT_EQ(o.dims[1], uint64_t(2 * f.out_volume()));            // N * output pixels
  EXPECT_EQ(o.strides[0], 96u * 2);
  EXPECT_EQ(o.box[0], 64u);                                      // 128 bytes of bf16
  EXPECT_EQ(o.box[1], 64u);                                      // rows of one consumer warpgroup

  t.direction = Direction::bwd_data;
  const Problem d = spec("bwd_data_bf16_n2c40k64g1_h9w7_y3x3_s1_p1_dil1");
  ASSERT_TRUE(out_map_ok(t, d, &why)) << why;
  o = out_args(t, d);
  EXPECT_EQ(o.dims[0], 40u);
  EXPECT_EQ(o.dims[1], 2u * 9 * 7);
  EXPECT_FALSE(out_map_ok(t, spec("bwd_data_bf16_n2c40k64g1_h9w7_y3x3_s2_p1_dil1"), &why));
  EXPECT_NE(why.find("stride"), std::string::npos) << why;
  EXPECT_FALSE(out_map_ok(t, spec("bwd_data_bf16_n2c36k64g1_h9w7_y3x3_s1_p1_dil1"), &why));  // 72-byte rows
  EXPECT_NE(why.find("16"), std::string::npos) << why;

  // Groups whose columns start off 16-byte boundaries (K/G = 132 bf16).
  t.direction = Direction::fwd;
  EXPECT_FALSE(out_map_ok(t, spec("fwd_bf16_n2c128k264g2_h9w9_y3x3_s1_p1_dil1"), &why));
  EXPECT_NE(why.find("groups"), std::string::npos) << why;
  EXPECT_TRUE(out_map_ok(t, spec("fwd_bf16_n2c128k272g2_h9w9_y3x3_s1_p1_dil1"), &why)) << why;

  t.direction = Direction::bwd_weight;
  const Problem w = spec("bwd_weight_bf16_n2c32k48g2_h9w7_y3x3_s1_p1_dil1");
  ASSERT_TRUE(out_map_ok(t, w, &why)) << why;
  o = out_args(t, w);
  EXPECT_EQ(o.dims[0], 9u * 16);  // C/G * filter
  EXPECT_EQ(o.dims[1], 48u);      // K: the groups' rows one after another

  KernelTraits fp = tma_kernel(DType::fp32, 2, 128, 128);
  fp.tma = false;
  ASSERT_TRUE(epilogue_separate(fp));
  o = out_args(fp, spec("fwd_fp32_n2c64k96g1_h9w7_y3x3_s1_p1_dil1"));
  EXPECT_EQ(o.box[0], 32u);  // 128 bytes of fp32

  KernelTraits small = tma_kernel(DType::bf16, 2, 64, 64);
  ASSERT_FALSE(epilogue_separate(small));
  EXPECT_FALSE(out_map_ok(small, f, &why));
}

// The staging area's columns (WgmmaConfig::kEpiCols, mirrored here; the
// instance source asserts the shared memory agrees): the whole tile where it
// fits beside the ring, else 64-column passes (a 4-stage 128 x 256 ring
// leaves ~20 KB), and no area for split-K or small tiles.
TEST(WgmmaTma, StagingColumnsOfLargeTiles) {
  KernelTraits t = tma_kernel(DType::bf16, 2, 128, 256);
  t.warps_m = 2;
  t.stages = 3;
  EXPECT_EQ(epilogue_columns(t), 256);
  t.stages = 4;
  EXPECT_EQ(epilogue_columns(t), 64);
  EXPECT_TRUE(epilogue_separate(t));
  t.split_mode = SplitKMode::serial;
  t.split_k = 4;
  EXPECT_FALSE(epilogue_separate(t));

  KernelTraits sq = tma_kernel(DType::bf16, 2, 128, 128);
  sq.stages = 5;
  EXPECT_EQ(epilogue_columns(sq), 128);
  sq.stages = 6;
  EXPECT_EQ(epilogue_columns(sq), 64);
  EXPECT_GT(smem_bytes(sq), smem_bytes(tma_kernel(DType::bf16, 2, 128, 128)));
  EXPECT_LE(smem_bytes(sq), igemm::kMaxSmemBytes);
}

// Pointwise problems (every filter extent 1, stride 1, no padding) load the
// im2col operand as a tiled matrix of N * pixels rows: the map's rows are the
// GEMM rows (fwd x, bwd_data dy) or K indices (bwd_weight x), its columns every
// group's channels, a box of one K tile x the tile's rows.
TEST(WgmmaTma, FlatArgumentsOfPointwiseProblems) {
  EXPECT_TRUE(flat_ok(spec("fwd_bf16_n3c128k192g2_h17w23_y1x1_s1_p0_dil2")));
  EXPECT_TRUE(flat_ok(spec("bwd_weight_bf16_n2c64k64g1_d3h5w7_z1y1x1_s1_p0_dil1")));
  EXPECT_FALSE(flat_ok(spec("fwd_bf16_n3c128k192g2_h17w23_y1x1_s2_p0_dil1")));   // strided: rows skip pixels
  EXPECT_FALSE(flat_ok(spec("fwd_bf16_n3c128k192g2_h17w23_y1x1_s1_p1_dil1")));   // padded: rows of zeros
  EXPECT_FALSE(flat_ok(spec("fwd_bf16_n3c128k192g2_h17w23_y1x3_s1_p0,1_dil1")));  // a window

  const Problem f = spec("fwd_bf16_n3c128k192g2_h17w23_y1x1_s1_p0_dil1");
  KernelTraits t = tma_kernel(DType::bf16, 2, 128, 64);
  std::string why;
  ASSERT_TRUE(can_implement(t, f, &why)) << why;
  const TmaArgs a = a_args(t, f, true);
  EXPECT_FALSE(a.im2col);
  ASSERT_EQ(a.rank, 2);
  EXPECT_EQ(a.dims[0], 128u);            // C, all groups
  EXPECT_EQ(a.dims[1], 3u * 17 * 23);    // N * pixels
  EXPECT_EQ(a.strides[0], 128u * 2);
  EXPECT_EQ(a.box[0], 64u);              // tile_k channels
  EXPECT_EQ(a.box[1], 128u);             // tile_m rows
  EXPECT_EQ(a.elem_strides[0], 1u);
  EXPECT_EQ(a.elem_strides[1], 1u);
  // The weights' map does not change.
  const TmaArgs b0 = b_args(t, f), b1 = b_args(t, f, true);
  EXPECT_EQ(b1.dims[0], b0.dims[0]);
  EXPECT_EQ(b1.box[1], b0.box[1]);

  const Problem d = spec("bwd_data_bf16_n2c64k128g1_d3h5w7_z1y1x1_s1_p0_dil1");
  t = tma_kernel(DType::bf16, 3, 128, 64);
  t.direction = Direction::bwd_data;
  ASSERT_TRUE(can_implement(t, d, &why)) << why;
  const TmaArgs ad = a_args(t, d, true);
  EXPECT_FALSE(ad.im2col);
  EXPECT_EQ(ad.dims[0], 128u);           // K: dy's channels
  EXPECT_EQ(ad.dims[1], 2u * 3 * 5 * 7);
  EXPECT_EQ(ad.box[0], 64u);
  EXPECT_EQ(ad.box[1], 128u);

  const Problem w = spec("bwd_weight_bf16_n4c192k192g3_h9w11_y1x1_s1_p0_dil1");
  t = tma_kernel(DType::bf16, 2, 64, 64);
  t.direction = Direction::bwd_weight;
  ASSERT_TRUE(can_implement(t, w, &why)) << why;
  const TmaArgs bw = b_args(t, w, true);
  EXPECT_FALSE(bw.im2col);
  EXPECT_EQ(bw.dims[0], 192u);           // C, all groups
  EXPECT_EQ(bw.dims[1], 4u * 9 * 11);    // K indices: output pixels = input pixels
  EXPECT_EQ(bw.strides[0], 192u * 2);
  EXPECT_EQ(bw.box[0], 64u);
  EXPECT_EQ(bw.box[1], 64u);             // tile_k pixels
  // dy's map (A) is tiled either way.
  EXPECT_EQ(a_args(t, w, true).dims[1], a_args(t, w).dims[1]);
}

// One box of several 64-channel blocks: (64 channels, rows, blocks 128 bytes
// apart), so that a box lands as the tile's [block][row][128 bytes] layout.
TEST(WgmmaTma, ChannelBlockBoxes) {
  const Problem w = spec("bwd_weight_bf16_n4c256k384g2_h9w11_y3x3_s1_p1_dil1");
  KernelTraits t = tma_kernel(DType::bf16, 2, 128, 128);
  t.direction = Direction::bwd_weight;
  EXPECT_FALSE(dy_blocks_ok(t, w));                            // K/G = 192: the second tile half outside
  EXPECT_TRUE(dy_blocks_ok(t, spec("bwd_weight_bf16_n4c256k512g2_h9w11_y3x3_s1_p1_dil1")));  // K/G = 256
  EXPECT_FALSE(x_blocks_ok(t, w, false));                      // x through im2col: a 3x3 window
  const TmaArgs a = blocks_args(t, w, w.k, t.tile_m / 64);
  ASSERT_EQ(a.rank, 3);
  EXPECT_EQ(a.dims[0], 64u);
  EXPECT_EQ(a.dims[1], uint64_t(4 * 9 * 11));                  // output pixels
  EXPECT_EQ(a.dims[2], 384u / 64);
  EXPECT_EQ(a.strides[0], 384u * 2);                           // next pixel
  EXPECT_EQ(a.strides[1], 128u);                               // next block
  EXPECT_EQ(a.box[1], 64u);                                    // tile_k
  EXPECT_EQ(a.box[2], 2u);
  EXPECT_FALSE(dy_blocks_ok(t, spec("bwd_weight_bf16_n4c256k192g2_h9w11_y3x3_s1_p1_dil1")));  // K/G = 96
  EXPECT_FALSE(x_blocks_ok(t, spec("bwd_weight_bf16_n4c128k512g2_h9w11_y1x1_s1_p0_dil1"), true));  // C/G = 64
  t.tile_m = 64;
  EXPECT_FALSE(dy_blocks_ok(t, spec("bwd_weight_bf16_n4c256k512g2_h9w11_y3x3_s1_p1_dil1")));  // one block a tile

  const Problem d = spec("bwd_data_bf16_n2c256k128g2_h9w9_y3x3_s1_p1_dil1");
  t = tma_kernel(DType::bf16, 2, 128, 128);
  t.direction = Direction::bwd_data;
  EXPECT_TRUE(w_blocks_ok(t, d));                              // C/G = 128
  const TmaArgs b = w_blocks_args(t, d);
  ASSERT_EQ(b.rank, 4);
  EXPECT_EQ(b.dims[0], 64u);
  EXPECT_EQ(b.dims[1], 9u);                                    // taps
  EXPECT_EQ(b.dims[2], 128u);                                  // K
  EXPECT_EQ(b.dims[3], 2u);                                    // C/G / 64
  EXPECT_EQ(b.strides[0], 128u * 2);                           // next tap: C/G elements
  EXPECT_EQ(b.strides[1], 9u * 128 * 2);                       // next k
  EXPECT_EQ(b.strides[2], 128u);                               // next block
  EXPECT_EQ(b.box[2], 64u);
  EXPECT_EQ(b.box[3], 2u);
  EXPECT_FALSE(w_blocks_ok(t, spec("bwd_data_bf16_n2c192k128g2_h9w9_y3x3_s1_p1_dil1")));  // C/G = 96
  EXPECT_FALSE(w_blocks_ok(t, spec("bwd_data_bf16_n2c128k128g2_h9w9_y3x3_s1_p1_dil1")));  // C/G = 64: one block
}

}  // namespace
}  // namespace gconv::wgmma
