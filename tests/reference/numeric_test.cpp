// bf16 / fp16 conversions against known bit patterns, exhaustive round trips,
// an independent rounding oracle, and the random fills.
#include "gconv/numeric.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace gconv {
namespace {

float f_of(uint32_t u) { return std::bit_cast<float>(u); }
uint32_t u_of(float f) { return std::bit_cast<uint32_t>(f); }
bool bf16_is_nan(uint16_t h) { return (h & 0x7F80) == 0x7F80 && (h & 0x007F) != 0; }
bool fp16_is_nan(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0; }

TEST(Numeric, Bf16KnownPatterns) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bf16(-2.5f), 0xC020);
  EXPECT_EQ(float_to_bf16(0.0f), 0x0000);
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000);
  EXPECT_EQ(bf16_to_float(0x7F7F), f_of(0x7F7F0000));  // max finite, 3.3895e38
  EXPECT_EQ(float_to_bf16(f_of(0x7F7F0000)), 0x7F7F);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7F80);  // rounds up to inf
  EXPECT_EQ(bf16_to_float(0x0001), std::ldexp(1.0f, -133));             // min subnormal
  EXPECT_EQ(float_to_bf16(std::ldexp(1.0f, -133)), 0x0001);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(float_to_bf16(-std::numeric_limits<float>::infinity()), 0xFF80);
  EXPECT_TRUE(bf16_is_nan(float_to_bf16(std::numeric_limits<float>::quiet_NaN())));
  // A NaN whose payload sits only in the dropped bits must not become inf.
  EXPECT_TRUE(bf16_is_nan(float_to_bf16(f_of(0x7F800001))));
  EXPECT_TRUE(bf16_is_nan(float_to_bf16(f_of(0xFF800001))));
  EXPECT_EQ(float_to_bf16(f_of(0xFF800001)) & 0x8000, 0x8000);  // sign kept
  // Ties to even: 1 + 2^-8 is halfway between 1 and 1 + 2^-7.
  EXPECT_EQ(float_to_bf16(f_of(0x3F808000)), 0x3F80);  // down to even
  EXPECT_EQ(float_to_bf16(f_of(0x3F818000)), 0x3F82);  // up to even
  EXPECT_EQ(float_to_bf16(f_of(0x3F808001)), 0x3F81);  // above the tie
  EXPECT_EQ(float_to_bf16(f_of(0x3F807FFF)), 0x3F80);  // below the tie
}

