// Forest against XGBoost: the compiled evaluator must give XGBoost's
// output_margin predictions on held-out rows with missing values, for every
// depth, ranking and regression objectives, warm-started and deep models; its
// contributions add up to the margin; malformed models are parse errors.
#include "heuristic/forest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "heuristic/xgb.hpp"
#include "xgb_test_util.hpp"
#include "forest_kernel_name.hpp"

namespace gconv::heuristic {
namespace {

using testing::have_xgboost;
using testing::small_params;
using testing::synthetic;
using testing::synthetic_rank;
using testing::kernel_name;

#define SKIP_WITHOUT_XGBOOST() \
  if (!have_xgboost()) GTEST_SKIP() << "built without XGBoost"

using detail::Kernel;
constexpr Kernel kKernels[] = {Kernel::automatic, Kernel::traverse, Kernel::sets, Kernel::sets_portable,
                               Kernel::traverse_portable};

// Forest::predict, with every kernel, equals `want` (|diff| <= 1e-5 * max(1, |v|));
// returns the largest difference.
double expect_margins(const Forest& f, const float* x, int rows, const std::vector<float>& want,
                      const std::string& what) {
  double worst = 0;
  for (Kernel k : kKernels) {
    std::vector<float> got(rows, -12345.0f);
    f.predict(x, rows, got.data(), k);
    int mismatches = 0;
    for (int r = 0; r < rows; ++r) {
      const double diff = std::fabs(double(got[r]) - double(want[r]));
      worst = std::max(worst, diff);
      if (!(diff <= 1e-5 * std::max(1.0, std::fabs(double(want[r]))))) {
        if (++mismatches <= 3)
          ADD_FAILURE() << what << " [" << kernel_name(k) << "]: row " << r << " forest " << got[r] << " xgboost " << want[r];
      }
    }
    EXPECT_EQ(mismatches, 0) << what << " [" << kernel_name(k) << "]";
  }
  return worst;
}

// Forest::predict (every kernel) equals Booster::predict(output_margin) on `test`.
double expect_same_margins(const Booster& b, const Forest& f, const TrainData& test, const std::string& what) {
  Result<std::vector<float>> want = b.predict(test.x.data(), test.rows, test.cols, true);
  EXPECT_TRUE(want.ok()) << want.status().to_string();
  if (!want.ok()) return INFINITY;
  return expect_margins(f, test.x.data(), test.rows, *want, what);
}

Forest forest_of(const Booster& b, int features) {
  Result<std::string> json = b.save_json();
  EXPECT_TRUE(json.ok());
  Result<Forest> f = Forest::from_json(*json, features);
  EXPECT_TRUE(f.ok()) << f.status().to_string();
  return f.ok() ? std::move(f).value() : Forest();
}

TEST(Forest, MatchesXGBoostRegressionAtEveryDepth) {
  SKIP_WITHOUT_XGBOOST();
  const TrainData train = synthetic(1500, 12, 11);
  const TrainData test = synthetic(777, 12, 12, 0.1);  // 777: not a multiple of the row block
  for (int depth = 1; depth <= 8; ++depth) {
    Result<Booster> b = Booster::train(train, small_params("reg:squarederror", 100, depth));
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    Forest f = forest_of(*b, 12);
    ASSERT_EQ(f.num_trees(), 100);
    EXPECT_EQ(f.num_features(), 12);
    const double worst = expect_same_margins(*b, f, test, "depth " + std::to_string(depth));
    // Same float operations in the same order as XGBoost: exact on this build.
    EXPECT_EQ(worst, 0.0) << "depth " << depth;
  }
}

TEST(Forest, MatchesXGBoostRanking) {
  SKIP_WITHOUT_XGBOOST();
  const TrainData train = synthetic_rank(1500, 10, 21);
  const TrainData test = synthetic(500, 10, 22, 0.1);
  for (const char* obj : {"rank:pairwise", "rank:ndcg"}) {
    Result<Booster> b = Booster::train(train, small_params(obj, 100, 6));
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    Forest f = forest_of(*b, 10);
    EXPECT_EQ(f.objective(), obj);
    expect_same_margins(*b, f, test, obj);
  }
}

// Objectives whose base margin is not the base score itself.
TEST(Forest, AppliesTheObjectivesBaseMargin) {
  SKIP_WITHOUT_XGBOOST();
  TrainData train = synthetic(600, 6, 31);
  const TrainData test = synthetic(300, 6, 32);
  TrainData bin = train;
  for (float& y : bin.label) y = y > 0.2f ? 1.0f : 0.0f;
  TrainParams logistic = small_params("binary:logistic", 30, 4);
  logistic.extra = {{"base_score", "0.3"}};
  TrainData counts = train;
  for (float& y : counts.label) y = std::floor(std::exp(y * 0.5f));
  TrainParams poisson = small_params("count:poisson", 30, 4);
  poisson.extra = {{"base_score", "2.5"}};
  for (auto [data, params] : {std::pair{&bin, logistic}, std::pair{&counts, poisson}}) {
    Result<Booster> b = Booster::train(*data, params);
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    Forest f = forest_of(*b, 6);
    EXPECT_NE(f.base_margin(), params.objective == "binary:logistic" ? 0.3f : 2.5f);
    expect_same_margins(*b, f, test, params.objective);
  }
}

// Trees deeper than the complete layout: `traverse` takes them node by node; same results.
TEST(Forest, DeepTreesMatchThroughTheExactPath) {
  SKIP_WITHOUT_XGBOOST();
  const TrainData train = synthetic(3000, 8, 41);
  const TrainData test = synthetic(400, 8, 42, 0.1);
  TrainParams p = small_params("reg:squarederror", 20, 14);
  p.min_child_weight = 0;
  Result<Booster> b = Booster::train(train, p);
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  Result<std::string> json = b->save_json();
  ASSERT_TRUE(json.ok());
  // The test is only meaningful if some tree is deeper than the complete layout.
  int deepest = 0;
  const nlohmann::json model = nlohmann::json::parse(*json);
  for (const auto& t : model["learner"]["gradient_booster"]["model"]["trees"]) {
    const auto& left = t["left_children"];
    std::vector<int> depth(left.size(), 0);
    for (size_t i = 0; i < left.size(); ++i) {
      if (left[i].get<int>() < 0) continue;
      depth[left[i].get<int>()] = depth[t["right_children"][i].get<int>()] = depth[i] + 1;
      deepest = std::max(deepest, depth[i] + 1);
    }
  }
  ASSERT_GT(deepest, detail::kMaxTraverseDepth);
  Forest f = forest_of(*b, 8);
  EXPECT_EQ(expect_same_margins(*b, f, test, "deep"), 0.0);
}

// Candidates of one problem: rows equal but for two columns share most of
// their paths (the case the `sets` kernel is for); and every block boundary
// of the kernels (8-row chains, 32-row sub-blocks, 64-row words, 256-row blocks).
TEST(Forest, SharedPathsAndBlockBoundaries) {
  SKIP_WITHOUT_XGBOOST();
  const TrainData train = synthetic(1500, 12, 91);
  Result<Booster> b = Booster::train(train, small_params("reg:squarederror", 100, 8));
  ASSERT_TRUE(b.ok());
  Forest f = forest_of(*b, 12);
  TrainData shared = synthetic(600, 12, 92, 0.1);
  for (int r = 1; r < shared.rows; ++r)
    for (int c = 2; c < 12; ++c) shared.x[size_t(r) * 12 + c] = shared.x[c];
  auto want = b->predict(shared.x.data(), shared.rows, 12);
  ASSERT_TRUE(want.ok());
  for (int rows : {1, 7, 8, 9, 63, 64, 65, 255, 256, 257, 600}) {
    const std::vector<float> head(want->begin(), want->begin() + rows);
    expect_margins(f, shared.x.data(), rows, head, "shared paths, " + std::to_string(rows) + " rows");
  }
  const TrainData diverse = synthetic(600, 12, 93, 0.1);
  auto want2 = b->predict(diverse.x.data(), diverse.rows, 12);
  ASSERT_TRUE(want2.ok());
  for (int rows : {1, 9, 257, 600}) {
    const std::vector<float> head(want2->begin(), want2->begin() + rows);
    expect_margins(f, diverse.x.data(), rows, head, "diverse, " + std::to_string(rows) + " rows");
  }
}

// A problem's candidates are a few dozen rows without missing values, and a
// cascade's second stage sees a handful: the traversal then stores rows once
// (no missing value in the block) and walks 8 trees at a time for the rows
// after the last whole group of 8, among trees too deep for the complete
// layout (depth 12: exact path). All equal XGBoost bit for bit, with and
// without missing values, for tree counts that leave a remainder after the
// groups of 8.
TEST(Forest, FewRowsWithAndWithoutMissingValues) {
  SKIP_WITHOUT_XGBOOST();
  const TrainData train = synthetic(1500, 12, 31);
  for (int trees : {5, 8, 37}) {
    for (int depth : {3, 8, 12}) {  // 12: some trees deeper than the complete layout (exact path) between others
      Result<Booster> b = Booster::train(train, small_params("reg:squarederror", trees, depth));
      ASSERT_TRUE(b.ok());
      Forest f = forest_of(*b, 12);
      for (double missing : {0.0, 0.1}) {
        const TrainData test = synthetic(40, 12, 32, missing);
        auto want = b->predict(test.x.data(), test.rows, 12, true);
        ASSERT_TRUE(want.ok());
        for (int rows : {1, 2, 3, 7, 8, 9, 17, 40}) {
          const std::vector<float> head(want->begin(), want->begin() + rows);
          const double worst = expect_margins(f, test.x.data(), rows, head,
                                              std::to_string(trees) + " trees, depth " + std::to_string(depth) +
                                                  ", missing " + std::to_string(missing) + ", " +
                                                  std::to_string(rows) + " rows");
          EXPECT_EQ(worst, 0.0);
        }
      }
    }
  }
}

TEST(Forest, UbjsonModelFilesGiveTheSamePredictions) {
  SKIP_WITHOUT_XGBOOST();
  const TrainData train = synthetic(800, 9, 51);
  const TrainData test = synthetic(300, 9, 52, 0.1);
  Result<Booster> b = Booster::train(train, small_params("reg:squarederror", 100, 6));
  ASSERT_TRUE(b.ok());
  const auto dir = std::filesystem::temp_directory_path() / "gconv_forest_test_ubj";
  std::filesystem::create_directories(dir);
  const std::string ubj = (dir / "model.ubj").string(), js = (dir / "model.json").string();
  ASSERT_TRUE(b->save_file(ubj).ok());
  ASSERT_TRUE(b->save_file(js).ok());
  Result<Booster> reloaded = Booster::load_file(ubj);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().to_string();
  Result<Forest> from_ubj = Forest::load_file(ubj, 9);
  ASSERT_TRUE(from_ubj.ok()) << from_ubj.status().to_string();
  Result<Forest> from_json = Forest::load_file(js, 9);
  ASSERT_TRUE(from_json.ok()) << from_json.status().to_string();
  expect_same_margins(*b, *from_ubj, test, "ubj forest");
  expect_same_margins(*reloaded, *from_json, test, "ubj booster vs json forest");
  std::filesystem::remove_all(dir);
}

TEST(Forest, WarmStartedModelMatches) {
  SKIP_WITHOUT_XGBOOST();
  const TrainData train = synthetic(1000, 10, 61);
  const TrainData test = synthetic(300, 10, 62, 0.1);
  Result<Booster> first = Booster::train(train, small_params("reg:squarederror", 50, 6));
  ASSERT_TRUE(first.ok());
  Result<Booster> more = Booster::train(train, small_params("reg:squarederror", 50, 6), &*first);
  ASSERT_TRUE(more.ok()) << more.status().to_string();
  Forest f50 = forest_of(*first, 10), f100 = forest_of(*more, 10);
  EXPECT_EQ(f50.num_trees(), 50);
  ASSERT_EQ(f100.num_trees(), 100);
  expect_same_margins(*more, f100, test, "warm start");
}

TEST(Forest, ContributionsAddUpToTheMarginAndMatchXGBoost) {
  SKIP_WITHOUT_XGBOOST();
  const TrainData train = synthetic(1000, 8, 71);
  const TrainData test = synthetic(200, 8, 72, 0.1);
  Result<Booster> b = Booster::train(train, small_params("reg:squarederror", 100, 6));
  ASSERT_TRUE(b.ok());
  Forest f = forest_of(*b, 8);
  std::vector<float> margin(test.rows);
  f.predict(test.x.data(), test.rows, margin.data());
  Result<std::vector<float>> xgb = b->contributions(test.x.data(), test.rows, test.cols, /*approx=*/true);
  ASSERT_TRUE(xgb.ok()) << xgb.status().to_string();
  ASSERT_EQ(xgb->size(), size_t(test.rows) * 9);
  std::vector<float> c(9);
  for (int r = 0; r < test.rows; ++r) {
    f.contributions(&test.x[size_t(r) * 8], c.data());
    double sum = 0;
    for (float v : c) sum += v;
    EXPECT_NEAR(sum, margin[r], 1e-4) << "row " << r;
    for (int j = 0; j <= 8; ++j) EXPECT_NEAR(c[j], (*xgb)[size_t(r) * 9 + j], 1e-4) << "row " << r << " col " << j;
    EXPECT_EQ(c[3], 0.0f);  // the constant column is never split on
  }
  // Importance: the constant column has none, column 0 (the strongest signal) the most.
  EXPECT_EQ(f.feature_splits()[3], 0);
  EXPECT_EQ(f.feature_gain()[3], 0.0);
  EXPECT_EQ(std::max_element(f.feature_gain().begin(), f.feature_gain().end()) - f.feature_gain().begin(), 0);
}

// ---- malformed models --------------------------------------------------

class ForestErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_xgboost()) GTEST_SKIP() << "built without XGBoost";
    Result<Booster> b = Booster::train(synthetic(200, 5, 81), small_params("reg:squarederror", 3, 3));
    ASSERT_TRUE(b.ok());
    text_ = *b->save_json();
    model_ = nlohmann::json::parse(text_);
  }
  static void expect_parse_error(const Result<Forest>& f, const std::string& needle) {
    ASSERT_FALSE(f.ok()) << "accepted; wanted an error with '" << needle << "'";
    EXPECT_EQ(f.status().code(), StatusCode::parse_error);
    EXPECT_NE(f.status().message().find(needle), std::string::npos) << f.status().message();
  }
  nlohmann::json& tree0() { return model_["learner"]["gradient_booster"]["model"]["trees"][0]; }
  std::string text_;
  nlohmann::json model_;
};

