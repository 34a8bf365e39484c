// Integer helpers shared by the planners, the analytic model and the
// features (one definition: they must agree to the bit).
#pragma once

#include <bit>
#include <cstdint>

namespace gconv {

// ceil(a / b) for b > 0, truncating like (a + b - 1) / b for every a. Tile
// sizes, vector widths and split factors are powers of two: those divide by
// a shift. Selection latency: ranking a problem takes several of these per
// pool kernel, and a 64-bit division costs ~15 cycles where a shift costs 1.
inline int64_t ceil_div(int64_t a, int64_t b) {
  const int64_t n = a + b - 1;
  if (n >= 0 && b > 0 && (b & (b - 1)) == 0) return n >> std::countr_zero(static_cast<uint64_t>(b));
  return n / b;
}

}  // namespace gconv
