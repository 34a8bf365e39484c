// Small convolutions worked out by hand (exact expected values), and the
// typed-storage variant against the fp64 one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ref_test_util.hpp"

namespace gconv::reftest {
namespace {

// 1D, one channel: x = 1..5, w = [1, 0, -1], pad 1. Cross-correlation (no
// flip): y[o] = x[o-1] - x[o+1].
TEST(ReferenceCases, OneDimensionalWithPadding) {
  const Problem p = make_problem(1, 1, 1, 1, {5}, {3}, {1}, {1}, {1});
  const Vec x = {1, 2, 3, 4, 5}, w = {1, 0, -1}, dy = {1, 1, 1, 1, 1};
  EXPECT_EQ(fwd(p, x, w), (Vec{-2, -2, -2, -2, 4}));
  // dx[i] = sum_o dy[o] * w[i + 1 - o]
  EXPECT_EQ(bwd_data(p, dy, w), (Vec{1, 0, 0, 0, -1}));
  // dw[t] = sum_o dy[o] * x[o - 1 + t]: sums of x[-1..3], x[0..4], x[1..5]
  EXPECT_EQ(bwd_weight(p, x, dy), (Vec{10, 15, 14}));
}

// Channel and weight layouts: x is (W, C), w is (K, X, C/G).
TEST(ReferenceCases, ChannelLayouts) {
  const Vec x = {1, 2, 3, 4};  // W=2, C=2: pixel 0 = (1, 2), pixel 1 = (3, 4)
  const Problem dense = make_problem(1, 2, 2, 1, {2}, {1});
  EXPECT_EQ(fwd(dense, x, Vec{1, 10, 100, 1000}), (Vec{21, 2100, 43, 4300}));
  // G=2: output channel k sees only input channel k.
  const Problem grouped = make_problem(1, 2, 2, 2, {2}, {1});
  EXPECT_EQ(fwd(grouped, x, Vec{5, 7}), (Vec{5, 14, 15, 28}));
  EXPECT_EQ(bwd_data(grouped, Vec{1, 2, 3, 4}, Vec{5, 7}), (Vec{5, 14, 15, 28}));
  // dw[k] = sum_w dy[w,k] * x[w,k] = 1*1 + 3*3 and 2*2 + 4*4
  EXPECT_EQ(bwd_weight(grouped, x, Vec{1, 2, 3, 4}), (Vec{10, 20}));
}

// 2D 3x3, pad 1, an asymmetric filter so a flipped kernel or a swapped axis
// shows: w has 1 at (0,0) and 2 at (2,2), so y[i][j] = x[i-1][j-1] + 2 x[i+1][j+1].
TEST(ReferenceCases, TwoDimensional3x3Padded) {
  const Problem p = make_problem(1, 1, 1, 1, {3, 3}, {3, 3}, {1, 1}, {1, 1}, {1, 1});
  const Vec x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const Vec w = {1, 0, 0, 0, 0, 0, 0, 0, 2};
  EXPECT_EQ(fwd(p, x, w), (Vec{10, 12, 0, 16, 19, 2, 0, 4, 5}));
  // All-ones filter: sums of the 3x3 neighbourhoods.
  EXPECT_EQ(fwd(p, x, Vec(9, 1.0)), (Vec{12, 21, 16, 27, 45, 33, 24, 39, 28}));
}

// Stride 2, dilation 2, pad_lo 1, pad_hi 0: y[o] = x[2o-1] + 10 x[2o+1].
TEST(ReferenceCases, StrideTwoDilationTwoAsymmetricPad) {
  const Vec x = {1, 2, 3, 4, 5, 6, 7, 8}, w = {1, 10};
  const Problem no_pad = make_problem(1, 1, 1, 1, {8}, {2}, {2}, {0}, {0}, {2});
  EXPECT_EQ(fwd(no_pad, x, w), (Vec{31, 53, 75}));  // x[2o] + 10 x[2o+2]
  const Problem p = make_problem(1, 1, 1, 1, {8}, {2}, {2}, {1}, {0}, {2});
  ASSERT_EQ(p.out(2), 4);
  EXPECT_EQ(fwd(p, x, w), (Vec{20, 42, 64, 86}));
  const Vec dy = {1, 2, 3, 4};
  // Only odd positions are reached: dx[i] = dy[(i+1)/2] + 10 dy[(i-1)/2].
  EXPECT_EQ(bwd_data(p, dy, w), (Vec{0, 12, 0, 23, 0, 34, 0, 40}));
  // dw[t] = sum_o dy[o] x[2o - 1 + 2t]
  EXPECT_EQ(bwd_weight(p, x, dy), (Vec{40, 60}));
}

// 3D, two output channels: the all-ones filter sums the 2x2x2 cube, the
// second filter picks its last corner.
TEST(ReferenceCases, ThreeDimensional) {
  const Problem p = make_problem(1, 1, 2, 1, {2, 2, 2}, {2, 2, 2});
  const Vec x = {1, 2, 3, 4, 5, 6, 7, 8};
  Vec w(16, 0.0);
  for (int i = 0; i < 8; ++i) w[i] = 1;
  w[15] = 1;
  EXPECT_EQ(fwd(p, x, w), (Vec{36, 8}));
  EXPECT_EQ(bwd_weight(p, x, Vec{1, 2}), (Vec{1, 2, 3, 4, 5, 6, 7, 8, 2, 4, 6, 8, 10, 12, 14, 16}));
}

// Typed storage: inputs representable in the dtype, fp64 accumulation, one
// rounding of the output. So the typed result is the fp64 result rounded,
// within half an ulp of the dtype.
TEST(ReferenceCases, TypedStorageMatchesFp64WithinOutputRounding) {
  struct Case {
    DType t;
    double half_ulp_rel;  // 2^-(significand bits)
    double min_sub_half;  // half the smallest subnormal
  };
  const Case cases[] = {{DType::bf16, 0x1p-8, 0x1p-134}, {DType::fp16, 0x1p-11, 0x1p-25},
                        {DType::fp32, 0x1p-24, 0x1p-150}};
  Rng r(99);
  std::vector<Problem> ps = {make_problem(2, 8, 8, 2, {6, 7}, {3, 3}, {2, 1}, {1, 1}, {0, 1})};
  while (ps.size() < 4) ps.push_back(random_problem(r));
  uint64_t seed = 300;
  for (const Case& c : cases)
    for (const Problem& base : ps)
      for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight}) {
        Problem p = with_direction(base, d);
        p.dtype = c.t;
        SCOPED_TRACE(p.to_spec());
        const ReferenceOperands n = reference_operands(p);
        const int bytes = dtype_bytes(c.t);
        std::vector<unsigned char> a(n.a * bytes), b(n.b * bytes), out(n.out * bytes);
        fill_random(c.t, a.data(), n.a, seed);
        fill_random(c.t, b.data(), n.b, seed + 1);
        Vec a64(n.a), b64(n.b), out64(n.out);
        load_buffer(c.t, a.data(), n.a, a64.data());
        load_buffer(c.t, b.data(), n.b, b64.data());
        seed += 2;
        ASSERT_TRUE(reference_conv(p, a.data(), b.data(), out.data()).ok());
        ASSERT_TRUE(reference_conv_f64(p, a64.data(), b64.data(), out64.data()).ok());
        for (int64_t i = 0; i < n.out; ++i) {
          const double got = load_element(c.t, out.data(), i), want = out64[i];
          ASSERT_LE(std::fabs(got - want), c.half_ulp_rel * std::fabs(want) + c.min_sub_half) << "element " << i;
          ASSERT_EQ(got, round_to(c.t, want)) << "element " << i;
        }
      }
}

}  // namespace
}  // namespace gconv::reftest