TEST_F(ForestErrors, TruncatedOrCorruptText) {
  expect_parse_error(Forest::from_json(text_.substr(0, text_.size() / 2)), "not valid JSON");
  expect_parse_error(Forest::from_json(""), "not valid JSON");
  expect_parse_error(Forest::from_json("[1, 2, 3]"), "no 'learner'");
  expect_parse_error(Forest::from_ubjson("{Lgarbage"), "not valid UBJSON");
  const auto path = std::filesystem::temp_directory_path() / "gconv_forest_truncated.json";
  std::ofstream(path) << text_.substr(0, 1000);
  Result<Forest> f = Forest::load_file(path.string());
  expect_parse_error(f, path.string());
  std::filesystem::remove(path);
  EXPECT_EQ(Forest::load_file("/nonexistent/gconv/model.json").status().code(), StatusCode::not_found);
}

TEST_F(ForestErrors, WrongFeatureCount) {
  EXPECT_TRUE(Forest::from_json(text_, 5).ok());
  expect_parse_error(Forest::from_json(text_, 6), "the model has 5 features, expected 6");
}

TEST_F(ForestErrors, NotGbtree) {
  Result<Booster> linear = Booster::train(synthetic(200, 5, 82), [] {
    TrainParams p = small_params("reg:squarederror", 3, 3);
    p.extra = {{"booster", "gblinear"}};
    return p;
  }());
  ASSERT_TRUE(linear.ok()) << linear.status().to_string();
  expect_parse_error(Forest::from_json(*linear->save_json()), "booster 'gblinear' is not supported (gbtree only)");
  Result<Booster> dart = Booster::train(synthetic(200, 5, 83), [] {
    TrainParams p = small_params("reg:squarederror", 3, 3);
    p.extra = {{"booster", "dart"}};
    return p;
  }());
  ASSERT_TRUE(dart.ok()) << dart.status().to_string();
  expect_parse_error(Forest::from_json(*dart->save_json()), "booster 'dart'");
}

