// Properties of the reference that hold for every problem: the three
// directions are adjoint, a grouped convolution is G dense ones, padding is
// the same as zero-filled input, a strided output is the stride-1 output
// subsampled, and threading does not change a single bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ref_test_util.hpp"

namespace gconv::reftest {
namespace {

// Hand-picked cases that must be in the adjoint set whatever the random draw.
std::vector<Problem> adjoint_problems() {
  std::vector<Problem> ps = {
      make_problem(2, 3, 4, 1, {11}, {3}),                                   // 1D dense
      make_problem(1, 4, 6, 2, {9, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}),      // 2D grouped, stride 2
      make_problem(2, 6, 6, 6, {8, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}),      // depthwise
      make_problem(1, 5, 5, 5, {10, 11}, {5, 5}, {3, 3}, {2, 1}, {0, 2}),    // depthwise, stride 3, asym pad
      make_problem(1, 4, 3, 1, {7, 12}, {1, 7}, {1, 1}, {0, 3}, {0, 3}),     // 1x7
      make_problem(1, 4, 4, 1, {12, 6}, {7, 1}, {1, 1}, {3, 0}, {3, 0}),     // 7x1
      make_problem(1, 3, 2, 1, {9, 9}, {3, 3}, {1, 1}, {2, 2}, {2, 2}, {2, 2}),  // dilation 2
      make_problem(2, 4, 4, 2, {10, 10}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {2, 2}),  // stride 2 + dil 2 + asym
      make_problem(1, 6, 9, 3, {5, 5, 6}, {3, 3, 3}, {1, 2, 3}, {1, 0, 2}, {1, 2, 0}),  // 3D grouped
      make_problem(1, 4, 4, 4, {4, 6, 5}, {2, 3, 3}, {2, 1, 1}, {0, 1, 1}, {1, 1, 1}, {1, 2, 1}),  // 3D dw
      make_problem(3, 2, 3, 1, {16}, {7}, {3}, {2}, {4}, {2}),               // 1D, every knob
      make_problem(1, 8, 8, 4, {13}, {4}, {2}, {0}, {3}),                    // even filter, asym
  };
  Rng r(20240611);
  while (ps.size() < 60) ps.push_back(random_problem(r));
  return ps;
}

double rel_diff(double a, double b) {
  const double scale = std::max(std::fabs(a), std::fabs(b));
  return scale == 0 ? 0 : std::fabs(a - b) / scale;
}

TEST(ReferenceIdentity, DirectionsAreAdjoint) {
  uint64_t seed = 1;
  int covered_groups = 0, covered_depthwise = 0, covered_3d = 0, covered_1d = 0;
  for (const Problem& p : adjoint_problems()) {
    SCOPED_TRACE(p.to_spec());
    const Vec x = random_vec(x_size(p), seed++);
    const Vec w = random_vec(w_size(p), seed++);
    const Vec dy = random_vec(y_size(p), seed++);
    const double y_dy = inner(fwd(p, x, w), dy);
    const double x_dx = inner(x, bwd_data(p, dy, w));
    const double w_dw = inner(w, bwd_weight(p, x, dy));
    // Guard against a vacuous check (an all-zero output would pass trivially).
    EXPECT_GT(std::fabs(y_dy), 1e-6);
    EXPECT_LT(rel_diff(y_dy, x_dx), 1e-12) << y_dy << " vs " << x_dx;
    EXPECT_LT(rel_diff(y_dy, w_dw), 1e-12) << y_dy << " vs " << w_dw;
    covered_groups += p.is_grouped();
    covered_depthwise += p.is_depthwise();
    covered_3d += p.ndim == 3;
    covered_1d += p.ndim == 1;
  }
  EXPECT_GE(covered_groups, 5);
  EXPECT_GE(covered_depthwise, 5);
  EXPECT_GE(covered_3d, 5);
  EXPECT_GE(covered_1d, 5);
}

// Per-group slices of a channels-last tensor: channels [g*per, (g+1)*per) of
// every pixel.
Vec slice_channels(const Vec& t, int64_t channels, int64_t g, int64_t per) {
  Vec out;
  for (size_t pix = 0; pix < t.size() / channels; ++pix)
    for (int64_t j = 0; j < per; ++j) out.push_back(t[pix * channels + g * per + j]);
  return out;
}
// Rows [g*per, (g+1)*per) of the weight (K is outermost, so a contiguous block).
Vec slice_rows(const Vec& w, int64_t row_len, int64_t g, int64_t per) {
  return Vec(w.begin() + g * per * row_len, w.begin() + (g + 1) * per * row_len);
}

void expect_close(const Vec& got, const Vec& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-13 * (1 + std::fabs(want[i]))) << what << " element " << i;
}

TEST(ReferenceIdentity, GroupedEqualsSeparateDenseConvolutions) {
  std::vector<Problem> ps = {
      make_problem(2, 6, 4, 2, {7, 6}, {3, 3}, {2, 1}, {1, 0}, {0, 1}),
      make_problem(1, 9, 6, 3, {4, 5, 5}, {2, 3, 3}, {1, 2, 1}, {0, 1, 1}, {1, 1, 1}, {2, 1, 2}),
      make_problem(2, 5, 10, 5, {15}, {7}, {3}, {3}, {1}),  // depthwise with multiplier 2
      make_problem(1, 4, 4, 4, {8, 8}, {3, 3}, {1, 1}, {2, 2}, {2, 2}, {2, 2}),
  };
  Rng r(77);
  while (ps.size() < 12) {
    Problem p = random_problem(r);
    if (p.g > 1) ps.push_back(p);
  }
  uint64_t seed = 1000;
  for (const Problem& p : ps) {
    SCOPED_TRACE(p.to_spec());
    const int64_t cg = p.c_per_group(), kg = p.k_per_group(), tap_row = p.filter_volume() * cg;
    const Vec x = random_vec(x_size(p), seed++);
    const Vec w = random_vec(w_size(p), seed++);
    const Vec dy = random_vec(y_size(p), seed++);
    const Vec y = fwd(p, x, w), dx = bwd_data(p, dy, w), dw = bwd_weight(p, x, dy);
    Problem dense = p;
    dense.g = 1, dense.c = cg, dense.k = kg;
    for (int64_t g = 0; g < p.g; ++g) {
      const Vec xg = slice_channels(x, p.c, g, cg);
      const Vec dyg = slice_channels(dy, p.k, g, kg);
      const Vec wg = slice_rows(w, tap_row, g, kg);
      expect_close(slice_channels(y, p.k, g, kg), fwd(dense, xg, wg), "fwd");
      expect_close(slice_channels(dx, p.c, g, cg), bwd_data(dense, dyg, wg), "bwd_data");
      expect_close(slice_rows(dw, tap_row, g, kg), bwd_weight(dense, xg, dyg), "bwd_weight");
    }
  }
}

// fwd with padding == fwd without padding on an explicitly zero-padded copy.
TEST(ReferenceIdentity, PaddingIsZeroFill) {
  Rng r(4242);
  uint64_t seed = 5000;
  for (int trial = 0; trial < 12; ++trial) {
    const Problem p = random_problem(r);
    SCOPED_TRACE(p.to_spec());
    Problem q = p;
    for (int i = 0; i < 3; ++i) {
      q.in[i] = p.in[i] + p.pad_lo[i] + p.pad_hi[i];
      q.pad_lo[i] = q.pad_hi[i] = 0;
    }
    const Vec x = random_vec(x_size(p), seed++);
    const Vec w = random_vec(w_size(p), seed++);
    Vec xq(static_cast<size_t>(x_size(q)), 0.0);
    for (int64_t b = 0; b < p.n; ++b)
      for (int64_t d = 0; d < p.in[0]; ++d)
        for (int64_t h = 0; h < p.in[1]; ++h)
          for (int64_t wi = 0; wi < p.in[2]; ++wi) {
            const int64_t src = (((b * p.in[0] + d) * p.in[1] + h) * p.in[2] + wi) * p.c;
            const int64_t dst = (((b * q.in[0] + d + p.pad_lo[0]) * q.in[1] + h + p.pad_lo[1]) * q.in[2] +
                                 wi + p.pad_lo[2]) * p.c;
            std::copy(x.begin() + src, x.begin() + src + p.c, xq.begin() + dst);
          }
    ASSERT_EQ(q.out_volume(), p.out_volume());
    expect_close(fwd(p, x, w), fwd(q, xq, w), "padded fwd");
  }
}

// A stride-s output is the stride-1 output taken at every s-th position.
TEST(ReferenceIdentity, StrideSubsamples) {
  const Problem p = make_problem(2, 4, 6, 2, {5, 7, 9}, {2, 3, 3}, {2, 3, 2}, {1, 1, 0}, {0, 2, 1}, {1, 1, 2});
  Problem unit = p;
  unit.stride = {1, 1, 1};
  const Vec x = random_vec(x_size(p), 1), w = random_vec(w_size(p), 2);
  const Vec y = fwd(p, x, w), y1 = fwd(unit, x, w);
  for (int64_t b = 0; b < p.n; ++b)
    for (int64_t d = 0; d < p.out(0); ++d)
      for (int64_t h = 0; h < p.out(1); ++h)
        for (int64_t wi = 0; wi < p.out(2); ++wi)
          for (int64_t k = 0; k < p.k; ++k) {
            const int64_t at = (((b * p.out(0) + d) * p.out(1) + h) * p.out(2) + wi) * p.k + k;
            const int64_t at1 = (((b * unit.out(0) + d * p.stride[0]) * unit.out(1) + h * p.stride[1]) *
                                     unit.out(2) + wi * p.stride[2]) * p.k + k;
            ASSERT_EQ(y[at], y1[at1]) << "at " << at;
          }
}

// Every output element is summed by one thread in a fixed order.
TEST(ReferenceIdentity, ThreadCountDoesNotChangeBits) {
  const Problem p = make_problem(2, 6, 6, 3, {9, 10}, {3, 3}, {2, 1}, {1, 1}, {1, 1});
  const Vec x = random_vec(x_size(p), 11), w = random_vec(w_size(p), 12), dy = random_vec(y_size(p), 13);
  for (Direction d : {Direction::fwd, Direction::bwd_data, Direction::bwd_weight}) {
    const Vec& a = d == Direction::bwd_data ? dy : x;
    const Vec& b = d == Direction::fwd ? w : d == Direction::bwd_data ? w : dy;
    const Vec one = run_f64(p, d, a, b, 1);
    for (int threads : {2, 3, 7}) EXPECT_EQ(run_f64(p, d, a, b, threads), one) << to_string(d) << " " << threads;
    // Absurd thread counts are clamped (they ended the process through
    // std::terminate when thread creation failed), with the same result.
    for (int threads : {50000, std::numeric_limits<int>::max()})
      EXPECT_EQ(run_f64(p, d, a, b, threads), one) << to_string(d) << " " << threads;
  }
}

TEST(ReferenceIdentity, RejectsInvalidInput) {
  Problem bad = make_problem(1, 6, 4, 4, {8}, {3});  // C not divisible by G
  double buf[64] = {};
  double out[64];
  std::fill(out, out + 64, 7.0);
  EXPECT_EQ(reference_conv_f64(bad, buf, buf, out).code(), StatusCode::invalid_problem);
  EXPECT_EQ(out[0], 7.0);  // nothing written
  const Problem ok = make_problem(1, 2, 2, 1, {4}, {3});
  EXPECT_EQ(reference_conv_f64(ok, nullptr, buf, out).code(), StatusCode::invalid_argument);
  EXPECT_EQ(reference_conv_f64(ok, buf, buf, nullptr).code(), StatusCode::invalid_argument);
  EXPECT_EQ(reference_conv(ok, buf, nullptr, out).code(), StatusCode::invalid_argument);
}

}  // namespace
}  // namespace gconv::reftest