TEST(Numeric, Fp16KnownPatterns) {
  EXPECT_EQ(float_to_fp16(1.0f), 0x3C00);
  EXPECT_EQ(float_to_fp16(-2.5f), 0xC100);
  EXPECT_EQ(float_to_fp16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7BFF);  // max finite
  EXPECT_EQ(fp16_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(float_to_fp16(65519.0f), 0x7BFF);  // below the tie
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7C00);  // tie between 65504 and 2^16: even is inf
  EXPECT_EQ(float_to_fp16(1e6f), 0x7C00);
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -24)), 0x0001);  // min subnormal
  EXPECT_EQ(fp16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fp16_to_float(0x03FF), std::ldexp(1023.0f, -24));  // max subnormal
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -14)), 0x0400);     // min normal
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -25)), 0x0000);     // tie to even (0)
  EXPECT_EQ(float_to_fp16(-std::ldexp(1.0f, -25)), 0x8000);
  EXPECT_EQ(float_to_fp16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(float_to_fp16(std::ldexp(3.0f, -25)), 0x0002);     // 1.5 units: tie up to even
  EXPECT_EQ(float_to_fp16(std::ldexp(5.0f, -25)), 0x0002);     // 2.5 units: tie down to even
  EXPECT_EQ(float_to_fp16(std::ldexp(2047.0f, -25)), 0x0400);  // 1023.5 units: rounds into normal
  EXPECT_EQ(float_to_fp16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(float_to_fp16(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(float_to_fp16(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_TRUE(fp16_is_nan(float_to_fp16(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(fp16_is_nan(float_to_fp16(f_of(0x7F800001))));
  EXPECT_TRUE(std::isinf(fp16_to_float(0x7C00)));
  EXPECT_TRUE(std::isnan(fp16_to_float(0x7E00)));
  EXPECT_TRUE(std::isnan(fp16_to_float(0x7C01)));
  // Ties to even at 1: ulp 2^-10.
  EXPECT_EQ(float_to_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(float_to_fp16(1.0f + std::ldexp(3.0f, -11)), 0x3C02);
}

// Widening is exact and narrowing inverts it, for every 16-bit pattern.
TEST(Numeric, ExhaustiveRoundTrips) {
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    const auto b = static_cast<uint16_t>(h);
    if (bf16_is_nan(b)) {
      EXPECT_TRUE(std::isnan(bf16_to_float(b)));
      EXPECT_TRUE(bf16_is_nan(float_to_bf16(bf16_to_float(b))));
    } else {
      ASSERT_EQ(float_to_bf16(bf16_to_float(b)), b) << std::hex << h;
    }
    if (fp16_is_nan(b)) {
      EXPECT_TRUE(std::isnan(fp16_to_float(b)));
      EXPECT_TRUE(fp16_is_nan(float_to_fp16(fp16_to_float(b))));
    } else {
      ASSERT_EQ(float_to_fp16(fp16_to_float(b)), b) << std::hex << h;
    }
  }
  // Ordering: consecutive positive finite fp16 patterns are increasing.
  for (uint16_t h = 1; h < 0x7C00; ++h) ASSERT_LT(fp16_to_float(h - 1), fp16_to_float(h));
}

// Oracle for one RNE rounding of d to a 16-bit format: the two neighbours
// lo < d < hi and their midpoint are exact in double, so plain comparisons
// decide. `to` and `from` convert between the format and float.
template <class To, class From>
uint16_t oracle_round(double d, To to, From from) {
  const uint16_t trunc = to(static_cast<float>(d));  // within one step of the answer
  uint16_t best = trunc;
  double best_err = std::fabs(static_cast<double>(from(trunc)) - d);
  for (int delta : {-1, 1}) {
    const auto cand = static_cast<uint16_t>(trunc + delta);
    const double v = from(cand);
    if (std::isnan(v) || ((cand ^ trunc) & 0x8000)) continue;  // don't cross sign or into NaN
    const double err = std::fabs(v - d);
    if (err < best_err || (err == best_err && (cand & 1) == 0)) best = cand, best_err = err;
  }
  return best;
}

// double -> 16 bit must round once: 1 + 2^-8 + 2^-30 is just above a bf16 tie,
// but (float) of it lands exactly on the tie and would round down.
TEST(Numeric, DoubleNarrowingRoundsOnce) {
  const double above_tie = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(double_to_bf16(above_tie), 0x3F81);
  EXPECT_EQ(float_to_bf16(static_cast<float>(above_tie)), 0x3F80);  // the double-rounding trap
  EXPECT_EQ(double_to_fp16(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3C01);
  EXPECT_EQ(double_to_bf16(1e300), 0x7F80);
  EXPECT_EQ(double_to_fp16(-1e300), 0xFC00);
  EXPECT_TRUE(bf16_is_nan(double_to_bf16(std::nan(""))));
  // Random doubles near 16-bit ties, in normal and subnormal ranges.
  uint64_t s = 12345;
  for (int i = 0; i < 200000; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const int e = static_cast<int>((s >> 33) % 40) - 30;
    const double frac = 1.0 + static_cast<double>(s >> 11 & 0xFFFF) * 0x1p-16 +
                        static_cast<double>(static_cast<int64_t>(s >> 40 & 0xFF) - 128) * 0x1p-50;
    const double d = ((s >> 63) ? -1 : 1) * std::ldexp(frac, e);
    ASSERT_EQ(double_to_bf16(d), oracle_round(d, float_to_bf16, bf16_to_float)) << d;
    if (std::fabs(d) < 65504) {
      ASSERT_EQ(double_to_fp16(d), oracle_round(d, float_to_fp16, fp16_to_float)) << d;
    }
  }
}

#if defined(__FLT16_MAX__)
// The compiler's own _Float16 conversions (libgcc, correctly rounded) as a
// second, independent oracle.
TEST(Numeric, Fp16MatchesCompilerFloat16) {
  uint64_t s = 777;
  for (int i = 0; i < 300000; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const float f = f_of(static_cast<uint32_t>(s >> 32));
    if (std::isnan(f)) continue;
    const auto want = std::bit_cast<uint16_t>(static_cast<_Float16>(f));
    ASSERT_EQ(float_to_fp16(f), want) << std::hex << u_of(f);
    const double d = std::ldexp(static_cast<double>(s >> 11), -53 - static_cast<int>(s % 20));
    ASSERT_EQ(double_to_fp16(d), std::bit_cast<uint16_t>(static_cast<_Float16>(d))) << d;
  }
}
#endif

TEST(Numeric, ElementAccessAndRoundTo) {
  std::vector<uint16_t> h(3);
  store_element(DType::bf16, h.data(), 1, -2.5);
  EXPECT_EQ(h[1], 0xC020);
  EXPECT_EQ(load_element(DType::bf16, h.data(), 1), -2.5);
  store_element(DType::fp16, h.data(), 2, 65520.0);
  EXPECT_TRUE(std::isinf(load_element(DType::fp16, h.data(), 2)));
  std::vector<float> f(2);
  store_element(DType::fp32, f.data(), 0, 0.1);
  EXPECT_EQ(f[0], 0.1f);
  EXPECT_EQ(round_to(DType::fp32, 0.1), static_cast<double>(0.1f));
  EXPECT_EQ(round_to(DType::bf16, 1.0 + std::ldexp(1.0, -9)), 1.0);
  EXPECT_EQ(round_to(DType::fp16, 1.0 + std::ldexp(1.0, -9)), 1.0 + std::ldexp(1.0, -9));
}

TEST(Numeric, RandomFillIsDeterministicBoundedNonZero) {
  constexpr int64_t n = 20000;
  for (DType t : {DType::bf16, DType::fp16, DType::fp32}) {
    std::vector<uint32_t> buf(n), again(n), other(n);
    fill_random(t, buf.data(), n, 42);
    fill_random(t, again.data(), n, 42);
    fill_random(t, other.data(), n, 43);
    EXPECT_EQ(buf, again);
    EXPECT_NE(buf, other);
    std::vector<double> f64(n);
    fill_random_f64(f64.data(), n, 42, t);
    double sum = 0, min = 2, max = -2;
    for (int64_t i = 0; i < n; ++i) {
      const double v = load_element(t, buf.data(), i);
      ASSERT_NE(v, 0.0);
      ASSERT_LE(std::fabs(v), 1.0);
      ASSERT_EQ(v, f64[i]);  // the fp64 fill holds the same values
      sum += v, min = std::min(min, v), max = std::max(max, v);
    }
    EXPECT_LT(std::fabs(sum / n), 0.03);  // mean of U(-1,1): 0 +- 0.004 (1 sigma)
    EXPECT_LT(min, -0.99);
    EXPECT_GT(max, 0.99);
    // Element i depends only on (seed, i): a shorter fill is a prefix.
    std::vector<uint32_t> shorter(100);
    fill_random(t, shorter.data(), 50, 42);
    for (int64_t i = 0; i < 50; ++i) ASSERT_EQ(load_element(t, shorter.data(), i), load_element(t, buf.data(), i));
  }
  std::vector<double> raw(n);
  fill_random_f64(raw.data(), n, 42);
  for (double v : raw) ASSERT_TRUE(v != 0.0 && std::fabs(v) <= 1.0);
}

}  // namespace
}  // namespace gconv