TEST_F(ForestErrors, MultiClass) {
  TrainData d = synthetic(300, 5, 84);
  for (float& y : d.label) y = y < -0.5f ? 0.0f : y < 0.5f ? 1.0f : 2.0f;
  TrainParams p = small_params("multi:softprob", 3, 3);
  p.extra = {{"num_class", "3"}};
  Result<Booster> b = Booster::train(d, p);
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  expect_parse_error(Forest::from_json(*b->save_json()), "multi-class");
}

TEST_F(ForestErrors, MalformedTrees) {
  nlohmann::json m = model_;
  tree0()["left_children"][0] = 999;
  expect_parse_error(Forest::from_json(model_.dump()), "out of range");
  model_ = m;
  // Node 0's right child points back at the root: a cycle.
  tree0()["right_children"][0] = 0;
  expect_parse_error(Forest::from_json(model_.dump()), "reached twice");
  model_ = m;
  tree0()["split_indices"][0] = 17;
  expect_parse_error(Forest::from_json(model_.dump()), "split feature 17 out of range");
  model_ = m;
  tree0()["split_conditions"].erase(0);
  expect_parse_error(Forest::from_json(model_.dump()), "'split_conditions' has");
  model_ = m;
  tree0()["split_type"][0] = 1;
  expect_parse_error(Forest::from_json(model_.dump()), "categorical");
  model_ = m;
  tree0()["left_children"] = "nope";
  expect_parse_error(Forest::from_json(model_.dump()), "not an array");
  model_ = m;
  model_["learner"]["learner_model_param"]["base_score"] = "half";
  expect_parse_error(Forest::from_json(model_.dump()), "base_score");
  model_ = m;
  model_["learner"]["gradient_booster"]["model"]["tree_info"].push_back(0);
  expect_parse_error(Forest::from_json(model_.dump()), "tree_info");
  model_ = m;
  model_["learner"]["objective"]["name"] = "reg:mystery";
  expect_parse_error(Forest::from_json(model_.dump()), "reg:mystery");
}

