// Helpers shared by the reference tests: building problems, random problems,
// running one direction on fp64 vectors, inner products.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gconv/numeric.hpp"
#include "gconv/problem.hpp"
#include "gconv/reference.hpp"

namespace gconv::reftest {

using Vec = std::vector<double>;
using Dims = std::vector<int64_t>;  // one entry per used dimension, outermost first

// A problem from per-dimension lists (ndim = in.size(); lists right-aligned
// into the 3 slots; empty stride/dil/pad lists mean 1/1/0).
inline Problem make_problem(int64_t n, int64_t c, int64_t k, int64_t g, const Dims& in, const Dims& filter,
                            const Dims& stride = {}, const Dims& pad_lo = {}, const Dims& pad_hi = {},
                            const Dims& dil = {}) {
  Problem p;
  p.ndim = static_cast<int>(in.size());
  p.n = n, p.c = c, p.k = k, p.g = g;
  const int first = 3 - p.ndim;
  for (int j = 0; j < p.ndim; ++j) {
    p.in[first + j] = in[j];
    p.filter[first + j] = filter[j];
    if (!stride.empty()) p.stride[first + j] = stride[j];
    if (!pad_lo.empty()) p.pad_lo[first + j] = pad_lo[j];
    if (!pad_hi.empty()) p.pad_hi[first + j] = pad_hi[j];
    if (!dil.empty()) p.dilation[first + j] = dil[j];
  }
  return p;
}

inline Problem with_direction(Problem p, Direction d) {
  p.direction = d;
  return p;
}

inline int64_t x_size(const Problem& p) { return p.n * p.in_volume() * p.c; }
inline int64_t y_size(const Problem& p) { return p.n * p.out_volume() * p.k; }
inline int64_t w_size(const Problem& p) { return p.k * p.filter_volume() * p.c_per_group(); }

inline Vec random_vec(int64_t n, uint64_t seed) {
  Vec v(static_cast<size_t>(n));
  fill_random_f64(v.data(), n, seed);
  return v;
}

// Runs direction d of p in fp64 and returns the output; a failure is a test failure.
inline Vec run_f64(const Problem& p, Direction d, const Vec& a, const Vec& b, int threads = 0) {
  const Problem q = with_direction(p, d);
  Vec out(static_cast<size_t>(reference_operands(q).out), std::nan(""));
  const Status s = reference_conv_f64(q, a.data(), b.data(), out.data(), threads);
  EXPECT_TRUE(s.ok()) << s.to_string() << " for " << q.to_spec();
  return out;
}
inline Vec fwd(const Problem& p, const Vec& x, const Vec& w) { return run_f64(p, Direction::fwd, x, w); }
inline Vec bwd_data(const Problem& p, const Vec& dy, const Vec& w) {
  return run_f64(p, Direction::bwd_data, dy, w);
}
inline Vec bwd_weight(const Problem& p, const Vec& x, const Vec& dy) {
  return run_f64(p, Direction::bwd_weight, x, dy);
}

inline double inner(const Vec& a, const Vec& b) {
  EXPECT_EQ(a.size(), b.size());
  long double s = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) s += static_cast<long double>(a[i]) * b[i];
  return static_cast<double>(s);
}

// Deterministic generator for random problems (fixed algorithm, so the test
// cases are the same with every standard library).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int64_t uniform(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }

 private:
  uint64_t s_;
};

// A small valid random problem: 1D/2D/3D, grouped or depthwise or dense,
// strides 1-3, dilation 1-2, asymmetric padding. Tensors stay small (a few
// thousand elements) so the tests run in milliseconds.
inline Problem random_problem(Rng& r) {
  for (;;) {
    const int ndim = static_cast<int>(r.uniform(1, 3));
    const int64_t g = r.uniform(1, 4);
    const bool depthwise = r.uniform(0, 3) == 0;
    const int64_t cg = depthwise ? 1 : r.uniform(1, 5);
    const int64_t kg = depthwise ? 1 : r.uniform(1, 5);
    const int64_t max_in = ndim == 3 ? 6 : ndim == 2 ? 9 : 17;
    Dims in, f, s, lo, hi, dil;
    for (int j = 0; j < ndim; ++j) {
      in.push_back(r.uniform(1, max_in));
      f.push_back(r.uniform(1, ndim == 1 ? 7 : 4));
      s.push_back(r.uniform(1, 3));
      lo.push_back(r.uniform(0, 2));
      hi.push_back(r.uniform(0, 3));
      dil.push_back(r.uniform(1, 2));
    }
    Problem p = make_problem(r.uniform(1, 2), g * cg, g * kg, g, in, f, s, lo, hi, dil);
    if (p.validate().ok()) return p;
  }
}

}  // namespace gconv::reftest
