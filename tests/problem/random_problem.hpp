// Random valid problems for round-trip tests: every direction and dtype,
// 1D/2D/3D, groups, per-dimension strides and dilations, asymmetric pads, and
// now and then a very large size (to exercise long numbers).
#pragma once

#include <random>

#include "gconv/problem.hpp"

namespace gconv::testing {

inline Problem random_valid_problem(std::mt19937_64& rng) {
  auto uni = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  while (true) {
    Problem p;
    p.ndim = int(uni(1, 3));
    p.direction = static_cast<Direction>(uni(0, 2));
    p.dtype = static_cast<DType>(uni(0, 2));
    p.g = uni(0, 2) == 0 ? 1 : uni(1, 64);
    p.c = p.g * uni(1, 16);
    p.k = p.g * uni(1, 16);
    p.n = uni(1, 64);
    if (uni(0, 9) == 0) p.n = uni(1, int64_t{1} << 20);  // long numbers
    for (int i = p.first_slot(); i < 3; ++i) {
      p.in[i] = uni(1, 80);
      p.filter[i] = uni(1, 7);
      p.stride[i] = uni(0, 2) == 0 ? uni(1, 4) : 1;
      p.dilation[i] = uni(0, 3) == 0 ? uni(1, 3) : 1;
      p.pad_lo[i] = uni(0, 3);
      p.pad_hi[i] = uni(0, 1) ? p.pad_lo[i] : uni(0, 3);
    }
    if (uni(0, 3) == 0) {  // uniform lists, the common case
      for (int i = p.first_slot(); i < 3; ++i) {
        p.stride[i] = p.stride[2];
        p.pad_lo[i] = p.pad_lo[2];
        p.pad_hi[i] = p.pad_hi[2];
        p.dilation[i] = p.dilation[2];
      }
    }
    if (p.validate().ok()) return p;
  }
}

}  // namespace gconv::testing