// Hand-written model: threshold semantics (x < t goes left, NaN follows
// default_left, equality goes right) and the base score, without XGBoost.
TEST(ForestHandWritten, SplitSemantics) {
  const char* text = R"({"learner": {
    "learner_model_param": {"base_score": "5E-1", "num_feature": "2", "num_class": "0", "num_target": "1"},
    "objective": {"name": "reg:squarederror"},
    "gradient_booster": {"name": "gbtree", "model": {"tree_info": [0, 0], "trees": [
      {"left_children": [1, -1, -1], "right_children": [2, -1, -1], "split_indices": [0, 0, 0],
       "split_conditions": [1.5, 10.0, 20.0], "default_left": [1, 0, 0], "sum_hessian": [4.0, 1.0, 3.0]},
      {"left_children": [1, -1, 3, -1, -1], "right_children": [2, -1, 4, -1, -1], "split_indices": [1, 0, 0, 0, 0],
       "split_conditions": [0.0, 100.0, 2.0, 200.0, 300.0], "default_left": [0, 0, 1, 0, 0],
       "sum_hessian": [4.0, 2.0, 2.0, 1.0, 1.0]}]}}}})";
  Result<Forest> f = Forest::from_json(text, 2);
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  EXPECT_EQ(f->num_trees(), 2);
  const float nan = NAN;
  const float x[] = {1.0f, -1.0f,   // left, left: 0.5 + 10 + 100
                     1.5f, 0.0f,    // equal -> right (20), 0 == 0 -> right, x0 1.5 < 2 -> 200
                     nan, nan,      // default left (10), default right then x0 NaN default left (200)
                     3.0f, 5.0f};   // right (20), right, 3 >= 2 -> right (300)
  float out[4];
  f->predict(x, 4, out);
  EXPECT_EQ(out[0], 110.5f);
  EXPECT_EQ(out[1], 220.5f);
  EXPECT_EQ(out[2], 210.5f);
  EXPECT_EQ(out[3], 320.5f);
  // Contributions of row 3. Node means (cover-weighted): tree 0 root
  // (10*1 + 20*3)/4 = 17.5; tree 1 node 2 (200 + 300)/2 = 250, root
  // (100*2 + 250*2)/4 = 175. Tree 0: x0 gets 20 - 17.5; tree 1: x1 gets
  // 250 - 175, x0 gets 300 - 250. Bias: 0.5 + 17.5 + 175.
  float c[3];
  f->contributions(&x[6], c);
  EXPECT_FLOAT_EQ(c[0], 52.5f);
  EXPECT_FLOAT_EQ(c[1], 75.0f);
  EXPECT_FLOAT_EQ(c[2], 193.0f);
  EXPECT_FLOAT_EQ(c[0] + c[1] + c[2], out[3]);
}

