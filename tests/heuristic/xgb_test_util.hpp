// Synthetic data for the XGBoost wrapper and Forest tests: a nonlinear target
// over a few features, NaNs sprinkled in, and some features on a coarse grid
// so that test values hit split thresholds exactly (checks "<" vs "<=").
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "heuristic/xgb.hpp"

namespace gconv::heuristic::testing {

inline bool have_xgboost() { return !Booster::xgboost_version().empty(); }

// rows x cols; column 3 is constant (no split may use it), columns 0 and 1
// carry most of the signal, even columns are on a grid of 0.25.
inline TrainData synthetic(int rows, int cols, uint32_t seed, double nan_fraction = 0.05) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_real_distribution<float> p(0.0f, 1.0f);
  std::normal_distribution<float> noise(0.0f, 0.05f);
  TrainData d;
  d.rows = rows;
  d.cols = cols;
  d.x.resize(static_cast<size_t>(rows) * cols);
  d.label.resize(rows);
  for (int r = 0; r < rows; ++r) {
    float* x = &d.x[static_cast<size_t>(r) * cols];
    for (int c = 0; c < cols; ++c) {
      float v = u(rng);
      if (c % 2 == 0) v = std::round(v * 4.0f) / 4.0f;
      if (c == 3) v = 0.5f;
      if (c != 3 && p(rng) < nan_fraction) v = std::numeric_limits<float>::quiet_NaN();
      x[c] = v;
    }
    auto val = [&](int c) { return std::isnan(x[c]) ? 0.3f : x[c]; };
    float y = 2.0f * val(0) + std::sin(3.0f * val(1)) + (val(2) > 0 ? 0.5f : -0.5f);
    if (cols > 5) y += 0.3f * val(4) * val(5);
    d.label[r] = y + noise(rng);
  }
  return d;
}

// Ranking data: query groups of 8..24 rows, relevance 0..4 from the
// synthetic target's rank inside the group.
inline TrainData synthetic_rank(int rows, int cols, uint32_t seed) {
  TrainData d = synthetic(rows, cols, seed);
  std::mt19937 rng(seed + 1);
  std::uniform_int_distribution<unsigned> gsize(8, 24);
  int r = 0;
  while (r < rows) {
    unsigned g = std::min<unsigned>(gsize(rng), static_cast<unsigned>(rows - r));
    d.group_sizes.push_back(g);
    for (unsigned i = 0; i < g; ++i) {
      const float y = d.label[r + i];
      d.label[r + i] = static_cast<float>(std::clamp(static_cast<int>(std::floor((y + 3.0f) * 0.8f)), 0, 4));
    }
    r += static_cast<int>(g);
  }
  return d;
}

inline TrainParams small_params(const std::string& objective, int rounds, int depth) {
  TrainParams p;
  p.objective = objective;
  p.rounds = rounds;
  p.max_depth = depth;
  p.eta = 0.3;
  p.threads = 1;  // CI machines are small and shared: OpenMP spinning on a busy core is slow
  p.seed = 7;
  return p;
}

}  // namespace gconv::heuristic::testing
