// Comparing a kernel's output with the reference, with tolerances set by the
// data type and the reduction length.
//
// Per element: |out - ref| <= rtol * |ref| + atol * rms(ref), and no NaN/inf
// (outputs are poisoned with NaN before a run, so an unwritten element fails).
//   bf16 out: rtol 2^-7 (one bf16 ulp: both sides are rounded once),
//   fp16 out: rtol 2^-9, fp32 out from TF32 math: rtol 2^-10,
//   atol grows with sqrt(reduction length) x the input rounding of the math
//   (bf16/fp16 products are exact in fp32, TF32 inputs lose 13 bits).
// Plus a normwise bound ||out - ref|| / ||ref|| <= norm_tol.
#pragma once

#include <cstdint>
#include <string>

#include "gconv/problem.hpp"

namespace gconv {

struct Tolerance {
  double rtol = 0, atol = 0, norm_tol = 0;
};

Tolerance tolerance_for(const Problem& p);

struct CompareResult {
  bool ok = false;
  int64_t bad = 0;            // elements out of tolerance (NaN included)
  int64_t nonfinite = 0;      // NaN / inf (unwritten elements show as NaN)
  int64_t first_bad = -1;     // index of the first bad element
  double first_out = 0, first_ref = 0;
  double max_abs_err = 0;
  double rel_norm_err = 0;    // ||out - ref|| / ||ref||
  std::string summary() const;  // one line, for logs and CSV
};

// `out` and `ref` are host buffers of n elements of dtype t.
CompareResult compare_outputs(DType t, const void* out, const void* ref, int64_t n, const Tolerance& tol);

// The byte pattern that makes every element NaN in all three dtypes (0xFF).
inline constexpr int kPoisonByte = 0xFF;

}  // namespace gconv
