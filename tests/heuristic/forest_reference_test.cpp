// Every evaluation kernel against a plain reference walk, on forests shaped
// like the shipped cascade (trees of one depth, 8 and 10, stored back to
// back: the fixed-depth and two-trees-at-once paths) and on the row counts a
// selection feeds them (a problem's candidates: 1..70; a pool: 130+), so
// that the grouped rows, the rows after the last whole group and the block
// boundaries all meet the reference. Sums must be equal bit for bit: the
// kernels add each row's leaves in model order, in float, as the reference
// does. A guard for work on selection latency.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heuristic/forest.hpp"

namespace gconv::heuristic {
namespace {

using detail::Kernel;

struct RefTree {
  std::vector<int> left, right, feature;
  std::vector<float> cond;
  std::vector<bool> default_left;
};

// XGBoost's rule written plainly: x < threshold goes left, NaN goes the
// split's default way; base margin first, then every tree's leaf, in float.
float reference_margin(const std::vector<RefTree>& trees, float base, const float* row) {
  float sum = base;
  for (const RefTree& t : trees) {
    int n = 0;
    while (t.left[size_t(n)] >= 0) {
      const float v = row[t.feature[size_t(n)]];
      const bool left = std::isnan(v) ? t.default_left[size_t(n)] : v < t.cond[size_t(n)];
      n = left ? t.left[size_t(n)] : t.right[size_t(n)];
    }
    sum += t.cond[size_t(n)];
  }
  return sum;
}

// Thresholds and values drawn from a small grid (ties: equality goes
// right), with -0.0 beside 0.0.
float grid_value(std::mt19937& rng) {
  static const float kGrid[] = {-3.0f, -1.5f, -0.0f, 0.0f, 0.25f, 0.5f, 1.0f, 2.0f, 7.0f};
  return kGrid[rng() % (sizeof kGrid / sizeof kGrid[0])];
}

// A tree of exactly `depth` levels (its leftmost path is full), other
// branches ending early at random, node ids depth first.
RefTree random_tree(int depth, int features, std::mt19937& rng) {
  RefTree t;
  std::uniform_real_distribution<float> leaf(-1.0f, 1.0f);
  auto grow = [&](auto& self, int level, bool spine) -> int {
    const int id = int(t.left.size());
    t.left.push_back(-1), t.right.push_back(-1), t.feature.push_back(0);
    t.cond.push_back(leaf(rng)), t.default_left.push_back(rng() % 2 == 0);
    if (level < depth && (spine || rng() % 5 != 0)) {
      t.feature[size_t(id)] = int(rng() % uint32_t(features));
      t.cond[size_t(id)] = grid_value(rng);
      const int l = self(self, level + 1, spine);
      const int r = self(self, level + 1, false);
      t.left[size_t(id)] = l, t.right[size_t(id)] = r;
    }
    return id;
  };
  grow(grow, 0, true);
  return t;
}

nlohmann::json to_json(const std::vector<RefTree>& trees, int features, float base) {
  nlohmann::json list = nlohmann::json::array(), info = nlohmann::json::array();
  for (const RefTree& t : trees) {
    std::vector<int> dl(t.default_left.begin(), t.default_left.end());
    std::vector<float> hess(t.left.size(), 1.0f);
    list.push_back({{"left_children", t.left}, {"right_children", t.right}, {"split_indices", t.feature},
                    {"split_conditions", t.cond}, {"default_left", dl}, {"sum_hessian", hess}});
    info.push_back(0);
  }
  char base_text[32];
  std::snprintf(base_text, sizeof base_text, "%.9g", double(base));
  return {{"learner",
           {{"learner_model_param", {{"base_score", base_text}, {"num_feature", std::to_string(features)}}},
            {"objective", {{"name", "reg:squarederror"}}},
            {"gradient_booster", {{"name", "gbtree"}, {"model", {{"tree_info", info}, {"trees", list}}}}}}}};
}

// Rows of grid values, a tenth missing (NaN) unless `dense`.
std::vector<float> random_rows(int rows, int features, bool dense, std::mt19937& rng) {
  std::vector<float> x(size_t(rows) * size_t(features));
  for (float& v : x) v = !dense && rng() % 10 == 0 ? NAN : grid_value(rng);
  return x;
}

void expect_reference(const std::vector<int>& depths, int features, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<RefTree> trees;
  for (int d : depths) trees.push_back(random_tree(d, features, rng));
  const float base = 0.375f;
  Result<Forest> f = Forest::from_json(to_json(trees, features, base).dump(), features);
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  ASSERT_EQ(f->num_exact_trees(), 0);  // every tree in the complete layout
  // Among them every remainder mod 8 (the rows after the last whole group
  // walk one, two or three at a time), a problem's typical 35..45.
  for (int rows : {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 15, 16, 17, 19, 31, 33, 37, 43, 46, 58, 63, 64, 65, 70, 130, 300})
    for (bool dense : {true, false}) {
      const std::vector<float> x = random_rows(rows, features, dense, rng);
      std::vector<float> want(static_cast<size_t>(rows));
      for (int r = 0; r < rows; ++r) want[size_t(r)] = reference_margin(trees, base, &x[size_t(r) * features]);
      for (Kernel k : {Kernel::automatic, Kernel::traverse, Kernel::sets, Kernel::sets_portable,
                       Kernel::traverse_portable}) {
        std::vector<float> got(static_cast<size_t>(rows), -12345.0f);
        f->predict(x.data(), rows, got.data(), k);
        int bad = 0;
        for (int r = 0; r < rows; ++r)
          if (std::memcmp(&got[size_t(r)], &want[size_t(r)], sizeof(float)) != 0 && ++bad <= 3)
            ADD_FAILURE() << "kernel " << int(k) << ", " << rows << " rows" << (dense ? "" : " with NaN") << ", row "
                          << r << ": " << got[size_t(r)] << " reference " << want[size_t(r)];
        EXPECT_EQ(bad, 0) << "kernel " << int(k) << ", " << rows << " rows";
      }
    }
}

// The cascade's stages: a prefilter of depth-8 trees, a main model of
// depth-10 trees (fewer here than shipped; a count not a multiple of 8 so
// that the trees after the last group of 8 walk alone).
TEST(ForestReference, PrefilterShapedForestMatchesTheReferenceWalk) {
  expect_reference(std::vector<int>(44, 8), 31, 1901);
}

TEST(ForestReference, MainModelShapedForestMatchesTheReferenceWalk) {
  expect_reference(std::vector<int>(27, 10), 40, 1902);
}

// Depths changing from tree to tree (no two neighbours alike in places):
// the paths that pair trees or group 8 of them must fall back correctly.
TEST(ForestReference, MixedDepthsMatchTheReferenceWalk) {
  std::vector<int> depths;
  std::mt19937 rng(1903);
  for (int t = 0; t < 37; ++t) depths.push_back(t < 16 ? 6 : int(rng() % 11u));
  expect_reference(depths, 17, 1904);
}

}  // namespace
}  // namespace gconv::heuristic
