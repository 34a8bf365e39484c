// bf16 / fp16 conversions, typed buffer access and random fills (see
// include/gconv/numeric.hpp for the contract).
#include "gconv/numeric.hpp"

#include <bit>
#include <cmath>

namespace gconv {
namespace {

uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
float float_of(uint32_t u) { return std::bit_cast<float>(u); }

// double -> float rounded to odd: truncate toward zero, then set the last bit
// if anything was dropped. Rounding that float once more to a format with at
// least 2 fewer significand bits (bf16: 8, fp16: 11, float: 24) gives the
// same result as rounding the double directly, which a plain (float)d does
// not (it may create a tie that was not there).
float double_to_float_round_odd(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  return float_of(bits_of(f) | 1u);
}

// SplitMix64 finalizer: a good 64-bit mixer, fixed forever so fills are
// reproducible everywhere (std:: distributions are implementation-defined).
uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Element i of the stream `seed`: uniform in [-1, 1), rounded to t, never 0.
double random_value(uint64_t seed, int64_t i, DType t) {
  uint64_t h = mix64(mix64(seed) ^ static_cast<uint64_t>(i));
  for (;;) {
    const double u = static_cast<double>(h >> 11) * 0x1p-53;  // [0, 1)
    const double v = round_to(t, 2.0 * u - 1.0);
    if (v != 0.0) return v;
    h = mix64(h);  // rare (fp16 underflow, or exactly 0): draw again
  }
}

}  // namespace

uint16_t float_to_bf16(float f) {
  const uint32_t u = bits_of(f);
  if (std::isnan(f)) {
    // Keep sign and top payload bits; force the quiet bit so a payload that
    // lived only in the dropped low bits cannot turn the NaN into inf.
    return static_cast<uint16_t>((u >> 16) | 0x0040u);
  }
  // RNE: add 0x7FFF plus the lsb of the kept part, then truncate. Carries
  // propagate into the exponent, so overflow reaches inf correctly.
  const uint32_t lsb = (u >> 16) & 1u;
  return static_cast<uint16_t>((u + 0x7FFFu + lsb) >> 16);
}

float bf16_to_float(uint16_t h) { return float_of(static_cast<uint32_t>(h) << 16); }

uint16_t float_to_fp16(float f) {
  const uint32_t u = bits_of(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) {  // NaN: quiet, keep the top payload bits
    return static_cast<uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x03FFu));
  }
  const int e = static_cast<int>(a >> 23);  // biased float exponent
  if (e >= 127 + 16) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 2^16, or inf
  if (e >= 127 - 14) {
    // Normal half range (>= 2^-14): rebias the exponent, keep 10 mantissa
    // bits, round on the 13 dropped ones. A carry out of the mantissa bumps
    // the exponent (up to inf at 65520), which is the right result.
    uint32_t h = (static_cast<uint32_t>(e - 112) << 10) | ((a >> 13) & 0x03FFu);
    const uint32_t rest = a & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  if (e < 127 - 25) return sign;  // below 2^-25: rounds to zero (2^-25 itself ties to 0)
  // Subnormal half: count units of 2^-24. The float is m * 2^(e-150) with
  // m = 1.mantissa as an integer, so units = m >> (126 - e), rounded.
  const uint32_t m = (a & 0x007FFFFFu) | 0x00800000u;
  const int shift = 126 - e;  // 14 .. 24
  uint32_t h = m >> shift;
  const uint32_t rest = m & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (h & 1u))) ++h;  // may become 0x0400 (min normal): right
  return static_cast<uint16_t>(sign | h);
}

float fp16_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1Fu;
  const uint32_t m = h & 0x03FFu;
  if (e == 0x1F) return float_of(sign | 0x7F800000u | (m << 13));  // inf / NaN
  if (e == 0) {
    const float v = std::ldexp(static_cast<float>(m), -24);  // subnormal or zero: exact
    return sign ? -v : v;
  }
  return float_of(sign | ((e + 112u) << 23) | (m << 13));
}

uint16_t double_to_bf16(double d) { return float_to_bf16(double_to_float_round_odd(d)); }
uint16_t double_to_fp16(double d) { return float_to_fp16(double_to_float_round_odd(d)); }

double round_to(DType t, double d) {
  switch (t) {
    case DType::bf16: return bf16_to_float(double_to_bf16(d));
    case DType::fp16: return fp16_to_float(double_to_fp16(d));
    case DType::fp32: return static_cast<float>(d);
  }
  return d;
}

double load_element(DType t, const void* buf, int64_t i) {
  switch (t) {
    case DType::bf16: return bf16_to_float(static_cast<const uint16_t*>(buf)[i]);
    case DType::fp16: return fp16_to_float(static_cast<const uint16_t*>(buf)[i]);
    case DType::fp32: return static_cast<const float*>(buf)[i];
  }
  return 0.0;
}

void store_element(DType t, void* buf, int64_t i, double v) {
  switch (t) {
    case DType::bf16: static_cast<uint16_t*>(buf)[i] = double_to_bf16(v); return;
    case DType::fp16: static_cast<uint16_t*>(buf)[i] = double_to_fp16(v); return;
    case DType::fp32: static_cast<float*>(buf)[i] = static_cast<float>(v); return;
  }
}

void load_buffer(DType t, const void* buf, int64_t n, double* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = load_element(t, buf, i);
}

void store_buffer(DType t, const double* in, int64_t n, void* buf) {
  for (int64_t i = 0; i < n; ++i) store_element(t, buf, i, in[i]);
}

void fill_random(DType t, void* buf, int64_t n, uint64_t seed) {
  for (int64_t i = 0; i < n; ++i) store_element(t, buf, i, random_value(seed, i, t));
}

void fill_random_f64(double* buf, int64_t n, uint64_t seed, DType rounded_to) {
  for (int64_t i = 0; i < n; ++i) buf[i] = random_value(seed, i, rounded_to);
}

void fill_random_f64(double* buf, int64_t n, uint64_t seed) {
  for (int64_t i = 0; i < n; ++i) {
    uint64_t h = mix64(mix64(seed) ^ static_cast<uint64_t>(i));
    double v = 0.0;
    while (v == 0.0) {
      v = 2.0 * (static_cast<double>(h >> 11) * 0x1p-53) - 1.0;
      h = mix64(h);
    }
    buf[i] = v;
  }
}

}  // namespace gconv
