// Host-side number formats: bf16 and fp16 as uint16_t bit patterns, typed
// buffers read and written as double, and deterministic random fills.
//
// Conventions:
//   1. Every narrowing conversion rounds to nearest, ties to even (RNE), as
//      the GPU's cvt.rn does. Overflow gives +-inf; NaN stays NaN (quiet,
//      sign kept); fp16 subnormals are produced and read exactly.
//   2. A narrowing from double rounds ONCE (no double rounding through float),
//      so a reference result rounded here is the correctly rounded value.
//   3. A typed buffer is a plain host array of p.dtype elements: uint16_t bit
//      patterns for bf16 / fp16, float for fp32. Indices are element indices.
//   4. Random fills depend only on (seed, index): the same seed gives the same
//      values whatever the buffer length or the machine.
// All functions are thread-safe (no shared state) and never fail.
#pragma once

#include <cstdint>

#include "gconv/problem.hpp"

namespace gconv {

uint16_t float_to_bf16(float f);   // RNE
float bf16_to_float(uint16_t h);   // exact
uint16_t float_to_fp16(float f);   // RNE, IEEE binary16
float fp16_to_float(uint16_t h);   // exact

// Correctly rounded (RNE) from double, one rounding only.
uint16_t double_to_bf16(double d);
uint16_t double_to_fp16(double d);

// The value of `d` after a round trip through dtype t (what storing it would keep).
double round_to(DType t, double d);

// Element i of a host buffer of dtype t, as double (exact), and the store of
// `v` rounded to t (once).
double load_element(DType t, const void* buf, int64_t i);
void store_element(DType t, void* buf, int64_t i, double v);

// Whole-buffer forms of the two above: n elements.
void load_buffer(DType t, const void* buf, int64_t n, double* out);
void store_buffer(DType t, const double* in, int64_t n, void* buf);

// Fills n elements of dtype t with values uniform in [-1, 1], already
// representable in t and never zero (a zero would hide a missed term in a
// check). Element i depends only on (seed, i).
void fill_random(DType t, void* buf, int64_t n, uint64_t seed);
// Same values for fp64 storage, rounded to t (so they equal what fill_random(t)
// stores), or left unrounded with fill_random_f64(buf, n, seed).
void fill_random_f64(double* buf, int64_t n, uint64_t seed, DType rounded_to);
void fill_random_f64(double* buf, int64_t n, uint64_t seed);

}  // namespace gconv