// XGBoost's rule, written plainly: the reference for hand-made models.
float reference_margin(const nlohmann::json& model, const float* row) {
  const auto& learner = model["learner"];
  float sum = std::stof(learner["learner_model_param"]["base_score"].get<std::string>());
  for (const auto& t : learner["gradient_booster"]["model"]["trees"]) {
    int n = 0;
    while (t["left_children"][n].get<int>() >= 0) {
      const float v = row[t["split_indices"][n].get<int>()];
      const bool left = std::isnan(v) ? t["default_left"][n].get<int>() != 0 : v < t["split_conditions"][n].get<float>();
      n = left ? t["left_children"][n].get<int>() : t["right_children"][n].get<int>();
    }
    sum += t["split_conditions"][n].get<float>();
  }
  return sum;
}

nlohmann::json stump(int feature, float threshold, bool default_left, float left_value, float right_value) {
  return {{"left_children", {1, -1, -1}},      {"right_children", {2, -1, -1}},
          {"split_indices", {feature, 0, 0}},  {"split_conditions", {threshold, left_value, right_value}},
          {"default_left", {default_left ? 1 : 0, 0, 0}}, {"sum_hessian", {2.0, 1.0, 1.0}}};
}

// Thresholds JSON cannot carry (NaN, +-inf: UBJSON can), -0.0 against 0.0,
// and a chain deeper than any kernel takes (node by node), mixed with
// ordinary trees so that the order of the sums is kept.
TEST(ForestHandWritten, OddThresholdsAndDeepChainsMatchTheReference) {
  const float inf = INFINITY, nan = NAN;
  nlohmann::json trees = nlohmann::json::array();
  for (bool dl : {true, false}) {
    trees.push_back(stump(0, nan, dl, 1.0f, 2.0f));
    trees.push_back(stump(0, -inf, dl, 4.0f, 8.0f));
    trees.push_back(stump(0, inf, dl, 16.0f, 32.0f));
    trees.push_back(stump(1, 0.0f, dl, 64.0f, 128.0f));
    trees.push_back(stump(1, -0.0f, dl, 256.0f, 512.0f));
  }
  // Chain: node 2k splits x2 < k (left: leaf 2k+1 valued k), else continues.
  const int depth = detail::kMaxSetDepth + 6;
  nlohmann::json chain = {{"left_children", {}}, {"right_children", {}}, {"split_indices", {}},
                          {"split_conditions", {}}, {"default_left", {}}, {"sum_hessian", {}}};
  for (int k = 0; k < depth; ++k) {
    chain["left_children"].push_back(2 * k + 1);
    chain["right_children"].push_back(2 * k + 2);
    chain["split_indices"].push_back(2);
    chain["split_conditions"].push_back(float(k));
    chain["default_left"].push_back(k % 2);
    chain["sum_hessian"].push_back(1.0);
    for (const char* key : {"left_children", "right_children", "split_indices", "default_left"})
      chain[key].push_back(key[0] == 'l' || key[0] == 'r' ? -1 : 0);
    chain["split_conditions"].push_back(float(k) * 0.001f);  // leaf 2k+1
    chain["sum_hessian"].push_back(1.0);
  }
  chain["left_children"].push_back(-1);  // node 2*depth: the last leaf
  chain["right_children"].push_back(-1);
  chain["split_indices"].push_back(0);
  chain["split_conditions"].push_back(-1.0f);
  chain["default_left"].push_back(0);
  chain["sum_hessian"].push_back(1.0);
  trees.insert(trees.begin() + 3, chain);
  nlohmann::json model = {{"learner",
                           {{"learner_model_param", {{"base_score", "2.5E-1"}, {"num_feature", "3"}}},
                            {"objective", {{"name", "reg:squarederror"}}},
                            {"gradient_booster", {{"name", "gbtree"}, {"model", {{"trees", trees}}}}}}}};
  const std::vector<uint8_t> ubj = nlohmann::json::to_ubjson(model);
  Result<Forest> f = Forest::from_ubjson(std::string(ubj.begin(), ubj.end()), 3);
  ASSERT_TRUE(f.ok()) << f.status().to_string();
  EXPECT_EQ(f->num_exact_trees(), 1);

  const float values[] = {nan, -inf, inf, -0.0f, 0.0f, -1.0f, 1.0f, 3.0f, 70.5f, 1e30f};
  std::vector<float> x;
  for (float a : values)
    for (float b : values)
      for (float c : values) x.insert(x.end(), {a, b, c});
  const int rows = int(x.size() / 3);
  std::vector<float> want(rows);
  for (int r = 0; r < rows; ++r) want[r] = reference_margin(model, &x[size_t(r) * 3]);
  EXPECT_EQ(expect_margins(*f, x.data(), rows, want, "hand-written"), 0.0);
}

}  // namespace
}  // namespace gconv::heuristic
